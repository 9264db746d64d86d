/* Dispatch timing (issue 16), without a GPU.
 *
 *  - the timed dispatch layer on hand-computed cases (every start and end):
 *    the gap, the per-SM and GPU intervals, the dispatcher's burst, the launch
 *    interval, the drained refill of register-limited SMs;
 *  - devices without timing, or time_unit_s 0: exactly today's timelines;
 *  - the profile keys: load, write and load again, all-or-none, bad values;
 *  - replays of the 2026-11-24 H100 campaign (tests/data/cuda/dispatch/replay):
 *    the issue's 60000 x 32-thread, 100 us launch passes with h100-sxm's timing
 *    because the predicted curve has the refill dips (and has none without);
 *    repeated launches differ far less than the distance tolerance. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "occ/backend.h"
#include "test_common.h"

#ifndef CUDA_DATA_DIR
#define CUDA_DATA_DIR "tests/data/cuda"
#endif
#define REPLAY CUDA_DATA_DIR "/dispatch/replay/"

/* ---- the timed layer by hand --------------------------------------------------- */

typedef struct chunks {
    occ_chunk c[2048];
    size_t n;
} chunks;

static void collect(void *user, const occ_chunk *c)
{
    chunks *k = user;
    if (k->n < 2048)
        k->c[k->n++] = *c;
}

/* h100-sxm's model with timing values chosen so that every start can be
 * computed by hand (the shipped values are measured: docs/phases.md). */
static occ_device *timed_device(double gap_ns, double core_ns, double per_warp_ns, double gpu_ns,
                                uint32_t burst, double launch_ns, double drained_ns)
{
    occ_device *h = tc_builtin("h100-sxm"), *dev = NULL;
    occ_device_desc d = *occ_device_describe(h);
    d.refill_gap_s = gap_ns * 1e-9;
    d.core_interval_s = core_ns * 1e-9;
    d.core_interval_per_context_s = per_warp_ns * 1e-9;
    d.gpu_interval_s = gpu_ns * 1e-9;
    d.gpu_burst_work_groups = burst;
    d.launch_interval_s = launch_ns * 1e-9;
    d.refill_gap_drained_s = drained_ns * 1e-9;
    d.gpu_interval_per_context_s = 0; /* gpu_interval alone (with_gpu_per_context sets it) */
    d.refill_pause_s = d.refill_window_s = d.refill_window_threads_s = 0; /* no reports */
    d.gpu_report_per_work_group_s = d.refill_gap_spread_s = d.core_interval_threads_s = 0;
    d.refill_pause_first_s = d.core_interval_slots_s = 0;
    d.gpu_burst_slots_work_groups = 0;
    d.sub_partition_hold_s = 0;
    occ_diag diag;
    ck_assert_msg(occ_device_create(&d, &dev, &diag) == OCC_OK, "%s", diag.message);
    occ_device_free(h);
    return dev;
}

static chunks *simulate_traced(const occ_device *dev, const occ_kernel *k, uint64_t n,
                               const occ_durations *durations, occ_timeline *t)
{
    occ_sim_options o;
    occ_sim_options_init(&o);
    o.time_unit_s = 10e-6;
    if (durations)
        o.durations = *durations;
    chunks *ch = calloc(1, sizeof *ch);
    o.trace = collect;
    o.trace_user = ch;
    occ_diag diag;
    ck_assert_msg(occ_timeline_simulate(dev, k, n, &o, t, &diag) == OCC_OK, "%s", diag.message);
    ck_assert_uint_eq(ch->n, n);
    return ch;
}

/* 1024-thread blocks (32 warps, 2 per SM), two waves of 10 us blocks; gap 700
 * ns, per SM max(40 ns, 4 ns x 32 warps = 128 ns), the dispatcher a burst of
 * 100 refills then one a nanosecond.
 *  launch: blocks 0..131 at 0 on SMs 0..131, 132..263 at 128 ns;
 *  the 132 slots freed at 10 us: refill j (on SM j) at 10.7 us + max(0, j -
 *  100) ns: the burst, then the interval;
 *  the 132 freed at 10.128 us, ready at 10.828 us: the bucket (its 100 spent
 *  and 32 more owed by 10.731 us, one regained a nanosecond) lets refills of
 *  SMs 0..96 go at once, the rest one a nanosecond: 10.828 us + max(0, j - 96)
 *  ns (later than those SMs' own 128 ns after their first refill). */
START_TEST(timed_by_hand)
{
    occ_device *dev = timed_device(700, 40, 4, 1, 100, 10, 0);
    ck_assert(occ_device_has_timing(occ_device_describe(dev)));
    occ_kernel k = tc_kernel(1024, 32);
    k.regs_per_thread = 16;
    occ_timeline t;
    chunks *ch = simulate_traced(dev, &k, 528, NULL, &t);
    const double u = 10e-6, ns = 1e-9 / u, launch = 128 * ns, gap = 700 * ns;
    for (size_t i = 0; i < ch->n; i++) {
        const occ_chunk *c = &ch->c[i];
        uint64_t w = c->work_group;
        uint64_t j = w % 132, free_up_to = w < 396 ? 100 : 96;
        double late = (j > free_up_to ? (double)(j - free_up_to) : 0) * ns;
        ck_assert_uint_eq(c->contexts, 32);
        ck_assert_uint_eq(c->core, w % 132);
        ck_assert_double_eq_tol(c->end - c->run, 1.0, 1e-12);
        double want = w < 132 ? 0 : w < 264 ? launch : w < 396 ? 1.0 + gap + late
                                                                : 1.0 + launch + gap + late;
        ck_assert_msg(fabs(c->run - want) < 1e-9, "block %llu at %.4f us, want %.4f us",
                      (unsigned long long)w, c->run * 10, want * 10);
    }
    /* the curve: 50 % then 100 % at launch, a dip to 0 between the waves */
    ck_assert_double_eq_tol(t.phases[0].occupancy, 0.5, 1e-12);
    ck_assert_double_eq_tol(t.phases[1].occupancy, 1.0, 1e-12);
    bool dip = false;
    for (size_t i = 0; i < t.n_phases; i++)
        if (t.phases[i].start > 1.0 && t.phases[i].end < 1.0 + gap + 1e-9 &&
            t.phases[i].occupancy == 0)
            dip = true;
    ck_assert(dip);
    /* the summary: every block's 32 warps for one unit; the run ends with the last block */
    ck_assert_double_eq_tol(t.busy_context_time, 528.0 * 32, 1e-6);
    ck_assert_double_eq_tol(t.end, 1.0 + launch + gap + 35 * ns + 1.0, 1e-9);
    ck_assert_uint_eq(t.peak_thread_contexts, 132 * 64);
    occ_timeline_free(&t);
    free(ch);
    /* without a burst: the interval from the first refill on */
    occ_device_free(dev);
    dev = timed_device(700, 40, 4, 1, 0, 10, 0);
    ch = simulate_traced(dev, &k, 528, NULL, &t);
    for (size_t i = 0; i < ch->n; i++)
        if (ch->c[i].work_group >= 264 && ch->c[i].work_group < 396)
            ck_assert_double_eq_tol(ch->c[i].run, 1.0 + gap + (double)(ch->c[i].work_group - 264) * ns,
                                    1e-9);
    occ_timeline_free(&t);
    free(ch);
    occ_device_free(dev);
}
END_TEST

/* An idle SM at launch: 32-thread blocks (1 warp: 4 ns) start launch_interval
 * (10 ns) apart on each SM; for large blocks the per-warp time is the larger
 * (512 threads: 16 warps x 4 ns = 64 ns). */
