/* occcalc devices: the built-in profiles, one line each. */
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "commands.h"
#include "report.h"

static void devices_help(void)
{
    puts("usage: occcalc devices [--json | --jsonl | --csv]\n\nLists the built-in device profiles "
         "(use one with --device NAME; any YAML file works with --device PATH).\n");
    cli_format_flags_help(stdout);
}

int cmd_devices(int argc, char **argv)
{
    static const cli_command cmd = {"devices", CLI_DEVICES, NULL, "", NULL, NULL, devices_help, NULL, NULL};
    cli_kernel c;
    cli_kernel_init(&c);
    int rc = cli_parse(&cmd, argc, argv, &c);
    if (rc)
        return rc == CLI_DONE ? EXIT_OK : rc;
    doc j;
    doc_init(&j);
    doc_begin_object(&j);
    doc_kstr(&j, "schema", OCC_JSON_SCHEMA);
    doc_begin_table(&j, "devices");
    if (c.format == OUT_TEXT)
        printf("%-12s %-7s %-9s %5s %-8s %s\n", "NAME", "VENDOR", "CORE", "CORES", "CONTEXTS", "PRODUCT");
    for (size_t i = 0; i < occ_builtin_count(); i++) {
        occ_device *dev;
        occ_diag diag;
        if (occ_device_builtin(occ_builtin_name(i), &dev, &diag) != OCC_OK) {
            char msg[1024];
            occ_diag_format(&diag, msg, sizeof msg);
            fprintf(stderr, "occcalc: %s\n", msg);
            rc = EXIT_INPUT;
            continue;
        }
        const occ_device_desc *d = occ_device_describe(dev);
        uint64_t contexts = (uint64_t)d->cores * occ_desc_contexts_per_core(d, d->default_grf);
        if (c.format != OUT_TEXT) {
            doc_begin_object(&j);
            doc_kstr(&j, "name", d->name);
            doc_kstr(&j, "vendor", vendor_word(d));
            doc_kstr(&j, "product", d->product);
            doc_kstr(&j, "architecture", d->architecture);
            doc_kstr(&j, "core_name", d->core_name);
            doc_ku64(&j, "cores", d->cores);
            doc_ku64(&j, "thread_contexts", contexts);
            doc_kbool(&j, "provisional", d->provisional);
            doc_end_object(&j);
        } else {
            printf("%-12s %-7s %-9s %5u %8llu %s%s\n", d->name,
                   vendor_word(d), d->core_name, d->cores,
                   (unsigned long long)contexts, text_safe(d->product), d->provisional ? " (provisional)" : "");
        }
        occ_device_free(dev);
    }
    doc_end_array(&j);
    doc_end_object(&j);
    if (c.format != OUT_TEXT) {
        int r = render(&j, c.format);
        if (r)
            rc = r;
    }
    doc_free(&j);
    return rc;
}
