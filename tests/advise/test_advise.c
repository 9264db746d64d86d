/* The advisor (occ/advise.h) against independent references:
 *  - the guide's examples (seed 003): the 3-D range (64, 64, 64) and the R table;
 *  - Intel's GPU Occupancy Calculator's rules (docs/sources.md, Intel facts; the
 *    calculator in oneAPI-samples, Tools/GPU-Occupancy-Calculator):
 *    its valid work-group list and its 100 % table, written again here from
 *    those rules, on every Intel profile; and the cases where occ differs on
 *    purpose (partial sub-groups, the SLM limit, the tail wave);
 *  - brute force: every shape, sub-group and GRF mode evaluated one by one
 *    with occ_residency_compute, for random requests on every profile;
 *  - bounds, SLM limits, sweeps and limits against exhaustive scans;
 *  - batch results equal one-by-one results on every profile;
 *  - every "nothing valid" stage and contradiction, and threads. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "occ/advise.h"
#include "test_common.h"

/* Built-in profile i, or for i == occ_builtin_count() a device whose legal
 * shared-memory sizes jump (0, 8 KB, 100 KB, 228 KB): there a block just over
 * 8 KB gets 100 KB and residency is not monotone in shared memory, which the
 * shipped profiles never show. */
static occ_device *test_device(size_t i)
{
    if (i < occ_builtin_count())
        return tc_builtin(occ_builtin_name(i));
    occ_device *h = tc_builtin("h100-sxm");
    occ_device_desc d = *occ_device_describe(h);
    occ_device_free(h);
    snprintf(d.name, sizeof d.name, "odd-carveouts");
    d.n_carveouts = 4;
    d.carveouts[0] = 0, d.carveouts[1] = 8192, d.carveouts[2] = 100 * 1024, d.carveouts[3] = d.slm_per_core;
    occ_device *dev = NULL;
    occ_diag diag;
    ck_assert_int_eq(occ_device_create(&d, &dev, &diag), OCC_OK);
    return dev;
}

static occ_advise_request request(uint32_t dims, uint64_t x, uint64_t y, uint64_t z)
{
    occ_advise_request q;
    occ_advise_request_init(&q);
    q.dims = dims;
    q.global[0] = x, q.global[1] = y, q.global[2] = z;
    return q;
}

static size_t advise(const occ_device *dev, const occ_advise_request *q, occ_advice *out, size_t cap,
                     occ_advise_summary *s)
{
    size_t n = 99999;
    occ_status st = occ_advise(dev, q, out, cap, &n, s);
    ck_assert_msg(st == OCC_OK, "occ_advise: %s: %s", occ_status_name(st), s->message);
    return n;
}

/* ---- the guide's examples ------------------------------------------------------ */

/* "for the 3-D range (64, 64, 64) on tgl the best choices fill all 112
 * contexts of an Xe-core" */
START_TEST(guide_3d_range_fills_the_xe_core)
{
    occ_device *dev = tc_builtin("tgl");
    occ_advise_request q = request(3, 64, 64, 64);
    occ_advice a[10];
    occ_advise_summary s;
    size_t n = advise(dev, &q, a, 10, &s);
    ck_assert_uint_eq(n, 10);
    for (size_t i = 0; i < n; i++) {
        ck_assert_uint_eq(a[i].contexts_per_core, 112);
        ck_assert_uint_eq(a[i].contexts_used, 112);
        ck_assert_double_eq(a[i].lane_utilization, 1.0);
        ck_assert_uint_eq(a[i].rank, i + 1);
    }
    ck_assert(a[0].is_best);
    /* 16 contexts per work-group (the guide's 64-thread maximum over 4): 128 at
     * SIMD 8; 2048 work-groups in waves of 42: 48 full and one of 32 */
    ck_assert_uint_eq(a[0].wg_size, 128);
    ck_assert_uint_eq(a[0].sub_group, 8);
    ck_assert_uint_eq(a[0].resident_wgs, 7);
    ck_assert_uint_eq(a[0].work_groups, 2048);
    ck_assert_uint_eq(a[0].waves, 49);
    ck_assert_double_eq_tol(a[0].gpu_occupancy, (48 + 32.0 / 42) / 49, 1e-12);
    /* every shape of the 262144-item range with at most 512 items: per
     * dimension a power of two 2^i, 2^j, 2^k with i + j + k <= 9, each <= 6 */
    uint64_t shapes = 0;
    for (int i = 0; i <= 6; i++)
        for (int j = 0; j <= 6; j++)
            for (int k = 0; k <= 6; k++)
                shapes += i + j + k <= 9;
    ck_assert_uint_eq(s.shapes, shapes);
    ck_assert_uint_eq(s.sizes, 10);
    ck_assert_uint_eq(s.configurations, 30);
    occ_device_free(dev);
}
END_TEST

/* The R table: global (64, 64, 128), work-group (1, R, 128), sub-group 8,
 * barrier.  The advisor prefers R = 1 (7 work-groups, 100 %) over R = 4
 * (57 %) and says why. */
START_TEST(guide_r_table_prefers_r1)
{
    occ_device *dev = tc_builtin("tgl");
    occ_advise_request q = request(3, 64, 64, 128);
    q.wg_fixed[0] = 1, q.wg_fixed[2] = 128;
    q.n_sub_groups = 1, q.sub_groups[0] = 8;
    q.barrier = true;
    occ_advice a[8];
    occ_advise_summary s;
    size_t n = advise(dev, &q, a, 8, &s);
    ck_assert_uint_eq(n, 3); /* R = 1, 2, 4; R = 3 does not divide 64, R = 8 is over 512 */
    ck_assert_uint_eq(s.shapes, 3);
    uint32_t R[3] = {1, 2, 4}, resident[3] = {7, 3, 1};
    for (int i = 0; i < 3; i++) {
        ck_assert_uint_eq(a[i].wg[0], 1);
        ck_assert_uint_eq(a[i].wg[1], R[i]);
        ck_assert_uint_eq(a[i].wg[2], 128);
        ck_assert_uint_eq(a[i].resident_wgs, resident[i]);
    }
    ck_assert_double_eq(a[0].occupancy, 1.0);
    ck_assert_double_eq_tol(a[2].occupancy, 4.0 / 7, 1e-12);
    ck_assert_int_eq(a[2].why, OCC_WHY_CORE_OCCUPANCY);
    ck_assert_int_eq(a[0].why, OCC_WHY_CORE_OCCUPANCY);
    char best[512], r4[512];
    occ_advice_explain(dev, &a[0], &a[0], best, sizeof best);
    occ_advice_explain(dev, &a[2], &a[0], r4, sizeof r4);
    ck_assert_msg(strstr(best, "7 work-groups x 16 contexts fill all 112"), "%s", best);
    ck_assert_msg(strstr(r4, "57.1 % per Xe-core: 1 work-group x 64 contexts, the 48 left cannot "
                             "hold another (limited by thread contexts)"), "%s", r4);
    /* the explanation's length is what snprintf would need */
    ck_assert_uint_eq(occ_advice_explain(dev, &a[2], &a[0], NULL, 0), strlen(r4));
    occ_device_free(dev);
}
END_TEST

/* ---- Intel's calculator's rules ---------------------------------------------------
 * Written from the calculator's rule (docs/sources.md): per Xe-core, threads per
 * work-group W / S, work-groups by threads floor(T / t), by SLM floor(SLM per
 * core / step-rounded L) (no limit without SLM), capped by the barrier count
 * (with a barrier) or the work-group maximum, and by the work-group count;
 * T in the 128-GRF (default) mode. */
typedef struct intel_ss {
    uint32_t num_wg;
    double occupancy;
} intel_ss;

static intel_ss intel_rule(const occ_device_desc *d, uint64_t W, uint32_t S, uint64_t slm, bool barrier,
                           uint64_t wg_count)
{
    double T = occ_desc_contexts_per_core(d, d->default_grf);
    double t = (double)W / S;
    uint64_t cap = barrier ? d->barriers_per_core : d->max_work_groups_per_core;
    uint64_t by_threads = (uint64_t)floor(T / t);
    uint64_t step = 0;
    for (uint32_t i = 0; slm && i < d->n_slm_steps; i++)
        if (d->slm_steps[i] >= slm) {
            step = d->slm_steps[i];
            break;
        }
    uint64_t by_slm = slm ? d->slm_per_core / step : cap;
    uint64_t num = by_threads < by_slm ? by_threads : by_slm;
    if (num > cap)
        num = cap;
    if (num > wg_count)
        num = wg_count;
    intel_ss r = {(uint32_t)num, t * (double)num / T};
    return r;
}

