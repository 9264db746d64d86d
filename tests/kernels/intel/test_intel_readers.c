/*
 * The Intel kernel readers without a driver: committed native binaries of
 * tests/kernels/intel/kernels.cl (made by the installed compiler, ocloc
 * 22.43) and corrupt copies of them.
 *
 *   kernels_tgllp.zebin, kernels_skl.zebin   ocloc --format zebin
 *   kernels_tgllp.ptok                       ocloc's default output: patch tokens
 *                                            inside the OpenCL ELF container
 *   kernels_skl_bare.ptok                    the bare patch-token program ("CTNI")
 *
 * The expected values are what the driver reports for these kernels
 * (zeKernelGetProperties, checked by the kernels-intel-driver test on every
 * product); they are written out here so this test needs no driver.
 */
#define _XOPEN_SOURCE 700
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_common.h"
#include "kernels/kernel_set.h"
#include "occ/kernels.h"

static const char *dir;

typedef struct expect {
    const char *name;
    uint32_t simd, required_sg, slm, barriers, wg[3], slm_args;
    bool spills;
} expect;

static const expect kernels[] = {
    {"k_trivial", 32, 0, 0, 0, {0, 0, 0}, 0, false},
    {"k_sg8", 8, 8, 0, 0, {0, 0, 0}, 0, false},
    {"k_sg16", 16, 16, 0, 0, {0, 0, 0}, 0, false},
    {"k_sg32", 32, 32, 0, 0, {0, 0, 0}, 0, false},
    {"k_static_slm", 32, 0, 4096, 1, {0, 0, 0}, 0, false},
    {"k_slm_args", 32, 0, 0, 1, {0, 0, 0}, 2, false},
    {"k_slm_both", 16, 16, 1024, 1, {0, 0, 0}, 1, false},
    {"k_barrier", 32, 0, 0, 1, {0, 0, 0}, 0, false},
    {"k_private", 32, 0, 0, 0, {0, 0, 0}, 0, true},
    {"k_reqd_wg", 32, 0, 0, 0, {64, 2, 1}, 0, false},
    {"k_reqd_wg_sg8", 8, 8, 512, 1, {128, 1, 1}, 0, false},
    {"k_spill", 8, 0, 0, 0, {0, 0, 0}, 0, true},
};
#define N_KERNELS (sizeof kernels / sizeof kernels[0])

static uint8_t *load(const char *file, size_t *size)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    uint8_t *d = malloc((size_t)n);
    ck_assert(d && fread(d, 1, (size_t)n, f) == (size_t)n);
    fclose(f);
    *size = (size_t)n;
    return d;
}

static occ_kernel_set *read_ok(const char *file, occ_kernel_format want)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    occ_kernel_set *s = NULL;
    occ_diag d;
    occ_status st = occ_kernels_read_file(path, NULL, &s, &d);
    ck_assert_msg(st == OCC_OK, "%s: %s", file, d.message);
    ck_assert_int_eq(occ_kernel_set_format(s), want);
    return s;
}

static void check_expected(const occ_kernel_set *s, const char *target, occ_kernel_format f)
{
    ck_assert_uint_eq(occ_kernel_set_count(s), N_KERNELS);
    for (size_t i = 0; i < N_KERNELS; i++) {
        const expect *e = &kernels[i];
        const occ_kernel_info *k = occ_kernel_set_find(s, e->name);
        ck_assert_msg(k != NULL, "no kernel %s", e->name);
        ck_assert_str_eq(k->target, target);
        ck_assert_int_eq(k->format, f);
        ck_assert_int_eq(k->vendor, OCC_VENDOR_INTEL);
        ck_assert_msg(k->simd == e->simd, "%s: SIMD %u, expected %u", e->name, k->simd, e->simd);
        ck_assert_uint_eq(k->required_sub_group, e->required_sg);
        ck_assert_uint_eq(k->grf, 128);
        ck_assert_uint_eq(k->static_slm, e->slm);
        ck_assert_uint_eq(k->barriers, e->barriers);
        ck_assert_mem_eq(k->reqd_wg, e->wg, sizeof e->wg);
        ck_assert_uint_eq(k->slm_args, e->slm_args);
        ck_assert_uint_eq(k->private_bytes, 0);
        /* both spilling kernels: 64 KB of scratch per thread (private array of
         * 512 floats x SIMD 32, and the register spill of k_spill) */
        ck_assert_uint_eq(k->spill_bytes, e->spills ? 65536 : 0);
        uint32_t all = OCC_KINFO_SIMD | OCC_KINFO_SUB_GROUP | OCC_KINFO_GRF | OCC_KINFO_SLM |
                       OCC_KINFO_BARRIERS | OCC_KINFO_REQD_WG | OCC_KINFO_PRIVATE |
                       OCC_KINFO_SPILL | OCC_KINFO_SLM_ARGS;
        ck_assert_uint_eq(k->known & all, all);
    }
}

