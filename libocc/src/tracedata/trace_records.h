/* The launch records of a traced run (docs/trace.md, "Records"), read back
 * from the files the interposer wrote, as they are: the records of each
 * process, kernels and devices by their per-process ids resolved to
 * indices, repeat counts added to the launches they name.  occ/trace.h's
 * implementation aggregates them (trace_aggregate.c). */
#ifndef OCC_TRACE_RECORDS_H
#define OCC_TRACE_RECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum tr_vendor { TR_ZE = 1, TR_CUDA = 2 } tr_vendor;

typedef struct tr_process {
    long pid, ppid;
    char exe[512];
} tr_process;

typedef struct tr_device {
    long pid;
    unsigned id;
    tr_vendor vendor;
    char name[256];
    /* Level Zero */
    unsigned eus, threads_per_eu, simd, max_wg, slm, pci_id;
    /* CUDA */
    int cc_major, cc_minor, sms, driver;
} tr_device;

typedef struct tr_kernel {
    long pid;
    unsigned id;
    tr_vendor vendor;
    unsigned dev;          /* tr_device id in the same process; 0 unknown */
    size_t device;         /* its index in tr_data.devices; SIZE_MAX unknown */
    char *name;
    /* Level Zero (zeKernelGetProperties) */
    unsigned sg, req_sg, slm, private_bytes, spill;
    char grf[16];          /* "default", "large", "auto", "unknown" */
    unsigned req_wg[3];
    /* CUDA (cuFuncGetAttribute; -1 = not answered) */
    int regs, static_smem, local, max_threads, carveout, max_dyn;
    uint32_t cluster[3];   /* compiled cluster dimensions; 0,0,0 none */
    int nonportable;       /* non-portable cluster sizes allowed; -1 not answered */
} tr_kernel;

typedef struct tr_launch {
    uint64_t count;        /* launches this record stands for (N lines: repeats) */
    size_t kernel;         /* index in tr_data.kernels; SIZE_MAX when unknown */
    long pid, tid;
    char kind[12];         /* normal, coop, indirect, ex */
    uint32_t wg[3];
    uint64_t groups[3];
    bool groups_known;     /* false: indirect launch, counts on the device */
    uint64_t dyn;          /* dynamic local/shared memory bytes */
    int rc;                /* the API's return code */
    int drv;               /* CUDA: the driver's blocks per SM; -1 none */
    uint32_t cluster[3];
    int drv_clusters;      /* CUDA, a launch in clusters: the driver's active clusters; -1 not
                              answered, -2 not a launch in clusters (or not recorded) */
} tr_launch;

typedef struct tr_time {
    char *name;
    uint32_t wg[3];
    uint64_t groups[3];
    uint64_t dyn;
    uint64_t ns;           /* summed over count executions */
    uint64_t count;
} tr_time;

typedef struct tr_data {
    tr_process *processes; /* every process the interposer was loaded into */
    size_t n_processes;
    tr_device *devices;
    size_t n_devices;
    tr_kernel *kernels;
    size_t n_kernels;
    tr_launch *launches;
    size_t n_launches;
    tr_time *times;
    size_t n_times;
    size_t unresolved;     /* launches whose kernels the device chooses (U lines) */
    size_t bad_lines;      /* unreadable lines (a process killed mid-line) */
    uint64_t dropped;      /* launches the processes could not record (X lines) */
    uint64_t dropped_other;/* other records they could not write */
    int stop_errno;        /* why a process stopped recording (the first such); 0 none or its cap */
    char warnings[1024];   /* W lines, joined */
} tr_data;

/* Read path: a directory (every *.rec in it, by pid) or one record file.
 * Returns 0, or an errno value with a message in err (no such path, an
 * unreadable or irregular file, out of memory). */
int tr_read_path(const char *path, tr_data *d, char *err, size_t err_size);
void tr_free(tr_data *d);

/* A kernel's device record, or NULL (constant time). */
const tr_device *tr_kernel_device(const tr_data *d, const tr_kernel *k);

#endif
