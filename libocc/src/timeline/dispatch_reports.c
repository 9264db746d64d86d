/* Dispatch with timing, refills reported per core (docs/phases.md "Dispatch
 * timing", "Refills in reports").
 *
 * The variant of dispatch_timed.c used when the profile has refill_pause_s.
 * The H100's per-block records show that the dispatcher does not learn of
 * every retirement at once: a core reports its freed slots in groups, one
 * group at a time, and the dispatcher takes the reports in one after another.
 * The rules, on top of the launch of dispatch_timed.c:
 *
 *  - report: a core with a freed slot and no group under way asks the
 *    dispatcher; the dispatcher takes reports in one at a time, each
 *    gpu_report_per_work_group x (slots reported) long, and opens the core's
 *    group when it takes it in;
 *  - group: it holds the slots freed before it opened and those that free
 *    within refill_window of its opening (refill_window_threads when thread
 *    contexts alone limit the residency); later ones wait for the next group;
 *  - sends: the dispatcher sends a group's work-groups one by one, at least
 *    max(core_interval, core_interval_per_context x contexts) apart on one
 *    core (core_interval_threads instead of core_interval when thread
 *    contexts alone limit the residency, if the profile has it), and GPU-wide as the token bucket of dispatch_timed.c allows
 *    (gpu_interval, gpu_interval_per_context, gpu_burst_work_groups); among
 *    the cores with a send due the earliest goes first; a work-group starts
 *    refill_gap after its send, a gap that differs by pair of cores
 *    (refill_gap_spread: the H100's SMs of one TPC share theirs, and the
 *    TPCs' differ by up to 90 ns, the same in every launch);
 *  - pause: a core's next group is asked for no sooner than refill_pause
 *    after the last send of its group (its closed window and its last send);
 *  - the work-group slots limit the residency (the H100's 32 block slots,
 *    blocks of 32 and 64 threads): core_interval_slots instead of
 *    core_interval, gpu_burst_slots_work_groups instead of
 *    gpu_burst_work_groups, and refill_pause_first instead of refill_pause
 *    after each core's first group after the launch, where the profile has
 *    them (the first refill starts slowly and ends fast);
 *  - sub-partitions (sub_partition_hold, not when registers drain the
 *    core): a work-group's contexts go to the core's reg_partitions
 *    sub-partitions in turn, from where the previous work-group's ended, each
 *    holding contexts_per_core / reg_partitions; it starts once each of its
 *    sub-partitions has room (the ends of the work-groups there are known
 *    when it is sent), and no sooner than the one sent before it; held longer
 *    than sub_partition_hold after its gap, it starts then on the opposite
 *    sub-partitions; the core takes its next send once it has started (the
 *    H100's 64-thread blocks of unequal durations, d062);
 *  - registers limit the residency (drain) and the profile has
 *    refill_gap_drained: a core's slots free only once it is empty, and its
 *    report goes out refill_gap_drained - refill_gap after its last end.
 *
 * Each work-group becomes one occ_chunk as in dispatch_timed.c.  Cost:
 * O(work-groups x log(cores x residency)). */
#include "timeline/timeline_internal.h"

#include <math.h>
#include <stdlib.h>

enum ev_kind { EV_RETIRE, EV_PAUSE_OVER, EV_WINDOW_CLOSES, EV_GROUP_OPENS };
enum core_state {
    IDLE,      /* no group: the next freed slot asks for one */
    OPEN,      /* a group is open: freed slots join it */
    CLOSED,    /* window closed: its work-groups are being sent */
    PAUSED,    /* until refill_pause after the group's last send */
    REPORTED   /* the report waits for the dispatcher */
};

typedef struct event {
    double time;
    uint32_t kind;
    uint32_t core;
} event;

/* (time, kind, core): the same order at every run, retirements first */
static bool before(const event *a, const event *b)
{
    if (a->time != b->time)
        return a->time < b->time;
    if (a->kind != b->kind)
        return a->kind < b->kind;
    return a->core < b->core;
}

static void push(event *h, size_t *n, event e)
{
    size_t i = (*n)++;
    while (i) {
        size_t p = (i - 1) / 2;
        if (!before(&e, &h[p]))
            break;
        h[i] = h[p];
        i = p;
    }
    h[i] = e;
}

static event pop(event *h, size_t *n)
{
    event top = h[0], last = h[--*n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= *n)
            break;
        if (c + 1 < *n && before(&h[c + 1], &h[c]))
            c++;
        if (!before(&h[c], &last))
            break;
        h[i] = h[c];
        i = c;
    }
    if (*n)
        h[i] = last;
    return top;
}

