/*
 * The Level Zero backend against the real Intel driver, without an Intel GPU.
 *
 * The driver (intel-opencl-icd's libze_intel_gpu.so.1) runs in hardware-less
 * mode: NEOReadDebugKeys=1 SetCommandStreamReceiver=1 ProductFamilyOverride=P.
 * It then answers every query and builds modules with the real Intel
 * compiler, but nothing executes (commands go to an AUB capture file in the
 * working directory, so this runs in a temporary directory it removes).
 *
 * For each of tgllp, dg1, rkl, skl, icllp:
 *  - the probed profile agrees with the shipped one on every field the driver
 *    reports (and the Xe-core count derived from it);
 *  - every probe-kernel variant (sub-group x barrier x SLM x GRF request)
 *    builds and its compiled properties are read back;
 *  - the model against zeKernelSuggestMaxCooperativeGroupCount over many
 *    configurations: the table is written (argv[1], or stdout with -v) and
 *    every row is checked for the driver's rule (docs/sources.md, Intel facts:
 *    zeKernelSuggestMaxCooperativeGroupCount);
 *  - a launch reports that the kernel did not execute (no record written).
 * Then the error paths: no driver, the Intel driver without a GPU, a loader
 * crash, a driver abort, a hang ended by the watchdog.
 *
 * Exit 0 pass, 1 fail, 77 skip (backend not built, or driver not installed
 * unless OCC_TEST_REQUIRE_ZE=1).
 *
 * --record-coop FILE [VERSION]: records instead of testing.  The driver's
 * zeKernelSuggestMaxCooperativeGroupCount for every product above, both GRF
 * modes and a kernel set of its own, as the CSV that
 * python/tests/test_cooperative_driver.py replays (tests/data/ze/cooperative/;
 * VERSION: the intel-opencl-icd package's, for the header).  Not run by meson.
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "validate/backends/ze/backend_ze.h" /* occ__intel_driver_coop_rule (via arch/arch.h): the rule under test */
#include "occ/backend.h"

static int failures;
static bool verbose;
/* OCC_ZE_KERNELS_BUILT=0 (set by meson when clang or llvm-spirv-14 is
 * missing): the kernel steps must fail with "not found" instead. */
static bool kernels_built = true;

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
    const char *product, *shipped;
} products[] = {
    {"tgllp", "tgl"}, {"dg1", "dg1"}, {"rkl", "rkl"}, {"skl", "gen9"}, {"icllp", "gen11"},
};

/* The caller's ZE_ENABLE_ALT_DRIVERS (e.g. /nonexistent, to see the skip). */
static const char *alt_drivers;

static void hardware_less(const char *product)
{
    if (alt_drivers)
        setenv("ZE_ENABLE_ALT_DRIVERS", alt_drivers, 1);
    else
        unsetenv("ZE_ENABLE_ALT_DRIVERS");
    unsetenv("OCC_ZE_FAULT");
    if (!product) {
        unsetenv("NEOReadDebugKeys");
        unsetenv("SetCommandStreamReceiver");
        unsetenv("ProductFamilyOverride");
        return;
    }
    setenv("NEOReadDebugKeys", "1", 1);
    setenv("SetCommandStreamReceiver", "1", 1);
    setenv("ProductFamilyOverride", product, 1);
}

static occ_status open_ze(double timeout_s, occ_backend **b, occ_diag *d)
{
    occ_backend_options o;
    occ_backend_options_init(&o);
    o.timeout_s = timeout_s;
    memset(d, 0, sizeof *d);
    *b = NULL;
    return occ_backend_open("ze", &o, b, d);
}

static uint32_t default_threads(const occ_device_desc *d)
{
    for (uint32_t i = 0; i < d->n_grf_modes; i++)
        if (d->grf_modes[i].registers == d->default_grf)
            return d->grf_modes[i].threads_per_engine;
    return 0;
}

