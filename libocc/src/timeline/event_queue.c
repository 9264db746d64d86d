/* The dispatch simulator's queue of pending retirements: the parts that run
 * once per bucket or seldom (the structure is described in event_queue.h). */
#include "timeline/event_queue.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "timeline/timeline_internal.h" /* occ__draw_block_avx2_available */

#ifndef EVQ_PER_BUCKET
#define EVQ_PER_BUCKET 8 /* events per bucket wanted: ranking costs O(per bucket) each */
#endif

/* ---- ranking a bucket ----------------------------------------------------------------
 * Each of t[0 .. k-1] goes to out[rank], rank = how many of the bucket's 16
 * lanes are smaller (lanes past k hold +inf, smaller than nothing): one
 * comparison of the lane against all 16 at once, the bits counted.  Returns a
 * bit per rank taken: equal times share a rank, which the caller sees and
 * sorts the slow way. */

/* W: the vector width in lanes (2 or 4).  Without equal times the lanes are
 * +inf again after (the bucket is empty); with them, unchanged. */
#define RANK_ONE(x, m)                                                                             \
    do {                                                                                           \
        uint32_t at = (uint32_t)__builtin_popcount(m);                                             \
        out_t[at] = (x);                                                                           \
        out_p[at] = p[i];                                                                          \
        seen |= 1u << at;                                                                          \
    } while (0)

#define RANK_BODY(VD, W, MOVMSK)                                                                   \
    do {                                                                                           \
        const VD zero = {0}, inf = zero + INFINITY;                                                \
        VD l[16 / (W)];                                                                            \
        for (uint32_t v = 0; v < 8 / (W); v++) /* unrolled: constant count */                      \
            memcpy(&l[v], t + v * (W), sizeof l[v]);                                               \
        uint32_t seen = 0;                                                                         \
        if (k <= 8) { /* the common case: half the lanes */                                        \
            for (uint32_t i = 0; i < k; i++) {                                                     \
                VD b = zero + t[i]; /* -0 becomes +0: equal to it */                               \
                uint32_t m = 0;                                                                    \
                for (uint32_t v = 0; v < 8 / (W); v++)                                             \
                    m |= MOVMSK(l[v] < b) << v * (W);                                              \
                RANK_ONE(b[0], m);                                                                 \
            }                                                                                      \
            if (seen == (1u << k) - 1)                                                             \
                for (uint32_t v = 0; v < 8 / (W); v++)                                             \
                    memcpy(t + v * (W), &inf, sizeof inf);                                         \
            return seen;                                                                           \
        }                                                                                          \
        for (uint32_t v = 8 / (W); v < 16 / (W); v++)                                              \
            memcpy(&l[v], t + v * (W), sizeof l[v]);                                               \
        for (uint32_t i = 0; i < k; i++) {                                                         \
            VD b = zero + t[i];                                                                    \
            uint32_t m = 0;                                                                        \
            for (uint32_t v = 0; v < 16 / (W); v++)                                                \
                m |= MOVMSK(l[v] < b) << v * (W);                                                  \
            RANK_ONE(b[0], m);                                                                     \
        }                                                                                          \
        if (seen == (1u << k) - 1)                                                                 \
            for (uint32_t v = 0; v < 16 / (W); v++)                                                \
                memcpy(t + v * (W), &inf, sizeof inf);                                             \
        return seen;                                                                               \
    } while (0)

#if defined(__x86_64__) && defined(__GNUC__)
typedef double v2d __attribute__((vector_size(16)));
typedef double v4d __attribute__((vector_size(32)));
#define MOVMSK2(m) ((uint32_t)__builtin_ia32_movmskpd((v2d)(m)))
#define MOVMSK4(m) ((uint32_t)__builtin_ia32_movmskpd256((v4d)(m)))
#define HAVE_AVX2_COPY 1

static __attribute__((optimize("unroll-loops"))) uint32_t
rank16_base(double *t, const uint64_t *p, uint32_t k, double *out_t, uint64_t *out_p)
{
    RANK_BODY(v2d, 2, MOVMSK2);
}

