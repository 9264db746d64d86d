/* The CUDA validation backend: libcuda.so.1 through dlopen, driver API only.
 *
 * No CUDA header is needed to build this file: the few types, enum values and
 * entry points it uses are declared below with the values documented in the
 * CUDA Driver API reference (docs.nvidia.com/cuda/cuda-driver-api: "Data
 * types used by CUDA driver" for CUdevice_attribute, CUfunction_attribute,
 * CUresult; "Device", "Primary Context", "Module", "Execution Control",
 * "Occupancy" for the functions).  Versioned entry points (_v2) are the ones
 * cuda.h maps the plain names to.
 *
 * Probe kernels: kernels/probe_cuda.cu, compiled to PTX at build time and
 * JIT-compiled here by cuModuleLoadData; each variant's real registers and
 * static shared memory are read back with cuFuncGetAttribute.
 * Timer: %globaltimer, in ns; its update step is measured once per open. */
#include "validate/backend_impl.h"
#include "arch/arch.h"
#include "common/internal.h"

#include <ctype.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- driver API declarations (values from the Driver API reference) ---- */

typedef int CUresult;                      /* CUDA_SUCCESS = 0 */
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef unsigned long long CUdeviceptr;

enum {
    CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1,
    CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8,
    CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10,
    CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK = 12,
    CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
    CU_DEVICE_ATTRIBUTE_PCI_BUS_ID = 33,
    CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID = 34,
    CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR = 39,
    CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID = 50,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
    CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR = 81,
    CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR = 82,
    CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
    CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR = 106,
    CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK = 111,
};

enum {
    CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0,
    CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1,
    CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3,
    CU_FUNC_ATTRIBUTE_NUM_REGS = 4,
    CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
    CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT = 9,
    CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED = 14,
};

/* cuOccupancyMaxActiveClusters's launch description ("Data types": CUlaunchConfig,
 * CUlaunchAttribute, whose value is a union of 64 bytes after an 8-byte id). */
enum { CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4 };
typedef struct CUlaunchAttribute {
    int id;
    char pad[8 - sizeof(int)];
    union {
        char bytes[64];
        struct {
            unsigned x, y, z;
        } clusterDim;
    } value;
} CUlaunchAttribute;
typedef struct CUlaunchConfig {
    unsigned gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes;
    struct CUstream_st *hStream;
    CUlaunchAttribute *attrs;
    unsigned numAttrs;
} CUlaunchConfig;

#define CU_SHAREDMEM_CARVEOUT_DEFAULT (-1)

typedef struct cuda_api {
    void *lib;
    CUresult (*Init)(unsigned int);
    CUresult (*DriverGetVersion)(int *);
    CUresult (*DeviceGetCount)(int *);
    CUresult (*DeviceGet)(CUdevice *, int);
    CUresult (*DeviceGetName)(char *, int, CUdevice);
    CUresult (*DeviceGetAttribute)(int *, int, CUdevice);
    CUresult (*DevicePrimaryCtxRetain)(CUcontext *, CUdevice);
    CUresult (*DevicePrimaryCtxRelease)(CUdevice);
    CUresult (*CtxSetCurrent)(CUcontext);
    CUresult (*CtxSynchronize)(void);
    CUresult (*ModuleLoadData)(CUmodule *, const void *);
    CUresult (*ModuleUnload)(CUmodule);
    CUresult (*ModuleGetFunction)(CUfunction *, CUmodule, const char *);
    CUresult (*FuncGetAttribute)(int *, int, CUfunction);
    CUresult (*FuncSetAttribute)(CUfunction, int, int);
    CUresult (*MemAlloc)(CUdeviceptr *, size_t);
    CUresult (*MemFree)(CUdeviceptr);
    CUresult (*MemsetD8)(CUdeviceptr, unsigned char, size_t);
    CUresult (*MemcpyDtoH)(void *, CUdeviceptr, size_t);
    CUresult (*MemcpyHtoD)(CUdeviceptr, const void *, size_t);
    CUresult (*LaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                             unsigned, unsigned, CUstream, void **, void **);
    CUresult (*OccupancyMaxActiveBlocksPerMultiprocessor)(int *, CUfunction, int, size_t);
    /* NULL before CUDA 11.8: no cluster answers */
    CUresult (*OccupancyMaxActiveClusters)(int *, CUfunction, const CUlaunchConfig *);
    /* NULL before CUDA 12.0: no launches in clusters */
    CUresult (*LaunchKernelEx)(const CUlaunchConfig *, CUfunction, void **, void **);
    CUresult (*GetErrorName)(CUresult, const char **);
    CUresult (*GetErrorString)(CUresult, const char **);
} cuda_api;

/* Probe variants (kernels/probe_cuda.cu); 0 = occ_probe_rmin. */
static const unsigned probe_variants[] = {0,  24, 32, 33,  40,  48,  56,  64,  72,  80,
                                          96, 98, 112, 128, 144, 168, 200, 232, 255};
#define N_VARIANTS (sizeof probe_variants / sizeof probe_variants[0])

typedef struct variant {
    char name[32];
    bool barrier;
    bool spread; /* the _sp kernel: a fourth parameter, the spread of spins */
    CUfunction f;
    int regs, static_smem, local_bytes, max_threads;
} variant;

/* The layout kernels/probe_cuda.cu writes (32 bytes). */
typedef struct probe_rec {
    uint32_t smid_start, smid_end;
    uint64_t t_start, t_end;
    uint32_t block, check;
} probe_rec;

