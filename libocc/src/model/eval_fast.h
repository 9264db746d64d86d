/* The rule (rule.h) as tables, filled once per device by the rule's own
 * steps (occ__device_new builds them; devices are immutable, so every thread
 * may read them).  occ__fast_* then answer a launchable kernel with look-ups,
 * one division (the occupancy's) and two branches that depend on the kernel
 * (whether it fails a check that needs no table, then whether it launches):
 *   sub-group sizes as a bit mask, GRF modes by register count, local-memory
 * allocation by kilobyte class or granule, carveouts by preference, the
 * register limit and check by registers per thread (one path for every
 * device: a branch on the device's kind is what a stream of queries for many
 * devices mispredicts), and every other division floor(n / d) as a
 * multiplication by a reciprocal (one table shared by all devices)
 * (floor(n x ceil(2^31 / d) / 2^31) is floor(n / d) for n < 2^16 and
 * d < 2^11, since the rounding adds less than n / 2^31 <= 1 / d: Lemire,
 * Kaser and Kurz, "Faster remainder by direct computation", 2019).
 * A kernel that cannot launch gets its answer from the checks' failures
 * (the first in the rule's order) and the values of the rule's rows before it.
 * What the tables do not cover (odd sub-group sizes, a granule that is not a
 * power of two, sizes past the tables, a rule row or a kernel field they were
 * not written for) is the rule's too: usable == false, or the kernel declined.
 * tests/model/test_reference.c holds every path to a plain model, byte for
 * byte, on 10^6 random configurations. */
#ifndef OCC_EVAL_FAST_H
#define OCC_EVAL_FAST_H

#include "common/internal.h"

#include <stddef.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

struct occ_eval; /* occ/advise.h: the model does not include the advisor's header */

#define OCC__FAST_GRF_MAX 512   /* GRF requests up to this use the table */
#define OCC__FAST_UNITS 2048    /* reciprocals and local-memory classes up to this */
#define OCC__FAST_PCT 102       /* carveout preference -1..100, index pct + 1 */
#define OCC__FAST_REGS 514      /* register table entries: registers per thread 0..512 and the cap (AMD: VGPRs and AGPRs) */
#define OCC__FAST_PAD 4         /* bytes after the last table: the lanes' 32-bit gathers of 8- and 16-bit entries */

