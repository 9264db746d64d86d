/* The NVIDIA kernel readers (cubin, fatbin, PTX) against recorded answers.
 *
 * tests/data/kernels/nvidia/ holds 19 kernels of our own (tests/kernels/
 * nvidia/) compiled with CUDA 13.0 for sm_80 and sm_90, ptxas's own report
 * for them (ptxas-sm*.log), and what the CUDA driver said about each file on
 * the lent H100 (driver-h100.tsv: cuFuncGetAttribute and
 * cuOccupancyMaxActiveBlocksPerMultiprocessor).  These tests check, without
 * a GPU:
 *  - the sm_90 cubin and the fatbins: registers, static shared memory, local
 *    bytes and max threads per block equal the driver's attributes;
 *  - resident blocks from occ_kernel_apply_info + occ_residency_compute on
 *    the built-in h100-sxm equal the driver's occupancy answers;
 *  - the sm_80 cubin (the H100 cannot load it: CUDA_ERROR_NO_BINARY_FOR_GPU)
 *    against ptxas's report, and the fatbins' sm_80 member against it;
 *  - PTX through ptxas when ptxas is installed (the driver's JIT is the
 *    reference); without it, through a stand-in ptxas script that checks
 *    the command line and copies a committed cubin;
 *  - bad input: cut and corrupted files, other architectures, no ptxas, a
 *    failing ptxas, fatbins without usable SASS. */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "occ/kernels.h"
#include "test_common.h"

#ifndef KERNELS_DATA_DIR
#error KERNELS_DATA_DIR must name tests/data/kernels/nvidia
#endif

static char *path_of(const char *name)
{
    static char buf[4][1024];
    static int next;
    char *p = buf[next++ % 4];
    snprintf(p, 1024, "%s/%s", KERNELS_DATA_DIR, name);
    return p;
}

static uint8_t *load(const char *name, size_t *len)
{
    FILE *f = fopen(path_of(name), "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path_of(name));
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc((size_t)n + 1);
    ck_assert(buf && fread(buf, 1, (size_t)n, f) == (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return buf;
}

/* Read a test file for a device (NULL: none); *diag on failure. */
static occ_status read_set(const char *name, const char *device, const char *ptxas,
                           occ_kernel_set **out, occ_diag *diag)
{
    occ_kernel_read_options o;
    occ_kernel_read_options_init(&o);
    occ_device *dev = device ? tc_builtin(device) : NULL;
    o.device = dev;
    o.ptxas = ptxas;
    memset(diag, 0, sizeof *diag);
    occ_status st = occ_kernels_read_file(path_of(name), &o, out, diag);
    occ_device_free(dev);
    return st;
}

static occ_kernel_set *must_read(const char *name, const char *device)
{
    occ_kernel_set *s = NULL;
    occ_diag d;
    occ_status st = read_set(name, device, NULL, &s, &d);
    ck_assert_msg(st == OCC_OK, "%s for %s: %s: %s", name, device ? device : "no device",
                  occ_status_name(st), d.message);
    return s;
}

/* ---- the driver's recorded answers ---------------------------------------- */

typedef struct attr_row {
    char file[64], kernel[128];
    int regs, shared, local, max_threads;
} attr_row;
typedef struct occ_row {
    char file[64], kernel[128];
    int block, dyn, result, blocks;
} occ_row;
typedef struct load_row {
    char file[64];
    int result;
} load_row;

static attr_row attrs[512];
static occ_row occs[8192];
static load_row loads[64];
static size_t n_attrs, n_occs, n_loads;

static void read_driver_data(void)
{
    if (n_attrs)
        return;
    FILE *f = fopen(path_of("driver-h100.tsv"), "r");
    ck_assert_msg(f != NULL, "no driver-h100.tsv");
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "attr\t", 5) == 0) {
            ck_assert(n_attrs < sizeof attrs / sizeof attrs[0]);
            attr_row *a = &attrs[n_attrs++];
            ck_assert(sscanf(line, "attr\t%63s\t%127s\t%d\t%d\t%d\t%d", a->file, a->kernel,
                             &a->regs, &a->shared, &a->local, &a->max_threads) == 6);
        } else if (strncmp(line, "occ\t", 4) == 0) {
            ck_assert(n_occs < sizeof occs / sizeof occs[0]);
            occ_row *o = &occs[n_occs++];
            ck_assert(sscanf(line, "occ\t%63s\t%127s\t%d\t%d\t%d\t%d", o->file, o->kernel,
                             &o->block, &o->dyn, &o->result, &o->blocks) == 6);
        } else if (strncmp(line, "load\t", 5) == 0) {
            ck_assert(n_loads < sizeof loads / sizeof loads[0]);
            load_row *l = &loads[n_loads++];
            ck_assert(sscanf(line, "load\t%63s\t%d", l->file, &l->result) == 2);
        }
    }
    fclose(f);
    ck_assert_uint_gt(n_attrs, 100);
    ck_assert_uint_gt(n_occs, 1000);
}

/* The largest block occ lets this kernel launch with on dev: the kernel's
 * own bound (launch bounds) and the device's limits (registers, threads). */
static int occ_max_threads(const occ_device *dev, const occ_kernel_info *ki)
{
    int best = 0;
    for (uint32_t b = 1; b <= 1024; b++) {
        if (ki->max_wg_size && b > ki->max_wg_size)
            break;
        occ_kernel k;
        occ_kernel_init(&k);
        occ_kernel_apply_info(&k, ki, 0);
        k.wg[0] = b;
        k.wg[1] = k.wg[2] = 1;
        /* the attribute ignores a required size (.reqntid 128: 1024) */
        memset(k.reqd_wg, 0, sizeof k.reqd_wg);
        if (tc_resident(dev, &k) > 0)
            best = (int)b;
    }
    return best;
}