static __attribute__((target("avx2,popcnt"), optimize("unroll-loops"))) uint32_t
rank16_avx2(double *t, const uint64_t *p, uint32_t k, double *out_t, uint64_t *out_p)
{
    RANK_BODY(v4d, 4, MOVMSK4);
}
#else
static uint32_t rank16_base(double *t, const uint64_t *p, uint32_t k, double *out_t,
                            uint64_t *out_p)
{
    uint32_t seen = 0;
    for (uint32_t i = 0; i < k; i++) {
        uint32_t at = 0;
        for (uint32_t j = 0; j < k; j++)
            at += t[j] < t[i];
        out_t[at] = t[i];
        out_p[at] = p[i];
        seen |= 1u << at;
    }
    if (seen == (1u << k) - 1)
        for (uint32_t i = 0; i < 16; i++)
            t[i] = INFINITY;
    return seen;
}
#endif

static inline uint32_t rank16(bool avx2, double *t, const uint64_t *p, uint32_t k,
                              double *out_t, uint64_t *out_p)
{
#ifdef HAVE_AVX2_COPY
    if (avx2)
        return rank16_avx2(t, p, k, out_t, out_p);
#endif
    (void)avx2;
    return rank16_base(t, p, k, out_t, out_p);
}

/* ---- the present bucket ----------------------------------------------------------- */

/* An event for the present bucket or an earlier time: into cur, before the
 * first event not earlier (so first among equal times: the newest). */
static void cur_insert(occ__evq *q, double time, uint64_t pay)
{
    double *t = q->cur_t;
    uint64_t *p = q->cur_p;
    if (q->cn + 2 > q->room + OCC__EVQ_CAP + 2) { /* used-up slots in front: drop them */
        uint32_t live = q->cn - q->ci;
        memmove(t, t + q->ci, (live + 1) * sizeof *t);
        memmove(p, p + q->ci, live * sizeof *p);
        q->ci = 0;
        q->cn = live;
    }
    uint32_t at = q->ci;
    while (t[at] < time) /* the +inf at cn ends it */
        at++;
    if (q->ci > 0 && at - q->ci <= q->cn - at) { /* move the earlier ones back a slot */
        uint32_t lo = q->ci - 1;
        memmove(t + lo, t + q->ci, (at - q->ci) * sizeof *t);
        memmove(p + lo, p + q->ci, (at - q->ci) * sizeof *p);
        q->ci = lo;
        at--;
    } else { /* the later ones and the +inf forward a slot */
        memmove(t + at + 1, t + at, (q->cn + 1 - at) * sizeof *t);
        memmove(p + at + 1, p + at, (q->cn - at) * sizeof *p);
        q->cn++;
    }
    t[at] = time;
    p[at] = pay;
}

/* Sort the n events (tt, tp), in arrival order, into cur: by time, the last
 * arrived first among equal times.  Reversed, ties are in order, and a stable
 * sort by time finishes (all times equal, or already in order: one pass). */
static void sort_into_cur(occ__evq *q, const double *tt, const uint64_t *tp, uint32_t n)
{
    double *t = q->cur_t;
    uint64_t *p = q->cur_p;
    for (uint32_t i = 0; i < n; i++) {
        t[i] = tt[n - 1 - i];
        p[i] = tp[n - 1 - i];
    }
    bool sorted = true;
    for (uint32_t i = 1; i < n && sorted; i++)
        sorted = t[i - 1] <= t[i];
    if (!sorted) /* stable insertion sort: rare, and buckets are short */
        for (uint32_t i = 1; i < n; i++) {
            double x = t[i];
            uint64_t y = p[i];
            uint32_t j = i;
            for (; j > 0 && t[j - 1] > x; j--) {
                t[j] = t[j - 1];
                p[j] = p[j - 1];
            }
            t[j] = x;
            p[j] = y;
        }
    t[n] = INFINITY;
    q->ci = 0;
    q->cn = n;
}

/* ---- the slow cases ---------------------------------------------------------------- */

void occ__evq_place_slow(occ__evq *q, double time, uint64_t pay, uint64_t key)
{
    if (key <= q->cur_key) {
        cur_insert(q, time, pay);
        return;
    }
    if (key - q->cur_key > q->mask) /* a lap or more ahead */
        q->far_min = key < q->far_min ? key : q->far_min;
    else /* its bucket is full */
        q->bn[(uint32_t)key & q->mask]++;
    q->ovf[q->ovf_n++] = (occ__evq_far){time, pay, key};
}

