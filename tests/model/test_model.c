/* occ's per-core model against Intel's GPU Occupancy Calculator.
 *
 * The reference below is written from Intel's GPU Occupancy Calculator alone
 * (docs/sources.md: its per-family rows and its rule), not from the profiles
 * or libocc's code:
 *   t = ceil(W / S); T = threads per core in the GRF mode;
 *   WGs by threads floor(T / t); by SLM floor(SLM_core / round_up_to_step(L)),
 *   no limit at L = 0; WG cap = max WGs per core, or the barrier count when the
 *   kernel uses a barrier; resident = min; occupancy = t * resident /
 *   threads_per_core, where threads_per_core is NOT halved in large-GRF mode.
 *
 * For work-group sizes that are multiples of the sub-group size occ must give
 * the same per-core answer on every Intel profile, in every GRF mode.  Where
 * occ differs on purpose (docs/model.md) the tests below show the case:
 *   - occupancy in a mode with fewer threads than the largest (large GRF, Xe3's
 *     graded table): occ divides by the contexts of the mode in use;
 *   - W % S != 0: occ counts ceil(W / S) contexts (the calculator before
 *     mid-2024 used the fraction W / S);
 *   - Xe-HPG/Xe-LPG SLM steps: the calculator lists only power-of-two steps,
 *     the profiles follow the driver, which also allocates 24 KB and 48 KB. */
#include <math.h>
#include <string.h>

#include "test_common.h"

#define KB 1024ull

/* SLM allocation steps in KB, ascending, 0-terminated. */
static const uint64_t steps_pow2_64[] = {1, 2, 4, 8, 16, 32, 64, 0};
static const uint64_t steps_pow2_128[] = {1, 2, 4, 8, 16, 32, 64, 128, 0};
static const uint64_t steps_xe_hpg_driver[] = {1, 2, 4, 8, 16, 24, 32, 48, 64, 96, 128, 0};

typedef struct calc_family {
    const char *family;
    const char *profiles[5];
    uint32_t xve_per_core;
    uint32_t n_modes;
    struct {
        uint32_t registers, threads_per_xve;
    } modes[5];
    uint32_t threads_per_core; /* the calculator's denominator */
    uint32_t n_sg, sg[3];
    uint64_t slm_core_kb, slm_max_wg_kb;
    uint32_t max_wg, max_wgs, barriers; /* 0: uncertain, read from the profile */
    const uint64_t *calc_steps;         /* the calculator's SLM steps */
    const uint64_t *occ_steps;          /* the driver's, where the profile follows it */
} calc_family;

/* the calculator's per-family rows (docs/sources.md, Intel facts) */
static const calc_family families[] = {
    {"Gen9", {"gen9"}, 8, 1, {{128, 7}}, 56, 3, {8, 16, 32}, 64, 64, 256, 56, 32,
     steps_pow2_64, steps_pow2_64},
    {"Gen11", {"gen11"}, 8, 1, {{128, 7}}, 56, 3, {8, 16, 32}, 64, 64, 256, 56, 32,
     steps_pow2_64, steps_pow2_64},
    {"Xe-LP", {"tgl", "dg1"}, 16, 1, {{128, 7}}, 112, 3, {8, 16, 32}, 64, 64, 512, 112, 64,
     steps_pow2_64, steps_pow2_64},
    {"Xe-HPG", {"arc-a770", "arc-a380", "flex-170"}, 16, 2, {{128, 8}, {256, 4}}, 128, 3,
     {8, 16, 32}, 128, 64, 1024, 128, 128, steps_pow2_128, steps_xe_hpg_driver},
    {"Xe-LPG", {"mtl"}, 16, 2, {{128, 8}, {256, 4}}, 128, 3, {8, 16, 32}, 128, 64, 1024, 128, 128,
     steps_pow2_128, steps_xe_hpg_driver},
    {"Xe-HPC", {"max-1550", "max-1100"}, 8, 2, {{128, 8}, {256, 4}}, 64, 2, {16, 32}, 128, 128,
     1024, 64, 64, steps_xe_hpg_driver, steps_xe_hpg_driver},
    {"Xe2", {"lnl", "arc-b580", "arc-b570"}, 8, 2, {{128, 8}, {256, 4}}, 64, 2, {16, 32}, 128,
     128, 1024, 64, 64, steps_xe_hpg_driver, steps_xe_hpg_driver},
    /* Xe3: max WGs and barriers per core are "uncertain" in the notes (the
     * profile is provisional); they are taken from the profile. */
    {"Xe3", {"ptl"}, 8, 5, {{96, 10}, {128, 8}, {160, 6}, {192, 5}, {256, 4}}, 80, 2, {16, 32},
     192, 128, 1024, 0, 0, steps_xe_hpg_driver, steps_xe_hpg_driver},
};
#define N_FAMILIES (sizeof families / sizeof families[0])

