/* The dispatch-timing campaign (issue 16): run on the lent H100 by
 * tests/hw/dispatch_campaign.sh, in one device call.
 *
 *   dispatch_campaign OUTDIR [PART]  launch every configuration (or only
 *                                 those whose name contains PART), write
 *                                 OUTDIR/records/NAME.rec and OUTDIR/list.tsv
 *   dispatch_campaign --list      print the configurations (h100-sxm), no GPU
 *
 * Short work-groups (5 us to 1 ms spins), work-group sizes 32 to 1024, 1 to 10
 * waves and partial waves, with and without shared-memory, register and
 * barrier limits, unequal durations (the probe's duration spread), and
 * repeats of some configurations for the noise of the measurement.  The
 * records are analysed without a GPU (`occcalc validate --replay`,
 * tests/validate/cuda/test_dispatch_campaign.c).  Public API only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "occ/backend.h"

typedef struct config {
    uint32_t wg, regs;
    uint64_t slm;
    bool barrier;
    double waves;      /* work-groups = round(waves x wave), or groups when > 0 */
    uint64_t groups;
    double us, spread_us;
    int repeat;        /* 0: single; k: the k-th repeat of the same launch */
    const char *why;
} config;

#define MAX_CONFIGS 400
static config cfgs[MAX_CONFIGS];
static size_t n_cfgs;

static void add(uint32_t wg, uint32_t regs, uint64_t slm, bool bar, double waves, uint64_t groups,
                double us, double spread_us, int repeat, const char *why)
{
    if (n_cfgs < MAX_CONFIGS)
        cfgs[n_cfgs++] = (config){wg, regs, slm, bar, waves, groups, us, spread_us, repeat, why};
}

static void build_configs(void)
{
    static const double us[] = {5, 10, 20, 100, 1000};
    static const uint32_t wgs[] = {32, 64, 128, 256, 512, 1024};
    /* every size x every duration, the wave count cycling 1..10 (with a tail
     * every other time) */
    int w = 0;
    for (size_t d = 0; d < 5; d++)
        for (size_t i = 0; i < 6; i++, w++) {
            double waves = 1 + (w % 10) + ((w & 1) ? 0.37 : 0);
            add(wgs[i], 0, 0, false, waves, 0, us[d], 0, 0, "warps / block slots");
        }
    /* limited by shared memory and by registers, each duration */
    for (size_t d = 0; d < 5; d++) {
        add(64, 0, 20480, false, 2 + d, 0, us[d], 0, 0, "shared memory (11 per SM)");
        add(256, 0, 48128, false, 3.5 + d, 0, us[d], 0, 0, "shared memory (4 per SM)");
        add(128, 128, 0, false, 1 + 2 * d, 0, us[d], 0, 0, "registers (4 per SM)");
        add(256, 64, 0, false, 2.5 + d, 0, us[d], 0, 0, "registers (4 per SM)");
        add(256, 0, 0, true, 1.5 + d, 0, us[d], 0, 0, "barrier");
    }
    /* partial single waves */
    add(32, 0, 0, false, 0.5, 0, 10, 0, 0, "partial wave");
    add(256, 0, 0, false, 0.3, 0, 20, 0, 0, "partial wave");
    add(1024, 0, 0, false, 0.75, 0, 5, 0, 0, "partial wave");
    /* the case and its neighbours */
    add(32, 0, 0, false, 0, 60000, 100, 0, 0, "issue 16: 60000 x 32, 100 us");
    add(32, 0, 0, false, 0, 60000, 20, 0, 0, "60000 x 32, 20 us");
    add(32, 0, 0, false, 0, 60000, 5, 0, 0, "60000 x 32, 5 us");
    /* unequal durations: the spin is duration + uniform [0, spread] */
    add(32, 0, 0, false, 4.2, 0, 5, 5, 0, "unequal durations");
    add(64, 0, 0, false, 3, 0, 10, 10, 0, "unequal durations");
    add(128, 0, 0, false, 5.5, 0, 20, 20, 0, "unequal durations");
    add(256, 0, 0, false, 6, 0, 100, 100, 0, "unequal durations");
    add(512, 0, 0, false, 2.5, 0, 100, 50, 0, "unequal durations");
    add(1024, 0, 0, false, 8, 0, 1000, 500, 0, "unequal durations");
    add(64, 0, 20480, false, 3.2, 0, 20, 40, 0, "unequal durations + shared memory");
    add(128, 128, 0, false, 4, 0, 10, 5, 0, "unequal durations + registers");
    add(32, 0, 0, false, 0, 60000, 100, 100, 0, "unequal durations, 60000 x 32");
    /* repeats: the noise of the measurement */
    for (int r = 1; r <= 5; r++) {
        add(32, 0, 0, false, 3, 0, 5, 0, r, "repeat");
        add(256, 0, 0, false, 4.5, 0, 10, 0, r, "repeat");
        add(1024, 0, 0, false, 2, 0, 100, 0, r, "repeat");
        add(64, 0, 20480, false, 3, 0, 20, 0, r, "repeat");
        add(32, 0, 0, false, 0, 60000, 100, 0, r, "repeat");
        add(128, 0, 0, false, 5, 0, 20, 20, r, "repeat");
    }
    /* 2026-11-25 (appended, so the names above stay those of 2026-11-24):
     * repeats of short and register-heavy refills (the refill model's noise) */
    for (int r = 1; r <= 3; r++) {
        add(128, 0, 0, false, 3, 0, 5, 0, r, "repeat (2026-11-25)");
        add(512, 0, 0, false, 5, 0, 5, 0, r, "repeat (2026-11-25)");
        add(256, 64, 0, false, 3.5, 0, 10, 0, r, "repeat (2026-11-25)");
    }
    /* more unequal durations */
    add(256, 0, 0, false, 4, 0, 5, 5, 0, "unequal durations");
    add(1024, 0, 0, false, 3, 0, 10, 10, 0, "unequal durations");
    add(256, 0, 0, true, 3.5, 0, 20, 10, 0, "unequal durations + barrier");
    add(256, 64, 0, false, 3.5, 0, 100, 50, 0, "unequal durations + registers");
    add(32, 0, 0, false, 5, 0, 1000, 1000, 0, "unequal durations");
    /* equal durations on the sleeping _sp kernels (a spread of 1 ns): the same
     * verdict as the busy-spinning plain kernels? */
    add(32, 0, 0, false, 3, 0, 5, 0.001, 0, "sleeping probe, equal durations");
    add(256, 0, 0, false, 4.5, 0, 10, 0.001, 0, "sleeping probe, equal durations");
    add(1024, 0, 0, false, 2, 0, 100, 0.001, 0, "sleeping probe, equal durations");
    add(64, 0, 20480, false, 3, 0, 20, 0.001, 0, "sleeping probe, equal durations");
    add(128, 128, 0, false, 5, 0, 10, 0.001, 0, "sleeping probe, equal durations");
    add(32, 0, 0, false, 0, 60000, 100, 0.001, 0, "sleeping probe, equal durations");
}