typedef struct occ__fast {
    /* line 0 (64 bytes, checked below): every field a launchable query
     * reads besides one entry of each table, so that a stream of queries for
     * many devices keeps one line of each device's header, not three */
    bool usable;                /* the device fits the tables at all */
    bool slm_steps;             /* allocation by table (steps) rather than granule */
    uint8_t slm_shift;          /* log2 of the local-memory unit (granule, or 1 KB with steps) */
    uint8_t config_shift, regs_shift;
    bool has_rf;
    uint8_t regs_col_shift;     /* log2 of regs_tab's columns: 1 with two sub-group sizes, else 0 */
    uint8_t unused;
    uint64_t sg_mask;           /* bit s - 1: sub-group size s supported (all <= 64, powers of two) */
    uint32_t max_wg;
    uint16_t sg0;
    uint16_t default_grf;       /* clamped to OCC__FAST_GRF_MAX + 1, as a request is */
    uint16_t n_recip;           /* divisors (and allocation units) below this are in the tables */
    uint16_t slm_units_max;     /* largest class index the allocation table has */
    uint32_t slm_max, slm_reserved;
    uint16_t slm_unit_mask;     /* unit - 1 */
    /* an allocation of u units reads config_of[(u + config_round) >> config_shift]:
     * the legal sizes are whole groups of 2^shift units, so that a stream of
     * random allocations reads few lines (NVIDIA: 4 KB groups of 128-byte units) */
    uint16_t config_round;
    /* registers (devices with a register file): a count r (at most
     * regs_clamp) reads group (r + regs_round) >> regs_shift of regs_tab
     * (registers are allocated in groups: one entry per group of 2^shift
     * counts and sub-group size, so that a stream of random counts reads few
     * lines); a count past regs_over is refused */
    uint16_t regs_clamp;        /* the maximum per thread; 0 without a register file */
    uint16_t regs_round;        /* 2^regs_shift - 1 */
    uint32_t regs_over;         /* the maximum per thread; UINT32_MAX without a register file */
    /* work-group slots by t > 1 (index 1) or t = 1 (index 0), and barriers
     * (of a work-group that uses one): occ__rule_wg_slots, occ__rule_barriers */
    uint32_t slots[2], barriers;
    uint16_t config_of_at;      /* config_of's first entry: tail + this */
    /* the tables, each read at one entry a query */
    /* the core's local memory for a preference (index pct + 1): the
     * smallest legal size >= the preference, in units; entry 0 (no
     * preference, the only one most queries read) ends line 0 */
    uint16_t config_pct[OCC__FAST_PCT];
    /* GRF request (registers, clamped) -> the rule's mode: its contexts per
     * core (low 16 bits; 0: no such mode) and registers (high 16 bits) */
    uint32_t grf_info[OCC__FAST_GRF_MAX + 2];
    /* by sub-group size (entry 2i: sg0, 2i + 1: the device's other one,
     * side by side so that both read one line; a device with one size has
     * entry i alone, regs_col_shift; a warp's registers are its lanes' x its
     * size, so wave32 and wave64 differ):
     * registers per thread, by group (regs_shift) -> the warps a core holds
     * by registers (low 16 bits) and the most warps a work-group may have
     * with that many (high 16 bits: the lesser of that and the per-work-group
     * register maximum's), so that a launchable kernel's register check is
     * one load and a comparison.  Entry 0 (registers unknown): no limit. */
    uint32_t regs_tab[2 * OCC__FAST_REGS];
    uint16_t regs_per_warp[2 * OCC__FAST_REGS]; /* the same index -> registers a warp is allocated */
    uint32_t plan_offset;       /* from here to the column batch's plan (eval_columns.c), in the same allocation */
    uint16_t tail[];            /* slm_units (1 byte an entry), then config_of */
} occ__fast;

_Static_assert(offsetof(occ__fast, config_pct) + sizeof(uint16_t) <= 64,
               "occ__fast: the fields every query reads outgrew a cache line");

/* steps: local-memory class (KB) -> allocation in units (KB), 0: none */
static inline const uint8_t *occ__fast_slm_units(const occ__fast *f) { return (const uint8_t *)f->tail; }
/* allocation in units, by group -> smallest legal size >= it, in units */
static inline const uint16_t *occ__fast_config_of(const occ__fast *f) { return f->tail + f->config_of_at; }

/* The tables of a validated description, sized to what it needs (a few KB);
 * usable says whether they cover the device. */
size_t occ__fast_size(const occ_device_desc *d);
void occ__fast_init(occ__fast *f, const occ_device_desc *d); /* f: occ__fast_size bytes of zeros */

/* Where a device's tables lie: in the device's own allocation, on a cache
 * line of their own after it (occ__device_new), so that a query finds them
 * without loading a pointer. */
#define OCC__FAST_OFFSET ((sizeof(occ_device) + 63) & ~(size_t)63)

/* The tables of a device, or NULL when they do not cover it. */
static inline const occ__fast *occ__fast_of(const occ_device *dev)
{
    const occ__fast *f = (const occ__fast *)(const void *)((const char *)dev + OCC__FAST_OFFSET);
    return f->usable ? f : NULL;
}

/* The device whose tables f are. */
static inline const occ_device *occ__fast_device(const occ__fast *f)
{
    return (const occ_device *)(const void *)((const char *)f - OCC__FAST_OFFSET);
}

/* A kernel that cannot launch, or that the tables do not answer: the rule's
 * answer, out of line (eval_fast.c: from what the launchable path found, or
 * from the rule itself). */
void occ__fast_cannot_launch(const occ__fast *f, const occ_kernel *k, occ_residency *r);

