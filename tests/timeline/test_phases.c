/* The dispatch-phases simulator (occ/timeline.h, docs/phases.md):
 *  - the seed chapter's cases on Tiger Lake: every VectorAdd2 row, the
 *    VectorAdd3/VectorAdd4 <8, 320, 8> example with and without a barrier,
 *    the guide's 264-context phase, and <24, 224, 8>;
 *  - each policy (pack/spread x partial no/launch/always x barrier) on cases
 *    computed by hand;
 *  - invariants over random devices, kernels, counts, policies and durations:
 *    every work-group runs exactly once, on one core, for its duration; no core
 *    ever holds more contexts than it has; the phases are contiguous and cover
 *    the run; the trace rebuilds the same timeline; the step engine equals the
 *    event engine; whole-work-group dispatch with equal durations is the wave
 *    model of occ_gpu_compute;
 *  - bad input. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "occ/timeline.h"
#include "test_common.h"

/* ck_assert records a mark point per call: too slow inside loops over chunks */
#define REQUIRE(cond, ...)                                                                         \
    do {                                                                                           \
        if (!(cond))                                                                               \
            ck_abort_msg(__VA_ARGS__);                                                             \
    } while (0)

/* ---- helpers ------------------------------------------------------------------ */

typedef struct run {
    occ_timeline tl;
    occ_status st;
    occ_diag diag;
} run;

static run simulate(const occ_device *dev, const occ_kernel *k, uint64_t n,
                    const occ_sim_options *o)
{
    run r;
    memset(&r.diag, 0, sizeof r.diag);
    r.st = occ_timeline_simulate(dev, k, n, o, &r.tl, &r.diag);
    return r;
}

static occ_sim_options opts(occ_dispatch_order order, occ_partial_policy partial)
{
    occ_sim_options o;
    occ_sim_options_init(&o);
    o.order = order;
    o.partial = partial;
    o.lanes = true;
    return o;
}

/* Expect phase i to be [start, end) with the given contexts (and per-core
 * contexts when lanes is not NULL, first n_lanes cores; the rest idle). */
static void expect_phase(const occ_timeline *t, size_t i, double start, double end,
                         uint64_t contexts, const uint32_t *lanes, size_t n_lanes)
{
    ck_assert_msg(i < t->n_phases, "phase %zu missing (%zu phases)", i, t->n_phases);
    const occ_phase *p = &t->phases[i];
    ck_assert_double_eq(p->start, start);
    ck_assert_double_eq(p->end, end);
    ck_assert_uint_eq(p->thread_contexts, contexts);
    ck_assert_double_eq_tol(p->occupancy, (double)contexts / (double)t->contexts_total, 1e-15);
    if (lanes)
        for (uint32_t c = 0; c < t->cores; c++)
            ck_assert_msg(t->core_contexts[i * t->cores + c] == (c < n_lanes ? lanes[c] : 0),
                          "phase %zu core %u: %u contexts, expected %u", i, c,
                          t->core_contexts[i * t->cores + c], c < n_lanes ? lanes[c] : 0);
}

static occ_device *with_cores(const char *name, uint32_t cores)
{
    occ_device *base = tc_builtin(name);
    occ_device_desc d = *occ_device_describe(base);
    occ_device_free(base);
    tc_desc_set_cores(&d, cores);
    occ_device *dev = NULL;
    occ_diag diag;
    ck_assert_int_eq(occ_device_create(&d, &dev, &diag), OCC_OK);
    return dev;
}

/* ---- seed: VectorAdd2 (work-group 512, sub-group 32: 16 contexts, 7 per Xe-core) ---- */

static const uint32_t va2_groups[] = {1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 20, 24, 28, 32, 36, 40, 42};

START_TEST(vectoradd2_rows)
{
    /* "VectorAdd2<N> ... 16 threads per work-group ... 16N/672": one phase */
    occ_device *dev = tc_builtin("tgl");
    occ_kernel k = tc_kernel(512, 32);
    for (int order = OCC_DISPATCH_PACK; order <= OCC_DISPATCH_SPREAD; order++)
        for (int partial = 0; partial <= OCC_PARTIAL_ALWAYS; partial++) {
            occ_sim_options o = opts(order, partial);
            run r = simulate(dev, &k, va2_groups[_i], &o);
            ck_assert_int_eq(r.st, OCC_OK);
            ck_assert_uint_eq(r.tl.n_phases, 1);
            expect_phase(&r.tl, 0, 0, 1, 16u * va2_groups[_i], NULL, 0);
            ck_assert_uint_eq(r.tl.phases[0].work_groups, va2_groups[_i]);
            occ_timeline_free(&r.tl);
        }
    occ_device_free(dev);
}
END_TEST

START_TEST(vectoradd2_two_phases)
{
    /* "VectorAdd2<44> ... 100% then 4.7%" (32/672 = 4.76 %), "<48> ... 100% then
     * 14.3%" (96/672): the 43rd work-group waits for a free slot */
    static const struct {
        uint32_t groups, last;
    } rows[] = {{44, 32}, {48, 96}};
    occ_device *dev = tc_builtin("tgl");
    occ_kernel k = tc_kernel(512, 32);
    for (int i = 0; i < 2; i++)
        for (int order = OCC_DISPATCH_PACK; order <= OCC_DISPATCH_SPREAD; order++) {
            occ_sim_options o = opts(order, OCC_PARTIAL_DEVICE);
            run r = simulate(dev, &k, rows[i].groups, &o);
            ck_assert_int_eq(r.st, OCC_OK);
            ck_assert_uint_eq(r.tl.n_phases, 2);
            expect_phase(&r.tl, 0, 0, 1, 672, NULL, 0);
            expect_phase(&r.tl, 1, 1, 2, rows[i].last, NULL, 0);
            ck_assert_double_eq_tol(100 * r.tl.phases[0].occupancy, 100.0, 1e-12);
            ck_assert_double_eq_tol(100 * r.tl.phases[1].occupancy, i ? 14.3 : 4.8, 0.05);
            occ_timeline_free(&r.tl);
        }
    /* VectorAdd1: 53760 work-groups of 512 at SIMD 32, "100%": 1280 full waves */
    run r = simulate(dev, &k, 53760, NULL);
    ck_assert_int_eq(r.st, OCC_OK);
    ck_assert_uint_eq(r.tl.n_phases, 1);
    expect_phase(&r.tl, 0, 0, 1280, 672, NULL, 0);
    occ_timeline_free(&r.tl);
    occ_device_free(dev);
}
END_TEST

/* ---- seed: VectorAdd3 / VectorAdd4 <8, 320, 8> ------------------------------ */

