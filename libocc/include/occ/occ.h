/*
 * libocc: predict, explain and measure GPU occupancy.
 *
 * Core API: device profiles, kernel descriptions, per-core residency, the
 * whole-GPU wave summary and the "next step" advice.  Everything is plain C11;
 * inputs and results are fixed-size structs whose first member is their size
 * so they can grow without breaking binaries (set it with the *_init helpers).
 *
 * Conventions, documented once:
 *  - Functions that can fail return occ_status; OCC_OK is 0.  A failure that
 *    concerns a profile fills an occ_diag (file, line, column, key, message).
 *  - "Cannot launch" is a result, not an error: occ_residency.launchable is
 *    false and .reason says why.
 *  - Every function is pure and thread-safe: no globals, no hidden state.  An
 *    occ_device is immutable after creation and may be shared between threads.
 *  - Sizes are bytes; times in timelines are in units of one work-group's
 *    duration unless a function says otherwise.
 */
#ifndef OCC_OCC_H
#define OCC_OCC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define OCC_API __attribute__((visibility("default")))
#else
#define OCC_API
#endif

/* ---- versions ---------------------------------------------------------- */

/* API version: bumped when the public interface changes (major on breaks). */
#define OCC_API_VERSION_MAJOR 3
#define OCC_API_VERSION_MINOR 4
#define OCC_API_VERSION ((OCC_API_VERSION_MAJOR << 16) | OCC_API_VERSION_MINOR)

/* Package version string, e.g. "0.1.0". */
OCC_API const char *occ_version(void);
/* API version of the library actually loaded (compare with OCC_API_VERSION). */
OCC_API unsigned occ_api_version(void);

/* ---- status and diagnostics -------------------------------------------- */

typedef enum occ_status {
    OCC_OK = 0,
    OCC_ERR_INVALID_ARGUMENT, /* a NULL pointer, a bad struct_size, ... */
    OCC_ERR_NO_MEMORY,
    OCC_ERR_IO,               /* file cannot be opened or read */
    OCC_ERR_PARSE,            /* YAML syntax error */
    OCC_ERR_SCHEMA,           /* unknown/missing key, wrong type */
    OCC_ERR_VALUE,            /* zero, negative, out of range or inconsistent value */
    OCC_ERR_NOT_FOUND,        /* no built-in device of that name */
    OCC_ERR_UNSUPPORTED,      /* feature not available for this device/build */
    OCC_ERR_DEVICE,           /* backend: no device, no driver, driver failure */
    OCC_ERR_TOO_LARGE,        /* result would not fit (e.g. a timeline too long) */
    OCC_STATUS_COUNT
} occ_status;

OCC_API const char *occ_status_name(occ_status s); /* "OCC_ERR_SCHEMA" */
OCC_API const char *occ_status_text(occ_status s); /* "unknown or missing key" */

/* Where and why a profile (or other input) was rejected. */
typedef struct occ_diag {
    occ_status status;
    char file[256];   /* path, or "<builtin:NAME>", or "<string>" */
    unsigned line;    /* 1-based; 0 when unknown */
    unsigned column;  /* 1-based; 0 when unknown */
    char key[128];    /* dotted key path, e.g. "core.count"; empty if none */
    char message[384];
} occ_diag;

/* "file:line:column: key 'core.count': message" (parts left out when unknown). */
OCC_API size_t occ_diag_format(const occ_diag *d, char *buf, size_t size);

/* ---- device description ------------------------------------------------- */

#include "occ/vendors.h" /* occ_vendor: OCC_VENDOR_INTEL, OCC_VENDOR_NVIDIA, ... (generated) */

typedef enum occ_dispatch_order {
    OCC_DISPATCH_PACK = 1,  /* fill a core before using the next */
    OCC_DISPATCH_SPREAD = 2 /* breadth-first: next work-group to the least loaded core */
} occ_dispatch_order;

#define OCC_MAX_SUB_GROUP_SIZES 8
#define OCC_MAX_GRF_MODES 8
#define OCC_MAX_SLM_STEPS 32
#define OCC_MAX_CARVEOUTS 16
#define OCC_MAX_GPCS 32
#define OCC_NO_LIMIT UINT32_MAX /* "this resource does not limit" */

typedef struct occ_grf_mode {
    uint32_t registers;          /* GRF registers per thread in this mode */
    uint32_t threads_per_engine; /* thread contexts per vector engine */
} occ_grf_mode;

