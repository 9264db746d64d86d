/* Where backends look for their probe kernels: the caller's directory,
 * $OCC_KERNEL_DIR, the build tree's kernels/, then the installed copy. */
#include "validate/backend_impl.h"

#include <stdlib.h>

#ifndef OCC_KERNEL_BUILD_DIR
#define OCC_KERNEL_BUILD_DIR ""
#endif
#ifndef OCC_KERNEL_INSTALL_DIR
#define OCC_KERNEL_INSTALL_DIR ""
#endif

size_t occ__kernel_dirs(const char *first, const char **dirs, size_t cap)
{
    const char *cand[] = {first, getenv("OCC_KERNEL_DIR"), OCC_KERNEL_BUILD_DIR,
                          OCC_KERNEL_INSTALL_DIR};
    size_t n = 0;
    for (size_t i = 0; i < sizeof cand / sizeof cand[0] && n + 1 < cap; i++)
        if (cand[i] && *cand[i])
            dirs[n++] = cand[i];
    dirs[n] = NULL;
    return n;
}
