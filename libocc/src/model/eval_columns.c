/* The column batch, eight kernels per instruction (eval_columns.h).
 *
 * eval_fast.h answers one kernel with table look-ups and reciprocal
 * multiplications; here the same stages run on eight lanes at once (GCC /
 * Clang vector extensions: SSE2 pairs of 4 lanes on baseline x86-64, AVX2
 * lanes of 8 when the CPU has it, the compiler's generic vectors elsewhere):
 *   - short lists instead of tables: a sub-group size is matched against the
 *     device's sizes, the GRF mode, the local-memory step and the carveout are
 *     each the smallest list entry >= the request, found by comparing the
 *     whole vector with every entry (at most 8, 32 and 16 entries);
 *   - divisions floor(a / b) for a, b < 2^16 as a float division and a
 *     truncation, which is exact when a + b < 2^24 (the quotient's rounding
 *     error is below 2^-24 relative, and a quotient that is not an integer
 *     is at least 1 / b from the next one: b (k + 1) <= a + b < 2^24);
 *   - every lane gets a "bad" flag when the scalar path's checks fail (it
 *     cannot launch) or an input is outside what the lanes compute exactly
 *     (a work-group dimension or a size past 2^24, local memory past 2^31);
 *     flagged lanes are answered again by eval_fast.c's out-of-line code.
 * A lane whose input is out of range computes garbage, never undefined
 * behaviour (unsigned wrap, divisors kept >= 1, float values kept in int
 * range); the flag throws it away.
 * Columns the caller leaves NULL are constants, so the loop is compiled once
 * per combination of the three stages that cost most (work-group dimensions
 * y and z, local memory and carveout, registers), and a stage whose columns
 * are all NULL is computed once per call. */
#include "model/eval_columns.h"

#include <string.h>

#include "occ/advise.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define HAVE_AVX2_CLONE 1
#else
#define HAVE_AVX2_CLONE 0
#endif

/* 32-byte vectors in functions built without AVX: every function that takes
 * or returns one is inlined (always_inline), so no call ever passes one and
 * the ABI note does not apply. */
#pragma GCC diagnostic ignored "-Wpsabi"

typedef uint32_t v8u __attribute__((vector_size(32)));
typedef int32_t v8i __attribute__((vector_size(32)));
typedef float v8f __attribute__((vector_size(32)));
typedef uint32_t v4u __attribute__((vector_size(16)));
typedef int32_t v4i __attribute__((vector_size(16)));
typedef uint64_t v4q __attribute__((vector_size(32)));
typedef double v4d __attribute__((vector_size(32)));
typedef uint8_t v8b __attribute__((vector_size(8)));

#define LANES 8
#define INLINE static inline __attribute__((always_inline))
#define NL OCC_NO_LIMIT

/* What a call needs of the device, read once from its description and tables. */
typedef struct plan {
    uint32_t max_wg;                    /* < 2^24 */
    uint32_t n_sg, sg[OCC_MAX_SUB_GROUP_SIZES], sg_shift[OCC_MAX_SUB_GROUP_SIZES];
    uint32_t n_modes, mode_regs[OCC_MAX_GRF_MODES], mode_cpc[OCC_MAX_GRF_MODES];
    uint32_t default_grf, cpc0;         /* contexts per core in the default mode */
    uint32_t slm_max, slm_reserved, slm_unit_mask, slm_shift;
    bool steps;                         /* allocation by steps, else by granule */
    uint32_t n_steps, step[OCC_MAX_SLM_STEPS];
    uint32_t n_carve, carve[OCC_MAX_CARVEOUTS], per_core;
    const uint32_t *want_pct;           /* the preference in bytes, by pct + 1 */
    uint32_t want0, config0;            /* preference -1: bytes, core size */
    bool config_fixed;                  /* preference -1: every allocation gets config0 */
    uint32_t lim_slm0;                  /* the local-memory limit of no local memory, preference -1 */
    uint32_t max_wgs, barriers;
    uint32_t warp_shift, reg_unit_shift, reg_unit_mask, reg_max_per_thread, reg_max_per_wg;
    uint32_t reg_gran_mask, rpp_units, partitions;
} plan;

static bool is_pow2(uint64_t v) { return v && (v & (v - 1)) == 0; }

static uint32_t log2_u32(uint32_t v) { return (uint32_t)__builtin_ctz(v); }

/* The plan of a device, false when the vector path does not cover it (the
 * bounds the comments of eval_columns.c's stages rely on). */
