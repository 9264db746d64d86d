/* The CUDA occupancy campaign: what the driver answers, recorded for replay.
 * Built here or on the GPU machine by tests/hw/occupancy_campaign.sh:
 *
 *   nvcc -O2 -arch=sm_90 -o occupancy_campaign tests/hw/occupancy_campaign.cu -lcuda
 *   occupancy_campaign OUTDIR [DEVICE]
 *
 * Writes CSV files (a '#' header: date, GPU, UUID, driver) into OUTDIR:
 *   device.csv     the device's attributes (cuDeviceGetAttribute, every id)
 *   kernels.csv    each kernel's attributes (cuFuncGetAttribute) and what its
 *                  source declares (launch bounds, register cap, static shared)
 *   occupancy.csv  cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags: kernel
 *                  x block size 32..1024 x dynamic shared memory (opt-in set)
 *   potential.csv  cuOccupancyMaxPotentialBlockSize (driver) and
 *                  cudaOccupancyMaxPotentialBlockSize[VariableSMem] (runtime),
 *                  constant and per-block shared-memory functions, block limits
 *   available.csv  cudaOccupancyAvailableDynamicSMemPerBlock
 *   cooperative.csv the cooperative maximum and cuLaunchCooperativeKernel with
 *                  it and with one block more (the error code)
 *   clusters.csv   cuOccupancyMaxActiveClusters: kernel x block x dynamic
 *                  shared memory x cluster shape (1-D to 3-D, up to 16)
 *   cluster_size.csv cuOccupancyMaxPotentialClusterSize
 *   placement.csv  a probe launched in clusters: %smid, %nsmid, %clusterid,
 *                  %cluster_ctarank of every block (GPCs: SMs that share a
 *                  cluster share a GPC)
 *   launches.csv   cuLaunchKernel and a launch in clusters of 2 at and above
 *                  each kernel's own maximum block size (the error codes)
 *   coresidency.csv the probe with small blocks in clusters of 1..16 (0: an
 *                  ordinary launch), twice the active clusters: when and where
 *                  each block ran (how many blocks of a cluster launch share
 *                  an SM)
 * The kernels' bodies never run their arithmetic (flag 0): only their compiled
 * resources matter.  CUDA C++, driver API for the occupancy calls. */
#include <cuda.h>
#include <cuda_runtime.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- kernels of graded resource use -------------------------------------- */

/* K live values, each a load, then rounds of dependent FMAs over all of them:
 * the compiler keeps about K registers live unless a cap makes it spill. */
template <int K> __device__ __forceinline__ void body(const float *in, float *out, int n, int flag)
{
    extern __shared__ float dyn[];
    if (!flag)
        return;
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    float v[K];
#pragma unroll
    for (int i = 0; i < K; i++)
        v[i] = in[(t * 7 + i * 131) % n];
#pragma unroll
    for (int r = 0; r < 4; r++) {
#pragma unroll
        for (int i = 0; i < K; i++)
            v[i] = fmaf(v[i], v[(i + 1) % K], v[(i * 5 + 3) % K]);
    }
    float s = 0;
#pragma unroll
    for (int i = 0; i < K; i++)
        s += v[i] * (float)(i + 1);
    if (flag > 1)
        dyn[threadIdx.x] = s;
    out[t] = s;
}

#define SIG (const float *in, float *out, int n, int flag)
#define BODY(K) { body<K>(in, out, n, flag); }

__global__ void k_light SIG BODY(2)
__global__ void k_natural32 SIG BODY(24)
__global__ void k_natural64 SIG BODY(56)
__global__ void k_natural128 SIG BODY(120)
__global__ void k_natural224 SIG BODY(216)
__global__ void __maxnreg__(32) k_cap32 SIG BODY(216)
__global__ void __maxnreg__(40) k_cap40 SIG BODY(216)
__global__ void __maxnreg__(48) k_cap48 SIG BODY(216)
__global__ void __maxnreg__(56) k_cap56 SIG BODY(216)
__global__ void __maxnreg__(64) k_cap64 SIG BODY(216)
__global__ void __maxnreg__(72) k_cap72 SIG BODY(216)
__global__ void __maxnreg__(80) k_cap80 SIG BODY(216)
__global__ void __maxnreg__(96) k_cap96 SIG BODY(216)
__global__ void __maxnreg__(128) k_cap128 SIG BODY(216)
__global__ void __maxnreg__(168) k_cap168 SIG BODY(216)
__global__ void __maxnreg__(200) k_cap200 SIG BODY(216)
__global__ void __launch_bounds__(256) k_lb256 SIG BODY(216)
__global__ void __launch_bounds__(128) k_lb128 SIG BODY(216)
__global__ void __launch_bounds__(256, 2) k_lb256_2 SIG BODY(216)
__global__ void __launch_bounds__(128, 4) k_lb128_4 SIG BODY(216)
__global__ void __launch_bounds__(1024) k_lb1024 SIG BODY(216)
__global__ void __launch_bounds__(768) k_lb768 SIG BODY(216)
__global__ void __launch_bounds__(96) k_lb96 SIG BODY(56)

