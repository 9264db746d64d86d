/*
 * CUDA tracer: a CUPTI subscriber loaded by the CUDA driver itself
 * (CUDA_INJECTION64_PATH names this library; the driver calls
 * InitializeInjection during cuInit).  CUPTI's driver-API callbacks see every
 * launch whatever path reached the driver: the runtime (shared or static, as
 * inside cuBLAS), cuGetProcAddress pointers, CUkernel handles.  Nothing is
 * changed: the callback only reads the launch's parameters and asks the
 * driver about the function.
 *
 * Record lines (docs/trace.md):
 *  D <dev> cuda cc=M.m sms=N driver=V name=NAME
 *  K <kid> cuda dev=<dev> regs=N static=N local=N max_threads=N carveout=N max_dyn=N
 *    cluster=X,Y,Z nonportable=N name=NAME
 *  L <kid> <tid> cuda <normal|ex|coop> wg=X,Y,Z groups=X,Y,Z dyn=BYTES rc=N drv=BLOCKS cluster=X,Y,Z
 *    [drv_clusters=N]
 *  T <ns> count=N wg=X,Y,Z groups=X,Y,Z dyn=BYTES name=NAME
 *        (GPU time of N consecutive executions of a configuration, CUPTI activity; trace_time.c)
 *  W cuda <message>
 * drv is cuOccupancyMaxActiveBlocksPerMultiprocessor for the function, block
 * size and dynamic shared memory (-1 when the driver did not answer).  The K
 * line's cluster is the compiled cluster shape (0,0,0 none), nonportable
 * whether sizes over 8 are allowed.  A launch in clusters (an attribute of
 * more than one block, or compiled dimensions) adds drv_clusters:
 * cuOccupancyMaxActiveClusters for its configuration (-1 not answered).
 */
#define _GNU_SOURCE
#include "trace_map.h"
#include "trace_rec.h"
#include "trace_time.h"

#include <cuda.h>
#include <cupti.h>

#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The driver's answers per launch configuration are cached per kernel. */
#define DRV_CACHE 16

typedef struct drv_answer {
    unsigned block;
    size_t dyn;
    int blocks;
} drv_answer;

/* The driver's active clusters per configuration, cached per kernel. */
typedef struct drv_cluster_answer {
    unsigned block, cluster[3], grid[3];
    size_t dyn;
    int clusters;
} drv_cluster_answer;

typedef struct cuda_kernel_info {
    unsigned id;
    CUfunction func; /* the function to ask (resolved from a CUkernel when needed) */
    unsigned n_answers, next_answer;
    drv_answer answers[DRV_CACHE];
    bool compiled_cluster; /* __cluster_dims__: every launch is in clusters */
    unsigned n_clusters, next_clusters;
    drv_cluster_answer clusters[DRV_CACHE];
} cuda_kernel_info;

typedef struct cuda_device_info {
    unsigned id;
} cuda_device_info;

static struct {
    CUresult (*FuncGetAttribute)(int *, CUfunction_attribute, CUfunction);
    CUresult (*Occupancy)(int *, CUfunction, int, size_t);
    CUresult (*OccupancyClusters)(int *, CUfunction, const CUlaunchConfig *);
    CUresult (*KernelGetFunction)(CUfunction *, CUkernel);
    CUresult (*CtxGetDevice)(CUdevice *);
    CUresult (*DeviceGetAttribute)(int *, CUdevice_attribute, CUdevice);
    CUresult (*DeviceGetName)(char *, int, CUdevice);
    CUresult (*DriverGetVersion)(int *);
    CUresult (*FuncGetName)(const char **, CUfunction);

    CUptiResult (*Subscribe)(CUpti_SubscriberHandle *, CUpti_CallbackFunc, void *);
    CUptiResult (*EnableCallback)(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain,
                                  CUpti_CallbackId);
    CUptiResult (*ActivityRegisterCallbacks)(CUpti_BuffersCallbackRequestFunc,
                                             CUpti_BuffersCallbackCompleteFunc);
    CUptiResult (*ActivityEnable)(CUpti_ActivityKind);
    CUptiResult (*ActivityFlushAll)(uint32_t);
    CUptiResult (*ActivityGetNextRecord)(uint8_t *, size_t, CUpti_Activity **);
} api;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static trace_map kernels = {.value_size = sizeof(cuda_kernel_info)};
static trace_map devices = {.value_size = sizeof(cuda_device_info)};
static unsigned next_kernel_id, next_device_id;
static _Thread_local bool inside; /* our own driver calls are not launches */
static CUpti_SubscriberHandle subscriber;

