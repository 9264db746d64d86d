#include "args.h"
#include "kernel_file.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("occcalc: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputs("\n(see occcalc --help)\n", stderr);
    va_end(ap);
    return EXIT_USAGE;
}

int option_error(const char *cmd, char **argv, const char *shortopts, const struct option *longopts)
{
    const char *arg = argv[optind - 1];
    const char *pre = cmd ? cmd : "", *sep = cmd ? ": " : "";
    if (arg && strncmp(arg, "--", 2) == 0) {
        size_t len = strcspn(arg + 2, "=");
        for (const struct option *o = longopts; o && o->name; o++)
            if (strlen(o->name) == len && strncmp(o->name, arg + 2, len) == 0) {
                if (o->has_arg == required_argument)
                    return usage_error("%s%soption '--%s' needs a value", pre, sep, o->name);
                return usage_error("%s%soption '--%s' takes no value", pre, sep, o->name);
            }
        return usage_error("%s%sunknown or ambiguous option '%.*s'", pre, sep, (int)(len + 2), arg);
    }
    const char *known = optopt ? strchr(shortopts, optopt) : NULL;
    if (known && known[1] == ':')
        return usage_error("%s%soption '-%c' needs a value", pre, sep, optopt);
    if (optopt)
        return usage_error("%s%sunknown option '-%c'", pre, sep, optopt);
    return usage_error("%s%sunknown option '%s'", pre, sep, arg ? arg : "");
}

bool parse_u64(const char *s, uint64_t max, uint64_t *out)
{
    if (!s || *s < '0' || *s > '9')
        return false;
    uint64_t v = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return false;
        unsigned d = (unsigned)(*s - '0');
        if (v > (UINT64_MAX - d) / 10)
            return false;
        v = v * 10 + d;
    }
    if (v > max)
        return false;
    *out = v;
    return true;
}

bool parse_bytes(const char *s, uint64_t *out)
{
    if (!s || !*s)
        return false;
    size_t n = strlen(s);
    uint64_t mult = 1;
    char buf[32];
    if (n >= sizeof buf)
        return false;
    memcpy(buf, s, n + 1);
    char last = buf[n - 1];
    if (last == 'K' || last == 'k')
        mult = 1024;
    else if (last == 'M' || last == 'm')
        mult = 1024 * 1024;
    else if (last == 'G' || last == 'g')
        mult = 1024ull * 1024 * 1024;
    if (mult != 1)
        buf[n - 1] = '\0';
    uint64_t v;
    if (!parse_u64(buf, UINT64_MAX / mult, &v))
        return false;
    *out = v * mult;
    return true;
}

int parse_list(const char *s, uint64_t min, uint64_t max, bool star, uint64_t *v, int max_n)
{
    char buf[128];
    if (!s || !*s || strlen(s) >= sizeof buf)
        return -1;
    strcpy(buf, s);
    int n = 0;
    for (char *p = buf;;) {
        char *comma = strchr(p, ',');
        if (comma)
            *comma = '\0';
        if (n == max_n)
            return -1;
        if (star && strcmp(p, "*") == 0)
            v[n] = 0;
        else if (!parse_u64(p, max, &v[n]) || v[n] < min)
            return -1;
        n++;
        if (!comma)
            return n;
        p = comma + 1;
    }
}

bool parse_dims(const char *s, uint64_t max, uint64_t v[3], int *dims)
{
    uint64_t got[3];
    int n = parse_list(s, 0, max, false, got, 3);
    if (n < 0)
        return false;
    for (int i = 0; i < 3; i++)
        v[i] = i < n ? got[i] : 1;
    *dims = n;
    return true;
}

bool parse_positive_double(const char *s, double *out)
{
    if (!s || !*s)
        return false;
    errno = 0;
    char *end;
    double v = strtod(s, &end);
    if (*end || errno || !isfinite(v) || !(v > 0))
        return false;
    *out = v;
    return true;
}

/* ---- the shared flags ------------------------------------------------------------------ */
/* A setter applies one value to c; on a bad value it writes why into msg (the
 * caller names the flag, or the batch line and field) and returns false. */

#define BAD(...) (snprintf(msg, size, __VA_ARGS__), false)

static bool set_device(cli_kernel *c, const char *arg, char *msg, size_t size)
{
    (void)msg, (void)size;
    c->device = arg;
    return true;
}