/*
 * Everything the model knows about a device.  One shape for Intel (Xe-cores,
 * XVEs, hardware threads, SLM, GRF modes) and NVIDIA (SMs, sub-partitions,
 * warp slots, shared memory, register file).  Validated by occ_device_create.
 */
typedef struct occ_device_desc {
    uint32_t struct_size;
    char name[64];          /* short id: "tgl", "h100-sxm" */
    char product[128];      /* marketing name */
    char architecture[64];  /* "Xe-LP", "Hopper (sm_90)": in words */
    char target[32];        /* what kernels are compiled for, as their files name it:
                               "sm_90", "tgllp"; "" when unknown (kernels do not find it) */
    occ_vendor vendor;
    bool provisional;       /* numbers not confirmed by a vendor document */

    /* cores */
    char core_name[32];            /* "Xe-core", "SM" */
    char engine_name[32];          /* "XVE", "SMSP" */
    uint32_t cores;                /* cores on the device */
    uint32_t engines_per_core;     /* vector engines per core */
    uint32_t simd_width;           /* physical SIMD width of an engine */
    uint32_t n_sub_group_sizes;
    uint32_t sub_group_sizes[OCC_MAX_SUB_GROUP_SIZES]; /* ascending */
    uint32_t n_grf_modes;
    occ_grf_mode grf_modes[OCC_MAX_GRF_MODES];         /* ascending registers */
    uint32_t default_grf;          /* registers of the default mode */
    uint32_t max_work_group_size;  /* work-items */
    uint32_t max_work_groups_per_core;
    uint32_t barriers_per_core;        /* barrier-using WGs per core; OCC_NO_LIMIT if none */
    uint32_t barriers_per_core_driver; /* the driver source's figure, shown beside it */

    /* local memory (Intel SLM, NVIDIA shared memory) */
    char local_memory_name[16];        /* "SLM", "shared memory" */
    uint64_t slm_per_core;             /* allocatable per core (max carveout) */
    uint64_t slm_max_per_work_group;
    uint64_t slm_reserved_per_work_group; /* added by the runtime to every WG */
    uint32_t slm_granule;              /* allocation granule; 0 when steps are used */
    uint32_t n_slm_steps;
    uint64_t slm_steps[OCC_MAX_SLM_STEPS]; /* legal allocation sizes, ascending */
    uint32_t n_carveouts;              /* 0: the core's memory is fixed */
    uint64_t carveouts[OCC_MAX_CARVEOUTS]; /* legal shared-memory sizes, ascending */

    /* register file (NVIDIA-style devices); has_register_file false for Intel */
    bool has_register_file;
    uint32_t regs_per_core;
    uint32_t reg_alloc_unit;           /* registers per warp rounded up to this */
    uint32_t reg_warp_granularity;     /* warps per block rounded up to this for the per-block cap */
    uint32_t reg_max_per_thread;
    uint32_t reg_max_per_work_group;
    uint32_t reg_partitions;           /* sub-partitions the register file is split across */

    /* dispatch policy (used by the timeline simulator) */
    occ_dispatch_order dispatch_order;
    bool partial_dispatch; /* a WG's threads may be dispatched in parts */

    /* dispatch timing (docs/phases.md "Dispatch timing"); all 0 = unknown:
     * dispatch takes no time, as in every profile without them.  Used only when
     * the simulator is given the work-group duration in seconds
     * (occ_sim_options.time_unit_s) and work-groups are dispatched whole. */
    double refill_gap_s;           /* a work-group's end to the start of the one
                                      that takes its slot on that core */
    double core_interval_s;        /* least time between two work-group starts on
                                      one core ... */
    double core_interval_per_context_s; /* ... or this per thread context of the
                                           work-group, whichever is larger */
    double gpu_interval_s;         /* least time between two refills anywhere on the
                                      GPU (the dispatcher's throughput) ... */
    uint32_t gpu_burst_work_groups; /* ... after a burst of this many refills that
                                       go out as fast as slots free (optional, 0: none) */
    double launch_interval_s;      /* at launch, least time between two work-group
                                      starts on an idle core, or core_interval_per_context_s
                                      per context, whichever is larger (optional) */
    double refill_gap_drained_s;   /* when registers limit the residency: a core's
                                      freed slots are refilled only after its last
                                      work-group retired, this long after (optional,
                                      0: refill_gap_s per slot as for any kernel) */
    double gpu_interval_per_context_s; /* the GPU's least time between two refills per
                                          thread context of the work-group, when larger
                                          than gpu_interval_s (optional) */
    /* refills in reports (optional; docs/phases.md "Refills in reports"): a
     * core reports its freed slots in groups, one group at a time */
    double refill_pause_s;         /* a core's next group no sooner than this after
                                      the last send of its group (0: no reports,
                                      every freed slot is refilled on its own) */
    double refill_window_s;        /* a group takes the slots that free within
                                      this of its opening ... */
    double refill_window_threads_s; /* ... or within this when thread contexts
                                       alone limit the residency */
    double gpu_report_per_work_group_s; /* the dispatcher takes reports in one at a
                                           time, this long per slot reported */
    double refill_gap_spread_s;    /* the refill gap differs by core pair: spread
                                      evenly over +-half of this (0: the same) */
    double core_interval_threads_s; /* core_interval_s when thread contexts alone
                                       limit the residency (0: core_interval_s) */
    /* when the work-group slots limit the residency (the first refill of
     * small blocks): */
    double refill_pause_first_s;   /* refill_pause_s after a core's first group
                                      after the launch (0: refill_pause_s) */
    double core_interval_slots_s;  /* core_interval_s (0: core_interval_s) */
    uint32_t gpu_burst_slots_work_groups; /* gpu_burst_work_groups (0: that) */
    double sub_partition_hold_s;   /* a work-group's contexts go to the core's
                                      reg_partitions sub-partitions in turn and it
                                      starts once they have room, or after this on
                                      the others (0: no sub-partitions) */
    char timing_evidence[1024];    /* where the values come from; required with them */

    /* thread-block clusters (NVIDIA compute capability 9.0+; docs/clusters.md);
     * n_gpcs 0: the device takes no cluster launches */
    uint32_t n_gpcs;
    uint32_t gpc_sms[OCC_MAX_GPCS];    /* cores of each group that a cluster's blocks
                                          share (a GPC, as the driver places clusters) */
    uint32_t cluster_max_work_groups;  /* work-groups per core a cluster launch holds at most */
    uint32_t cluster_max_size;         /* work-groups per cluster (portable) */
    uint32_t cluster_max_size_non_portable; /* ... when the kernel allows non-portable sizes */
} occ_device_desc;

