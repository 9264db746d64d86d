#include "phases_report.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "svg.h"

#define BAR_WIDTH 30 /* characters for 100 % */

const char *phases_order_name(occ_dispatch_order o)
{
    return o == OCC_DISPATCH_SPREAD ? "spread" : "pack";
}

const char *phases_partial_text(occ_partial_policy p)
{
    switch (p) {
    case OCC_PARTIAL_LAUNCH:
        return "at launch";
    case OCC_PARTIAL_ALWAYS:
        return "always";
    default:
        return "no";
    }
}

static void fmt_time(char *buf, size_t size, double v) { svg_fmt_num(buf, size, v, 6); }

/* A horizontal bar of fraction v (0..1) in Unicode eighth blocks. */
static void put_bar(FILE *f, double v)
{
    static const char *const part[8] = {"", "\u258f", "\u258e", "\u258d",
                                        "\u258c", "\u258b", "\u258a", "\u2589"};
    long eighths = lround(v * BAR_WIDTH * 8);
    if (v > 0 && eighths == 0)
        eighths = 1; /* something busy is never drawn as nothing */
    for (long i = 0; i < eighths / 8; i++)
        fputs("\u2588", f);
    fputs(part[eighths % 8], f);
}

static void table_row(FILE *f, const occ_timeline *t, size_t i, int tw)
{
    const occ_phase *p = &t->phases[i];
    char a[48], b[48];
    fmt_time(a, sizeof a, p->start);
    fmt_time(b, sizeof b, p->end);
    fprintf(f, "  %5zu  %*s  %*s  %6llu  %8llu  %7.1f %%  ", i + 1, tw, a, tw, b,
            (unsigned long long)p->work_groups, (unsigned long long)p->thread_contexts,
            pct(p->occupancy));
    put_bar(f, p->occupancy);
    fputc('\n', f);
}

void phases_table_text(FILE *f, const occ_timeline *t, size_t max_rows)
{
    int tw = 5;
    for (size_t i = 0; i < t->n_phases; i++) {
        char a[48];
        fmt_time(a, sizeof a, t->phases[i].end);
        if ((int)strlen(a) > tw)
            tw = (int)strlen(a);
    }
    fprintf(f, "  %5s  %*s  %*s  %6s  %8s  %9s\n", "#", tw, "start", tw, "end", "WGs", "contexts",
            "occupancy");
    size_t head = t->n_phases, tail = 0;
    if (max_rows && t->n_phases > max_rows) {
        tail = max_rows / 3 ? max_rows / 3 : 1;
        head = max_rows - tail;
    }
    for (size_t i = 0; i < head; i++)
        table_row(f, t, i, tw);
    if (tail) {
        fprintf(f, "  %5s  ... %zu more phase%s ...\n", "", t->n_phases - head - tail,
                t->n_phases - head - tail == 1 ? "" : "s");
        for (size_t i = t->n_phases - tail; i < t->n_phases; i++)
            table_row(f, t, i, tw);
    }
}

/* "XC" for "Xe-core", "SM" for "SM": initials of longer names. */
static void core_abbrev(char *buf, size_t size, const char *name)
{
    if (strlen(name) <= 3) {
        snprintf(buf, size, "%s", name);
        return;
    }
    size_t n = 0;
    bool start = true;
    for (const char *p = name; *p && n + 1 < size && n < 3; p++) {
        if (*p == '-' || *p == ' ') {
            start = true;
        } else if (start) {
            buf[n++] = (char)toupper((unsigned char)*p);
            start = false;
        }
    }
    buf[n] = '\0';
}

