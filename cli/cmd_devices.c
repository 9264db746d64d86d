/* occcalc devices: the built-in profiles, one line each, then the GPUs present
 * (every backend's devices, through its driver opened at run time), each with
 * the built-in profile that fits it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "commands.h"
#include "occ/backend.h"
#include "report.h"

/* How long one backend's driver may take to open or describe a device. */
#define PRESENT_TIMEOUT_S 10.0

typedef struct present {
    occ_device_desc desc;
    occ_backend_info info;
    unsigned index;
    const char *profile; /* the fitting built-in, or NULL */
} present;

static void devices_help(void)
{
    puts("usage: occcalc devices [--builtin | --present] [--json | --jsonl | --csv]\n"
         "\n"
         "Lists the built-in device profiles (use one with --device NAME; any YAML file works with\n"
         "--device PATH), then the GPUs present: each backend's devices (CUDA, Level Zero), opened\n"
         "through their drivers, each with the built-in profile that fits it (same vendor,\n"
         "architecture and core count; '-' when none does: occcalc probe writes one).\n"
         "\n"
         "  --builtin   only the built-in profiles\n"
         "  --present   only the GPUs present\n"
         "  -j, --json, --jsonl, --csv  the result (schema \"occ/1\"): \"devices\" (the table), \"present\",\n"
         "              and \"backends\" with why a backend found none\n"
         "\n"
         "Exit codes: 0 ok (also when no GPU is present, except with --present); 4 --present and no\n"
         "backend found a GPU; 2 usage; 6 stdout cannot be written.");
}

static void builtin_doc(doc *j, const occ_device_desc *d, uint64_t contexts)
{
    doc_begin_object(j);
    doc_kstr(j, "name", d->name);
    doc_kstr(j, "vendor", vendor_word(d));
    doc_kstr(j, "product", d->product);
    doc_kstr(j, "architecture", d->architecture);
    doc_kstr(j, "core_name", d->core_name);
    doc_ku64(j, "cores", d->cores);
    doc_ku64(j, "thread_contexts", contexts);
    doc_kbool(j, "provisional", d->provisional);
    doc_end_object(j);
}

static int list_builtin(doc *j)
{
    if (!j)
        printf("%-12s %-7s %-9s %5s %-8s %s\n", "NAME", "VENDOR", "CORE", "CORES", "CONTEXTS", "PRODUCT");
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
        if (j)
            builtin_doc(j, d, contexts);
        else
            printf("%-12s %-7s %-9s %5u %8llu %s%s\n", d->name, vendor_word(d), d->core_name, d->cores,
                   (unsigned long long)contexts, text_safe(d->product), d->provisional ? " (provisional)" : "");
        occ_device_free(dev);
    }
    return rc;
}

/* Device index of a backend: its description and driver facts; false (and
 * why, in msg) when the backend cannot open it. */
static bool open_one(const char *backend, unsigned index, present *p, char *msg, size_t size)
{
    occ_backend_options o;
    occ_backend_options_init(&o);
    o.device_index = index;
    o.timeout_s = PRESENT_TIMEOUT_S;
    occ_diag diag;
    memset(&diag, 0, sizeof diag);
    occ_backend *b = NULL;
    memset(p, 0, sizeof *p);
    occ_device_desc_init(&p->desc);
    p->info.struct_size = sizeof p->info;
    occ_status s = occ_backend_open(backend, &o, &b, &diag);
    if (s == OCC_OK)
        s = occ_backend_describe(b, &p->desc, &p->info, &diag);
    if (b)
        occ_backend_close(b);
    if (s != OCC_OK) {
        snprintf(msg, size, "%s", diag.message[0] ? diag.message : occ_status_text(s));
        return false;
    }
    p->index = index;
    p->profile = p->info.profile[0] ? p->info.profile : occ_builtin_fitting(&p->desc, false);
    return true;
}

static void print_present(doc *j, const present *p)
{
    const occ_device_desc *d = &p->desc;
    if (j) {
        doc_begin_object(j);
        doc_kstr(j, "backend", p->info.backend);
        doc_ku64(j, "index", p->index);
        doc_kstr(j, "device", p->info.device);
        doc_kstr(j, "architecture", p->info.architecture);
        doc_kstr(j, "core_name", d->core_name);
        doc_ku64(j, "cores", d->cores);
        doc_kstr(j, "driver", p->info.driver);
        doc_key(j, "bus_id");
        p->info.bus_id[0] ? doc_str(j, p->info.bus_id) : doc_null(j);
        doc_key(j, "profile");
        p->profile ? doc_str(j, p->profile) : doc_null(j);
        doc_end_object(j);
        return;
    }
    printf("%-8s %5u %-12s %-9s %5u %-12s %s\n", p->info.backend, p->index,
           p->info.architecture[0] ? p->info.architecture : "-", d->core_name, d->cores,
           p->profile ? p->profile : "-", p->info.device);
}

