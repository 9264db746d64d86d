/* occcalc phases: the dispatch simulator's full timeline (docs/phases.md). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "commands.h"
#include "outfile.h"
#include "phases_report.h"
#include "report.h"

#define DEFAULT_MAX_PHASES 10000

enum {
    OPT_ORDER = OPT_FIRST_FREE,
    OPT_PARTIAL,
    OPT_DURATIONS,
    OPT_DISTRIBUTION,
    OPT_SEED,
    OPT_LANES,
    OPT_SVG,
    OPT_MAX_PHASES,
    OPT_BARRIER_SPLIT,
};

static void phases_help(void)
{
    puts("usage: occcalc phases [--device D] --wg X[,Y,Z] [--sg N] [--slm BYTES] [--barrier]\n"
         "                      [--grf N] [--regs N] [--carveout PCT] [--groups N | --global X[,Y,Z]]\n"
         "                      [--order pack|spread] [--partial no|launch|always]\n"
         "                      [--barrier-split wait|never]\n"
         "                      [--durations FILE | --distribution uniform:LO:HI|normal:MEAN:SD\n"
         "                      [--seed N]] [--lanes] [--json | --jsonl | --csv] [--svg FILE]\n"
         "                      [--max-phases N]\n"
         "\n"
         "Simulates how the work-groups of a launch are dispatched to cores, run and retire, and\n"
         "prints the phases: intervals in which every core's busy thread contexts stay the same.\n"
         "Time is in units of one work-group's duration (or of the durations given).\n"
         "\n"
         "  kernel and launch flags as in occcalc --help (-d -w -s -b -n -g -j ...)\n"
         "      --order pack|spread   next work-group to the lowest-numbered core that takes it\n"
         "                            (pack), or to the least busy core (spread); default: profile\n"
         "      --partial no|launch|always  split a work-group over the contexts a core has free:\n"
         "                            never, at launch only (yes = launch), or at refills too;\n"
         "                            default: the profile's (true = launch)\n"
         "      --barrier-split wait|never  with --barrier: parts of a work-group wait at the\n"
         "                            barrier for the rest (wait, default), or barrier kernels are\n"
         "                            never split (never)\n"
         "      --durations FILE      one positive duration per line, per work-group in dispatch\n"
         "                            order ('#' comments; '-' = stdin); fewer lines than\n"
         "                            work-groups repeat; without --groups, one work-group a line\n"
         "      --distribution SPEC   uniform:LO:HI (0 < LO <= HI) or normal:MEAN:SD (MEAN > 0,\n"
         "                            SD >= 0, draws <= 0 redrawn); --seed N (default 1)\n"
         "      --lanes               per-core busy contexts and work-groups for every phase\n"
         "                            (and in --json, --jsonl, --csv)\n"
         "      --svg FILE            picture: total occupancy over time and per-core lanes\n"
         "      --max-phases N        largest timeline to print (default 10000)\n"
         "  -h, --help                this help\n"
         "\n"
         "Exit codes: 0 ok; 1 the kernel cannot launch; 2 usage error, or more phases than\n"
         "            --max-phases; 3 bad profile or duration file; 5 internal error;\n"
         "            6 the SVG or stdout cannot be written.");
}

/* ---- duration input ---------------------------------------------------------------- */

typedef struct values {
    double *v;
    size_t n, cap;
} values;