/* static shared memory (48 KB is the static maximum) */
#define STATIC_SMEM(NAME, BYTES, K)                                                          \
    __global__ void NAME SIG                                                                 \
    {                                                                                        \
        __shared__ float st[(BYTES) / 4];                                                    \
        if (flag > 2) {                                                                      \
            st[threadIdx.x % ((BYTES) / 4)] = (float)n;                                      \
            __syncthreads();                                                                 \
            out[threadIdx.x] = st[(threadIdx.x + 1) % ((BYTES) / 4)];                        \
        }                                                                                    \
        body<K>(in, out, n, flag);                                                           \
    }
STATIC_SMEM(k_static4k, 4096, 24)
STATIC_SMEM(k_static16k, 16384, 56)
STATIC_SMEM(k_static48k, 49152, 24)
STATIC_SMEM(k_static1k_r128, 1024, 120)

/* a barrier kernel (__syncthreads) */
__global__ void k_barrier SIG
{
    extern __shared__ float dyn[];
    if (!flag)
        return;
    dyn[threadIdx.x] = in[threadIdx.x % n];
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = dyn[(threadIdx.x + 1) % blockDim.x];
}

/* compiled cluster dimensions */
__global__ void __cluster_dims__(2, 1, 1) k_cluster2 SIG BODY(24)
__global__ void __cluster_dims__(4, 2, 1) k_cluster4x2 SIG BODY(56)

typedef void (*kfn) SIG;

struct kernel {
    const char *name;
    kfn fn;
    int launch_bounds;   /* declared maxThreadsPerBlock, 0 none */
    int min_blocks;      /* declared minBlocksPerMultiprocessor, 0 none */
    int maxnreg;         /* declared __maxnreg__, 0 none */
    int static_smem;     /* declared static shared bytes */
    int cluster;         /* compiled cluster dims, e.g. 2 (x) or 42 (4x2), 0 none */
    bool in_clusters;    /* part of the cluster sweep */
    CUfunction f;
};

#define K(fn, lb, mb, mr, ss, cl, ic) {#fn, fn, lb, mb, mr, ss, cl, ic, NULL}
static kernel kernels[] = {
    K(k_light, 0, 0, 0, 0, 0, true),
    K(k_natural32, 0, 0, 0, 0, 0, false),
    K(k_natural64, 0, 0, 0, 0, 0, true),
    K(k_natural128, 0, 0, 0, 0, 0, true),
    K(k_natural224, 0, 0, 0, 0, 0, false),
    K(k_cap32, 0, 0, 32, 0, 0, false),
    K(k_cap40, 0, 0, 40, 0, 0, false),
    K(k_cap48, 0, 0, 48, 0, 0, false),
    K(k_cap56, 0, 0, 56, 0, 0, false),
    K(k_cap64, 0, 0, 64, 0, 0, false),
    K(k_cap72, 0, 0, 72, 0, 0, true),
    K(k_cap80, 0, 0, 80, 0, 0, false),
    K(k_cap96, 0, 0, 96, 0, 0, false),
    K(k_cap128, 0, 0, 128, 0, 0, false),
    K(k_cap168, 0, 0, 168, 0, 0, true),
    K(k_cap200, 0, 0, 200, 0, 0, false),
    K(k_lb256, 256, 0, 0, 0, 0, true),
    K(k_lb128, 128, 0, 0, 0, 0, false),
    K(k_lb256_2, 256, 2, 0, 0, 0, false),
    K(k_lb128_4, 128, 4, 0, 0, 0, false),
    K(k_lb1024, 1024, 0, 0, 0, 0, false),
    K(k_lb768, 768, 0, 0, 0, 0, false),
    K(k_lb96, 96, 0, 0, 0, 0, false),
    K(k_static4k, 0, 0, 0, 4096, 0, false),
    K(k_static16k, 0, 0, 0, 16384, 0, true),
    K(k_static48k, 0, 0, 0, 49152, 0, false),
    K(k_static1k_r128, 0, 0, 0, 1024, 0, false),
    K(k_barrier, 0, 0, 0, 0, 0, true),
    K(k_cluster2, 0, 0, 0, 0, 2, false),
    K(k_cluster4x2, 0, 0, 0, 0, 42, false),
};
#define N_KERNELS (sizeof kernels / sizeof kernels[0])

/* ---- the cluster placement probe ------------------------------------------ */