static bool plan_make(const occ_device *dev, const occ__fast *f, plan *p)
{
    const occ_device_desc *d = &dev->desc;
    memset(p, 0, sizeof *p);
    bool ok = d->max_work_group_size < (1u << 24) && d->n_sub_group_sizes >= 1 && d->n_grf_modes >= 1;
    p->max_wg = d->max_work_group_size;
    p->n_sg = d->n_sub_group_sizes;
    for (uint32_t i = 0; i < p->n_sg && ok; i++) {
        ok &= d->sub_group_sizes[i] < 64 && is_pow2(d->sub_group_sizes[i]);
        p->sg[i] = d->sub_group_sizes[i];
        p->sg_shift[i] = ok ? log2_u32(p->sg[i]) : 0;
    }
    p->n_modes = d->n_grf_modes;
    for (uint32_t m = 0; m < p->n_modes; m++) {
        uint64_t cpc = (uint64_t)d->engines_per_core * d->grf_modes[m].threads_per_engine;
        ok &= cpc < 65536 && d->grf_modes[m].registers <= OCC__FAST_GRF_MAX;
        p->mode_regs[m] = d->grf_modes[m].registers;
        p->mode_cpc[m] = (uint32_t)cpc;
    }
    p->default_grf = d->default_grf;
    uint32_t m0 = f->grf_mode[occ__min_u64(d->default_grf, OCC__FAST_GRF_MAX + 1)];
    p->cpc0 = f->mode_cpc[m0];
    ok &= m0 != 0;

    /* local memory: sizes below 2^31, in units below 2^16 (exact divisions) */
    uint64_t unit = d->slm_granule ? d->slm_granule : 1024;
    ok &= d->slm_max_per_work_group + d->slm_reserved_per_work_group < (1ull << 31) && is_pow2(unit) &&
          d->slm_per_core < (1ull << 31) && (d->slm_per_core / unit) < 65536;
    p->slm_max = (uint32_t)d->slm_max_per_work_group;
    p->slm_reserved = (uint32_t)d->slm_reserved_per_work_group;
    p->slm_unit_mask = (uint32_t)(unit - 1);
    p->slm_shift = f->slm_shift;
    p->per_core = (uint32_t)d->slm_per_core;
    p->steps = d->slm_granule == 0;
    p->n_steps = d->n_slm_steps;
    for (uint32_t i = 0; i < d->n_slm_steps; i++) {
        ok &= d->slm_steps[i] <= d->slm_per_core;
        p->step[i] = (uint32_t)d->slm_steps[i];
    }
    p->n_carve = d->n_carveouts;
    for (uint32_t i = 0; i < d->n_carveouts; i++) {
        ok &= d->carveouts[i] < (1ull << 31) && (d->carveouts[i] / unit) < 65536;
        p->carve[i] = (uint32_t)d->carveouts[i];
    }
    p->want_pct = f->want_pct;
    p->want0 = f->want_pct[0];
    p->config0 = f->config_pct[0];
    /* the largest allocation (of the largest request) no more than the
     * preference's bytes: then every allocation gets the preference's size */
    uint64_t top = d->slm_max_per_work_group + d->slm_reserved_per_work_group;
    uint64_t top_alloc = (top + unit - 1) & ~(unit - 1);
    if (p->steps && top) {
        uint64_t a = UINT64_MAX;
        for (uint32_t i = d->n_slm_steps; i-- > 0;)
            a = d->slm_steps[i] >= top_alloc ? d->slm_steps[i] : a;
        top_alloc = a;
    }
    p->config_fixed = top_alloc <= p->want0;

    p->max_wgs = d->max_work_groups_per_core;
    p->barriers = d->barriers_per_core;
    if (d->has_register_file) {
        uint64_t rpw = (uint64_t)d->reg_max_per_thread * d->sub_group_sizes[0] + d->reg_alloc_unit;
        uint64_t cpc_max = 0;
        for (uint32_t m = 0; m < p->n_modes; m++)
            cpc_max = p->mode_cpc[m] > cpc_max ? p->mode_cpc[m] : cpc_max;
        /* the block's registers of any kernel that passes the other checks fit 32 bits */
        ok &= is_pow2(d->reg_alloc_unit) && is_pow2(d->reg_warp_granularity) && d->reg_max_per_thread < 65536 &&
              rpw * (cpc_max + d->reg_warp_granularity) < (1ull << 32);
        p->warp_shift = log2_u32(d->sub_group_sizes[0]);
        p->reg_unit_shift = f->reg_unit_shift;
        p->reg_unit_mask = (1u << f->reg_unit_shift) - 1;
        p->reg_max_per_thread = d->reg_max_per_thread;
        p->reg_max_per_wg = d->reg_max_per_work_group;
        p->reg_gran_mask = f->reg_gran_mask;
        p->rpp_units = f->rpp_units;
        p->partitions = f->partitions;
    }
    /* the local-memory limit when no column sets local memory or a preference */
    occ_kernel k;
    occ_kernel_init(&k);
    occ__launch o;
    ok &= occ__evaluate_launch(f, &k, &o);
    p->lim_slm0 = o.lim[OCC_RES_SLM];
    return ok;
}

