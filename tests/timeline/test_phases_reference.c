/* The dispatch simulator against a plain reference simulation.
 *
 * occ_timeline_simulate is built for speed (a calendar queue, eligible-core
 * bitsets, a steady-state loop, durations drawn in blocks, a step engine for
 * equal durations).  This file simulates the same rules (occ/timeline.h) the
 * plain way: a list of pending retirements searched linearly, every core
 * looked at for every work-group, the state written down at every instant and
 * the phases grouped afterwards.  It shares no code with the simulator; the
 * durations come from the public occ_duration_of and the per-core limits
 * from occ_residency_compute.  Many random small cases (devices, sometimes
 * with few cores, kernels, orders, partial and barrier policies, merges,
 * duration models) must give the same timeline phase by phase, exactly. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "occ/timeline.h"
#include "test_common.h"

#define REQUIRE(cond, ...)                                                                         \
    do {                                                                                           \
        if (!(cond))                                                                               \
            ck_abort_msg(__VA_ARGS__);                                                             \
    } while (0)

/* ---- the reference simulation ----------------------------------------------------- */

typedef struct retirement {
    double time;
    uint32_t core, contexts;
    bool frees_slot;
} retirement;

typedef struct instant {
    double time;
    uint32_t *busy, *wgs; /* per core, after every event of the instant */
} instant;

typedef struct ref_sim {
    /* the rules */
    uint32_t cores, ctx, t, cap;
    bool spread, barrier, split_at_launch, split_refills;
    uint64_t n;
    occ_durations dur;
    /* the state */
    uint32_t *busy, *wgs, *pending, *waiting;
    double *pending_duration;
    bool split_now;
    uint64_t next;
    retirement *ev;
    size_t n_ev, cap_ev;
    instant *inst;
    size_t n_inst, cap_inst;
} ref_sim;

static void push(ref_sim *r, double time, uint32_t core, uint32_t contexts, bool frees_slot)
{
    if (r->n_ev == r->cap_ev) {
        r->cap_ev = r->cap_ev ? 2 * r->cap_ev : 64;
        r->ev = realloc(r->ev, r->cap_ev * sizeof *r->ev);
        ck_assert_ptr_nonnull(r->ev);
    }
    r->ev[r->n_ev++] = (retirement){time, core, contexts, frees_slot};
}

static bool can_take(const ref_sim *r, uint32_t c)
{
    if (r->wgs[c] >= r->cap || r->pending[c])
        return false;
    uint32_t free_ctx = r->ctx - r->busy[c];
    return r->split_now ? free_ctx >= 1 : free_ctx >= r->t;
}

/* pack: the lowest-numbered core that can take it; spread: the least busy one */
static uint32_t choose(const ref_sim *r)
{
    uint32_t best = UINT32_MAX;
    for (uint32_t c = 0; c < r->cores; c++)
        if (can_take(r, c) && (best == UINT32_MAX || (r->spread && r->busy[c] < r->busy[best])))
            best = c;
    return best;
}

static void dispatch(ref_sim *r, double T)
{
    for (;;) {
        if (r->next == r->n)
            return;
        uint32_t c = choose(r);
        if (c == UINT32_MAX)
            return;
        double d = occ_duration_of(&r->dur, r->next++);
        uint32_t free_ctx = r->ctx - r->busy[c];
        uint32_t got = free_ctx < r->t ? free_ctx : r->t;
        r->busy[c] += got;
        r->wgs[c]++;
        if (got == r->t) {
            push(r, T + d, c, got, true);
            continue;
        }
        r->pending[c] = r->t - got;
        r->pending_duration[c] = d;
        if (r->barrier)
            r->waiting[c] = got; /* waits for the rest at the barrier */
        else
            push(r, T + d, c, got, false);
    }
}

/* Threads of core c's split work-group take the contexts that are free there. */
static void serve(ref_sim *r, uint32_t c, double T)
{
    uint32_t free_ctx = r->ctx - r->busy[c];
    uint32_t got = r->pending[c] < free_ctx ? r->pending[c] : free_ctx;
    if (got == 0)
        return;
    r->busy[c] += got;
    r->pending[c] -= got;
    bool last = r->pending[c] == 0;
    if (!r->barrier) {
        push(r, T + r->pending_duration[c], c, got, last);
    } else {
        r->waiting[c] += got;
        if (last) { /* the barrier opens: all its threads run from now */
            push(r, T + r->pending_duration[c], c, r->waiting[c], true);
            r->waiting[c] = 0;
        }
    }
}

