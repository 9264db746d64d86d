/* occcalc validate: the report in text, JSON and SVG. */
#include "validate_out.h"

#include <string.h>

#include "args.h"
#include "doc.h"
#include "report.h"

#define MAX_PHASE_ROWS 12 /* per-phase rows printed when the phase counts differ */

static const char *okw(bool ok) { return ok ? "ok" : "MISMATCH"; }

static void limited_by(char *buf, size_t size, const occ_residency *r)
{
    buf[0] = 0;
    for (int i = 0; i < OCC_RES_COUNT; i++)
        if (r->limited_by & (1u << i)) {
            strncat(buf, *buf ? ", " : "", size - strlen(buf) - 1);
            strncat(buf, occ_resource_name((occ_resource)i), size - strlen(buf) - 1);
        }
}

static void time_text(char *buf, size_t size, double s)
{
    if (s >= 1e-3)
        snprintf(buf, size, "%.3f ms", s * 1e3);
    else if (s >= 1e-6)
        snprintf(buf, size, "%.1f us", s * 1e6);
    else
        snprintf(buf, size, "%.0f ns", s * 1e9);
}

/* The clusters' rows of the comparison (docs/clusters.md, "validate --cluster"). */
static void clusters_text(FILE *f, const occ_validation *v, const occ_device_desc *d)
{
    const occ_cluster_check *cl = &v->clusters;
    char label[64], pv[32], groups[200] = "", gpcs[160] = "";
    fprintf(f, "%-34s %12llu %12llu   %s\n", "clusters at once (most)", (unsigned long long)cl->expected,
            (unsigned long long)cl->at_once, okw(cl->at_once_ok));
    fprintf(f, "%-34s %12llu %12llu   %s\n", "clusters in the first wave", (unsigned long long)cl->expected,
            (unsigned long long)cl->first_wave, okw(cl->first_wave_ok));
    snprintf(label, sizeof label, "%ss used", d->core_name);
    if (cl->launched >= cl->predicted.max_active_clusters)
        fprintf(f, "%-34s %12u %12u   %s\n", label, cl->predicted.cores_used, cl->cores_used, okw(cl->cores_ok));
    else
        fprintf(f, "%-34s %12s %12u   - (the grid does not fill the GPU)\n", label, "-", cl->cores_used);
    snprintf(label, sizeof label, "work-groups per %s in clusters", d->core_name);
    snprintf(pv, sizeof pv, "<= %u", cl->predicted.work_groups_per_core);
    fprintf(f, "%-34s %12s %12u   %s\n", label, pv, cl->peak_per_core, okw(cl->per_core_ok));
    uint32_t shown = cl->n_groups < OCC_MAX_GPCS ? cl->n_groups : OCC_MAX_GPCS;
    for (uint32_t i = 0; i < shown; i++)
        snprintf(groups + strlen(groups), sizeof groups - strlen(groups), "%s%u", i ? ", " : "",
                 cl->group_cores[i]);
    if (shown < cl->n_groups)
        snprintf(groups + strlen(groups), sizeof groups - strlen(groups), ", ... (%u groups)", cl->n_groups);
    for (uint32_t i = 0; i < d->n_gpcs; i++)
        snprintf(gpcs + strlen(gpcs), sizeof gpcs - strlen(gpcs), "%s%u", i ? ", " : "", d->gpc_sms[i]);
    fprintf(f, "%ss sharing clusters: [%s] within the GPCs [%s]: %s\n", d->core_name, groups, gpcs,
            okw(cl->groups_ok));
    fputs("(in clusters the phases and the occupancy over time are reported, not checks)\n", f);
}

