/* Timelines: the type's helpers, duration models, the phase tracker shared by
 * the simulator and the chunk builder, and the builder itself. */
#include "timeline/timeline_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void occ_timeline_init(occ_timeline *t)
{
    if (!t)
        return;
    memset(t, 0, sizeof *t);
    t->struct_size = sizeof *t;
}

void occ_timeline_free(occ_timeline *t)
{
    if (!t)
        return;
    free(t->phases);
    free(t->core_contexts);
    free(t->core_work_groups);
    t->phases = NULL;
    t->core_contexts = NULL;
    t->core_work_groups = NULL;
}

void occ_sim_options_init(occ_sim_options *o)
{
    if (!o)
        return;
    memset(o, 0, sizeof *o);
    o->struct_size = sizeof *o;
    o->durations.kind = OCC_DURATIONS_EQUAL;
}

const char *occ_partial_policy_name(occ_partial_policy p)
{
    switch (p) {
    case OCC_PARTIAL_DEVICE:
        return "device";
    case OCC_PARTIAL_NO:
        return "no";
    case OCC_PARTIAL_LAUNCH:
        return "launch";
    case OCC_PARTIAL_ALWAYS:
        return "always";
    }
    return "unknown";
}

/* ---- duration models ------------------------------------------------------ */

occ_status occ_durations_check(const occ_durations *d, occ_diag *diag)
{
    if (!d)
        return OCC_ERR_INVALID_ARGUMENT;
    switch (d->kind) {
    case OCC_DURATIONS_EQUAL:
        return OCC_OK;
    case OCC_DURATIONS_LIST:
        if (!d->values || d->n_values == 0)
            return occ__diag(diag, OCC_ERR_VALUE, NULL, 0, 0, "durations",
                             "the list of durations is empty");
        for (size_t i = 0; i < d->n_values; i++)
            if (!isfinite(d->values[i]) || !(d->values[i] > 0))
                return occ__diag(diag, OCC_ERR_VALUE, NULL, 0, 0, "durations",
                                 "duration %zu of the list is %g: durations must be positive "
                                 "and finite", i + 1, d->values[i]);
        return OCC_OK;
    case OCC_DURATIONS_UNIFORM:
        if (!isfinite(d->a) || !isfinite(d->b) || !(d->a > 0) || d->b < d->a)
            return occ__diag(diag, OCC_ERR_VALUE, NULL, 0, 0, "durations",
                             "uniform durations need 0 < low <= high, got %g and %g", d->a, d->b);
        return OCC_OK;
    case OCC_DURATIONS_NORMAL:
        if (!isfinite(d->a) || !isfinite(d->b) || !(d->a > 0) || d->b < 0)
            return occ__diag(diag, OCC_ERR_VALUE, NULL, 0, 0, "durations",
                             "normal durations need a mean > 0 and a deviation >= 0, got %g and %g",
                             d->a, d->b);
        return OCC_OK;
    }
    return occ__diag(diag, OCC_ERR_VALUE, NULL, 0, 0, "durations", "unknown duration model %d",
                     (int)d->kind);
}

double occ__normal_quantile(double p)
{
    if (p < OCC__NORMAL_LOW || p > 1 - OCC__NORMAL_LOW)
        return occ__normal_tail(p);
    double q = p - 0.5, r = q * q;
    return OCC__NORMAL_CENTRAL(q, r);
}

double occ_duration_of(const occ_durations *d, uint64_t i)
{
    return d ? occ__draw(d, occ__mix64(d->seed), i) : 1.0;
}

/* ---- the phase tracker ------------------------------------------------------ */

occ_status occ__trk_init(occ__tracker *t, occ_timeline *tl, uint32_t cores,
                         uint32_t contexts_per_core, bool lanes, bool store, occ_merge merge,
                         size_t max_phases)
{
    memset(t, 0, sizeof *t);
    t->tl = tl;
    t->cores = cores;
    t->contexts_total = (uint64_t)cores * contexts_per_core;
    t->lanes = lanes && store;
    t->store = store;
    t->merge_none = merge == OCC_MERGE_NONE;
    t->max_phases = max_phases ? max_phases : OCC_TIMELINE_DEFAULT_MAX_PHASES;
    t->busy = calloc(cores, sizeof *t->busy);
    t->wgs = calloc(cores, sizeof *t->wgs);
    t->base = calloc(cores, sizeof *t->base);
    t->wg_max = calloc(cores, sizeof *t->wg_max);
    t->touched = calloc(cores, sizeof *t->touched);
    t->batch = calloc(cores, sizeof *t->batch);
    t->flags = calloc(cores, 1);
    if (!t->busy || !t->wgs || !t->base || !t->wg_max || !t->touched || !t->batch || !t->flags) {
        occ__trk_free(t);
        return OCC_ERR_NO_MEMORY;
    }
    return OCC_OK;
}

void occ__trk_free(occ__tracker *t)
{
    free(t->busy);
    free(t->wgs);
    free(t->base);
    free(t->wg_max);
    free(t->touched);
    free(t->batch);
    free(t->flags);
    t->busy = t->wgs = t->base = t->wg_max = t->touched = t->batch = NULL;
    t->flags = NULL;
}