static bool is_intel(const occ_device_desc *d) { return d->vendor == OCC_VENDOR_INTEL; }

/* The calculator's valid work-group list: per-dimension divisors with a
 * product of at most the maximum.  Counted per size. */
/* Values v <= max that divide g, ascending. */
static size_t divisor_list(uint64_t g, uint32_t max, uint32_t *out)
{
    size_t n = 0;
    for (uint32_t v = 1; v <= max; v++)
        if (g % v == 0)
            out[n++] = v;
    return n;
}

static uint64_t intel_valid_shapes(const occ_device_desc *d, const uint64_t *g, uint32_t dims,
                                   uint64_t *per_size)
{
    uint32_t max = d->max_work_group_size;
    uint32_t *v = malloc(3 * (max + 1) * sizeof *v);
    size_t n3[3];
    for (uint32_t i = 0; i < 3; i++)
        n3[i] = i < dims ? divisor_list(g[i], max, v + i * (max + 1)) : (v[i * (max + 1)] = 1, 1);
    uint64_t n = 0;
    for (size_t a = 0; a < n3[0]; a++)
        for (size_t b = 0; b < n3[1]; b++)
            for (size_t c = 0; c < n3[2]; c++) {
                uint64_t W = (uint64_t)v[a] * v[(max + 1) + b] * v[2 * (max + 1) + c];
                if (W <= max)
                    per_size[W]++, n++;
            }
    free(v);
    return n;
}

static const uint64_t intel_globals[][4] = {
    {1, 4096, 1, 1}, {1, 1000, 1, 1},  {1, 97, 1, 1},    {1, 720720, 1, 1}, {2, 1024, 768, 1},
    {2, 96, 200, 1}, {3, 64, 64, 64},  {3, 24, 60, 7},   {3, 1024, 1024, 64}, {2, 1920, 1080, 1},
};

/* Valid work-group list: the same shapes, and for sizes that are multiples of
 * the sub-group size (and a run with at least a core's worth of work-groups)
 * the same work-groups per core and occupancy. */
START_TEST(intel_valid_work_group_list)
{
    for (size_t di = 0; di < occ_builtin_count(); di++) {
        occ_device *dev = tc_builtin(occ_builtin_name(di));
        const occ_device_desc *d = occ_device_describe(dev);
        if (!is_intel(d)) {
            occ_device_free(dev);
            continue;
        }
        uint64_t *per_size = calloc(d->max_work_group_size + 1, sizeof *per_size);
        size_t cap = (d->max_work_group_size + 1) * d->n_sub_group_sizes * d->n_grf_modes;
        occ_advice *a = calloc(cap, sizeof *a);
        for (size_t gi = 0; gi < sizeof intel_globals / sizeof intel_globals[0]; gi++) {
            const uint64_t *g = &intel_globals[gi][1];
            uint32_t dims = (uint32_t)intel_globals[gi][0];
            memset(per_size, 0, (d->max_work_group_size + 1) * sizeof *per_size);
            uint64_t n_intel = intel_valid_shapes(d, g, dims, per_size);
            for (int barrier = 0; barrier <= 1; barrier++) {
                occ_advise_request q = request(dims, g[0], g[1], g[2]);
                q.grf = d->default_grf;
                q.barrier = barrier;
                occ_advise_summary s;
                size_t n = advise(dev, &q, a, cap, &s);
                ck_assert_uint_eq(s.shapes, n_intel);
                uint64_t items = g[0] * g[1] * g[2];
                for (size_t i = 0; i < n; i++) {
                    const occ_advice *e = &a[i];
                    ck_assert_msg(per_size[e->wg_size] == e->shapes, "%s size %llu: %llu vs %llu shapes",
                                  d->name, (unsigned long long)e->wg_size,
                                  (unsigned long long)per_size[e->wg_size], (unsigned long long)e->shapes);
                    uint32_t sh[64][3];
                    uint64_t ns = occ_advise_shapes(dev, &q, e->wg_size, sh, 64);
                    ck_assert_uint_eq(ns, e->shapes);
                    for (uint64_t k = 0; k < ns && k < 64; k++) {
                        ck_assert_uint_eq((uint64_t)sh[k][0] * sh[k][1] * sh[k][2], e->wg_size);
                        ck_assert(g[0] % sh[k][0] == 0 && g[1] % sh[k][1] == 0 && g[2] % sh[k][2] == 0);
                    }
                    if (e->grf != d->default_grf || e->wg_size % e->sub_group)
                        continue;
                    intel_ss ref = intel_rule(d, e->wg_size, e->sub_group, 0, barrier, items / e->wg_size);
                    if (items / e->wg_size < e->resident_wgs)
                        continue; /* fewer work-groups than a core holds: see below */
                    ck_assert_uint_eq(e->resident_wgs, ref.num_wg);
                    ck_assert_double_eq_tol(e->occupancy, ref.occupancy, 1e-12);
                }
                /* every valid size is in the list, with every supported sub-group */
                uint64_t sizes = 0;
                for (uint32_t W = 1; W <= d->max_work_group_size; W++)
                    sizes += per_size[W] != 0;
                ck_assert_uint_eq(s.sizes, sizes);
            }
        }
        free(a);
        free(per_size);
        occ_device_free(dev);
    }
}
END_TEST

/* The 100 % table: the calculator walks work-group sizes max, max - 8, ...
 * for every sub-group size, SLM 0, the work-group count at its maximum, and
 * lists those reaching the threshold with an SLM limit of the core's SLM over
 * the work-groups.  occ lists the same (size, sub-group) pairs for sizes that
 * are multiples of the sub-group size; its SLM limit is the calculator's
 * rounded down to an allocation step (checked here, and why in the next
 * test). */
START_TEST(intel_hundred_percent_table)
{
    static const double thresholds[] = {1.0, 0.9, 0.75, 0.5};
    for (size_t di = 0; di < occ_builtin_count(); di++) {
        occ_device *dev = tc_builtin(occ_builtin_name(di));
        const occ_device_desc *d = occ_device_describe(dev);
        if (!is_intel(d)) {
            occ_device_free(dev);
            continue;
        }
        size_t cap = (d->max_work_group_size + 1) * d->n_sub_group_sizes * d->n_grf_modes;
        occ_advice *a = calloc(cap, sizeof *a);
        for (size_t ti = 0; ti < 4; ti++)
            for (int barrier = 0; barrier <= 1; barrier++) {
                occ_advise_request q;
                occ_advise_request_init(&q);
                q.threshold = thresholds[ti];
                q.barrier = barrier;
                q.grf = d->default_grf;
                q.full_sub_groups = true;
                occ_advise_summary s;
                size_t n = advise(dev, &q, a, cap, &s);
                size_t listed = 0;
                for (size_t i = 0; i < n; i++)
                    listed += a[i].grf == d->default_grf && a[i].wg_size % 8 == 0;
                size_t expect = 0;
                for (uint32_t si = 0; si < d->n_sub_group_sizes; si++) {
                    uint32_t S = d->sub_group_sizes[si];
                    for (uint32_t W = d->max_work_group_size; W >= S && W >= 8; W -= 8) {
                        if (W % S)
                            continue;
                        intel_ss ref = intel_rule(d, W, S, 0, barrier, d->max_work_groups_per_core);
                        bool in = ref.occupancy >= thresholds[ti] - 1e-9;
                        const occ_advice *e = NULL;
                        for (size_t i = 0; i < n && !e; i++)
                            if (a[i].wg_size == W && a[i].sub_group == S && a[i].grf == d->default_grf)
                                e = &a[i];
                        ck_assert_msg(in == (e != NULL), "%s W=%u S=%u barrier=%d threshold %.2f: "
                                      "calculator %s, occ %s", d->name, W, S, barrier, thresholds[ti],
                                      in ? "lists it" : "does not", e ? "does" : "does not");
                        if (!e)
                            continue;
                        expect++;
                        if (thresholds[ti] < 1.0)
                            continue;
                        /* the SLM limit: the calculator's share, down to a legal step */
                        uint64_t share = d->slm_per_core / ref.num_wg, step = 0;
                        for (uint32_t k = 0; k < d->n_slm_steps; k++)
                            if (d->slm_steps[k] <= share)
                                step = d->slm_steps[k];
                        if (step > d->slm_max_per_work_group)
                            step = d->slm_max_per_work_group;
                        ck_assert_msg(e->slm_limit == step, "%s W=%u S=%u: SLM limit %llu, share %llu",
                                      d->name, W, S, (unsigned long long)e->slm_limit,
                                      (unsigned long long)share);
                    }
                }
                ck_assert_uint_eq(listed, expect);
            }
        free(a);
        occ_device_free(dev);
    }
}
END_TEST

