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

/* A target's number, for nearness: its digits ("sm_86" -> 86); -1: none. */
static long target_number(const char *t)
{
    long n = -1;
    for (; *t; t++)
        if (*t >= '0' && *t <= '9')
            n = (n < 0 ? 0 : n * 10) + (*t - '0');
    return n;
}

typedef struct near_profile {
    const char *name;
    char target[32];
    long distance;
} near_profile;

int kernel_no_profile(const occ_kernel_info *ki)
{
    enum { MAX_NEAR = 4 };
    near_profile near[MAX_NEAR];
    size_t n_near = 0;
    long want = target_number(ki->target);
    for (size_t i = 0; i < occ_builtin_count(); i++) {
        occ_device *dev = NULL;
        if (occ_device_open(occ_builtin_name(i), &dev, NULL) != OCC_OK)
            continue;
        const occ_device_desc *d = occ_device_describe(dev);
        bool seen = false; /* one profile per target: the first built-in, as the default picks */
        for (size_t j = 0; j < n_near; j++)
            seen |= strcmp(near[j].target, d->target) == 0;
        if (d->vendor == ki->vendor && !seen) {
            long got = target_number(d->target);
            near_profile p = {occ_builtin_name(i), "", want < 0 || got < 0 ? 0 : labs(got - want)};
            snprintf(p.target, sizeof p.target, "%s", d->target);
            /* keep the MAX_NEAR nearest, first found first among equals */
            size_t at = n_near;
            while (at > 0 && near[at - 1].distance > p.distance)
                at--;
            if (at < MAX_NEAR) {
                size_t last = n_near < MAX_NEAR ? n_near : MAX_NEAR - 1;
                memmove(&near[at + 1], &near[at], (last - at) * sizeof near[0]);
                near[at] = p;
                n_near = last + 1;
            }
        }
        occ_device_free(dev);
    }
    fprintf(stderr, "occcalc: kernel %s is compiled for %s; no built-in profile has that target", ki->name,
            ki->target[0] ? ki->target : "an unknown target");
    for (size_t i = 0; i < n_near; i++)
        fprintf(stderr, "%s%s (%s)", i ? ", " : "; near ones: ", near[i].name, near[i].target);
    fprintf(stderr, ".\nGive a profile with --device: a built-in one (occcalc devices; its limits may differ), "
                    "one written for %s (docs/profiles.md), or one probed from the GPU (occcalc probe).\n",
            ki->target[0] ? ki->target : "the target");
    return EXIT_INPUT;
}
