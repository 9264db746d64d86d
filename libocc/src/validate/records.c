/* Measured timelines: from a backend's records to phases per core over time.
 *
 * Each record holds contexts on one core from its start to its end (a whole
 * work-group's contexts, or one context for a per-sub-group record); a
 * work-group is resident from its first start to its last end, on the core
 * where it started.  Real events are never simultaneous: a wave's starts
 * spread over about a microsecond, a finished work-group's slot is refilled a
 * fraction of a microsecond later.  So events are grouped into instants: an
 * instant opens at the earliest event not yet taken and takes every event up
 * to merge_tolerance x (median work-group duration) later; all of them happen
 * at the instant's time (the median of their times).  The probe spins for
 * hundreds of microseconds, so the default 5 % is tens of microseconds: far
 * above dispatch jitter, far below a work-group's duration.
 *
 * Phases then follow the simulator's rule (timeline.h): a new phase begins at
 * an instant after which some core's busy contexts differ from the open
 * phase's; otherwise the open phase goes on (back-to-back full waves are one
 * phase).  A phase's work_groups is the most resident at once during it. */
#include "common/internal.h"
#include "occ/backend.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void occ_measure_params_init(occ_measure_params *p)
{
    if (!p)
        return;
    memset(p, 0, sizeof *p);
    p->struct_size = sizeof *p;
    p->tick_seconds = 1e-9;
}

void occ_measure_info_init(occ_measure_info *i)
{
    if (!i)
        return;
    memset(i, 0, sizeof *i);
    i->struct_size = sizeof *i;
}

typedef struct event {
    double t;       /* seconds from the first start */
    uint32_t core;
    int32_t dctx;   /* contexts taken (+) or freed (-) */
    int32_t dwg;    /* work-groups arriving (+) or leaving (-) */
} event;