/* Where occ differs from the calculator on purpose (docs/advisor.md). */
START_TEST(intel_differences_on_purpose)
{
    occ_device *dev = tc_builtin("tgl");
    const occ_device_desc *d = occ_device_describe(dev);

    /* 1. Partial sub-groups: 24 work-items at sub-group 16.  The calculator
     * counts 1.5 threads: 74 work-groups, 99.1 %.  A partial sub-group takes
     * a whole hardware thread: 2 contexts, 56 work-groups, every context busy
     * but only 75 % of the SIMD lanes, which the advisor's score counts. */
    intel_ss ref = intel_rule(d, 24, 16, 0, false, 1000);
    ck_assert_uint_eq(ref.num_wg, 74);
    ck_assert_double_eq_tol(ref.occupancy, 111.0 / 112, 1e-12);
    occ_advise_request q = request(1, 24 * 672, 1, 1);
    q.wg_fixed[0] = 0;
    q.wg_min = q.wg_max = 24;
    q.n_sub_groups = 1, q.sub_groups[0] = 16;
    occ_advice a[2];
    occ_advise_summary s;
    ck_assert_uint_eq(advise(dev, &q, a, 2, &s), 1);
    ck_assert_uint_eq(a[0].contexts_per_wg, 2);
    ck_assert_uint_eq(a[0].resident_wgs, 56);
    ck_assert_double_eq(a[0].occupancy, 1.0);
    ck_assert_double_eq(a[0].lane_utilization, 0.75);
    ck_assert_double_eq(a[0].score, a[0].gpu_occupancy * 0.75);

    /* 2. The SLM limit: 7 work-groups of 128 at sub-group 8.  The calculator
     * offers 65536 / 7 = 9362 bytes, but 9362 bytes are allocated as 16 KB and
     * then only 4 work-groups fit; occ says 8 KB. */
    occ_advise_request_init(&q);
    q.threshold = 1.0;
    q.wg_min = q.wg_max = 128;
    q.n_sub_groups = 1, q.sub_groups[0] = 8;
    ck_assert_uint_eq(advise(dev, &q, a, 2, &s), 1);
    ck_assert_uint_eq(a[0].resident_wgs, 7);
    ck_assert_uint_eq(a[0].slm_limit, 8192);
    occ_kernel k = tc_kernel(128, 8);
    k.slm_bytes = 65536 / 7;
    ck_assert_uint_eq(k.slm_bytes, 9362);
    ck_assert_uint_eq(tc_resident(dev, &k), 4);
    k.slm_bytes = 8192;
    ck_assert_uint_eq(tc_resident(dev, &k), 7);

    /* 3. The tail wave: (64, 64, 64) with 512-item work-groups at sub-group
     * 32: 512 work-groups in waves of 42, twelve full and one of 8.  The
     * calculator gives the last wave weight zero (12/13 = 92.3 %); it runs for
     * a whole wave at 8/42, so the run averages (12 + 8/42) / 13 = 93.8 %. */
    q = request(3, 64, 64, 64);
    q.wg_min = q.wg_max = 512;
    q.n_sub_groups = 1, q.sub_groups[0] = 32;
    ck_assert_uint_eq(advise(dev, &q, a, 2, &s), 1);
    ck_assert_uint_eq(a[0].waves, 13);
    ck_assert_double_eq_tol(a[0].intel_gpu_occupancy, 12.0 / 13, 1e-12);
    ck_assert_double_eq_tol(a[0].gpu_occupancy, (12 + 8.0 / 42) / 13, 1e-12);

    /* 4. Fewer work-groups than a core holds: the calculator caps its per-core
     * figure by the work-group count (3 work-groups of 16 contexts: 42.9 %);
     * occ keeps the per-core capacity (100 %) and shows the shortfall over the
     * run: 48 of 672 contexts, 7.1 %. */
    ref = intel_rule(d, 128, 8, 0, false, 3);
    ck_assert_double_eq_tol(ref.occupancy, 48.0 / 112, 1e-12);
    q = request(1, 384, 1, 1);
    q.wg_min = q.wg_max = 128;
    q.n_sub_groups = 1, q.sub_groups[0] = 8;
    ck_assert_uint_eq(advise(dev, &q, a, 2, &s), 1);
    ck_assert_double_eq(a[0].occupancy, 1.0);
    ck_assert_double_eq_tol(a[0].gpu_occupancy, 48.0 / 672, 1e-12);
    occ_device_free(dev);
}
END_TEST

/* ---- brute force ------------------------------------------------------------------ */

typedef struct brute {
    uint64_t shapes, sizes, configurations, launchable, matching;
    double best_score;
} brute;

static double score_of(const occ_device *dev, const occ_residency *r, uint64_t groups, uint32_t S,
                       double *gpu)
{
    *gpu = r->occupancy;
    if (groups) {
        occ_gpu g;
        ck_assert_int_eq(occ_gpu_compute(dev, r, groups, &g), OCC_OK);
        *gpu = g.average_occupancy;
    }
    return *gpu * (double)r->wg_size / ((double)r->contexts_per_wg * S);
}

static bool allowed_sg(const occ_advise_request *q, uint32_t S)
{
    if (!q->n_sub_groups)
        return true;
    for (uint32_t i = 0; i < q->n_sub_groups; i++)
        if (q->sub_groups[i] == S)
            return true;
    return false;
}

static brute brute_force(const occ_device *dev, const occ_advise_request *q)
{
    const occ_device_desc *d = occ_device_describe(dev);
    brute b = {0};
    b.best_score = -1;
    uint32_t max = d->max_work_group_size;
    uint64_t *per = calloc(max + 1, sizeof *per);
    uint32_t (*rep)[3] = calloc(max + 1, sizeof *rep);
    uint32_t lo = q->wg_min ? q->wg_min : 1, hi = q->wg_max && q->wg_max < max ? q->wg_max : max;
    uint32_t mult = q->wg_multiple ? q->wg_multiple : 1;
    uint64_t items = 1;
    if (q->global[0]) {
        for (uint32_t i = 0; i < q->dims; i++)
            items *= q->global[i];
        uint32_t *v = malloc(3 * (max + 1) * sizeof *v);
        size_t n3[3];
        for (uint32_t i = 0; i < 3; i++)
            n3[i] = i < q->dims ? divisor_list(q->global[i], max, v + i * (max + 1))
                                : (v[i * (max + 1)] = 1, 1);
        for (size_t ia = 0; ia < n3[0]; ia++)
            for (size_t ib = 0; ib < n3[1]; ib++)
                for (size_t ic = 0; ic < n3[2]; ic++) {
                    uint32_t x = v[ia], y = v[(max + 1) + ib], z = v[2 * (max + 1) + ic];
                    uint32_t s3[3] = {x, y, z};
                    bool ok = true;
                    for (uint32_t i = 0; i < 3; i++)
                        ok &= q->global[i] % s3[i] == 0 && (!q->wg_fixed[i] || q->wg_fixed[i] == s3[i]);
                    uint64_t W = (uint64_t)x * y * z;
                    if (!ok || W > hi || W < lo || W % mult)
                        continue;
                    per[W]++;
                    memcpy(rep[W], s3, sizeof s3);
                    b.shapes++;
                }
        free(v);
    } else {
        for (uint32_t W = lo; W <= hi; W++)
            if (W % mult == 0)
                per[W] = 1, rep[W][0] = W, rep[W][1] = rep[W][2] = 1, b.shapes++;
    }
    for (uint32_t W = 1; W <= max; W++) {
        if (!per[W])
            continue;
        b.sizes++;
        for (uint32_t si = 0; si < d->n_sub_group_sizes; si++) {
            uint32_t S = d->sub_group_sizes[si];
            if (!allowed_sg(q, S) || (q->full_sub_groups && W % S))
                continue;
            for (uint32_t gi = 0; gi < d->n_grf_modes; gi++) {
                if (d->grf_modes[gi].registers < q->grf)
                    continue;
                occ_kernel k;
                occ_kernel_init(&k);
                memcpy(k.wg, rep[W], sizeof k.wg);
                k.sub_group = S;
                k.grf = d->grf_modes[gi].registers;
                k.slm_bytes = q->slm_bytes + q->slm_per_item * W;
                k.barrier = q->barrier;
                k.regs_per_thread = q->regs_per_thread;
                k.carveout_pct = q->carveout_pct;
                b.configurations++;
                occ_residency r = tc_residency(dev, &k);
                if (!r.launchable)
                    continue;
                b.launchable++;
                uint64_t groups = q->global[0] ? items / W : q->work_groups;
                double gpu, sc = score_of(dev, &r, groups, S, &gpu);
                double v = q->threshold_on == OCC_THRESHOLD_GPU ? gpu : r.occupancy;
                if (q->threshold > 0 && v < q->threshold - 1e-9)
                    continue;
                b.matching++;
                if (sc > b.best_score)
                    b.best_score = sc;
            }
        }
    }
    free(per);
    free(rep);
    return b;
}