/* Every field the driver reports (or that is derived from it only). */
static void compare_with_shipped(const char *product, const occ_device_desc *p, const char *name)
{
    occ_device *dev = NULL;
    if (occ_device_builtin(name, &dev, NULL) != OCC_OK) {
        fail("%s: no built-in profile %s", product, name);
        return;
    }
    const occ_device_desc *s = occ_device_describe(dev);
    CHECK(p->cores == s->cores, "%s: core.count %u, %s has %u", product, p->cores, name, s->cores);
    CHECK(p->engines_per_core == s->engines_per_core, "%s: core.vector_engines %u, %s has %u",
          product, p->engines_per_core, name, s->engines_per_core);
    CHECK(p->simd_width == s->simd_width, "%s: core.simd_width %u, %s has %u", product,
          p->simd_width, name, s->simd_width);
    CHECK(p->n_sub_group_sizes == s->n_sub_group_sizes &&
              !memcmp(p->sub_group_sizes, s->sub_group_sizes,
                      s->n_sub_group_sizes * sizeof s->sub_group_sizes[0]),
          "%s: core.sub_group_sizes differ from %s", product, name);
    CHECK(default_threads(p) == default_threads(s), "%s: threads per EU %u, %s has %u", product,
          default_threads(p), name, default_threads(s));
    CHECK(p->max_work_group_size == s->max_work_group_size,
          "%s: core.max_work_group_size %u, %s has %u", product, p->max_work_group_size, name,
          s->max_work_group_size);
    CHECK(p->slm_max_per_work_group == s->slm_max_per_work_group,
          "%s: local_memory.max_per_work_group %llu, %s has %llu", product,
          (unsigned long long)p->slm_max_per_work_group, name,
          (unsigned long long)s->slm_max_per_work_group);
    printf("%s: probed profile agrees with %s: %u %ss x %u %s x %u threads, SIMD %u, sub-groups "
           "%u..%u, max work-group %u, SLM per work-group %llu\n",
           product, name, p->cores, p->core_name, p->engines_per_core, p->engine_name,
           default_threads(p), p->simd_width, p->sub_group_sizes[0],
           p->sub_group_sizes[p->n_sub_group_sizes - 1], p->max_work_group_size,
           (unsigned long long)p->slm_max_per_work_group);
    occ_device_free(dev);
}

/* Every probe variant builds and its properties come back. */
static void check_variants(const char *product, occ_backend *b, const occ_device_desc *d)
{
    occ_kernel req[OCC_MAX_SUB_GROUP_SIZES * 8], act[OCC_MAX_SUB_GROUP_SIZES * 8];
    int32_t ans[OCC_MAX_SUB_GROUP_SIZES * 8];
    size_t n = 0;
    for (uint32_t i = 0; i < d->n_sub_group_sizes; i++)
        for (int barrier = 0; barrier < 2; barrier++)
            for (int slm = 0; slm < 2; slm++)
                for (int grf = 0; grf < 2; grf++) {
                    occ_kernel_init(&req[n]);
                    req[n].wg[0] = 64;
                    req[n].sub_group = d->sub_group_sizes[i];
                    req[n].barrier = barrier;
                    req[n].slm_bytes = slm ? 4096 : 0;
                    req[n].grf = grf ? 256 : 0;
                    n++;
                }
    occ_diag diag;
    memset(&diag, 0, sizeof diag);
    occ_status s = occ_backend_driver_residency(b, req, act, ans, n, &diag);
    if (!kernels_built) {
        CHECK(s == OCC_ERR_DEVICE && strstr(diag.message, "was not found"),
              "%s: kernels not built, yet: %s %s", product, occ_status_name(s), diag.message);
        printf("%s: kernels not built: %s\n", product, diag.message);
        return;
    }
    if (s != OCC_OK) {
        fail("%s: probe variants: %s", product, diag.message);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        CHECK(ans[i] > 0, "%s: variant %zu (SG %u, barrier %d, SLM %llu, GRF %u) was not built or "
              "has no driver answer", product, i, req[i].sub_group, req[i].barrier,
              (unsigned long long)req[i].slm_bytes, req[i].grf);
        CHECK(act[i].sub_group == req[i].sub_group, "%s: variant %zu compiled SIMD %u, asked %u",
              product, i, act[i].sub_group, req[i].sub_group);
        CHECK(act[i].slm_bytes >= req[i].slm_bytes, "%s: variant %zu SLM %llu < requested",
              product, i, (unsigned long long)act[i].slm_bytes);
    }
    printf("%s: %zu probe variants built, kernel properties read\n", product, n);
}