START_TEST(zebin_tgllp)
{
    occ_kernel_set *s = read_ok("kernels_tgllp.zebin", OCC_KFMT_ZEBIN);
    check_expected(s, "tgllp", OCC_KFMT_ZEBIN);
    occ_kernel_set_free(s);
}
END_TEST

START_TEST(zebin_skl)
{
    occ_kernel_set *s = read_ok("kernels_skl.zebin", OCC_KFMT_ZEBIN);
    check_expected(s, "skl", OCC_KFMT_ZEBIN);
    occ_kernel_set_free(s);
}
END_TEST

START_TEST(patchtokens_elf)
{
    occ_kernel_set *s = read_ok("kernels_tgllp.ptok", OCC_KFMT_PATCHTOKENS);
    check_expected(s, "Gen12LP", OCC_KFMT_PATCHTOKENS);
    occ_kernel_set_free(s);
}
END_TEST

START_TEST(patchtokens_bare)
{
    occ_kernel_set *s = read_ok("kernels_skl_bare.ptok", OCC_KFMT_PATCHTOKENS);
    check_expected(s, "Gen9", OCC_KFMT_PATCHTOKENS);
    occ_kernel_set_free(s);
}
END_TEST

/* The kernel as read drives the model: sub-group, SLM, barrier, work-group. */
START_TEST(apply_to_model)
{
    occ_kernel_set *s = read_ok("kernels_tgllp.zebin", OCC_KFMT_ZEBIN);
    const occ_kernel_info *ki = occ_kernel_set_find(s, "k_reqd_wg_sg8");
    occ_kernel k;
    occ_kernel_init(&k);
    occ_kernel_apply_info(&k, ki, 1000);
    ck_assert_uint_eq(k.sub_group, 8);
    ck_assert_uint_eq(k.slm_bytes, 1512);
    ck_assert(k.barrier);
    ck_assert_uint_eq(k.wg[0], 128);
    ck_assert_uint_eq(k.grf, 128);
    /* tgl: 16 threads x 7 per XVE = 112 contexts per Xe-core; 128 / 8 = 16
     * threads per work-group -> 7 work-groups by threads (hand-computed). */
    occ_device *dev = tc_builtin("tgl");
    occ_residency r = tc_residency(dev, &k);
    ck_assert_uint_eq(r.contexts_per_wg, 16);
    ck_assert_uint_eq(r.resident_wgs, 7);
    occ_device_free(dev);
    /* no required sub-group: the compiled SIMD is the sub-group */
    ki = occ_kernel_set_find(s, "k_trivial");
    occ_kernel_init(&k);
    occ_kernel_apply_info(&k, ki, 0);
    ck_assert_uint_eq(k.sub_group, 32);
    ck_assert(!k.barrier);
    occ_kernel_set_free(s);
}
END_TEST

/* ---- bad input ------------------------------------------------------------- */

static void expect_fail(const uint8_t *d, size_t n, occ_status want, const char *needle)
{
    occ_kernel_set *s = (occ_kernel_set *)1;
    occ_diag diag;
    memset(&diag, 0, sizeof diag);
    occ_status st = occ_kernels_read_memory(d, n, "bad", NULL, &s, &diag);
    ck_assert_msg(st == want, "status %d, expected %d (%s)", st, want, diag.message);
    ck_assert_ptr_null(s);
    ck_assert_msg(strstr(diag.message, needle), "message '%s' lacks '%s'", diag.message, needle);
}

/* Every prefix of the files: an error (or, for a prefix that still holds a
 * complete program, a result), never a crash.  ASan checks the reads. */
