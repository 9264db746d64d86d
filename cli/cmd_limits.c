/* occcalc limits: the inverse view.  For each residency a kernel can reach,
 * the most local memory per work-group, the most registers per thread (or
 * the GRF modes), and the work-group sizes that still give it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advise_cli.h"
#include "args.h"
#include "commands.h"
#include "report.h"

static void limits_help(void)
{
    puts("usage: occcalc limits [--device D] --wg X[,Y,Z] [--sg N] [--slm BYTES] [--slm-per-item B]\n"
         "                      [--barrier] [--grf N] [--regs N] [--carveout PCT]\n"
         "                      [--by slm,regs,grf,wg,sg | all] [--cluster X[,Y,Z]] [--json | --jsonl | --csv]\n"
         "\n"
         "For one input at a time (the others as given), the runs of its values that give each\n"
         "number of work-groups per core: the most local memory per work-group or registers per\n"
         "thread that keeps a residency, the GRF modes, the work-group sizes (at this sub-group\n"
         "size) that reach it.  Exact: every allocation step, register count and size is checked.\n"
         "\n"
         "      --by LIST          axes to show (default: slm, regs or grf, wg)\n"
         "      --slm-per-item B   local memory grows by B per work-item (work-group axis)\n"
         "  -j, --json, --jsonl, --csv  the result as JSON (schema \"occ/1\"), JSON Lines or CSV\n"
         "\n"
         "Exit codes: 0 ok; 1 the kernel as given cannot launch (the tables still print);\n"
         "            2 usage error; 3 bad profile; 6 stdout cannot be written.");
}

enum { OPT_BY = OPT_FIRST_FREE, OPT_PER_ITEM };

typedef struct limits_opts {
    cli_kernel c;
    uint64_t slm_per_item;
    bool axes[OCC_AXIS_COUNT];
    bool have_by;
} limits_opts;

static int parse_by(const char *s, limits_opts *o)
{
    char buf[128];
    if (strlen(s) >= sizeof buf)
        return usage_error("--by: '%s' is too long", s);
    strcpy(buf, s);
    o->have_by = true;
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        if (!strcmp(tok, "all")) {
            for (int i = 0; i < OCC_AXIS_COUNT; i++)
                o->axes[i] = true;
            continue;
        }
        int found = -1;
        for (int i = 0; i < OCC_AXIS_COUNT; i++)
            if (!strcmp(tok, occ_axis_name((occ_axis)i)))
                found = i;
        if (found < 0)
            return usage_error("--by: '%s' is not slm, regs, grf, wg, sg or all", tok);
        o->axes[found] = true;
    }
    return EXIT_OK;
}

static int limits_option(void *ctx, int id, const char *arg)
{
    limits_opts *o = ctx;
    switch (id) {
    case OPT_BY:
        return parse_by(arg, o);
    case OPT_PER_ITEM:
        if (!parse_bytes(arg, &o->slm_per_item))
            return usage_error("--slm-per-item: '%s' is not a size in bytes", arg);
        return EXIT_OK;
    default:
        return CLI_NOT_MINE;
    }
}

static int parse(int argc, char **argv, limits_opts *o)
{
    static const struct option own[] = {
        {"by", required_argument, 0, OPT_BY},
        {"slm-per-item", required_argument, 0, OPT_PER_ITEM},
        {0, 0, 0, 0},
    };
    const cli_command cmd = {"limits", CLI_LIMITS, own, "", limits_option, o, limits_help, NULL, NULL};
    return cli_parse(&cmd, argc, argv, &o->c);
}

static const char *axis_heading(occ_axis a, const occ_device_desc *d, char *buf, size_t size)
{
    switch (a) {
    case OCC_AXIS_SLM:
        snprintf(buf, size, "%s per work-group", d->local_memory_name);
        if (buf[0] >= 'a' && buf[0] <= 'z')
            buf[0] = (char)(buf[0] - 'a' + 'A'); /* "shared memory" starts a heading */
        return buf;
    case OCC_AXIS_REGISTERS: {
        const occ_vendor_words *w = occ_vendor_words_of(d->vendor);
        snprintf(buf, size, "%s per thread", w && w->register_word ? w->register_word : "registers");
        if (buf[0] >= 'a' && buf[0] <= 'z')
            buf[0] = (char)(buf[0] - 'a' + 'A'); /* "registers" starts a heading */
        return buf;
    }
    case OCC_AXIS_GRF: return "GRF registers per thread (the mode that holds them)";
    case OCC_AXIS_WG_SIZE: return "Work-group size (1-D, work-items)";
    default: return "Sub-group size";
    }
}

