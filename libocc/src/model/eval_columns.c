/* The column batch, several kernels per instruction (eval_columns.h).
 *
 * eval_fast.h answers one kernel with table look-ups and reciprocal
 * multiplications; here the same stages run on lanes (GCC / Clang vector
 * extensions, eval_columns_lanes.h): 8 lanes of AVX2 when the CPU has it,
 * else 4 lanes of the baseline's 16-byte vectors (SSE2 on x86-64, NEON on
 * ARM, the compiler's generic code elsewhere).  What changes per stage:
 *   - the rule's tables (eval_fast.h), read by gathers (AVX2) or lane by
 *     lane: the GRF mode of a request and its contexts per core, the local
 *     memory's allocation, the core's size for a preference and for an
 *     allocation; the sub-group size is compared with the device's sizes;
 *   - ceil(W / sg) for a power of two as (W - 1) times 1 / sg in float,
 *     exact for W < 2^24 (1 / sg is sg's float with the exponent negated);
 *   - divisions floor(a / b) for a, b < 2^16 as a float division and a
 *     truncation, which is exact when a + b < 2^24 (the quotient's rounding
 *     error is below 2^-24 relative, and a quotient that is not an integer
 *     is at least 1 / b from the next one: b (k + 1) <= a + b < 2^24);
 *     with registers, the two quotients by the contexts per work-group share
 *     one reciprocal, nudged up (recip_up, mul_floor), and the register
 *     check and the warps a core holds by registers are one look-up in the
 *     rule's register table;
 *   - the occupancy is the scalar path's double division, correctly rounded
 *     in both;
 *   - the rule's kernel row (the kernel's launch bound, required work-group
 *     and sub-group sizes: columns of occ_columns that the struct batches
 *     leave to the rule) as three more checks, the required sub-group size
 *     also standing in for a sub-group of 0;
 *   - every lane gets a "bad" flag when the scalar path's checks fail (it
 *     cannot launch) or an input is outside what the lanes compute exactly
 *     (a work-group dimension or a size past 2^24, local memory past 2^31)
 *     or that they do not compute (a vendor field: AMD's SGPRs, CU mode);
 *     flagged lanes are answered by the rule (rule.c), and the last n % 4 or
 *     n % 8 kernels by eval_fast.h's inline path.
 * A lane whose input is out of range computes garbage, never undefined
 * behaviour (unsigned wrap, divisors kept >= 1, float values kept in int
 * range); the flag throws it away.
 * Columns the caller leaves NULL are constants, so the loop is compiled once
 * per combination of the four stages that cost most (work-group dimensions
 * y and z, local memory and carveout, registers, the kernel's constraints and
 * vendor fields: a caller without them pays nothing), and a stage whose columns
 * are all NULL is computed once per device (plan_make, with the device's
 * tables).  The struct batches (occ_evaluate_batch, occ_residency_batch)
 * run on the same lanes: see "kernels as structs" below. */
#include "model/eval_columns.h"
#include "model/rule.h"

#include <stddef.h>
#include <string.h>

#include "occ/advise.h"

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define HAVE_AVX2_CLONE 1
#include <immintrin.h> /* every intrinsic, usable under a target pragma */
#else
#define HAVE_AVX2_CLONE 0
#endif
/* Shuffles that keep values in registers: GCC 12 and Clang have
 * __builtin_shufflevector; without it, unions (which GCC passes through the
 * stack: correct, slower). */
#if defined(__has_builtin)
#if __has_builtin(__builtin_shufflevector)
#define HAVE_SHUFFLEVECTOR 1
#endif
#endif


typedef uint32_t v8u __attribute__((vector_size(32)));
typedef int32_t v8i __attribute__((vector_size(32)));
typedef float v8f __attribute__((vector_size(32)));
typedef uint32_t v4u __attribute__((vector_size(16)));
typedef int32_t v4i __attribute__((vector_size(16)));
typedef uint64_t v4q __attribute__((vector_size(32)));
typedef double v4d __attribute__((vector_size(32)));
typedef uint8_t v8b __attribute__((vector_size(8)));
typedef uint8_t v32b __attribute__((vector_size(32)));
typedef float v4f __attribute__((vector_size(16)));
typedef int32_t v2i __attribute__((vector_size(8)));
typedef double v2d __attribute__((vector_size(16)));
typedef uint8_t v4b __attribute__((vector_size(4)));

#define INLINE static inline __attribute__((always_inline))
#define NL OCC_NO_LIMIT

