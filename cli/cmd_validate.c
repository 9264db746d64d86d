/* occcalc validate: launch probe kernels on a live device (or replay a record
 * file), reconstruct the measured timeline and compare it with the model's. */
#include <errno.h>
#include <getopt.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "backend_cli.h"
#include "commands.h"
#include "outfile.h"
#include "validate_out.h"

static void validate_help(void)
{
    puts("usage: occcalc validate [--backend cuda|ze] [--index N] --wg X[,Y,Z] [--slm BYTES]\n"
         "                        [--barrier] [--regs N] [--carveout PCT] [--sg N]\n"
         "                        [--cluster X[,Y,Z] [--cluster-non-portable]]\n"
         "                        --groups N [--duration-us U] [--timeout S]\n"
         "                        [--records FILE] [--svg FILE] [--json | --jsonl | --csv] [--device D]\n"
         "       occcalc validate --replay FILE [--svg FILE] [--json | --jsonl | --csv] [--device D]\n"
         "\n"
         "Launches a probe kernel with the given configuration on a live device: every\n"
         "work-group spins for a fixed time and records the core it ran on and when.  The\n"
         "records become a measured timeline (resident work-groups and thread contexts per\n"
         "core over time, phases), compared with the model's prediction for the kernel that\n"
         "really ran (its compiled registers and shared memory, read back from the driver).\n"
         "\n"
         "  --backend NAME      cuda or ze; default cuda\n"
         "  --index N           device index; default 0\n"
         "  --wg, --slm, --barrier, --regs, --carveout, --sg   the kernel (see occcalc --help)\n"
         "  --cluster X[,Y,Z]   CUDA, compute capability 9.0+: launch the cluster probe in\n"
         "                      thread-block clusters of that shape (--groups: a whole number\n"
         "                      of clusters); the GPCs come from the driver's cluster answers\n"
         "  --cluster-non-portable  allow sizes over 8 (H200: up to 16)\n"
         "  -n, --groups N      work-groups to launch\n"
         "  --duration-us U     spin per work-group, microseconds; default 300\n"
         "  --timeout S         watchdog: the probe process is killed after S seconds; default 30\n"
         "  --merge-tolerance F events within F x the median work-group duration are one\n"
         "                      instant; default 0.05\n"
         "  --records FILE      save the raw records (replay them with --replay)\n"
         "  --replay FILE       compare saved records; needs no device\n"
         "  --svg FILE          measured and predicted timelines as an SVG picture\n"
         "  -d, --device D      predict with this profile instead of the live description\n"
         "  -j, --json, --jsonl, --csv  the result as JSON (schema \"occ/1\"), JSON Lines or CSV\n"
         "\n"
         "Checks: work-groups per core (equal); average occupancy (within 1 point) and the\n"
         "time-weighted distance of the predicted and measured curves (within 2 points); when\n"
         "the phase counts are equal, each phase's occupancy (1 point) and duration (10 %).\n"
         "A different phase count is reported, not a failure.  The prediction uses the\n"
         "profile's dispatch timing when it has one (h100-sxm does; the live description\n"
         "does not: a note then names the built-in profile of that GPU, if one has\n"
         "timing), and then each work-group's measured duration.  The driver's own\n"
         "residency answer is shown beside the model's and must equal it.  In clusters, also:\n"
         "the driver's cuOccupancyMaxActiveClusters and the most clusters running at once and\n"
         "in the first wave equal the rule's (docs/clusters.md), the SMs used equal it when the\n"
         "grid fills the GPU, no SM holds more than the cluster cap, and the SMs that shared a\n"
         "cluster fit the GPCs.\n"
         "\n"
         "Exit codes: 0 all checks pass; 1 a check failed, a record is missing, or the\n"
         "configuration cannot launch; 2 usage (--cluster with ze); 3 bad record file or\n"
         "profile, or --cluster on a GPU or profile without GPC data; 4 no driver or\n"
         "device, or the watchdog fired; 5 internal error; 6 cannot write an output file or\n"
         "stdout.");
}

enum {
    OPT_BACKEND = OPT_FIRST_FREE, OPT_INDEX, OPT_TIMEOUT, OPT_DURATION, OPT_RECORDS, OPT_REPLAY,
    OPT_SVG, OPT_MERGE
};

