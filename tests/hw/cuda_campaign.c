/* The CUDA validation campaign (issue 5): run on the lent H100 by
 * tests/hw/campaign.sh, in one device call.
 *
 *   cuda_campaign OUTDIR
 *
 * 1. sweep: the driver's cuOccupancyMaxActiveBlocksPerMultiprocessor for every
 *    probe variant (real compiled register counts) x block sizes x dynamic
 *    shared memory x carveouts; one line per query in OUTDIR/sweep.txt with the
 *    function's actual attributes.  tests/model/test_cuda_sweep.c compares the model
 *    with it on every line.
 * 2. launches: 200+ configurations covering every limiter, tails, single- and
 *    many-wave runs and the seed configuration; raw records in
 *    OUTDIR/records/NNN-NAME.rec (occ_probe_file_write), one summary line each
 *    in OUTDIR/summary.tsv.  The authoritative table is rebuilt from the records
 *    with `occcalc validate --replay` (tests/hw/summarize.sh).
 * Public API only. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "occ/backend.h"

typedef struct config {
    uint32_t wg[3];
    uint32_t regs;     /* 0: the smallest variant */
    uint64_t slm;
    int32_t carveout;
    bool barrier;
    int shape;         /* how many work-groups, relative to a wave (groups_for) */
    uint64_t groups;   /* fixed count when shape < 0 */
    double duration_us;
    const char *why;
} config;

#define MAX_CONFIGS 400
#define MAX_GROUPS 3000

static config cfgs[MAX_CONFIGS];
static size_t n_cfgs;

static void add(uint32_t x, uint32_t y, uint32_t z, uint32_t regs, uint64_t slm, int32_t carve,
                bool bar, int shape, uint64_t groups, double dur, const char *why)
{
    if (n_cfgs == MAX_CONFIGS)
        return;
    cfgs[n_cfgs++] = (config){{x, y, z}, regs, slm, carve, bar, shape, groups, dur, why};
}

/* Work-groups for a shape, given the wave (cores x resident). */
static uint64_t groups_for(int shape, uint64_t wave)
{
    uint64_t g;
    switch (shape % 6) {
    case 0: g = wave / 2 > 3 ? wave / 2 - 3 : 1; break;      /* single partial wave */
    case 1: g = wave; break;                                  /* exactly one wave */
    case 2: g = wave + wave / 3 + 1; break;                   /* one wave and a tail */
    case 3: g = 3 * wave; break;                              /* whole waves */
    case 4: {                                                 /* many waves and a tail */
        uint64_t w = MAX_GROUPS / wave;
        if (w > 8)
            w = 8;
        if (w < 2)
            w = 2;
        g = (w - 1) * wave + 5;
        break;
    }
    default: g = 2 * wave + 1; break;                         /* two waves and one more */
    }
    if (g > MAX_GROUPS)
        g = MAX_GROUPS - 7; /* not a wave multiple */
    return g ? g : 1;
}