START_TEST(truncated_everywhere)
{
    static const char *const files[] = {"kernels_tgllp.zebin", "kernels_tgllp.ptok",
                                        "kernels_skl_bare.ptok"};
    for (size_t f = 0; f < 3; f++) {
        size_t n;
        uint8_t *d = load(files[f], &n);
        size_t errors = 0;
        for (size_t len = 0; len < n; len += len < 4096 ? 1 : 97) {
            uint8_t *copy = malloc(len ? len : 1); /* exact size: ASan sees over-reads */
            memcpy(copy, d, len);
            occ_kernel_set *s = NULL;
            occ_diag diag;
            occ_status st = occ_kernels_read_memory(copy, len, "cut", NULL, &s, &diag);
            if (st != OCC_OK) {
                ck_assert_msg(diag.message[0], "%s cut at %zu: no message", files[f], len);
                errors++;
            }
            occ_kernel_set_free(s);
            free(copy);
        }
        ck_assert_uint_gt(errors, 0);
        free(d);
    }
}
END_TEST

START_TEST(truncated_messages)
{
    size_t n;
    uint8_t *d = load("kernels_skl_bare.ptok", &n);
    expect_fail(d, 20, OCC_ERR_PARSE, "truncated patch-token program header");
    expect_fail(d, 600, OCC_ERR_PARSE, "truncated patch-token binary");
    expect_fail(d, 200, OCC_ERR_PARSE, "claims 12 kernels");
    free(d);
    d = load("kernels_tgllp.zebin", &n);
    expect_fail(d, 40, OCC_ERR_PARSE, "");
    free(d);
}
END_TEST

/* Random byte flips: errors with messages or results, never a crash. */
START_TEST(corrupt_random)
{
    static const char *const files[] = {"kernels_tgllp.zebin", "kernels_tgllp.ptok",
                                        "kernels_skl_bare.ptok"};
    tc_rng r = {0x1234};
    for (size_t f = 0; f < 3; f++) {
        size_t n;
        uint8_t *d = load(files[f], &n);
        uint8_t *copy = malloc(n);
        for (int round = 0; round < 300; round++) {
            memcpy(copy, d, n);
            int flips = (int)tc_range(&r, 1, 8);
            for (int i = 0; i < flips; i++) {
                /* mostly in the headers and the metadata, where it matters */
                size_t at = tc_range(&r, 0, 1) ? tc_range(&r, 0, n < 4096 ? n - 1 : 4095)
                                               : tc_range(&r, 0, n - 1);
                copy[at] = (uint8_t)tc_next(&r);
            }
            occ_kernel_set *s = NULL;
            occ_diag diag;
            if (occ_kernels_read_memory(copy, n, "flipped", NULL, &s, &diag) != OCC_OK)
                ck_assert(diag.message[0]);
            else
                for (size_t i = 0; i < occ_kernel_set_count(s); i++) {
                    const occ_kernel_info *k = occ_kernel_set_get(s, i);
                    ck_assert(k->name && k->name[0] && k->mangled && k->mangled[0]);
                    ck_assert(k->simd == 1 || k->simd == 8 || k->simd == 16 || k->simd == 32);
                }
            occ_kernel_set_free(s);
        }
        free(copy);
        free(d);
    }
}
END_TEST

/* A zebin whose .ze_info is replaced (same length) by broken YAML. */
static void zeinfo_variant(const char *yaml, occ_status want, const char *needle)
{
    size_t n;
    uint8_t *d = load("kernels_tgllp.zebin", &n);
    uint8_t *p = NULL;
    for (size_t i = 0; i + 8 < n && !p; i++)
        if (memcmp(d + i, "---\nversion", 11) == 0)
            p = d + i;
    ck_assert(p != NULL);
    size_t len = strlen((const char *)p); /* the section text ends where the next NUL is */
    size_t y = strlen(yaml);
    ck_assert(y <= len);
    memset(p, ' ', len);
    memcpy(p, yaml, y);
    if (want != OCC_OK) {
        expect_fail(d, n, want, needle);
        free(d);
        return;
    }
    occ_kernel_set *s = NULL;
    occ_diag diag;
    ck_assert_msg(occ_kernels_read_memory(d, n, "hand", NULL, &s, &diag) == OCC_OK, "%s",
                  diag.message);
    ck_assert_uint_eq(occ_kernel_set_count(s), 1);
    const occ_kernel_info *k = occ_kernel_set_get(s, 0);
    ck_assert_str_eq(k->name, "hand");
    ck_assert_uint_eq(k->simd, 16);
    ck_assert_uint_eq(k->grf, 256);
    ck_assert_uint_eq(k->static_slm, 2048);
    ck_assert_uint_eq(k->barriers, 1);
    ck_assert_uint_eq(k->required_sub_group, 16);
    ck_assert_uint_eq(k->reqd_wg[0], 32);
    ck_assert_uint_eq(k->reqd_wg[1], 4);
    ck_assert_uint_eq(k->reqd_wg[2], 1);
    ck_assert_uint_eq(k->private_bytes, 64);  /* per work-item (is_simt_thread) */
    ck_assert_uint_eq(k->spill_bytes, 1024);  /* per thread */
    ck_assert_uint_eq(k->slm_args, 2);        /* arguments 2 and 3; 2 listed twice */
    occ_kernel_set_free(s);
    free(d);
}