/* ---- vendors: their words and which kernel inputs apply ------------------- */

/* What callers say differently per vendor, so that they ask instead of
 * testing the vendor (arch/ holds each vendor's facts). */
typedef struct occ_vendor_words {
    uint32_t struct_size;
    occ_vendor vendor;
    const char *word;                /* the profile's word: "intel", "nvidia" */
    const char *name;                /* "Intel", "NVIDIA" */
    bool register_file;              /* its profiles describe a register file (registers:), not GRF modes */
    const char *register_input;      /* the kernel input for register use: "grf", "regs" */
    const char *register_input_text; /* "GRF modes (--grf)", "a register file (--regs)" */
    const char *dispatch_evidence;   /* why a profile made from a live device has its dispatch policy */
    /* kernel files (occcalc kernels) */
    const char *kernel_local_memory;   /* a kernel's local memory, short: "SLM", "shared" */
    const char *kernel_private_memory; /* its per-thread memory: "private", "local" */
    const char *spill_note;            /* after "spills N per thread": " (spill memory)" or "" */
    bool private_memory_warns;         /* per-thread memory may hide spills: warn about it */
    /* the vendor runtime's own block-size choice (occ_cuda_block_size) in
     * words, shown beside occ's ranking; NULL where the vendor has none */
    const char *cuda_choice;
    /* the model's quantities in the vendor's words (occcalc's text, next steps) */
    const char *context_word;        /* one thread context: "thread context"; AMD: "wave slot" */
    const char *register_word;       /* "registers"; AMD: "VGPRs" */
    const char *local_memory_word;   /* a limit's name: "local memory"; AMD: "LDS" */
    bool waves_per_simd;             /* answers say waves per SIMD (occ_waves_per_simd): AMD */
} occ_vendor_words;

/* NULL for a vendor libocc does not know. */
OCC_API const occ_vendor_words *occ_vendor_words_of(occ_vendor v);