static void build_configs(void)
{
    static const uint32_t warps_wg[] = {64, 96, 128, 160, 192, 256, 320, 384,
                                        448, 512, 640, 768, 896, 1024};
    static const uint32_t odd_wg[] = {1, 33, 100, 200, 1000};
    static const uint32_t regs[] = {24, 32, 33, 40, 48, 56, 64, 72, 80,
                                    96, 98, 112, 128, 144, 168, 200, 232, 255};
    static const uint64_t slm[] = {1024, 2148, 5000, 10240, 20480, 33792,
                                   48128, 65536, 102400, 115712, 153600, 232448};
    static const int32_t carve[] = {-1, 25, 50, 100};
    int s = 0;
    const double D = 200;
    for (size_t i = 0; i < sizeof warps_wg / sizeof *warps_wg; i++)
        for (int k = 0; k < 2; k++)
            add(warps_wg[i], 1, 1, 0, 0, -1, false, s++, 0, D, "warps");
    for (size_t i = 0; i < sizeof odd_wg / sizeof *odd_wg; i++)
        for (int k = 0; k < 2; k++)
            add(odd_wg[i], 1, 1, 0, 0, -1, false, s++, 0, D, "warps (odd size)");
    static const uint32_t reg_wg[] = {64, 128, 256};
    for (size_t i = 0; i < sizeof regs / sizeof *regs; i++)
        for (size_t w = 0; w < 3; w++)
            add(reg_wg[w], 1, 1, regs[i], 0, -1, false, s++, 0, D, "registers");
    static const uint32_t big_regs[] = {32, 40, 48, 56, 64};
    for (size_t i = 0; i < sizeof big_regs / sizeof *big_regs; i++)
        add(1024, 1, 1, big_regs[i], 0, -1, false, s++, 0, D, "registers (1024 threads)");
    for (size_t i = 0; i < sizeof slm / sizeof *slm; i++)
        for (size_t c = 0; c < sizeof carve / sizeof *carve; c++)
            add(64, 1, 1, 0, slm[i], carve[c], false, s++, 0, D, "shared memory");
    static const int32_t carve2[] = {0, 8, 33, 66};
    for (size_t c = 0; c < 4; c++) {
        add(256, 1, 1, 0, 10240, carve2[c], false, s++, 0, D, "shared memory (carveout)");
        add(256, 1, 1, 0, 40960, carve2[c], false, s++, 0, D, "shared memory (carveout)");
    }
    static const int32_t carve0[] = {0, 1, 3, 5, 10};
    static const uint32_t c0_wg[] = {32, 64, 128};
    for (size_t w = 0; w < 3; w++)
        for (size_t c = 0; c < 5; c++)
            add(c0_wg[w], 1, 1, 0, 0, carve0[c], false, s++, 0, D, "carveout 0, no shared memory");
    for (int k = 0; k < 6; k++) {
        add(32, 1, 1, 0, 0, -1, false, k, 0, D, "block slots");
        add(64, 1, 1, 0, 0, -1, false, k, 0, D, "block slots");
    }
    add(32, 1, 1, 32, 0, -1, false, 2, 0, D, "block slots (registers 32)");
    add(32, 1, 1, 48, 0, -1, false, 4, 0, D, "registers (32 threads)");
    add(32, 1, 1, 80, 0, -1, false, 2, 0, D, "registers (32 threads)");
    add(32, 1, 1, 128, 0, -1, false, 5, 0, D, "registers (32 threads)");
    static const uint32_t bar_wg[] = {128, 256, 512, 1024};
    for (size_t w = 0; w < 4; w++) {
        add(bar_wg[w], 1, 1, 0, 0, -1, true, s++, 0, D, "barrier");
        add(bar_wg[w], 1, 1, 64, 0, -1, true, s++, 0, D, "barrier + registers");
    }
    add(32, 1, 1, 0, 0, -1, true, 2, 0, D, "barrier + block slots");
    add(64, 1, 1, 0, 20480, 50, true, 2, 0, D, "barrier + shared memory");
    add(128, 1, 1, 40, 65536, -1, true, 4, 0, D, "barrier + shared memory");
    add(256, 1, 1, 96, 4096, 25, true, 5, 0, D, "barrier + registers + shared memory");
    add(16, 16, 1, 0, 0, -1, false, 2, 0, D, "3-D work-group");
    add(16, 16, 1, 0, 0, -1, true, 4, 0, D, "3-D work-group");
    add(8, 8, 4, 64, 0, -1, false, 2, 0, D, "3-D work-group");
    add(8, 8, 4, 0, 8192, 50, false, 5, 0, D, "3-D work-group");
    add(32, 4, 2, 0, 0, -1, false, 0, 0, D, "3-D work-group");
    add(32, 4, 2, 48, 0, -1, true, 3, 0, D, "3-D work-group");
    add(10, 10, 3, 0, 0, -1, false, 2, 0, D, "3-D work-group");
    add(10, 10, 3, 0, 0, -1, false, 4, 0, D, "3-D work-group");
    add(320, 1, 1, 0, 0, -1, false, -1, 8, D, "seed: 320 threads, 8 groups");
    add(320, 1, 1, 0, 0, -1, false, -1, 8, 500, "seed: 320 threads, 8 groups");
    add(320, 1, 1, 0, 0, -1, false, -1, 1000, D, "seed-like: 320 threads, 1000 groups");
    add(320, 1, 1, 0, 0, -1, false, -1, 792, D, "seed-like: 320 threads, one wave");
    static const double durs[] = {50, 100, 500, 1000};
    for (size_t i = 0; i < 4; i++)
        add(256, 1, 1, 0, 0, -1, false, 2, 0, durs[i], "duration");
    add(1024, 1, 1, 72, 0, -1, false, 1, 0, D, "cannot launch: registers per block");
    add(64, 1, 1, 0, 232449, -1, false, 1, 0, D, "cannot launch: shared memory per block");
}