static uint64_t random_extent(tc_rng *r)
{
    static const uint64_t v[] = {1, 2, 3, 7, 16, 24, 60, 64, 97, 100, 128, 360, 512, 1000, 1024, 4096, 5040};
    return v[tc_range(r, 0, sizeof v / sizeof v[0] - 1)];
}

static occ_advise_request random_request(tc_rng *r, const occ_device_desc *d)
{
    occ_advise_request q;
    occ_advise_request_init(&q);
    uint64_t p = tc_range(r, 0, 9);
    if (p < 7) {
        q.dims = (uint32_t)tc_range(r, 1, 3);
        for (uint32_t i = 0; i < q.dims; i++)
            q.global[i] = random_extent(r) * (i == 0 ? tc_range(r, 1, 4) : 1);
        if (q.dims == 3 && tc_range(r, 0, 3) == 0)
            q.wg_fixed[0] = 1;
    } else if (p < 9) {
        q.work_groups = tc_range(r, 1, 100000);
    }
    static const uint32_t mults[] = {0, 0, 0, 2, 3, 8, 16, 32};
    q.wg_multiple = mults[tc_range(r, 0, 7)];
    if (tc_range(r, 0, 3) == 0)
        q.wg_min = (uint32_t)tc_range(r, 1, 256);
    if (tc_range(r, 0, 3) == 0)
        q.wg_max = (uint32_t)tc_range(r, q.wg_min ? q.wg_min : 1, d->max_work_group_size);
    if (tc_range(r, 0, 2) == 0)
        q.n_sub_groups = 1, q.sub_groups[0] = d->sub_group_sizes[tc_range(r, 0, d->n_sub_group_sizes - 1)];
    q.full_sub_groups = tc_range(r, 0, 4) == 0;
    if (tc_range(r, 0, 1))
        q.slm_bytes = tc_range(r, 0, d->slm_max_per_work_group / 4);
    if (tc_range(r, 0, 3) == 0)
        q.slm_per_item = tc_range(r, 1, 64);
    q.barrier = tc_range(r, 0, 1);
    if (d->has_register_file && tc_range(r, 0, 1))
        q.regs_per_thread = (uint32_t)tc_range(r, 16, 128);
    if (!d->has_register_file && tc_range(r, 0, 3) == 0)
        q.grf = d->grf_modes[tc_range(r, 0, d->n_grf_modes - 1)].registers;
    if (d->n_carveouts && tc_range(r, 0, 2) == 0)
        q.carveout_pct = (int32_t)tc_range(r, 0, 100);
    if (tc_range(r, 0, 3) == 0) {
        q.threshold = (double)tc_range(r, 50, 100) / 100.0;
        if ((q.global[0] || q.work_groups) && tc_range(r, 0, 1))
            q.threshold_on = OCC_THRESHOLD_GPU;
    }
    if (tc_range(r, 0, 3) == 0)
        q.order = OCC_ORDER_SIZE;
    return q;
}

/* The advisor's counts, best score and every returned entry against one by
 * one evaluation; entries in order. */
START_TEST(brute_force_agrees)
{
    tc_rng rng = {0x5eed0000u + (uint64_t)_i};
    occ_device *dev = tc_builtin(occ_builtin_name((size_t)_i));
    const occ_device_desc *d = occ_device_describe(dev);
    occ_advice out[16];
    for (int iter = 0; iter < 25; iter++) {
        occ_advise_request q = random_request(&rng, d);
        occ_advise_summary s;
        size_t n = 0;
        occ_status st = occ_advise(dev, &q, out, 16, &n, &s);
        ck_assert_int_eq(st, OCC_OK);
        brute b = brute_force(dev, &q);
        if (s.failed) {
            ck_assert_uint_eq(n, 0);
            ck_assert(s.message[0]);
            ck_assert_msg(b.matching == 0, "%s: failed at stage %d (%s) but %llu match", d->name, s.failed,
                          s.message, (unsigned long long)b.matching);
            continue;
        }
        ck_assert_uint_eq(s.shapes, b.shapes);
        ck_assert_uint_eq(s.sizes, b.sizes);
        ck_assert_uint_eq(s.configurations, b.configurations);
        ck_assert_uint_eq(s.launchable, b.launchable);
        ck_assert_uint_eq(s.matching, b.matching);
        ck_assert_uint_eq(n, b.matching < 16 ? b.matching : 16);
        const occ_advice *best = NULL;
        for (size_t i = 0; i < n; i++) {
            const occ_advice *e = &out[i];
            if (e->is_best)
                best = e;
            /* the entry's numbers are the model's for that configuration */
            occ_kernel k;
            occ_kernel_init(&k);
            memcpy(k.wg, e->wg, sizeof k.wg);
            k.sub_group = e->sub_group;
            k.grf = e->grf;
            k.slm_bytes = e->slm_bytes;
            k.barrier = q.barrier;
            k.regs_per_thread = q.regs_per_thread;
            k.carveout_pct = q.carveout_pct;
            ck_assert_uint_eq(e->slm_bytes, q.slm_bytes + q.slm_per_item * e->wg_size);
            occ_residency r = tc_residency(dev, &k);
            ck_assert(r.launchable);
            ck_assert_uint_eq(r.resident_wgs, e->resident_wgs);
            ck_assert_double_eq(r.occupancy, e->occupancy);
            double gpu, sc = score_of(dev, &r, e->work_groups, e->sub_group, &gpu);
            ck_assert_double_eq_tol(sc, e->score, 1e-12);
            ck_assert_double_eq_tol(gpu, e->gpu_occupancy, 1e-12);
            /* the SLM limit keeps what it promises, and one byte more does not
             * (unless it is the device maximum) */
            ck_assert_uint_ge(e->slm_limit, e->slm_bytes);
            k.slm_bytes = e->slm_limit;
            occ_residency at = tc_residency(dev, &k);
            ck_assert(at.launchable);
            if (q.threshold <= 0)
                ck_assert_uint_ge(at.resident_wgs, e->resident_wgs);
            if (e->slm_limit < d->slm_max_per_work_group && q.threshold <= 0) {
                k.slm_bytes = e->slm_limit + 1;
                ck_assert_uint_lt(tc_resident(dev, &k), e->resident_wgs);
            }
            if (q.order == OCC_ORDER_RANK) {
                ck_assert_uint_eq(e->rank, i + 1);
                if (i)
                    ck_assert(out[i - 1].score >= e->score - 1e-12);
            } else if (i) {
                const occ_advice *p = &out[i - 1];
                ck_assert(p->sub_group < e->sub_group ||
                          (p->sub_group == e->sub_group &&
                           (p->grf < e->grf || (p->grf == e->grf && p->wg_size > e->wg_size))));
            }
        }
        ck_assert_ptr_nonnull(best);
        if (q.order == OCC_ORDER_RANK)
            ck_assert_double_eq_tol(best->score, b.best_score, 1e-12);
        else
            ck_assert(best->score <= b.best_score + 1e-12);
    }
    occ_device_free(dev);
}
END_TEST

/* ---- nothing valid, contradictions -------------------------------------------------- */

static void expect_stage(const char *dev_name, occ_advise_request q, occ_advise_stage stage,
                         const char *words)
{
    occ_device *dev = tc_builtin(dev_name);
    occ_advice a[4];
    occ_advise_summary s;
    size_t n = 7;
    ck_assert_int_eq(occ_advise(dev, &q, a, 4, &n, &s), OCC_OK);
    ck_assert_uint_eq(n, 0);
    ck_assert_msg(s.failed == stage, "stage %d, expected %d: %s", s.failed, stage, s.message);
    ck_assert_msg(strstr(s.message, words), "'%s' lacks '%s'", s.message, words);
    occ_device_free(dev);
}

