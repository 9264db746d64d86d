/* Architecture facts and rules, one file per vendor (arch/intel.c,
 * arch/nvidia.c): what no driver reports and every part of libocc needs the
 * same way: the backends when they describe a live device, the public
 * occ_vendor_words() the command-line tool asks instead of testing the vendor.
 *
 * Pure: tables and small functions, no I/O. */
#ifndef OCC_ARCH_H
#define OCC_ARCH_H

#include "common/internal.h"

/* ---- Intel ------------------------------------------------------------------ */

typedef enum occ_intel_family_id {
    OCC_INTEL_FAMILY_UNKNOWN = 0,
    OCC_INTEL_FAMILY_GEN9,
    OCC_INTEL_FAMILY_GEN11,
    OCC_INTEL_FAMILY_GEN9_OR_GEN11, /* by driver properties alone the two are not told apart */
    OCC_INTEL_FAMILY_XE_LP,
    OCC_INTEL_FAMILY_XE_HPG,
    OCC_INTEL_FAMILY_XE_LPG,
    OCC_INTEL_FAMILY_XE_HPC,
    OCC_INTEL_FAMILY_XE2,
    OCC_INTEL_FAMILY_XE3,
} occ_intel_family_id;

typedef struct occ_intel_family {
    occ_intel_family_id id;
    const char *name;              /* "Xe-LP" */
    const char *architecture;      /* as the shipped profiles write it */
    uint32_t engines_per_core;     /* XVE (EU) per Xe-core (sub-slice) */
    bool core_is_dss;              /* core = (slice, dual sub-slice), else (slice, sub-slice) */
    const char *core_name, *engine_name;
    const char *reference_profile; /* built-in profile with the numbers the driver cannot report */
    /* what the driver of this family reports, to check an identification */
    uint32_t simd_width, threads_per_eu, max_work_group_size;
} occ_intel_family;

const occ_intel_family *occ__intel_family(occ_intel_family_id id);

/* The family of a PCI device id (the Linux i915/xe id lists), or UNKNOWN.
 * profile: a shipped profile when the id pins the product (else NULL);
 * what: the product line in words. */
occ_intel_family_id occ__intel_pci_family(uint16_t device_id, const char **profile,
                                          const char **what);

/* Families told apart by their driver properties alone (SIMD width, threads
 * per EU, largest work-group), in the order to try: n in *count. */
const occ_intel_family_id *occ__intel_signature_families(size_t *count);

/* zeKernelSuggestMaxCooperativeGroupCount as Intel's compute-runtime (22.43)
 * answers it: pooled threads of the whole GPU over the work-group's threads,
 * capped by barriers (cores x 32) and by local memory (cores x slm_per_core
 * / slm rounded up to a power of two >= 1 KB).  threads_per_eu: the GRF
 * mode's. */
uint32_t occ__intel_driver_coop_rule(uint32_t cores, uint32_t engines_per_core, uint32_t threads_per_eu,
                                     uint32_t simd, uint64_t wg_size, bool barrier, uint64_t slm_bytes,
                                     uint64_t slm_per_core);

/* ---- NVIDIA ----------------------------------------------------------------- */

/* The rules of a compute capability (CUDA C++ Programming Guide, "Compute
 * Capabilities" tables): what the driver does not report, and the published
 * per-SM limits a profile of that capability must repeat. */
typedef struct occ_nvidia_arch {
    bool known;                    /* the capability has its own row (else the nearest earlier one) */
    const char *family;            /* "Hopper" */
    uint32_t partitions;           /* SM sub-partitions (SMSPs) */
    uint32_t max_regs_per_thread;
    uint32_t reg_alloc_unit;       /* registers per warp rounded up to this */
    uint32_t reg_warp_granularity; /* warps of a block rounded up to this for the per-block cap */
    uint32_t regs_per_sm, max_regs_per_block, max_threads_per_block;
    uint32_t max_warps_per_sm, max_blocks_per_sm;
    uint64_t smem_per_sm;             /* the largest carveout, bytes */
    uint64_t smem_per_block;          /* the opt-in maximum per block, bytes */
    uint64_t smem_reserved_per_block; /* charged to every block, bytes */
    uint32_t slm_granule;          /* shared-memory allocation granule, bytes */
    bool barriers_twice_slots;     /* barrier-using blocks limited to 2 x block slots */
    size_t n_carveouts;
    uint64_t carveouts_kb[OCC_MAX_CARVEOUTS]; /* legal shared-memory carveouts, ascending */
} occ_nvidia_arch;

void occ__nvidia_arch(int major, int minor, occ_nvidia_arch *out);
/* The capabilities with a row, in ascending order: i < occ__nvidia_arch_count(). */
size_t occ__nvidia_arch_count(void);
void occ__nvidia_arch_cc(size_t i, int *major, int *minor);

/* ---- AMD -------------------------------------------------------------------- */

/* The rules of an AMDGPU target (arch/amd.c, one row per target; the LLVM
 * AMDGPU backend's AMDGPUBaseInfo and the ISA manuals, docs/model.md "AMD").
 * Register counts are in register-lanes (a register of one work-item), so
 * that one number serves wave32 and wave64. */
