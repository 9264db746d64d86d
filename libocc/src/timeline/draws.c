/* Blocks of duration draws for the simulator: the values of occ__draw for
 * OCC__DRAW_BLOCK consecutive work-groups, bit for bit, computed many at a
 * time.
 *
 * Every lane does the same IEEE operations as occ__draw in the same order
 * (additions, multiplications, one division, all correctly rounded), so the
 * vector width does not change a result.  No fused multiply-add may be used:
 * the AVX2 copy is compiled for "avx2" only (not "fma"), and ISO C mode
 * (c_std=c11) does not contract expressions.  The rare draws that need more
 * (the normal's tails, through log and sqrt, and values <= 0) are listed
 * without a branch and finished one by one. */
#include "timeline/timeline_internal.h"

#include <math.h>
#include <string.h>

/* The normal's central part of the draws k .. k + 2 * LANES - 1 (two
 * vectors of the register width, whose chains of dependent operations
 * interleave: Horner's order may not change, it sets the rounding), and
 * their bits in *more (set: a tail or a value <= 0, the draw needs more).
 * MOVMSK gathers a comparison's sign bits. */
#define CENTRAL_TWO(VD, VL, LANES, MOVMSK, u, out, k, more)                                       \
    do {                                                                                           \
        VD p0, p1;                                                                                 \
        memcpy(&p0, (u) + (k), sizeof p0);                                                         \
        memcpy(&p1, (u) + (k) + (LANES), sizeof p1);                                               \
        VD q0 = p0 - 0.5, r0 = q0 * q0, q1 = p1 - 0.5, r1 = q1 * q1;                               \
        VD v0 = a + b * OCC__NORMAL_CENTRAL(q0, r0), v1 = a + b * OCC__NORMAL_CENTRAL(q1, r1);     \
        memcpy((out) + (k), &v0, sizeof v0);                                                       \
        memcpy((out) + (k) + (LANES), &v1, sizeof v1);                                             \
        VL m0 = (p0 < OCC__NORMAL_LOW) | (p0 > 1 - OCC__NORMAL_LOW) | (v0 <= 0);                   \
        VL m1 = (p1 < OCC__NORMAL_LOW) | (p1 > 1 - OCC__NORMAL_LOW) | (v1 <= 0);                   \
        (more)[(k) / 64] |= (uint64_t)(MOVMSK(m0) | MOVMSK(m1) << (LANES)) << ((k) % 64);          \
    } while (0)

typedef double v2d __attribute__((vector_size(16)));
typedef int64_t v2l __attribute__((vector_size(16)));
#if defined(__x86_64__) && defined(__GNUC__)
#define MOVMSK2(m) ((unsigned)__builtin_ia32_movmskpd((v2d)(m)))
#else
#define MOVMSK2(m) ((unsigned)(((m)[0] & 1) | ((m)[1] & 2)))
#endif

/* The draws that need more than the central part (bits of more): the
 * normal's tails as occ__normal_tail computes them, then the draws <= 0 one
 * by one.  Three passes, so that the long chains of the tails do not wait
 * behind the logarithm's calls: tails_begin lists the draws and takes the
 * logarithms and square roots one by one; TAILS_RATIONAL (in each copy's
 * vectors) the rational function of q; tails_end gives the side its sign
 * and keeps the value where the draw was a tail.  The side (lower or upper)
 * is picked by masks, not branches (each side is as likely). */
typedef struct tails {
    uint32_t redo[OCC__DRAW_BLOCK], n;
    uint64_t lower[OCC__DRAW_BLOCK];       /* all ones: the lower tail */
    double q[OCC__DRAW_BLOCK + 8];         /* sqrt(-2 log(side)); 1 past n */
    double x[OCC__DRAW_BLOCK + 8];         /* the rational function of q */
} tails;

static inline __attribute__((always_inline)) void tails_begin(const double *u,
                                                              const uint64_t *more, tails *T)
{
    T->n = 0;
    for (uint32_t w = 0; w < OCC__DRAW_BLOCK / 64; w++)
        for (uint64_t m = more[w]; m; m &= m - 1)
            T->redo[T->n++] = w * 64 + (uint32_t)__builtin_ctzll(m);
    for (uint32_t t = 0; t < T->n; t++) {
        double p = u[T->redo[t]], up = 1 - p;
        uint64_t pb, ub, lower = (uint64_t)0 - (uint64_t)(p < OCC__NORMAL_LOW);
        memcpy(&pb, &p, sizeof pb);
        memcpy(&ub, &up, sizeof ub);
        pb = (pb & lower) | (ub & ~lower);
        double side;
        memcpy(&side, &pb, sizeof side);
        T->q[t] = sqrt(-2 * log(side));
        T->lower[t] = lower;
    }
    for (uint32_t t = T->n; t < T->n + 8; t++)
        T->q[t] = 1; /* whole vectors: defined values, not used */
}

/* x = the tails' rational function of q, LANES at a time (VD: the copy's
 * vector of doubles), the operations of occ__normal_tail in its order. */
