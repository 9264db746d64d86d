/* Kernel files on the command line (kernel_file.h). */
#include "kernel_file.h"
#include "report.h"

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

void kernel_print_name(FILE *f, const char *name)
{
    /* whole (a name may be longer than text_safe's buffers), escaped as text_safe does */
    char esc[5];
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        fwrite(esc, 1, text_escape(*p, esc), f);
}

/* A kernel as the user may name it: its name, and the mangled form when it
 * differs. */
static void print_kernel_line(const occ_kernel_info *ki)
{
    fputs("  ", stderr);
    kernel_print_name(stderr, ki->name);
    if (ki->mangled != ki->name && strcmp(ki->mangled, ki->name) != 0) {
        fputs("  [", stderr);
        kernel_print_name(stderr, ki->mangled);
        fputc(']', stderr);
    }
    fputc('\n', stderr);
}

static void list_kernels(const occ_kernel_set *s)
{
    fprintf(stderr, "kernels in this file:\n");
    for (size_t i = 0; i < occ_kernel_set_count(s); i++)
        print_kernel_line(occ_kernel_set_get(s, i));
}

/* FILE:NAME: the longest prefix before a ':' that is an existing file is
 * the file, the rest the name (so names may hold ':', as in "ns::k", and so
 * may paths); a spec that is itself an existing file has no name.  With no
 * existing prefix, the part before the first ':' is the file (its error
 * says it is missing). */
static const char *split_spec(const char *spec, char *path, size_t size)
{
    snprintf(path, size, "%s", spec);
    struct stat st;
    if (stat(spec, &st) == 0 || !strchr(path, ':'))
        return NULL;
    /* From the last ':' back to the first: the longest prefix first. */
    for (char *c = path + strlen(path); c-- > path;) {
        if (*c != ':')
            continue;
        *c = '\0';
        bool exists = stat(path, &st) == 0 && !S_ISDIR(st.st_mode);
        if (exists)
            return spec + (c - path) + 1;
        *c = ':';
    }
    char *first = strchr(path, ':');
    *first = '\0';
    return spec + (first - path) + 1;
}

/* NAME matches several kernels (overloads, template instances): say so and
 * list them. */
static void ambiguous(const char *path, const char *name, const occ_kernel_set *s)
{
    size_t n = 0;
    for (size_t i = 0; i < occ_kernel_set_count(s); i++)
        n += occ_kernel_name_matches(occ_kernel_set_get(s, i), name);
    fprintf(stderr, "occcalc: %s: '", path);
    kernel_print_name(stderr, name);
    fprintf(stderr, "' names %zu kernels: name one by its full or mangled name:\n", n);
    for (size_t i = 0; i < occ_kernel_set_count(s); i++)
        if (occ_kernel_name_matches(occ_kernel_set_get(s, i), name))
            print_kernel_line(occ_kernel_set_get(s, i));
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
    char path[4096];
    const char *name = split_spec(spec, path, sizeof path);
    int rc = kernel_file_read(path, dev, set);
    if (rc != EXIT_OK)
        return rc;
    if (name && *name) {
        *info = occ_kernel_set_find(*set, name);
        bool several = false;
        for (size_t i = 0; !*info && i < occ_kernel_set_count(*set) && !several; i++)
            several = occ_kernel_name_matches(occ_kernel_set_get(*set, i), name);
        if (several) {
            ambiguous(path, name, *set);
            return EXIT_USAGE;
        }
        if (!*info) {
            fprintf(stderr, "occcalc: %s: no kernel named '", path);
            kernel_print_name(stderr, name);
            fputs("'\n", stderr);
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