typedef struct vopts {
    cli_kernel c;
    cli_backend b;
    double duration_s, merge;
    const char *records, *replay, *svg;
} vopts;

static int validate_option(void *ctx, int id, const char *arg)
{
    vopts *o = ctx;
    double v;
    switch (id) {
    case OPT_BACKEND: return cli_backend_option(&o->b, "backend", arg) < 0 ? EXIT_USAGE : EXIT_OK;
    case OPT_INDEX: return cli_backend_option(&o->b, "index", arg) < 0 ? EXIT_USAGE : EXIT_OK;
    case OPT_TIMEOUT: return cli_backend_option(&o->b, "timeout", arg) < 0 ? EXIT_USAGE : EXIT_OK;
    case OPT_DURATION:
        if (!parse_positive_double(arg, &v) || v < 1 || v > 1e6)
            return usage_error("--duration-us: '%s' is not a duration in [1, 1000000] us", arg);
        o->duration_s = v * 1e-6;
        return EXIT_OK;
    case OPT_MERGE:
        if (!parse_positive_double(arg, &v) || v >= 0.5)
            return usage_error("--merge-tolerance: '%s' is not a fraction in (0, 0.5)", arg);
        o->merge = v;
        return EXIT_OK;
    case OPT_RECORDS: o->records = arg; return EXIT_OK;
    case OPT_REPLAY: o->replay = arg; return EXIT_OK;
    case OPT_SVG: o->svg = arg; return EXIT_OK;
    default: return CLI_NOT_MINE;
    }
}

static int parse(int argc, char **argv, vopts *o)
{
    static const struct option own[] = {
        {"backend", required_argument, 0, OPT_BACKEND},
        {"index", required_argument, 0, OPT_INDEX},
        {"timeout", required_argument, 0, OPT_TIMEOUT},
        {"duration-us", required_argument, 0, OPT_DURATION},
        {"merge-tolerance", required_argument, 0, OPT_MERGE},
        {"records", required_argument, 0, OPT_RECORDS},
        {"replay", required_argument, 0, OPT_REPLAY},
        {"svg", required_argument, 0, OPT_SVG},
        {0, 0, 0, 0},
    };
    const cli_command cmd = {"validate", CLI_VALIDATE, own, "", validate_option, o, validate_help, NULL, NULL};
    int rc = cli_parse(&cmd, argc, argv, &o->c);
    if (rc)
        return rc;
    if (o->replay) {
        if (o->c.kernel_given)
            return usage_error("--replay takes the kernel and the launch from the record file; "
                               "drop the kernel flags");
        if (o->records)
            return usage_error("--replay and --records are exclusive");
        return EXIT_OK;
    }
    if ((rc = cli_kernel_check(&o->c, true)))
        return rc;
    if (o->c.global_dims)
        return usage_error("validate launches a 1-D grid: give --groups N, not --global");
    if (!o->c.groups)
        return usage_error("--groups N is required (the number of work-groups to launch)");
    if (cli_is_cluster_launch(&o->c.k) && strcmp(o->b.name, "cuda") != 0)
        return usage_error("--cluster: thread-block clusters are CUDA's (compute capability 9.0+); "
                           "the %s backend has none", o->b.name);
    if (o->c.k.cluster_non_portable && !cli_is_cluster_launch(&o->c.k))
        return usage_error("--cluster-non-portable needs --cluster");
    return EXIT_OK;
}

static bool write_records(FILE *f, void *user)
{
    const occ_validation *v = user;
    return occ_probe_file_write(f, &v->info, &v->desc, &v->res) == OCC_OK;
}

/* A launch in clusters: the live GPU's GPCs from its driver's answers (they
 * go into the record file's profile), then the refusals before anything runs:
 * no GPC data on the GPU or on the profile that predicts, a size over the
 * maximum, a grid not a whole number of clusters. */
