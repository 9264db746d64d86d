/*
 * libocc backends: validation on real hardware.
 *
 * A backend opens a live device ("cuda" through libcuda's driver API, "ze"
 * through Level Zero), describes it as a profile, launches a probe kernel with
 * a requested configuration and hands back one record per work-group (or per
 * sub-group / hardware thread): which core it ran on and when.  Everything
 * above that is shared by all backends and works without a GPU:
 *
 *   records --occ_timeline_from_records--> measured timeline --+
 *                                                              +--occ_timeline_compare--> occ_comparison
 *   device + kernel --occ_validation_predict--> predicted -----+
 *
 * Records can be written to a file and read back (occ_probe_file_*), so a
 * measurement made on a GPU machine replays anywhere.  occ_validation_analyse
 * does all of it in one call and gives the verdict (`occcalc validate` only
 * prints its report).
 *
 * Watchdog: when occ_backend_options.timeout_s > 0 (the default), the driver
 * work runs in a forked child process that talks to the caller through pipes;
 * a launch that takes longer than the timeout, or a driver that crashes, ends
 * that child, and the call returns OCC_ERR_DEVICE with a clear message instead
 * of hanging or crashing the caller.  Fork happens in occ_backend_open, before
 * any driver is loaded in the caller.  With timeout_s == 0 the backend runs in
 * the caller's process.
 *
 * Unlike the model (occ.h), these functions do I/O and may block; they are
 * still free of globals, and one occ_backend must not be used by two threads
 * at once.
 */
#ifndef OCC_BACKEND_H
#define OCC_BACKEND_H

#include "occ/occ.h"
#include "occ/timeline.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the registry ---------------------------------------------------------- */

/* Backends known to this build ("cuda", "ze"), built or not. */
OCC_API size_t occ_backend_count(void);
OCC_API const char *occ_backend_name(size_t i);
/* Whether the backend was compiled in (a compiled-in backend may still find no
 * driver or device at run time: occ_backend_open says so). */
OCC_API bool occ_backend_available(const char *name);

/* ---- opening a device -------------------------------------------------------- */

typedef struct occ_backend occ_backend; /* opaque: one open device */

typedef struct occ_backend_options {
    uint32_t struct_size;
    uint32_t device_index;   /* which device of the backend; 0 = first */
    double timeout_s;        /* watchdog per call (open, launch, query); 0 = no
                                watchdog, run in this process.  Default 30. */
    const char *kernel_dir;  /* where probe kernels are; NULL = search (the
                                OCC_KERNEL_DIR environment variable, the build
                                tree, then the installed datadir/occ/kernels) */
} occ_backend_options;

OCC_API void occ_backend_options_init(occ_backend_options *o);

/* Facts about the live device and its driver, for reports. */
typedef struct occ_backend_info {
    uint32_t struct_size;
    char backend[16];        /* "cuda", "ze" */
    char device[128];        /* driver's device name: "NVIDIA H100 80GB HBM3" */
    char driver[128];        /* "CUDA 13.0 (driver 580.159.04)" */
    char architecture[64];   /* "sm_90", "Xe-HPG" */
    char bus_id[32];         /* PCI "0000:65:00.0" or empty */
    uint32_t device_count;   /* devices the backend sees */
    /* The driver's own residency query and what its answers count (see
     * occ_probe_result.driver_resident): per core (CUDA) or work-groups on the
     * whole device at once (Level Zero's zeKernelSuggestMaxCooperativeGroupCount). */
    char driver_query[64];   /* "" when the backend has none */
    bool driver_per_device;
    /* true when kernels do not run on this device although launches succeed
     * (Intel's driver in hardware-less mode): a launch returns no records. */
    bool no_execution;
    /* Where the numbers of occ_backend_describe's profile came from, one line
     * each, for the profile's sources list (Level Zero: which fields the driver
     * reports, which are derived, which come from the family's shipped profile). */
    uint32_t n_sources;
    char sources[8][256];
    /* The built-in profile the backend recognised the device as (Level Zero:
     * its PCI id and every field the driver reports), or "" when it names none
     * (then occ_builtin_fitting of the description may find one). */
    char profile[64];
} occ_backend_info;