/* ---- the sweep ---------------------------------------------------------------- */

static int run_sweep(occ_backend *b, const char *path, const occ_backend_info *info)
{
    static const uint32_t regs[] = {0,  24, 32, 33,  40,  48,  56,  64,  72,  80,
                                    96, 98, 112, 128, 144, 168, 200, 232, 255};
    static const uint32_t blocks[] = {1,   32,  33,  64,  96,  128, 160, 192, 224, 256,
                                      288, 320, 384, 416, 512, 544, 640, 768, 800, 1024};
    static const uint64_t dyn[] = {0,     1,     1024,  3000,   7168,   16384,
                                   40000, 49152, 99328, 150000, 232448, 232449};
    static const int32_t carve[] = {-1, 0, 1, 10, 25, 50, 75, 100};
    enum { NR = sizeof regs / sizeof *regs, NB = sizeof blocks / sizeof *blocks,
           ND = sizeof dyn / sizeof *dyn, NC = sizeof carve / sizeof *carve };
    /* rows: (regs, block, carveout, no barrier) and (regs, block, default carveout, barrier) */
    size_t rows = (size_t)NR * NB * (NC + 1), n = rows * ND;
    occ_kernel *req = calloc(n, sizeof *req), *act = calloc(n, sizeof *act);
    int32_t *ans = calloc(n, sizeof *ans);
    if (!req || !act || !ans)
        return 1;
    size_t i = 0;
    for (size_t r = 0; r < NR; r++)
        for (size_t bl = 0; bl < NB; bl++)
            for (size_t c = 0; c <= NC; c++)
                for (size_t d = 0; d < ND; d++) {
                    occ_kernel *k = &req[i++];
                    occ_kernel_init(k);
                    k->wg[0] = blocks[bl];
                    k->regs_per_thread = regs[r];
                    k->slm_bytes = dyn[d];
                    k->carveout_pct = c < NC ? carve[c] : -1;
                    k->barrier = c == NC;
                }
    occ_diag diag;
    for (size_t at = 0; at < n; at += 4096) {
        size_t m = n - at < 4096 ? n - at : 4096;
        if (occ_backend_driver_residency(b, req + at, act + at, ans + at, m, &diag) != OCC_OK) {
            fprintf(stderr, "sweep: %s\n", diag.message);
            return 1;
        }
    }
    /* every probe variant has no static shared memory: the launch size is the dynamic one */
    for (i = 0; i < n; i++)
        if (act[i].slm_bytes != req[i].slm_bytes) {
            fprintf(stderr, "sweep: a variant has static shared memory; the format assumes none\n");
            return 1;
        }
    FILE *f = fopen(path, "w");
    if (!f)
        return 1;
    fprintf(f, "# occ CUDA sweep 1: cuOccupancyMaxActiveBlocksPerMultiprocessor (blocks per SM)\n"
               "# device: %s; %s; %s\n"
               "# one row per compiled probe variant (regs = its NUM_REGS, static shared memory 0),\n"
               "# block size, carveout preference (-1 default) and barrier; one answer per dynamic\n"
               "# shared-memory size in the 'dynamic' line; -1 = the driver refused the size.\n",
            info->device, info->driver, info->architecture);
    fprintf(f, "dynamic");
    for (size_t d = 0; d < ND; d++)
        fprintf(f, " %llu", (unsigned long long)dyn[d]);
    fprintf(f, "\n");
    for (size_t row = 0; row < rows; row++) {
        const occ_kernel *a = &act[row * ND], *q = &req[row * ND];
        fprintf(f, "%u %u %d %d |", a->regs_per_thread, q->wg[0], (int)q->carveout_pct,
                q->barrier ? 1 : 0);
        for (size_t d = 0; d < ND; d++)
            fprintf(f, " %d", (int)ans[row * ND + d]);
        fprintf(f, "\n");
    }
    fclose(f);
    printf("sweep: %zu driver queries (%zu rows) written to %s\n", n, rows, path);
    free(req);
    free(act);
    free(ans);
    return 0;
}

/* ---- the launches --------------------------------------------------------------- */

