/*
 * libocc advisor: search, rank and explain launch configurations; bounds for
 * kernels whose resources are not known yet; sweeps and the inverse "limits"
 * view; a compact batch evaluation for autotuners.
 *
 * Same conventions as occ.h: plain structs (set struct_size with the *_init
 * helpers), pure and thread-safe functions, no globals.  Nothing here does
 * I/O.  occ_advise and occ_advise_shapes allocate scratch tables (sized by
 * the device's maximum work-group size) and free them before returning;
 * everything else writes only into the caller's buffers (the batch calls
 * keep a table of about 9 KB on the stack).
 */
#ifndef OCC_ADVISE_H
#define OCC_ADVISE_H

#include "occ/occ.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- compact batch evaluation ------------------------------------------- */

/* The numbers of an occ_residency, 24 bytes instead of ~270: for scoring
 * millions of configurations without writing the text fields. */
typedef struct occ_eval {
    uint32_t resident_wgs;      /* work-groups per core; 0 when it cannot launch */
    uint32_t contexts_per_wg;   /* ceil(W / S) (as occ_residency) */
    uint32_t contexts_per_core; /* in the GRF mode used */
    uint8_t limited_by;         /* bitmask (1u << occ_resource); 0 when it cannot launch */
    uint8_t reason;             /* occ_reason; OCC_REASON_NONE when launchable */
    uint16_t unused;            /* zero */
    double occupancy;           /* core occupancy 0..1; 0 when it cannot launch */
} occ_eval;

/* n kernels, n results; the same numbers as occ_residency_compute one by one.
 * OCC_ERR_INVALID_ARGUMENT (nothing written past the bad entry) when a kernel
 * has a wrong struct_size. */
OCC_API occ_status occ_evaluate_batch(const occ_device *dev, const occ_kernel *ks, occ_eval *out,
                                      size_t n);

/* One kernel, the compact query: what a tuner asks ("how many work-groups per
 * core, what occupancy, what limits it"), the question CUDA's
 * cuOccupancyMaxActiveBlocksPerMultiprocessor and Level Zero's
 * zeKernelSuggestMaxCooperativeGroupCount answer with one number.  The same
 * numbers as occ_evaluate_batch of one kernel; occ_residency_compute gives the
 * full report.  OCC_ERR_INVALID_ARGUMENT: a NULL argument or a wrong
 * struct_size (*out not written). */
OCC_API occ_status occ_evaluate(const occ_device *dev, const occ_kernel *k, occ_eval *out);

/* ---- prepared kernel: fixed resources, a query per launch shape --------- */

/* A kernel's fixed resources (sub-group size, static local memory, barrier,
 * GRF mode, registers, carveout: what compiling it decides) prepared for one
 * device, so that a query per launch shape (work-group size, dynamic local
 * memory) answers from a small per-kernel table.  It is the question CUDA's
 * cuOccupancyMaxActiveBlocksPerMultiprocessor(function, block size, dynamic
 * shared memory) and Level Zero's zeKernelSetGroupSize +
 * zeKernelSuggestMaxCooperativeGroupCount answer for a loaded kernel.
 * Immutable once made: any number of threads may query one at a time. */
typedef struct occ_prepared occ_prepared;

/* Prepares k (its wg[] is ignored; slm_bytes is the static part) for dev,
 * which must outlive *out.  Allocates (a few KB at most): free with
 * occ_prepared_free.  OCC_ERR_INVALID_ARGUMENT: a NULL argument or a wrong
 * struct_size; OCC_ERR_NO_MEMORY.  A kernel that can never launch is
 * prepared all the same: its queries say why, as occ_evaluate does. */
OCC_API occ_status occ_prepare(const occ_device *dev, const occ_kernel *k, occ_prepared **out);
OCC_API void occ_prepared_free(occ_prepared *p); /* NULL is fine */

