/* Dispatch with timing: the layer that makes dispatch take time
 * (docs/phases.md "Dispatch timing").
 *
 * Used instead of the untimed engines of timeline_sim.c when the caller gives
 * the work-group duration in seconds (occ_sim_options.time_unit_s), the
 * device has dispatch timing (occ_device_desc.refill_gap_s, ...) and
 * work-groups are dispatched whole (every NVIDIA profile).  The rules are the
 * untimed ones (order policy, residency limits), plus:
 *
 *  - a core starts work-groups one after another: two refills on one core
 *    are at least max(core_interval, core_interval_per_context x contexts)
 *    apart (the spread of a wave's refills on one core: a fixed cost for
 *    small work-groups, a cost per warp for large ones); at launch, before
 *    the core retired anything, core_interval_per_context x contexts (the
 *    H100 fills an idle SM faster than it refills a busy one: 12 ns against
 *    67 ns per 32-thread block; docs/validation/cuda-h100-2026-11-24.md);
 *  - a slot freed at T takes its next work-group no sooner than T +
 *    refill_gap (the dip between a retiring and a refilled work-group);
 *  - two refills anywhere on the GPU are at least gpu_interval apart (the
 *    dispatcher's throughput: a wave of small work-groups refills over
 *    microseconds).
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
                               uint64_t N, const occ_sim_options *o, occ_timeline *out,
                               occ_diag *diag)
{
    if (N > OCC_TIMED_MAX_WORK_GROUPS)
        return occ__diag(diag, OCC_ERR_TOO_LARGE, NULL, 0, 0, "work_groups",
                         "%llu work-groups: dispatch timing is simulated for at most %llu",
                         (unsigned long long)N, (unsigned long long)OCC_TIMED_MAX_WORK_GROUPS);
    const uint32_t C = d->cores;
    const double unit = o->time_unit_s;
    const double gap = d->refill_gap_s / unit;
    const double launch_interval = d->core_interval_per_context_s * contexts_per_wg / unit;
    const double interval =
        (d->core_interval_s / unit > launch_interval ? d->core_interval_s / unit : launch_interval);
    occ_chunk *chunks = malloc((size_t)N * sizeof *chunks);
    retire_ev *heap = malloc(((size_t)C * resident_wgs + 1) * sizeof *heap);
    uint32_t *reserved = calloc(C, sizeof *reserved);
    double *next_start = calloc(C, sizeof *next_start);
    const double gpu_interval = d->gpu_interval_s / unit;
    double gpu_next = 0;
    if (!chunks || !heap || !reserved || !next_start) {
        free(chunks);
        free(heap);
        free(reserved);
        free(next_start);
        return OCC_ERR_NO_MEMORY;
    }
    uint64_t mixed = occ__mix64(o->durations.seed);
    size_t hn = 0;
    uint64_t next = 0;
    double T = 0;
    for (;;) {
        /* dispatch into every free slot */
        while (next < N) {
            uint32_t c = pick(reserved, C, resident_wgs, spread);
            if (c == UINT32_MAX)
                break;
            double start = T > 0 ? T + gap : 0;
            if (next_start[c] > start)
                start = next_start[c];
            if (T > 0) {
                if (gpu_next > start)
                    start = gpu_next;
                gpu_next = start + gpu_interval;
            }
            next_start[c] = start + (T > 0 ? interval : launch_interval);
            double dur = occ__draw(&o->durations, mixed, next);
            occ_chunk ch = {next, c, contexts_per_wg, start, start, start + dur};
            chunks[next++] = ch;
            if (o->trace)
                o->trace(o->trace_user, &ch);
            reserved[c]++;
            heap_push(heap, &hn, (retire_ev){start + dur, c});
        }
        if (!hn)
            break;
        retire_ev e = heap_pop(heap, &hn);
        T = e.time;
        reserved[e.core]--;
        while (hn && heap[0].time == T) {
            e = heap_pop(heap, &hn);
            reserved[e.core]--;
        }
    }
    free(heap);
    free(reserved);
    free(next_start);
    occ_status st = occ_timeline_from_chunks(chunks, (size_t)N, C, contexts_per_core, o->merge,
                                             o->lanes, out, diag);
    free(chunks);
    return st;
}