/* Open a device.  Errors:
 *   OCC_ERR_NOT_FOUND    no backend of that name (diag lists the known ones)
 *   OCC_ERR_UNSUPPORTED  the backend was not compiled into this build
 *   OCC_ERR_DEVICE       driver library missing, driver init failed, no such
 *                        device, the child process died or timed out
 * diag->message always says which. */
OCC_API occ_status occ_backend_open(const char *name, const occ_backend_options *opts,
                                    occ_backend **out, occ_diag *diag);
OCC_API void occ_backend_close(occ_backend *b);

/* The device as a profile (same shape as a shipped YAML profile; write it
 * with occ_device_write_yaml) and the driver facts.  Either pointer may be
 * NULL. */
OCC_API occ_status occ_backend_describe(occ_backend *b, occ_device_desc *desc,
                                        occ_backend_info *info, occ_diag *diag);

/* ---- probe launches ----------------------------------------------------------- */

/* What to launch: a probe kernel that spins for a fixed time in every thread
 * and records where and when it ran. */
typedef struct occ_probe_config {
    uint32_t struct_size;
    occ_kernel kernel;        /* requested work-group size, local memory (static +
                                 dynamic), barrier, registers, carveout */
    uint64_t work_groups;     /* grid size (1-D) */
    double duration_s;        /* spin per work-group; default 300 us */
    uint32_t seed;            /* mixes into the probe's register-pressure values and
                                 the duration draws */
    double duration_spread_s; /* 0: every work-group spins duration_s.  > 0: work-group
                                 b spins duration_s plus a share of this drawn from
                                 (seed, b) alone, uniform in [0, spread] (CUDA) */
} occ_probe_config;

OCC_API void occ_probe_config_init(occ_probe_config *c);

#define OCC_RECORD_WHOLE_WG UINT32_MAX /* occ_record.thread: the record covers the whole WG */
#define OCC_RECORD_UNKNOWN UINT32_MAX  /* an id the backend cannot read */

/* Where and when one work-group (or one of its sub-groups / hardware threads)
 * ran.  Times are in ticks of the file's or result's tick_seconds, on one clock
 * shared by all cores of the device. */
typedef struct occ_record {
    uint64_t work_group;      /* linear work-group id (dispatch order) */
    uint32_t thread;          /* sub-group index in the WG, or OCC_RECORD_WHOLE_WG */
    uint32_t core_start;      /* core (SM, Xe-core) at start */
    uint32_t core_end;        /* core at end (differs only under preemption/migration) */
    uint32_t engine;          /* vector engine / SM sub-partition, or OCC_RECORD_UNKNOWN */
    uint32_t slot;            /* hardware thread / warp slot, or OCC_RECORD_UNKNOWN */
    uint32_t cluster;         /* a launch in thread-block clusters (occ_probe_result.actual.cluster
                                 set): the linear id of the work-group's cluster as the hardware
                                 reported it (%clusterid); 0 otherwise (API 3.3; was reserved, 0) */
    uint64_t t_start;         /* ticks */
    uint64_t t_end;           /* ticks; >= t_start */
} occ_record;

/* The outcome of one probe launch. */
typedef struct occ_probe_result {
    uint32_t struct_size;
    occ_kernel requested;     /* as asked */
    occ_kernel actual;        /* what ran: the compiled kernel's real resources read back
                                 from the driver (registers, static + dynamic local memory) */
    char kernel_name[64];     /* probe variant used, e.g. "occ_probe_r64_bar" */
    char differences[256];    /* "registers 40 requested, 48 compiled; ..." or empty */
    uint32_t static_slm;      /* local memory the compiler allocated */
    uint32_t dynamic_slm;     /* local memory requested at launch */
    uint32_t local_bytes;     /* per-thread spill/stack memory of the compiled kernel */
    int32_t driver_resident;  /* the driver's own WGs-per-core answer for the launched
                                 configuration (CUDA: cuOccupancyMaxActiveBlocksPerMultiprocessor);
                                 WGs on the whole device when occ_backend_info.driver_per_device
                                 (Level Zero); -1 when the backend has none */
    uint64_t work_groups;
    double duration_s;        /* requested spin */
    double tick_seconds;      /* seconds per record tick (1e-9 for %globaltimer) */
    double timer_resolution_s;/* measured update step of the clock (CUDA: 32 ns or 1 us) */
    double wall_s;            /* host-side time of the launch, synchronize included */
    uint32_t records_missing; /* records still holding the poison after the run */
    uint32_t records_invalid; /* written but inconsistent (end < start, core out of range) */
    size_t n_records;
    occ_record *records;      /* owned; occ_probe_result_free */
    /* The backend's own comparison of driver_resident with the model for the
     * device it described ("the driver pools threads across Xe-cores: ..."), or "". */
    char driver_note[512];
    double duration_spread_s; /* the requested spread of spins (occ_probe_config) */
    uint32_t seed;            /* the launch's seed */
    /* A launch in thread-block clusters (cfg->kernel.cluster set; CUDA 9.0+,
     * docs/clusters.md; API 3.3): the driver's clusters resident at once on the
     * device for it (cuOccupancyMaxActiveClusters), -1 when none or refused. */
    int32_t driver_clusters;
} occ_probe_result;

