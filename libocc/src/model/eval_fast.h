/* The per-core model of residency.c compiled into tables once per device
 * (occ__device_new builds them; devices are immutable, so every thread may
 * read them).  occ__fast_* then answer a kernel without a branch that
 * depends on the kernel and without a division except the occupancy's:
 *   sub-group sizes as a bit mask, GRF modes by register count, local-memory
 * allocation by kilobyte class or granule, carveouts by preference, and every
 * other division floor(n / d) as a multiplication by a reciprocal
 * (ceil(2^32 / d) is exact for n, d < 2^16: Lemire, Kaser and Kurz, "Faster
 * remainder by direct computation", 2019).
 * The results are exactly residency.c's, byte for byte, for kernels that
 * cannot launch too (tests/test_reference.c holds both to a plain model on
 * 10^6 random configurations).  A device the tables do not cover (odd
 * sub-group sizes, a granule that is not a power of two, sizes past the
 * tables) has usable == false, and the callers use residency.c. */
#ifndef OCC_EVAL_FAST_H
#define OCC_EVAL_FAST_H

#include "common/internal.h"

struct occ_eval; /* occ/advise.h: the model does not include the advisor's header */

#define OCC__FAST_GRF_MAX 512   /* GRF requests up to this use the table */
#define OCC__FAST_UNITS 2048    /* reciprocals and local-memory classes up to this */
#define OCC__FAST_PCT 102       /* carveout preference -1..100, index pct + 1 */

typedef struct occ__fast {
    /* hot: read by every query, kept together at the front */
    bool usable;                /* the device fits the tables at all */
    bool slm_steps;             /* allocation by table (steps) rather than granule */
    bool has_rf;
    uint8_t slm_shift;          /* log2 of the local-memory unit (granule, or 1 KB with steps) */
    uint8_t reg_unit_shift;     /* log2 of registers.alloc_unit */
    uint32_t sg0, default_grf, max_wg;
    uint64_t sg_mask;           /* bit s: sub-group size s supported (all < 64, powers of two) */
    uint64_t slm_max, slm_reserved;
    uint32_t slm_unit_mask;     /* unit - 1 */
    uint32_t slm_units_max;     /* largest class index the allocation table has */
    uint32_t per_core;          /* the core's whole local memory */
    uint32_t max_wgs, barriers;
    uint32_t warp, reg_max_per_thread, reg_max_per_wg, reg_gran_mask, rpp_units, partitions;
    uint32_t mode_regs[OCC_MAX_GRF_MODES + 1]; /* by mode index + 1; index 0: no mode */
    uint32_t mode_cpc[OCC_MAX_GRF_MODES + 1];
    /* the core's local memory for a preference (index pct + 1): the smallest
     * legal size >= the preference, unless one work-group needs more */
    uint32_t want_pct[OCC__FAST_PCT];   /* the preference in bytes */
    uint32_t config_pct[OCC__FAST_PCT]; /* the smallest legal size >= it */
    uint8_t grf_mode[OCC__FAST_GRF_MAX + 2]; /* registers -> mode index + 1; 0: none */
    /* in tail[]: */
    const uint32_t *slm_alloc;  /* steps: class (KB) -> allocation, 0: none */
    const uint32_t *config_of;  /* allocation in units -> smallest legal size >= it */
    uint32_t n_recip;
    uint64_t tail[];            /* recip[0..n_recip) = ceil(2^32 / d), slm_alloc, config_of */
} occ__fast;

/* The tables of a validated description, sized to what it needs (a few KB);
 * NULL when out of memory.  usable says whether they cover the device. */
occ__fast *occ__fast_new(const occ_device_desc *d);

/* The tables of a device, or NULL when they do not cover it. */
static inline const occ__fast *occ__fast_of(const occ_device *dev)
{
    return dev->fast && dev->fast->usable ? dev->fast : NULL;
}

/* Exactly occ_residency_compute's result (every field and padding byte). */
void occ__fast_residency(const occ__fast *f, const occ_kernel *k, occ_residency *r);

/* n kernels (struct_size already checked) into results: a loop the compiler
 * keeps free of kernel-dependent branches. */
void occ__fast_residency_n(const occ__fast *f, const occ_kernel *ks, occ_residency *rs, size_t n);
void occ__fast_eval_n(const occ__fast *f, const occ_kernel *ks, struct occ_eval *es, size_t n);

#endif