/* The model against the driver over many configurations, checked row by row. */
static void coop_table(const char *product, occ_backend *b, const occ_device_desc *d, FILE *table)
{
    static const uint32_t wgs[] = {8, 16, 24, 32, 40, 56, 64, 96, 100, 128, 160, 192,
                                   200, 256, 320, 384, 448, 512};
    static const uint32_t slms[] = {0, 1, 1024, 3000, 8192, 16384, 40000, 65536};
    enum { MAX = 3 * 18 * 2 * 8 };
    static occ_kernel req[MAX], act[MAX];
    static int32_t ans[MAX];
    size_t n = 0;
    for (uint32_t g = 0; g < d->n_sub_group_sizes; g++)
        for (size_t w = 0; w < sizeof wgs / sizeof wgs[0]; w++)
            for (int barrier = 0; barrier < 2; barrier++)
                for (size_t m = 0; m < sizeof slms / sizeof slms[0]; m++) {
                    if (wgs[w] > d->max_work_group_size || n == MAX)
                        continue;
                    occ_kernel_init(&req[n]);
                    req[n].wg[0] = wgs[w];
                    req[n].sub_group = d->sub_group_sizes[g];
                    req[n].barrier = barrier;
                    req[n].slm_bytes = slms[m];
                    n++;
                }
    occ_diag diag;
    if (occ_backend_driver_residency(b, req, act, ans, n, &diag) != OCC_OK) {
        fail("%s: driver residency: %s", product, diag.message);
        return;
    }
    occ_device *dev = NULL;
    if (occ_device_create(d, &dev, &diag) != OCC_OK) {
        fail("%s: probed profile is not a valid device: %s", product, diag.message);
        return;
    }
    fprintf(table, "# %s: %u %ss x %u %s x %u threads; model = resident per core x cores; "
                   "driver = zeKernelSuggestMaxCooperativeGroupCount\n",
            product, d->cores, d->core_name, d->engines_per_core, d->engine_name, default_threads(d));
    fprintf(table, "%-6s %4s %3s %3s %6s | %9s %11s %6s %5s  %s\n", "device", "W", "SG", "bar",
            "SLM", "per core", "model total", "driver", "rule", "difference");
    size_t rows = 0, agree = 0, pooled = 0, barrier_cap = 0;
    for (size_t i = 0; i < n; i++) {
        occ_residency r;
        occ_residency_init(&r);
        occ_residency_compute(dev, &act[i], &r);
        if (!r.launchable) {
            /* The model refuses it; the driver must have refused it too or
             * answered for a configuration the model rejects for a reason it
             * states (SLM over the maximum is refused by the backend itself). */
            CHECK(ans[i] < 0 || r.reason != OCC_REASON_SLM_TOO_LARGE,
                  "%s: row %zu: model refuses (%s), driver answered %d", product, i,
                  occ_reason_text(r.reason), ans[i]);
            continue;
        }
        rows++;
        uint64_t model = (uint64_t)r.resident_wgs * d->cores;
        uint32_t rule = occ__intel_driver_coop_rule(d->cores, d->engines_per_core, default_threads(d),
                                                 act[i].sub_group, occ_kernel_wg_size(&act[i]),
                                                 act[i].barrier, act[i].slm_bytes, 65536);
        uint64_t threads = (uint64_t)d->cores * r.contexts_per_core;
        const char *why;
        if ((uint64_t)ans[i] == model) {
            why = "agree";
            agree++;
        } else if ((uint64_t)ans[i] > model && (uint64_t)ans[i] <= threads / r.contexts_per_wg) {
            why = "driver pools threads across cores";
            pooled++;
        } else if (act[i].barrier && (uint64_t)ans[i] == (uint64_t)d->cores * 32) {
            why = "driver: 32 barriers per core, model: the calculator's figure";
            barrier_cap++;
        } else {
            why = "UNEXPLAINED";
        }
        fprintf(table, "%-6s %4llu %3u %3s %6llu | %9u %11llu %6d %5u  %s\n", product,
                (unsigned long long)occ_kernel_wg_size(&act[i]), act[i].sub_group,
                act[i].barrier ? "yes" : "no", (unsigned long long)act[i].slm_bytes, r.resident_wgs,
                (unsigned long long)model, ans[i], rule, why);
        /* Rule 1: the driver's answer is the rule of the notes, exactly. */
        CHECK(ans[i] >= 0 && (uint32_t)ans[i] == rule,
              "%s: W %llu SG %u barrier %d SLM %llu: driver %d, rule %u", product,
              (unsigned long long)occ_kernel_wg_size(&act[i]), act[i].sub_group, act[i].barrier,
              (unsigned long long)act[i].slm_bytes, ans[i], rule);
        /* The public figure is the driver's answer. */
        uint64_t coop = 0;
        CHECK(occ_cooperative_max(dev, &act[i], &coop) == OCC_OK && ans[i] >= 0 &&
                  coop == (uint64_t)ans[i],
              "%s: W %llu SG %u barrier %d SLM %llu: driver %d, occ_cooperative_max %llu", product,
              (unsigned long long)occ_kernel_wg_size(&act[i]), act[i].sub_group, act[i].barrier,
              (unsigned long long)act[i].slm_bytes, ans[i], (unsigned long long)coop);
        /* Rule 2: every difference from the model has one of the two causes. */
        CHECK(strcmp(why, "UNEXPLAINED") != 0, "%s: row %zu: driver %d, model %llu unexplained",
              product, i, ans[i], (unsigned long long)model);
        /* Rule 3: without a barrier the driver never says fewer (it pools). */
        CHECK(act[i].barrier || (uint64_t)ans[i] >= model,
              "%s: row %zu: no barrier but driver %d < model %llu", product, i, ans[i],
              (unsigned long long)model);
    }
    CHECK(pooled > 0, "%s: no row shows the driver pooling threads", product);
    printf("%s: model vs zeKernelSuggestMaxCooperativeGroupCount, %zu configurations: %zu agree, "
           "%zu differ by pooling, %zu by the barrier figure\n",
           product, rows, agree, pooled, barrier_cap);
    occ_device_free(dev);
}