__device__ __forceinline__ unsigned sreg(int which)
{
    unsigned v = 0;
    switch (which) {
    case 0: asm volatile("mov.u32 %0, %%smid;" : "=r"(v)); break;
    case 1: asm volatile("mov.u32 %0, %%nsmid;" : "=r"(v)); break;
    case 2: asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(v)); break;
    case 3: asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(v)); break;
    case 4: asm volatile("mov.u32 %0, %%clusterid.y;" : "=r"(v)); break;
    case 5: asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(v)); break;
    case 6: asm volatile("mov.u32 %0, %%nclusterid.x;" : "=r"(v)); break;
    }
    return v;
}

__device__ __forceinline__ unsigned long long gtime()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

#define PROBE_FIELDS 10
/* One record per block; every block spins spin_ns so that the launch's
 * clusters are resident together. */
__global__ void k_probe(unsigned long long *rec, unsigned long long spin_ns)
{
    unsigned long long t0 = gtime();
    if (threadIdx.x == 0) {
        unsigned long long *r = rec + (size_t)blockIdx.x * PROBE_FIELDS;
        r[0] = blockIdx.x;
        for (int i = 0; i < 7; i++)
            r[1 + i] = sreg(i);
        r[8] = t0;
    }
    while (gtime() - t0 < spin_ns) {
    }
    if (threadIdx.x == 0)
        rec[(size_t)blockIdx.x * PROBE_FIELDS + 9] = gtime();
}

/* ---- recording ------------------------------------------------------------ */

static char header[1024];
static const char *outdir;

static FILE *open_csv(const char *name, const char *columns)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", outdir, name);
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(1);
    }
    fputs(header, f);
    fprintf(f, "%s\n", columns);
    return f;
}

static double now_s()
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

#define CK(call)                                                                             \
    do {                                                                                     \
        CUresult e_ = (call);                                                                \
        if (e_ != CUDA_SUCCESS) {                                                            \
            fprintf(stderr, "%s:%d: %s failed: %d\n", __FILE__, __LINE__, #call, (int)e_); \
            exit(1);                                                                         \
        }                                                                                    \
    } while (0)

static CUdevice dev;
static int n_sms, optin_smem, max_threads_sm;

static int func_attr(CUfunction f, CUfunction_attribute a)
{
    int v = -1;
    if (cuFuncGetAttribute(&v, a, f) != CUDA_SUCCESS)
        return -1;
    return v;
}

/* The dynamic shared-memory sizes of the sweeps: every KB, the bytes around
 * the granule and the ends. */
static int dyn_sizes(int max_dyn, int *out)
{
    int n = 0;
    const int odd[] = {1, 127, 128, 129, 255, 256, 257, 1000, 1023, 1025, 3000, 7777, 50000};
    for (int k = 0; k * 1024 <= max_dyn; k++)
        out[n++] = k * 1024;
    for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++)
        if (odd[i] <= max_dyn)
            out[n++] = odd[i];
    if (max_dyn % 1024)
        out[n++] = max_dyn;
    out[n++] = max_dyn - 1;
    out[n++] = max_dyn + 1;
    out[n++] = max_dyn + 1024;
    return n;
}

/* blockSizeToDynamicSMemSize functions of the variable-shared-memory calls */
__host__ __device__ static size_t smem_bytes(int id, int block)
{
    switch (id) {
    case 0: return 4 * (size_t)block;
    case 1: return 8 * (size_t)block + 1024;
    case 2: return 64 * (size_t)block;
    case 3: return 200 * (size_t)block;
    default: return block >= 512 ? 65536 : 16384;
    }
}
#define N_SMEM_FNS 5
static int smem_fn_id;
static size_t smem_fn(int block) { return smem_bytes(smem_fn_id, block); }
struct smem_functor {
    int id;
    __host__ __device__ size_t operator()(int block) const { return smem_bytes(id, block); }
};

/* A cluster-dimension attribute of x * y * z blocks. */
static CUlaunchAttribute cluster_attr(unsigned x, unsigned y, unsigned z)
{
    CUlaunchAttribute a;
    memset(&a, 0, sizeof a);
    a.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    a.value.clusterDim.x = x;
    a.value.clusterDim.y = y;
    a.value.clusterDim.z = z;
    return a;
}

/* A launch of gx x gy x gz blocks of `block` threads (1-D) with smem bytes of
 * dynamic shared memory, in clusters as *attr says (NULL: no clusters). */
static CUlaunchConfig launch_config(unsigned gx, unsigned gy, unsigned gz, unsigned block,
                                    unsigned smem, CUlaunchAttribute *attr)
{
    CUlaunchConfig c;
    memset(&c, 0, sizeof c);
    c.gridDimX = gx;
    c.gridDimY = gy;
    c.gridDimZ = gz;
    c.blockDimX = block;
    c.blockDimY = c.blockDimZ = 1;
    c.sharedMemBytes = smem;
    c.attrs = attr;
    c.numAttrs = attr ? 1 : 0;
    return c;
}

