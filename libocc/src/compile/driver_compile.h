/* Private to libocc: the Intel driver's compiler as a service.
 *
 * SPIR-V is compiled into the driver's native binary (zebin or patch
 * tokens) by the installed Intel driver through Level Zero, with no GPU:
 * the driver runs in hardware-less mode for the product asked for
 * (NEOReadDebugKeys=1 SetCommandStreamReceiver=1 ProductFamilyOverride),
 * in a child process of its own with a timeout, working in a temporary
 * directory removed afterwards.  A crash or hang of the driver is a
 * diagnostic, never the caller's end.
 *
 * Used by the kernel readers (SPIR-V and OpenCL C); the Level Zero
 * validation backend builds its modules with ze_module.h, the same code. */
#ifndef OCC_COMPILE_DRIVER_COMPILE_H
#define OCC_COMPILE_DRIVER_COMPILE_H

#include "common/internal.h"

typedef struct occ__driver_compile_request {
    const char *product;  /* the driver's product name: "tgllp", "dg1", ... */
    const uint8_t *il;    /* SPIR-V */
    size_t il_size;
    const char *flags;    /* the driver's build flags; NULL: none */
    double timeout_s;     /* the child is killed after this long */
} occ__driver_compile_request;

/* The native binary (malloc'd) of the module.  Errors: OCC_ERR_UNSUPPORTED
 * (no Level Zero in this build, or no usable driver here), OCC_ERR_PARSE
 * (the compiler rejected the module: diag carries its log), OCC_ERR_DEVICE
 * (the driver crashed, hung or failed otherwise), OCC_ERR_IO. */
occ_status occ__driver_compile(const occ__driver_compile_request *req, uint8_t **native,
                               size_t *native_size, occ_diag *diag);

#endif
