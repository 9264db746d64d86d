/* Predicted against measured timelines, phase by phase.
 *
 * The prediction for a validation run is the dispatch simulator's timeline
 * (timeline.h) of n work-groups of equal duration, with per-core lanes.  For
 * NVIDIA (spread order, whole blocks) that is the wave model of
 * occ_gpu_compute: full waves of resident_wgs per SM, the last wave spread one
 * block per SM round after round; tests/validate/cuda/test_cuda_replay.c checks the two
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
    t->average_pp = 1.0;
    t->distance_pp = OCC_COMPARE_DISTANCE_PP;
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

/* The integral over time of |pred(t) - meas(t)| (occupancy in [0, 1]; the
 * prediction's times scaled by unit_s; both curves start at their first
 * phase's start and are 0 after their last phase): a merge of the two step
 * functions, O(phases). */
static double curve_distance(const occ_timeline *p, double unit_s, const occ_timeline *m,
                             double *length)
{
    size_t i = 0, j = 0;
    double p0 = p->n_phases ? p->phases[0].start : 0, m0 = m->n_phases ? m->phases[0].start : 0;
    double pend = p->n_phases ? (p->phases[p->n_phases - 1].end - p0) * unit_s : 0;
    double mend = m->n_phases ? m->phases[m->n_phases - 1].end - m0 : 0;
    double end = pend > mend ? pend : mend, t = 0, area = 0;
    while (t < end) {
        while (i < p->n_phases && (p->phases[i].end - p0) * unit_s <= t)
            i++;
        while (j < m->n_phases && m->phases[j].end - m0 <= t)
            j++;
        double pe = i < p->n_phases ? (p->phases[i].end - p0) * unit_s : end;
        double me = j < m->n_phases ? m->phases[j].end - m0 : end;
        double po = i < p->n_phases && (p->phases[i].start - p0) * unit_s <= t ? p->phases[i].occupancy : 0;
        double mo = j < m->n_phases && m->phases[j].start - m0 <= t ? m->phases[j].occupancy : 0;
        double next = pe < me ? pe : me;
        if (i < p->n_phases && (p->phases[i].start - p0) * unit_s > t &&
            (p->phases[i].start - p0) * unit_s < next)
            next = (p->phases[i].start - p0) * unit_s;
        if (j < m->n_phases && m->phases[j].start - m0 > t && m->phases[j].start - m0 < next)
            next = m->phases[j].start - m0;
        if (!(next > t))
            break;
        area += fabs(po - mo) * (next - t);
        t = next;
    }
    *length = end;
    return area;
}

occ_status occ_validation_predict_timed(const occ_device *dev, const occ_kernel *k,
                                        uint64_t work_groups, double unit_s,
                                        const occ_durations *durations, occ_timeline *out)
{
    if (!dev || !k || !out || work_groups == 0 || !(unit_s > 0))
        return OCC_ERR_INVALID_ARGUMENT;
    occ_sim_options o;
    occ_sim_options_init(&o);
    o.lanes = true;
    o.time_unit_s = unit_s;
    if (durations)
        o.durations = *durations;
    occ_diag diag;
    occ_status s = occ_timeline_simulate(dev, k, work_groups, &o, out, &diag);
    if (s != OCC_OK) {
        occ_timeline_free(out);
        occ_timeline_init(out);
    }
    return s;
}