/* Lock held: the current context's device number, D line once. */
static unsigned current_device(void)
{
    CUdevice dev = 0;
    if (!api.CtxGetDevice || api.CtxGetDevice(&dev) != CUDA_SUCCESS)
        return 0;
    bool created;
    cuda_device_info *d = trace_map_get(&devices, (const void *)(uintptr_t)(dev + 1), &created);
    if (!d)
        return 0;
    if (created) {
        d->id = ++next_device_id;
        int major = 0, minor = 0, sms = 0, version = 0;
        char name[256] = "", field[256];
        if (api.DeviceGetAttribute) {
            api.DeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
            api.DeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
            api.DeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
        }
        if (api.DeviceGetName)
            api.DeviceGetName(name, (int)sizeof name, dev);
        if (api.DriverGetVersion)
            api.DriverGetVersion(&version);
        trace_field(field, sizeof field, name);
        trace_line("D %u cuda cc=%d.%d sms=%d driver=%d name=%s", d->id, major, minor, sms, version,
                   field[0] ? field : "?");
    }
    return d->id;
}

static int attr(CUfunction f, CUfunction_attribute a)
{
    int v = -1;
    if (!api.FuncGetAttribute || api.FuncGetAttribute(&v, a, f) != CUDA_SUCCESS)
        return -1;
    return v;
}

/* Lock held: the kernel's state; on first sight its K line.  f may be a
 * CUkernel passed where a CUfunction goes (CUDA 12 runtimes do that). */
static cuda_kernel_info *kernel_of(CUfunction f, const char *symbol)
{
    bool created;
    cuda_kernel_info *k = trace_map_get(&kernels, f, &created);
    if (!k || !created)
        return k;
    k->id = ++next_kernel_id;
    k->func = f;
    int regs = attr(f, CU_FUNC_ATTRIBUTE_NUM_REGS);
    if (regs < 0 && api.KernelGetFunction) {
        CUfunction g = NULL;
        if (api.KernelGetFunction(&g, (CUkernel)f) == CUDA_SUCCESS && g) {
            k->func = g;
            regs = attr(g, CU_FUNC_ATTRIBUTE_NUM_REGS);
        }
    }
    const char *name = symbol;
    if ((!name || !*name) && api.FuncGetName && api.FuncGetName(&name, k->func) != CUDA_SUCCESS)
        name = NULL;
    char field[TRACE_LINE_MAX - 160];
    trace_field(field, sizeof field, name && *name ? name : "?");
    /* compiled cluster dimensions (0 where the driver has none or does not say) */
    int cw = 0, ch = 0, cd = 0;
    k->compiled_cluster = attr(k->func, CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET) > 0;
    if (k->compiled_cluster) {
        cw = attr(k->func, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH);
        ch = attr(k->func, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT);
        cd = attr(k->func, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH);
    }
    trace_line("K %u cuda dev=%u regs=%d static=%d local=%d max_threads=%d carveout=%d max_dyn=%d "
               "cluster=%d,%d,%d nonportable=%d name=%s",
               k->id, current_device(), regs, attr(k->func, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES),
               attr(k->func, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES),
               attr(k->func, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK),
               attr(k->func, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT),
               attr(k->func, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES), cw > 0 ? cw : 0,
               ch > 0 ? ch : 0, cd > 0 ? cd : 0,
               attr(k->func, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED), field);
    return k;
}

/* Lock held: the driver's resident blocks per SM, cached per configuration. */
static int driver_answer(cuda_kernel_info *k, unsigned block, size_t dyn)
{
    for (unsigned i = 0; i < k->n_answers; i++)
        if (k->answers[i].block == block && k->answers[i].dyn == dyn)
            return k->answers[i].blocks;
    int n = -1;
    if (!api.Occupancy || api.Occupancy(&n, k->func, (int)block, dyn) != CUDA_SUCCESS)
        n = -1;
    drv_answer *a = &k->answers[k->next_answer];
    k->next_answer = (k->next_answer + 1) % DRV_CACHE;
    if (k->n_answers < DRV_CACHE)
        k->n_answers++;
    *a = (drv_answer){block, dyn, n};
    return n;
}

typedef struct launch {
    CUfunction f;
    unsigned grid[3], block[3], cluster[3];
    size_t dyn;
    const char *kind;
} launch;

/* Lock held: the driver's active clusters for the launch (its grid, block,
 * dynamic shared memory and cluster attribute), cached per configuration. */
