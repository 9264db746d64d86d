/* Whole GPU for N work-groups of equal duration: waves and their occupancy.
 * All cores fill up together, so a wave holds cores * resident work-groups;
 * the last wave may be partial and counts for its real share of the time
 * (Intel's calculator gives it weight zero). */
#include "common/internal.h"

#include "arch/arch.h"

#include <string.h>

occ_status occ_gpu_compute(const occ_device *dev, const occ_residency *r, uint64_t work_groups,
                           occ_gpu *g)
{
    if (!dev || !r || !g || work_groups == 0)
        return OCC_ERR_INVALID_ARGUMENT;
    memset(g, 0, sizeof *g);
    g->struct_size = sizeof *g;
    g->work_groups = work_groups;
    if (!r->launchable || r->resident_wgs == 0 || r->contexts_per_wg == 0)
        return OCC_ERR_UNSUPPORTED;
    const occ_device_desc *d = &dev->desc;
    g->contexts_needed = work_groups > UINT64_MAX / r->contexts_per_wg
                             ? UINT64_MAX
                             : work_groups * r->contexts_per_wg;
    g->contexts_total = (uint64_t)d->cores * r->contexts_per_core;
    g->wave_capacity = (uint64_t)d->cores * r->resident_wgs;
    g->full_waves = work_groups / g->wave_capacity;
    g->last_wave_work_groups = work_groups % g->wave_capacity;
    g->waves = g->full_waves + (g->last_wave_work_groups ? 1 : 0);
    g->full_wave_occupancy = (double)(g->wave_capacity * r->contexts_per_wg) / g->contexts_total;
    if (!g->last_wave_work_groups)
        g->last_wave_work_groups = g->wave_capacity;
    g->last_wave_occupancy =
        (double)(g->last_wave_work_groups * r->contexts_per_wg) / g->contexts_total;
    /* equal durations: every wave lasts one work-group duration */
    g->average_occupancy =
        ((double)(g->waves - 1) * g->full_wave_occupancy + g->last_wave_occupancy) / (double)g->waves;
    /* Intel's calculator (compute_gpu_occupancy in its page): with more than
     * one wave, a full wave's occupancy times full / (full + 1) when a partial
     * wave remains (that wave counts zero); with less than one wave, the
     * wave's share of a full one. */
    bool partial = work_groups % g->wave_capacity != 0;
    if (g->full_waves == 0)
        g->intel_calculator_occupancy =
            g->full_wave_occupancy * (double)work_groups / (double)g->wave_capacity;
    else
        g->intel_calculator_occupancy =
            partial ? g->full_wave_occupancy * (double)g->full_waves / (double)(g->full_waves + 1)
                    : g->full_wave_occupancy;
    return OCC_OK;
}

occ_status occ_work_groups_for_global(const occ_kernel *k, const uint64_t global[3],
                                      uint64_t *work_groups, occ_diag *diag)
{
    if (!k || !global || !work_groups)
        return OCC_ERR_INVALID_ARGUMENT;
    uint64_t n = 1;
    for (int i = 0; i < 3; i++) {
        if (global[i] == 0)
            return occ__diag(diag, OCC_ERR_VALUE, NULL, 0, 0, "global",
                             "global size is zero in dimension %d", i);
        if (k->wg[i] == 0)
            return occ__diag(diag, OCC_ERR_VALUE, NULL, 0, 0, "wg",
                             "work-group size is zero in dimension %d", i);
        if (global[i] % k->wg[i])
            return occ__diag(diag, OCC_ERR_VALUE, NULL, 0, 0, "global",
                             "global size %llu is not a multiple of the work-group size %u in "
                             "dimension %d (%llu work-group%s and %llu work-item%s left over)",
                             (unsigned long long)global[i], k->wg[i], i,
                             (unsigned long long)(global[i] / k->wg[i]),
                             global[i] / k->wg[i] == 1 ? "" : "s",
                             (unsigned long long)(global[i] % k->wg[i]),
                             global[i] % k->wg[i] == 1 ? "" : "s");
        uint64_t q = global[i] / k->wg[i];
        if (q && n > UINT64_MAX / q)
            return occ__diag(diag, OCC_ERR_VALUE, NULL, 0, 0, "global",
                             "global size gives more than 2^64 work-groups");
        n *= q;
    }
    *work_groups = n;
    return OCC_OK;
}

uint64_t occ_cooperative_max_of(const occ_device *dev, uint32_t resident_wgs, uint32_t contexts_per_wg,
                                uint32_t contexts_per_core, bool barrier, uint64_t slm_bytes)
{
    if (!dev || !resident_wgs || !contexts_per_wg)
        return 0; /* cannot launch */
    const occ__vendor_rules *rules = occ__vendor_rules_of(dev->desc.vendor);
    /* a vendor without a driver rule of its own: every core full at once */
    return rules && rules->cooperative_max
               ? rules->cooperative_max(&dev->desc, resident_wgs, contexts_per_wg, contexts_per_core, barrier,
                                        slm_bytes)
               : (uint64_t)resident_wgs * dev->desc.cores;
}

occ_status occ_cooperative_max(const occ_device *dev, const occ_kernel *k, uint64_t *groups)
{
    if (groups)
        *groups = 0;
    if (!dev || !k || !groups || k->struct_size < sizeof *k)
        return OCC_ERR_INVALID_ARGUMENT;
    occ_residency r;
    occ_status st = occ_residency_compute(dev, k, &r);
    if (st == OCC_OK && r.launchable)
        *groups = occ_cooperative_max_of(dev, r.resident_wgs, r.contexts_per_wg, r.contexts_per_core, k->barrier,
                                         k->slm_bytes);
    return st;
}