/* The dispatcher's cost grows with the work-group: 32-warp blocks at 0.25 ns
 * per warp cost 8 ns each, more than gpu_interval's 1 ns, with no burst:
 * the second wave (blocks 264..527, freed at 10 us and 10.128 us) goes out
 * one every 8 ns from 10 us + gap, block 264 + i at 10.7 us + 8 i ns (the
 * SMs' own 128 ns never binds: an SM's two refills are 1056 ns apart).  At
 * 0.01 ns per warp (0.32 ns a block) gpu_interval's 1 ns binds again. */
static occ_device *with_gpu_per_context(occ_device *dev, double ns)
{
    occ_device_desc d = *occ_device_describe(dev);
    d.gpu_interval_per_context_s = ns * 1e-9;
    occ_device *out = NULL;
    occ_diag diag;
    ck_assert_msg(occ_device_create(&d, &out, &diag) == OCC_OK, "%s", diag.message);
    occ_device_free(dev);
    return out;
}

START_TEST(timed_gpu_interval_per_context)
{
    occ_kernel k = tc_kernel(1024, 32);
    k.regs_per_thread = 16;
    const double ns = 1e-9 / 10e-6, gap = 700 * ns;
    occ_device *dev = with_gpu_per_context(timed_device(700, 40, 4, 1, 0, 10, 0), 0.25);
    occ_timeline t;
    chunks *ch = simulate_traced(dev, &k, 528, NULL, &t);
    for (size_t i = 0; i < ch->n; i++) {
        uint64_t w = ch->c[i].work_group;
        if (w < 264)
            continue;
        double want = 1.0 + gap + (double)(w - 264) * 8 * ns;
        ck_assert_msg(fabs(ch->c[i].run - want) < 1e-9, "block %llu at %.4f us, want %.4f us",
                      (unsigned long long)w, ch->c[i].run * 10, want * 10);
    }
    occ_timeline_free(&t);
    free(ch);
    occ_device_free(dev);
    dev = with_gpu_per_context(timed_device(700, 40, 4, 1, 0, 10, 0), 0.01);
    ch = simulate_traced(dev, &k, 528, NULL, &t);
    for (size_t i = 0; i < ch->n; i++)
        if (ch->c[i].work_group >= 264 && ch->c[i].work_group < 396)
            ck_assert_double_eq_tol(ch->c[i].run,
                                    1.0 + gap + (double)(ch->c[i].work_group - 264) * ns, 1e-9);
    occ_timeline_free(&t);
    free(ch);
    occ_device_free(dev);
}
END_TEST

START_TEST(timed_launch_interval)
{
    occ_device *dev = timed_device(700, 40, 4, 1, 100, 10, 0);
    static const uint32_t sizes[2] = {32, 512};
    static const double step_ns[2] = {10, 64};
    for (int s = 0; s < 2; s++) {
        occ_kernel k = tc_kernel(sizes[s], 32);
        k.regs_per_thread = 16;
        occ_timeline t;
        chunks *ch = simulate_traced(dev, &k, 132 * 4, NULL, &t);
        for (size_t i = 0; i < ch->n; i++) {
            ck_assert_uint_eq(ch->c[i].core, ch->c[i].work_group % 132);
            ck_assert_double_eq_tol(ch->c[i].run,
                                    (double)(ch->c[i].work_group / 132) * step_ns[s] * 1e-9 / 10e-6,
                                    1e-12);
        }
        occ_timeline_free(&t);
        free(ch);
    }
    occ_device_free(dev);
}
END_TEST

/* Registers limit the residency (256 threads x 64 registers: 4 blocks per SM
 * by the register file, 8 by the warps): with refill_gap_drained an SM is
 * refilled only once its last block retired.  Blocks of the first wave last
 * 1.0, 1.1, 1.2, 1.3 units by launch order (10 us units; starts 32 ns apart:
 * 8 warps x 4 ns); all four refills of SM c then start 1 us after the last
 * ended (3 x 32 ns + 13 us), 40 ns apart (the per-SM interval); without the
 * rule the first starts 0.7 us after the first end. */
START_TEST(timed_drained_refill)
{
    occ_kernel k = tc_kernel(256, 32);
    k.regs_per_thread = 64;
    double d[1056];
    for (size_t i = 0; i < 1056; i++)
        d[i] = i < 528 ? 1.0 + 0.1 * (double)(i / 132) : 1.0;
    occ_durations dd = {.kind = OCC_DURATIONS_LIST, .values = d, .n_values = 1056};
    const double ns = 1e-9 / 10e-6;
    for (int drained = 0; drained < 2; drained++) {
        occ_device *dev = timed_device(700, 40, 4, 1, 100000, 10, drained ? 1000 : 0);
        occ_residency r;
        occ_residency_compute(dev, &k, &r);
        ck_assert_uint_eq(r.resident_wgs, 4);
        ck_assert(r.limited_by & (1u << OCC_RES_REGISTERS));
        occ_timeline t;
        chunks *ch = simulate_traced(dev, &k, 1056, &dd, &t);
        double first[132];
        for (int c = 0; c < 132; c++)
            first[c] = 1e9;
        for (size_t i = 0; i < ch->n; i++)
            if (ch->c[i].work_group >= 528 && ch->c[i].run < first[ch->c[i].core])
                first[ch->c[i].core] = ch->c[i].run;
        for (int c = 0; c < 132; c++) {
            double want = drained ? 3 * 32 * ns + 1.3 + 1000 * ns : 1.0 + 700 * ns;
            ck_assert_msg(fabs(first[c] - want) < 1e-9, "SM %d: first refill at %.4f us, want %.4f",
                          c, first[c] * 10, want * 10);
        }
        if (drained) /* the other three follow at the per-SM interval */
            for (size_t i = 0; i < ch->n; i++)
                if (ch->c[i].work_group >= 528)
                    ck_assert(ch->c[i].run >= first[ch->c[i].core] - 1e-12 &&
                              ch->c[i].run <= first[ch->c[i].core] + 3 * 40 * ns + 1e-9);
        occ_timeline_free(&t);
        free(ch);
        occ_device_free(dev);
    }
}
END_TEST

/* Refills in reports (dispatch_reports.c): 1024-thread blocks (32 warps, 2
 * per SM; thread contexts alone limit the residency, so
 * refill_window_threads applies), two waves of 10 us blocks; gap 700 ns, per
 * SM 40 ns (no per-warp time), no GPU interval, a pause of 100 ns, a window
 * of 4.5 ns (1000 ns for other kernels: it must not apply), 1 ns per
 * reported slot.
 *  launch: SM c starts blocks at 0 and 10 ns, they end at 10 us and 10.01 us;
 *  at 10 us every SM reports its one free slot: the dispatcher takes SM c's
 *  report in at 10 us + c ns (1 ns each), the group's first block starts
 *  0.7 us later;
 *  SMs 0..5: their window closes (10 us + c + 4.5 ns) before their second
 *  block ends; the
 *  pause ends 100 ns after the first send, but the dispatcher is busy with
 *  the first reports until 10.132 us: the second group of SM c opens at
 *  10.132 us + c ns, its block starts at 10.832 us + c ns;
 *  SMs 6..131: the second block ends while the group is open (or before the
 *  report is taken in), so both go in one group: starts at 10.7 us + c ns
 *  and 40 ns later.
 * Again with refill_gap_spread 130 ns: SMs 2p and 2p+1 (pair p of 66) have
 * the gap 700 - 65 + 130 p / 65 = 635 + 2p ns, so the refills start 2p - 65
 * ns off those times (the reports and sends do not move).
 * Again with core_interval_threads 15 ns (thread contexts limit here): the
 * second block of SMs 6..131 starts 15 ns after the first, not 40. */