/* A size as the library and occcalc write it: "64 KB" for whole kilobytes,
 * else "16385 B" ("16385 bytes" with spell_out); "-" for UINT64_MAX (no
 * limit).  Returns the length (snprintf's, without the NUL). */
OCC_API size_t occ_format_bytes(char *buf, size_t size, uint64_t bytes, bool spell_out);

OCC_API void occ_device_desc_init(occ_device_desc *d);

/* Whether the description has dispatch timing (any of its three values > 0). */
OCC_API bool occ_device_has_timing(const occ_device_desc *d);

/* Thread contexts per core in a GRF mode (registers); 0 if no such mode. */
OCC_API uint32_t occ_desc_contexts_per_core(const occ_device_desc *d, uint32_t grf_registers);

/* ---- device handle ------------------------------------------------------ */

typedef struct occ_device occ_device; /* opaque, immutable, shareable */

/* Validate a description and make a device of it. */
OCC_API occ_status occ_device_create(const occ_device_desc *desc, occ_device **out, occ_diag *diag);
/* Load a YAML profile from a file, or from memory (origin names it in diagnostics). */
OCC_API occ_status occ_device_load_file(const char *path, occ_device **out, occ_diag *diag);
OCC_API occ_status occ_device_load_yaml(const char *text, size_t len, const char *origin,
                                        occ_device **out, occ_diag *diag);
/* A profile compiled into the library ("tgl", "h100-sxm", ...). */
OCC_API occ_status occ_device_builtin(const char *name, occ_device **out, occ_diag *diag);
/* NAME of a built-in profile, or a PATH to a YAML file (anything with a '/' or
 * ending in ".yaml"/".yml").  NULL or "" gives the default device. */
OCC_API occ_status occ_device_open(const char *name_or_path, occ_device **out, occ_diag *diag);
OCC_API void occ_device_free(occ_device *dev);

OCC_API const occ_device_desc *occ_device_describe(const occ_device *dev);
OCC_API const char *occ_device_origin(const occ_device *dev); /* file path or "<builtin:tgl>" */
OCC_API size_t occ_device_source_count(const occ_device *dev);
OCC_API const char *occ_device_source(const occ_device *dev, size_t i); /* profile's sources */
OCC_API const char *occ_device_dispatch_evidence(const occ_device *dev);

/* Built-in profiles. */
#define OCC_DEFAULT_DEVICE "tgl"
OCC_API size_t occ_builtin_count(void);
OCC_API const char *occ_builtin_name(size_t i);
OCC_API const char *occ_builtin_yaml(const char *name); /* the embedded YAML text, or NULL */
/* The built-in profile for kernels compiled for target ("sm_90", "tgllp", as
 * occ_kernel_info.target names it) of vendor v: the first built-in whose
 * target is it (a variant its vendor runs as the base target, "sm_90a" as
 * "sm_90", counts as the base).  Read from the compiled profiles, none
 * opened.  NULL when no built-in profile has it. */
OCC_API const char *occ_builtin_for_target(occ_vendor v, const char *target);
/* The built-in profile that fits a live device's description (as a backend's
 * occ_backend_describe writes it): the same vendor, core count and target
 * (the architecture when the description names no target); among several,
 * the one whose name's first part the product mentions ("h200" in "NVIDIA
 * H200"), else the first listed.  with_timing: only profiles with dispatch
 * timing.  NULL when none fits (or d is NULL). */
OCC_API const char *occ_builtin_fitting(const occ_device_desc *d, bool with_timing);

/* Write a description as a profile (the schema of docs/profiles.md).  sources
 * may be NULL.  Returns OCC_ERR_IO if writing fails. */
OCC_API occ_status occ_device_write_yaml(const occ_device_desc *d, const char *const *sources,
                                         size_t n_sources, const char *dispatch_evidence,
                                         FILE *out);

/* ---- kernel description -------------------------------------------------- */