static uint64_t step_up(const uint64_t *steps_kb, uint64_t bytes)
{
    for (int i = 0; steps_kb[i]; i++)
        if (steps_kb[i] * KB >= bytes)
            return steps_kb[i] * KB;
    return 0;
}

typedef struct calc_answer {
    uint32_t by_threads, by_slm, cap, resident; /* by_slm UINT32_MAX: no limit */
    double occupancy;
} calc_answer;

/* The calculator's rule for one configuration (section 3).  Contexts per
 * work-group are ceil(W / S), as in the current calculator. */
static calc_answer calc_rule(const calc_family *f, uint32_t max_wgs, uint32_t barriers,
                             const uint64_t *steps, uint32_t mode, uint32_t W, uint32_t S,
                             uint64_t L, bool barrier)
{
    calc_answer a;
    uint32_t t = (W + S - 1) / S;
    uint32_t T = f->xve_per_core * f->modes[mode].threads_per_xve;
    a.by_threads = T / t;
    a.by_slm = L == 0 ? UINT32_MAX : (uint32_t)(f->slm_core_kb * KB / step_up(steps, L));
    a.cap = barrier ? barriers : max_wgs;
    a.resident = a.by_threads;
    if (a.by_slm < a.resident)
        a.resident = a.by_slm;
    if (a.cap < a.resident)
        a.resident = a.cap;
    a.occupancy = (double)t * a.resident / f->threads_per_core;
    return a;
}

/* occ's residency must equal the rule; returns false (after recording why) on
 * a mismatch so the caller can report the configuration. */
static bool matches(const occ_residency *r, const calc_answer *a, uint32_t T_mode,
                    uint32_t threads_per_core, char *why, size_t size)
{
    if (a->resident == 0) { /* a work-group needs more contexts than the mode has */
        if (r->launchable || r->reason != OCC_REASON_CONTEXTS) {
            snprintf(why, size, "expected cannot launch (contexts), got launchable=%d reason=%d",
                     r->launchable, r->reason);
            return false;
        }
        return true;
    }
    uint32_t cap = r->limits[OCC_RES_WG_SLOTS] < r->limits[OCC_RES_BARRIERS]
                       ? r->limits[OCC_RES_WG_SLOTS]
                       : r->limits[OCC_RES_BARRIERS];
    if (!r->launchable || r->resident_wgs != a->resident || r->limits[OCC_RES_THREADS] != a->by_threads ||
        r->limits[OCC_RES_SLM] != a->by_slm || cap != a->cap || r->contexts_per_core != T_mode) {
        snprintf(why, size,
                 "occ: launchable=%d resident=%u threads=%u slm=%u cap=%u T=%u; calculator: "
                 "resident=%u threads=%u slm=%u cap=%u T=%u",
                 r->launchable, r->resident_wgs, r->limits[OCC_RES_THREADS], r->limits[OCC_RES_SLM],
                 cap, r->contexts_per_core, a->resident, a->by_threads, a->by_slm, a->cap, T_mode);
        return false;
    }
    /* Same occupancy in the mode with the most threads; in the others occ
     * divides by the mode's own contexts (the deliberate difference). */
    double expect = a->occupancy * threads_per_core / T_mode;
    if (fabs(r->occupancy - expect) > 1e-12) {
        snprintf(why, size, "occupancy %.15g, calculator %.15g (scaled to the mode: %.15g)",
                 r->occupancy, a->occupancy, expect);
        return false;
    }
    return true;
}

/* SLM sizes to try: 0, every 512 bytes, and each step -1/+0/+1, up to the
 * per-work-group maximum. */
static size_t slm_values(const calc_family *f, uint64_t *out, size_t cap)
{
    size_t n = 0;
    uint64_t max = f->slm_max_wg_kb * KB;
    for (uint64_t L = 0; L <= max && n < cap; L += 512)
        out[n++] = L;
    for (int i = 0; f->occ_steps[i]; i++)
        for (int d = -1; d <= 1; d++) {
            uint64_t L = f->occ_steps[i] * KB + (uint64_t)(int64_t)d;
            if (L <= max && L % 512 && n < cap)
                out[n++] = L;
        }
    if (n < cap)
        out[n++] = 1;
    return n;
}