static int driver_clusters(cuda_kernel_info *k, const launch *l)
{
    unsigned block = l->block[0] * l->block[1] * l->block[2];
    for (unsigned i = 0; i < k->n_clusters; i++) {
        const drv_cluster_answer *a = &k->clusters[i];
        if (a->block == block && a->dyn == l->dyn && memcmp(a->cluster, l->cluster, sizeof a->cluster) == 0 &&
            memcmp(a->grid, l->grid, sizeof a->grid) == 0)
            return a->clusters;
    }
    CUlaunchAttribute at;
    memset(&at, 0, sizeof at);
    at.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    at.value.clusterDim.x = l->cluster[0];
    at.value.clusterDim.y = l->cluster[1];
    at.value.clusterDim.z = l->cluster[2];
    CUlaunchConfig c;
    memset(&c, 0, sizeof c);
    c.gridDimX = l->grid[0], c.gridDimY = l->grid[1], c.gridDimZ = l->grid[2];
    c.blockDimX = l->block[0], c.blockDimY = l->block[1], c.blockDimZ = l->block[2];
    c.sharedMemBytes = (unsigned)l->dyn;
    /* compiled dimensions are the function's own: no attribute then */
    c.attrs = k->compiled_cluster ? NULL : &at;
    c.numAttrs = k->compiled_cluster ? 0 : 1;
    int n = -1;
    if (!api.OccupancyClusters || api.OccupancyClusters(&n, k->func, &c) != CUDA_SUCCESS)
        n = -1;
    drv_cluster_answer *a = &k->clusters[k->next_clusters];
    k->next_clusters = (k->next_clusters + 1) % DRV_CACHE;
    if (k->n_clusters < DRV_CACHE)
        k->n_clusters++;
    *a = (drv_cluster_answer){.block = block, .dyn = l->dyn, .clusters = n};
    memcpy(a->cluster, l->cluster, sizeof a->cluster);
    memcpy(a->grid, l->grid, sizeof a->grid);
    return n;
}

static bool read_launch(CUpti_CallbackId cbid, const void *params, launch *l)
{
    memset(l, 0, sizeof *l);
    l->cluster[0] = l->cluster[1] = l->cluster[2] = 1;
    switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz: {
        /* the four parameter structs begin alike */
        const cuLaunchKernel_params *p = params;
        l->f = p->f;
        l->grid[0] = p->gridDimX, l->grid[1] = p->gridDimY, l->grid[2] = p->gridDimZ;
        l->block[0] = p->blockDimX, l->block[1] = p->blockDimY, l->block[2] = p->blockDimZ;
        l->dyn = p->sharedMemBytes;
        l->kind = cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel ||
                          cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz
                      ? "normal"
                      : "coop";
        return true;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
        const cuLaunchKernelEx_params *p = params;
        const CUlaunchConfig *c = p->config;
        if (!c)
            return false;
        l->f = p->f;
        l->grid[0] = c->gridDimX, l->grid[1] = c->gridDimY, l->grid[2] = c->gridDimZ;
        l->block[0] = c->blockDimX, l->block[1] = c->blockDimY, l->block[2] = c->blockDimZ;
        l->dyn = c->sharedMemBytes;
        l->kind = "ex";
        for (unsigned i = 0; c->attrs && i < c->numAttrs; i++) {
            if (c->attrs[i].id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) {
                l->cluster[0] = c->attrs[i].value.clusterDim.x;
                l->cluster[1] = c->attrs[i].value.clusterDim.y;
                l->cluster[2] = c->attrs[i].value.clusterDim.z;
            } else if (c->attrs[i].id == CU_LAUNCH_ATTRIBUTE_COOPERATIVE &&
                       c->attrs[i].value.cooperative) {
                l->kind = "coop";
            }
        }
        return true;
    }
    default:
        return false;
    }
}

/* What makes two launch lines of a thread equal (trace_launch_keyed).  It
 * starts with a zero so that it never equals a formatted line. */
typedef struct launch_key {
    uint32_t zero, kernel;
    uint64_t dyn;
    uint32_t grid[3], block[3], cluster[3];
    int32_t rc, drv;
    uint32_t kind; /* the kind's first letter */
    int32_t drv_clusters; /* -2: not a cluster launch */
    uint32_t unused;      /* zero */
} launch_key;
_Static_assert(sizeof(launch_key) == 72, "no padding: keys are compared bytewise");

