/* occcalc probe: the live device as a profile (YAML, the schema of
 * docs/profiles.md), read from the driver through a backend. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

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
         "\n"
         "  --backend NAME   cuda (libcuda.so.1) or ze (Level Zero); default cuda\n"
         "  --index N        device index within the backend; default 0\n"
         "  -o, --output F   write the profile to F (via a temporary file); default stdout\n"
         "  --timeout S      watchdog for the driver calls, seconds; default 30\n"
         "\n"
         "Exit codes: 0 ok; 2 usage error; 4 no driver or device; 5 cannot write the file.");
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
             "Measured live by occcalc probe --backend %s: %s, %s, bus %s", p->backend,
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

    occ_backend *b = NULL;
    occ_device_desc desc;
    occ_backend_info info;
    int rc = cli_backend_open(&cb, &b, &desc, &info);
    if (rc)
        return rc;
    occ_backend_close(b);
    probe_out p = {&desc, &info, cb.name};
    if (output)
        return outfile_write_or_report(output, write_profile, &p);
    bool ok = write_profile(stdout, &p);
    return ok && !ferror(stdout) ? EXIT_OK : EXIT_INTERNAL;
}
