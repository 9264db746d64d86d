/* A stand-in libcuda.so.1 for the no-GPU tests (tests/validate/cuda/cli_cuda.sh): it
 * exports every entry point libocc's CUDA backend looks up, and its cuInit
 * fails the way $FAKE_CUDA_MODE says:
 *   nodevice  CUDA_ERROR_NO_DEVICE (100), as on a machine without a GPU
 *   stub      CUDA_ERROR_STUB_LIBRARY (34), as the toolkit's stub library
 *   nodevices cuInit succeeds, cuDeviceGetCount says 0
 *   crash     cuInit dies with SIGSEGV (a broken driver)
 *   hang      cuInit never returns (the watchdog must end it)
 * or, in mode `devices`, describes three GPUs (no launches): an H200 with the
 * attributes its driver reported (tests/data/cuda/occupancy/h200-2026-11-28/
 * device.csv), a T4 and a 16-SM compute capability 8.7 part with the numbers
 * of the CUDA Programming Guide's table for their capabilities.  Its probe
 * module loads from any file (every function: 16 registers, no shared memory)
 * and its occupancy queries answer by the warp slots, the block slots and
 * shared memory; cuOccupancyMaxActiveClusters answers on compute capability 9.0
 * from the GPCs in $FAKE_CUDA_GPCS ("18,18,16,...") and the cap per SM in
 * $FAKE_CUDA_CLUSTER_CAP (default 8), by docs/clusters.md's rule, refusing
 * (912) sizes over 8 unless non-portable sizes are allowed and over 16.
 * Launches: the timer probe (occ_timer_tick: a 32 ns step) and the cluster
 * probe through cuLaunchKernelEx, whose records are written as a GPU of GPCs
 * $FAKE_CUDA_PLACE_GPCS (default $FAKE_CUDA_GPCS, SM ids numbered GPC after
 * GPC) places the clusters: in order, each on the C SMs with the most free
 * slots (at most min(blocks per SM, the cap)) of the GPC with the most, all
 * its blocks starting together; a cluster that finds no room waits for the
 * wave before it to end (every block spins the same time).  The ordinary
 * probe (cuLaunchKernel) runs block i on SM i mod SMs, in waves.
 * Values from the CUDA Driver API reference (CUresult, CUdevice_attribute). */
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define API __attribute__((visibility("default")))

API int cuInit(unsigned flags);
API int cuDeviceGetCount(int *n);
API int cuGetErrorName(int e, const char **s);
API int cuGetErrorString(int e, const char **s);

/* the probe module's one function, its non-portable attribute, the device
 * of the current context (the last one retained) */
static int fake_function, fake_tick, fake_cluster, non_portable, current = -1;

static const char *mode(void)
{
    const char *m = getenv("FAKE_CUDA_MODE");
    return m ? m : "nodevice";
}

API int cuInit(unsigned flags)
{
    (void)flags;
    const char *m = mode();
    if (!strcmp(m, "crash"))
        raise(SIGSEGV);
    if (!strcmp(m, "hang"))
        for (;;)
            pause();
    if (!strcmp(m, "stub"))
        return 34;
    if (!strcmp(m, "nodevices") || !strcmp(m, "devices"))
        return 0;
    return 100;
}

/* ---- mode devices --------------------------------------------------------- */

enum { N_ATTRS = 15 };
/* CUdevice_attribute ids: threads per block, warp, registers per block, SMs,
 * threads per SM, shared per SM, registers per SM, shared per block opt-in,
 * blocks per SM, reserved per block, PCI domain, bus, device, cc major, minor */
static const int attr_ids[N_ATTRS] = {1, 10, 12, 16, 39, 81, 82, 97, 106, 111, 50, 33, 34, 75, 76};
static const struct fake_gpu {
    const char *name;
    int attrs[N_ATTRS];
} gpus[] = {
    {"NVIDIA H200", {1024, 32, 65536, 132, 2048, 233472, 65536, 232448, 32, 1024, 0, 0, 6, 9, 0}},
    {"Tesla T4", {1024, 32, 65536, 40, 1024, 65536, 65536, 65536, 16, 0, 0, 0x3b, 0, 7, 5}},
    {"Orin (nvgpu)", {1024, 32, 65536, 16, 1536, 167936, 65536, 166912, 16, 1024, 0, 0, 0, 8, 7}},
};

API int cuDeviceGetCount(int *n)
{
    *n = !strcmp(mode(), "devices") ? (int)(sizeof gpus / sizeof gpus[0]) : 0;
    return 0;
}

API int cuDeviceGet(int *dev, int ordinal);
API int cuDeviceGet(int *dev, int ordinal)
{
    int n;
    cuDeviceGetCount(&n);
    if (ordinal < 0 || ordinal >= n)
        return 101; /* CUDA_ERROR_INVALID_DEVICE */
    *dev = ordinal;
    return 0;
}

