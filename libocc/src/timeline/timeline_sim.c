/* The dispatch simulator (model in occ/timeline.h and docs/phases.md).
 *
 * Two engines share the dispatch rules:
 *  - events: any durations.  Retirements in a calendar of time buckets (see
 *    "event queue"); bitsets of the eligible cores find the core the order
 *    policy picks in O(cores / 64); the steady state (a work-group retires
 *    alone and is refilled where it left) changes nothing visible and runs in
 *    a tight loop that skips all bookkeeping, or, with at most 16 events in
 *    flight, in "lanes" outside the calendar; random durations are drawn a
 *    block ahead.  tests/timeline/test_phases_reference.c holds it equal to a plain
 *    simulation, tests/timeline/test_phases_lanes.c the lanes to the calendar.
 *  - steps: equal durations.  Everything happens at whole times: all threads
 *    dispatched at k retire at k+1, except those waiting at a barrier.  The
 *    state at the start of a step is each core's threads still to dispatch
 *    (pending); while enough work-groups remain that the supply cannot run out
 *    within a step, the next state depends on this one only, so the states
 *    repeat; the repeating stretch is then skipped in O(1).  Tests check that
 *    both engines give the same timeline for equal durations. */
#include "timeline/timeline_internal.h"

#include <math.h>
#include <stdatomic.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <stdlib.h>
#include <string.h>

#define HISTORY_STEPS 4096 /* steps searched for a repeat; past that, plain stepping */

#define FREES_SLOT 0x80000000u /* with a retirement's contexts: the slot is freed too */

/* 16 bytes: four events to a cache line.  Its calendar key is computed from
 * the time when needed (key_of), and its contexts lie in a parallel array. */
typedef struct event {
    double time;
    uint32_t core;
    uint32_t next; /* the next event of its bucket, or the next free slot */
} event;

/* The event queue (see "event queue" below). */
typedef struct calendar {
    event *ev;          /* the pool */
    uint32_t *contexts; /* per event of the pool: its contexts (bit 31: FREES_SLOT) */
    size_t cap;
    uint32_t free_ev;   /* free slots, linked by next */
    size_t n;           /* events pending */
    uint32_t *head;     /* per bucket: its earliest event, or NIL (the sentinel) */
    uint64_t *full;     /* bitset of non-empty buckets */
    uint32_t mask;      /* buckets - 1 */
    double inv_width;
    uint64_t now_key;   /* no event has a smaller key */
} calendar;

/* buckets per event in flight: with the search's word in a register (steady_loop)
 * 16 beat 8 by 4-9 % on h100-sxm's 792 events and did not change tgl's 42; 32 and 4
 * were slower (docs/performance.md, "Measured and not taken") */
#define CAL_BUCKETS_PER_EVENT 16

typedef struct sim {
    uint32_t C, ctx, t, admit_cap;
    bool partial_always; /* refills may be split too */
    bool partial_now;    /* a work-group admitted now may be split */
    bool barrier, spread;
    uint64_t N, next;
    occ_durations dur;
    size_t list_pos; /* LIST: next index into values (avoids a division per WG) */
    occ__tracker trk;
    /* per core: the partially dispatched work-group, if any */
    uint32_t *pending; /* its threads not dispatched yet */
    uint32_t *waiting; /* barrier: its dispatched threads, waiting */
    double *pdur;
    uint64_t *pwg;
    /* the cores that can take a work-group now (see "core selection") */
    uint64_t *bits;     /* levels x words */
    uint64_t *nonempty; /* level_words: levels holding a core */
    uint32_t *where;    /* each core's level, or NO_LEVEL */
    uint32_t words, levels, level_words;
    calendar cal;       /* pending retirements */
    uint32_t n_eligible; /* cores in the eligible sets */
    uint64_t mixed_seed;
    /* UNIFORM, NORMAL: durations of work-groups draw_first .. draw_end - 1 */
    uint64_t draw_first, draw_end;
    double draws[OCC__DRAW_BLOCK];
    occ__draw_copy draw_copy; /* the draws' copy for this CPU (AVX2 or better: lanes with AVX2 too) */
    uint64_t lanes_after; /* steady work-groups through the calendar before lanes */

    /* trace: per core, the parts of the waiting work-group (barrier) */
    occ_trace_fn trace;
    void *user;
    double *part_time;
    uint32_t *part_ctx, *n_parts;
} sim;

/* ---- core selection ------------------------------------------------------------
 * Eligible cores sit in one bitset per level: all at level 0 for pack (the
 * lowest-numbered wins), at level = busy contexts for spread (the least busy
 * wins, then the lowest-numbered).  A summary bitset marks the levels that
 * hold a core, so picking and updating cost O(cores / 64). */

#define NO_LEVEL UINT32_MAX
#define NO_CORE UINT32_MAX

static inline uint32_t level_of(const sim *s, uint32_t c)
{
    uint32_t busy = s->trk.busy[c];
    if (s->trk.wgs[c] >= s->admit_cap || s->pending[c])
        return NO_LEVEL;
    uint32_t free_ctx = s->ctx - busy;
    if (s->partial_now ? free_ctx == 0 : free_ctx < s->t)
        return NO_LEVEL;
    return s->spread ? busy : 0;
}

static inline void set_remove(sim *s, uint32_t c)
{
    uint32_t L = s->where[c];
    uint64_t *row = s->bits + (size_t)L * s->words;
    row[c >> 6] &= ~(1ull << (c & 63));
    s->where[c] = NO_LEVEL;
    for (uint32_t w = 0; w < s->words; w++)
        if (row[w])
            return;
    s->nonempty[L >> 6] &= ~(1ull << (L & 63));
}

static inline void core_update(sim *s, uint32_t c)
{
    uint32_t L = level_of(s, c);
    if (L == s->where[c])
        return;
    if (s->where[c] != NO_LEVEL) {
        set_remove(s, c);
        s->n_eligible--;
    }
    if (L != NO_LEVEL) {
        s->n_eligible++;
        s->bits[(size_t)L * s->words + (c >> 6)] |= 1ull << (c & 63);
        s->nonempty[L >> 6] |= 1ull << (L & 63);
        s->where[c] = L;
    }
}

static inline uint32_t pick_core(const sim *s)
{
    for (uint32_t w = 0; w < s->level_words; w++)
        if (s->nonempty[w]) {
            uint32_t L = w * 64 + (uint32_t)__builtin_ctzll(s->nonempty[w]);
            const uint64_t *row = s->bits + (size_t)L * s->words;
            for (uint32_t k = 0;; k++)
                if (row[k])
                    return k * 64 + (uint32_t)__builtin_ctzll(row[k]);
        }
    return NO_CORE;
}

static void cores_rebuild(sim *s)
{
    for (uint32_t c = 0; c < s->C; c++)
        core_update(s, c);
}

/* ---- event queue: a calendar of time buckets -------------------------------------
 * Pending retirements lie within a few durations after the present, and each
 * step removes the earliest and adds one a duration later (the "hold"
 * pattern), so they are kept by time in a ring of buckets, each `width` wide:
 * bucket (key & mask), key = floor(time / width).  A bucket holds its events
 * sorted by time (a later lap of the ring sorts after the present one, since
 * the key grows with the time); equal times are adjacent.  The earliest event
 * is the head of the first bucket at or after the present key, found through
 * a bitset of the non-empty buckets, whose head has the key of that bucket's
 * present lap.  Adding and removing cost O(1) while buckets stay short; any
 * width gives the same events in the same order (ties in either order: the
 * simulator treats all events of one instant together). */