/* What a call needs of the device, read once from its description and tables. */
typedef struct plan {
    const occ__fast *f;                 /* the rule's tables, which the lanes read by gathers */
    uint32_t max_wg;                    /* < 2^24 */
    uint32_t n_sg, sg[OCC_MAX_SUB_GROUP_SIZES], sg_shift[OCC_MAX_SUB_GROUP_SIZES];
    uint32_t default_grf, cpc0;         /* contexts per core in the default mode */
    uint32_t slm_max, slm_reserved, slm_unit_mask, slm_shift;
    bool steps;                         /* allocation by steps, else by granule */
    uint32_t n_carve;                   /* a carveout column matters only with carveouts */
    uint32_t lim_slm0;                  /* the local-memory limit of no local memory, preference -1 */
    uint32_t alloc0, config0_full;      /* its allocation and core size (bytes) */
    uint32_t grf0;                      /* the default GRF mode's registers */
    uint32_t barriers;
    bool ok;                            /* the lanes cover the device (plan_make) */
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
        ok &= d->sub_group_sizes[i] <= 64 && is_pow2(d->sub_group_sizes[i]);
        p->sg[i] = d->sub_group_sizes[i];
        p->sg_shift[i] = ok ? log2_u32(p->sg[i]) : 0;
    }
    p->f = f;
    p->default_grf = d->default_grf;
    uint32_t mode0 = f->grf_info[f->default_grf]; /* contexts < 2^16: occ__fast_init */
    p->cpc0 = mode0 & 0xffff;
    p->grf0 = mode0 >> 16;
    ok &= p->cpc0 != 0;

    /* local memory: sizes below 2^31, in units below 2^16 (exact divisions) */
    uint64_t unit = d->slm_granule ? d->slm_granule : 1024;
    ok &= d->slm_max_per_work_group + d->slm_reserved_per_work_group + unit < (1ull << 31) && is_pow2(unit) &&
          d->slm_per_core < (1ull << 31) && (d->slm_per_core / unit) < 65536;
    p->slm_max = (uint32_t)d->slm_max_per_work_group;
    p->slm_reserved = (uint32_t)d->slm_reserved_per_work_group;
    p->slm_unit_mask = (uint32_t)(unit - 1);
    p->slm_shift = f->slm_shift;
    p->steps = f->slm_steps;
    p->n_carve = d->n_carveouts;
    p->barriers = f->barriers;
    /* the local-memory limit when no column sets local memory or a preference */
    occ_kernel k;
    occ__default_kernel(&k);
    occ__launch o;
    ok &= occ__evaluate_launch(f, &k, &o);
    p->lim_slm0 = o.lim[OCC_RES_SLM];
    p->alloc0 = (uint32_t)o.alloc;
    p->config0_full = (uint32_t)o.config;
    return ok;
}

size_t occ__columns_plan_size(void) { return (sizeof(plan) + 63) & ~(size_t)63; }

void occ__columns_plan_init(const occ_device *dev, occ__fast *f, void *mem)
{
    plan *p = mem;
    f->plan_offset = (uint32_t)((char *)mem - (char *)f);
    p->ok = f->usable && plan_make(dev, f, p); /* (plan_make clears *p first) */
}

/* The plan made with the tables f. */
static const plan *plan_of(const occ__fast *f)
{
    return (const plan *)(const void *)((const char *)f + f->plan_offset);
}

/* ---- one kernel at a time: flagged lanes and the last n % 8 ------------------ */

occ_kernel occ__columns_kernel(const occ_columns *in, size_t i)
{
    occ_kernel k;
    occ__default_kernel(&k);
    /* the 32-bit fields, each column into its field where given */
    const uint32_t *const col[] = {in->wg_x, in->wg_y, in->wg_z, in->sub_group, in->grf, in->regs_per_thread,
                                   in->max_wg_size, in->reqd_wg_x, in->reqd_wg_y, in->reqd_wg_z,
                                   in->reqd_sub_group, in->sgprs, in->cu_mode};
    uint32_t *const field[] = {&k.wg[0], &k.wg[1], &k.wg[2], &k.sub_group, &k.grf, &k.regs_per_thread,
                               &k.max_wg_size, &k.reqd_wg[0], &k.reqd_wg[1], &k.reqd_wg[2],
                               &k.reqd_sub_group, &k.sgprs, &k.cu_mode};
    _Static_assert(sizeof col == sizeof field, "a column for each field");
    for (size_t j = 0; j < sizeof col / sizeof *col; j++)
        if (col[j])
            *field[j] = col[j][i];
    if (in->slm_bytes)
        k.slm_bytes = in->slm_bytes[i];
    if (in->barrier)
        k.barrier = in->barrier[i] != 0;
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
    occ_kernel k = occ__columns_kernel(in, i);
    occ_eval e;
    occ__fast_cannot_launch_eval(f, &k, &e);
    write_at(out, i, &e);
}