void phases_lanes_text(FILE *f, const occ_device *dev, const occ_timeline *t)
{
    const occ_device_desc *d = occ_device_describe(dev);
    if (!t->core_contexts || !t->n_phases)
        return;
    char ab[8];
    core_abbrev(ab, sizeof ab, d->core_name);
    uint32_t C = t->cores;
    if (C <= 16) {
        fprintf(f, "Per %s: busy thread contexts of %u (work-groups resident)\n", d->core_name,
                t->contexts_per_core);
        fprintf(f, "  %5s", "#");
        for (uint32_t c = 0; c < C; c++) {
            char h[16];
            snprintf(h, sizeof h, "%s%u", ab, c);
            fprintf(f, "  %9s", h);
        }
        fputc('\n', f);
        for (size_t i = 0; i < t->n_phases; i++) {
            fprintf(f, "  %5zu", i + 1);
            for (uint32_t c = 0; c < C; c++) {
                uint32_t v = t->core_contexts[i * C + c], w = t->core_work_groups[i * C + c];
                char cell[24];
                if (v || w)
                    snprintf(cell, sizeof cell, "%u (%u)", v, w);
                else
                    snprintf(cell, sizeof cell, "-");
                fprintf(f, "  %9s", cell);
            }
            fputc('\n', f);
        }
        return;
    }
    /* many cores: one character per core, its height the busy share */
    static const char *const lvl[9] = {" ", "\u2581", "\u2582", "\u2583", "\u2584",
                                       "\u2585", "\u2586", "\u2587", "\u2588"};
    fprintf(f, "Per %s (one character each, %s0 first; height: busy share of %u thread contexts)\n",
            d->core_name, ab, t->contexts_per_core);
    fprintf(f, "  %5s  ", "#");
    for (uint32_t c = 0; c < C; c += 10) {
        char h[16];
        snprintf(h, sizeof h, "%u", c);
        fprintf(f, "%-10s", h);
    }
    fputc('\n', f);
    for (size_t i = 0; i < t->n_phases; i++) {
        fprintf(f, "  %5zu  ", i + 1);
        for (uint32_t c = 0; c < C; c++) {
            uint32_t v = t->core_contexts[i * C + c];
            int l = v ? (int)ceil(8.0 * v / t->contexts_per_core) : 0;
            fputs(lvl[l < 0 ? 0 : l > 8 ? 8 : l], f);
        }
        fputc('\n', f);
    }
}

void phases_summary_text(FILE *f, const occ_device *dev, const occ_timeline *t)
{
    const occ_device_desc *d = occ_device_describe(dev);
    char a[48], b[48];
    fmt_time(a, sizeof a, t->start);
    fmt_time(b, sizeof b, t->end);
    fprintf(f, "  phases average %.1f %% over [%s, %s] (time-weighted); peak %llu contexts (%.1f %%)\n",
            pct(t->average_occupancy), a, b, (unsigned long long)t->peak_thread_contexts,
            pct((double)t->peak_thread_contexts / (double)t->contexts_total));
    fprintf(f, "  peak work-groups per %s %u, partly started ones included (resident, whole: %u)\n",
            d->core_name, t->peak_core_work_groups, t->resident_work_groups);
}

/* ---- the result document (doc.h) -------------------------------------------------------------------- */

void phases_timeline_doc(doc *j, const occ_timeline *t, const char *time_unit)
{
    doc_key(j, "timeline");
    doc_begin_object(j);
    doc_kstr(j, "order", phases_order_name(t->order));
    doc_kstr(j, "partial_work_groups", occ_partial_policy_name(t->partial));
    doc_kbool(j, "barrier", t->barrier);
    doc_kstr(j, "time_unit", time_unit);
    doc_ku64(j, "work_groups", t->work_groups);
    doc_knum(j, "start", t->start);
    doc_knum(j, "end", t->end);
    doc_ku64(j, "phase_count", t->n_phases);
    doc_knum(j, "phases_average_occupancy", t->average_occupancy);
    doc_knum(j, "busy_context_time", t->busy_context_time);
    doc_ku64(j, "peak_thread_contexts", t->peak_thread_contexts);
    doc_ku64(j, "peak_core_work_groups", t->peak_core_work_groups);
    doc_ku64(j, "thread_contexts", t->contexts_total);
    doc_ku64(j, "thread_contexts_per_core", t->contexts_per_core);
    doc_ku64(j, "thread_contexts_per_work_group", t->contexts_per_work_group);
    doc_ku64(j, "resident_work_groups", t->resident_work_groups);
    doc_ku64(j, "admit_limit", t->admit_limit);
    doc_kbool(j, "extrapolated", t->extrapolated);
    doc_end_object(j);
}


