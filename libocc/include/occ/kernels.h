/*
 * libocc kernel readers: a compiled kernel's own resources.
 *
 * The numbers a user cannot know (the SIMD width the Intel compiler chose,
 * its GRF mode, registers per thread, static local memory, barriers, a
 * required work-group size, spills) are read from the kernel file itself:
 *
 *   NVIDIA  cubin (ELF, sm_70 and newer), fatbin containers (the SASS for the
 *           device's compute capability is picked), PTX text (compiled with
 *           the CUDA toolkit's ptxas when it is installed);
 *   Intel   zebin (ELF with .ze_info), the older patch-token binaries,
 *           SPIR-V modules and OpenCL C sources (compiled for the device's
 *           product by the installed Intel driver, no GPU needed);
 *   AMD     AMDGPU code objects (ELF with the code object metadata) and
 *           clang offload bundles (HIP fat binaries, plain or compressed,
 *           alone or inside a host object): resources only, with no device
 *           model yet (vendor 0).
 *
 * Parsing binary formats is pure (memory in, infos out); compiling (PTX,
 * SPIR-V, OpenCL C) runs a tool or a driver and is only done when the file
 * needs it.  A set is immutable once read and may be shared between threads.
 */
#ifndef OCC_KERNELS_H
#define OCC_KERNELS_H

#include "occ/occ.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum occ_kernel_format {
    OCC_KFMT_UNKNOWN = 0,
    OCC_KFMT_CUBIN,        /* NVIDIA ELF with SASS */
    OCC_KFMT_FATBIN,       /* NVIDIA fat binary (file or .nv_fatbin section) */
    OCC_KFMT_PTX,          /* NVIDIA PTX text, compiled with ptxas */
    OCC_KFMT_ZEBIN,        /* Intel native ELF with .ze_info */
    OCC_KFMT_PATCHTOKENS,  /* Intel native binary of the older format (ocloc 22.x) */
    OCC_KFMT_SPIRV,        /* SPIR-V module, compiled by the Intel driver */
    OCC_KFMT_OPENCL_C,     /* OpenCL C source, compiled by the Intel driver */
    OCC_KFMT_AMDGPU,       /* AMDGPU code object (ELF with NT_AMDGPU_METADATA) */
    OCC_KFMT_OFFLOAD_BUNDLE, /* clang offload bundle of AMDGPU code objects (HIP) */
    OCC_KFMT_COUNT
} occ_kernel_format;

OCC_API const char *occ_kernel_format_name(occ_kernel_format f); /* "cubin", "zebin", ... */

/* Which fields of occ_kernel_info the file states (bits of .known). */
#define OCC_KINFO_SIMD         (1u << 0)  /* simd */
#define OCC_KINFO_SUB_GROUP    (1u << 1)  /* required_sub_group */
#define OCC_KINFO_GRF          (1u << 2)  /* grf */
#define OCC_KINFO_REGS         (1u << 3)  /* regs_per_thread */
#define OCC_KINFO_SLM          (1u << 4)  /* static_slm */
#define OCC_KINFO_BARRIERS     (1u << 5)  /* barriers */
#define OCC_KINFO_REQD_WG      (1u << 6)  /* reqd_wg */
#define OCC_KINFO_MAX_WG       (1u << 7)  /* max_wg_size (and min_blocks) */
#define OCC_KINFO_PRIVATE      (1u << 8)  /* private_bytes */
#define OCC_KINFO_SPILL        (1u << 9)  /* spill_bytes */
#define OCC_KINFO_SLM_ARGS     (1u << 10) /* slm_args */
#define OCC_KINFO_AMD_REGS     (1u << 11) /* vgprs, agprs, sgprs */
#define OCC_KINFO_REG_SPILLS   (1u << 12) /* vgpr_spills, sgpr_spills */
#define OCC_KINFO_DYNAMIC_STACK (1u << 13) /* dynamic_stack */
#define OCC_KINFO_WGP_MODE     (1u << 14) /* wgp_mode */
#define OCC_KINFO_CLUSTER      (1u << 15) /* cluster */

