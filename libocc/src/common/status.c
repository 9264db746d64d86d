/* Versions, status names and diagnostics. */
#include "common/internal.h"

#include <stdio.h>
#include <string.h>

#ifndef OCC_PACKAGE_VERSION
#define OCC_PACKAGE_VERSION "unknown"
#endif

const char *occ_version(void) { return OCC_PACKAGE_VERSION; }
unsigned occ_api_version(void) { return OCC_API_VERSION; }

static const char *const status_names[OCC_STATUS_COUNT] = {
    [OCC_OK] = "OCC_OK",
    [OCC_ERR_INVALID_ARGUMENT] = "OCC_ERR_INVALID_ARGUMENT",
    [OCC_ERR_NO_MEMORY] = "OCC_ERR_NO_MEMORY",
    [OCC_ERR_IO] = "OCC_ERR_IO",
    [OCC_ERR_PARSE] = "OCC_ERR_PARSE",
    [OCC_ERR_SCHEMA] = "OCC_ERR_SCHEMA",
    [OCC_ERR_VALUE] = "OCC_ERR_VALUE",
    [OCC_ERR_NOT_FOUND] = "OCC_ERR_NOT_FOUND",
    [OCC_ERR_UNSUPPORTED] = "OCC_ERR_UNSUPPORTED",
    [OCC_ERR_DEVICE] = "OCC_ERR_DEVICE",
    [OCC_ERR_TOO_LARGE] = "OCC_ERR_TOO_LARGE",
};

static const char *const status_texts[OCC_STATUS_COUNT] = {
    [OCC_OK] = "success",
    [OCC_ERR_INVALID_ARGUMENT] = "invalid argument",
    [OCC_ERR_NO_MEMORY] = "out of memory",
    [OCC_ERR_IO] = "cannot read or write file",
    [OCC_ERR_PARSE] = "YAML syntax error",
    [OCC_ERR_SCHEMA] = "unknown, missing or mistyped key",
    [OCC_ERR_VALUE] = "invalid or inconsistent value",
    [OCC_ERR_NOT_FOUND] = "not found",
    [OCC_ERR_UNSUPPORTED] = "not supported",
    [OCC_ERR_DEVICE] = "device or driver unavailable",
    [OCC_ERR_TOO_LARGE] = "result too large",
};

const char *occ_status_name(occ_status s)
{
    return (unsigned)s < OCC_STATUS_COUNT ? status_names[s] : "OCC_ERR_UNKNOWN";
}

const char *occ_status_text(occ_status s)
{
    return (unsigned)s < OCC_STATUS_COUNT ? status_texts[s] : "unknown status";
}

occ_status occ__diag(occ_diag *d, occ_status status, const char *file, unsigned line,
                     unsigned column, const char *key, const char *fmt, ...)
{
    if (!d)
        return status;
    d->status = status;
    if (file)
        snprintf(d->file, sizeof d->file, "%s", file);
    d->line = line;
    d->column = column;
    snprintf(d->key, sizeof d->key, "%s", key ? key : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->message, sizeof d->message, fmt, ap);
    va_end(ap);
    return status;
}

size_t occ_diag_format(const occ_diag *d, char *buf, size_t size)
{
    if (!d || !buf || size == 0)
        return 0;
    char where[320] = "";
    if (d->file[0] && d->line && d->column)
        snprintf(where, sizeof where, "%s:%u:%u: ", d->file, d->line, d->column);
    else if (d->file[0] && d->line)
        snprintf(where, sizeof where, "%s:%u: ", d->file, d->line);
    else if (d->file[0])
        snprintf(where, sizeof where, "%s: ", d->file);
    int n;
    if (d->key[0])
        n = snprintf(buf, size, "%skey '%s': %s", where, d->key, d->message);
    else
        n = snprintf(buf, size, "%s%s", where, d->message);
    return n < 0 ? 0 : (size_t)n;
}
