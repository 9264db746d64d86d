/* Next step: for each input alone, the smallest change that raises the
 * occupancy it names (or makes the kernel launch at all).  Every limit is
 * monotone in its input (more SLM, registers or work-items never raise
 * residency), so the boundary is found by bisection.  A launch in clusters
 * is judged under the cluster cap, where larger work-groups can help. */
#include "common/internal.h"

#include <stdlib.h>
#include <string.h>

static bool in_clusters(const occ_device *dev, const occ_kernel *k)
{
    return dev->desc.n_gpcs && occ_kernel_cluster_size(k);
}

/* The work-groups a core holds in k's launch and its occupancy: in a launch
 * in clusters, under the cluster cap (occ_cluster_compute); a size the device
 * refuses holds none. */
static uint32_t resident_of(const occ_device *dev, const occ_kernel *k, double *occ)
{
    if (in_clusters(dev, k)) {
        occ_clusters c;
        bool ok = occ_cluster_compute(dev, k, &c, NULL) == OCC_OK;
        if (occ)
            *occ = ok ? c.occupancy : 0.0;
        return ok ? c.work_groups_per_core : 0;
    }
    occ_residency r;
    occ_residency_compute(dev, k, &r);
    if (occ)
        *occ = r.launchable ? r.occupancy : 0.0;
    return r.launchable ? r.resident_wgs : 0;
}

/* A change helps when it adds resident work-groups and raises occupancy: a
 * step's line names the occupancy it reaches, so one that only packs more,
 * smaller work-groups into the same busy contexts is no advice.  For SLM,
 * registers, carveout and barrier the contexts per work-group stay the same,
 * so more work-groups always means more occupancy. */
static bool helps(const occ_device *dev, const occ_kernel *changed, const occ_residency *cur,
                  uint32_t base)
{
    double occ;
    uint32_t res = resident_of(dev, changed, &occ);
    return res > base && (!cur->launchable || occ > cur->occupancy);
}

typedef void (*setter)(occ_kernel *k, uint64_t v);
static void set_wg(occ_kernel *k, uint64_t v) { k->wg[0] = (uint32_t)v, k->wg[1] = k->wg[2] = 1; }
static void set_slm(occ_kernel *k, uint64_t v) { k->slm_bytes = v; }
static void set_regs(occ_kernel *k, uint64_t v) { k->regs_per_thread = (uint32_t)v; }

/* Largest v in [lo, hi] whose residency beats `base`, if any (residency is
 * non-increasing in v). */
static bool largest_better(const occ_device *dev, const occ_kernel *k, setter set, uint64_t lo,
                           uint64_t hi, uint32_t base, uint64_t *out)
{
    occ_kernel t = *k;
    set(&t, lo);
    if (lo > hi || resident_of(dev, &t, NULL) <= base)
        return false;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo + 1) / 2;
        set(&t, mid);
        if (resident_of(dev, &t, NULL) > base)
            lo = mid;
        else
            hi = mid - 1;
    }
    *out = lo;
    return true;
}

static void push(const occ_device *dev, const occ_kernel *changed, occ_input in, uint64_t value,
                 bool at_most, occ_next_step *all, size_t *n)
{
    occ_next_step *s = &all[(*n)++];
    s->input = in;
    s->value = value;
    s->at_most = at_most;
    s->resident_wgs = resident_of(dev, changed, &s->occupancy);
}

/* Cheaper changes first when two reach the same occupancy. */
static int cost(occ_input in)
{
    static const int order[OCC_INPUT_COUNT] = {
        [OCC_INPUT_CARVEOUT] = 0, [OCC_INPUT_GRF] = 1,     [OCC_INPUT_REGISTERS] = 2,
        [OCC_INPUT_SLM] = 3,      [OCC_INPUT_SUB_GROUP] = 4, [OCC_INPUT_WG_SIZE] = 5,
        [OCC_INPUT_BARRIER] = 6,
    };
    return order[in];
}

static int by_benefit(const void *a, const void *b)
{
    const occ_next_step *x = a, *y = b;
    if (x->occupancy != y->occupancy)
        return x->occupancy < y->occupancy ? 1 : -1;
    if (x->resident_wgs != y->resident_wgs)
        return x->resident_wgs < y->resident_wgs ? 1 : -1;
    return cost(x->input) - cost(y->input);
}