void validation_print_text(FILE *f, const validation *cv)
{
    const occ_validation *v = &cv->a;
    const occ_device_desc *d = occ_device_describe(v->dev);
    const occ_probe_result *r = &v->res;
    const occ_kernel *k = &r->actual;
    fprintf(f, "Device   %s [%s; %s, %s]\n", text_safe(v->info.device[0] ? v->info.device : d->product),
            text_safe(cv->source), text_safe(v->info.architecture), text_safe(v->info.driver));
    if (strcmp(occ_device_origin(v->dev), "<builtin:") && d != &v->desc &&
        strcmp(d->name, v->desc.name))
        fprintf(f, "         predicted with profile %s (%s)\n", text_safe(d->name),
                text_safe(occ_device_origin(v->dev)));
    char slm[32];
    occ_format_bytes(slm, sizeof slm, k->slm_bytes, false);
    fprintf(f, "Kernel   %s: work-group %u", text_safe(r->kernel_name), k->wg[0]);
    if (k->wg[1] > 1 || k->wg[2] > 1)
        fprintf(f, "x%ux%u", k->wg[1], k->wg[2]);
    fprintf(f, ", %s %s, %s, %u registers/thread", d->local_memory_name,
            k->slm_bytes ? slm : "none", k->barrier ? "barrier" : "no barrier", k->regs_per_thread);
    if (k->carveout_pct >= 0)
        fprintf(f, ", carveout %d %%", (int)k->carveout_pct);
    fputc('\n', f);
    if (r->differences[0])
        fprintf(f, "         differs from the request: %s\n", r->differences);
    char dur[32], tick[32];
    time_text(dur, sizeof dur, r->duration_s);
    time_text(tick, sizeof tick, r->timer_resolution_s);
    fprintf(f, "Launch   %llu work-group%s spinning %s each; timer step %s; %zu of %llu records",
            (unsigned long long)r->work_groups, plural(r->work_groups), dur, tick, r->n_records,
            (unsigned long long)r->work_groups);
    if (r->records_missing || r->records_invalid)
        fprintf(f, " (%u MISSING, %u INVALID)", r->records_missing, r->records_invalid);
    fputc('\n', f);
    char lim[96];
    limited_by(lim, sizeof lim, &v->model);
    fprintf(f, "Per %-4s model %u work-group%s (limited by %s)", d->core_name, v->model.resident_wgs,
            plural(v->model.resident_wgs), lim);
    if (r->driver_resident >= 0)
        fprintf(f, "; driver %d%s (%s) %s", r->driver_resident,
                v->info.driver_per_device ? " on the device" : "",
                v->info.driver_query[0] ? v->info.driver_query
                                        : "cuOccupancyMaxActiveBlocksPerMultiprocessor",
                okw(v->driver_ok));
    fputc('\n', f);
    if (r->driver_note[0])
        fprintf(f, "         %s\n", r->driver_note);
    const occ_cluster_check *cl = &v->clusters;
    if (cl->clustered) {
        fprintf(f, "Clusters %ux%ux%u (%u work-groups), %llu launched; model %llu at once, at most %u "
                   "work-group%s per %s in %u %ss of %u GPC%s",
                k->cluster[0], k->cluster[1] ? k->cluster[1] : 1, k->cluster[2] ? k->cluster[2] : 1,
                cl->predicted.size, (unsigned long long)cl->launched,
                (unsigned long long)cl->predicted.max_active_clusters, cl->predicted.work_groups_per_core,
                plural(cl->predicted.work_groups_per_core), d->core_name, cl->predicted.cores_used,
                d->core_name, cl->predicted.gpcs_used, plural(cl->predicted.gpcs_used));
        if (r->driver_clusters >= 0)
            fprintf(f, "; driver %d (cuOccupancyMaxActiveClusters) %s", r->driver_clusters, okw(cl->driver_ok));
        fputc('\n', f);
    }
    char med[32], tol[32];
    time_text(med, sizeof med, v->minfo.median_wg_s);
    time_text(tol, sizeof tol, v->minfo.merge_tolerance_s);
    fprintf(f, "Measured work-group duration median %s (min %.1f, max %.1f us); instants merged "
               "within %s; %u %ss used",
            med, v->minfo.min_wg_s * 1e6, v->minfo.max_wg_s * 1e6, tol, v->minfo.cores_used,
            d->core_name);
    if (v->minfo.migrated)
        fprintf(f, "; %llu work-group%s changed %s", (unsigned long long)v->minfo.migrated,
                plural(v->minfo.migrated), d->core_name);
    fputc('\n', f);

    const occ_comparison *c = &v->cmp;
    fprintf(f, "\n%-34s %12s %12s\n", "", "predicted", "measured");
    char label[64];
    snprintf(label, sizeof label, "work-groups per %s (most at once)", d->core_name);
    fprintf(f, "%-34s %12u %12u   %s\n", label, c->predicted_peak_per_core,
            c->measured_peak_per_core, okw(c->peak_ok));
    fprintf(f, "%-34s %12zu %12zu   %s\n", "phases", c->predicted_phases, c->measured_phases,
            c->phases_ok ? "ok" : "differ (reported, not a check)");
    size_t n = v->predicted.n_phases > v->measured.n_phases ? v->predicted.n_phases
                                                            : v->measured.n_phases;
    if (!c->phases_ok && n > MAX_PHASE_ROWS) {
        fprintf(f, "  (%zu phases: per-phase rows only when the counts are equal or at most %d)\n", n,
                MAX_PHASE_ROWS);
        n = 0;
    }
    for (size_t i = 0; i < n; i++) {
        const occ_phase *p = i < v->predicted.n_phases ? &v->predicted.phases[i] : NULL;
        const occ_phase *m = i < v->measured.n_phases ? &v->measured.phases[i] : NULL;
        char pv[32] = "-", mv[32] = "-", pd[32] = "-", md[32] = "-";
        if (p) {
            snprintf(pv, sizeof pv, "%.2f %%", pct(p->occupancy));
            time_text(pd, sizeof pd, (p->end - p->start) * v->unit_s);
        }
        if (m) {
            snprintf(mv, sizeof mv, "%.2f %%", pct(m->occupancy));
            time_text(md, sizeof md, m->end - m->start);
        }
        bool both = p && m;
        double dpp = both ? 100.0 * (p->occupancy - m->occupancy) : 0;
        double pdur = both ? (p->end - p->start) * v->unit_s : 0;
        double rel = both && pdur > 0 ? ((m->end - m->start) - pdur) / pdur : 0;
        snprintf(label, sizeof label, "  phase %zu occupancy", i + 1);
        fprintf(f, "%-34s %12s %12s   %s\n", label, pv, mv,
                both ? okw(dpp <= v->tol.occupancy_pp + 1e-9 && dpp >= -v->tol.occupancy_pp - 1e-9) : "-");
        snprintf(label, sizeof label, "  phase %zu duration", i + 1);
        fprintf(f, "%-34s %12s %12s   %s", label, pd, md,
                both ? okw(rel <= v->tol.duration_rel + 1e-9 && rel >= -v->tol.duration_rel - 1e-9) : "-");
        if (both)
            fprintf(f, " (%+.1f %%)", rel * 100.0);
        fputc('\n', f);
        snprintf(label, sizeof label, "  phase %zu work-groups", i + 1);
        char pw[24] = "-", mw[24] = "-";
        if (p)
            snprintf(pw, sizeof pw, "%llu", (unsigned long long)p->work_groups);
        if (m)
            snprintf(mw, sizeof mw, "%llu", (unsigned long long)m->work_groups);
        fprintf(f, "%-34s %12s %12s\n", label, pw, mw);
    }
    fprintf(f, "%-34s %10.2f %% %10.2f %%   %s (%.2f pp; tolerance %.2f)\n", "average occupancy",
            pct(c->predicted_average), pct(c->measured_average), okw(c->average_ok),
            c->average_diff_pp, v->tol.average_pp);
    fprintf(f, "%-34s %12s %10.2f pp   %s (tolerance %.2f)\n", "occupancy over time, distance", "",
            c->distance_pp, okw(c->distance_ok), v->tol.distance_pp);
    if (cl->clustered)
        clusters_text(f, v, d);
    bool all = v->pass;
    fprintf(f, "\nResult   %s", all ? "pass" : "FAIL");
    if (cl->clustered && !c->peak_ok)
        fprintf(f, ": %s", c->summary);
    else if (!cl->clustered && !c->pass)
        fprintf(f, ": %s", c->summary);
    else if (!v->records_ok)
        fputs(": records missing or invalid", f);
    else if (!v->driver_ok)
        fprintf(f, ": the driver says %d work-group%s per %s, the model %u", r->driver_resident,
                plural((uint64_t)r->driver_resident), d->core_name, v->model.resident_wgs);
    else if (cl->clustered && !cl->ok)
        fputs(": the clusters differ from the cluster rule", f);
    fputc('\n', f);
}

