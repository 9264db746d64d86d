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

/* Work-group i starts on core c at `start`: its chunk, the trace, its retirement. */
static void start_wg(sim *s, const occ_sim_options *o, uint64_t mixed, occ_chunk *chunks, uint64_t i, uint32_t c,
                     uint32_t contexts_per_wg, double start)
{
    double dur = occ__draw(&o->durations, mixed, i);
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
    const bool slots_limit = !threads_limit && !drain && resident_wgs >= d->max_work_groups_per_core;
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
    s.last_send = malloc(C * sizeof *s.last_send);
    /* at most one retirement per resident work-group and two other events per core */
    s.ev = malloc(((size_t)C * resident_wgs + 2 * (size_t)C + 1) * sizeof *s.ev);
    s.sends = malloc(((size_t)C + 1) * sizeof *s.sends);
    occ_chunk *chunks = malloc((size_t)N * sizeof *chunks);
    if (!s.running || !s.held || !s.waiting || !s.pending || !s.state || !s.queued ||
        !s.first_done || !s.last_send || !s.ev || !s.sends || !chunks) {
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