/* Event 0 is a sentinel at +infinity that ends every bucket: walks and
 * comparisons need no test for the end (fewer branches to mispredict). */
#define NIL 0u
#define KEY_MAX (1ull << 62) /* keys saturate there: still monotone, only slower */

static inline uint64_t key_of(const calendar *q, double time)
{
    double x = time * q->inv_width;
#if defined(__SSE2__)
    /* minsd: no branch (x is never NaN: times are finite, the sentinel's key is set apart) */
    x = _mm_cvtsd_f64(_mm_min_sd(_mm_set_sd(x), _mm_set_sd((double)KEY_MAX)));
#else
    x = x < (double)KEY_MAX ? x : (double)KEY_MAX;
#endif
    return (uint64_t)(int64_t)x; /* below 2^63: the signed conversion is one instruction */
}

/* A slot for one more event (the pool grows; indices stay valid). */
static inline bool cal_slot(calendar *q, uint32_t *slot)
{
    if (q->free_ev == NIL) {
        size_t cap = q->cap * 2;
        if (cap > UINT32_MAX)
            return false;
        event *ev = realloc(q->ev, cap * sizeof *ev);
        if (!ev)
            return false;
        q->ev = ev;
        uint32_t *contexts = realloc(q->contexts, cap * sizeof *contexts);
        if (!contexts)
            return false; /* the pool keeps its old size: q->cap unchanged */
        q->contexts = contexts;
        for (size_t i = q->cap; i < cap; i++)
            ev[i].next = i + 1 < cap ? (uint32_t)(i + 1) : NIL;
        q->free_ev = (uint32_t)q->cap;
        q->cap = cap;
    }
    *slot = q->free_ev;
    q->free_ev = q->ev[*slot].next;
    return true;
}

/* Put event i (its time set) into its bucket; returns the bucket. */
static inline uint32_t cal_link_bucket(calendar *q, uint32_t i)
{
    event *ev = q->ev;
    double time = ev[i].time;
    uint64_t key = key_of(q, time);
    uint32_t b = (uint32_t)(key & q->mask);
    uint32_t *link = &q->head[b];
    while (ev[*link].time < time) /* the sentinel ends it */
        link = &ev[*link].next;
    ev[i].next = *link;
    *link = i;
    q->full[b >> 6] |= 1ull << (b & 63);
    return b;
}

static inline void cal_link(calendar *q, uint32_t i)
{
    cal_link_bucket(q, i);
}

static inline bool cal_push(calendar *q, double time, uint32_t core, uint32_t contexts)
{
    uint32_t i;
    if (!cal_slot(q, &i))
        return false;
    q->ev[i].time = time;
    q->ev[i].core = core;
    q->contexts[i] = contexts;
    cal_link(q, i);
    q->n++;
    return true;
}

/* Nothing within a lap of the present key: the earliest head of all.  (The
 * queue comes by value, so that its caller can keep it in registers.) */
static uint32_t cal_first_far(const calendar q_)
{
    const calendar *q = &q_;
    uint32_t best = NIL; /* at +infinity */
    for (uint32_t w = 0; w <= q->mask / 64; w++)
        for (uint64_t bits = q->full[w]; bits; bits &= bits - 1) {
            uint32_t h = q->head[w * 64 + (uint32_t)__builtin_ctzll(bits)];
            if (best == NIL || q->ev[h].time < q->ev[best].time)
                best = h;
        }
    return best;
}

/* The earliest event, searched from `ahead` buckets after the present key's
 * bucket, one lap at most (then every bucket's head); its key becomes the
 * present one. */
static inline uint32_t cal_first_scan(calendar *q, uint32_t ahead)
{
    const uint32_t buckets = q->mask + 1;
    uint32_t b = (uint32_t)((q->now_key + ahead) & q->mask);
    while (ahead < buckets) {
        uint64_t bits = q->full[b >> 6] & (~0ull << (b & 63));
        if (!bits) {
            uint32_t step = 64 - (b & 63);
            ahead += step;
            b = (b + step) & q->mask;
            continue;
        }
        uint32_t nb = (b & ~63u) + (uint32_t)__builtin_ctzll(bits);
        ahead += nb - b;
        if (ahead >= buckets)
            break;
        uint32_t h = q->head[nb];
        if (key_of(q, q->ev[h].time) == q->now_key + ahead) {
            q->now_key += ahead;
            /* the next non-empty bucket of this word (else the word's last
             * bucket, perhaps empty: then the sentinel): read soon */
            uint64_t rest = (bits & (bits - 1)) | (1ull << 63);
            __builtin_prefetch(&q->ev[q->head[(b & ~63u) + (uint32_t)__builtin_ctzll(rest)]]);
            return h;
        }
        ahead++; /* its events are a lap or more ahead */
        b = (nb + 1) & q->mask;
    }
    uint32_t h = cal_first_far(*q);
    q->now_key = key_of(q, q->ev[h].time);
    return h;
}

/* The earliest event (the queue is not empty); its key becomes the present one. */
static inline uint32_t cal_first(calendar *q)
{
    return cal_first_scan(q, 0);
}

/* cal_first out of line, for the steady state's search (steady_loop) when
 * the bucket it found holds no event of the present lap. */
static __attribute__((noinline)) uint32_t cal_first_slow(calendar q_, uint64_t *now_key)
{
    uint32_t h = cal_first(&q_);
    *now_key = q_.now_key;
    return h;
}

/* Take event i, the head of its bucket b, out of it. */
static inline void cal_unlink_head_of(calendar *q, uint32_t i, uint32_t b)
{
    uint32_t nx = q->ev[i].next;
    q->head[b] = nx;
    /* no branch: whether the bucket empties is hard to predict */
    q->full[b >> 6] &= ~((uint64_t)(nx == NIL) << (b & 63));
}

static inline void cal_unlink_head(calendar *q, uint32_t i)
{
    cal_unlink_head_of(q, i, (uint32_t)(key_of(q, q->ev[i].time) & q->mask));
}

/* Remove event i, the head of its bucket. */
static inline void cal_remove_head(calendar *q, uint32_t i)
{
    cal_unlink_head(q, i);
    q->ev[i].next = q->free_ev;
    q->free_ev = i;
    q->n--;
}

/* No other event at event i's time (i is the earliest: ties follow it). */
static inline bool cal_alone(const calendar *q, uint32_t i)
{
    return q->ev[q->ev[i].next].time > q->ev[i].time; /* the sentinel is later */
}

/* Set up the calendar for about `in_flight` events of mean duration `mean`,
 * most of them shorter than `longest`. */
