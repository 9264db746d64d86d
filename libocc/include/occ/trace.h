/*
 * occ/trace.h: reading the launch records `occcalc trace` collects
 * (docs/trace.md) and what they add up to.
 *
 * A trace is a directory of record files (one per traced process image,
 * DIR/PID.rec) or one such file.  occ_trace_open reads it, groups kernels of
 * equal name and resources across processes, groups their launches into
 * configurations (work-group, dynamic local memory, grid, cluster), and
 * predicts each configuration once with the model (occ_residency_compute,
 * occ_gpu_compute for its grid, occ_next_steps), on the device profile the
 * caller gives or, without one, on the built-in profile whose shape equals
 * each traced device's.
 *
 * Reading takes time linear in the files however they are made: a line that
 * cannot be read is counted (totals.unreadable_lines), never fatal.  Launches
 * a process could not record (its disk full, its record cap) are counted
 * too (totals.dropped_launches).
 *
 * Everything returned points into the trace and lives until occ_trace_close.
 * Index arguments out of range return NULL.
 */
#ifndef OCC_TRACE_H
#define OCC_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "occ/occ.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An index that refers to nothing (no device profile, no configuration). */
#define OCC_TRACE_NONE SIZE_MAX

typedef enum occ_trace_api {
    OCC_TRACE_LEVEL_ZERO = 1,
    OCC_TRACE_CUDA = 2,
} occ_trace_api;

typedef struct occ_trace occ_trace;

/* A process image the interposer was loaded into, launches or not. */
typedef struct occ_trace_process {
    long pid, ppid;
    const char *executable;
    uint64_t launches;
    bool parent_traced;        /* its parent process is in the trace too */
} occ_trace_process;

/* A device profile the predictions use: the caller's, or one per distinct
 * traced device. */
typedef struct occ_trace_device {
    const occ_device *profile; /* NULL: no built-in profile fits (no predictions) */
    const char *chosen;        /* how it was chosen, in words */
    occ_trace_api api;         /* of the traced device; 0 for the caller's profile */
    const char *traced_name;   /* its name as the user knows it: the driver's marketing name,
                                  else (a GPU the driver has no name for) the product of the
                                  profile its PCI id pins, else the id's product line;
                                  NULL for the caller's profile */
} occ_trace_device;

/* A kernel (equal name and resources across processes), with what the
 * driver reported of its resources. */
typedef struct occ_trace_kernel {
    const char *name;
    occ_trace_api api;
    size_t device;             /* index of its occ_trace_device; OCC_TRACE_NONE */
    struct {                   /* Level Zero: zeKernelGetProperties */
        uint32_t simd, required_sub_group, slm_bytes, private_bytes, spill_bytes;
        const char *grf;       /* "default", "large", "auto" or "unknown" */
    } ze;
    struct {                   /* CUDA: cuFuncGetAttribute; -1 not answered */
        int registers, shared_static_bytes, local_bytes_per_thread, max_threads_per_block;
        int carveout;          /* preferred shared-memory carveout, percent */
        uint32_t cluster[3];   /* compiled cluster dimensions; 0,0,0 none */
    } cuda;
    uint64_t launches;         /* repeats included */
    uint64_t refused_launches; /* the API returned an error */
    size_t work_group_sizes, grids; /* distinct, over its configurations */
    size_t first_config, n_configs; /* occ_trace_config_at(t, first_config + i) */
    size_t advised_config;     /* the most launched (ties: lowest occupancy); NONE: none */
    uint64_t gpu_time_ns, gpu_executions; /* measured (CUDA); 0 executions: not measured */
    /* Its launches outside what the compiled kernel allows (its configurations'
     * outside_bound), and Level Zero's required work-group size (0,0,0: none;
     * CUDA's bound is cuda.max_threads_per_block). */
    uint64_t launches_outside_bound;
    uint32_t required_work_group[3];
} occ_trace_kernel;