/* ---- the result document (doc.h) ------------------------------------------------------------------- */

static void kernel_doc(doc *j, const char *key, const occ_kernel *k)
{
    doc_key(j, key);
    doc_begin_object(j);
    doc_key(j, "wg");
    doc_begin_array(j);
    for (int i = 0; i < 3; i++)
        doc_u64(j, k->wg[i]);
    doc_end_array(j);
    doc_ku64(j, "sub_group", k->sub_group);
    doc_ku64(j, "slm_bytes", k->slm_bytes);
    doc_kbool(j, "barrier", k->barrier);
    doc_ku64(j, "regs_per_thread", k->regs_per_thread);
    doc_key(j, "carveout_pct");
    doc_i64(j, k->carveout_pct);
    doc_end_object(j);
}

static void phases_doc(doc *j, const char *key, const occ_timeline *t, double scale)
{
    doc_key(j, key);
    doc_begin_array(j);
    for (size_t i = 0; i < t->n_phases; i++) {
        const occ_phase *p = &t->phases[i];
        doc_begin_object(j);
        doc_knum(j, "start_s", p->start * scale);
        doc_knum(j, "end_s", p->end * scale);
        doc_ku64(j, "work_groups", p->work_groups);
        doc_ku64(j, "thread_contexts", p->thread_contexts);
        doc_knum(j, "occupancy", p->occupancy);
        doc_ku64(j, "cores_busy", p->cores_busy);
        doc_end_object(j);
    }
    doc_end_array(j);
}