static bool cal_init(calendar *q, double in_flight, double mean, double longest)
{
    /* The ring three mean durations long, or longer to hold the longest
     * (events a lap ahead are passed over, which costs), but not past 16
     * means (the rare outliers of a long tail may go a lap ahead); many
     * buckets per event in flight per three means (few events share a
     * bucket or a bitset word), at least 1024 (an addition seldom lands in
     * the bitset word being searched, whose load would then wait for the store). */
    double span = 3 * mean;
    if (1.25 * longest > span)
        span = 1.25 * longest < 16 * mean ? 1.25 * longest : 16 * mean;
    double want = CAL_BUCKETS_PER_EVENT * in_flight * span / (3 * mean);
    uint32_t buckets = 1024;
    while (buckets < want && buckets < (1u << 18))
        buckets *= 2;
    double width = span / buckets;
    if (!(width > 0) || !isfinite(width))
        width = 1;
    q->inv_width = 1 / width;
    q->mask = buckets - 1;
    q->head = malloc((size_t)buckets * sizeof *q->head);
    q->full = calloc(buckets / 64, sizeof *q->full);
    q->cap = 256;
    q->ev = malloc(q->cap * sizeof *q->ev);
    q->contexts = malloc(q->cap * sizeof *q->contexts);
    if (!q->head || !q->full || !q->ev || !q->contexts)
        return false;
    for (uint32_t b = 0; b < buckets; b++)
        q->head[b] = NIL;
    q->ev[NIL] = (event){INFINITY, 0, NIL};
    q->contexts[NIL] = 0;
    for (size_t i = 1; i < q->cap; i++)
        q->ev[i].next = i + 1 < q->cap ? (uint32_t)(i + 1) : NIL;
    q->free_ev = 1;
    return true;
}

static void cal_free(calendar *q)
{
    free(q->ev);
    free(q->contexts);
    free(q->head);
    free(q->full);
}

/* ---- durations ------------------------------------------------------------------
 * Random durations are drawn OCC__DRAW_BLOCK work-groups ahead (draws.c), so
 * the draws do not wait on one another.  Every value is exactly occ__draw's. */

static void draw_block(sim *s, uint64_t first)
{
    s->draw_first = first;
    s->draw_end = first + OCC__DRAW_BLOCK;
    occ__draw_block(&s->dur, s->mixed_seed, first, s->draw_copy, s->draws);
}

static inline double next_duration(sim *s, uint64_t wg)
{
    switch (s->dur.kind) {
    case OCC_DURATIONS_EQUAL:
        return 1.0;
    case OCC_DURATIONS_LIST: {
        double d = s->dur.values[s->list_pos];
        if (++s->list_pos == s->dur.n_values)
            s->list_pos = 0;
        return d;
    }
    default: /* work-groups come in order */
        if (wg >= s->draw_end)
            draw_block(s, wg);
        return s->draws[wg - s->draw_first];
    }
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The mean and about the longest of a (checked) duration model: they only
 * shape the calendar. */
static void duration_scale(const occ_durations *d, double *mean, double *longest)
{
    switch (d->kind) {
    case OCC_DURATIONS_LIST: {
        double sum = 0;
        for (size_t i = 0; i < d->n_values; i++)
            sum += d->values[i];
        *mean = sum / (double)d->n_values;
        /* the 99th percentile of up to 1024 values spread over the list */
        double sample[1024];
        size_t m = d->n_values < 1024 ? d->n_values : 1024;
        for (size_t i = 0; i < m; i++)
            sample[i] = d->values[i * d->n_values / m];
        qsort(sample, m, sizeof *sample, by_value);
        *longest = sample[m - 1 - m / 100];
        return;
    }
    case OCC_DURATIONS_UNIFORM:
        *mean = (d->a + d->b) / 2;
        *longest = d->b;
        return;
    case OCC_DURATIONS_NORMAL:
        *mean = d->a > d->b ? d->a : d->b; /* truncated to > 0: about the larger */
        *longest = d->a + 3 * d->b;
        return;
    case OCC_DURATIONS_EQUAL:
    default:
        *mean = *longest = 1;
    }
}

/* ---- dispatch (event engine) ------------------------------------------------------ */

static void trace_chunk(sim *s, uint64_t wg, uint32_t c, uint32_t n, double disp, double run,
                        double end)
{
    occ_chunk ch = {wg, c, n, disp, run, end};
    s->trace(s->user, &ch);
}

/* A barrier work-group's last threads arrived at T: all run and retire together. */
static bool release_barrier(sim *s, uint32_t c, double T)
{
    double end = T + s->pdur[c];
    if (s->trace) {
        for (uint32_t i = 0; i < s->n_parts[c]; i++)
            trace_chunk(s, s->pwg[c], c, s->part_ctx[(size_t)c * s->t + i],
                        s->part_time[(size_t)c * s->t + i], T, end);
        s->n_parts[c] = 0;
    }
    uint32_t n = s->waiting[c];
    s->waiting[c] = 0;
    return cal_push(&s->cal, end, c, n | FREES_SLOT);
}

static void note_part(sim *s, uint32_t c, uint32_t n, double T)
{
    size_t i = (size_t)c * s->t + s->n_parts[c]++;
    s->part_ctx[i] = n;
    s->part_time[i] = T;
}

/* Give threads of core c's waiting work-group the free contexts there. */
static bool serve_pending(sim *s, uint32_t c, double T)
{
    uint32_t free_ctx = s->ctx - s->trk.busy[c];
    uint32_t n = s->pending[c] < free_ctx ? s->pending[c] : free_ctx;
    if (n == 0)
        return true;
    occ__trk_set_busy(&s->trk, c, s->trk.busy[c] + n);
    s->pending[c] -= n;
    bool ok = true;
    if (s->barrier) {
        s->waiting[c] += n;
        if (s->trace)
            note_part(s, c, n, T);
        if (!s->pending[c])
            ok = release_barrier(s, c, T);
    } else {
        double end = T + s->pdur[c];
        if (s->trace)
            trace_chunk(s, s->pwg[c], c, n, T, T, end);
        ok = cal_push(&s->cal, end, c, n | (s->pending[c] ? 0 : FREES_SLOT));
    }
    core_update(s, c);
    return ok;
}

/* Admit the next work-group on core c at time T. */
static bool admit(sim *s, uint32_t c, double T)
{
    uint64_t wg = s->next++;
    double d = next_duration(s, wg);
    uint32_t free_ctx = s->ctx - s->trk.busy[c];
    uint32_t n = free_ctx < s->t ? free_ctx : s->t;
    occ__trk_set_busy(&s->trk, c, s->trk.busy[c] + n);
    occ__trk_set_wgs(&s->trk, c, s->trk.wgs[c] + 1);
    bool ok;
    if (n == s->t) {
        if (s->trace)
            trace_chunk(s, wg, c, n, T, T, T + d);
        ok = cal_push(&s->cal, T + d, c, n | FREES_SLOT);
    } else {
        s->pending[c] = s->t - n;
        s->pdur[c] = d;
        s->pwg[c] = wg;
        if (s->barrier) {
            s->waiting[c] = n;
            if (s->trace)
                note_part(s, c, n, T);
            ok = true;
        } else {
            if (s->trace)
                trace_chunk(s, wg, c, n, T, T, T + d);
            ok = cal_push(&s->cal, T + d, c, n);
        }
    }
    core_update(s, c);
    return ok;
}

static bool dispatch_new(sim *s, double T)
{
    while (s->next < s->N) {
        uint32_t c = pick_core(s);
        if (c == NO_CORE)
            break;
        if (!admit(s, c, T))
            return false;
    }
    return true;
}

static inline void retire(sim *s, uint32_t c, uint32_t n)
{
    occ__trk_set_busy(&s->trk, c, s->trk.busy[c] - (n & ~FREES_SLOT));
    if (n & FREES_SLOT)
        occ__trk_set_wgs(&s->trk, c, s->trk.wgs[c] - 1);
    core_update(s, c);
}

/* The steady state: the earliest event is a whole work-group retiring alone
 * at T, no core can take a work-group (and none waits for threads: no
 * eligible core), so the next work-group goes where it left, whole: no core's
 * contexts or work-groups change, nor does the phase (unless every instant is
 * a phase).  The loop keeps the queue in locals and is compiled once per
 * duration model (kind is a constant in each copy); it returns at the first
 * event that is not so, or when no work-group is left.
 *
 * The search for the next bucket (cal_first_near's) keeps the bitset word it
 * is in as a register, `bits`: its buckets from the present one on.  A bucket
 * that empties loses its bit there by a branch, predicted (with many buckets
 * per event, a bucket seldom holds two), so the next search does not wait for
 * the bucket's next event to load, nor for the store to the bitset: the loop's
 * chain from one event to the next is a few register operations.  The word in
 * memory is kept up to date for every other reader. */
static inline __attribute__((always_inline)) void steady_loop(sim *s, occ_duration_kind kind,
                                                              bool trace, uint64_t stop)
{
    const uint32_t whole = s->t | FREES_SLOT;
    const uint32_t *const pending = s->pending;
    calendar q = s->cal;
    uint64_t next = s->next;
    const double *const values = s->dur.values;
    const size_t n_values = s->dur.n_values;
    size_t list_pos = s->list_pos;
    const uint32_t words_mask = q.mask >> 6;
    uint32_t b0 = (uint32_t)(q.now_key & q.mask), w = b0 >> 6; /* the present bucket, its word */
    uint64_t bits = q.full[w] & (~0ull << (b0 & 63));
    do {
        /* the next word by a conditional move: which event ends a word is
         * not predictable; two words in a row without an event are rare */
        const uint64_t following = q.full[(w + 1) & words_mask];
        const bool ended = bits == 0;
        w = (w + ended) & words_mask;
        bits = ended ? following : bits;
        while (__builtin_expect(!bits, 0)) { /* the queue is not empty: some word has a bit */
            w = (w + 1) & words_mask;
            bits = q.full[w];
        }
        uint32_t b = (w << 6) + (uint32_t)__builtin_ctzll(bits);
        const uint32_t ahead = (b - b0) & q.mask;
        uint32_t i = q.head[b];
        /* its head is the earliest event when its key is the present key
         * plus the distance (any other bucket's events have larger keys) */
        if (__builtin_expect(key_of(&q, q.ev[i].time) != q.now_key + ahead, 0)) {
            uint64_t now_key;
            i = cal_first_slow(q, &now_key);
            q.now_key = now_key;
            b = (uint32_t)(now_key & q.mask), w = b >> 6;
            bits = q.full[w] & (~0ull << (b & 63));
        } else {
            q.now_key += ahead;
            /* the next non-empty bucket of this word's head, read soon */
            uint64_t rest = (bits & (bits - 1)) | (1ull << 63);
            __builtin_prefetch(&q.ev[q.head[(w << 6) + (uint32_t)__builtin_ctzll(rest)]]);
        }
        b0 = b;
        const double T = q.ev[i].time;
        const uint32_t core = q.ev[i].core;
        if (((q.contexts[i] ^ whole) | pending[core]) || !cal_alone(&q, i))
            break;
        uint64_t wg = next++;
        double d;
        if (kind == OCC_DURATIONS_UNIFORM) { /* or NORMAL: drawn in blocks */
            if (wg >= s->draw_end)
                draw_block(s, wg);
            d = s->draws[wg - s->draw_first];
        } else if (kind == OCC_DURATIONS_LIST) {
            d = values[list_pos];
            if (++list_pos == n_values)
                list_pos = 0;
        } else {
            d = 1;
        }
        if (trace)
            trace_chunk(s, wg, core, s->t, T, T, T + d);
        /* event i out of bucket b (cal_unlink_head_of, by a branch here) and in again at T + d */
        const uint32_t nx = q.ev[i].next;
        q.head[b] = nx;
        if (__builtin_expect(nx == NIL, 1)) {
            q.full[w] &= ~(1ull << (b & 63));
            bits &= bits - 1; /* its lowest bit is b's */
        } else {
            __asm__ volatile(""); /* a branch, not a conditional move: see above */
        }
        q.ev[i].time = T + d;
        if (__builtin_expect(cal_link_bucket(&q, i) >> 6 == w, 0)) {
            __asm__ volatile("");
            bits = q.full[w] & (~0ull << (b & 63));
        }
    } while (next < stop);
    s->cal = q;
    s->next = next;
    s->list_pos = list_pos;
}

/* ---- the steady state with few events in flight: lanes -----------------------------
 * With at most LANES_MAX events in flight, the steady state goes faster
 * without the calendar: the events' times sit in an array compared many at a
 * time.  Each pass takes every event before H = the earliest + the least of
 * the next durations (as many as events, see batch_bound): their refills
 * all come at H or later, so those events retire in the order of their
 * times, which their ranks give (each compared with all lanes at once,
 * without branches), and each is refilled where it was.  Every work-group
 * gets the same duration and the same times as through the calendar.  The
 * calendar's order of equal times (the event added last first) is kept by a
 * sequence number per lane: the events go back into the calendar in the
 * order they were added.  Equal times among the events to retire, like any
 * event that is not steady, end the lanes. */

#define LANES_MAX 16 /* more: the comparisons cost more than the calendar (up to 48 and 128
                        measured, docs/performance.md, "Measured and not taken") */
