/* occcalc sweep: occupancy against work-group size, local memory, registers,
 * GRF mode or sub-group size, as a table, the result document (JSON, JSON
 * Lines, CSV), a terminal chart and SVG. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advise_cli.h"
#include "args.h"
#include "chart.h"
#include "commands.h"
#include "outfile.h"
#include "report.h"

static void sweep_help(void)
{
    puts("usage: occcalc sweep [--device D] [--over wg|slm|regs|grf|sg] [--wg X[,Y,Z]] [--sg N]\n"
         "                     [--slm BYTES] [--slm-per-item BYTES] [--barrier] [--grf N] [--regs N]\n"
         "                     [--carveout PCT] [--global X[,Y,Z] | --groups N]\n"
         "                     [--from A] [--to B] [--step S]\n"
         "                     [--format table|json|jsonl|csv|chart] [--json | --jsonl | --csv]\n"
         "                     [--svg FILE]\n"
         "                     [--height ROWS] [--width COLUMNS]\n"
         "\n"
         "Occupancy per core (and over the run with --global/--groups) against one input, every\n"
         "other input as given.  Each point stands for the values from the previous point up to\n"
         "its own (occupancy only changes at those points).\n"
         "\n"
         "      --over AXIS     wg: work-group size (default; every multiple of the sub-group size),\n"
         "                      slm: local memory per work-group (every allocation step; 1 KB steps\n"
         "                      on granular devices), regs: registers per thread (NVIDIA; steps of 8),\n"
         "                      grf: GRF modes (Intel), sg: sub-group sizes\n"
         "      --from, --to, --step   range and step (bytes with K/M suffixes for slm)\n"
         "      --slm-per-item B       local memory grows by B per work-item (with --over wg)\n"
         "      --format F      table (default), json, jsonl, csv (as --json, --jsonl, --csv),\n"
         "                      chart (terminal)\n"
         "      --svg FILE      also write an SVG chart to FILE\n"
         "      --height, --width      terminal chart size (default 12 x 72)\n"
         "\n"
         "Exit codes: 0 ok; 2 usage error; 3 bad profile; 6 cannot write the SVG file or stdout.");
}

enum { OPT_OVER = OPT_FIRST_FREE, OPT_FROM, OPT_TO, OPT_STEP, OPT_FORMAT, OPT_SVG, OPT_HEIGHT, OPT_WIDTH,
       OPT_PER_ITEM };

typedef struct sweep_opts {
    cli_kernel c;
    occ_sweep_request q;
    const char *from, *to, *step, *svg;
    bool chart; /* --format chart */
    uint64_t height, width;
} sweep_opts;

static int parse_axis(const char *s, occ_axis *a)
{
    for (int i = 0; i < OCC_AXIS_COUNT; i++)
        if (strcmp(s, occ_axis_name((occ_axis)i)) == 0) {
            *a = (occ_axis)i;
            return 0;
        }
    return usage_error("--over: '%s' is not wg, slm, regs, grf or sg", s);
}

static int sweep_option(void *ctx, int id, const char *arg)
{
    sweep_opts *o = ctx;
    switch (id) {
    case OPT_OVER: return parse_axis(arg, &o->q.axis);
    case OPT_FROM: o->from = arg; return EXIT_OK;
    case OPT_TO: o->to = arg; return EXIT_OK;
    case OPT_STEP: o->step = arg; return EXIT_OK;
    case OPT_SVG: o->svg = arg; return EXIT_OK;
    case OPT_FORMAT:
        if (!strcmp(arg, "table") || !strcmp(arg, "chart")) {
            o->chart = !strcmp(arg, "chart");
            return EXIT_OK;
        }
        for (int f = OUT_TEXT + 1; f < OUT_COUNT; f++)
            if (!strcmp(arg, out_format_get((out_format)f)->flag))
                return cli_set_format(&o->c, (out_format)f);
        return usage_error("--format: '%s' is not table, json, jsonl, csv or chart", arg);
    case OPT_HEIGHT:
    case OPT_WIDTH:
        if (!parse_u64(arg, id == OPT_HEIGHT ? 100 : 500, id == OPT_HEIGHT ? &o->height : &o->width) ||
            (id == OPT_HEIGHT ? o->height < 2 : o->width < 8))
            return usage_error("--%s: '%s' is out of range (%s)", id == OPT_HEIGHT ? "height" : "width",
                               arg, id == OPT_HEIGHT ? "2..100" : "8..500");
        return EXIT_OK;
    case OPT_PER_ITEM:
        if (!parse_bytes(arg, &o->q.slm_per_item))
            return usage_error("--slm-per-item: '%s' is not a size in bytes", arg);
        return EXIT_OK;
    default:
        return CLI_NOT_MINE;
    }
}