/* A launch in clusters: the rule's prediction as calc gives it, and what was measured. */
static void clusters_doc(doc *j, const occ_validation *v)
{
    const occ_cluster_check *cl = &v->clusters;
    report_clusters_doc(j, v->dev, &v->res.actual, &cl->predicted);
    doc_key(j, "cluster_check");
    doc_begin_object(j);
    doc_ku64(j, "launched", cl->launched);
    doc_key(j, "driver_clusters");
    if (v->res.driver_clusters >= 0)
        doc_i64(j, v->res.driver_clusters);
    else
        doc_null(j);
    doc_ku64(j, "expected_at_once", cl->expected);
    doc_ku64(j, "at_once", cl->at_once);
    doc_ku64(j, "first_wave", cl->first_wave);
    doc_ku64(j, "cores_used", cl->cores_used);
    doc_ku64(j, "peak_per_core", cl->peak_per_core);
    doc_key(j, "core_groups");
    doc_begin_array(j);
    for (uint32_t i = 0; i < cl->n_groups; i++)
        doc_u64(j, cl->group_cores[i]);
    doc_end_array(j);
    doc_kbool(j, "driver_ok", cl->driver_ok);
    doc_kbool(j, "at_once_ok", cl->at_once_ok);
    doc_kbool(j, "first_wave_ok", cl->first_wave_ok);
    doc_kbool(j, "cores_ok", cl->cores_ok);
    doc_kbool(j, "per_core_ok", cl->per_core_ok);
    doc_kbool(j, "groups_ok", cl->groups_ok);
    doc_kbool(j, "ok", cl->ok);
    doc_end_object(j);
}

