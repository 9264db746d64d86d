/* The backends compiled into this build, by name, and where they look for
 * their probe kernels, from the list in validate/backends/meson.build: the
 * one place that knows every backend; backend.c's watchdog and the backends
 * themselves only see backend_impl.h. */
#include "validate/backend_impl.h"
#include "validate/backends/backends_list.h" /* OCC_BACKENDS(BUILT, KNOWN), from meson.build */

#include <stdlib.h>
#include <string.h>

#define DECLARE_BUILT(name) extern const occ__backend_ops occ__backend_##name;
#define DECLARE_KNOWN(name)
OCC_BACKENDS(DECLARE_BUILT, DECLARE_KNOWN)

static const struct {
    const char *name;
    const occ__backend_ops *ops; /* NULL: known but not compiled in */
} registry[] = {
#define ENTRY_BUILT(name) {#name, &occ__backend_##name},
#define ENTRY_KNOWN(name) {#name, NULL},
    OCC_BACKENDS(ENTRY_BUILT, ENTRY_KNOWN)
};
#define N_BACKENDS (sizeof registry / sizeof registry[0])

size_t occ_backend_count(void) { return N_BACKENDS; }

const char *occ_backend_name(size_t i) { return i < N_BACKENDS ? registry[i].name : NULL; }

bool occ_backend_available(const char *name)
{
    bool known;
    return occ__backend_find(name, &known) != NULL;
}

const occ__backend_ops *occ__backend_find(const char *name, bool *known)
{
    *known = false;
    for (size_t i = 0; name && i < N_BACKENDS; i++)
        if (strcmp(registry[i].name, name) == 0) {
            *known = true;
            return registry[i].ops;
        }
    return NULL;
}
