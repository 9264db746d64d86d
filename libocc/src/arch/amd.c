/* AMD: the rules of each AMDGPU target, one row each, AMD's row of the rule,
 * waves per SIMD as LLVM states them, and the vendor's words (arch.h).
 * Sources (docs/model.md "AMD" names them with their places): the LLVM
 * AMDGPU backend (AMDGPUBaseInfo.cpp: VGPR file and granule per wave size,
 * waves per SIMD, SGPR occupancy, work-groups per CU; AMDGPUSubtarget.cpp:
 * occupancy by LDS; AMDGPUUsage.rst: LDS granule), the ISA manuals and the
 * CDNA/RDNA whitepapers (SIMDs per CU, LDS per CU and WGP).  The built-in
 * profiles repeat a row's numbers for one product, and the test `amd-model`
 * holds them equal. */
#include "arch/arch.h"

#include <stdio.h>
#include <string.h>

/* One row per target.  Register counts are register-lanes: RDNA's file of
 * 1024 VGPRs per lane in wave32 is 512 in wave64, 32768 register-lanes
 * either way, and so are its granules (16 x 32 = 8 x 64). */
static const occ_amd_arch rows[] = {
    /* target    family        SIMD WGP waves VGPR file granule max  SGPR  LDS/CU  gran barr w32 */
    {"gfx900", "GCN5 (Vega)", 4, false, 10, 256 * 64, 4 * 64, 256, true, 65536, 512, 16, false},
    {"gfx906", "GCN5 (Vega 20)", 4, false, 10, 256 * 64, 4 * 64, 256, true, 65536, 512, 16, false},
    {"gfx908", "CDNA", 4, false, 10, 256 * 64, 4 * 64, 256, true, 65536, 512, 16, false},
    {"gfx90a", "CDNA2", 4, false, 8, 512 * 64, 8 * 64, 512, true, 65536, 512, 16, false},
    {"gfx942", "CDNA3", 4, false, 8, 512 * 64, 8 * 64, 512, true, 65536, 512, 16, false},
    {"gfx1030", "RDNA2", 2, true, 16, 1024 * 32, 16 * 32, 256, false, 65536, 1024, 16, true},
    {"gfx1100", "RDNA3", 2, true, 16, 1536 * 32, 24 * 32, 256, false, 65536, 1024, 16, true},
    {"gfx1101", "RDNA3", 2, true, 16, 1536 * 32, 24 * 32, 256, false, 65536, 1024, 16, true},
    {"gfx1200", "RDNA4", 2, true, 16, 1536 * 32, 24 * 32, 256, false, 65536, 1024, 16, true},
    {"gfx1201", "RDNA4", 2, true, 16, 1536 * 32, 24 * 32, 256, false, 65536, 1024, 16, true},
};
#define N_ROWS (sizeof rows / sizeof rows[0])

/* The rule asks for the row on every evaluation: the target as one 8-byte
 * word (NUL-padded, as the rows' are) compared with each row's, without a
 * string comparison per row or a branch on which row matches. */
static uint64_t target_word(const char *padded)
{
    uint64_t w;
    memcpy(&w, padded, sizeof w);
    return w;
}

const occ_amd_arch *occ__amd_arch(const char *target)
{
    char padded[sizeof rows[0].target] = {0};
    size_t n = 0;
    for (; target && n < sizeof padded && target[n]; n++)
        padded[n] = target[n];
    if (!target || n == sizeof padded) /* no row's target has 8 characters */
        return NULL;
    uint64_t key = target_word(padded);
    const occ_amd_arch *found = NULL;
    for (size_t i = 0; i < N_ROWS; i++)
        found = target_word(rows[i].target) == key ? &rows[i] : found;
    return found;
}

size_t occ__amd_arch_count(void) { return N_ROWS; }

const occ_amd_arch *occ__amd_arch_at(size_t i) { return i < N_ROWS ? &rows[i] : NULL; }

/* GFX9's SIMD has 800 SGPRs; a wave's are allocated in blocks of 16 with
 * its reserved ones, which LLVM states as these steps (VI and later). */