/* ---- eight lanes -------------------------------------------------------------- */

#define SPLAT(x) ((v8u){0} + (uint32_t)(x))

INLINE v8u load_u32(const void *p)
{
    v8u v;
    memcpy(&v, p, sizeof v);
    return v;
}

INLINE void store_u32(void *p, v8u v) { memcpy(p, &v, sizeof v); }

INLINE v8u load_u8(const uint8_t *p)
{
    v8b b;
    memcpy(&b, p, sizeof b);
    return __builtin_convertvector(b, v8u);
}

INLINE void store_u8(uint8_t *p, v8u v)
{
    v8b b = __builtin_convertvector(v, v8b);
    memcpy(p, &b, sizeof b);
}

/* Eight uint64 as their low and high 32 bits. */
INLINE void load_u64(const uint64_t *p, v8u *lo, v8u *hi)
{
    v4q a, b;
    memcpy(&a, p, sizeof a);
    memcpy(&b, p + 4, sizeof b);
    union {
        v8u v;
        v4u h[2];
    } l, h;
    l.h[0] = __builtin_convertvector(a, v4u), l.h[1] = __builtin_convertvector(b, v4u);
    h.h[0] = __builtin_convertvector(a >> 32, v4u), h.h[1] = __builtin_convertvector(b >> 32, v4u);
    *lo = l.v, *hi = h.v;
}

/* m ? a : b, lane by lane (m: all ones or zero); C has no vector ?:. */
INLINE v8u sel(v8u m, v8u a, v8u b) { return (a & m) | (b & ~m); }

INLINE v8u min_u(v8u a, v8u b) { return sel((v8u)(a < b), a, b); }

/* floor(a / b) for a, b < 2^16, b >= 1 (exact: the header comment). */
INLINE v8u div_small(v8u a, v8u b)
{
    v8f q = __builtin_convertvector((v8i)a, v8f) / __builtin_convertvector((v8i)b, v8f);
    return (v8u)__builtin_convertvector(q, v8i);
}

/* Bit j: lane j's mask is set. */
INLINE unsigned lanes_set(v8u m)
{
#if defined(__SSE2__)
    union {
        v8u v;
        __m128 h[2];
    } u = {m};
    return (unsigned)_mm_movemask_ps(u.h[0]) | (unsigned)_mm_movemask_ps(u.h[1]) << 4;
#else
    unsigned r = 0;
    for (int j = 0; j < LANES; j++)
        r |= (m[j] & 1u) << j;
    return r;
#endif
}

/* (double)a * b / c for lanes 0..3 or 4..7 (a * b and c below 2^31 where it counts). */
INLINE v4d occupancy_half(v8u a, v8u b, v8u c, int half)
{
    union {
        v8u v;
        v4i h[2];
    } ua = {a}, ub = {b}, uc = {c};
    v4d da = __builtin_convertvector(ua.h[half], v4d), db = __builtin_convertvector(ub.h[half], v4d);
    return da * db / __builtin_convertvector(uc.h[half], v4d);
}

/* Kernels i..i+7: their answers into the result columns, and the lanes the
 * scalar code must answer again (bit j: kernel i + j).  YZ: a wg_y or wg_z
 * column; SLM: a local-memory column, or a carveout column on a device with
 * carveouts; REGS: a register column on a device with a register file.
 * The stages are eval_fast.h's occ__evaluate_launch, in its order. */
