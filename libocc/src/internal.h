/* Private to libocc: the device object and helpers shared by the sources. */
#ifndef OCC_INTERNAL_H
#define OCC_INTERNAL_H

#include "occ/occ.h"

#include <stdarg.h>

struct occ_device {
    occ_device_desc desc;
    char origin[256];
    char **sources;
    size_t n_sources;
    char *dispatch_evidence;
};

/* Fill a diagnostic (any of d, file, key may be NULL); returns status. */
occ_status occ__diag(occ_diag *d, occ_status status, const char *file, unsigned line,
                     unsigned column, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));

/* Check a description; on failure fills diag (key set, no position). */
occ_status occ__desc_validate(const occ_device_desc *d, occ_diag *diag);

/* Device object from an already validated description (takes ownership of
 * sources and evidence, which may be NULL). */
occ_status occ__device_new(const occ_device_desc *desc, const char *origin, char **sources,
                           size_t n_sources, char *evidence, occ_device **out);

/* Per-core residency from a description (occ_residency_compute without the
 * argument checks).  detail false leaves reason_detail empty: no formatting,
 * for the advisor and the compact batch, which need only the numbers. */
void occ__residency_eval(const occ_device_desc *d, const occ_kernel *k, occ_residency *r,
                         bool detail);

static inline uint64_t occ__ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }
static inline uint64_t occ__round_up(uint64_t a, uint64_t m) { return occ__ceil_div(a, m) * m; }

#endif
