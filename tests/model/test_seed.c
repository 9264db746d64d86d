/* The seed chapter "Thread Mapping and GPU Occupancy" (oneAPI GPU Optimization Guide)
 * on its device, Tiger Lake (built-in "tgl": 6 Xe-cores x 16 XVE x 7 = 672
 * thread contexts, 112 per Xe-core, max work-group 512):
 *  - the R table (work-group 128R, sub-group 8, with a barrier);
 *  - every row of the VectorAdd2 table and VectorAdd1;
 *  - the VectorAdd3/4 example (work-group 320, sub-group 8, 8 work-groups). */
#include <math.h>
#include <stdlib.h>

#include "test_common.h"

/* ---- R table --------------------------------------------------------------
 * Seed: "Assuming the sub-group size is eight ... R=1 ... 16 threads out of 112
 * ... 7 work-groups to the same Xe-core to reach full occupancy"; "R=4 ... only
 * 57% occupied (4/7)"; "R>4 ... the kernel will fail to launch". */
static const struct {
    uint32_t R, contexts, resident;
    double occupancy; /* exact fraction */
    double seed_pct;  /* as the guide prints it (where it does) */
} r_table[] = {
    {1, 16, 7, 112.0 / 112, 100.0},
    {2, 32, 3, 96.0 / 112, 85.7},
    {3, 48, 2, 96.0 / 112, 85.7},
    {4, 64, 1, 64.0 / 112, 57.1},
};

static void check_r_row(int i, bool barrier)
{
    occ_device *dev = tc_builtin("tgl");
    /* local range (1, R, 128) as the seed's nd_range writes it */
    occ_kernel k = tc_kernel(1, 8);
    k.wg[1] = r_table[i].R;
    k.wg[2] = 128;
    k.barrier = barrier;
    occ_residency r = tc_residency(dev, &k);
    ck_assert(r.launchable);
    ck_assert_uint_eq(r.wg_size, 128 * r_table[i].R);
    ck_assert_uint_eq(r.contexts_per_wg, r_table[i].contexts);
    ck_assert_uint_eq(r.contexts_per_core, 112);
    ck_assert_uint_eq(r.resident_wgs, r_table[i].resident);
    ck_assert_uint_eq(r.limits[OCC_RES_THREADS], r_table[i].resident);
    /* thread contexts bind; the barrier cap (64 per Xe-core) does not */
    ck_assert_uint_eq(r.limited_by, 1u << OCC_RES_THREADS);
    ck_assert_uint_eq(r.limits[OCC_RES_BARRIERS], barrier ? 64u : OCC_NO_LIMIT);
    ck_assert_uint_eq(r.contexts_used, r_table[i].contexts * r_table[i].resident);
    ck_assert_double_eq_tol(r.occupancy, r_table[i].occupancy, 1e-12);
    ck_assert_double_eq_tol(100.0 * r.occupancy, r_table[i].seed_pct, 0.05);
    occ_device_free(dev);
}

START_TEST(r_table_rows)
{
    check_r_row(_i, true);
    check_r_row(_i, false);
}
END_TEST

START_TEST(r5_cannot_launch)
{
    occ_device *dev = tc_builtin("tgl");
    for (uint32_t R = 5; R <= 8; R++) {
        occ_kernel k = tc_kernel(1, 8);
        k.wg[1] = R;
        k.wg[2] = 128;
        k.barrier = true;
        occ_residency r = tc_residency(dev, &k);
        ck_assert_msg(!r.launchable, "R = %u (work-group %u) must not launch", R, 128 * R);
        ck_assert_int_eq(r.reason, OCC_REASON_WG_TOO_LARGE);
        ck_assert_uint_eq(r.wg_size, 128 * R);
        ck_assert_uint_eq(r.resident_wgs, 0);
        ck_assert_double_eq(r.occupancy, 0.0);
    }
    occ_device_free(dev);
}
END_TEST