/* The compact answer for a launch of work-groups wg_x x wg_y x wg_z with
 * dyn_slm_bytes of dynamic local memory per work-group: exactly occ_evaluate
 * of the prepared kernel with wg = {wg_x, wg_y, wg_z} and slm_bytes = static +
 * dynamic (a sum past 2^64 - 1 counts as 2^64 - 1).
 * OCC_ERR_INVALID_ARGUMENT: p or out NULL (*out not written). */
OCC_API occ_status occ_prepared_evaluate(const occ_prepared *p, uint32_t wg_x, uint32_t wg_y, uint32_t wg_z,
                                         uint64_t dyn_slm_bytes, occ_eval *out);

/* ---- column batch: one device, inputs and results as arrays ------------- */

/* Inputs of n kernels, one array per field (structure of arrays, as NumPy
 * columns are).  A NULL array means that field's default for every kernel:
 * work-group dimensions 1, sub-group 0 (smallest supported), no local memory,
 * no barrier, GRF 0 (default mode), registers 0 (unknown), carveout -1, and
 * no constraint (0) for the fields occ_kernel names alike. */
typedef struct occ_columns {
    uint32_t struct_size;            /* sizeof(occ_columns): occ_columns_init */
    const uint32_t *wg_x, *wg_y, *wg_z;
    const uint32_t *sub_group;
    const uint64_t *slm_bytes;
    const uint8_t *barrier;          /* nonzero: the kernel uses a barrier */
    const uint32_t *grf;
    const uint32_t *regs_per_thread;
    const int32_t *carveout_pct;
    /* API 3.4: what the compiled kernel allows (occ_kernel's max_wg_size,
     * reqd_wg[3], reqd_sub_group) and AMD's kernel fields (sgprs, cu_mode).
     * A caller built against 3.3 or earlier passes a struct_size that ends
     * before them (OCC_COLUMNS_SIZE_NO_CONSTRAINTS): they are then not read,
     * NULL for every kernel. */
    const uint32_t *max_wg_size;
    const uint32_t *reqd_wg_x, *reqd_wg_y, *reqd_wg_z;
    const uint32_t *reqd_sub_group;
    const uint32_t *sgprs;
    const uint32_t *cu_mode;
} occ_columns;

/* The struct_size of occ_columns as API 3.3 and earlier had it (the columns
 * before max_wg_size): still accepted by occ_evaluate_columns. */
#define OCC_COLUMNS_SIZE_NO_CONSTRAINTS offsetof(occ_columns, max_wg_size)

/* Results of n kernels, one array per occ_eval field; a NULL array is not
 * written (ask only for what you use). */
typedef struct occ_eval_columns {
    uint32_t struct_size;            /* sizeof(occ_eval_columns): occ_eval_columns_init */
    uint32_t *resident_wgs;
    double *occupancy;
    uint8_t *limited_by;
    uint8_t *reason;
    uint32_t *contexts_per_wg;
    uint32_t *contexts_per_core;
} occ_eval_columns;

OCC_API void occ_columns_init(occ_columns *c);           /* every array NULL */
OCC_API void occ_eval_columns_init(occ_eval_columns *c); /* every array NULL */

/* n kernels of one device from columns: result i equals occ_evaluate of
 * kernel i (its constraints included: a kernel outside them cannot launch,
 * for the same reason).  Every array given holds n entries; result arrays do
 * not overlap the inputs or each other.  OCC_ERR_INVALID_ARGUMENT (nothing
 * written): NULL dev, in or out, or a struct_size below OCC_COLUMNS_SIZE_NO_CONSTRAINTS
 * (in) or sizeof(occ_eval_columns) (out).  n = 0 is OK and writes nothing. */
OCC_API occ_status occ_evaluate_columns(const occ_device *dev, size_t n, const occ_columns *in,
                                        occ_eval_columns *out);

/* ---- bounds: kernels with unknown resources ------------------------------ */

