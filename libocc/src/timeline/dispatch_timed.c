/* Dispatch with timing: the layer that makes dispatch take time
 * (docs/phases.md "Dispatch timing").
 *
 * Used instead of the untimed engines of timeline_sim.c when the caller gives
 * the work-group duration in seconds (occ_sim_options.time_unit_s), the
 * device has dispatch timing (occ_device_desc.refill_gap_s, ...) and
 * work-groups are dispatched whole (every NVIDIA profile).  The rules are the
 * untimed ones (order policy, residency limits), plus:
 *
 *  - launch: an idle core starts its work-groups one after another, at least
 *    max(launch_interval, core_interval_per_context x contexts) apart (the
 *    H100 starts a 1-warp block every 12 ns, a 32-warp one every 130 ns);
 *  - refill: a slot freed at T takes its next work-group no sooner than T +
 *    refill_gap (the dip between a retiring and a refilled work-group), and
 *    two refills on one core are at least max(core_interval,
 *    core_interval_per_context x contexts) apart;
 *  - the GPU's dispatcher sends out refills as fast as slots free for a burst
 *    of gpu_burst_work_groups, then one every gpu_interval (a token bucket,
 *    written as the generic cell rate algorithm: a refill may start no
 *    earlier than tat - burst x interval, and tat advances by the interval);
 *    a work-group of many contexts costs the dispatcher more: its interval is
 *    max(gpu_interval, gpu_interval_per_context x contexts) (the H100 sends
 *    out 1-2 warp blocks every 0.8 ns, 32-warp ones every 3 ns);
 *  - when registers limit the residency (the caller says so: `drain`) and the
 *    profile has refill_gap_drained, a core's freed slots are refilled only
 *    after its last work-group retired, refill_gap_drained after it (the H100
 *    refills a register-full SM only once it is empty).
 *
 * A work-group holds its contexts from its start to its end; a slot is
 * reserved from the dispatch decision on, so a core never holds more than
 * the residency rule allows.  Every work-group becomes one occ_chunk, and the
 * timeline is built from the chunks (occ_timeline_from_chunks), so phases
 * follow the same rule as measurements.  Cost: O(work-groups x cores). */
#include "timeline/timeline_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct retire_ev {
    double time;
    uint32_t core;
} retire_ev;

static void heap_push(retire_ev *h, size_t *n, retire_ev e)
{
    size_t i = (*n)++;
    while (i) {
        size_t p = (i - 1) / 2;
        if (h[p].time <= e.time)
            break;
        h[i] = h[p];
        i = p;
    }
    h[i] = e;
}

static retire_ev heap_pop(retire_ev *h, size_t *n)
{
    retire_ev top = h[0], last = h[--*n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= *n)
            break;
        if (c + 1 < *n && h[c + 1].time < h[c].time)
            c++;
        if (h[c].time >= last.time)
            break;
        h[i] = h[c];
        i = c;
    }
    if (*n)
        h[i] = last;
    return top;
}

/* The core the order policy picks among those with a free slot, or UINT32_MAX. */
static uint32_t pick(const uint32_t *reserved, uint32_t C, uint32_t cap, bool spread)
{
    uint32_t best = UINT32_MAX;
    for (uint32_t c = 0; c < C; c++) {
        if (reserved[c] >= cap)
            continue;
        if (!spread)
            return c;
        if (best == UINT32_MAX || reserved[c] < reserved[best])
            best = c;
    }
    return best;
}