START_TEST(seed_320_barrier_tgl_policy)
{
    /* "two Xe-cores getting 112 threads each (80 from two work-groups and 32
     * from one work-group) and one Xe-core getting 80 threads": 304 (45.2 %);
     * "the remaining eight threads of two work-groups are scheduled" last: 80 */
    occ_device *dev = tc_builtin("tgl");
    const occ_device_desc *d = occ_device_describe(dev);
    ck_assert_int_eq(d->dispatch_order, OCC_DISPATCH_PACK);
    ck_assert(d->partial_dispatch);
    occ_kernel k = tc_kernel(320, 8);
    k.barrier = true;
    occ_sim_options o = opts(0, OCC_PARTIAL_DEVICE);
    run r = simulate(dev, &k, 8, &o);
    ck_assert_int_eq(r.st, OCC_OK);
    ck_assert_int_eq(r.tl.order, OCC_DISPATCH_PACK);
    ck_assert_int_eq(r.tl.partial, OCC_PARTIAL_LAUNCH);
    ck_assert_uint_eq(r.tl.n_phases, 2);
    expect_phase(&r.tl, 0, 0, 1, 304, (const uint32_t[]){112, 112, 80}, 3);
    expect_phase(&r.tl, 1, 1, 2, 80, (const uint32_t[]){40, 40}, 2);
    ck_assert_double_eq_tol(100 * r.tl.phases[0].occupancy, 45.2, 0.05);
    ck_assert_double_eq_tol(100 * r.tl.phases[1].occupancy, 11.9, 0.05);
    ck_assert_uint_eq(r.tl.phases[0].work_groups, 8);
    ck_assert_uint_eq(r.tl.phases[1].work_groups, 2);
    ck_assert_uint_eq(r.tl.core_work_groups[0], 3);
    ck_assert_uint_eq(r.tl.core_work_groups[2], 2);
    occ_timeline_free(&r.tl);
    occ_device_free(dev);
}
END_TEST

START_TEST(seed_320_no_barrier)
{
    occ_device *dev = tc_builtin("tgl");
    occ_kernel k = tc_kernel(320, 8);
    /* tgl's policies: the same first phase; without a barrier the 32 threads
     * dispatched first run on, and only the 8 late ones run [1, 2) */
    occ_sim_options o = opts(0, OCC_PARTIAL_DEVICE);
    run r = simulate(dev, &k, 8, &o);
    ck_assert_int_eq(r.st, OCC_OK);
    ck_assert_uint_eq(r.tl.n_phases, 2);
    expect_phase(&r.tl, 0, 0, 1, 304, (const uint32_t[]){112, 112, 80}, 3);
    expect_phase(&r.tl, 1, 1, 2, 16, (const uint32_t[]){8, 8}, 2);
    occ_timeline_free(&r.tl);
    /* spread (H100's measured order): 8 work-groups on 6 Xe-cores, one phase */
    o = opts(OCC_DISPATCH_SPREAD, OCC_PARTIAL_DEVICE);
    r = simulate(dev, &k, 8, &o);
    ck_assert_uint_eq(r.tl.n_phases, 1);
    expect_phase(&r.tl, 0, 0, 1, 320, (const uint32_t[]){80, 80, 40, 40, 40, 40}, 6);
    occ_timeline_free(&r.tl);
    /* pack, whole work-groups only: two per Xe-core on four Xe-cores */
    o = opts(OCC_DISPATCH_PACK, OCC_PARTIAL_NO);
    r = simulate(dev, &k, 8, &o);
    ck_assert_uint_eq(r.tl.n_phases, 1);
    expect_phase(&r.tl, 0, 0, 1, 320, (const uint32_t[]){80, 80, 80, 80}, 4);
    occ_timeline_free(&r.tl);
    occ_device_free(dev);
}
END_TEST

START_TEST(seed_264_phase_from_unequal_durations)
{
    /* "In the second phase, one work-group completed execution ... (304-40=264)":
     * with equal durations that phase has no length; when a work-group on the
     * third Xe-core (whole work-groups 6, 7) ends first, it appears. */
    occ_device *dev = tc_builtin("tgl");
    occ_kernel k = tc_kernel(320, 8);
    k.barrier = true;
    static const double dur[8] = {1, 1, 1, 1, 1, 1, 0.9, 1};
    occ_sim_options o = opts(0, OCC_PARTIAL_DEVICE);
    o.durations.kind = OCC_DURATIONS_LIST;
    o.durations.values = dur;
    o.durations.n_values = 8;
    run r = simulate(dev, &k, 8, &o);
    ck_assert_int_eq(r.st, OCC_OK);
    ck_assert_uint_eq(r.tl.n_phases, 3);
    expect_phase(&r.tl, 0, 0, 0.9, 304, NULL, 0);
    expect_phase(&r.tl, 1, 0.9, 1, 264, (const uint32_t[]){112, 112, 40}, 3);
    expect_phase(&r.tl, 2, 1, 2, 80, NULL, 0);
    ck_assert_double_eq_tol(100 * r.tl.phases[1].occupancy, 39.3, 0.05);
    occ_timeline_free(&r.tl);
    occ_device_free(dev);
}
END_TEST

START_TEST(seed_vectoradd3_measurement_needs_two_cores)
{
    /* The guide measured VectorAdd3 (no barrier) as 224 then 96.  No policy on
     * six Xe-cores gives that; tgl's policies on two Xe-cores give exactly it
     * (documented in docs/phases.md): the 8 late threads of work-groups 2 and
     * 5, and work-groups 6 and 7 (pack: both on the first Xe-core). */
    occ_device *dev = with_cores("tgl", 2);
    occ_kernel k = tc_kernel(320, 8);
    occ_sim_options o = opts(0, OCC_PARTIAL_DEVICE);
    run r = simulate(dev, &k, 8, &o);
    ck_assert_int_eq(r.st, OCC_OK);
    ck_assert_uint_eq(r.tl.n_phases, 2);
    expect_phase(&r.tl, 0, 0, 1, 224, (const uint32_t[]){112, 112}, 2);
    expect_phase(&r.tl, 1, 1, 2, 96, (const uint32_t[]){88, 8}, 2);
    occ_timeline_free(&r.tl);
    occ_device_free(dev);
}
END_TEST

START_TEST(seed_24_224_8)
{
    /* <24, 224, 8>: 28 contexts per work-group, 4 per Xe-core: 24 fill the GPU */
    occ_device *dev = tc_builtin("tgl");
    occ_kernel k = tc_kernel(224, 8);
    for (int barrier = 0; barrier < 2; barrier++)
        for (int order = OCC_DISPATCH_PACK; order <= OCC_DISPATCH_SPREAD; order++)
            for (int partial = OCC_PARTIAL_NO; partial <= OCC_PARTIAL_ALWAYS; partial++) {
                k.barrier = barrier;
                occ_sim_options o = opts(order, partial);
                run r = simulate(dev, &k, 24, &o);
                ck_assert_int_eq(r.st, OCC_OK);
                ck_assert_uint_eq(r.tl.n_phases, 1);
                expect_phase(&r.tl, 0, 0, 1, 672,
                             (const uint32_t[]){112, 112, 112, 112, 112, 112}, 6);
                ck_assert_double_eq(r.tl.average_occupancy, 1.0);
                occ_timeline_free(&r.tl);
            }
    occ_device_free(dev);
}
END_TEST

/* ---- policies ----------------------------------------------------------------------- */