/* The cluster probe's record (occ_probe_cluster_rec, 40 bytes). */
typedef struct cluster_rec {
    uint32_t smid_start, smid_end;
    uint64_t t_start, t_end;
    uint32_t block, cluster, rank, ranks;
} cluster_rec;

typedef struct cuda_state {
    cuda_api api;
    CUdevice dev;
    CUcontext ctx;
    int index;
    char kernel_dir_opt[512];
    bool have_kdir;
    CUmodule mod;         /* loaded on first use */
    CUmodule cluster_mod; /* probe_cuda_clusters.ptx, loaded on the first launch in clusters */
    variant cluster;      /* occ_probe_cluster */
    bool timed;           /* timer_step_s measured */
    variant v[4 * N_VARIANTS]; /* rN, rN_bar, rN_sp, rN_bar_sp per register count */
    CUfunction tick;
    double timer_step_s;  /* measured with the module */
    unsigned nsmid;
    int cc_major, cc_minor, sms, optin, reserved;
} cuda_state;

/* ---- errors ---------------------------------------------------------------- */

static occ_status cu_fail(const cuda_api *a, CUresult r, occ_status s, occ_diag *diag,
                          const char *what)
{
    const char *name = NULL, *text = NULL;
    if (a->GetErrorName)
        a->GetErrorName(r, &name);
    if (a->GetErrorString)
        a->GetErrorString(r, &text);
    return occ__diag(diag, s, NULL, 0, 0, NULL, "%s failed: %s (%s)", what,
                     name ? name : "CUDA error", text ? text : "no description");
}

#define CU(call, what)                                                                             \
    do {                                                                                           \
        CUresult r_ = (call);                                                                      \
        if (r_ != 0)                                                                               \
            return cu_fail(&st->api, r_, OCC_ERR_DEVICE, diag, what);                              \
    } while (0)

/* ---- loading the driver ------------------------------------------------------- */

static occ_status load_api(cuda_api *a, occ_diag *diag)
{
    memset(a, 0, sizeof *a);
    a->lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!a->lib) {
        const char *e = dlerror();
        return occ__diag(diag, OCC_ERR_DEVICE, NULL, 0, 0, NULL,
                         "cannot load the NVIDIA driver library libcuda.so.1 (%s): no CUDA "
                         "driver on this machine?",
                         e ? e : "not found");
    }
    static const struct {
        const char *sym;
        size_t off;
    } syms[] = {
#define SYM(field, name) {name, offsetof(cuda_api, field)}
        SYM(Init, "cuInit"),
        SYM(DriverGetVersion, "cuDriverGetVersion"),
        SYM(DeviceGetCount, "cuDeviceGetCount"),
        SYM(DeviceGet, "cuDeviceGet"),
        SYM(DeviceGetName, "cuDeviceGetName"),
        SYM(DeviceGetAttribute, "cuDeviceGetAttribute"),
        SYM(DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain"),
        SYM(DevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2"),
        SYM(CtxSetCurrent, "cuCtxSetCurrent"),
        SYM(CtxSynchronize, "cuCtxSynchronize"),
        SYM(ModuleLoadData, "cuModuleLoadData"),
        SYM(ModuleUnload, "cuModuleUnload"),
        SYM(ModuleGetFunction, "cuModuleGetFunction"),
        SYM(FuncGetAttribute, "cuFuncGetAttribute"),
        SYM(FuncSetAttribute, "cuFuncSetAttribute"),
        SYM(MemAlloc, "cuMemAlloc_v2"),
        SYM(MemFree, "cuMemFree_v2"),
        SYM(MemsetD8, "cuMemsetD8_v2"),
        SYM(MemcpyDtoH, "cuMemcpyDtoH_v2"),
        SYM(MemcpyHtoD, "cuMemcpyHtoD_v2"),
        SYM(LaunchKernel, "cuLaunchKernel"),
        SYM(OccupancyMaxActiveBlocksPerMultiprocessor, "cuOccupancyMaxActiveBlocksPerMultiprocessor"),
        SYM(GetErrorName, "cuGetErrorName"),
        SYM(GetErrorString, "cuGetErrorString"),
#undef SYM
    };
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
        void *p = dlsym(a->lib, syms[i].sym);
        if (!p) {
            dlclose(a->lib);
            a->lib = NULL;
            return occ__diag(diag, OCC_ERR_DEVICE, NULL, 0, 0, NULL,
                             "libcuda.so.1 has no %s: driver too old or not the NVIDIA driver",
                             syms[i].sym);
        }
        /* object pointer to function pointer: what dlsym is for (POSIX) */
        memcpy((char *)a + syms[i].off, &p, sizeof p);
    }
    void *clusters = dlsym(a->lib, "cuOccupancyMaxActiveClusters");
    if (clusters)
        memcpy(&a->OccupancyMaxActiveClusters, &clusters, sizeof clusters);
    void *launch_ex = dlsym(a->lib, "cuLaunchKernelEx");
    if (launch_ex)
        memcpy(&a->LaunchKernelEx, &launch_ex, sizeof launch_ex);
    return OCC_OK;
}

static void cuda_close(void *state)
{
    cuda_state *st = state;
    if (!st)
        return;
    if (st->api.lib) {
        if (st->mod)
            st->api.ModuleUnload(st->mod);
        if (st->cluster_mod)
            st->api.ModuleUnload(st->cluster_mod);
        if (st->ctx)
            st->api.DevicePrimaryCtxRelease(st->dev);
        dlclose(st->api.lib);
    }
    free(st);
}

