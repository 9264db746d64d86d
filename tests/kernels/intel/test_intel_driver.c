/*
 * The Intel kernel readers against the real Intel driver, without a GPU.
 *
 * tests/kernels/intel/kernels.cl (12 kernels: required sub-groups 8/16/32
 * and none, static SLM and SLM arguments, barriers, private arrays and
 * spills, reqd_work_group_size, a one-liner the compiler makes SIMD32) is
 * compiled to SPIR-V with ocloc, then for each product the driver knows
 * (tgllp, dg1, rkl, skl, icllp), with the default build and with
 * -ze-opt-large-register-file:
 *
 *  1. occ_kernels_read_memory(SPIR-V, device = the matching profile) reads
 *     the kernels (the driver compiles them in the ze backend's child);
 *  2. the same module compiled through the backend's compile operation gives
 *     the native binary and the driver's zeKernelGetProperties; occ's reading
 *     of that native binary equals (1), and every field equals the driver's:
 *     maxSubgroupSize = SIMD, requiredSubgroupSize, localMemSize = static SLM,
 *     privateMemSize, spillMemSize, requiredGroupSize;
 *  3. the GRF: these products have one GRF mode (128), so both builds must
 *     read 128;
 *  4. the occupancy occ predicts for the kernel as read (occ_kernel_apply_info,
 *     occ_residency_compute on the profile) against
 *     zeKernelSuggestMaxCooperativeGroupCount at several work-group sizes:
 *     the driver's answer is compute-runtime 22.43's rule
 *     (occ__intel_driver_coop_rule) exactly, and differs from the model only by
 *     pooling threads across Xe-cores or by its barrier figure;
 *  5. the OpenCL C file read directly gives the same kernels as (1).
 * Then: SPIR-V the driver rejects (its log in the message), OpenCL C with a
 * syntax error, a non-Intel profile, no device.
 *
 * Exit 0 pass, 1 fail, 77 skip (driver or ocloc missing, unless
 * OCC_TEST_REQUIRE_ZE=1).
 */
#define _XOPEN_SOURCE 700 /* realpath, mkdtemp */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "occ/kernels.h"
#include "validate/backend_impl.h"
#include "validate/backends/ze/backend_ze.h"

static int failures;

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("FAIL: ", stdout);
    vprintf(fmt, ap);
    fputc('\n', stdout);
    va_end(ap);
    failures++;
}

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond))                                                                               \
            fail(__VA_ARGS__);                                                                     \
    } while (0)

static const struct {
    const char *product, *profile;
} products[] = {
    {"tgllp", "tgl"}, {"dg1", "dg1"}, {"rkl", "rkl"}, {"skl", "gen9"}, {"icllp", "gen11"},
};

static const char *const grf_flags[] = {"", "-ze-opt-large-register-file"};
static const uint32_t wgs[OCC__COMPILE_MAX_WG] = {32, 64, 256, 512};

static bool slurp(const char *path, uint8_t **data, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    *data = malloc(n > 0 ? (size_t)n : 1);
    bool ok = *data && n > 0 && fread(*data, 1, (size_t)n, f) == (size_t)n;
    fclose(f);
    *size = ok ? (size_t)n : 0;
    return ok;
}

static bool same_info(const occ_kernel_info *a, const occ_kernel_info *b)
{
    return strcmp(a->name, b->name) == 0 && a->simd == b->simd &&
           a->required_sub_group == b->required_sub_group && a->grf == b->grf &&
           a->static_slm == b->static_slm && a->barriers == b->barriers &&
           !memcmp(a->reqd_wg, b->reqd_wg, sizeof a->reqd_wg) &&
           a->private_bytes == b->private_bytes && a->spill_bytes == b->spill_bytes &&
           a->slm_args == b->slm_args;
}

static uint32_t default_threads(const occ_device_desc *d)
{
    for (uint32_t i = 0; i < d->n_grf_modes; i++)
        if (d->grf_modes[i].registers == d->default_grf)
            return d->grf_modes[i].threads_per_engine;
    return 0;
}

static size_t rows, agree, pooled, barrier_cap;

/* Rules 2-4 for one kernel of one product and build. */
static size_t zebin_sg_zero; /* zebin kernels with a required size the driver reports as 0 */

