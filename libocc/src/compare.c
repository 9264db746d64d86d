/* Predicted against measured timelines, phase by phase.
 *
 * The prediction for a validation run is the timeline of n equal work-groups.
 * For whole-work-group dispatch with equal durations that is the wave model
 * of occ_gpu_compute: every full wave holds resident_wgs work-groups on every
 * core, and the last wave's work-groups go out in dispatch order (SPREAD: one
 * per core, round after round; PACK: core after core).  Phases merge as the
 * simulator's and the measured ones do: back-to-back full waves are one
 * phase. */
#include "internal.h"
#include "occ/backend.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void occ_compare_tolerance_init(occ_compare_tolerance *t)
{
    if (!t)
        return;
    memset(t, 0, sizeof *t);
    t->struct_size = sizeof *t;
    t->occupancy_pp = 1.0;
    t->duration_rel = 0.10;
}

/* One phase of the wave model: wgs work-groups spread or packed over the cores. */
static void fill_lanes(uint32_t cores, uint32_t per_core_max, uint64_t wgs, bool spread,
                       uint32_t cpw, uint32_t *ctx, uint32_t *wg)
{
    for (uint32_t c = 0; c < cores; c++) {
        uint64_t k;
        if (spread)
            k = wgs / cores + (c < wgs % cores ? 1 : 0);
        else
            k = wgs >= (uint64_t)(c + 1) * per_core_max ? per_core_max
                : wgs > (uint64_t)c * per_core_max    ? wgs - (uint64_t)c * per_core_max
                                                       : 0;
        wg[c] = (uint32_t)k;
        ctx[c] = (uint32_t)k * cpw;
    }
}

occ_status occ_validation_predict(const occ_device *dev, const occ_kernel *k, uint64_t work_groups,
                                  occ_timeline *out)
{
    if (!dev || !k || !out || work_groups == 0)
        return OCC_ERR_INVALID_ARGUMENT;
    memset(out, 0, sizeof *out);
    out->struct_size = sizeof *out;
    occ_residency r;
    occ_status s = occ_residency_compute(dev, k, &r);
    if (s != OCC_OK)
        return s;
    if (!r.launchable || r.resident_wgs == 0)
        return OCC_ERR_UNSUPPORTED;
    occ_gpu g;
    if ((s = occ_gpu_compute(dev, &r, work_groups, &g)) != OCC_OK)
        return s;
    const occ_device_desc *d = occ_device_describe(dev);
    uint32_t cores = d->cores;
    bool spread = d->dispatch_order == OCC_DISPATCH_SPREAD;
    bool tail = work_groups % g.wave_capacity != 0;
    size_t n = (g.full_waves ? 1 : 0) + (tail ? 1 : 0);
    out->cores = cores;
    out->contexts_total = (uint64_t)cores * r.contexts_per_core;
    out->work_groups = work_groups;
    out->n_phases = n;
    out->phases = calloc(n, sizeof *out->phases);
    out->core_contexts = calloc(n * cores, sizeof *out->core_contexts);
    out->core_work_groups = calloc(n * cores, sizeof *out->core_work_groups);
    if (!out->phases || !out->core_contexts || !out->core_work_groups) {
        free(out->phases);
        free(out->core_contexts);
        free(out->core_work_groups);
        memset(out, 0, sizeof *out);
        out->struct_size = sizeof *out;
        return OCC_ERR_NO_MEMORY;
    }
    size_t i = 0;
    double t = 0, area = 0;
    uint64_t waves[2] = {g.full_waves ? g.wave_capacity : 0, work_groups % g.wave_capacity};
    double lengths[2] = {(double)g.full_waves, 1.0};
    for (int w = 0; w < 2; w++) {
        if (!waves[w])
            continue;
        occ_phase *ph = &out->phases[i];
        uint32_t *ctx = out->core_contexts + i * cores, *wg = out->core_work_groups + i * cores;
        fill_lanes(cores, r.resident_wgs, waves[w], spread, r.contexts_per_wg, ctx, wg);
        ph->start = t;
        ph->end = t + lengths[w];
        ph->work_groups = waves[w];
        ph->thread_contexts = waves[w] * r.contexts_per_wg;
        ph->occupancy = (double)ph->thread_contexts / (double)out->contexts_total;
        uint32_t busy = 0;
        for (uint32_t c = 0; c < cores; c++)
            busy += ctx[c] != 0;
        ph->cores_busy = busy;
        area += ph->occupancy * lengths[w];
        t = ph->end;
        i++;
    }
    out->average_occupancy = t > 0 ? area / t : 0;
    return OCC_OK;
}

