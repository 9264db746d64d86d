/* Bounds: residency and occupancy over every value of the inputs that are
 * not known yet.  Exact, not sampled: each unknown input is reduced to the
 * few values where the extremes can lie, and the product of those is
 * evaluated with the model itself.
 *
 * Why few values suffice: the sub-group size changes the contexts per
 * work-group and the GRF mode the contexts per core, so both are enumerated.
 * The other inputs only move the resident count, and for fixed contexts
 * every occupancy (per core, and time-weighted over the run) grows with it.
 * Each limit depends on its own inputs (registers; barrier; local memory with
 * the carveout), so the extremes of the minimum are reached at the extremes
 * of each: registers and barrier are monotone (two values each); local
 * memory is monotone while the core's local-memory size stays the same, so
 * its candidates are the ends of the range plus both sides of every point
 * where the allocation crosses a legal core size; the carveout preference
 * matters only through the core size it selects (one value per size). */
#include "advise/advise_internal.h"

#include <string.h>

#define MAX_VALUES (2 * OCC_MAX_CARVEOUTS + 4)

void occ_kernel_range_init(occ_kernel_range *r)
{
    if (!r)
        return;
    memset(r, 0, sizeof *r);
    r->struct_size = sizeof *r;
    occ_kernel_init(&r->k);
}

void occ_bounds_init(occ_bounds *b)
{
    if (!b)
        return;
    memset(b, 0, sizeof *b);
    b->struct_size = sizeof *b;
    occ_kernel_init(&b->best);
    occ_kernel_init(&b->worst);
}

static size_t add_value(uint64_t *v, size_t n, uint64_t x)
{
    for (size_t i = 0; i < n; i++)
        if (v[i] == x)
            return n;
    v[n] = x;
    return n + 1;
}

/* Local memory candidates in [lo, hi]. */
static size_t slm_values(const occ_device_desc *d, uint64_t lo, uint64_t hi, uint64_t *v)
{
    size_t n = 0;
    n = add_value(v, n, lo);
    n = add_value(v, n, hi);
    if (!d->n_carveouts)
        return n;
    uint64_t res = d->slm_reserved_per_work_group;
    for (uint32_t i = 0; i < d->n_carveouts; i++) {
        /* the largest request whose allocation still fits carveout i */
        uint64_t a = occ__alloc_floor(d, d->carveouts[i]);
        if (a < res)
            continue;
        uint64_t s = a - res;
        if (s >= lo && s <= hi)
            n = add_value(v, n, s);
        if (s + 1 >= lo && s + 1 <= hi && s + 1 > s)
            n = add_value(v, n, s + 1);
    }
    return n;
}

/* Carveout preferences, one per distinct core size they select. */
static size_t carveout_values(const occ_device_desc *d, int32_t *v)
{
    size_t n = 0;
    uint64_t last = UINT64_MAX;
    for (int32_t p = 0; p <= 100; p++) {
        uint64_t want = occ__ceil_div((uint64_t)p * d->slm_per_core, 100);
        uint64_t c = d->slm_per_core;
        for (uint32_t i = 0; i < d->n_carveouts; i++)
            if (d->carveouts[i] >= want) {
                c = d->carveouts[i];
                break;
            }
        if (c != last)
            v[n++] = p, last = c;
    }
    return n;
}

/* Register candidates: NVIDIA registers per thread (two ends), or the Intel
 * GRF modes a register need in [lo, hi] can select (plus hi itself when no
 * mode is that large, which cannot launch). */
static size_t reg_values(const occ_device_desc *d, uint32_t lo, uint32_t hi, uint64_t *v)
{
    size_t n = 0;
    if (d->has_register_file) {
        n = add_value(v, n, lo);
        return add_value(v, n, hi);
    }
    for (uint32_t i = 0; i < d->n_grf_modes; i++) {
        uint32_t regs = d->grf_modes[i].registers;
        uint32_t below = i ? d->grf_modes[i - 1].registers : 0;
        if (regs >= lo && below < hi) /* some need in [lo, hi] selects this mode */
            n = add_value(v, n, regs);
    }
    if (hi > d->grf_modes[d->n_grf_modes - 1].registers)
        n = add_value(v, n, hi);
    return n;
}

static void consider(const occ_device *dev, const occ_kernel *k, uint64_t work_groups, occ_bounds *b,
                     bool *first)
{
    occ_residency r;
    occ__eval(&dev->desc, k, &r);
    b->evaluations++;
    uint32_t res = r.launchable ? r.resident_wgs : 0;
    double occ = r.launchable ? r.occupancy : 0.0;
    double gocc = 0.0;
    uint64_t waves = 0;
    if (r.launchable && work_groups) {
        occ_gpu g;
        if (occ_gpu_compute(dev, &r, work_groups, &g) == OCC_OK)
            gocc = g.average_occupancy, waves = g.waves;
    }
    if (r.launchable)
        b->never_launchable = false;
    else
        b->always_launchable = false;
    if (*first || res < b->resident_min)
        b->resident_min = res;
    if (*first || res > b->resident_max)
        b->resident_max = res;
    if (*first || occ < b->occupancy_min)
        b->occupancy_min = occ, b->worst = *k;
    if (*first || occ > b->occupancy_max)
        b->occupancy_max = occ, b->best = *k;
    if (*first || gocc < b->gpu_occupancy_min)
        b->gpu_occupancy_min = gocc;
    if (*first || gocc > b->gpu_occupancy_max)
        b->gpu_occupancy_max = gocc;
    if (r.launchable && work_groups) {
        if (!b->waves_min || waves < b->waves_min)
            b->waves_min = waves;
        if (waves > b->waves_max)
            b->waves_max = waves;
    }
    *first = false;
}

