/* The backends compiled into this build, by name, and where they look for
 * their probe kernels.  The one file that knows every backend: backend.c's
 * watchdog and the backends themselves only see backend_impl.h. */
#include "validate/backend_impl.h"

#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name;
    const occ__backend_ops *ops; /* NULL: known but not compiled in */
} registry[] = {
    {"cuda", &occ__backend_cuda},
#ifdef OCC_HAVE_ZE
    {"ze", &occ__backend_ze},
#else
    {"ze", NULL},
#endif
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