/* One positive number per line; blank lines and '#' comments skipped. */
static int read_durations(const char *path, values *out)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
    if (!f) {
        fprintf(stderr, "occcalc: --durations: cannot open '%s': %s\n", path, strerror(errno));
        return EXIT_INPUT;
    }
    char *line = NULL;
    size_t cap = 0, lineno = 0;
    int rc = EXIT_OK;
    ssize_t len;
    while ((len = getline(&line, &cap, f)) >= 0) {
        lineno++;
        if ((size_t)len != strlen(line)) {
            fprintf(stderr, "occcalc: %s:%zu: a NUL byte: not a text file of durations\n", path,
                    lineno);
            rc = EXIT_INPUT;
            break;
        }
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char *p = line;
        while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
            p++;
        if (!*p)
            continue;
        char *e = p + strlen(p);
        while (e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' || e[-1] == '\n'))
            *--e = '\0';
        double v;
        if (!parse_positive_double(p, &v)) {
            char *end;
            errno = 0;
            double x = strtod(p, &end);
            bool number = end != p && !*end && errno == 0 && isfinite(x);
            fprintf(stderr, "occcalc: %s:%zu: '%s' %s\n", path, lineno, p,
                    number ? "is not positive: durations must be greater than zero"
                           : "is not a duration (one positive number per line)");
            rc = EXIT_INPUT;
            break;
        }
        if (out->n == out->cap) {
            size_t nc = out->cap ? out->cap * 2 : 256;
            double *nv = realloc(out->v, nc * sizeof *nv);
            if (!nv) {
                fprintf(stderr, "occcalc: out of memory reading '%s'\n", path);
                rc = EXIT_INTERNAL;
                break;
            }
            out->v = nv;
            out->cap = nc;
        }
        out->v[out->n++] = v;
    }
    if (rc == EXIT_OK && ferror(f)) {
        fprintf(stderr, "occcalc: --durations: cannot read '%s': %s\n", path, strerror(errno));
        rc = EXIT_INPUT;
    }
    if (rc == EXIT_OK && out->n == 0) {
        fprintf(stderr, "occcalc: --durations: '%s' holds no durations (one positive number per "
                        "line)\n", path);
        rc = EXIT_INPUT;
    }
    free(line);
    if (f != stdin)
        fclose(f);
    return rc;
}

static int parse_distribution(const char *spec, occ_durations *d)
{
    char kind[16];
    const char *colon = strchr(spec, ':');
    size_t kl = colon ? (size_t)(colon - spec) : strlen(spec);
    if (!colon || kl >= sizeof kind)
        return usage_error("--distribution: '%s' is not uniform:LO:HI or normal:MEAN:SD", spec);
    memcpy(kind, spec, kl);
    kind[kl] = '\0';
    char a_s[64], b_s[64];
    const char *second = strchr(colon + 1, ':');
    if (!second || (size_t)(second - colon - 1) >= sizeof a_s || strlen(second + 1) >= sizeof b_s)
        return usage_error("--distribution: '%s' needs two numbers (uniform:LO:HI or "
                           "normal:MEAN:SD)", spec);
    memcpy(a_s, colon + 1, (size_t)(second - colon - 1));
    a_s[second - colon - 1] = '\0';
    strcpy(b_s, second + 1);
    char *end;
    errno = 0;
    double a = strtod(a_s, &end);
    bool a_ok = end != a_s && !*end && errno == 0 && isfinite(a);
    errno = 0;
    double b = strtod(b_s, &end);
    bool b_ok = end != b_s && !*end && errno == 0 && isfinite(b);
    if (!a_ok || !b_ok)
        return usage_error("--distribution: '%s': '%s' is not a number", spec, a_ok ? b_s : a_s);
    if (strcmp(kind, "uniform") == 0) {
        if (!(a > 0) || b < a)
            return usage_error("--distribution: '%s': uniform durations need 0 < LO <= HI", spec);
        d->kind = OCC_DURATIONS_UNIFORM;
    } else if (strcmp(kind, "normal") == 0) {
        if (!(a > 0) || b < 0)
            return usage_error("--distribution: '%s': normal durations need MEAN > 0 and SD >= 0",
                               spec);
        d->kind = OCC_DURATIONS_NORMAL;
    } else {
        return usage_error("--distribution: unknown distribution '%s' (uniform or normal)", kind);
    }
    d->a = a;
    d->b = b;
    return EXIT_OK;
}

/* ---- output ------------------------------------------------------------------------- */

typedef struct request {
    cli_kernel c;
    const char *order_arg, *partial_arg, *durations_path, *distribution, *svg_path;
    bool have_seed, lanes;
    uint64_t seed, max_phases;
    occ_sim_options o;
    values vals;
    uint64_t groups;
} request;

static const char *from(bool given) { return given ? "command line" : "profile"; }