/* Inputs that are not known yet (before the kernel is compiled). */
enum {
    OCC_UNKNOWN_SUB_GROUP = 1u << 0, /* any of sub_groups[] (default: every supported size) */
    OCC_UNKNOWN_SLM = 1u << 1,       /* any local memory in [slm_min, slm_max] */
    OCC_UNKNOWN_REGISTERS = 1u << 2, /* NVIDIA: registers per thread in [regs_min, regs_max];
                                        Intel: any GRF mode with registers in that range */
    OCC_UNKNOWN_BARRIER = 1u << 3,   /* with or without a barrier */
    OCC_UNKNOWN_CARVEOUT = 1u << 4,  /* any shared-memory carveout preference (NVIDIA) */
    OCC_UNKNOWN_ALL = 0x1f
};

typedef struct occ_kernel_range {
    uint32_t struct_size;
    occ_kernel k;          /* known inputs; the unknown ones are ignored */
    uint32_t unknown;      /* OCC_UNKNOWN_* bits */
    uint64_t slm_min;      /* unknown SLM: lowest value (default 0) */
    uint64_t slm_max;      /* unknown SLM: highest value; 0 = the device's maximum per work-group */
    uint32_t regs_min;     /* unknown registers: lowest (0 = 1) */
    uint32_t regs_max;     /* unknown registers: highest (0 = the device's maximum) */
    uint32_t n_sub_groups; /* unknown sub-group: candidates (0 = every supported size) */
    uint32_t sub_groups[OCC_MAX_SUB_GROUP_SIZES];
    uint64_t work_groups;  /* > 0: also bound the time-weighted GPU occupancy for this many */
} occ_kernel_range;

/* Minimum and maximum over every combination of the unknown inputs' values.
 * A value with which the kernel cannot launch counts as 0 resident and 0 %
 * (so *_min is 0 when some value cannot launch); *_max is over the values
 * that launch.  occupancy_max below a target proves that no value of the
 * unknown inputs reaches it: safe for pruning before compiling. */
typedef struct occ_bounds {
    uint32_t struct_size;
    bool always_launchable;     /* every combination launches */
    bool never_launchable;      /* none does */
    uint32_t resident_min, resident_max;
    double occupancy_min, occupancy_max;         /* per core, 0..1 */
    double gpu_occupancy_min, gpu_occupancy_max; /* time-weighted; 0 without work_groups */
    uint64_t waves_min, waves_max;               /* 0 without work_groups */
    occ_kernel best;            /* a combination reaching occupancy_max */
    occ_kernel worst;           /* a combination reaching occupancy_min */
    uint32_t evaluations;       /* model evaluations it took */
} occ_bounds;

OCC_API void occ_kernel_range_init(occ_kernel_range *r); /* occ_kernel_init'ed, nothing unknown */
OCC_API void occ_bounds_init(occ_bounds *b);
/* OCC_ERR_INVALID_ARGUMENT: NULL, bad struct_size, min > max, a candidate
 * sub-group of 0. */
OCC_API occ_status occ_residency_bounds(const occ_device *dev, const occ_kernel_range *r,
                                        occ_bounds *b);
OCC_API occ_status occ_residency_bounds_batch(const occ_device *dev, const occ_kernel_range *rs,
                                              occ_bounds *bs, size_t n);

/* ---- advisor ---------------------------------------------------------------- */

typedef enum occ_advise_order {
    OCC_ORDER_RANK = 0, /* best first */
    OCC_ORDER_SIZE = 1  /* sub-group ascending, GRF ascending, work-group size descending */
} occ_advise_order;

typedef enum occ_threshold_on {
    OCC_THRESHOLD_CORE = 0, /* per-core occupancy (Intel's 100 % table) */
    OCC_THRESHOLD_GPU = 1   /* time-weighted GPU occupancy (needs a global size or count) */
} occ_threshold_on;