START_TEST(timed_reports_by_hand)
{
    occ_device *base = timed_device(700, 40, 0, 0.001, 0, 10, 0), *dev = NULL;
    occ_device_desc d = *occ_device_describe(base);
    d.gpu_interval_s = 0;
    d.refill_pause_s = 100e-9;
    d.refill_window_s = 1000e-9;
    d.refill_window_threads_s = 4.5e-9;
    d.gpu_report_per_work_group_s = 1e-9;
    occ_diag diag;
    static const int cases[3][2] = {{0, 0}, {130, 0}, {0, 15}}; /* spread, threads interval */
    for (int cs = 0; cs < 3; cs++) {
        const int spread = cases[cs][0], threads_ns = cases[cs][1];
        d.refill_gap_spread_s = spread * 1e-9;
        d.core_interval_threads_s = threads_ns * 1e-9;
        ck_assert_msg(occ_device_create(&d, &dev, &diag) == OCC_OK, "%s", diag.message);
        occ_kernel k = tc_kernel(1024, 32);
        k.regs_per_thread = 16;
        occ_residency r;
        occ_residency_compute(dev, &k, &r);
        ck_assert_uint_eq(r.resident_wgs, 2);
        ck_assert_uint_eq(r.limited_by, 1u << OCC_RES_THREADS);
        occ_timeline t;
        chunks *ch = simulate_traced(dev, &k, 528, NULL, &t);
        const double ns = 1e-9 / 10e-6;
        double runs[132][4];
        size_t n[132] = {0};
        for (size_t i = 0; i < ch->n; i++) {
            const occ_chunk *c = &ch->c[i];
            ck_assert_uint_lt(n[c->core], 4);
            runs[c->core][n[c->core]++] = c->run;
    }
    for (uint32_t c = 0; c < 132; c++) {
        ck_assert_uint_eq(n[c], 4);
        const double off = spread ? 2.0 * (c / 2) - 65 : 0;
        double want[4] = {0, 10 * ns, 1.0 + (700 + c + off) * ns,
                          c < 6 ? 1.0 + (832 + c + off) * ns
                                : 1.0 + (700 + (threads_ns ? threads_ns : 40) + c + off) * ns};
        for (int j = 0; j < 4; j++) /* the trace gives each SM's blocks in start order */
            ck_assert_msg(fabs(runs[c][j] - want[j]) < 1e-9, "SM %u block %d at %.4f us, want %.4f",
                          c, j, runs[c][j] * 10, want[j] * 10);
    }
    occ_timeline_free(&t);
    free(ch);
    occ_device_free(dev);
    }
    /* a spread wider than twice the gap would make a negative gap */
    d.refill_gap_spread_s = 1500e-9;
    occ_device *bad = NULL;
    ck_assert_int_eq(occ_device_create(&d, &bad, &diag), OCC_ERR_VALUE);
    ck_assert_ptr_nonnull(strstr(diag.key, "refill_gap_spread_ns"));
    d.refill_gap_spread_s = 130e-9;
    /* the window, the report time, the spread and the threads interval alone,
     * without the pause, are refused */
    d.refill_pause_s = 0;
    ck_assert_int_eq(occ_device_create(&d, &bad, &diag), OCC_ERR_VALUE);
    ck_assert_ptr_nonnull(strstr(diag.message, "refill_pause_ns"));
    occ_device_free(base);
}
END_TEST

static bool same_timeline(const occ_timeline *a, const occ_timeline *b)
{
    if (a->n_phases != b->n_phases)
        return false;
    for (size_t i = 0; i < a->n_phases; i++)
        if (a->phases[i].start != b->phases[i].start || a->phases[i].end != b->phases[i].end ||
            a->phases[i].thread_contexts != b->phases[i].thread_contexts)
            return false;
    return a->average_occupancy == b->average_occupancy;
}

/* The first refill when the work-group slots limit (32 blocks of 32 threads
 * per SM), on a GPU of one SM so that every send can be followed: gap 700 ns,
 * per SM 40 ns, GPU 25 ns, no burst, launch 10 ns, pause 105 ns, no window,
 * reports taken in at once.  The launch starts the 32 blocks 10 ns apart,
 * they end at 10 us + 10 j ns.
 *  A (no slot keys): the first block's end opens a group of one, sent at
 *    10 us (start 10.7 us); the pause ends 105 ns later, when the blocks
 *    ended at 10.01 to 10.10 us are free: a group of 10, sent 40 ns apart
 *    (the SM's interval binds): starts 10.805 us + 40 k, k = 0..9;
 *  B (refill_pause_first 305 ns): the second group opens at 10.305 us with
 *    the 30 blocks ended by then: starts 11.005 us + 40 k, k = 0..29;
 *  C (and core_interval_slots 20 ns): the GPU's 25 ns binds: 11.005 + 25 k;
 *  D (and gpu_burst_slots_work_groups 4, a credit of 100 ns): the sends go
 *    20 ns apart until the bucket catches up (k = 20), then 25 ns apart:
 *    11.005 + 20 k for k <= 20, 11.005 + 25 k - 100 ns after;
 *  E: a kernel that thread contexts limit (128 threads, 16 per SM) gets the
 *    same timeline with D's keys as without them. */
START_TEST(timed_slots_first_refill)
{
    occ_device *base = timed_device(700, 40, 0, 25, 0, 10, 0), *dev = NULL;
    occ_device_desc d = *occ_device_describe(base);
    d.cores = 1;
    d.refill_pause_s = 105e-9;
    occ_diag diag;
    const double ns = 1e-9 / 10e-6;
    occ_device *plain = NULL;
    for (int cs = 0; cs < 4; cs++) {
        d.refill_pause_first_s = cs >= 1 ? 305e-9 : 0;
        d.core_interval_slots_s = cs >= 2 ? 20e-9 : 0;
        d.gpu_burst_slots_work_groups = cs >= 3 ? 4 : 0;
        ck_assert_msg(occ_device_create(&d, &dev, &diag) == OCC_OK, "%s", diag.message);
        occ_kernel k = tc_kernel(32, 32);
        k.regs_per_thread = 16;
        occ_residency r;
        occ_residency_compute(dev, &k, &r);
        ck_assert_uint_eq(r.resident_wgs, 32);
        ck_assert(r.limited_by & (1u << OCC_RES_WG_SLOTS));
        occ_timeline t;
        chunks *ch = simulate_traced(dev, &k, 64, NULL, &t);
        ck_assert_msg(fabs(ch->c[32].run - (1.0 + 700 * ns)) < 1e-9, "first refill at %.4f us",
                      ch->c[32].run * 10);
        const int n2 = cs == 0 ? 10 : 30;
        for (int j = 0; j < n2; j++) {
            double want = cs == 0   ? 805 + 40.0 * j
                          : cs == 1 ? 1005 + 40.0 * j
                          : cs == 2 ? 1005 + 25.0 * j
                                    : (j <= 20 ? 1005 + 20.0 * j : 1005 + 25.0 * j - 100);
            const occ_chunk *c = &ch->c[33 + j];
            ck_assert_msg(fabs(c->run - (1.0 + want * ns)) < 1e-9,
                          "case %d: block %d at %.4f us, want %.4f", cs, 33 + j, c->run * 10,
                          (1.0 + want * ns) * 10);
        }
        occ_timeline_free(&t);
        free(ch);
        if (cs == 0)
            plain = dev;
        else if (cs < 3)
            occ_device_free(dev);
    }
    /* E: thread contexts limit, the slot keys do not apply */
    occ_kernel k = tc_kernel(128, 32);
    k.regs_per_thread = 16;
    occ_residency r;
    occ_residency_compute(dev, &k, &r);
    ck_assert_uint_eq(r.limited_by, 1u << OCC_RES_THREADS);
    occ_sim_options o;
    occ_sim_options_init(&o);
    o.time_unit_s = 10e-6;
    occ_timeline a, b;
    ck_assert_int_eq(occ_timeline_simulate(plain, &k, 64, &o, &a, &diag), OCC_OK);
    ck_assert_int_eq(occ_timeline_simulate(dev, &k, 64, &o, &b, &diag), OCC_OK);
    ck_assert(same_timeline(&a, &b));
    occ_timeline_free(&a);
    occ_timeline_free(&b);
    /* the slot keys alone, without the pause, are refused */
    d.refill_pause_s = 0;
    occ_device *bad = NULL;
    ck_assert_int_eq(occ_device_create(&d, &bad, &diag), OCC_ERR_VALUE);
    ck_assert_ptr_nonnull(strstr(diag.message, "refill_pause_ns"));
    occ_device_free(plain);
    occ_device_free(dev);
    occ_device_free(base);
}
END_TEST

