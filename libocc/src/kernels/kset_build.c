/* Building a kernel set: what a reader calls to fill one (kernel_set.h).
 * Kept apart from kernel_set.c, which calls the readers, so that no two
 * files call each other (docs/architecture.md). */
#include "kernels/kernel_set.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void occ__kinfo_init(occ_kernel_info *ki)
{
    memset(ki, 0, sizeof *ki);
    ki->struct_size = sizeof *ki;
}

occ_status occ__kset_add(occ_kernel_set *s, const occ_kernel_info *ki, occ_diag *diag)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 8;
        occ_kernel_info *v = realloc(s->v, cap * sizeof *v);
        if (!v)
            return occ__diag(diag, OCC_ERR_NO_MEMORY, s->origin, 0, 0, NULL, "out of memory");
        s->v = v;
        s->cap = cap;
    }
    s->v[s->n++] = *ki;
    return OCC_OK;
}

void occ__kset_note(occ_kernel_set *s, const char *fmt, ...)
{
    size_t used = strlen(s->note);
    if (used && used + 2 < sizeof s->note) {
        memcpy(s->note + used, "; ", 3);
        used += 2;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->note + used, sizeof s->note - used, fmt, ap);
    va_end(ap);
}