OCC_API void occ_probe_result_init(occ_probe_result *r);
OCC_API void occ_probe_result_free(occ_probe_result *r); /* frees records, keeps the struct */

/* Launch a probe and wait for it (watchdog: opts.timeout_s).  A configuration
 * the hardware refuses (too many registers per block, too much local memory)
 * returns OCC_ERR_VALUE with the driver's message; unusable devices return
 * OCC_ERR_DEVICE.  The records come back sorted by work-group.
 * Thread-block clusters (cfg->kernel.cluster set, with its
 * cluster_non_portable): CUDA launches the cluster probe in clusters of that
 * shape over cfg->work_groups blocks (a whole number of clusters, else
 * OCC_ERR_VALUE) and fills occ_record.cluster and driver_clusters; a GPU or
 * driver without clusters, or another backend, gives OCC_ERR_UNSUPPORTED. */
OCC_API occ_status occ_backend_launch(occ_backend *b, const occ_probe_config *cfg,
                                      occ_probe_result *res, occ_diag *diag);

/* The driver's own residency answer, without launching, for n requested
 * kernels (the probe variant nearest each request is used; actual[i] gets its
 * real resources).  driver_resident[i] = -1 when the driver refuses that
 * configuration.  OCC_ERR_UNSUPPORTED when the backend has no such query.
 * CUDA: for a request in clusters (requested[i].cluster[0] set, with its
 * cluster_non_portable), driver_resident[i] is the clusters resident at once
 * on the device (cuOccupancyMaxActiveClusters), -1 when refused. */
OCC_API occ_status occ_backend_driver_residency(occ_backend *b, const occ_kernel *requested,
                                                occ_kernel *actual, int32_t *driver_resident,
                                                size_t n, occ_diag *diag);

/* ---- measured timeline ---------------------------------------------------------- */

typedef struct occ_measure_params {
    uint32_t struct_size;
    uint32_t cores;             /* cores of the device; a core id >= cores is invalid */
    uint32_t contexts_per_core; /* thread contexts (warp slots) per core */
    uint32_t contexts_per_wg;   /* contexts a whole-WG record stands for */
    double tick_seconds;
    double merge_tolerance;     /* events closer than this fraction of the median WG
                                   duration are one instant; 0 = default 0.05 */
    bool lanes;                 /* fill the per-core lanes */
} occ_measure_params;

OCC_API void occ_measure_params_init(occ_measure_params *p);

/* What the reconstruction saw besides the phases. */
typedef struct occ_measure_info {
    uint32_t struct_size;
    uint64_t work_groups;       /* distinct work-groups in the records */
    double median_wg_s;         /* median work-group duration (its time unit) */
    double min_wg_s, max_wg_s;
    double merge_tolerance_s;   /* the tolerance used, in seconds */
    double dispatch_spread_s;   /* first to last start within the first instant */
    uint32_t peak_per_core;     /* most WGs resident on one core at once */
    uint32_t peak_contexts_per_core;
    uint32_t cores_used;        /* distinct cores that ran a WG */
    uint64_t migrated;          /* records whose core changed between start and end */
    uint64_t events_merged;     /* starts/ends folded into an earlier instant */
} occ_measure_info;

OCC_API void occ_measure_info_init(occ_measure_info *i);

/* Measured timeline: times in seconds from the first start.  A phase begins
 * and ends where the set of resident WGs changes; start and end events closer
 * than merge_tolerance x median WG duration to the first event of an instant
 * belong to that instant (real dispatch spreads a wave's starts over about a
 * microsecond; the probe spins hundreds).  Records of one WG are combined
 * (earliest start, latest end, core at start).  OCC_ERR_VALUE for a record
 * with end < start or a core id out of range (diag says which). */
