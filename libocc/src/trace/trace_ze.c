/*
 * Level Zero interposer: the program's calls to these loader entry points
 * reach these definitions first (LD_PRELOAD), which record what they need and
 * call the loader's own (dlsym RTLD_NEXT).  Nothing is changed on the way.
 *
 *  zeModuleCreate              module -> device, build flags (large GRF)
 *  zeKernelCreate / Destroy    kernel -> name, module
 *  zeKernelSetGroupSize        the kernel's current work-group size
 *  zeKernelSetArgumentValue    NULL value = a local-memory argument of argSize bytes
 *  zeCommandListAppendLaunch*  one L line per launch; the first launch of a
 *                              kernel also writes its K line (zeKernelGetProperties)
 *
 * Record lines (docs/trace.md):
 *  D <dev> ze eus=N threads_per_eu=N simd=N max_wg=N slm=N id=0xDEVID name=NAME
 *  K <kid> ze dev=<dev> sg=N req_sg=N slm=N private=N spill=N grf=default|large|auto
 *        req_wg=X,Y,Z name=NAME
 *  L <kid> <tid> ze <normal|coop|indirect> wg=X,Y,Z groups=X,Y,Z|? dyn=BYTES rc=N
 *  U <tid> ze multiple-indirect kernels=N   (launches whose kernels are chosen on the device)
 */
#define _GNU_SOURCE
#include "trace_map.h"
#include "trace_rec.h"

#include <level_zero/ze_api.h>

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define MAX_SLM_ARGS 64

typedef struct ze_device_info {
    unsigned id;
} ze_device_info;

typedef struct ze_module_info {
    ze_device_handle_t device;
    const char *grf; /* "default", "large", "auto" */
} ze_module_info;

typedef struct ze_kernel_info {
    unsigned id;
    ze_module_handle_t module;
    char name[256];
    uint32_t wg[3];
    bool wg_set;
    bool described; /* K line written */
    ze_kernel_properties_t props;
    uint64_t slm_arg[MAX_SLM_ARGS];
} ze_kernel_info;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static trace_map devices = {.value_size = sizeof(ze_device_info)};
static trace_map modules = {.value_size = sizeof(ze_module_info)};
static trace_map kernels = {.value_size = sizeof(ze_kernel_info)};
static unsigned next_device_id, next_kernel_id;