START_TEST(nothing_valid_names_the_constraint)
{
    occ_advise_request q = request(1, 1000, 1, 1);
    q.wg_multiple = 16;
    expect_stage("tgl", q, OCC_STAGE_SIZE, "multiple 16");
    q = request(3, 64, 64, 128);
    q.wg_fixed[1] = 3;
    expect_stage("tgl", q, OCC_STAGE_SHAPE, "dimension 1 (3) does not divide");
    q = request(2, 64, 64, 1);
    q.wg_fixed[0] = 64, q.wg_fixed[1] = 64;
    expect_stage("tgl", q, OCC_STAGE_SHAPE, "4096 work-items");
    q = request(1, 97, 1, 1);
    q.wg_min = 98;
    expect_stage("tgl", q, OCC_STAGE_SIZE, "the largest is 97");
    q = request(1, 4096, 1, 1);
    q.wg_min = 600;
    expect_stage("tgl", q, OCC_STAGE_SIZE, "above tgl's maximum 512");
    q = request(1, 4096, 1, 1);
    q.n_sub_groups = 2, q.sub_groups[0] = 12, q.sub_groups[1] = 64;
    expect_stage("tgl", q, OCC_STAGE_SUB_GROUP, "(12, 64) is supported by tgl (8, 16, 32)");
    q = request(1, 4096, 1, 1);
    q.grf = 512;
    expect_stage("arc-a770", q, OCC_STAGE_GRF, "512 registers");
    q = request(1, 1000, 1, 1);
    q.full_sub_groups = true;
    q.n_sub_groups = 1, q.sub_groups[0] = 16;
    expect_stage("tgl", q, OCC_STAGE_FULL_SUB_GROUPS, "multiple of the sub-group size (16)");
    q = request(1, 4096, 1, 1);
    q.slm_bytes = 32768, q.slm_per_item = 1024;
    q.wg_min = 64;
    expect_stage("tgl", q, OCC_STAGE_LAUNCH, "local memory per work-group over the maximum");
    q = request(1, 4096, 1, 1);
    q.regs_per_thread = 255, q.wg_min = 512;
    expect_stage("h100-sxm", q, OCC_STAGE_LAUNCH, "registers per work-group over the maximum");
    q = request(3, 64, 64, 128);
    q.wg_fixed[0] = 1, q.wg_fixed[2] = 128;
    q.n_sub_groups = 1, q.sub_groups[0] = 8;
    q.barrier = true;
    q.threshold = 1.0;
    q.wg_min = 256;
    expect_stage("tgl", q, OCC_STAGE_THRESHOLD, "the best is 85.7 %");
}
END_TEST

static void expect_contradiction(occ_advise_request q, const char *words)
{
    occ_device *dev = tc_builtin("tgl");
    occ_advice a[2];
    occ_advise_summary s;
    size_t n = 5;
    ck_assert_int_eq(occ_advise(dev, &q, a, 2, &n, &s), OCC_ERR_INVALID_ARGUMENT);
    ck_assert_uint_eq(n, 0);
    ck_assert_msg(strstr(s.message, words), "'%s' lacks '%s'", s.message, words);
    occ_device_free(dev);
}

START_TEST(contradictions_are_invalid_arguments)
{
    occ_advise_request q = request(1, 4096, 1, 1);
    q.work_groups = 10;
    expect_contradiction(q, "exclusive");
    q = request(1, 4096, 1, 1);
    q.wg_min = 300, q.wg_max = 200;
    expect_contradiction(q, "minimum work-group size 300 is above the maximum 200");
    q = request(1, 4096, 1, 1);
    q.threshold = 1.5;
    expect_contradiction(q, "threshold");
    q = request(1, 4096, 1, 1);
    q.threshold = NAN;
    expect_contradiction(q, "threshold");
    occ_advise_request_init(&q);
    q.threshold = 0.5, q.threshold_on = OCC_THRESHOLD_GPU;
    expect_contradiction(q, "needs a global size");
    q = request(1, 4096, 1, 1);
    q.wg_fixed[2] = 4;
    expect_contradiction(q, "dimension 2 is fixed");
    occ_advise_request_init(&q);
    q.work_groups = 5, q.wg_fixed[0] = 4;
    expect_contradiction(q, "need a global size");
    q = request(2, 0, 7, 1);
    q.global[0] = 5, q.global[1] = 0;
    expect_contradiction(q, "zero in dimension 1");
    q = request(3, UINT64_MAX, 2, 1);
    expect_contradiction(q, "2^64");
    q = request(1, 64, 1, 1);
    q.n_sub_groups = 1, q.sub_groups[0] = 0;
    expect_contradiction(q, "zero");
    q = request(4, 64, 1, 1);
    expect_contradiction(q, "dims");
    /* and plain API misuse */
    occ_device *dev = tc_builtin("tgl");
    size_t n;
    q = request(1, 64, 1, 1);
    ck_assert_int_eq(occ_advise(NULL, &q, NULL, 0, &n, NULL), OCC_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(occ_advise(dev, &q, NULL, 3, &n, NULL), OCC_ERR_INVALID_ARGUMENT);
    q.struct_size = 8;
    ck_assert_int_eq(occ_advise(dev, &q, NULL, 0, &n, NULL), OCC_ERR_INVALID_ARGUMENT);
    q = request(1, 64, 1, 1);
    ck_assert_int_eq(occ_advise(dev, &q, NULL, 0, &n, NULL), OCC_OK); /* count only */
    ck_assert_uint_eq(n, 0);
    occ_device_free(dev);
}
END_TEST

/* ---- batch ----------------------------------------------------------------------- */

/* occ_residency_batch and occ_evaluate_batch equal one-by-one results on
 * every profile (and the jumping-carveout device), for the random kernels of
 * the shared helper (which include kernels that cannot launch), byte for
 * byte.  (tests/model/test_reference.c holds all of them, and residency.c's general
 * code, to a plain reference model.) */
static bool all_bytes_are(const unsigned char *p, size_t n, unsigned char b)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != b)
            return false;
    return true;
}

START_TEST(batch_equals_one_by_one)
{
    enum { N = 4000 };
    occ_kernel *ks = malloc(N * sizeof *ks);
    occ_residency *rs = malloc(N * sizeof *rs);
    occ_eval *es = malloc(N * sizeof *es);
    for (size_t di = 0; di <= occ_builtin_count(); di++) {
        occ_device *dev = test_device(di);
        tc_rng rng = {0xba7c4 + di};
        for (size_t i = 0; i < N; i++)
            ks[i] = tc_random_kernel(&rng, occ_device_describe(dev));
        memset(rs, 0xa5, N * sizeof *rs);
        ck_assert_int_eq(occ_residency_batch(dev, ks, rs, N), OCC_OK);
        ck_assert_int_eq(occ_evaluate_batch(dev, ks, es, N), OCC_OK);
        for (size_t i = 0; i < N; i++) {
            occ_residency one;
            memset(&one, 0x5a, sizeof one);
            ck_assert_int_eq(occ_residency_compute(dev, &ks[i], &one), OCC_OK);
            ck_assert_msg(memcmp(&one, &rs[i], sizeof one) == 0, "%s kernel %zu differs in batch",
                          occ_device_describe(dev)->name, i);
            ck_assert_uint_eq(es[i].resident_wgs, one.launchable ? one.resident_wgs : 0);
            ck_assert_uint_eq(es[i].contexts_per_wg, one.contexts_per_wg);
            ck_assert_uint_eq(es[i].contexts_per_core, one.contexts_per_core);
            ck_assert_uint_eq(es[i].limited_by, one.launchable ? one.limited_by : 0);
            ck_assert_int_eq(es[i].reason, one.reason);
            ck_assert_double_eq(es[i].occupancy, one.launchable ? one.occupancy : 0.0);
        }
        /* a bad entry stops the batch with an error: those before it are
         * answered, nothing is written for it or after it (the struct
         * batches check 64 kernels at a time); a larger struct_size (a newer
         * caller's) is fine, even past 2^31 */
        occ_eval *es2 = malloc(N * sizeof *es2);
        occ_residency *rs2 = malloc(N * sizeof *rs2);
        ks[3].struct_size = 0x80000000u;
        ks[N - 2].struct_size = UINT32_MAX;
        ck_assert_int_eq(occ_evaluate_batch(dev, ks, es2, N), OCC_OK);
        ck_assert_int_eq(memcmp(es2, es, N * sizeof *es), 0);
        static const size_t bad_at[] = {0, 7, 63, 64, 100, N - 1};
        for (size_t b = 0; b < sizeof bad_at / sizeof bad_at[0]; b++) {
            size_t at = bad_at[b];
            uint32_t keep = ks[at].struct_size;
            ks[at].struct_size = sizeof *ks - 1;
            memset(es2, 0x5a, N * sizeof *es2);
            memset(rs2, 0x5a, N * sizeof *rs2);
            ck_assert_int_eq(occ_evaluate_batch(dev, ks, es2, N), OCC_ERR_INVALID_ARGUMENT);
            ck_assert_int_eq(occ_residency_batch(dev, ks, rs2, N), OCC_ERR_INVALID_ARGUMENT);
            ck_assert_msg(memcmp(es2, es, at * sizeof *es) == 0, "%s: answers before entry %zu",
                          occ_device_describe(dev)->name, at);
            ck_assert_msg(memcmp(rs2, rs, at * sizeof *rs) == 0, "%s: reports before entry %zu",
                          occ_device_describe(dev)->name, at);
            ck_assert_msg(all_bytes_are((unsigned char *)(es2 + at), (N - at) * sizeof *es, 0x5a) &&
                              all_bytes_are((unsigned char *)(rs2 + at), (N - at) * sizeof *rs, 0x5a),
                          "%s: written at or after entry %zu", occ_device_describe(dev)->name, at);
            ks[at].struct_size = keep;
        }
        free(es2);
        free(rs2);
        ks[7].struct_size = 4;
        ck_assert_int_eq(occ_evaluate_batch(dev, ks, es, N), OCC_ERR_INVALID_ARGUMENT);
        ck_assert_int_eq(occ_evaluate_batch(dev, NULL, es, 1), OCC_ERR_INVALID_ARGUMENT);
        ck_assert_int_eq(occ_evaluate_batch(dev, NULL, NULL, 0), OCC_OK);
        occ_device_free(dev);
    }
    free(ks);
    free(rs);
    free(es);
}
END_TEST