/* Nothing executes in hardware-less mode: the launch must say so, not hand
 * back an empty measurement. */
static void check_launch(const char *product, occ_backend *b, const occ_device_desc *d,
                         const occ_backend_info *info)
{
    occ_probe_config c;
    occ_probe_config_init(&c);
    c.kernel.wg[0] = d->max_work_group_size >= 320 ? 320 : 256;
    c.kernel.sub_group = 8;
    c.work_groups = 8;
    occ_probe_result r;
    occ_diag diag;
    memset(&diag, 0, sizeof diag);
    occ_status s = occ_backend_launch(b, &c, &r, &diag);
    char expect[64];
    snprintf(expect, sizeof expect, "none of its %u hardware threads", 8 * (c.kernel.wg[0] / 8));
    CHECK(info->no_execution, "%s: hardware-less mode not reported", product);
    CHECK(s == OCC_ERR_DEVICE, "%s: launch status %s, expected OCC_ERR_DEVICE (did not execute)",
          product, occ_status_name(s));
    CHECK(strstr(diag.message, "did not execute") && strstr(diag.message, expect) &&
              strstr(diag.message, "hardware-less"),
          "%s: launch message '%s'", product, diag.message);
    CHECK(r.n_records == 0 && r.records == NULL, "%s: records handed back", product);
    printf("%s: launch of %llu x %u: %s\n", product, (unsigned long long)c.work_groups,
           c.kernel.wg[0], diag.message);
    occ_probe_result_free(&r);
}