occ_status occ__simulate_timed(const occ_device_desc *d, uint32_t contexts_per_core,
                               uint32_t contexts_per_wg, uint32_t resident_wgs, bool spread,
                               bool drain, bool threads_limit, uint64_t N,
                               const occ_sim_options *o, occ_timeline *out, occ_diag *diag)
{
    if (N > OCC_TIMED_MAX_WORK_GROUPS)
        return occ__diag(diag, OCC_ERR_TOO_LARGE, NULL, 0, 0, "work_groups",
                         "%llu work-groups: dispatch timing is simulated for at most %llu",
                         (unsigned long long)N, (unsigned long long)OCC_TIMED_MAX_WORK_GROUPS);
    if (d->refill_pause_s > 0 && spread) /* refills in reports (dispatch_reports.c) */
        return occ__simulate_timed_reports(d, contexts_per_core, contexts_per_wg, resident_wgs,
                                           drain, threads_limit, N, o, out, diag);
    const uint32_t C = d->cores;
    const double unit = o->time_unit_s;
    drain = drain && d->refill_gap_drained_s > 0;
    const double gap = (drain ? d->refill_gap_drained_s : d->refill_gap_s) / unit;
    const double per_wg = d->core_interval_per_context_s * contexts_per_wg / unit;
    const double launch_interval =
        d->launch_interval_s / unit > per_wg ? d->launch_interval_s / unit : per_wg;
    const double interval = d->core_interval_s / unit > per_wg ? d->core_interval_s / unit : per_wg;
    /* the burst is a credit of time: burst x the base interval */
    const double burst = (double)d->gpu_burst_work_groups * d->gpu_interval_s / unit;
    const double gpu_per_wg = d->gpu_interval_per_context_s * contexts_per_wg / unit;
    const double gpu_interval =
        d->gpu_interval_s / unit > gpu_per_wg ? d->gpu_interval_s / unit : gpu_per_wg;
    occ_chunk *chunks = malloc((size_t)N * sizeof *chunks);
    retire_ev *heap = malloc(((size_t)C * resident_wgs + 1) * sizeof *heap);
    uint32_t *reserved = calloc(C, sizeof *reserved);
    uint32_t *running = calloc(C, sizeof *running); /* started, not retired */
    uint32_t *held = calloc(C, sizeof *held);       /* retired, slot not yet free (drain) */
    double *next_start = calloc(C, sizeof *next_start);
    if (!chunks || !heap || !reserved || !running || !held || !next_start) {
        free(chunks);
        free(heap);
        free(reserved);
        free(running);
        free(held);
        free(next_start);
        return OCC_ERR_NO_MEMORY;
    }
    double tat = 0; /* the dispatcher's theoretical arrival time (token bucket) */
    uint64_t mixed = occ__mix64(o->durations.seed);
    size_t hn = 0;
    uint64_t next = 0;
    double T = 0; /* 0 until the first retirement: the launch */
    for (;;) {
        /* dispatch into every free slot */
        while (next < N) {
            uint32_t c = pick(reserved, C, resident_wgs, spread);
            if (c == UINT32_MAX)
                break;
            double start;
            if (T > 0) {
                start = T + gap;
                if (next_start[c] > start)
                    start = next_start[c];
                if (tat - burst > start)
                    start = tat - burst;
                tat = (tat > start ? tat : start) + gpu_interval;
                next_start[c] = start + interval;
            } else {
                start = next_start[c];
                next_start[c] = start + launch_interval;
            }
            double dur = occ__draw(&o->durations, mixed, next);
            occ_chunk ch = {next, c, contexts_per_wg, start, start, start + dur};
            chunks[next++] = ch;
            if (o->trace)
                o->trace(o->trace_user, &ch);
            reserved[c]++;
            running[c]++;
            heap_push(heap, &hn, (retire_ev){start + dur, c});
        }
        if (!hn)
            break;
        retire_ev e = heap_pop(heap, &hn);
        T = e.time;
        for (;;) {
            running[e.core]--;
            if (!drain) {
                reserved[e.core]--;
            } else {
                held[e.core]++;
                if (running[e.core] == 0) { /* the core is empty: every slot frees */
                    reserved[e.core] -= held[e.core];
                    held[e.core] = 0;
                }
            }
            if (!hn || heap[0].time != T)
                break;
            e = heap_pop(heap, &hn);
        }
    }
    free(heap);
    free(reserved);
    free(running);
    free(held);
    free(next_start);
    occ_status st = occ_timeline_from_chunks(chunks, (size_t)N, C, contexts_per_core, o->merge,
                                             o->lanes, out, diag);
    free(chunks);
    return st;
}