/* One kernel as occ_evaluate answers it (a kernel the tables decline, with
 * constraints or vendor fields: the rule's answer). */
static void answer_one(const occ__fast *f, const occ_columns *in, occ_eval_columns *out, size_t i)
{
    occ_kernel k = occ__columns_kernel(in, i);
    occ__launch o;
    occ_eval e;
    if (!occ__fast_declines(&k) && occ__evaluate_launch(f, &k, &o)) {
        e = (occ_eval){.resident_wgs = o.resident, .contexts_per_wg = o.t, .contexts_per_core = o.cpc,
                       .limited_by = (uint8_t)o.by, .reason = OCC_REASON_NONE, .occupancy = o.occupancy};
    } else {
        occ__fast_cannot_launch_eval(f, &k, &e);
    }
    write_at(out, i, &e);
}

/* ---- kernels as structs: stages of 64 ---------------------------------------------- */

/* occ_evaluate_batch and occ_residency_batch take structs (occ_kernel).  The
 * lanes read them as they are, NLANES kernels by 4 x 4 transposes of their
 * 16-byte rows (load_structs), and write each answer in place the same way.
 * First, for each STAGE kernels, which fields any of them sets: a field
 * every kernel of the stage leaves at its default is treated as a NULL
 * column of occ_evaluate_columns, and the lanes skip its stage (a tuner's
 * batch mostly varies a few fields). */
#define STAGE 64 /* the flagged kernels of a stage are one 64-bit mask */

/* A stage's last group where the caller's arrays end within it: its
 * kernels padded with defaults, and its answers. */
typedef struct stage {
    occ_kernel pad[8];
    occ_residency tail[8];
    occ_eval tail_evals[8];
} stage;

/* Where group() writes its answers. */
enum { TO_COLUMNS, TO_EVALS, TO_REPORTS };

/* occ_eval as group() writes it: four 32-bit words (the last the two bytes
 * limited_by and reason, then unused), then the occupancy. */
_Static_assert(offsetof(occ_eval, limited_by) == 12 && offsetof(occ_eval, reason) == 13 &&
                   offsetof(occ_eval, occupancy) == 16 && sizeof(occ_eval) == 24,
               "occ_eval's layout changed: update group()");

/* Which fields of kernels ks[0..m) are not all at their default
 * (occ_kernel_init's), and whether any has a struct_size too small. */
enum { F_YZ = 1, F_SG = 2, F_GRF = 4, F_REGS = 8, F_BAR = 16, F_CARVE = 32, F_SLM = 64,
       F_BAD_SIZE = 128, /* a kernel's struct_size is too small */
       F_PAST = 256 /* a kernel sets a field the fast paths do not read (eval_fast.h) */ };

#if defined(__SSE2__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* occ_kernel as three 16-byte rows: {struct_size, wg[3]}, {sub_group, padding,
 * slm_bytes}, {barrier and padding, grf, regs_per_thread, carveout_pct}. */
_Static_assert(OCC__FAST_KERNEL_BYTES == 48 && offsetof(occ_kernel, sub_group) == 16 &&
                   offsetof(occ_kernel, slm_bytes) == 24 && offsetof(occ_kernel, barrier) == 32 &&
                   offsetof(occ_kernel, grf) == 36 && offsetof(occ_kernel, regs_per_thread) == 40 &&
                   offsetof(occ_kernel, carveout_pct) == 44 && sizeof(bool) == 1,
               "occ_kernel's layout changed: update stage_fields");
#define STAGE_FIELDS_SSE2 1
#endif