static occ_status cuda_open(const occ_backend_options *opts, void **state, occ_diag *diag)
{
    cuda_state *st = calloc(1, sizeof *st);
    if (!st)
        return occ__diag(diag, OCC_ERR_NO_MEMORY, NULL, 0, 0, NULL, "out of memory");
    occ_status s = load_api(&st->api, diag);
    if (s != OCC_OK) {
        free(st);
        return s;
    }
    CUresult r = st->api.Init(0);
    if (r != 0) {
        s = cu_fail(&st->api, r, OCC_ERR_DEVICE, diag, "cuInit (starting the CUDA driver)");
        cuda_close(st);
        return s;
    }
    int count = 0;
    r = st->api.DeviceGetCount(&count);
    if (r != 0 || count <= 0 || opts->device_index >= (uint32_t)count) {
        if (r != 0)
            s = cu_fail(&st->api, r, OCC_ERR_DEVICE, diag, "cuDeviceGetCount");
        else
            s = occ__diag(diag, OCC_ERR_DEVICE, NULL, 0, 0, NULL,
                          "CUDA device %u requested; the driver sees %d", opts->device_index,
                          count);
        cuda_close(st);
        return s;
    }
    st->index = (int)opts->device_index;
    if ((r = st->api.DeviceGet(&st->dev, st->index)) != 0 ||
        (r = st->api.DevicePrimaryCtxRetain(&st->ctx, st->dev)) != 0 ||
        (r = st->api.CtxSetCurrent(st->ctx)) != 0) {
        s = cu_fail(&st->api, r, OCC_ERR_DEVICE, diag, "opening the CUDA device's primary context");
        cuda_close(st);
        return s;
    }
    if (opts->kernel_dir) {
        snprintf(st->kernel_dir_opt, sizeof st->kernel_dir_opt, "%s", opts->kernel_dir);
        st->have_kdir = true;
    }
    struct {
        int attr;
        int *out;
    } q[] = {
        {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &st->cc_major},
        {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &st->cc_minor},
        {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, &st->sms},
        {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, &st->optin},
        {CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK, &st->reserved},
    };
    for (size_t i = 0; i < sizeof q / sizeof q[0]; i++)
        if ((r = st->api.DeviceGetAttribute(q[i].out, q[i].attr, st->dev)) != 0) {
            s = cu_fail(&st->api, r, OCC_ERR_DEVICE, diag, "cuDeviceGetAttribute");
            cuda_close(st);
            return s;
        }
    *state = st;
    return OCC_OK;
}

/* ---- describing the device as a profile ------------------------------------------ */

static void slug(const char *in, char *out, size_t size)
{
    size_t o = 0;
    bool dash = false;
    for (; *in && o + 1 < size; in++) {
        unsigned char c = (unsigned char)*in;
        if (isalnum(c)) {
            if (dash && o)
                out[o++] = '-';
            if (o + 1 < size)
                out[o++] = (char)tolower(c);
            dash = false;
        } else {
            dash = true;
        }
    }
    out[o] = 0;
    if (!o)
        snprintf(out, size, "cuda");
}

/* The kernel driver's version, from /proc (best effort; empty if absent):
 * the first word of the form N.N[.N] in "NVRM version: NVIDIA UNIX [Open]
 * Kernel Module [for x86_64]  580.159.04  Release Build ...". */
static void kernel_driver_version(char *out, size_t size)
{
    out[0] = 0;
    FILE *f = fopen("/proc/driver/nvidia/version", "r");
    if (!f)
        return;
    char line[256];
    if (fgets(line, sizeof line, f)) {
        for (char *save = NULL, *w = strtok_r(line, " \t\n", &save); w;
             w = strtok_r(NULL, " \t\n", &save)) {
            size_t digits = strspn(w, "0123456789.");
            if (digits == strlen(w) && isdigit((unsigned char)w[0]) && strchr(w, '.')) {
                snprintf(out, size, "%s", w);
                break;
            }
        }
    }
    fclose(f);
}

