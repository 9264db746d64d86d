/* Fuzz target: the trace record reader and the report built on it
 * (cli/trace_data.c, cli/trace_report.c; format in docs/trace.md).
 *
 * The input is one record file, DIR/1.rec, in a fresh temporary directory;
 * it is read back, aggregated and predicted with the devices its D lines
 * describe, and written as text, JSON and CSV to /dev/null.  Property
 * checked besides "does not crash": reading succeeds (a record file has no
 * fatal errors, only unreadable lines).  The replay driver's timeout catches
 * time that is not linear in the input. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_fail.h"
#include "trace_data.h"
#include "trace_report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64];

static void remove_dir(void)
{
    rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/occ-fuzz-trace-XXXXXX");
        if (!mkdtemp(dir))
            fuzz_fail("cannot make a temporary directory");
        atexit(remove_dir);
    }
    char path[128];
    snprintf(path, sizeof path, "%s/1.rec", dir);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
        fuzz_fail("cannot write the record file");
    tr_data d;
    char err[512];
    int e = tr_read_dir(dir, &d, err, sizeof err);
    if (e)
        fuzz_fail("reading failed: %s", err);
    tr_options o = {.format = TR_TEXT};
    tr_report *r = NULL;
    if (tr_report_build(&d, &o, &r) == 0) {
        FILE *null = fopen("/dev/null", "w");
        tr_program p = {.replay = dir};
        for (int fmt = TR_TEXT; null && fmt <= TR_CSV; fmt++) {
            o.format = (tr_format)fmt;
            tr_report_free(r);
            r = NULL;
            if (tr_report_build(&d, &o, &r) != 0)
                fuzz_fail("a second build failed");
            tr_report_write(r, &p, null);
        }
        if (null)
            fclose(null);
    }
    tr_report_free(r);
    tr_free(&d);
    unlink(path);
    return 0;
}
