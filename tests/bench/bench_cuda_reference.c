/* bench_cuda_reference: occ's residency query against CUDA's own answers,
 * measured in the same run: the driver API's
 * cuOccupancyMaxActiveBlocksPerMultiprocessor and the runtime API's
 * cudaOccupancyMaxActiveBlocksPerMultiprocessor (the call most programs make;
 * the kernel reaches the runtime through cudaLibraryLoadData, CUDA 12.0+).
 *
 * libcuda.so.1 and libcudart are opened with dlopen, so this builds
 * everywhere and needs no CUDA toolkit; without an NVIDIA driver or GPU it
 * prints occ's figures, says "not available" and exits 77.  Without the
 * runtime library (or one older than 12.0) only the driver API is measured.  The kernel is a few lines of PTX kept here
 * (JIT-compiled by the driver), launched never: only asked about.
 *
 * Both sides answer the same questions, in turn: block sizes 32..1024 (step
 * 32) x dynamic shared memory {0, 4 KB, 16 KB, 48 KB, 100 KB}, with the
 * kernel's register count as the driver reports it.  The device profile is
 * the built-in one matching the GPU (compute capability and SM count), or
 * --device NAME.  Answers that differ are counted and printed: a correctness
 * check on the side.  Times are the CPU time of the calling thread; every
 * form of occ's and both of CUDA's calls are timed in alternation
 * (bench_alternate), 7 rounds of about 30 ms each, the best round of each.
 *
 *   bench_cuda_reference [--device NAME] [-v]
 * Exit: 0 with the reference measured; 77 without a usable CUDA driver;
 * 1 on a usage error or when the model and the driver disagree. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "occ_forms.h"
#include "occ/advise.h"
#include "occ/occ.h"

/* The few driver API types and values used (cuda.h is not needed). */
typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
enum { CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
       CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
       CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97 };
enum { CU_FUNC_ATTRIBUTE_NUM_REGS = 4, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8 };

typedef struct cuda_api {
    void *lib;
    CUresult (*Init)(unsigned);
    CUresult (*DeviceGet)(CUdevice *, int);
    CUresult (*DeviceGetName)(char *, int, CUdevice);
    CUresult (*DeviceGetAttribute)(int *, int, CUdevice);
    CUresult (*DevicePrimaryCtxRetain)(CUcontext *, CUdevice);
    CUresult (*DevicePrimaryCtxRelease)(CUdevice);
    CUresult (*CtxSetCurrent)(CUcontext);
    CUresult (*ModuleLoadData)(CUmodule *, const void *);
    CUresult (*ModuleUnload)(CUmodule);
    CUresult (*ModuleGetFunction)(CUfunction *, CUmodule, const char *);
    CUresult (*FuncGetAttribute)(int *, int, CUfunction);
    CUresult (*FuncSetAttribute)(CUfunction, int, int);
    CUresult (*OccupancyMaxActiveBlocksPerMultiprocessor)(int *, CUfunction, int, size_t);
} cuda_api;

/* The runtime API calls used (cuda_runtime.h is not needed either). */
typedef int cudaError_t;
typedef struct cudart_api {
    void *lib;
    cudaError_t (*LibraryLoadData)(void **, const void *, void *, void **, unsigned, void *, void **, unsigned);
    cudaError_t (*LibraryGetKernel)(void **, void *, const char *);
    cudaError_t (*FuncSetAttribute)(const void *, int, int);
    cudaError_t (*OccupancyMaxActiveBlocksPerMultiprocessor)(int *, const void *, int, size_t);
    void *kernel; /* cudaKernel_t, accepted where the runtime takes a kernel */
} cudart_api;
enum { cudaFuncAttributeMaxDynamicSharedMemorySize = 8 };

