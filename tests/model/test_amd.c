/*
 * AMD's rule (docs/model.md "AMD"), hand-computed: VGPR granules per target
 * and wave size, the unified VGPR+AGPR file, GFX9's SGPRs, LDS per CU and
 * per WGP, CU mode, work-group slots, and waves per SIMD both ways (LLVM's
 * per-wave figure and whole work-groups).  The built-in AMD profiles repeat
 * their target's row of arch/amd.c; LLVM's remarks on the whole clang-19
 * corpus are the test kernels-amd's.
 */
#include <stdio.h>
#include <string.h>

#include "arch/arch.h"
#include "occ/occ.h"
#include "test_common.h"

static occ_device *open_builtin(const char *name)
{
    occ_device *dev = NULL;
    ck_assert_msg(occ_device_builtin(name, &dev, NULL) == OCC_OK, "%s", name);
    return dev;
}

typedef struct amd_case {
    const char *device;
    uint32_t wg, wave, vgprs, sgprs, cu_mode;
    uint64_t lds;
    /* expected */
    bool launchable;
    uint32_t resident, limited_by;
    uint32_t llvm_waves;
    double resident_waves;
} amd_case;

#define BY(r) (1u << OCC_RES_##r)

/* Each case's numbers, worked out in its comment from the table of
 * docs/model.md "AMD". */
static const amd_case cases[] = {
    /* gfx900, 4 waves of 35 VGPRs: 36 after the granule of 4, 256 / 36 = 7
     * waves per SIMD, 28 per CU, 7 work-groups (wave slots: 40 / 4 = 10) */
    {"mi25", 256, 64, 35, 0, 0, 0, true, 7, BY(REGISTERS), 7, 7.0},
    /* the same with 90 SGPRs: 8 waves per SIMD by SGPRs, 16 VGPRs allow 16:
     * 4 x 8 / 4 = 8 work-groups, counted as registers */
    {"mi25", 256, 64, 16, 90, 0, 0, true, 8, BY(REGISTERS), 8, 8.0},
    /* 80 SGPRs: 10 waves per SIMD, the wave slots' 10 bind too */
    {"mi25", 256, 64, 16, 80, 0, 0, true, 10, BY(THREADS) | BY(REGISTERS), 10, 10.0},
    /* 1024 work-items (16 waves) of 128 VGPRs: 2 waves per SIMD, 8 per CU:
     * no whole work-group fits (LLVM still counts 2 waves) */
    {"mi25", 1024, 64, 128, 0, 0, 0, false, 0, 0, 2, 0.0},
    /* gfx90a, 68 VGPRs + 64 AGPRs = 132 in the unified file (as the reader
     * states them): 136 after the granule of 8, 512 / 136 = 3 waves */
    {"mi210", 256, 64, 132, 0, 0, 0, true, 3, BY(REGISTERS), 3, 3.0},
    /* single-wave work-groups take no work-group slot: 32 wave slots, 32
     * work-groups (LLVM: 32 groups x 1 wave / 4 SIMDs = 8) */
    {"mi210", 64, 64, 8, 0, 0, 0, true, 32, BY(THREADS), 8, 8.0},
    /* 24 KB of LDS, 4 waves: 64 KB / 24 KB = 2 work-groups, 8 waves on 4
     * SIMDs: 2 per SIMD */
    {"mi210", 256, 64, 8, 0, 0, 24576, true, 2, BY(SLM), 2, 2.0},
    /* gfx1100 WGP mode, wave32, 24 KB: 128 KB / 24 KB = 5 work-groups of 8
     * waves, 40 waves on 4 SIMDs: 10 per SIMD */
    {"rx-7900xtx", 256, 32, 8, 0, 0, 24576, true, 5, BY(SLM), 10, 10.0},
    /* CU mode: each CU 64 KB / 24 KB = 2, twice: 4 work-groups, 8 waves per
     * SIMD; LLVM: 2 groups x 8 waves on a CU's 2 SIMDs = 8 */
    {"rx-7900xtx", 256, 32, 8, 0, 1, 24576, true, 4, BY(SLM), 8, 8.0},
    /* 256 VGPRs in wave32: 264 after the granule of 24, 1536 / 264 = 5
     * waves per SIMD, 20 per WGP: 2 work-groups of 8 waves (4 per SIMD);
     * LLVM counts the 5 */
    {"rx-7900xtx", 256, 32, 256, 0, 0, 0, true, 2, BY(REGISTERS), 5, 4.0},
    /* wave64, 68 VGPRs: 72 after the granule of 12, 768 / 72 = 10 waves per
     * SIMD, 40 per WGP: 10 work-groups of 4 waves */
    {"rx-7900xtx", 256, 64, 68, 0, 0, 0, true, 10, BY(REGISTERS), 10, 10.0},
    /* gfx1030 wave32, 68 VGPRs: 80 after the granule of 16, 1024 / 80 = 12
     * waves per SIMD, 48 per WGP: 6 work-groups of 8 waves */
    {"rx-6900xt", 256, 32, 68, 0, 0, 0, true, 6, BY(REGISTERS), 12, 12.0},
    /* RDNA ignores SGPRs: 100 of them change nothing */
    {"rx-6900xt", 256, 32, 68, 100, 0, 0, true, 6, BY(REGISTERS), 12, 12.0},
    /* 1024 work-items of wave32 (32 waves) in WGP mode: 64 slots, 2
     * work-groups; LLVM: 2 groups x 32 waves / 4 SIMDs = 16 */
    {"rx-9070xt", 1024, 32, 4, 0, 0, 0, true, 2, BY(THREADS), 16, 16.0},
    /* in CU mode they fill one CU's 32 slots: 1 per CU, 2 per WGP */
    {"rx-9070xt", 1024, 32, 4, 0, 1, 0, true, 2, BY(THREADS), 16, 16.0},
};