/* Compare every kernel of `file` as occ reads it for h100-sxm with the
 * driver's attributes; returns the number of kernels compared. */
static size_t compare_attrs(const char *file, occ_kernel_set *s)
{
    occ_device *dev = tc_builtin("h100-sxm");
    size_t compared = 0;
    for (size_t i = 0; i < n_attrs; i++) {
        const attr_row *a = &attrs[i];
        if (strcmp(a->file, file) != 0)
            continue;
        const occ_kernel_info *ki = occ_kernel_set_find(s, a->kernel);
        ck_assert_msg(ki != NULL, "%s: occ does not list %s", file, a->kernel);
        ck_assert_msg(ki->known & OCC_KINFO_REGS && (int)ki->regs_per_thread == a->regs,
                      "%s %s: registers %u, driver %d", file, a->kernel, ki->regs_per_thread,
                      a->regs);
        ck_assert_msg(ki->known & OCC_KINFO_SLM && (int)ki->static_slm == a->shared,
                      "%s %s: static shared %llu, driver %d", file, a->kernel,
                      (unsigned long long)ki->static_slm, a->shared);
        ck_assert_msg(ki->known & OCC_KINFO_PRIVATE && (int)ki->private_bytes == a->local,
                      "%s %s: local %llu, driver %d", file, a->kernel,
                      (unsigned long long)ki->private_bytes, a->local);
        int mt = occ_max_threads(dev, ki);
        ck_assert_msg(mt == a->max_threads, "%s %s: max threads %d, driver %d", file, a->kernel,
                      mt, a->max_threads);
        ck_assert_str_eq(ki->target, "sm_90");
        ck_assert_uint_eq(ki->simd, 32);
        ck_assert_int_eq(ki->vendor, OCC_VENDOR_NVIDIA);
        compared++;
    }
    ck_assert_msg(compared == occ_kernel_set_count(s), "%s: occ lists %zu kernels, driver %zu",
                  file, occ_kernel_set_count(s), compared);
    occ_device_free(dev);
    return compared;
}

static const char *const sm90_files[] = {"kernels_sm90.cubin", "directives_sm90.cubin",
                                         "kernels.fatbin", "kernels_plain.fatbin",
                                         "kernels_compressed.fatbin"};

/* The compressed fatbin needs libzstd.so.1; say so when it is missing. */
static bool zstd_missing(occ_status st, const occ_diag *d)
{
    return st == OCC_ERR_UNSUPPORTED && strstr(d->message, "libzstd");
}

START_TEST(sm90_files_equal_driver_attributes)
{
    read_driver_data();
    size_t total = 0, files = 0;
    for (size_t f = 0; f < sizeof sm90_files / sizeof sm90_files[0]; f++) {
        occ_kernel_set *s = NULL;
        occ_diag d;
        occ_status st = read_set(sm90_files[f], "h100-sxm", NULL, &s, &d);
        if (zstd_missing(st, &d)) {
            printf("kernels-nvidia: %s skipped: %s\n", sm90_files[f], d.message);
            continue;
        }
        ck_assert_msg(st == OCC_OK, "%s: %s", sm90_files[f], d.message);
        total += compare_attrs(sm90_files[f], s);
        files++;
        occ_kernel_set_free(s);
    }
    ck_assert_uint_ge(files, 4);
    ck_assert_uint_ge(total, 17 * 3 + 2);
}
END_TEST

/* The ptxas the reader finds is the one the recordings were made with (CUDA
 * 13.0): another version may allocate registers differently, so the driver
 * comparisons of PTX need this one. */
static bool ptxas_is_13_0(void)
{
    FILE *p = popen("{ command -v ptxas || echo /usr/local/cuda/bin/ptxas; } | head -n 1 | "
                    "{ read x; \"$x\" --version; } 2>/dev/null",
                    "r");
    if (!p)
        return false;
    char line[256];
    bool found = false;
    while (fgets(line, sizeof line, p))
        found |= strstr(line, "V13.0.") != NULL;
    pclose(p);
    if (!found)
        printf("kernels-nvidia: no ptxas of CUDA 13.0 found: PTX through the real ptxas not "
               "tested here\n");
    return found;
}

/* Whether PTX can be read here: CUDA 13.0's ptxas installed. */
static bool have_ptxas(void)
{
    if (!ptxas_is_13_0())
        return false;
    occ_kernel_set *s = NULL;
    occ_diag d;
    occ_status st = read_set("directives.ptx", "h100-sxm", NULL, &s, &d);
    occ_kernel_set_free(s);
    if (st == OCC_ERR_UNSUPPORTED && strstr(d.message, "needs ptxas")) {
        printf("kernels-nvidia: PTX through ptxas not tested here: %s\n", d.message);
        return false;
    }
    ck_assert_msg(st == OCC_OK, "directives.ptx: %s", d.message);
    return true;
}

START_TEST(ptx_through_ptxas_equals_driver_jit)
{
    read_driver_data();
    if (!have_ptxas())
        return;
    static const char *const files[] = {"kernels_compute80.ptx", "kernels_compute90.ptx",
                                        "directives.ptx"};
    size_t total = 0;
    for (size_t f = 0; f < 3; f++) {
        occ_kernel_set *s = must_read(files[f], "h100-sxm");
        ck_assert_int_eq(occ_kernel_set_format(s), OCC_KFMT_PTX);
        ck_assert_ptr_nonnull(strstr(occ_kernel_set_note(s), "for sm_90"));
        total += compare_attrs(files[f], s);
        occ_kernel_set_free(s);
    }
    ck_assert_uint_eq(total, 17 * 2 + 2);
}
END_TEST