typedef struct occ_kernel {
    uint32_t struct_size;
    uint32_t wg[3];            /* work-group size per dimension; unused dims = 1 */
    uint32_t sub_group;        /* SIMD width / sub-group size; 0 = smallest supported */
    uint64_t slm_bytes;        /* local memory per work-group (static + dynamic) */
    bool barrier;              /* kernel uses a work-group barrier */
    uint32_t grf;              /* Intel: GRF registers per thread; 0 = default mode */
    uint32_t regs_per_thread;  /* register-file devices; 0 = unknown (not limiting) */
    int32_t carveout_pct;      /* NVIDIA shared-memory carveout preference; -1 = default */
    /* what the compiled kernel allows (occ_kernel_apply_info reads them from
     * the file); a work-group outside them cannot launch */
    uint32_t max_wg_size;      /* most work-items per work-group (launch bounds, the
                                  compiler's maximum); 0 = none */
    uint32_t reqd_wg[3];       /* required work-group size; 0,0,0 = none (0 in y, z: 1) */
    uint32_t reqd_sub_group;   /* required sub-group size; 0 = none (sub_group 0 takes it) */
    /* a thread-block cluster launch (NVIDIA 9.0+, docs/clusters.md): work-groups
     * per cluster per dimension; 0,0,0 = not a cluster launch (0 in y, z: 1).
     * They change no per-core answer (the driver's per-SM answer ignores them);
     * occ_cluster_compute and the GPU figures read them. */
    uint32_t cluster[3];
    bool cluster_non_portable; /* sizes up to the device's non-portable maximum allowed
                                  (cudaFuncAttributeNonPortableClusterSizeAllowed) */
    /* AMD (occ_kernel_apply_info reads them from the code object): */
    uint32_t sgprs;            /* scalar registers per wave; 0 = unknown (not limiting) */
    uint32_t cu_mode;          /* 1: compiled for CU mode (-mcumode): a work-group stays in one CU
                                  of an RDNA work-group processor; 0: WGP mode, RDNA's default */
} occ_kernel;

OCC_API void occ_kernel_init(occ_kernel *k); /* 1x1x1, default everything */
OCC_API uint64_t occ_kernel_wg_size(const occ_kernel *k);
/* Work-groups per cluster of k's launch in thread-block clusters (a dimension
 * of 0 counts as 1; capped at 2^32 - 1); 0 when k is not launched in clusters
 * (cluster 0,0,0). */
OCC_API uint32_t occ_kernel_cluster_size(const occ_kernel *k);

/* ---- residency per core --------------------------------------------------- */

typedef enum occ_resource {
    OCC_RES_THREADS = 0, /* thread contexts (Intel) / warp slots (NVIDIA) */
    OCC_RES_SLM,         /* local / shared memory */
    OCC_RES_REGISTERS,   /* register file */
    OCC_RES_WG_SLOTS,    /* max work-groups (blocks) per core */
    OCC_RES_BARRIERS,    /* barrier-using work-groups per core */
    OCC_RES_COUNT
} occ_resource;

OCC_API const char *occ_resource_name(occ_resource r); /* "threads", "slm", ... */

typedef enum occ_reason {
    OCC_REASON_NONE = 0,
    OCC_REASON_WG_TOO_LARGE,       /* work-group exceeds max work-group size */
    OCC_REASON_WG_ZERO,            /* a work-group dimension is zero */
    OCC_REASON_SUB_GROUP,          /* sub-group size not supported */
    OCC_REASON_GRF_MODE,           /* no GRF mode with that many registers */
    OCC_REASON_SLM_TOO_LARGE,      /* local memory over the per-WG maximum */
    OCC_REASON_REGS_PER_THREAD,    /* registers per thread over the maximum */
    OCC_REASON_REGS_PER_WG,        /* registers of the block over the maximum */
    OCC_REASON_CONTEXTS,           /* one WG needs more contexts than a core has */
    OCC_REASON_CARVEOUT,           /* carveout percentage out of range */
    OCC_REASON_KERNEL_MAX_WG,      /* work-group over the kernel's maximum (launch bounds) */
    OCC_REASON_REQD_WG,            /* work-group other than the kernel's required size */
    OCC_REASON_REQD_SUB_GROUP,     /* sub-group other than the kernel's required size */
    OCC_REASON_COUNT
} occ_reason;

OCC_API const char *occ_reason_text(occ_reason r);