uint32_t occ__amd_waves_by_sgprs(const occ_amd_arch *a, uint32_t sgprs)
{
    uint32_t w = a->max_waves_per_simd;
    if (!a->sgprs_limit || sgprs == 0)
        return w;
    uint32_t by = sgprs <= 80 ? 10 : sgprs <= 88 ? 9 : sgprs <= 100 ? 8 : 7;
    return by < w ? by : w;
}

static uint32_t wave_size(const occ_device_desc *d, const occ_kernel *k)
{
    return k->sub_group ? k->sub_group : k->reqd_sub_group ? k->reqd_sub_group : d->sub_group_sizes[0];
}

/* Waves one SIMD holds by VGPRs (not capped by its wave slots). */
static uint32_t waves_by_vgprs(const occ_amd_arch *a, uint32_t vgprs, uint32_t wave)
{
    uint64_t alloc = occ__round_up((uint64_t)(vgprs ? vgprs : 1) * wave, a->vgpr_granule);
    uint64_t n = a->vgpr_file_per_simd / alloc;
    return n ? (uint32_t)(n < UINT32_MAX ? n : UINT32_MAX) : 1;
}

/* The block a work-group's waves share: a WGP in WGP mode, else a CU. */
static bool shares_wgp(const occ_amd_arch *a, const occ_kernel *k) { return a->has_wgp && !k->cu_mode; }

uint32_t occ__amd_llvm_waves_per_simd(const occ_amd_arch *a, const occ_kernel *k, uint64_t w)
{
    uint32_t wave = k->sub_group ? k->sub_group : k->reqd_sub_group ? k->reqd_sub_group : a->wave32 ? 32 : 64;
    uint32_t blocks = shares_wgp(a, k) ? 2 : 1;
    uint32_t simds = a->simds_per_cu * blocks, max_w = a->max_waves_per_simd;
    uint64_t lds = (uint64_t)a->lds_per_cu * blocks;
    /* work-groups per CU (LLVM's getMaxWorkGroupsPerCU): single-wave ones
     * take no barrier */
    uint64_t n = occ__ceil_div(w ? w : 1, wave);
    uint64_t groups = (uint64_t)max_w * simds / n;
    if (n > 1 && groups > (uint64_t)a->barriers_per_cu * blocks)
        groups = (uint64_t)a->barriers_per_cu * blocks;
    uint32_t waves = max_w;
    if (groups == 0) {
        waves = 0; /* a work-group larger than the CU's wave slots */
    } else {
        uint64_t by_lds = lds / (k->slm_bytes ? k->slm_bytes : 1);
        uint64_t fill = by_lds == 0 ? 1 : occ__ceil_div((by_lds < groups ? by_lds : groups) * n, simds);
        waves = fill < max_w ? (uint32_t)fill : max_w;
    }
    uint32_t v = waves_by_vgprs(a, k->regs_per_thread, wave);
    uint32_t s = occ__amd_waves_by_sgprs(a, k->sgprs);
    waves = v < waves ? v : waves;
    return s < waves ? s : waves;
}

static bool amd_compiler_waves(const occ_device_desc *d, const occ_kernel *k, uint64_t w, uint32_t *waves)
{
    const occ_amd_arch *a = occ__amd_arch(d->target);
    if (!a)
        return false;
    occ_kernel at = *k;
    at.sub_group = wave_size(d, k);
    *waves = occ__amd_llvm_waves_per_simd(a, &at, w);
    return true;
}

#define REFUSE(code, ...)                                                                          \
    do {                                                                                           \
        if (detail)                                                                                \
            snprintf(detail, detail_size, __VA_ARGS__);                                            \
        return code;                                                                               \
    } while (0)

static uint32_t at_most(uint32_t a, uint32_t b) { return a < b ? a : b; }