static unsigned stage_fields(const occ_kernel *ks, size_t m)
{
    uint32_t a[12];
#ifdef STAGE_FIELDS_SSE2
    /* the rows XOR their defaults, ORed together: three loads a kernel */
    const __m128i d0 = _mm_setr_epi32(0, 0, 1, 1), d2 = _mm_setr_epi32(0, 0, 0, -1);
    /* struct_size < sizeof, unsigned, as a signed comparison of both with the top bit flipped */
    const __m128i top = _mm_set1_epi32(INT32_MIN), min_size = _mm_set1_epi32((int32_t)(sizeof *ks ^ 0x80000000u));
    __m128i r0 = _mm_setzero_si128(), r1 = r0, r2 = r0, small = r0;
    for (size_t i = 0; i < m; i++) {
        const __m128i *row = (const __m128i *)(const void *)&ks[i];
        __m128i first = _mm_loadu_si128(row);
        small = _mm_or_si128(small, _mm_cmpgt_epi32(min_size, _mm_xor_si128(first, top)));
        r0 = _mm_or_si128(r0, _mm_xor_si128(first, d0));
        r1 = _mm_or_si128(r1, _mm_loadu_si128(row + 1));
        r2 = _mm_or_si128(r2, _mm_xor_si128(_mm_loadu_si128(row + 2), d2));
    }
    _mm_storeu_si128((__m128i *)(void *)a, r0);
    _mm_storeu_si128((__m128i *)(void *)(a + 4), r1);
    _mm_storeu_si128((__m128i *)(void *)(a + 8), r2);
    a[8] &= 0xff; /* the barrier's byte, not its padding */
    a[0] = (uint32_t)_mm_cvtsi128_si32(small); /* lane 0: struct_size's */
#else
    memset(a, 0, sizeof a);
    for (size_t i = 0; i < m; i++) {
        const occ_kernel *k = &ks[i];
        a[0] |= k->struct_size < sizeof *k;
        a[2] |= k->wg[1] ^ 1u, a[3] |= k->wg[2] ^ 1u, a[4] |= k->sub_group;
        a[6] |= (uint32_t)k->slm_bytes, a[7] |= (uint32_t)(k->slm_bytes >> 32);
        a[8] |= k->barrier, a[9] |= k->grf, a[10] |= k->regs_per_thread, a[11] |= (uint32_t)k->carveout_pct + 1u;
    }
#endif
    unsigned past = 0;
    for (size_t i = 0; sizeof *ks > OCC__FAST_KERNEL_BYTES && i < m; i++)
        past |= occ__fast_declines(&ks[i]);
    return (past ? F_PAST : 0u) | (a[0] ? F_BAD_SIZE : 0u) | (a[2] | a[3] ? F_YZ : 0u) | (a[4] ? F_SG : 0u) |
           (a[6] | a[7] ? F_SLM : 0u) | (a[8] ? F_BAR : 0u) | (a[9] ? F_GRF : 0u) | (a[10] ? F_REGS : 0u) |
           (a[11] ? F_CARVE : 0u);
}

/* The fields kernels ks[0..m) set (fl, stage_fields'), as occ_columns: a
 * field's pointer is a marker (never read) when any kernel sets it, NULL
 * when none does; and the variant of the lanes they need (as
 * occ__eval_columns).  When m is not a whole number of groups of nlanes (m8
 * is), the last group's kernels into s->pad, then defaults. */
static occ_columns stage_in(const plan *p, const occ__fast *f, const occ_kernel *ks, unsigned fl, size_t m,
                            size_t m8, size_t nlanes, stage *s, unsigned *variant)
{
    for (size_t i = 0, last = m8 - nlanes; m < m8 && i < nlanes; i++) {
        if (last + i < m)
            s->pad[i] = ks[last + i];
        else
            occ__default_kernel(&s->pad[i]);
    }
    const void *mark = ks;
    occ_columns in = {.struct_size = sizeof in};
    in.wg_x = mark;
    in.wg_y = fl & F_YZ ? mark : NULL;
    in.wg_z = fl & F_YZ ? mark : NULL;
    in.sub_group = fl & F_SG ? mark : NULL;
    in.grf = fl & F_GRF ? mark : NULL;
    in.regs_per_thread = fl & F_REGS ? mark : NULL;
    in.carveout_pct = fl & F_CARVE ? mark : NULL;
    in.slm_bytes = fl & F_SLM ? mark : NULL;
    in.barrier = fl & F_BAR ? mark : NULL;
    *variant = (fl & F_YZ ? 1u : 0u) | (fl & F_SLM || (fl & F_CARVE && p->n_carve) ? 2u : 0u) |
               (f->has_rf && fl & F_REGS ? 4u : 0u);
    return in;
}

/* The kernels the lanes left to the scalar code (flagged, bit i: ks[i]),
 * into es or rs, the one not NULL. */