static occ_status cuda_describe(void *state, occ_device_desc *d, occ_backend_info *info,
                                occ_diag *diag)
{
    cuda_state *st = state;
    char name[128] = "";
    CU(st->api.DeviceGetName(name, sizeof name, st->dev), "cuDeviceGetName");
    int a[16];
    static const int attrs[] = {
        CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK,                /* 0 */
        CU_DEVICE_ATTRIBUTE_WARP_SIZE,                            /* 1 */
        CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK,              /* 2 */
        CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,                 /* 3 */
        CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR,       /* 4 */
        CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, /* 5 */
        CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR,     /* 6 */
        CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,    /* 7 */
        CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR,        /* 8 */
        CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK,     /* 9 */
        CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID,                        /* 10 */
        CU_DEVICE_ATTRIBUTE_PCI_BUS_ID,                           /* 11 */
        CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID,                        /* 12 */
    };
    for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++)
        CU(st->api.DeviceGetAttribute(&a[i], attrs[i], st->dev), "cuDeviceGetAttribute");
    int maj = st->cc_major, min = st->cc_minor;
    uint32_t warp = (uint32_t)a[1];
    occ_nvidia_arch arch; /* what the driver does not report (arch/nvidia.c) */
    occ__nvidia_arch(maj, min, &arch);
    const uint32_t partitions = arch.partitions;

    slug(name, d->name, sizeof d->name);
    snprintf(d->product, sizeof d->product, "%s", name);
    snprintf(d->architecture, sizeof d->architecture, "%s (sm_%d%d)", arch.family, maj, min);
    snprintf(d->target, sizeof d->target, "sm_%d%d", maj, min);
    d->vendor = OCC_VENDOR_NVIDIA;
    d->provisional = false;
    snprintf(d->core_name, sizeof d->core_name, "SM");
    snprintf(d->engine_name, sizeof d->engine_name, "SMSP");
    d->cores = (uint32_t)a[3];
    d->engines_per_core = partitions;
    d->simd_width = warp;
    d->n_sub_group_sizes = 1;
    d->sub_group_sizes[0] = warp;
    d->n_grf_modes = 1;
    d->grf_modes[0].registers = arch.max_regs_per_thread;
    d->grf_modes[0].threads_per_engine = (uint32_t)a[4] / warp / partitions;
    d->default_grf = arch.max_regs_per_thread;
    d->max_work_group_size = (uint32_t)a[0];
    d->max_work_groups_per_core = (uint32_t)a[8];
    d->barriers_per_core = arch.barriers_twice_slots ? 2u * (uint32_t)a[8] : OCC_NO_LIMIT;
    d->barriers_per_core_driver = d->barriers_per_core;
    snprintf(d->local_memory_name, sizeof d->local_memory_name, "shared memory");
    d->slm_per_core = (uint64_t)a[5];
    d->slm_max_per_work_group = (uint64_t)a[7];
    d->slm_reserved_per_work_group = (uint64_t)a[9];
    d->slm_granule = arch.slm_granule;
    d->n_carveouts = 0;
    for (size_t i = 0; i < arch.n_carveouts; i++)
        if (arch.carveouts_kb[i] * 1024 <= d->slm_per_core)
            d->carveouts[d->n_carveouts++] = arch.carveouts_kb[i] * 1024;
    d->has_register_file = true;
    d->regs_per_core = (uint32_t)a[6];
    d->reg_alloc_unit = arch.reg_alloc_unit;
    d->reg_warp_granularity = arch.reg_warp_granularity;
    d->reg_max_per_thread = arch.max_regs_per_thread;
    d->reg_max_per_work_group = (uint32_t)a[2];
    d->reg_partitions = partitions;
    d->dispatch_order = OCC_DISPATCH_SPREAD;
    d->partial_dispatch = false;

    if (info) {
        int v = 0;
        st->api.DriverGetVersion(&v);
        char kv[64];
        kernel_driver_version(kv, sizeof kv);
        snprintf(info->backend, sizeof info->backend, "cuda");
        snprintf(info->device, sizeof info->device, "%s", name);
        if (*kv)
            snprintf(info->driver, sizeof info->driver, "CUDA %d.%d (driver %s)", v / 1000,
                     (v % 1000) / 10, kv);
        else
            snprintf(info->driver, sizeof info->driver, "CUDA %d.%d", v / 1000, (v % 1000) / 10);
        snprintf(info->architecture, sizeof info->architecture, "sm_%d%d", maj, min);
        snprintf(info->bus_id, sizeof info->bus_id, "%04x:%02x:%02x.0", (unsigned)a[10],
                 (unsigned)a[11], (unsigned)a[12]);
        int count = 0;
        st->api.DeviceGetCount(&count);
        info->device_count = (uint32_t)count;
        /* which numbers the driver reported and which are the architecture's rules */
        static const char *const src[] = {
            "cuDeviceGetAttribute: SM count, threads per block and per SM, warp size, registers per "
            "SM and per block, shared memory per SM, per block (opt-in) and reserved per block, "
            "blocks per SM",
            "CUDA Programming Guide compute-capability tables (nvidia.md): 4 sub-partitions, 255 "
            "registers per thread, registers per warp rounded to 256, shared memory granule 128 B "
            "(256 B on 7.x), legal carveouts, barriers 2 x block slots from 9.0",
        };
        info->n_sources = 0;
        for (size_t i = 0; i < sizeof src / sizeof src[0]; i++)
            snprintf(info->sources[info->n_sources++], sizeof info->sources[0], "%s", src[i]);
    }
    return OCC_OK;
}

/* ---- the probe module -------------------------------------------------------------- */

static occ_status measure_timer(cuda_state *st, occ_diag *diag);

/* The probe module and its functions, without launching anything. */
/* Load FILE (a PTX of kernels/) from the kernel directories into *mod. */
static occ_status load_ptx(cuda_state *st, const char *file, CUmodule *mod, occ_diag *diag)
{
    const char *dirs[8];
    occ__kernel_dirs(st->have_kdir ? st->kernel_dir_opt : NULL, dirs, 8);
    char path[1024], tried[512] = "";
    char *ptx = NULL;
    size_t len = 0;
    for (size_t i = 0; dirs[i] && !ptx; i++) {
        snprintf(path, sizeof path, "%s/%s", dirs[i], file);
        ptx = occ__read_kernel_file(path, &len);
        if (!ptx) { /* the list of places tried, cut at its buffer's end */
            const char *parts[2] = {*tried ? ", " : "", path};
            size_t used = strlen(tried);
            for (int p = 0; p < 2; p++) {
                size_t k = strlen(parts[p]), room = sizeof tried - 1 - used;
                k = k < room ? k : room;
                memcpy(tried + used, parts[p], k);
                used += k;
            }
            tried[used] = '\0';
        }
    }
    if (!ptx)
        return occ__diag(diag, OCC_ERR_UNSUPPORTED, NULL, 0, 0, NULL,
                         "the CUDA probe kernels (%s) were not found (tried: %s); "
                         "build with nvcc (meson -Dcuda=enabled) or set OCC_KERNEL_DIR",
                         file, *tried ? tried : "no directory configured");
    CUresult r = st->api.ModuleLoadData(mod, ptx);
    free(ptx);
    if (r != 0) {
        *mod = NULL;
        return cu_fail(&st->api, r, OCC_ERR_DEVICE, diag, "loading the probe PTX (cuModuleLoadData)");
    }
    return OCC_OK;
}