/* Exhaustive comparison for one family, every profile of it: work-group sizes
 * that are multiples of each sub-group size, SLM sizes, barrier or not, every
 * GRF mode. */
START_TEST(calculator_rule_exhaustive)
{
    const calc_family *f = &families[_i];
    static uint64_t slm[1024];
    size_t n_slm = slm_values(f, slm, sizeof slm / sizeof slm[0]);
    for (int p = 0; p < 5 && f->profiles[p]; p++) {
        occ_device *dev = tc_builtin(f->profiles[p]);
        const occ_device_desc *d = occ_device_describe(dev);
        uint32_t max_wgs = f->max_wgs ? f->max_wgs : d->max_work_groups_per_core;
        uint32_t barriers = f->barriers ? f->barriers : d->barriers_per_core;
        ck_assert_uint_eq(d->max_work_group_size, f->max_wg);
        ck_assert_uint_eq(d->n_sub_group_sizes, f->n_sg);
        unsigned long evaluated = 0, step_differences = 0;
        char why[512];
        for (uint32_t m = 0; m < f->n_modes; m++) {
            uint32_t T_mode = f->xve_per_core * f->modes[m].threads_per_xve;
            for (uint32_t s = 0; s < f->n_sg; s++) {
                uint32_t S = f->sg[s];
                for (uint32_t W = S; W <= f->max_wg; W += S)
                    for (size_t i = 0; i < n_slm; i++)
                        for (int b = 0; b < 2; b++) {
                            occ_kernel k = tc_kernel(W, S);
                            k.slm_bytes = slm[i];
                            k.barrier = b;
                            k.grf = f->modes[m].registers;
                            occ_residency r = tc_residency(dev, &k);
                            const uint64_t *steps = f->calc_steps;
                            if (slm[i] && step_up(f->calc_steps, slm[i]) != step_up(f->occ_steps, slm[i])) {
                                /* 24 KB / 48 KB steps: see xe_hpg_slm_steps below */
                                steps = f->occ_steps;
                                step_differences++;
                            }
                            calc_answer a = calc_rule(f, max_wgs, barriers, steps, m, W, S, slm[i], b);
                            if (!matches(&r, &a, T_mode, f->threads_per_core, why, sizeof why))
                                ck_abort_msg("%s (%s): W=%u S=%u SLM=%llu barrier=%d GRF=%u: %s",
                                          f->profiles[p], f->family, W, S, (unsigned long long)slm[i],
                                          b, f->modes[m].registers, why);
                            evaluated++;
                        }
            }
        }
        ck_assert_uint_gt(evaluated, 10000);
        /* the step difference exists exactly on the Xe-HPG/Xe-LPG profiles */
        if (f->calc_steps != f->occ_steps)
            ck_assert_uint_gt(step_differences, 0);
        else
            ck_assert_uint_eq(step_differences, 0);
        occ_device_free(dev);
    }
}
END_TEST

/* Every work-group size, multiple of S or not, against the current calculator
 * (ceil), 128-GRF mode, no SLM: still equal. */
START_TEST(calculator_rule_any_work_group_size)
{
    const calc_family *f = &families[_i];
    for (int p = 0; p < 5 && f->profiles[p]; p++) {
        occ_device *dev = tc_builtin(f->profiles[p]);
        const occ_device_desc *d = occ_device_describe(dev);
        uint32_t max_wgs = f->max_wgs ? f->max_wgs : d->max_work_groups_per_core;
        uint32_t barriers = f->barriers ? f->barriers : d->barriers_per_core;
        uint32_t m = 0;
        while (f->modes[m].registers != 128)
            m++;
        uint32_t T_mode = f->xve_per_core * f->modes[m].threads_per_xve;
        char why[512];
        for (uint32_t s = 0; s < f->n_sg; s++)
            for (uint32_t W = 1; W <= f->max_wg; W++)
                for (int b = 0; b < 2; b++) {
                    occ_kernel k = tc_kernel(W, f->sg[s]);
                    k.barrier = b;
                    occ_residency r = tc_residency(dev, &k);
                    calc_answer a = calc_rule(f, max_wgs, barriers, f->calc_steps, m, W, f->sg[s], 0, b);
                    if (!matches(&r, &a, T_mode, f->threads_per_core, why, sizeof why))
                        ck_abort_msg("%s: W=%u S=%u barrier=%d: %s", f->profiles[p], W, f->sg[s], b, why);
                }
        occ_device_free(dev);
    }
}
END_TEST