/* ---- bounds ----------------------------------------------------------------------- */

typedef struct extremes {
    uint32_t rmin, rmax;
    double omin, omax, gmin, gmax;
    bool any, all;
} extremes;

static void note(const occ_device *dev, const occ_kernel *k, uint64_t groups, extremes *x, bool *first)
{
    occ_residency r = tc_residency(dev, k);
    uint32_t res = r.launchable ? r.resident_wgs : 0;
    double o = r.launchable ? r.occupancy : 0, g = 0;
    if (r.launchable && groups) {
        occ_gpu gg;
        occ_gpu_compute(dev, &r, groups, &gg);
        g = gg.average_occupancy;
    }
    x->any |= r.launchable;
    x->all &= r.launchable;
    if (*first || res < x->rmin) x->rmin = res;
    if (*first || res > x->rmax) x->rmax = res;
    if (*first || o < x->omin) x->omin = o;
    if (*first || o > x->omax) x->omax = o;
    if (*first || g < x->gmin) x->gmin = g;
    if (*first || g > x->gmax) x->gmax = g;
    *first = false;
}

/* Exhaustive over the unknown inputs: every sub-group candidate, every
 * register count (or GRF need), both barrier values, every carveout
 * percentage, and every byte of a local-memory range (kept short when the
 * carveout is unknown too). */
static extremes exhaustive(const occ_device *dev, const occ_kernel_range *q)
{
    const occ_device_desc *d = occ_device_describe(dev);
    extremes x = {.all = true};
    bool first = true;
    uint32_t sgs[8], nsg = 0;
    if (q->unknown & OCC_UNKNOWN_SUB_GROUP)
        for (uint32_t i = 0; i < (q->n_sub_groups ? q->n_sub_groups : d->n_sub_group_sizes); i++)
            sgs[nsg++] = q->n_sub_groups ? q->sub_groups[i] : d->sub_group_sizes[i];
    else
        sgs[nsg++] = q->k.sub_group;
    uint32_t top = d->has_register_file ? d->reg_max_per_thread : d->grf_modes[d->n_grf_modes - 1].registers;
    uint32_t rlo = q->regs_min ? q->regs_min : 1, rhi = q->regs_max ? q->regs_max : top;
    bool ur = q->unknown & OCC_UNKNOWN_REGISTERS;
    uint64_t slo = q->slm_min, shi = q->slm_max ? q->slm_max : d->slm_max_per_work_group;
    bool us = q->unknown & OCC_UNKNOWN_SLM;
    bool uc = (q->unknown & OCC_UNKNOWN_CARVEOUT) && d->n_carveouts;
    for (uint32_t a = 0; a < nsg; a++)
        for (uint32_t reg = ur ? rlo : 0; reg <= (ur ? rhi : 0); reg++)
            for (int b = 0; b <= ((q->unknown & OCC_UNKNOWN_BARRIER) ? 1 : 0); b++)
                for (int32_t c = uc ? 0 : q->k.carveout_pct; c <= (uc ? 100 : q->k.carveout_pct); c++)
                    for (uint64_t s = us ? slo : q->k.slm_bytes; s <= (us ? shi : q->k.slm_bytes); s++) {
                        occ_kernel k = q->k;
                        k.sub_group = sgs[a];
                        if (ur)
                            *(d->has_register_file ? &k.regs_per_thread : &k.grf) = reg;
                        if (q->unknown & OCC_UNKNOWN_BARRIER)
                            k.barrier = b;
                        k.carveout_pct = c;
                        k.slm_bytes = s;
                        note(dev, &k, q->work_groups, &x, &first);
                    }
    return x;
}

START_TEST(bounds_are_exact)
{
    occ_device *dev = test_device((size_t)_i);
    const occ_device_desc *d = occ_device_describe(dev);
    tc_rng rng = {0xb0d5 + (uint64_t)_i};
    bool odd = (size_t)_i == occ_builtin_count();
    for (int iter = 0; iter < (odd ? 60 : 12); iter++) {
        occ_kernel_range q;
        occ_kernel_range_init(&q);
        q.k = tc_random_kernel(&rng, d);
        if (q.k.carveout_pct < -1)
            q.k.carveout_pct = -1;
        q.unknown = (uint32_t)tc_range(&rng, 0, OCC_UNKNOWN_ALL);
        bool jump = odd && tc_range(&rng, 0, 1);
        if (jump) { /* where the jumps matter: one warp, a range across 8 KB - 1 KB reserved */
            q.unknown = (q.unknown | OCC_UNKNOWN_SLM) &
                        ~(uint32_t)(OCC_UNKNOWN_REGISTERS | OCC_UNKNOWN_SUB_GROUP | OCC_UNKNOWN_CARVEOUT);
            q.k.carveout_pct = (int32_t)tc_range(&rng, 0, 3);
            q.k.regs_per_thread = 32;
            q.k.sub_group = 32;
            q.k.wg[0] = 32, q.k.wg[1] = q.k.wg[2] = 1;
        }
        if (q.unknown & OCC_UNKNOWN_SLM) {
            /* a short range, so that every byte can be tried */
            q.slm_min = odd ? tc_range(&rng, 4000, 12000) : tc_range(&rng, 0, d->slm_max_per_work_group);
            q.slm_max = q.slm_min + tc_range(&rng, 0, (q.unknown & OCC_UNKNOWN_CARVEOUT) ? 300 : 4000);
            if (tc_range(&rng, 0, 3) == 0) /* cover the device's maximum, even past it */
                q.slm_max = d->slm_max_per_work_group + tc_range(&rng, 0, 2),
                q.slm_min = q.slm_max - tc_range(&rng, 0, 500);
        }
        if (jump) {
            q.slm_min = tc_range(&rng, 6000, 7100);
            q.slm_max = q.slm_min + tc_range(&rng, 15000, 30000);
        }
        if (q.unknown & OCC_UNKNOWN_REGISTERS) {
            /* the whole default range when local memory is known; else a few
             * values, so that the exhaustive product stays small */
            if ((q.unknown & OCC_UNKNOWN_SLM) || tc_range(&rng, 0, 1)) {
                q.regs_min = (uint32_t)tc_range(&rng, 1, 280);
                q.regs_max = q.regs_min + (uint32_t)tc_range(&rng, 0, (q.unknown & OCC_UNKNOWN_SLM) ? 12 : 60);
            }
        }
        if ((q.unknown & OCC_UNKNOWN_SUB_GROUP) && tc_range(&rng, 0, 1)) {
            q.n_sub_groups = 2;
            q.sub_groups[0] = d->sub_group_sizes[0];
            q.sub_groups[1] = (uint32_t)tc_range(&rng, 1, 64);
        }
        if (tc_range(&rng, 0, 1))
            q.work_groups = tc_range(&rng, 1, 20000);
        occ_bounds b;
        ck_assert_int_eq(occ_residency_bounds(dev, &q, &b), OCC_OK);
        extremes x = exhaustive(dev, &q);
        ck_assert_msg(b.resident_min == x.rmin && b.resident_max == x.rmax,
                      "%s unknown %#x: resident [%u, %u], exhaustive [%u, %u]", d->name, q.unknown,
                      b.resident_min, b.resident_max, x.rmin, x.rmax);
        ck_assert_double_eq_tol(b.occupancy_min, x.omin, 1e-12);
        ck_assert_double_eq_tol(b.occupancy_max, x.omax, 1e-12);
        ck_assert_double_eq_tol(b.gpu_occupancy_min, x.gmin, 1e-12);
        ck_assert_double_eq_tol(b.gpu_occupancy_max, x.gmax, 1e-12);
        ck_assert(b.always_launchable == x.all);
        ck_assert(b.never_launchable == !x.any);
        /* the kernels it names reach the extremes */
        occ_residency r = tc_residency(dev, &b.best);
        ck_assert_double_eq_tol(r.launchable ? r.occupancy : 0, b.occupancy_max, 1e-12);
        r = tc_residency(dev, &b.worst);
        ck_assert_double_eq_tol(r.launchable ? r.occupancy : 0, b.occupancy_min, 1e-12);
    }
    occ_device_free(dev);
}
END_TEST