static void durations_text(FILE *f, const request *q)
{
    const occ_durations *d = &q->o.durations;
    switch (d->kind) {
    case OCC_DURATIONS_LIST:
        fprintf(f, "durations from %s (%zu value%s%s)", q->durations_path, d->n_values,
                d->n_values == 1 ? "" : "s",
                d->n_values < q->groups ? ", repeated over the work-groups" : "");
        break;
    case OCC_DURATIONS_UNIFORM:
        fprintf(f, "durations uniform on [%g, %g], seed %llu", d->a, d->b,
                (unsigned long long)d->seed);
        break;
    case OCC_DURATIONS_NORMAL:
        fprintf(f, "durations normal, mean %g, deviation %g, seed %llu", d->a, d->b,
                (unsigned long long)d->seed);
        break;
    default:
        fputs("equal durations", f);
    }
}

static void durations_doc(doc *j, const request *q)
{
    const occ_durations *d = &q->o.durations;
    doc_key(j, "durations");
    doc_begin_object(j);
    static const char *const kinds[] = {"equal", "list", "uniform", "normal"};
    doc_kstr(j, "kind", kinds[d->kind]);
    if (d->kind == OCC_DURATIONS_LIST) {
        doc_kstr(j, "file", q->durations_path);
        doc_ku64(j, "values", d->n_values);
        doc_kbool(j, "repeated", d->n_values < q->groups);
    } else if (d->kind == OCC_DURATIONS_UNIFORM) {
        doc_knum(j, "low", d->a);
        doc_knum(j, "high", d->b);
        doc_ku64(j, "seed", d->seed);
    } else if (d->kind == OCC_DURATIONS_NORMAL) {
        doc_knum(j, "mean", d->a);
        doc_knum(j, "deviation", d->b);
        doc_ku64(j, "seed", d->seed);
    }
    doc_end_object(j);
}

static void wrap(FILE *f, const char *indent, const char *text, int width)
{
    int col = 0;
    const char *p = text;
    fputs(indent, f);
    col = (int)strlen(indent);
    while (*p) {
        const char *w = p;
        while (*w && *w != ' ')
            w++;
        int len = (int)(w - p);
        if (col > (int)strlen(indent) && col + 1 + len > width) {
            fputc('\n', f);
            fputs(indent, f);
            col = (int)strlen(indent);
        } else if (col > (int)strlen(indent)) {
            fputc(' ', f);
            col++;
        }
        fwrite(p, 1, (size_t)len, f);
        col += len;
        p = w;
        while (*p == ' ')
            p++;
    }
    fputc('\n', f);
}

static void print_text(const request *q, const occ_device *dev, const occ_residency *r,
                       const occ_timeline *t)
{
    const occ_device_desc *d = occ_device_describe(dev);
    report_device_text(stdout, dev, r->grf);
    report_kernel_line(stdout, dev, &q->c.k, r);
    bool never = t->barrier && q->o.barrier_split == OCC_BARRIER_SPLIT_NEVER;
    printf("Dispatch %s (%s); partial work-groups %s (%s)\n", phases_order_name(t->order),
           from(q->order_arg != NULL), phases_partial_text(t->partial),
           never ? "--barrier-split never" : from(q->partial_arg != NULL));
    printf("         %s\n",
           !t->barrier ? "no barrier: each dispatched part of a work-group runs on its own"
           : never ? "barrier: its work-groups are dispatched whole"
               : "barrier: threads wait there until their work-group's last ones arrive");
    printf("         %llu work-group%s, ", (unsigned long long)q->groups, q->groups == 1 ? "" : "s");
    durations_text(stdout, q);
    printf("\n         whole-work-group rule: %u per %s; at most %u admitted per %s (slots, %s%s, "
           "barriers)\n",
           t->resident_work_groups, d->core_name, t->admit_limit, d->core_name, d->local_memory_name,
           occ_device_takes(d, OCC_INPUT_REGISTERS) ? ", registers" : "");
    const char *ev = occ_device_dispatch_evidence(dev);
    if (ev && *ev && (!q->order_arg || !q->partial_arg)) {
        printf("         profile's evidence:\n");
        wrap(stdout, "           ", ev, 100);
    }
    printf("\nPhases (%zu; time in %s)\n", t->n_phases,
           q->o.durations.kind == OCC_DURATIONS_LIST ? "the durations' unit"
                                                     : "work-group durations");
    phases_table_text(stdout, t, 0);
    phases_summary_text(stdout, dev, t);
    if (q->lanes) {
        putchar('\n');
        phases_lanes_text(stdout, dev, t);
    }
}