/* Every device of every backend built in; returns how many were found.  JSON:
 * the arrays "present" and "backends" (why a backend found none); text: a
 * table, or "none found" and each backend's reason on stderr. */
static size_t list_present(doc *j)
{
    if (j) {
        doc_key(j, "present");
        doc_begin_array(j);
    }
    size_t found = 0;
    char why[8][400];
    const char *names[8];
    size_t n_why = 0;
    bool head = false;
    for (size_t i = 0; i < occ_backend_count(); i++) {
        const char *name = occ_backend_name(i);
        char msg[400];
        present p;
        if (!occ_backend_available(name)) {
            snprintf(msg, sizeof msg, "not built into this occcalc");
        } else if (open_one(name, 0, &p, msg, sizeof msg)) {
            uint32_t count = p.info.device_count ? p.info.device_count : 1;
            for (uint32_t k = 0; k < count; k++) {
                if (k && !open_one(name, k, &p, msg, sizeof msg)) {
                    fprintf(stderr, "occcalc: %s device %u: %s\n", name, k, msg);
                    continue;
                }
                if (!j && !head) {
                    printf("%-8s %5s %-12s %-9s %5s %-12s %s\n", "BACKEND", "INDEX", "ARCH", "CORE",
                           "CORES", "PROFILE", "DEVICE");
                    head = true;
                }
                print_present(j, &p);
                found++;
            }
            continue;
        }
        if (n_why < 8) {
            names[n_why] = name;
            snprintf(why[n_why++], sizeof why[0], "%s", msg);
        }
    }
    if (j) {
        doc_end_array(j);
        doc_key(j, "backends");
        doc_begin_array(j);
        for (size_t i = 0; i < n_why; i++) {
            doc_begin_object(j);
            doc_kstr(j, "name", names[i]);
            doc_kstr(j, "none_because", why[i]);
            doc_end_object(j);
        }
        doc_end_array(j);
    } else if (!found) {
        printf("none found\n");
        for (size_t i = 0; i < n_why; i++)
            fprintf(stderr, "occcalc: note: %s: %s\n", names[i], why[i]);
    }
    return found;
}

enum { OPT_BUILTIN = OPT_FIRST_FREE, OPT_PRESENT };

static int devices_option(void *ctx, int id, const char *arg)
{
    (void)arg;
    bool *want = ctx; /* [0]: the built-in profiles, [1]: the GPUs present */
    if (id == OPT_BUILTIN)
        want[1] = false;
    else if (id == OPT_PRESENT)
        want[0] = false;
    else
        return CLI_NOT_MINE;
    return EXIT_OK;
}

int cmd_devices(int argc, char **argv)
{
    static const struct option own[] = {
        {"builtin", no_argument, 0, OPT_BUILTIN}, {"present", no_argument, 0, OPT_PRESENT}, {0, 0, 0, 0}};
    bool want[2] = {true, true};
    const cli_command cmd = {"devices", CLI_DEVICES, own, "", devices_option, want, devices_help, NULL, NULL};
    cli_kernel c;
    cli_kernel_init(&c);
    int parsed = cli_parse(&cmd, argc, argv, &c);
    if (parsed)
        return parsed == CLI_DONE ? EXIT_OK : parsed;
    bool builtin = want[0], present_gpus = want[1];
    if (!builtin && !present_gpus)
        return usage_error("devices: --builtin and --present together list nothing; give one or neither");
    doc j, *jp = c.format != OUT_TEXT ? &j : NULL;
    if (jp) {
        doc_init(jp);
        doc_begin_object(jp);
        doc_kstr(jp, "schema", OCC_JSON_SCHEMA);
    }
    int rc = EXIT_OK;
    if (builtin) {
        if (jp)
            doc_begin_table(jp, "devices");
        rc = list_builtin(jp);
        if (jp)
            doc_end_array(jp);
    }
    if (present_gpus) {
        if (!jp)
            printf("%sGPUs present:\n", builtin ? "\n" : "");
        size_t found = list_present(jp);
        if (!found && !builtin && rc == EXIT_OK)
            rc = EXIT_DEVICE;
    }
    if (jp) {
        doc_end_object(jp);
        int r = render(jp, c.format);
        doc_free(jp);
        if (r)
            rc = r;
    }
    return rc;
}