START_TEST(hand_computed)
{
    const amd_case *c = &cases[_i];
    occ_device *dev = open_builtin(c->device);
    occ_kernel k;
    occ_kernel_init(&k);
    k.wg[0] = c->wg;
    k.sub_group = c->wave;
    k.regs_per_thread = c->vgprs;
    k.sgprs = c->sgprs;
    k.cu_mode = c->cu_mode;
    k.slm_bytes = c->lds;
    occ_residency r;
    ck_assert_int_eq(occ_residency_compute(dev, &k, &r), OCC_OK);
    ck_assert_msg(r.launchable == c->launchable, "case %d: launchable %d", _i, r.launchable);
    if (c->launchable) {
        ck_assert_msg(r.resident_wgs == c->resident, "case %d: %u work-groups, want %u", _i, r.resident_wgs,
                      c->resident);
        ck_assert_msg(r.limited_by == c->limited_by, "case %d: limited by %#x, want %#x", _i, r.limited_by,
                      c->limited_by);
    } else {
        ck_assert_int_eq(r.reason, OCC_REASON_REGS_PER_WG);
    }
    uint32_t waves = 0;
    double resident = -1;
    ck_assert_int_eq(occ_waves_per_simd(dev, &k, &waves, &resident), OCC_OK);
    ck_assert_msg(waves == c->llvm_waves, "case %d: LLVM's figure %u, want %u", _i, waves, c->llvm_waves);
    ck_assert_msg(resident == c->resident_waves, "case %d: resident %.2f, want %.2f", _i, resident,
                  c->resident_waves);
    occ_device_free(dev);
}
END_TEST

/* The next step in AMD's words, with waves per SIMD. */
START_TEST(next_step_in_vgprs)
{
    occ_device *dev = open_builtin("rx-7900xtx");
    occ_kernel k;
    occ_kernel_init(&k);
    k.wg[0] = 256;
    k.regs_per_thread = 256;
    occ_next_step s[4];
    ck_assert_uint_ge(occ_next_steps(dev, &k, s, 4), 1);
    char text[160];
    occ_next_step_format(dev, &s[0], text, sizeof text);
    /* 240 VGPRs: 1536 / 240 = 6 waves per SIMD, 24 per WGP, 3 work-groups */
    ck_assert_str_eq(text, "use at most 240 VGPRs: 3 work-groups per WGP, 6 waves per SIMD, 37.5 %");
    occ_device_free(dev);
}
END_TEST