/* A launch configuration of a kernel and its prediction. */
typedef struct occ_trace_config {
    size_t kernel;             /* index of its occ_trace_kernel */
    uint32_t work_group[3], cluster[3];
    uint64_t dynamic_local_bytes;
    bool grid_known;           /* false: an indirect launch (counts in device memory) */
    uint64_t grid[3];          /* work-groups (blocks) */
    uint64_t launches;
    int driver_resident_blocks; /* CUDA: the driver's answer; -1 none */
    bool driver_mixed;         /* the driver answered differently across launches */
    bool predicted;            /* false: no device profile, or the model could not evaluate */
    occ_kernel model_kernel;   /* what the model was given */
    occ_residency residency;
    bool have_gpu;             /* grid known and launchable: gpu is filled */
    occ_gpu gpu;
    const char *next_step;     /* the first next step, in words; "" none */
    const char *cannot_launch; /* why not, in words; "" when it can */
    uint64_t gpu_time_ns, gpu_executions;
    /* CUDA, a launch in clusters (a cluster attribute of more than one block,
     * or compiled dimensions; model_kernel.cluster is its shape): */
    bool in_clusters;
    bool have_clusters;        /* the model answered: clusters is filled (the profile has GPCs) */
    occ_clusters clusters;
    int driver_max_active_clusters; /* cuOccupancyMaxActiveClusters asked during the run;
                                       -1 not answered or not recorded */
    bool driver_clusters_mixed; /* the driver answered differently across launches */
    /* The launch is outside its kernel's bound: more work-items than the
     * kernel allows (CUDA: MAX_THREADS_PER_BLOCK, its launch bound), or not its
     * required work-group or sub-group size (Level Zero); the model refuses it
     * for that (cannot_launch says which), whatever the device could hold. */
    bool outside_bound;
} occ_trace_config;

/* One launch record (a launch and its repeats, `count`). */
typedef struct occ_trace_launch {
    long pid, tid;
    size_t config;             /* index of its configuration; NONE: kernel never seen created */
    const char *kind;          /* "normal", "coop", "indirect", "ex" */
    uint64_t count;
    uint32_t work_group[3];
    uint64_t dynamic_local_bytes;
    bool grid_known;
    uint64_t grid[3];
    int result;                /* the API's return code */
    int driver_resident_blocks; /* CUDA; -1 none */
    int driver_max_active_clusters; /* CUDA, a launch in clusters; -1 none */
} occ_trace_launch;

typedef struct occ_trace_totals {
    size_t processes, threads, kernels, configurations;
    uint64_t launches;         /* every launch read, of unknown kernels too */
    uint64_t launches_of_unknown_kernels;
    uint64_t unresolved_indirect_launches; /* multi-kernel indirect launches */
    uint64_t gpu_time_ns, gpu_executions;  /* attributed to kernels */
    uint64_t unmatched_gpu_time_ns, unmatched_gpu_executions;
    uint64_t unreadable_lines; /* a process killed mid-line, or not a record */
    uint64_t dropped_launches; /* launches processes could not record */
    uint64_t dropped_records;  /* other records they could not write */
    int stop_errno;            /* why a process stopped recording (errno); 0: its cap, or none */
    const char *warnings;      /* the interposers' warnings, joined by "; "; "" none */
    uint64_t launches_outside_bound; /* launches outside their kernel's bound */
} occ_trace_totals;

/* Read path (a record directory, or one record file) and predict.  device:
 * the profile for every kernel, or NULL to choose among the built-in
 * profiles per traced device; it must outlive the trace.  Returns OCC_OK,
 * OCC_ERR_IO (path cannot be opened or read; err says which and why) or
 * OCC_ERR_NO_MEMORY.  err may be NULL. */
OCC_API occ_status occ_trace_open(const char *path, const occ_device *device, occ_trace **out,
                                  char *err, size_t err_size);
OCC_API void occ_trace_close(occ_trace *t);

OCC_API const occ_trace_totals *occ_trace_totals_get(const occ_trace *t);
OCC_API size_t occ_trace_process_count(const occ_trace *t);
OCC_API const occ_trace_process *occ_trace_process_at(const occ_trace *t, size_t i);
OCC_API size_t occ_trace_device_count(const occ_trace *t);
OCC_API const occ_trace_device *occ_trace_device_at(const occ_trace *t, size_t i);
/* Kernels in report order: most GPU time, then most launches, then name. */
OCC_API size_t occ_trace_kernel_count(const occ_trace *t);
OCC_API const occ_trace_kernel *occ_trace_kernel_at(const occ_trace *t, size_t i);
/* Configurations grouped by kernel, in the kernels' order; within a kernel
 * in the order first launched. */
OCC_API size_t occ_trace_config_count(const occ_trace *t);
OCC_API const occ_trace_config *occ_trace_config_at(const occ_trace *t, size_t i);
/* Launch records in file order (files by pid), each thread's in its order. */
OCC_API size_t occ_trace_launch_count(const occ_trace *t);
OCC_API const occ_trace_launch *occ_trace_launch_at(const occ_trace *t, size_t i);

#ifdef __cplusplus
}
#endif

#endif