static void check_kernel(const char *product, const char *flags, const occ_device *dev,
                         const occ_kernel_info *ki, const occ__compiled_kernel *dk, bool zebin)
{
    const occ_device_desc *d = occ_device_describe(dev);
    const char *build = flags[0] ? "large GRF" : "default";
    CHECK(dk->max_sub_group == ki->simd, "%s %s %s: SIMD %u read, driver maxSubgroupSize %u",
          product, build, ki->name, ki->simd, dk->max_sub_group);
    /* Patch tokens: the driver reports the attribute's size, 0 without one.
     * Zebin: compute-runtime 22.43 takes only
     * execution_env.required_sub_group_size, which ocloc 22.43 does not write
     * (the attribute is in user_attributes, where occ reads it): 0. */
    if (zebin && ki->required_sub_group && dk->required_sub_group == 0)
        zebin_sg_zero++;
    else
        CHECK(dk->required_sub_group == ki->required_sub_group,
          "%s %s %s: required sub-group %u read (SIMD %u), driver %u", product, build, ki->name,
          ki->required_sub_group, ki->simd, dk->required_sub_group);
    CHECK(dk->slm == ki->static_slm, "%s %s %s: static SLM %llu read, driver localMemSize %u",
          product, build, ki->name, (unsigned long long)ki->static_slm, dk->slm);
    CHECK(dk->private_mem == ki->private_bytes * ki->simd,
          "%s %s %s: private %llu per work-item x SIMD %u read, driver privateMemSize %u", product,
          build, ki->name, (unsigned long long)ki->private_bytes, ki->simd, dk->private_mem);
    CHECK(dk->spill == ki->spill_bytes, "%s %s %s: spill %llu read, driver spillMemSize %u",
          product, build, ki->name, (unsigned long long)ki->spill_bytes, dk->spill);
    CHECK(!memcmp(dk->reqd_wg, ki->reqd_wg, sizeof ki->reqd_wg),
          "%s %s %s: required work-group %ux%ux%u read, driver %ux%ux%u", product, build,
          ki->name, ki->reqd_wg[0], ki->reqd_wg[1], ki->reqd_wg[2], dk->reqd_wg[0], dk->reqd_wg[1],
          dk->reqd_wg[2]);
    CHECK(ki->grf == d->default_grf && d->n_grf_modes == 1,
          "%s %s %s: GRF %u read; the profile has %u mode(s), default %u", product, build,
          ki->name, ki->grf, d->n_grf_modes, d->default_grf);

    for (int i = 0; i < OCC__COMPILE_MAX_WG; i++) {
        occ_kernel k;
        occ_kernel_init(&k);
        k.wg[0] = wgs[i];
        occ_kernel_apply_info(&k, ki, 0);
        occ_residency r;
        occ_residency_init(&r);
        if (occ_residency_compute(dev, &k, &r) != OCC_OK || !r.launchable) {
            /* e.g. W 512 at SIMD 8 on Gen9: over the 256-work-item maximum */
            CHECK(dk->coop[i] <= 0 || occ_kernel_wg_size(&k) > d->max_work_group_size,
                  "%s %s %s W %llu: model refuses (%s), driver says %d", product, build, ki->name,
                  (unsigned long long)occ_kernel_wg_size(&k), occ_reason_text(r.reason),
                  dk->coop[i]);
            continue;
        }
        rows++;
        uint64_t model = (uint64_t)r.resident_wgs * d->cores;
        uint32_t rule = occ__intel_driver_coop_rule(d->cores, d->engines_per_core, default_threads(d),
                                                 k.sub_group, occ_kernel_wg_size(&k), k.barrier,
                                                 k.slm_bytes, 65536);
        uint64_t threads = (uint64_t)d->cores * r.contexts_per_core;
        bool explained = false;
        if ((uint64_t)dk->coop[i] == model) {
            agree++;
            explained = true;
        } else if ((uint64_t)dk->coop[i] > model &&
                   (uint64_t)dk->coop[i] <= threads / r.contexts_per_wg) {
            pooled++;
            explained = true;
        } else if (k.barrier && (uint64_t)dk->coop[i] == (uint64_t)d->cores * 32) {
            barrier_cap++;
            explained = true;
        }
        CHECK(dk->coop[i] >= 0 && (uint32_t)dk->coop[i] == rule,
              "%s %s %s W %llu SG %u barrier %d SLM %llu: driver %d, 22.43 rule %u", product,
              build, ki->name, (unsigned long long)occ_kernel_wg_size(&k), k.sub_group, k.barrier,
              (unsigned long long)k.slm_bytes, dk->coop[i], rule);
        CHECK(explained, "%s %s %s W %llu: driver %d, model %llu: unexplained", product, build,
              ki->name, (unsigned long long)occ_kernel_wg_size(&k), dk->coop[i],
              (unsigned long long)model);
    }
}