/* Phase i as an object (a row of the phases' table). */
static void phase_row(doc *j, size_t i, const void *ctx)
{
    const phase_rows_ctx *r = ctx;
    const occ_timeline *t = r->t;
    const occ_phase *p = &t->phases[i];
    doc_begin_object(j);
    doc_knum(j, "start", p->start);
    doc_knum(j, "end", p->end);
    doc_ku64(j, "work_groups", p->work_groups);
    doc_ku64(j, "thread_contexts", p->thread_contexts);
    doc_knum(j, "occupancy", p->occupancy);
    doc_ku64(j, "cores_busy", p->cores_busy);
    if (r->lanes && t->core_contexts) {
        doc_key(j, "core_thread_contexts");
        doc_begin_array(j);
        for (uint32_t c = 0; c < t->cores; c++)
            doc_u64(j, t->core_contexts[i * t->cores + c]);
        doc_end_array(j);
        doc_key(j, "core_work_groups");
        doc_begin_array(j);
        for (uint32_t c = 0; c < t->cores; c++)
            doc_u64(j, t->core_work_groups[i * t->cores + c]);
        doc_end_array(j);
    }
    doc_end_object(j);
}

void phases_array_doc(doc *j, const occ_timeline *t, bool lanes, phase_rows_ctx *table)
{
    if (!t->phases) {
        doc_key(j, "phases");
        doc_null(j);
        return;
    }
    if (table) { /* built row by row when rendered: a timeline may hold 10^8 phases */
        *table = (phase_rows_ctx){t, lanes};
        doc_table_rows(j, "phases", t->n_phases, phase_row, table);
        return;
    }
    phase_rows_ctx r = {t, lanes};
    doc_key(j, "phases");
    doc_begin_array(j);
    for (size_t i = 0; i < t->n_phases; i++)
        phase_row(j, i, &r);
    doc_end_array(j);
}

/* ---- SVG ------------------------------------------------------------------------- */

typedef struct picture {
    const occ_device *dev;
    const occ_timeline *t;
    const char *title, *subtitle;
} picture;