START_TEST(policy_steady_state)
{
    /* 1000 work-groups of 320 at SIMD 8 on tgl, equal durations.  Whole-WG rule:
     * 2 per Xe-core, 80 of 112 contexts (71.4 %). */
    occ_device *dev = tc_builtin("tgl");
    occ_kernel k = tc_kernel(320, 8);
    for (int barrier = 0; barrier < 2; barrier++) {
        k.barrier = barrier;
        /* no partial dispatch: the wave model, 84 waves (83 of 12, one of 4) */
        occ_sim_options o = opts(OCC_DISPATCH_PACK, OCC_PARTIAL_NO);
        run r = simulate(dev, &k, 1000, &o);
        ck_assert_uint_eq(r.tl.n_phases, 2);
        expect_phase(&r.tl, 0, 0, 83, 480, NULL, 0);
        expect_phase(&r.tl, 1, 83, 84, 160, (const uint32_t[]){80, 80}, 2);
        occ_timeline_free(&r.tl);
        /* partial at launch: 112 per core first, then whole refills settle at
         * the whole-WG rule's 80 per core */
        o = opts(OCC_DISPATCH_PACK, OCC_PARTIAL_LAUNCH);
        r = simulate(dev, &k, 1000, &o);
        ck_assert_int_eq(r.st, OCC_OK);
        expect_phase(&r.tl, 0, 0, 1, 672, NULL, 0);
        if (barrier) {
            /* the waiting work-group completes at 1 and runs to 2 beside one refill */
            expect_phase(&r.tl, 1, 1, 83, 480, NULL, 0);
            ck_assert_uint_eq(r.tl.n_phases, 3);
            expect_phase(&r.tl, 2, 83, 84, 160, NULL, 0);
        } else {
            /* its 8 late threads run [1, 2) beside two refills: 88 per core */
            expect_phase(&r.tl, 1, 1, 2, 528, NULL, 0);
            expect_phase(&r.tl, 2, 2, 82, 480, NULL, 0);
            ck_assert_uint_eq(r.tl.n_phases, 4);
            expect_phase(&r.tl, 3, 82, 83, 400, NULL, 0);
        }
        for (size_t i = 1; i < r.tl.n_phases; i++)
            for (uint32_t c = 0; c < r.tl.cores; c++)
                ck_assert_uint_le(r.tl.core_contexts[i * r.tl.cores + c], 88);
        occ_timeline_free(&r.tl);
        /* partial refills too (what-if): every context busy until the tail */
        o = opts(OCC_DISPATCH_PACK, OCC_PARTIAL_ALWAYS);
        r = simulate(dev, &k, 1000, &o);
        ck_assert_int_eq(r.st, OCC_OK);
        ck_assert_uint_eq(r.tl.phases[0].thread_contexts, 672);
        ck_assert_double_gt(r.tl.phases[0].end, 50);
        ck_assert_double_gt(r.tl.average_occupancy, 0.95);
        occ_timeline_free(&r.tl);
    }
    occ_device_free(dev);
}
END_TEST

START_TEST(policy_spread_refill_h100)
{
    /* H100 (measured, docs/validation/cuda-h100-2026-11-21.md): 1000 blocks of 320 threads, 6 per
     * SM on 132 SMs: 792 resident, then 208 */
    occ_device *dev = tc_builtin("h100-sxm");
    occ_kernel k = tc_kernel(320, 32);
    occ_sim_options o = opts(0, OCC_PARTIAL_DEVICE);
    run r = simulate(dev, &k, 1000, &o);
    ck_assert_int_eq(r.st, OCC_OK);
    ck_assert_int_eq(r.tl.order, OCC_DISPATCH_SPREAD);
    ck_assert_int_eq(r.tl.partial, OCC_PARTIAL_NO);
    ck_assert_uint_eq(r.tl.n_phases, 2);
    ck_assert_uint_eq(r.tl.phases[0].work_groups, 792);
    ck_assert_uint_eq(r.tl.phases[1].work_groups, 208);
    /* spread: 208 = 132 + 76 -> 76 SMs hold 2 blocks, 56 hold 1 */
    uint32_t two = 0, one = 0;
    for (uint32_t c = 0; c < 132; c++) {
        uint32_t w = r.tl.core_work_groups[132 + c];
        two += w == 2;
        one += w == 1;
    }
    ck_assert_uint_eq(two, 76);
    ck_assert_uint_eq(one, 56);
    occ_timeline_free(&r.tl);
    /* 8 blocks of 320 threads land on 8 different SMs */
    r = simulate(dev, &k, 8, &o);
    ck_assert_uint_eq(r.tl.phases[0].cores_busy, 8);
    occ_timeline_free(&r.tl);
    occ_device_free(dev);
}
END_TEST

START_TEST(policy_barrier_waits_hold_contexts)
{
    /* One core of 112 contexts (tgl with 1 Xe-core), work-groups of 40 with
     * durations 1, 3, then 1: the third gets 32 contexts at launch; the first
     * ends at 1 and its 8 late threads arrive.  With a barrier, the 32 wait
     * and all 40 run [1, 2); without one, the 32 end at 1 and the 8 at 2. */
    occ_device *dev = with_cores("tgl", 1);
    occ_kernel k = tc_kernel(320, 8);
    static const double dur[3] = {1, 3, 1};
    occ_sim_options o = opts(OCC_DISPATCH_PACK, OCC_PARTIAL_LAUNCH);
    o.durations.kind = OCC_DURATIONS_LIST;
    o.durations.values = dur;
    o.durations.n_values = 3;
    k.barrier = true;
    run r = simulate(dev, &k, 3, &o);
    ck_assert_uint_eq(r.tl.n_phases, 3);
    expect_phase(&r.tl, 0, 0, 1, 112, NULL, 0);
    expect_phase(&r.tl, 1, 1, 2, 80, NULL, 0);
    expect_phase(&r.tl, 2, 2, 3, 40, NULL, 0);
    occ_timeline_free(&r.tl);
    k.barrier = false;
    r = simulate(dev, &k, 3, &o);
    ck_assert_uint_eq(r.tl.n_phases, 3);
    expect_phase(&r.tl, 0, 0, 1, 112, NULL, 0);
    expect_phase(&r.tl, 1, 1, 2, 48, NULL, 0);
    expect_phase(&r.tl, 2, 2, 3, 40, NULL, 0);
    occ_timeline_free(&r.tl);
    occ_device_free(dev);
}
END_TEST