typedef struct occ_advise_request {
    uint32_t struct_size;
    /* The problem: a 1-3 D global size, or a fixed work-group count, or
     * neither (then only per-core figures rank). */
    uint32_t dims;              /* dimensions of global and of the shapes, 1..3 */
    uint64_t global[3];         /* global[0] == 0: not given; unused dimensions 1 */
    uint64_t work_groups;       /* fixed work-group count (1-D sizes); 0: not given */
    /* Work-group constraints. */
    uint32_t wg_fixed[3];       /* nonzero: that dimension is fixed, e.g. {1, 0, 128} */
    uint32_t wg_multiple;       /* size must be a multiple of this; 0 or 1: any */
    uint32_t wg_min, wg_max;    /* size range; 0: 1 / the device's maximum */
    bool full_sub_groups;       /* only sizes that are multiples of the sub-group size */
    /* What the kernel needs. */
    uint32_t n_sub_groups;      /* allowed sub-group sizes; 0: every supported size */
    uint32_t sub_groups[OCC_MAX_SUB_GROUP_SIZES];
    uint32_t grf;               /* Intel: GRF registers per thread the kernel needs; every
                                   mode with at least that many is tried; 0: every mode */
    uint32_t regs_per_thread;   /* register-file devices; 0: unknown (not limiting) */
    uint64_t slm_bytes;         /* local memory per work-group: constant part */
    uint64_t slm_per_item;      /* ... plus this many bytes per work-item */
    bool barrier;
    int32_t carveout_pct;       /* NVIDIA carveout preference; -1: default */
    /* What to return. */
    double threshold;           /* > 0: every configuration reaching it (0..1], not the best N */
    occ_threshold_on threshold_on;
    occ_advise_order order;
    /* What the compiled kernel allows (occ_kernel's fields of the same names):
     * a configuration outside them is never proposed; 0: none. */
    uint32_t max_wg_size;       /* most work-items per work-group (launch bounds) */
    uint32_t reqd_wg[3];        /* the required work-group shape: the only one tried */
    uint32_t reqd_sub_group;    /* the required sub-group size: the only one tried */
    /* AMD (occ_kernel's fields of the same names): SGPRs per wave, CU mode */
    uint32_t sgprs;
    uint32_t cu_mode;
    /* A launch in thread-block clusters (occ_kernel's fields of the same
     * names; 0,0,0: not in clusters): every configuration is judged under the
     * cluster cap (occ_clusters.occupancy) and its GPU figures in waves of
     * clusters.  A device without GPC data, or a size over its maximum, fails
     * the request (OCC_ERR_UNSUPPORTED, OCC_ERR_VALUE; the summary says why). */
    uint32_t cluster[3];
    bool cluster_non_portable;
} occ_advise_request;

/* What decides a configuration's place: for rank 1, what beats rank 2; for
 * every other, the first score on which it loses to rank 1. */
typedef enum occ_why {
    OCC_WHY_ONLY = 0,        /* the only valid configuration */
    OCC_WHY_CORE_OCCUPANCY,  /* lower per-core occupancy */
    OCC_WHY_GPU_OCCUPANCY,   /* same per core, lower over the run: the tail wave */
    OCC_WHY_LANES,           /* partial sub-groups leave SIMD lanes idle */
    OCC_WHY_WAVES,           /* more waves */
    OCC_WHY_WORK_GROUPS,     /* smaller work-groups: more of them to dispatch */
    OCC_WHY_SUB_GROUP,       /* a larger sub-group for the same occupancy */
    OCC_WHY_GRF,             /* a GRF mode with fewer thread contexts */
    OCC_WHY_TIE,             /* equal on every score */
    OCC_WHY_COUNT
} occ_why;

OCC_API const char *occ_why_name(occ_why w); /* "core_occupancy", ... */

/* One configuration: a work-group size (every shape of that size scores the
 * same; wg is one of them, shapes counts them), a sub-group size and a GRF
 * mode. */