/* ---- VectorAdd2 -------------------------------------------------------------
 * Work-group 512, sub-group 32: 16 thread contexts per work-group, 7 per
 * Xe-core (112 / 16), so a wave holds 6 x 7 = 42 work-groups.  Every row of the
 * seed's table: groups, threads, occupancy as printed. */
static const struct {
    uint64_t groups, threads;
    double seed_first_pct, seed_then_pct; /* then < 0: a single wave */
} va2[] = {
    {1, 16, 2.4, -1},    {2, 32, 4.8, -1},    {3, 48, 7.1, -1},    {4, 64, 9.5, -1},
    {5, 80, 11.9, -1},   {6, 96, 14.3, -1},   {7, 112, 16.7, -1},  {8, 128, 19.0, -1},
    {12, 192, 28.6, -1}, {16, 256, 38.1, -1}, {20, 320, 47.7, -1}, {24, 384, 57.1, -1},
    {28, 448, 66.7, -1}, {32, 512, 76.2, -1}, {36, 576, 85.7, -1}, {40, 640, 95.2, -1},
    {42, 672, 100.0, -1},
    /* the guide prints 4.7 % for 2 of 42 work-groups (32/672 = 4.76 %); the issue says 4.8 % */
    {44, 704, 100.0, 4.7},
    {48, 768, 100.0, 14.3},
};

START_TEST(vectoradd2_rows)
{
    occ_device *dev = tc_builtin("tgl");
    occ_kernel k = tc_kernel(512, 32);
    occ_residency r = tc_residency(dev, &k);
    ck_assert(r.launchable);
    ck_assert_uint_eq(r.contexts_per_wg, 16);
    ck_assert_uint_eq(r.resident_wgs, 7);
    ck_assert_double_eq_tol(r.occupancy, 1.0, 1e-12);

    uint64_t g = va2[_i].groups;
    occ_gpu gpu;
    ck_assert_int_eq(occ_gpu_compute(dev, &r, g, &gpu), OCC_OK);
    ck_assert_uint_eq(gpu.work_groups, g);
    ck_assert_uint_eq(gpu.contexts_needed, va2[_i].threads);
    ck_assert_uint_eq(gpu.contexts_total, 672);
    ck_assert_uint_eq(gpu.wave_capacity, 42);
    if (va2[_i].seed_then_pct < 0) {
        /* one wave: 16 g / 672 */
        ck_assert_uint_eq(gpu.waves, 1);
        ck_assert_uint_eq(gpu.full_waves, g == 42 ? 1 : 0);
        ck_assert_uint_eq(gpu.last_wave_work_groups, g);
        ck_assert_double_eq_tol(gpu.last_wave_occupancy, 16.0 * g / 672, 1e-12);
        ck_assert_double_eq_tol(gpu.average_occupancy, 16.0 * g / 672, 1e-12);
        /* the guide rounds 320/672 = 47.62 % to 47.7 %: allow its rounding */
        ck_assert_double_eq_tol(100.0 * gpu.last_wave_occupancy, va2[_i].seed_first_pct, 0.1);
    } else {
        /* 100 % then (g - 42) x 16 / 672 */
        ck_assert_uint_eq(gpu.waves, 2);
        ck_assert_uint_eq(gpu.full_waves, 1);
        ck_assert_double_eq_tol(gpu.full_wave_occupancy, 1.0, 1e-12);
        ck_assert_uint_eq(gpu.last_wave_work_groups, g - 42);
        ck_assert_double_eq_tol(gpu.last_wave_occupancy, 16.0 * (g - 42) / 672, 1e-12);
        ck_assert_double_eq_tol(100.0 * gpu.last_wave_occupancy, va2[_i].seed_then_pct, 0.1);
        ck_assert_double_eq_tol(gpu.average_occupancy, (1.0 + 16.0 * (g - 42) / 672) / 2, 1e-12);
        /* Intel's calculator: one full wave of two, the partial one weighs 0 */
        ck_assert_double_eq_tol(gpu.intel_calculator_occupancy, 0.5, 1e-12);
    }
    occ_device_free(dev);
}
END_TEST