START_TEST(policy_barrier_split_never)
{
    /* barrier kernels dispatched whole: <8, 320, 8> packs 2 per Xe-core (320
     * contexts, one phase); the kernel without a barrier is not affected */
    occ_device *dev = tc_builtin("tgl");
    occ_kernel k = tc_kernel(320, 8);
    k.barrier = true;
    occ_sim_options o = opts(0, OCC_PARTIAL_DEVICE);
    o.barrier_split = OCC_BARRIER_SPLIT_NEVER;
    run r = simulate(dev, &k, 8, &o);
    ck_assert_int_eq(r.st, OCC_OK);
    ck_assert_int_eq(r.tl.partial, OCC_PARTIAL_NO);
    ck_assert_uint_eq(r.tl.n_phases, 1);
    expect_phase(&r.tl, 0, 0, 1, 320, (const uint32_t[]){80, 80, 80, 80}, 4);
    occ_timeline_free(&r.tl);
    k.barrier = false;
    r = simulate(dev, &k, 8, &o);
    ck_assert_int_eq(r.tl.partial, OCC_PARTIAL_LAUNCH);
    expect_phase(&r.tl, 0, 0, 1, 304, NULL, 0);
    occ_timeline_free(&r.tl);
    o.barrier_split = (occ_barrier_split)9;
    ck_assert_int_eq(occ_timeline_simulate(dev, &k, 8, &o, &r.tl, NULL), OCC_ERR_INVALID_ARGUMENT);
    occ_device_free(dev);
}
END_TEST

START_TEST(policy_admit_limit_blocks_partial)
{
    /* Local memory allowing 2 work-groups per Xe-core (32 KB each of 64 KB):
     * no partial work-group can be admitted, whatever the policy. */
    occ_device *dev = tc_builtin("tgl");
    occ_kernel k = tc_kernel(320, 8);
    k.slm_bytes = 32 * 1024;
    occ_sim_options o = opts(OCC_DISPATCH_PACK, OCC_PARTIAL_ALWAYS);
    run r = simulate(dev, &k, 8, &o);
    ck_assert_uint_eq(r.tl.admit_limit, 2);
    ck_assert_uint_eq(r.tl.n_phases, 1);
    expect_phase(&r.tl, 0, 0, 1, 320, (const uint32_t[]){80, 80, 80, 80}, 4);
    occ_timeline_free(&r.tl);
    occ_device_free(dev);
}
END_TEST

START_TEST(merge_none_splits_every_instant)
{
    occ_device *dev = tc_builtin("tgl");
    occ_kernel k = tc_kernel(512, 32);
    occ_sim_options o = opts(0, OCC_PARTIAL_DEVICE);
    o.merge = OCC_MERGE_NONE;
    run r = simulate(dev, &k, 42 * 5 + 3, &o); /* 6 waves */
    ck_assert_uint_eq(r.tl.n_phases, 6);
    for (size_t i = 0; i < 6; i++)
        expect_phase(&r.tl, i, (double)i, (double)i + 1, i < 5 ? 672 : 48, NULL, 0);
    occ_timeline_free(&r.tl);
    o.merge = OCC_MERGE_SAME_CONTEXTS;
    r = simulate(dev, &k, 42 * 5 + 3, &o);
    ck_assert_uint_eq(r.tl.n_phases, 2);
    occ_timeline_free(&r.tl);
    occ_device_free(dev);
}
END_TEST

/* ---- invariants over random configurations -------------------------------------- */


static int by_wg(const void *a, const void *b)
{
    const occ_chunk *x = a, *y = b;
    if (x->work_group != y->work_group)
        return x->work_group < y->work_group ? -1 : 1;
    return x->dispatch < y->dispatch ? -1 : x->dispatch > y->dispatch;
}

static void check_cover(const occ_timeline *t)
{
    ck_assert_uint_ge(t->n_phases, 1);
    ck_assert_double_eq(t->phases[0].start, t->start);
    ck_assert_double_eq(t->phases[t->n_phases - 1].end, t->end);
    double area = 0;
    for (size_t i = 0; i < t->n_phases; i++) {
        const occ_phase *p = &t->phases[i];
        REQUIRE(p->end > p->start, "phase %zu is empty", i);
        REQUIRE(!i || p->start == t->phases[i - 1].end, "gap before phase %zu", i);
        REQUIRE(p->thread_contexts <= t->contexts_total, "phase %zu over capacity", i);
        uint64_t sum = 0, wsum = 0;
        uint32_t busy = 0;
        for (uint32_t c = 0; c < t->cores; c++) {
            uint32_t v = t->core_contexts[i * t->cores + c];
            uint32_t w = t->core_work_groups[i * t->cores + c];
            REQUIRE(v <= t->contexts_per_core, "phase %zu core %u: %u contexts", i, c, v);
            REQUIRE(w <= t->admit_limit, "phase %zu core %u: %u work-groups", i, c, w);
            REQUIRE(t->partial != OCC_PARTIAL_NO || w <= t->resident_work_groups,
                    "phase %zu core %u: %u whole work-groups, the rule allows %u", i, c, w,
                    t->resident_work_groups);
            sum += v;
            wsum += w;
            busy += v != 0;
        }
        REQUIRE(sum == p->thread_contexts, "phase %zu: lanes sum to %llu", i,
                (unsigned long long)sum);
        REQUIRE(busy == p->cores_busy, "phase %zu: cores busy", i);
        REQUIRE(p->work_groups <= wsum, "phase %zu: work-groups", i); /* max of a sum <= sum of maxes */
        REQUIRE(!i || memcmp(t->core_contexts + i * t->cores, t->core_contexts + (i - 1) * t->cores,
                             t->cores * sizeof *t->core_contexts) != 0,
                "phases %zu and %zu have the same per-core contexts", i - 1, i);
        area += (double)p->thread_contexts * (p->end - p->start);
    }
    ck_assert_double_eq_tol(area, t->busy_context_time, 1e-9 * (1 + area));
}

static void expect_same(const occ_timeline *a, const occ_timeline *b, double tol)
{
    ck_assert_uint_eq(a->n_phases, b->n_phases);
    for (size_t i = 0; i < a->n_phases; i++) {
        const occ_phase *x = &a->phases[i], *y = &b->phases[i];
        REQUIRE(fabs(x->start - y->start) <= tol && fabs(x->end - y->end) <= tol,
                "phase %zu: [%.17g, %.17g) vs [%.17g, %.17g)", i, x->start, x->end, y->start,
                y->end);
        REQUIRE(x->thread_contexts == y->thread_contexts && x->work_groups == y->work_groups &&
                    x->cores_busy == y->cores_busy,
                "phase %zu: %llu contexts %llu WGs vs %llu contexts %llu WGs", i,
                (unsigned long long)x->thread_contexts, (unsigned long long)x->work_groups,
                (unsigned long long)y->thread_contexts, (unsigned long long)y->work_groups);
    }
    if (a->core_contexts && b->core_contexts) {
        size_t cells = a->n_phases * a->cores;
        ck_assert(!memcmp(a->core_contexts, b->core_contexts, cells * sizeof(uint32_t)));
        ck_assert(!memcmp(a->core_work_groups, b->core_work_groups, cells * sizeof(uint32_t)));
    }
}

/* A random launchable kernel (a few tries), or false. */
static bool random_kernel(tc_rng *g, const occ_device *dev, occ_kernel *k, occ_residency *r)
{
    for (int i = 0; i < 50; i++) {
        *k = tc_random_kernel(g, occ_device_describe(dev));
        *r = tc_residency(dev, k);
        if (r->launchable)
            return true;
    }
    return false;
}

