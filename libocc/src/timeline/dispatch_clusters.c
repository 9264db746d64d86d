/* The dispatch of a launch in thread-block clusters (docs/clusters.md): the
 * clusters go out in order, each to C distinct cores of one GPC that have a
 * free slot (a core holds at most the cluster launch's work-groups per core,
 * occ_clusters.work_groups_per_core), all its work-groups starting together;
 * a cluster waits until some GPC has C such cores.  The GPC is the one with
 * the most free slots and, in it, the cores with the most (spread), lowest
 * index first on ties.  Work-groups retire one by one at their own
 * durations.  Cores are numbered GPC after GPC (core.gpc_sms order).  The
 * intervals become a timeline through occ_timeline_from_chunks, so the
 * phases are built as for any other run.  Dispatch timing is not modelled:
 * dispatch takes no time. */
#include "timeline/timeline_internal.h"

#include <stdlib.h>
#include <string.h>

/* Work-groups a cluster run keeps in memory (one interval each). */
#define CLUSTER_SIM_MAX_WORK_GROUPS (1ull << 22)

typedef struct end_event {
    double t;
    uint32_t core;
} end_event;

/* A binary min-heap of work-group ends. */
typedef struct heap {
    end_event *v;
    size_t n;
} heap;

static void heap_push(heap *h, end_event e)
{
    size_t i = h->n++;
    while (i && h->v[(i - 1) / 2].t > e.t) {
        h->v[i] = h->v[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h->v[i] = e;
}

static end_event heap_pop(heap *h)
{
    end_event top = h->v[0], last = h->v[--h->n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && h->v[c + 1].t < h->v[c].t)
            c++;
        if (h->v[c].t >= last.t)
            break;
        h->v[i] = h->v[c];
        i = c;
    }
    if (h->n)
        h->v[i] = last;
    return top;
}

typedef struct cluster_sim {
    const occ_device_desc *d;
    uint32_t *free_slots; /* per core */
    uint32_t *first;      /* first core of each GPC */
    uint32_t *pick;       /* the cores of the cluster being placed */
    uint32_t size;
} cluster_sim;

/* Place one cluster if a GPC has size cores with a free slot: its cores into
 * s->pick.  false: it waits. */
static bool place(cluster_sim *s)
{
    const occ_device_desc *d = s->d;
    int best = -1;
    uint64_t best_free = 0;
    for (uint32_t g = 0; g < d->n_gpcs; g++) {
        uint32_t open = 0;
        uint64_t slots = 0;
        for (uint32_t c = s->first[g]; c < s->first[g] + d->gpc_sms[g]; c++) {
            open += s->free_slots[c] > 0;
            slots += s->free_slots[c];
        }
        if (open >= s->size && slots > best_free) {
            best = (int)g;
            best_free = slots;
        }
    }
    if (best < 0)
        return false;
    /* the size cores of the GPC with the most free slots (selection, few cores) */
    uint32_t lo = s->first[best], hi = lo + d->gpc_sms[best];
    for (uint32_t i = 0; i < s->size; i++) {
        uint32_t top = UINT32_MAX;
        for (uint32_t c = lo; c < hi; c++) {
            bool taken = false;
            for (uint32_t j = 0; j < i; j++)
                taken |= s->pick[j] == c;
            if (!taken && s->free_slots[c] && (top == UINT32_MAX || s->free_slots[c] > s->free_slots[top]))
                top = c;
        }
        s->pick[i] = top;
    }
    return true;
}

occ_status occ__simulate_clusters(const occ_device *dev, const occ_kernel *k, const occ_residency *r,
                                  uint64_t work_groups, const occ_sim_options *opts, occ_timeline *out,
                                  occ_diag *diag)
{
    const occ_device_desc *d = occ_device_describe(dev);
    occ_clusters cl;
    OCC__TRY(occ_cluster_compute(dev, k, &cl, diag));
    if (!cl.max_active_clusters)
        return occ__diag(diag, OCC_ERR_UNSUPPORTED, NULL, 0, 0, "cluster",
                         "no GPC of %s holds a cluster of %u", d->name, cl.size);
    if (work_groups % cl.size)
        return occ__diag(diag, OCC_ERR_VALUE, NULL, 0, 0, "work_groups",
                         "%llu work-groups are not a whole number of clusters of %u",
                         (unsigned long long)work_groups, cl.size);
    if (work_groups > CLUSTER_SIM_MAX_WORK_GROUPS)
        return occ__diag(diag, OCC_ERR_TOO_LARGE, NULL, 0, 0, "work_groups",
                         "%llu work-groups: a launch in clusters is simulated up to 2^22",
                         (unsigned long long)work_groups);
    cluster_sim s = {.d = d, .size = cl.size};
    occ_chunk *chunks = malloc(work_groups * sizeof *chunks);
    heap h = {.v = malloc(work_groups * sizeof *h.v)};
    s.free_slots = malloc(d->cores * sizeof *s.free_slots);
    s.first = malloc(d->n_gpcs * sizeof *s.first);
    s.pick = malloc(cl.size * sizeof *s.pick);
    occ_status st = OCC_ERR_NO_MEMORY;
    if (!chunks || !h.v || !s.free_slots || !s.first || !s.pick)
        goto done;
    for (uint32_t c = 0; c < d->cores; c++)
        s.free_slots[c] = cl.work_groups_per_core;
    for (uint32_t g = 0, at = 0; g < d->n_gpcs; at += d->gpc_sms[g++])
        s.first[g] = at;
    double now = 0;
    uint64_t next = 0; /* the next work-group to dispatch (clusters in order) */
    while (next < work_groups) {
        while (next < work_groups && place(&s)) {
            for (uint32_t i = 0; i < cl.size; i++, next++) {
                uint32_t c = s.pick[i];
                s.free_slots[c]--;
                double end = now + occ_duration_of(&opts->durations, next);
                chunks[next] = (occ_chunk){.work_group = next, .core = c, .contexts = r->contexts_per_wg,
                                           .dispatch = now, .run = now, .end = end};
                heap_push(&h, (end_event){end, c});
            }
        }
        if (next == work_groups)
            break;
        if (!h.n) { /* nothing runs and nothing fits: max_active_clusters said otherwise */
            st = OCC_ERR_UNSUPPORTED;
            goto done;
        }
        /* retire everything that ends at the next end time, then try again */
        now = h.v[0].t;
        while (h.n && h.v[0].t <= now)
            s.free_slots[heap_pop(&h).core]++;
    }
    st = occ_timeline_from_chunks(chunks, work_groups, d->cores, r->contexts_per_core, opts->merge, opts->lanes,
                                  out, diag);
    if (st == OCC_OK && out->n_phases) {
        out->start = out->phases[0].start;
        out->end = out->phases[out->n_phases - 1].end;
        for (size_t i = 0; i < out->n_phases; i++) {
            const occ_phase *ph = &out->phases[i];
            out->busy_context_time += (double)ph->thread_contexts * (ph->end - ph->start);
            if (ph->thread_contexts > out->peak_thread_contexts)
                out->peak_thread_contexts = ph->thread_contexts;
        }
    }
done:
    free(chunks);
    free(h.v);
    free(s.free_slots);
    free(s.first);
    free(s.pick);
    return st;
}