static void value_text(char *buf, size_t size, occ_axis a, uint64_t v)
{
    if (a == OCC_AXIS_SLM)
        occ_format_bytes(buf, size, v, false);
    else
        snprintf(buf, size, "%llu", (unsigned long long)v);
}

/* The share of a residency's work-groups a launch in clusters holds: the
 * occupancy in clusters is the row's times this. */
static double in_clusters(const occ_device *dev, uint32_t resident_wgs)
{
    return resident_wgs ? (double)occ_cluster_work_groups_of(dev, resident_wgs) / resident_wgs : 0.0;
}

/* cluster: blocks per cluster of a launch in clusters (--cluster), 0 none:
 * each row then has the clusters at once its residency gives. */
static void print_axis(occ_axis a, const occ_device *dev, const occ_limit_row *rows, size_t n, uint32_t cluster)
{
    const occ_device_desc *d = occ_device_describe(dev);
    char head[96];
    printf("\n%s:\n  %8s  %-15s  %-24s  %s%s\n", axis_heading(a, d, head, sizeof head), "WGs/core",
           "per core", "values", cluster ? "clusters  in clusters      " : "", "limited by (at the top)");
    for (size_t i = 0; i < n; i++) {
        const occ_limit_row *r = &rows[i];
        char lo[32], hi[32], range[80], occ[32], lim[96];
        value_text(lo, sizeof lo, a, r->lo);
        value_text(hi, sizeof hi, a, r->hi);
        if (r->lo == r->hi)
            snprintf(range, sizeof range, "%s", hi);
        else
            snprintf(range, sizeof range, "%s .. %s", lo, hi);
        if (!r->resident_wgs) {
            printf("  %8u  %-15s  %-24s  cannot launch: %s\n", 0u, "-", range, occ_reason_text(r->reason));
            continue;
        }
        if (r->occupancy_hi - r->occupancy_lo > 1e-12)
            snprintf(occ, sizeof occ, "%.1f-%.1f %%", r->occupancy_lo * 100.0, r->occupancy_hi * 100.0);
        else
            snprintf(occ, sizeof occ, "%.1f %%", r->occupancy_hi * 100.0);
        format_limited_by_on(lim, sizeof lim, r->limited_by, d);
        printf("  %8u  %-15s  %-24s  ", r->resident_wgs, occ, range);
        if (cluster) {
            double in = in_clusters(dev, r->resident_wgs), lo_in = r->occupancy_lo * in, hi_in = r->occupancy_hi * in;
            if (hi_in - lo_in > 1e-12)
                snprintf(occ, sizeof occ, "%.1f-%.1f %%", lo_in * 100.0, hi_in * 100.0);
            else
                snprintf(occ, sizeof occ, "%.1f %%", hi_in * 100.0);
            printf("%8llu  %-15s  ", (unsigned long long)occ_max_active_clusters_of(dev, r->resident_wgs, cluster),
                   occ);
        }
        printf("%s\n", lim);
    }
}

static void axis_doc(doc *j, occ_axis a, const occ_device *dev, const occ_limit_row *rows, size_t n,
                     uint32_t cluster)
{
    doc_key(j, occ_axis_name(a));
    doc_begin_array(j);
    for (size_t i = 0; i < n; i++) {
        doc_begin_object(j);
        doc_ku64(j, "from", rows[i].lo);
        doc_ku64(j, "to", rows[i].hi);
        doc_ku64(j, "resident_work_groups", rows[i].resident_wgs);
        doc_key(j, "reason");
        rows[i].resident_wgs ? doc_null(j) : doc_str(j, occ_reason_text(rows[i].reason));
        doc_knum(j, "occupancy_min", rows[i].occupancy_lo);
        doc_knum(j, "occupancy_max", rows[i].occupancy_hi);
        doc_limited_by(j, "limited_by", rows[i].limited_by);
        if (cluster) {
            doc_ku64(j, "max_active_clusters", occ_max_active_clusters_of(dev, rows[i].resident_wgs, cluster));
            doc_knum(j, "cluster_occupancy_min", rows[i].occupancy_lo * in_clusters(dev, rows[i].resident_wgs));
            doc_knum(j, "cluster_occupancy_max", rows[i].occupancy_hi * in_clusters(dev, rows[i].resident_wgs));
        }
        doc_end_object(j);
    }
    doc_end_array(j);
}