/* Sub-partitions (sub_partition_hold): one SM (4 sub-partitions of 16 warp
 * slots), 64-thread blocks (2 warps, 32 per SM, all 64 warp slots), gap
 * 700 ns, per SM 40 ns, no GPU interval, launch 10 ns, pause 105 ns, no
 * window.  The launch puts block j's warps on sub-partitions 0 and 1 (j
 * even) or 2 and 3 (j odd); blocks 1 and 3 last 5 us (they end at 5.01 and
 * 5.03 us), the others 10 us (block 0 ends first, at 10 us).  Block 32 is
 * sent at 5.01 us (ready 5.71 us) and its turn is sub-partitions 0 and 1,
 * full until 10 us; block 33's turn is 2 and 3, which have room.
 *  hold 0 (off): block 32 starts at 5.71 us; block 3's slot is reported
 *    when the pause ends (5.115 us): block 33 starts at 5.815 us;
 *  hold 1 us: block 32 waits until 6.71 us and starts then on 2 and 3; the
 *    SM takes its next send no sooner than 6.71 - 0.7 us, its pause ends
 *    105 ns after that, block 33 is sent at 6.115 us and starts at 6.815 us;
 *  hold 10 us: block 32 starts at 10 us, when block 0 ends; the next send
 *    at 9.3 + 0.105 us, block 33 ready at 10.105 us (after block 32: in
 *    order). */
START_TEST(timed_sub_partitions)
{
    occ_device *base = timed_device(700, 40, 0, 0.001, 0, 10, 0), *dev = NULL;
    occ_device_desc d = *occ_device_describe(base);
    d.cores = 1;
    d.gpu_interval_s = 0;
    d.refill_pause_s = 105e-9;
    ck_assert_uint_eq(d.reg_partitions, 4);
    double durs[34];
    for (int i = 0; i < 34; i++)
        durs[i] = i == 1 || i == 3 ? 0.5 : 1.0;
    static const double hold_ns[3] = {0, 1000, 10000};
    static const double want_ns[3][2] = {{5710, 5815}, {6710, 6815}, {10000, 10105}};
    occ_diag diag;
    for (int cs = 0; cs < 3; cs++) {
        d.sub_partition_hold_s = hold_ns[cs] * 1e-9;
        ck_assert_msg(occ_device_create(&d, &dev, &diag) == OCC_OK, "%s", diag.message);
        occ_kernel k = tc_kernel(64, 32);
        k.regs_per_thread = 16;
        occ_residency r;
        occ_residency_compute(dev, &k, &r);
        ck_assert_uint_eq(r.resident_wgs, 32);
        occ_durations du = {.kind = OCC_DURATIONS_LIST, .values = durs, .n_values = 34};
        occ_timeline t;
        chunks *ch = simulate_traced(dev, &k, 34, &du, &t);
        for (int j = 0; j < 2; j++) {
            const occ_chunk *c = &ch->c[32 + j];
            ck_assert_msg(fabs(c->run - want_ns[cs][j] * 1e-4) < 1e-9,
                          "hold %.0f ns: block %d at %.4f us, want %.4f", hold_ns[cs], 32 + j,
                          c->run * 10, want_ns[cs][j] * 1e-3);
        }
        occ_timeline_free(&t);
        free(ch);
        occ_device_free(dev);
    }
    /* the hold alone, without the pause, is refused */
    d.refill_pause_s = 0;
    occ_device *bad = NULL;
    ck_assert_int_eq(occ_device_create(&d, &bad, &diag), OCC_ERR_VALUE);
    ck_assert_ptr_nonnull(strstr(diag.message, "sub_partition_hold_ns"));
    occ_device_free(base);
}
END_TEST

/* Without timing in the profile, a time unit changes nothing: every Intel
 * profile and tgl's seed cases stay as they are. */
START_TEST(no_timing_is_today)
{
    static const char *const names[] = {"tgl", "max-1550", "a100", "v100"};
    static const uint32_t sg[] = {8, 16, 32, 32};
    for (size_t i = 0; i < 4; i++) {
        occ_device *dev = tc_builtin(names[i]);
        ck_assert(!occ_device_has_timing(occ_device_describe(dev)));
        occ_kernel k = tc_kernel(320, sg[i]);
        occ_sim_options o;
        occ_sim_options_init(&o);
        o.lanes = true;
        occ_timeline a, b;
        occ_diag diag;
        occ_status st = occ_timeline_simulate(dev, &k, 1000, &o, &a, &diag);
        ck_assert_msg(st == OCC_OK, "%s: %s", names[i], diag.message);
        o.time_unit_s = 5e-6;
        ck_assert_int_eq(occ_timeline_simulate(dev, &k, 1000, &o, &b, &diag), OCC_OK);
        ck_assert_msg(same_timeline(&a, &b), "%s", names[i]);
        occ_timeline_free(&a);
        occ_timeline_free(&b);
        occ_device_free(dev);
    }
    /* and h100-sxm without a time unit: today's two phases for 1000 x 320 */
    occ_device *h = tc_builtin("h100-sxm");
    occ_kernel k = tc_kernel(320, 32);
    occ_timeline t;
    occ_diag diag;
    ck_assert_int_eq(occ_timeline_simulate(h, &k, 1000, NULL, &t, &diag), OCC_OK);
    ck_assert_uint_eq(t.n_phases, 2);
    occ_timeline_free(&t);
    occ_device_free(h);
}
END_TEST

/* ---- profile keys --------------------------------------------------------------- */