static bool set_wg(cli_kernel *c, const char *arg, char *msg, size_t size)
{
    uint64_t d3[3];
    if (!parse_dims(arg, UINT32_MAX, d3, &c->wg_dims))
        return BAD("'%s' is not a work-group size (X[,Y[,Z]], positive integers)", arg);
    if (d3[0] == 0 || d3[1] == 0 || d3[2] == 0)
        return BAD("work-group sizes must be positive, got '%s'", arg);
    for (int i = 0; i < 3; i++)
        c->k.wg[i] = (uint32_t)d3[i];
    return true;
}

static bool set_sg(cli_kernel *c, const char *arg, char *msg, size_t size)
{
    uint64_t v;
    if (!parse_u64(arg, UINT32_MAX, &v) || v == 0)
        return BAD("'%s' is not a sub-group size (a positive integer)", arg);
    c->k.sub_group = (uint32_t)v;
    c->have_sg = true;
    return true;
}

static bool set_slm(cli_kernel *c, const char *arg, char *msg, size_t size)
{
    if (!parse_bytes(arg, &c->k.slm_bytes))
        return BAD("'%s' is not a size in bytes (e.g. 4096, 32K)", arg);
    c->have_slm = true;
    return true;
}

/* The flag takes no value (NULL: it is given); a batch field says yes or no. */
static bool set_barrier(cli_kernel *c, const char *arg, char *msg, size_t size)
{
    bool on = true;
    if (arg && (!strcmp(arg, "false") || !strcmp(arg, "0")))
        on = false;
    else if (arg && strcmp(arg, "true") != 0 && strcmp(arg, "1") != 0)
        return BAD("'%s' is not a yes or no (true, false, 1, 0)", arg);
    c->k.barrier = on;
    c->have_barrier = true;
    return true;
}

static bool set_kernel(cli_kernel *c, const char *arg, char *msg, size_t size)
{
    if (!*arg)
        return BAD("name a kernel file (FILE or FILE:NAME)");
    c->kernel_file = arg;
    return true;
}

static bool set_grf(cli_kernel *c, const char *arg, char *msg, size_t size)
{
    uint64_t v;
    if (!parse_u64(arg, UINT32_MAX, &v) || v == 0)
        return BAD("'%s' is not a register count (e.g. 128, 256)", arg);
    c->k.grf = (uint32_t)v;
    c->have_grf = true;
    return true;
}

static bool set_regs(cli_kernel *c, const char *arg, char *msg, size_t size)
{
    uint64_t v;
    if (!parse_u64(arg, UINT32_MAX, &v) || v == 0)
        return BAD("'%s' is not a register count per thread", arg);
    c->k.regs_per_thread = (uint32_t)v;
    c->have_regs = true;
    return true;
}

static bool set_carveout(cli_kernel *c, const char *arg, char *msg, size_t size)
{
    uint64_t v;
    if (!parse_u64(arg, 100, &v))
        return BAD("'%s' is not a percentage from 0 to 100", arg);
    c->k.carveout_pct = (int32_t)v;
    c->have_carveout = true;
    return true;
}

/* The constraints of a compiled kernel, for a kernel typed in (with
 * --kernel they replace the file's). */
static bool set_max_wg(cli_kernel *c, const char *arg, char *msg, size_t size)
{
    uint64_t v;
    if (!parse_u64(arg, UINT32_MAX, &v) || v == 0)
        return BAD("'%s' is not a work-group size (a positive integer)", arg);
    c->k.max_wg_size = (uint32_t)v;
    c->have_max_wg = true;
    return true;
}

static bool set_reqd_wg(cli_kernel *c, const char *arg, char *msg, size_t size)
{
    uint64_t d3[3];
    int dims;
    if (!parse_dims(arg, UINT32_MAX, d3, &dims) || d3[0] == 0 || d3[1] == 0 || d3[2] == 0)
        return BAD("'%s' is not a work-group size (X[,Y[,Z]], positive integers)", arg);
    for (int i = 0; i < 3; i++)
        c->k.reqd_wg[i] = (uint32_t)d3[i];
    c->have_reqd_wg = true;
    return true;
}

