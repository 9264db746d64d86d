/* occcalc devices: the built-in profiles, one line each. */
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "commands.h"
#include "report.h"

int cmd_devices(int argc, char **argv)
{
    bool as_json = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0 || strcmp(argv[i], "-j") == 0)
            as_json = true;
        else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            puts("usage: occcalc devices [--json]\n\nLists the built-in device profiles "
                 "(use one with --device NAME; any YAML file works with --device PATH).");
            return EXIT_OK;
        } else
            return usage_error("devices: unexpected argument '%s'", argv[i]);
    }
    json j;
    if (as_json) {
        json_init(&j, stdout, true);
        json_begin_object(&j);
        json_kstr(&j, "schema", OCC_JSON_SCHEMA);
        json_key(&j, "devices");
        json_begin_array(&j);
    } else {
        printf("%-12s %-7s %-9s %5s %-8s %s\n", "NAME", "VENDOR", "CORE", "CORES", "CONTEXTS", "PRODUCT");
    }
    int rc = EXIT_OK;
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
        if (as_json) {
            json_begin_object(&j);
            json_kstr(&j, "name", d->name);
            json_kstr(&j, "vendor", vendor_word(d));
            json_kstr(&j, "product", d->product);
            json_kstr(&j, "architecture", d->architecture);
            json_kstr(&j, "core_name", d->core_name);
            json_ku64(&j, "cores", d->cores);
            json_ku64(&j, "thread_contexts", contexts);
            json_kbool(&j, "provisional", d->provisional);
            json_end_object(&j);
        } else {
            printf("%-12s %-7s %-9s %5u %8llu %s%s\n", d->name,
                   vendor_word(d), d->core_name, d->cores,
                   (unsigned long long)contexts, d->product, d->provisional ? " (provisional)" : "");
        }
        occ_device_free(dev);
    }
    if (as_json) {
        json_end_array(&j);
        json_end_object(&j);
        json_end(&j);
    }
    return rc;
}