START_TEST(zeinfo_bad_yaml)
{
    /* an unclosed flow sequence on the third line */
    zeinfo_variant("---\nversion: '1.20'\nkernels: [ { name: a\n", OCC_ERR_PARSE,
                   "not valid YAML: did not find expected ',' or '}' while parsing a flow "
                   "mapping (from line 3, column 12)");
    zeinfo_variant("---\nkernels:\n  - name: k\n    execution_env:\n      simd_size: twelve\n",
                   OCC_ERR_PARSE, ".ze_info line 5, column 18: simd_size: expected a non-negative integer");
    zeinfo_variant("---\nkernels:\n  - name: k\n    execution_env:\n      simd_size: 12\n",
                   OCC_ERR_PARSE, "simd_size 12 is not 1, 8, 16 or 32");
    zeinfo_variant("---\nkernels:\n  - name: k\n    execution_env:\n      grf_count: 128\n",
                   OCC_ERR_PARSE, "execution_env has no simd_size");
    zeinfo_variant("---\nkernels:\n  - execution_env:\n      simd_size: 8\n", OCC_ERR_PARSE,
                   "a kernel without a name");
    zeinfo_variant("---\nkernels: 3\n", OCC_ERR_PARSE, "kernels: expected a list");
    zeinfo_variant("---\nkernels:\n  - name: [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\n",
                   OCC_ERR_PARSE, ".ze_info line 3: nested more than 32 levels deep");
    zeinfo_variant("---\nversion: '1.20'\n", OCC_ERR_PARSE, "no kernels");
    zeinfo_variant("---\nkernels:\n  - name: k\n    execution_env:\n      simd_size: 16\n"
                   "      required_work_group_size: [1, 2]\n",
                   OCC_ERR_PARSE, "required_work_group_size: expected a list of three integers");
    zeinfo_variant("---\nkernels:\n  - name: k\n    execution_env:\n      simd_size: 16\n"
                   "    per_thread_memory_buffers:\n      - type: scratch\n",
                   OCC_ERR_PARSE, "a buffer needs type, usage and size");
}
END_TEST

/* A small hand-written .ze_info: private, spill, SLM arguments, attributes. */
START_TEST(zeinfo_fields)
{
    zeinfo_variant("---\nkernels:\n  - name: hand\n    execution_env:\n      simd_size: 16\n"
                   "      grf_count: 256\n      slm_size: 2048\n      barrier_count: 1\n"
                   "    user_attributes:\n      intel_reqd_sub_group_size: 16\n"
                   "      reqd_work_group_size: [32, 4, 1]\n"
                   "    per_thread_memory_buffers:\n"
                   "      - type: global\n        usage: private_space\n        size: 64\n"
                   "        is_simt_thread: true\n"
                   "      - type: scratch\n        usage: spill_fill_space\n        size: 1024\n"
                   "    payload_arguments:\n"
                   "      - arg_type: arg_bypointer\n        offset: 0\n        size: 8\n"
                   "        arg_index: 2\n        addrspace: local\n"
                   "      - arg_type: arg_bypointer\n        offset: 8\n        size: 8\n"
                   "        arg_index: 2\n        addrmode: slm\n        addrspace: local\n"
                   "      - arg_type: arg_bypointer\n        offset: 16\n        size: 8\n"
                   "        arg_index: 3\n        addrmode: slm\n",
                   OCC_OK, "");
}
END_TEST