static void run_product(const char *product, const char *profile, const uint8_t *spv,
                        size_t spv_size, const char *cl_path, const char *flags)
{
    occ_device *dev = NULL;
    occ_diag diag;
    if (occ_device_builtin(profile, &dev, &diag) != OCC_OK) {
        fail("no built-in profile %s", profile);
        return;
    }
    occ_kernel_read_options o;
    occ_kernel_read_options_init(&o);
    o.device = dev;
    o.build_options = flags;
    occ_kernel_set *set = NULL;
    if (occ_kernels_read_memory(spv, spv_size, "kernels.spv", &o, &set, &diag) != OCC_OK) {
        fail("%s: reading the SPIR-V: %s", product, diag.message);
        occ_device_free(dev);
        return;
    }
    CHECK(occ_kernel_set_format(set) == OCC_KFMT_SPIRV, "%s: format %s", product,
          occ_kernel_format_name(occ_kernel_set_format(set)));
    CHECK(occ_kernel_set_count(set) == 12, "%s: %zu kernels, expected 12", product,
          occ_kernel_set_count(set));

    /* The driver's own view of the same module. */
    const char *env[] = {"NEOReadDebugKeys", "1", "SetCommandStreamReceiver", "1",
                         "ProductFamilyOverride", product, NULL};
    occ_backend_options bo;
    occ_backend_options_init(&bo);
    bo.timeout_s = 120;
    occ_backend *b = NULL;
    occ__compile_result res;
    memset(&res, 0, sizeof res);
    if (occ__backend_open_env("ze", &bo, env, &b, &diag) != OCC_OK) {
        fail("%s: opening the ze backend: %s", product, diag.message);
    } else {
        occ__compile_request req;
        memset(&req, 0, sizeof req);
        req.il = spv;
        req.il_size = spv_size;
        snprintf(req.flags, sizeof req.flags, "%s", flags);
        memcpy(req.wg, wgs, sizeof wgs);
        if (occ__backend_compile(b, &req, &res, &diag) != OCC_OK)
            fail("%s: compiling: %s", product, diag.message);
        occ_backend_close(b);
    }
    occ_kernel_set *native = NULL;
    if (res.native_size &&
        occ_kernels_read_memory(res.native, res.native_size, "native", NULL, &native, &diag) != OCC_OK)
        fail("%s: reading the driver's native binary: %s", product, diag.message);
    CHECK(res.n_kernels == occ_kernel_set_count(set), "%s: driver lists %zu kernels, occ %zu",
          product, res.n_kernels, occ_kernel_set_count(set));
    for (size_t i = 0; i < res.n_kernels; i++) {
        const occ_kernel_info *ki = occ_kernel_set_find(set, res.kernels[i].name);
        const occ_kernel_info *kn = occ_kernel_set_find(native, res.kernels[i].name);
        if (!ki || !kn) {
            fail("%s: kernel %s not read", product, res.kernels[i].name);
            continue;
        }
        CHECK(same_info(ki, kn), "%s: %s differs between the SPIR-V read and its native binary",
              product, ki->name);
        CHECK(strcmp(ki->target, product) == 0, "%s: %s target '%s'", product, ki->name, ki->target);
        check_kernel(product, flags, dev, ki, &res.kernels[i], false);
    }
    /* What each test kernel is for, on every product. */
    const occ_kernel_info *k;
    if ((k = occ_kernel_set_find(set, "k_trivial")))
        CHECK(k->simd == 32, "%s: k_trivial SIMD %u, expected 32", product, k->simd);
    static const struct {
        const char *name;
        uint32_t sg;
    } sgs[] = {{"k_sg8", 8}, {"k_sg16", 16}, {"k_sg32", 32}, {"k_reqd_wg_sg8", 8}};
    for (size_t i = 0; i < 4; i++)
        if ((k = occ_kernel_set_find(set, sgs[i].name)))
            CHECK(k->simd == sgs[i].sg && k->required_sub_group == sgs[i].sg,
                  "%s: %s SIMD %u required %u", product, sgs[i].name, k->simd,
                  k->required_sub_group);
    if ((k = occ_kernel_set_find(set, "k_static_slm")))
        CHECK(k->static_slm == 4096 && k->barriers == 1 && k->slm_args == 0,
              "%s: k_static_slm SLM %llu barriers %u", product, (unsigned long long)k->static_slm,
              k->barriers);
    if ((k = occ_kernel_set_find(set, "k_slm_args")))
        CHECK(k->static_slm == 0 && k->slm_args == 2 && k->barriers == 1,
              "%s: k_slm_args SLM %llu args %u", product, (unsigned long long)k->static_slm,
              k->slm_args);
    if ((k = occ_kernel_set_find(set, "k_slm_both")))
        CHECK(k->static_slm == 1024 && k->slm_args == 1, "%s: k_slm_both", product);
    if ((k = occ_kernel_set_find(set, "k_barrier")))
        CHECK(k->barriers == 1 && k->static_slm == 0, "%s: k_barrier", product);
    if ((k = occ_kernel_set_find(set, "k_private")))
        CHECK(k->spill_bytes + k->private_bytes > 0, "%s: k_private uses no private memory",
              product);
    if ((k = occ_kernel_set_find(set, "k_spill")))
        CHECK(k->spill_bytes > 0, "%s: k_spill does not spill", product);
    if ((k = occ_kernel_set_find(set, "k_reqd_wg")))
        CHECK(k->reqd_wg[0] == 64 && k->reqd_wg[1] == 2 && k->reqd_wg[2] == 1, "%s: k_reqd_wg",
              product);

    /* The OpenCL C file itself: the same kernels. */
    occ_kernel_set *cl = NULL;
    if (occ_kernels_read_file(cl_path, &o, &cl, &diag) != OCC_OK) {
        fail("%s: reading %s: %s", product, cl_path, diag.message);
    } else {
        CHECK(occ_kernel_set_format(cl) == OCC_KFMT_OPENCL_C, "%s: OpenCL C format", product);
        for (size_t i = 0; i < occ_kernel_set_count(set); i++) {
            const occ_kernel_info *a = occ_kernel_set_get(set, i);
            const occ_kernel_info *c = occ_kernel_set_find(cl, a->name);
            CHECK(c && same_info(a, c), "%s: %s differs between OpenCL C and its SPIR-V", product,
                  a->name);
        }
    }
    printf("%s%s: %zu kernels, driver and occ agree on every field checked\n", product,
           flags[0] ? " (large GRF flag)" : "", res.n_kernels);
    occ_kernel_set_free(cl);
    occ_kernel_set_free(native);
    occ__compile_result_free(&res);
    occ_kernel_set_free(set);
    occ_device_free(dev);
}

