/* Private to libocc: the per-core model specialised for batches.
 *
 * occ__fast_init compiles a device's rules into small tables once per batch
 * (sub-group sizes as a bit mask, GRF modes by register count, local-memory
 * allocation by kilobyte); occ__fast_* then evaluate one kernel with few
 * branches and shifts instead of divisions where the device allows.  The
 * results are exactly residency.c's (tests/test_advise.c compares them on
 * every profile); a kernel or device the tables do not cover is answered
 * "not handled" and the caller uses the general code. */
#ifndef OCC_EVAL_FAST_H
#define OCC_EVAL_FAST_H

#include "common/internal.h"

struct occ_eval; /* occ/advise.h: the model does not include the advisor's header */

#define OCC__FAST_GRF_MAX 512  /* GRF requests up to this use the table */
#define OCC__FAST_SLM_KB 1024  /* local memory tables up to this many KB */

typedef struct occ__fast {
    const occ_device_desc *d;
    bool usable;                /* the device fits the tables at all */
    uint64_t sg_mask;           /* bit s: sub-group size s supported (all < 64, powers of two) */
    uint32_t sg0;               /* the default sub-group size */
    uint8_t grf_mode[OCC__FAST_GRF_MAX + 1]; /* registers -> mode index + 1; 0: no such mode */
    uint32_t contexts[OCC_MAX_GRF_MODES];    /* contexts per core of each mode */
    uint32_t largest_grf;
    /* local memory: allocation of a request + reserved, by kilobyte or granule */
    bool slm_by_kb;             /* steps that are whole KB, reserved whole KB */
    uint32_t slm_kb_n;
    uint64_t slm_kb[OCC__FAST_SLM_KB + 2]; /* ceil(need / 1 KB) -> allocation (0: none) */
    uint64_t granule_mask;      /* granule - 1 (a power of two) */
    /* registers (register-file devices) */
    uint64_t reg_unit_mask, reg_gran_mask; /* powers of two, minus 1 */
    uint64_t regs_per_partition;
} occ__fast;

void occ__fast_init(occ__fast *f, const occ_device_desc *d);

/* The compact result (occ_eval); false: not handled, use the general code. */
bool occ__fast_eval(const occ__fast *f, const occ_kernel *k, struct occ_eval *e);

/* The full result for a kernel that launches, exactly as occ_residency_compute
 * writes it; false (r untouched) when not handled or it cannot launch: the
 * general code then writes it, reason text included. */
bool occ__fast_residency(const occ__fast *f, const occ_kernel *k, occ_residency *r);

/* Batches shorter than this do not pay for building the tables. */
#define OCC__FAST_MIN_BATCH 48

#endif