static bool set_reqd_sg(cli_kernel *c, const char *arg, char *msg, size_t size)
{
    uint64_t v;
    if (!parse_u64(arg, UINT32_MAX, &v) || v == 0)
        return BAD("'%s' is not a sub-group size (a positive integer)", arg);
    c->k.reqd_sub_group = (uint32_t)v;
    c->have_reqd_sg = true;
    return true;
}

static bool set_cluster(cli_kernel *c, const char *arg, char *msg, size_t size)
{
    uint64_t d3[3];
    int dims;
    if (!parse_dims(arg, 1024, d3, &dims) || d3[0] == 0 || d3[1] == 0 || d3[2] == 0)
        return BAD("'%s' is not a cluster shape (X[,Y[,Z]] work-groups, positive integers)", arg);
    for (int i = 0; i < 3; i++)
        c->k.cluster[i] = (uint32_t)d3[i];
    c->have_cluster = true;
    return true;
}

static bool set_cluster_non_portable(cli_kernel *c, const char *arg, char *msg, size_t size)
{
    (void)arg, (void)msg, (void)size;
    c->k.cluster_non_portable = true;
    return true;
}

static bool set_groups(cli_kernel *c, const char *arg, char *msg, size_t size)
{
    uint64_t v;
    if (!parse_u64(arg, UINT64_MAX, &v))
        return BAD("'%s' is not a work-group count (a positive integer below 2^64)", arg);
    if (v == 0)
        return BAD("the number of work-groups must be positive");
    c->groups = v;
    return true;
}

static bool set_global(cli_kernel *c, const char *arg, char *msg, size_t size)
{
    if (!parse_dims(arg, UINT64_MAX, c->global, &c->global_dims))
        return BAD("'%s' is not a global size (X[,Y[,Z]], positive integers below 2^64)", arg);
    if (c->global[0] == 0 || c->global[1] == 0 || c->global[2] == 0)
        return BAD("global sizes must be positive, got '%s'", arg);
    return true;
}

#undef BAD

int cli_set_format(cli_kernel *c, out_format f)
{
    if (c->format != OUT_TEXT && c->format != f)
        return usage_error("--%s and --%s are exclusive", out_format_get(c->format)->flag,
                           out_format_get(f)->flag);
    c->format = f;
    return EXIT_OK;
}

typedef struct kernel_flag {
    const char *name;
    int id;              /* OPT_*: the short letter, or >= 256 for long-only */
    const char *value;   /* the value's name in --help; NULL: the flag takes none */
    unsigned commands;   /* CLI_* of the commands that take it */
    bool describes;      /* describes the kernel or launch (validate --replay refuses it) */
    bool (*apply)(cli_kernel *c, const char *arg, char *msg, size_t size);
    const char *help;    /* occcalc --help's line */
} kernel_flag;

