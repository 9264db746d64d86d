/* Private to libocc: building a module with the Intel driver's compiler
 * through Level Zero, for whoever holds a context and a device: the driver
 * compile service (driver_compile.c) and the Level Zero validation backend.
 * Only built with the Level Zero headers (OCC_HAVE_ZE). */
#ifndef OCC_COMPILE_ZE_MODULE_H
#define OCC_COMPILE_ZE_MODULE_H

#include "compile/ze_loader.h"

/* The name of a Level Zero result ("ZE_RESULT_ERROR_MODULE_BUILD_FAILURE"). */
const char *occ__ze_result_name(ze_result_t r);

/* Build il (SPIR-V, or the driver's native format when native) with the
 * driver's build flags.  On failure diag carries the driver's build log on
 * one line: OCC_ERR_PARSE when the compiler rejected the module (a verdict
 * on the input), OCC_ERR_DEVICE when the driver failed otherwise. */
occ_status occ__ze_module_build(ze_context_handle_t ctx, ze_device_handle_t dev,
                                const uint8_t *il, size_t il_size, bool native, const char *flags,
                                ze_module_handle_t *out, occ_diag *diag);

/* The module's native binary (zebin or patch tokens), malloc'd. */
occ_status occ__ze_module_native(ze_module_handle_t module, uint8_t **data, size_t *size,
                                 occ_diag *diag);

#endif
