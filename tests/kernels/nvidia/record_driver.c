/* record_driver: what the CUDA driver says about each kernel of the test
 * files (tests/data/kernels/nvidia/), for the readers' tests to replay
 * without a GPU.  Run once on the lent H100 (docs/kernels.md):
 *
 *   gcc -O2 -o record_driver tests/kernels/nvidia/record_driver.c -ldl
 *   CUDA_MODULE_LOADING=EAGER \
 *   ./record_driver [--occupancy] FILE... > driver-h100.tsv
 *
 * libcuda.so.1 is opened with dlopen (no CUDA headers needed).  Each file is
 * loaded with cuModuleLoadData (PTX text NUL-terminated, JIT-compiled by the
 * driver); its kernels are enumerated with cuModuleEnumerateFunctions.
 * Output, tab-separated, '#' lines are comments:
 *   load  FILE  RESULT                  (0 = loaded; else the CUresult)
 *   attr  FILE  KERNEL  regs  shared  local  max_threads  const  ptx_ver  binary_ver  max_dyn
 *   occ   FILE  KERNEL  block  dynamic_smem  RESULT  blocks_per_SM
 * Before the occupancy questions the kernel's dynamic shared memory limit is
 * raised to the device's opt-in maximum minus its static shared memory, so
 * the answers cover the whole range the model covers. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;

enum { MAX_THREADS = 0, SHARED_SIZE = 1, CONST_SIZE = 2, LOCAL_SIZE = 3, NUM_REGS = 4,
       PTX_VERSION = 5, BINARY_VERSION = 6, MAX_DYNAMIC_SHARED = 8 };
enum { DEV_SM_COUNT = 16, DEV_CC_MAJOR = 75, DEV_CC_MINOR = 76, DEV_SMEM_OPTIN = 97,
       DEV_RESERVED_SMEM = 111 };

static struct {
    CUresult (*Init)(unsigned);
    CUresult (*DriverGetVersion)(int *);
    CUresult (*DeviceGet)(CUdevice *, int);
    CUresult (*DeviceGetName)(char *, int, CUdevice);
    CUresult (*DeviceGetAttribute)(int *, int, CUdevice);
    CUresult (*DevicePrimaryCtxRetain)(CUcontext *, CUdevice);
    CUresult (*CtxSetCurrent)(CUcontext);
    CUresult (*ModuleLoadData)(CUmodule *, const void *);
    CUresult (*ModuleUnload)(CUmodule);
    CUresult (*ModuleGetFunction)(CUfunction *, CUmodule, const char *);
    CUresult (*ModuleGetFunctionCount)(unsigned *, CUmodule);
    CUresult (*ModuleEnumerateFunctions)(CUfunction *, unsigned, CUmodule);
    CUresult (*FuncGetName)(const char **, CUfunction);
    CUresult (*FuncGetAttribute)(int *, int, CUfunction);
    CUresult (*FuncSetAttribute)(CUfunction, int, int);
    CUresult (*OccupancyMaxActiveBlocksPerMultiprocessor)(int *, CUfunction, int, size_t);
} cu;

static void *need(void *lib, const char *name)
{
    void *p = dlsym(lib, name);
    if (!p) {
        fprintf(stderr, "record_driver: %s not in libcuda.so.1\n", name);
        exit(2);
    }
    return p;
}

#define LOAD(field, sym) *(void **)&cu.field = need(lib, sym)

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (buf) {
        buf[n] = 0; /* PTX must be NUL-terminated */
        *len = (size_t)n;
    }
    return buf;
}