typedef struct occ_amd_arch {
    char target[8];                /* "gfx90a", NUL-padded: looked up as one 8-byte word */
    const char *family;            /* "CDNA2" */
    uint32_t simds_per_cu;         /* 4 (GCN, CDNA), 2 (RDNA: a WGP is two CUs) */
    bool has_wgp;                  /* RDNA: the core is a work-group processor of two CUs */
    uint32_t max_waves_per_simd;   /* wave slots per SIMD */
    uint32_t vgpr_file_per_simd;   /* register-lanes of one SIMD's VGPR file (AGPRs included when unified) */
    uint32_t vgpr_granule;         /* a wave's VGPRs x wave size rounded up to this */
    uint32_t max_vgprs;            /* per work-item (VGPRs + AGPRs when unified) */
    bool sgprs_limit;              /* GFX9: the SIMD's 800 SGPRs limit its waves */
    uint32_t lds_per_cu;           /* bytes */
    uint32_t lds_granule;          /* allocation granule, bytes */
    uint32_t barriers_per_cu;      /* work-groups of more than one wave per CU */
    bool wave32;                   /* runs wave32 (and wave64) */
} occ_amd_arch;

/* The row of a target ("gfx1100"), NULL when libocc has none. */
const occ_amd_arch *occ__amd_arch(const char *target);
/* The rows, i < occ__amd_arch_count(). */
size_t occ__amd_arch_count(void);
const occ_amd_arch *occ__amd_arch_at(size_t i);
/* Waves per SIMD that s SGPRs per wave allow (GFX9), at most max_waves. */
uint32_t occ__amd_waves_by_sgprs(const occ_amd_arch *a, uint32_t sgprs);
/* Waves per SIMD as LLVM's AMDGPU backend computes them for a kernel whose
 * work-groups have w work-items (its remark "Occupancy [waves/SIMD]" takes
 * the flat work-group-size maximum): per wave, assuming the work-groups
 * that fit by LDS fill the CU, and rounded up over its SIMDs. */
uint32_t occ__amd_llvm_waves_per_simd(const occ_amd_arch *a, const occ_kernel *k, uint64_t w);

/* ---- every vendor ----------------------------------------------------------- */

/* Each vendor NAME of arch/meson.build's list defines
 * `const occ_vendor_words occ__NAME_words` and `const occ__vendor_rules
 * occ__NAME_rules` (vendor.c declares them). */

/* What libocc's own code asks of a vendor beyond its public words, so that
 * no code outside arch/ tests which vendor it has. */
typedef struct occ__vendor_rules {
    occ_vendor vendor;
    /* The target a kernel compiled for `target` runs as, for finding its
     * profile ("sm_90a" -> "sm_90"); NULL: the target itself. */
    void (*target_base)(const char *target, char *out, size_t size);
    /* A kernel's compiled SIMD width is its sub-group size (Intel: the
     * compiler picks it, the kernel runs with it). */
    bool simd_is_sub_group;
    /* The most work-groups of a launchable kernel that one cooperative
     * launch may have (all of them resident at once), as the vendor's driver
     * counts them, from the kernel's answer (resident work-groups per core,
     * contexts per work-group and per core), barrier use and local memory. */
    uint64_t (*cooperative_max)(const occ_device_desc *d, uint32_t resident, uint32_t contexts_per_wg,
                                uint32_t contexts_per_core, bool barrier, uint64_t slm_bytes);
    /* The vendor's driver names a GPU it has no marketing name for by a
     * generic name: true when driver_name is that and the PCI device id is
     * known, with the GPU in words in out and in *profile the shipped
     * profile the id pins (its product is the better name; NULL: none).
     * NULL: the vendor's drivers always give a marketing name. */
    bool (*generic_device_name)(const char *driver_name, unsigned pci_id, char *out, size_t size,
                                const char **profile);
    /* Work-group slots are barriers (AMD: LLVM's getMaxWorkGroupsPerCU):
     * only a work-group of more than one sub-group takes one, and the
     * barrier row sets no other limit.  The rule's vendor row applies it
     * (rule.h: occ__rule_wg_slots, occ__rule_barriers). */
    bool slots_are_barriers;
    /* The vendor's row of the rule over the kernel's vendor fields, after
     * the common rows (rule.c; NULL: none): called only for a kernel that
     * sets one (occ__kernel_vendor_fields, which every fast path declines);
     * it may refuse the kernel and tighten the limits the common rows set.
     * Words into detail when detail is not NULL. */
    occ_reason (*rule_row)(const occ_device_desc *d, const occ_kernel *k, occ_residency *r, char *detail,
                           size_t detail_size);
    /* Waves per SIMD as the vendor's compiler states them for work-groups
     * of w work-items, into *waves; false where it has no such figure (no
     * row for the device's target).  NULL: the vendor has none. */
    bool (*compiler_waves)(const occ_device_desc *d, const occ_kernel *k, uint64_t w, uint32_t *waves);
} occ__vendor_rules;

/* NULL for a vendor libocc does not know. */
const occ__vendor_rules *occ__vendor_rules_of(occ_vendor v);

/* Whether any vendor's rule takes driver_name for its generic name (see
 * generic_device_name), and then the GPU in words and its profile. */
bool occ__generic_device_name(const char *driver_name, unsigned pci_id, char *out, size_t size,
                              const char **profile);

/* The base target of a kernel's target (target_base, else a copy). */
void occ__target_base(occ_vendor v, const char *target, char *out, size_t size);

/* The vendor words a profile may use ("intel", ...; NULL-terminated) and the
 * occ_vendor of each, in the same order. */
extern const char *const occ__vendor_profile_words[];
extern const int occ__vendor_ids[];

#endif
