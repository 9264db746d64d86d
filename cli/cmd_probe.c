/* occcalc probe: the live device as a profile (YAML, the schema of
 * docs/profiles.md), read from the driver through a backend. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "args.h"
#include "backend_cli.h"
#include "commands.h"
#include "outfile.h"

static void probe_help(void)
{
    puts("usage: occcalc probe [--backend cuda|ze] [--index N] [--output FILE] [--timeout S]\n"
         "\n"
         "Describes a live device as an occ profile (YAML, docs/profiles.md), from what its\n"
         "driver reports plus the architecture's documented rules.  Use the file with --device.\n"
         "With CUDA it also measures the dispatch timing (docs/phases.md): two probe launches\n"
         "of three waves of 20 us blocks (32 and 1024 threads); if they cannot run, the\n"
         "profile has no timing and a warning says why.  On compute capability 9.0 and later\n"
         "it measures the GPCs and the cluster caps (core.gpc_sms, docs/clusters.md) from the\n"
         "driver's cluster answers for its probe kernel.\n"
         "\n"
         "  --backend NAME   cuda (libcuda.so.1) or ze (Level Zero); default cuda\n"
         "  --index N        device index within the backend; default 0\n"
         "  -o, --output F   write the profile to F (a regular file is replaced whole);\n"
         "                   default stdout ('-')\n"
         "  --timeout S      watchdog for the driver calls, seconds; default 30\n"
         "\n"
         "Exit codes: 0 ok; 2 usage error; 4 no driver or device; 6 cannot write the profile.");
}

typedef struct probe_out {
    const occ_device_desc *desc;
    const occ_backend_info *info;
    const char *backend;
} probe_out;

static bool write_profile(FILE *f, void *user)
{
    const probe_out *p = user;
    char first[512];
    snprintf(first, sizeof first,
             "Measured live by occcalc probe --backend %.40s: %.127s, %.127s, bus %.31s", p->backend,
             p->info->device, p->info->driver, p->info->bus_id[0] ? p->info->bus_id : "unknown");
    const char *sources[9];
    size_t n = 0;
    sources[n++] = first;
    for (uint32_t i = 0; i < p->info->n_sources && i < 8; i++)
        sources[n++] = p->info->sources[i];
    const occ_vendor_words *w = occ_vendor_words_of(p->desc->vendor);
    const char *evidence = w ? w->dispatch_evidence : NULL;
    fprintf(f, "# %s (%s), written by occcalc probe --backend %s.\n", p->info->device,
            p->info->architecture, p->backend);
    return occ_device_write_yaml(p->desc, sources, n, evidence, f) == OCC_OK;
}

/* One probe launch of `waves` full waves of wg-thread blocks spinning 20 us. */
static occ_status timing_launch(occ_backend *b, const occ_device *dev, uint32_t wg,
                                occ_probe_result *res, uint32_t *contexts, occ_diag *diag)
{
    occ_probe_config c;
    occ_probe_config_init(&c);
    c.kernel.wg[0] = wg;
    c.duration_s = 20e-6;
    occ_residency r;
    occ_residency_compute(dev, &c.kernel, &r);
    if (!r.launchable || !r.resident_wgs)
        return OCC_ERR_UNSUPPORTED;
    *contexts = r.contexts_per_wg;
    c.work_groups = 3ull * occ_device_describe(dev)->cores * r.resident_wgs;
    return occ_backend_launch(b, &c, res, diag);
}

/* CUDA: measure the dispatch timing into desc; a warning when it cannot. */
static void measure_timing(occ_backend *b, occ_device_desc *desc)
{
    occ_device *dev = NULL;
    occ_diag diag;
    memset(&diag, 0, sizeof diag);
    if (occ_device_create(desc, &dev, &diag) != OCC_OK)
        return;
    occ_probe_result small, large;
    occ_probe_result_init(&small);
    occ_probe_result_init(&large);
    uint32_t cs = 0, cl = 0;
    /* a first launch warms the module and the GPU up: on the H100 the refill
     * gap of a cold first launch read 512 ns, of the next ones 768 ns */
    occ_status s = timing_launch(b, dev, 32, &small, &cs, &diag);
    occ_probe_result_free(&small);
    occ_probe_result_init(&small);
    if (s == OCC_OK)
        s = timing_launch(b, dev, 32, &small, &cs, &diag);
    if (s == OCC_OK)
        s = timing_launch(b, dev, 1024, &large, &cl, &diag);
    occ_device_desc fit = *desc;
    if (s == OCC_OK)
        s = occ_dispatch_timing_fit(&small, cs, &large, cl, desc->cores, &fit, &diag);
    if (s == OCC_OK) {
        char date[32] = "";
        time_t now = time(NULL);
        struct tm tmv;
        if (gmtime_r(&now, &tmv))
            strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", &tmv);
        snprintf(fit.timing_evidence, sizeof fit.timing_evidence,
                 "Measured by occcalc probe on %s: three waves of 20 us blocks of 32 threads "
                 "(refill gap, GPU and core intervals) and of 1024 threads (per-context interval)",
                 date);
        *desc = fit;
    } else {
        fprintf(stderr, "occcalc: warning: dispatch timing not measured (%s); the profile has none\n",
                diag.message[0] ? diag.message : occ_status_text(s));
    }
    occ_probe_result_free(&small);
    occ_probe_result_free(&large);
    occ_device_free(dev);
}

int cmd_probe(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"backend", required_argument, 0, 'B'}, {"index", required_argument, 0, 'I'},
        {"timeout", required_argument, 0, 'T'}, {"output", required_argument, 0, 'o'},
        {"help", no_argument, 0, 'h'},          {0, 0, 0, 0},
    };
    cli_backend cb;
    cli_backend_init(&cb);
    const char *output = NULL;
    int opt, li = -1;
    optind = 1;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, "o:h", longopts, &li)) != -1) {
        if (opt == 'h') {
            probe_help();
            return EXIT_OK;
        }
        if (opt == 'o') {
            output = optarg;
            continue;
        }
        if (opt == '?' || opt == ':')
            return option_error("probe", argv, "o:h", longopts);
        if (cli_backend_option(&cb, longopts[li].name, optarg) < 0)
            return EXIT_USAGE;
    }
    if (optind < argc)
        return usage_error("probe: unexpected argument '%s'", argv[optind]);

    /* the output first: a bad path stops here, before the driver is loaded */
    outfile out;
    int rc = outfile_open(&out, output ? output : "-");
    if (rc)
        return rc;
    occ_backend *b = NULL;
    occ_device_desc desc;
    occ_backend_info info;
    if ((rc = cli_backend_open(&cb, &b, &desc, &info))) {
        outfile_discard(&out);
        return rc;
    }
    if (!strcmp(cb.name, "cuda")) {
        measure_timing(b, &desc);
        char gpcs[256] = "";
        cli_measure_gpcs(b, &desc, gpcs, sizeof gpcs);
        if (*gpcs && info.n_sources < sizeof info.sources / sizeof info.sources[0])
            snprintf(info.sources[info.n_sources++], sizeof info.sources[0], "%s", gpcs);
    }
    occ_backend_close(b);
    probe_out p = {&desc, &info, cb.name};
    return outfile_close(&out, write_profile(out.f, &p) ? 0 : EIO);
}
