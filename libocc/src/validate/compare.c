/* Predicted against measured timelines, phase by phase.
 *
 * The prediction for a validation run is the dispatch simulator's timeline
 * (timeline.h) of n work-groups of equal duration, with per-core lanes.  For
 * NVIDIA (spread order, whole blocks) that is the wave model of
 * occ_gpu_compute: full waves of resident_wgs per SM, the last wave spread one
 * block per SM round after round; tests/test_cuda_replay.c checks the two
 * agree on every recorded campaign run.  Phases merge as the measured ones do:
 * back-to-back full waves are one phase. */
#include "common/internal.h"
#include "occ/backend.h"
#include "occ/timeline.h"

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

occ_status occ_validation_predict(const occ_device *dev, const occ_kernel *k, uint64_t work_groups,
                                  occ_timeline *out)
{
    if (!dev || !k || !out || work_groups == 0)
        return OCC_ERR_INVALID_ARGUMENT;
    occ_sim_options o;
    occ_sim_options_init(&o);
    o.lanes = true;
    occ_diag diag;
    occ_status s = occ_timeline_simulate(dev, k, work_groups, &o, out, &diag);
    if (s != OCC_OK) {
        occ_timeline_free(out);
        occ_timeline_init(out);
    }
    return s;
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