/* A probe function's resources, read back from the driver. */
static occ_status read_variant(cuda_state *st, variant *v, CUmodule mod, occ_diag *diag)
{
    CU(st->api.ModuleGetFunction(&v->f, mod, v->name), "cuModuleGetFunction");
    CU(st->api.FuncGetAttribute(&v->regs, CU_FUNC_ATTRIBUTE_NUM_REGS, v->f), "cuFuncGetAttribute");
    CU(st->api.FuncGetAttribute(&v->static_smem, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, v->f),
       "cuFuncGetAttribute");
    CU(st->api.FuncGetAttribute(&v->local_bytes, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, v->f),
       "cuFuncGetAttribute");
    CU(st->api.FuncGetAttribute(&v->max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, v->f),
       "cuFuncGetAttribute");
    return OCC_OK;
}

static occ_status load_functions(cuda_state *st, occ_diag *diag)
{
    if (st->mod)
        return OCC_OK;
    occ_status s = load_ptx(st, "probe_cuda.ptx", &st->mod, diag);
    if (s != OCC_OK)
        return s;
    for (size_t i = 0; i < 4 * N_VARIANTS; i++) {
        variant *v = &st->v[i];
        unsigned regs = probe_variants[i / 4];
        v->barrier = i % 2;
        v->spread = (i / 2) % 2;
        if (regs)
            snprintf(v->name, sizeof v->name, "occ_probe_r%u%s%s", regs, v->barrier ? "_bar" : "",
                     v->spread ? "_sp" : "");
        else
            snprintf(v->name, sizeof v->name, "occ_probe_rmin%s%s", v->barrier ? "_bar" : "",
                     v->spread ? "_sp" : "");
        if ((s = read_variant(st, v, st->mod, diag)) != OCC_OK)
            return s;
    }
    CU(st->api.ModuleGetFunction(&st->tick, st->mod, "occ_timer_tick"), "cuModuleGetFunction");
    return OCC_OK;
}

/* The cluster probe (a compute_90 PTX of its own), for a launch in clusters:
 * OCC_ERR_UNSUPPORTED on a GPU or driver without clusters. */
static occ_status load_cluster_probe(cuda_state *st, occ_diag *diag)
{
    if (st->cluster_mod)
        return OCC_OK;
    if (st->cc_major < 9)
        return occ__diag(diag, OCC_ERR_UNSUPPORTED, NULL, 0, 0, NULL,
                         "thread-block clusters need compute capability 9.0 or later; this GPU is %d.%d",
                         st->cc_major, st->cc_minor);
    if (!st->api.LaunchKernelEx || !st->api.OccupancyMaxActiveClusters)
        return occ__diag(diag, OCC_ERR_UNSUPPORTED, NULL, 0, 0, NULL,
                         "this CUDA driver has no cuLaunchKernelEx or cuOccupancyMaxActiveClusters "
                         "(launches in clusters need CUDA 12.0 or later)");
    occ_status s = load_ptx(st, "probe_cuda_clusters.ptx", &st->cluster_mod, diag);
    if (s != OCC_OK)
        return s;
    snprintf(st->cluster.name, sizeof st->cluster.name, "occ_probe_cluster");
    return read_variant(st, &st->cluster, st->cluster_mod, diag);
}

/* The module ready to launch: its functions and the timer's step. */
static occ_status load_module(cuda_state *st, occ_diag *diag)
{
    occ_status s = load_functions(st, diag);
    if (s == OCC_OK && !st->timed && (s = measure_timer(st, diag)) == OCC_OK)
        st->timed = true;
    return s;
}

/* %globaltimer's update step: one thread watches it for 200 us. */
static occ_status measure_timer(cuda_state *st, occ_diag *diag)
{
    CUdeviceptr buf;
    uint64_t out[4];
    unsigned long long span = 200000;
    CU(st->api.MemAlloc(&buf, sizeof out), "cuMemAlloc");
    void *args[] = {&buf, &span};
    CUresult r = st->api.LaunchKernel(st->tick, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL);
    if (r == 0)
        r = st->api.CtxSynchronize();
    if (r == 0)
        r = st->api.MemcpyDtoH(out, buf, sizeof out);
    st->api.MemFree(buf);
    if (r != 0)
        return cu_fail(&st->api, r, OCC_ERR_DEVICE, diag, "measuring the timer tick");
    if (out[1] == 0 || out[0] == 0 || out[0] == UINT64_MAX)
        return occ__diag(diag, OCC_ERR_DEVICE, NULL, 0, 0, NULL,
                         "%%globaltimer did not advance during a 200 us probe");
    st->timer_step_s = (double)out[0] * 1e-9;
    st->nsmid = (unsigned)out[3];
    return OCC_OK;
}

/* The variant for a request: exact registers if compiled, else the smallest
 * above, else the largest; barrier as asked. */
static const variant *pick_variant(const cuda_state *st, const occ_kernel *k, bool spread)
{
    const variant *best = NULL;
    bool bar = k->barrier;
    for (size_t i = 0; i < 4 * N_VARIANTS; i++) {
        const variant *v = &st->v[i];
        if (v->barrier != bar || v->spread != spread)
            continue;
        if (k->regs_per_thread == 0) {
            if (!best || v->regs < best->regs)
                best = v;
            continue;
        }
        unsigned want = k->regs_per_thread;
        if (!best) {
            best = v;
            continue;
        }
        bool v_ok = (unsigned)v->regs >= want, b_ok = (unsigned)best->regs >= want;
        if (v_ok && (!b_ok || v->regs < best->regs))
            best = v;
        else if (!v_ok && !b_ok && v->regs > best->regs)
            best = v;
    }
    return best;
}

