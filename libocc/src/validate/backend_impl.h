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
} occ__backend_ops;

/* Each backend NAME defines `const occ__backend_ops occ__backend_NAME`;
 * validate/backends/meson.build's list registers it (registry.c). */

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
