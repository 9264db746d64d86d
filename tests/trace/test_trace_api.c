/*
 * occ/trace.h from C: a hand-made record directory with two processes (a
 * parent and its child) read through the public API, every number worked
 * out by hand; the API's edges (NULL arguments, indices out of range, a
 * missing path, err NULL, one file instead of a directory).
 * Prints FAIL lines; exit 0 pass, 1 fail.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "occ/trace.h"
#include "trace_check.h"

static void write_file(const char *dir, const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    CHECK(f && fputs(text, f) >= 0 && fclose(f) == 0, "cannot write %s", path);
}

static void test_two_processes(const char *dir)
{
    /* the parent launches k (64 and 128 work-items), the child k again (64,
     * three times by an N line) and u, whose K line is missing */
    write_file(dir, "10.rec",
               "occ-trace 1\nX dropped 0000000000 other 0000000000 errno 000\nP 10 1 /bin/app\n"
               "K 1 ze dev=0 sg=16 req_sg=0 slm=0 private=0 spill=0 grf=default req_wg=0,0,0 name=k\n"
               "L 1 10 ze normal wg=64,1,1 groups=4,1,1 dyn=0 rc=0\n"
               "L 1 10 ze normal wg=128,1,1 groups=4,1,1 dyn=0 rc=0\n");
    write_file(dir, "11.rec",
               "occ-trace 1\nX dropped 0000000007 other 0000000000 errno 000\nP 11 10 /bin/app\n"
               "K 5 ze dev=0 sg=16 req_sg=0 slm=0 private=0 spill=0 grf=default req_wg=0,0,0 name=k\n"
               "L 5 11 ze normal wg=64,1,1 groups=4,1,1 dyn=0 rc=0\n"
               "N 11 0 0000000002\n"
               "L 6 11 ze normal wg=32,1,1 groups=1,1,1 dyn=0 rc=0\n");
    occ_device *tgl = NULL;
    CHECK(occ_device_builtin("tgl", &tgl, NULL) == OCC_OK, "tgl");
    occ_trace *t = NULL;
    char err[256];
    occ_status st = occ_trace_open(dir, tgl, &t, err, sizeof err);
    CHECK(st == OCC_OK, "open: %s", err);
    if (st != OCC_OK) {
        occ_device_free(tgl);
        return;
    }
    const occ_trace_totals *s = occ_trace_totals_get(t);
    CHECK(s->processes == 2 && s->threads == 2 && s->kernels == 1 && s->configurations == 2,
          "totals: %zu processes, %zu threads, %zu kernels, %zu configurations", s->processes,
          s->threads, s->kernels, s->configurations);
    CHECK(s->launches == 6 && s->launches_of_unknown_kernels == 1 && s->dropped_launches == 7,
          "totals: %llu launches, %llu unknown, %llu dropped", (unsigned long long)s->launches,
          (unsigned long long)s->launches_of_unknown_kernels, (unsigned long long)s->dropped_launches);
    const occ_trace_process *child = occ_trace_process_at(t, 1);
    CHECK(child && child->pid == 11 && child->parent_traced && child->launches == 4 &&
              !occ_trace_process_at(t, 0)->parent_traced && occ_trace_process_at(t, 0)->launches == 2,
          "processes");
    CHECK(occ_trace_device_count(t) == 1 && occ_trace_device_at(t, 0)->profile == tgl &&
              occ_trace_device_at(t, 0)->traced_name == NULL,
          "the given device");
    const occ_trace_kernel *k = occ_trace_kernel_at(t, 0);
    CHECK(k && strcmp(k->name, "k") == 0 && k->launches == 5 && k->n_configs == 2 &&
              k->work_group_sizes == 2 && k->grids == 1 && k->first_config == 0,
          "kernel k");
    const occ_trace_config *c64 = occ_trace_config_at(t, 0), *c128 = occ_trace_config_at(t, 1);
    /* tgl: 16 EUs x 7 threads = 112 contexts per Xe-core; 64 / SIMD 16 = 4 -> 28, 128 -> 8 -> 14 */
    CHECK(c64 && c64->work_group[0] == 64 && c64->launches == 4 && c64->predicted &&
              c64->residency.resident_wgs == 28 && c64->residency.occupancy == 1.0,
          "configuration 64");
    CHECK(c128 && c128->work_group[0] == 128 && c128->launches == 1 &&
              c128->residency.resident_wgs == 14,
          "configuration 128");
    CHECK(k && k->advised_config == 0, "advised: the most launched");
    /* 4 work-groups of 4 contexts on 6 Xe-cores x 112: one wave, 16 / 672 busy */
    CHECK(c64 && c64->have_gpu && c64->gpu.waves == 1, "waves");
    size_t unknown = 0, at_c64 = 0;
    for (size_t i = 0; i < occ_trace_launch_count(t); i++) {
        const occ_trace_launch *l = occ_trace_launch_at(t, i);
        unknown += l->config == OCC_TRACE_NONE;
        at_c64 += l->config == 0 ? l->count : 0;
    }
    CHECK(occ_trace_launch_count(t) == 4 && unknown == 1 && at_c64 == 4, "launch records");
    /* out of range: NULL, never a read past the end */
    CHECK(!occ_trace_kernel_at(t, 1) && !occ_trace_config_at(t, 2) && !occ_trace_config_at(t, OCC_TRACE_NONE) &&
              !occ_trace_launch_at(t, 4) && !occ_trace_process_at(t, 2) && !occ_trace_device_at(t, 1),
          "an index out of range gives NULL");
    occ_trace_close(t);
    /* one file of the two */
    char path[512];
    snprintf(path, sizeof path, "%s/11.rec", dir);
    CHECK(occ_trace_open(path, NULL, &t, NULL, 0) == OCC_OK &&
              occ_trace_totals_get(t)->launches == 4 && occ_trace_device_count(t) == 0 &&
              occ_trace_kernel_at(t, 0)->device == OCC_TRACE_NONE &&
              !occ_trace_config_at(t, 0)->predicted,
          "one file, no device record: read, not predicted");
    occ_trace_close(t);
    occ_device_free(tgl);
}