static int draw(FILE *f, void *user)
{
    const picture *pic = user;
    const occ_timeline *t = pic->t;
    const occ_device_desc *d = occ_device_describe(pic->dev);
    const uint32_t C = t->cores;
    double lane_h = floor(360.0 / C);
    if (lane_h > 26)
        lane_h = 26;
    if (lane_h < 3)
        lane_h = 3;
    const double W = 980, left = 96, right = 24, top = 64;
    const double occ_h = 180, gap = 62, lanes_h = lane_h * C;
    const double H = top + occ_h + gap + lanes_h + 64;
    svg s;
    svg_begin(&s, f, W, H);
    if (pic->title)
        svg_text(&s, left, 24, "start", 15, "#111111", true, "%s", pic->title);
    if (pic->subtitle)
        svg_text(&s, left, 44, "start", 12, "#444444", false, "%s", pic->subtitle);

    /* total occupancy over time */
    svg_plot p = {left, top, W - left - right, occ_h, t->start, t->end, 0, 1};
    svg_axes(&s, &p, NULL, "occupancy (whole GPU)", 10, 4, 100, " %");
    size_t n = t->n_phases;
    double *edges = malloc((n + 1) * sizeof *edges), *ys = malloc((n ? n : 1) * sizeof *ys);
    if (!edges || !ys) {
        free(edges);
        free(ys);
        return 12; /* ENOMEM */
    }
    for (size_t i = 0; i < n; i++) {
        edges[i] = t->phases[i].start;
        ys[i] = t->phases[i].occupancy;
    }
    edges[n] = n ? t->phases[n - 1].end : t->end;
    svg_steps(&s, &p, edges, ys, n, "#1f4e96", 2, "#c9daf2");
    /* the whole-work-group rule's occupancy, for reference */
    double rule = (double)t->resident_work_groups * t->contexts_per_work_group /
                  (double)t->contexts_per_core;
    if (rule > 0 && rule <= 1) {
        double y = svg_py(&p, rule);
        svg_line(&s, p.x, y, p.x + p.w, y, "#b03a2e", 1.2, true);
        svg_text(&s, p.x + p.w - 4, y - 5 < p.y + 12 ? y + 14 : y - 5, "end", 11, "#b03a2e", false,
                 "every core holding %u whole work-group%s: %.1f %%", t->resident_work_groups,
                 t->resident_work_groups == 1 ? "" : "s", pct(rule));
    }
    for (size_t i = 0; i < n; i++) {
        double x0 = svg_px(&p, edges[i]), x1 = svg_px(&p, edges[i + 1]);
        if (x1 - x0 < 44)
            continue;
        double y = svg_py(&p, ys[i]);
        y = y - 6 < p.y + 14 ? y + 16 : y - 6;
        svg_text(&s, (x0 + x1) / 2, y, "middle", 12, "#1f4e96", true, "%.1f %%", pct(ys[i]));
    }

    /* per-core lanes: bar height = busy share of the core's contexts */
    svg_plot q = {left, top + occ_h + gap, W - left - right, lanes_h, t->start, t->end, 0, 1};
    svg_text(&s, left, q.y - 10, "start", 12, "#222222", false,
             "per %s: busy thread contexts of %u (bar height), work-groups resident (number)",
             d->core_name, t->contexts_per_core);
    char ab[8];
    core_abbrev(ab, sizeof ab, d->core_name);
    int label_every = (int)ceil(13.0 / lane_h);
    for (uint32_t c = 0; c < C; c++) {
        double y0 = q.y + c * lane_h;
        svg_rect(&s, q.x, y0, q.w, lane_h, c % 2 ? "#f7f7f7" : "#efefef", NULL, 0);
        if (c % (uint32_t)label_every == 0)
            svg_text(&s, q.x - 6, y0 + lane_h / 2 + 4, "end", lane_h >= 12 ? 11 : 9, "#444444",
                     false, "%s%u", ab, c);
        /* one rectangle per run of equal contexts */
        for (size_t i = 0; i < n;) {
            uint32_t v = t->core_contexts[i * C + c];
            size_t k = i + 1;
            while (k < n && t->core_contexts[k * C + c] == v)
                k++;
            if (v) {
                double x0 = svg_px(&q, t->phases[i].start), x1 = svg_px(&q, t->phases[k - 1].end);
                double h = (lane_h - 1) * v / t->contexts_per_core;
                svg_rect(&s, x0, y0 + lane_h - h, x1 - x0, h, "#3f78c8", NULL, 0);
                /* label a wide run: inside a tall bar, above a low one */
                if (lane_h >= 14 && x1 - x0 >= 64 && k == i + 1) {
                    bool inside = h >= 12, above = lane_h - h >= 12;
                    if (inside || above)
                        svg_text(&s, (x0 + x1) / 2, inside ? y0 + lane_h - 3 : y0 + lane_h - h - 2,
                                 "middle", 10, inside ? "#ffffff" : "#1f4e96", false,
                                 "%u ctx, %u WG", v, t->core_work_groups[i * C + c]);
                }
            }
            i = k;
        }
    }
    svg_axes(&s, &q, "time (work-group durations)", NULL, 10, 0, 1, NULL);
    free(edges);
    free(ys);
    svg_end(&s);
    return 0;
}

