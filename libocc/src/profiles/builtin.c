/* The built-in profiles (devices/ profiles compiled into the library at build
 * time, as C data: builtin.h) and occ_device_open, which picks a built-in name
 * or a file path.  A built-in device is made from its data without parsing
 * YAML; a file goes through the YAML loader, so this lives with the profiles,
 * not with the pure device model. */
#include "common/internal.h"
#include "arch/arch.h"
#include "profiles/builtin.h"
#include "occ/kernels.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t occ_builtin_count(void) { return occ_builtin_profile_count; }

const char *occ_builtin_name(size_t i)
{
    return i < occ_builtin_profile_count ? occ_builtin_profiles[i].name : NULL;
}

static const struct occ_builtin_profile *find_builtin(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < occ_builtin_profile_count; i++)
        if (strcmp(occ_builtin_profiles[i].name, name) == 0)
            return &occ_builtin_profiles[i];
    return NULL;
}

const char *occ_builtin_yaml(const char *name)
{
    const struct occ_builtin_profile *p = find_builtin(name);
    return p ? p->yaml : NULL;
}

/* The first built-in of vendor v for target; with need_clusters, the first
 * of those that takes cluster launches (has GPC data), if one does. */
static const char *builtin_for(occ_vendor v, const char *target, bool need_clusters)
{
    if (!target || !*target)
        return NULL;
    char want[64];
    occ__target_base(v, target, want, sizeof want);
    const char *first = NULL;
    for (size_t i = 0; i < occ_builtin_profile_count; i++) {
        const occ_device_desc *d = &occ_builtin_profiles[i].desc;
        if (d->vendor != v || !d->target[0] || strcmp(d->target, want) != 0)
            continue;
        if (!need_clusters || d->n_gpcs)
            return occ_builtin_profiles[i].name;
        if (!first)
            first = occ_builtin_profiles[i].name;
    }
    return first;
}

const char *occ_builtin_for_target(occ_vendor v, const char *target) { return builtin_for(v, target, false); }

const char *occ_builtin_for_kernel(const occ_kernel_info *ki)
{
    if (!ki)
        return NULL;
    occ_kernel k; /* launched in clusters: as every launch of it is (occ_kernel_apply_info) */
    occ_kernel_init(&k);
    occ_kernel_apply_info(&k, ki, 0);
    return builtin_for(ki->vendor, ki->target, occ_kernel_cluster_size(&k) != 0);
}

static void free_strings(char **s, size_t n)
{
    for (size_t i = 0; s && i < n; i++)
        free(s[i]);
    free(s);
}

/* The device of a compiled profile.  The description was checked by the
 * loader when the build made the data; the device owns copies of the
 * sources and the evidence, as a loaded one does. */
static occ_status device_from_data(const struct occ_builtin_profile *p, occ_device **out,
                                   occ_diag *diag)
{
    char **sources = calloc(p->n_sources ? p->n_sources : 1, sizeof *sources);
    bool ok = sources != NULL;
    for (size_t i = 0; ok && i < p->n_sources; i++)
        ok = (sources[i] = strdup(p->sources[i])) != NULL;
    char *evidence = NULL;
    if (ok && p->dispatch_evidence[0])
        ok = (evidence = strdup(p->dispatch_evidence)) != NULL;
    if (!ok) {
        free_strings(sources, p->n_sources);
        return occ__diag(diag, OCC_ERR_NO_MEMORY, NULL, 0, 0, NULL, "out of memory");
    }
    char origin[96];
    snprintf(origin, sizeof origin, "<builtin:%s>", p->name);
    return occ__device_new(&p->desc, origin, sources, p->n_sources, evidence, out);
}

occ_status occ_device_builtin(const char *name, occ_device **out, occ_diag *diag)
{
    if (!out)
        return OCC_ERR_INVALID_ARGUMENT;
    *out = NULL;
    const struct occ_builtin_profile *p = find_builtin(name);
    if (!p) {
        char list[512] = "";
        size_t used = 0;
        for (size_t i = 0; i < occ_builtin_profile_count && used + 1 < sizeof list; i++) {
            int n = snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "",
                             occ_builtin_profiles[i].name);
            if (n < 0)
                break;
            used += (size_t)n;
        }
        return occ__diag(diag, OCC_ERR_NOT_FOUND, NULL, 0, 0, NULL,
                         "unknown device '%s' (built-in devices: %s; or give a path to a .yaml file)",
                         name ? name : "", list);
    }
    return device_from_data(p, out, diag);
}

static bool looks_like_path(const char *s)
{
    size_t n = strlen(s);
    return strchr(s, '/') || (n > 5 && strcmp(s + n - 5, ".yaml") == 0) ||
           (n > 4 && strcmp(s + n - 4, ".yml") == 0);
}

occ_status occ_device_open(const char *name_or_path, occ_device **out, occ_diag *diag)
{
    if (!name_or_path || !*name_or_path)
        name_or_path = OCC_DEFAULT_DEVICE;
    if (looks_like_path(name_or_path))
        return occ_device_load_file(name_or_path, out, diag);
    return occ_device_builtin(name_or_path, out, diag);
}

/* ---- the built-in profile of a live device ---------------------------------- */

/* Whether the product names the profile: its name up to the first '-'
 * ("h100" of "h100-sxm"), case-insensitively, in the product text. */
static bool product_names(const char *product, const char *profile)
{
    char stem[64], low[128];
    snprintf(stem, sizeof stem, "%s", profile);
    stem[strcspn(stem, "-")] = '\0';
    size_t k = 0;
    for (; product[k] && k + 1 < sizeof low; k++)
        low[k] = (char)(product[k] >= 'A' && product[k] <= 'Z' ? product[k] - 'A' + 'a' : product[k]);
    low[k] = '\0';
    return stem[0] && strstr(low, stem);
}

const char *occ_builtin_fitting(const occ_device_desc *d, bool with_timing)
{
    if (!d)
        return NULL;
    const char *found = NULL;
    for (size_t i = 0; i < occ_builtin_profile_count; i++) {
        const occ_device_desc *b = &occ_builtin_profiles[i].desc;
        /* the same target; a description that names none (Level Zero's, a
         * record made before profiles named their target): the same words */
        bool same_arch = d->target[0] ? !strcmp(d->target, b->target)
                                      : !strcmp(d->architecture, b->architecture);
        bool fits = b->vendor == d->vendor && b->cores == d->cores && same_arch &&
                    (!with_timing || occ_device_has_timing(b));
        bool named = fits && product_names(d->product, b->name);
        if (named)
            return occ_builtin_profiles[i].name;
        if (fits && !found)
            found = occ_builtin_profiles[i].name;
    }
    return found;
}
