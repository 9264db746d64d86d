/*
 * What CUPTI itself adds to a launch, without occ's tracer (tests/hw/
 * trace_overhead.sh, docs/performance.md "Tracing overhead").  An injection
 * library like libocc_trace.so (CUDA_INJECTION64_PATH) whose work is chosen
 * by $OCC_FLOOR:
 *   callback  subscribe to the same six launch callbacks; the callback returns at once
 *   activity  CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL only; buffers dropped unread
 *   both      the two
 *   kernel    CUPTI_ACTIVITY_KIND_KERNEL (serialised kernels) only
 *   pinned    as activity, with CUPTI's device buffers in pinned host memory
 * Built on the GPU machine only: gcc -shared -fPIC -I$CUDA/include.
 */
#include <cupti.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BUFFER (1u << 20)

static CUptiResult (*Subscribe)(CUpti_SubscriberHandle *, CUpti_CallbackFunc, void *);
static CUptiResult (*EnableCallback)(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain,
                                     CUpti_CallbackId);
static CUptiResult (*RegisterCallbacks)(CUpti_BuffersCallbackRequestFunc,
                                        CUpti_BuffersCallbackCompleteFunc);
static CUptiResult (*Enable)(CUpti_ActivityKind);
static CUptiResult (*FlushAll)(uint32_t);
static CUptiResult (*SetAttribute)(CUpti_ActivityAttribute, size_t *, void *);

static void CUPTIAPI nothing(void *u, CUpti_CallbackDomain d, CUpti_CallbackId c, const void *p)
{
    (void)u, (void)d, (void)c, (void)p;
}

static void CUPTIAPI requested(uint8_t **buffer, size_t *size, size_t *max)
{
    *buffer = aligned_alloc(8, BUFFER);
    *size = *buffer ? BUFFER : 0;
    *max = 0;
}

static void CUPTIAPI completed(CUcontext c, uint32_t s, uint8_t *buffer, size_t size, size_t valid)
{
    (void)c, (void)s, (void)size, (void)valid;
    free(buffer);
}

static void flush(void)
{
    FlushAll(1);
}

int InitializeInjection(void) __attribute__((visibility("default")));
int InitializeInjection(void)
{
    const char *mode = getenv("OCC_FLOOR"), *path = getenv("OCC_TRACE_CUPTI");
    void *cupti = dlopen(path && *path ? path : "libcupti.so", RTLD_NOW | RTLD_LOCAL);
    if (!mode || !cupti) {
        fprintf(stderr, "cupti_floor: OCC_FLOOR or CUPTI missing\n");
        return 1;
    }
    *(void **)&Subscribe = dlsym(cupti, "cuptiSubscribe");
    *(void **)&EnableCallback = dlsym(cupti, "cuptiEnableCallback");
    *(void **)&RegisterCallbacks = dlsym(cupti, "cuptiActivityRegisterCallbacks");
    *(void **)&Enable = dlsym(cupti, "cuptiActivityEnable");
    *(void **)&FlushAll = dlsym(cupti, "cuptiActivityFlushAll");
    *(void **)&SetAttribute = dlsym(cupti, "cuptiActivitySetAttribute");
    if (!strcmp(mode, "callback") || !strcmp(mode, "both")) {
        CUpti_SubscriberHandle sub;
        static const CUpti_CallbackId ids[] = {
            CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
            CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
            CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
            CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
            CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
            CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
        };
        if (Subscribe(&sub, nothing, NULL) != CUPTI_SUCCESS)
            fprintf(stderr, "cupti_floor: subscribe failed\n");
        for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++)
            EnableCallback(1, sub, CUPTI_CB_DOMAIN_DRIVER_API, ids[i]);
    }
    if (strcmp(mode, "callback") != 0) {
        if (!strcmp(mode, "pinned")) {
            uint8_t one = 1;
            size_t n = sizeof one;
            if (SetAttribute(CUPTI_ACTIVITY_ATTR_MEM_ALLOCATION_TYPE_HOST_PINNED, &n, &one))
                fprintf(stderr, "cupti_floor: pinned refused\n");
        }
        RegisterCallbacks(requested, completed);
        if (Enable(!strcmp(mode, "kernel") ? CUPTI_ACTIVITY_KIND_KERNEL
                                           : CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) != CUPTI_SUCCESS)
            fprintf(stderr, "cupti_floor: activity refused\n");
        atexit(flush);
    }
    return 1;
}