size_t occ_next_steps(const occ_device *dev, const occ_kernel *k, occ_next_step *steps, size_t cap)
{
    if (!dev || !k || k->struct_size < sizeof *k)
        return 0;
    const occ_device_desc *d = &dev->desc;
    occ_residency cur;
    occ_residency_compute(dev, k, &cur);
    uint32_t base = resident_of(dev, k, &cur.occupancy); /* in clusters: under the cap */
    cur.launchable &= base > 0;
    if (cur.launchable && cur.occupancy >= 1.0)
        return 0; /* every context busy: nothing to gain per core */

    occ_next_step all[OCC_INPUT_COUNT];
    size_t n = 0;
    occ_kernel t;
    uint64_t v;
    uint64_t W = occ_kernel_wg_size(k);

    /* work-group size, as a 1-D size: occupancy is not monotone in it, so try
     * each smaller context count (largest work-group first) */
    if (W > 1 && cur.sub_group) {
        uint64_t S = cur.sub_group;
        /* no work-group above the device maximum or the kernel's launch bound can help */
        uint64_t wg_cap = W - 1 < d->max_work_group_size ? W - 1 : d->max_work_group_size;
        if (k->max_wg_size && k->max_wg_size < wg_cap)
            wg_cap = k->max_wg_size;
        uint64_t top = occ__ceil_div(wg_cap, S);
        for (uint64_t ctx = top; ctx >= 1; ctx--) {
            uint64_t cand = ctx * S;
            if (cand > wg_cap)
                cand = wg_cap;
            if (cand == 0 || occ__ceil_div(cand, S) != ctx)
                continue;
            t = *k;
            set_wg(&t, cand);
            if (helps(dev, &t, &cur, base)) {
                push(dev, &t, OCC_INPUT_WG_SIZE, cand, true, all, &n);
                break;
            }
        }
    }
    /* in clusters, when the cap binds (fewer work-groups than fit): larger
     * work-groups, the smallest that reaches the most the cap allows */
    if (cur.launchable && in_clusters(dev, k) && base < cur.resident_wgs && cur.sub_group) {
        uint64_t S = cur.sub_group;
        uint64_t wg_top = k->max_wg_size && k->max_wg_size < d->max_work_group_size ? k->max_wg_size
                                                                                    : d->max_work_group_size;
        uint64_t best = 0;
        double best_occ = cur.occupancy;
        for (uint64_t ctx = occ__ceil_div(W, S) + 1; ctx * S <= wg_top; ctx++) {
            double o;
            t = *k;
            set_wg(&t, ctx * S);
            if (resident_of(dev, &t, &o) && o > best_occ)
                best = ctx * S, best_occ = o;
        }
        if (best) {
            t = *k;
            set_wg(&t, best);
            push(dev, &t, OCC_INPUT_WG_SIZE, best, false, all, &n);
        }
    }
    /* sub-group size: the next larger supported size that helps (or any
     * supported one when the current is not) */
    uint32_t sg = cur.sub_group;
    for (uint32_t i = 0; i < d->n_sub_group_sizes; i++) {
        if (d->sub_group_sizes[i] <= sg && cur.reason != OCC_REASON_SUB_GROUP)
            continue;
        t = *k;
        t.sub_group = d->sub_group_sizes[i];
        if (helps(dev, &t, &cur, base)) {
            push(dev, &t, OCC_INPUT_SUB_GROUP, t.sub_group, false, all, &n);
            break;
        }
    }
    /* local memory: less */
    if (k->slm_bytes > 0) {
        uint64_t hi = k->slm_bytes - 1;
        if (hi > d->slm_max_per_work_group)
            hi = d->slm_max_per_work_group;
        if (largest_better(dev, k, set_slm, 0, hi, base, &v)) {
            t = *k;
            t.slm_bytes = v;
            push(dev, &t, OCC_INPUT_SLM, v, true, all, &n);
        }
    }
    /* GRF mode: the largest smaller mode that helps */
    for (uint32_t i = d->n_grf_modes; i-- > 0;) {
        if (d->grf_modes[i].registers >= cur.grf)
            continue;
        t = *k;
        t.grf = d->grf_modes[i].registers;
        if (helps(dev, &t, &cur, base)) {
            push(dev, &t, OCC_INPUT_GRF, t.grf, false, all, &n);
            break;
        }
    }
    /* registers per thread: fewer */
    if (d->has_register_file && k->regs_per_thread > 1) {
        uint64_t hi = k->regs_per_thread - 1;
        if (hi > d->reg_max_per_thread)
            hi = d->reg_max_per_thread;
        if (largest_better(dev, k, set_regs, 1, hi, base, &v)) {
            t = *k;
            t.regs_per_thread = (uint32_t)v;
            push(dev, &t, OCC_INPUT_REGISTERS, v, true, all, &n);
        }
    }
    /* carveout: the smallest larger preference that helps */
    if (d->n_carveouts && k->carveout_pct >= 0) {
        for (int32_t p = k->carveout_pct + 1; p <= 100; p++) {
            t = *k;
            t.carveout_pct = p;
            if (helps(dev, &t, &cur, base)) {
                push(dev, &t, OCC_INPUT_CARVEOUT, (uint64_t)p, false, all, &n);
                break;
            }
        }
    }
    /* barrier: only its own cap can be lifted by removing it */
    if (k->barrier) {
        t = *k;
        t.barrier = false;
        if (helps(dev, &t, &cur, base))
            push(dev, &t, OCC_INPUT_BARRIER, 0, false, all, &n);
    }
    qsort(all, n, sizeof all[0], by_benefit);
    size_t out = n < cap ? n : cap;
    if (steps)
        memcpy(steps, all, out * sizeof all[0]);
    return n;
}