static int cluster_ready(const vopts *o, occ_backend *b, occ_validation *v, const occ_device *dev)
{
    char source[256]; /* the profile's sources line: a record file keeps none */
    cli_measure_gpcs(b, &v->desc, source, sizeof source);
    if (!v->desc.n_gpcs) {
        fprintf(stderr, "occcalc: --cluster: %s (%s) takes no launch in thread-block clusters: its driver "
                        "gives no GPC structure (compute capability 9.0 or later is needed)\n",
                v->info.device, v->info.architecture);
        return EXIT_INPUT;
    }
    occ_device *live = NULL;
    occ_diag diag;
    if (occ_device_create(&v->desc, &live, &diag) != OCC_OK) {
        fprintf(stderr, "occcalc: the backend's device description is invalid: %s\n", diag.message);
        return EXIT_INPUT;
    }
    occ_clusters cl;
    cl.struct_size = sizeof cl;
    int rc = cli_clusters(dev ? dev : live, &o->c.k, o->c.groups, &cl);
    occ_device_free(live);
    return rc;
}

/* Measure on the live device: fills info, desc, res. */
static int run_live(const vopts *o, occ_validation *v, const occ_device *dev)
{
    occ_backend *b = NULL;
    int rc = cli_backend_open(&o->b, &b, &v->desc, &v->info);
    if (rc)
        return rc;
    if (cli_is_cluster_launch(&o->c.k) && (rc = cluster_ready(o, b, v, dev))) {
        occ_backend_close(b);
        return rc;
    }
    occ_probe_config cfg;
    occ_probe_config_init(&cfg);
    cfg.kernel = o->c.k;
    cfg.work_groups = o->c.groups;
    cfg.duration_s = o->duration_s;
    occ_diag diag;
    memset(&diag, 0, sizeof diag);
    occ_status s = occ_backend_launch(b, &cfg, &v->res, &diag);
    occ_backend_close(b);
    if (s == OCC_OK)
        return EXIT_OK;
    if (s == OCC_ERR_VALUE) {
        /* the driver refused the configuration: does the model agree? */
        char verdict[320];
        bool agrees;
        occ_diag d2;
        if (occ_validation_refused(&v->desc, &o->c.k, &agrees, verdict, sizeof verdict, &d2) ==
            OCC_OK) {
            fprintf(stderr, "occcalc: %s\n", diag.message);
            fprintf(stderr, "occcalc: %s\n", verdict);
            return EXIT_NEGATIVE;
        }
    }
    return cli_backend_error(&diag, s);
}