/* One product end to end; false when the driver is not there at all. */
static bool run_product(int i, FILE *table, bool *driver_missing)
{
    const char *product = products[i].product;
    hardware_less(product);
    occ_backend *b;
    occ_diag diag;
    occ_status s = open_ze(120, &b, &diag);
    if (s != OCC_OK) {
        if (i == 0 && strstr(diag.message, "zeInit failed")) {
            *driver_missing = true;
            printf("%s: %s\n", product, diag.message);
            return false;
        }
        fail("%s: open: %s", product, diag.message);
        return true;
    }
    occ_device_desc d;
    occ_backend_info info;
    s = occ_backend_describe(b, &d, &info, &diag);
    if (s != OCC_OK) {
        fail("%s: describe: %s", product, diag.message);
        occ_backend_close(b);
        return true;
    }
    CHECK(info.driver_per_device, "%s: driver answers should be per device", product);
    CHECK(strcmp(info.driver_query, "zeKernelSuggestMaxCooperativeGroupCount") == 0,
          "%s: driver query '%s'", product, info.driver_query);
    CHECK(info.n_sources >= 5, "%s: only %u provenance lines", product, info.n_sources);
    if (verbose)
        for (uint32_t k = 0; k < info.n_sources; k++)
            printf("  source: %s\n", info.sources[k]);
    compare_with_shipped(product, &d, products[i].shipped);
    check_variants(product, b, &d);
    if (kernels_built) {
        coop_table(product, b, &d, table);
        check_launch(product, b, &d, &info);
    }
    occ_backend_close(b);
    return true;
}

static void expect_device_error(const char *what, double timeout_s, const char *needle,
                                bool open_fails)
{
    occ_backend *b;
    occ_diag diag;
    occ_status s = open_ze(timeout_s, &b, &diag);
    if (!open_fails && s == OCC_OK) {
        occ_kernel req, act;
        int32_t ans;
        occ_kernel_init(&req);
        req.wg[0] = 64;
        req.sub_group = 8;
        req.slm_bytes = 4096;
        memset(&diag, 0, sizeof diag);
        s = occ_backend_driver_residency(b, &req, &act, &ans, 1, &diag);
        occ_backend_close(b);
    }
    CHECK(s == OCC_ERR_DEVICE, "%s: status %s, expected OCC_ERR_DEVICE", what, occ_status_name(s));
    CHECK(strstr(diag.message, needle) != NULL, "%s: message '%s' lacks '%s'", what, diag.message,
          needle);
    printf("%s: %s: %s\n", what, occ_status_name(s), diag.message);
}

static void error_paths(void)
{
    alt_drivers = NULL;
    hardware_less(NULL);
    setenv("ZE_ENABLE_ALT_DRIVERS", "/nonexistent", 1);
    expect_device_error("no driver (ZE_ENABLE_ALT_DRIVERS=/nonexistent)", 60, "zeInit failed", true);
    hardware_less(NULL);
    expect_device_error("Intel driver without an Intel GPU", 60, "zeInit failed", true);
    setenv("OCC_ZE_FAULT", "ze-after-failed-init", 1);
    expect_device_error("loader crash (ze call after a failed zeInit)", 60, "signal 11", true);
    hardware_less("tgllp");
    setenv("OCC_ZE_FAULT", "slm-overflow", 1);
    if (kernels_built)
        expect_device_error("driver abort (SLM over the maximum)", 60, "signal 6", false);
    setenv("OCC_ZE_FAULT", "hang", 1);
    expect_device_error("hang", 1.5, "watchdog", true);
    unsetenv("OCC_ZE_FAULT");
}

/* The hardware-less driver writes capture files into the working directory:
 * work in a fresh temporary one (dir: a mkdtemp template), cwd the old one. */
static bool enter_temp_dir(char *cwd, size_t size, char *dir)
{
    if (getcwd(cwd, size) && mkdtemp(dir) && chdir(dir) == 0)
        return true;
    perror("temporary directory");
    return false;
}