/* ---- the deliberate differences, one explicit case each ------------------ */

/* W % S != 0.  tgl, W = 36, S = 8: occ counts ceil(36/8) = 5 contexts, so
 * floor(112/5) = 22 work-groups and 110/112 = 98.2 %.  The calculator before
 * mid-2024 used 36/8 = 4.5 contexts: floor(112/4.5) = 24 work-groups and
 * 24 x 4.5 / 112 = 96.4 %, more work-groups than the Xe-core can hold. */
START_TEST(partial_sub_group_ceil)
{
    occ_device *dev = tc_builtin("tgl");
    occ_kernel k = tc_kernel(36, 8);
    occ_residency r = tc_residency(dev, &k);
    ck_assert_uint_eq(r.contexts_per_wg, 5);
    ck_assert_uint_eq(r.resident_wgs, 22);
    ck_assert_uint_eq(r.contexts_used, 110);
    ck_assert_double_eq_tol(r.occupancy, 110.0 / 112, 1e-12);
    double old_t = 36.0 / 8;
    uint32_t old_resident = (uint32_t)floor(112 / old_t);
    ck_assert_uint_eq(old_resident, 24);
    ck_assert_uint_ne(r.resident_wgs, old_resident);
    ck_assert_double_eq_tol(old_t * old_resident / 112, 108.0 / 112, 1e-12);
    /* 7 work-items at sub-group 16 take one whole context (docs/model.md) */
    occ_device *lnl = tc_builtin("lnl");
    k = tc_kernel(7, 16);
    r = tc_residency(lnl, &k);
    ck_assert_uint_eq(r.contexts_per_wg, 1);
    ck_assert_uint_eq(r.resident_wgs, 64); /* 64 contexts, 64 WG slots */
    occ_device_free(lnl);
    occ_device_free(dev);
}
END_TEST

/* Large GRF.  arc-a770, W = 512, S = 16, 256 registers: 32 contexts per
 * work-group, 16 XVE x 4 = 64 contexts in that mode, 2 work-groups.  occ: all
 * 64 contexts busy, 100 %.  Calculator: 64 / 128 = 50 % (its denominator is
 * the 128-GRF thread count, so large GRF never exceeds 50 %). */
START_TEST(large_grf_denominator)
{
    occ_device *dev = tc_builtin("arc-a770");
    occ_kernel k = tc_kernel(512, 16);
    k.grf = 256;
    occ_residency r = tc_residency(dev, &k);
    ck_assert_uint_eq(r.grf, 256);
    ck_assert_uint_eq(r.contexts_per_wg, 32);
    ck_assert_uint_eq(r.contexts_per_core, 64);
    ck_assert_uint_eq(r.resident_wgs, 2);
    ck_assert_double_eq_tol(r.occupancy, 1.0, 1e-12);
    const calc_family *f = &families[3];
    ck_assert_str_eq(f->family, "Xe-HPG");
    calc_answer a = calc_rule(f, 128, 128, f->calc_steps, 1, 512, 16, 0, false);
    ck_assert_uint_eq(a.resident, 2);
    ck_assert_double_eq_tol(a.occupancy, 0.5, 1e-12);
    /* the same kernel in 128-GRF mode: 4 work-groups, both say 100 % */
    k.grf = 0;
    r = tc_residency(dev, &k);
    ck_assert_uint_eq(r.resident_wgs, 4);
    ck_assert_double_eq_tol(r.occupancy, 1.0, 1e-12);
    occ_device_free(dev);
}
END_TEST

/* Xe3's graded table.  ptl, W = 1024, S = 16, default 128-GRF mode: 64
 * contexts per work-group, 8 XVE x 8 = 64 contexts, 1 work-group, occ 100 %;
 * the calculator divides by 80 (10 threads per XVE at <= 96 GRF): 80 %.  At
 * 96 GRF both say 64 / 80 = 80 %. */