OCC_API occ_status occ_timeline_from_records(const occ_record *records, size_t n,
                                             const occ_measure_params *p, occ_timeline *out,
                                             occ_measure_info *info, occ_diag *diag);

/* ---- prediction and comparison ----------------------------------------------- */

/* The predicted timeline of n equal work-groups of a kernel (times in units of
 * one work-group's duration; per-core lanes filled).  Uses the device's
 * dispatch order.  OCC_ERR_UNSUPPORTED if the kernel cannot launch. */
OCC_API occ_status occ_validation_predict(const occ_device *dev, const occ_kernel *k,
                                          uint64_t work_groups, occ_timeline *out);

/* The same with the work-group duration in seconds (unit_s > 0), so the
 * device's dispatch timing is simulated when it has one (docs/phases.md
 * "Dispatch timing"; without, the same as occ_validation_predict), and with
 * durations in that unit (NULL: equal). */
OCC_API occ_status occ_validation_predict_timed(const occ_device *dev, const occ_kernel *k,
                                                uint64_t work_groups, double unit_s,
                                                const occ_durations *durations, occ_timeline *out);

/* Each work-group's measured duration (earliest start to latest end of its
 * records) in units of unit_s, indexed by work-group id: *values (malloc'd,
 * *n = the highest id + 1; ids without a record get 1).  OCC_ERR_VALUE when
 * there are no records. */
OCC_API occ_status occ_measured_durations(const occ_probe_result *res, double unit_s,
                                          double **values, size_t *n);

typedef struct occ_compare_tolerance {
    uint32_t struct_size;
    double occupancy_pp;        /* per-phase occupancy, percentage points; default 1 */
    double duration_rel;        /* per-phase duration, relative; default 0.10 */
    double average_pp;          /* time-weighted average occupancy; default 1 */
    double distance_pp;         /* time-weighted distance of the curves; default
                                   OCC_COMPARE_DISTANCE_PP (docs/validation/README.md:
                                   from the noise of repeated runs) */
} occ_compare_tolerance;

#define OCC_COMPARE_DISTANCE_PP 2.0

OCC_API void occ_compare_tolerance_init(occ_compare_tolerance *t);

typedef struct occ_comparison {
    uint32_t struct_size;
    bool pass;                        /* every check below holds */
    uint32_t predicted_peak_per_core; /* most WGs on one core at once */
    uint32_t measured_peak_per_core;
    bool peak_ok;                     /* equal */
    size_t predicted_phases, measured_phases;
    bool phases_ok;                   /* equal */
    size_t compared_phases;           /* min of the two */
    double max_occupancy_diff_pp;     /* worst |pred - meas| over compared phases */
    size_t worst_occupancy_phase;
    bool occupancy_ok;
    double max_duration_diff_rel;     /* worst |meas - pred| / pred */
    size_t worst_duration_phase;
    bool durations_ok;
    double predicted_average, measured_average; /* time-weighted occupancy */
    char summary[256];                /* "pass" or the first failed check in words */
    /* occupancy over time (both curves from 0, each 0 after its end) */
    double average_diff_pp;           /* |predicted - measured average| */
    bool average_ok;
    double distance_pp;               /* integral of |pred(t) - meas(t)| over the longer
                                         run, divided by its length, in points */
    bool distance_ok;
    bool phases_compared;             /* the phase counts are equal, so the per-phase
                                         checks (occupancy_ok, durations_ok) count */
} occ_comparison;

/* Compare occupancy over time.  The predicted timeline's times are multiplied
 * by unit_s (seconds per work-group duration, normally the measured median).
 * pass = the most work-groups per core are equal, the averages and the
 * time-weighted distance are within tolerance, and, when the phase counts are
 * equal, every phase's occupancy and duration too; a different phase count is
 * reported (phases_ok false) but is not by itself a failure. */
OCC_API occ_status occ_timeline_compare(const occ_timeline *predicted, double unit_s,
                                        const occ_timeline *measured,
                                        const occ_compare_tolerance *tol, occ_comparison *out);