bool occ__evq_grow(occ__evq *q)
{
    size_t room = q->room ? 2 * q->room : 64;
    if (room + OCC__EVQ_CAP + 2 > UINT32_MAX)
        return false;
    size_t cur = room + OCC__EVQ_CAP + 2; /* a bucket's 16 lanes and the +inf fit too */
    double *t = realloc(q->cur_t, cur * sizeof *t);
    if (!t)
        return false;
    q->cur_t = t;
    uint64_t *p = realloc(q->cur_p, cur * sizeof *p);
    if (!p)
        return false;
    q->cur_p = p;
    t = realloc(q->gat_t, room * sizeof *t);
    if (!t)
        return false;
    q->gat_t = t;
    p = realloc(q->gat_p, room * sizeof *p);
    if (!p)
        return false;
    q->gat_p = p;
    occ__evq_far *f = realloc(q->ovf, room * sizeof *f);
    if (!f)
        return false;
    q->ovf = f;
    q->room = room;
    return true;
}

/* The bucket of key K and the events of ovf whose key is K (they arrived
 * after the bucket's), sorted into cur; the far events of ovf now within a
 * lap move to their buckets, in arrival order, while there is room (a bucket
 * that comes within a lap is empty, so they come before any later event;
 * past its room they stay, counted by it).  `before`: the present key before
 * this one (an event of ovf was far if a lap or more after it). */
static void gather_with_ovf(occ__evq *q, uint64_t K, uint64_t before)
{
    const uint64_t B = (uint64_t)q->mask + 1;
    uint32_t b = (uint32_t)K & q->mask;
    double *bt = q->bt + (size_t)b * OCC__EVQ_CAP;
    uint64_t *bp = q->bp + (size_t)b * OCC__EVQ_CAP;
    uint32_t n = q->bn[b] < OCC__EVQ_CAP ? q->bn[b] : OCC__EVQ_CAP;
    memcpy(q->gat_t, bt, n * sizeof *bt);
    memcpy(q->gat_p, bp, n * sizeof *bp);
    for (uint32_t i = 0; i < n; i++)
        bt[i] = INFINITY;
    q->bn[b] = 0;
    size_t kept = 0;
    uint64_t far_min = UINT64_MAX;
    for (size_t i = 0; i < q->ovf_n; i++) {
        occ__evq_far e = q->ovf[i];
        if (e.key == K) {
            q->gat_t[n] = e.time;
            q->gat_p[n++] = e.pay;
            continue;
        }
        if (e.key - before >= B) { /* far */
            if (e.key - K >= B) {
                far_min = e.key < far_min ? e.key : far_min;
            } else { /* within the lap now */
                uint32_t eb = (uint32_t)e.key & q->mask, k = q->bn[eb]++;
                if (k < OCC__EVQ_CAP) {
                    q->bt[(size_t)eb * OCC__EVQ_CAP + k] = e.time;
                    q->bp[(size_t)eb * OCC__EVQ_CAP + k] = e.pay;
                    continue;
                }
            }
        }
        q->ovf[kept++] = e;
    }
    q->ovf_n = kept;
    q->far_min = far_min;
    sort_into_cur(q, q->gat_t, q->gat_p, n);
}

void occ__evq_advance(occ__evq *q)
{
    const uint64_t B = (uint64_t)q->mask + 1;
    /* the next non-empty bucket within the lap, or the least far key if earlier */
    const uint64_t before = q->cur_key;
    uint64_t K = before + 1, end = before + B;
    uint64_t stop = q->far_min < end ? q->far_min : end;
    while (K < stop && !q->bn[K & q->mask])
        K++;
    if (K == end)
        K = q->far_min; /* the ring is empty: events remain, so far ones */
    q->cur_key = K;
    uint32_t b = (uint32_t)K & q->mask, k = q->bn[b];
    if (k > OCC__EVQ_CAP || q->far_min < K + B) {
        gather_with_ovf(q, K, before);
        return;
    }
    /* the common case: at most 16 events, ranked without branches */
    double *bt = q->bt + (size_t)b * OCC__EVQ_CAP;
    uint64_t *bp = q->bp + (size_t)b * OCC__EVQ_CAP;
    if (rank16(q->avx2, bt, bp, k, q->cur_t, q->cur_p) != (1u << k) - 1) { /* equal times */
        sort_into_cur(q, bt, bp, k);
        for (uint32_t i = 0; i < OCC__EVQ_CAP; i++)
            bt[i] = INFINITY;
    }
    q->ci = 0;
    q->cn = k;
    q->cur_t[k] = INFINITY;
    q->bn[b] = 0;
}

/* A ring of buckets `width` wide spanning at least `span` (false: out of
 * memory, the queue unchanged). */
