/* The built-in profiles (devices/ profiles compiled into the library at build
 * time) and occ_device_open, which picks a built-in name or a file path.
 * Loading goes through the YAML loader, so this lives with the profiles,
 * not with the pure device model. */
#include "common/internal.h"
#include "profiles/builtin.h"

#include <stdio.h>
#include <string.h>

size_t occ_builtin_count(void) { return occ_builtin_profile_count; }

const char *occ_builtin_name(size_t i)
{
    return i < occ_builtin_profile_count ? occ_builtin_profiles[i].name : NULL;
}

const char *occ_builtin_yaml(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < occ_builtin_profile_count; i++)
        if (strcmp(occ_builtin_profiles[i].name, name) == 0)
            return occ_builtin_profiles[i].yaml;
    return NULL;
}

occ_status occ_device_builtin(const char *name, occ_device **out, occ_diag *diag)
{
    if (!out)
        return OCC_ERR_INVALID_ARGUMENT;
    *out = NULL;
    const char *yaml = occ_builtin_yaml(name);
    if (!yaml) {
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
    char origin[96];
    snprintf(origin, sizeof origin, "<builtin:%s>", name);
    return occ_device_load_yaml(yaml, strlen(yaml), origin, out, diag);
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
