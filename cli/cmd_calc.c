/* occcalc [calc]: per-core residency, whole-GPU waves and the next step. */
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "commands.h"
#include "phases_report.h"
#include "report.h"

/* Every command of cli/meson.build's list, so that --help cannot miss one. */
#define OCCCALC_COMMAND_NAME(name) #name,
static const char *const command_names[] = {OCCCALC_COMMANDS(OCCCALC_COMMAND_NAME)};
#undef OCCCALC_COMMAND_NAME

static void calc_help(void)
{
    puts("usage: occcalc [--device D] --wg X[,Y,Z] [--sg N] [--slm BYTES|NK] [--barrier]\n"
         "               [--grf 128|256] [--regs N] [--carveout PCT]\n"
         "               [--groups N | --global X[,Y,Z]] [--json | --jsonl | --csv]");
    const char *sep = "       occcalc ";
    for (size_t i = 0; i < sizeof command_names / sizeof command_names[0]; i++)
        if (strcmp(command_names[i], "calc") != 0) {
            printf("%s%s", sep, command_names[i]);
            sep = " | ";
        }
    puts("  (see COMMAND --help)\n"
         "\n"
         "Predicts how many work-groups of a kernel one core (Xe-core, SM) holds, which resource\n"
         "limits it, the whole GPU's waves for N work-groups, and the next step that raises it.\n");
    cli_kernel_flags_help(stdout, CLI_CALC); /* the shared table's lines (args.c) */
    puts("  -h, --help              this help;  -V, --version  version\n"
         "\n"
         "Exit codes: 0 ok; 1 the kernel cannot launch (or a check failed); 2 usage error;\n"
         "            3 bad profile or input file; 4 device or driver unavailable; 5 internal error;\n"
         "            6 an output (stdout or a file) cannot be written.");
}

/* The result for --json, --jsonl, --csv (render.h). */
static int print_doc(const occ_device *dev, const occ_kernel *k, const occ_residency *r,
                     const occ_clusters *cl, const occ_gpu *g, uint64_t coop, out_format format)
{
    doc j;
    doc_init(&j);
    doc_begin_object(&j);
    doc_kstr(&j, "schema", OCC_JSON_SCHEMA);
    report_device_doc(&j, dev);
    report_kernel_doc(&j, k, r);
    report_core_doc(&j, dev, k, r);
    if (cl)
        report_clusters_doc(&j, dev, k, cl);
    if (g) {
        report_gpu_doc(&j, g, coop);
        phases_calc_doc(&j, dev, k, g->work_groups);
    }
    report_next_steps_doc(&j, dev, k);
    doc_end_object(&j);
    int rc = render(&j, format);
    doc_free(&j);
    return rc;
}

static int calc_option(void *ctx, int id, const char *arg)
{
    (void)ctx, (void)arg;
    if (id != 'V')
        return CLI_NOT_MINE;
    printf("occcalc %s (libocc API %u.%u)\n", occ_version(), occ_api_version() >> 16,
           occ_api_version() & 0xffff);
    return CLI_DONE;
}

int cmd_calc(int argc, char **argv)
{
    static const struct option own[] = {{"version", no_argument, 0, 'V'}, {0, 0, 0, 0}};
    static const cli_command cmd = {NULL, CLI_CALC, own, "V", calc_option, NULL, calc_help, NULL, NULL};
    cli_kernel c;
    cli_kernel_init(&c);
    int rc = cli_parse(&cmd, argc, argv, &c);
    if (rc)
        return rc == CLI_DONE ? EXIT_OK : rc;
    if ((rc = cli_kernel_check(&c, true)))
        return rc;
    occ_device *dev;
    if ((rc = cli_open_kernel_device(&c, true, &dev)))
        return rc;
    uint64_t groups;
    if ((rc = cli_work_groups(&c, &groups))) {
        occ_device_free(dev);
        return rc;
    }
    const occ_device_desc *d = occ_device_describe(dev);
    if (c.have_regs && !occ_device_takes(d, OCC_INPUT_REGISTERS))
        fprintf(stderr, "occcalc: note: --regs applies to register-file devices; %s uses GRF modes (--grf)\n",
                d->name);
    if (c.have_carveout && !occ_device_takes(d, OCC_INPUT_CARVEOUT))
        fprintf(stderr, "occcalc: note: --carveout ignored: %s has a fixed %s size\n", d->name,
                d->local_memory_name);

    occ_clusters cl;
    bool clusters = cli_is_cluster_launch(&c.k);
    if (clusters && (rc = cli_clusters(dev, &c.k, groups, &cl))) {
        occ_device_free(dev);
        return rc;
    }
    occ_residency r;
    occ_residency_compute(dev, &c.k, &r);
    occ_gpu g;
    bool have_gpu = groups && r.launchable &&
                    (clusters ? occ_gpu_compute_clusters(dev, &r, &cl, groups, &g)
                              : occ_gpu_compute(dev, &r, groups, &g)) == OCC_OK;
    uint64_t coop = 0;
    occ_cooperative_max(dev, &c.k, &coop);

    if (c.format != OUT_TEXT) {
        rc = print_doc(dev, &c.k, &r, clusters ? &cl : NULL, have_gpu ? &g : NULL, coop, c.format);
    } else {
        report_device_text(stdout, dev, r.grf);
        report_kernel_line(stdout, dev, &c.k, &r);
        report_core_text(stdout, dev, &c.k, &r);
        if (clusters)
            report_clusters_text(stdout, dev, &c.k, &r, &cl);
        if (have_gpu) {
            report_gpu_text(stdout, dev, &r, &g, coop);
            phases_calc_text(stdout, dev, &c.k, &g);
        }
        report_next_steps_text(stdout, dev, &c.k);
        rc = EXIT_OK;
    }
    if (!r.launchable) {
        fprintf(stderr, "occcalc: cannot launch: %s\n", report_reason(dev, &c.k));
        if (rc == EXIT_OK)
            rc = EXIT_NEGATIVE;
    } else if (clusters && !cl.max_active_clusters) {
        fprintf(stderr, "occcalc: cannot launch: no GPC of %s holds a cluster of %u\n",
                occ_device_describe(dev)->name, cl.size);
        if (rc == EXIT_OK)
            rc = EXIT_NEGATIVE;
    }
    occ_device_free(dev);
    return rc;
}
