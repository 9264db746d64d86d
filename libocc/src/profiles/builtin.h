/* The profiles of devices/ compiled into the library (generated table). */
#ifndef OCC_BUILTIN_H
#define OCC_BUILTIN_H
#include <stddef.h>

struct occ_builtin_profile {
    const char *name;
    const char *yaml;
};

extern const struct occ_builtin_profile occ_builtin_profiles[];
extern const size_t occ_builtin_profile_count;

#endif