occ_status occ_measured_durations(const occ_probe_result *res, double unit_s, double **values,
                                  size_t *n)
{
    if (!res || !values || !n || !(unit_s > 0))
        return OCC_ERR_INVALID_ARGUMENT;
    *values = NULL;
    *n = 0;
    if (!res->n_records)
        return OCC_ERR_VALUE;
    uint64_t top = 0;
    for (size_t i = 0; i < res->n_records; i++)
        if (res->records[i].work_group > top)
            top = res->records[i].work_group;
    if (top >= (1ull << 32))
        return OCC_ERR_VALUE;
    size_t m = (size_t)top + 1;
    uint64_t *lo = malloc(m * sizeof *lo), *hi = calloc(m, sizeof *hi);
    double *v = malloc(m * sizeof *v);
    if (!lo || !hi || !v) {
        free(lo);
        free(hi);
        free(v);
        return OCC_ERR_NO_MEMORY;
    }
    for (size_t i = 0; i < m; i++)
        lo[i] = UINT64_MAX;
    for (size_t i = 0; i < res->n_records; i++) {
        const occ_record *r = &res->records[i];
        if (r->t_start < lo[r->work_group])
            lo[r->work_group] = r->t_start;
        if (r->t_end > hi[r->work_group])
            hi[r->work_group] = r->t_end;
    }
    for (size_t i = 0; i < m; i++) {
        double d = lo[i] == UINT64_MAX ? unit_s : (double)(hi[i] - lo[i]) * res->tick_seconds;
        v[i] = d > 0 ? d / unit_s : 1e-9; /* the simulator needs positive durations */
    }
    free(lo);
    free(hi);
    *values = v;
    *n = m;
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

/* The checks of occupancy over time: averages and the curves' distance. */
static void over_time(const occ_timeline *pred, double unit_s, const occ_timeline *meas,
                      const occ_compare_tolerance *tl, occ_comparison *out)
{
    out->average_diff_pp = fabs(pred->average_occupancy - meas->average_occupancy) * 100.0;
    out->average_ok = out->average_diff_pp <= tl->average_pp + 1e-9;
    double length = 0, area = curve_distance(pred, unit_s, meas, &length);
    out->distance_pp = length > 0 ? area / length * 100.0 : 0;
    out->distance_ok = out->distance_pp <= tl->distance_pp + 1e-9;
}

static void verdict(occ_comparison *out, const occ_compare_tolerance *tl)
{
    out->phases_compared = out->phases_ok;
    out->pass = out->peak_ok && out->average_ok && out->distance_ok &&
                (!out->phases_compared || (out->occupancy_ok && out->durations_ok));
    if (out->pass)
        snprintf(out->summary, sizeof out->summary, "pass");
    else if (!out->peak_ok)
        snprintf(out->summary, sizeof out->summary,
                 "work-groups per core: predicted %u at most, measured %u",
                 out->predicted_peak_per_core, out->measured_peak_per_core);
    else if (!out->average_ok)
        snprintf(out->summary, sizeof out->summary,
                 "average occupancy differs by %.2f pp (tolerance %.2f)", out->average_diff_pp,
                 tl->average_pp);
    else if (!out->distance_ok)
        snprintf(out->summary, sizeof out->summary,
                 "occupancy over time differs by %.2f pp on average (tolerance %.2f)",
                 out->distance_pp, tl->distance_pp);
    else if (!out->occupancy_ok)
        snprintf(out->summary, sizeof out->summary,
                 "phase %zu occupancy differs by %.2f pp (tolerance %.2f)",
                 out->worst_occupancy_phase + 1, out->max_occupancy_diff_pp, tl->occupancy_pp);
    else
        snprintf(out->summary, sizeof out->summary,
                 "phase %zu duration differs by %.1f %% (tolerance %.1f %%)",
                 out->worst_duration_phase + 1, out->max_duration_diff_rel * 100.0,
                 tl->duration_rel * 100.0);
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
    over_time(pred, unit_s, meas, &tl, out);
    verdict(out, &tl);
    return OCC_OK;
}

occ_status occ_timeline_compare_over_time(const occ_timeline *pred, double unit_s,
                                          const occ_timeline *meas_exact,
                                          const occ_compare_tolerance *tol, occ_comparison *out)
{
    if (!pred || !meas_exact || !out || !(unit_s > 0) || out->struct_size != sizeof *out)
        return OCC_ERR_INVALID_ARGUMENT;
    occ_compare_tolerance tl;
    occ_compare_tolerance_init(&tl);
    if (tol)
        tl = *tol;
    out->measured_average = meas_exact->average_occupancy;
    over_time(pred, unit_s, meas_exact, &tl, out);
    verdict(out, &tl);
    return OCC_OK;
}