START_TEST(profile_keys_round_trip)
{
    occ_device *h = tc_builtin("h100-sxm");
    size_t len = 0;
    char *buf = tc_yaml_of(h, "measured", &len);
    ck_assert_ptr_nonnull(strstr(buf, "gpu_interval_ns: 0.6"));
    ck_assert_ptr_nonnull(strstr(buf, "gpu_burst_work_groups: 70"));
    ck_assert_ptr_nonnull(strstr(buf, "launch_interval_ns: 12.5"));
    ck_assert_ptr_nonnull(strstr(buf, "refill_gap_ns: 256"));
    ck_assert_ptr_nonnull(strstr(buf, "gpu_interval_per_context_ns: 0.04"));
    ck_assert_ptr_nonnull(strstr(buf, "refill_pause_ns: 200"));
    ck_assert_ptr_nonnull(strstr(buf, "refill_window_ns: 70"));
    ck_assert_ptr_nonnull(strstr(buf, "refill_window_threads_ns: 1000"));
    ck_assert_ptr_nonnull(strstr(buf, "gpu_report_per_work_group_ns: 0.1"));
    /* 0 since the fixed probe: not written */
    ck_assert_ptr_null(strstr(buf, "refill_gap_drained_ns"));
    ck_assert_ptr_null(strstr(buf, "refill_gap_spread_ns"));
    ck_assert_ptr_null(strstr(buf, "core_interval_threads_ns"));
    /* nor three of the fenced probe's keys (refill_pause_first_ns and the slot-limited ones):
     * h100-sxm does not use them with the fixed probe; the frozen profile of the fenced probe
     * does, and writes them */
    ck_assert_ptr_null(strstr(buf, "refill_pause_first_ns"));
    ck_assert_ptr_null(strstr(buf, "core_interval_slots_ns"));
    ck_assert_ptr_nonnull(strstr(buf, "sub_partition_hold_ns: 1000")); /* but this one */
    {
        occ_device *fenced;
        occ_diag fdiag;
        ck_assert_int_eq(occ_device_load_file(CUDA_DATA_DIR "/dispatch/h100-sxm-fenced-probe.yaml",
                                              &fenced, &fdiag),
                         OCC_OK);
        size_t flen = 0;
        char *fbuf = tc_yaml_of(fenced, "measured", &flen);
        const char *fb = fbuf;
        ck_assert_ptr_nonnull(strstr(fb, "refill_gap_drained_ns: 1100"));
        ck_assert_ptr_nonnull(strstr(fb, "refill_window_threads_ns: 150"));
        ck_assert_ptr_nonnull(strstr(fb, "gpu_report_per_work_group_ns: 0.35"));
        ck_assert_ptr_nonnull(strstr(fb, "refill_gap_spread_ns: 80"));
        ck_assert_ptr_nonnull(strstr(fb, "core_interval_threads_ns: 25"));
        ck_assert_ptr_nonnull(strstr(fb, "refill_pause_first_ns: 460"));
        ck_assert_ptr_nonnull(strstr(fb, "core_interval_slots_ns: 38"));
        ck_assert_ptr_nonnull(strstr(fb, "gpu_burst_slots_work_groups: 1000"));
        ck_assert_ptr_nonnull(strstr(fb, "sub_partition_hold_ns: 2000"));
        ck_assert_ptr_null(strstr(fb, "refill_window_ns")); /* 0: not written */
        occ_device *fback;
        ck_assert_int_eq(occ_device_load_yaml(fbuf, flen, "<memory>", &fback, &fdiag), OCC_OK);
        ck_assert_double_eq(occ_device_describe(fenced)->sub_partition_hold_s,
                            occ_device_describe(fback)->sub_partition_hold_s);
        ck_assert_double_eq(occ_device_describe(fenced)->refill_pause_first_s,
                            occ_device_describe(fback)->refill_pause_first_s);
        occ_device_free(fback);
        occ_device_free(fenced);
        free(fbuf);
    }
    occ_device *back;
    occ_diag diag;
    ck_assert_int_eq(occ_device_load_yaml(buf, len, "<memory>", &back, &diag), OCC_OK);
    const occ_device_desc *a = occ_device_describe(h), *b = occ_device_describe(back);
    ck_assert_double_eq(a->refill_gap_s, b->refill_gap_s);
    ck_assert_double_eq(a->core_interval_s, b->core_interval_s);
    ck_assert_double_eq(a->core_interval_per_context_s, b->core_interval_per_context_s);
    ck_assert_double_eq(a->gpu_interval_s, b->gpu_interval_s);
    ck_assert_uint_eq(a->gpu_burst_work_groups, b->gpu_burst_work_groups);
    ck_assert_double_eq(a->launch_interval_s, b->launch_interval_s);
    ck_assert_double_eq(a->refill_gap_drained_s, b->refill_gap_drained_s);
    ck_assert_double_eq(a->refill_pause_s, b->refill_pause_s);
    ck_assert_double_eq(a->refill_window_s, b->refill_window_s);
    ck_assert_double_eq(a->refill_window_threads_s, b->refill_window_threads_s);
    ck_assert_double_eq(a->gpu_report_per_work_group_s, b->gpu_report_per_work_group_s);
    ck_assert_double_eq(a->refill_gap_spread_s, b->refill_gap_spread_s);
    ck_assert_double_eq(a->core_interval_threads_s, b->core_interval_threads_s);
    ck_assert_double_eq(a->refill_pause_first_s, b->refill_pause_first_s);
    ck_assert_double_eq(a->core_interval_slots_s, b->core_interval_slots_s);
    ck_assert_uint_eq(a->gpu_burst_slots_work_groups, b->gpu_burst_slots_work_groups);
    ck_assert_double_eq(a->sub_partition_hold_s, b->sub_partition_hold_s);
    ck_assert_str_eq(a->timing_evidence, b->timing_evidence);
    occ_device_free(back);
    /* the refinements need the timing they refine */
    char *alone = strdup(buf);
    const char *const required[] = {"  refill_gap_ns:", "  core_interval_ns:",
                                    "  core_interval_per_context_ns:", "  gpu_interval_ns:",
                                    "  timing_evidence:"};
    for (size_t i = 0; i < 5; i++)
        memcpy(strstr(alone, required[i]), "  #", 3);
    ck_assert_int_eq(occ_device_load_yaml(alone, strlen(alone), "<memory>", &back, &diag),
                     OCC_ERR_SCHEMA);
    ck_assert_ptr_nonnull(strstr(diag.message, "refine"));
    free(alone);
    /* and a description made in code is held to the same rule */
    occ_device_desc bare = *a;
    bare.refill_gap_s = bare.core_interval_s = bare.core_interval_per_context_s = 0;
    bare.gpu_interval_s = 0;
    ck_assert_int_eq(occ_device_create(&bare, &back, &diag), OCC_ERR_VALUE);
    ck_assert_ptr_nonnull(strstr(diag.message, "refine"));
    /* all or none */
    char *cut = strdup(buf);
    char *line = strstr(cut, "  gpu_interval_ns:");
    memcpy(line, "  #pu", 5);
    ck_assert_int_eq(occ_device_load_yaml(cut, strlen(cut), "<memory>", &back, &diag),
                     OCC_ERR_SCHEMA);
    ck_assert_ptr_nonnull(strstr(diag.message, "or none"));
    free(cut);
    /* a negative time */
    char *neg = strdup(buf);
    line = strstr(neg, "refill_gap_ns: 256");
    memcpy(line, "refill_gap_ns: -60", 18);
    ck_assert_int_eq(occ_device_load_yaml(neg, strlen(neg), "<memory>", &back, &diag),
                     OCC_ERR_VALUE);
    ck_assert_msg(strstr(diag.message, "refill_gap_ns") || strstr(diag.key, "refill_gap_ns"),
                  "%s / %s", diag.key, diag.message);
    free(neg);
    free(buf);
    occ_device_free(h);
}
END_TEST

/* ---- replays ------------------------------------------------------------------------ */

typedef struct run {
    occ_probe_result res;
    occ_device_desc desc;
    occ_timeline pred, meas;
    occ_comparison cmp;
    double unit_s;
} run;

/* What occcalc validate does with a record file, predicting with dev (NULL:
 * the device the file describes, which has no timing). */