typedef struct sim {
    /* parameters in units of the work-group duration */
    double gap, gap_spread, window, pause, pause_first, per_report_wg, interval, gpu_interval,
        burst;
    uint32_t core_pairs;
    /* per core */
    uint32_t *running, *held, *waiting, *pending;
    uint8_t *state, *queued, *first_done; /* first_done: the core's first group sent */
    double *last_send;
    /* sub-partitions (0 parts: off): per core the turn's pointer, the last
     * start, and per sub-partition the ends of the contexts placed there */
    uint32_t parts, room, room_max, contexts;
    double hold;
    uint32_t *sub_ptr, *n_ends;
    double *last_start, *ends, *tmp;
    /* the two queues: events, and one due send per core (kind unused) */
    event *ev, *sends;
    size_t n_ev, n_sends;
    double tat;           /* the token bucket's theoretical arrival time */
    double reports_free;  /* when the dispatcher takes in the next report */
} sim;

static void queue_send(sim *s, uint32_t c, double t)
{
    if (!s->pending[c] || s->queued[c])
        return;
    s->queued[c] = 1;
    double due = s->last_send[c] + s->interval;
    push(s->sends, &s->n_sends, (event){due > t ? due : t, 0, c});
}

static void report(sim *s, uint32_t c, double t)
{
    double in = t > s->reports_free ? t : s->reports_free;
    s->reports_free = in + s->per_report_wg * s->waiting[c];
    s->state[c] = REPORTED;
    push(s->ev, &s->n_ev, (event){in, EV_GROUP_OPENS, c});
}

static void group_done(sim *s, uint32_t c, double t)
{
    double over = s->last_send[c] + (s->first_done[c] ? s->pause : s->pause_first);
    s->first_done[c] = 1;
    s->state[c] = PAUSED;
    push(s->ev, &s->n_ev, (event){over > t ? over : t, EV_PAUSE_OVER, c});
}

/* Sub-partitions: when the work-group that is ready on core c at `ready`
 * (lasting dur) starts; records its contexts' ends.  Without them: ready. */
static double place(sim *s, uint32_t c, double ready, double dur)
{
    if (!s->parts)
        return ready;
    const uint32_t P = s->parts, first = s->sub_ptr[c];
    double *ends = s->ends + (size_t)c * P * s->room_max;
    uint32_t *n = s->n_ends + (size_t)c * P;
    s->sub_ptr[c] = (first + s->contexts) % P;
    double t = fmax(ready, s->last_start[c]);
    const double t0 = t;
    for (uint32_t p = 0; p < P; p++) {
        /* contexts of this work-group on sub-partition p */
        uint32_t need = s->contexts / P + ((p + P - first) % P < s->contexts % P);
        if (!need)
            continue;
        /* it has room once all but room - need of its later ends are past */
        uint32_t m = 0;
        for (uint32_t j = 0; j < n[p]; j++)
            if (ends[p * s->room_max + j] > t0)
                s->tmp[m++] = ends[p * s->room_max + j];
        if (m + need <= s->room)
            continue;
        uint32_t k = m + need - s->room; /* the k-th smallest of them */
        for (uint32_t a = 1; a < m; a++) /* insertion sort: at most contexts_per_core */
            for (uint32_t b = a; b > 0 && s->tmp[b - 1] > s->tmp[b]; b--) {
                double x = s->tmp[b];
                s->tmp[b] = s->tmp[b - 1];
                s->tmp[b - 1] = x;
            }
        t = fmax(t, s->tmp[k - 1]);
    }
    uint32_t shift = 0;
    if (s->hold > 0 && t > ready + s->hold) { /* held too long: the opposite ones */
        t = ready + s->hold;
        shift = P / 2;
    }
    for (uint32_t p = 0; p < P; p++) { /* forget the ends past */
        uint32_t m = 0;
        for (uint32_t j = 0; j < n[p]; j++)
            if (ends[p * s->room_max + j] > t)
                ends[p * s->room_max + m++] = ends[p * s->room_max + j];
        n[p] = m;
    }
    for (uint32_t w = 0; w < s->contexts; w++) {
        uint32_t p = (first + w + shift) % P;
        if (n[p] < s->room_max)
            ends[p * s->room_max + n[p]++] = t + dur;
    }
    s->last_start[c] = t;
    return t;
}

/* Work-group i is ready on core c at `ready` and starts then, or when its
 * sub-partitions let it: its chunk, the trace, its retirement. */