#define TAILS_RATIONAL(VD, LANES, T)                                                               \
    do {                                                                                           \
        for (uint32_t t_ = 0; t_ < (T)->n; t_ += (LANES)) {                                        \
            VD q_;                                                                                 \
            memcpy(&q_, (T)->q + t_, sizeof q_);                                                   \
            VD x_ = OCC__NORMAL_TAIL_RATIONAL(q_);                                                 \
            memcpy((T)->x + t_, &x_, sizeof x_);                                                   \
        }                                                                                          \
    } while (0)

static inline __attribute__((always_inline)) void tails_end(const occ_durations *d,
                                                            uint64_t mixed, uint64_t first,
                                                            const double *u, const tails *T,
                                                            double *out)
{
    const double a = d->a, b = d->b;
    for (uint32_t t = 0; t < T->n; t++) {
        uint32_t k = T->redo[t];
        double p = u[k], x = T->x[t];
        uint64_t lower = T->lower[t];
        uint64_t tail = lower | ((uint64_t)0 - (uint64_t)(p > 1 - OCC__NORMAL_LOW));
        uint64_t xb, sign = ~lower & 0x8000000000000000ull; /* upper: -x */
        memcpy(&xb, &x, sizeof xb);
        xb ^= sign;
        memcpy(&x, &xb, sizeof x);
        double v = a + b * x, o = out[k];
        uint64_t vb, ob;
        memcpy(&vb, &v, sizeof vb);
        memcpy(&ob, &o, sizeof ob);
        ob = (vb & tail) | (ob & ~tail);
        memcpy(&out[k], &ob, sizeof ob);
    }
    for (uint32_t t = 0; t < T->n; t++) {
        uint32_t k = T->redo[t];
        if (!(out[k] > 0)) /* drawn again, as occ__draw does */
            out[k] = occ__draw(d, mixed, first + k);
    }
}

#define NORMAL_FINISH(VD, LANES)                                                                   \
    do {                                                                                           \
        tails T_;                                                                                  \
        tails_begin(u, more, &T_);                                                                 \
        TAILS_RATIONAL(VD, LANES, &T_);                                                            \
        tails_end(d, mixed, first, u, &T_, out);                                                   \
    } while (0)

/* Any x86-64 (SSE2), or another processor: units one by one (64-bit
 * multiplications have no SSE2 instruction). */
static void draw_block_base(const occ_durations *d, uint64_t mixed, uint64_t first, double *out)
{
    if (d->kind == OCC_DURATIONS_UNIFORM) {
        const double a = d->a, span = d->b - d->a;
        for (uint32_t k = 0; k < OCC__DRAW_BLOCK; k++)
            out[k] = a + span * occ__unit(mixed, first + k, 0);
        return;
    }
    double u[OCC__DRAW_BLOCK];
    for (uint32_t k = 0; k < OCC__DRAW_BLOCK; k++)
        u[k] = occ__unit(mixed, first + k, 0);
    const double a = d->a, b = d->b;
    uint64_t more[OCC__DRAW_BLOCK / 64] = {0};
    for (uint32_t k = 0; k < OCC__DRAW_BLOCK; k += 4)
        CENTRAL_TWO(v2d, v2l, 2, MOVMSK2, u, out, k, more);
    NORMAL_FINISH(v2d, 2);
}

#if defined(__x86_64__) && defined(__GNUC__)
#define HAVE_AVX2_COPY 1
#define AVX2 __attribute__((target("avx2")))

typedef double v4d __attribute__((vector_size(32)));
typedef int64_t v4l __attribute__((vector_size(32)));
typedef uint64_t v4u __attribute__((vector_size(32)));
#define MOVMSK4(m) ((unsigned)__builtin_ia32_movmskpd256((v4d)(m)))

/* The generator's mixing of z (occ__unit's, on each lane), down to its top 53 bits. */
#define MIX53(z)                                                                                   \
    do {                                                                                           \
        (z) = ((z) ^ ((z) >> 30)) * 0xbf58476d1ce4e5b9ull;                                         \
        (z) = ((z) ^ ((z) >> 27)) * 0x94d049bb133111ebull;                                         \
        (z) = ((z) ^ ((z) >> 31)) >> 11;                                                           \
    } while (0)

/* occ__unit(mixed, i .. i + 3, 0), four lanes: x holds the generator's
 * inputs mixed + (i * 64 + 1) * golden.  The 53 bits of z become a double
 * exactly, as two exact halves (a 32-bit integer or'ed into 2^52's mantissa,
 * minus 2^52): AVX2 has no 64-bit integer conversion. */
static inline AVX2 v4d units4(v4u x)
{
    v4u z = x;
    MIX53(z);
    const v4u exp52 = {0x4330000000000000ull, 0x4330000000000000ull, 0x4330000000000000ull,
                       0x4330000000000000ull};
    const v4d two52 = {4503599627370496.0, 4503599627370496.0, 4503599627370496.0,
                       4503599627370496.0};
    v4u hi_bits = (z >> 32) | exp52, lo_bits = (z & 0xffffffffull) | exp52;
    v4d hi, lo;
    memcpy(&hi, &hi_bits, sizeof hi);
    memcpy(&lo, &lo_bits, sizeof lo);
    v4d y = ((hi - two52) * 4294967296.0) + (lo - two52); /* exact: below 2^53 */
    return (y + 0.5) * (1.0 / 9007199254740992.0);
}