API int cuDeviceGetName(char *name, int len, int dev);
API int cuDeviceGetName(char *name, int len, int dev)
{
    if (len <= 0)
        return 1;
    strncpy(name, gpus[dev].name, (size_t)len - 1);
    name[len - 1] = 0;
    return 0;
}

API int cuDeviceGetAttribute(int *v, int attr, int dev);
API int cuDeviceGetAttribute(int *v, int attr, int dev)
{
    for (int i = 0; i < N_ATTRS; i++)
        if (attr_ids[i] == attr) {
            *v = gpus[dev].attrs[i];
            return 0;
        }
    return 1; /* CUDA_ERROR_INVALID_VALUE */
}

API int cuDriverGetVersion(int *v);
API int cuDriverGetVersion(int *v)
{
    *v = 13000;
    return 0;
}

/* a context is a token: nothing runs */
API int cuDevicePrimaryCtxRetain(void **ctx, int dev);
API int cuDevicePrimaryCtxRetain(void **ctx, int dev)
{
    *ctx = (void *)&gpus[dev];
    current = dev;
    return 0;
}
API int cuDevicePrimaryCtxRelease_v2(int dev);
API int cuDevicePrimaryCtxRelease_v2(int dev)
{
    (void)dev;
    return 0;
}
API int cuCtxSetCurrent(void *ctx);
API int cuCtxSetCurrent(void *ctx)
{
    (void)ctx;
    return 0;
}

API int cuGetErrorName(int e, const char **s)
{
    *s = e == 100 ? "CUDA_ERROR_NO_DEVICE" : e == 34 ? "CUDA_ERROR_STUB_LIBRARY" : "CUDA_ERROR_UNKNOWN";
    return 0;
}

API int cuGetErrorString(int e, const char **s)
{
    *s = e == 100 ? "no CUDA-capable device is detected"
                  : e == 34 ? "CUDA driver is a stub library" : "unknown error";
    return 0;
}

/* ---- the probe module and the occupancy queries (mode devices) -------------- */

API int cuModuleLoadData(void **mod, const void *image);
API int cuModuleLoadData(void **mod, const void *image)
{
    (void)image;
    *mod = &fake_function;
    return 0;
}
API int cuModuleUnload(void *mod);
API int cuModuleUnload(void *mod)
{
    (void)mod;
    return 0;
}
API int cuModuleGetFunction(void **f, void *mod, const char *name);
API int cuModuleGetFunction(void **f, void *mod, const char *name)
{
    (void)mod;
    *f = !strcmp(name, "occ_timer_tick") ? &fake_tick
         : !strcmp(name, "occ_probe_cluster") ? &fake_cluster : &fake_function;
    return 0;
}
/* max threads per block, static shared, local bytes, registers */
API int cuFuncGetAttribute(int *v, int attr, void *f);
API int cuFuncGetAttribute(int *v, int attr, void *f)
{
    (void)f;
    *v = attr == 0 ? 1024 : attr == 4 ? 16 : 0;
    return 0;
}
API int cuFuncSetAttribute(void *f, int attr, int v);
API int cuFuncSetAttribute(void *f, int attr, int v)
{
    (void)f;
    if (attr == 14) /* CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED */
        non_portable = v;
    return 0;
}

static int attr_of(int dev, int id)
{
    int v = 0;
    cuDeviceGetAttribute(&v, id, dev);
    return v;
}

/* The GPCs of $NAME ("18,18,16,..."): their count, 0 when unset or bad. */
static int read_gpcs(const char *name, long *g, int max)
{
    const char *p = getenv(name);
    int n = 0;
    while (p && *p && n < max) {
        char *end;
        g[n] = strtol(p, &end, 10);
        if (end == p || g[n] <= 0)
            return 0;
        n++;
        p = *end == ',' ? end + 1 : end;
    }
    return n;
}

static int blocks_per_sm(int block, size_t dyn)
{
    int dev = current < 0 ? 0 : current;
    if (block <= 0 || block > 1024)
        return 0;
    int warps = (block + 31) / 32, by_warps = attr_of(dev, 39) / 32 / warps;
    int by_slots = attr_of(dev, 106);
    long smem = (long)dyn + attr_of(dev, 111);
    int by_smem = smem ? (int)(attr_of(dev, 81) / smem) : INT_MAX;
    int b = by_warps < by_slots ? by_warps : by_slots;
    return b < by_smem ? b : by_smem;
}

API int cuOccupancyMaxActiveBlocksPerMultiprocessor(int *n, void *f, int block, size_t dyn);
API int cuOccupancyMaxActiveBlocksPerMultiprocessor(int *n, void *f, int block, size_t dyn)
{
    (void)f;
    *n = blocks_per_sm(block, dyn);
    return 0;
}