#define LANES_AFTER 256 /* steady work-groups through the calendar before lanes, at
                           first: moving the events costs about as much as lanes
                           save on a few hundred work-groups */

occ__lanes_hook_t occ__lanes_hook; /* (timeline_internal.h) */

typedef struct lanes {
    double t[LANES_MAX]; /* +inf past n */
    uint32_t core[LANES_MAX], contexts[LANES_MAX];
    uint64_t seq[LANES_MAX]; /* when the event was added (higher: later) */
    uint32_t n;
} lanes;

/* The least duration of the next *lim work-groups: *lim = n (the events in
 * lanes: no pass retires more), or fewer where the work-groups or the block
 * of draws end.  LIST: the values from list_pos on, around the end. */
static inline __attribute__((always_inline)) double batch_bound(sim *s, occ_duration_kind kind,
                                                                uint32_t n, uint32_t *lim)
{
    if (s->N - s->next < n)
        n = (uint32_t)(s->N - s->next);
    const double *v;
    if (kind == OCC_DURATIONS_LIST) {
        v = s->dur.values + s->list_pos;
        if (s->dur.n_values - s->list_pos < n) { /* around the end: seldom */
            double m = INFINITY;
            for (uint32_t k = 0; k < n; k++) {
                double x = s->dur.values[(s->list_pos + k) % s->dur.n_values];
                m = x < m ? x : m;
            }
            *lim = n;
            return m;
        }
    } else {
        if (s->next >= s->draw_end)
            draw_block(s, s->next);
        if (s->draw_end - s->next < n)
            n = (uint32_t)(s->draw_end - s->next);
        v = s->draws + (s->next - s->draw_first);
    }
    double a = v[0], b = n > 1 ? v[1] : v[0];
    for (uint32_t k = 2; k + 1 < n; k += 2) { /* two chains */
        a = v[k] < a ? v[k] : a;
        b = v[k + 1] < b ? v[k + 1] : b;
    }
    if (n > 2 && n % 2)
        a = v[n - 1] < a ? v[n - 1] : a;
    *lim = n;
    return a < b ? a : b;
}

/* The passes (see above) until an event is not steady or no work-group is
 * left.  VD, VL: vectors of W doubles and int64; MOVMSK: a comparison's sign
 * bits; LN: lanes (a constant: the loops over vectors unroll, and the lanes
 * stay in registers through a pass). */