static int parse(int argc, char **argv, sweep_opts *o)
{
    static const struct option own[] = {
        {"over", required_argument, 0, OPT_OVER},
        {"from", required_argument, 0, OPT_FROM},
        {"to", required_argument, 0, OPT_TO},
        {"step", required_argument, 0, OPT_STEP},
        {"format", required_argument, 0, OPT_FORMAT},
        {"svg", required_argument, 0, OPT_SVG},
        {"height", required_argument, 0, OPT_HEIGHT},
        {"width", required_argument, 0, OPT_WIDTH},
        {"slm-per-item", required_argument, 0, OPT_PER_ITEM},
        {0, 0, 0, 0},
    };
    const cli_command cmd = {"sweep", CLI_SWEEP, own, "", sweep_option, o, sweep_help, NULL, NULL};
    return cli_parse(&cmd, argc, argv, &o->c);
}

/* --from/--to/--step: bytes (with suffixes) on the SLM axis, plain numbers elsewhere. */
static int range_value(const char *flag, const char *s, occ_axis axis, uint64_t *v)
{
    if (!s)
        return EXIT_OK;
    if (axis == OCC_AXIS_SLM)
        return parse_bytes(s, v) ? EXIT_OK : usage_error("--%s: '%s' is not a size in bytes", flag, s);
    if (parse_u64(s, UINT32_MAX, v))
        return EXIT_OK;
    uint64_t big;
    if (parse_u64(s, UINT64_MAX, &big))
        return usage_error("--%s: %s is above the largest value of --over %s (%u)", flag, s,
                           occ_axis_name(axis), UINT32_MAX);
    return usage_error("--%s: '%s' is not a non-negative integer", flag, s);
}

static const char *axis_title(occ_axis a, const occ_device_desc *d, char *buf, size_t size)
{
    switch (a) {
    case OCC_AXIS_WG_SIZE: return "work-group size (work-items)";
    case OCC_AXIS_SLM:
        snprintf(buf, size, "%s per work-group (bytes)", d->local_memory_name);
        return buf;
    case OCC_AXIS_REGISTERS: return "registers per thread";
    case OCC_AXIS_GRF: return "GRF registers per thread (mode)";
    default: return "sub-group size";
    }
}

static void x_text(char *buf, size_t size, occ_axis a, uint64_t x)
{
    if (a == OCC_AXIS_SLM && x != UINT64_MAX) /* (which occ_format_bytes shows as "-") */
        occ_format_bytes(buf, size, x, false);
    else
        snprintf(buf, size, "%llu", (unsigned long long)x);
}

/* A point of a launch in clusters: the clusters at once, a core's occupancy
 * under the cluster cap. */
typedef struct point_clusters {
    uint64_t active;
    double occupancy;
} point_clusters;

