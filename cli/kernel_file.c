/* Kernel files on the command line (kernel_file.h). */
#include "kernel_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "args.h"

int kernel_file_read(const char *path, const occ_device *dev, occ_kernel_set **out)
{
    occ_kernel_read_options o;
    occ_kernel_read_options_init(&o);
    o.device = dev;
    occ_diag diag;
    occ_status st = occ_kernels_read_file(path, &o, out, &diag);
    if (st == OCC_OK)
        return EXIT_OK;
    char msg[1024];
    occ_diag_format(&diag, msg, sizeof msg);
    fprintf(stderr, "occcalc: %s\n", msg);
    return st == OCC_ERR_UNSUPPORTED || st == OCC_ERR_DEVICE ? EXIT_DEVICE : EXIT_INPUT;
}

static void list_kernels(const occ_kernel_set *s)
{
    fprintf(stderr, "kernels in this file:\n");
    for (size_t i = 0; i < occ_kernel_set_count(s); i++)
        fprintf(stderr, "  %s\n", occ_kernel_set_get(s, i)->name);
}

/* A kernel of a vendor libocc has no device model for (AMD, vendor 0) has no
 * occupancy to compute; `occcalc kernels` still lists its resources. */
static int check_modelled(const char *spec, const occ_kernel_info *ki)
{
    if (occ_vendor_words_of(ki->vendor))
        return EXIT_OK;
    fprintf(stderr, "occcalc: %s: kernel %s is for %s, which no device model covers yet; "
                    "occcalc kernels lists its resources\n", spec, ki->name, ki->target);
    return EXIT_DEVICE;
}

int kernel_file_pick(const char *spec, const occ_device *dev, occ_kernel_set **set,
                     const occ_kernel_info **info)
{
    *set = NULL;
    *info = NULL;
    /* FILE:NAME when FILE exists; otherwise the whole argument is the file
     * (paths may contain ':'). */
    char path[4096];
    const char *name = NULL;
    snprintf(path, sizeof path, "%s", spec);
    char *colon = strrchr(path, ':');
    struct stat st;
    if (colon && stat(spec, &st) != 0) {
        *colon = '\0';
        name = colon + 1;
    }
    int rc = kernel_file_read(path, dev, set);
    if (rc != EXIT_OK)
        return rc;
    if (name && *name) {
        *info = occ_kernel_set_find(*set, name);
        if (!*info) {
            fprintf(stderr, "occcalc: %s: no kernel named '%s'\n", path, name);
            list_kernels(*set);
            return EXIT_USAGE;
        }
        return check_modelled(path, *info);
    }
    if (occ_kernel_set_count(*set) > 1) {
        fprintf(stderr, "occcalc: %s holds %zu kernels: name one with --kernel %s:NAME\n", path,
                occ_kernel_set_count(*set), path);
        list_kernels(*set);
        return EXIT_USAGE;
    }
    *info = occ_kernel_set_get(*set, 0);
    return check_modelled(path, *info);
}

const char *kernel_default_device(const occ_kernel_info *ki)
{
    /* the first built-in profile with the kernel's target: the profiles
     * are the one place for such facts */
    return occ_builtin_for_target(ki->vendor, ki->target);
}