START_TEST(xe3_graded_denominator)
{
    occ_device *dev = tc_builtin("ptl");
    occ_kernel k = tc_kernel(1024, 16);
    occ_residency r = tc_residency(dev, &k);
    ck_assert_uint_eq(r.grf, 128);
    ck_assert_uint_eq(r.contexts_per_core, 64);
    ck_assert_uint_eq(r.resident_wgs, 1);
    ck_assert_double_eq_tol(r.occupancy, 1.0, 1e-12);
    k.grf = 96;
    r = tc_residency(dev, &k);
    ck_assert_uint_eq(r.contexts_per_core, 80);
    ck_assert_double_eq_tol(r.occupancy, 64.0 / 80, 1e-12);
    /* 160 GRF: 6 x 8 = 48 contexts cannot hold 64 */
    k.grf = 160;
    r = tc_residency(dev, &k);
    ck_assert(!r.launchable);
    ck_assert_int_eq(r.reason, OCC_REASON_CONTEXTS);
    occ_device_free(dev);
}
END_TEST

/* Xe-HPG SLM steps.  arc-a770, W = 256, S = 16 (16 contexts, 8 by threads),
 * 20 KB of SLM.  The calculator rounds up to 32 KB: floor(128/32) = 4
 * work-groups.  The profile follows the driver's 24 KB step: floor(128/24) = 5. */
START_TEST(xe_hpg_slm_steps)
{
    occ_device *dev = tc_builtin("arc-a770");
    occ_kernel k = tc_kernel(256, 16);
    k.slm_bytes = 20 * KB;
    occ_residency r = tc_residency(dev, &k);
    ck_assert_uint_eq(r.slm_per_wg_alloc, 24 * KB);
    ck_assert_uint_eq(r.limits[OCC_RES_SLM], 5);
    ck_assert_uint_eq(r.resident_wgs, 5);
    const calc_family *f = &families[3];
    calc_answer a = calc_rule(f, 128, 128, f->calc_steps, 0, 256, 16, 20 * KB, false);
    ck_assert_uint_eq(a.by_slm, 4);
    ck_assert_uint_eq(a.resident, 4);
    occ_device_free(dev);
}
END_TEST

/* The calculator's whole-GPU figure: occ * full / (full + 1) for a partial
 * last wave.  VectorAdd2<44> on tgl: 1 full wave of 42, then 2 work-groups:
 * calculator 100 % x 1/2 = 50 %; occ's time-weighted average is
 * (100 % + 32/672) / 2 = 52.4 %. */
START_TEST(calculator_gpu_formula)
{
    occ_device *dev = tc_builtin("tgl");
    occ_kernel k = tc_kernel(512, 32);
    occ_residency r = tc_residency(dev, &k);
    occ_gpu g;
    ck_assert_int_eq(occ_gpu_compute(dev, &r, 44, &g), OCC_OK);
    ck_assert_double_eq_tol(g.intel_calculator_occupancy, 0.5, 1e-12);
    ck_assert_double_eq_tol(g.average_occupancy, (1.0 + 32.0 / 672) / 2, 1e-12);
    /* 320 x 8, 30 work-groups: capacity 12, 2 full waves (71.4 %) and 6 left:
     * calculator 71.4 % x 2/3 */
    k = tc_kernel(320, 8);
    r = tc_residency(dev, &k);
    ck_assert_int_eq(occ_gpu_compute(dev, &r, 30, &g), OCC_OK);
    ck_assert_uint_eq(g.full_waves, 2);
    ck_assert_double_eq_tol(g.intel_calculator_occupancy, 80.0 / 112 * 2 / 3, 1e-12);
    ck_assert_double_eq_tol(g.average_occupancy, (2 * 80.0 / 112 + 6 * 40.0 / 672) / 3, 1e-12);
    /* the seed's 8 work-groups, less than one wave (12): the calculator gives
     * the wave's share of a full one, 8/12 x 71.4 % = 320/672, as occ does */
    ck_assert_int_eq(occ_gpu_compute(dev, &r, 8, &g), OCC_OK);
    ck_assert_double_eq_tol(g.intel_calculator_occupancy, 320.0 / 672, 1e-12);
    ck_assert_double_eq_tol(g.average_occupancy, 320.0 / 672, 1e-12);
    occ_device_free(dev);
}
END_TEST

/* The library answers which inputs a device takes and the vendor's words:
 * registers only with a register file, GRF modes only without, a carveout
 * only where carveouts are listed; the vendor word is the one its profiles
 * are written with. */