typedef struct occ_advice {
    uint32_t struct_size;
    uint32_t rank;              /* 1-based position in the ranking; 0 in size order */
    bool is_best;               /* the best configuration (in size order: of those returned) */
    uint32_t wg[3];             /* a shape: the one with the largest last dimension */
    uint64_t shapes;            /* shapes of this size that fit the request */
    uint64_t wg_size;
    uint32_t sub_group;
    uint32_t grf;               /* the GRF mode (registers) */
    uint64_t slm_bytes;         /* the kernel's local memory at this size */
    uint64_t work_groups;       /* 0 without a global size or count */
    uint32_t resident_wgs, contexts_per_wg, contexts_per_core, contexts_used;
    uint32_t limited_by;        /* bitmask (1u << occ_resource) */
    double occupancy;           /* per core */
    double lane_utilization;    /* W / (contexts_per_wg x S): busy SIMD lanes */
    double gpu_occupancy;       /* time-weighted over the run; = occupancy without a problem size */
    double intel_gpu_occupancy; /* occ_gpu.intel_calculator_occupancy */
    uint64_t waves;             /* 0 without a problem size */
    uint64_t last_wave_work_groups;
    double last_wave_occupancy;
    double score;               /* gpu_occupancy x lane_utilization: the first ranking key */
    uint64_t slm_limit;         /* most local memory per work-group that keeps resident_wgs
                                   (with a threshold: that still reaches it) */
    occ_why why;
    bool cluster_capped;        /* in clusters: the cluster cap, not limited_by, holds resident_wgs
                                   (occ_device_desc.cluster_max_work_groups; limited_by is 0) */
} occ_advice;

/* How far the search got; when nothing is valid, which constraint ruled
 * everything out. */
typedef enum occ_advise_stage {
    OCC_STAGE_OK = 0,
    OCC_STAGE_SHAPE,           /* no work-group shape fits the global size / fixed dimensions */
    OCC_STAGE_SIZE,            /* minimum, maximum or multiple remove every size */
    OCC_STAGE_SUB_GROUP,       /* no allowed sub-group size is supported */
    OCC_STAGE_GRF,             /* no GRF mode has the registers */
    OCC_STAGE_FULL_SUB_GROUPS, /* no size is a multiple of an allowed sub-group size */
    OCC_STAGE_LAUNCH,          /* no configuration can launch */
    OCC_STAGE_THRESHOLD,       /* nothing reaches the threshold */
    OCC_STAGE_COUNT
} occ_advise_stage;

typedef struct occ_advise_summary {
    uint32_t struct_size;
    uint64_t shapes;            /* work-group shapes that fit the request */
    uint64_t sizes;             /* distinct work-group sizes among them */
    uint32_t sub_groups;        /* sub-group sizes tried */
    uint32_t grf_modes;         /* GRF modes tried */
    uint64_t configurations;    /* size x sub-group x GRF mode evaluated */
    uint64_t launchable;
    uint64_t matching;          /* launchable (and reaching the threshold): available entries */
    occ_advise_stage failed;    /* OCC_STAGE_OK unless nothing is valid */
    occ_reason launch_reason;   /* OCC_STAGE_LAUNCH: the commonest reason */
    double best_value;          /* OCC_STAGE_THRESHOLD: the best value reached */
    char message[384];          /* what rules everything out, or the contradiction */
} occ_advise_summary;

OCC_API void occ_advise_request_init(occ_advise_request *q); /* 1-D, nothing given, carveout -1 */
OCC_API void occ_advise_summary_init(occ_advise_summary *s);

/* Enumerate, score and rank.  Writes at most cap entries to out (best first,
 * or in size order), *n_out = how many.  Returns OCC_OK when it could search,
 * even if nothing is valid (summary->failed and ->message say why);
 * OCC_ERR_INVALID_ARGUMENT for a contradictory request (summary->message
 * names it: minimum above maximum, a global size and a count, a threshold
 * outside 0..1, ...); OCC_ERR_TOO_LARGE for a device whose maximum
 * work-group size is over 65536; OCC_ERR_NO_MEMORY. */
OCC_API occ_status occ_advise(const occ_device *dev, const occ_advise_request *q, occ_advice *out,
                              size_t cap, size_t *n_out, occ_advise_summary *summary);

/* One line on why a sits where it does, against best (the entry with
 * is_best; NULL: a is the best).  Returns the length it needed (snprintf
 * style).  "best: 7 work-groups x 16 contexts fill all 112 contexts of each
 * Xe-core; 99.5 % over the run (98 waves, the last 52 % full)" / "57.1 % per
 * Xe-core: 1 work-group x 64 contexts, the 48 left cannot hold another
 * (limited by thread contexts)". */