/* The calling thread's last kernel and configuration: a launch loop finds its
 * kernel and the driver's answer here without the lock.  Kernels are never
 * freed, so the pointer stays valid. */
static _Thread_local struct {
    CUfunction f;
    cuda_kernel_info *k;
    unsigned block;
    size_t dyn;
    int drv;
} last;

/* The launch line is formatted by hand: vsnprintf of its 15 fields costs
 * about 0.3 us, a large part of the budget of a launch. */
static char *put_s(char *p, const char *s)
{
    while (*s)
        *p++ = *s++;
    return p;
}

static char *put_u(char *p, unsigned long long v)
{
    char digits[20];
    int n = 0;
    do
        digits[n++] = (char)('0' + v % 10);
    while (v /= 10);
    while (n)
        *p++ = digits[--n];
    return p;
}

static char *put_i(char *p, long long v)
{
    if (v < 0) {
        *p++ = '-';
        return put_u(p, 0ull - (unsigned long long)v);
    }
    return put_u(p, (unsigned long long)v);
}

static char *put_3(char *p, const unsigned v[3])
{
    p = put_u(p, v[0]), *p++ = ',';
    p = put_u(p, v[1]), *p++ = ',';
    return put_u(p, v[2]);
}

static void CUPTIAPI on_callback(void *user, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                 const void *data)
{
    const CUpti_CallbackData *cb = data;
    if (domain != CUPTI_CB_DOMAIN_DRIVER_API || cb->callbackSite != CUPTI_API_EXIT || inside)
        return;
    launch l;
    if (!read_launch(cbid, cb->functionParams, &l) || !l.f)
        return;
    int rc = cb->functionReturnValue ? (int)*(const CUresult *)cb->functionReturnValue : -1;
    unsigned block = l.block[0] * l.block[1] * l.block[2];
    if (!last.k || last.f != l.f || last.block != block || last.dyn != l.dyn) {
        inside = true;
        pthread_mutex_lock(&lock);
        cuda_kernel_info *k = kernel_of(l.f, cb->symbolName);
        int drv = k ? driver_answer(k, block, l.dyn) : -1;
        pthread_mutex_unlock(&lock);
        inside = false;
        last.f = l.f, last.k = k, last.block = block, last.dyn = l.dyn, last.drv = drv;
        if (!k) {
            last.k = NULL;
            trace_launch("L 0 %ld cuda %s wg=%u,%u,%u groups=%u,%u,%u dyn=%zu rc=%d drv=-1 "
                         "cluster=%u,%u,%u",
                         trace_tid(), l.kind, l.block[0], l.block[1], l.block[2], l.grid[0],
                         l.grid[1], l.grid[2], l.dyn, rc, l.cluster[0], l.cluster[1],
                         l.cluster[2]);
            return;
        }
    }
    /* a launch in clusters: the driver's active clusters beside it (asked
     * under the lock, cached per configuration: one ask per new one) */
    int32_t drv_clusters = -2;
    if (l.cluster[0] * l.cluster[1] * l.cluster[2] > 1 || last.k->compiled_cluster) {
        inside = true;
        pthread_mutex_lock(&lock);
        drv_clusters = driver_clusters(last.k, &l);
        pthread_mutex_unlock(&lock);
        inside = false;
    }
    launch_key key = {
        .drv_clusters = drv_clusters,
        .kernel = last.k->id,
        .grid = {l.grid[0], l.grid[1], l.grid[2]},
        .block = {l.block[0], l.block[1], l.block[2]},
        .cluster = {l.cluster[0], l.cluster[1], l.cluster[2]},
        .dyn = l.dyn,
        .rc = rc,
        .drv = last.drv,
        .kind = (uint32_t)l.kind[0],
    };
    if (trace_launch_counted(&key, sizeof key))
        return;
    char line[TRACE_LINE_MAX], *p = line; /* at most about 300 bytes */
    p = put_s(p, "L "), p = put_u(p, key.kernel), p = put_s(p, " "), p = put_i(p, trace_tid());
    p = put_s(p, " cuda "), p = put_s(p, l.kind), p = put_s(p, " wg="), p = put_3(p, l.block);
    p = put_s(p, " groups="), p = put_3(p, l.grid), p = put_s(p, " dyn="), p = put_u(p, l.dyn);
    p = put_s(p, " rc="), p = put_i(p, rc), p = put_s(p, " drv="), p = put_i(p, key.drv);
    p = put_s(p, " cluster="), p = put_3(p, l.cluster);
    if (drv_clusters != -2)
        p = put_s(p, " drv_clusters="), p = put_i(p, drv_clusters);
    p = put_s(p, "\n");
    trace_launch_new(&key, sizeof key, line, (size_t)(p - line));
}