START_TEST(not_a_kernel_file)
{
    static const char text[] = "hello, this is plain text\n";
    expect_fail((const uint8_t *)text, sizeof text - 1, OCC_ERR_PARSE, "text that is neither PTX");
    static const uint8_t elf_x86[64] = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0, [16] = 2, [18] = 62};
    expect_fail(elf_x86, sizeof elf_x86, OCC_ERR_PARSE, "an x86-64 ELF executable with no .nv_fatbin section");
    /* an Intel GT ELF with no sections */
    uint8_t elf_gt[64] = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0, [16] = 1, [18] = 205, [20] = 1,
                          [52] = 64, [58] = 64};
    expect_fail(elf_gt, sizeof elf_gt, OCC_ERR_PARSE, "without sections");
    /* an OpenCL ELF without sections */
    uint8_t elf_cl[64] = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0, [16] = 0x04, [17] = 0xff, [20] = 1,
                          [52] = 64, [58] = 64};
    expect_fail(elf_cl, sizeof elf_cl, OCC_ERR_PARSE, "without sections");
    /* a 32-bit zebin */
    uint8_t elf32[52] = {0x7f, 'E', 'L', 'F', 1, 1, 1, 0, [16] = 0x12, [17] = 0xff};
    expect_fail(elf32, sizeof elf32, OCC_ERR_UNSUPPORTED, "32-bit");
    /* a CTNI header claiming many kernels */
    uint8_t ctni[28] = {'C', 'T', 'N', 'I', [12] = 8, [16] = 0xff, [17] = 0xff};
    expect_fail(ctni, sizeof ctni, OCC_ERR_PARSE, "claims 65535 kernels");
    uint8_t ctni_ptr[28] = {'C', 'T', 'N', 'I', [12] = 3};
    expect_fail(ctni_ptr, sizeof ctni_ptr, OCC_ERR_PARSE, "pointer size of 3");
}
END_TEST

START_TEST(detect_formats)
{
    uint8_t h[20] = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0};
    h[16] = 0x12, h[17] = 0xff, h[18] = 29; /* legacy zebin: type EXE, product family in e_machine */
    ck_assert_int_eq(occ__kernel_detect(h, sizeof h), OCC_KFMT_ZEBIN);
    h[16] = 1, h[17] = 0, h[18] = 205;
    ck_assert_int_eq(occ__kernel_detect(h, sizeof h), OCC_KFMT_ZEBIN);
    h[16] = 0x04, h[17] = 0xff, h[18] = 0;
    ck_assert_int_eq(occ__kernel_detect(h, sizeof h), OCC_KFMT_PATCHTOKENS);
    h[16] = 0x06, h[17] = 0xff; /* outside the OpenCL ELF types */
    ck_assert_int_eq(occ__kernel_detect(h, sizeof h), OCC_KFMT_UNKNOWN);
    const uint8_t ctni[4] = {'C', 'T', 'N', 'I'};
    ck_assert_int_eq(occ__kernel_detect(ctni, 4), OCC_KFMT_PATCHTOKENS);
}
END_TEST

static Suite *intel_suite(void)
{
    Suite *s = suite_create("kernels-intel");
    TCase *t = tcase_create("read");
    tcase_add_test(t, zebin_tgllp);
    tcase_add_test(t, zebin_skl);
    tcase_add_test(t, patchtokens_elf);
    tcase_add_test(t, patchtokens_bare);
    tcase_add_test(t, apply_to_model);
    tcase_add_test(t, detect_formats);
    suite_add_tcase(s, t);
    TCase *b = tcase_create("bad");
    tcase_set_timeout(b, 120);
    tcase_add_test(b, truncated_everywhere);
    tcase_add_test(b, truncated_messages);
    tcase_add_test(b, corrupt_random);
    tcase_add_test(b, zeinfo_bad_yaml);
    tcase_add_test(b, zeinfo_fields);
    tcase_add_test(b, not_a_kernel_file);
    suite_add_tcase(s, b);
    return s;
}

int main(int argc, char **argv)
{
    dir = argc > 1 ? argv[1] : "tests/kernels/intel";
    return tc_run(intel_suite());
}