static void start_wg(sim *s, const occ_sim_options *o, uint64_t mixed, occ_chunk *chunks, uint64_t i, uint32_t c,
                     uint32_t contexts_per_wg, double ready)
{
    double dur = occ__draw(&o->durations, mixed, i);
    double start = place(s, c, ready, dur);
    occ_chunk ch = {i, c, contexts_per_wg, start, start, start + dur};
    chunks[i] = ch;
    if (o->trace)
        o->trace(o->trace_user, &ch);
    s->running[c]++;
    push(s->ev, &s->n_ev, (event){start + dur, EV_RETIRE, c});
}

/* Core c's refill gap: spread evenly over the pairs of cores, the first pair
 * the shortest (which pair is which does not matter to the occupancy). */
static double gap_of(const sim *s, uint32_t c)
{
    if (s->core_pairs < 2)
        return s->gap;
    return s->gap + s->gap_spread * ((double)(c / 2) / (s->core_pairs - 1) - 0.5);
}

static void sim_free(sim *s)
{
    free(s->running);
    free(s->held);
    free(s->waiting);
    free(s->pending);
    free(s->state);
    free(s->queued);
    free(s->first_done);
    free(s->sub_ptr);
    free(s->n_ends);
    free(s->last_start);
    free(s->ends);
    free(s->tmp);
    free(s->last_send);
    free(s->ev);
    free(s->sends);
}