static int run_replay(const vopts *o, occ_validation *v)
{
    struct stat sb;
    if (stat(o->replay, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        fprintf(stderr, "occcalc: --replay: %s is a directory, not a record file\n", o->replay);
        return EXIT_INPUT;
    }
    FILE *f = fopen(o->replay, "r");
    if (!f) {
        fprintf(stderr, "occcalc: --replay: cannot open %s: %s\n", o->replay, strerror(errno));
        return EXIT_INPUT;
    }
    occ_diag diag;
    memset(&diag, 0, sizeof diag);
    occ_status s = occ_probe_file_read(f, o->replay, &v->info, &v->desc, &v->res, &diag);
    fclose(f);
    if (s != OCC_OK) {
        char msg[1024];
        occ_diag_format(&diag, msg, sizeof msg);
        fprintf(stderr, "occcalc: %s\n", msg);
        return s == OCC_ERR_NO_MEMORY ? EXIT_INTERNAL : EXIT_INPUT;
    }
    return EXIT_OK;
}

/* The library's analysis (occ_validation_analyse) of what was measured. */
static int analyse(const vopts *o, occ_validation *v, const occ_device *dev)
{
    occ_diag diag;
    memset(&diag, 0, sizeof diag);
    occ_status s = occ_validation_analyse(v, dev, o->merge, &diag);
    if (s != OCC_OK) {
        fprintf(stderr, "occcalc: %s\n", diag.message);
        /* OCC_ERR_UNSUPPORTED: records in clusters, a profile without GPC data */
        return s == OCC_ERR_VALUE || s == OCC_ERR_SCHEMA || s == OCC_ERR_INVALID_ARGUMENT ||
                       s == OCC_ERR_UNSUPPORTED
                   ? EXIT_INPUT
                   : EXIT_INTERNAL;
    }
    if (v->problem[0]) {
        fprintf(stderr, "occcalc: %s\n", v->problem);
        return EXIT_NEGATIVE;
    }
    return EXIT_OK;
}

/* The "sm_NN" of an architecture text, or "" (Intel profiles have none). */
/* A built-in profile with dispatch timing for the GPU that d describes (same
 * vendor, cores and target; among several, one whose name's first part the
 * product mentions: "h200" in "NVIDIA H200"), or NULL. */
static const char *timed_profile_for(const occ_device_desc *d)
{
    const char *found = NULL;
    for (size_t i = 0; i < occ_builtin_count(); i++) {
        occ_device *dev = NULL;
        if (occ_device_builtin(occ_builtin_name(i), &dev, NULL) != OCC_OK)
            continue;
        const occ_device_desc *b = occ_device_describe(dev);
        /* the same target; a description recorded before profiles named
         * their target: the same architecture */
        bool same_arch = d->target[0] ? !strcmp(d->target, b->target) : !strcmp(d->architecture, b->architecture);
        bool fits = b->vendor == d->vendor && b->cores == d->cores && same_arch &&
                    occ_device_has_timing(b);
        char stem[64], product[128];
        snprintf(stem, sizeof stem, "%s", b->name);
        stem[strcspn(stem, "-")] = '\0';
        size_t k = 0;
        for (; d->product[k] && k + 1 < sizeof product; k++)
            product[k] = (char)(d->product[k] >= 'A' && d->product[k] <= 'Z' ? d->product[k] - 'A' + 'a'
                                                                             : d->product[k]);
        product[k] = '\0';
        bool named = stem[0] && strstr(product, stem);
        occ_device_free(dev);
        if (fits && (named || !found))
            found = occ_builtin_name(i);
        if (fits && named)
            break;
    }
    return found;
}

int cmd_validate(int argc, char **argv)
{
    vopts o;
    memset(&o, 0, sizeof o);
    cli_kernel_init(&o.c);
    cli_backend_init(&o.b);
    o.duration_s = 300e-6;
    int rc = parse(argc, argv, &o);
    if (rc)
        return rc == CLI_DONE ? EXIT_OK : rc;

    /* outputs first: a bad path stops here, before a device is touched */
    outfile records = {0}, svg = {0};
    if (o.records && (rc = outfile_open(&records, o.records)))
        return rc;
    if (o.svg && (rc = outfile_open(&svg, o.svg))) {
        outfile_discard(&records);
        return rc;
    }

    validation v;
    memset(&v, 0, sizeof v);
    occ_validation_init(&v.a);
    char source[600];
    occ_device *dev = NULL;
    if (o.c.device && (rc = cli_open_device(o.c.device, &dev)))
        goto out;
    if (o.replay) {
        rc = run_replay(&o, &v.a);
        snprintf(source, sizeof source, "%s", o.replay);
    } else {
        rc = run_live(&o, &v.a, dev);
        snprintf(source, sizeof source, "%s device %u", o.b.name, o.b.index);
    }
    v.source = source;
    if (rc)
        goto out;
    if (o.records && (rc = outfile_close(&records, write_records(records.f, &v.a) ? 0 : EIO)))
        goto out;

    rc = analyse(&o, &v.a, dev);
    if (rc == EXIT_OK) {
        if (o.c.format != OUT_TEXT)
            rc = validation_print_doc(&v, o.c.format);
        else
            validation_print_text(stdout, &v);
        if (o.svg)
            rc = outfile_close(&svg, validation_write_svg(svg.f, &v) ? 0 : EIO);
        if (rc == EXIT_OK && !v.a.pass)
            rc = EXIT_NEGATIVE;
        /* once the report is out (a failed write, stdout's included, says only that) */
        const char *timed = !dev && !occ_device_has_timing(&v.a.desc) ? timed_profile_for(&v.a.desc) : NULL;
        if ((rc == EXIT_OK || rc == EXIT_NEGATIVE) && timed && outfile_flush_stdout() != EXIT_OK)
            rc = EXIT_OUTPUT;
        else if ((rc == EXIT_OK || rc == EXIT_NEGATIVE) && timed)
            fprintf(stderr,
                    "occcalc: note: this description of the GPU has no dispatch timing, so the prediction\n"
                    "has no ramp-up or refill dips; --device %s, the profile of this GPU, has it\n"
                    "(docs/phases.md \"Dispatch timing\")\n",
                    timed);
    }
out:
    occ_device_free(dev);
    outfile_discard(&records);
    outfile_discard(&svg);
    occ_validation_free(&v.a);
    return rc;
}