static void analyse(const char *path, const occ_device *with, run *x)
{
    memset(x, 0, sizeof *x);
    occ_probe_result_init(&x->res);
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "%s", path);
    occ_diag diag;
    ck_assert_int_eq(occ_probe_file_read(f, path, NULL, &x->desc, &x->res, &diag), OCC_OK);
    fclose(f);
    occ_device *own = NULL;
    if (!with) {
        ck_assert_int_eq(occ_device_create(&x->desc, &own, &diag), OCC_OK);
        with = own;
    }
    occ_residency r;
    occ_residency_compute(with, &x->res.actual, &r);
    occ_measure_params p;
    occ_measure_params_init(&p);
    p.cores = occ_device_describe(with)->cores;
    p.contexts_per_core = r.contexts_per_core;
    p.contexts_per_wg = r.contexts_per_wg;
    p.tick_seconds = x->res.tick_seconds;
    p.lanes = true;
    occ_measure_info mi;
    ck_assert_int_eq(occ_timeline_from_records(x->res.records, x->res.n_records, &p, &x->meas, &mi,
                                               &diag), OCC_OK);
    x->unit_s = mi.median_wg_s;
    ck_assert_int_eq(occ_validation_predict_timed(with, &x->res.actual, x->res.work_groups,
                                                  x->unit_s, NULL, &x->pred), OCC_OK);
    ck_assert_int_eq(occ_timeline_compare(&x->pred, x->unit_s, &x->meas, NULL, &x->cmp), OCC_OK);
    occ_timeline exact;
    p.merge_tolerance = 1e-9;
    p.lanes = false;
    ck_assert_int_eq(occ_timeline_from_records(x->res.records, x->res.n_records, &p, &exact, &mi,
                                               &diag), OCC_OK);
    ck_assert_int_eq(occ_timeline_compare_over_time(&x->pred, x->unit_s, &exact, NULL, &x->cmp),
                     OCC_OK);
    occ_timeline_free(&exact);
    occ_device_free(own);
}

static void run_free(run *x)
{
    occ_probe_result_free(&x->res);
    occ_timeline_free(&x->pred);
    occ_timeline_free(&x->meas);
}

/* Lowest predicted occupancy strictly inside the run, between the waves. */
static double deepest_dip(const occ_timeline *t)
{
    double lo = 1;
    for (size_t i = 1; i + 1 < t->n_phases; i++)
        if (t->phases[i].occupancy < lo)
            lo = t->phases[i].occupancy;
    return lo;
}

/* The issue's case: 60000 blocks of 32 threads spinning 100 us on the H100.
 * Recorded on 2026-11-24 with the fenced probe (its record's __threadfence()
 * kept each block past its recorded end), so replayed with the values fitted
 * to that probe, frozen as test data (docs/phases.md "Dispatch timing"); the
 * campaign of the fixed probe (2026-11-25c) replays its own d058 with
 * h100-sxm (test dispatch-campaign-2026-11-25c). */
START_TEST(issue_case_dips_modelled)
{
    const char *path = REPLAY "d058-wg32-rmin-s0-nobar-100us-g60000.rec";
    occ_device *h = NULL;
    occ_diag fdiag;
    ck_assert_int_eq(occ_device_load_file(CUDA_DATA_DIR "/dispatch/h100-sxm-fenced-probe.yaml", &h,
                                          &fdiag),
                     OCC_OK);
    run a, b;
    analyse(path, h, &a);
    ck_assert_msg(a.cmp.pass, "%s", a.cmp.summary);
    ck_assert(a.cmp.average_diff_pp < 0.5 && a.cmp.distance_pp < 1.0);
    /* the prediction dips at the wave boundaries: 50 % resident (32 of 64
     * warps per SM) falls well below between waves, several times */
    double top = 0;
    for (size_t i = 0; i < a.pred.n_phases; i++)
        if (a.pred.phases[i].occupancy > top)
            top = a.pred.phases[i].occupancy;
    ck_assert_double_eq_tol(top, 0.5, 1e-12);
    ck_assert(deepest_dip(&a.pred) < 0.35);
    /* a dip at each of the 14 wave boundaries (60000 / 4224 = 14.2 waves; the
     * measured curve dips to 27 to 39 % for 2.5 to 2.8 us, the predicted to 39
     * to 40 % for 3.3 us, the first boundary to 0 % in both): below 45 % for at
     * least 1 us, dips counted once per wave (0.5 of a 100 us unit apart) */
    size_t dips = 0;
    double last_dip = -1, below = 0;
    for (size_t i = 1; i + 1 < a.pred.n_phases; i++) {
        const occ_phase *ph = &a.pred.phases[i];
        below = ph->occupancy < 0.45 ? below + (ph->end - ph->start) : 0;
        if (below * a.unit_s >= 1e-6 && (last_dip < 0 || ph->start - last_dip > 0.5)) {
            dips++;
            last_dip = ph->start;
        }
    }
    ck_assert_uint_ge(dips, 14);
    /* without timing (the record's own profile) the prediction has no dips:
     * its curve is farther from the measurement (0.70 against 0.20 points) and
     * its average is off by 0.30 points instead of 0.01.  (It would pass the
     * over-time checks too: 0.70 is within the 2-point tolerance.) */
    analyse(path, NULL, &b);
    ck_assert_uint_eq(b.pred.n_phases, 2);
    ck_assert(b.cmp.distance_pp > 1.5 * a.cmp.distance_pp);
    ck_assert(b.cmp.average_diff_pp > 10 * a.cmp.average_diff_pp);
    ck_assert_uint_eq(b.cmp.measured_phases, a.cmp.measured_phases);
    run_free(&a);
    run_free(&b);
    occ_device_free(h);
}
END_TEST

/* The least occupancy of t over [from, to) (units), averaged over bins of
 * `bin` units: how deep a dip goes, seen at the resolution of a bin. */
static double binned_min(const occ_timeline *t, double from, double to, double bin)
{
    double lo = 1;
    size_t i = 0;
    for (double b = from; b + bin <= to; b += bin) {
        while (i < t->n_phases && t->phases[i].end <= b)
            i++;
        double area = 0;
        for (size_t k = i; k < t->n_phases && t->phases[k].start < b + bin; k++) {
            double s0 = t->phases[k].start > b ? t->phases[k].start : b;
            double s1 = t->phases[k].end < b + bin ? t->phases[k].end : b + bin;
            area += (s1 - s0) * t->phases[k].occupancy;
        }
        lo = area / bin < lo ? area / bin : lo;
    }
    return lo;
}

/* The issue's case again, recorded with the fixed probe in the check campaign
 * of 2026-11-25e (a device call of its own, after every value of h100-sxm was
 * fixed) and predicted with the shipped h100-sxm: it passes, and around each
 * of the 14 wave boundaries its predicted curve dips as the measured one
 * does (least occupancy over 250 ns bins, the measurement's own instants).
 * With the fixed probe the dips are shallower than the fenced probe's: from
 * 50 % to 45 % measured (41.5 to 46.6 % predicted) from the second boundary
 * on, to 6 % (8 %) at the first, on 2026-11-25e.
 * The records are the campaign's tarball, extracted by the build
 * (tests/timeline/meson.build gives the folder). */