typedef struct occ_residency {
    uint32_t struct_size;
    bool launchable;
    occ_reason reason;             /* why not launchable; in words: occ_residency_reason() */

    uint32_t sub_group;            /* the sub-group size used */
    uint32_t grf;                  /* the GRF mode used (registers) */
    uint64_t wg_size;              /* work-items per work-group */
    uint32_t contexts_per_wg;      /* ceil(W/S) */
    uint32_t contexts_per_core;    /* in the GRF mode used */
    uint32_t limits[OCC_RES_COUNT];/* WGs per core each resource allows; OCC_NO_LIMIT */
    uint32_t limited_by;           /* bitmask of (1u << occ_resource): the binding ones */
    uint32_t resident_wgs;         /* work-groups per core */
    uint32_t contexts_used;
    uint32_t contexts_idle;
    double occupancy;              /* contexts_used / contexts_per_core, 0..1 */

    uint64_t slm_per_wg_alloc;     /* after reserved + rounding; 0 without SLM */
    uint64_t slm_core_config;      /* core's local memory size used (carveout) */
    uint32_t regs_per_wg_alloc;    /* register-file devices */
} occ_residency;

OCC_API void occ_residency_init(occ_residency *r);

/* Per-core residency of a kernel.  Returns OCC_OK whenever it could evaluate,
 * including "cannot launch" (see r->launchable). */
OCC_API occ_status occ_residency_compute(const occ_device *dev, const occ_kernel *k,
                                         occ_residency *r);

/* Why a kernel cannot launch, in words ("work-group of 640 work-items is
 * larger than the maximum 512"), into buf; "" when it can.  Kept out of
 * occ_residency so that a query formats no text.  Returns the length. */
OCC_API size_t occ_residency_reason(const occ_device *dev, const occ_kernel *k, char *buf,
                                    size_t size);

/* Waves per SIMD (vector engine) of a kernel, two ways.  compiler: as the
 * vendor's compiler states them for work-groups of k's size (AMD: LLVM's
 * remark "Occupancy [waves/SIMD]", which takes the kernel's flat
 * work-group-size maximum): per wave, assuming the work-groups fill the
 * core, rounded up over its SIMDs, so it may count part of a work-group.
 * resident: what the whole work-groups occ_residency_compute holds give,
 * contexts used / vector engines (0 when k cannot launch).
 * OCC_ERR_UNSUPPORTED: the vendor's compiler states no such figure (Intel,
 * NVIDIA), or libocc has no rules for the device's target (an AMD profile
 * of another gfx target); OCC_ERR_INVALID_ARGUMENT: a NULL argument or a wrong struct_size. */
OCC_API occ_status occ_waves_per_simd(const occ_device *dev, const occ_kernel *k, uint32_t *compiler,
                                      double *resident);

/* Batch: n kernels, n results; same answers as one by one. */
OCC_API occ_status occ_residency_batch(const occ_device *dev, const occ_kernel *ks,
                                       occ_residency *rs, size_t n);

/* ---- next step ------------------------------------------------------------ */

typedef enum occ_input {
    OCC_INPUT_WG_SIZE = 0,
    OCC_INPUT_SUB_GROUP,
    OCC_INPUT_SLM,
    OCC_INPUT_GRF,
    OCC_INPUT_REGISTERS,
    OCC_INPUT_CARVEOUT,
    OCC_INPUT_BARRIER,
    OCC_INPUT_COUNT
} occ_input;

/* Whether a kernel input counts on this device (false: it is ignored): the
 * registers per thread only with a register file (NVIDIA), the GRF mode only
 * without (Intel), the carveout only where legal carveouts are listed. */
OCC_API bool occ_device_takes(const occ_device_desc *d, occ_input in);
/* The GRF registers per thread a kernel asking for `grf` runs with, as the
 * driver treats it: a device with one GRF mode (tgl, dg1, rkl, gen9, gen11)
 * runs a kernel built for more registers (the large-GRF option) in that mode,
 * with that mode's counts; otherwise `grf` itself. */
OCC_API uint32_t occ_grf_as_driver(const occ_device_desc *d, uint32_t grf);

typedef struct occ_next_step {
    occ_input input;
    uint64_t value;         /* new value (WG size, SG, bytes, registers, percent; 0 = remove barrier) */
    bool at_most;           /* "value or less" (true) vs "value or more"/exactly (false) */
    uint32_t resident_wgs;  /* residency after the change */
    double occupancy;       /* core occupancy after the change */
} occ_next_step;