/* occ's resident blocks for the driver's occupancy questions. */
static size_t compare_occupancy(const char *file, occ_kernel_set *s, const occ_device *dev)
{
    size_t compared = 0;
    for (size_t i = 0; i < n_occs; i++) {
        const occ_row *q = &occs[i];
        if (strcmp(q->file, file) != 0)
            continue;
        ck_assert_int_eq(q->result, 0);
        const occ_kernel_info *ki = occ_kernel_set_find(s, q->kernel);
        ck_assert_msg(ki != NULL, "%s: no %s", file, q->kernel);
        occ_kernel k;
        occ_kernel_init(&k);
        occ_kernel_apply_info(&k, ki, (uint64_t)q->dyn);
        /* The occupancy API answers any block size, a required one and one
         * past the launch bounds too; a launch of those the driver refuses,
         * and so does occ's rule (the kernel's constraints). */
        k.wg[0] = (uint32_t)q->block;
        k.wg[1] = k.wg[2] = 1;
        occ_residency full = tc_residency(dev, &k);
        if (k.max_wg_size && (uint32_t)q->block > k.max_wg_size)
            ck_assert_int_eq(full.reason, OCC_REASON_KERNEL_MAX_WG);
        else if (k.reqd_wg[0] && (uint32_t)q->block != k.reqd_wg[0])
            ck_assert_int_eq(full.reason, OCC_REASON_REQD_WG);
        else
            ck_assert_uint_eq(full.resident_wgs, (uint32_t)q->blocks);
        k.max_wg_size = 0;
        memset(k.reqd_wg, 0, sizeof k.reqd_wg);
        uint32_t got = tc_resident(dev, &k);
        ck_assert_msg((int)got == q->blocks,
                      "%s %s block %d dynamic %d: occ %u blocks per SM, driver %d", file,
                      q->kernel, q->block, q->dyn, got, q->blocks);
        compared++;
    }
    return compared;
}

START_TEST(resident_blocks_equal_driver_occupancy)
{
    read_driver_data();
    occ_device *dev = tc_builtin("h100-sxm");
    size_t total = 0;
    static const char *const files[] = {"kernels_sm90.cubin", "directives_sm90.cubin"};
    for (size_t f = 0; f < 2; f++) {
        occ_kernel_set *s = must_read(files[f], "h100-sxm");
        total += compare_occupancy(files[f], s, dev);
        occ_kernel_set_free(s);
    }
    ck_assert_uint_eq(total, 19 * 14 * 6);
    if (have_ptxas()) {
        static const char *const ptx[] = {"kernels_compute80.ptx", "kernels_compute90.ptx",
                                          "directives.ptx"};
        size_t n = 0;
        for (size_t f = 0; f < 3; f++) {
            occ_kernel_set *s = must_read(ptx[f], "h100-sxm");
            n += compare_occupancy(ptx[f], s, dev);
            occ_kernel_set_free(s);
        }
        ck_assert_uint_eq(n, 36 * 14 * 6);
    }
    occ_device_free(dev);
}
END_TEST

/* ---- ptxas's own report ------------------------------------------------------ */

typedef struct ptxas_row {
    char name[128];
    int regs, barriers, smem, frame;
} ptxas_row;

/* Parse "nvcc -Xptxas -v" output: per function, its frame, then registers,
 * barriers and shared memory. */
static size_t read_ptxas_log(const char *file, ptxas_row *v, size_t cap)
{
    FILE *f = fopen(path_of(file), "r");
    ck_assert_msg(f != NULL, "no %s", file);
    char line[1024], current[128] = "";
    size_t n = 0;
    while (fgets(line, sizeof line, f)) {
        char *p;
        if ((p = strstr(line, "Function properties for "))) {
            sscanf(p + 24, "%127s", current);
        } else if ((p = strstr(line, "bytes stack frame")) && current[0]) {
            ck_assert(n < cap);
            memset(&v[n], 0, sizeof v[n]);
            snprintf(v[n].name, sizeof v[n].name, "%s", current);
            v[n].frame = atoi(line);
            v[n].regs = -1;
        } else if ((p = strstr(line, "Used ")) && current[0] && n < cap &&
                   strcmp(v[n].name, current) == 0) {
            sscanf(p, "Used %d registers, used %d barriers", &v[n].regs, &v[n].barriers);
            char *s = strstr(p, "bytes smem");
            if (s) {
                while (s > p && s[-1] == ' ')
                    s--;
                while (s > p && s[-1] >= '0' && s[-1] <= '9')
                    s--;
                v[n].smem = atoi(s);
            }
            n++;
            current[0] = 0;
        }
    }
    fclose(f);
    return n;
}

static void compare_with_ptxas(occ_kernel_set *s, const char *log, const char *target)
{
    ptxas_row rows[64];
    size_t n = read_ptxas_log(log, rows, 64);
    size_t compared = 0;
    for (size_t i = 0; i < n; i++) {
        const occ_kernel_info *ki = occ_kernel_set_find(s, rows[i].name);
        if (!ki) /* a device function, not a kernel */
            continue;
        ck_assert_str_eq(ki->target, target);
        ck_assert_msg((int)ki->regs_per_thread == rows[i].regs, "%s %s: registers %u, ptxas %d",
                      log, rows[i].name, ki->regs_per_thread, rows[i].regs);
        ck_assert_msg((int)ki->barriers == rows[i].barriers, "%s %s: barriers %u, ptxas %d", log,
                      rows[i].name, ki->barriers, rows[i].barriers);
        ck_assert_msg((int)ki->static_slm == rows[i].smem, "%s %s: shared %llu, ptxas %d", log,
                      rows[i].name, (unsigned long long)ki->static_slm, rows[i].smem);
        ck_assert_msg((int)ki->private_bytes == rows[i].frame, "%s %s: frame %llu, ptxas %d", log,
                      rows[i].name, (unsigned long long)ki->private_bytes, rows[i].frame);
        compared++;
    }
    ck_assert_uint_eq(compared, 17);
    ck_assert_uint_eq(occ_kernel_set_count(s), 17);
}