INLINE unsigned group(const plan *p, const occ_columns *in, occ_eval_columns *out, size_t i, bool YZ, bool SLM,
                      bool REGS)
{
    const v8u one = SPLAT(1), zero = SPLAT(0), none = SPLAT(NL);
    /* work-group size: dimensions past the maximum (or zero) are bad, the
     * others are below 2^24 and their product is exact in float up to 2^24
     * (past it, it stays past the maximum, which is below 2^24) */
    v8u x = in->wg_x ? load_u32(in->wg_x + i) : one;
    v8u bad, W;
    if (YZ) {
        v8u y = in->wg_y ? load_u32(in->wg_y + i) : one;
        v8u z = in->wg_z ? load_u32(in->wg_z + i) : one;
        v8u big = SPLAT(p->max_wg);
        bad = (v8u)(x > big) | (v8u)(y > big) | (v8u)(z > big);
        v8u m24 = SPLAT(0xffffff);
        v8f prod = __builtin_convertvector((v8i)(x & m24), v8f) * __builtin_convertvector((v8i)(y & m24), v8f) *
                   __builtin_convertvector((v8i)(z & m24), v8f);
        v8u fits = (v8u)(prod <= (float)p->max_wg);
        W = (v8u)__builtin_convertvector((v8f)((v8u)prod & fits), v8i); /* past the maximum: 0, bad below */
    } else {
        bad = zero;
        W = x & SPLAT(0xffffff);
    }
    bad |= (v8u)(W - 1 >= SPLAT(p->max_wg));
    /* contexts per work-group, ceil(W / sg), for the lane's sub-group size */
    v8u t;
    if (in->sub_group) {
        v8u sg = load_u32(in->sub_group + i);
        v8u known = zero;
        t = zero;
        sg = sel((v8u)(sg == 0), SPLAT(p->sg[0]), sg);
        for (uint32_t s = 0; s < p->n_sg; s++) {
            v8u is = (v8u)(sg == p->sg[s]);
            known |= is;
            t |= is & ((W + (p->sg[s] - 1)) >> p->sg_shift[s]);
        }
        bad |= ~known;
    } else {
        t = (W + (p->sg[0] - 1)) >> p->sg_shift[0];
    }
    /* GRF mode: the one with the fewest registers >= the request; none: 0
     * contexts per core, and t > 0 makes the lane bad */
    v8u cpc;
    if (in->grf) {
        v8u g = load_u32(in->grf + i);
        v8u want = sel((v8u)(g == 0), SPLAT(p->default_grf), g);
        cpc = zero;
        for (uint32_t m = p->n_modes; m-- > 0;)
            cpc = sel((v8u)(want <= p->mode_regs[m]), SPLAT(p->mode_cpc[m]), cpc);
    } else {
        cpc = SPLAT(p->cpc0);
    }
    bad |= (v8u)(t > cpc);
    v8u t_div = t | ((v8u)(t == 0) & one); /* a divisor >= 1 in every lane */
    v8u lim_threads = div_small(cpc, t_div);
    /* carveout preference -1..100 */
    v8u want = SPLAT(p->want0);
    if (in->carveout_pct) {
        v8u pct1 = load_u32(in->carveout_pct + i) + 1;
        v8u in_range = (v8u)(pct1 < OCC__FAST_PCT);
        bad |= ~in_range;
        if (SLM && p->n_carve) {
            pct1 &= in_range;
            for (int j = 0; j < LANES; j++) /* a gather; a 102-entry table */
                want[j] = p->want_pct[pct1[j]];
        }
    }
    /* local memory: allocation, the core's size, work-groups that fit */
    v8u lim_slm = SPLAT(p->lim_slm0);
    if (SLM) {
        v8u bytes = zero;
        if (in->slm_bytes) {
            v8u hi;
            load_u64(in->slm_bytes + i, &bytes, &hi);
            bad |= (v8u)(hi != 0) | (v8u)(bytes > p->slm_max);
            bytes &= SPLAT(0x7fffffff);
        }
        v8u need = bytes + p->slm_reserved;
        v8u rounded = (need + p->slm_unit_mask) & ~SPLAT(p->slm_unit_mask);
        v8u alloc = rounded;
        if (p->steps) { /* the smallest step >= the request; none for no request */
            alloc = zero;
            for (uint32_t s = p->n_steps; s-- > 0;)
                alloc = sel((v8u)(rounded <= p->step[s]), SPLAT(p->step[s]), alloc);
            alloc &= ~(v8u)(rounded == 0);
        }
        /* the smallest carveout >= both the preference and the allocation
         * (eval_fast.h's two look-ups, as the smallest legal size is
         * monotone), else the whole core */
        v8u config = SPLAT(p->per_core);
        if (p->n_carve && (in->carveout_pct || !p->config_fixed)) {
            v8u need_core = sel((v8u)(alloc > want), alloc, want);
            for (uint32_t c = p->n_carve; c-- > 0;)
                config = sel((v8u)(need_core <= p->carve[c]), SPLAT(p->carve[c]), config);
        } else if (p->n_carve) {
            config = SPLAT(p->config0);
        }
        v8u none_alloc = (v8u)(alloc == 0);
        lim_slm = sel(none_alloc, none, div_small(config >> p->slm_shift, (alloc >> p->slm_shift) | (none_alloc & one)));
    }
    /* registers: only a kernel that gives its count is limited by them */
    v8u lim_regs = none;
    if (REGS) {
        v8u r = load_u32(in->regs_per_thread + i);
        v8u given = (v8u)(r != 0);
        bad |= (v8u)(r > p->reg_max_per_thread);
        r &= SPLAT(0xffff);
        v8u per_warp = ((r << p->warp_shift) + p->reg_unit_mask) >> p->reg_unit_shift;
        v8u per_block = (per_warp << p->reg_unit_shift) * ((t + p->reg_gran_mask) & ~SPLAT(p->reg_gran_mask));
        v8u warps_pp = div_small(SPLAT(p->rpp_units), per_warp | ((v8u)(per_warp == 0) & one));
        v8u lim = div_small(warps_pp * p->partitions, t_div);
        bad |= given & ((v8u)(per_block > p->reg_max_per_wg) | (v8u)(lim == 0));
        lim_regs = sel(given, lim, none);
    }
    v8u lim_bar = none;
    if (in->barrier)
        lim_bar = sel((v8u)(load_u8(in->barrier + i) != 0), SPLAT(p->barriers), none);
    v8u wgs = SPLAT(p->max_wgs);
    v8u resident = min_u(min_u(lim_threads, lim_slm), min_u(min_u(lim_regs, wgs), lim_bar));

    if (out->resident_wgs)
        store_u32(out->resident_wgs + i, resident);
    if (out->contexts_per_wg)
        store_u32(out->contexts_per_wg + i, t);
    if (out->contexts_per_core)
        store_u32(out->contexts_per_core + i, cpc);
    if (out->limited_by) {
        v8u by = ((v8u)(lim_threads == resident) & 1) | ((v8u)(lim_slm == resident) & 2) |
                 ((v8u)(lim_regs == resident) & 4) | ((v8u)(wgs == resident) & 8) |
                 ((v8u)(lim_bar == resident) & 16);
        store_u8(out->limited_by + i, by);
    }
    if (out->reason)
        memset(out->reason + i, OCC_REASON_NONE, LANES);
    if (out->occupancy) {
        v8u c = cpc | ((v8u)(cpc == 0) & one); /* cpc 0: a bad lane */
        v4d lo = occupancy_half(resident, t, c, 0), hi = occupancy_half(resident, t, c, 1);
        memcpy(out->occupancy + i, &lo, sizeof lo);
        memcpy(out->occupancy + i + 4, &hi, sizeof hi);
    }
    return lanes_set(bad);
}

