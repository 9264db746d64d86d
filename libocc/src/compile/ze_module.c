/* Modules through the Intel driver's compiler (ze_module.h). */
#include "compile/ze_module.h"
#include "common/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *occ__ze_result_name(ze_result_t r)
{
    switch (r) {
    case ZE_RESULT_SUCCESS: return "ZE_RESULT_SUCCESS";
    case ZE_RESULT_NOT_READY: return "ZE_RESULT_NOT_READY";
    case ZE_RESULT_ERROR_DEVICE_LOST: return "ZE_RESULT_ERROR_DEVICE_LOST";
    case ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY: return "ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY";
    case ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY: return "ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY";
    case ZE_RESULT_ERROR_MODULE_BUILD_FAILURE: return "ZE_RESULT_ERROR_MODULE_BUILD_FAILURE";
    case ZE_RESULT_ERROR_INVALID_NATIVE_BINARY: return "ZE_RESULT_ERROR_INVALID_NATIVE_BINARY";
    case ZE_RESULT_ERROR_UNINITIALIZED: return "ZE_RESULT_ERROR_UNINITIALIZED";
    case ZE_RESULT_ERROR_UNSUPPORTED_FEATURE: return "ZE_RESULT_ERROR_UNSUPPORTED_FEATURE";
    case ZE_RESULT_ERROR_INVALID_ARGUMENT: return "ZE_RESULT_ERROR_INVALID_ARGUMENT";
    case ZE_RESULT_ERROR_UNSUPPORTED_SIZE: return "ZE_RESULT_ERROR_UNSUPPORTED_SIZE";
    case ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION:
        return "ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION";
    case ZE_RESULT_ERROR_INVALID_KERNEL_NAME: return "ZE_RESULT_ERROR_INVALID_KERNEL_NAME";
    default: return "ze_result";
    }
}

/* The driver's build log on one line, or a note that it gave none. */
static void build_log(ze_module_build_log_handle_t log, char *text, size_t size)
{
    snprintf(text, size, "the driver gave no build log");
    size_t n = 0;
    if (log && zeModuleBuildLogGetString(log, &n, NULL) == ZE_RESULT_SUCCESS && n > 1) {
        char *b = malloc(n);
        if (b && zeModuleBuildLogGetString(log, &n, b) == ZE_RESULT_SUCCESS) {
            b[n - 1] = '\0';
            for (char *c = b; *c; c++)
                if (*c == '\n' || *c == '\r')
                    *c = ' ';
            snprintf(text, size, "%s", b);
        }
        free(b);
    }
}

occ_status occ__ze_module_build(ze_context_handle_t ctx, ze_device_handle_t dev,
                                const uint8_t *il, size_t il_size, bool native, const char *flags,
                                ze_module_handle_t *out, occ_diag *diag)
{
    ze_module_desc_t md = {.stype = ZE_STRUCTURE_TYPE_MODULE_DESC,
                           .format = native ? ZE_MODULE_FORMAT_NATIVE : ZE_MODULE_FORMAT_IL_SPIRV,
                           .inputSize = il_size,
                           .pInputModule = il,
                           .pBuildFlags = flags};
    ze_module_build_log_handle_t log = NULL;
    *out = NULL;
    ze_result_t r = zeModuleCreate(ctx, dev, &md, out, &log);
    char text[300] = "";
    if (r != ZE_RESULT_SUCCESS)
        build_log(log, text, sizeof text);
    if (log)
        zeModuleBuildLogDestroy(log);
    if (r == ZE_RESULT_SUCCESS)
        return OCC_OK;
    /* The compiler's verdict on the module is about the input; anything
     * else is the driver's failure. */
    bool rejected = r == ZE_RESULT_ERROR_MODULE_BUILD_FAILURE ||
                    r == ZE_RESULT_ERROR_INVALID_NATIVE_BINARY ||
                    r == ZE_RESULT_ERROR_INVALID_ARGUMENT || r == ZE_RESULT_ERROR_INVALID_SIZE ||
                    r == ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    return occ__diag(diag, rejected ? OCC_ERR_PARSE : OCC_ERR_DEVICE, NULL, 0, 0, NULL,
                     "the Intel driver rejected the module (%s): %s", occ__ze_result_name(r),
                     text);
}

occ_status occ__ze_module_native(ze_module_handle_t module, uint8_t **data, size_t *size,
                                 occ_diag *diag)
{
    *data = NULL;
    *size = 0;
    size_t n = 0;
    ze_result_t r = zeModuleGetNativeBinary(module, &n, NULL);
    if (r == ZE_RESULT_SUCCESS && n) {
        *data = malloc(n);
        if (!*data)
            return occ__diag(diag, OCC_ERR_NO_MEMORY, NULL, 0, 0, NULL, "out of memory");
        r = zeModuleGetNativeBinary(module, &n, *data);
    }
    if (r != ZE_RESULT_SUCCESS) {
        free(*data);
        *data = NULL;
        return occ__diag(diag, OCC_ERR_DEVICE, NULL, 0, 0, NULL,
                         "zeModuleGetNativeBinary failed: %s (0x%08x)", occ__ze_result_name(r),
                         (unsigned)r);
    }
    *size = n;
    return OCC_OK;
}
