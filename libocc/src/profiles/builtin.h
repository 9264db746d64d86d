/* The profiles of devices/ compiled into the library: a table generated at
 * build time by libocc/gen/embed_profiles.c, which loads each file with the
 * YAML loader and writes what it holds as C data, so that a built-in device
 * is made without parsing. */
#ifndef OCC_BUILTIN_H
#define OCC_BUILTIN_H
#include "occ/occ.h"

#include <stddef.h>

struct occ_builtin_profile {
    const char *name;               /* the file's stem: "tgl" */
    const char *yaml;               /* the file's text (occ_builtin_yaml) */
    occ_device_desc desc;           /* the description the loader made of it */
    const char *const *sources;     /* its sources, n_sources of them */
    size_t n_sources;
    const char *dispatch_evidence;  /* "" when the file has none */
};

extern const struct occ_builtin_profile occ_builtin_profiles[];
extern const size_t occ_builtin_profile_count;

#endif