/* Set the function's shared-memory attributes for a request; fills the
 * dynamic size.  Returns 0 or the driver's error. */
static CUresult configure(cuda_state *st, const variant *v, const occ_kernel *k, uint32_t *dynamic)
{
    uint64_t want = k->slm_bytes > (uint64_t)v->static_smem ? k->slm_bytes - (uint64_t)v->static_smem : 0;
    *dynamic = want > UINT32_MAX ? UINT32_MAX : (uint32_t)want;
    /* what a CUDA program does: raise the dynamic limit only past the 48 KB default */
    int limit = 49152 - v->static_smem;
    if ((int64_t)*dynamic > limit)
        limit = (int)*dynamic;
    CUresult r = st->api.FuncSetAttribute(v->f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, limit);
    if (r != 0)
        return r;
    int carve = k->carveout_pct < 0 ? CU_SHAREDMEM_CARVEOUT_DEFAULT : k->carveout_pct;
    return st->api.FuncSetAttribute(v->f, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, carve);
}

static void actual_kernel(const variant *v, const occ_kernel *req, uint32_t dynamic, occ_kernel *a)
{
    *a = *req;
    a->sub_group = 32;
    a->grf = 0;
    a->regs_per_thread = (uint32_t)v->regs;
    a->slm_bytes = (uint64_t)v->static_smem + dynamic;
    a->barrier = v->barrier;
}

/* What ran differs from the request: the list occ_probe_result.differences. */
static void describe_differences(const occ_kernel *req, const occ_kernel *act, char *out, size_t size)
{
    out[0] = '\0';
    if (req->regs_per_thread && req->regs_per_thread != act->regs_per_thread)
        occ__add_difference(out, size, "registers %u requested, %u compiled", req->regs_per_thread,
                            act->regs_per_thread);
    if (req->sub_group && req->sub_group != act->sub_group)
        occ__add_difference(out, size, "sub-group %u requested, CUDA warps are %u", req->sub_group,
                            act->sub_group);
    if (req->grf)
        occ__add_difference(out, size, "--grf ignored (Intel GRF modes)");
    if (req->slm_bytes != act->slm_bytes)
        occ__add_difference(out, size, "shared memory %llu requested, %llu allocated (static + dynamic)",
                            (unsigned long long)req->slm_bytes, (unsigned long long)act->slm_bytes);
}

/* Block b's extra spin for the _sp kernels: uniform in [0, spread_ns], from
 * (seed, b) alone (splitmix64's finaliser). */
static uint64_t extra_spin_ns(uint32_t seed, size_t b, double spread_ns)
{
    uint64_t z = ((uint64_t)seed << 32 | (uint32_t)b) + 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    double u = (double)(z >> 11) * (1.0 / 9007199254740992.0);
    return (uint64_t)(u * (spread_ns + 1.0));
}

static int driver_clusters(cuda_state *st, const variant *v, const occ_kernel *k, uint32_t dynamic);

/* The launch's shape: X, Y, Z of the cluster (0 read as 1) and its size. */
static uint32_t cluster_shape(const occ_kernel *k, uint32_t dim[3])
{
    for (int i = 0; i < 3; i++)
        dim[i] = k->cluster[i] ? k->cluster[i] : 1;
    return dim[0] * dim[1] * dim[2];
}

/* A cluster probe record's cluster, rank and cluster size are the launch's:
 * block b of a grid of (gx, Y, Z) blocks in clusters of X x Y x Z along x
 * (kernels/probe_cuda.cu). */
static bool cluster_rec_ok(const cluster_rec *p, size_t b, uint32_t gx, const uint32_t dim[3])
{
    uint32_t bx = (uint32_t)(b % gx), by = (uint32_t)(b / gx % dim[1]), bz = (uint32_t)(b / gx / dim[1]);
    uint32_t rank = bx % dim[0] + dim[0] * (by + dim[1] * bz);
    return p->cluster == bx / dim[0] && p->rank == rank && p->ranks == dim[0] * dim[1] * dim[2];
}

/* What every launch reports besides its records: the kernel that runs, the
 * driver's answers for it, the launch's figures. */
static void describe_launch(cuda_state *st, const variant *v, const occ_probe_config *cfg, uint32_t dynamic,
                            occ_probe_result *res)
{
    const occ_kernel *k = &cfg->kernel;
    res->requested = *k;
    actual_kernel(v, k, dynamic, &res->actual);
    describe_differences(k, &res->actual, res->differences, sizeof res->differences);
    snprintf(res->kernel_name, sizeof res->kernel_name, "%s", v->name);
    res->static_slm = (uint32_t)v->static_smem;
    res->dynamic_slm = dynamic;
    res->local_bytes = (uint32_t)v->local_bytes;
    uint64_t block = occ_kernel_wg_size(k);
    int occ = -1;
    if (block <= (uint64_t)v->max_threads &&
        st->api.OccupancyMaxActiveBlocksPerMultiprocessor(&occ, v->f, (int)block, dynamic) != 0)
        occ = -1;
    res->driver_resident = occ;
    if (occ_kernel_cluster_size(k))
        res->driver_clusters = driver_clusters(st, v, k, dynamic);
    res->work_groups = cfg->work_groups;
    res->duration_s = cfg->duration_s;
    res->duration_spread_s = cfg->duration_spread_s;
    res->seed = cfg->seed;
    res->tick_seconds = 1e-9;
    res->timer_resolution_s = st->timer_step_s;
}