/* ---- the launchable path, inline in every caller ---- */

/* ceil(2^31 / d) for d < OCC__FAST_UNITS, and 0 for d = 0: one table for
 * every device (occ__fast_init fills it once), so that a stream of queries
 * for many devices keeps one set of its lines in cache, not one per device;
 * 4 bytes an entry, so that NVIDIA's allocations in 128-byte units (up to
 * 1826) spread over 8 KB of it, not 16. */
extern uint32_t occ__recip[OCC__FAST_UNITS];

/* floor(n / d) for n < 2^16 and d < n_recip (d = 0: 0): by the reciprocal table. */
static inline uint32_t occ__div_small(uint64_t n, uint64_t d)
{
    return (uint32_t)((n * occ__recip[d]) >> 31);
}

static inline uint32_t occ__min_u32(uint32_t a, uint32_t b) { return a < b ? a : b; }
static inline uint64_t occ__min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }
static inline uint64_t occ__max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }

/* cond ? a : b without a branch: for choices that depend on the kernel,
 * which a random stream of kernels makes unpredictable (a mispredicted
 * branch costs more than this whole query's arithmetic).  On x86-64 a
 * conditional move (two instructions where masks take six; the compiler may
 * not turn it into a branch), elsewhere masks. */
static inline uint32_t occ__pick_u32(bool cond, uint32_t a, uint32_t b)
{
#if defined(__x86_64__) && defined(__GNUC__)
    __asm__("test %[c], %[c]\n\tcmovne %[a], %[b]" : [b] "+r"(b) : [c] "r"(cond), [a] "rm"(a) : "cc");
    return b;
#else
    uint32_t m = -(uint32_t)cond;
    return (a & m) | (b & ~m);
#endif
}
/* x, or dflt where x is 0: the same, testing x itself */
static inline uint32_t occ__nonzero_or(uint32_t x, uint32_t dflt)
{
#if defined(__x86_64__) && defined(__GNUC__)
    __asm__("test %[x], %[x]\n\tcmove %[d], %[x]" : [x] "+r"(x) : [d] "rm"(dflt) : "cc");
    return x;
#else
    return occ__pick_u32(x != 0, x, dflt);
#endif
}
static inline uint64_t occ__pick_u64(bool cond, uint64_t a, uint64_t b)
{
#if defined(__x86_64__) && defined(__GNUC__)
    __asm__("test %[c], %[c]\n\tcmovne %[a], %[b]" : [b] "+r"(b) : [c] "r"(cond), [a] "rm"(a) : "cc");
    return b;
#else
    uint64_t m = -(uint64_t)cond;
    return (a & m) | (b & ~m);
#endif
}

/* The local-memory limit of slm_bytes (<= the maximum per work-group) with
 * the carveout preference at index pct_i (pct + 1, valid), and the
 * allocation and core size behind it.  An allocation within the maximum
 * always fits the core size chosen (occ__fast_init checks it), so that check
 * stays in the out-of-line path. */
__attribute__((always_inline)) static inline uint32_t occ__fast_slm_limit(const occ__fast *f, uint64_t slm_bytes,
                                                                       uint32_t pct_i, uint64_t *alloc_out,
                                                                       uint64_t *config_out)
{
    uint64_t need = slm_bytes + f->slm_reserved;
    uint64_t rounded = (need + f->slm_unit_mask) >> f->slm_shift; /* in units */
    /* steps by table, a granule as it is: both, chosen by a conditional move */
    uint64_t units = occ__pick_u64(f->slm_steps, occ__fast_slm_units(f)[occ__min_u64(rounded, f->slm_units_max)], rounded);
    uint64_t alloc_units = occ__min_u64(units, f->n_recip - 1u);
    /* the smallest legal size >= max(preference, alloc) is the larger of
     * the smallest legal sizes >= each (legal sizes are ordered); without a
     * preference both are read from line 0 when the preference's size
     * covers every allocation (every built-in device's does), so that such
     * a query reads no line of the size tables */
    const uint16_t *by_alloc = &occ__fast_config_of(f)[(alloc_units + f->config_round) >> f->config_shift];
    uint32_t config = (uint32_t)occ__max_u64(f->config_pct[pct_i], *by_alloc);
    *alloc_out = units << f->slm_shift, *config_out = (uint64_t)config << f->slm_shift;
    /* no allocation: alloc_units 0, whose reciprocal is 0 */
    return occ__div_small(config, alloc_units) | (OCC_NO_LIMIT & -(uint32_t)(units == 0));
}