occ_status occ_residency_bounds(const occ_device *dev, const occ_kernel_range *q, occ_bounds *b)
{
    if (!dev || !q || !b || q->struct_size < sizeof *q || q->k.struct_size < sizeof q->k)
        return OCC_ERR_INVALID_ARGUMENT;
    const occ_device_desc *d = &dev->desc;
    uint32_t unk = q->unknown;
    if (unk & ~(uint32_t)OCC_UNKNOWN_ALL || q->n_sub_groups > OCC_MAX_SUB_GROUP_SIZES)
        return OCC_ERR_INVALID_ARGUMENT;

    uint64_t sgs[OCC_MAX_SUB_GROUP_SIZES];
    size_t n_sg = 0;
    if (unk & OCC_UNKNOWN_SUB_GROUP) {
        if (q->n_sub_groups) {
            for (uint32_t i = 0; i < q->n_sub_groups; i++) {
                if (!q->sub_groups[i])
                    return OCC_ERR_INVALID_ARGUMENT;
                n_sg = add_value(sgs, n_sg, q->sub_groups[i]);
            }
        } else {
            for (uint32_t i = 0; i < d->n_sub_group_sizes; i++)
                sgs[n_sg++] = d->sub_group_sizes[i];
        }
    } else {
        sgs[n_sg++] = q->k.sub_group;
    }

    uint64_t regs[OCC_MAX_GRF_MODES + 2];
    size_t n_regs = 0;
    if (unk & OCC_UNKNOWN_REGISTERS) {
        uint32_t top = d->has_register_file ? d->reg_max_per_thread
                                            : d->grf_modes[d->n_grf_modes - 1].registers;
        uint32_t lo = q->regs_min ? q->regs_min : 1, hi = q->regs_max ? q->regs_max : top;
        if (lo > hi)
            return OCC_ERR_INVALID_ARGUMENT;
        n_regs = reg_values(d, lo, hi, regs);
    } else {
        regs[n_regs++] = d->has_register_file ? q->k.regs_per_thread : q->k.grf;
    }

    uint64_t slms[MAX_VALUES];
    size_t n_slm = 0;
    if (unk & OCC_UNKNOWN_SLM) {
        uint64_t hi = q->slm_max ? q->slm_max : d->slm_max_per_work_group;
        if (q->slm_min > hi)
            return OCC_ERR_INVALID_ARGUMENT;
        n_slm = slm_values(d, q->slm_min, hi, slms);
    } else {
        slms[n_slm++] = q->k.slm_bytes;
    }

    int32_t cos[101];
    size_t n_co = 0;
    if ((unk & OCC_UNKNOWN_CARVEOUT) && d->n_carveouts)
        n_co = carveout_values(d, cos);
    else
        cos[n_co++] = q->k.carveout_pct;

    size_t n_bar = (unk & OCC_UNKNOWN_BARRIER) ? 2 : 1;

    occ_bounds_init(b);
    b->always_launchable = true;
    b->never_launchable = true;
    bool first = true;
    occ_kernel k = q->k;
    for (size_t a = 0; a < n_sg; a++)
        for (size_t g = 0; g < n_regs; g++)
            for (size_t s = 0; s < n_slm; s++)
                for (size_t c = 0; c < n_co; c++)
                    for (size_t w = 0; w < n_bar; w++) {
                        k.sub_group = (uint32_t)sgs[a];
                        if (d->has_register_file)
                            k.regs_per_thread = (uint32_t)regs[g];
                        else
                            k.grf = (uint32_t)regs[g];
                        k.slm_bytes = slms[s];
                        k.carveout_pct = cos[c];
                        k.barrier = n_bar == 2 ? w == 1 : q->k.barrier;
                        consider(dev, &k, q->work_groups, b, &first);
                    }
    return OCC_OK;
}

occ_status occ_residency_bounds_batch(const occ_device *dev, const occ_kernel_range *rs,
                                      occ_bounds *bs, size_t n)
{
    if (!dev || (n && (!rs || !bs)))
        return OCC_ERR_INVALID_ARGUMENT;
    for (size_t i = 0; i < n; i++) {
        occ_status st = occ_residency_bounds(dev, &rs[i], &bs[i]);
        if (st != OCC_OK)
            return st;
    }
    return OCC_OK;
}