/* Launches the probe as cfg says, every block spinning spin_ns, and copies
 * its records (cfg->gridDimX of them) into host; false (and a line on stderr)
 * when the launch fails or would not fit rec. */
static bool run_probe(CUfunction probe, CUlaunchConfig *cfg, CUdeviceptr rec, size_t rec_bytes,
                      unsigned long long *host, unsigned long long spin_ns, const char *what)
{
    if ((size_t)cfg->gridDimX * PROBE_FIELDS * 8 > rec_bytes)
        return false;
    CK(cuMemsetD8(rec, 0, rec_bytes));
    void *args[] = {&rec, &spin_ns};
    CUresult e = cuLaunchKernelEx(cfg, probe, args, NULL);
    if (e == CUDA_SUCCESS)
        e = cuCtxSynchronize();
    if (e != CUDA_SUCCESS) {
        fprintf(stderr, "%s launch, %u blocks of %u: error %d\n", what, cfg->gridDimX, cfg->blockDimX,
                (int)e);
        return false;
    }
    CK(cuMemcpyDtoH(host, rec, (size_t)cfg->gridDimX * PROBE_FIELDS * 8));
    return true;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s OUTDIR [DEVICE]\n", argv[0]);
        return 2;
    }
    outdir = argv[1];
    int ordinal = argc > 2 ? atoi(argv[2]) : 0;
    double t_start = now_s();
    CK(cuInit(0));
    CK(cuDeviceGet(&dev, ordinal));
    if (cudaSetDevice(ordinal) != cudaSuccess || cudaFree(0) != cudaSuccess) {
        fprintf(stderr, "cannot open device %d\n", ordinal);
        return 1;
    }
    char name[256];
    CK(cuDeviceGetName(name, sizeof name, dev));
    CUuuid uuid;
    CK(cuDeviceGetUuid_v2(&uuid, dev));
    char uuid_s[64];
    int p = 0;
    for (int i = 0; i < 16; i++)
        p += sprintf(uuid_s + p, "%02x%s", (unsigned char)uuid.bytes[i],
                     (i == 3 || i == 5 || i == 7 || i == 9) ? "-" : "");
    char bus[64] = "";
    cuDeviceGetPCIBusId(bus, sizeof bus, dev);
    int drv = 0, rt = 0;
    cuDriverGetVersion(&drv);
    cudaRuntimeGetVersion(&rt);
    int major = 0, minor = 0;
    cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
    cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
    cuDeviceGetAttribute(&n_sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
    cuDeviceGetAttribute(&optin_smem, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, dev);
    cuDeviceGetAttribute(&max_threads_sm, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, dev);
    time_t tt = time(NULL);
    char date[64];
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&tt));
    snprintf(header, sizeof header,
             "# occ CUDA occupancy campaign (tests/hw/occupancy_campaign.cu)\n"
             "# date %s; device %d: %s; uuid GPU-%s; pci %s; sm_%d%d; %d SMs\n"
             "# driver API version %d (cuDriverGetVersion); runtime %d\n",
             date, ordinal, name, uuid_s, bus, major, minor, n_sms, drv, rt);
    fputs(header, stdout);

    /* device attributes: every id the driver answers */
    FILE *f = open_csv("device.csv", "attribute,value");
    for (int a = 1; a < 256; a++) {
        int v;
        if (cuDeviceGetAttribute(&v, (CUdevice_attribute)a, dev) == CUDA_SUCCESS)
            fprintf(f, "%d,%d\n", a, v);
    }
    fclose(f);

    /* kernels and their attributes */
    f = open_csv("kernels.csv",
                 "kernel,num_regs,max_threads_per_block,shared_size_bytes,local_size_bytes,"
                 "const_size_bytes,ptx_version,binary_version,max_dynamic_shared_default,"
                 "cluster_size_must_be_set,required_cluster_width,required_cluster_height,"
                 "required_cluster_depth,declared_launch_bounds,declared_min_blocks,"
                 "declared_maxnreg,declared_static_shared,declared_cluster");
    for (size_t k = 0; k < N_KERNELS; k++) {
        kernel *kk = &kernels[k];
        if (cudaGetFuncBySymbol((cudaFunction_t *)&kk->f, (const void *)kk->fn) != cudaSuccess) {
            fprintf(stderr, "no function for %s\n", kk->name);
            return 1;
        }
        CUfunction fn = kk->f;
        fprintf(f, "%s,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d\n", kk->name,
                func_attr(fn, CU_FUNC_ATTRIBUTE_NUM_REGS),
                func_attr(fn, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK),
                func_attr(fn, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES),
                func_attr(fn, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES),
                func_attr(fn, CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES),
                func_attr(fn, CU_FUNC_ATTRIBUTE_PTX_VERSION),
                func_attr(fn, CU_FUNC_ATTRIBUTE_BINARY_VERSION),
                func_attr(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES),
                func_attr(fn, CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET),
                func_attr(fn, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH),
                func_attr(fn, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT),
                func_attr(fn, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH), kk->launch_bounds,
                kk->min_blocks, kk->maxnreg, kk->static_smem, kk->cluster);
    }
    fclose(f);

    /* occupancy without the opt-in (the default 48 KB dynamic limit), then
     * with every function opted in to the most dynamic shared memory */
    static int dyn[512];
    f = open_csv("occupancy.csv", "kernel,block,dyn_smem,optin,flags,err,blocks_per_sm");
    const int no_optin[] = {0, 1024, 48 * 1024 - 1, 48 * 1024, 48 * 1024 + 1, 64 * 1024, 100 * 1024};
    for (size_t k = 0; k < N_KERNELS; k++)
        for (int b = 32; b <= 1024; b += 32)
            for (size_t d = 0; d < sizeof no_optin / sizeof no_optin[0]; d++) {
                int n = -1;
                CUresult e = cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
                    &n, kernels[k].f, b, no_optin[d], CU_OCCUPANCY_DEFAULT);
                fprintf(f, "%s,%d,%d,0,0,%d,%d\n", kernels[k].name, b, no_optin[d], (int)e, n);
            }
    long queries = 0;
    for (size_t k = 0; k < N_KERNELS; k++) {
        kernel *kk = &kernels[k];
        if (now_s() - t_start > 120) {
            fprintf(f, "# stopped after 120 s: kernels from %s on left out\n", kk->name);
            break;
        }
        int max_dyn = optin_smem - func_attr(kk->f, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
        if (cuFuncSetAttribute(kk->f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, max_dyn))
            fprintf(f, "# %s: the opt-in to %d bytes was refused\n", kk->name, max_dyn);
        int nd = dyn_sizes(max_dyn, dyn);
        for (int b = 32; b <= 1024; b += 32)
            for (int d = 0; d < nd; d++)
                for (int fl = 0; fl < 2; fl++) {
                    /* the caching-override flag on a sample only */
                    if (fl && (dyn[d] % 8192 != 0 || b % 128 != 0))
                        continue;
                    int n = -1;
                    CUresult e = cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
                        &n, kk->f, b, dyn[d],
                        fl ? CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE : CU_OCCUPANCY_DEFAULT);
                    fprintf(f, "%s,%d,%d,1,%d,%d,%d\n", kk->name, b, dyn[d], fl, (int)e, n);
                    queries++;
                }
    }
    fclose(f);
    printf("occupancy: %ld queries, %.1f s\n", queries, now_s() - t_start);

    /* the potential block size: driver and runtime, constant shared memory and
     * per-block functions, block-size limits */
    f = open_csv("potential.csv",
                 "api,kernel,dyn_smem,smem_fn,block_limit,err,min_grid,block");
    const int pdyn[] = {0, 1024, 4096, 16384, 32768, 49152, 65536, 100000, 131072, 163840, 200000,
                        227 * 1024};
    const int limits[] = {0, 1024, 1000, 768, 640, 512, 384, 256, 200, 96, 64, 32, 1};
    for (size_t k = 0; k < N_KERNELS; k++) {
        kernel *kk = &kernels[k];
        for (size_t l = 0; l < sizeof limits / sizeof limits[0]; l++) {
            for (size_t d = 0; d < sizeof pdyn / sizeof pdyn[0]; d++) {
                int g = -1, b = -1;
                CUresult e = cuOccupancyMaxPotentialBlockSize(&g, &b, kk->f, NULL, pdyn[d],
                                                              limits[l]);
                fprintf(f, "driver,%s,%d,-1,%d,%d,%d,%d\n", kk->name, pdyn[d], limits[l], (int)e,
                        g, b);
                g = b = -1;
                cudaError_t re =
                    cudaOccupancyMaxPotentialBlockSize(&g, &b, kk->fn, pdyn[d], limits[l]);
                fprintf(f, "runtime,%s,%d,-1,%d,%d,%d,%d\n", kk->name, pdyn[d], limits[l],
                        (int)re, g, b);
            }
            for (smem_fn_id = 0; smem_fn_id < N_SMEM_FNS; smem_fn_id++) {
                int g = -1, b = -1;
                CUresult e = cuOccupancyMaxPotentialBlockSize(&g, &b, kk->f, smem_fn, 0,
                                                              limits[l]);
                fprintf(f, "driver,%s,-1,%d,%d,%d,%d,%d\n", kk->name, smem_fn_id, limits[l],
                        (int)e, g, b);
                g = b = -1;
                cudaError_t re = cudaOccupancyMaxPotentialBlockSizeVariableSMem(
                    &g, &b, kk->fn, smem_functor{smem_fn_id}, limits[l]);
                fprintf(f, "runtime,%s,-1,%d,%d,%d,%d,%d\n", kk->name, smem_fn_id, limits[l],
                        (int)re, g, b);
            }
        }
    }
    fclose(f);

    /* the dynamic shared memory left for a block */
    f = open_csv("available.csv", "kernel,blocks_per_sm,block,err,bytes");
    for (size_t k = 0; k < N_KERNELS; k++)
        for (int nb = 1; nb <= 32; nb++)
            for (int b = 32; b <= 1024; b += 32) {
                size_t bytes = 0;
                cudaError_t e = cudaOccupancyAvailableDynamicSMemPerBlock(&bytes, kernels[k].fn,
                                                                          nb, b);
                if (e == cudaSuccess && bytes == 0 && nb > 8)
                    continue;
                fprintf(f, "%s,%d,%d,%d,%zu\n", kernels[k].name, nb, b, (int)e, bytes);
            }
    fclose(f);
    printf("potential, available: %.1f s\n", now_s() - t_start);

    /* cooperative launches: the maximum and one block more */
    CUdeviceptr in = 0, out = 0;
    CK(cuMemAlloc(&in, 1 << 20));
    CK(cuMemAlloc(&out, 64 << 20));
    int coop = 0;
    cuDeviceGetAttribute(&coop, CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, dev);
    f = open_csv("cooperative.csv",
                 "kernel,block,dyn_smem,blocks_per_sm,coop_max,err_at_max,err_over_max");
    const int cblocks[] = {32, 64, 96, 128, 256, 384, 512, 640, 768, 1024};
    const int cdyn[] = {0, 8192, 50000, 100 * 1024, 200 * 1024};
    int zero = 0, nn = 1 << 18;
    for (size_t k = 0; k < N_KERNELS && coop; k++) {
        kernel *kk = &kernels[k];
        if (kk->cluster)
            continue; /* compiled clusters do not launch cooperatively alone */
        for (size_t bi = 0; bi < sizeof cblocks / sizeof cblocks[0]; bi++)
            for (size_t d = 0; d < sizeof cdyn / sizeof cdyn[0]; d++) {
                int b = cblocks[bi], n = -1;
                CUresult e =
                    cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, kk->f, b, cdyn[d]);
                if (e != CUDA_SUCCESS || n <= 0) {
                    fprintf(f, "%s,%d,%d,%d,0,%d,-1\n", kk->name, b, cdyn[d], n, (int)e);
                    continue;
                }
                int max = n * n_sms;
                void *args[] = {&in, &out, &nn, &zero};
                CUresult e1 =
                    cuLaunchCooperativeKernel(kk->f, max, 1, 1, b, 1, 1, cdyn[d], 0, args);
                CUresult s1 = cuCtxSynchronize();
                CUresult e2 =
                    cuLaunchCooperativeKernel(kk->f, max + 1, 1, 1, b, 1, 1, cdyn[d], 0, args);
                CUresult s2 = cuCtxSynchronize();
                fprintf(f, "%s,%d,%d,%d,%d,%d,%d\n", kk->name, b, cdyn[d], n, max,
                        (int)(e1 ? e1 : s1), (int)(e2 ? e2 : s2));
            }
    }
    fclose(f);
    printf("cooperative: %.1f s\n", now_s() - t_start);

    /* clusters: the maximum active clusters */
    f = open_csv("clusters.csv", "kernel,block,dyn_smem,cx,cy,cz,nonportable,err,max_clusters");
    const int shapes[][3] = {
        {1, 1, 1}, {2, 1, 1}, {3, 1, 1}, {4, 1, 1}, {5, 1, 1}, {6, 1, 1}, {7, 1, 1}, {8, 1, 1},
        {9, 1, 1}, {10, 1, 1}, {11, 1, 1}, {12, 1, 1}, {13, 1, 1}, {14, 1, 1}, {15, 1, 1},
        {16, 1, 1}, {1, 2, 1}, {2, 2, 1}, {1, 4, 1}, {4, 2, 1}, {2, 4, 1}, {3, 3, 1}, {4, 4, 1},
        {2, 2, 2}, {1, 1, 8}, {2, 2, 4}, {1, 2, 3}};
    const int n_shapes = sizeof shapes / sizeof shapes[0];
    const int cdyns[] = {0, 1024, 8192, 16384, 32768, 49152, 65536, 80000, 102400, 116736,
                         150000, 180000, 200000, 227 * 1024};
    long cq = 0;
    double t_clusters = now_s();
    for (size_t k = 0; k < N_KERNELS; k++) {
        if (now_s() - t_clusters > 150) {
            fprintf(f, "# stopped after 150 s: kernels from %s on left out\n", kernels[k].name);
            break;
        }
        kernel *kk = &kernels[k];
        if (!kk->in_clusters && !kk->cluster)
            continue;
        int max_dyn = optin_smem - func_attr(kk->f, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
        for (int np = 0; np < 2; np++) {
            cuFuncSetAttribute(kk->f, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, np);
            for (int b = 32; b <= 1024; b += 32)
                for (size_t d = 0; d < sizeof cdyns / sizeof cdyns[0]; d++)
                    for (int s = 0; s < n_shapes; s++) {
                        int size = shapes[s][0] * shapes[s][1] * shapes[s][2];
                        /* the portable pass only where it differs: sizes > 8 */
                        if (!np && size <= 8)
                            continue;
                        if (kk->cluster && s != 0)
                            continue; /* compiled dims: the launch may not set them */
                        if (cdyns[d] > max_dyn || (d % 2 && b % 128))
                            continue;
                        CUlaunchAttribute attr = cluster_attr(shapes[s][0], shapes[s][1], shapes[s][2]);
                        /* a grid of whole clusters (compiled 4x2 included) */
                        CUlaunchConfig cfg = launch_config(
                            shapes[s][0] * 16, kk->cluster ? 8 : shapes[s][1], shapes[s][2], b,
                            cdyns[d], kk->cluster ? NULL : &attr);
                        int n = -1;
                        CUresult e = cuOccupancyMaxActiveClusters(&n, kk->f, &cfg);
                        fprintf(f, "%s,%d,%d,%d,%d,%d,%d,%d,%d\n", kk->name, b, cdyns[d],
                                kk->cluster ? 0 : shapes[s][0], kk->cluster ? 0 : shapes[s][1],
                                kk->cluster ? 0 : shapes[s][2], np, (int)e, n);
                        cq++;
                    }
        }
    }
    fclose(f);
    printf("clusters: %ld queries, %.1f s\n", cq, now_s() - t_start);

    /* the potential cluster size */
    f = open_csv("cluster_size.csv", "kernel,block,dyn_smem,nonportable,grid,err,cluster_size");
    for (size_t k = 0; k < N_KERNELS; k++) {
        kernel *kk = &kernels[k];
        if (!kk->in_clusters && !kk->cluster)
            continue;
        int max_dyn = optin_smem - func_attr(kk->f, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
        for (int np = 0; np < 2; np++) {
            cuFuncSetAttribute(kk->f, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, np);
            for (int b = 32; b <= 1024; b += 32)
                for (size_t d = 0; d < sizeof cdyns / sizeof cdyns[0]; d++)
                    for (int grid = 0; grid < 2; grid++) {
                        if (cdyns[d] > max_dyn || (grid && (b % 128 || d % 3)))
                            continue;
                        CUlaunchConfig cfg = launch_config(grid ? 16 : 16 * 132, kk->cluster ? 8 : 1,
                                                           1, b, cdyns[d], NULL);
                        int n = -1;
                        CUresult e = cuOccupancyMaxPotentialClusterSize(&n, kk->f, &cfg);
                        fprintf(f, "%s,%d,%d,%d,%u,%d,%d\n", kk->name, b, cdyns[d], np,
                                cfg.gridDimX, (int)e, n);
                    }
        }
    }
    fclose(f);
    printf("cluster sizes: %.1f s\n", now_s() - t_start);

    /* where clusters run: the probe with one block per SM (shared memory
     * fills the SM), as many clusters as the driver says fit, then twice as
     * many */
    CUfunction probe;
    CK((CUresult)cudaGetFuncBySymbol((cudaFunction_t *)&probe, (const void *)k_probe));
    int probe_dyn = optin_smem - 1024;
    CK(cuFuncSetAttribute(probe, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, probe_dyn));
    CK(cuFuncSetAttribute(probe, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1));
    f = open_csv("placement.csv",
                 "launch,cluster_size,block_size,dyn_smem,max_clusters,clusters,block,smid,nsmid,"
                 "ctarank,clusterid,nctarank,nclusterid,start_ns,end_ns");
    const int psizes[] = {16, 15, 14, 12, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1};
    const int pblocks[] = {128, 1024};
    CUdeviceptr rec = 0;
    size_t rec_bytes = (size_t)4 * n_sms * PROBE_FIELDS * sizeof(unsigned long long) * 16;
    CK(cuMemAlloc(&rec, rec_bytes));
    unsigned long long *host = (unsigned long long *)malloc(rec_bytes);
    int launch = 0;
    for (int rep = 0; rep < 3; rep++)
        for (size_t si = 0; si < sizeof psizes / sizeof psizes[0]; si++)
            for (int bi = 0; bi < 2; bi++)
                for (int twice = 0; twice < 2; twice++) {
                    int cs = psizes[si], b = pblocks[bi];
                    /* bi 1: no shared memory, 1024 threads: two blocks per SM */
                    int dsm = bi ? 0 : probe_dyn;
                    if (twice && rep)
                        continue;
                    CUlaunchAttribute attr = cluster_attr(cs, 1, 1);
                    CUlaunchConfig cfg = launch_config(cs, 1, 1, b, dsm, &attr);
                    int mc = -1;
                    if (cuOccupancyMaxActiveClusters(&mc, probe, &cfg) != CUDA_SUCCESS || mc <= 0)
                        continue;
                    int clusters = twice ? 2 * mc : mc;
                    cfg.gridDimX = clusters * cs;
                    /* 0.2 ms: all resident at once */
                    if (!run_probe(probe, &cfg, rec, rec_bytes, host, 200000, "placement"))
                        continue;
                    for (unsigned i = 0; i < cfg.gridDimX; i++) {
                        unsigned long long *r = host + (size_t)i * PROBE_FIELDS;
                        fprintf(f, "%d,%d,%d,%d,%d,%d,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu\n",
                                launch, cs, b, dsm, mc, clusters, r[0], r[1], r[2], r[3], r[4],
                                r[6], r[7], r[8], r[9]);
                    }
                    launch++;
                }
    fclose(f);
    printf("placement: %d launches, %.1f s\n", launch, now_s() - t_start);

    /* ordinary launches at and above a kernel's own maximum: the error of
     * cuLaunchKernel, and of the same launch in clusters of 2 */
    f = open_csv("launches.csv", "kernel,block,max_threads_per_block,blocks_per_sm,err_launch,"
                                 "err_cluster_launch");
    for (size_t k = 0; k < N_KERNELS; k++) {
        kernel *kk = &kernels[k];
        if (kk->cluster)
            continue;
        int maxt = func_attr(kk->f, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
        const int sizes[] = {maxt - 32, maxt, maxt + 32, 1024};
        for (int i = 0; i < 4; i++) {
            int b = sizes[i];
            if (b < 32 || b > 1024 || (i == 3 && maxt + 32 >= 1024))
                continue;
            int n = -1;
            cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, kk->f, b, 0);
            void *args[] = {&in, &out, &nn, &zero};
            CUresult e1 = cuLaunchKernel(kk->f, n_sms, 1, 1, b, 1, 1, 0, 0, args, NULL);
            CUresult s1 = cuCtxSynchronize();
            CUlaunchAttribute attr = cluster_attr(2, 1, 1);
            CUlaunchConfig cfg = launch_config(2 * n_sms, 1, 1, b, 0, &attr);
            CUresult e2 = cuLaunchKernelEx(&cfg, kk->f, args, NULL);
            CUresult s2 = cuCtxSynchronize();
            fprintf(f, "%s,%d,%d,%d,%d,%d\n", kk->name, b, maxt, n, (int)(e1 ? e1 : s1),
                    (int)(e2 ? e2 : s2));
        }
    }
    fclose(f);
    printf("launches: %.1f s\n", now_s() - t_start);

    /* how many blocks of a cluster launch run at once on an SM: the probe with
     * small blocks and no shared memory, twice as many clusters as the driver
     * says are active (and, cluster size 0, an ordinary launch of two waves) */
    f = open_csv("coresidency.csv", "launch,cluster_size,block_size,blocks_per_sm,max_clusters,"
                                    "clusters,block,smid,clusterid,ctarank,start_ns,end_ns");
    CK(cuFuncSetAttribute(probe, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 0));
    const int csizes[] = {0, 1, 2, 4, 8, 16};
    const int cblk[] = {32, 256};
    int claunch = 0;
    for (size_t ci = 0; ci < sizeof csizes / sizeof csizes[0]; ci++)
        for (int bi = 0; bi < 2; bi++) {
            int cs = csizes[ci], b = cblk[bi], n = -1, mc = 0;
            cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, probe, b, 0);
            CUlaunchAttribute attr = cluster_attr(cs, 1, 1);
            CUlaunchConfig cfg = launch_config(cs ? cs : 1, 1, 1, b, 0, cs ? &attr : NULL);
            if (cs && (cuOccupancyMaxActiveClusters(&mc, probe, &cfg) != CUDA_SUCCESS || mc <= 0))
                continue;
            int clusters = cs ? 2 * mc : 2 * n * n_sms;
            cfg.gridDimX = cs ? clusters * cs : clusters;
            /* 0.3 ms: two waves at most */
            if (!run_probe(probe, &cfg, rec, rec_bytes, host, 300000, "co-residency"))
                continue;
            for (unsigned i = 0; i < cfg.gridDimX; i++) {
                unsigned long long *r = host + (size_t)i * PROBE_FIELDS;
                fprintf(f, "%d,%d,%d,%d,%d,%d,%llu,%llu,%llu,%llu,%llu,%llu\n", claunch, cs, b, n,
                        mc, clusters, r[0], r[1], r[4], r[3], r[8], r[9]);
            }
            claunch++;
        }
    fclose(f);
    printf("co-residency: %d launches, %.1f s\n", claunch, now_s() - t_start);
    return 0;
}
