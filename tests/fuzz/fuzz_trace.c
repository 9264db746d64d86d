/* Fuzz target: the trace record reader and aggregation (occ/trace.h,
 * libocc/src/tracedata/; format in docs/trace.md) and occcalc's rendering
 * of them (cli/trace_report.c).
 *
 * The input is one record file, DIR/1.rec, in a temporary directory; it is
 * opened as a trace (devices chosen among the built-in profiles by its D
 * lines) and written as text, JSON and CSV, with every launch, to
 * /dev/null.  Properties checked besides "does not crash":
 *  - opening succeeds (a record file has no fatal errors, only unreadable
 *    lines, counted);
 *  - the counts agree: the configurations of the kernels tile the list of
 *    configurations, each kernel's launches are the sum of its
 *    configurations', every launch record points at a configuration or at
 *    none, and the totals equal the sums.
 * The replay driver's timeout catches time that is not linear in the input. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_fail.h"
#include "occ/trace.h"
#include "trace_report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64];

static void remove_dir(void)
{
    rmdir(dir);
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
    return b > UINT64_MAX - a ? UINT64_MAX : a + b;
}

static void check_counts(const occ_trace *t)
{
    const occ_trace_totals *s = occ_trace_totals_get(t);
    size_t next = 0;
    uint64_t launches = s->launches_of_unknown_kernels;
    for (size_t i = 0; i < occ_trace_kernel_count(t); i++) {
        const occ_trace_kernel *k = occ_trace_kernel_at(t, i);
        if (k->first_config != next)
            fuzz_fail("kernel %zu: configurations start at %zu, expected %zu", i, k->first_config, next);
        uint64_t sum = 0;
        for (size_t c = 0; c < k->n_configs; c++) {
            const occ_trace_config *x = occ_trace_config_at(t, k->first_config + c);
            if (!x || x->kernel != i)
                fuzz_fail("kernel %zu: configuration %zu is not its own", i, c);
            sum = add_sat(sum, x->launches);
        }
        if (sum != k->launches)
            fuzz_fail("kernel %zu: %llu launches, its configurations have %llu", i,
                      (unsigned long long)k->launches, (unsigned long long)sum);
        if (k->n_configs && !occ_trace_config_at(t, k->advised_config))
            fuzz_fail("kernel %zu: no configuration advised", i);
        next += k->n_configs;
        launches = add_sat(launches, k->launches);
    }
    if (next != occ_trace_config_count(t) || occ_trace_config_at(t, next))
        fuzz_fail("%zu configurations in kernels, %zu in all", next, occ_trace_config_count(t));
    if (launches != s->launches)
        fuzz_fail("totals: %llu launches, kernels have %llu", (unsigned long long)s->launches,
                  (unsigned long long)launches);
    for (size_t i = 0; i < occ_trace_launch_count(t); i++) {
        size_t c = occ_trace_launch_at(t, i)->config;
        if (c != OCC_TRACE_NONE && c >= occ_trace_config_count(t))
            fuzz_fail("launch %zu: configuration %zu of %zu", i, c, occ_trace_config_count(t));
    }
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
    occ_trace *t = NULL;
    char err[512];
    if (occ_trace_open(dir, NULL, &t, err, sizeof err) != OCC_OK)
        fuzz_fail("opening failed: %s", err);
    check_counts(t);
    FILE *null = fopen("/dev/null", "w");
    tr_program p = {.replay = dir};
    for (int fmt = TR_TEXT; null && fmt <= TR_CSV; fmt++) {
        tr_options o = {.format = (tr_format)fmt, .launches = true};
        tr_report_write(t, &o, &p, null);
    }
    if (null)
        fclose(null);
    occ_trace_close(t);
    unlink(path);
    return 0;
}