int cmd_limits(int argc, char **argv)
{
    limits_opts o;
    memset(&o, 0, sizeof o);
    cli_kernel_init(&o.c);
    int rc = parse(argc, argv, &o);
    if (rc)
        return rc == CLI_DONE ? EXIT_OK : rc;
    if ((rc = cli_kernel_check(&o.c, true)))
        return rc;
    if (o.c.groups || o.c.global_dims)
        return usage_error("limits: --groups and --global do not apply (per-core view)");
    occ_device *dev;
    if ((rc = cli_open_kernel_device(&o.c, true, &dev)))
        return rc;
    const occ_device_desc *d = occ_device_describe(dev);
    if (!o.have_by) {
        o.axes[OCC_AXIS_SLM] = o.axes[OCC_AXIS_WG_SIZE] = true;
        o.axes[occ_device_takes(d, OCC_INPUT_REGISTERS) ? OCC_AXIS_REGISTERS : OCC_AXIS_GRF] = true;
    } else if (o.axes[OCC_AXIS_REGISTERS] && !occ_device_takes(d, OCC_INPUT_REGISTERS) && !o.axes[OCC_AXIS_GRF]) {
        rc = usage_error("--by regs: %s has no register file; use --by grf", d->name);
        occ_device_free(dev);
        return rc;
    } else if (o.axes[OCC_AXIS_GRF] && occ_device_takes(d, OCC_INPUT_REGISTERS) && !o.axes[OCC_AXIS_REGISTERS]) {
        rc = usage_error("--by grf: %s has no GRF modes; use --by regs", d->name);
        occ_device_free(dev);
        return rc;
    }
    o.axes[OCC_AXIS_REGISTERS] &= occ_device_takes(d, OCC_INPUT_REGISTERS);
    o.axes[OCC_AXIS_GRF] &= !occ_device_takes(d, OCC_INPUT_REGISTERS);

    occ_clusters cl = {0}; /* --cluster: refused as calc refuses */
    if (cli_is_cluster_launch(&o.c.k) && (rc = cli_clusters(dev, &o.c.k, 0, &cl))) {
        occ_device_free(dev);
        return rc;
    }
    occ_residency r;
    occ_residency_compute(dev, &o.c.k, &r);
    doc j;
    doc_init(&j);
    if (o.c.format != OUT_TEXT) {
        doc_begin_object(&j);
        doc_kstr(&j, "schema", OCC_JSON_SCHEMA);
        report_device_doc(&j, dev);
        report_kernel_doc(&j, &o.c.k, &r);
        doc_ku64(&j, "slm_per_item", o.slm_per_item);
        report_core_doc(&j, dev, &o.c.k, &r);
        doc_key(&j, "limits");
        doc_begin_object(&j);
    } else {
        report_device_text(stdout, dev, r.grf);
        report_kernel_line(stdout, dev, &o.c.k, &r);
        if (r.launchable)
            printf("         %u work-group%s per %s, %.1f %%\n", r.resident_wgs,
                   r.resident_wgs == 1 ? "" : "s", d->core_name, r.occupancy * 100.0);
    }
    static const occ_axis order[] = {OCC_AXIS_SLM, OCC_AXIS_REGISTERS, OCC_AXIS_GRF, OCC_AXIS_WG_SIZE,
                                     OCC_AXIS_SUB_GROUP};
    for (size_t i = 0; i < sizeof order / sizeof order[0] && rc == EXIT_OK; i++) {
        occ_axis a = order[i];
        if (!o.axes[a])
            continue;
        occ_sweep_request q;
        occ_sweep_request_init(&q);
        q.k = o.c.k;
        q.axis = a;
        if (a == OCC_AXIS_WG_SIZE)
            q.slm_per_item = o.slm_per_item;
        size_t n = 0;
        occ_limit_row *rows = NULL;
        occ_status st = occ_limits(dev, &q, NULL, 0, &n);
        if (st == OCC_OK && n && !(rows = calloc(n, sizeof *rows)))
            st = OCC_ERR_NO_MEMORY;
        if (st == OCC_OK)
            st = occ_limits(dev, &q, rows, n, &n);
        if (st != OCC_OK) {
            fprintf(stderr, "occcalc: limits: %s: %s\n", occ_axis_name(a), occ_status_text(st));
            rc = EXIT_INTERNAL;
        } else if (o.c.format != OUT_TEXT) {
            axis_doc(&j, a, dev, rows, n, cl.size);
        } else {
            print_axis(a, dev, rows, n, cl.size);
        }
        free(rows);
    }
    if (o.c.format != OUT_TEXT && rc == EXIT_OK) {
        doc_end_object(&j);
        doc_end_object(&j);
        rc = render(&j, o.c.format);
    }
    doc_free(&j);
    if (rc == EXIT_OK && !r.launchable) {
        fprintf(stderr, "occcalc: the kernel as given cannot launch: %s\n", report_reason(dev, &o.c.k));
        rc = EXIT_NEGATIVE;
    }
    occ_device_free(dev);
    return rc;
}