static void config_name(const config *c, size_t i, uint64_t groups, char *buf, size_t size)
{
    char regs[16], extra[48] = "";
    if (c->regs)
        snprintf(regs, sizeof regs, "r%u", c->regs);
    else
        snprintf(regs, sizeof regs, "rmin");
    size_t n = 0;
    if (c->spread_us > 0)
        n += (size_t)snprintf(extra + n, sizeof extra - n, "-sp%g", c->spread_us);
    if (c->repeat)
        snprintf(extra + n, sizeof extra - n, "-rep%d", c->repeat);
    snprintf(buf, size, "d%03zu-wg%u-%s-s%llu-%s-%gus-g%llu%s", i, c->wg, regs,
             (unsigned long long)c->slm, c->barrier ? "bar" : "nobar", c->us,
             (unsigned long long)groups, extra);
}

static uint64_t groups_of(const config *c, const occ_device *dev)
{
    if (c->groups)
        return c->groups;
    occ_kernel k;
    occ_kernel_init(&k);
    k.wg[0] = c->wg;
    k.regs_per_thread = c->regs ? c->regs : 16;
    k.slm_bytes = c->slm;
    k.barrier = c->barrier;
    occ_residency r;
    occ_residency_compute(dev, &k, &r);
    uint64_t wave = (uint64_t)occ_device_describe(dev)->cores * (r.launchable ? r.resident_wgs : 1);
    uint64_t g = (uint64_t)(c->waves * (double)wave + 0.5);
    return g ? g : 1;
}

