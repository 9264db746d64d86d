/*
 * The Python tests' reference: libocc's answers through the shared library
 * and occ_residency_compute one by one, a code path independent of the
 * extension's (which narrows NumPy arrays into columns and calls
 * occ_evaluate_columns).
 *
 *   occ_reference eval DEVICE IN OUT   IN: n x 9 int64 (wg x, y, z, sg, slm,
 *                                      barrier, grf, regs, carveout); OUT:
 *                                      n x 16 float64 (columns below)
 *   occ_reference bench DEVICE IN      time the same configurations in C:
 *                                      one by one, occ_evaluate_batch and
 *                                      occ_evaluate_columns (chunks of 4096,
 *                                      the extension's), prints
 *                                      "one_by_one_ns batch_ns columns_ns"
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "occ/advise.h"
#include "occ/occ.h"

enum { IN_COLS = 9, OUT_COLS = 16 };

static long long *read_configs(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    if (size < 0 || size % (long)(IN_COLS * sizeof(long long))) {
        fprintf(stderr, "%s: not n x %d int64\n", path, IN_COLS);
        fclose(f);
        return NULL;
    }
    long long *v = malloc((size_t)size + 1);
    if (!v || fread(v, 1, (size_t)size, f) != (size_t)size) {
        fprintf(stderr, "%s: cannot read\n", path);
        free(v);
        fclose(f);
        return NULL;
    }
    fclose(f);
    *n = (size_t)size / (IN_COLS * sizeof(long long));
    return v;
}

static void kernel_of(const long long *c, occ_kernel *k)
{
    occ_kernel_init(k);
    k->wg[0] = (uint32_t)c[0];
    k->wg[1] = (uint32_t)c[1];
    k->wg[2] = (uint32_t)c[2];
    k->sub_group = (uint32_t)c[3];
    k->slm_bytes = (uint64_t)c[4];
    k->barrier = c[5] != 0;
    k->grf = (uint32_t)c[6];
    k->regs_per_thread = (uint32_t)c[7];
    k->carveout_pct = (int32_t)c[8];
}

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc < 4 || (strcmp(argv[1], "eval") && strcmp(argv[1], "bench")) ||
        (!strcmp(argv[1], "eval") && argc != 5)) {
        fprintf(stderr, "usage: occ_reference eval DEVICE IN OUT | bench DEVICE IN\n");
        return 2;
    }
    occ_device *dev = NULL;
    occ_diag diag;
    if (occ_device_open(argv[2], &dev, &diag) != OCC_OK) {
        char msg[1024];
        occ_diag_format(&diag, msg, sizeof msg);
        fprintf(stderr, "%s\n", msg);
        return 3;
    }
    size_t n = 0;
    long long *cfg = read_configs(argv[3], &n);
    if (!cfg)
        return 3;
    occ_kernel *ks = malloc(sizeof *ks * (n ? n : 1));
    for (size_t i = 0; i < n; i++)
        kernel_of(&cfg[i * IN_COLS], &ks[i]);
    int rc = 0;
    if (!strcmp(argv[1], "eval")) {
        FILE *out = fopen(argv[4], "wb");
        if (!out) {
            perror(argv[4]);
            return 3;
        }
        for (size_t i = 0; i < n; i++) {
            occ_residency r;
            occ_residency_init(&r);
            /* Python runs a GRF the device has no mode for as the driver does */
            ks[i].grf = occ_grf_as_driver(occ_device_describe(dev), ks[i].grf);
            if (occ_residency_compute(dev, &ks[i], &r) != OCC_OK) {
                fprintf(stderr, "occ_residency_compute failed at %zu\n", i);
                return 5;
            }
            double row[OUT_COLS] = {
                r.launchable,        r.reason,          r.resident_wgs,   r.occupancy,
                r.contexts_per_wg,   r.contexts_per_core, r.limited_by,   r.sub_group,
                r.grf,               r.contexts_used,   r.slm_per_wg_alloc, r.limits[0],
                r.limits[1],         r.limits[2],       r.limits[3],      r.limits[4],
            };
            if (fwrite(row, sizeof row, 1, out) != 1)
                rc = 3;
        }
        if (fclose(out) != 0 || rc) {
            fprintf(stderr, "%s: write failed\n", argv[4]);
            rc = 3;
        }
    } else {
        /* Best of 5 rounds, thread CPU time, the same kernels in the same order. */
        occ_eval *ev = malloc(sizeof *ev * (n ? n : 1));
        size_t m = n ? n : 1;
        uint32_t *u32 = malloc(sizeof *u32 * m * 9); /* 6 inputs, 3 results */
        uint64_t *slm = malloc(sizeof *slm * m);
        uint8_t *u8 = malloc(m * 3);                 /* barrier, limited_by, reason */
        int32_t *carveout = malloc(sizeof *carveout * m);
        double *occupancy = malloc(sizeof *occupancy * m);
        if (!ev || !u32 || !slm || !u8 || !carveout || !occupancy) {
            fprintf(stderr, "out of memory\n");
            return 5;
        }
        for (size_t i = 0; i < n; i++) {
            const long long *c = &cfg[i * IN_COLS];
            const int u32_in[6] = {0, 1, 2, 3, 6, 7};
            for (int j = 0; j < 6; j++)
                u32[j * m + i] = (uint32_t)c[u32_in[j]];
            slm[i] = (uint64_t)c[4];
            u8[i] = c[5] != 0;
            carveout[i] = (int32_t)c[8];
        }
        double best_one = 1e300, best_batch = 1e300, best_columns = 1e300;
        unsigned sink = 0;
        for (int round = 0; round < 5; round++) {
            double t0 = now_ns();
            for (size_t i = 0; i < n; i++) {
                occ_residency r;
                occ_residency_init(&r);
                occ_residency_compute(dev, &ks[i], &r);
                sink += r.resident_wgs;
            }
            double t1 = now_ns();
            for (size_t i = 0; i < n; i += 4096)
                occ_evaluate_batch(dev, ks + i, ev + i, n - i < 4096 ? n - i : 4096);
            double t2 = now_ns();
            for (size_t i = 0; i < n; i += 4096) {
                occ_columns in;
                occ_columns_init(&in);
                in.wg_x = u32 + i, in.wg_y = u32 + m + i, in.wg_z = u32 + 2 * m + i;
                in.sub_group = u32 + 3 * m + i, in.grf = u32 + 4 * m + i;
                in.regs_per_thread = u32 + 5 * m + i;
                in.slm_bytes = slm + i, in.barrier = u8 + i, in.carveout_pct = carveout + i;
                occ_eval_columns out;
                occ_eval_columns_init(&out);
                out.resident_wgs = u32 + 6 * m + i, out.contexts_per_wg = u32 + 7 * m + i;
                out.contexts_per_core = u32 + 8 * m + i, out.occupancy = occupancy + i;
                out.limited_by = u8 + m + i, out.reason = u8 + 2 * m + i;
                occ_evaluate_columns(dev, n - i < 4096 ? n - i : 4096, &in, &out);
            }
            double t3 = now_ns();
            sink += ev[n ? n - 1 : 0].resident_wgs + u32[7 * m - 1];
            if (t1 - t0 < best_one)
                best_one = t1 - t0;
            if (t2 - t1 < best_batch)
                best_batch = t2 - t1;
            if (t3 - t2 < best_columns)
                best_columns = t3 - t2;
        }
        double per = (double)(n ? n : 1);
        printf("%.2f %.2f %.2f\n", best_one / per, best_batch / per, best_columns / per);
        fprintf(stderr, "(checksum %u)\n", sink);
        free(ev);
        free(u32);
        free(slm);
        free(u8);
        free(carveout);
        free(occupancy);
    }
    free(ks);
    free(cfg);
    occ_device_free(dev);
    return rc;
}