/* The bytes of occ_kernel the fast paths read: its fields up to
 * carveout_pct.  A field added after them (a constraint a new row of the rule
 * checks) is 0 by default; a kernel that sets one is declined by every fast
 * path and answered by the rule, until a path learns the row. */
#define OCC__FAST_KERNEL_BYTES (offsetof(occ_kernel, carveout_pct) + sizeof(int32_t))

/* The fields past OCC__FAST_KERNEL_BYTES, named (not their bytes: a copy
 * may carry any padding): a new field goes here and in the assertion.  The
 * cluster fields after reqd_sub_group change no per-core answer (the
 * driver's per-SM answer ignores them: model/cluster.c reads them), so the
 * fast paths take kernels that set them; AMD's sgprs and cu_mode after them
 * do (AMD's row of the rule reads them): a kernel that sets one is declined. */
_Static_assert((offsetof(occ_kernel, cu_mode) + sizeof(uint32_t) + 7) / 8 * 8 == sizeof(occ_kernel) &&
                   offsetof(occ_kernel, sgprs) > offsetof(occ_kernel, cluster_non_portable) &&
                   offsetof(occ_kernel, cluster) == offsetof(occ_kernel, reqd_sub_group) + sizeof(uint32_t),
               "a field was added to occ_kernel: add it to occ__fast_declines");
static inline bool occ__fast_declines(const occ_kernel *k)
{
    return ((k->max_wg_size | k->reqd_wg[0] | k->reqd_wg[1] | k->reqd_wg[2] | k->reqd_sub_group) != 0) |
           occ__kernel_vendor_fields(k);
}

/* Whether the kernel sets a field past OCC__FAST_KERNEL_BYTES other than
 * max_wg_size (a check on W alone, which the prepared kernel knows). */
static inline bool occ__fast_declines_but_max_wg(const occ_kernel *k)
{
    return ((k->reqd_wg[0] | k->reqd_wg[1] | k->reqd_wg[2] | k->reqd_sub_group) != 0) | occ__kernel_vendor_fields(k);
}

/* Whether a sub-group size (>= 1) is not the device's: one bit of sg_mask. */
static inline bool occ__fast_sg_unsupported(const occ__fast *f, uint32_t sg)
{
    return (sg - 1 >= 64) | !((f->sg_mask >> ((sg - 1) & 63)) & 1);
}

/* The checks that need only the kernel and a few fields of the device, so
 * that a caller's branch on them resolves early: a random stream of kernels
 * mispredicts it, and a late branch throws away more work. */
__attribute__((always_inline)) static inline bool occ__fast_fails_early(const occ__fast *f, const occ_kernel *k)
{
    uint64_t W = occ__wg_items(k);
    uint32_t sg = occ__nonzero_or(k->sub_group, f->sg0);
    uint32_t pct1 = (uint32_t)k->carveout_pct + 1u;
    return (W - 1 >= f->max_wg) | occ__fast_sg_unsupported(f, sg) | (pct1 >= OCC__FAST_PCT) |
           (k->slm_bytes > f->slm_max) | occ__fast_declines(k);
}

/* A kernel that launches, the common case: the same numbers without the
 * bookkeeping of stages.  false: it cannot launch (nothing written). */
typedef struct occ__launch {
    uint64_t W, alloc, config;
    uint32_t sg, grf, t, cpc, lim[OCC_RES_COUNT], by, resident, regs_alloc;
    uint32_t fails; /* bit (1 << reason) for each check that fails (several may) */
    double occupancy;
} occ__launch;