static int print_doc(const request *q, const occ_device *dev, const occ_residency *r,
                     const occ_timeline *t)
{
    doc j;
    doc_init(&j);
    phase_rows_ctx rows;
    doc_begin_object(&j);
    doc_kstr(&j, "schema", OCC_JSON_SCHEMA);
    report_device_doc(&j, dev);
    report_kernel_doc(&j, &q->c.k, r);
    report_core_doc(&j, dev, &q->c.k, r);
    doc_key(&j, "dispatch");
    doc_begin_object(&j);
    if (t) {
        doc_kstr(&j, "order", phases_order_name(t->order));
        doc_kstr(&j, "order_from", from(q->order_arg != NULL));
        doc_kstr(&j, "partial_work_groups", occ_partial_policy_name(t->partial));
        doc_kstr(&j, "partial_from", from(q->partial_arg != NULL));
        doc_kstr(&j, "barrier_split",
                  q->o.barrier_split == OCC_BARRIER_SPLIT_NEVER ? "never" : "wait");
    }
    const char *ev = occ_device_dispatch_evidence(dev);
    doc_kstr(&j, "profile_evidence", ev ? ev : "");
    doc_end_object(&j);
    durations_doc(&j, q);
    if (t) {
        phases_timeline_doc(&j, t, q->o.durations.kind == OCC_DURATIONS_LIST ? "input"
                                                                                : "work_group_duration");
        phases_array_doc(&j, t, q->lanes, &rows);
    } else {
        doc_begin_table(&j, "phases");
        doc_end_array(&j);
    }
    doc_end_object(&j);
    int rc = render(&j, q->c.format);
    doc_free(&j);
    return rc;
}

/* ---- the command ----------------------------------------------------------------------- */

static int phases_option(void *ctx, int id, const char *arg)
{
    request *q = ctx;
    switch (id) {
    case OPT_ORDER:
        if (strcmp(arg, "pack") == 0)
            q->o.order = OCC_DISPATCH_PACK;
        else if (strcmp(arg, "spread") == 0)
            q->o.order = OCC_DISPATCH_SPREAD;
        else
            return usage_error("--order: '%s' is not pack or spread", arg);
        q->order_arg = arg;
        return EXIT_OK;
    case OPT_PARTIAL:
        if (strcmp(arg, "no") == 0)
            q->o.partial = OCC_PARTIAL_NO;
        else if (strcmp(arg, "launch") == 0 || strcmp(arg, "yes") == 0)
            q->o.partial = OCC_PARTIAL_LAUNCH;
        else if (strcmp(arg, "always") == 0)
            q->o.partial = OCC_PARTIAL_ALWAYS;
        else
            return usage_error("--partial: '%s' is not no, launch (yes) or always", arg);
        q->partial_arg = arg;
        return EXIT_OK;
    case OPT_DURATIONS:
        q->durations_path = arg;
        return EXIT_OK;
    case OPT_DISTRIBUTION:
        q->distribution = arg;
        return EXIT_OK;
    case OPT_SEED:
        if (!parse_u64(arg, UINT64_MAX, &q->seed))
            return usage_error("--seed: '%s' is not a non-negative integer", arg);
        q->have_seed = true;
        return EXIT_OK;
    case OPT_LANES:
        q->lanes = true;
        return EXIT_OK;
    case OPT_BARRIER_SPLIT:
        if (strcmp(arg, "wait") == 0)
            q->o.barrier_split = OCC_BARRIER_SPLIT_WAIT;
        else if (strcmp(arg, "never") == 0)
            q->o.barrier_split = OCC_BARRIER_SPLIT_NEVER;
        else
            return usage_error("--barrier-split: '%s' is not wait or never", arg);
        return EXIT_OK;
    case OPT_SVG:
        if (!*arg)
            return usage_error("--svg: the file name is empty");
        q->svg_path = arg;
        return EXIT_OK;
    case OPT_MAX_PHASES:
        if (!parse_u64(arg, 100000000, &q->max_phases) || q->max_phases == 0)
            return usage_error("--max-phases: '%s' is not a count from 1 to 100000000", arg);
        return EXIT_OK;
    default:
        return CLI_NOT_MINE;
    }
}