static void random_durations(tc_rng *g, occ_durations *d, double *buf, size_t n_buf)
{
    switch (tc_range(g, 0, 4)) {
    case 0:
        d->kind = OCC_DURATIONS_EQUAL;
        break;
    case 1: /* small integers: many ties */
        d->kind = OCC_DURATIONS_LIST;
        d->n_values = tc_range(g, 1, n_buf);
        for (size_t i = 0; i < d->n_values; i++)
            buf[i] = (double)tc_range(g, 1, 4);
        d->values = buf;
        break;
    case 2:
        d->kind = OCC_DURATIONS_LIST;
        d->n_values = tc_range(g, 1, n_buf);
        for (size_t i = 0; i < d->n_values; i++)
            buf[i] = 0.01 + (double)tc_range(g, 0, 1000000) / 1e5;
        d->values = buf;
        break;
    case 3:
        d->kind = OCC_DURATIONS_UNIFORM;
        d->a = 0.5;
        d->b = 0.5 + (double)tc_range(g, 0, 100) / 50.0;
        d->seed = tc_next(g);
        break;
    default:
        d->kind = OCC_DURATIONS_NORMAL;
        d->a = 1;
        d->b = (double)tc_range(g, 0, 100) / 100.0;
        d->seed = tc_next(g);
    }
}

START_TEST(invariants_random)
{
    tc_rng g = {0x5eed0000u + (uint64_t)_i};
    size_t nb = occ_builtin_count();
    double buf[64];
    for (int iter = 0; iter < 60; iter++) {
        occ_device *dev = tc_builtin(occ_builtin_name(tc_range(&g, 0, nb - 1)));
        occ_kernel k;
        occ_residency res;
        if (!random_kernel(&g, dev, &k, &res)) {
            occ_device_free(dev);
            continue;
        }
        uint64_t n = tc_range(&g, 1, tc_range(&g, 0, 3) ? 300 : 3000);
        occ_sim_options o = opts((occ_dispatch_order)tc_range(&g, 0, 2),
                                 (occ_partial_policy)tc_range(&g, 0, 3));
        random_durations(&g, &o.durations, buf, 64);
        tc_trace tb = {0};
        o.trace = tc_trace_collect;
        o.trace_user = &tb;
        run r = simulate(dev, &k, n, &o);
        ck_assert_msg(r.st == OCC_OK, "%s: %s", occ_status_name(r.st), r.diag.message);
        const occ_timeline *t = &r.tl;
        ck_assert_uint_eq(t->contexts_per_work_group, res.contexts_per_wg);
        check_cover(t);

        /* every work-group exactly once: its parts on one core, t contexts in
         * all, each running the work-group's duration */
        qsort(tb.c, tb.n, sizeof *tb.c, by_wg);
        size_t i = 0;
        double work = 0;
        for (uint64_t w = 0; w < n; w++) {
            REQUIRE(i < tb.n && tb.c[i].work_group == w, "work-group %llu missing or twice",
                    (unsigned long long)w);
            double d = occ_duration_of(&o.durations, w);
            uint32_t core = tb.c[i].core, sum = 0;
            double last = tb.c[i].dispatch, run_at = tb.c[i].run;
            size_t j = i;
            for (; j < tb.n && tb.c[j].work_group == w; j++) {
                const occ_chunk *c = &tb.c[j];
                REQUIRE(c->core == core, "work-group %llu on two cores", (unsigned long long)w);
                REQUIRE(c->contexts >= 1, "empty chunk");
                sum += c->contexts;
                REQUIRE(fabs(c->end - c->run - d) <= 1e-9 * (1 + c->end),
                        "work-group %llu ran %.17g, its duration is %.17g", (unsigned long long)w,
                        c->end - c->run, d);
                REQUIRE(k.barrier ? c->run == run_at : c->run == c->dispatch,
                        "work-group %llu: a part started at the wrong time", (unsigned long long)w);
                if (c->dispatch > last)
                    last = c->dispatch;
            }
            REQUIRE(!k.barrier || run_at == last,
                    "work-group %llu left its barrier before its last part arrived",
                    (unsigned long long)w);
            REQUIRE(sum == res.contexts_per_wg, "work-group %llu: %u of %u threads",
                    (unsigned long long)w, sum, res.contexts_per_wg);
            work += d * res.contexts_per_wg;
            i = j;
        }
        ck_assert_uint_eq(i, tb.n);
        /* running contexts x time is the work; with a barrier, waiting adds to it */
        if (!k.barrier)
            ck_assert_double_eq_tol(t->busy_context_time, work, 1e-9 * work);
        else
            ck_assert_double_ge(t->busy_context_time, work * (1 - 1e-12));

        /* the trace rebuilds the timeline (and never exceeds a core's contexts) */
        occ_timeline rebuilt;
        occ_diag diag;
        ck_assert_int_eq(occ_timeline_from_chunks(tb.c, tb.n, t->cores, t->contexts_per_core,
                                                  OCC_MERGE_SAME_CONTEXTS, true, &rebuilt, &diag),
                         OCC_OK);
        expect_same(t, &rebuilt, 0);
        occ_timeline_free(&rebuilt);

        /* equal durations: the step engine gives the same timeline */
        if (o.durations.kind == OCC_DURATIONS_EQUAL) {
            o.trace = NULL;
            run s = simulate(dev, &k, n, &o);
            ck_assert_int_eq(s.st, OCC_OK);
            expect_same(t, &s.tl, 0);
            occ_timeline_free(&s.tl);
        }
        free(tb.c);
        occ_timeline_free(&r.tl);
        occ_device_free(dev);
    }
}
END_TEST

START_TEST(equal_steps_match_events_long)
{
    /* Long runs, where the step engine repeats a stretch instead of simulating
     * it: the summary equals the event engine's, and so do the phases when
     * they merge. */
    tc_rng g = {0xabcdefu + (uint64_t)_i};
    size_t nb = occ_builtin_count();
    for (int iter = 0; iter < 25; iter++) {
        occ_device *dev = tc_builtin(occ_builtin_name(tc_range(&g, 0, nb - 1)));
        occ_kernel k;
        occ_residency res;
        if (!random_kernel(&g, dev, &k, &res)) {
            occ_device_free(dev);
            continue;
        }
        uint64_t n = tc_range(&g, 20000, 120000);
        occ_sim_options o = opts((occ_dispatch_order)tc_range(&g, 0, 2),
                                 (occ_partial_policy)tc_range(&g, 0, 3));
        o.merge = (occ_merge)tc_range(&g, 0, 1);
        o.summary_only = tc_range(&g, 0, 1);
        o.max_phases = 1000000;
        run a = simulate(dev, &k, n, &o);
        o.force_events = true;
        run b = simulate(dev, &k, n, &o);
        ck_assert_int_eq(a.st, OCC_OK);
        ck_assert_int_eq(b.st, OCC_OK);
        ck_assert_uint_eq(a.tl.n_phases, b.tl.n_phases);
        ck_assert_double_eq(a.tl.end, b.tl.end);
        ck_assert_double_eq_tol(a.tl.busy_context_time, b.tl.busy_context_time,
                                1e-12 * b.tl.busy_context_time);
        ck_assert_uint_eq(a.tl.peak_thread_contexts, b.tl.peak_thread_contexts);
        ck_assert_uint_eq(a.tl.peak_core_work_groups, b.tl.peak_core_work_groups);
        if (!o.summary_only)
            expect_same(&a.tl, &b.tl, 0);
        occ_timeline_free(&a.tl);
        occ_timeline_free(&b.tl);
        occ_device_free(dev);
    }
}
END_TEST