OCC_API size_t occ_advice_explain(const occ_device *dev, const occ_advice *a,
                                  const occ_advice *best, char *buf, size_t size);

/* The shapes of one work-group size that fit the request (global size,
 * fixed dimensions, device maximum), in the advisor's order (largest last
 * dimension first).  Writes at most cap, returns how many there are. */
OCC_API uint64_t occ_advise_shapes(const occ_device *dev, const occ_advise_request *q,
                                   uint64_t wg_size, uint32_t (*shapes)[3], size_t cap);

/* ---- sweeps and the inverse view ---------------------------------------- */

typedef enum occ_axis {
    OCC_AXIS_WG_SIZE = 0, /* work-items per work-group (1-D) */
    OCC_AXIS_SLM,         /* local memory per work-group, bytes */
    OCC_AXIS_REGISTERS,   /* NVIDIA: registers per thread */
    OCC_AXIS_GRF,         /* Intel: GRF mode (registers) */
    OCC_AXIS_SUB_GROUP,   /* supported sub-group sizes */
    OCC_AXIS_COUNT
} occ_axis;

OCC_API const char *occ_axis_name(occ_axis a); /* "wg", "slm", "regs", "grf", "sg" */

typedef struct occ_sweep_request {
    uint32_t struct_size;
    occ_kernel k;           /* the kernel; the swept input is replaced at each point */
    occ_axis axis;
    uint64_t from, to;      /* inclusive range; to 0: the device's maximum */
    uint64_t step;          /* 0: the axis's natural points (every change for SLM steps,
                               GRF modes and sub-groups; the sub-group size for work-group
                               sizes; 1 KB for granular local memory; 8 registers) */
    uint64_t slm_per_item;  /* work-group axis: local memory grows by this per work-item */
    uint64_t work_items;    /* > 0: GPU figures where the size divides it (global size product) */
    uint64_t work_groups;   /* > 0: GPU figures for this many work-groups */
} occ_sweep_request;

typedef struct occ_sweep_point {
    uint64_t x;
    bool launchable;
    occ_reason reason;
    uint32_t resident_wgs, contexts_per_wg, contexts_per_core, limited_by;
    double occupancy;       /* per core */
    bool has_gpu;           /* a work-group count is known at this point */
    uint64_t work_groups, waves;
    double gpu_occupancy;   /* time-weighted */
    /* waves per SIMD where the vendor's compiler states them (AMD,
     * occ_waves_per_simd): its count, and the whole work-groups'; 0: none */
    uint32_t waves_per_simd;
    double waves_per_simd_resident;
} occ_sweep_point;

OCC_API void occ_sweep_request_init(occ_sweep_request *q);
/* Writes at most cap points, *n_total = how many the sweep has (call with
 * cap 0 to size the buffer).  OCC_ERR_INVALID_ARGUMENT: from > to, an axis
 * the device does not have (registers on Intel, GRF on NVIDIA), a work-group
 * count and a work-item count both given. */
OCC_API occ_status occ_sweep(const occ_device *dev, const occ_sweep_request *q, occ_sweep_point *pts,
                             size_t cap, size_t *n_total);

/* A run of input values with the same residency: values lo..hi of the axis
 * give resident_wgs work-groups per core (0: cannot launch).  For local
 * memory and registers, hi is the most the kernel may use and keep that
 * residency. */
typedef struct occ_limit_row {
    uint64_t lo, hi;
    uint32_t resident_wgs;
    occ_reason reason;      /* when resident_wgs is 0 */
    uint32_t limited_by;    /* at hi */
    double occupancy_lo, occupancy_hi; /* per core over the run (differ on the work-group axis) */
} occ_limit_row;

/* Every value of the axis in [from, to] (step ignored: exact), merged into
 * runs; rows in ascending input order.  Same errors as occ_sweep. */
OCC_API occ_status occ_limits(const occ_device *dev, const occ_sweep_request *q, occ_limit_row *rows,
                              size_t cap, size_t *n_total);