static int parse(request *q, int argc, char **argv)
{
    static const struct option own[] = {
        {"order", required_argument, 0, OPT_ORDER},
        {"partial", required_argument, 0, OPT_PARTIAL},
        {"durations", required_argument, 0, OPT_DURATIONS},
        {"distribution", required_argument, 0, OPT_DISTRIBUTION},
        {"seed", required_argument, 0, OPT_SEED},
        {"lanes", no_argument, 0, OPT_LANES},
        {"svg", required_argument, 0, OPT_SVG},
        {"max-phases", required_argument, 0, OPT_MAX_PHASES},
        {"barrier-split", required_argument, 0, OPT_BARRIER_SPLIT},
        {0, 0, 0, 0},
    };
    const cli_command cmd = {"phases", CLI_PHASES, own, "", phases_option, q, phases_help, NULL, NULL};
    int rc = cli_parse(&cmd, argc, argv, &q->c);
    if (rc)
        return rc;
    if ((rc = cli_kernel_check(&q->c, true)))
        return rc;
    if (q->durations_path && q->distribution)
        return usage_error("--durations and --distribution are exclusive");
    if (q->have_seed && !q->distribution)
        return usage_error("--seed applies to --distribution only");
    if (q->distribution && (rc = parse_distribution(q->distribution, &q->o.durations)))
        return rc;
    q->o.durations.seed = q->have_seed ? q->seed : 1;
    return EXIT_OK;
}

