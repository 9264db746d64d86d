/* Private to libocc: helpers shared by the advisor's sources (advise*.c,
 * bounds.c). */
#ifndef OCC_ADVISE_INTERNAL_H
#define OCC_ADVISE_INTERNAL_H

#include "common/internal.h"
#include "occ/advise.h"

/* Per-core residency without the reason text (the fast path). */
static inline void occ__eval(const occ_device_desc *d, const occ_kernel *k, occ_residency *r)
{
    occ__residency_eval(d, k, r);
}

/* occ_slm_limit over a description. */
bool occ__slm_limit(const occ_device_desc *d, const occ_kernel *k, uint32_t need, uint64_t *bytes);

/* The legal local-memory allocation sizes of a device's core: its carveouts,
 * or its one fixed size.  Returns how many (at most OCC_MAX_CARVEOUTS). */
size_t occ__core_slm_sizes(const occ_device_desc *d, uint64_t *sizes);

/* Largest legal allocation (step or granule multiple) <= bytes; 0 if none. */
uint64_t occ__alloc_floor(const occ_device_desc *d, uint64_t bytes);

/* a * b + c, saturating at UINT64_MAX. */
static inline uint64_t occ__mul_add_sat(uint64_t a, uint64_t b, uint64_t c)
{
    if (b && a > (UINT64_MAX - c) / b)
        return UINT64_MAX;
    return a * b + c;
}

#endif