static void note_instant(ref_sim *r, double T)
{
    if (r->n_inst == r->cap_inst) {
        r->cap_inst = r->cap_inst ? 2 * r->cap_inst : 64;
        r->inst = realloc(r->inst, r->cap_inst * sizeof *r->inst);
        ck_assert_ptr_nonnull(r->inst);
    }
    instant *in = &r->inst[r->n_inst++];
    in->time = T;
    in->busy = malloc(r->cores * sizeof *in->busy);
    in->wgs = malloc(r->cores * sizeof *in->wgs);
    ck_assert(in->busy && in->wgs);
    memcpy(in->busy, r->busy, r->cores * sizeof *in->busy);
    memcpy(in->wgs, r->wgs, r->cores * sizeof *in->wgs);
}

static void run_reference(ref_sim *r)
{
    r->split_now = r->split_at_launch;
    dispatch(r, 0);
    r->split_now = r->split_refills;
    note_instant(r, 0);
    while (r->n_ev) {
        double T = r->ev[0].time;
        for (size_t i = 1; i < r->n_ev; i++)
            if (r->ev[i].time < T)
                T = r->ev[i].time;
        for (size_t i = 0; i < r->n_ev;) {
            if (r->ev[i].time != T) {
                i++;
                continue;
            }
            r->busy[r->ev[i].core] -= r->ev[i].contexts;
            if (r->ev[i].frees_slot)
                r->wgs[r->ev[i].core]--;
            r->ev[i] = r->ev[--r->n_ev];
        }
        for (uint32_t c = 0; c < r->cores; c++)
            if (r->pending[c])
                serve(r, c, T);
        dispatch(r, T);
        note_instant(r, T);
    }
}

/* Phases from the instants: a phase ends where some core's busy contexts
 * change (merge SAME_CONTEXTS) or at every instant (NONE); the last instant
 * (all idle) only ends the last phase. */
typedef struct ref_phases {
    size_t n;
    occ_phase *ph;
    uint32_t *lanes_ctx, *lanes_wgs;
    double area;
    uint64_t peak;
    uint32_t peak_core_wgs;
} ref_phases;

static ref_phases group_phases(const ref_sim *r, occ_merge merge)
{
    ref_phases p = {0};
    const uint32_t C = r->cores;
    p.ph = calloc(r->n_inst, sizeof *p.ph);
    p.lanes_ctx = calloc((size_t)r->n_inst * C, sizeof *p.lanes_ctx);
    p.lanes_wgs = calloc((size_t)r->n_inst * C, sizeof *p.lanes_wgs);
    ck_assert(p.ph && p.lanes_ctx && p.lanes_wgs);
    size_t open = 0; /* the instant that opened the present phase */
    uint64_t wg_most = 0;
    for (size_t i = 0; i < r->n_inst; i++) {
        const instant *in = &r->inst[i];
        uint64_t busy_sum = 0, wgs_sum = 0;
        for (uint32_t c = 0; c < C; c++) {
            busy_sum += in->busy[c];
            wgs_sum += in->wgs[c];
            if (in->wgs[c] > p.peak_core_wgs)
                p.peak_core_wgs = in->wgs[c];
        }
        if (busy_sum > p.peak)
            p.peak = busy_sum;
        bool ends = i > 0 && (merge == OCC_MERGE_NONE ||
                              memcmp(in->busy, r->inst[open].busy, C * sizeof *in->busy) != 0);
        if (ends) {
            occ_phase *ph = &p.ph[p.n];
            const instant *o = &r->inst[open];
            ph->start = o->time;
            ph->end = in->time;
            ph->work_groups = wg_most;
            ph->thread_contexts = 0;
            ph->cores_busy = 0;
            for (uint32_t c = 0; c < C; c++) {
                ph->thread_contexts += o->busy[c];
                ph->cores_busy += o->busy[c] != 0;
                p.lanes_ctx[p.n * C + c] = o->busy[c];
                uint32_t most = 0;
                for (size_t j = open; j < i; j++)
                    if (r->inst[j].wgs[c] > most)
                        most = r->inst[j].wgs[c];
                p.lanes_wgs[p.n * C + c] = most;
            }
            p.area += (double)ph->thread_contexts * (ph->end - ph->start);
            p.n++;
            open = i;
            wg_most = 0;
        }
        if (wgs_sum > wg_most)
            wg_most = wgs_sum;
    }
    return p;
}