#define LANES_PASSES(VD, VL, W, MOVMSK, LN)                                                        \
    do {                                                                                           \
        const uint32_t whole = s->t | FREES_SLOT;                                                  \
        const uint32_t *const pending = s->pending;                                                \
        const VD zero = {0};                                                                       \
        for (;;) {                                                                                 \
            uint32_t lim;                                                                          \
            const double dmin = batch_bound(s, kind, L->n, &lim);                                  \
            VD l[(LN) / (W)];                                                                      \
            _Pragma("GCC unroll 16") for (uint32_t v = 0; v < (LN) / (W); v++)                     \
                memcpy(&l[v], L->t + v * (W), sizeof l[v]);                                        \
            /* the earliest, and H */                                                              \
            VD lo = l[0];                                                                          \
            _Pragma("GCC unroll 16") for (uint32_t v = 1; v < (LN) / (W); v++) {                   \
                VL less = (VL)(l[v] < lo), x, y;                                                   \
                memcpy(&x, &l[v], sizeof x);                                                       \
                memcpy(&y, &lo, sizeof y);                                                         \
                y = (x & less) | (y & ~less);                                                      \
                memcpy(&lo, &y, sizeof lo);                                                        \
            }                                                                                      \
            double first = lo[0];                                                                  \
            for (uint32_t w = 1; w < (W); w++)                                                     \
                first = lo[w] < first ? lo[w] : first;                                             \
            const VD h = zero + (first + dmin);                                                    \
            /* the events before H, placed at their ranks */                                       \
            uint32_t before = 0;                                                                   \
            _Pragma("GCC unroll 16") for (uint32_t v = 0; v < (LN) / (W); v++)                     \
                before |= MOVMSK(l[v] < h) << v * (W);                                             \
            uint8_t order[LN];                                                                     \
            uint32_t taken = 0, m = 0;                                                             \
            for (uint32_t c = before; c; c &= c - 1, m++) {                                        \
                const uint32_t i = (uint32_t)__builtin_ctz(c);                                     \
                const VD b = zero + L->t[i];                                                       \
                uint32_t below = 0;                                                                \
                _Pragma("GCC unroll 16") for (uint32_t v = 0; v < (LN) / (W); v++)                 \
                    below |= MOVMSK(l[v] < b) << v * (W);                                          \
                const uint32_t r = (uint32_t)__builtin_popcount(below);                            \
                order[r] = (uint8_t)i;                                                             \
                taken |= 1u << r;                                                                  \
            }                                                                                      \
            if (!m || taken != (1u << m) - 1)                                                      \
                return; /* equal times (or no bound): the calendar takes over */                   \
            if (m > lim)                                                                           \
                m = lim;                                                                           \
            /* they retire in turn, each refilled where it was; at an event that is              \
             * not steady (not whole, or its core waits) the lanes end */                          \
            uint64_t next = s->next;                                                               \
            size_t pos = s->list_pos;                                                              \
            const double *const values = s->dur.values;                                            \
            const size_t n_values = s->dur.n_values;                                               \
            const double *const drawn = s->draws; /* batch_bound drew them */                     \
            const uint64_t drawn_from = s->draw_first;                                             \
            bool stop = false;                                                                     \
            for (uint32_t r = 0; r < m; r++) {                                                     \
                const uint32_t i = order[r], core = L->core[i];                                    \
                if (L->contexts[i] != whole || pending[core]) {                                    \
                    stop = true;                                                                   \
                    break;                                                                         \
                }                                                                                  \
                const double T = L->t[i];                                                          \
                const uint64_t wg = next++;                                                        \
                double d;                                                                          \
                if (kind == OCC_DURATIONS_LIST) {                                                  \
                    d = values[pos];                                                               \
                    if (++pos == n_values)                                                         \
                        pos = 0;                                                                   \
                } else {                                                                           \
                    d = drawn[wg - drawn_from];                                                    \
                }                                                                                  \
                if (trace) {                                                                       \
                    s->next = next;                                                                \
                    trace_chunk(s, wg, core, s->t, T, T, T + d);                                   \
                }                                                                                  \
                L->t[i] = T + d;                                                                   \
                L->seq[i] = L->n + 1 + wg; /* added after every earlier one */                     \
            }                                                                                      \
            s->next = next;                                                                        \
            s->list_pos = pos;                                                                     \
            if (stop || next >= s->N)                                                              \
                return;                                                                            \
        }                                                                                          \
    } while (0)

typedef double lanes_v2d __attribute__((vector_size(16)));
typedef int64_t lanes_v2l __attribute__((vector_size(16)));
#if defined(__x86_64__) && defined(__GNUC__)
#define LANES_MOVMSK2(m) ((uint32_t)__builtin_ia32_movmskpd((lanes_v2d)(m)))
#else
#define LANES_MOVMSK2(m) ((uint32_t)(((m)[0] & 1) | ((m)[1] & 2)))
#endif

/* One copy per lane count: 8, 12 or 16. */
static void lanes_passes_base(sim *s, lanes *L, occ_duration_kind kind, bool trace)
{
    if (L->n <= 8)
        LANES_PASSES(lanes_v2d, lanes_v2l, 2, LANES_MOVMSK2, 8);
    else if (L->n <= 12)
        LANES_PASSES(lanes_v2d, lanes_v2l, 2, LANES_MOVMSK2, 12);
    else
        LANES_PASSES(lanes_v2d, lanes_v2l, 2, LANES_MOVMSK2, 16);
}

#if defined(__x86_64__) && defined(__GNUC__)
#define HAVE_LANES_AVX2 1
typedef double lanes_v4d __attribute__((vector_size(32)));
typedef int64_t lanes_v4l __attribute__((vector_size(32)));
#define LANES_MOVMSK4(m) ((uint32_t)__builtin_ia32_movmskpd256((lanes_v4d)(m)))
static __attribute__((target("avx2"))) void lanes_passes_avx2(sim *s, lanes *L,
                                                                occ_duration_kind kind, bool trace)
{
    if (L->n <= 8)
        LANES_PASSES(lanes_v4d, lanes_v4l, 4, LANES_MOVMSK4, 8);
    else if (L->n <= 12)
        LANES_PASSES(lanes_v4d, lanes_v4l, 4, LANES_MOVMSK4, 12);
    else
        LANES_PASSES(lanes_v4d, lanes_v4l, 4, LANES_MOVMSK4, 16);
}
#endif

