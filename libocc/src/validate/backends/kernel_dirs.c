/* Where backends look for their probe kernels: the caller's directory,
 * $OCC_KERNEL_DIR, the build tree's kernels/, then the installed copy. */
#include "validate/backend_impl.h"

#include <stdio.h>
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

char *occ__read_kernel_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n + 1 >= cap) {
            cap = cap ? cap * 2 : 1 << 16;
            char *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = nb;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0)
            break;
    }
    bool ok = !ferror(f) && n > 0;
    fclose(f);
    if (!ok) {
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}