/* THE place for a flag that describes a kernel, a device or a launch. */
static const kernel_flag kernel_flags[] = {
    {"device", OPT_DEVICE, "NAME|PATH", CLI_EVERY | CLI_KERNELS | CLI_TRACE | CLI_BATCH, false, set_device,
     "built-in profile (occcalc devices) or a YAML file; default tgl"},
    {"wg", OPT_WG, "X[,Y,Z]", CLI_EVERY | CLI_BATCH | CLI_BATCH_LINE, true, set_wg,
     "work-group size (CUDA: block size)"},
    {"sg", OPT_SG, "N", CLI_EVERY | CLI_BATCH | CLI_BATCH_LINE, true, set_sg,
     "sub-group size / SIMD width (default: the device's smallest)"},
    {"slm", OPT_SLM, "BYTES", CLI_EVERY | CLI_BATCH | CLI_BATCH_LINE, true, set_slm,
     "local memory per work-group (static + dynamic); K, M, G suffixes"},
    {"barrier", OPT_BARRIER, NULL, CLI_EVERY | CLI_BATCH | CLI_BATCH_LINE, true, set_barrier,
     "the kernel uses a work-group barrier"},
    {"grf", OPT_GRF, "N", CLI_EVERY | CLI_BATCH | CLI_BATCH_LINE, true, set_grf,
     "Intel: registers per thread; picks the smallest GRF mode >= N"},
    {"regs", OPT_REGS, "N", CLI_EVERY | CLI_BATCH | CLI_BATCH_LINE, true, set_regs,
     "NVIDIA: registers per thread (not limiting when not given)"},
    {"carveout", OPT_CARVEOUT, "PCT", CLI_EVERY | CLI_BATCH | CLI_BATCH_LINE, true, set_carveout,
     "NVIDIA: shared-memory carveout preference, 0..100 (default: max)"},
    {"max-wg", OPT_MAX_WG, "N", CLI_EVERY | CLI_BATCH | CLI_BATCH_LINE, true, set_max_wg,
     "the kernel's maximum work-group size (launch bounds); larger cannot launch"},
    {"reqd-wg", OPT_REQD_WG, "X[,Y,Z]", CLI_EVERY | CLI_BATCH | CLI_BATCH_LINE, true, set_reqd_wg,
     "the kernel's required work-group size; any other cannot launch"},
    {"reqd-sg", OPT_REQD_SG, "N", CLI_EVERY | CLI_BATCH | CLI_BATCH_LINE, true, set_reqd_sg,
     "the kernel's required sub-group size; any other cannot launch"},
    {"cluster", OPT_CLUSTER, "X[,Y,Z]", CLI_EVERY, true, set_cluster,
     "NVIDIA 9.0+: launch in thread-block clusters of X*Y*Z work-groups (docs/clusters.md)"},
    {"cluster-non-portable", OPT_CLUSTER_NON_PORTABLE, NULL, CLI_EVERY, true,
     set_cluster_non_portable, "the kernel allows non-portable cluster sizes (H200: up to 16)"},
    {"groups", OPT_GROUPS, "N", CLI_EVERY, true, set_groups, "number of work-groups to launch"},
    {"global", OPT_GLOBAL, "X[,Y,Z]", CLI_EVERY, true, set_global,
     "global size (must be a multiple of the work-group size)"},
    {"kernel", OPT_KERNEL, "FILE[:NAME]", (CLI_EVERY & ~CLI_VALIDATE) | CLI_BATCH, true, set_kernel,
     "take sub-group, GRF, registers, static SLM, barrier and constraints from a compiled kernel"},
};
#define N_KERNEL_FLAGS (sizeof kernel_flags / sizeof kernel_flags[0])
#define MAX_OPTIONS 64

/* A flag's name against a field's: the same but '_' for '-'. */
static bool field_named(const char *flag, const char *name, size_t len)
{
    size_t i = 0;
    for (; i < len && flag[i]; i++)
        if (flag[i] != name[i] && !(flag[i] == '-' && name[i] == '_'))
            return false;
    return i == len && !flag[i];
}

int cli_kernel_field_find(const char *name, size_t len)
{
    for (size_t i = 0; i < N_KERNEL_FLAGS; i++)
        if ((kernel_flags[i].commands & CLI_BATCH_LINE) && field_named(kernel_flags[i].name, name, len))
            return (int)i;
    return -1;
}

bool cli_kernel_field_apply(cli_kernel *c, int field, const char *value, char *msg, size_t size)
{
    return kernel_flags[field].apply(c, value, msg, size);
}

const char *cli_kernel_field_name(int field, char *buf, size_t size)
{
    snprintf(buf, size, "%s", kernel_flags[field].name);
    for (char *p = buf; *p; p++)
        if (*p == '-')
            *p = '_';
    return buf;
}

void cli_kernel_field_list(char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < N_KERNEL_FLAGS && len < size; i++) {
        if (!(kernel_flags[i].commands & CLI_BATCH_LINE))
            continue;
        char name[32];
        int n = snprintf(buf + len, size - len, "%s%s", len ? ", " : "",
                         cli_kernel_field_name((int)i, name, sizeof name));
        len += n > 0 ? (size_t)n : 0;
    }
}

void cli_kernel_init(cli_kernel *c)
{
    memset(c, 0, sizeof *c);
    occ_kernel_init(&c->k);
}

static const kernel_flag *find_kernel_flag(unsigned command, int id)
{
    for (size_t i = 0; i < N_KERNEL_FLAGS; i++)
        if (kernel_flags[i].id == id && (kernel_flags[i].commands & command))
            return &kernel_flags[i];
    return NULL;
}

void cli_kernel_flags_help(FILE *f, unsigned command)
{
    for (size_t i = 0; i < N_KERNEL_FLAGS; i++) {
        const kernel_flag *k = &kernel_flags[i];
        if (!(k->commands & command))
            continue;
        char head[64];
        snprintf(head, sizeof head, "%c%c%c --%s%s%s", k->id < 256 ? '-' : ' ', k->id < 256 ? k->id : ' ',
                 k->id < 256 ? ',' : ' ', k->name, k->value ? " " : "", k->value ? k->value : "");
        fprintf(f, "  %-22s  %s\n", head, k->help);
    }
    cli_format_flags_help(f);
}