/* A traced device's name as the user knows it: the driver's name with its
 * blanks back (the recorder wrote them as '_'); for the Intel driver's
 * generic name (a GPU it has no marketing name for) the product of the
 * profile its PCI id pins, else the id's product line (arch/intel.c's
 * table); an id the table lacks keeps the driver's name. */
static void test_device_names(const char *top)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s/names", top);
    CHECK(mkdir(dir, 0700) == 0, "mkdir %s", dir);
    static const char *const recs[][2] = {
        {"20.rec", "D 1 ze eus=96 threads_per_eu=7 simd=8 max_wg=512 slm=65536 id=0x9a49 "
                   "name=Intel(R)_Iris(R)_Xe_Graphics\n"},
        {"21.rec", "D 1 ze eus=96 threads_per_eu=7 simd=8 max_wg=512 slm=65536 id=0xff20 "
                   "name=Intel(R)_Graphics_[0xff20]\n"},
        {"22.rec", "D 1 ze eus=96 threads_per_eu=7 simd=8 max_wg=512 slm=65536 id=0x4905 "
                   "name=Intel(R)_Graphics_[0x4905]\n"},
        {"23.rec", "D 1 ze eus=96 threads_per_eu=7 simd=8 max_wg=512 slm=65536 id=0x1234 "
                   "name=Intel(R)_Graphics_[0x1234]\n"},
        {"24.rec", "D 1 cuda cc=9.0 sms=132 driver=13000 name=NVIDIA_H100_80GB_HBM3\n"},
    };
    for (size_t i = 0; i < sizeof recs / sizeof recs[0]; i++) {
        char text[400];
        snprintf(text, sizeof text, "occ-trace 1\nX dropped 0000000000 other 0000000000 errno 000\n"
                                    "P %.2s 1 /bin/app\n%s", recs[i][0], recs[i][1]);
        write_file(dir, recs[i][0], text);
    }
    occ_device *dg1 = NULL;
    CHECK(occ_device_builtin("dg1", &dg1, NULL) == OCC_OK, "dg1");
    const char *want[] = {
        "Intel(R) Iris(R) Xe Graphics",
        "Intel Tiger Lake (hardware-less placeholder id), PCI id 0xff20",
        dg1 ? occ_device_describe(dg1)->product : "dg1's product",
        "Intel(R) Graphics [0x1234]",
        "NVIDIA H100 80GB HBM3",
    };
    occ_trace *t = NULL;
    char err[256];
    CHECK(occ_trace_open(dir, NULL, &t, err, sizeof err) == OCC_OK, "open: %s", err);
    size_t n = occ_trace_device_count(t);
    CHECK(n == 5, "%zu devices, expected 5", n);
    for (size_t w = 0; w < sizeof want / sizeof want[0]; w++) {
        bool found = false;
        for (size_t i = 0; i < n && !found; i++) {
            const occ_trace_device *d = occ_trace_device_at(t, i);
            /* the report's device line starts with the same name */
            found = d->traced_name && strcmp(d->traced_name, want[w]) == 0 &&
                    strncmp(d->chosen, want[w], strlen(want[w])) == 0;
        }
        CHECK(found, "no device named '%s'", want[w]);
    }
    occ_trace_close(t);
    occ_device_free(dg1);
}

static void test_edges(const char *dir)
{
    occ_trace *t = (occ_trace *)1;
    char err[256], path[512];
    snprintf(path, sizeof path, "%s/missing", dir);
    CHECK(occ_trace_open(path, NULL, &t, err, sizeof err) == OCC_ERR_IO && !t &&
              strstr(err, "missing"),
          "missing path: %s", err);
    CHECK(occ_trace_open(NULL, NULL, &t, NULL, 0) == OCC_ERR_INVALID_ARGUMENT, "NULL path");
    CHECK(occ_trace_open(dir, NULL, NULL, NULL, 0) == OCC_ERR_INVALID_ARGUMENT, "NULL out");
    CHECK(!occ_trace_totals_get(NULL) && occ_trace_kernel_count(NULL) == 0 && !occ_trace_kernel_at(NULL, 0),
          "NULL trace");
    occ_trace_close(NULL);
}

int main(void)
{
    char dir[] = "/tmp/occ-trace-api-XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    test_two_processes(dir);
    test_device_names(dir);
    test_edges(dir);
    return trace_test_end(dir, "trace-api");
}