/* The loader's entry point of that name (once; NULL if absent). */
#define REAL(name)                                                                                 \
    static _Atomic(void *) real_##name##_p;                                                        \
    static void *real_##name(void)                                                                 \
    {                                                                                              \
        void *p = atomic_load_explicit(&real_##name##_p, memory_order_relaxed);                    \
        if (!p) {                                                                                  \
            p = dlsym(RTLD_NEXT, #name);                                                           \
            atomic_store_explicit(&real_##name##_p, p, memory_order_relaxed);                      \
        }                                                                                          \
        return p;                                                                                  \
    }

REAL(zeModuleCreate)
REAL(zeKernelCreate)
REAL(zeKernelDestroy)
REAL(zeKernelSetGroupSize)
REAL(zeKernelSetArgumentValue)
REAL(zeKernelGetProperties)
REAL(zeDeviceGetProperties)
REAL(zeDeviceGetComputeProperties)
REAL(zeCommandListAppendLaunchKernel)
REAL(zeCommandListAppendLaunchCooperativeKernel)
REAL(zeCommandListAppendLaunchKernelIndirect)
REAL(zeCommandListAppendLaunchMultipleKernelsIndirect)

/* Not found: the program called a Level Zero function without a loader. */
#define CALL(name, type, ...)                                                                      \
    (real_##name() ? ((type)real_##name())(__VA_ARGS__) : ZE_RESULT_ERROR_UNINITIALIZED)

typedef ze_result_t (*device_props_fn)(ze_device_handle_t, ze_device_properties_t *);
typedef ze_result_t (*compute_props_fn)(ze_device_handle_t, ze_device_compute_properties_t *);
typedef ze_result_t (*kernel_props_fn)(ze_kernel_handle_t, ze_kernel_properties_t *);

/* Called with the lock held: the device's number, its D line written once. */
static unsigned device_id(ze_device_handle_t dev)
{
    bool created;
    ze_device_info *d = trace_map_get(&devices, dev, &created);
    if (!d)
        return 0;
    if (!created)
        return d->id;
    d->id = ++next_device_id;
    ze_device_properties_t p = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    ze_device_compute_properties_t cp = {.stype = ZE_STRUCTURE_TYPE_DEVICE_COMPUTE_PROPERTIES};
    if (CALL(zeDeviceGetProperties, device_props_fn, dev, &p) != ZE_RESULT_SUCCESS)
        memset(&p, 0, sizeof p);
    if (CALL(zeDeviceGetComputeProperties, compute_props_fn, dev, &cp) != ZE_RESULT_SUCCESS)
        memset(&cp, 0, sizeof cp);
    char name[sizeof p.name + 1];
    trace_field(name, sizeof name, p.name);
    trace_line("D %u ze eus=%u threads_per_eu=%u simd=%u max_wg=%u slm=%u id=0x%x name=%s", d->id,
               p.numSlices * p.numSubslicesPerSlice * p.numEUsPerSubslice, p.numThreadsPerEU,
               p.physicalEUSimdWidth, cp.maxTotalGroupSize, cp.maxSharedLocalMemory, p.deviceId,
               name[0] ? name : "?");
    return d->id;
}

ze_result_t ZE_APICALL zeModuleCreate(ze_context_handle_t hContext, ze_device_handle_t hDevice,
                                      const ze_module_desc_t *desc, ze_module_handle_t *phModule,
                                      ze_module_build_log_handle_t *phBuildLog)
{
    typedef ze_result_t (*fn)(ze_context_handle_t, ze_device_handle_t, const ze_module_desc_t *,
                              ze_module_handle_t *, ze_module_build_log_handle_t *);
    ze_result_t r = CALL(zeModuleCreate, fn, hContext, hDevice, desc, phModule, phBuildLog);
    if (r == ZE_RESULT_SUCCESS && phModule && trace_enabled()) {
        const char *flags = desc && desc->pBuildFlags ? desc->pBuildFlags : "";
        pthread_mutex_lock(&lock);
        bool created;
        ze_module_info *m = trace_map_get(&modules, *phModule, &created);
        if (m) {
            m->device = hDevice;
            m->grf = strstr(flags, "-ze-opt-large-register-file")            ? "large"
                     : strstr(flags, "-ze-intel-enable-auto-large-GRF-mode") ? "auto"
                                                                              : "default";
        }
        pthread_mutex_unlock(&lock);
    }
    return r;
}

ze_result_t ZE_APICALL zeKernelCreate(ze_module_handle_t hModule, const ze_kernel_desc_t *desc,
                                      ze_kernel_handle_t *phKernel)
{
    typedef ze_result_t (*fn)(ze_module_handle_t, const ze_kernel_desc_t *, ze_kernel_handle_t *);
    ze_result_t r = CALL(zeKernelCreate, fn, hModule, desc, phKernel);
    if (r == ZE_RESULT_SUCCESS && phKernel && trace_enabled()) {
        pthread_mutex_lock(&lock);
        bool created;
        trace_map_remove(&kernels, *phKernel); /* a handle reused after a destroy we missed */
        ze_kernel_info *k = trace_map_get(&kernels, *phKernel, &created);
        if (k) {
            k->id = ++next_kernel_id;
            k->module = hModule;
            trace_field(k->name, sizeof k->name, desc ? desc->pKernelName : NULL);
            k->wg[0] = k->wg[1] = k->wg[2] = 1;
        }
        pthread_mutex_unlock(&lock);
    }
    return r;
}

ze_result_t ZE_APICALL zeKernelDestroy(ze_kernel_handle_t hKernel)
{
    typedef ze_result_t (*fn)(ze_kernel_handle_t);
    if (trace_enabled()) {
        pthread_mutex_lock(&lock);
        trace_map_remove(&kernels, hKernel);
        pthread_mutex_unlock(&lock);
    }
    return CALL(zeKernelDestroy, fn, hKernel);
}

ze_result_t ZE_APICALL zeKernelSetGroupSize(ze_kernel_handle_t hKernel, uint32_t groupSizeX,
                                            uint32_t groupSizeY, uint32_t groupSizeZ)
{
    typedef ze_result_t (*fn)(ze_kernel_handle_t, uint32_t, uint32_t, uint32_t);
    ze_result_t r = CALL(zeKernelSetGroupSize, fn, hKernel, groupSizeX, groupSizeY, groupSizeZ);
    if (r == ZE_RESULT_SUCCESS && trace_enabled()) {
        pthread_mutex_lock(&lock);
        ze_kernel_info *k = trace_map_find(&kernels, hKernel);
        if (k) {
            k->wg[0] = groupSizeX;
            k->wg[1] = groupSizeY;
            k->wg[2] = groupSizeZ;
            k->wg_set = true;
        }
        pthread_mutex_unlock(&lock);
    }
    return r;
}

ze_result_t ZE_APICALL zeKernelSetArgumentValue(ze_kernel_handle_t hKernel, uint32_t argIndex,
                                                size_t argSize, const void *pArgValue)
{
    typedef ze_result_t (*fn)(ze_kernel_handle_t, uint32_t, size_t, const void *);
    ze_result_t r = CALL(zeKernelSetArgumentValue, fn, hKernel, argIndex, argSize, pArgValue);
    if (r == ZE_RESULT_SUCCESS && argIndex < MAX_SLM_ARGS && trace_enabled()) {
        pthread_mutex_lock(&lock);
        ze_kernel_info *k = trace_map_find(&kernels, hKernel);
        if (k) /* a NULL value sizes a local-memory argument; anything else is not one */
            k->slm_arg[argIndex] = pArgValue ? 0 : (uint64_t)argSize;
        pthread_mutex_unlock(&lock);
    }
    return r;
}

/* Lock held.  The kernel's state, created for a handle we did not see made
 * (then it has no name); its K line written on its first launch. */
static ze_kernel_info *launched_kernel(ze_kernel_handle_t hKernel)
{
    bool created;
    ze_kernel_info *k = trace_map_get(&kernels, hKernel, &created);
    if (!k)
        return NULL;
    if (created) {
        k->id = ++next_kernel_id;
        snprintf(k->name, sizeof k->name, "?");
        k->wg[0] = k->wg[1] = k->wg[2] = 1;
    }
    if (!k->described) {
        k->described = true;
        k->props.stype = ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES;
        if (CALL(zeKernelGetProperties, kernel_props_fn, hKernel, &k->props) != ZE_RESULT_SUCCESS) {
            memset(&k->props, 0, sizeof k->props);
            k->props.stype = ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES;
        }
        const ze_module_info *m = k->module ? trace_map_find(&modules, k->module) : NULL;
        unsigned dev = m ? device_id(m->device) : 0;
        const ze_kernel_properties_t *p = &k->props;
        trace_line("K %u ze dev=%u sg=%u req_sg=%u slm=%u private=%u spill=%u grf=%s "
                   "req_wg=%u,%u,%u name=%s",
                   k->id, dev, p->maxSubgroupSize, p->requiredSubgroupSize, p->localMemSize,
                   p->privateMemSize, p->spillMemSize, m ? m->grf : "unknown",
                   p->requiredGroupSizeX, p->requiredGroupSizeY, p->requiredGroupSizeZ, k->name);
        /* a kernel with a required size that the program never sets runs with it */
        if (!k->wg_set && p->requiredGroupSizeX) {
            k->wg[0] = p->requiredGroupSizeX;
            k->wg[1] = p->requiredGroupSizeY ? p->requiredGroupSizeY : 1;
            k->wg[2] = p->requiredGroupSizeZ ? p->requiredGroupSizeZ : 1;
        }
    }
    return k;
}

typedef ze_result_t (*launch_fn)(ze_command_list_handle_t, ze_kernel_handle_t,
                                 const ze_group_count_t *, ze_event_handle_t, uint32_t,
                                 ze_event_handle_t *);

/* Shared by the three single-kernel launches.  groups NULL: on the device. */
static void record_launch(ze_kernel_handle_t hKernel, const char *kind,
                          const ze_group_count_t *groups, ze_result_t r)
{
    unsigned id = 0;
    uint32_t wg[3] = {1, 1, 1};
    uint64_t dyn = 0;
    pthread_mutex_lock(&lock);
    ze_kernel_info *k = launched_kernel(hKernel);
    if (k) {
        id = k->id;
        memcpy(wg, k->wg, sizeof wg);
        for (unsigned i = 0; i < MAX_SLM_ARGS; i++)
            dyn += k->slm_arg[i];
    }
    pthread_mutex_unlock(&lock);
    if (groups)
        trace_launch("L %u %ld ze %s wg=%u,%u,%u groups=%u,%u,%u dyn=%llu rc=%d", id, trace_tid(),
                     kind, wg[0], wg[1], wg[2], groups->groupCountX, groups->groupCountY,
                     groups->groupCountZ, (unsigned long long)dyn, (int)r);
    else
        trace_launch("L %u %ld ze %s wg=%u,%u,%u groups=? dyn=%llu rc=%d", id, trace_tid(), kind,
                     wg[0], wg[1], wg[2], (unsigned long long)dyn, (int)r);
}

ze_result_t ZE_APICALL zeCommandListAppendLaunchKernel(ze_command_list_handle_t hCommandList,
                                                       ze_kernel_handle_t hKernel,
                                                       const ze_group_count_t *pLaunchFuncArgs,
                                                       ze_event_handle_t hSignalEvent,
                                                       uint32_t numWaitEvents,
                                                       ze_event_handle_t *phWaitEvents)
{
    ze_result_t r = CALL(zeCommandListAppendLaunchKernel, launch_fn, hCommandList, hKernel,
                         pLaunchFuncArgs, hSignalEvent, numWaitEvents, phWaitEvents);
    if (trace_enabled() && pLaunchFuncArgs)
        record_launch(hKernel, "normal", pLaunchFuncArgs, r);
    return r;
}

ze_result_t ZE_APICALL zeCommandListAppendLaunchCooperativeKernel(
    ze_command_list_handle_t hCommandList, ze_kernel_handle_t hKernel,
    const ze_group_count_t *pLaunchFuncArgs, ze_event_handle_t hSignalEvent,
    uint32_t numWaitEvents, ze_event_handle_t *phWaitEvents)
{
    ze_result_t r = CALL(zeCommandListAppendLaunchCooperativeKernel, launch_fn, hCommandList,
                         hKernel, pLaunchFuncArgs, hSignalEvent, numWaitEvents, phWaitEvents);
    if (trace_enabled() && pLaunchFuncArgs)
        record_launch(hKernel, "coop", pLaunchFuncArgs, r);
    return r;
}

/* The group counts are in device memory, written by the device: not
 * readable here, so the launch is recorded without them. */
ze_result_t ZE_APICALL zeCommandListAppendLaunchKernelIndirect(
    ze_command_list_handle_t hCommandList, ze_kernel_handle_t hKernel,
    const ze_group_count_t *pLaunchArgumentsBuffer, ze_event_handle_t hSignalEvent,
    uint32_t numWaitEvents, ze_event_handle_t *phWaitEvents)
{
    ze_result_t r = CALL(zeCommandListAppendLaunchKernelIndirect, launch_fn, hCommandList, hKernel,
                         pLaunchArgumentsBuffer, hSignalEvent, numWaitEvents, phWaitEvents);
    if (trace_enabled())
        record_launch(hKernel, "indirect", NULL, r);
    return r;
}

ze_result_t ZE_APICALL zeCommandListAppendLaunchMultipleKernelsIndirect(
    ze_command_list_handle_t hCommandList, uint32_t numKernels, ze_kernel_handle_t *phKernels,
    const uint32_t *pCountBuffer, const ze_group_count_t *pLaunchArgumentsBuffer,
    ze_event_handle_t hSignalEvent, uint32_t numWaitEvents, ze_event_handle_t *phWaitEvents)
{
    typedef ze_result_t (*fn)(ze_command_list_handle_t, uint32_t, ze_kernel_handle_t *,
                              const uint32_t *, const ze_group_count_t *, ze_event_handle_t,
                              uint32_t, ze_event_handle_t *);
    ze_result_t r = CALL(zeCommandListAppendLaunchMultipleKernelsIndirect, fn, hCommandList,
                         numKernels, phKernels, pCountBuffer, pLaunchArgumentsBuffer, hSignalEvent,
                         numWaitEvents, phWaitEvents);
    if (trace_enabled())
        trace_line("U %ld ze multiple-indirect kernels=%u rc=%d", trace_tid(), numKernels, (int)r);
    return r;
}