/* Every event from the calendar into lanes, the passes, and back. */
static void run_lanes(sim *s, occ_duration_kind kind, bool trace)
{
    lanes L;
    calendar *q = &s->cal;
    atomic_fetch_add_explicit(&occ__lanes_hook.runs, 1, memory_order_relaxed);
    L.n = (uint32_t)q->n;
    /* in the calendar's order: among equal times the one added last comes
     * first, so the sequence numbers fall */
    for (uint32_t k = 0; k < L.n; k++) {
        uint32_t i = cal_first(q);
        L.t[k] = q->ev[i].time;
        L.core[k] = q->ev[i].core;
        L.contexts[k] = q->contexts[i];
        L.seq[k] = L.n - k;
        cal_remove_head(q, i);
    }
    for (uint32_t k = L.n; k < LANES_MAX; k++)
        L.t[k] = INFINITY;
#ifdef HAVE_LANES_AVX2
    if (s->draw_copy >= OCC__DRAW_AVX2 && !occ__lanes_hook.base)
        lanes_passes_avx2(s, &L, kind, trace);
    else
#endif
        lanes_passes_base(s, &L, kind, trace);
    /* back, in the order they were added (the calendar puts the last added
     * first among equal times); the present key is the earliest's */
    uint8_t by_seq[LANES_MAX];
    double first = INFINITY;
    for (uint32_t k = 0; k < L.n; k++) {
        uint32_t j = k;
        for (; j > 0 && L.seq[by_seq[j - 1]] > L.seq[k]; j--)
            by_seq[j] = by_seq[j - 1];
        by_seq[j] = (uint8_t)k;
        first = L.t[k] < first ? L.t[k] : first;
    }
    q->now_key = key_of(q, first);
    for (uint32_t k = 0; k < L.n; k++) {
        uint32_t i = by_seq[k];
        cal_push(q, L.t[i], L.core[i], L.contexts[i]); /* the slots are free: no allocation */
    }
}

/* (its loops aligned to 64 bytes: placed otherwise, the same instructions ran up
 * to 14 % slower on tgl 512/32 with a list, measured on 2026-11-25) */
#if defined(__GNUC__) && !defined(__clang__)
#define ALIGN_LOOPS_64 __attribute__((optimize("align-loops=64")))
#else
#define ALIGN_LOOPS_64 /* GCC's option; other compilers place loops their own way */
#endif
static ALIGN_LOOPS_64 void run_steady(sim *s)
{
    if (s->n_eligible || s->trk.merge_none || s->next >= s->N)
        return;
    occ_duration_kind kind = s->dur.kind == OCC_DURATIONS_NORMAL ? OCC_DURATIONS_UNIFORM : s->dur.kind;
    bool trace = s->trace != NULL;
    /* few events in flight: a while through the calendar, then lanes */
    bool few = kind != OCC_DURATIONS_EQUAL && s->cal.n <= LANES_MAX && !occ__lanes_hook.off;
    if (!s->lanes_after)
        s->lanes_after = LANES_AFTER;
    uint64_t stop = few && s->N - s->next > s->lanes_after ? s->next + s->lanes_after : s->N;
    /* one copy of the loop per duration source, with and without a trace */
    switch (kind) {
    case OCC_DURATIONS_UNIFORM:
        trace ? steady_loop(s, OCC_DURATIONS_UNIFORM, true, stop)
              : steady_loop(s, OCC_DURATIONS_UNIFORM, false, stop);
        break;
    case OCC_DURATIONS_LIST:
        trace ? steady_loop(s, OCC_DURATIONS_LIST, true, stop)
              : steady_loop(s, OCC_DURATIONS_LIST, false, stop);
        break;
    default:
        trace ? steady_loop(s, OCC_DURATIONS_EQUAL, true, stop)
              : steady_loop(s, OCC_DURATIONS_EQUAL, false, stop);
    }
    if (s->next == stop && stop < s->N) {
        uint64_t from = s->next;
        run_lanes(s, kind, trace);
        /* lanes that end soon (events that are not steady come often) did
         * not repay the move: wait longer before the next */
        bool short_run = s->next - from < 4 * LANES_AFTER && s->next < s->N;
        s->lanes_after = short_run && s->lanes_after < (1u << 24) ? 2 * s->lanes_after
                                                                  : LANES_AFTER;
    }
}

static occ_status run_events(sim *s)
{
    cores_rebuild(s);
    if (!dispatch_new(s, 0))
        return OCC_ERR_NO_MEMORY;
    if (s->partial_now != s->partial_always) {
        s->partial_now = s->partial_always; /* launch is over */
        cores_rebuild(s);
    }
    occ__trk_instant(&s->trk, 0);
    double T = 0;
    while (s->cal.n) {
        run_steady(s);
        /* every event at the earliest time retires */
        uint32_t i = cal_first(&s->cal);
        T = s->cal.ev[i].time;
        do {
            uint32_t core = s->cal.ev[i].core, contexts = s->cal.contexts[i];
            cal_remove_head(&s->cal, i);
            retire(s, core, contexts);
            if (!s->cal.n)
                break;
            i = cal_first(&s->cal);
        } while (s->cal.ev[i].time == T);
        /* events added now come at T or later: the present key is T's (the
         * look-ahead above may have moved it to a later event's) */
        s->cal.now_key = key_of(&s->cal, T);
        /* threads already bound to a core come before later work-groups */
        for (uint32_t j = 0; j < s->trk.n_batch; j++) {
            uint32_t c = s->trk.batch[j];
            if (s->pending[c] && !serve_pending(s, c, T))
                return OCC_ERR_NO_MEMORY;
        }
        if (!dispatch_new(s, T))
            return OCC_ERR_NO_MEMORY;
        occ__trk_instant(&s->trk, T);
    }
    return occ__trk_finish(&s->trk, 0, T);
}

/* ---- steps (equal durations) --------------------------------------------------------- */

/* Admit up to *left work-groups at a step; returns how many. */
static uint64_t admit_step(sim *s, uint64_t *left)
{
    uint64_t admitted = 0;
    if (!s->spread) {
        /* pack: the lowest eligible core takes work-groups until it is not
         * eligible; at a step nothing retires, so it stays so */
        for (uint32_t c = 0; c < s->C && *left; c++) {
            uint32_t busy = s->trk.busy[c], wgs = s->trk.wgs[c];
            if (wgs >= s->admit_cap)
                continue;
            uint64_t whole = (s->ctx - busy) / s->t;
            if (whole > s->admit_cap - wgs)
                whole = s->admit_cap - wgs;
            if (whole > *left)
                whole = *left;
            busy += (uint32_t)whole * s->t;
            wgs += (uint32_t)whole;
            *left -= whole;
            admitted += whole;
            if (s->partial_now && *left && wgs < s->admit_cap && busy < s->ctx) {
                s->pending[c] = s->t - (s->ctx - busy);
                busy = s->ctx;
                wgs++;
                --*left;
                admitted++;
            }
            occ__trk_set_busy(&s->trk, c, busy);
            occ__trk_set_wgs(&s->trk, c, wgs);
        }
        return admitted;
    }
    /* spread: one by one, through the eligible-core sets */
    cores_rebuild(s);
    while (*left) {
        uint32_t c = pick_core(s);
        if (c == NO_CORE)
            break;
        uint32_t free_ctx = s->ctx - s->trk.busy[c];
        uint32_t n = free_ctx < s->t ? free_ctx : s->t;
        if (n < s->t)
            s->pending[c] = s->t - n;
        occ__trk_set_busy(&s->trk, c, s->trk.busy[c] + n);
        occ__trk_set_wgs(&s->trk, c, s->trk.wgs[c] + 1);
        core_update(s, c);
        --*left;
        admitted++;
    }
    return admitted;
}

typedef struct history {
    uint32_t *states; /* steps x C pending vectors */
    uint64_t *hash, *admitted;
    double *area;
    bool *ended;      /* a phase ended at the step's start */
    size_t n, cap;
} history;

static uint64_t state_hash(const uint32_t *p, uint32_t C)
{
    uint64_t h = 1469598103934665603ull;
    for (uint32_t c = 0; c < C; c++)
        h = (h ^ p[c]) * 1099511628211ull;
    return h;
}