/* The issue's rounding of the two-wave rows: 44 groups "100 % then 4.8 %",
 * 48 groups "100 % then 14.3 %". */
START_TEST(vectoradd2_two_waves_issue_rounding)
{
    occ_device *dev = tc_builtin("tgl");
    occ_kernel k = tc_kernel(512, 32);
    occ_residency r = tc_residency(dev, &k);
    occ_gpu gpu;
    ck_assert_int_eq(occ_gpu_compute(dev, &r, 44, &gpu), OCC_OK);
    ck_assert_double_eq_tol(round(1000.0 * gpu.last_wave_occupancy) / 10.0, 4.8, 1e-9);
    ck_assert_int_eq(occ_gpu_compute(dev, &r, 48, &gpu), OCC_OK);
    ck_assert_double_eq_tol(round(1000.0 * gpu.last_wave_occupancy) / 10.0, 14.3, 1e-9);
    occ_device_free(dev);
}
END_TEST

/* VectorAdd1: the compiler picks work-group 512, SIMD 32; the table lists
 * 53760 work-groups, 27.5M work-items and 860K threads at 100 %.
 * 53760 x 512 = 27,525,120 = 3 x 5 x 7 x 2^18.  (The listing's array_size,
 * 3 x 5 x 7 x 2^17 = 13,762,560, would give 26,880 work-groups; the table's
 * figures are used here, the listing's size is checked too.) */
START_TEST(vectoradd1)
{
    occ_device *dev = tc_builtin("tgl");
    occ_kernel k = tc_kernel(512, 32);
    occ_residency r = tc_residency(dev, &k);
    uint64_t global[3] = {3ull * 5 * 7 << 18, 1, 1}, groups = 0;
    occ_diag diag;
    ck_assert_int_eq(occ_work_groups_for_global(&k, global, &groups, &diag), OCC_OK);
    ck_assert_uint_eq(groups, 53760);
    occ_gpu gpu;
    ck_assert_int_eq(occ_gpu_compute(dev, &r, groups, &gpu), OCC_OK);
    ck_assert_uint_eq(gpu.contexts_needed, 860160); /* "860K" threads */
    ck_assert_uint_eq(gpu.waves, 1280);             /* 53760 / 42 */
    ck_assert_uint_eq(gpu.full_waves, 1280);
    ck_assert_double_eq_tol(gpu.average_occupancy, 1.0, 1e-12);
    ck_assert_double_eq_tol(gpu.intel_calculator_occupancy, 1.0, 1e-12);

    global[0] = 3ull * 5 * 7 << 17;
    ck_assert_int_eq(occ_work_groups_for_global(&k, global, &groups, &diag), OCC_OK);
    ck_assert_uint_eq(groups, 26880);
    ck_assert_int_eq(occ_gpu_compute(dev, &r, groups, &gpu), OCC_OK);
    ck_assert_uint_eq(gpu.waves, 640);
    ck_assert_double_eq_tol(gpu.average_occupancy, 1.0, 1e-12);
    occ_device_free(dev);
}
END_TEST

/* VectorAdd3<8, 320, 8>: "40 threads per work-group"; per the per-core rule
 * 2 work-groups fit an Xe-core (80 of 112, 71.4 %); 8 work-groups use 320 of
 * the 672 contexts (47.6 %), one wave of capacity 12. */