/* libcudart from the usual places; 0 and the kernel handle on success. */
static int load_runtime(cudart_api *a, const char *image, int optin, char *why, size_t size)
{
    static const char *const names[] = {"libcudart.so.13", "libcudart.so.12", "libcudart.so",
                                        "/usr/local/cuda/lib64/libcudart.so.13",
                                        "/usr/local/cuda/lib64/libcudart.so.12",
                                        "/usr/local/cuda/lib64/libcudart.so"};
    memset(a, 0, sizeof *a);
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !a->lib; i++)
        a->lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!a->lib) {
        snprintf(why, size, "libcudart not found (no CUDA toolkit runtime)");
        return 1;
    }
    *(void **)&a->LibraryLoadData = dlsym(a->lib, "cudaLibraryLoadData");
    *(void **)&a->LibraryGetKernel = dlsym(a->lib, "cudaLibraryGetKernel");
    *(void **)&a->FuncSetAttribute = dlsym(a->lib, "cudaFuncSetAttribute");
    *(void **)&a->OccupancyMaxActiveBlocksPerMultiprocessor =
        dlsym(a->lib, "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
    if (!a->LibraryLoadData || !a->LibraryGetKernel || !a->FuncSetAttribute ||
        !a->OccupancyMaxActiveBlocksPerMultiprocessor) {
        snprintf(why, size, "libcudart has no cudaLibraryLoadData (older than CUDA 12.0)");
        return 1;
    }
    void *lib = NULL;
    cudaError_t e;
    if ((e = a->LibraryLoadData(&lib, image, NULL, NULL, 0, NULL, NULL, 0)) ||
        (e = a->LibraryGetKernel(&a->kernel, lib, "occ_bench")) ||
        (e = a->FuncSetAttribute(a->kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, optin))) {
        snprintf(why, size, "CUDA runtime call failed (%d)", e);
        return 1;
    }
    return 0;
}

static const char ptx[] = ".version 7.0\n"
                          ".target sm_70\n"
                          ".address_size 64\n"
                          ".visible .entry occ_bench(.param .u64 out)\n"
                          "{\n"
                          "    .reg .b32 %r<3>;\n"
                          "    .reg .b64 %rd<4>;\n"
                          "    ld.param.u64 %rd1, [out];\n"
                          "    cvta.to.global.u64 %rd2, %rd1;\n"
                          "    mov.u32 %r1, %tid.x;\n"
                          "    mul.wide.u32 %rd3, %r1, 4;\n"
                          "    add.s64 %rd2, %rd2, %rd3;\n"
                          "    st.global.u32 [%rd2], %r1;\n"
                          "    ret;\n"
                          "}\n";

#define N_BLOCKS 32
static const size_t smem_sizes[] = {0, 4096, 16384, 49152, 102400};
#define N_SMEM (sizeof smem_sizes / sizeof smem_sizes[0])
#define N_CONFIGS (N_BLOCKS * N_SMEM)

static int load_api(cuda_api *a, char *why, size_t size)
{
    memset(a, 0, sizeof *a);
    a->lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!a->lib) {
        snprintf(why, size, "libcuda.so.1 not found (no NVIDIA driver)");
        return 1;
    }