START_TEST(issue_case_dips_fixed_probe)
{
    const char *dir = getenv("OCC_RECORDS_2026_11_25E");
    ck_assert_msg(dir != NULL, "OCC_RECORDS_2026_11_25E is not set (tests/timeline/meson.build sets it)");
    char path[4096];
    snprintf(path, sizeof path, "%s/d058-wg32-rmin-s0-nobar-100us-g60000.rec", dir);
    occ_device *h = NULL;
    occ_diag diag;
    ck_assert_int_eq(occ_device_builtin("h100-sxm", &h, &diag), OCC_OK);
    run a, b;
    analyse(path, h, &a);
    ck_assert_msg(a.cmp.pass, "%s", a.cmp.summary);
    ck_assert(a.cmp.average_diff_pp < 0.5 && a.cmp.distance_pp < 1.0);
    /* the measured curve at its own instants (as analyse compares over time) */
    occ_residency r;
    occ_residency_compute(h, &a.res.actual, &r);
    occ_measure_params p;
    occ_measure_params_init(&p);
    p.cores = occ_device_describe(h)->cores;
    p.contexts_per_core = r.contexts_per_core;
    p.contexts_per_wg = r.contexts_per_wg;
    p.tick_seconds = a.res.tick_seconds;
    p.merge_tolerance = 1e-9;
    occ_measure_info mi;
    occ_timeline exact;
    ck_assert_int_eq(occ_timeline_from_records(a.res.records, a.res.n_records, &p, &exact, &mi, &diag),
                     OCC_OK);
    const double bin = 250e-9 / a.unit_s; /* the prediction is in units (the median duration) */
    for (int k = 1; k <= 14; k++) {
        double pred = binned_min(&a.pred, k - 0.5, k + 0.5, bin);
        double meas = binned_min(&exact, (k - 0.5) * a.unit_s, (k + 0.5) * a.unit_s, 250e-9); /* s */
        ck_assert_msg(pred < 0.475 && meas < 0.475 && fabs(pred - meas) < 0.05,
                      "boundary %d: predicted %.3f, measured %.3f", k, pred, meas);
    }
    occ_timeline_free(&exact);
    /* without timing the prediction has no dips, and is farther off */
    analyse(path, NULL, &b);
    ck_assert_uint_eq(b.pred.n_phases, 2);
    ck_assert(b.cmp.distance_pp > 1.5 * a.cmp.distance_pp);
    run_free(&a);
    run_free(&b);
    occ_device_free(h);
}
END_TEST

/* Five launches of the same configuration: their measured curves differ by a
 * small fraction of the distance tolerance (docs/validation/cuda-h100-2026-11-24.md). */
START_TEST(repeats_are_quiet)
{
    static const char *const sets[2][5] = {
        {"d071-wg256-rmin-s0-nobar-10us-g4752-rep1", "d077-wg256-rmin-s0-nobar-10us-g4752-rep2",
         "d083-wg256-rmin-s0-nobar-10us-g4752-rep3", "d089-wg256-rmin-s0-nobar-10us-g4752-rep4",
         "d095-wg256-rmin-s0-nobar-10us-g4752-rep5"},
        {"d072-wg1024-rmin-s0-nobar-100us-g528-rep1", "d078-wg1024-rmin-s0-nobar-100us-g528-rep2",
         "d084-wg1024-rmin-s0-nobar-100us-g528-rep3", "d090-wg1024-rmin-s0-nobar-100us-g528-rep4",
         "d096-wg1024-rmin-s0-nobar-100us-g528-rep5"}};
    occ_compare_tolerance tol;
    occ_compare_tolerance_init(&tol);
    double worst = 0;
    for (int s = 0; s < 2; s++) {
        run r[5];
        char path[512];
        for (int i = 0; i < 5; i++) {
            snprintf(path, sizeof path, REPLAY "%s.rec", sets[s][i]);
            analyse(path, NULL, &r[i]);
        }
        for (int i = 0; i < 5; i++)
            for (int j = i + 1; j < 5; j++) {
                /* one measured curve against the other: seconds, unit 1 */
                occ_comparison c;
                ck_assert_int_eq(occ_timeline_compare(&r[i].meas, 1.0, &r[j].meas, NULL, &c), OCC_OK);
                if (c.distance_pp > worst)
                    worst = c.distance_pp;
                ck_assert(c.average_diff_pp < 0.3);
            }
        for (int i = 0; i < 5; i++)
            run_free(&r[i]);
    }
    ck_assert_msg(worst > 0 && 3 * worst <= tol.distance_pp, "repeat distance %.3f", worst);
}
END_TEST

/* The same with the fixed probe: the six configurations the check campaign
 * 2026-11-25e repeats five times (5 to 100 us, 32 to 1024 threads, local
 * memory, unequal durations), each measured curve against the others.  The
 * tolerances (docs/validation) were derived from the fenced probe's repeats;
 * this holds them to at least twice the fixed probe's. */
START_TEST(repeats_are_quiet_fixed_probe)
{
    static const char *const configs[6] = {
        "wg32-rmin-s0-nobar-5us-g12672",  "wg256-rmin-s0-nobar-10us-g4752",
        "wg1024-rmin-s0-nobar-100us-g528", "wg64-rmin-s20480-nobar-20us-g3960",
        "wg32-rmin-s0-nobar-100us-g60000", "wg128-rmin-s0-nobar-20us-g10560-sp20"};
    const char *dir = getenv("OCC_RECORDS_2026_11_25E");
    ck_assert_msg(dir != NULL, "OCC_RECORDS_2026_11_25E is not set (tests/timeline/meson.build sets it)");
    occ_compare_tolerance tol;
    occ_compare_tolerance_init(&tol);
    double worst = 0, worst_avg = 0;
    for (int c = 0; c < 6; c++) {
        run r[5];
        for (int i = 0; i < 5; i++) {
            char path[4096];
            snprintf(path, sizeof path, "%s/d%03d-%s-rep%d.rec", dir, 70 + c + 6 * i, configs[c], i + 1);
            analyse(path, NULL, &r[i]);
        }
        for (int i = 0; i < 5; i++)
            for (int j = i + 1; j < 5; j++) {
                occ_comparison cmp;
                ck_assert_int_eq(occ_timeline_compare(&r[i].meas, 1.0, &r[j].meas, NULL, &cmp), OCC_OK);
                worst = cmp.distance_pp > worst ? cmp.distance_pp : worst;
                worst_avg = cmp.average_diff_pp > worst_avg ? cmp.average_diff_pp : worst_avg;
            }
        for (int i = 0; i < 5; i++)
            run_free(&r[i]);
    }
    /* 2026-11-25e: 0.89 points of distance at most (32 threads x 5 us), 0.47
     * on the average (256 x 10 us): the tolerances are 2.2 and 2.1 times
     * that, where the fenced probe's repeats gave 3 and 5 times */
    ck_assert_msg(worst > 0 && 2 * worst <= tol.distance_pp, "repeat distance %.3f", worst);
    ck_assert_msg(worst_avg > 0 && 2 * worst_avg <= tol.average_pp, "repeat average %.3f", worst_avg);
}
END_TEST

/* What occcalc probe measures, on the campaign's records: the 60000 x
 * 32-thread launch and a two-wave 1024-thread launch give the timing the
 * h100-sxm profile carries (docs/validation/cuda-h100-2026-11-24.md). */
