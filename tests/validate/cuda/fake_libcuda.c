/* A stand-in libcuda.so.1 for the no-GPU tests (tests/validate/cuda/cli_cuda.sh): it
 * exports every entry point libocc's CUDA backend looks up, and its cuInit
 * fails the way $FAKE_CUDA_MODE says:
 *   nodevice  CUDA_ERROR_NO_DEVICE (100), as on a machine without a GPU
 *   stub      CUDA_ERROR_STUB_LIBRARY (34), as the toolkit's stub library
 *   nodevices cuInit succeeds, cuDeviceGetCount says 0
 *   crash     cuInit dies with SIGSEGV (a broken driver)
 *   hang      cuInit never returns (the watchdog must end it)
 * Values from the CUDA Driver API reference (CUresult). */
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
    if (!strcmp(m, "nodevices"))
        return 0;
    return 100;
}

API int cuDeviceGetCount(int *n)
{
    *n = 0;
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

/* Never reached in these tests: present so that the lookups succeed. */
#define STUB(name)                                                                                 \
    API int name(void);                                                                            \
    API int name(void) { return 999; }
STUB(cuDriverGetVersion)
STUB(cuDeviceGet)
STUB(cuDeviceGetName)
STUB(cuDeviceGetAttribute)
STUB(cuDevicePrimaryCtxRetain)
STUB(cuDevicePrimaryCtxRelease_v2)
STUB(cuCtxSetCurrent)
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