/* Redo the checks over time of a comparison (out, from occ_timeline_compare)
 * against the exact measured curve: a timeline from the same records built
 * without merging nearby events (occ_measure_params.merge_tolerance tiny), so
 * a launch ramp or a refill dip shorter than the merge tolerance is not
 * smoothed away.  Sets measured_average, average_*, distance_* and the verdict. */
OCC_API occ_status occ_timeline_compare_over_time(const occ_timeline *predicted, double unit_s,
                                                  const occ_timeline *measured_exact,
                                                  const occ_compare_tolerance *tol,
                                                  occ_comparison *out);

/* ---- dispatch timing ---------------------------------------------------------- */

/* Fit a device's dispatch timing (occ_device_desc.refill_gap_s, core_interval_s,
 * core_interval_per_context_s, gpu_interval_s; docs/phases.md "Dispatch
 * timing") from two launches of at least two full waves each: small blocks of
 * small_contexts thread contexts (one warp) and large blocks of large_contexts.
 * The four fields of out are set; the rest is left alone.  OCC_ERR_VALUE (diag
 * says which launch) when most cores show no second wave. */
OCC_API occ_status occ_dispatch_timing_fit(const occ_probe_result *small, uint32_t small_contexts,
                                           const occ_probe_result *large, uint32_t large_contexts,
                                           uint32_t cores, occ_device_desc *out, occ_diag *diag);

/* ---- record files ------------------------------------------------------------- */

/* A text file with everything a replay needs: backend and driver facts, the
 * device as a YAML profile, the requested and actual kernel, the launch and
 * the records (docs/validation/README.md describes the format). */
OCC_API occ_status occ_probe_file_write(FILE *f, const occ_backend_info *info,
                                        const occ_device_desc *desc, const occ_probe_result *res);

/* Read one back.  desc, info may be NULL.  OCC_ERR_PARSE / OCC_ERR_SCHEMA /
 * OCC_ERR_VALUE with diag (file, line) for a bad file. */
OCC_API occ_status occ_probe_file_read(FILE *f, const char *origin, occ_backend_info *info,
                                       occ_device_desc *desc, occ_probe_result *res,
                                       occ_diag *diag);


/* ---- a whole validation ---------------------------------------------------------- */

/* What a validation concluded. */
typedef enum occ_validation_verdict {
    OCC_VALIDATION_PASS = 0,       /* every check holds */
    OCC_VALIDATION_MISMATCH,       /* compared, and a check failed: the comparison, a record
                                      missing or invalid, or the driver's answer not the model's */
    OCC_VALIDATION_NOT_LAUNCHABLE, /* the model says the kernel that ran cannot launch */
    OCC_VALIDATION_NO_RECORDS,     /* the launch returned no records: nothing to compare */
} occ_validation_verdict;

/* A launch in thread-block clusters (docs/clusters.md) measured against the
 * cluster rule: where the clusters ran and when.  A cluster runs from its
 * first work-group's start to its last one's end. */
typedef struct occ_cluster_check {
    bool clustered;               /* the launch was in clusters: the rest counts */
    occ_clusters predicted;       /* occ_cluster_compute for the kernel that ran */
    uint64_t launched;            /* clusters in the grid */
    uint64_t expected;            /* clusters at once the rule gives for this grid:
                                     min(predicted.max_active_clusters, launched) */
    uint64_t at_once;             /* measured: the most clusters running at once */
    uint64_t first_wave;          /* measured: the clusters that started before the
                                     first one ended */
    uint32_t cores_used;          /* measured: cores that ran a work-group */
    uint32_t peak_per_core;       /* measured: the most work-groups on one core at once */
    uint32_t n_groups;            /* measured: groups of cores joined by sharing a cluster
                                     (each must lie within one GPC) */
    uint32_t group_cores[OCC_MAX_GPCS]; /* their sizes, largest first (the first
                                     OCC_MAX_GPCS when there are more) */
    /* the checks; cores_ok counts only when launched >= the clusters at once */
    bool driver_ok;               /* driver_clusters (when given) == predicted */
    bool at_once_ok, first_wave_ok, cores_ok, per_core_ok, groups_ok;
    bool ok;                      /* all of them */
} occ_cluster_check;