static const char *base(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

int main(int argc, char **argv)
{
    int occupancy = 0, first = 1;
    if (argc > 1 && strcmp(argv[1], "--occupancy") == 0) {
        occupancy = 1;
        first = 2;
    }
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "record_driver: no libcuda.so.1: %s\n", dlerror());
        return 77;
    }
    LOAD(Init, "cuInit");
    LOAD(DriverGetVersion, "cuDriverGetVersion");
    LOAD(DeviceGet, "cuDeviceGet");
    LOAD(DeviceGetName, "cuDeviceGetName");
    LOAD(DeviceGetAttribute, "cuDeviceGetAttribute");
    LOAD(DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
    LOAD(CtxSetCurrent, "cuCtxSetCurrent");
    LOAD(ModuleLoadData, "cuModuleLoadData");
    LOAD(ModuleUnload, "cuModuleUnload");
    LOAD(ModuleGetFunction, "cuModuleGetFunction");
    LOAD(ModuleGetFunctionCount, "cuModuleGetFunctionCount");
    LOAD(ModuleEnumerateFunctions, "cuModuleEnumerateFunctions");
    LOAD(FuncGetName, "cuFuncGetName");
    LOAD(FuncGetAttribute, "cuFuncGetAttribute");
    LOAD(FuncSetAttribute, "cuFuncSetAttribute");
    LOAD(OccupancyMaxActiveBlocksPerMultiprocessor, "cuOccupancyMaxActiveBlocksPerMultiprocessor");

    CUdevice dev;
    CUcontext ctx;
    if (cu.Init(0) || cu.DeviceGet(&dev, 0) || cu.DevicePrimaryCtxRetain(&ctx, dev) ||
        cu.CtxSetCurrent(ctx)) {
        fprintf(stderr, "record_driver: no usable CUDA device\n");
        return 77;
    }
    char name[256] = "";
    int version = 0, major = 0, minor = 0, sms = 0, optin = 0, reserved = 0;
    cu.DeviceGetName(name, sizeof name, dev);
    cu.DriverGetVersion(&version);
    cu.DeviceGetAttribute(&major, DEV_CC_MAJOR, dev);
    cu.DeviceGetAttribute(&minor, DEV_CC_MINOR, dev);
    cu.DeviceGetAttribute(&sms, DEV_SM_COUNT, dev);
    cu.DeviceGetAttribute(&optin, DEV_SMEM_OPTIN, dev);
    cu.DeviceGetAttribute(&reserved, DEV_RESERVED_SMEM, dev);
    char when[64];
    time_t now = time(NULL);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    printf("# record_driver %s\n# gpu: %s, compute capability %d.%d, %d SMs, shared opt-in %d, "
           "reserved per block %d\n# cuDriverGetVersion: %d\n",
           when, name, major, minor, sms, optin, reserved, version);

    static const int blocks[] = {32, 64, 96, 128, 160, 192, 256, 288, 320, 384, 512, 640, 768, 1024};
    static const size_t dyns[] = {0, 1000, 4096, 30000, 100000, 200000};
    for (int a = first; a < argc; a++) {
        size_t len = 0;
        char *img = read_file(argv[a], &len);
        if (!img) {
            printf("load\t%s\tunreadable\n", base(argv[a]));
            continue;
        }
        CUmodule mod;
        CUresult r = cu.ModuleLoadData(&mod, img);
        printf("load\t%s\t%d\n", base(argv[a]), r);
        if (r) {
            free(img);
            continue;
        }
        unsigned n = 0;
        cu.ModuleGetFunctionCount(&n, mod);
        CUfunction *fs = calloc(n ? n : 1, sizeof *fs);
        if (n && cu.ModuleEnumerateFunctions(fs, n, mod))
            n = 0;
        for (unsigned i = 0; i < n; i++) {
            const char *fn = "?";
            cu.FuncGetName(&fn, fs[i]);
            /* By name as well: with lazy loading (CUDA 12's default) an
             * enumerated function is not loaded yet, and some attributes
             * (MAX_THREADS_PER_BLOCK, CONST_SIZE_BYTES) fail until it is. */
            CUfunction byname;
            if (cu.ModuleGetFunction(&byname, mod, fn) == 0)
                fs[i] = byname;
            int v[9] = {0};
            static const int which[9] = {NUM_REGS, SHARED_SIZE, LOCAL_SIZE, MAX_THREADS, CONST_SIZE,
                                         PTX_VERSION, BINARY_VERSION, MAX_DYNAMIC_SHARED, -1};
            for (int k = 0; which[k] >= 0; k++) {
                CUresult e = cu.FuncGetAttribute(&v[k], which[k], fs[i]);
                if (e) {
                    printf("# %s: cuFuncGetAttribute(%d) = %d\n", fn, which[k], e);
                    v[k] = -1;
                }
            }
            printf("attr\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\n", base(argv[a]), fn, v[0], v[1],
                   v[2], v[3], v[4], v[5], v[6], v[7]);
            if (!occupancy)
                continue;
            int rc = cu.FuncSetAttribute(fs[i], MAX_DYNAMIC_SHARED, optin - v[1]);
            if (rc)
                printf("# %s: cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES, %d) = %d\n", fn,
                       optin - v[1], rc);
            for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; b++)
                for (size_t d = 0; d < sizeof dyns / sizeof dyns[0]; d++) {
                    int nb = -1;
                    CUresult q = cu.OccupancyMaxActiveBlocksPerMultiprocessor(&nb, fs[i], blocks[b],
                                                                              dyns[d]);
                    printf("occ\t%s\t%s\t%d\t%zu\t%d\t%d\n", base(argv[a]), fn, blocks[b], dyns[d],
                           q, q ? -1 : nb);
                }
        }
        free(fs);
        cu.ModuleUnload(mod);
        free(img);
    }
    return 0;
}