/* clusters: each point in clusters for --cluster, NULL without it */
static void print_table(const sweep_opts *o, const occ_device_desc *d, const occ_sweep_point *p, size_t n,
                        bool gpu, const point_clusters *clusters)
{
    char title[64];
    printf("\n%-28s %8s %9s %8s", axis_title(o->q.axis, d, title, sizeof title), "WGs/core", "contexts",
           "per core");
    if (clusters)
        printf(" %8s %11s", "clusters", "in clusters");
    if (gpu)
        printf(" %6s %8s", "waves", "over run");
    const occ_vendor_words *w = occ_vendor_words_of(d->vendor);
    bool simd = w && w->waves_per_simd, differ = false; /* whole work-groups' waves per SIMD, LLVM's where it differs */
    if (simd)
        printf(" %14s", "waves/SIMD");
    printf("  limited by\n");
    for (size_t i = 0; i < n; i++) {
        char x[32], ctx[24], lim[96];
        x_text(x, sizeof x, o->q.axis, p[i].x);
        if (!p[i].launchable) {
            printf("%28s %8s %9s %8s", x, "0", "-", "-");
            if (clusters)
                printf(" %8s %11s", "-", "-");
            if (gpu)
                printf(" %6s %8s", "-", "-");
            if (simd)
                printf(" %14s", "-");
            printf("  cannot launch: %s\n", occ_reason_text(p[i].reason));
            continue;
        }
        snprintf(ctx, sizeof ctx, "%u/%u", p[i].resident_wgs * p[i].contexts_per_wg, p[i].contexts_per_core);
        format_limited_by_on(lim, sizeof lim, p[i].limited_by, d);
        printf("%28s %8u %9s %6.1f %%", x, p[i].resident_wgs, ctx, p[i].occupancy * 100.0);
        if (clusters)
            printf(" %8llu %9.1f %%", (unsigned long long)clusters[i].active, 100.0 * clusters[i].occupancy);
        if (gpu) {
            if (p[i].has_gpu)
                printf(" %6llu %6.1f %%", (unsigned long long)p[i].waves, p[i].gpu_occupancy * 100.0);
            else
                printf(" %6s %8s", "-", "-");
        }
        if (simd) {
            char waves[32];
            if (p[i].waves_per_simd_resident == (double)p[i].waves_per_simd)
                snprintf(waves, sizeof waves, "%u", p[i].waves_per_simd);
            else
                snprintf(waves, sizeof waves, "%.2f (LLVM %u)", p[i].waves_per_simd_resident, p[i].waves_per_simd);
            differ |= p[i].waves_per_simd_resident != (double)p[i].waves_per_simd;
            printf(" %14s", waves);
        }
        printf("  %s\n", lim);
    }
    if (differ)
        printf("\nwaves/SIMD: of whole work-groups; LLVM (in parentheses) counts single waves, not whole "
               "work-groups\n");
}

/* The points and, for --cluster, their clusters at once (NULL without). */
typedef struct sweep_rows {
    const occ_sweep_point *p;
    const point_clusters *clusters;
} sweep_rows;

/* Point i as a row of the result's table (built when rendered). */
static void point_row(doc *j, size_t i, const void *ctx)
{
    const sweep_rows *rows = ctx;
    const occ_sweep_point *p = rows->p + i;
    doc_begin_object(j);
    doc_ku64(j, "x", p->x);
    doc_kbool(j, "launchable", p->launchable);
    doc_key(j, "reason");
    p->launchable ? doc_null(j) : doc_str(j, occ_reason_text(p->reason));
    doc_ku64(j, "resident_work_groups", p->resident_wgs);
    doc_ku64(j, "thread_contexts_used", p->resident_wgs * p->contexts_per_wg);
    doc_ku64(j, "thread_contexts_per_core", p->contexts_per_core);
    doc_knum(j, "occupancy", p->occupancy);
    doc_limited_by(j, "limited_by", p->limited_by);
    if (p->has_gpu) {
        doc_ku64(j, "work_groups", p->work_groups);
        doc_ku64(j, "waves", p->waves);
        doc_knum(j, "waves_average_occupancy", p->gpu_occupancy);
    }
    if (rows->clusters) {
        doc_ku64(j, "max_active_clusters", rows->clusters[i].active);
        doc_knum(j, "cluster_occupancy", rows->clusters[i].occupancy);
    }
    if (p->waves_per_simd || p->waves_per_simd_resident > 0) {
        doc_ku64(j, "waves_per_simd", p->waves_per_simd);
        doc_knum(j, "waves_per_simd_resident", p->waves_per_simd_resident);
    }
    doc_end_object(j);
}

/* --cluster: each point's clusters at once, its occupancy under the cluster
 * cap, and its waves and GPU average as waves of clusters
 * (occ_gpu_compute_clusters). */
static void in_clusters(const occ_device *dev, uint32_t size, occ_sweep_point *p, size_t n,
                        point_clusters *clusters)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t held = p[i].launchable ? occ_cluster_work_groups_of(dev, p[i].resident_wgs) : 0;
        clusters[i].active = p[i].launchable ? occ_max_active_clusters_of(dev, p[i].resident_wgs, size) : 0;
        clusters[i].occupancy = held ? p[i].occupancy * held / p[i].resident_wgs : 0.0;
        if (!p[i].has_gpu)
            continue;
        occ_residency r;
        occ_residency_init(&r);
        r.launchable = true;
        r.resident_wgs = p[i].resident_wgs;
        r.contexts_per_wg = p[i].contexts_per_wg;
        r.contexts_per_core = p[i].contexts_per_core;
        occ_clusters c = {.struct_size = sizeof c, .size = size, .max_active_clusters = clusters[i].active};
        occ_gpu g;
        p[i].has_gpu = occ_gpu_compute_clusters(dev, &r, &c, p[i].work_groups, &g) == OCC_OK;
        p[i].waves = g.waves;
        p[i].gpu_occupancy = g.average_occupancy;
    }
}