#define OCC__FAIL_BIT(reason) (1u << (reason))

/* The kernel's shape and request, the first stage of the launchable path:
 * the checks of the rule's rows before its first limit (rule.h,
 * OCC__RULE_CHECKS_BEFORE_LIMITS; occ__fast_init holds the tables to that),
 * which need no table past the GRF mode's. */
typedef struct occ__shape {
    uint64_t W;
    uint32_t sg, grf, cpc, t, pct1; /* grf: the mode's registers (cpc 0: no mode) */
    uint32_t fails; /* OCC__FAST_SHAPE_CHECKS' bits */
} occ__shape;

#define OCC__FAST_SHAPE_CHECKS                                                                     \
    (OCC__FAIL_BIT(OCC_REASON_WG_ZERO) | OCC__FAIL_BIT(OCC_REASON_SUB_GROUP) | OCC__FAIL_BIT(OCC_REASON_GRF_MODE) | \
     OCC__FAIL_BIT(OCC_REASON_WG_TOO_LARGE) | OCC__FAIL_BIT(OCC_REASON_CONTEXTS) |                  \
     OCC__FAIL_BIT(OCC_REASON_CARVEOUT) | OCC__FAIL_BIT(OCC_REASON_SLM_TOO_LARGE))

__attribute__((always_inline)) static inline void occ__evaluate_shape(const occ__fast *f, const occ_kernel *k,
                                                                     occ__shape *s)
{
    uint64_t W = occ__wg_items(k);
    uint32_t sg = occ__nonzero_or(k->sub_group, f->sg0);
    uint32_t want = occ__nonzero_or(k->grf, f->default_grf);
    uint32_t mode = f->grf_info[occ__min_u64(want, OCC__FAST_GRF_MAX + 1)];
    uint32_t cpc = mode & 0xffff;
    unsigned shift = (unsigned)__builtin_ctz(sg | 0x80000000u);
    uint32_t W32 = (uint32_t)occ__min_u64(W, 1u << 30);
    uint32_t t = (W32 + sg - 1) >> shift;
    uint32_t pct1 = (uint32_t)k->carveout_pct + 1u;
    /* the rule's checks, folded: no GRF mode gives cpc 0 < t; a zero size
     * wraps W - 1 past the maximum */
    s->fails = (uint32_t)(W == 0) << OCC_REASON_WG_ZERO |
               (uint32_t)occ__fast_sg_unsupported(f, sg) << OCC_REASON_SUB_GROUP |
               (uint32_t)(cpc == 0) << OCC_REASON_GRF_MODE |
               (uint32_t)(W - 1 >= f->max_wg && W != 0) << OCC_REASON_WG_TOO_LARGE |
               (uint32_t)(t > cpc) << OCC_REASON_CONTEXTS | (uint32_t)(pct1 >= OCC__FAST_PCT) << OCC_REASON_CARVEOUT |
               (uint32_t)(k->slm_bytes > f->slm_max) << OCC_REASON_SLM_TOO_LARGE;
    s->W = W, s->sg = sg, s->grf = mode >> 16, s->cpc = cpc, s->t = t, s->pct1 = pct1;
}

/* The reason of each set of failed checks (bits OCC__FAIL_BIT): the first
 * in the rule's order (occ__rule_check_order); 0 (launchable) for none.
 * Filled from that order once, before the first device's tables; padded for
 * the lanes' 32-bit gathers. */
extern uint8_t occ__first_fail[(1u << OCC_REASON_COUNT) + OCC__FAST_PAD];