static void answer_flagged_structs(const occ__fast *f, const occ_kernel *ks, occ_eval *es, occ_residency *rs,
                                   uint64_t flagged)
{
    for (; flagged; flagged &= flagged - 1) {
        size_t i = (size_t)__builtin_ctzll(flagged);
        if (rs) /* refused, or past the lanes' range: the rule's */
            occ__fast_cannot_launch(f, &ks[i], &rs[i]);
        else
            occ__fast_cannot_launch_eval(f, &ks[i], &es[i]);
    }
}

/* ---- the lanes, once per instruction set ----------------------------------------- */

#define SPLAT(x) ((VU){0} + (uint32_t)(x))

/* four lanes of 16 bytes: the baseline's own vectors */
#define ISA(name) name##_portable
#define NLANES 4
#define VU v4u
#define VI v4i
#define VF v4f
#define VIH v2i
#define VD v2d
#define VB v4b
#include "model/eval_columns_lanes.h" /* it #undefs its parameters */

#if HAVE_AVX2_CLONE
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2")
#endif
#define ISA(name) name##_avx2
#define NLANES 8
#define VU v8u
#define VI v8i
#define VF v8f
#define VIH v4i
#define VD v4d
#define VB v8b
#include "model/eval_columns_lanes.h" /* it #undefs its parameters */
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
#endif

bool occ__columns_have_avx2(void)
{
#if HAVE_AVX2_CLONE
    return __builtin_cpu_supports("avx2");
#else
    return false;
#endif
}

bool occ__eval_columns(const occ__fast *f, size_t n, const occ_columns *in,
                       occ_eval_columns *out, occ__columns_isa isa)
{
    if (n < 8) { /* no whole group of eight: not worth the plan */
        for (size_t i = 0; i < n; i++)
            answer_one(f, in, out, i);
        return true;
    }
    const plan *p = plan_of(f);
    if (!p->ok)
        return false;
    bool constrained = in->max_wg_size || in->reqd_wg_x || in->reqd_sub_group || in->sgprs || in->cu_mode;
    unsigned variant = (in->wg_y || in->wg_z ? 1u : 0u) |
                       (in->slm_bytes || (in->carveout_pct && p->n_carve) ? 2u : 0u) |
                       (f->has_rf && in->regs_per_thread ? 4u : 0u) | (constrained ? 8u : 0u);
    bool avx2 = isa == OCC__COLUMNS_AVX2 || (isa == OCC__COLUMNS_AUTO && occ__columns_have_avx2());
    size_t done;
#if HAVE_AVX2_CLONE
    done = avx2 ? groups_avx2(p, f, n, in, out, variant) : groups_portable(p, f, n, in, out, variant);
#else
    (void)avx2;
    done = groups_portable(p, f, n, in, out, variant);
#endif
    for (size_t i = done; i < n; i++) /* the last n % 4 or n % 8 */
        answer_one(f, in, out, i);
    return true;
}

/* Kernels as structs through the lanes where they cover the device, else
 * one by one (eval_fast.h): es or rs, the one not NULL, gets the answers.
 * Stops before the first kernel whose struct_size is too small; returns how
 * many were answered. */
static size_t structs_any(const occ__fast *f, size_t n, const occ_kernel *ks, occ_eval *es,
                          occ_residency *rs, occ__columns_isa isa)
{
    const plan *p = plan_of(f);
    if (n < 16 || !p->ok) { /* a few kernels: one by one */
        size_t good = occ__kernels_valid(ks, n);
        if (rs)
            occ__fast_residency_n(f, ks, rs, good);
        else
            occ__fast_eval_n(f, ks, es, good);
        return good;
    }
    stage s;
    bool avx2 = isa == OCC__COLUMNS_AVX2 || (isa == OCC__COLUMNS_AUTO && occ__columns_have_avx2());
#if HAVE_AVX2_CLONE
    if (avx2)
        return structs_avx2(p, f, n, ks, es, rs, &s);
    return structs_portable(p, f, n, ks, es, rs, &s);
#else
    (void)avx2;
    return structs_portable(p, f, n, ks, es, rs, &s);
#endif
}

size_t occ__eval_structs(const occ__fast *f, size_t n, const occ_kernel *ks, occ_eval *es,
                         occ__columns_isa isa)
{
    return structs_any(f, n, ks, es, NULL, isa);
}

size_t occ__residency_structs(const occ__fast *f, size_t n, const occ_kernel *ks,
                              occ_residency *rs, occ__columns_isa isa)
{
    return structs_any(f, n, ks, NULL, rs, isa);
}