static void drop_stored(occ__tracker *t)
{
    occ_timeline_free(t->tl);
    t->cap = 0;
    t->overflow = true;
}

/* Make room for one more stored phase. */
static bool grow(occ__tracker *t)
{
    size_t want = t->cap ? t->cap * 2 : 64;
    if (want > t->max_phases)
        want = t->max_phases;
    occ_timeline *tl = t->tl;
    occ_phase *p = realloc(tl->phases, want * sizeof *p);
    if (!p)
        return false;
    tl->phases = p;
    if (t->lanes) {
        size_t cells = want * t->cores;
        if (cells / t->cores != want)
            return false;
        uint32_t *a = realloc(tl->core_contexts, cells * sizeof *a);
        if (!a)
            return false;
        tl->core_contexts = a;
        uint32_t *b = realloc(tl->core_work_groups, cells * sizeof *b);
        if (!b)
            return false;
        tl->core_work_groups = b;
    }
    t->cap = want;
    return true;
}

static void close_phase(occ__tracker *t, double end)
{
    double len = end - t->start;
    t->area += (double)t->base_total * len;
    size_t i = t->n++;
    if (!t->store || t->overflow || t->err)
        return;
    if (t->n > t->max_phases) {
        drop_stored(t);
        return;
    }
    if (i >= t->cap && !grow(t)) {
        t->err = OCC_ERR_NO_MEMORY;
        return;
    }
    occ_phase *p = &t->tl->phases[i];
    p->start = t->start;
    p->end = end;
    p->work_groups = t->wg_max_total;
    p->thread_contexts = t->base_total;
    p->occupancy = t->contexts_total ? (double)t->base_total / (double)t->contexts_total : 0;
    p->cores_busy = t->base_cores_busy;
    if (t->lanes) {
        memcpy(t->tl->core_contexts + i * t->cores, t->base, t->cores * sizeof *t->base);
        memcpy(t->tl->core_work_groups + i * t->cores, t->wg_max, t->cores * sizeof *t->wg_max);
    }
}

/* The present state becomes the open phase's (only touched cores differ). */
static void open_phase(occ__tracker *t, double T)
{
    for (uint32_t i = 0; i < t->n_touched; i++) {
        uint32_t c = t->touched[i];
        t->base[c] = t->busy[c];
        t->wg_max[c] = t->wgs[c];
        t->flags[c] = 0;
    }
    t->n_touched = 0;
    t->n_batch = 0;
    t->n_diff = 0;
    t->base_total = t->busy_total;
    t->base_cores_busy = t->cores_busy;
    t->wg_max_total = t->wgs_total;
    t->start = T;
    t->open = true;
}

bool occ__trk_instant(occ__tracker *t, double T)
{
    if (t->busy_total > t->peak)
        t->peak = t->busy_total;
    if (!t->open) {
        open_phase(t, T);
        return false;
    }
    if (t->n_diff || t->merge_none) {
        close_phase(t, T);
        open_phase(t, T);
        return true;
    }
    /* same busy contexts everywhere: the phase goes on; keep the most WGs */
    for (uint32_t i = 0; i < t->n_batch; i++) {
        uint32_t c = t->batch[i];
        if (t->wgs[c] > t->wg_max[c])
            t->wg_max[c] = t->wgs[c];
        t->flags[c] &= 1;
    }
    t->n_batch = 0;
    if (t->wgs_total > t->wg_max_total)
        t->wg_max_total = t->wgs_total;
    return false;
}

void occ__trk_repeat(occ__tracker *t, uint64_t times, double length, uint64_t m, double area)
{
    if (m == 0 || times == 0)
        return; /* the open phase simply goes on */
    if (t->store && !t->overflow)
        drop_stored(t);
    uint64_t add = times > (uint64_t)SIZE_MAX / m ? (uint64_t)SIZE_MAX : times * m;
    t->n = add > SIZE_MAX - t->n ? SIZE_MAX : t->n + (size_t)add;
    t->area += (double)times * area;
    t->start += (double)times * length;
}

occ_status occ__trk_finish(occ__tracker *t, double start, double end)
{
    occ_timeline *tl = t->tl;
    tl->n_phases = t->n;
    tl->start = start;
    tl->end = end;
    tl->busy_context_time = t->area;
    tl->peak_thread_contexts = t->peak;
    tl->peak_core_work_groups = t->peak_core_wgs;
    double span = end - start;
    tl->average_occupancy =
        span > 0 && t->contexts_total ? t->area / ((double)t->contexts_total * span) : 0;
    if (t->err) {
        occ_timeline_free(tl);
        return t->err;
    }
    if (t->overflow) {
        occ_timeline_free(tl);
        return t->store ? OCC_ERR_TOO_LARGE : OCC_OK;
    }
    if (!t->store)
        occ_timeline_free(tl);
    return OCC_OK;
}

/* ---- timelines from chunks ------------------------------------------------ */

typedef struct edge {
    double time;
    uint32_t core;
    int32_t contexts; /* + dispatch, - end */
    int32_t wgs;      /* +1 first dispatch of a WG, -1 its last end */
} edge;