/* The smallest change of each single input that raises resident work-groups
 * and occupancy (or makes an unlaunchable kernel launch): applied, every step
 * gives strictly more occupancy than the kernel has now.  A launch in
 * clusters (k->cluster set, a device with GPC data) is judged under the
 * cluster cap (occ_clusters.occupancy); where the cap binds, the step is a
 * larger work-group (at_most false): the smallest that reaches the most.  Best
 * first (highest occupancy, then the cheaper input).  Writes at most cap
 * steps, returns how many it found (0: nothing to gain). */
OCC_API size_t occ_next_steps(const occ_device *dev, const occ_kernel *k, occ_next_step *steps,
                              size_t cap);
/* "reduce SLM per work-group to 32 KB or less: 2 work-groups per Xe-core, 100 %" */
OCC_API size_t occ_next_step_format(const occ_device *dev, const occ_next_step *s, char *buf,
                                    size_t size);

/* ---- whole GPU, equal work-group durations -------------------------------- */

typedef struct occ_gpu {
    uint32_t struct_size;
    uint64_t work_groups;
    uint64_t contexts_needed;      /* work_groups * contexts_per_wg */
    uint64_t contexts_total;       /* cores * contexts_per_core */
    uint64_t wave_capacity;        /* cores * resident_wgs */
    uint64_t waves;                /* ceil(work_groups / wave_capacity) */
    uint64_t full_waves;
    double full_wave_occupancy;    /* occupancy of a full wave */
    uint64_t last_wave_work_groups;/* WGs in the last wave */
    double last_wave_occupancy;
    double average_occupancy;      /* time-weighted, each wave weighted by its length */
    double intel_calculator_occupancy; /* the calculator's formula: after one or more full
                                          waves, a partial last wave has weight 0 */
    /* a cluster launch (occ_gpu_compute_clusters): a wave holds the clusters
     * resident at once, so wave_capacity is max_active_clusters * cluster_size;
     * both 0 for an ordinary launch */
    uint32_t cluster_size;
    uint64_t max_active_clusters;
} occ_gpu;

OCC_API occ_status occ_gpu_compute(const occ_device *dev, const occ_residency *r,
                                   uint64_t work_groups, occ_gpu *g);

/* The most work-groups one cooperative launch of k may have (every one
 * resident at once), as the vendor's driver counts them: Intel, the rule of
 * zeKernelSuggestMaxCooperativeGroupCount (it pools the thread contexts of
 * all cores and caps barrier-using work-groups at the driver's 32 per core,
 * so it differs from wave_capacity); NVIDIA, blocks per SM x SMs.  *groups
 * is 0 when k cannot launch.  OCC_ERR_INVALID_ARGUMENT: a NULL argument or
 * a wrong struct_size. */
OCC_API occ_status occ_cooperative_max(const occ_device *dev, const occ_kernel *k, uint64_t *groups);
/* The same from a kernel's answer (occ_residency's or occ_eval's resident
 * work-groups and contexts), its barrier use and local memory: for batches
 * answered already.  0 when resident_wgs is 0 (cannot launch). */
OCC_API uint64_t occ_cooperative_max_of(const occ_device *dev, uint32_t resident_wgs, uint32_t contexts_per_wg,
                                        uint32_t contexts_per_core, bool barrier, uint64_t slm_bytes);

/* ---- thread-block clusters (NVIDIA 9.0+; docs/clusters.md) ---------------- */

/* A cluster's work-groups run on distinct cores of one GPC, and a cluster
 * launch holds at most cluster_max_work_groups per core however many fit. */
typedef struct occ_clusters {
    uint32_t struct_size;
    uint32_t size;                 /* work-groups per cluster: x * y * z */
    uint32_t work_groups_per_core; /* min(resident work-groups, the device's cluster cap) */
    uint64_t max_active_clusters;  /* clusters resident at once: the sum over GPCs of G >= size
                                      cores of floor(G * work_groups_per_core / size);
                                      cuOccupancyMaxActiveClusters */
    uint32_t cores_used;           /* cores of the GPCs that can hold a cluster of this size */
    uint32_t gpcs_used;            /* those GPCs */
    uint32_t contexts_used;        /* a core's thread contexts busy in the launch:
                                      work_groups_per_core x contexts per work-group */
    double occupancy;              /* contexts_used over the core's contexts: the residency's
                                      occupancy under the cluster cap (lower where it binds) */
} occ_clusters;