/* A zebin made by ocloc for the product, loaded by the driver as a native
 * module: the zebin reader against zeKernelGetProperties. */
static void run_zebin(const char *product, const char *profile, const char *cl_path)
{
    char cmd[PATH_MAX + 256];
    snprintf(cmd, sizeof cmd,
             "ocloc compile -file '%s' -device %s --format zebin -output_no_suffix -output z "
             "-options -cl-std=CL2.0 -q >ocloc.log 2>&1",
             cl_path, product);
    uint8_t *zebin = NULL;
    size_t size = 0;
    if (system(cmd) != 0 || !slurp("z", &zebin, &size)) {
        fail("%s: ocloc --format zebin failed", product);
        return;
    }
    remove("z");
    remove("z.spv");
    occ_device *dev = NULL;
    occ_diag diag;
    occ_kernel_set *set = NULL;
    if (occ_device_builtin(profile, &dev, &diag) != OCC_OK ||
        occ_kernels_read_memory(zebin, size, "z", NULL, &set, &diag) != OCC_OK) {
        fail("%s: reading the zebin: %s", product, diag.message);
        free(zebin);
        occ_device_free(dev);
        return;
    }
    CHECK(occ_kernel_set_format(set) == OCC_KFMT_ZEBIN, "%s: not read as zebin", product);
    const char *env[] = {"NEOReadDebugKeys", "1", "SetCommandStreamReceiver", "1",
                         "ProductFamilyOverride", product, NULL};
    occ_backend_options bo;
    occ_backend_options_init(&bo);
    bo.timeout_s = 120;
    occ_backend *b = NULL;
    occ__compile_result res;
    memset(&res, 0, sizeof res);
    if (occ__backend_open_env("ze", &bo, env, &b, &diag) != OCC_OK) {
        fail("%s: opening the ze backend: %s", product, diag.message);
    } else {
        occ__compile_request req;
        memset(&req, 0, sizeof req);
        req.il = zebin;
        req.il_size = size;
        req.native = 1;
        memcpy(req.wg, wgs, sizeof wgs);
        if (occ__backend_compile(b, &req, &res, &diag) != OCC_OK)
            fail("%s: the driver did not load the zebin: %s", product, diag.message);
        occ_backend_close(b);
    }
    CHECK(res.n_kernels == occ_kernel_set_count(set), "%s zebin: driver %zu kernels, occ %zu",
          product, res.n_kernels, occ_kernel_set_count(set));
    for (size_t i = 0; i < res.n_kernels; i++) {
        const occ_kernel_info *ki = occ_kernel_set_find(set, res.kernels[i].name);
        if (!ki) {
            fail("%s zebin: kernel %s not read", product, res.kernels[i].name);
            continue;
        }
        CHECK(strcmp(ki->target, product) == 0, "%s zebin: target '%s'", product, ki->target);
        check_kernel(product, "", dev, ki, &res.kernels[i], true);
    }
    printf("%s zebin (ocloc --format zebin, loaded as a native module): %zu kernels agree\n",
           product, res.n_kernels);
    occ__compile_result_free(&res);
    occ_kernel_set_free(set);
    occ_device_free(dev);
    free(zebin);
}