typedef struct fake_config {
    unsigned grid[3], block[3], dyn;
    void *stream;
    struct {
        int id;
        char pad[4];
        unsigned dim[16];
    } *attrs;
    unsigned n_attrs;
} fake_config;

API int cuOccupancyMaxActiveClusters(int *n, void *f, const fake_config *c);
API int cuOccupancyMaxActiveClusters(int *n, void *f, const fake_config *c)
{
    (void)f;
    const char *gpcs = getenv("FAKE_CUDA_GPCS"), *cap_s = getenv("FAKE_CUDA_CLUSTER_CAP");
    int dev = current < 0 ? 0 : current;
    if (!gpcs || attr_of(dev, 75) < 9 || c->n_attrs != 1 || c->attrs[0].id != 4)
        return 1; /* CUDA_ERROR_INVALID_VALUE */
    unsigned size = c->attrs[0].dim[0] * c->attrs[0].dim[1] * c->attrs[0].dim[2];
    if (!size || size > 16 || (size > 8 && !non_portable))
        return 912; /* CUDA_ERROR_CLUSTER_SIZE_NOT_SUPPORTED */
    int b = blocks_per_sm((int)(c->block[0] * c->block[1] * c->block[2]), c->dyn);
    int cap = cap_s ? atoi(cap_s) : 8;
    int w = b < cap ? b : cap;
    long clusters = 0;
    for (const char *p = gpcs; *p;) {
        char *end;
        long g = strtol(p, &end, 10);
        if (end == p)
            return 1;
        if (g >= (long)size)
            clusters += g * w / (long)size;
        p = *end == ',' ? end + 1 : end;
    }
    *n = (int)clusters;
    return 0;
}

/* ---- memory and launches (mode devices): device memory is host memory ---- */

API int cuMemAlloc_v2(uintptr_t *p, size_t n);
API int cuMemAlloc_v2(uintptr_t *p, size_t n)
{
    void *m = malloc(n ? n : 1);
    *p = (uintptr_t)m;
    return m ? 0 : 2; /* CUDA_ERROR_OUT_OF_MEMORY */
}
API int cuMemFree_v2(uintptr_t p);
API int cuMemFree_v2(uintptr_t p)
{
    free((void *)p);
    return 0;
}
API int cuMemsetD8_v2(uintptr_t p, unsigned char v, size_t n);
API int cuMemsetD8_v2(uintptr_t p, unsigned char v, size_t n)
{
    memset((void *)p, v, n);
    return 0;
}
API int cuMemcpyDtoH_v2(void *dst, uintptr_t src, size_t n);
API int cuMemcpyDtoH_v2(void *dst, uintptr_t src, size_t n)
{
    memcpy(dst, (const void *)src, n);
    return 0;
}
API int cuMemcpyHtoD_v2(uintptr_t dst, const void *src, size_t n);
API int cuMemcpyHtoD_v2(uintptr_t dst, const void *src, size_t n)
{
    memcpy((void *)dst, src, n);
    return 0;
}
API int cuCtxSynchronize(void);
API int cuCtxSynchronize(void)
{
    return 0;
}

/* kernels/probe_cuda.cu's occ_probe_rec */
typedef struct probe_rec {
    unsigned smid_start, smid_end;
    unsigned long long t_start, t_end;
    unsigned block, check;
} probe_rec;

/* occ_timer_tick's answer: a 32 ns step, %nsmid the SM count; the ordinary
 * probe: block i on SM i mod SMs, in waves of blocks-per-SM x SMs blocks,
 * each spinning the same time */
API int cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                       unsigned smem, void *stream, void **args, void **extra);
API int cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                       unsigned smem, void *stream, void **args, void **extra)
{
    (void)stream, (void)extra;
    unsigned sms = (unsigned)attr_of(current, 16);
    if (f == &fake_tick) {
        unsigned long long *out = (unsigned long long *)*(uintptr_t *)args[0];
        out[0] = 32, out[1] = 6250, out[2] = 200000, out[3] = sms;
        return 0;
    }
    int b = blocks_per_sm((int)(bx * by * bz), smem);
    if (f != &fake_function || b <= 0 || gy != 1 || gz != 1)
        return 1; /* CUDA_ERROR_INVALID_VALUE */
    probe_rec *rec = (probe_rec *)*(uintptr_t *)args[0];
    unsigned long long spin = *(unsigned long long *)args[1];
    for (unsigned i = 0; i < gx; i++) {
        unsigned long long t = 1000000000ull + (i / (sms * (unsigned)b)) * (spin + 1000);
        rec[i].smid_start = rec[i].smid_end = i % sms;
        rec[i].t_start = t;
        rec[i].t_end = t + spin;
        rec[i].block = i, rec[i].check = 0;
    }
    return 0;
}