START_TEST(whole_dispatch_is_the_wave_model)
{
    tc_rng g = {0x3a7e5u + (uint64_t)_i};
    size_t nb = occ_builtin_count();
    for (int iter = 0; iter < 200; iter++) {
        occ_device *dev = tc_builtin(occ_builtin_name(tc_range(&g, 0, nb - 1)));
        occ_kernel k;
        occ_residency res;
        if (!random_kernel(&g, dev, &k, &res)) {
            occ_device_free(dev);
            continue;
        }
        uint64_t n = tc_range(&g, 0, 3) ? tc_range(&g, 1, 100000)
                                        : tc_range(&g, 1, 1000000000000ull);
        occ_gpu gpu;
        ck_assert_int_eq(occ_gpu_compute(dev, &res, n, &gpu), OCC_OK);
        occ_sim_options o = opts((occ_dispatch_order)tc_range(&g, 1, 2), OCC_PARTIAL_NO);
        run r = simulate(dev, &k, n, &o);
        ck_assert_int_eq(r.st, OCC_OK);
        ck_assert_double_eq(r.tl.end, (double)gpu.waves);
        ck_assert_double_eq_tol(r.tl.average_occupancy, gpu.average_occupancy, 1e-12);
        size_t phases = (gpu.full_waves && gpu.full_waves * gpu.wave_capacity == n) ? 1
                        : (gpu.full_waves ? 2 : 1);
        ck_assert_uint_eq(r.tl.n_phases, phases);
        ck_assert_uint_eq(r.tl.phases[0].thread_contexts,
                          (gpu.full_waves ? gpu.wave_capacity : n) * res.contexts_per_wg);
        occ_timeline_free(&r.tl);
        occ_device_free(dev);
    }
}
END_TEST

START_TEST(billion_work_groups)
{
    /* 10^9 equal work-groups: repeated, not simulated one by one */
    occ_device *dev = tc_builtin("tgl");
    occ_kernel k = tc_kernel(320, 8);
    occ_sim_options o = opts(0, OCC_PARTIAL_DEVICE);
    run r = simulate(dev, &k, 1000000000ull, &o);
    ck_assert_int_eq(r.st, OCC_OK);
    ck_assert(r.tl.extrapolated);
    /* launch: 672 contexts; step 1: the 8 late threads + 2 refills per core */
    ck_assert_uint_eq(r.tl.n_phases, 4);
    expect_phase(&r.tl, 0, 0, 1, 672, NULL, 0);
    expect_phase(&r.tl, 1, 1, 2, 528, NULL, 0);
    ck_assert_uint_eq(r.tl.phases[2].thread_contexts, 480);
    /* 18 at launch, 12 at step 1, then 999999970 = 12 x 83333330 + 10: steps
     * [2, 83333332) of 12, and a last step of 10 (5 Xe-cores x 80) */
    ck_assert_double_eq(r.tl.phases[2].end, 83333332);
    expect_phase(&r.tl, 3, 83333332, 83333333, 400, NULL, 0);
    occ_timeline_free(&r.tl);
    /* the barrier version and the whole-WG version */
    k.barrier = true;
    r = simulate(dev, &k, 1000000000ull, &o);
    ck_assert_int_eq(r.st, OCC_OK);
    ck_assert_uint_le(r.tl.n_phases, 4);
    occ_timeline_free(&r.tl);
    occ_device_free(dev);
}
END_TEST

/* ---- the chunk builder ------------------------------------------------------------- */

START_TEST(from_chunks_by_hand)
{
    /* two cores of 4 contexts: WG0 on core 0 [0, 2) 4 contexts; WG1 on core 1
     * in two parts: 2 contexts [0, 3), 2 contexts [1, 3) */
    const occ_chunk ch[] = {
        {0, 0, 4, 0, 0, 2},
        {1, 1, 2, 0, 1, 3},
        {1, 1, 2, 1, 1, 3},
    };
    occ_timeline t;
    occ_diag diag;
    ck_assert_int_eq(occ_timeline_from_chunks(ch, 3, 2, 4, OCC_MERGE_SAME_CONTEXTS, true, &t, &diag),
                     OCC_OK);
    ck_assert_uint_eq(t.work_groups, 2);
    ck_assert_uint_eq(t.n_phases, 3);
    expect_phase(&t, 0, 0, 1, 6, (const uint32_t[]){4, 2}, 2);
    expect_phase(&t, 1, 1, 2, 8, (const uint32_t[]){4, 4}, 2);
    expect_phase(&t, 2, 2, 3, 4, (const uint32_t[]){0, 4}, 2);
    ck_assert_uint_eq(t.phases[0].work_groups, 2);
    ck_assert_double_eq(t.average_occupancy, (6 + 8 + 4) / 24.0);
    occ_timeline_free(&t);

    const occ_chunk over[] = {{0, 0, 3, 0, 0, 2}, {1, 0, 2, 1, 1, 3}};
    ck_assert_int_eq(occ_timeline_from_chunks(over, 2, 2, 4, 0, false, &t, &diag), OCC_ERR_VALUE);
    ck_assert_ptr_nonnull(strstr(diag.message, "core 0 holds 5 contexts"));
    const occ_chunk bad_core[] = {{0, 2, 1, 0, 0, 1}};
    ck_assert_int_eq(occ_timeline_from_chunks(bad_core, 1, 2, 4, 0, false, &t, &diag),
                     OCC_ERR_VALUE);
    const occ_chunk backwards[] = {{0, 0, 1, 2, 2, 1}};
    ck_assert_int_eq(occ_timeline_from_chunks(backwards, 1, 2, 4, 0, false, &t, &diag),
                     OCC_ERR_VALUE);
}
END_TEST

/* ---- durations and bad input ---------------------------------------------------------- */

