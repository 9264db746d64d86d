#include "args.h"

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

bool parse_dims(const char *s, uint64_t max, uint64_t v[3], int *dims)
{
    char buf[128];
    if (!s || strlen(s) >= sizeof buf)
        return false;
    strcpy(buf, s);
    v[0] = v[1] = v[2] = 1;
    int n = 0;
    char *p = buf;
    for (;;) {
        char *comma = strchr(p, ',');
        if (comma)
            *comma = '\0';
        if (n == 3 || !parse_u64(p, max, &v[n]))
            return false;
        n++;
        if (!comma)
            break;
        p = comma + 1;
    }
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

void cli_kernel_init(cli_kernel *c)
{
    memset(c, 0, sizeof *c);
    occ_kernel_init(&c->k);
}

int cli_kernel_option(cli_kernel *c, int opt, const char *arg)
{
    uint64_t v, d3[3];
    switch (opt) {
    case OPT_DEVICE:
        c->device = arg;
        return 1;
    case OPT_WG:
        if (!parse_dims(arg, UINT32_MAX, d3, &c->wg_dims))
            return usage_error("--wg: '%s' is not a work-group size (X[,Y[,Z]], positive integers)",
                               arg), -1;
        if (d3[0] == 0 || d3[1] == 0 || d3[2] == 0)
            return usage_error("--wg: work-group sizes must be positive, got '%s'", arg), -1;
        for (int i = 0; i < 3; i++)
            c->k.wg[i] = (uint32_t)d3[i];
        return 1;
    case OPT_SG:
        if (!parse_u64(arg, UINT32_MAX, &v) || v == 0)
            return usage_error("--sg: '%s' is not a sub-group size (a positive integer)", arg), -1;
        c->k.sub_group = (uint32_t)v;
        c->have_sg = true;
        return 1;
    case OPT_SLM:
        if (!parse_bytes(arg, &v))
            return usage_error("--slm: '%s' is not a size in bytes (e.g. 4096, 32K)", arg), -1;
        c->k.slm_bytes = v;
        c->have_slm = true;
        return 1;
    case OPT_BARRIER:
        c->k.barrier = true;
        return 1;
    case OPT_GRF:
        if (!parse_u64(arg, UINT32_MAX, &v) || v == 0)
            return usage_error("--grf: '%s' is not a register count (e.g. 128, 256)", arg), -1;
        c->k.grf = (uint32_t)v;
        c->have_grf = true;
        return 1;
    case OPT_REGS:
        if (!parse_u64(arg, UINT32_MAX, &v) || v == 0)
            return usage_error("--regs: '%s' is not a register count per thread", arg), -1;
        c->k.regs_per_thread = (uint32_t)v;
        c->have_regs = true;
        return 1;
    case OPT_CARVEOUT:
        if (!parse_u64(arg, 100, &v))
            return usage_error("--carveout: '%s' is not a percentage from 0 to 100", arg), -1;
        c->k.carveout_pct = (int32_t)v;
        c->have_carveout = true;
        return 1;
    case OPT_GROUPS:
        if (!parse_u64(arg, UINT64_MAX, &v))
            return usage_error("--groups: '%s' is not a work-group count (a positive integer below 2^64)",
                               arg), -1;
        if (v == 0)
            return usage_error("--groups: the number of work-groups must be positive"), -1;
        c->groups = v;
        return 1;
    case OPT_GLOBAL:
        if (!parse_dims(arg, UINT64_MAX, c->global, &c->global_dims))
            return usage_error("--global: '%s' is not a global size (X[,Y[,Z]], positive integers below 2^64)",
                               arg), -1;
        if (c->global[0] == 0 || c->global[1] == 0 || c->global[2] == 0)
            return usage_error("--global: global sizes must be positive, got '%s'", arg), -1;
        return 1;
    case OPT_JSON:
        c->json = true;
        return 1;
    default:
        return 0;
    }
}

int cli_kernel_check(const cli_kernel *c, bool need_wg)
{
    if (need_wg && !c->wg_dims)
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

