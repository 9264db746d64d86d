/* One validation run from a launch's result (or a record file) to its
 * verdict: what `occcalc validate` prints, for every caller (occ/backend.h,
 * "a whole validation"). */
#include "common/internal.h"
#include "occ/backend.h"
#include "validate/cluster_check.h"

#include <stdlib.h>
#include <string.h>

void occ_validation_init(occ_validation *v)
{
    if (!v)
        return;
    memset(v, 0, sizeof *v);
    v->struct_size = sizeof *v;
    occ_probe_result_init(&v->res);
    occ_timeline_init(&v->predicted);
    occ_timeline_init(&v->measured);
    occ_measure_info_init(&v->minfo);
    occ_compare_tolerance_init(&v->tol);
}

void occ_validation_free(occ_validation *v)
{
    if (!v)
        return;
    occ_probe_result_free(&v->res);
    occ_timeline_free(&v->predicted);
    occ_timeline_free(&v->measured);
    occ_device_free(v->owned_dev);
    v->owned_dev = NULL;
    v->dev = NULL;
}

/* Core ids may have holes (%smid is not promised dense): number the cores
 * that appear densely when an id is beyond the core count and they fit. */
static void densify_cores(occ_probe_result *res, uint32_t cores)
{
    uint32_t max = 0;
    for (size_t i = 0; i < res->n_records; i++) {
        if (res->records[i].core_start > max)
            max = res->records[i].core_start;
        if (res->records[i].core_end > max)
            max = res->records[i].core_end;
    }
    if (max < cores)
        return;
    uint32_t *map = malloc(((size_t)max + 1) * sizeof *map);
    if (!map)
        return; /* left as they are: the timeline then names the core out of range */
    for (uint32_t i = 0; i <= max; i++)
        map[i] = UINT32_MAX;
    for (size_t i = 0; i < res->n_records; i++)
        map[res->records[i].core_start] = map[res->records[i].core_end] = 0;
    uint32_t next = 0;
    for (uint32_t i = 0; i <= max; i++)
        if (map[i] == 0)
            map[i] = next++;
    if (next <= cores)
        for (size_t i = 0; i < res->n_records; i++) {
            res->records[i].core_start = map[res->records[i].core_start];
            res->records[i].core_end = map[res->records[i].core_end];
        }
    free(map);
}

static occ_status use_device(occ_validation *v, const occ_device *dev, occ_diag *diag)
{
    if (dev) {
        v->dev = dev;
        return OCC_OK;
    }
    occ_diag why;
    memset(&why, 0, sizeof why);
    occ_status s = occ_device_create(&v->desc, &v->owned_dev, &why);
    if (s != OCC_OK)
        return occ__diag(diag, s, NULL, 0, 0, why.key[0] ? why.key : NULL,
                         "the backend's device description is invalid: %s", why.message);
    v->dev = v->owned_dev;
    return OCC_OK;
}