/* Pruning with bounds before compiling: unknown registers and SLM give a
 * range that contains every compiled outcome. */
START_TEST(bounds_whole_domain)
{
    occ_device *dev = tc_builtin("h100-sxm");
    occ_kernel_range q;
    occ_kernel_range_init(&q);
    q.k = tc_kernel(512, 32);
    q.unknown = OCC_UNKNOWN_REGISTERS | OCC_UNKNOWN_SLM;
    occ_bounds b;
    ck_assert_int_eq(occ_residency_bounds(dev, &q, &b), OCC_OK);
    /* best: few registers, no shared memory: 4 blocks of 16 warps fill 64 slots */
    ck_assert_uint_eq(b.resident_max, 4);
    ck_assert_double_eq(b.occupancy_max, 1.0);
    /* worst: 255 registers (8192 per warp) x 16 warps is over 65536 per block:
     * cannot launch */
    ck_assert_uint_eq(b.resident_min, 0);
    ck_assert(!b.always_launchable && !b.never_launchable);
    ck_assert(b.evaluations < 100);
    /* errors */
    q.slm_min = 10, q.slm_max = 5;
    ck_assert_int_eq(occ_residency_bounds(dev, &q, &b), OCC_ERR_INVALID_ARGUMENT);
    occ_kernel_range_init(&q);
    q.unknown = 1u << 12;
    ck_assert_int_eq(occ_residency_bounds(dev, &q, &b), OCC_ERR_INVALID_ARGUMENT);
    occ_kernel_range rs[3];
    occ_bounds bs[3];
    for (int i = 0; i < 3; i++) {
        occ_kernel_range_init(&rs[i]);
        rs[i].k = tc_kernel(64u << i, 32);
        rs[i].unknown = OCC_UNKNOWN_SLM;
    }
    ck_assert_int_eq(occ_residency_bounds_batch(dev, rs, bs, 3), OCC_OK);
    for (int i = 0; i < 3; i++) {
        ck_assert_int_eq(occ_residency_bounds(dev, &rs[i], &b), OCC_OK);
        ck_assert_uint_eq(bs[i].resident_max, b.resident_max);
        ck_assert_uint_eq(bs[i].resident_min, b.resident_min);
    }
    occ_device_free(dev);
}
END_TEST

/* ---- SLM limit, sweeps and limits --------------------------------------------------- */

START_TEST(slm_limit_is_the_largest)
{
    occ_device *dev = test_device((size_t)_i);
    const occ_device_desc *d = occ_device_describe(dev);
    tc_rng rng = {0x51a + (uint64_t)_i};
    for (int iter = 0; iter < 6; iter++) {
        occ_kernel k = tc_random_kernel(&rng, d);
        uint32_t need = (uint32_t)tc_range(&rng, 1, 12);
        uint64_t got = 0;
        bool ok = occ_slm_limit(dev, &k, need, &got);
        /* scan from the top for the first request that keeps `need` */
        bool found = false;
        uint64_t want = 0;
        for (uint64_t s = d->slm_max_per_work_group + 1; s-- > 0;) {
            k.slm_bytes = s;
            if (tc_resident(dev, &k) >= need) {
                found = true, want = s;
                break;
            }
        }
        ck_assert_msg(ok == found && (!ok || got == want), "%s need %u: %d %llu vs %d %llu", d->name, need,
                      ok, (unsigned long long)got, found, (unsigned long long)want);
    }
    occ_device_free(dev);
}
END_TEST

/* Every value inside a limits row gives the row's residency, rows touch, and
 * neighbours differ. */
static void check_rows(const occ_device *dev, const occ_sweep_request *q, tc_rng *rng)
{
    size_t n = 0;
    ck_assert_int_eq(occ_limits(dev, q, NULL, 0, &n), OCC_OK);
    ck_assert_uint_gt(n, 0);
    occ_limit_row *rows = calloc(n, sizeof *rows);
    size_t m = 0;
    ck_assert_int_eq(occ_limits(dev, q, rows, n, &m), OCC_OK);
    ck_assert_uint_eq(m, n);
    for (size_t i = 0; i < n; i++) {
        ck_assert_uint_le(rows[i].lo, rows[i].hi);
        if (i && q->axis != OCC_AXIS_SUB_GROUP && q->axis != OCC_AXIS_GRF) {
            ck_assert_uint_eq(rows[i].lo, rows[i - 1].hi + 1);
            ck_assert(rows[i].resident_wgs != rows[i - 1].resident_wgs || !rows[i].resident_wgs);
        }
        uint64_t probes[3] = {rows[i].lo, rows[i].hi, tc_range(rng, rows[i].lo, rows[i].hi)};
        for (int p = 0; p < 3; p++) {
            occ_kernel k = q->k;
            switch (q->axis) {
            case OCC_AXIS_WG_SIZE:
                k.wg[0] = (uint32_t)probes[p], k.wg[1] = k.wg[2] = 1;
                k.slm_bytes = q->k.slm_bytes + q->slm_per_item * probes[p];
                break;
            case OCC_AXIS_SLM: k.slm_bytes = probes[p]; break;
            case OCC_AXIS_REGISTERS: k.regs_per_thread = (uint32_t)probes[p]; break;
            case OCC_AXIS_GRF: k.grf = (uint32_t)probes[p]; break;
            default: k.sub_group = (uint32_t)probes[p];
            }
            ck_assert_uint_eq(tc_resident(dev, &k), rows[i].resident_wgs);
        }
    }
    free(rows);
}

START_TEST(limits_rows_hold)
{
    occ_device *dev = test_device((size_t)_i);
    const occ_device_desc *d = occ_device_describe(dev);
    tc_rng rng = {0x11a + (uint64_t)_i};
    for (int iter = 0; iter < 6; iter++) {
        occ_sweep_request q;
        occ_sweep_request_init(&q);
        q.k = tc_random_kernel(&rng, d);
        q.k.wg[0] = (uint32_t)tc_range(&rng, 1, d->max_work_group_size);
        q.k.wg[1] = q.k.wg[2] = 1;
        q.k.sub_group = d->sub_group_sizes[tc_range(&rng, 0, d->n_sub_group_sizes - 1)];
        q.k.grf = 0;
        if (q.k.carveout_pct < -1)
            q.k.carveout_pct = -1;
        for (int a = 0; a < OCC_AXIS_COUNT; a++) {
            q.axis = (occ_axis)a;
            if ((a == OCC_AXIS_REGISTERS && !d->has_register_file) || (a == OCC_AXIS_GRF && d->has_register_file)) {
                size_t n;
                ck_assert_int_eq(occ_limits(dev, &q, NULL, 0, &n), OCC_ERR_INVALID_ARGUMENT);
                continue;
            }
            q.slm_per_item = a == OCC_AXIS_WG_SIZE ? tc_range(&rng, 0, 32) : 0;
            check_rows(dev, &q, &rng);
        }
    }
    occ_device_free(dev);
}
END_TEST