/* Run v as lc says (through cuLaunchKernelEx when lc has attributes: in
 * clusters) over a record buffer of `bytes`, poisoned, or holding host's
 * bytes when preset; the records come back in host, the time in res->wall_s. */
static occ_status run_probe(cuda_state *st, const variant *v, const CUlaunchConfig *lc,
                            const occ_probe_config *cfg, void *host, size_t bytes, bool preset,
                            occ_probe_result *res, occ_diag *diag)
{
    CUdeviceptr dbuf = 0;
    CUresult r = st->api.MemAlloc(&dbuf, bytes);
    if (r == 0)
        r = st->api.MemsetD8(dbuf, 0xff, bytes); /* poison */
    if (r == 0 && preset)
        r = st->api.MemcpyHtoD(dbuf, host, bytes);
    if (r != 0) {
        if (dbuf)
            st->api.MemFree(dbuf);
        return cu_fail(&st->api, r, OCC_ERR_DEVICE, diag, "allocating the record buffer");
    }
    unsigned long long spin_ns = (unsigned long long)(cfg->duration_s * 1e9 + 0.5);
    unsigned int seed = cfg->seed;
    void *args[] = {&dbuf, &spin_ns, &seed};
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    r = lc->numAttrs ? st->api.LaunchKernelEx(lc, v->f, args, NULL)
                     : st->api.LaunchKernel(v->f, lc->gridDimX, lc->gridDimY, lc->gridDimZ, lc->blockDimX,
                                            lc->blockDimY, lc->blockDimZ, lc->sharedMemBytes, NULL, args, NULL);
    if (r != 0) {
        st->api.MemFree(dbuf);
        return cu_fail(&st->api, r, OCC_ERR_VALUE, diag,
                       lc->numAttrs ? "the driver refused the launch in clusters (cuLaunchKernelEx)"
                                    : "the driver refused the launch (cuLaunchKernel)");
    }
    r = st->api.CtxSynchronize();
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (r == 0)
        r = st->api.MemcpyDtoH(host, dbuf, bytes);
    st->api.MemFree(dbuf);
    if (r != 0)
        return cu_fail(&st->api, r, OCC_ERR_DEVICE, diag, "running the probe kernel");
    res->wall_s = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9;
    return OCC_OK;
}

/* The records of a run (probe_rec, or cluster_rec when clustered): the
 * poisoned ones missing, the inconsistent ones invalid (a cluster probe's
 * also when its cluster, rank or size is not the launch's: gx, dim), the rest
 * kept in recs, which res then owns. */
static void decode_records(const cuda_state *st, const void *host, bool clustered, uint32_t gx,
                           const uint32_t dim[3], size_t n, occ_record *recs, occ_probe_result *res)
{
    size_t m = 0;
    unsigned ncores = st->nsmid > (unsigned)st->sms ? st->nsmid : (unsigned)st->sms;
    for (size_t i = 0; i < n; i++) {
        const probe_rec *p = clustered ? NULL : (const probe_rec *)host + i;
        const cluster_rec *c = clustered ? (const cluster_rec *)host + i : NULL;
        uint32_t block = p ? p->block : c->block, s0 = p ? p->smid_start : c->smid_start,
                 s1 = p ? p->smid_end : c->smid_end;
        uint64_t t0 = p ? p->t_start : c->t_start, t1 = p ? p->t_end : c->t_end;
        if (block == UINT32_MAX && t0 == UINT64_MAX) {
            res->records_missing++;
            continue;
        }
        if (block != i || t1 < t0 || s0 >= ncores || s1 >= ncores || (c && !cluster_rec_ok(c, i, gx, dim))) {
            res->records_invalid++;
            continue;
        }
        occ_record *o = &recs[m++];
        memset(o, 0, sizeof *o);
        o->work_group = i;
        o->thread = OCC_RECORD_WHOLE_WG;
        o->core_start = s0;
        o->core_end = s1;
        o->engine = OCC_RECORD_UNKNOWN;
        o->slot = OCC_RECORD_UNKNOWN;
        o->cluster = c ? c->cluster : 0;
        o->t_start = t0;
        o->t_end = t1;
    }
    res->records = recs;
    res->n_records = m;
}