#define SYM(field, name)                                                                           \
    if (!(*(void **)&a->field = dlsym(a->lib, name))) {                                            \
        snprintf(why, size, "libcuda.so.1 has no %s", name);                                       \
        return 1;                                                                                  \
    }
    SYM(Init, "cuInit");
    SYM(DeviceGet, "cuDeviceGet");
    SYM(DeviceGetName, "cuDeviceGetName");
    SYM(DeviceGetAttribute, "cuDeviceGetAttribute");
    SYM(DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
    SYM(DevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2");
    SYM(CtxSetCurrent, "cuCtxSetCurrent");
    SYM(ModuleLoadData, "cuModuleLoadData");
    SYM(ModuleUnload, "cuModuleUnload");
    SYM(ModuleGetFunction, "cuModuleGetFunction");
    SYM(FuncGetAttribute, "cuFuncGetAttribute");
    SYM(FuncSetAttribute, "cuFuncSetAttribute");
    SYM(OccupancyMaxActiveBlocksPerMultiprocessor, "cuOccupancyMaxActiveBlocksPerMultiprocessor");
#undef SYM
    return 0;
}

/* What CUDA's timed passes read: the configurations and its handles. */
typedef struct cuda_side {
    const occ_kernel *ks;
    const cuda_api *cu;
    CUfunction fn;
    const cudart_api *rt;
} cuda_side;

/* One pass asks every configuration once (occ's passes: bench/occ_forms.c). */
static void pass_driver(const void *ctx, uint64_t *acc)
{
    const cuda_side *s = ctx;
    int blocks;
    for (size_t i = 0; i < N_CONFIGS; i++) {
        s->cu->OccupancyMaxActiveBlocksPerMultiprocessor(&blocks, s->fn, (int)s->ks[i].wg[0], s->ks[i].slm_bytes);
        *acc += (uint64_t)blocks;
    }
}

static void pass_runtime(const void *ctx, uint64_t *acc)
{
    const cuda_side *s = ctx;
    int blocks;
    for (size_t i = 0; i < N_CONFIGS; i++) {
        s->rt->OccupancyMaxActiveBlocksPerMultiprocessor(&blocks, s->rt->kernel, (int)s->ks[i].wg[0],
                                                         s->ks[i].slm_bytes);
        *acc += (uint64_t)blocks;
    }
}

/* The built-in profile for this GPU: same vendor, compute capability in the
 * architecture text ("sm_90") and SM count. */
static const char *match_profile(int cc_major, int cc_minor, int sms)
{
    char arch[16];
    snprintf(arch, sizeof arch, "sm_%d%d", cc_major, cc_minor);
    for (size_t i = 0; i < occ_builtin_count(); i++) {
        occ_device *dev;
        occ_diag diag;
        if (occ_device_builtin(occ_builtin_name(i), &dev, &diag) != OCC_OK)
            continue;
        const occ_device_desc *d = occ_device_describe(dev);
        int hit = d->vendor == OCC_VENDOR_NVIDIA && strstr(d->architecture, arch) &&
                  d->cores == (uint32_t)sms;
        occ_device_free(dev);
        if (hit)
            return occ_builtin_name(i);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    bench_pin_cpu(); /* one CPU: steadier figures on a many-core host */
    const char *device_name = NULL;
    int verbose = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--device") == 0 && i + 1 < argc)
            device_name = argv[++i];
        else if (strcmp(argv[i], "-v") == 0)
            verbose = 1;
        else {
            fprintf(stderr, "usage: bench_cuda_reference [--device NAME] [-v]\n");
            return 1;
        }
    }
    char machine[512];
    bench_machine(machine, sizeof machine);
    printf("bench_cuda_reference: occ vs CUDA, per residency answer (block sizes 32..1024 x "
           "5 dynamic shared-memory sizes)\nmachine: %s\n", machine);

    /* The driver side first: it decides which profile to use. */
    char why[256] = "";
    cuda_api cu;
    int have_cuda = load_api(&cu, why, sizeof why) == 0;
    CUdevice cudev = 0;
    CUcontext ctx = NULL;
    CUmodule mod = NULL;
    CUfunction fn = NULL;
    int sms = 0, major = 0, minor = 0, regs = 0, optin = 0;
    char gpu[256] = "";
    CUresult res = 0;
    if (have_cuda && (res = cu.Init(0)) != 0) {
        snprintf(why, sizeof why, "cuInit failed (%d): no usable NVIDIA GPU", res);
        have_cuda = 0;
    }
    if (have_cuda && ((res = cu.DeviceGet(&cudev, 0)) || (res = cu.DeviceGetName(gpu, sizeof gpu, cudev)) ||
                      (res = cu.DeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, cudev)) ||
                      (res = cu.DeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, cudev)) ||
                      (res = cu.DeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, cudev)) ||
                      (res = cu.DeviceGetAttribute(&optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, cudev)) ||
                      (res = cu.DevicePrimaryCtxRetain(&ctx, cudev)) || (res = cu.CtxSetCurrent(ctx)) ||
                      (res = cu.ModuleLoadData(&mod, ptx)) ||
                      (res = cu.ModuleGetFunction(&fn, mod, "occ_bench")) ||
                      (res = cu.FuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, fn)) ||
                      (res = cu.FuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, optin)))) {
        snprintf(why, sizeof why, "CUDA driver call failed (%d)", res);
        have_cuda = 0;
    }
    if (!device_name)
        device_name = have_cuda ? match_profile(major, minor, sms) : "h100-sxm";
    if (!device_name) {
        printf("CUDA reference: no built-in profile for %s (sm_%d%d, %d SMs); give --device NAME\n", gpu,
               major, minor, sms);
        return 77;
    }

    occ_device *dev;
    occ_diag diag;
    if (occ_device_open(device_name, &dev, &diag) != OCC_OK) {
        fprintf(stderr, "bench_cuda_reference: %s: %s\n", device_name, diag.message);
        return 1;
    }
    static occ_kernel ks[N_CONFIGS];
    static occ_residency rs[N_CONFIGS];
    for (size_t i = 0; i < N_CONFIGS; i++) {
        occ_kernel_init(&ks[i]);
        ks[i].wg[0] = (uint32_t)(32 * (1 + i % N_BLOCKS));
        ks[i].slm_bytes = smem_sizes[i / N_BLOCKS];
        ks[i].regs_per_thread = have_cuda ? (uint32_t)regs : 16;
    }
    static uint32_t col_wg[N_CONFIGS], col_regs[N_CONFIGS], col_resident[N_CONFIGS];
    static uint64_t col_slm[N_CONFIGS];
    static double col_occupancy[N_CONFIGS];
    static uint8_t col_limited[N_CONFIGS], col_reason[N_CONFIGS];
    for (size_t i = 0; i < N_CONFIGS; i++)
        col_wg[i] = ks[i].wg[0], col_slm[i] = ks[i].slm_bytes, col_regs[i] = ks[i].regs_per_thread;
    occ_columns in;
    occ_columns_init(&in);
    in.wg_x = col_wg, in.slm_bytes = col_slm, in.regs_per_thread = col_regs;
    occ_eval_columns out;
    occ_eval_columns_init(&out);
    out.resident_wgs = col_resident, out.occupancy = col_occupancy;
    out.limited_by = col_limited, out.reason = col_reason;
    /* the prepared kernel: what CUDA holds in a CUfunction (registers, static
     * shared memory), asked about a block size and dynamic shared memory */
    occ_prepared *prep = NULL;
    occ_kernel fixed = ks[0];
    fixed.slm_bytes = 0;
    if (occ_prepare(dev, &fixed, &prep) != OCC_OK) {
        fprintf(stderr, "bench_cuda_reference: occ_prepare failed\n");
        return 1;
    }
    /* The runtime API, in the same context (the device's primary one). */
    char why_rt[256] = "no CUDA driver";
    cudart_api rt;
    int have_rt = have_cuda && load_runtime(&rt, ptx, optin, why_rt, sizeof why_rt) == 0;

    /* Every side in alternation, the best round of each: the ratios then
     * compare figures taken under the same state of a shared host. */
    occ_forms of = {dev, ks, N_CONFIGS, N_CONFIGS, rs, prep, &in, &out};
    cuda_side cs = {ks, &cu, fn, &rt};
    enum { T_COMPACT, T_PREPARED, T_FULL, T_BATCH, T_COLUMNS, T_DRIVER, T_RUNTIME };
    bench_turn turns[] = {
        [T_COMPACT] = {occ_forms_compact, &of, N_CONFIGS, 0}, [T_PREPARED] = {occ_forms_prepared, &of, N_CONFIGS, 0},
        [T_FULL] = {occ_forms_full, &of, N_CONFIGS, 0},       [T_BATCH] = {occ_forms_batch, &of, N_CONFIGS, 0},
        [T_COLUMNS] = {occ_forms_columns, &of, N_CONFIGS, 0}, [T_DRIVER] = {pass_driver, &cs, N_CONFIGS, 0},
        [T_RUNTIME] = {pass_runtime, &cs, N_CONFIGS, 0},
    };
    size_t n_turns = have_rt ? T_RUNTIME + 1 : have_cuda ? T_DRIVER + 1 : T_COLUMNS + 1;
    uint64_t sink = bench_alternate(turns, n_turns, 7, 30);
    double ns_compact = turns[T_COMPACT].ns, ns_prepared = turns[T_PREPARED].ns, ns_occ = turns[T_FULL].ns;
    double ns_batch = turns[T_BATCH].ns, ns_columns = turns[T_COLUMNS].ns;
    double ns_cuda = have_cuda ? turns[T_DRIVER].ns : 0, ns_cudart = have_rt ? turns[T_RUNTIME].ns : 0;

    occ_eval e;
    static uint32_t prepared_answer[N_CONFIGS];
    for (size_t i = 0; i < N_CONFIGS; i++) {
        occ_prepared_evaluate(prep, ks[i].wg[0], 1, 1, ks[i].slm_bytes, &e);
        prepared_answer[i] = e.resident_wgs;
    }
    occ_prepared_free(prep);

    int mismatches = 0;
    occ_residency_batch(dev, ks, rs, N_CONFIGS);
    if (have_cuda) {
        int blocks;
        for (size_t i = 0; i < N_CONFIGS; i++) {
            blocks = -1;
            cu.OccupancyMaxActiveBlocksPerMultiprocessor(&blocks, fn, (int)ks[i].wg[0], ks[i].slm_bytes);
            uint32_t ours = rs[i].launchable ? rs[i].resident_wgs : 0;
            if ((uint32_t)blocks != ours || prepared_answer[i] != ours) {
                if (mismatches++ < 10 || verbose)
                    printf("differs: block %u, dynamic shared %zu B, %d registers: CUDA %d, occ %u, prepared %u\n",
                           ks[i].wg[0], (size_t)ks[i].slm_bytes, regs, blocks, ours, prepared_answer[i]);
            }
        }
    }
    int mismatches_rt = 0;
    if (have_rt) {
        int blocks;
        for (size_t i = 0; i < N_CONFIGS; i++) {
            blocks = -1;
            rt.OccupancyMaxActiveBlocksPerMultiprocessor(&blocks, rt.kernel, (int)ks[i].wg[0], ks[i].slm_bytes);
            mismatches_rt += (uint32_t)blocks != (rs[i].launchable ? rs[i].resident_wgs : 0);
        }
    }
    if (have_cuda) {
        cu.ModuleUnload(mod);
        cu.DevicePrimaryCtxRelease(cudev);
    }

    printf("%-58s %12s\n", "per answer (thread CPU time)", "ns");
    printf("%-58s %12.1f\n", "occ_prepared_evaluate, prepared kernel (in turn)", ns_prepared);
    printf("%-58s %12.1f\n", "occ_evaluate, compact (configurations in turn)", ns_compact);
    printf("%-58s %12.1f\n", "occ_evaluate_columns (160 kernels, per kernel)", ns_columns);
    printf("%-58s %12.1f\n", "occ_residency_compute, full report (configurations in turn)", ns_occ);
    printf("%-58s %12.1f\n", "occ_residency_batch (160 kernels, per kernel)", ns_batch);
    if (have_cuda) {
        printf("%-58s %12.1f\n", "cuOccupancyMaxActiveBlocksPerMultiprocessor", ns_cuda);
        printf("GPU: %s (sm_%d%d, %d SMs), profile %s, kernel %d registers\n", gpu, major, minor, sms,
               device_name, regs);
        printf("CUDA's calls return one number; occ_evaluate returns occ_eval (blocks per SM, occupancy,\n"
               "what limits it; 24 bytes), occ_residency_compute the full report\n");
        printf("occ_evaluate is %.0fx faster per answer (occ_residency_compute %.0fx); answers: %d of %d agree\n",
               ns_cuda / ns_compact, ns_cuda / ns_occ, (int)N_CONFIGS - mismatches, (int)N_CONFIGS);
        printf("occ_prepared_evaluate (the kernel prepared once, as a CUfunction is) is %.0fx faster\n",
               ns_cuda / ns_prepared);
        if (have_rt)
            printf("%-58s %12.1f\nruntime API: occ_evaluate is %.0fx faster, occ_prepared_evaluate %.0fx; "
                   "answers: %d of %d agree\n",
                   "cudaOccupancyMaxActiveBlocksPerMultiprocessor", ns_cudart, ns_cudart / ns_compact,
                   ns_cudart / ns_prepared, (int)N_CONFIGS - mismatches_rt, (int)N_CONFIGS);
        else
            printf("CUDA runtime reference: not available: %s\n", why_rt);
    } else {
        printf("CUDA reference: not available: %s (occ's figures use the built-in profile %s)\n", why,
               device_name);
    }
    bench_result("prepared_query_nvidia", ns_prepared, "ns", have_cuda ? "cuda_occupancy" : NULL, ns_cuda);
    if (have_rt)
        bench_result("prepared_query_nvidia_vs_runtime", ns_prepared, "ns", "cudart_occupancy", ns_cudart);
    bench_result("compact_query_nvidia", ns_compact, "ns", have_cuda ? "cuda_occupancy" : NULL, ns_cuda);
    bench_result("compact_query_nvidia_columns", ns_columns, "ns", "compact_one_by_one", ns_compact);
    if (have_rt)
        bench_result("compact_query_nvidia_vs_runtime", ns_compact, "ns", "cudart_occupancy", ns_cudart);
    bench_result("residency_query_nvidia", ns_occ, "ns", have_cuda ? "cuda_occupancy" : NULL, ns_cuda);
    bench_result("residency_query_nvidia_batched", ns_batch, "ns", have_cuda ? "cuda_occupancy" : NULL,
                 ns_cuda);
    if (have_rt) {
        bench_result("residency_query_nvidia_vs_runtime", ns_occ, "ns", "cudart_occupancy", ns_cudart);
        bench_result("residency_query_nvidia_batched_vs_runtime", ns_batch, "ns", "cudart_occupancy",
                     ns_cudart);
    }
    if (sink == 42)
        putchar('\n');
    occ_device_free(dev);
    if (!have_cuda)
        return 77;
    return mismatches || mismatches_rt ? 1 : 0;
}