static void expect_error(const char *what, const void *data, size_t size, const char *profile,
                         occ_status want, const char *needle)
{
    occ_device *dev = NULL;
    occ_diag diag;
    if (profile && occ_device_builtin(profile, &dev, &diag) != OCC_OK) {
        fail("no profile %s", profile);
        return;
    }
    occ_kernel_read_options o;
    occ_kernel_read_options_init(&o);
    o.device = dev;
    occ_kernel_set *s = NULL;
    memset(&diag, 0, sizeof diag);
    occ_status st = occ_kernels_read_memory(data, size, what, &o, &s, &diag);
    CHECK(st == want && !s && strstr(diag.message, needle),
          "%s: status %d (want %d), message '%s' (want '%s')", what, st, want, diag.message,
          needle);
    printf("%s -> %s\n", what, diag.message);
    occ_device_free(dev);
}

int main(int argc, char **argv)
{
    bool require = getenv("OCC_TEST_REQUIRE_ZE") && strcmp(getenv("OCC_TEST_REQUIRE_ZE"), "1") == 0;
    if (argc < 2) {
        fprintf(stderr, "usage: %s kernels.cl\n", argv[0]);
        return 1;
    }
    char cl_path[PATH_MAX]; /* what realpath writes at most (a fortified build checks it) */
    if (!realpath(argv[1], cl_path)) {
        fprintf(stderr, "no %s\n", argv[1]);
        return 1;
    }
    char dir[] = "/tmp/occ-intel-test-XXXXXX";
    if (!mkdtemp(dir) || chdir(dir) != 0)
        return 1;
    char cmd[PATH_MAX + 256];
    snprintf(cmd, sizeof cmd,
             "ocloc compile -file '%s' -device tgllp -spv_only -output_no_suffix -output kernels "
             "-options -cl-std=CL2.0 -q >ocloc.log 2>&1",
             cl_path);
    uint8_t *spv = NULL;
    size_t spv_size = 0;
    if (system(cmd) != 0 || !slurp("kernels.spv", &spv, &spv_size)) {
        printf("ocloc could not make SPIR-V of %s (is intel-opencl-icd installed?)\n", cl_path);
        return require ? 1 : 77;
    }
    /* Is the driver usable at all? */
    occ_backend_options bo;
    occ_backend_options_init(&bo);
    const char *env[] = {"NEOReadDebugKeys", "1", "SetCommandStreamReceiver", "1",
                         "ProductFamilyOverride", "tgllp", NULL};
    occ_backend *b = NULL;
    occ_diag diag;
    if (occ__backend_open_env("ze", &bo, env, &b, &diag) != OCC_OK) {
        printf("the Intel driver is not usable: %s\n", diag.message);
        expect_error("nodriver.spv", spv, spv_size, "tgl", OCC_ERR_UNSUPPORTED, "not usable");
        return require || failures ? 1 : 77;
    }
    occ_backend_close(b);

    for (size_t p = 0; p < sizeof products / sizeof products[0]; p++) {
        for (size_t g = 0; g < 2; g++)
            run_product(products[p].product, products[p].profile, spv, spv_size, cl_path,
                        grf_flags[g]);
        run_zebin(products[p].product, products[p].profile, cl_path);
    }
    printf("occupancy: %zu configurations: %zu agree, %zu differ by pooling, %zu by the barrier "
           "figure\n", rows, agree, pooled, barrier_cap);
    printf("zebin: %zu kernels with intel_reqd_sub_group_size that the driver reports as "
           "requiredSubgroupSize 0\n", zebin_sg_zero);
    CHECK(rows >= 600, "only %zu occupancy rows compared", rows);

    /* Bad input through the driver. */
    uint8_t *bad = malloc(spv_size);
    memcpy(bad, spv, spv_size);
    for (size_t i = 20; i + 4 <= spv_size && i < 20 + 400; i += 4) /* garble the first instructions */
        memset(bad + i, 0xff, 4);
    expect_error("garbled.spv", bad, spv_size, "tgl", OCC_ERR_DEVICE, "rejected the module");
    free(bad);
    static const char broken[] = "kernel void f(global int *a) { a[0] = undeclared; }\n";
    expect_error("broken.cl", broken, sizeof broken - 1, "tgl", OCC_ERR_DEVICE, "undeclared");
    expect_error("nvidia.spv", spv, spv_size, "h100-sxm", OCC_ERR_UNSUPPORTED, "none of them");
    expect_error("nodevice.spv", spv, spv_size, NULL, OCC_ERR_UNSUPPORTED, "name an Intel profile");
    expect_error("short.spv", spv, 12, "tgl", OCC_ERR_PARSE, "truncated");
    /* No driver: the loader told to look elsewhere (the child inherits it). */
    const char *alt = getenv("ZE_ENABLE_ALT_DRIVERS");
    setenv("ZE_ENABLE_ALT_DRIVERS", "/nonexistent", 1);
    expect_error("nodriver.spv", spv, spv_size, "tgl", OCC_ERR_UNSUPPORTED,
                 "the Intel driver (intel-opencl-icd with its Level Zero part) is not usable");
    if (alt)
        setenv("ZE_ENABLE_ALT_DRIVERS", alt, 1);
    else
        unsetenv("ZE_ENABLE_ALT_DRIVERS");
    /* ocloc missing */
    setenv("OCC_OCLOC", "/nonexistent/ocloc", 1);
    expect_error("noocloc.cl", broken, sizeof broken - 1, "tgl", OCC_ERR_UNSUPPORTED, "ocloc");
    unsetenv("OCC_OCLOC");

    /* Nothing left behind: the driver's capture files went with the child's directory. */
    remove("kernels.spv");
    remove("ocloc.log");
    if (chdir("/") != 0 || rmdir(dir) != 0)
        fail("the test directory %s is not empty: something was left behind", dir);
    free(spv);
    printf("%s\n", failures ? "FAILED" : "ok");
    return failures ? 1 : 0;
}