int validation_print_doc(const validation *cv, out_format format)
{
    const occ_validation *v = &cv->a;
    const occ_probe_result *r = &v->res;
    const occ_comparison *c = &v->cmp;
    doc j;
    doc_init(&j);
    doc_begin_object(&j);
    doc_kstr(&j, "schema", OCC_JSON_SCHEMA);
    doc_kstr(&j, "source", cv->source);
    doc_key(&j, "backend");
    doc_begin_object(&j);
    doc_kstr(&j, "name", v->info.backend);
    doc_kstr(&j, "device", v->info.device);
    doc_kstr(&j, "driver", v->info.driver);
    doc_kstr(&j, "architecture", v->info.architecture);
    doc_kstr(&j, "bus_id", v->info.bus_id);
    doc_end_object(&j);
    report_device_doc(&j, v->dev);
    doc_kstr(&j, "kernel_name", r->kernel_name);
    kernel_doc(&j, "requested", &r->requested);
    kernel_doc(&j, "actual", &r->actual);
    doc_kstr(&j, "differences", r->differences);
    doc_ku64(&j, "local_bytes_per_thread", r->local_bytes);
    doc_key(&j, "launch");
    doc_begin_object(&j);
    doc_ku64(&j, "work_groups", r->work_groups);
    doc_knum(&j, "duration_s", r->duration_s);
    doc_knum(&j, "timer_resolution_s", r->timer_resolution_s);
    doc_knum(&j, "wall_s", r->wall_s);
    doc_ku64(&j, "records", r->n_records);
    doc_ku64(&j, "records_missing", r->records_missing);
    doc_ku64(&j, "records_invalid", r->records_invalid);
    doc_end_object(&j);
    report_core_doc(&j, v->dev, &v->res.actual, &v->model);
    doc_key(&j, "driver_resident");
    if (r->driver_resident >= 0)
        doc_i64(&j, r->driver_resident);
    else
        doc_null(&j);
    doc_kbool(&j, "driver_per_device", v->info.driver_per_device);
    doc_kbool(&j, "driver_agrees", v->driver_ok);
    doc_key(&j, "measurement");
    doc_begin_object(&j);
    doc_knum(&j, "median_work_group_s", v->minfo.median_wg_s);
    doc_knum(&j, "min_work_group_s", v->minfo.min_wg_s);
    doc_knum(&j, "max_work_group_s", v->minfo.max_wg_s);
    doc_knum(&j, "merge_tolerance_s", v->minfo.merge_tolerance_s);
    doc_knum(&j, "first_dispatch_spread_s", v->minfo.dispatch_spread_s);
    doc_ku64(&j, "cores_used", v->minfo.cores_used);
    doc_ku64(&j, "migrated", v->minfo.migrated);
    doc_end_object(&j);
    if (v->clusters.clustered)
        clusters_doc(&j, v);
    phases_doc(&j, "predicted_phases", &v->predicted, v->unit_s);
    phases_doc(&j, "measured_phases", &v->measured, 1.0);
    doc_key(&j, "comparison");
    doc_begin_object(&j);
    doc_ku64(&j, "predicted_peak_per_core", c->predicted_peak_per_core);
    doc_ku64(&j, "measured_peak_per_core", c->measured_peak_per_core);
    doc_kbool(&j, "peak_ok", c->peak_ok);
    doc_ku64(&j, "predicted_phases", c->predicted_phases);
    doc_ku64(&j, "measured_phases", c->measured_phases);
    doc_kbool(&j, "phases_ok", c->phases_ok);
    doc_knum(&j, "max_occupancy_diff_pp", c->max_occupancy_diff_pp);
    doc_kbool(&j, "occupancy_ok", c->occupancy_ok);
    doc_knum(&j, "max_duration_diff_rel", c->max_duration_diff_rel);
    doc_kbool(&j, "durations_ok", c->durations_ok);
    doc_knum(&j, "predicted_average", c->predicted_average);
    doc_knum(&j, "measured_average", c->measured_average);
    doc_knum(&j, "average_diff_pp", c->average_diff_pp);
    doc_kbool(&j, "average_ok", c->average_ok);
    doc_knum(&j, "distance_pp", c->distance_pp);
    doc_kbool(&j, "distance_ok", c->distance_ok);
    doc_kbool(&j, "phases_compared", c->phases_compared);
    doc_kstr(&j, "summary", c->summary);
    doc_end_object(&j);
    doc_kbool(&j, "pass", v->pass);
    doc_end_object(&j);
    int rc = render(&j, format);
    doc_free(&j);
    return rc;
}

/* ---- SVG ---------------------------------------------------------------------- */

#define W 900.0
#define LEFT 70.0
#define PLOT_W (W - LEFT - 20.0)

/* Text from a device or record file, safe inside an SVG element. */
static void svg_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f);
        }
    }
}

/* Occupancy step line of a timeline; scale converts its times to seconds. */
static void step_path(FILE *f, const occ_timeline *t, double scale, double t_end, double y0,
                      double h, const char *style)
{
    if (!t->n_phases)
        return;
    fprintf(f, "<path %s d=\"", style);
    double x = LEFT, y = y0 + h;
    fprintf(f, "M%.1f %.1f", x, y);
    for (size_t i = 0; i < t->n_phases; i++) {
        const occ_phase *p = &t->phases[i];
        double xs = LEFT + PLOT_W * (p->start * scale) / t_end;
        double xe = LEFT + PLOT_W * (p->end * scale) / t_end;
        double yy = y0 + h * (1.0 - p->occupancy);
        fprintf(f, " L%.1f %.1f L%.1f %.1f L%.1f %.1f", xs, y, xs, yy, xe, yy);
        y = yy;
    }
    fprintf(f, " L%.1f %.1f\"/>\n",
            LEFT + PLOT_W * (t->phases[t->n_phases - 1].end * scale) / t_end, y0 + h);
}

