/* Private to libocc: what a validation backend implements.
 *
 * backend.c owns the public occ_backend_* wrappers and the watchdog (a
 * forked child process runs these operations); a backend only talks to its
 * driver.  Every operation fills diag->message on failure.
 * A backend is compiled in always or behind its own meson option; its name
 * in validate/backends/meson.build's list registers it. */
#ifndef OCC_BACKEND_IMPL_H
#define OCC_BACKEND_IMPL_H

#include "occ/backend.h"

/* A module for a driver's compiler (the compile operation). */
#define OCC__COMPILE_MAX_WG 4
typedef struct occ__compile_request {
    const uint8_t *il;          /* SPIR-V, or a native binary when native is set */
    size_t il_size;
    uint32_t native;            /* 1: il is the driver's native format (zebin, patch tokens) */
    char flags[512];            /* the driver's build flags */
    /* Work-group sizes (1-D) at which each kernel without a required size is
     * asked zeKernelSuggestMaxCooperativeGroupCount; 0 ends the list. */
    uint32_t wg[OCC__COMPILE_MAX_WG];
} occ__compile_request;

/* What the driver reports for one compiled kernel. */
typedef struct occ__compiled_kernel {
    char name[256];
    uint32_t required_sub_group, max_sub_group, max_num_sub_groups;
    uint32_t slm, private_mem, spill;   /* localMemSize, privateMemSize, spillMemSize */
    uint32_t reqd_wg[3];
    int32_t coop[OCC__COMPILE_MAX_WG];  /* at req wg[i] (or the required size); -1: none */
} occ__compiled_kernel;

/* The driver's native binary of the module and its kernels (malloc'd). */
typedef struct occ__compile_result {
    uint8_t *native;
    size_t native_size;
    occ__compiled_kernel *kernels;
    size_t n_kernels;
} occ__compile_result;

void occ__compile_result_free(occ__compile_result *r);

typedef struct occ__backend_ops {
    const char *name;
    /* Load the driver, pick opts->device_index; *state is the backend's own. */
    occ_status (*open)(const occ_backend_options *opts, void **state, occ_diag *diag);
    occ_status (*describe)(void *state, occ_device_desc *desc, occ_backend_info *info,
                           occ_diag *diag);
    /* res arrives initialised (occ_probe_result_init); records malloc'd. */
    occ_status (*launch)(void *state, const occ_probe_config *cfg, occ_probe_result *res,
                         occ_diag *diag);
    /* May be NULL: no driver occupancy query. */
    occ_status (*driver_residency)(void *state, const occ_kernel *requested, occ_kernel *actual,
                                   int32_t *driver_resident, size_t n, occ_diag *diag);
    void (*close)(void *state);
    /* May be NULL: compile a module (SPIR-V) with the driver's compiler. */
    occ_status (*compile)(void *state, const struct occ__compile_request *req,
                          struct occ__compile_result *res, occ_diag *diag);
} occ__backend_ops;

/* Each backend NAME defines `const occ__backend_ops occ__backend_NAME`;
 * validate/backends/meson.build's list registers it (registry.c). */

/* Open a backend whose watchdog child first sets environment variables
 * (env: NAME, VALUE pairs, NULL-terminated; e.g. the Intel driver's
 * hardware-less mode) and works in a temporary directory of its own, which
 * is removed with everything the driver wrote there when the backend is
 * closed.  Always with a watchdog (opts->timeout_s > 0). */
occ_status occ__backend_open_env(const char *name, const occ_backend_options *opts,
                                 const char *const *env, occ_backend **out, occ_diag *diag);

/* Compile a module with the backend's driver (in its watchdog child).
 * OCC_ERR_UNSUPPORTED when the backend cannot compile. */
occ_status occ__backend_compile(occ_backend *b, const occ__compile_request *req,
                                occ__compile_result *res, occ_diag *diag);

/* The backend of that name: NULL when unknown (*known false) or known but
 * not compiled into this build (*known true). */
const occ__backend_ops *occ__backend_find(const char *name, bool *known);

/* Directories searched for probe kernels, in order, NULL-terminated; the
 * caller's dir (may be NULL) first.  Paths are copied into buf. */
size_t occ__kernel_dirs(const char *first, const char **dirs, size_t cap);

/* A probe kernel file's bytes, NUL-terminated (for PTX), length in *len;
 * NULL when it is missing, unreadable or empty.  The caller frees it. */
char *occ__read_kernel_file(const char *path, size_t *len);

/* Append one difference between the requested and the launched kernel to a
 * "; "-separated list (occ_probe_result.differences); cut at size. */
void occ__add_difference(char *list, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
