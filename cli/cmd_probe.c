/* occcalc probe: the live device as a profile (YAML, the schema of
 * docs/profiles.md), read from the driver through a backend. */
#include <errno.h>
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
    const char *evidence =
        p->desc->vendor == OCC_VENDOR_NVIDIA
            ? "CUDA dispatches whole blocks in blockIdx order spread across SMs (measured on an "
              "H100: docs/validation/cuda-h100-2026-11-21.md; occcalc validate --backend cuda "
              "measures it)"
            : "The driver does not report dispatch order; taken from the architecture family";
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
    occ_backend_close(b);
    probe_out p = {&desc, &info, cb.name};
    return outfile_close(&out, write_profile(out.f, &p) ? 0 : EIO);
}