bool validation_write_svg(FILE *f, void *user)
{
    const occ_validation *v = &((const validation *)user)->a;
    const occ_device_desc *d = occ_device_describe(v->dev);
    const occ_timeline *m = &v->measured, *p = &v->predicted;
    double end_m = m->n_phases ? m->phases[m->n_phases - 1].end : 0;
    double end_p = p->n_phases ? p->phases[p->n_phases - 1].end * v->unit_s : 0;
    double t_end = end_m > end_p ? end_m : end_p;
    if (!(t_end > 0))
        t_end = 1;
    uint32_t cores = m->cores;
    double lane_h = cores > 200 ? 1.0 : 2.0;
    double top = 40, plot_h = 200, lanes_top = top + plot_h + 50;
    double H = lanes_top + lane_h * cores + 40;
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
               "font-family=\"sans-serif\" font-size=\"12\">\n",
            W, H);
    fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
    fprintf(f, "<text x=\"%.0f\" y=\"20\" font-size=\"14\">", LEFT);
    svg_text(f, v->info.device[0] ? v->info.device : d->product);
    fputs(": ", f);
    svg_text(f, v->res.kernel_name);
    fprintf(f, ", %llu work-group%s of %u (occupancy over time: measured solid, predicted dashed)"
               "</text>\n",
            (unsigned long long)v->res.work_groups, plural(v->res.work_groups),
            (unsigned)occ_kernel_wg_size(&v->res.actual));
    for (int i = 0; i <= 4; i++) {
        double y = top + plot_h * (1 - i / 4.0);
        fprintf(f, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", LEFT,
                y, LEFT + PLOT_W, y);
        fprintf(f, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%d %%</text>\n", LEFT - 6,
                y + 4, i * 25);
    }
    step_path(f, m, 1.0, t_end, top, plot_h, "fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"2\"");
    step_path(f, p, v->unit_s, t_end, top, plot_h,
              "fill=\"none\" stroke=\"#d62728\" stroke-width=\"2\" stroke-dasharray=\"6 4\"");
    fprintf(f, "<text x=\"%.0f\" y=\"%.0f\">0</text><text x=\"%.0f\" y=\"%.0f\" "
               "text-anchor=\"end\">%.1f us</text>\n",
            LEFT, top + plot_h + 16, LEFT + PLOT_W, top + plot_h + 16, t_end * 1e6);
    fprintf(f, "<text x=\"%.0f\" y=\"%.0f\">measured work-groups per %s over time (one row "
               "per %s; darker = more)</text>\n",
            LEFT, lanes_top - 8, d->core_name, d->core_name);
    uint32_t peak = v->cmp.measured_peak_per_core ? v->cmp.measured_peak_per_core : 1;
    for (size_t i = 0; m->core_work_groups && i < m->n_phases; i++) {
        const occ_phase *ph = &m->phases[i];
        double xs = LEFT + PLOT_W * ph->start / t_end, xe = LEFT + PLOT_W * ph->end / t_end;
        for (uint32_t c = 0; c < cores; c++) {
            uint32_t w = m->core_work_groups[i * cores + c];
            if (!w)
                continue;
            double a = 0.15 + 0.85 * (double)w / peak;
            fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                       "fill=\"#1f77b4\" fill-opacity=\"%.2f\"/>\n",
                    xs, lanes_top + c * lane_h, xe - xs > 0.5 ? xe - xs : 0.5, lane_h, a);
        }
    }
    fprintf(f, "<text x=\"%.0f\" y=\"%.0f\">", LEFT, H - 12);
    svg_text(f, v->cmp.pass ? "pass" : v->cmp.summary);
    fprintf(f, " (%.2f %% measured, %.2f %% predicted average)</text>\n", pct(v->cmp.measured_average),
            pct(v->cmp.predicted_average));
    fputs("</svg>\n", f);
    return !ferror(f);
}
