/* The dispatch simulator's queue of pending retirements (event_queue.c).
 *
 * A ring of time buckets, each `width` wide (key = floor(time / width)),
 * whose events are kept in arrival order, unsorted: adding one is a store at
 * the end of its bucket, with no search and no branch that the data decides.
 * Only the present bucket is sorted, once, when the queue reaches it: its
 * events (about EVQ_PER_BUCKET) are ranked by comparing every pair, without
 * branches, and laid out in order in `cur`, where the simulator takes them one
 * after another.  The rare cases go through a slower function: an event for
 * the present bucket or before it (inserted into `cur`, in order), one a lap
 * or more ahead (kept in `ovf`, in arrival order, and moved into the ring
 * when its bucket comes within a lap), or one for a full bucket (kept in
 * `ovf` too, counted by its bucket, gathered with it).
 *
 * The order is total and the calendar queue's before it, exactly: by time,
 * and among equal times the event added last first (the simulator's trace and
 * the order it serves cores in depend on it).  Buckets and `ovf` hold events
 * in arrival order, so ranking by time with that order reversed for ties
 * gives it. */
#ifndef OCC_EVENT_QUEUE_H
#define OCC_EVENT_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define OCC__EVQ_CAP 16u /* events a bucket holds in the ring; more wait in ovf */

/* An event's payload: its core (low half) and contexts (high half). */
#define OCC__EVQ_PAY(core, contexts) ((uint64_t)(core) | (uint64_t)(contexts) << 32)

typedef struct occ__evq_far {
    double time;
    uint64_t pay, key;
} occ__evq_far;

typedef struct occ__evq {
    /* the present bucket, sorted: cur_t[ci .. cn - 1], and cur_t[cn] = +inf */
    double *cur_t;
    uint64_t *cur_p;
    uint32_t ci, cn;
    uint64_t cur_key;   /* the present bucket's key: no event in the ring has a smaller one */
    /* the ring: bucket b holds the events of the one key k with k & mask == b
     * and cur_key < k < cur_key + buckets; unused lanes hold +inf */
    double *bt;         /* buckets x OCC__EVQ_CAP times */
    uint64_t *bp;       /* their payloads */
    uint32_t *bn;       /* events per bucket: past OCC__EVQ_CAP, the rest wait in ovf */
    uint32_t mask;      /* buckets - 1 */
    double inv_width;
    /* events for full buckets ("spilled") or a lap or more ahead ("far"),
     * in arrival order */
    occ__evq_far *ovf;
    size_t ovf_n;
    uint64_t far_min;   /* the least key of the far ones, or UINT64_MAX */
    size_t n;           /* events pending */
    size_t room;        /* events the buffers hold (cur, gat, ovf): placing never allocates */
    double *gat_t;      /* a bucket gathered with ovf's events, in arrival order */
    uint64_t *gat_p;
    double mean, shortest, span; /* of the durations; the ring's least span */
    bool avx2;          /* rank buckets with the AVX2 copy */
} occ__evq;

/* Set up for about `in_flight` events at a time, of mean duration `mean`, most
 * of them longer than `shortest` and shorter than `longest`.  False: out of
 * memory (then free it). */
bool occ__evq_init(occ__evq *q, double in_flight, double mean, double shortest, double longest);
void occ__evq_free(occ__evq *q);

/* Buckets for as many events at a time as there are now, if that is far from
 * the guess given to occ__evq_init (the steady state calls it, once): only
 * the speed changes.  Does nothing unless the present bucket is used up and
 * nothing waits in ovf, or memory is short. */
void occ__evq_retune(occ__evq *q);

/* The present bucket is used up (ci == cn) and events remain: sort the next. */
void occ__evq_advance(occ__evq *q);

/* Room for more events than `room` (false: out of memory). */
bool occ__evq_grow(occ__evq *q);

/* Place an event whose key is not in the ring's fast case (see occ__evq_place). */
void occ__evq_place_slow(occ__evq *q, double time, uint64_t pay, uint64_t key);

#define OCC__EVQ_KEY_MAX (1ull << 62) /* keys saturate there: still monotone, only slower */

static inline uint64_t occ__evq_key_of(double inv_width, double time)
{
    double x = time * inv_width;
    x = x < (double)OCC__EVQ_KEY_MAX ? x : (double)OCC__EVQ_KEY_MAX;
    return (uint64_t)(int64_t)x; /* below 2^63: the signed conversion is one instruction */
}

/* Put an event in, counted already (n <= room). */
static inline void occ__evq_place(occ__evq *q, double time, uint64_t pay)
{
    uint64_t key = occ__evq_key_of(q->inv_width, time);
    uint32_t b = (uint32_t)key & q->mask;
    uint32_t k = q->bn[b];
    /* within the ring (cur_key < key < cur_key + buckets) and room */
    if (key - q->cur_key - 1 < (uint64_t)q->mask && k < OCC__EVQ_CAP) {
        q->bt[(size_t)b * OCC__EVQ_CAP + k] = time;
        q->bp[(size_t)b * OCC__EVQ_CAP + k] = pay;
        q->bn[b] = k + 1;
        return;
    }
    occ__evq_place_slow(q, time, pay, key);
}

/* Add an event (false: out of memory). */
static inline bool occ__evq_push(occ__evq *q, double time, uint32_t core, uint32_t contexts)
{
    if (q->n == q->room && !occ__evq_grow(q))
        return false;
    q->n++;
    occ__evq_place(q, time, OCC__EVQ_PAY(core, contexts));
    return true;
}

/* The earliest event's time (the queue is not empty). */
static inline double occ__evq_first(occ__evq *q)
{
    if (q->ci == q->cn)
        occ__evq_advance(q);
    return q->cur_t[q->ci];
}

/* Take the earliest event out (after occ__evq_first); its payload. */
static inline uint64_t occ__evq_pop(occ__evq *q)
{
    q->n--;
    return q->cur_p[q->ci++];
}

#endif