__attribute__((always_inline)) static inline bool occ__evaluate_launch(const occ__fast *f, const occ_kernel *k,
                                                                  occ__launch *o)
{
    const uint32_t NL = OCC_NO_LIMIT;
    occ__shape s;
    occ__evaluate_shape(f, k, &s);
    uint64_t W = s.W;
    uint32_t sg = s.sg, cpc = s.cpc, t = s.t, pct1 = s.pct1, fails = s.fails;
    uint32_t t1 = (uint32_t)occ__min_u64(t, f->n_recip - 1); /* recip[0] is 0 */
    uint64_t alloc, config;
    uint32_t lim_slm = occ__fast_slm_limit(f, k->slm_bytes, pct1 < OCC__FAST_PCT ? pct1 : 0, &alloc, &config);
    /* registers, only they can leave no room at all (resident 0); without a
     * branch on the device's kind, which a stream of queries for many devices
     * mispredicts: a device without a register file has regs_clamp 0, so it
     * reads entry 0, "unknown", as a kernel with registers 0 does */
    uint32_t regs_i = (occ__min_u32(k->regs_per_thread, f->regs_clamp) + f->regs_round) >> f->regs_shift;
    uint32_t known = -(uint32_t)(regs_i != 0);
    /* the column; a device with one size has one (an unsupported size, which
     * fails the sub-group check, reads the next entry) */
    regs_i = (regs_i << f->regs_col_shift) + (sg != f->sg0);
    uint32_t entry = f->regs_tab[regs_i];
    uint32_t lim_regs = occ__div_small(entry & 0xffff, t1) | ~known; /* OCC_NO_LIMIT is all ones */
    uint32_t over = k->regs_per_thread > f->regs_over; /* past the maximum per thread */
    fails |= over << OCC_REASON_REGS_PER_THREAD | (uint32_t)(t > entry >> 16 && !over) << OCC_REASON_REGS_PER_WG;
    /* only the full report reads the allocation (the compact answer drops it) */
    uint32_t regs_alloc = f->regs_per_warp[regs_i] * t & known;
    uint32_t *lim = o->lim;
    lim[OCC_RES_THREADS] = occ__div_small(cpc, t1);
    lim[OCC_RES_SLM] = lim_slm;
    lim[OCC_RES_REGISTERS] = lim_regs;
    lim[OCC_RES_WG_SLOTS] = f->slots[t > 1];
    lim[OCC_RES_BARRIERS] = occ__pick_u32(k->barrier, f->barriers, NL);
    uint32_t resident = occ__min_u32(occ__min_u32(lim[0], lim[1]), occ__min_u32(lim[2], occ__min_u32(lim[3], lim[4])));
#if defined(__SSE2__)
    __m128i eq = _mm_cmpeq_epi32(_mm_setr_epi32((int)lim[0], (int)lim[1], (int)lim[2], (int)lim[3]),
                                 _mm_set1_epi32((int)resident));
    uint32_t by = (uint32_t)_mm_movemask_ps(_mm_castsi128_ps(eq)) | (uint32_t)(lim[4] == resident) << 4;
#else
    uint32_t by = 0;
    for (int i = 0; i < OCC_RES_COUNT; i++)
        by |= (uint32_t)(lim[i] == resident) << i;
#endif
    o->W = W, o->alloc = alloc, o->config = config;
    o->sg = sg, o->grf = s.grf, o->t = t, o->cpc = cpc;
    o->by = by, o->resident = resident, o->regs_alloc = regs_alloc, o->fails = fails;
    o->occupancy = (double)(resident * t) / (cpc + (cpc == 0)); /* cpc 0: no mode, not written */
    return fails == 0;
}

/* occ_residency as 8-byte words (offsets checked below; little-endian):
 * aligned whole-word stores, where zeroing and then writing fields makes
 * the compiler emit 16-byte stores across cache lines, which a caller's
 * next read of a field then waits for. */
#define WORD_LAYOUT                                                                               \
    (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && sizeof(occ_residency) == 112 &&                  \
     sizeof(bool) == 1 && sizeof(occ_reason) == 4)