START_TEST(vendor_words_and_inputs)
{
    for (size_t i = 0; i < occ_builtin_count(); i++) {
        occ_device *dev = NULL;
        ck_assert_int_eq(occ_device_builtin(occ_builtin_name(i), &dev, NULL), OCC_OK);
        const occ_device_desc *d = occ_device_describe(dev);
        bool rf = d->vendor != OCC_VENDOR_INTEL; /* NVIDIA and AMD: a register file */
        ck_assert(occ_device_takes(d, OCC_INPUT_REGISTERS) == rf);
        ck_assert(occ_device_takes(d, OCC_INPUT_GRF) == !rf);
        ck_assert(occ_device_takes(d, OCC_INPUT_CARVEOUT) == (d->n_carveouts > 0));
        ck_assert(occ_device_takes(d, OCC_INPUT_SLM) && occ_device_takes(d, OCC_INPUT_WG_SIZE));
        /* a GRF request: lowered only to a device's one and only GRF mode */
        bool one_mode = !rf && d->n_grf_modes == 1;
        uint32_t top = !rf ? d->grf_modes[d->n_grf_modes - 1].registers : 0;
        ck_assert_uint_eq(occ_grf_as_driver(d, 256), one_mode && top < 256 ? top : 256);
        ck_assert_uint_eq(occ_grf_as_driver(d, 64), 64);
        ck_assert_uint_eq(occ_grf_as_driver(d, 0), 0);
        const occ_vendor_words *w = occ_vendor_words_of(d->vendor);
        ck_assert_ptr_nonnull(w);
        ck_assert_int_eq(w->vendor, d->vendor);
        ck_assert_str_eq(w->register_input, rf ? "regs" : "grf");
        char line[64];
        snprintf(line, sizeof line, "\nvendor: %s\n", w->word);
        const char *yaml = occ_builtin_yaml(occ_builtin_name(i));
        ck_assert_msg(yaml && strstr(yaml, line), "%s: no '%s'", occ_builtin_name(i), w->word);
        occ_device_free(dev);
    }
    /* every vendor says everything a caller may ask */
    for (occ_vendor v = OCC_VENDOR_INTEL; v <= OCC_VENDOR_AMD; v++) {
        const occ_vendor_words *w = occ_vendor_words_of(v);
        ck_assert_ptr_nonnull(w);
        ck_assert(w->word && w->name && w->register_input && w->register_input_text &&
                  w->dispatch_evidence && w->kernel_local_memory && w->kernel_private_memory &&
                  w->spill_note);
        ck_assert(w->register_file == (v != OCC_VENDOR_INTEL));
        ck_assert(!strstr(w->dispatch_evidence, "shared/"));
    }
    ck_assert_ptr_null(occ_vendor_words_of((occ_vendor)0));
    ck_assert(!occ_device_takes(NULL, OCC_INPUT_SLM));
    ck_assert_uint_eq(occ_grf_as_driver(NULL, 256), 256);
    /* by hand: tgl has the 128-register mode only, arc-a770 also 256 */
    occ_device *tgl = NULL, *acm = NULL;
    ck_assert_int_eq(occ_device_builtin("tgl", &tgl, NULL), OCC_OK);
    ck_assert_int_eq(occ_device_builtin("arc-a770", &acm, NULL), OCC_OK);
    ck_assert_uint_eq(occ_grf_as_driver(occ_device_describe(tgl), 256), 128);
    ck_assert_uint_eq(occ_grf_as_driver(occ_device_describe(acm), 256), 256);
    occ_device_free(tgl);
    occ_device_free(acm);
}
END_TEST

static Suite *model_suite(void)
{
    Suite *s = suite_create("intel-calculator");
    TCase *tc = tcase_create("rule");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, calculator_rule_exhaustive, 0, (int)N_FAMILIES);
    tcase_add_loop_test(tc, calculator_rule_any_work_group_size, 0, (int)N_FAMILIES);
    suite_add_tcase(s, tc);
    tc = tcase_create("differences");
    tcase_add_test(tc, partial_sub_group_ceil);
    tcase_add_test(tc, large_grf_denominator);
    tcase_add_test(tc, xe3_graded_denominator);
    tcase_add_test(tc, xe_hpg_slm_steps);
    tcase_add_test(tc, calculator_gpu_formula);
    tcase_add_test(tc, vendor_words_and_inputs);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tc_run(model_suite()); }