static void config_name(const config *c, size_t i, char *buf, size_t size)
{
    char wg[32], regs[16], slm[24], carve[16];
    if (c->wg[1] > 1 || c->wg[2] > 1)
        snprintf(wg, sizeof wg, "%ux%ux%u", c->wg[0], c->wg[1], c->wg[2]);
    else
        snprintf(wg, sizeof wg, "%u", c->wg[0]);
    if (c->regs)
        snprintf(regs, sizeof regs, "r%u", c->regs);
    else
        snprintf(regs, sizeof regs, "rmin");
    snprintf(slm, sizeof slm, "s%llu", (unsigned long long)c->slm);
    if (c->carveout < 0)
        snprintf(carve, sizeof carve, "cdef");
    else
        snprintf(carve, sizeof carve, "c%d", (int)c->carveout);
    snprintf(buf, size, "%03zu-wg%s-%s-%s-%s%s", i, wg, regs, slm, carve, c->barrier ? "-bar" : "");
}

static int run_launches(occ_backend **bp, const occ_backend_options *o, const char *dir,
                        const occ_device_desc *desc, const occ_backend_info *info)
{
    occ_device *dev;
    occ_diag diag;
    if (occ_device_create(desc, &dev, &diag) != OCC_OK) {
        fprintf(stderr, "live description invalid: %s\n", diag.message);
        return 1;
    }
    char path[1024];
    snprintf(path, sizeof path, "%s/records", dir);
    mkdir(path, 0777);
    snprintf(path, sizeof path, "%s/summary.tsv", dir);
    FILE *sum = fopen(path, "w");
    if (!sum)
        return 1;
    fprintf(sum, "name\twhy\tgroups\tregs\tslm\tmodel\tdriver\tpred_peak\tmeas_peak\tpred_phases\t"
                 "meas_phases\tmax_pp\tmax_dur\tresult\n");
    int fails = 0;
    for (size_t i = 0; i < n_cfgs; i++) {
        const config *c = &cfgs[i];
        occ_probe_config pc;
        occ_probe_config_init(&pc);
        pc.kernel.wg[0] = c->wg[0];
        pc.kernel.wg[1] = c->wg[1];
        pc.kernel.wg[2] = c->wg[2];
        pc.kernel.regs_per_thread = c->regs;
        pc.kernel.slm_bytes = c->slm;
        pc.kernel.carveout_pct = c->carveout;
        pc.kernel.barrier = c->barrier;
        pc.duration_s = c->duration_us * 1e-6;
        occ_residency r;
        occ_residency_compute(dev, &pc.kernel, &r);
        char why[256];
        occ_residency_reason(dev, &pc.kernel, why, sizeof why);
        uint64_t wave = (uint64_t)desc->cores * (r.launchable && r.resident_wgs ? r.resident_wgs : 1);
        pc.work_groups = c->shape < 0 ? c->groups : groups_for(c->shape, wave);
        char name[128];
        config_name(c, i, name, sizeof name);
        occ_probe_result res;
        occ_status s = occ_backend_launch(*bp, &pc, &res, &diag);
        if (s != OCC_OK) {
            fprintf(sum, "%s\t%s\t%llu\t%u\t%llu\t%u\t-\t-\t-\t-\t-\t-\t-\trefused: %s (model: %s)\n",
                    name, c->why, (unsigned long long)pc.work_groups, c->regs,
                    (unsigned long long)c->slm, r.launchable ? r.resident_wgs : 0, diag.message,
                    r.launchable ? "launchable" : why);
            printf("%s: %s\n", name, diag.message);
            if (s == OCC_ERR_DEVICE) { /* the watchdog or a crash: start over */
                occ_backend_close(*bp);
                if (occ_backend_open("cuda", o, bp, &diag) != OCC_OK) {
                    fprintf(stderr, "cannot reopen: %s\n", diag.message);
                    return 1;
                }
            }
            if (r.launchable)
                fails++;
            continue;
        }
        snprintf(path, sizeof path, "%s/records/%s.rec", dir, name);
        FILE *f = fopen(path, "w");
        if (f) {
            occ_probe_file_write(f, info, desc, &res);
            fclose(f);
        }
        /* the same analysis as occcalc validate */
        occ_residency ra;
        occ_residency_compute(dev, &res.actual, &ra);
        occ_measure_params p;
        occ_measure_params_init(&p);
        p.cores = desc->cores;
        p.contexts_per_core = ra.contexts_per_core;
        p.contexts_per_wg = ra.contexts_per_wg;
        p.tick_seconds = res.tick_seconds;
        p.lanes = true;
        occ_timeline meas, pred;
        occ_measure_info mi;
        occ_comparison cmp;
        memset(&cmp, 0, sizeof cmp);
        bool ok = false;
        if (occ_timeline_from_records(res.records, res.n_records, &p, &meas, &mi, &diag) == OCC_OK) {
            if (occ_validation_predict(dev, &res.actual, res.work_groups, &pred) == OCC_OK) {
                occ_timeline_compare(&pred, mi.median_wg_s, &meas, NULL, &cmp);
                ok = cmp.pass && !res.records_missing && !res.records_invalid &&
                     res.driver_resident == (int32_t)ra.resident_wgs;
                occ_timeline_free(&pred);
            }
            occ_timeline_free(&meas);
        }
        fails += !ok;
        fprintf(sum, "%s\t%s\t%llu\t%u\t%llu\t%u\t%d\t%u\t%u\t%zu\t%zu\t%.3f\t%.4f\t%s\n", name,
                c->why, (unsigned long long)res.work_groups, res.actual.regs_per_thread,
                (unsigned long long)res.actual.slm_bytes, ra.resident_wgs, (int)res.driver_resident,
                cmp.predicted_peak_per_core, cmp.measured_peak_per_core, cmp.predicted_phases,
                cmp.measured_phases, cmp.max_occupancy_diff_pp, cmp.max_duration_diff_rel,
                ok ? "pass" : cmp.summary[0] ? cmp.summary : "FAIL");
        printf("%-44s %5llu wgs  model %2u driver %2d  peak %2u/%2u  phases %zu/%zu  %s\n", name,
               (unsigned long long)res.work_groups, ra.resident_wgs, (int)res.driver_resident,
               cmp.predicted_peak_per_core, cmp.measured_peak_per_core, cmp.predicted_phases,
               cmp.measured_phases, ok ? "pass" : "FAIL");
        occ_probe_result_free(&res);
    }
    fclose(sum);
    occ_device_free(dev);
    printf("launches: %zu configurations, %d not passing\n", n_cfgs, fails);
    return 0;
}