_Static_assert(!WORD_LAYOUT || (offsetof(occ_residency, launchable) == 4 &&
                                offsetof(occ_residency, reason) == 8 &&
                                offsetof(occ_residency, sub_group) == 12 &&
                                offsetof(occ_residency, grf) == 16 &&
                                offsetof(occ_residency, wg_size) == 24 &&
                                offsetof(occ_residency, contexts_per_wg) == 32 &&
                                offsetof(occ_residency, limits) == 40 &&
                                offsetof(occ_residency, limited_by) == 60 &&
                                offsetof(occ_residency, resident_wgs) == 64 &&
                                offsetof(occ_residency, contexts_idle) == 72 &&
                                offsetof(occ_residency, occupancy) == 80 &&
                                offsetof(occ_residency, slm_per_wg_alloc) == 88 &&
                                offsetof(occ_residency, slm_core_config) == 96 &&
                                offsetof(occ_residency, regs_per_wg_alloc) == 104),
               "occ_residency's layout changed: update write_launch");

static inline uint64_t occ__pair(uint32_t lo, uint32_t hi) { return (uint64_t)lo | (uint64_t)hi << 32; }

static inline void occ__write_launch(const occ__launch *o, occ_residency *r)
{
    uint32_t used = o->resident * o->t;
    double occupancy = o->occupancy;
    if (WORD_LAYOUT) {
    uint64_t occ_bits;
    memcpy(&occ_bits, &occupancy, sizeof occ_bits);
    uint64_t w[14] = {
        occ__pair(sizeof *r, 1), /* struct_size, launchable (padding 0) */
        occ__pair(OCC_REASON_NONE, o->sg),
        o->grf,
        o->W,
        occ__pair(o->t, o->cpc),
        occ__pair(o->lim[0], o->lim[1]),
        occ__pair(o->lim[2], o->lim[3]),
        occ__pair(o->lim[4], o->by),
        occ__pair(o->resident, used),
        o->cpc - used,
        occ_bits,
        o->alloc,
        o->config,
        o->regs_alloc,
    };
    typedef uint64_t word __attribute__((may_alias));
    word *out = (word *)(void *)r;
#pragma GCC unroll 16
    for (int i = 0; i < 14; i++) /* relaxed atomics: plain stores the compiler does not merge */
        __atomic_store_n(&out[i], w[i], __ATOMIC_RELAXED);
    return;
    }
    occ__zero_residency(r);
    r->struct_size = sizeof *r;
    r->launchable = true;
    r->reason = OCC_REASON_NONE;
    r->sub_group = o->sg;
    r->grf = o->grf;
    r->wg_size = o->W;
    r->contexts_per_wg = o->t;
    r->contexts_per_core = o->cpc;
    memcpy(r->limits, o->lim, sizeof r->limits);
    r->limited_by = o->by;
    r->resident_wgs = o->resident;
    r->contexts_used = used;
    r->contexts_idle = o->cpc - used;
    r->occupancy = occupancy;
    r->slm_per_wg_alloc = o->alloc;
    r->slm_core_config = o->config;
    r->regs_per_wg_alloc = o->regs_alloc;
}

/* Exactly occ_residency_compute's result (every field and padding byte). */
static inline void occ__fast_residency(const occ__fast *f, const occ_kernel *k, occ_residency *r)
{
    occ__launch o;
    if (!occ__fast_fails_early(f, k) && occ__evaluate_launch(f, k, &o))
        occ__write_launch(&o, r);
    else
        occ__fast_cannot_launch(f, k, r);
}

/* The compact answer (occ_eval) of a full one. */
void occ__eval_from_residency(const occ_residency *r, struct occ_eval *e);

/* The compact answer of a kernel that cannot launch (out of line). */
void occ__fast_cannot_launch_eval(const occ__fast *f, const occ_kernel *k, struct occ_eval *e);

/* n kernels (struct_size already checked) into results: a loop the compiler
 * keeps free of kernel-dependent branches. */
void occ__fast_residency_n(const occ__fast *f, const occ_kernel *ks, occ_residency *rs, size_t n);
void occ__fast_eval_n(const occ__fast *f, const occ_kernel *ks, struct occ_eval *es, size_t n);

#endif