int phases_svg(FILE *f, const occ_device *dev, const occ_timeline *t, const char *title,
               const char *subtitle)
{
    picture pic = {dev, t, title, subtitle};
    return draw(f, &pic);
}

/* ---- the calc command's section ---------------------------------------------------- */

#define CALC_MAX_PHASES 10000 /* beyond this, calc shows the summary only */
#define CALC_ROWS 10

static occ_status calc_simulate(const occ_device *dev, const occ_kernel *k, uint64_t groups,
                                occ_timeline *t)
{
    occ_sim_options o;
    occ_sim_options_init(&o);
    o.max_phases = CALC_MAX_PHASES;
    occ_status st = occ_timeline_simulate(dev, k, groups, &o, t, NULL);
    if (st == OCC_ERR_TOO_LARGE) {
        occ_timeline_free(t);
        o.summary_only = true;
        st = occ_timeline_simulate(dev, k, groups, &o, t, NULL);
    }
    return st;
}

/* One line on why the waves average and the phases average differ: both divide busy context time by
 * the GPU's contexts x the run's length; the run is as long as the waves in the first and as the device's
 * dispatch makes it in the second. */
static void averages_differ_text(FILE *f, const occ_device *dev, const occ_timeline *t, const occ_gpu *g)
{
    if (fabs(t->average_occupancy - g->average_occupancy) < 0.0005)
        return;
    double work = (double)g->contexts_needed; /* context x durations, one duration per work-group */
    char len[48];
    fmt_time(len, sizeof len, t->end - t->start);
    if (fabs(t->busy_context_time - work) <= 1e-9 * work)
        fprintf(f, "  why the averages differ: the same work lasts %s work-group duration%s as %s "
                   "dispatches it, %llu wave%s of whole work-groups\n",
                len, t->end - t->start == 1.0 ? "" : "s", occ_device_describe(dev)->name,
                (unsigned long long)g->waves, g->waves == 1 ? "" : "s");
    else
        fprintf(f, "  why the averages differ: %s dispatches %g context-durations of work over %s, "
                   "the waves %llu over %llu wave%s\n",
                occ_device_describe(dev)->name, t->busy_context_time, len,
                (unsigned long long)g->contexts_needed, (unsigned long long)g->waves, g->waves == 1 ? "" : "s");
}

void phases_calc_text(FILE *f, const occ_device *dev, const occ_kernel *k, const occ_gpu *g)
{
    uint64_t groups = g->work_groups;
    occ_timeline t;
    occ_status st = calc_simulate(dev, k, groups, &t);
    if (st != OCC_OK) {
        if (st != OCC_ERR_UNSUPPORTED)
            fprintf(f, "\nPhases: not simulated (%s)\n", occ_status_text(st));
        occ_timeline_free(&t);
        return;
    }
    fprintf(f, "\nPhases, as %s dispatches (%s, partial work-groups %s, %s; equal durations;\n"
               "        time in work-group durations)\n",
            occ_device_describe(dev)->name, phases_order_name(t.order),
            phases_partial_text(t.partial), t.barrier ? "barrier" : "no barrier");
    if (t.phases)
        phases_table_text(f, &t, CALC_ROWS);
    else
        fprintf(f, "  %zu phases: too many to list here\n", t.n_phases);
    phases_summary_text(f, dev, &t);
    averages_differ_text(f, dev, &t, g);
    fprintf(f, "  occcalc phases ... for per-core lanes, other policies and durations, --svg\n");
    occ_timeline_free(&t);
}

void phases_calc_doc(doc *j, const occ_device *dev, const occ_kernel *k, uint64_t groups)
{
    occ_timeline t;
    occ_status st = calc_simulate(dev, k, groups, &t);
    if (st == OCC_OK) {
        phases_timeline_doc(j, &t, "work_group_duration");
        phases_array_doc(j, &t, false, NULL);
    } else {
        doc_key(j, "phases");
        doc_null(j);
    }
    occ_timeline_free(&t);
}