/* --list: the configurations and their work-group counts on the shipped
 * h100-sxm profile, without a device. */
static int list_configs(void)
{
    occ_device *dev;
    occ_diag diag;
    if (occ_device_builtin("h100-sxm", &dev, &diag) != OCC_OK)
        return 1;
    build_configs();
    uint64_t total = 0;
    for (size_t i = 0; i < n_cfgs; i++) {
        const config *c = &cfgs[i];
        occ_kernel k;
        occ_kernel_init(&k);
        memcpy(k.wg, c->wg, sizeof k.wg);
        k.regs_per_thread = c->regs ? c->regs : 16;
        k.slm_bytes = c->slm;
        k.carveout_pct = c->carveout;
        k.barrier = c->barrier;
        occ_residency r;
        occ_residency_compute(dev, &k, &r);
        uint64_t wave = 132ull * (r.launchable && r.resident_wgs ? r.resident_wgs : 1);
        uint64_t g = c->shape < 0 ? c->groups : groups_for(c->shape, wave);
        char name[128];
        config_name(c, i, name, sizeof name);
        printf("%-40s %-38s res %2u groups %5llu waves %.2f\n", name, c->why,
               r.launchable ? r.resident_wgs : 0, (unsigned long long)g, (double)g / wave);
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
    if (argc != 2) {
        fprintf(stderr, "usage: cuda_campaign OUTDIR | --list\n");
        return 2;
    }
    const char *dir = argv[1];
    mkdir(dir, 0777);
    occ_backend_options o;
    occ_backend_options_init(&o);
    o.timeout_s = 60;
    occ_backend *b;
    occ_diag diag;
    if (occ_backend_open("cuda", &o, &b, &diag) != OCC_OK) {
        fprintf(stderr, "cuda_campaign: %s\n", diag.message);
        return 77;
    }
    occ_device_desc desc;
    occ_backend_info info;
    if (occ_backend_describe(b, &desc, &info, &diag) != OCC_OK) {
        fprintf(stderr, "cuda_campaign: %s\n", diag.message);
        return 1;
    }
    printf("device: %s, %s, %u SMs\n", info.device, info.driver, desc.cores);
    char path[1024];
    snprintf(path, sizeof path, "%s/sweep.txt", dir);
    int rc = run_sweep(b, path, &info);
    build_configs();
    printf("launches: %zu configurations\n", n_cfgs);
    if (!rc)
        rc = run_launches(&b, &o, dir, &desc, &info);
    occ_backend_close(b);
    return rc;
}