static void ref_free(ref_sim *r, ref_phases *p)
{
    for (size_t i = 0; i < r->n_inst; i++) {
        free(r->inst[i].busy);
        free(r->inst[i].wgs);
    }
    free(r->inst);
    free(r->ev);
    free(r->busy);
    free(r->wgs);
    free(r->pending);
    free(r->waiting);
    free(r->pending_duration);
    free(p->ph);
    free(p->lanes_ctx);
    free(p->lanes_wgs);
}

/* ---- random cases --------------------------------------------------------------------- */

static occ_device *random_device(tc_rng *g)
{
    occ_device *base = tc_builtin(occ_builtin_name(tc_range(g, 0, occ_builtin_count() - 1)));
    if (tc_range(g, 0, 2))
        return base;
    /* few cores: more work-groups per core, more waiting */
    occ_device_desc d = *occ_device_describe(base);
    occ_device_free(base);
    tc_desc_set_cores(&d, (uint32_t)tc_range(g, 1, 4));
    occ_device *dev = NULL;
    occ_diag diag;
    ck_assert_int_eq(occ_device_create(&d, &dev, &diag), OCC_OK);
    return dev;
}

/* Durations: equal, small integers (many ties), random lists, uniform,
 * normal (wide ones redraw values <= 0), lognormal and bimodal lists. */
static const char *random_durations(tc_rng *g, occ_durations *d, double *buf, size_t n_buf)
{
    memset(d, 0, sizeof *d);
    size_t n = tc_range(g, 1, n_buf);
    switch (tc_range(g, 0, 6)) {
    case 0:
        d->kind = OCC_DURATIONS_EQUAL;
        return "equal";
    case 1:
        for (size_t i = 0; i < n; i++)
            buf[i] = (double)tc_range(g, 1, 4);
        *d = (occ_durations){.kind = OCC_DURATIONS_LIST, .values = buf, .n_values = n};
        return "small integers";
    case 2:
        for (size_t i = 0; i < n; i++)
            buf[i] = 0.01 + (double)tc_range(g, 0, 1000000) / 1e5;
        *d = (occ_durations){.kind = OCC_DURATIONS_LIST, .values = buf, .n_values = n};
        return "list";
    case 3:
        *d = (occ_durations){.kind = OCC_DURATIONS_UNIFORM, .a = 0.25 + (double)tc_range(g, 0, 100) / 100,
                             .seed = tc_next(g)};
        d->b = d->a + (double)tc_range(g, 0, 300) / 100;
        return "uniform";
    case 4:
        *d = (occ_durations){.kind = OCC_DURATIONS_NORMAL, .a = 1,
                             .b = (double)tc_range(g, 0, 300) / 100, .seed = tc_next(g)};
        return "normal";
    case 5:
        for (size_t i = 0; i < n; i++) {
            double u = ((double)tc_range(g, 1, 999999)) / 1e6;
            buf[i] = exp(0.6 * (u - 0.5) * 4);
        }
        *d = (occ_durations){.kind = OCC_DURATIONS_LIST, .values = buf, .n_values = n};
        return "lognormal-like";
    default:
        for (size_t i = 0; i < n; i++)
            buf[i] = tc_range(g, 0, 9) ? 1 + (double)tc_range(g, 0, 100) / 1000
                                       : 4 + (double)tc_range(g, 0, 100) / 250;
        *d = (occ_durations){.kind = OCC_DURATIONS_LIST, .values = buf, .n_values = n};
        return "bimodal";
    }
}