occ_status occ__simulate_timed_reports(const occ_device_desc *d, uint32_t contexts_per_core,
                                       uint32_t contexts_per_wg, uint32_t resident_wgs,
                                       bool drain, bool threads_limit, uint64_t N,
                                       const occ_sim_options *o, occ_timeline *out,
                                       occ_diag *diag)
{
    const uint32_t C = d->cores;
    const double unit = o->time_unit_s;
    drain = drain && d->refill_gap_drained_s > 0;
    const double per_wg = d->core_interval_per_context_s * contexts_per_wg / unit;
    const double launch_interval = fmax(d->launch_interval_s / unit, per_wg);
    const double gpu_per_wg = d->gpu_interval_per_context_s * contexts_per_wg / unit;
    /* the work-group slots bind (threads_limit says they do not) */
    const bool slots_limit =
        !threads_limit && !drain && resident_wgs >= d->max_work_groups_per_core;
    double core_interval = d->core_interval_s;
    if (threads_limit && d->core_interval_threads_s > 0)
        core_interval = d->core_interval_threads_s;
    else if (slots_limit && d->core_interval_slots_s > 0)
        core_interval = d->core_interval_slots_s;
    const uint32_t burst = slots_limit && d->gpu_burst_slots_work_groups
                               ? d->gpu_burst_slots_work_groups : d->gpu_burst_work_groups;
    const double pause_first = slots_limit && d->refill_pause_first_s > 0 ? d->refill_pause_first_s
                                                                          : d->refill_pause_s;
    sim s = {
        .gap = d->refill_gap_s / unit,
        .gap_spread = d->refill_gap_spread_s / unit,
        .core_pairs = (C + 1) / 2,
        .window = (threads_limit ? d->refill_window_threads_s : d->refill_window_s) / unit,
        .pause = d->refill_pause_s / unit,
        .pause_first = pause_first / unit,
        .per_report_wg = d->gpu_report_per_work_group_s / unit,
        .interval = fmax(core_interval / unit, per_wg),
        .gpu_interval = fmax(d->gpu_interval_s / unit, gpu_per_wg),
        .burst = (double)burst * d->gpu_interval_s / unit,
        .tat = -INFINITY,
        .reports_free = -INFINITY,
    };
    const double drained_delay = drain ? (d->refill_gap_drained_s - d->refill_gap_s) / unit : 0;
    s.running = calloc(C, sizeof *s.running);
    s.held = calloc(C, sizeof *s.held);
    s.waiting = calloc(C, sizeof *s.waiting);
    s.pending = calloc(C, sizeof *s.pending);
    s.state = calloc(C, sizeof *s.state);
    s.queued = calloc(C, sizeof *s.queued);
    s.first_done = calloc(C, sizeof *s.first_done);
    bool subs_ok = true;
    if (!drain && d->sub_partition_hold_s > 0 && d->reg_partitions >= 2 &&
        contexts_per_core >= d->reg_partitions) {
        s.parts = d->reg_partitions;
        s.room = contexts_per_core / s.parts;
        s.room_max = contexts_per_core; /* the contexts of the work-groups not yet ended */
        s.contexts = contexts_per_wg;
        s.hold = d->sub_partition_hold_s / unit;
        s.sub_ptr = calloc(C, sizeof *s.sub_ptr);
        s.n_ends = calloc((size_t)C * s.parts, sizeof *s.n_ends);
        s.last_start = malloc(C * sizeof *s.last_start);
        s.ends = malloc((size_t)C * s.parts * s.room_max * sizeof *s.ends);
        s.tmp = malloc(s.room_max * sizeof *s.tmp);
        subs_ok = s.sub_ptr && s.n_ends && s.last_start && s.ends && s.tmp;
        for (uint32_t c = 0; subs_ok && c < C; c++)
            s.last_start[c] = -INFINITY;
    }
    s.last_send = malloc(C * sizeof *s.last_send);
    /* at most one retirement per resident work-group and two other events per core */
    s.ev = malloc(((size_t)C * resident_wgs + 2 * (size_t)C + 1) * sizeof *s.ev);
    s.sends = malloc(((size_t)C + 1) * sizeof *s.sends);
    occ_chunk *chunks = malloc((size_t)N * sizeof *chunks);
    if (!s.running || !s.held || !s.waiting || !s.pending || !s.state || !s.queued ||
        !s.first_done || !subs_ok || !s.last_send || !s.ev || !s.sends || !chunks) {
        sim_free(&s);
        free(chunks);
        return OCC_ERR_NO_MEMORY;
    }
    for (uint32_t c = 0; c < C; c++)
        s.last_send[c] = -INFINITY;
    uint64_t mixed = occ__mix64(o->durations.seed);
    uint64_t next = 0;

    /* the launch: spread, every core starts its work-groups launch_interval apart */
    for (uint32_t round = 0; round < resident_wgs && next < N; round++)
        for (uint32_t c = 0; c < C && next < N; c++) {
            start_wg(&s, o, mixed, chunks, next++, c, contexts_per_wg, round * launch_interval);
        }

    for (;;) {
        double next_event = s.n_ev ? s.ev[0].time : INFINITY;
        if (s.n_sends) { /* the earliest due send, if the bucket lets it go before the next event */
            double t = fmax(s.sends[0].time, s.tat - s.burst);
            if (t <= next_event) {
                uint32_t c = pop(s.sends, &s.n_sends).core;
                s.queued[c] = 0;
                if (next < N) {
                    s.tat = fmax(s.tat, t) + s.gpu_interval;
                    start_wg(&s, o, mixed, chunks, next++, c, contexts_per_wg, t + gap_of(&s, c));
                }
                s.pending[c]--;
                s.last_send[c] = t;
                if (s.parts && s.last_start[c] > t + gap_of(&s, c)) /* held at the core */
                    s.last_send[c] = s.last_start[c] - gap_of(&s, c);
                if (s.pending[c])
                    queue_send(&s, c, t);
                else if (s.state[c] == CLOSED)
                    group_done(&s, c, t);
                continue;
            }
        }
        if (!s.n_ev)
            break;
        event e = pop(s.ev, &s.n_ev);
        uint32_t c = e.core;
        switch (e.kind) {
        case EV_RETIRE:
            s.running[c]--;
            if (drain) { /* the slots free once the core is empty */
                s.held[c]++;
                if (s.running[c])
                    break;
                s.waiting[c] += s.held[c];
                s.held[c] = 0;
                if (s.state[c] == IDLE) {
                    s.state[c] = PAUSED;
                    push(s.ev, &s.n_ev, (event){e.time + drained_delay, EV_PAUSE_OVER, c});
                }
                break;
            }
            if (s.state[c] == OPEN) {
                s.pending[c]++;
                queue_send(&s, c, e.time);
            } else {
                s.waiting[c]++;
                if (s.state[c] == IDLE)
                    report(&s, c, e.time);
            }
            break;
        case EV_PAUSE_OVER:
            if (s.state[c] != PAUSED)
                break;
            if (s.waiting[c])
                report(&s, c, e.time);
            else
                s.state[c] = IDLE;
            break;
        case EV_GROUP_OPENS:
            s.state[c] = OPEN;
            s.pending[c] += s.waiting[c];
            s.waiting[c] = 0;
            push(s.ev, &s.n_ev, (event){e.time + s.window, EV_WINDOW_CLOSES, c});
            queue_send(&s, c, e.time);
            break;
        case EV_WINDOW_CLOSES:
            if (s.state[c] != OPEN)
                break;
            s.state[c] = CLOSED;
            if (!s.pending[c])
                group_done(&s, c, e.time);
            break;
        }
    }
    sim_free(&s);
    occ_status st = occ_timeline_from_chunks(chunks, (size_t)N, C, contexts_per_core, o->merge,
                                             o->lanes, out, diag);
    free(chunks);
    return st;
}