START_TEST(duration_models)
{
    occ_durations d = {.kind = OCC_DURATIONS_UNIFORM, .a = 0.5, .b = 1.5, .seed = 7};
    ck_assert_int_eq(occ_durations_check(&d, NULL), OCC_OK);
    double sum = 0;
    for (uint64_t i = 0; i < 100000; i++) {
        double v = occ_duration_of(&d, i);
        ck_assert(v >= 0.5 && v <= 1.5);
        sum += v;
    }
    ck_assert_double_eq_tol(sum / 100000, 1.0, 0.01);
    ck_assert_double_eq(occ_duration_of(&d, 42), occ_duration_of(&d, 42));
    d.seed = 8;
    double other = occ_duration_of(&d, 42);
    d.seed = 7;
    ck_assert_double_ne(other, occ_duration_of(&d, 42));
    occ_durations n = {.kind = OCC_DURATIONS_NORMAL, .a = 1, .b = 0.2, .seed = 1};
    double s1 = 0, s2 = 0;
    for (uint64_t i = 0; i < 100000; i++) {
        double v = occ_duration_of(&n, i);
        ck_assert_double_gt(v, 0);
        s1 += v;
        s2 += v * v;
    }
    double mean = s1 / 1e5, sd = sqrt(s2 / 1e5 - mean * mean);
    ck_assert_double_eq_tol(mean, 1.0, 0.01);
    ck_assert_double_eq_tol(sd, 0.2, 0.01);
    n.b = 5; /* mostly negative draws are drawn again: still positive */
    for (uint64_t i = 0; i < 1000; i++)
        ck_assert_double_gt(occ_duration_of(&n, i), 0);
    const double list[] = {2, 3};
    occ_durations l = {.kind = OCC_DURATIONS_LIST, .values = list, .n_values = 2};
    ck_assert_double_eq(occ_duration_of(&l, 5), 3);
}
END_TEST