static void remove_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    char path[4096];
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
    }
    closedir(d);
    rmdir(dir);
}

/* ---- recording the driver's cooperative maximum (--record-coop) ---------------- */

/* The kernel set: odd and even work-group sizes up to past every product's
 * maximum, SLM around the 1 KiB granule and up to past the 64 KiB maximum. */
static const uint32_t record_wgs[] = {1, 8, 16, 32, 56, 64, 96, 100, 128, 192,
                                      200, 256, 320, 448, 512, 1024};
static const uint64_t record_slms[] = {0, 1, 1024, 1025, 8192, 30000, 65536, 65537};
static const uint32_t record_grfs[] = {0, 256}; /* 256: -ze-opt-large-register-file */

/* Why a configuration never reached the driver's query or was refused by it:
 * the limits the driver itself reported (zeDeviceGetComputeProperties).  Over
 * the SLM maximum the driver aborts, so the backend refuses before asking. */
static const char *refusal(const occ_device_desc *d, const occ_kernel *k)
{
    if (occ_kernel_wg_size(k) > d->max_work_group_size)
        return "work-group over the driver's maximum";
    if (k->slm_bytes > d->slm_max_per_work_group)
        return "SLM over the driver's maximum";
    return "refused by the driver";
}

static bool record_product(const char *product, FILE *csv)
{
    hardware_less(product);
    occ_backend *b;
    occ_diag diag;
    occ_device_desc d;
    occ_backend_info info;
    if (open_ze(120, &b, &diag) != OCC_OK) {
        fprintf(stderr, "%s: %s\n", product, diag.message);
        return false;
    }
    if (occ_backend_describe(b, &d, &info, &diag) != OCC_OK) {
        fprintf(stderr, "%s: describe: %s\n", product, diag.message);
        occ_backend_close(b);
        return false;
    }
    enum { MAX = 2 * OCC_MAX_SUB_GROUP_SIZES * 16 * 2 * 8 };
    static occ_kernel req[MAX], act[MAX];
    static int32_t ans[MAX];
    size_t n = 0;
    for (size_t g = 0; g < sizeof record_grfs / sizeof record_grfs[0]; g++)
        for (uint32_t s = 0; s < d.n_sub_group_sizes; s++)
            for (size_t w = 0; w < sizeof record_wgs / sizeof record_wgs[0]; w++)
                for (int barrier = 0; barrier < 2; barrier++)
                    for (size_t m = 0; m < sizeof record_slms / sizeof record_slms[0]; m++) {
                        occ_kernel_init(&req[n]);
                        req[n].wg[0] = record_wgs[w];
                        req[n].sub_group = d.sub_group_sizes[s];
                        req[n].barrier = barrier;
                        req[n].slm_bytes = record_slms[m];
                        req[n].grf = record_grfs[g];
                        n++;
                    }
    bool ok = occ_backend_driver_residency(b, req, act, ans, n, &diag) == OCC_OK;
    if (!ok)
        fprintf(stderr, "%s: driver residency: %s\n", product, diag.message);
    for (size_t i = 0; ok && i < n; i++) {
        /* The compiled kernel's sub-group and SLM (what the driver answered for). */
        if (act[i].sub_group != req[i].sub_group || act[i].slm_bytes != req[i].slm_bytes)
            fprintf(stderr, "%s: row %zu: compiled SIMD %u SLM %llu for requested %u %llu\n",
                    product, i, act[i].sub_group, (unsigned long long)act[i].slm_bytes,
                    req[i].sub_group, (unsigned long long)req[i].slm_bytes);
        fprintf(csv, "%s,%u,%u,%u,%d,%llu,", product, req[i].grf, act[i].wg[0], act[i].sub_group,
                act[i].barrier ? 1 : 0, (unsigned long long)act[i].slm_bytes);
        if (ans[i] >= 0)
            fprintf(csv, "%d,\n", ans[i]);
        else
            fprintf(csv, "refused,%s\n", refusal(&d, &act[i]));
    }
    if (ok)
        printf("%s: %zu configurations recorded (%s)\n", product, n, info.driver);
    occ_backend_close(b);
    return ok;
}