START_TEST(cubins_equal_ptxas_report)
{
    occ_kernel_set *s = must_read("kernels_sm80.cubin", "a100");
    compare_with_ptxas(s, "ptxas-sm80.log", "sm_80");
    occ_kernel_set_free(s);
    s = must_read("kernels_sm80.cubin", NULL);
    compare_with_ptxas(s, "ptxas-sm80.log", "sm_80");
    occ_kernel_set_free(s);
    s = must_read("kernels_sm90.cubin", "h100-sxm");
    compare_with_ptxas(s, "ptxas-sm90.log", "sm_90");
    occ_kernel_set_free(s);
    /* The fatbins' sm_80 member, chosen for an A100. */
    static const char *const fat[] = {"kernels.fatbin", "kernels_plain.fatbin",
                                      "kernels_sm80only.fatbin", "kernels_host.o"};
    for (size_t f = 0; f < 4; f++) {
        s = must_read(fat[f], "a100");
        ck_assert_int_eq(occ_kernel_set_format(s), OCC_KFMT_FATBIN);
        ck_assert_ptr_nonnull(strstr(occ_kernel_set_note(s), "took sm_80"));
        compare_with_ptxas(s, "ptxas-sm80.log", "sm_80");
        occ_kernel_set_free(s);
    }
    /* sm_89 runs sm_80 SASS (same major, newer minor): the RTX 4090 takes it. */
    s = must_read("kernels.fatbin", "rtx-4090");
    ck_assert_ptr_nonnull(strstr(occ_kernel_set_note(s), "took sm_80"));
    occ_kernel_set_free(s);
    /* No device: the newest SASS. */
    s = must_read("kernels_host.o", NULL);
    ck_assert_str_eq(occ_kernel_set_note(s), "fatbin: SASS sm_80, sm_90; PTX compute_90; took sm_90");
    compare_with_ptxas(s, "ptxas-sm90.log", "sm_90");
    occ_kernel_set_free(s);
}
END_TEST

START_TEST(directives_read)
{
    occ_kernel_set *s = must_read("directives_sm80.cubin", NULL);
    const occ_kernel_info *r = occ_kernel_set_find(s, "k_reqntid");
    const occ_kernel_info *m = occ_kernel_set_find(s, "k_maxntid_3d");
    ck_assert(r && m);
    ck_assert(r->known & OCC_KINFO_REQD_WG);
    ck_assert_uint_eq(r->reqd_wg[0], 128);
    ck_assert_uint_eq(r->reqd_wg[1], 1);
    ck_assert_uint_eq(r->reqd_wg[2], 1);
    ck_assert_uint_eq(r->max_wg_size, 0);
    ck_assert(!(m->known & OCC_KINFO_REQD_WG));
    ck_assert_uint_eq(m->max_wg_size, 16 * 4 * 2);
    /* apply_info: the required size becomes the work-group. */
    occ_kernel k;
    occ_kernel_init(&k);
    occ_kernel_apply_info(&k, r, 0);
    ck_assert_uint_eq(k.wg[0], 128);
    ck_assert_uint_eq(k.wg[1], 1);
    occ_kernel_set_free(s);
    /* Static plus dynamic shared memory, barriers. */
    s = must_read("kernels_sm90.cubin", "h100-sxm");
    const occ_kernel_info *b = occ_kernel_set_find(s, "k_static_dyn_bar");
    ck_assert_ptr_nonnull(b);
    ck_assert_uint_eq(b->barriers, 2);
    occ_kernel_init(&k);
    occ_kernel_apply_info(&k, b, 512);
    ck_assert_uint_eq(k.slm_bytes, 1024 + 512);
    ck_assert(k.barrier);
    ck_assert_uint_eq(k.regs_per_thread, 10);
    ck_assert_ptr_nonnull(occ_kernel_set_find(s, "_Z6k_tmplILi8EdEvPKT0_PS0_"));
    ck_assert_ptr_null(occ_kernel_set_find(s, "k_tmpl"));
    ck_assert_ptr_null(occ_kernel_set_find(s, "callee_with_frame"));
    ck_assert_ptr_null(occ_kernel_set_find(s, "_Z17callee_with_framePKii"));
    occ_kernel_set_free(s);
}
END_TEST