/* kernels/probe_cuda.cu's occ_probe_cluster_rec */
typedef struct cluster_rec {
    unsigned smid_start, smid_end;
    unsigned long long t_start, t_end;
    unsigned block, cluster, rank, ranks;
} cluster_rec;

enum { MAX_GPCS = 32, MAX_SMS = 1024 };

/* Place cluster c: the C SMs with the most free slots of the GPC with the
 * most free slots (of those with C SMs that have one); false when none fits. */
static int place(const long *gpc, int n_gpcs, int *free_slots, unsigned size, unsigned *sms)
{
    int best = -1, base = 0, best_base = 0;
    long best_free = 0;
    for (int g = 0; g < n_gpcs; base += (int)gpc[g], g++) {
        long total = 0, with_room = 0;
        for (int i = 0; i < gpc[g]; i++)
            total += free_slots[base + i], with_room += free_slots[base + i] > 0;
        if (with_room >= (long)size && total > best_free)
            best = g, best_free = total, best_base = base;
    }
    if (best < 0)
        return 0;
    for (unsigned r = 0; r < size; r++) {
        int pick = -1;
        for (int i = 0; i < gpc[best]; i++) {
            int sm = best_base + i, taken = 0;
            for (unsigned q = 0; q < r; q++)
                taken |= sms[q] == (unsigned)sm;
            if (!taken && free_slots[sm] > 0 && (pick < 0 || free_slots[sm] > free_slots[pick]))
                pick = sm;
        }
        sms[r] = (unsigned)pick;
        free_slots[pick]--;
    }
    return 1;
}

API int cuLaunchKernelEx(const fake_config *c, void *f, void **args, void **extra);
API int cuLaunchKernelEx(const fake_config *c, void *f, void **args, void **extra)
{
    (void)extra;
    long gpc[MAX_GPCS];
    int n_gpcs = read_gpcs("FAKE_CUDA_PLACE_GPCS", gpc, MAX_GPCS);
    if (!n_gpcs)
        n_gpcs = read_gpcs("FAKE_CUDA_GPCS", gpc, MAX_GPCS);
    const char *cap_s = getenv("FAKE_CUDA_CLUSTER_CAP");
    if (f != &fake_cluster || !n_gpcs || c->n_attrs != 1 || c->attrs[0].id != 4)
        return 1; /* CUDA_ERROR_INVALID_VALUE */
    const unsigned *dim = c->attrs[0].dim;
    unsigned size = dim[0] * dim[1] * dim[2];
    if (!size || size > 16 || (size > 8 && !non_portable))
        return 912;
    if (c->grid[0] % dim[0] || c->grid[1] != dim[1] || c->grid[2] != dim[2])
        return 1; /* the backend's grid: clusters along x */
    int b = blocks_per_sm((int)(c->block[0] * c->block[1] * c->block[2]), c->dyn);
    int cap = cap_s ? atoi(cap_s) : 8, w = b < cap ? b : cap, sms = 0;
    for (int g = 0; g < n_gpcs; g++)
        sms += (int)gpc[g];
    if (w <= 0 || sms > MAX_SMS)
        return 1;
    cluster_rec *rec = (cluster_rec *)*(uintptr_t *)args[0];
    unsigned long long spin = *(unsigned long long *)args[1], t = 1000000000ull;
    int free_slots[MAX_SMS];
    for (int i = 0; i < sms; i++)
        free_slots[i] = w;
    unsigned clusters = c->grid[0] / dim[0], gx = c->grid[0];
    for (unsigned cl = 0; cl < clusters; cl++) {
        unsigned where[16];
        if (!place(gpc, n_gpcs, free_slots, size, where)) {
            for (int i = 0; i < sms; i++) /* the wave before ends */
                free_slots[i] = w;
            t += spin + 1000;
            if (!place(gpc, n_gpcs, free_slots, size, where))
                return 1; /* CUDA_ERROR_INVALID_VALUE: no GPC holds the cluster */
        }
        for (unsigned r = 0; r < size; r++) { /* rank r: (x, y, z) in the cluster */
            unsigned x = r % dim[0], y = r / dim[0] % dim[1], z = r / dim[0] / dim[1];
            unsigned blk = cl * dim[0] + x + gx * (y + dim[1] * z);
            cluster_rec *o = &rec[blk];
            o->smid_start = o->smid_end = where[r];
            o->t_start = t + r;
            o->t_end = t + r + spin;
            o->block = blk, o->cluster = cl, o->rank = r, o->ranks = size;
        }
    }
    return 0;
}