/* Every AMD profile repeats its target's row; every row has a profile. */
START_TEST(profiles_repeat_the_rows)
{
    size_t amd = 0;
    for (size_t i = 0; i < occ_builtin_count(); i++) {
        occ_device *dev = open_builtin(occ_builtin_name(i));
        const occ_device_desc *d = occ_device_describe(dev);
        if (d->vendor != OCC_VENDOR_AMD) {
            occ_device_free(dev);
            continue;
        }
        amd++;
        const occ_amd_arch *a = occ__amd_arch(d->target);
        ck_assert_msg(a != NULL, "%s: no row for %s", d->name, d->target);
        uint32_t cus = a->has_wgp ? 2 : 1;
        ck_assert_str_eq(d->core_name, a->has_wgp ? "WGP" : "CU");
        ck_assert_uint_eq(d->engines_per_core, a->simds_per_cu * cus);
        ck_assert_uint_eq(d->n_grf_modes, 1);
        ck_assert_uint_eq(d->grf_modes[0].threads_per_engine, a->max_waves_per_simd);
        ck_assert_uint_eq(d->n_sub_group_sizes, a->wave32 ? 2 : 1);
        ck_assert_uint_eq(d->sub_group_sizes[d->n_sub_group_sizes - 1], 64);
        ck_assert_uint_eq(d->max_work_group_size, 1024);
        ck_assert_uint_eq(d->max_work_groups_per_core, a->barriers_per_cu * cus);
        ck_assert(d->has_register_file);
        ck_assert_uint_eq(d->regs_per_core, a->vgpr_file_per_simd * d->engines_per_core);
        ck_assert_uint_eq(d->reg_max_per_work_group, d->regs_per_core);
        ck_assert_uint_eq(d->reg_alloc_unit, a->vgpr_granule);
        ck_assert_uint_eq(d->reg_warp_granularity, 1);
        ck_assert_uint_eq(d->reg_max_per_thread, a->max_vgprs);
        ck_assert_uint_eq(d->reg_partitions, d->engines_per_core);
        ck_assert_uint_eq(d->slm_per_core, (uint64_t)a->lds_per_cu * cus);
        ck_assert_uint_eq(d->slm_max_per_work_group, a->lds_per_cu);
        ck_assert_uint_eq(d->slm_granule, a->lds_granule);
        ck_assert_uint_eq(d->slm_reserved_per_work_group, 0);
        ck_assert_uint_eq(d->n_carveouts, 0);
        ck_assert_str_eq(d->local_memory_name, "LDS");
        ck_assert_str_eq(occ_builtin_for_target(OCC_VENDOR_AMD, d->target), d->name);
        occ_device_free(dev);
    }
    ck_assert_uint_eq(amd, occ__amd_arch_count());
    for (size_t i = 0; i < occ__amd_arch_count(); i++)
        ck_assert_ptr_nonnull(occ_builtin_for_target(OCC_VENDOR_AMD, occ__amd_arch_at(i)->target));
}
END_TEST

/* GFX9's SGPR steps at their edges; none on RDNA. */
START_TEST(sgpr_steps)
{
    const occ_amd_arch *v = occ__amd_arch("gfx906"), *c = occ__amd_arch("gfx942"), *r = occ__amd_arch("gfx1100");
    static const uint32_t sgprs[] = {0, 1, 80, 81, 88, 89, 100, 101, 112};
    static const uint32_t vega[] = {10, 10, 10, 9, 9, 8, 8, 7, 7}, cdna[] = {8, 8, 8, 8, 8, 8, 8, 7, 7};
    for (size_t i = 0; i < sizeof sgprs / sizeof sgprs[0]; i++) {
        ck_assert_uint_eq(occ__amd_waves_by_sgprs(v, sgprs[i]), vega[i]);
        ck_assert_uint_eq(occ__amd_waves_by_sgprs(c, sgprs[i]), cdna[i]);
        ck_assert_uint_eq(occ__amd_waves_by_sgprs(r, sgprs[i]), 16);
    }
    ck_assert_ptr_null(occ__amd_arch("gfx1150"));
    ck_assert_ptr_null(occ__amd_arch(NULL));
}
END_TEST

/* The look-up by target: every row by its own name, and no row for a
 * prefix, an extension or an empty name of one (the targets are compared as
 * 8-byte words, NUL-padded). */
START_TEST(target_lookup)
{
    for (size_t i = 0; i < occ__amd_arch_count(); i++) {
        const occ_amd_arch *a = occ__amd_arch_at(i);
        char name[32];
        snprintf(name, sizeof name, "%s", a->target);
        ck_assert_ptr_eq(occ__amd_arch(name), a);
        size_t n = strlen(name);
        ck_assert_uint_lt(n, sizeof a->target);
        name[n - 1] = '\0'; /* a prefix */
        ck_assert_ptr_null(occ__amd_arch(name));
        snprintf(name, sizeof name, "%sx", a->target); /* longer */
        ck_assert_ptr_null(occ__amd_arch(name));
        snprintf(name, sizeof name, "%s0000", a->target); /* 8 characters and more */
        ck_assert_ptr_null(occ__amd_arch(name));
    }
    ck_assert_str_eq(occ__amd_arch("gfx90a")->family, "CDNA2");
    ck_assert_ptr_null(occ__amd_arch(""));
    ck_assert_ptr_null(occ__amd_arch("sm_90"));
}
END_TEST