/* Compiled cluster dimensions (clusters.cu): read, and applied as the launch's. */
START_TEST(cluster_dims_read)
{
    occ_kernel_set *s = must_read("clusters_sm90.cubin", "h200");
    static const struct { const char *name; uint32_t dims[3]; } want[] = {
        {"cluster2", {2, 1, 1}}, {"cluster4x2", {4, 2, 1}}, {"cluster2x2x2", {2, 2, 2}}};
    for (size_t i = 0; i < 3; i++) {
        const occ_kernel_info *ki = occ_kernel_set_find(s, want[i].name);
        ck_assert_ptr_nonnull(ki);
        ck_assert(ki->known & OCC_KINFO_CLUSTER);
        for (int d = 0; d < 3; d++)
            ck_assert_uint_eq(ki->cluster[d], want[i].dims[d]);
    }
    const occ_kernel_info *plain = occ_kernel_set_find(s, "plain");
    ck_assert_ptr_nonnull(plain);
    ck_assert(!(plain->known & OCC_KINFO_CLUSTER));
    /* the launch bound beside them is still read */
    ck_assert_uint_eq(occ_kernel_set_find(s, "cluster2x2x2")->max_wg_size, 128);
    occ_kernel k;
    occ_kernel_init(&k);
    occ_kernel_apply_info(&k, occ_kernel_set_find(s, "cluster4x2"), 0);
    ck_assert_uint_eq(k.cluster[0], 4);
    ck_assert_uint_eq(k.cluster[1], 2);
    ck_assert_uint_eq(k.cluster[2], 1);
    occ_kernel_init(&k);
    occ_kernel_apply_info(&k, plain, 0);
    ck_assert_uint_eq(k.cluster[0] | k.cluster[1] | k.cluster[2], 0);
    occ_kernel_set_free(s);
}
END_TEST

/* ---- what the H100 could not load, occ refuses ----------------------------- */

START_TEST(other_architectures_refused)
{
    read_driver_data();
    size_t refused = 0;
    for (size_t i = 0; i < n_loads; i++) {
        if (loads[i].result == 0)
            continue;
        ck_assert_int_eq(loads[i].result, 209); /* CUDA_ERROR_NO_BINARY_FOR_GPU */
        occ_kernel_set *s = NULL;
        occ_diag d;
        occ_status st = read_set(loads[i].file, "h100-sxm", NULL, &s, &d);
        ck_assert_msg(st == OCC_ERR_UNSUPPORTED, "%s: %s", loads[i].file, occ_status_name(st));
        ck_assert_ptr_null(s);
        ck_assert_msg(strstr(d.message, "sm_80") && strstr(d.message, "sm_90"),
                      "%s: message names both architectures: %s", loads[i].file, d.message);
        refused++;
    }
    ck_assert_uint_eq(refused, 3);
    /* An sm_90 cubin on an A100; NVIDIA code on an Intel device. */
    occ_kernel_set *s = NULL;
    occ_diag d;
    ck_assert_int_eq(read_set("kernels_sm90.cubin", "a100", NULL, &s, &d), OCC_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(d.message, "compiled for sm_90, but device 'a100' is sm_80"));
    ck_assert_int_eq(read_set("kernels.fatbin", "tgl", NULL, &s, &d), OCC_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(d.message, "not an NVIDIA GPU"));
    ck_assert_int_eq(read_set("kernels_sm90.cubin", "tgl", NULL, &s, &d), OCC_ERR_UNSUPPORTED);
    ck_assert_int_eq(read_set("directives.ptx", "tgl", NULL, &s, &d), OCC_ERR_UNSUPPORTED);
    /* Only PTX: the driver JIT-compiles it; occ says what is inside. */
    ck_assert_int_eq(read_set("kernels_ptxonly.fatbin", "h100-sxm", NULL, &s, &d),
                     OCC_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(d.message, "only PTX compute_90"));
    ck_assert_int_eq(read_set("kernels_ptxonly.fatbin", NULL, NULL, &s, &d), OCC_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(d.message, "holds no SASS, only PTX compute_90"));
    ck_assert_int_eq(read_set("kernels_sm80only.fatbin", "h100-sxm", NULL, &s, &d),
                     OCC_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(d.message, "only SASS sm_80"));
}
END_TEST

/* ---- PTX without the toolkit --------------------------------------------------- */

static char tmpdir[256];