START_TEST(bad_input)
{
    occ_device *dev = tc_builtin("tgl");
    occ_kernel k = tc_kernel(320, 8);
    occ_timeline t;
    occ_diag diag;
    memset(&diag, 0, sizeof diag);
    ck_assert_int_eq(occ_timeline_simulate(dev, &k, 0, NULL, &t, &diag), OCC_ERR_VALUE);
    ck_assert_ptr_nonnull(strstr(diag.message, "positive"));
    ck_assert_int_eq(occ_timeline_simulate(dev, &k, (1ull << 53) + 1, NULL, &t, &diag),
                     OCC_ERR_VALUE);
    ck_assert_int_eq(occ_timeline_simulate(NULL, &k, 8, NULL, &t, &diag),
                     OCC_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(occ_timeline_simulate(dev, NULL, 8, NULL, &t, &diag),
                     OCC_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(occ_timeline_simulate(dev, &k, 8, NULL, NULL, &diag),
                     OCC_ERR_INVALID_ARGUMENT);
    occ_sim_options o = opts(0, OCC_PARTIAL_DEVICE);
    o.struct_size = 4;
    ck_assert_int_eq(occ_timeline_simulate(dev, &k, 8, &o, &t, &diag), OCC_ERR_INVALID_ARGUMENT);
    o = opts(7, OCC_PARTIAL_DEVICE);
    ck_assert_int_eq(occ_timeline_simulate(dev, &k, 8, &o, &t, &diag), OCC_ERR_INVALID_ARGUMENT);

    static const double zero[] = {1, 0, 1}, neg[] = {-1}, nan_[] = {NAN}, inf_[] = {INFINITY};
    const double *lists[] = {zero, neg, nan_, inf_};
    size_t lens[] = {3, 1, 1, 1};
    for (int i = 0; i < 4; i++) {
        o = opts(0, OCC_PARTIAL_DEVICE);
        o.durations.kind = OCC_DURATIONS_LIST;
        o.durations.values = lists[i];
        o.durations.n_values = lens[i];
        ck_assert_int_eq(occ_timeline_simulate(dev, &k, 8, &o, &t, &diag), OCC_ERR_VALUE);
        ck_assert_str_eq(diag.key, "durations");
    }
    ck_assert_ptr_nonnull(strstr(diag.message, "positive"));
    o.durations.n_values = 0;
    ck_assert_int_eq(occ_timeline_simulate(dev, &k, 8, &o, &t, &diag), OCC_ERR_VALUE);
    ck_assert_ptr_nonnull(strstr(diag.message, "empty"));
    o.durations = (occ_durations){.kind = OCC_DURATIONS_UNIFORM, .a = 2, .b = 1};
    ck_assert_int_eq(occ_timeline_simulate(dev, &k, 8, &o, &t, &diag), OCC_ERR_VALUE);
    o.durations = (occ_durations){.kind = OCC_DURATIONS_UNIFORM, .a = 0, .b = 1};
    ck_assert_int_eq(occ_timeline_simulate(dev, &k, 8, &o, &t, &diag), OCC_ERR_VALUE);
    o.durations = (occ_durations){.kind = OCC_DURATIONS_NORMAL, .a = -1, .b = 1};
    ck_assert_int_eq(occ_timeline_simulate(dev, &k, 8, &o, &t, &diag), OCC_ERR_VALUE);
    o.durations = (occ_durations){.kind = OCC_DURATIONS_NORMAL, .a = 1, .b = -1};
    ck_assert_int_eq(occ_timeline_simulate(dev, &k, 8, &o, &t, &diag), OCC_ERR_VALUE);

    /* a profile that says "launchable" with room for no work-group (an SLM step
     * beyond the core, tests/fuzz/open): an error, never an endless run */
    occ_device_desc odd = *occ_device_describe(dev);
    odd.slm_steps[odd.n_slm_steps - 1] = 66 * 1024;
    occ_device *odd_dev = NULL;
    if (occ_device_create(&odd, &odd_dev, &diag) == OCC_OK) {
        occ_kernel k64 = tc_kernel(64, 8);
        k64.slm_bytes = 64 * 1024;
        occ_residency r64 = tc_residency(odd_dev, &k64);
        if (r64.launchable) {
            ck_assert_uint_eq(r64.resident_wgs, 0);
            ck_assert_int_eq(occ_timeline_simulate(odd_dev, &k64, 8, NULL, &t, &diag),
                             OCC_ERR_UNSUPPORTED);
            occ_sim_options ev = opts(0, OCC_PARTIAL_DEVICE);
            ev.force_events = true;
            ck_assert_int_eq(occ_timeline_simulate(odd_dev, &k64, 8, &ev, &t, &diag),
                             OCC_ERR_UNSUPPORTED);
        }
        occ_device_free(odd_dev);
    }

    /* cannot launch */
    occ_kernel big = tc_kernel(1024, 8);
    ck_assert_int_eq(occ_timeline_simulate(dev, &big, 8, NULL, &t, &diag), OCC_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(diag.message, "cannot launch"));

    /* too many phases: the summary, no phases */
    o = opts(0, OCC_PARTIAL_DEVICE);
    o.merge = OCC_MERGE_NONE;
    o.durations = (occ_durations){.kind = OCC_DURATIONS_UNIFORM, .a = 0.5, .b = 1.5, .seed = 3};
    o.max_phases = 100;
    ck_assert_int_eq(occ_timeline_simulate(dev, &k, 1000, &o, &t, &diag), OCC_ERR_TOO_LARGE);
    ck_assert_uint_gt(t.n_phases, 100);
    ck_assert_ptr_null(t.phases);
    ck_assert_ptr_null(t.core_contexts);
    ck_assert_double_gt(t.average_occupancy, 0.5);
    ck_assert_ptr_nonnull(strstr(diag.message, "more than the limit of 100"));
    size_t phases = t.n_phases;
    occ_timeline_free(&t);
    o.summary_only = true;
    ck_assert_int_eq(occ_timeline_simulate(dev, &k, 1000, &o, &t, &diag), OCC_OK);
    ck_assert_uint_eq(t.n_phases, phases);
    ck_assert_ptr_null(t.phases);
    occ_timeline_free(&t);
    occ_device_free(dev);
    /* equal durations whose pattern does not merge, and exceeds the limit:
     * 3 work-groups per Xe-core admitted, partial refills: 112 (40 + 40 + 32)
     * and 88 (8 + 40 + 40) contexts alternate */
    occ_device *base = tc_builtin("tgl");
    occ_device_desc d3 = *occ_device_describe(base);
    occ_device_free(base);
    d3.max_work_groups_per_core = 3;
    ck_assert_int_eq(occ_device_create(&d3, &dev, &diag), OCC_OK);
    o = opts(OCC_DISPATCH_PACK, OCC_PARTIAL_ALWAYS);
    o.max_phases = 1000;
    ck_assert_int_eq(occ_timeline_simulate(dev, &k, 1000000000ull, &o, &t, &diag),
                     OCC_ERR_TOO_LARGE);
    ck_assert(t.extrapolated);
    /* 18 and 12 work-groups a step in turn: 10^9 / 15 steps, each a phase */
    ck_assert_uint_ge(t.n_phases, 1000000000ull / 15 - 3);
    ck_assert_uint_le(t.n_phases, 1000000000ull / 15 + 3);
    ck_assert_double_eq_tol(t.average_occupancy, 100.0 / 112, 1e-6);
    occ_timeline_free(&t);
    occ_device_free(dev);
}
END_TEST

/* ---- launches in clusters (docs/clusters.md) -------------------------------------- */

/* Two GPCs of two SMs, one block per SM in a cluster launch, clusters of 2,
 * durations 1 and 3 in turn.  At t = 1 one SM of each GPC frees: no GPC has
 * the two a cluster needs, so the third cluster waits until t = 3 (a launch
 * of independent blocks would start two blocks at t = 1). */
START_TEST(clusters_wait_for_a_whole_gpc)
{
    occ_device *base = tc_builtin("h200");
    occ_device_desc d = *occ_device_describe(base);
    occ_device_free(base);
    tc_desc_set_cores(&d, 4);
    d.n_gpcs = 2, d.gpc_sms[0] = d.gpc_sms[1] = 2;
    d.cluster_max_work_groups = 1, d.cluster_max_size = 8, d.cluster_max_size_non_portable = 16;
    occ_device *dev = NULL;
    occ_diag diag;
    ck_assert_int_eq(occ_device_create(&d, &dev, &diag), OCC_OK);
    occ_kernel k = tc_kernel(256, 32);
    k.cluster[0] = 2;
    occ_sim_options o;
    occ_sim_options_init(&o);
    static const double durations[] = {1, 3};
    o.durations.kind = OCC_DURATIONS_LIST, o.durations.values = durations, o.durations.n_values = 2;
    o.lanes = true;
    occ_timeline t;
    ck_assert_int_eq(occ_timeline_simulate(dev, &k, 8, &o, &t, &diag), OCC_OK);
    static const double want[][3] = {{0, 1, 4}, {1, 3, 2}, {3, 4, 4}, {4, 6, 2}};
    ck_assert_uint_eq(t.n_phases, 4);
    for (size_t i = 0; i < 4; i++) {
        ck_assert_double_eq(t.phases[i].start, want[i][0]);
        ck_assert_double_eq(t.phases[i].end, want[i][1]);
        ck_assert_uint_eq(t.phases[i].work_groups, (uint64_t)want[i][2]);
    }
    ck_assert_uint_eq(t.peak_core_work_groups, 1);
    occ_timeline_free(&t);
    /* a partial cluster, and a size no GPC holds, are refused */
    ck_assert_int_eq(occ_timeline_simulate(dev, &k, 7, &o, &t, &diag), OCC_ERR_VALUE);
    occ_timeline_free(&t);
    k.cluster[0] = 3;
    ck_assert_int_eq(occ_timeline_simulate(dev, &k, 6, &o, &t, &diag), OCC_ERR_UNSUPPORTED);
    occ_timeline_free(&t);
    occ_device_free(dev);
}
END_TEST

/* The H200's clusters of 16 (32-thread blocks: 8 per SM in a cluster launch)
 * in two waves of 58: as the co-residency launches ran (116 SMs, 8 blocks
 * each at most), and the waves of occ_gpu_compute_clusters. */
START_TEST(clusters_h200_waves)
{
    occ_device *dev = tc_builtin("h200");
    occ_kernel k = tc_kernel(32, 32);
    k.cluster[0] = 16, k.cluster_non_portable = true;
    occ_timeline t;
    occ_diag diag;
    ck_assert_int_eq(occ_timeline_simulate(dev, &k, 2 * 58 * 16, NULL, &t, &diag), OCC_OK);
    ck_assert_uint_eq(t.n_phases, 1);
    ck_assert_double_eq(t.phases[0].end, 2);
    ck_assert_uint_eq(t.phases[0].work_groups, 58 * 16);
    ck_assert_uint_eq(t.phases[0].cores_busy, 116);
    ck_assert_uint_eq(t.peak_core_work_groups, 8);
    occ_timeline_free(&t);
    occ_device_free(dev);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("phases");
    TCase *seed = tcase_create("seed");
    tcase_add_loop_test(seed, vectoradd2_rows, 0, sizeof va2_groups / sizeof va2_groups[0]);
    tcase_add_test(seed, vectoradd2_two_phases);
    tcase_add_test(seed, seed_320_barrier_tgl_policy);
    tcase_add_test(seed, seed_320_no_barrier);
    tcase_add_test(seed, seed_264_phase_from_unequal_durations);
    tcase_add_test(seed, seed_vectoradd3_measurement_needs_two_cores);
    tcase_add_test(seed, seed_24_224_8);
    suite_add_tcase(s, seed);
    TCase *pol = tcase_create("policies");
    tcase_add_test(pol, policy_steady_state);
    tcase_add_test(pol, policy_spread_refill_h100);
    tcase_add_test(pol, policy_barrier_waits_hold_contexts);
    tcase_add_test(pol, policy_admit_limit_blocks_partial);
    tcase_add_test(pol, policy_barrier_split_never);
    tcase_add_test(pol, merge_none_splits_every_instant);
    tcase_add_test(pol, clusters_wait_for_a_whole_gpc);
    tcase_add_test(pol, clusters_h200_waves);
    suite_add_tcase(s, pol);
    TCase *inv = tcase_create("invariants");
    tcase_set_timeout(inv, 120);
    tcase_add_loop_test(inv, invariants_random, 0, 8);
    tcase_add_loop_test(inv, equal_steps_match_events_long, 0, 4);
    tcase_add_loop_test(inv, whole_dispatch_is_the_wave_model, 0, 4);
    tcase_add_test(inv, billion_work_groups);
    tcase_add_test(inv, from_chunks_by_hand);
    suite_add_tcase(s, inv);
    TCase *bad = tcase_create("input");
    tcase_add_test(bad, duration_models);
    tcase_add_test(bad, bad_input);
    suite_add_tcase(s, bad);
    return s;
}

int main(void)
{
    return tc_run(suite());
}