/* ---- one kernel at a time: flagged lanes and the last n % 8 ------------------ */

static occ_kernel kernel_at(const occ_columns *in, size_t i)
{
    occ_kernel k;
    occ_kernel_init(&k);
    if (in->wg_x)
        k.wg[0] = in->wg_x[i];
    if (in->wg_y)
        k.wg[1] = in->wg_y[i];
    if (in->wg_z)
        k.wg[2] = in->wg_z[i];
    if (in->sub_group)
        k.sub_group = in->sub_group[i];
    if (in->slm_bytes)
        k.slm_bytes = in->slm_bytes[i];
    if (in->barrier)
        k.barrier = in->barrier[i] != 0;
    if (in->grf)
        k.grf = in->grf[i];
    if (in->regs_per_thread)
        k.regs_per_thread = in->regs_per_thread[i];
    if (in->carveout_pct)
        k.carveout_pct = in->carveout_pct[i];
    return k;
}

static void write_at(occ_eval_columns *out, size_t i, const occ_eval *e)
{
    if (out->resident_wgs)
        out->resident_wgs[i] = e->resident_wgs;
    if (out->occupancy)
        out->occupancy[i] = e->occupancy;
    if (out->limited_by)
        out->limited_by[i] = e->limited_by;
    if (out->reason)
        out->reason[i] = e->reason;
    if (out->contexts_per_wg)
        out->contexts_per_wg[i] = e->contexts_per_wg;
    if (out->contexts_per_core)
        out->contexts_per_core[i] = e->contexts_per_core;
}