typedef struct occ_kernel_info {
    uint32_t struct_size;
    const char *name;          /* the kernel's name, demangled when the file holds a
                                  C++ mangled name ("heavy(double*, int)"); any length;
                                  owned by the set */
    const char *mangled;       /* the name as the file spells it ("_Z5heavyPdi"); the
                                  same text as name when it is not mangled */
    occ_vendor vendor;
    occ_kernel_format format;  /* the format its resources were read from (a
                                  fatbin's member: CUBIN; SPIR-V: ZEBIN after compiling) */
    char target[32];           /* "sm_90", "tgllp": what the code was compiled for */
    uint32_t known;            /* OCC_KINFO_* bits */
    uint32_t simd;             /* compiled SIMD width = sub-group size (Intel); 32 (NVIDIA) */
    uint32_t required_sub_group;  /* intel_reqd_sub_group_size; 0 = none */
    uint32_t grf;              /* Intel GRF registers per thread (128, 256) */
    uint32_t regs_per_thread;  /* NVIDIA registers per thread */
    uint64_t static_slm;       /* static local/shared memory per work-group, bytes */
    uint32_t barriers;         /* barriers the kernel uses; 0 = none */
    uint32_t reqd_wg[3];       /* reqd_work_group_size / required block size; 0,0,0 = none */
    uint32_t max_wg_size;      /* __launch_bounds__ / max threads per block; 0 = none */
    uint32_t min_blocks;       /* __launch_bounds__' minimum blocks per SM; 0 = none */
    uint64_t private_bytes;    /* Intel private memory per work-item; NVIDIA local bytes per thread */
    uint64_t spill_bytes;      /* Intel spill memory per thread; NVIDIA spill stores (bytes) when known */
    uint32_t slm_args;         /* Intel: arguments that are local-memory pointers */
    /* AMD, as the code object's metadata states them (simd is the wave size,
     * static_slm the LDS, private_bytes the scratch per work-item,
     * max_wg_size the flat work-group size bound): */
    uint32_t vgprs;            /* vector registers per work-item the wave allocates: on targets with
                                  a unified register file (gfx90a, gfx942) the architectural VGPRs
                                  rounded up to 4 plus the AGPRs; elsewhere the larger of VGPRs
                                  and AGPRs (gfx908's AGPRs are a second file as large) */
    uint32_t agprs;            /* accumulation registers per work-item (gfx908 and later); 0 = none */
    uint32_t sgprs;            /* scalar registers per wave, VCC, flat scratch and XNACK included */
    uint32_t vgpr_spills;      /* VGPRs spilled to scratch */
    uint32_t sgpr_spills;      /* SGPRs spilled (to VGPR lanes or scratch) */
    uint32_t dynamic_stack;    /* 1: the stack size is not known at compile time (recursion, calls
                                  through pointers): private_bytes is a lower bound */
    uint32_t wgp_mode;         /* 1: compiled for WGP mode (RDNA's default: a work-group's waves
                                  may use both CUs of a work-group processor); 0: CU mode, the
                                  only mode before RDNA (from the kernel descriptor) */
    uint32_t cluster[3];       /* NVIDIA: compiled thread-block cluster dimensions
                                  (__cluster_dims__); 0,0,0 = none */
} occ_kernel_info;

typedef struct occ_kernel_read_options {
    uint32_t struct_size;
    const occ_device *device;  /* the target: picks a fatbin's SASS, the Intel product
                                  to compile for, checks a cubin's architecture.
                                  NULL: take what the file holds (the newest SASS) */
    const char *ptxas;         /* ptxas to run for PTX; NULL: $PATH, then /usr/local/cuda/bin */
    const char *build_options; /* extra compiler options (Intel: "-cl-intel-256-GRF-per-thread") */
} occ_kernel_read_options;

OCC_API void occ_kernel_read_options_init(occ_kernel_read_options *o);

typedef struct occ_kernel_set occ_kernel_set; /* opaque, immutable */

/* Read every kernel of a file (or of a buffer; origin names it in
 * diagnostics).  Errors: OCC_ERR_IO (cannot read), OCC_ERR_PARSE (a truncated
 * or corrupt file, none of the formats above (diag says what was seen), a
 * file that asks for more work or decompressed output than its size
 * warrants, or a kernel its compiler rejects: diag carries the compiler's
 * log), OCC_ERR_UNSUPPORTED (a format or target this build or machine cannot
 * handle: PTX without ptxas, a cubin for another architecture than the
 * device, a fatbin with no code for it, SPIR-V without the Intel driver),
 * OCC_ERR_DEVICE (a compiler or driver crashed, hung past its timeout or
 * failed otherwise). */
OCC_API occ_status occ_kernels_read_file(const char *path, const occ_kernel_read_options *o,
                                         occ_kernel_set **out, occ_diag *diag);
OCC_API occ_status occ_kernels_read_memory(const void *data, size_t size, const char *origin,
                                           const occ_kernel_read_options *o,
                                           occ_kernel_set **out, occ_diag *diag);
OCC_API void occ_kernel_set_free(occ_kernel_set *s);

OCC_API occ_kernel_format occ_kernel_set_format(const occ_kernel_set *s); /* of the file */
OCC_API size_t occ_kernel_set_count(const occ_kernel_set *s);
OCC_API const occ_kernel_info *occ_kernel_set_get(const occ_kernel_set *s, size_t i);
/* A kernel answers to its name as the file spells it (mangled), its
 * demangled name ("heavy(double*, int)") and its short name (without the
 * parameter list and a template's return type: "heavy", "k<8, double>",
 * and without the final template arguments: "k"), and its demangled name
 * without a template's return type ("k<8, double>(double const*, double*)"). */
OCC_API bool occ_kernel_name_matches(const occ_kernel_info *ki, const char *name);
/* The kernel with that exact name (mangled or demangled), else the only one
 * whose short name it is; NULL when none, or when several kernels share the
 * short name (an overload: list them with occ_kernel_name_matches). */
OCC_API const occ_kernel_info *occ_kernel_set_find(const occ_kernel_set *s, const char *name);
/* What the reader chose or noticed, for reports ("fatbin: SASS for sm_80,
 * sm_90 and PTX for compute_90; took sm_90"); "" when nothing. */
OCC_API const char *occ_kernel_set_note(const occ_kernel_set *s);

/* Fill a kernel description from what the file states: sub-group size,
 * GRF mode, registers, static local memory plus dynamic_slm, barrier use,
 * and the constraints (required sub-group and work-group sizes, which also
 * become the shape, and the maximum work-group size).  Fields the file does not state are left as
 * they are, so a caller sets its explicit choices after this call. */
OCC_API void occ_kernel_apply_info(occ_kernel *k, const occ_kernel_info *ki, uint64_t dynamic_slm);

/* The built-in profile a kernel runs on when no device is named: the first
 * built-in for its target (occ_builtin_for_target); for a kernel with
 * compiled cluster dimensions, the first of those that takes cluster launches
 * (has GPC data), where one does.  NULL when no built-in has the target. */
OCC_API const char *occ_builtin_for_kernel(const occ_kernel_info *ki);

#ifdef __cplusplus
}
#endif

#endif