/* Other vendors' compilers state no such figure; bad arguments are refused. */
START_TEST(waves_per_simd_elsewhere)
{
    occ_kernel k;
    occ_kernel_init(&k);
    k.wg[0] = 256;
    uint32_t waves;
    double resident;
    occ_device *h100 = open_builtin("h100-sxm"), *tgl = open_builtin("tgl"), *mi = open_builtin("mi300x");
    ck_assert_int_eq(occ_waves_per_simd(h100, &k, &waves, &resident), OCC_ERR_UNSUPPORTED);
    ck_assert_int_eq(occ_waves_per_simd(tgl, &k, &waves, &resident), OCC_ERR_UNSUPPORTED);
    ck_assert_int_eq(occ_waves_per_simd(NULL, &k, &waves, &resident), OCC_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(occ_waves_per_simd(mi, NULL, &waves, &resident), OCC_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(occ_waves_per_simd(mi, &k, NULL, &resident), OCC_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(occ_waves_per_simd(mi, &k, &waves, NULL), OCC_ERR_INVALID_ARGUMENT);
    k.struct_size = 8;
    ck_assert_int_eq(occ_waves_per_simd(mi, &k, &waves, &resident), OCC_ERR_INVALID_ARGUMENT);
    /* a work-group too large to launch: no whole work-group, LLVM's figure 0 */
    occ_kernel_init(&k);
    k.wg[0] = 4096;
    ck_assert_int_eq(occ_waves_per_simd(mi, &k, &waves, &resident), OCC_OK);
    ck_assert_uint_eq(waves, 0);
    ck_assert(resident == 0.0);
    occ_device_free(h100);
    occ_device_free(tgl);
    occ_device_free(mi);
}
END_TEST

/* A profile of a gfx target with no row: the common rows and the
 * work-group slots, no CU mode, no LLVM figure. */
START_TEST(target_without_a_row)
{
    occ_device *base = open_builtin("rx-7900xtx");
    occ_device_desc d = *occ_device_describe(base);
    occ_device_free(base);
    snprintf(d.target, sizeof d.target, "gfx1151");
    snprintf(d.name, sizeof d.name, "strix-halo");
    occ_device *dev = NULL;
    ck_assert_int_eq(occ_device_create(&d, &dev, NULL), OCC_OK);
    occ_kernel k;
    occ_kernel_init(&k);
    k.wg[0] = 256;
    k.slm_bytes = 24576;
    k.cu_mode = 1;
    occ_residency r;
    ck_assert_int_eq(occ_residency_compute(dev, &k, &r), OCC_OK);
    ck_assert_uint_eq(r.resident_wgs, 5); /* 128 KB / 24 KB: WGP mode, the mode is not known */
    ck_assert_uint_eq(r.limits[OCC_RES_WG_SLOTS], 32);
    k.wg[0] = 32; /* one wave: no work-group slot */
    ck_assert_int_eq(occ_residency_compute(dev, &k, &r), OCC_OK);
    ck_assert_uint_eq(r.limits[OCC_RES_WG_SLOTS], OCC_NO_LIMIT);
    uint32_t waves;
    double resident;
    ck_assert_int_eq(occ_waves_per_simd(dev, &k, &waves, &resident), OCC_ERR_UNSUPPORTED);
    occ_device_free(dev);
}
END_TEST

static Suite *amd_suite(void)
{
    Suite *s = suite_create("amd");
    TCase *tc = tcase_create("rule");
    tcase_add_loop_test(tc, hand_computed, 0, (int)(sizeof cases / sizeof cases[0]));
    tcase_add_test(tc, next_step_in_vgprs);
    tcase_add_test(tc, profiles_repeat_the_rows);
    tcase_add_test(tc, sgpr_steps);
    tcase_add_test(tc, target_lookup);
    tcase_add_test(tc, waves_per_simd_elsewhere);
    tcase_add_test(tc, target_without_a_row);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return tc_run(amd_suite());
}