/* ---- GPU time: CUPTI activity records of kernels ------------------------------ */

#define ACTIVITY_BUFFER (1u << 20)

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    *buffer = aligned_alloc(8, ACTIVITY_BUFFER);
    *size = *buffer ? ACTIVITY_BUFFER : 0;
    *max_records = 0;
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size,
                                      size_t valid)
{
    CUpti_Activity *rec = NULL;
    trace_time_run run = {0};
    while (api.ActivityGetNextRecord(buffer, valid, &rec) == CUPTI_SUCCESS) {
        if (rec->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL &&
            rec->kind != CUPTI_ACTIVITY_KIND_KERNEL)
            continue;
        const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)rec;
        int wg[3] = {k->blockX, k->blockY, k->blockZ}, groups[3] = {k->gridX, k->gridY, k->gridZ};
        trace_time_add(&run, k->name, wg, groups, k->dynamicSharedMemory,
                       (unsigned long long)(k->end - k->start));
    }
    trace_time_flush(&run); /* before the buffer (and the names in it) goes */
    free(buffer);
}

static void flush_activity(void)
{
    if (api.ActivityFlushAll)
        api.ActivityFlushAll(1); /* CUPTI_ACTIVITY_FLAG_FLUSH_FORCED */
}

/* ---- loading -------------------------------------------------------------------- */

static void *open_cupti(void)
{
    const char *env = getenv("OCC_TRACE_CUPTI");
    if (env && *env)
        return dlopen(env, RTLD_NOW | RTLD_LOCAL);
    static const char *const names[] = {
        "libcupti.so.13", "libcupti.so.12", "libcupti.so",
        "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so", "/usr/local/cuda/lib64/libcupti.so",
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        void *h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (h)
            return h;
    }
    return NULL;
}

#define SYM(lib, field, name) (*(void **)&api.field = dlsym(lib, name))

int InitializeInjection(void) __attribute__((visibility("default")));
int InitializeInjection(void)
{
    if (!trace_enabled())
        return 1;
    void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    void *cupti = open_cupti();
    if (!cuda || !cupti) {
        /* said in the report, never in the program's own stderr */
        trace_line("W cuda %s", !cuda ? "libcuda.so.1-not-loaded" : "libcupti-not-found");
        return 1;
    }
    SYM(cuda, FuncGetAttribute, "cuFuncGetAttribute");
    SYM(cuda, Occupancy, "cuOccupancyMaxActiveBlocksPerMultiprocessor");
    SYM(cuda, OccupancyClusters, "cuOccupancyMaxActiveClusters");
    SYM(cuda, KernelGetFunction, "cuKernelGetFunction");
    SYM(cuda, CtxGetDevice, "cuCtxGetDevice");
    SYM(cuda, DeviceGetAttribute, "cuDeviceGetAttribute");
    SYM(cuda, DeviceGetName, "cuDeviceGetName");
    SYM(cuda, DriverGetVersion, "cuDriverGetVersion");
    SYM(cuda, FuncGetName, "cuFuncGetName");
    SYM(cupti, Subscribe, "cuptiSubscribe");
    SYM(cupti, EnableCallback, "cuptiEnableCallback");
    SYM(cupti, ActivityRegisterCallbacks, "cuptiActivityRegisterCallbacks");
    SYM(cupti, ActivityEnable, "cuptiActivityEnable");
    SYM(cupti, ActivityFlushAll, "cuptiActivityFlushAll");
    SYM(cupti, ActivityGetNextRecord, "cuptiActivityGetNextRecord");
    if (!api.Subscribe || !api.EnableCallback ||
        api.Subscribe(&subscriber, on_callback, NULL) != CUPTI_SUCCESS) {
        trace_line("W cuda cupti-subscribe-failed");
        return 1;
    }
    static const CUpti_CallbackId ids[] = {
        CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
    };
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++)
        api.EnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, ids[i]);
    const char *t = getenv("OCC_TRACE_GPU_TIME");
    if ((!t || strcmp(t, "0") != 0) && api.ActivityRegisterCallbacks && api.ActivityEnable &&
        api.ActivityGetNextRecord &&
        api.ActivityRegisterCallbacks(buffer_requested, buffer_completed) == CUPTI_SUCCESS &&
        api.ActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) == CUPTI_SUCCESS)
        atexit(flush_activity);
    return 1;
}