static bool history_add(history *h, const uint32_t *p, uint32_t C, uint64_t hash)
{
    if (h->n == h->cap) {
        size_t cap = h->cap ? h->cap * 2 : 16;
        uint32_t *st = realloc(h->states, cap * C * sizeof *st);
        if (!st)
            return false;
        h->states = st;
        uint64_t *hh = realloc(h->hash, cap * sizeof *hh);
        if (!hh)
            return false;
        h->hash = hh;
        uint64_t *ad = realloc(h->admitted, cap * sizeof *ad);
        if (!ad)
            return false;
        h->admitted = ad;
        double *ar = realloc(h->area, cap * sizeof *ar);
        if (!ar)
            return false;
        h->area = ar;
        bool *en = realloc(h->ended, cap * sizeof *en);
        if (!en)
            return false;
        h->ended = en;
        h->cap = cap;
    }
    memcpy(h->states + h->n * C, p, C * sizeof *p);
    h->hash[h->n] = hash;
    h->n++;
    return true;
}

static void history_free(history *h)
{
    free(h->states);
    free(h->hash);
    free(h->admitted);
    free(h->area);
    free(h->ended);
}

static occ_status run_steps(sim *s, occ_timeline *tl)
{
    const uint32_t C = s->C;
    uint64_t left = s->N, k = 0;
    uint32_t per_core = s->ctx / s->t + (s->partial_now ? 1 : 0);
    if (per_core > s->admit_cap)
        per_core = s->admit_cap;
    /* with at least this many left at a step's start, the step cannot run out */
    const uint64_t enough = (uint64_t)C * per_core;
    history h = {0};
    bool searching = true;
    size_t repeat_from = SIZE_MAX; /* history index whose state the present step repeats */
    uint32_t n_pending = 0;
    occ_status st = OCC_OK;

    while (left || n_pending) {
        /* the launch step may follow other rules: keep it out of the history */
        bool steady = k > 0 || s->partial_now == s->partial_always;
        size_t step = h.n;
        if (!steady) {
            /* not recorded */
        } else if (searching && left >= enough && step < HISTORY_STEPS) {
            uint64_t hash = state_hash(s->pending, C);
            for (size_t i = 0; i < step; i++)
                if (h.hash[i] == hash &&
                    !memcmp(h.states + i * C, s->pending, C * sizeof *s->pending)) {
                    repeat_from = i;
                    break;
                }
            if (!history_add(&h, s->pending, C, hash)) {
                st = OCC_ERR_NO_MEMORY;
                break;
            }
        } else {
            searching = false;
        }
        /* retire: everything dispatched at k-1 ends at k, except threads
         * waiting at a barrier; a waiting work-group keeps its slot */
        n_pending = 0;
        for (uint32_t c = 0; c < C; c++) {
            uint32_t p = s->pending[c];
            occ__trk_set_busy(&s->trk, c, s->barrier && p ? s->t - p : 0);
            occ__trk_set_wgs(&s->trk, c, p ? 1 : 0);
            if (p) {
                /* its threads take contexts first; a core always has room */
                occ__trk_set_busy(&s->trk, c, s->trk.busy[c] + p);
                s->pending[c] = 0;
            }
        }
        uint64_t admitted = admit_step(s, &left);
        if (!admitted && !s->trk.busy_total && left) {
            st = OCC_ERR_UNSUPPORTED; /* an idle GPU took nothing: cannot happen with
                                         resident_wgs >= 1, but never loop */
            break;
        }
        for (uint32_t c = 0; c < C; c++)
            n_pending += s->pending[c] != 0;
        bool ended = occ__trk_instant(&s->trk, (double)k);
        k++;
        s->partial_now = s->partial_always;
        if (searching && steady) {
            h.admitted[step] = admitted;
            h.area[step] = (double)s->trk.busy_total;
            h.ended[step] = ended;
        }
        if (repeat_from != SIZE_MAX) {
            /* steps repeat_from+1 .. step form one period */
            searching = false;
            size_t i = repeat_from;
            repeat_from = SIZE_MAX;
            uint64_t P = step - i, W = 0, m = 0;
            double area = 0;
            for (size_t j = i + 1; j <= step; j++) {
                W += h.admitted[j];
                m += h.ended[j];
                area += h.area[j];
            }
            uint64_t K = left >= enough ? (left - enough) / W : 0;
            bool counting = !s->trk.store || s->trk.overflow ||
                            (m && K > (s->trk.max_phases - s->trk.n) / m);
            if (K && (m == 0 || counting)) {
                occ__trk_repeat(&s->trk, K, (double)P, m, area);
                k += K * P;
                left -= K * W;
                tl->extrapolated = true;
            }
        }
    }
    history_free(&h);
    if (st)
        return st;
    /* the last step's threads retire */
    for (uint32_t c = 0; c < C; c++) {
        occ__trk_set_busy(&s->trk, c, 0);
        occ__trk_set_wgs(&s->trk, c, 0);
    }
    occ__trk_instant(&s->trk, (double)k);
    return occ__trk_finish(&s->trk, 0, (double)k);
}

/* ---- entry point -------------------------------------------------------------------- */

static void sim_free(sim *s)
{
    free(s->pending);
    free(s->waiting);
    free(s->pdur);
    free(s->pwg);
    free(s->bits);
    free(s->nonempty);
    free(s->where);
    cal_free(&s->cal);
    free(s->part_time);
    free(s->part_ctx);
    free(s->n_parts);
    occ__trk_free(&s->trk);
}