static occ_status cuda_launch(void *state, const occ_probe_config *cfg, occ_probe_result *res,
                              occ_diag *diag)
{
    cuda_state *st = state;
    occ_status s = load_module(st, diag);
    if (s != OCC_OK)
        return s;
    const occ_kernel *k = &cfg->kernel;
    bool clustered = occ_kernel_cluster_size(k) != 0;
    if (cfg->work_groups > 0x7fffffffu)
        return occ__diag(diag, OCC_ERR_VALUE, NULL, 0, 0, NULL,
                         "%llu work-groups: a 1-D CUDA grid holds at most 2^31-1",
                         (unsigned long long)cfg->work_groups);
    size_t n = (size_t)cfg->work_groups;
    uint32_t dim[3], size = cluster_shape(k, dim);
    if (clustered && cfg->duration_spread_s > 0)
        return occ__diag(diag, OCC_ERR_UNSUPPORTED, NULL, 0, 0, NULL,
                         "the cluster probe spins equal durations only (no duration spread)");
    if (clustered && (s = load_cluster_probe(st, diag)) != OCC_OK)
        return s;
    if (clustered && n % size)
        return occ__diag(diag, OCC_ERR_VALUE, NULL, 0, 0, NULL,
                         "%zu work-groups are not a whole number of clusters of %u", n, size);
    const variant *v = clustered ? &st->cluster : pick_variant(st, k, cfg->duration_spread_s > 0);
    uint32_t dynamic;
    CUresult r = configure(st, v, k, &dynamic);
    if (r == 0 && clustered)
        r = st->api.FuncSetAttribute(v->f, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED,
                                     k->cluster_non_portable);
    if (r != 0)
        return cu_fail(&st->api, r, OCC_ERR_VALUE, diag,
                       "setting the probe's shared-memory and cluster attributes (cuFuncSetAttribute)");
    describe_launch(st, v, cfg, dynamic, res);

    size_t rec_size = clustered ? sizeof(cluster_rec) : sizeof(probe_rec);
    void *host = malloc(n * rec_size);
    occ_record *recs = malloc(n * sizeof *recs);
    if (!host || !recs) {
        free(host);
        free(recs);
        return occ__diag(diag, OCC_ERR_NO_MEMORY, NULL, 0, 0, NULL, "out of memory for %zu records", n);
    }
    if (v->spread) {
        /* unequal durations: each block's extra spin in its record's t_end
         * (the kernel overwrites it); the rest of the record stays poisoned */
        probe_rec *p = host;
        memset(p, 0xff, n * sizeof *p);
        double spread_ns = cfg->duration_spread_s * 1e9;
        for (size_t i = 0; i < n; i++)
            p[i].t_end = extra_spin_ns(cfg->seed, i, spread_ns);
    }
    /* in clusters: a grid of (n / (Y * Z), Y, Z), the clusters along x */
    CUlaunchAttribute at;
    memset(&at, 0, sizeof at);
    at.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    at.value.clusterDim.x = dim[0], at.value.clusterDim.y = dim[1], at.value.clusterDim.z = dim[2];
    CUlaunchConfig lc;
    memset(&lc, 0, sizeof lc);
    uint32_t gx = clustered ? (uint32_t)(n / (dim[1] * dim[2])) : (uint32_t)n;
    lc.gridDimX = gx, lc.gridDimY = clustered ? dim[1] : 1, lc.gridDimZ = clustered ? dim[2] : 1;
    lc.blockDimX = k->wg[0], lc.blockDimY = k->wg[1], lc.blockDimZ = k->wg[2];
    lc.sharedMemBytes = dynamic;
    lc.attrs = clustered ? &at : NULL;
    lc.numAttrs = clustered ? 1 : 0;
    s = run_probe(st, v, &lc, cfg, host, n * rec_size, v->spread, res, diag);
    if (s == OCC_OK)
        decode_records(st, host, clustered, gx, dim, n, recs, res);
    else
        free(recs);
    free(host);
    return s;
}

/* cuOccupancyMaxActiveClusters for v launched as k asks (k->cluster,
 * k->cluster_non_portable); -1 when the driver refuses or has no such query. */
static int driver_clusters(cuda_state *st, const variant *v, const occ_kernel *k, uint32_t dynamic)
{
    if (!st->api.OccupancyMaxActiveClusters)
        return -1;
    CUlaunchAttribute at;
    memset(&at, 0, sizeof at);
    at.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    uint32_t dim[3];
    cluster_shape(k, dim);
    at.value.clusterDim.x = dim[0], at.value.clusterDim.y = dim[1], at.value.clusterDim.z = dim[2];
    CUlaunchConfig c;
    memset(&c, 0, sizeof c);
    /* one cluster's grid: the answer does not depend on the grid */
    c.gridDimX = at.value.clusterDim.x, c.gridDimY = at.value.clusterDim.y,
    c.gridDimZ = at.value.clusterDim.z;
    c.blockDimX = k->wg[0], c.blockDimY = k->wg[1], c.blockDimZ = k->wg[2];
    c.sharedMemBytes = dynamic;
    c.attrs = &at;
    c.numAttrs = 1;
    int n = -1;
    if (st->api.FuncSetAttribute(v->f, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED,
                                 k->cluster_non_portable) != 0 ||
        st->api.OccupancyMaxActiveClusters(&n, v->f, &c) != 0)
        n = -1;
    return n;
}

/* Blocks per SM, or for a request in clusters (k->cluster[0] set) the
 * clusters on the whole device; nothing is launched. */
static occ_status cuda_driver_residency(void *state, const occ_kernel *req, occ_kernel *act,
                                        int32_t *ans, size_t n, occ_diag *diag)
{
    cuda_state *st = state;
    occ_status s = load_functions(st, diag);
    if (s != OCC_OK)
        return s;
    for (size_t i = 0; i < n; i++) {
        const variant *v = pick_variant(st, &req[i], false);
        uint32_t dynamic;
        uint64_t block = occ_kernel_wg_size(&req[i]);
        ans[i] = -1;
        CUresult r = configure(st, v, &req[i], &dynamic);
        actual_kernel(v, &req[i], dynamic, &act[i]);
        int occ = 0;
        if (r == 0 && req[i].cluster[0])
            ans[i] = driver_clusters(st, v, &req[i], dynamic);
        else if (r == 0 && block <= 0x7fffffff &&
                 st->api.OccupancyMaxActiveBlocksPerMultiprocessor(&occ, v->f, (int)block, dynamic) == 0)
            ans[i] = occ;
    }
    return OCC_OK;
}

const occ__backend_ops occ__backend_cuda = {
    .name = "cuda",
    .open = cuda_open,
    .describe = cuda_describe,
    .launch = cuda_launch,
    .driver_residency = cuda_driver_residency,
    .close = cuda_close,
};