static void make_tmpdir(void)
{
    const char *base = getenv("TMPDIR");
    snprintf(tmpdir, sizeof tmpdir, "%s/occ-test-ptx-XXXXXX", base && *base ? base : "/tmp");
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void write_script(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
    chmod(path, 0755);
}

START_TEST(ptx_without_ptxas)
{
    occ_kernel_set *s = NULL;
    occ_diag d;
    ck_assert_int_eq(read_set("directives.ptx", "h100-sxm", "/nonexistent/ptxas", &s, &d),
                     OCC_ERR_UNSUPPORTED);
    ck_assert_ptr_null(s);
    ck_assert_ptr_nonnull(strstr(d.message, "PTX needs ptxas from the CUDA toolkit"));
    ck_assert_ptr_nonnull(strstr(d.message, "/nonexistent/ptxas"));
    /* No ptxas in PATH and none in /usr/local/cuda/bin: the standard message.
     * Only checkable where the toolkit is not installed. */
    if (access("/usr/local/cuda/bin/ptxas", X_OK) != 0) {
        char *old = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
        setenv("PATH", "/nonexistent", 1);
        ck_assert_int_eq(read_set("directives.ptx", "h100-sxm", NULL, &s, &d), OCC_ERR_UNSUPPORTED);
        ck_assert_str_eq(d.message, "PTX needs ptxas from the CUDA toolkit (not found in PATH or "
                                    "/usr/local/cuda/bin)");
        if (old)
            setenv("PATH", old, 1);
        free(old);
    }
}
END_TEST

/* A stand-in ptxas: records its arguments, copies a committed cubin to -o. */
START_TEST(ptx_pipeline_with_stand_in_ptxas)
{
    make_tmpdir();
    char script[512], args[512], text[2048];
    snprintf(script, sizeof script, "%s/ptxas", tmpdir);
    snprintf(args, sizeof args, "%s/args", tmpdir);
    snprintf(text, sizeof text,
             "#!/bin/sh\n"
             "echo \"$@\" > '%s'\n"
             "out=; in=\n"
             "while [ $# -gt 0 ]; do case $1 in -o) out=$2; shift;; *) in=$1;; esac; shift; done\n"
             "grep -q '.entry k_reqntid' \"$in\" || { echo 'ptxas error: input is not the PTX' >&2; exit 2; }\n"
             "cp '%s' \"$out\"\n",
             args, path_of("directives_sm90.cubin"));
    write_script(script, text);
    occ_kernel_set *s = NULL;
    occ_diag d;
    occ_status st = read_set("directives.ptx", "h100-sxm", script, &s, &d);
    ck_assert_msg(st == OCC_OK, "%s", d.message);
    ck_assert_int_eq(occ_kernel_set_format(s), OCC_KFMT_PTX);
    ck_assert_uint_eq(occ_kernel_set_count(s), 2);
    ck_assert_ptr_nonnull(strstr(occ_kernel_set_note(s), "for sm_90"));
    ck_assert_int_eq(occ_kernel_set_get(s, 0)->format, OCC_KFMT_CUBIN);
    occ_kernel_set_free(s);
    FILE *f = fopen(args, "r");
    ck_assert_ptr_nonnull(f);
    char line[1024] = "";
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
    fclose(f);
    ck_assert_msg(strncmp(line, "-arch=sm_90 -o ", 15) == 0, "ptxas arguments: %s", line);
    /* Without a device: the PTX's own .target (sm_80). */
    st = read_set("directives.ptx", NULL, script, &s, &d);
    ck_assert_msg(st == OCC_OK, "%s", d.message);
    occ_kernel_set_free(s);
    f = fopen(args, "r");
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
    fclose(f);
    ck_assert_msg(strncmp(line, "-arch=sm_80 ", 12) == 0, "ptxas arguments: %s", line);
    /* The temporary files are gone: the args file and the script are all. */
    char cmd[600];
    snprintf(cmd, sizeof cmd, "test $(ls -A '%s' | wc -l) -eq 2", tmpdir);
    ck_assert_int_eq(system(cmd), 0);
    /* ptxas rejects the PTX: bad input (OCC_ERR_PARSE) with its log. */
    write_script(script, "#!/bin/sh\necho 'ptxas info : starting' >&2\n"
                         "echo \"ptxas /tmp/x.ptx, line 7; error   : Unknown symbol 'foo'\" >&2\n"
                         "exit 255\n");
    st = read_set("directives.ptx", "h100-sxm", script, &s, &d);
    ck_assert_int_eq(st, OCC_ERR_PARSE);
    ck_assert_ptr_null(s);
    ck_assert_msg(strstr(d.message, "Unknown symbol 'foo'") && strstr(d.message, "failed (255)"),
                  "%s", d.message);
    /* ptxas succeeds but writes garbage. */
    write_script(script, "#!/bin/sh\nwhile [ $# -gt 0 ]; do [ \"$1\" = -o ] && echo junk > \"$2\"; "
                         "shift; done\n");
    st = read_set("directives.ptx", "h100-sxm", script, &s, &d);
    ck_assert_int_eq(st, OCC_ERR_PARSE);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

START_TEST(ptx_with_real_ptxas_rejects_bad_ptx)
{
    if (!have_ptxas())
        return;
    static const char bad[] = ".version 8.0\n.target sm_80\n.address_size 64\n"
                              ".visible .entry broken()\n{\n  mov.u32 %r1, 1;\n  ret;\n}\n";
    occ_kernel_read_options o;
    occ_kernel_read_options_init(&o);
    occ_kernel_set *s = NULL;
    occ_diag d;
    memset(&d, 0, sizeof d);
    ck_assert_int_eq(occ_kernels_read_memory(bad, sizeof bad - 1, "bad.ptx", &o, &s, &d),
                     OCC_ERR_PARSE);
    ck_assert_ptr_nonnull(strstr(d.message, "ptxas -arch=sm_80 failed"));
    ck_assert_ptr_nonnull(strstr(d.message, "%r1"));
}
END_TEST

/* ---- bad input -------------------------------------------------------------- */

/* A failed read: a known status, a message, no set. */
static occ_status read_bytes(const uint8_t *d, size_t n, const occ_device *dev)
{
    occ_kernel_read_options o;
    occ_kernel_read_options_init(&o);
    o.device = dev;
    o.ptxas = "/nonexistent/ptxas";
    occ_kernel_set *s = NULL;
    occ_diag diag;
    memset(&diag, 0, sizeof diag);
    occ_status st = occ_kernels_read_memory(d, n, "<test>", &o, &s, &diag);
    if (st == OCC_OK) {
        ck_assert_ptr_nonnull(s);
        for (size_t i = 0; i < occ_kernel_set_count(s); i++)
            ck_assert(occ_kernel_set_get(s, i)->name[0] != 0);
        occ_kernel_set_free(s);
    } else {
        ck_assert_ptr_null(s);
        ck_assert_msg(diag.message[0] != 0, "%s without a message", occ_status_name(st));
        ck_assert_int_eq(diag.status, st);
    }
    return st;
}

START_TEST(truncated_cubin)
{
    size_t n;
    uint8_t *full = load("kernels_sm90.cubin", &n);
    occ_device *dev = tc_builtin("h100-sxm");
    /* Every length up to the end of the section table (the last thing the
     * reader needs; program headers follow it): every cut file is refused. */
    uint64_t shoff = 0;
    for (int i = 7; i >= 0; i--)
        shoff = shoff << 8 | full[40 + i];
    size_t table_end = (size_t)shoff + (size_t)(full[60] | full[61] << 8) * 64;
    ck_assert_uint_le(table_end, n);
    for (size_t len = 0; len < n; len++) {
        uint8_t *cut = malloc(len ? len : 1);
        memcpy(cut, full, len);
        occ_status st = read_bytes(cut, len, dev);
        if (len < table_end)
            ck_assert_msg(st == OCC_ERR_PARSE, "cut at %zu: %s", len, occ_status_name(st));
        free(cut);
    }
    occ_device_free(dev);
    free(full);
}
END_TEST

START_TEST(corrupt_cubin_headers)
{
    size_t n;
    uint8_t *orig = load("kernels_sm90.cubin", &n);
    uint8_t *d = malloc(n);
    occ_device *dev = tc_builtin("h100-sxm");
    uint64_t shoff = (uint64_t)orig[40] | (uint64_t)orig[41] << 8 | (uint64_t)orig[42] << 16;
    unsigned shnum = orig[60] | orig[61] << 8;
    static const uint8_t values[] = {0x00, 0x01, 0x7f, 0x80, 0xff};
    size_t refused = 0, runs = 0;
    /* Every byte of the ELF header and of the section headers. */
    for (size_t at = 0; at < shoff + (size_t)shnum * 64; at++) {
        if (at == 64)
            at = (size_t)shoff;
        for (size_t v = 0; v < sizeof values; v++) {
            if (orig[at] == values[v])
                continue;
            memcpy(d, orig, n);
            d[at] = values[v];
            occ_status st = read_bytes(d, n, dev);
            ck_assert_msg(st == OCC_OK || st == OCC_ERR_PARSE || st == OCC_ERR_UNSUPPORTED,
                          "byte %zu = 0x%02x: %s", at, values[v], occ_status_name(st));
            refused += st != OCC_OK;
            runs++;
        }
    }
    ck_assert_uint_gt(refused, 100);
    /* Named cases. */
    memcpy(d, orig, n);
    d[4] = 1; /* 32-bit */
    ck_assert_int_eq(read_bytes(d, n, dev), OCC_ERR_PARSE);
    memcpy(d, orig, n);
    d[60] = 0xff; /* section count past the file */
    d[61] = 0x7f;
    ck_assert_int_eq(read_bytes(d, n, dev), OCC_ERR_PARSE);
    memcpy(d, orig, n);
    d[49] = 0x50; /* sm_80 in the flags */
    ck_assert_int_eq(read_bytes(d, n, dev), OCC_ERR_UNSUPPORTED);
    memcpy(d, orig, n);
    d[49] = 0x3c; /* sm_60 */
    ck_assert_int_eq(read_bytes(d, n, NULL), OCC_ERR_UNSUPPORTED);
    free(d);
    free(orig);
    occ_device_free(dev);
}
END_TEST

/* Find the file offset of a section's data by name (test helper). */
static size_t section_offset(const uint8_t *d, const char *name, size_t *size)
{
    uint64_t shoff = 0;
    for (int i = 7; i >= 0; i--)
        shoff = shoff << 8 | d[40 + i];
    unsigned shnum = d[60] | d[61] << 8, shstr = d[62] | d[63] << 8;
    const uint8_t *sh = d + shoff;
    uint64_t stroff = 0;
    for (int i = 7; i >= 0; i--)
        stroff = stroff << 8 | sh[shstr * 64 + 24 + i];
    for (unsigned s = 0; s < shnum; s++) {
        uint32_t no = sh[s * 64] | sh[s * 64 + 1] << 8 | sh[s * 64 + 2] << 16;
        if (strcmp((const char *)d + stroff + no, name) == 0) {
            uint64_t off = 0, sz = 0;
            for (int i = 7; i >= 0; i--) {
                off = off << 8 | sh[s * 64 + 24 + i];
                sz = sz << 8 | sh[s * 64 + 32 + i];
            }
            *size = (size_t)sz;
            return (size_t)off;
        }
    }
    ck_abort_msg("no section %s", name);
    return 0;
}

START_TEST(corrupt_nv_info)
{
    size_t n, size;
    uint8_t *d = load("kernels_sm90.cubin", &n);
    size_t off = section_offset(d, ".nv.info.k_smem_big", &size);
    d[off] = 9; /* an entry format that does not exist */
    occ_kernel_read_options o;
    occ_kernel_read_options_init(&o);
    occ_kernel_set *s = NULL;
    occ_diag diag;
    ck_assert_int_eq(occ_kernels_read_memory(d, n, "x.cubin", &o, &s, &diag), OCC_ERR_PARSE);
    ck_assert_str_eq(diag.message, "section .nv.info.k_smem_big: unknown entry format 9 at offset 0");
    d[off] = 4; /* SVAL claiming more than the section holds */
    d[off + 2] = 0xff;
    d[off + 3] = 0xff;
    ck_assert_int_eq(occ_kernels_read_memory(d, n, "x.cubin", &o, &s, &diag), OCC_ERR_PARSE);
    ck_assert_ptr_nonnull(strstr(diag.message, "past the section's end"));
    /* Every byte of the global .nv.info, every value. */
    free(d);
    d = load("kernels_sm90.cubin", &n);
    uint8_t *orig = malloc(n);
    memcpy(orig, d, n);
    off = section_offset(d, ".nv.info", &size);
    for (size_t at = off; at < off + size; at++)
        for (unsigned v = 0; v < 256; v += 51) {
            memcpy(d, orig, n);
            d[at] = (uint8_t)v;
            read_bytes(d, n, NULL);
        }
    free(orig);
    free(d);
}
END_TEST

START_TEST(bad_fatbins)
{
    size_t n;
    uint8_t *full = load("kernels_compressed.fatbin", &n);
    /* Every cut in the headers, and cuts at random places. */
    for (size_t len = 0; len < n; len += len < 300 ? 1 : 997) {
        occ_status st = read_bytes(full, len, NULL);
        ck_assert_msg(st == OCC_ERR_PARSE || (len < 4 && st == OCC_ERR_PARSE),
                      "cut at %zu: %s", len, occ_status_name(st));
    }
    /* Every header byte of the container and of the first member. */
    uint8_t *d = malloc(n);
    for (size_t at = 0; at < 16 + 64; at++)
        for (unsigned v = 0; v < 256; v += 17) {
            memcpy(d, full, n);
            d[at] = (uint8_t)v;
            read_bytes(d, n, NULL);
        }
    /* A corrupt compressed payload (the first member, sm_80, taken for an
     * A100): refused, not misread. */
    memcpy(d, full, n);
    for (size_t i = 16 + 64 + 40; i < 16 + 64 + 200; i++)
        d[i] ^= 0x5a;
    occ_device *a100 = tc_builtin("a100");
    occ_status st = read_bytes(d, n, a100);
    ck_assert_int_ne(st, OCC_OK);
    occ_device_free(a100);
    /* Trailing bytes that are no fatbin. */
    uint8_t *longer = malloc(n + 8);
    memcpy(longer, full, n);
    memcpy(longer + n, "garbage!", 8);
    ck_assert_int_eq(read_bytes(longer, n + 8, NULL), OCC_ERR_PARSE);
    /* Zero padding after it is fine (sections are padded). */
    memset(longer + n, 0, 8);
    if (read_bytes(longer, n + 8, NULL) != OCC_ERR_UNSUPPORTED) /* no libzstd */
        ck_assert_int_eq(read_bytes(longer, n + 8, NULL), OCC_OK);
    free(longer);
    free(d);
    free(full);
    /* A wrapper, a header claiming too much. */
    static const uint8_t wrapper[16] = {0xb1, 0x43, 0x62, 0x46, 1, 0, 0, 0};
    occ_kernel_read_options o;
    occ_kernel_read_options_init(&o);
    occ_kernel_set *s = NULL;
    occ_diag diag;
    ck_assert_int_eq(occ_kernels_read_memory(wrapper, 16, "w", &o, &s, &diag), OCC_ERR_PARSE);
    ck_assert_ptr_nonnull(strstr(diag.message, "wrapper"));
    static const uint8_t big[16] = {0x50, 0xed, 0x55, 0xba, 1, 0, 16, 0, 0xff, 0xff, 0xff, 0xff};
    ck_assert_int_eq(occ_kernels_read_memory(big, 16, "b", &o, &s, &diag), OCC_ERR_PARSE);
    ck_assert_ptr_nonnull(strstr(diag.message, "claims"));
    static const uint8_t empty[16] = {0x50, 0xed, 0x55, 0xba, 1, 0, 16, 0};
    ck_assert_int_eq(occ_kernels_read_memory(empty, 16, "e", &o, &s, &diag), OCC_ERR_PARSE);
}
END_TEST

START_TEST(not_kernel_files)
{
    occ_kernel_read_options o;
    occ_kernel_read_options_init(&o);
    occ_kernel_set *s = NULL;
    occ_diag d;
    static const char text[] = "hello, this is plain text\n";
    ck_assert_int_eq(occ_kernels_read_memory(text, sizeof text - 1, "t", &o, &s, &d), OCC_ERR_PARSE);
    ck_assert_ptr_nonnull(strstr(d.message, "text that is neither PTX"));
    /* A host ELF without device code (this test program): what it is. */
    ck_assert_int_eq(occ_kernels_read_file("/proc/self/exe", &o, &s, &d), OCC_ERR_PARSE);
    ck_assert_msg(strstr(d.message, "ELF") && strstr(d.message, "with no .nv_fatbin section"),
                  "%s", d.message);
    ck_assert_int_eq(occ_kernels_read_file(path_of("missing.cubin"), &o, &s, &d), OCC_ERR_IO);
    /* A kernel name not in the file: NULL (the CLI lists the names). */
    s = must_read("kernels_sm90.cubin", NULL);
    ck_assert_ptr_null(occ_kernel_set_find(s, "no_such_kernel"));
    ck_assert_ptr_null(occ_kernel_set_find(s, NULL));
    ck_assert_ptr_nonnull(occ_kernel_set_find(s, "k_simple"));
    occ_kernel_set_free(s);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("kernels-nvidia");
    TCase *t = tcase_create("driver");
    tcase_set_timeout(t, 300);
    tcase_add_test(t, sm90_files_equal_driver_attributes);
    tcase_add_test(t, ptx_through_ptxas_equals_driver_jit);
    tcase_add_test(t, resident_blocks_equal_driver_occupancy);
    tcase_add_test(t, cubins_equal_ptxas_report);
    tcase_add_test(t, directives_read);
    tcase_add_test(t, cluster_dims_read);
    tcase_add_test(t, other_architectures_refused);
    suite_add_tcase(s, t);
    TCase *b = tcase_create("bad-input");
    tcase_set_timeout(b, 600);
    tcase_add_test(b, ptx_without_ptxas);
    tcase_add_test(b, ptx_pipeline_with_stand_in_ptxas);
    tcase_add_test(b, ptx_with_real_ptxas_rejects_bad_ptx);
    tcase_add_test(b, truncated_cubin);
    tcase_add_test(b, corrupt_cubin_headers);
    tcase_add_test(b, corrupt_nv_info);
    tcase_add_test(b, bad_fatbins);
    tcase_add_test(b, not_kernel_files);
    suite_add_tcase(s, b);
    return s;
}

int main(void) { return tc_run(suite()); }