void cli_format_flags_help(FILE *f)
{
    for (int i = OUT_TEXT + 1; i < OUT_COUNT; i++) {
        const out_format_info *o = out_format_get((out_format)i);
        char head[64];
        snprintf(head, sizeof head, "%c%c%c --%s", o->short_flag ? '-' : ' ', o->short_flag ? o->short_flag : ' ',
                 o->short_flag ? ',' : ' ', o->flag);
        fprintf(f, "  %-22s  %s\n", head, o->help);
    }
}

/* The output format an option id stands for (its letter, or
 * OPT_FORMAT_FIRST + the format); OUT_TEXT when none. */
static out_format format_of_option(int opt)
{
    for (int i = OUT_TEXT + 1; i < OUT_COUNT; i++) {
        const out_format_info *o = out_format_get((out_format)i);
        if (opt == (o->short_flag ? o->short_flag : OPT_FORMAT_FIRST + i))
            return (out_format)i;
    }
    return OUT_TEXT;
}

int cli_parse(const cli_command *cmd, int argc, char **argv, cli_kernel *c)
{
    /* getopt's tables: the shared flags this command takes, its own, --help */
    struct option longopts[MAX_OPTIONS + 1];
    char shortopts[2 * MAX_OPTIONS + 1];
    size_t nl = 0, ns = 0;
    if (cmd->rest)
        shortopts[ns++] = '+'; /* getopt stops at the first operand (and at "--") */
    for (size_t i = 0; i < N_KERNEL_FLAGS; i++) {
        const kernel_flag *f = &kernel_flags[i];
        if (!(f->commands & cmd->id))
            continue;
        longopts[nl++] = (struct option){f->name, f->value ? required_argument : no_argument, NULL, f->id};
        if (f->id < 256) {
            shortopts[ns++] = (char)f->id;
            if (f->value)
                shortopts[ns++] = ':';
        }
    }
    for (int i = OUT_TEXT + 1; i < OUT_COUNT; i++) {
        const out_format_info *o = out_format_get((out_format)i);
        int id = o->short_flag ? o->short_flag : OPT_FORMAT_FIRST + i; /* as format_of_option reads it */
        longopts[nl++] = (struct option){o->flag, no_argument, NULL, id};
        if (o->short_flag)
            shortopts[ns++] = (char)o->short_flag;
    }
    for (const struct option *o = cmd->options; o && o->name && nl < MAX_OPTIONS - 1; o++)
        longopts[nl++] = *o;
    longopts[nl++] = (struct option){"help", no_argument, NULL, 'h'};
    longopts[nl] = (struct option){0, 0, 0, 0};
    size_t own = cmd->short_options ? strlen(cmd->short_options) : 0;
    if (ns + own + 2 > sizeof shortopts)
        own = 0;
    memcpy(shortopts + ns, cmd->short_options ? cmd->short_options : "", own);
    ns += own;
    shortopts[ns++] = 'h';
    shortopts[ns] = '\0';

    int opt;
    optind = 1;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
        if (opt == 'h') {
            cmd->help();
            return CLI_DONE;
        }
        if (opt == '?' || opt == ':')
            return option_error(cmd->name, argv, shortopts, longopts);
        int rc = cmd->option ? cmd->option(cmd->ctx, opt, optarg) : CLI_NOT_MINE;
        out_format format = rc == CLI_NOT_MINE ? format_of_option(opt) : OUT_TEXT;
        if (format != OUT_TEXT)
            rc = cli_set_format(c, format);
        if (rc == CLI_NOT_MINE) {
            const kernel_flag *f = find_kernel_flag(cmd->id, opt);
            if (!f)
                return usage_error("unknown option '%s'", argv[optind - 1]);
            char msg[320];
            rc = f->apply(c, optarg, msg, sizeof msg) ? EXIT_OK : usage_error("--%s: %s", f->name, msg);
            c->kernel_given |= f->describes;
        }
        if (rc)
            return rc;
    }
    if (cmd->rest) {
        *cmd->rest = argv + optind;
        return EXIT_OK;
    }
    for (; cmd->operand && optind < argc; optind++) {
        int rc = cmd->operand(cmd->ctx, argv[optind]);
        if (rc)
            return rc;
    }
    if (optind < argc)
        return usage_error("%s%sunexpected argument '%s'", cmd->name ? cmd->name : "", cmd->name ? ": " : "",
                           argv[optind]);
    return EXIT_OK;
}