/* A block, LANES at a time in vectors VD (doubles), VU (uint64_t) and VL
 * (their comparisons); UNITS makes the uniform units of a vector. */
#define DRAW_BLOCK(VD, VU, VL, LANES, MOVMSK, UNITS)                                               \
    do {                                                                                           \
        const uint64_t golden = 0x9e3779b97f4a7c15ull;                                             \
        VU x;                                                                                      \
        for (int l_ = 0; l_ < (LANES); l_++)                                                       \
            x[l_] = (uint64_t)l_;                                                                  \
        x = mixed + (first * 64 + 1) * golden + x * (64 * golden);                                 \
        const uint64_t step = (LANES) * 64 * golden;                                               \
        if (d->kind == OCC_DURATIONS_UNIFORM) {                                                    \
            const double a = d->a, span = d->b - d->a;                                            \
            for (uint32_t k = 0; k < OCC__DRAW_BLOCK; k += 2 * (LANES), x += 2 * step) {           \
                VD v0 = a + span * UNITS(x), v1 = a + span * UNITS(x + step);                      \
                memcpy(out + k, &v0, sizeof v0);                                                   \
                memcpy(out + k + (LANES), &v1, sizeof v1);                                         \
            }                                                                                      \
            return;                                                                                \
        }                                                                                          \
        double u[OCC__DRAW_BLOCK];                                                                 \
        for (uint32_t k = 0; k < OCC__DRAW_BLOCK; k += 2 * (LANES), x += 2 * step) {               \
            VD p0 = UNITS(x), p1 = UNITS(x + step);                                                \
            memcpy(u + k, &p0, sizeof p0);                                                         \
            memcpy(u + k + (LANES), &p1, sizeof p1);                                               \
        }                                                                                          \
        const double a = d->a, b = d->b;                                                           \
        uint64_t more[OCC__DRAW_BLOCK / 64] = {0};                                                 \
        for (uint32_t k = 0; k < OCC__DRAW_BLOCK; k += 2 * (LANES))                                \
            CENTRAL_TWO(VD, VL, LANES, MOVMSK, u, out, k, more);                                   \
        NORMAL_FINISH(VD, LANES);                                                                  \
    } while (0)

static AVX2 void draw_block_avx2(const occ_durations *d, uint64_t mixed, uint64_t first,
                                 double *out)
{
    DRAW_BLOCK(v4d, v4u, v4l, 4, MOVMSK4, units4);
}

/* With AVX-512 (F and DQ): eight lanes of 512 bits, whose 64-bit
 * multiplications and conversion to double are one instruction each, where
 * AVX2 builds them from 32-bit parts (z < 2^53 converts exactly, so every
 * value is units4's).  Eight lanes rather than four also halve the
 * instructions that wait in the scheduler on the normal's long chains
 * (Horner's steps and a division). */
#define AVX512 __attribute__((target("avx2,avx512f,avx512dq")))

typedef double v8d __attribute__((vector_size(64)));
typedef int64_t v8l __attribute__((vector_size(64)));
typedef uint64_t v8u __attribute__((vector_size(64)));
typedef long long v8ll __attribute__((vector_size(64))); /* the builtin's own type */
#define MOVMSK8(m) ((unsigned)__builtin_ia32_cvtq2mask512((v8ll)(m)))

static inline AVX512 v8d units8(v8u x)
{
    v8u z = x;
    MIX53(z);
    return (__builtin_convertvector(z, v8d) + 0.5) * (1.0 / 9007199254740992.0);
}

static AVX512 void draw_block_avx512(const occ_durations *d, uint64_t mixed, uint64_t first,
                                     double *out)
{
    DRAW_BLOCK(v8d, v8u, v8l, 8, MOVMSK8, units8);
}
#endif

occ__draw_copy occ__draw_block_best(void)
{
#ifdef HAVE_AVX2_COPY
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("avx512f") &&
        __builtin_cpu_supports("avx512dq"))
        return OCC__DRAW_AVX512;
    if (__builtin_cpu_supports("avx2"))
        return OCC__DRAW_AVX2;
#endif
    return OCC__DRAW_BASE;
}

void occ__draw_block(const occ_durations *d, uint64_t mixed, uint64_t first, occ__draw_copy copy,
                     double *out)
{
#ifdef HAVE_AVX2_COPY
    if (copy == OCC__DRAW_AVX512) {
        draw_block_avx512(d, mixed, first, out);
        return;
    }
    if (copy == OCC__DRAW_AVX2) {
        draw_block_avx2(d, mixed, first, out);
        return;
    }
#endif
    draw_block_base(d, mixed, first, out);
}
