/*
 * Private to libocc: the Level Zero loader (libze_loader.so.1), opened
 * with dlopen the first time a command needs it, so that occcalc and every
 * program linking libocc start without it (and without the C++ runtime it
 * brings).
 *
 * The Level Zero backend (validate/) and the driver compile service
 * (compile/ze_module.c) include this header instead of calling the loader's exports:
 * each ze* function it uses is listed once in OCC_ZE_FUNCTIONS, and the
 * macros below turn zeFoo(...) into a call through the table that
 * occ__ze_load fills.  A function added to the backend is added to the list.
 */
#ifndef OCC_ZE_LOADER_H
#define OCC_ZE_LOADER_H

#include "occ/occ.h"

#include <level_zero/ze_api.h>
#include <level_zero/ze_ddi.h>

/* The library opened when $OCC_ZE_LOADER is not set. */
#define OCC_ZE_LOADER_NAME "libze_loader.so.1"

/* X(Name): the loader exports zeName, of type ze_pfnName_t (ze_ddi.h). */
#define OCC_ZE_FUNCTIONS(X)                                                                        \
    X(Init) X(DriverGet) X(DriverGetProperties) X(DriverGetApiVersion)                             \
    X(DriverGetExtensionProperties) X(DeviceGet) X(DeviceGetProperties)                            \
    X(DeviceGetComputeProperties) X(DevicePciGetPropertiesExt) X(ContextCreate)                    \
    X(ContextDestroy) X(CommandQueueCreate) X(CommandQueueDestroy)                                 \
    X(CommandQueueExecuteCommandLists) X(CommandQueueSynchronize) X(CommandListCreate)             \
    X(CommandListDestroy) X(CommandListClose) X(CommandListAppendLaunchKernel) X(EventPoolCreate)  \
    X(EventPoolDestroy) X(EventCreate) X(EventDestroy) X(EventHostSynchronize)                     \
    X(EventQueryStatus) X(EventQueryKernelTimestamp) X(MemAllocHost) X(MemFree) X(ModuleCreate)    \
    X(ModuleDestroy) X(ModuleGetNativeBinary) X(ModuleGetKernelNames) X(ModuleBuildLogGetString)   \
    X(ModuleBuildLogDestroy) X(KernelCreate) X(KernelDestroy) X(KernelGetProperties)               \
    X(KernelSetArgumentValue) X(KernelSetGroupSize) X(KernelSuggestMaxCooperativeGroupCount)

typedef struct occ__ze_api {
#define OCC_ZE_FIELD(name) ze_pfn##name##_t name;
    OCC_ZE_FUNCTIONS(OCC_ZE_FIELD)
#undef OCC_ZE_FIELD
} occ__ze_api;

/* The table; valid after occ__ze_load returned OCC_OK. */
extern occ__ze_api occ__ze;

/* Open the loader and resolve every function, once per process (later calls
 * return the first answer).  OCC_ERR_DEVICE with a message when the loader
 * or one of its functions is missing. */
occ_status occ__ze_load(occ_diag *diag);

#define zeInit occ__ze.Init
#define zeDriverGet occ__ze.DriverGet
#define zeDriverGetProperties occ__ze.DriverGetProperties
#define zeDriverGetApiVersion occ__ze.DriverGetApiVersion
#define zeDriverGetExtensionProperties occ__ze.DriverGetExtensionProperties
#define zeDeviceGet occ__ze.DeviceGet
#define zeDeviceGetProperties occ__ze.DeviceGetProperties
#define zeDeviceGetComputeProperties occ__ze.DeviceGetComputeProperties
#define zeDevicePciGetPropertiesExt occ__ze.DevicePciGetPropertiesExt
#define zeContextCreate occ__ze.ContextCreate
#define zeContextDestroy occ__ze.ContextDestroy
#define zeCommandQueueCreate occ__ze.CommandQueueCreate
#define zeCommandQueueDestroy occ__ze.CommandQueueDestroy
#define zeCommandQueueExecuteCommandLists occ__ze.CommandQueueExecuteCommandLists
#define zeCommandQueueSynchronize occ__ze.CommandQueueSynchronize
#define zeCommandListCreate occ__ze.CommandListCreate
#define zeCommandListDestroy occ__ze.CommandListDestroy
#define zeCommandListClose occ__ze.CommandListClose
#define zeCommandListAppendLaunchKernel occ__ze.CommandListAppendLaunchKernel
#define zeEventPoolCreate occ__ze.EventPoolCreate
#define zeEventPoolDestroy occ__ze.EventPoolDestroy
#define zeEventCreate occ__ze.EventCreate
#define zeEventDestroy occ__ze.EventDestroy
#define zeEventHostSynchronize occ__ze.EventHostSynchronize
#define zeEventQueryStatus occ__ze.EventQueryStatus
#define zeEventQueryKernelTimestamp occ__ze.EventQueryKernelTimestamp
#define zeMemAllocHost occ__ze.MemAllocHost
#define zeMemFree occ__ze.MemFree
#define zeModuleCreate occ__ze.ModuleCreate
#define zeModuleDestroy occ__ze.ModuleDestroy
#define zeModuleGetNativeBinary occ__ze.ModuleGetNativeBinary
#define zeModuleGetKernelNames occ__ze.ModuleGetKernelNames
#define zeModuleBuildLogGetString occ__ze.ModuleBuildLogGetString
#define zeModuleBuildLogDestroy occ__ze.ModuleBuildLogDestroy
#define zeKernelCreate occ__ze.KernelCreate
#define zeKernelDestroy occ__ze.KernelDestroy
#define zeKernelGetProperties occ__ze.KernelGetProperties
#define zeKernelSetArgumentValue occ__ze.KernelSetArgumentValue
#define zeKernelSetGroupSize occ__ze.KernelSetGroupSize
#define zeKernelSuggestMaxCooperativeGroupCount occ__ze.KernelSuggestMaxCooperativeGroupCount

#endif