/* Written next to FILE and renamed over it when complete. */
static int record_coop(const char *path, const char *version)
{
    char tmp_path[4096];
    snprintf(tmp_path, sizeof tmp_path, "%s.part", path);
    FILE *csv = fopen(tmp_path, "w");
    if (!csv) {
        perror(tmp_path);
        return 1;
    }
    char cwd[4096], dir[] = "/tmp/occ-ze-record-XXXXXX";
    if (!enter_temp_dir(cwd, sizeof cwd, dir)) {
        fclose(csv);
        remove(tmp_path);
        return 1;
    }
    char date[32];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%d", gmtime(&now));
    fprintf(csv, "# zeKernelSuggestMaxCooperativeGroupCount of the Intel driver in hardware-less mode "
                 "(tests/validate/ze/test_ze_driver.c --record-coop)\n");
    fprintf(csv, "# recorded %s, intel-opencl-icd %s\n", date, version);
    fprintf(csv, "# grf: 0 default, 256 built with -ze-opt-large-register-file; sg and slm: the "
                 "compiled kernel's; driver: the answer, or 'refused' and why\n");
    fprintf(csv, "product,grf,wg,sg,barrier,slm,driver,refusal\n");
    bool ok = true;
    for (size_t i = 0; ok && i < sizeof products / sizeof products[0]; i++)
        ok = record_product(products[i].product, csv);
    ok = fclose(csv) == 0 && ok;
    if (chdir(cwd) != 0)
        perror(cwd);
    remove_tree(dir);
    if (!ok || rename(tmp_path, path) != 0) {
        fprintf(stderr, "%s: not written\n", path);
        remove(tmp_path);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *table_path = NULL;
    if (argc >= 3 && !strcmp(argv[1], "--record-coop"))
        return record_coop(argv[2], argc >= 4 ? argv[3] : "(version not given)");
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-v"))
            verbose = true;
        else
            table_path = argv[i];
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    alt_drivers = getenv("ZE_ENABLE_ALT_DRIVERS");
    kernels_built = !(getenv("OCC_ZE_KERNELS_BUILT") && !strcmp(getenv("OCC_ZE_KERNELS_BUILT"), "0"));
#if defined(__SANITIZE_ADDRESS__)
    printf("SKIP: the Intel driver cannot be loaded under AddressSanitizer (it dlopens with "
           "RTLD_DEEPBIND, google/sanitizers#611)\n");
    return 77;
#endif
    if (!occ_backend_available("ze")) {
        printf("SKIP: the ze backend is not built into this libocc\n");
        return 77;
    }
    bool require = getenv("OCC_TEST_REQUIRE_ZE") && !strcmp(getenv("OCC_TEST_REQUIRE_ZE"), "1");
    FILE *table = table_path ? fopen(table_path, "w") : (verbose ? stdout : fopen("/dev/null", "w"));
    if (!table) {
        perror(table_path);
        return 1;
    }
    char cwd[4096], tmp[] = "/tmp/occ-ze-test-XXXXXX";
    if (!enter_temp_dir(cwd, sizeof cwd, tmp))
        return 1;
    bool driver_missing = false;
    for (int i = 0; i < (int)(sizeof products / sizeof products[0]); i++)
        if (!run_product(i, table, &driver_missing))
            break;
    if (!driver_missing)
        error_paths();
    if (table != stdout)
        fclose(table);
    if (chdir(cwd) != 0)
        perror(cwd);
    remove_tree(tmp);
    if (driver_missing) {
        printf("%s: the Intel Level Zero driver (intel-opencl-icd) is not usable here\n",
               require ? "FAIL" : "SKIP");
        return require ? 1 : 77;
    }
    printf("%s: %d failure(s)\n", failures ? "FAIL" : "PASS", failures);
    return failures ? 1 : 0;
}