START_TEST(simulator_equals_reference)
{
    tc_rng g = {0x7e7e0000u + (uint64_t)_i};
    double buf[200];
    int compared = 0;
    for (int iter = 0; iter < 150; iter++) {
        occ_device *dev = random_device(&g);
        const occ_device_desc *desc = occ_device_describe(dev);
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
        o.max_phases = 1000000;
        const char *dname = random_durations(&g, &o.durations, buf, 200);
        o.force_events = o.durations.kind == OCC_DURATIONS_EQUAL && tc_range(&g, 0, 1);
        uint64_t n = tc_range(&g, 1, tc_range(&g, 0, 4) ? 400 : 4000);

        /* the reference's rules, from the documented model */
        ref_sim r;
        memset(&r, 0, sizeof r);
        r.cores = desc->cores;
        r.ctx = res.contexts_per_core;
        r.t = res.contexts_per_wg;
        r.cap = r.ctx;
        for (int i = 0; i < OCC_RES_COUNT; i++)
            if (i != OCC_RES_THREADS && res.limits[i] < r.cap)
                r.cap = res.limits[i];
        occ_dispatch_order order = o.order ? o.order : desc->dispatch_order;
        r.spread = order == OCC_DISPATCH_SPREAD;
        occ_partial_policy partial = o.partial;
        if (partial == OCC_PARTIAL_DEVICE)
            partial = desc->partial_dispatch ? OCC_PARTIAL_LAUNCH : OCC_PARTIAL_NO;
        if (k.barrier && o.barrier_split == OCC_BARRIER_SPLIT_NEVER)
            partial = OCC_PARTIAL_NO;
        r.split_at_launch = partial != OCC_PARTIAL_NO;
        r.split_refills = partial == OCC_PARTIAL_ALWAYS;
        r.barrier = k.barrier;
        r.n = n;
        r.dur = o.durations;
        r.busy = calloc(r.cores, sizeof *r.busy);
        r.wgs = calloc(r.cores, sizeof *r.wgs);
        r.pending = calloc(r.cores, sizeof *r.pending);
        r.waiting = calloc(r.cores, sizeof *r.waiting);
        r.pending_duration = calloc(r.cores, sizeof *r.pending_duration);
        ck_assert(r.busy && r.wgs && r.pending && r.waiting && r.pending_duration);
        run_reference(&r);
        ref_phases want = group_phases(&r, o.merge);

        occ_timeline got;
        occ_diag diag;
        occ_status st = occ_timeline_simulate(dev, &k, n, &o, &got, &diag);
        ck_assert_msg(st == OCC_OK, "%s: %s", occ_status_name(st), diag.message);
        const char *what = desc->name;
        REQUIRE(got.n_phases == want.n,
                "case %d (%s, %u cores, %llu WGs, %s, order %d partial %d barrier %d merge %d): "
                "%zu phases, the reference has %zu",
                iter, what, r.cores, (unsigned long long)n, dname, (int)order, (int)partial,
                (int)k.barrier, (int)o.merge, got.n_phases, want.n);
        for (size_t i = 0; i < want.n; i++) {
            const occ_phase *a = &got.phases[i], *b = &want.ph[i];
            REQUIRE(a->start == b->start && a->end == b->end &&
                        a->thread_contexts == b->thread_contexts &&
                        a->work_groups == b->work_groups && a->cores_busy == b->cores_busy,
                    "case %d (%s, %s) phase %zu: [%.17g, %.17g) %llu contexts %llu WGs %u cores; "
                    "the reference: [%.17g, %.17g) %llu contexts %llu WGs %u cores",
                    iter, what, dname, i, a->start, a->end, (unsigned long long)a->thread_contexts,
                    (unsigned long long)a->work_groups, a->cores_busy, b->start, b->end,
                    (unsigned long long)b->thread_contexts, (unsigned long long)b->work_groups,
                    b->cores_busy);
            REQUIRE(!memcmp(got.core_contexts + i * r.cores, want.lanes_ctx + i * r.cores,
                            r.cores * sizeof(uint32_t)) &&
                        !memcmp(got.core_work_groups + i * r.cores, want.lanes_wgs + i * r.cores,
                                r.cores * sizeof(uint32_t)),
                    "case %d (%s, %s) phase %zu: per-core lanes differ", iter, what, dname, i);
        }
        ck_assert_double_eq(got.end, r.inst[r.n_inst - 1].time);
        ck_assert_double_eq(got.busy_context_time, want.area);
        ck_assert_uint_eq(got.peak_thread_contexts, want.peak);
        ck_assert_uint_eq(got.peak_core_work_groups, want.peak_core_wgs);
        ck_assert_uint_eq(got.work_groups, n);
        compared++;
        occ_timeline_free(&got);
        ref_free(&r, &want);
        occ_device_free(dev);
    }
    ck_assert_int_ge(compared, 100); /* most random kernels launch */
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("phases-reference");
    TCase *tc = tcase_create("random");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, simulator_equals_reference, 0, 8);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return tc_run(suite());
}
