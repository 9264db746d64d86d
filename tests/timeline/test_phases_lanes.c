/* The simulator's lanes (timeline_sim.c: the steady state with at most 16
 * events in flight, outside the calendar) against the calendar alone, bit for
 * bit: the same phases, per-core lanes and summary, and the same trace, chunk
 * by chunk and in the same order (the order of equal times included).  Random
 * devices with few cores (few events in flight), kernels, policies and
 * duration models -- lists of small integers (many equal times), uniform,
 * normal, lognormal-like and bimodal lists, short lists -- and enough
 * work-groups for the lanes to start, stop at events that are not steady and
 * start again; both copies of the lanes (with and without AVX2). */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "test_common.h"
#include "timeline/timeline_internal.h"


static const char *random_durations(tc_rng *g, occ_durations *d, double *buf, size_t n_buf)
{
    memset(d, 0, sizeof *d);
    size_t n = tc_range(g, 1, n_buf);
    switch (tc_range(g, 0, 5)) {
    case 0:
        for (size_t i = 0; i < n; i++)
            buf[i] = (double)tc_range(g, 1, 4);
        *d = (occ_durations){.kind = OCC_DURATIONS_LIST, .values = buf, .n_values = n};
        return "small integers";
    case 1:
        *d = (occ_durations){.kind = OCC_DURATIONS_UNIFORM, .a = 0.25 + (double)tc_range(g, 0, 100) / 100,
                             .seed = tc_next(g)};
        d->b = d->a + (double)tc_range(g, 0, 300) / 100;
        return "uniform";
    case 2:
        *d = (occ_durations){.kind = OCC_DURATIONS_NORMAL, .a = 1,
                             .b = (double)tc_range(g, 0, 100) / 100, .seed = tc_next(g)};
        return "normal";
    case 3:
        for (size_t i = 0; i < n; i++)
            buf[i] = exp(0.6 * ((double)tc_range(g, 1, 999999) / 1e6 - 0.5) * 4);
        *d = (occ_durations){.kind = OCC_DURATIONS_LIST, .values = buf, .n_values = n};
        return "lognormal-like";
    case 4:
        for (size_t i = 0; i < n; i++)
            buf[i] = tc_range(g, 0, 9) ? 1 + (double)tc_range(g, 0, 100) / 1000
                                       : 4 + (double)tc_range(g, 0, 100) / 250;
        *d = (occ_durations){.kind = OCC_DURATIONS_LIST, .values = buf, .n_values = n};
        return "bimodal";
    default: /* values on a coarse grid: equal times now and then */
        for (size_t i = 0; i < n; i++)
            buf[i] = 0.5 + (double)tc_range(g, 0, 64) / 64;
        *d = (occ_durations){.kind = OCC_DURATIONS_LIST, .values = buf, .n_values = n};
        return "grid";
    }
}

static occ_status run(const occ_device *dev, const occ_kernel *k, uint64_t n,
                      const occ_sim_options *o, bool lanes, bool base, occ_timeline *tl,
                      tc_trace *tb)
{
    occ__lanes_hook.off = !lanes;
    occ__lanes_hook.base = base;
    occ_sim_options t = *o;
    if (tb) {
        t.trace = tc_trace_collect;
        t.trace_user = tb;
    }
    occ_status st = occ_timeline_simulate(dev, k, n, &t, tl, NULL);
    occ__lanes_hook.off = occ__lanes_hook.base = false;
    return st;
}

START_TEST(lanes_equal_calendar)
{
    tc_rng g = {0x1a2e5000u + (uint64_t)_i};
    double buf[1000];
    uint64_t runs0 = atomic_load(&occ__lanes_hook.runs);
    int compared = 0;
    for (int iter = 0; iter < 60; iter++) {
        occ_device *base = tc_builtin(occ_builtin_name(tc_range(&g, 0, occ_builtin_count() - 1)));
        occ_device_desc desc = *occ_device_describe(base);
        occ_device_free(base);
        tc_desc_set_cores(&desc, (uint32_t)tc_range(&g, 1, 6)); /* few cores: few events in flight */
        occ_device *dev = NULL;
        occ_diag diag;
        ck_assert_int_eq(occ_device_create(&desc, &dev, &diag), OCC_OK);
        occ_kernel k;
        occ_residency res;
        if (!tc_random_launchable(&g, dev, &k, &res)) {
            occ_device_free(dev);
            continue;
        }
        occ_sim_options o;
        occ_sim_options_init(&o);
        tc_random_policies(&g, &o);
        o.lanes = true;
        o.max_phases = 2000000;
        const char *dname = random_durations(&g, &o.durations, buf, tc_range(&g, 0, 1) ? 1000 : 20);
        uint64_t n = tc_range(&g, 1000, 20000);
        bool traced = tc_range(&g, 0, 1);
        tc_trace ta = {0}, tb = {0};
        occ_timeline a, b;
        /* the lanes' copy without AVX2 in every other case (the other where the CPU has it) */
        ck_assert_int_eq(run(dev, &k, n, &o, false, false, &a, traced ? &ta : NULL), OCC_OK);
        ck_assert_int_eq(run(dev, &k, n, &o, true, iter % 2, &b, traced ? &tb : NULL), OCC_OK);
        ck_assert_msg(a.n_phases == b.n_phases, "case %d (%s, %u cores, %llu WGs): %zu phases, lanes %zu",
                      iter, dname, desc.cores, (unsigned long long)n, a.n_phases, b.n_phases);
        for (size_t i = 0; i < a.n_phases; i++) {
            const occ_phase *x = &a.phases[i], *y = &b.phases[i];
            ck_assert_msg(!memcmp(&x->start, &y->start, sizeof x->start) &&
                              !memcmp(&x->end, &y->end, sizeof x->end) &&
                              x->work_groups == y->work_groups &&
                              x->thread_contexts == y->thread_contexts &&
                              x->cores_busy == y->cores_busy,
                          "case %d (%s): phase %zu differs", iter, dname, i);
        }
        ck_assert(!memcmp(a.core_contexts, b.core_contexts,
                          a.n_phases * a.cores * sizeof *a.core_contexts));
        ck_assert(!memcmp(a.core_work_groups, b.core_work_groups,
                          a.n_phases * a.cores * sizeof *a.core_work_groups));
        ck_assert(!memcmp(&a.end, &b.end, sizeof a.end));
        ck_assert(!memcmp(&a.busy_context_time, &b.busy_context_time, sizeof a.busy_context_time));
        ck_assert_uint_eq(a.peak_thread_contexts, b.peak_thread_contexts);
        ck_assert_uint_eq(ta.n, tb.n);
        for (size_t i = 0; i < ta.n; i++)
            ck_assert_msg(!memcmp(&ta.c[i], &tb.c[i], sizeof ta.c[i]),
                          "case %d (%s): chunk %zu differs (work-group %llu / %llu)", iter, dname,
                          i, (unsigned long long)ta.c[i].work_group,
                          (unsigned long long)tb.c[i].work_group);
        free(ta.c);
        free(tb.c);
        occ_timeline_free(&a);
        occ_timeline_free(&b);
        occ_device_free(dev);
        compared++;
    }
    ck_assert_int_ge(compared, 40);
    ck_assert_uint_ge(atomic_load(&occ__lanes_hook.runs) - runs0, 10); /* the lanes did run (about 20 times) */
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("phases-lanes");
    TCase *tc = tcase_create("lanes");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, lanes_equal_calendar, 0, 4);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return tc_run(suite());
}