static uint32_t peak_per_core(const occ_timeline *t)
{
    uint32_t peak = 0;
    if (t->core_work_groups) {
        for (size_t i = 0; i < t->n_phases * t->cores; i++)
            if (t->core_work_groups[i] > peak)
                peak = t->core_work_groups[i];
    }
    return peak;
}

occ_status occ_timeline_compare(const occ_timeline *pred, double unit_s, const occ_timeline *meas,
                                const occ_compare_tolerance *tol, occ_comparison *out)
{
    if (!pred || !meas || !out || !(unit_s > 0))
        return OCC_ERR_INVALID_ARGUMENT;
    occ_compare_tolerance tl;
    occ_compare_tolerance_init(&tl);
    if (tol)
        tl = *tol;
    memset(out, 0, sizeof *out);
    out->struct_size = sizeof *out;
    out->predicted_peak_per_core = peak_per_core(pred);
    out->measured_peak_per_core = peak_per_core(meas);
    out->peak_ok = out->predicted_peak_per_core == out->measured_peak_per_core &&
                   pred->core_work_groups && meas->core_work_groups;
    out->predicted_phases = pred->n_phases;
    out->measured_phases = meas->n_phases;
    out->phases_ok = pred->n_phases == meas->n_phases;
    size_t n = pred->n_phases < meas->n_phases ? pred->n_phases : meas->n_phases;
    out->compared_phases = n;
    out->occupancy_ok = out->durations_ok = n > 0;
    for (size_t i = 0; i < n; i++) {
        const occ_phase *p = &pred->phases[i], *m = &meas->phases[i];
        double dpp = fabs(p->occupancy - m->occupancy) * 100.0;
        if (dpp > out->max_occupancy_diff_pp || i == 0) {
            out->max_occupancy_diff_pp = dpp;
            out->worst_occupancy_phase = i;
        }
        double pd = (p->end - p->start) * unit_s, md = m->end - m->start;
        double rel = pd > 0 ? fabs(md - pd) / pd : INFINITY;
        if (rel > out->max_duration_diff_rel || i == 0) {
            out->max_duration_diff_rel = rel;
            out->worst_duration_phase = i;
        }
    }
    if (n) {
        out->occupancy_ok = out->max_occupancy_diff_pp <= tl.occupancy_pp + 1e-9;
        out->durations_ok = out->max_duration_diff_rel <= tl.duration_rel + 1e-9;
    }
    out->predicted_average = pred->average_occupancy;
    out->measured_average = meas->average_occupancy;
    out->pass = out->peak_ok && out->phases_ok && out->occupancy_ok && out->durations_ok;
    if (out->pass)
        snprintf(out->summary, sizeof out->summary, "pass");
    else if (!out->peak_ok)
        snprintf(out->summary, sizeof out->summary,
                 "work-groups per core: predicted %u at most, measured %u",
                 out->predicted_peak_per_core, out->measured_peak_per_core);
    else if (!out->phases_ok)
        snprintf(out->summary, sizeof out->summary, "phases: predicted %zu, measured %zu",
                 out->predicted_phases, out->measured_phases);
    else if (!out->occupancy_ok)
        snprintf(out->summary, sizeof out->summary,
                 "phase %zu occupancy differs by %.2f pp (tolerance %.2f)",
                 out->worst_occupancy_phase + 1, out->max_occupancy_diff_pp, tl.occupancy_pp);
    else
        snprintf(out->summary, sizeof out->summary,
                 "phase %zu duration differs by %.1f %% (tolerance %.1f %%)",
                 out->worst_duration_phase + 1, out->max_duration_diff_rel * 100.0,
                 tl.duration_rel * 100.0);
    return OCC_OK;
}