int cli_kernel_check(const cli_kernel *c, bool need_wg)
{
    if (need_wg && !c->wg_dims && !c->kernel_file)
        return usage_error("--wg is required (the work-group size, e.g. --wg 320 or --wg 16,16)");
    if (c->groups && c->global_dims)
        return usage_error("--groups and --global are exclusive: give the work-group count or the global size");
    if (c->global_dims && c->wg_dims && c->global_dims != c->wg_dims && c->wg_dims > 1 && c->global_dims > 1)
        return usage_error("--global has %d dimensions but --wg has %d", c->global_dims, c->wg_dims);
    return EXIT_OK;
}

int cli_open_device(const char *name, occ_device **out)
{
    occ_diag diag;
    memset(&diag, 0, sizeof diag);
    occ_status st = occ_device_open(name, out, &diag);
    if (st == OCC_OK)
        return EXIT_OK;
    char msg[1024];
    occ_diag_format(&diag, msg, sizeof msg);
    if (st == OCC_ERR_NOT_FOUND)
        return usage_error("--device: %s", msg);
    fprintf(stderr, "occcalc: %s\n", msg);
    return EXIT_INPUT;
}

/* One explicit flag against the kernel's value: the flag wins, and says so. */
static void override_note(const char *flag, uint64_t given, uint64_t kernel, const char *name)
{
    if (given != kernel)
        fprintf(stderr, "occcalc: note: %s %llu overrides kernel %s's %llu\n", flag,
                (unsigned long long)given, name, (unsigned long long)kernel);
}

/* --grf as the driver treats it: a device without GRF modes (a register
 * file: --regs) refuses it; a device with one GRF mode runs a kernel built
 * for more registers in that mode (its driver accepts the large-GRF option
 * and reports the default counts). */
const char *cli_grf_as_driver(const occ_device_desc *d, uint32_t *grf)
{
    if (!occ_device_takes(d, OCC_INPUT_GRF))
        return "has no GRF modes; give the registers per thread";
    *grf = occ_grf_as_driver(d, *grf);
    return NULL;
}

static int grf_for_device(cli_kernel *c, const occ_device *dev)
{
    const occ_device_desc *d = occ_device_describe(dev);
    if (!c->have_grf)
        return EXIT_OK;
    uint32_t asked = c->k.grf;
    if (cli_grf_as_driver(d, &c->k.grf))
        return usage_error("--grf: %s has no GRF modes; give the registers per thread with --regs", d->name);
    if (c->k.grf != asked)
        fprintf(stderr,
                "occcalc: note: %s has no large-GRF mode: its driver accepts --grf %u (the large-GRF option) "
                "and runs the kernel in the %u-register mode\n",
                d->name, asked, c->k.grf);
    return EXIT_OK;
}