occ_status occ_timeline_simulate(const occ_device *dev, const occ_kernel *k, uint64_t work_groups,
                                 const occ_sim_options *opts, occ_timeline *out, occ_diag *diag)
{
    if (!dev || !k || !out || k->struct_size < sizeof *k)
        return OCC_ERR_INVALID_ARGUMENT;
    occ_sim_options defaults;
    occ_sim_options_init(&defaults);
    if (!opts)
        opts = &defaults;
    if (opts->struct_size < sizeof *opts)
        return OCC_ERR_INVALID_ARGUMENT;
    occ_timeline_init(out);
    const occ_device_desc *d = occ_device_describe(dev);
    if (work_groups == 0)
        return occ__diag(diag, OCC_ERR_VALUE, NULL, 0, 0, "work_groups",
                         "the number of work-groups must be positive");
    if (work_groups > OCC_TIMELINE_MAX_WORK_GROUPS)
        return occ__diag(diag, OCC_ERR_VALUE, NULL, 0, 0, "work_groups",
                         "%llu work-groups: the simulator takes at most 2^53 (times are doubles)",
                         (unsigned long long)work_groups);
    occ_dispatch_order order = opts->order ? opts->order : d->dispatch_order;
    if (order != OCC_DISPATCH_PACK && order != OCC_DISPATCH_SPREAD)
        return OCC_ERR_INVALID_ARGUMENT;
    if ((unsigned)opts->partial > OCC_PARTIAL_ALWAYS || (unsigned)opts->merge > OCC_MERGE_NONE ||
        (unsigned)opts->barrier_split > OCC_BARRIER_SPLIT_NEVER)
        return OCC_ERR_INVALID_ARGUMENT;
    occ_status st = occ_durations_check(&opts->durations, diag);
    if (st)
        return st;
    occ_residency r;
    occ_residency_compute(dev, k, &r);
    if (!r.launchable) {
        char why[192];
        occ_residency_reason(dev, k, why, sizeof why);
        return occ__diag(diag, OCC_ERR_UNSUPPORTED, NULL, 0, 0, "kernel", "cannot launch: %s", why);
    }
    if (r.resident_wgs == 0) /* an inconsistent profile can say "launchable" with room for none */
        return occ__diag(diag, OCC_ERR_UNSUPPORTED, NULL, 0, 0, "kernel",
                         "no work-group fits on a core (a per-core limit is 0)");

    if (!(opts->time_unit_s >= 0))
        return OCC_ERR_INVALID_ARGUMENT;
    if (occ_kernel_cluster_size(k)) { /* in clusters: dispatch_clusters.c */
        st = occ__simulate_clusters(dev, k, &r, work_groups, opts, out, diag);
        out->work_groups = work_groups;
        out->contexts_per_work_group = r.contexts_per_wg;
        out->resident_work_groups = r.resident_wgs;
        out->admit_limit = r.resident_wgs < d->cluster_max_work_groups ? r.resident_wgs
                                                                        : d->cluster_max_work_groups;
        out->order = OCC_DISPATCH_SPREAD;
        out->partial = OCC_PARTIAL_NO;
        out->barrier = k->barrier;
        return st;
    }
    occ_partial_policy whole = opts->partial == OCC_PARTIAL_DEVICE
                                   ? (d->partial_dispatch ? OCC_PARTIAL_LAUNCH : OCC_PARTIAL_NO)
                                   : opts->partial;
    if (opts->time_unit_s > 0 && occ_device_has_timing(d) && whole == OCC_PARTIAL_NO) {
        /* the dispatch-timing layer (dispatch_timed.c) */
        bool registers_limit = (r.limited_by & (1u << OCC_RES_REGISTERS)) != 0;
        /* thread contexts bind and the work-group slots do not */
        bool threads_limit = (r.limited_by & (1u << OCC_RES_THREADS)) &&
                             !(r.limited_by & (1u << OCC_RES_WG_SLOTS));
        st = occ__simulate_timed(d, r.contexts_per_core, r.contexts_per_wg, r.resident_wgs,
                                 order == OCC_DISPATCH_SPREAD, registers_limit, threads_limit,
                                 work_groups, opts, out, diag);
        out->work_groups = work_groups;
        out->contexts_per_work_group = r.contexts_per_wg;
        out->resident_work_groups = r.resident_wgs;
        out->admit_limit = r.resident_wgs;
        out->order = order;
        out->partial = OCC_PARTIAL_NO;
        out->barrier = k->barrier;
        if (st == OCC_OK && out->n_phases) { /* the simulator's summary fields */
            out->start = out->phases[0].start;
            out->end = out->phases[out->n_phases - 1].end;
            double area = 0;
            uint64_t peak = 0;
            for (size_t i = 0; i < out->n_phases; i++) {
                const occ_phase *ph = &out->phases[i];
                area += (double)ph->thread_contexts * (ph->end - ph->start);
                if (ph->thread_contexts > peak)
                    peak = ph->thread_contexts;
            }
            out->busy_context_time = area;
            out->peak_thread_contexts = peak;
        }
        return st;
    }

    sim s;
    memset(&s, 0, sizeof s);
    s.C = d->cores;
    s.ctx = r.contexts_per_core;
    s.t = r.contexts_per_wg;
    uint32_t cap = OCC_NO_LIMIT;
    for (int i = 0; i < OCC_RES_COUNT; i++)
        if (i != OCC_RES_THREADS && r.limits[i] < cap)
            cap = r.limits[i];
    s.admit_cap = cap < s.ctx ? cap : s.ctx; /* an admitted WG holds >= 1 context */
    occ_partial_policy partial = opts->partial;
    if (partial == OCC_PARTIAL_DEVICE)
        partial = d->partial_dispatch ? OCC_PARTIAL_LAUNCH : OCC_PARTIAL_NO;
    if (k->barrier && opts->barrier_split == OCC_BARRIER_SPLIT_NEVER)
        partial = OCC_PARTIAL_NO;
    s.partial_now = partial != OCC_PARTIAL_NO;
    s.partial_always = partial == OCC_PARTIAL_ALWAYS;
    s.barrier = k->barrier;
    s.spread = order == OCC_DISPATCH_SPREAD;
    s.N = work_groups;
    s.dur = opts->durations;
    s.mixed_seed = occ__mix64(s.dur.seed);
    s.draw_copy = occ__draw_block_best();
    s.trace = opts->trace;
    s.user = opts->trace_user;

    out->cores = s.C;
    out->contexts_per_core = s.ctx;
    out->contexts_total = (uint64_t)s.C * s.ctx;
    out->work_groups = work_groups;
    out->contexts_per_work_group = s.t;
    out->resident_work_groups = r.resident_wgs;
    out->admit_limit = s.admit_cap;
    out->order = order;
    out->partial = partial;
    out->barrier = s.barrier;

    st = occ__trk_init(&s.trk, out, s.C, s.ctx, opts->lanes, !opts->summary_only, opts->merge,
                       opts->max_phases);
    if (st)
        return st;
    s.words = (s.C + 63) / 64;
    s.levels = s.spread ? s.ctx + 1 : 1;
    s.level_words = (s.levels + 63) / 64;
    s.pending = calloc(s.C, sizeof *s.pending);
    s.waiting = calloc(s.C, sizeof *s.waiting);
    s.pdur = calloc(s.C, sizeof *s.pdur);
    s.pwg = calloc(s.C, sizeof *s.pwg);
    s.bits = calloc((size_t)s.levels * s.words, sizeof *s.bits);
    s.nonempty = calloc(s.level_words, sizeof *s.nonempty);
    s.where = malloc((size_t)s.C * sizeof *s.where);
    bool ok = s.pending && s.waiting && s.pdur && s.pwg && s.bits && s.nonempty && s.where;
    if (ok)
        for (uint32_t c = 0; c < s.C; c++)
            s.where[c] = NO_LEVEL;
    if (ok && s.trace && s.barrier) {
        s.part_time = calloc((size_t)s.C * s.t, sizeof *s.part_time);
        s.part_ctx = calloc((size_t)s.C * s.t, sizeof *s.part_ctx);
        s.n_parts = calloc(s.C, sizeof *s.n_parts);
        ok = s.part_time && s.part_ctx && s.n_parts;
    }
    if (!ok) {
        sim_free(&s);
        occ_timeline_free(out);
        return OCC_ERR_NO_MEMORY;
    }
    bool steps = s.dur.kind == OCC_DURATIONS_EQUAL && !opts->force_events && !s.trace;
    if (!steps) {
        /* events in flight: each core's whole work-groups, and one split */
        uint32_t per_core = s.ctx / s.t + 1;
        if (per_core > s.admit_cap)
            per_core = s.admit_cap;
        double mean, longest;
        duration_scale(&s.dur, &mean, &longest);
        if (!cal_init(&s.cal, (double)s.C * per_core, mean, longest)) {
            sim_free(&s);
            occ_timeline_free(out);
            return OCC_ERR_NO_MEMORY;
        }
    }
    st = steps ? run_steps(&s, out) : run_events(&s);
    if (st == OCC_ERR_NO_MEMORY)
        occ_timeline_free(out);
    sim_free(&s);
    if (st == OCC_ERR_TOO_LARGE)
        occ__diag(diag, st, NULL, 0, 0, "max_phases",
                  "the timeline has %zu phases, more than the limit of %zu", out->n_phases,
                  opts->max_phases ? opts->max_phases : (size_t)OCC_TIMELINE_DEFAULT_MAX_PHASES);
    return st;
}
