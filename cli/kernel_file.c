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

void kernel_print_name(FILE *f, const char *name)
{
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        if (*p < 0x20 || *p == 0x7f || *p == '\\')
            fprintf(f, "\\x%02x", *p);
        else
            fputc(*p, f);
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

const char *kernel_default_device(const occ_kernel_info *ki)
{
    /* the first built-in profile with the kernel's target: the profiles
     * are the one place for such facts */
    return occ_builtin_for_target(ki->vendor, ki->target);
}
