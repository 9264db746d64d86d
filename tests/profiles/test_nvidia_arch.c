/* The per-capability table (arch/nvidia.c) and the built-in NVIDIA profiles:
 * every profile repeats its capability's row (warps, blocks, shared memory,
 * reserve, granule, carveouts, registers, barriers), so a number changed in
 * one place and not the other fails here; and the table's own shape. */
#include <stdio.h>
#include <string.h>

#include "arch/arch.h"
#include "test_common.h"

/* The profile's compute capability, from its target "sm_90". */
static bool profile_cc(const occ_device_desc *d, int *major, int *minor)
{
    int v;
    char rest;
    if (sscanf(d->target, "sm_%d%c", &v, &rest) != 1)
        return false;
    *major = v / 10;
    *minor = v % 10;
    return true;
}

START_TEST(profiles_follow_their_capability)
{
    size_t checked = 0;
    for (size_t i = 0; i < occ_builtin_count(); i++) {
        occ_device *dev = tc_builtin(occ_builtin_name(i));
        const occ_device_desc *d = occ_device_describe(dev);
        if (d->vendor != OCC_VENDOR_NVIDIA) {
            occ_device_free(dev);
            continue;
        }
        int major, minor;
        ck_assert_msg(profile_cc(d, &major, &minor), "%s: its target '%s' is not sm_NN", d->name, d->target);
        occ_nvidia_arch a;
        occ__nvidia_arch(major, minor, &a);
        ck_assert_msg(a.known, "%s: sm_%d%d has no row in arch/nvidia.c", d->name, major, minor);
        ck_assert_msg(strncmp(d->architecture, a.family, strlen(a.family)) == 0, "%s: family %s",
                      d->name, a.family);
        char words[40]; /* the architecture in words names the same target */
        snprintf(words, sizeof words, "(%s)", d->target);
        ck_assert_msg(strstr(d->architecture, words) != NULL, "%s: %s", d->name, d->architecture);
        ck_assert_uint_eq(d->max_work_groups_per_core, a.max_blocks_per_sm);
        ck_assert_uint_eq(d->engines_per_core, a.partitions);
        ck_assert_uint_eq(d->n_grf_modes, 1);
        ck_assert_uint_eq(d->engines_per_core * d->grf_modes[0].threads_per_engine, a.max_warps_per_sm);
        ck_assert_uint_eq(d->grf_modes[0].registers, a.max_regs_per_thread);
        ck_assert_uint_eq(d->max_work_group_size, a.max_threads_per_block);
        ck_assert_uint_eq(d->regs_per_core, a.regs_per_sm);
        ck_assert_uint_eq(d->reg_max_per_work_group, a.max_regs_per_block);
        ck_assert_uint_eq(d->reg_max_per_thread, a.max_regs_per_thread);
        ck_assert_uint_eq(d->reg_alloc_unit, a.reg_alloc_unit);
        ck_assert_uint_eq(d->reg_warp_granularity, a.reg_warp_granularity);
        ck_assert_uint_eq(d->reg_partitions, a.partitions);
        ck_assert_uint_eq(d->slm_per_core, a.smem_per_sm);
        ck_assert_uint_eq(d->slm_max_per_work_group, a.smem_per_block);
        ck_assert_uint_eq(d->slm_reserved_per_work_group, a.smem_reserved_per_block);
        ck_assert_uint_eq(d->slm_granule, a.slm_granule);
        ck_assert_uint_eq(d->n_carveouts, a.n_carveouts);
        for (size_t c = 0; c < a.n_carveouts; c++)
            ck_assert_uint_eq(d->carveouts[c], a.carveouts_kb[c] * 1024);
        ck_assert_uint_eq(d->barriers_per_core,
                          a.barriers_twice_slots ? 2 * a.max_blocks_per_sm : OCC_NO_LIMIT);
        checked++;
        occ_device_free(dev);
    }
    ck_assert_uint_ge(checked, 16);
}
END_TEST

/* Ascending capabilities; carveouts ascending and ending at the SM's shared
 * memory; the opt-in per block is the SM's less the reserve. */
START_TEST(table_is_consistent)
{
    int last = 0;
    ck_assert_uint_ge(occ__nvidia_arch_count(), 10);
    for (size_t i = 0; i < occ__nvidia_arch_count(); i++) {
        int major, minor;
        occ__nvidia_arch_cc(i, &major, &minor);
        ck_assert_int_gt(major * 10 + minor, last);
        last = major * 10 + minor;
        occ_nvidia_arch a;
        occ__nvidia_arch(major, minor, &a);
        ck_assert(a.known);
        ck_assert_uint_gt(a.n_carveouts, 0);
        for (size_t c = 1; c < a.n_carveouts; c++)
            ck_assert_uint_gt(a.carveouts_kb[c], a.carveouts_kb[c - 1]);
        ck_assert_uint_eq(a.carveouts_kb[a.n_carveouts - 1] * 1024, a.smem_per_sm);
        ck_assert_uint_eq(a.smem_per_block + a.smem_reserved_per_block, a.smem_per_sm);
        ck_assert_uint_eq(a.max_warps_per_sm % a.partitions, 0);
    }
}
END_TEST

/* A capability without its own row takes the nearest earlier one, and says so. */
START_TEST(unknown_capability)
{
    occ_nvidia_arch a, b;
    occ__nvidia_arch(8, 8, &a); /* between 8.7 and 8.9 */
    occ__nvidia_arch(8, 7, &b);
    ck_assert(!a.known && b.known);
    ck_assert_uint_eq(a.max_warps_per_sm, b.max_warps_per_sm);
    ck_assert_uint_eq(a.smem_per_sm, b.smem_per_sm);
    occ__nvidia_arch(13, 0, &a); /* newer than the table */
    ck_assert(!a.known);
    ck_assert_str_eq(a.family, "Blackwell");
    occ__nvidia_arch(6, 1, &a); /* older: the oldest row */
    ck_assert(!a.known);
    ck_assert_str_eq(a.family, "Volta");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("nvidia-arch");
    TCase *tc = tcase_create("arch");
    tcase_add_test(tc, profiles_follow_their_capability);
    tcase_add_test(tc, table_is_consistent);
    tcase_add_test(tc, unknown_capability);
    suite_add_tcase(s, tc);
    return tc_run(s);
}