static bool ring_alloc(occ__evq *q, double width, double span)
{
    uint32_t buckets = 64;
    while (buckets * width < span && buckets < (1u << 18))
        buckets *= 2;
    double *bt = malloc((size_t)buckets * OCC__EVQ_CAP * sizeof *bt);
    uint64_t *bp = calloc((size_t)buckets * OCC__EVQ_CAP, sizeof *bp); /* pads are read too */
    uint32_t *bn = calloc(buckets, sizeof *bn);
    if (!bt || !bp || !bn) {
        free(bt);
        free(bp);
        free(bn);
        return false;
    }
    for (size_t i = 0; i < (size_t)buckets * OCC__EVQ_CAP; i++)
        bt[i] = INFINITY;
    free(q->bt);
    free(q->bp);
    free(q->bn);
    q->bt = bt;
    q->bp = bp;
    q->bn = bn;
    q->inv_width = 1 / width;
    q->mask = buckets - 1;
    return true;
}

/* The width for `in_flight` events at a time. */
static double width_for(const occ__evq *q, double in_flight)
{
    if (!(in_flight >= 1))
        in_flight = 1;
    /* events arrive about in_flight per mean duration; a bucket no wider
     * than most durations (a refill seldom lands in the present bucket,
     * which costs an insertion) */
    double width = (getenv("EVQ_PB") ? atof(getenv("EVQ_PB")) : EVQ_PER_BUCKET) * q->mean / in_flight;
    width = width < q->shortest ? width : q->shortest;
    return width > 0 && isfinite(width) ? width : 1;
}

bool occ__evq_init(occ__evq *q, double in_flight, double mean, double shortest, double longest)
{
    memset(q, 0, sizeof *q);
    /* the ring spans three mean durations, or more to hold the longest
     * (events a lap ahead wait in ovf, which costs), but not past 16 means
     * (the rare outliers of a long tail may go a lap ahead) */
    double span = 3 * mean;
    if (1.25 * longest > span)
        span = 1.25 * longest < 16 * mean ? 1.25 * longest : 16 * mean;
    q->mean = mean > 0 && isfinite(mean) ? mean : 1;
    q->shortest = shortest > 0 && shortest < q->mean ? shortest : q->mean;
    q->span = span > 0 && isfinite(span) ? span : 3 * q->mean;
    if (!ring_alloc(q, width_for(q, in_flight), q->span) || !occ__evq_grow(q))
        return false;
    q->cur_t[0] = INFINITY;
    q->far_min = UINT64_MAX;
    q->avx2 = occ__draw_block_avx2_available();
    return true;
}

void occ__evq_retune(occ__evq *q)
{
    if (q->ci != q->cn || q->ovf_n || !q->n)
        return; /* only with every event in the ring */
    double width = width_for(q, (double)q->n), now = 1 / q->inv_width;
    if (width < 1.25 * now && width > 0.8 * now)
        return;
    /* the events, bucket after bucket, each in arrival order (equal times
     * share a bucket, so their order stays) */
    const uint64_t B = (uint64_t)q->mask + 1;
    uint32_t n = 0;
    double least = INFINITY;
    for (uint64_t K = q->cur_key + 1; K < q->cur_key + B; K++) {
        uint32_t b = (uint32_t)K & q->mask;
        for (uint32_t i = 0; i < q->bn[b]; i++) {
            double t = q->bt[(size_t)b * OCC__EVQ_CAP + i];
            q->gat_t[n] = t;
            q->gat_p[n++] = q->bp[(size_t)b * OCC__EVQ_CAP + i];
            least = t < least ? t : least;
        }
    }
    if (n != q->n || !ring_alloc(q, width, q->span))
        return; /* (n differs only if a bucket spilled, and then ovf was not empty) */
    /* the earliest key is the present one: its events into cur, the others
     * into the new ring */
    q->cur_key = occ__evq_key_of(q->inv_width, least);
    uint32_t here = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (occ__evq_key_of(q->inv_width, q->gat_t[i]) == q->cur_key) {
            q->gat_t[here] = q->gat_t[i];
            q->gat_p[here++] = q->gat_p[i];
        } else {
            occ__evq_place(q, q->gat_t[i], q->gat_p[i]);
        }
    }
    sort_into_cur(q, q->gat_t, q->gat_p, here);
}

void occ__evq_free(occ__evq *q)
{
    free(q->cur_t);
    free(q->cur_p);
    free(q->bt);
    free(q->bp);
    free(q->bn);
    free(q->gat_t);
    free(q->gat_p);
    free(q->ovf);
}
