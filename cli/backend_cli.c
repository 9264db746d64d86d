/* Live-device plumbing shared by occcalc probe and occcalc validate. */
#include "backend_cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "args.h"

void cli_backend_init(cli_backend *b)
{
    b->name = "cuda";
    b->index = 0;
    b->timeout_s = 30.0;
}

int cli_backend_option(cli_backend *b, const char *opt, const char *arg)
{
    uint64_t v;
    if (strcmp(opt, "backend") == 0) {
        b->name = arg;
        return 1;
    }
    if (strcmp(opt, "index") == 0) {
        if (!parse_u64(arg, 1024, &v))
            return usage_error("--index: '%s' is not a device index (0, 1, ...)", arg), -1;
        b->index = (unsigned)v;
        return 1;
    }
    if (strcmp(opt, "timeout") == 0) {
        if (!parse_positive_double(arg, &b->timeout_s) || b->timeout_s > 3600)
            return usage_error("--timeout: '%s' is not a number of seconds in (0, 3600]", arg), -1;
        return 1;
    }
    return 0;
}

int cli_backend_error(const occ_diag *diag, occ_status s)
{
    fprintf(stderr, "occcalc: %s\n", diag->message[0] ? diag->message : occ_status_text(s));
    switch (s) {
    case OCC_ERR_NOT_FOUND:
    case OCC_ERR_INVALID_ARGUMENT: return EXIT_USAGE;
    case OCC_ERR_DEVICE:
    case OCC_ERR_UNSUPPORTED: return EXIT_DEVICE;
    case OCC_ERR_VALUE: return EXIT_NEGATIVE;
    default: return EXIT_INTERNAL;
    }
}

int cli_backend_open(const cli_backend *b, occ_backend **out, occ_device_desc *desc,
                     occ_backend_info *info)
{
    occ_backend_options o;
    occ_backend_options_init(&o);
    o.device_index = b->index;
    o.timeout_s = b->timeout_s;
    occ_diag diag;
    memset(&diag, 0, sizeof diag);
    occ_status s = occ_backend_open(b->name, &o, out, &diag);
    if (s == OCC_OK)
        s = occ_backend_describe(*out, desc, info, &diag);
    if (s == OCC_OK)
        return EXIT_OK;
    if (*out) {
        occ_backend_close(*out);
        *out = NULL;
    }
    return cli_backend_error(&diag, s);
}