/* The clusters of k's launch (k->cluster; 0,0,0 is a cluster of one
 * work-group) resident at once.  OK also when k cannot launch (0 clusters).
 * OCC_ERR_UNSUPPORTED: the device has no GPC data (core.gpc_sms) or takes no
 * cluster launches; OCC_ERR_VALUE: the size is over the device's maximum
 * (portable, or non-portable with k->cluster_non_portable), as the driver
 * refuses it; diag (may be NULL) says why. */
OCC_API occ_status occ_cluster_compute(const occ_device *dev, const occ_kernel *k, occ_clusters *c,
                                       occ_diag *diag);
/* c->max_active_clusters of occ_cluster_compute alone. */
OCC_API occ_status occ_max_active_clusters(const occ_device *dev, const occ_kernel *k, uint64_t *clusters);
/* The largest cluster size with at least one active cluster, up to the
 * portable maximum (the non-portable one with k->cluster_non_portable); 0 when
 * the kernel cannot launch.  k->cluster is not read (the driver's
 * cuOccupancyMaxPotentialClusterSize ignores compiled dimensions too). */
OCC_API occ_status occ_max_potential_cluster_size(const occ_device *dev, const occ_kernel *k, uint32_t *size);
/* The cluster count from an answer already made (a batch's resident
 * work-groups) and a cluster size: 0 when resident_wgs is 0, when the device
 * has no GPC data or when size is 0. */
OCC_API uint64_t occ_max_active_clusters_of(const occ_device *dev, uint32_t resident_wgs, uint32_t size);
/* The work-groups per core a launch in clusters holds when resident_wgs fit
 * one (the cluster cap, occ_clusters.work_groups_per_core): the occupancy in
 * clusters is the residency's times this over resident_wgs.  0 when the
 * device has no GPC data. */
OCC_API uint32_t occ_cluster_work_groups_of(const occ_device *dev, uint32_t resident_wgs);
/* occ_gpu_compute for a cluster launch: the waves of work_groups (a multiple of
 * c->size, else OCC_ERR_VALUE) when c->max_active_clusters clusters are
 * resident at once; OCC_ERR_UNSUPPORTED when none can be. */
OCC_API occ_status occ_gpu_compute_clusters(const occ_device *dev, const occ_residency *r,
                                            const occ_clusters *c, uint64_t work_groups, occ_gpu *g);

/* The rule inverted: the GPCs and the cluster cap of a device from the
 * driver's cluster answers (occcalc probe, docs/clusters.md).  One set of
 * answers is one kernel configuration: its per-core residency without
 * clusters (cuOccupancyMaxActiveBlocksPerMultiprocessor) and its active
 * clusters of sizes 1..n_sizes (cuOccupancyMaxActiveClusters, non-portable
 * sizes allowed). */
#define OCC_CLUSTER_ANSWERS_MAX 16
typedef struct occ_cluster_answers {
    uint32_t work_groups_per_core;             /* the driver's answer without clusters */
    uint32_t n_sizes;                          /* sizes 1..n_sizes answered */
    uint64_t clusters[OCC_CLUSTER_ANSWERS_MAX]; /* clusters[c - 1]: active clusters of size c */
} occ_cluster_answers;

typedef struct occ_gpc_structure {
    uint32_t n_gpcs;
    uint32_t gpc_sms[OCC_MAX_GPCS];    /* largest first */
    uint32_t cluster_max_work_groups;  /* the cap; the largest per-core residency of the
                                          answers when no answer shows one */
} occ_gpc_structure;

/* The one GPC structure of `cores` cores (and cap) under which the rule gives
 * every answer of the n sets; sets whose kernel holds nothing are skipped.
 * OCC_ERR_VALUE with diag's reason when the answers follow no structure, when
 * two structures give them all (ask more configurations: a set of another
 * per-core residency), or when finding it would take too long. */
OCC_API occ_status occ_gpcs_from_clusters(uint32_t cores, const occ_cluster_answers *sets, size_t n,
                                          occ_gpc_structure *out, occ_diag *diag);

/* Work-groups for a global size; OCC_ERR_VALUE (with diag message) when the
 * work-group size does not divide it. */
OCC_API occ_status occ_work_groups_for_global(const occ_kernel *k, const uint64_t global[3],
                                              uint64_t *work_groups, occ_diag *diag);

#ifdef __cplusplus
}
#endif
#endif /* OCC_OCC_H */