int cli_open_kernel_device(cli_kernel *c, bool need_wg, occ_device **out)
{
    *out = NULL;
    int rc;
    if (!c->kernel_file) {
        (void)need_wg; /* cli_kernel_check has asked for --wg already */
        if ((rc = cli_open_device(c->device, out)) == EXIT_OK && (rc = grf_for_device(c, *out)) != EXIT_OK) {
            occ_device_free(*out);
            *out = NULL;
        }
        return rc;
    }
    occ_device *dev = NULL;
    if (c->device && (rc = cli_open_device(c->device, &dev)) != EXIT_OK)
        return rc;
    occ_kernel_set *set = NULL;
    const occ_kernel_info *ki = NULL;
    rc = kernel_file_pick(c->kernel_file, dev, &set, &ki);
    if (rc == EXIT_OK && !dev) {
        const char *name = occ_builtin_for_kernel(ki);
        /* no profile of its own: never another device's (another vendor's) */
        rc = name ? cli_open_device(name, &dev) : kernel_no_profile(ki);
        /* a fatbin is read again for the device picked from its contents */
        if (rc == EXIT_OK && occ_kernel_set_format(set) == OCC_KFMT_FATBIN) {
            occ_kernel_set_free(set);
            rc = kernel_file_pick(c->kernel_file, dev, &set, &ki);
        }
    }
    if (rc != EXIT_OK) {
        occ_kernel_set_free(set);
        occ_device_free(dev);
        return rc;
    }
    occ_kernel k = c->k; /* the explicit flags */
    occ_kernel_apply_info(&c->k, ki, c->have_slm ? k.slm_bytes : 0);
    if (c->have_sg) {
        if (!c->k.reqd_sub_group) /* a required one is not overridden: the rule refuses another */
            override_note("--sg", k.sub_group, c->k.sub_group, ki->name);
        c->k.sub_group = k.sub_group;
    }
    if (c->have_grf && ki->known & OCC_KINFO_GRF) {
        override_note("--grf", k.grf, c->k.grf, ki->name);
        c->k.grf = k.grf;
    }
    if (c->have_regs) {
        if (ki->known & OCC_KINFO_REGS)
            override_note("--regs", k.regs_per_thread, c->k.regs_per_thread, ki->name);
        c->k.regs_per_thread = k.regs_per_thread;
    }
    if (c->have_barrier)
        c->k.barrier = true;
    /* typed-in constraints replace the file's */
    if (c->have_max_wg)
        c->k.max_wg_size = k.max_wg_size;
    if (c->have_reqd_wg)
        memcpy(c->k.reqd_wg, k.reqd_wg, sizeof k.reqd_wg);
    if (c->have_reqd_sg)
        c->k.reqd_sub_group = k.reqd_sub_group;
    if (c->have_cluster) {
        if (c->k.cluster[0] && memcmp(c->k.cluster, k.cluster, sizeof k.cluster) != 0)
            fprintf(stderr, "occcalc: note: --cluster %u,%u,%u overrides kernel %s's compiled %u,%u,%u\n",
                    k.cluster[0], k.cluster[1], k.cluster[2], ki->name, c->k.cluster[0], c->k.cluster[1],
                    c->k.cluster[2]);
        memcpy(c->k.cluster, k.cluster, sizeof k.cluster);
    }
    if (c->wg_dims) {
        /* another size than a required one is the rule's to refuse, not overridden */
        for (int d = 0; d < 3; d++)
            c->k.wg[d] = k.wg[d];
    } else if (ki->known & OCC_KINFO_REQD_WG && ki->reqd_wg[0]) {
        c->wg_dims = ki->reqd_wg[2] > 1 ? 3 : ki->reqd_wg[1] > 1 ? 2 : 1;
    } else if (need_wg) {
        rc = usage_error("--wg is required: kernel %s states no required work-group size", ki->name);
    }
    occ_kernel_set_free(set);
    if (rc == EXIT_OK)
        rc = grf_for_device(c, dev);
    if (rc != EXIT_OK) {
        occ_device_free(dev);
        return rc;
    }
    *out = dev;
    return EXIT_OK;
}

int cli_work_groups(const cli_kernel *c, uint64_t *work_groups)
{
    *work_groups = c->groups;
    if (!c->global_dims)
        return EXIT_OK;
    occ_diag diag;
    memset(&diag, 0, sizeof diag);
    if (occ_work_groups_for_global(&c->k, c->global, work_groups, &diag) != OCC_OK) {
        return usage_error("--global: %s", diag.message);
    }
    return EXIT_OK;
}


bool cli_is_cluster_launch(const occ_kernel *k)
{
    return occ_kernel_cluster_size(k) != 0;
}

int cli_clusters(const occ_device *dev, const occ_kernel *k, uint64_t work_groups, occ_clusters *cl)
{
    occ_diag diag;
    memset(&diag, 0, sizeof diag);
    occ_status st = occ_cluster_compute(dev, k, cl, &diag);
    if (st == OCC_ERR_UNSUPPORTED) {
        fprintf(stderr, "occcalc: --cluster: %s\n", diag.message);
        return EXIT_INPUT;
    }
    if (st != OCC_OK)
        return usage_error("--cluster: %s", diag.message[0] ? diag.message : occ_status_text(st));
    if (work_groups % cl->size)
        return usage_error("--cluster: %llu work-groups are not a whole number of clusters of %u",
                           (unsigned long long)work_groups, cl->size);
    return EXIT_OK;
}