static int list_configs(void)
{
    occ_device *dev;
    occ_diag diag;
    if (occ_device_builtin("h100-sxm", &dev, &diag) != OCC_OK)
        return 1;
    build_configs();
    uint64_t total = 0;
    for (size_t i = 0; i < n_cfgs; i++) {
        char name[160];
        uint64_t g = groups_of(&cfgs[i], dev);
        config_name(&cfgs[i], i, g, name, sizeof name);
        printf("%-52s %s\n", name, cfgs[i].why);
        total += g;
    }
    printf("%zu configurations, %llu work-groups\n", n_cfgs, (unsigned long long)total);
    occ_device_free(dev);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--list") == 0)
        return list_configs();
    if (argc != 2 && argc != 3) {
        fprintf(stderr, "usage: dispatch_campaign OUTDIR [PART] | --list\n");
        return 2;
    }
    const char *dir = argv[1], *part = argc == 3 ? argv[2] : NULL;
    mkdir(dir, 0777);
    char path[1024];
    snprintf(path, sizeof path, "%s/records", dir);
    mkdir(path, 0777);
    occ_backend_options o;
    occ_backend_options_init(&o);
    o.timeout_s = 60;
    occ_backend *b;
    occ_diag diag;
    if (occ_backend_open("cuda", &o, &b, &diag) != OCC_OK) {
        fprintf(stderr, "dispatch_campaign: %s\n", diag.message);
        return 77;
    }
    occ_device_desc desc;
    occ_backend_info info;
    occ_device *dev;
    if (occ_backend_describe(b, &desc, &info, &diag) != OCC_OK ||
        occ_device_create(&desc, &dev, &diag) != OCC_OK) {
        fprintf(stderr, "dispatch_campaign: %s\n", diag.message);
        return 1;
    }
    printf("device: %s, %s, %u SMs\n", info.device, info.driver, desc.cores);
    build_configs();
    snprintf(path, sizeof path, "%s/list.tsv", dir);
    FILE *list = fopen(path, "w");
    if (!list)
        return 1;
    int fails = 0;
    /* a warm-up launch, not recorded: the first launch of a call starts a few
     * SMs late (d000 of 2026-11-24) */
    {
        occ_probe_config pc;
        occ_probe_config_init(&pc);
        pc.kernel.wg[0] = 32;
        pc.duration_s = 5e-6;
        pc.work_groups = 4224;
        occ_probe_result res;
        if (occ_backend_launch(b, &pc, &res, &diag) == OCC_OK) {
            printf("warm-up: %zu records, not kept\n", res.n_records);
            occ_probe_result_free(&res);
        }
    }
    for (size_t i = 0; i < n_cfgs; i++) {
        const config *c = &cfgs[i];
        occ_probe_config pc;
        occ_probe_config_init(&pc);
        pc.kernel.wg[0] = c->wg;
        pc.kernel.regs_per_thread = c->regs;
        pc.kernel.slm_bytes = c->slm;
        pc.kernel.barrier = c->barrier;
        pc.duration_s = c->us * 1e-6;
        pc.duration_spread_s = c->spread_us * 1e-6;
        pc.seed = 1 + (uint32_t)i;
        pc.work_groups = groups_of(c, dev);
        char name[160];
        config_name(c, i, pc.work_groups, name, sizeof name);
        if (part && !strstr(name, part))
            continue;
        occ_probe_result res;
        occ_status s = occ_backend_launch(b, &pc, &res, &diag);
        if (s != OCC_OK) {
            printf("%s: %s\n", name, diag.message);
            fprintf(list, "%s\t%s\tfailed: %s\n", name, c->why, diag.message);
            fails++;
            if (s == OCC_ERR_DEVICE) {
                occ_backend_close(b);
                if (occ_backend_open("cuda", &o, &b, &diag) != OCC_OK)
                    return 1;
            }
            continue;
        }
        snprintf(path, sizeof path, "%s/records/%s.rec", dir, name);
        FILE *f = fopen(path, "w");
        if (!f || occ_probe_file_write(f, &info, &desc, &res) != OCC_OK) {
            fprintf(stderr, "cannot write %s\n", path);
            fails++;
        }
        if (f)
            fclose(f);
        fprintf(list, "%s\t%s\t%llu records, wall %.6f s\n", name, c->why,
                (unsigned long long)res.n_records, res.wall_s);
        printf("%-56s %6zu records  wall %.3f ms\n", name, res.n_records, res.wall_s * 1e3);
        occ_probe_result_free(&res);
    }
    fclose(list);
    occ_device_free(dev);
    occ_backend_close(b);
    printf("launches: %zu configurations, %d failed\n", n_cfgs, fails);
    return fails ? 1 : 0;
}
