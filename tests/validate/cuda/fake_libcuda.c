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
 * of the CUDA Programming Guide's table for their capabilities.
 * Values from the CUDA Driver API reference (CUresult, CUdevice_attribute). */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define API __attribute__((visibility("default")))

API int cuInit(unsigned flags);
API int cuDeviceGetCount(int *n);
API int cuGetErrorName(int e, const char **s);
API int cuGetErrorString(int e, const char **s);

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

/* Never reached in these tests (nothing is launched): present so that the
 * lookups succeed. */
#define STUB(name)                                                                                 \
    API int name(void);                                                                            \
    API int name(void) { return 999; }
STUB(cuCtxSynchronize)
STUB(cuModuleLoadData)
STUB(cuModuleUnload)
STUB(cuModuleGetFunction)
STUB(cuFuncGetAttribute)
STUB(cuFuncSetAttribute)
STUB(cuMemAlloc_v2)
STUB(cuMemFree_v2)
STUB(cuMemsetD8_v2)
STUB(cuMemcpyDtoH_v2)
STUB(cuMemcpyHtoD_v2)
STUB(cuLaunchKernel)
STUB(cuOccupancyMaxActiveBlocksPerMultiprocessor)