/* The result: the request and one table row per point. */
static int print_doc(const sweep_opts *o, const occ_device *dev, const occ_sweep_point *p, size_t n,
                     const point_clusters *clusters)
{
    sweep_rows rows = {p, clusters};
    doc j;
    doc_init(&j);
    doc_begin_object(&j);
    doc_kstr(&j, "schema", OCC_JSON_SCHEMA);
    report_device_doc(&j, dev);
    doc_kstr(&j, "axis", occ_axis_name(o->q.axis));
    doc_table_rows(&j, "points", n, point_row, &rows);
    doc_end_object(&j);
    int rc = render(&j, o->c.format);
    doc_free(&j);
    return rc;
}

/* The kernel's own value on the axis, for the chart marker. */
static bool own_value(const sweep_opts *o, const occ_device_desc *d, uint64_t *x)
{
    const occ_kernel *k = &o->c.k;
    switch (o->q.axis) {
    case OCC_AXIS_WG_SIZE:
        *x = occ_kernel_wg_size(k);
        return o->c.wg_dims > 0;
    case OCC_AXIS_SLM:
        *x = k->slm_bytes;
        return o->c.have_slm;
    case OCC_AXIS_REGISTERS:
        *x = k->regs_per_thread;
        return o->c.have_regs;
    case OCC_AXIS_GRF:
        *x = k->grf ? k->grf : d->default_grf;
        return true;
    default:
        *x = k->sub_group ? k->sub_group : d->sub_group_sizes[0];
        return true;
    }
}

/* The terminal chart (--format chart) and the SVG (svg open when --svg). */
static int charts(const sweep_opts *o, const occ_device_desc *d, const occ_sweep_point *p, size_t n,
                  bool gpu, outfile *svg)
{
    uint64_t *x = malloc(n * sizeof *x);
    double *y = malloc(n * sizeof *y), *g = malloc(n * sizeof *g);
    int rc = EXIT_OK;
    if (!x || !y || !g) {
        fprintf(stderr, "occcalc: out of memory\n");
        outfile_discard(svg);
        rc = EXIT_INTERNAL;
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        x[i] = p[i].x;
        y[i] = p[i].launchable ? p[i].occupancy : 0.0;
        g[i] = p[i].has_gpu ? p[i].gpu_occupancy : p[i].launchable ? NAN : 0.0;
    }
    char title[160], axis[64];
    snprintf(title, sizeof title, "Occupancy against %s on %s",
             o->q.axis == OCC_AXIS_WG_SIZE ? "work-group size"
             : o->q.axis == OCC_AXIS_SLM   ? "local memory per work-group"
             : o->q.axis == OCC_AXIS_REGISTERS ? "registers per thread"
             : o->q.axis == OCC_AXIS_GRF   ? "GRF mode"
                                           : "sub-group size",
             d->name);
    chart c = {.title = title, .x_label = axis_title(o->q.axis, d, axis, sizeof axis), .x = x, .n = n,
               .series = {{"per core", y}, {"over the run", g}}, .n_series = gpu ? 2 : 1};
    c.have_mark = own_value(o, d, &c.mark_x);
    if (o->chart)
        chart_term(stdout, &c, o->height ? (int)o->height : 12, o->width ? (int)o->width : 72);
    if (o->svg)
        rc = outfile_close(svg, chart_svg(svg->f, &c));
out:
    free(x);
    free(y);
    free(g);
    return rc;
}