occ_status occ_validation_analyse(occ_validation *v, const occ_device *dev, double merge_tolerance,
                                  occ_diag *diag)
{
    if (!v || v->struct_size < sizeof *v)
        return occ__diag(diag, OCC_ERR_INVALID_ARGUMENT, NULL, 0, 0, NULL,
                         "validation missing or struct_size too small");
    /* Analysing again starts over: nothing of an earlier analysis is kept. */
    occ_timeline_free(&v->predicted);
    occ_timeline_free(&v->measured);
    occ_device_free(v->owned_dev);
    v->owned_dev = NULL;
    v->dev = NULL;
    occ_status s = use_device(v, dev, diag);
    if (s != OCC_OK)
        return s;
    const occ_device_desc *d = occ_device_describe(v->dev);
    occ_probe_result *res = &v->res;
    v->problem[0] = '\0';
    memset(&v->clusters, 0, sizeof v->clusters);
    bool in_clusters = occ_kernel_cluster_size(&res->actual) != 0;
    occ_clusters cl;
    cl.struct_size = sizeof cl;
    /* a profile without GPC data cannot predict a launch in clusters: said first */
    if (in_clusters && (s = occ_cluster_compute(v->dev, &res->actual, &cl, diag)) != OCC_OK)
        return s;
    occ_residency_compute(v->dev, &res->actual, &v->model);
    v->records_ok = !res->records_missing && !res->records_invalid && res->n_records;
    /* Level Zero's answer counts the whole device: not comparable per core. */
    v->driver_ok = res->driver_resident < 0 || v->info.driver_per_device ||
                   (uint32_t)res->driver_resident == (v->model.launchable ? v->model.resident_wgs : 0);
    v->pass = false;
    if (!v->model.launchable) {
        char why[200];
        occ_residency_reason(v->dev, &res->actual, why, sizeof why);
        v->verdict = OCC_VALIDATION_NOT_LAUNCHABLE;
        snprintf(v->problem, sizeof v->problem,
                 "the model says this kernel cannot launch (%s), yet it ran", why);
        return OCC_OK;
    }
    if (!res->n_records) {
        v->verdict = OCC_VALIDATION_NO_RECORDS;
        snprintf(v->problem, sizeof v->problem, "the launch returned no records (%u missing)",
                 res->records_missing);
        return OCC_OK;
    }
    densify_cores(res, d->cores);
    occ_measure_params p;
    occ_measure_params_init(&p);
    p.cores = d->cores;
    p.contexts_per_core = v->model.contexts_per_core;
    p.contexts_per_wg = v->model.contexts_per_wg;
    p.tick_seconds = res->tick_seconds;
    p.merge_tolerance = merge_tolerance;
    p.lanes = true;
    occ_diag why;
    memset(&why, 0, sizeof why);
    s = occ_timeline_from_records(res->records, res->n_records, &p, &v->measured, &v->minfo, &why);
    if (s != OCC_OK)
        return occ__diag(diag, s, why.file[0] ? why.file : NULL, why.line, why.column,
                         why.key[0] ? why.key : NULL, "records: %s", why.message);
    /* The model predicts in work-group durations; the hardware's is the median.
     * With it in seconds, the profile's dispatch timing applies (docs/phases.md). */
    v->unit_s = v->minfo.median_wg_s > 0 ? v->minfo.median_wg_s : res->duration_s;
    /* With dispatch timing, or unequal durations on purpose (the probe's
     * spread), predicted with the measured durations: each block's own, in
     * dispatch (block id) order; equal spins last 10.4 to 11.9 us for 10 us
     * with spilled registers (docs/phases.md "Dispatch timing").  Without
     * timing, equal durations: the untimed model is compared phase by phase. */
    occ_durations dd = {.kind = OCC_DURATIONS_EQUAL};
    double *measured = NULL;
    size_t n_measured = 0;
    if ((res->duration_spread_s > 0 || occ_device_has_timing(d)) &&
        occ_measured_durations(res, v->unit_s, &measured, &n_measured) == OCC_OK &&
        n_measured <= res->work_groups) {
        dd.kind = OCC_DURATIONS_LIST;
        dd.values = measured;
        dd.n_values = n_measured;
    }
    s = occ_validation_predict_timed(v->dev, &res->actual, res->work_groups, v->unit_s, &dd,
                                     &v->predicted);
    free(measured);
    if (s != OCC_OK)
        return occ__diag(diag, s, NULL, 0, 0, NULL, "cannot predict the timeline: %s",
                         occ_status_text(s));
    occ_compare_tolerance_init(&v->tol);
    occ_timeline_compare(&v->predicted, v->unit_s, &v->measured, &v->tol, &v->cmp);
    /* occupancy over time against the exact curve (no merging of nearby events) */
    occ_timeline exact;
    occ_timeline_init(&exact);
    p.merge_tolerance = 1e-9;
    p.lanes = false;
    occ_measure_info xinfo;
    s = occ_timeline_from_records(res->records, res->n_records, &p, &exact, &xinfo, &why);
    if (s == OCC_OK)
        occ_timeline_compare_over_time(&v->predicted, v->unit_s, &exact, &v->tol, &v->cmp);
    occ_timeline_free(&exact);
    if (s != OCC_OK)
        return occ__diag(diag, s, NULL, 0, 0, NULL, "records: %s", why.message);
    if (in_clusters && (s = occ__cluster_check(v->dev, res, &v->clusters, diag)) != OCC_OK)
        return s;
    /* In clusters the rule's checks decide, with the most work-groups per core:
     * a GPU may leave a cluster of a refill to one more wave, which the
     * simulator does not, so the curves over time are reported only. */
    bool timeline_ok = in_clusters ? v->cmp.peak_ok : v->cmp.pass;
    v->pass = timeline_ok && v->records_ok && v->driver_ok && (!in_clusters || v->clusters.ok);
    v->verdict = v->pass ? OCC_VALIDATION_PASS : OCC_VALIDATION_MISMATCH;
    return OCC_OK;
}

occ_status occ_validation_replay(FILE *f, const char *origin, const occ_device *dev,
                                 double merge_tolerance, occ_validation *v, occ_diag *diag)
{
    if (!f || !v || v->struct_size < sizeof *v)
        return occ__diag(diag, OCC_ERR_INVALID_ARGUMENT, origin, 0, 0, NULL,
                         "no record file or no validation");
    occ_status s = occ_probe_file_read(f, origin, &v->info, &v->desc, &v->res, diag);
    if (s != OCC_OK)
        return s;
    return occ_validation_analyse(v, dev, merge_tolerance, diag);
}

occ_status occ_validation_refused(const occ_device_desc *desc, const occ_kernel *k, bool *agrees,
                                  char *buf, size_t size, occ_diag *diag)
{
    if (!desc || !k || !agrees || !buf || !size)
        return occ__diag(diag, OCC_ERR_INVALID_ARGUMENT, NULL, 0, 0, NULL, "missing argument");
    occ_device *dev = NULL;
    occ_status s = occ_device_create(desc, &dev, diag);
    if (s != OCC_OK)
        return s;
    occ_residency r;
    occ_residency_compute(dev, k, &r);
    *agrees = !r.launchable;
    char why[200] = "";
    if (*agrees)
        occ_residency_reason(dev, k, why, sizeof why);
    snprintf(buf, size, "the model %s: %s",
             *agrees ? "agrees it cannot launch" : "says it can launch (disagreement)", why);
    occ_device_free(dev);
    return OCC_OK;
}