size_t occ_next_step_format(const occ_device *dev, const occ_next_step *s, char *buf, size_t size)
{
    if (!dev || !s || !buf || !size)
        return 0;
    const occ_device_desc *d = &dev->desc;
    const occ_vendor_words *w = occ_vendor_words_of(d->vendor);
    char what[160], b[48];
    switch (s->input) {
    case OCC_INPUT_WG_SIZE:
        snprintf(what, sizeof what, "%s the work-group size to %llu work-items or %s",
                 s->at_most ? "reduce" : "raise", (unsigned long long)s->value, s->at_most ? "less" : "more");
        break;
    case OCC_INPUT_SUB_GROUP:
        snprintf(what, sizeof what, "use sub-group size %llu", (unsigned long long)s->value);
        break;
    case OCC_INPUT_SLM:
        occ_format_bytes(b, sizeof b, s->value, true);
        snprintf(what, sizeof what, "reduce %s per work-group to %s or less", d->local_memory_name, b);
        break;
    case OCC_INPUT_GRF:
        snprintf(what, sizeof what, "use the %llu-register GRF mode", (unsigned long long)s->value);
        break;
    case OCC_INPUT_REGISTERS:
        if (w && w->waves_per_simd)
            snprintf(what, sizeof what, "use at most %llu %s", (unsigned long long)s->value, w->register_word);
        else
            snprintf(what, sizeof what, "reduce registers per thread to %llu or less",
                     (unsigned long long)s->value);
        break;
    case OCC_INPUT_CARVEOUT:
        snprintf(what, sizeof what, "raise the shared-memory carveout to %llu %% or more",
                 (unsigned long long)s->value);
        break;
    case OCC_INPUT_BARRIER:
        snprintf(what, sizeof what, "remove the work-group barrier");
        break;
    default:
        snprintf(what, sizeof what, "change an input");
    }
    char waves[48] = ""; /* whole work-groups' waves per SIMD: the occupancy of the SIMD's slots */
    if (w && w->waves_per_simd && d->n_grf_modes)
        snprintf(waves, sizeof waves, ", %g waves per SIMD",
                 (double)(float)(s->occupancy * d->grf_modes[0].threads_per_engine));
    int n = snprintf(buf, size, "%s: %u work-group%s per %s%s, %.1f %%", what, s->resident_wgs,
                     s->resident_wgs == 1 ? "" : "s", d->core_name, waves, s->occupancy * 100.0);
    return n < 0 ? 0 : (size_t)n;
}
