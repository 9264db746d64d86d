/* The public structs of occ/backend.h: their defaults and freeing.  Kept
 * apart from backend.c so that the backends, which fill these structs, do
 * not depend on the watchdog that calls them. */
#include "validate/backend_impl.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void occ_backend_options_init(occ_backend_options *o)
{
    if (!o)
        return;
    memset(o, 0, sizeof *o);
    o->struct_size = sizeof *o;
    o->timeout_s = 30.0;
}

void occ_probe_config_init(occ_probe_config *c)
{
    if (!c)
        return;
    memset(c, 0, sizeof *c);
    c->struct_size = sizeof *c;
    occ_kernel_init(&c->kernel);
    c->work_groups = 1;
    c->duration_s = 300e-6;
    c->seed = 1;
}

void occ_probe_result_init(occ_probe_result *r)
{
    if (!r)
        return;
    memset(r, 0, sizeof *r);
    r->struct_size = sizeof *r;
    occ_kernel_init(&r->requested);
    occ_kernel_init(&r->actual);
    r->driver_resident = -1;
    r->driver_clusters = -1;
}

void occ_probe_result_free(occ_probe_result *r)
{
    if (!r)
        return;
    free(r->records);
    r->records = NULL;
    r->n_records = 0;
}


void occ__add_difference(char *list, size_t size, const char *fmt, ...)
{
    size_t used = strnlen(list, size);
    if (used + 1 >= size)
        return;
    if (used)
        used += (size_t)snprintf(list + used, size - used, "; ");
    if (used + 1 >= size)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(list + used, size - used, fmt, ap);
    va_end(ap);
}