START_TEST(sweep_points)
{
    occ_device *dev = tc_builtin("tgl");
    occ_sweep_request q;
    occ_sweep_request_init(&q);
    q.k = tc_kernel(256, 16);
    q.axis = OCC_AXIS_SLM;
    q.work_items = 65536;
    occ_sweep_point p[16];
    size_t n = 0;
    ck_assert_int_eq(occ_sweep(dev, &q, p, 16, &n), OCC_OK);
    /* 0 and the seven steps 1..64 KB */
    ck_assert_uint_eq(n, 8);
    uint32_t resident[8] = {7, 7, 7, 7, 7, 4, 2, 1};
    for (size_t i = 0; i < n; i++) {
        ck_assert_uint_eq(p[i].x, i ? 1024u << (i - 1) : 0);
        ck_assert_uint_eq(p[i].resident_wgs, resident[i]);
        ck_assert(p[i].has_gpu);
        ck_assert_uint_eq(p[i].work_groups, 256);
    }
    /* the work-group axis: multiples of the sub-group size, GPU figures only
     * where the size divides the work-items */
    q.axis = OCC_AXIS_WG_SIZE;
    q.work_items = 1000;
    occ_sweep_point w[64];
    ck_assert_int_eq(occ_sweep(dev, &q, w, 64, &n), OCC_OK);
    ck_assert_uint_eq(n, 32);
    for (size_t i = 0; i < n; i++) {
        ck_assert_uint_eq(w[i].x, 16 * (i + 1));
        ck_assert(w[i].has_gpu == (1000 % w[i].x == 0));
    }
    /* cap 0 counts; explicit steps; wrong axes */
    q.step = 100, q.from = 100, q.to = 500;
    ck_assert_int_eq(occ_sweep(dev, &q, NULL, 0, &n), OCC_OK);
    ck_assert_uint_eq(n, 5);
    q.axis = OCC_AXIS_REGISTERS;
    ck_assert_int_eq(occ_sweep(dev, &q, NULL, 0, &n), OCC_ERR_INVALID_ARGUMENT);
    q.axis = OCC_AXIS_SLM, q.from = 10, q.to = 5;
    ck_assert_int_eq(occ_sweep(dev, &q, NULL, 0, &n), OCC_ERR_INVALID_ARGUMENT);
    q.from = 0, q.to = 0, q.work_groups = 5;
    ck_assert_int_eq(occ_sweep(dev, &q, NULL, 0, &n), OCC_ERR_INVALID_ARGUMENT);
    occ_device_free(dev);
}
END_TEST

/* ---- threads ------------------------------------------------------------------------- */

typedef struct job {
    const occ_device *dev;
    occ_advice out[12];
    size_t n;
} job;

static void *run_job(void *p)
{
    job *j = p;
    for (int rep = 0; rep < 20; rep++) {
        occ_advise_request q = request(3, 1024, 1024, 64);
        occ_advise_summary s;
        occ_advise(j->dev, &q, j->out, 12, &j->n, &s);
    }
    return NULL;
}

START_TEST(threads_share_a_device)
{
    occ_device *dev = tc_builtin("arc-a770");
    job jobs[4];
    pthread_t t[4];
    for (int i = 0; i < 4; i++) {
        memset(&jobs[i], 0, sizeof jobs[i]);
        jobs[i].dev = dev;
        ck_assert_int_eq(pthread_create(&t[i], NULL, run_job, &jobs[i]), 0);
    }
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    job ref = {.dev = dev};
    run_job(&ref);
    for (int i = 0; i < 4; i++) {
        ck_assert_uint_eq(jobs[i].n, ref.n);
        ck_assert(memcmp(jobs[i].out, ref.out, ref.n * sizeof ref.out[0]) == 0);
    }
    occ_device_free(dev);
}
END_TEST

/* A request in clusters: every configuration advised equals the model's
 * answer for that launch in clusters (occ_cluster_compute, occ_gpu_compute_
 * clusters), over random problems and cluster sizes on every device with
 * GPC data; where the cap binds it says so; a device without GPC data or a
 * size over the maximum fails the request as occ_cluster_compute does. */
START_TEST(advise_in_clusters)
{
    tc_rng rng = {0xad51u};
    unsigned capped = 0, devices = 0;
    for (size_t di = 0; di < occ_builtin_count(); di++) {
        occ_device *dev = tc_builtin(occ_builtin_name(di));
        const occ_device_desc *d = occ_device_describe(dev);
        if (!d->n_gpcs) {
            occ_advise_request q = request(1, 0, 0, 0);
            q.cluster[0] = 2;
            occ_advice a[1];
            size_t n;
            occ_advise_summary s;
            ck_assert_int_eq(occ_advise(dev, &q, a, 1, &n, &s),
                             OCC_ERR_UNSUPPORTED);
            ck_assert_ptr_nonnull(strstr(s.message, "no GPC data"));
            occ_device_free(dev);
            continue;
        }
        devices++;
        for (int t = 0; t < 40; t++) {
            occ_advise_request q = request(1, 0, 0, 0);
            uint32_t size = (uint32_t)tc_range(&rng, 1, d->cluster_max_size);
            q.cluster[0] = size;
            q.regs_per_thread = (uint32_t)tc_range(&rng, 0, 255);
            q.slm_bytes = tc_range(&rng, 0, 3) ? 0 : tc_range(&rng, 0, d->slm_max_per_work_group / 4);
            q.wg_max = (uint32_t)tc_range(&rng, 32, d->max_work_group_size);
            if (tc_range(&rng, 0, 1))
                q.work_groups = size * tc_range(&rng, 1, 4000);
            occ_advice a[64];
            occ_advise_summary s;
            size_t n = advise(dev, &q, a, 64, &s);
            for (size_t i = 0; i < n && i < 64; i++) {
                occ_kernel k;
                occ_kernel_init(&k);
                memcpy(k.wg, a[i].wg, sizeof k.wg);
                k.sub_group = a[i].sub_group, k.grf = a[i].grf, k.slm_bytes = a[i].slm_bytes;
                k.regs_per_thread = q.regs_per_thread;
                k.cluster[0] = size;
                occ_clusters c;
                ck_assert_int_eq(occ_cluster_compute(dev, &k, &c, NULL), OCC_OK);
                occ_residency r = tc_residency(dev, &k);
                ck_assert_uint_eq(a[i].resident_wgs, c.work_groups_per_core);
                ck_assert_double_eq_tol(a[i].occupancy, c.occupancy, 1e-12);
                ck_assert_uint_eq(a[i].contexts_used, c.contexts_used);
                ck_assert(a[i].cluster_capped == (c.work_groups_per_core < r.resident_wgs));
                ck_assert_uint_eq(a[i].limited_by, a[i].cluster_capped ? 0 : r.limited_by);
                capped += a[i].cluster_capped;
                if (q.work_groups) {
                    occ_gpu g;
                    ck_assert_int_eq(occ_gpu_compute_clusters(dev, &r, &c, q.work_groups, &g), OCC_OK);
                    ck_assert_double_eq_tol(a[i].gpu_occupancy, g.average_occupancy, 1e-12);
                    ck_assert_uint_eq(a[i].waves, g.waves);
                }
                if (i) /* ranked by the figures in clusters */
                    ck_assert(a[i - 1].score >= a[i].score - 1e-12);
            }
        }
        occ_advise_request q = request(1, 0, 0, 0);
        q.cluster[0] = d->cluster_max_size + 1;
        occ_advice a[1];
        size_t n;
        occ_advise_summary s;
        ck_assert_int_eq(occ_advise(dev, &q, a, 1, &n, &s), OCC_ERR_VALUE);
        ck_assert_ptr_nonnull(strstr(s.message, "portable maximum"));
        occ_device_free(dev);
    }
    ck_assert_uint_gt(devices, 0);
    ck_assert_uint_gt(capped, 0);
}
END_TEST

static Suite *advise_suite(void)
{
    Suite *s = suite_create("advise");
    TCase *tc = tcase_create("advise");
    tcase_set_timeout(tc, 120);
    int n = (int)occ_builtin_count();
    tcase_add_test(tc, guide_3d_range_fills_the_xe_core);
    tcase_add_test(tc, guide_r_table_prefers_r1);
    tcase_add_test(tc, intel_valid_work_group_list);
    tcase_add_test(tc, intel_hundred_percent_table);
    tcase_add_test(tc, intel_differences_on_purpose);
    tcase_add_loop_test(tc, brute_force_agrees, 0, n);
    tcase_add_test(tc, nothing_valid_names_the_constraint);
    tcase_add_test(tc, contradictions_are_invalid_arguments);
    tcase_add_test(tc, batch_equals_one_by_one);
    tcase_add_loop_test(tc, bounds_are_exact, 0, n + 1);
    tcase_add_test(tc, bounds_whole_domain);
    tcase_add_loop_test(tc, slm_limit_is_the_largest, 0, n + 1);
    tcase_add_loop_test(tc, limits_rows_hold, 0, n + 1);
    tcase_add_test(tc, sweep_points);
    tcase_add_test(tc, threads_share_a_device);
    tcase_add_test(tc, advise_in_clusters);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tc_run(advise_suite()); }