int cmd_phases(int argc, char **argv)
{
    request q;
    memset(&q, 0, sizeof q);
    cli_kernel_init(&q.c);
    occ_sim_options_init(&q.o);
    q.max_phases = DEFAULT_MAX_PHASES;
    int rc = parse(&q, argc, argv);
    if (rc)
        return rc == CLI_DONE ? EXIT_OK : rc;
    occ_device *dev;
    if ((rc = cli_open_kernel_device(&q.c, true, &dev)))
        return rc;
    if ((rc = cli_work_groups(&q.c, &q.groups))) {
        occ_device_free(dev);
        return rc;
    }
    occ_clusters cl; /* in clusters: refused as calc refuses (no GPCs, size, a partial cluster) */
    if (cli_is_cluster_launch(&q.c.k) && (rc = cli_clusters(dev, &q.c.k, q.groups, &cl))) {
        occ_device_free(dev);
        return rc;
    }
    if (q.durations_path) {
        if ((rc = read_durations(q.durations_path, &q.vals))) {
            free(q.vals.v);
            occ_device_free(dev);
            return rc;
        }
        if (!q.groups)
            q.groups = q.vals.n;
        if (q.vals.n > q.groups) {
            fprintf(stderr, "occcalc: --durations: '%s' has %zu durations for %llu work-group%s "
                            "(give one per work-group, or fewer to repeat them)\n",
                    q.durations_path, q.vals.n, (unsigned long long)q.groups, plural(q.groups));
            free(q.vals.v);
            occ_device_free(dev);
            return EXIT_INPUT;
        }
        q.o.durations.kind = OCC_DURATIONS_LIST;
        q.o.durations.values = q.vals.v;
        q.o.durations.n_values = q.vals.n;
    }
    if (!q.groups) {
        free(q.vals.v);
        occ_device_free(dev);
        return usage_error("give the number of work-groups: --groups N or --global X[,Y,Z] "
                           "(or a --durations file, one line per work-group)");
    }

    /* before any report: a bad --svg path stops here, with nothing printed */
    outfile svg = {0};
    if (q.svg_path && (rc = outfile_open(&svg, q.svg_path))) {
        occ_device_free(dev);
        free(q.vals.v);
        return rc;
    }
    occ_residency r;
    occ_residency_compute(dev, &q.c.k, &r);
    if (!r.launchable) {
        outfile_discard(&svg);
        if (q.c.format != OUT_TEXT) {
            rc = print_doc(&q, dev, &r, NULL);
        } else {
            report_device_text(stdout, dev, r.grf);
            report_kernel_line(stdout, dev, &q.c.k, &r);
            report_core_text(stdout, dev, &q.c.k, &r);
        }
        fprintf(stderr, "occcalc: cannot launch: %s\n", report_reason(dev, &q.c.k));
        occ_device_free(dev);
        free(q.vals.v);
        return rc ? rc : EXIT_NEGATIVE;
    }

    q.o.lanes = q.lanes || q.svg_path;
    q.o.max_phases = q.max_phases;
    occ_timeline t;
    occ_diag diag;
    memset(&diag, 0, sizeof diag);
    occ_status st = occ_timeline_simulate(dev, &q.c.k, q.groups, &q.o, &t, &diag);
    if (st == OCC_ERR_TOO_LARGE) {
        fprintf(stderr,
                "occcalc: the timeline has %zu phases, more than --max-phases %llu: too large to "
                "print.\n"
                "         Average occupancy %.1f %% over [0, %g]; raise --max-phases (up to "
                "100000000) to print it all.\n",
                t.n_phases, (unsigned long long)q.max_phases, pct(t.average_occupancy), t.end);
        rc = EXIT_USAGE;
    } else if (st == OCC_ERR_VALUE) {
        fprintf(stderr, "occcalc: %s\n", diag.message);
        rc = EXIT_USAGE;
    } else if (st == OCC_ERR_UNSUPPORTED) {
        fprintf(stderr, "occcalc: cannot launch: %s\n", diag.message);
        rc = EXIT_NEGATIVE;
    } else if (st == OCC_ERR_NO_MEMORY) {
        fprintf(stderr, "occcalc: out of memory: the timeline is too large (try a smaller "
                        "--max-phases or fewer work-groups)\n");
        rc = EXIT_INTERNAL;
    } else if (st != OCC_OK) {
        fprintf(stderr, "occcalc: cannot simulate: %s%s%s\n", occ_status_text(st),
                diag.message[0] ? ": " : "", diag.message);
        rc = EXIT_INTERNAL;
    } else if (!isfinite(t.end) || !isfinite(t.average_occupancy)) {
        /* each duration is finite, their sum over a core need not be (1e308 twice) */
        fprintf(stderr, "occcalc: %s: the durations are too large: the run's length overflows "
                        "(%g); give them in a smaller unit\n",
                q.durations_path ? q.durations_path : "--distribution", t.end);
        rc = q.durations_path ? EXIT_INPUT : EXIT_USAGE;
    }
    if (rc == EXIT_OK) {
        if (q.c.format != OUT_TEXT)
            rc = print_doc(&q, dev, &r, &t);
        else {
            print_text(&q, dev, &r, &t);
            rc = EXIT_OK;
        }
    }
    if (rc == EXIT_OK && q.svg_path) {
        const occ_device_desc *d = occ_device_describe(dev);
        char title[256], sub[256];
        snprintf(title, sizeof title, "%s: work-group %llu, sub-group %u, %s, %llu work-group%s",
                 d->name, (unsigned long long)r.wg_size, r.sub_group,
                 q.c.k.barrier ? "barrier" : "no barrier", (unsigned long long)q.groups,
                 q.groups == 1 ? "" : "s");
        snprintf(sub, sizeof sub, "dispatch %s, partial work-groups %s; %s; average %.1f %%",
                 phases_order_name(t.order), phases_partial_text(t.partial),
                 q.o.durations.kind == OCC_DURATIONS_EQUAL ? "equal durations"
                 : q.o.durations.kind == OCC_DURATIONS_LIST ? "durations from a file"
                                                             : "random durations",
                 pct(t.average_occupancy));
        rc = outfile_close(&svg, phases_svg(svg.f, dev, &t, title, sub));
    } else {
        outfile_discard(&svg);
    }
    occ_timeline_free(&t);
    occ_device_free(dev);
    free(q.vals.v);
    return rc;
}