static int cmp_event(const void *a, const void *b)
{
    const event *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    /* frees before takes at the very same time */
    return (x->dctx > y->dctx) - (x->dctx < y->dctx);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int cmp_index_by_wg(const void *a, const void *b, const occ_record *r)
{
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    if (r[i].work_group != r[j].work_group)
        return r[i].work_group < r[j].work_group ? -1 : 1;
    return (i > j) - (i < j);
}

/* qsort has no context argument in C11: records are sorted by work-group
 * already when they come from occ_backend_launch or a record file; check and
 * fall back to a simple merge sort of indices otherwise. */
static void sort_indices(size_t *idx, size_t *tmp, size_t n, const occ_record *r)
{
    if (n < 2)
        return;
    size_t h = n / 2;
    sort_indices(idx, tmp, h, r);
    sort_indices(idx + h, tmp, n - h, r);
    size_t a = 0, b = h, o = 0;
    while (a < h && b < n)
        tmp[o++] = cmp_index_by_wg(&idx[a], &idx[b], r) <= 0 ? idx[a++] : idx[b++];
    while (a < h)
        tmp[o++] = idx[a++];
    while (b < n)
        tmp[o++] = idx[b++];
    memcpy(idx, tmp, n * sizeof *idx);
}

typedef struct builder {
    occ_timeline *tl;
    size_t cap;
    uint32_t cores;
    bool lanes;
} builder;

static occ_status push_phase(builder *b, double start, const uint32_t *ctx, const uint32_t *wgmax,
                             uint64_t wgs, uint64_t ctx_total, uint32_t busy)
{
    occ_timeline *tl = b->tl;
    if (tl->n_phases == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 16;
        occ_phase *p = realloc(tl->phases, cap * sizeof *p);
        if (!p)
            return OCC_ERR_NO_MEMORY;
        tl->phases = p;
        if (b->lanes) {
            uint32_t *c = realloc(tl->core_contexts, cap * b->cores * sizeof *c);
            if (!c)
                return OCC_ERR_NO_MEMORY;
            tl->core_contexts = c;
            uint32_t *w = realloc(tl->core_work_groups, cap * b->cores * sizeof *w);
            if (!w)
                return OCC_ERR_NO_MEMORY;
            tl->core_work_groups = w;
        }
        b->cap = cap;
    }
    occ_phase *ph = &tl->phases[tl->n_phases];
    ph->start = ph->end = start;
    ph->work_groups = wgs;
    ph->thread_contexts = ctx_total;
    ph->occupancy = tl->contexts_total ? (double)ctx_total / (double)tl->contexts_total : 0;
    ph->cores_busy = busy;
    if (b->lanes) {
        memcpy(tl->core_contexts + tl->n_phases * b->cores, ctx, b->cores * sizeof *ctx);
        memcpy(tl->core_work_groups + tl->n_phases * b->cores, wgmax, b->cores * sizeof *wgmax);
    }
    tl->n_phases++;
    return OCC_OK;
}

occ_status occ_timeline_from_records(const occ_record *records, size_t n,
                                     const occ_measure_params *p, occ_timeline *out,
                                     occ_measure_info *info, occ_diag *diag)
{
    if (!p || !out || (n && !records) || p->struct_size < sizeof *p)
        return occ__diag(diag, OCC_ERR_INVALID_ARGUMENT, NULL, 0, 0, NULL,
                         "occ_timeline_from_records: missing argument");
    if (!p->cores || !p->contexts_per_core || !(p->tick_seconds > 0))
        return occ__diag(diag, OCC_ERR_VALUE, NULL, 0, 0, NULL,
                         "cores, contexts per core and the tick must be positive");
    if (n == 0)
        return occ__diag(diag, OCC_ERR_VALUE, NULL, 0, 0, NULL, "no records");
    occ_measure_info inf;
    occ_measure_info_init(&inf);
    memset(out, 0, sizeof *out);
    out->struct_size = sizeof *out;
    out->cores = p->cores;
    out->contexts_total = (uint64_t)p->cores * p->contexts_per_core;

    uint64_t t0 = UINT64_MAX;
    for (size_t i = 0; i < n; i++) {
        const occ_record *r = &records[i];
        if (r->t_end < r->t_start)
            return occ__diag(diag, OCC_ERR_VALUE, NULL, 0, 0, "records",
                             "record %zu (work-group %llu) ends before it starts", i,
                             (unsigned long long)r->work_group);
        if (r->core_start >= p->cores || r->core_end >= p->cores)
            return occ__diag(diag, OCC_ERR_VALUE, NULL, 0, 0, "records",
                             "record %zu (work-group %llu) names core %u; the device has %u", i,
                             (unsigned long long)r->work_group,
                             r->core_start >= p->cores ? r->core_start : r->core_end, p->cores);
        if (r->thread == OCC_RECORD_WHOLE_WG && !p->contexts_per_wg)
            return occ__diag(diag, OCC_ERR_VALUE, NULL, 0, 0, NULL,
                             "whole-work-group records need contexts_per_wg");
        if (r->t_start < t0)
            t0 = r->t_start;
        if (r->core_start != r->core_end)
            inf.migrated++;
    }

    /* work-groups: index order by id, then one span each */
    size_t *idx = malloc(n * sizeof *idx), *tmp = malloc(n * sizeof *tmp);
    event *ev = malloc(4 * n * sizeof *ev);
    double *dur = malloc(n * sizeof *dur);
    uint32_t *ctx = calloc(p->cores, sizeof *ctx), *wg = calloc(p->cores, sizeof *wg);
    uint32_t *base = calloc(p->cores, sizeof *base), *wgmax = calloc(p->cores, sizeof *wgmax);
    double *times = malloc(4 * n * sizeof *times);
    occ_status s = OCC_OK;
    if (!idx || !tmp || !ev || !dur || !ctx || !wg || !base || !wgmax || !times) {
        s = occ__diag(diag, OCC_ERR_NO_MEMORY, NULL, 0, 0, NULL, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < n; i++)
        idx[i] = i;
    sort_indices(idx, tmp, n, records);

    size_t ne = 0, nw = 0;
    const double tick = p->tick_seconds;
    for (size_t a = 0; a < n;) {
        size_t b = a;
        const occ_record *first = &records[idx[a]];
        uint64_t s0 = UINT64_MAX, e0 = 0;
        uint32_t core = first->core_start;
        while (b < n && records[idx[b]].work_group == first->work_group) {
            const occ_record *r = &records[idx[b]];
            if (r->t_start < s0) {
                s0 = r->t_start;
                core = r->core_start;
            }
            if (r->t_end > e0)
                e0 = r->t_end;
            int32_t c = r->thread == OCC_RECORD_WHOLE_WG ? (int32_t)p->contexts_per_wg : 1;
            ev[ne++] = (event){(double)(r->t_start - t0) * tick, r->core_start, c, 0};
            ev[ne++] = (event){(double)(r->t_end - t0) * tick, r->core_start, -c, 0};
            b++;
        }
        ev[ne++] = (event){(double)(s0 - t0) * tick, core, 0, 1};
        ev[ne++] = (event){(double)(e0 - t0) * tick, core, 0, -1};
        dur[nw++] = (double)(e0 - s0) * tick;
        a = b;
    }
    inf.work_groups = nw;
    qsort(dur, nw, sizeof *dur, cmp_double);
    inf.min_wg_s = dur[0];
    inf.max_wg_s = dur[nw - 1];
    inf.median_wg_s = nw % 2 ? dur[nw / 2] : 0.5 * (dur[nw / 2 - 1] + dur[nw / 2]);
    double frac = p->merge_tolerance > 0 ? p->merge_tolerance : 0.05;
    double tol = frac * inf.median_wg_s;
    if (tol < tick)
        tol = tick;
    inf.merge_tolerance_s = tol;
    qsort(ev, ne, sizeof *ev, cmp_event);

    builder bld = {out, 0, p->cores, p->lanes};
    out->work_groups = nw;
    bool open = false;
    uint64_t ctx_total = 0, wg_total = 0, open_wg_max = 0;
    double area = 0, last_t = 0;
    for (size_t a = 0; a < ne;) {
        /* one instant: events up to tol after its first */
        size_t b = a;
        while (b < ne && ev[b].t - ev[a].t <= tol)
            b++;
        size_t m = b - a;
        for (size_t i = 0; i < m; i++)
            times[i] = ev[a + i].t;
        double T = m % 2 ? times[m / 2] : 0.5 * (times[m / 2 - 1] + times[m / 2]);
        if (a == 0) {
            double lo = INFINITY, hi = -INFINITY;
            for (size_t i = a; i < b; i++)
                if (ev[i].dwg > 0) {
                    lo = fmin(lo, ev[i].t);
                    hi = fmax(hi, ev[i].t);
                }
            inf.dispatch_spread_s = hi >= lo ? hi - lo : 0;
        }
        inf.events_merged += m - 1;
        for (size_t i = a; i < b; i++) {
            const event *e = &ev[i];
            ctx[e->core] = (uint32_t)((int64_t)ctx[e->core] + e->dctx);
            wg[e->core] = (uint32_t)((int64_t)wg[e->core] + e->dwg);
            ctx_total = (uint64_t)((int64_t)ctx_total + e->dctx);
            wg_total = (uint64_t)((int64_t)wg_total + e->dwg);
        }
        if (open)
            area += (double)out->phases[out->n_phases - 1].thread_contexts * (T - last_t);
        last_t = T;
        bool same = open;
        uint32_t busy = 0;
        for (uint32_t c = 0; c < p->cores; c++) {
            if (ctx[c])
                busy++;
            if (wg[c] > inf.peak_per_core)
                inf.peak_per_core = wg[c];
            if (ctx[c] > inf.peak_contexts_per_core)
                inf.peak_contexts_per_core = ctx[c];
            if (open && ctx[c] != base[c])
                same = false;
        }
        if (open)
            out->phases[out->n_phases - 1].end = T;
        if (b == ne) /* the last instant ends the run */
            break;
        if (same) {
            occ_phase *ph = &out->phases[out->n_phases - 1];
            if (wg_total > open_wg_max)
                open_wg_max = ph->work_groups = wg_total;
            for (uint32_t c = 0; c < p->cores && p->lanes; c++) {
                uint32_t *lane = out->core_work_groups + (out->n_phases - 1) * p->cores;
                if (wg[c] > lane[c])
                    lane[c] = wg[c];
            }
        } else {
            memcpy(base, ctx, p->cores * sizeof *ctx);
            memcpy(wgmax, wg, p->cores * sizeof *wg);
            if ((s = push_phase(&bld, T, ctx, wgmax, wg_total, ctx_total, busy)) != OCC_OK) {
                occ__diag(diag, s, NULL, 0, 0, NULL, "out of memory");
                goto done;
            }
            open = true;
            open_wg_max = wg_total;
        }
        a = b;
    }
    {
        bool *used = calloc(p->cores, sizeof *used);
        if (used) {
            for (size_t i = 0; i < n; i++)
                used[records[i].core_start] = true;
            for (uint32_t c = 0; c < p->cores; c++)
                inf.cores_used += used[c];
            free(used);
        }
    }
    if (out->n_phases) {
        double span = out->phases[out->n_phases - 1].end - out->phases[0].start;
        out->average_occupancy =
            span > 0 && out->contexts_total ? area / span / (double)out->contexts_total : 0;
    }
done:
    free(idx);
    free(tmp);
    free(ev);
    free(dur);
    free(ctx);
    free(wg);
    free(base);
    free(wgmax);
    free(times);
    if (s != OCC_OK) {
        free(out->phases);
        free(out->core_contexts);
        free(out->core_work_groups);
        out->phases = NULL;
        out->core_contexts = out->core_work_groups = NULL;
        out->n_phases = 0;
        return s;
    }
    if (info)
        *info = inf;
    return OCC_OK;
}