START_TEST(seed_example_320_8)
{
    occ_device *dev = tc_builtin("tgl");
    occ_kernel k = tc_kernel(320, 8);
    occ_residency r = tc_residency(dev, &k);
    ck_assert(r.launchable);
    ck_assert_uint_eq(r.contexts_per_wg, 40);
    ck_assert_uint_eq(r.resident_wgs, 2);
    ck_assert_uint_eq(r.limits[OCC_RES_THREADS], 2);
    ck_assert_uint_eq(r.limited_by, 1u << OCC_RES_THREADS);
    ck_assert_uint_eq(r.contexts_used, 80);
    ck_assert_uint_eq(r.contexts_idle, 32);
    ck_assert_double_eq_tol(r.occupancy, 80.0 / 112, 1e-12);
    ck_assert_double_eq_tol(100.0 * r.occupancy, 71.4, 0.05);

    occ_gpu gpu;
    ck_assert_int_eq(occ_gpu_compute(dev, &r, 8, &gpu), OCC_OK);
    ck_assert_uint_eq(gpu.contexts_needed, 320);
    ck_assert_uint_eq(gpu.contexts_total, 672);
    ck_assert_uint_eq(gpu.wave_capacity, 12);
    ck_assert_uint_eq(gpu.waves, 1);
    ck_assert_double_eq_tol(gpu.average_occupancy, 320.0 / 672, 1e-12);
    ck_assert_double_eq_tol(100.0 * gpu.average_occupancy, 47.6, 0.05);

    /* VectorAdd4 has a barrier: the 64-barrier cap does not change it */
    k.barrier = true;
    r = tc_residency(dev, &k);
    ck_assert_uint_eq(r.resident_wgs, 2);
    occ_device_free(dev);
}
END_TEST

/* VectorAdd3<24, 224, 8>: "a work-group size that is a multiple of the number
 * of threads in a Xe-core": 28 contexts, 4 per Xe-core, 100 %; 24 work-groups
 * fill exactly one wave of 6 x 4. */
START_TEST(seed_example_224_8)
{
    occ_device *dev = tc_builtin("tgl");
    occ_kernel k = tc_kernel(224, 8);
    occ_residency r = tc_residency(dev, &k);
    ck_assert_uint_eq(r.contexts_per_wg, 28);
    ck_assert_uint_eq(r.resident_wgs, 4);
    ck_assert_double_eq_tol(r.occupancy, 1.0, 1e-12);
    occ_gpu gpu;
    ck_assert_int_eq(occ_gpu_compute(dev, &r, 24, &gpu), OCC_OK);
    ck_assert_uint_eq(gpu.waves, 1);
    ck_assert_uint_eq(gpu.full_waves, 1);
    ck_assert_double_eq_tol(gpu.average_occupancy, 1.0, 1e-12);
    occ_device_free(dev);
}
END_TEST

/* The table of thread counts: "the maximum number of threads in a work-group
 * is 64 (512 / 8)"; the maximum work-group at each sub-group size launches. */
START_TEST(max_work_group_per_sub_group)
{
    occ_device *dev = tc_builtin("tgl");
    static const uint32_t sg[] = {8, 16, 32}, contexts[] = {64, 32, 16}, resident[] = {1, 3, 7};
    for (int i = 0; i < 3; i++) {
        occ_kernel k = tc_kernel(512, sg[i]);
        occ_residency r = tc_residency(dev, &k);
        ck_assert(r.launchable);
        ck_assert_uint_eq(r.contexts_per_wg, contexts[i]);
        ck_assert_uint_eq(r.resident_wgs, resident[i]);
    }
    occ_device_free(dev);
}
END_TEST

static Suite *seed_suite(void)
{
    Suite *s = suite_create("seed");
    TCase *tc = tcase_create("tables");
    tcase_add_loop_test(tc, r_table_rows, 0, (int)(sizeof r_table / sizeof r_table[0]));
    tcase_add_test(tc, r5_cannot_launch);
    tcase_add_loop_test(tc, vectoradd2_rows, 0, (int)(sizeof va2 / sizeof va2[0]));
    tcase_add_test(tc, vectoradd2_two_waves_issue_rounding);
    tcase_add_test(tc, vectoradd1);
    tcase_add_test(tc, seed_example_320_8);
    tcase_add_test(tc, seed_example_224_8);
    tcase_add_test(tc, max_work_group_per_sub_group);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tc_run(seed_suite()); }