/* The most local memory per work-group (bytes requested) with which k still
 * has at least min_resident work-groups per core; false when even none is
 * enough.  k's own slm_bytes is ignored. */
OCC_API bool occ_slm_limit(const occ_device *dev, const occ_kernel *k, uint32_t min_resident,
                           uint64_t *bytes);

/* ---- CUDA's choice of block size ---------------------------------------- */

/* Dynamic local memory (bytes) a work-group of wg_size work-items needs: CUDA's
 * blockSizeToDynamicSMemSize. */
typedef uint64_t (*occ_slm_for_wg)(void *user, uint32_t wg_size);

typedef struct occ_cuda_choice_request {
    uint32_t struct_size;      /* sizeof: occ_cuda_choice_request_init */
    uint64_t dyn_slm_bytes;    /* dynamic local memory per work-group ... */
    occ_slm_for_wg slm_for_wg; /* ... or, when not NULL, by work-group size */
    void *user;                /* passed to slm_for_wg */
    uint32_t wg_limit;         /* blockSizeLimit: 0 = the device's maximum */
    uint32_t kernel_max_wg;    /* the kernel's own maximum (launch bounds, as
                                  CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK): 0 = none */
} occ_cuda_choice_request;

typedef struct occ_cuda_choice {
    uint32_t struct_size;      /* sizeof: set before the call */
    uint32_t wg_size;          /* blockSize; 0 when no size can launch */
    uint32_t resident_wgs;     /* work-groups per core at that size */
    uint64_t min_work_groups;  /* minGridSize: resident_wgs x cores */
    double occupancy;          /* core occupancy at that size */
} occ_cuda_choice;

OCC_API void occ_cuda_choice_request_init(occ_cuda_choice_request *q); /* 0 bytes, no limits */

/* The work-group size CUDA's cudaOccupancyMaxPotentialBlockSize (with a
 * function: ...VariableSMem; the driver's cuOccupancyMaxPotentialBlockSize)
 * returns for kernel k (its wg[] and sub_group are ignored; slm_bytes is the
 * static part, the request adds the dynamic part): of the sizes from the
 * largest allowed down in steps of the sub-group size, the first that reaches
 * the most resident work-items per core, so the largest of equals.  occ's own
 * ranking (occ_advise) prefers the smallest of equals instead.  Meant for
 * NVIDIA devices (occ_vendor_words.cuda_choice); on others it applies the same
 * search.  OCC_ERR_INVALID_ARGUMENT: a NULL argument or a wrong struct_size. */
OCC_API occ_status occ_cuda_block_size(const occ_device *dev, const occ_kernel *k,
                                       const occ_cuda_choice_request *q, occ_cuda_choice *out);

/* ---- cluster sizes, ranked (docs/clusters.md) ---------------------------- */

/* One cluster size of a kernel, and why it keeps fewer work-groups at once
 * than the GPU's cores could hold. */
typedef struct occ_cluster_choice {
    uint32_t size;               /* work-groups per cluster */
    uint64_t max_active_clusters;
    uint64_t work_groups;        /* at once: max_active_clusters x size */
    double gpu_occupancy;        /* their thread contexts / the GPU's */
    uint32_t idle_cores;         /* in GPCs smaller than size */
    uint64_t rounding_slots;     /* slots of the GPCs used that no whole cluster fills */
    uint32_t capped_slots;       /* per core: resident work-groups over the cluster launch's cap */
} occ_cluster_choice;

/* Every cluster size of kernel k from 1 to the device's maximum (the
 * non-portable one with k->cluster_non_portable; k->cluster is not read),
 * best first: the most work-groups at once, then the larger size (more
 * blocks share a cluster's distributed shared memory).  Writes at most cap,
 * returns how many there are (0 when k cannot launch).  OCC_ERR_UNSUPPORTED:
 * the device has no GPC data. */
OCC_API occ_status occ_cluster_sizes(const occ_device *dev, const occ_kernel *k, occ_cluster_choice *out,
                                     size_t cap, size_t *n);

#ifdef __cplusplus
}
#endif
#endif /* OCC_ADVISE_H */