int cmd_sweep(int argc, char **argv)
{
    sweep_opts o;
    memset(&o, 0, sizeof o);
    cli_kernel_init(&o.c);
    occ_sweep_request_init(&o.q);
    int rc = parse(argc, argv, &o);
    if (rc)
        return rc == CLI_DONE ? EXIT_OK : rc;
    if (o.chart && o.c.format != OUT_TEXT)
        return usage_error("--%s and --format chart are exclusive", out_format_get(o.c.format)->flag);
    if ((rc = cli_kernel_check(&o.c, o.q.axis != OCC_AXIS_WG_SIZE)))
        return rc;
    if ((rc = range_value("from", o.from, o.q.axis, &o.q.from)) ||
        (rc = range_value("to", o.to, o.q.axis, &o.q.to)) ||
        (rc = range_value("step", o.step, o.q.axis, &o.q.step)))
        return rc;
    if (o.step && o.q.step == 0)
        return usage_error("--step must be positive");
    if (o.from && o.to && o.q.from > o.q.to)
        return usage_error("--from %s is above --to %s", o.from, o.to);
    if (o.q.slm_per_item && o.q.axis != OCC_AXIS_WG_SIZE)
        return usage_error("--slm-per-item applies to --over wg");
    o.q.k = o.c.k;
    o.q.work_groups = o.c.groups;
    if (o.c.global_dims) {
        o.q.work_items = 1;
        for (int i = 0; i < 3; i++) {
            if (o.q.work_items > UINT64_MAX / o.c.global[i])
                return usage_error("--global: more than 2^64 work-items");
            o.q.work_items *= o.c.global[i];
        }
        uint64_t groups;
        if (o.q.axis != OCC_AXIS_WG_SIZE && (rc = cli_work_groups(&o.c, &groups)))
            return rc;
    }

    occ_device *dev;
    if ((rc = cli_open_kernel_device(&o.c, o.q.axis != OCC_AXIS_WG_SIZE, &dev)))
        return rc;
    o.q.k = o.c.k; /* with what --kernel's file states (its registers, its launch bound) */
    const occ_device_desc *d = occ_device_describe(dev);
    size_t n = 0;
    occ_status st = occ_sweep(dev, &o.q, NULL, 0, &n);
    if (st != OCC_OK) {
        if (o.q.axis == OCC_AXIS_REGISTERS && !occ_device_takes(d, OCC_INPUT_REGISTERS))
            rc = usage_error("--over regs: %s has no register file; use --over grf", d->name);
        else if (o.q.axis == OCC_AXIS_GRF && occ_device_takes(d, OCC_INPUT_REGISTERS))
            rc = usage_error("--over grf: %s has no GRF modes; use --over regs", d->name);
        else
            rc = usage_error("sweep: the range is empty or invalid");
        occ_device_free(dev);
        return rc;
    }
    if (n > 1000000) {
        occ_device_free(dev);
        return usage_error("sweep: %zu points; use a larger --step or a smaller range", n);
    }
    if (n == 0) {
        occ_device_free(dev);
        return usage_error("sweep: no point of the axis lies in the range");
    }
    occ_sweep_point *p = calloc(n, sizeof *p);
    if (!p) {
        occ_device_free(dev);
        fprintf(stderr, "occcalc: out of memory\n");
        return EXIT_INTERNAL;
    }
    occ_sweep(dev, &o.q, p, n, &n);
    point_clusters *clusters = NULL;
    occ_clusters cl;
    if (cli_is_cluster_launch(&o.c.k)) { /* refused as calc refuses; else clusters at every point */
        if ((rc = cli_clusters(dev, &o.c.k, o.c.groups, &cl)) == EXIT_OK && !(clusters = calloc(n, sizeof *clusters))) {
            fprintf(stderr, "occcalc: out of memory\n");
            rc = EXIT_INTERNAL;
        }
        if (rc) {
            free(p);
            occ_device_free(dev);
            return rc;
        }
        in_clusters(dev, cl.size, p, n, clusters);
    }
    /* before any report: a bad --svg path stops here, with nothing printed */
    outfile svg = {0};
    if (o.svg && (rc = outfile_open(&svg, o.svg))) {
        free(clusters);
        free(p);
        occ_device_free(dev);
        return rc;
    }
    bool gpu = o.q.work_groups || o.q.work_items;
    if (o.c.format != OUT_TEXT) {
        rc = print_doc(&o, dev, p, n, clusters);
    } else if (!o.chart) {
        report_device_text(stdout, dev, o.c.k.grf);
        print_table(&o, d, p, n, gpu, clusters);
    }
    if (rc == EXIT_OK)
        rc = charts(&o, d, p, n, gpu, &svg);
    else
        outfile_discard(&svg);
    free(clusters);
    free(p);
    occ_device_free(dev);
    return rc;
}