static int edge_cmp(const void *a, const void *b)
{
    const edge *x = a, *y = b;
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    /* ends before starts at one instant, so capacity is checked honestly */
    int xs = x->contexts > 0 || x->wgs > 0, ys = y->contexts > 0 || y->wgs > 0;
    return xs - ys;
}

static int chunk_wg_cmp(const void *a, const void *b)
{
    const occ_chunk *x = *(const occ_chunk *const *)a, *y = *(const occ_chunk *const *)b;
    return x->work_group < y->work_group ? -1 : x->work_group > y->work_group;
}

occ_status occ_timeline_from_chunks(const occ_chunk *chunks, size_t n, uint32_t cores,
                                    uint32_t contexts_per_core, occ_merge merge, bool lanes,
                                    occ_timeline *out, occ_diag *diag)
{
    if (!out || (n && !chunks) || cores == 0 || contexts_per_core == 0)
        return OCC_ERR_INVALID_ARGUMENT;
    occ_timeline_init(out);
    out->cores = cores;
    out->contexts_per_core = contexts_per_core;
    out->contexts_total = (uint64_t)cores * contexts_per_core;
    for (size_t i = 0; i < n; i++) {
        const occ_chunk *c = &chunks[i];
        if (c->core >= cores)
            return occ__diag(diag, OCC_ERR_VALUE, NULL, 0, 0, "core",
                             "chunk %zu (work-group %llu) is on core %u; the device has %u", i,
                             (unsigned long long)c->work_group, c->core, cores);
        if (!(c->end >= c->dispatch) || !isfinite(c->end) || !isfinite(c->dispatch))
            return occ__diag(diag, OCC_ERR_VALUE, NULL, 0, 0, "end",
                             "chunk %zu (work-group %llu) ends at %g before it starts at %g", i,
                             (unsigned long long)c->work_group, c->end, c->dispatch);
        if (c->contexts > contexts_per_core)
            return occ__diag(diag, OCC_ERR_VALUE, NULL, 0, 0, "contexts",
                             "chunk %zu holds %u contexts; a core has %u", i, c->contexts,
                             contexts_per_core);
    }
    if (n == 0)
        return OCC_OK;
    if (n > SIZE_MAX / 4 / sizeof(edge))
        return OCC_ERR_NO_MEMORY;
    /* each work-group: resident on its first chunk's core from its first
     * dispatch to its last end */
    const occ_chunk **byw = malloc(n * sizeof *byw);
    edge *e = malloc(4 * n * sizeof *e);
    if (!byw || !e) {
        free(byw);
        free(e);
        return OCC_ERR_NO_MEMORY;
    }
    for (size_t i = 0; i < n; i++)
        byw[i] = &chunks[i];
    qsort(byw, n, sizeof *byw, chunk_wg_cmp);
    size_t ne = 0;
    uint64_t wgs = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        double first = byw[i]->dispatch, last = byw[i]->end;
        uint32_t core = byw[i]->core;
        for (; j < n && byw[j]->work_group == byw[i]->work_group; j++) {
            if (byw[j]->dispatch < first) {
                first = byw[j]->dispatch;
                core = byw[j]->core;
            }
            if (byw[j]->end > last)
                last = byw[j]->end;
            if (byw[j]->end > byw[j]->dispatch) {
                e[ne++] = (edge){byw[j]->dispatch, byw[j]->core, (int32_t)byw[j]->contexts, 0};
                e[ne++] = (edge){byw[j]->end, byw[j]->core, -(int32_t)byw[j]->contexts, 0};
            }
        }
        if (last > first) {
            e[ne++] = (edge){first, core, 0, 1};
            e[ne++] = (edge){last, core, 0, -1};
        }
        wgs++;
        i = j;
    }
    free(byw);
    out->work_groups = wgs;
    qsort(e, ne, sizeof *e, edge_cmp);

    occ__tracker trk;
    occ_status st = occ__trk_init(&trk, out, cores, contexts_per_core, lanes, true, merge, SIZE_MAX);
    if (st) {
        free(e);
        return st;
    }
    for (size_t i = 0; i < ne;) {
        double T = e[i].time;
        for (; i < ne && e[i].time == T; i++) {
            uint32_t c = e[i].core;
            int64_t b = (int64_t)trk.busy[c] + e[i].contexts;
            if (b > contexts_per_core) {
                occ__trk_free(&trk);
                free(e);
                occ_timeline_free(out);
                return occ__diag(diag, OCC_ERR_VALUE, NULL, 0, 0, "contexts",
                                 "core %u holds %lld contexts at time %g; it has %u", c,
                                 (long long)b, T, contexts_per_core);
            }
            occ__trk_set_busy(&trk, c, (uint32_t)b);
            occ__trk_set_wgs(&trk, c, (uint32_t)((int64_t)trk.wgs[c] + e[i].wgs));
        }
        occ__trk_instant(&trk, T);
    }
    st = occ__trk_finish(&trk, ne ? e[0].time : 0, ne ? e[ne - 1].time : 0);
    occ__trk_free(&trk);
    free(e);
    return st;
}