/* AMD's row over the kernel's AMD fields, after the common rows (which
 * counted wave slots, LDS and VGPRs over the profile's core, and the
 * work-group slots that only work-groups of more than one wave take, their
 * barrier: slots_are_barriers below, which the slots and barriers rows
 * read).  It adds what they do not know: the
 * SGPRs of GFX9, and CU mode on an RDNA work-group processor, where a
 * work-group stays in one of its two CUs: each CU counts alone. */
static occ_reason amd_rule_row(const occ_device_desc *d, const occ_kernel *k, occ_residency *r, char *detail,
                               size_t detail_size)
{
    const occ_amd_arch *a = occ__amd_arch(d->target);
    uint32_t t = r->contexts_per_wg;
    if (!a) /* a profile of a target libocc has no row for: the common rows alone */
        return OCC_REASON_NONE;
    uint32_t wave = r->sub_group;
    if (a->has_wgp && k->cu_mode) {
        uint32_t cu_slots = a->simds_per_cu * a->max_waves_per_simd;
        if (t > cu_slots)
            REFUSE(OCC_REASON_CONTEXTS, "work-group needs %u wave slots; in CU mode a CU has %u", t, cu_slots);
        r->limits[OCC_RES_THREADS] = 2 * (cu_slots / t);
        if (r->slm_per_wg_alloc) {
            if (r->slm_per_wg_alloc > a->lds_per_cu)
                REFUSE(OCC_REASON_SLM_TOO_LARGE, "%llu bytes of LDS round up to %llu, more than a CU's %u in CU mode",
                       (unsigned long long)k->slm_bytes, (unsigned long long)r->slm_per_wg_alloc, a->lds_per_cu);
            r->limits[OCC_RES_SLM] = 2 * (uint32_t)(a->lds_per_cu / r->slm_per_wg_alloc);
        }
        if (k->regs_per_thread && d->has_register_file)
            r->limits[OCC_RES_REGISTERS] = 2 * (a->simds_per_cu * waves_by_vgprs(a, k->regs_per_thread, wave) / t);
    }
    if (a->sgprs_limit && k->sgprs) {
        uint32_t by = d->engines_per_core * occ__amd_waves_by_sgprs(a, k->sgprs) / t;
        r->limits[OCC_RES_REGISTERS] = at_most(r->limits[OCC_RES_REGISTERS], by);
    }
    return OCC_REASON_NONE;
}

/* A cooperative launch must fit at once: the work-groups a CU holds on
 * every CU (HIP's hipOccupancyMaxActiveBlocksPerMultiprocessor x CUs). */
static uint64_t amd_cooperative_max(const occ_device_desc *d, uint32_t resident, uint32_t per_wg, uint32_t per_core,
                                    bool barrier, uint64_t slm_bytes)
{
    (void)per_wg, (void)per_core, (void)barrier, (void)slm_bytes;
    return (uint64_t)resident * d->cores;
}

const occ__vendor_rules occ__amd_rules = {
    .vendor = OCC_VENDOR_AMD,
    .target_base = NULL,
    .simd_is_sub_group = true, /* the wave size the code object was compiled for */
    .cooperative_max = amd_cooperative_max,
    .slots_are_barriers = true,
    .rule_row = amd_rule_row,
    .compiler_waves = amd_compiler_waves,
};

const occ_vendor_words occ__amd_words = {
    .struct_size = sizeof(occ_vendor_words),
    .vendor = OCC_VENDOR_AMD,
    .word = "amd",
    .name = "AMD",
    .register_file = true,
    .register_input = "regs",
    .register_input_text = "a VGPR file (--regs: VGPRs per work-item)",
    .dispatch_evidence = "not measured: AMD's dispatcher is assumed to spread work-groups over CUs "
                         "as NVIDIA's does (no AMD GPU was available to measure it)",
    .kernel_local_memory = "LDS",
    .kernel_private_memory = "scratch",
    .spill_note = "",
    .private_memory_warns = true,
    .cuda_choice = NULL,
    .context_word = "wave slot",
    .register_word = "VGPRs",
    .local_memory_word = "LDS",
    .waves_per_simd = true,
};