/* The full report of one validation run: what was measured (a backend's
 * launch or a record file), the prediction for the kernel that really ran,
 * the measured timeline, their comparison and the verdict.  One procedure
 * decides what a validation is, for occcalc and for every embedder:
 *
 *  - the model is evaluated for the actual kernel (the compiled registers and
 *    local memory the driver reported), on `dev`;
 *  - the driver's own residency answer, when it gives one per core, must equal
 *    the model's resident work-groups (0 when the model says it cannot launch);
 *  - core ids beyond the device's core count are renumbered densely when the
 *    cores that appear fit (an SM id need not be dense);
 *  - the measured median work-group duration is the time unit of the
 *    prediction (the requested spin when the median is unknown);
 *  - the comparison uses the default tolerances (occ_compare_tolerance_init);
 *  - a launch in clusters is checked against the cluster rule instead of
 *    over time (occ_cluster_check: the driver's clusters, the clusters at once
 *    and in the first wave equal the rule's, the cores used equal when the grid
 *    fills the device, no core above the cap, the cores that shared a cluster
 *    fit the GPCs) and by the most work-groups per core of the comparison; its
 *    occupancy over time and phases are reported, not checked (docs/clusters.md,
 *    "validate --cluster"); a profile without GPC data gives OCC_ERR_UNSUPPORTED. */
typedef struct occ_validation {
    uint32_t struct_size;
    /* what was measured (filled by the caller, or by occ_validation_replay) */
    occ_backend_info info;
    occ_device_desc desc;         /* the device as the backend or file described it */
    occ_probe_result res;         /* owned; its core ids may be renumbered */
    /* the analysis */
    const occ_device *dev;        /* the profile the prediction used */
    occ_validation_verdict verdict;
    bool pass;                    /* verdict == OCC_VALIDATION_PASS */
    char problem[256];            /* NOT_LAUNCHABLE and NO_RECORDS in words, else "" */
    occ_residency model;          /* per core, for the kernel that ran */
    bool records_ok;              /* records present, none missing or invalid */
    bool driver_ok;               /* the driver's answer equals the model (or there is none) */
    occ_timeline predicted;       /* units of one work-group duration */
    occ_timeline measured;        /* seconds */
    occ_measure_info minfo;
    double unit_s;                /* seconds per work-group duration in the prediction */
    occ_compare_tolerance tol;
    occ_comparison cmp;
    occ_device *owned_dev;        /* private: the device made of desc when none was given */
    occ_cluster_check clusters;   /* a launch in clusters (API 3.3) */
} occ_validation;

OCC_API void occ_validation_init(occ_validation *v);
/* Frees the records, the timelines and an owned device; keeps the struct. */
OCC_API void occ_validation_free(occ_validation *v);

/* Analyse what v->info, v->desc and v->res hold.  dev: the profile to predict
 * with, or NULL for the device v->desc describes.  merge_tolerance: see
 * occ_measure_params (0 = default).  The verdict is in v (OCC_OK also when the
 * verdict is not a pass).  v may be analysed again (another dev, another
 * tolerance): the earlier analysis is dropped.  Errors, with diag saying which:
 *   OCC_ERR_VALUE (or the description's status)  v->desc is not a valid device,
 *                        or a record is inconsistent (end before start, core
 *                        out of range)
 *   OCC_ERR_NO_MEMORY, OCC_ERR_TOO_LARGE, OCC_ERR_UNSUPPORTED  the timelines
 *                        could not be built (diag: "cannot predict ...") */
OCC_API occ_status occ_validation_analyse(occ_validation *v, const occ_device *dev,
                                          double merge_tolerance, occ_diag *diag);

/* The driver refused to launch a kernel (occ_backend_launch gave
 * OCC_ERR_VALUE): does the model agree?  Writes "the model agrees it cannot
 * launch: REASON" or "the model says it can launch (disagreement): " into
 * buf; *agrees says which.  OCC_ERR_VALUE (diag) when desc is not a valid
 * device. */
OCC_API occ_status occ_validation_refused(const occ_device_desc *desc, const occ_kernel *k,
                                          bool *agrees, char *buf, size_t size, occ_diag *diag);

/* Read a record file (occ_probe_file_read) into v and analyse it: the same
 * report as `occcalc validate --replay FILE [--device D]`. */
OCC_API occ_status occ_validation_replay(FILE *f, const char *origin, const occ_device *dev,
                                         double merge_tolerance, occ_validation *v,
                                         occ_diag *diag);

#ifdef __cplusplus
}
#endif
#endif /* OCC_BACKEND_H */