/* A flagged lane: eval_fast.c's out-of-line path, which also answers a
 * kernel that launches (a lane flagged only for being out of the lanes'
 * range). */
__attribute__((noinline)) static void answer_flagged(const occ__fast *f, const occ_columns *in,
                                                     occ_eval_columns *out, size_t i)
{
    occ_kernel k = kernel_at(in, i);
    occ_eval e;
    occ__fast_cannot_launch_eval(f, &k, &e);
    write_at(out, i, &e);
}

/* One kernel as occ_evaluate answers it. */
static void answer_one(const occ__fast *f, const occ_columns *in, occ_eval_columns *out, size_t i)
{
    occ_kernel k = kernel_at(in, i);
    occ__launch o;
    occ_eval e;
    if (occ__evaluate_launch(f, &k, &o)) {
        e = (occ_eval){.resident_wgs = o.resident, .contexts_per_wg = o.t, .contexts_per_core = o.cpc,
                       .limited_by = (uint8_t)o.by, .reason = OCC_REASON_NONE, .occupancy = o.occupancy};
    } else {
        occ__fast_cannot_launch_eval(f, &k, &e);
    }
    write_at(out, i, &e);
}

/* ---- the loops, one per instruction set ------------------------------------------ */

/* The groups of eight, compiled for one combination of stages. */
#define GROUPS(YZ, SLM, REGS)                                                                      \
    for (size_t i = 0; i + LANES <= n; i += LANES) {                                               \
        unsigned flagged = group(p, in, out, i, YZ, SLM, REGS);                                    \
        while (__builtin_expect(flagged != 0, 0)) {                                                \
            answer_flagged(f, in, out, i + (size_t)__builtin_ctz(flagged));                        \
            flagged &= flagged - 1;                                                                \
        }                                                                                          \
    }

#define ALL_VARIANTS                                                                               \
    switch (variant) {                                                                             \
    case 0: GROUPS(false, false, false) break;                                                     \
    case 1: GROUPS(true, false, false) break;                                                      \
    case 2: GROUPS(false, true, false) break;                                                      \
    case 3: GROUPS(true, true, false) break;                                                       \
    case 4: GROUPS(false, false, true) break;                                                      \
    case 5: GROUPS(true, false, true) break;                                                       \
    case 6: GROUPS(false, true, true) break;                                                       \
    default: GROUPS(true, true, true) break;                                                       \
    }

static void groups_portable(const plan *p, const occ__fast *f, size_t n, const occ_columns *in,
                            occ_eval_columns *out, unsigned variant)
{
    ALL_VARIANTS
}

#if HAVE_AVX2_CLONE
__attribute__((target("avx2"))) static void groups_avx2(const plan *p, const occ__fast *f, size_t n,
                                                        const occ_columns *in, occ_eval_columns *out,
                                                        unsigned variant)
{
    ALL_VARIANTS
}
#endif
#undef ALL_VARIANTS
#undef GROUPS

bool occ__columns_have_avx2(void)
{
#if HAVE_AVX2_CLONE
    return __builtin_cpu_supports("avx2");
#else
    return false;
#endif
}

bool occ__eval_columns(const occ_device *dev, const occ__fast *f, size_t n, const occ_columns *in,
                       occ_eval_columns *out, occ__columns_isa isa)
{
    plan p;
    if (!plan_make(dev, f, &p))
        return false;
    unsigned variant = (in->wg_y || in->wg_z ? 1u : 0u) |
                       (in->slm_bytes || (in->carveout_pct && p.n_carve) ? 2u : 0u) |
                       (f->has_rf && in->regs_per_thread ? 4u : 0u);
    bool avx2 = isa == OCC__COLUMNS_AVX2 || (isa == OCC__COLUMNS_AUTO && occ__columns_have_avx2());
#if HAVE_AVX2_CLONE
    if (avx2)
        groups_avx2(&p, f, n, in, out, variant);
    else
        groups_portable(&p, f, n, in, out, variant);
#else
    (void)avx2;
    groups_portable(&p, f, n, in, out, variant);
#endif
    for (size_t i = n - n % LANES; i < n; i++)
        answer_one(f, in, out, i);
    return true;
}