START_TEST(fit_from_records)
{
    run s, l;
    occ_device *h = tc_builtin("h100-sxm");
    analyse(REPLAY "d058-wg32-rmin-s0-nobar-100us-g60000.rec", h, &s);
    analyse(REPLAY "d072-wg1024-rmin-s0-nobar-100us-g528-rep1.rec", h, &l);
    occ_device_desc d = *occ_device_describe(h);
    d.refill_gap_s = d.gpu_interval_s = d.core_interval_s = d.core_interval_per_context_s = 0;
    occ_diag diag;
    ck_assert_int_eq(occ_dispatch_timing_fit(&s.res, 1, &l.res, 32, 132, &d, &diag), OCC_OK);
    fprintf(stderr, "fit: gap %.1f ns, gpu %.3f ns, core %.1f ns, per context %.2f ns\n",
            d.refill_gap_s * 1e9, d.gpu_interval_s * 1e9, d.core_interval_s * 1e9,
            d.core_interval_per_context_s * 1e9);
    ck_assert(d.refill_gap_s > 600e-9 && d.refill_gap_s < 900e-9);
    ck_assert(d.gpu_interval_s > 0.5e-9 && d.gpu_interval_s < 0.8e-9);
    ck_assert(d.core_interval_per_context_s > 4e-9 && d.core_interval_per_context_s < 12e-9);
    /* below the timer's 32 ns step: most refills of one SM share a tick */
    ck_assert(d.core_interval_s >= 0 && d.core_interval_s < 120e-9);
    /* a launch of one wave cannot give refills */
    occ_probe_result single = l.res;
    single.n_records = 264; /* the first wave only */
    ck_assert_int_eq(occ_dispatch_timing_fit(&s.res, 1, &single, 32, 132, &d, &diag), OCC_ERR_VALUE);
    ck_assert_ptr_nonnull(strstr(diag.message, "large-block"));
    run_free(&s);
    run_free(&l);
    occ_device_free(h);
}
END_TEST

/* The profile occcalc probe wrote on the H100 on 2026-11-24: what its two
 * launches measured (the gap, 8 ns per warp, the GPU's 0.64 ns a block; the
 * shipped values are fitted on the whole campaign, docs/phases.md), the rest
 * equal to h100-sxm. */
START_TEST(probed_profile)
{
    occ_device *live, *shipped = tc_builtin("h100-sxm");
    occ_diag diag;
    ck_assert_int_eq(occ_device_load_file(CUDA_DATA_DIR "/dispatch/probe/probe-h100-2026-11-24.yaml",
                                          &live, &diag), OCC_OK);
    occ_device_desc a = *occ_device_describe(live), b = *occ_device_describe(shipped);
    ck_assert_double_eq_tol(a.refill_gap_s, 768e-9, 1e-12);
    ck_assert_double_eq_tol(a.core_interval_per_context_s, 8e-9, 1e-12);
    ck_assert(fabs(a.gpu_interval_s - 0.637e-9) < 0.01e-9);
    ck_assert(!a.gpu_burst_work_groups && !(a.launch_interval_s > 0) && !(a.refill_gap_drained_s > 0));
    ck_assert_ptr_nonnull(strstr(a.timing_evidence, "occcalc probe"));
    memcpy(a.name, b.name, sizeof a.name);
    memcpy(a.product, b.product, sizeof a.product);
    const char *what = NULL;
    ck_assert_msg(tc_desc_equal(&a, &b, &what), "probed profile differs from h100-sxm in %s", what);
    occ_device_free(live);
    occ_device_free(shipped);
}
END_TEST

/* A probe's fit may give an interval of 0 (below the timer's step): the
 * profile it writes still loads, with the zeros (the writer once left them
 * out, and the loader wants the four intervals together). */
START_TEST(zero_intervals_round_trip)
{
    occ_device *h = tc_builtin("h100-sxm");
    occ_device_desc d = *occ_device_describe(h);
    d.core_interval_s = 0;
    d.core_interval_per_context_s = 0;
    occ_device *zero;
    occ_diag diag;
    ck_assert_int_eq(occ_device_create(&d, &zero, &diag), OCC_OK);
    size_t len = 0;
    char *buf = tc_yaml_of(zero, "measured", &len);
    ck_assert_ptr_nonnull(strstr(buf, "core_interval_ns: 0\n"));
    ck_assert_ptr_nonnull(strstr(buf, "core_interval_per_context_ns: 0\n"));
    occ_device *back;
    ck_assert_msg(occ_device_load_yaml(buf, len, "<memory>", &back, &diag) == OCC_OK, "%s", diag.message);
    const occ_device_desc *b = occ_device_describe(back);
    ck_assert(b->core_interval_s == 0 && b->core_interval_per_context_s == 0);
    ck_assert_double_eq(b->refill_gap_s, d.refill_gap_s);
    ck_assert_double_eq(b->gpu_interval_s, d.gpu_interval_s);
    /* and a description without timing writes none of the keys */
    occ_device *tgl = tc_builtin("tgl");
    size_t tlen = 0;
    char *tbuf = tc_yaml_of(tgl, NULL, &tlen);
    ck_assert_ptr_null(strstr(tbuf, "interval_ns"));
    ck_assert_ptr_null(strstr(tbuf, "timing_evidence"));
    free(tbuf);
    free(buf);
    occ_device_free(tgl);
    occ_device_free(back);
    occ_device_free(zero);
    occ_device_free(h);
}
END_TEST

/* occcalc probe on the lent H200 (2026-11-27, a freshly started machine, five
 * runs in a row): the first read a refill gap of 512 ns, the next four 256 ns,
 * what h200 carries and its dispatch campaign bears out. */
START_TEST(probed_h200)
{
    static const char *const runs[] = {"probe-h200-cold-2026-11-27.yaml",
                                       "probe-h200-2026-11-27-run2.yaml",
                                       "probe-h200-2026-11-27-run3.yaml",
                                       "probe-h200-2026-11-27-run4.yaml",
                                       "probe-h200-2026-11-27-run5.yaml"};
    occ_device *shipped = tc_builtin("h200");
    for (int i = 0; i < 5; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/dispatch/probe/%s", CUDA_DATA_DIR, runs[i]);
        occ_device *live;
        occ_diag diag;
        ck_assert_msg(occ_device_load_file(path, &live, &diag) == OCC_OK, "%s: %s", runs[i], diag.message);
        const occ_device_desc *a = occ_device_describe(live);
        ck_assert_double_eq_tol(a->refill_gap_s, i == 0 ? 512e-9 : 256e-9, 1e-12);
        if (i > 0)
            ck_assert_double_eq_tol(a->refill_gap_s, occ_device_describe(shipped)->refill_gap_s, 1e-12);
        ck_assert(fabs(a->gpu_interval_s - 0.6e-9) < 0.02e-9);
        ck_assert_ptr_nonnull(strstr(a->timing_evidence, "occcalc probe"));
        occ_device_free(live);
    }
    occ_device_free(shipped);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("dispatch");
    TCase *tc = tcase_create("dispatch");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, timed_by_hand);
    tcase_add_test(tc, zero_intervals_round_trip);
    tcase_add_test(tc, probed_h200);
    tcase_add_test(tc, timed_launch_interval);
    tcase_add_test(tc, timed_gpu_interval_per_context);
    tcase_add_test(tc, timed_drained_refill);
    tcase_add_test(tc, timed_reports_by_hand);
    tcase_add_test(tc, timed_slots_first_refill);
    tcase_add_test(tc, timed_sub_partitions);
    tcase_add_test(tc, no_timing_is_today);
    tcase_add_test(tc, profile_keys_round_trip);
    tcase_add_test(tc, issue_case_dips_modelled);
    tcase_add_test(tc, issue_case_dips_fixed_probe);
    tcase_add_test(tc, repeats_are_quiet);
    tcase_add_test(tc, repeats_are_quiet_fixed_probe);
    tcase_add_test(tc, fit_from_records);
    tcase_add_test(tc, probed_profile);
    suite_add_tcase(s, tc);
    return tc_run(s);
}
