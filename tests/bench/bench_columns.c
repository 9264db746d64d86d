/* The column batch by instruction set: occ_evaluate one by one, and the same
 * kernels as columns through occ_evaluate_columns (which picks AVX2 when the
 * CPU has it) and through model/eval_columns.c with the portable path (4
 * lanes of 16 bytes: SSE2 here) and AVX2 forced.  Then the struct batches
 * on the same lanes: occ_evaluate_batch and occ_residency_batch against
 * occ_evaluate and occ_residency_compute one by one, the same way.  Linked
 * with the internal archive to reach the forced paths, so the one-by-one
 * calls are direct here, not through the shared library's PLT as in
 * bench_residency.  The last row adds the kernel's constraints (a launch
 * bound in every kernel, a required sub-group size in half): the lanes
 * check them, where the struct batches and occ_evaluate leave such kernels
 * to the rule.
 *
 *   build/tests/bench/bench_columns [min_ms]      (docs/performance.md)
 *
 * ns per kernel of the thread's CPU time, best of 5. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "common/internal.h"
#include "model/eval_columns.h"
#include "occ/advise.h"

typedef struct set {
    const char *what;
    occ_device *dev;
    size_t n;
    occ_kernel *ks;
    occ_columns in;
    occ_eval_columns out;
    uint32_t *wg_x, *wg_y, *wg_z, *sg, *grf, *regs, *resident, *max_wg, *reqd_sg;
    uint64_t *slm;
    int32_t *carveout;
    uint8_t *barrier, *limited_by, *reason;
    double *occupancy;
    occ_eval *es;      /* the struct batches' results */
    occ_residency *rs;
} set;

static uint64_t rng_state = 0x243f6a8885a308d3ull;

static uint64_t rng_range(uint64_t lo, uint64_t hi) /* xorshift64*, [lo, hi] */
{
    rng_state ^= rng_state >> 12, rng_state ^= rng_state << 25, rng_state ^= rng_state >> 27;
    return lo + (rng_state * 0x2545f4914f6cdd1dull) % (hi - lo + 1);
}

/* A random configuration: sizes a little past the maximum, mostly supported
 * sub-groups, local memory from none to a little too much, GRF modes,
 * registers and carveouts where the device has them (most launch). */
static occ_kernel random_kernel(const occ_device_desc *d)
{
    occ_kernel k;
    occ_kernel_init(&k);
    if (rng_range(0, 9) < 7) {
        k.wg[0] = (uint32_t)rng_range(1, d->max_work_group_size + d->max_work_group_size / 16);
    } else {
        k.wg[0] = (uint32_t)rng_range(1, 64);
        k.wg[1] = (uint32_t)rng_range(1, 16);
    }
    uint64_t p = rng_range(0, 99);
    k.sub_group = p < 10 ? 0 : p < 97 ? d->sub_group_sizes[rng_range(0, d->n_sub_group_sizes - 1)] : 12;
    k.slm_bytes = rng_range(0, 9) < 4 ? 0 : rng_range(1, d->slm_max_per_work_group * 17 / 16);
    k.barrier = rng_range(0, 1);
    if (d->n_grf_modes > 1 && rng_range(0, 1))
        k.grf = d->grf_modes[rng_range(0, d->n_grf_modes - 1)].registers;
    if (d->has_register_file) {
        k.regs_per_thread = (uint32_t)rng_range(16, 64);
        k.carveout_pct = rng_range(0, 1) ? -1 : (int32_t)rng_range(0, 100);
    }
    return k;
}

/* The kernels as columns; `given`: which input columns (bit i: wg_x, wg_y,
 * wg_z, sub_group, slm, barrier, grf, regs, carveout, max_wg_size,
 * reqd_sub_group); four result columns. */
static void set_columns(set *s, unsigned given)
{
    size_t n = s->n;
    s->wg_x = calloc(n, 4), s->wg_y = calloc(n, 4), s->wg_z = calloc(n, 4), s->sg = calloc(n, 4);
    s->grf = calloc(n, 4), s->regs = calloc(n, 4), s->resident = calloc(n, 4), s->slm = calloc(n, 8);
    s->carveout = calloc(n, 4), s->barrier = calloc(n, 1), s->limited_by = calloc(n, 1);
    s->reason = calloc(n, 1), s->occupancy = calloc(n, 8);
    s->es = calloc(n, sizeof *s->es), s->rs = calloc(n, sizeof *s->rs);
    s->max_wg = calloc(n, 4), s->reqd_sg = calloc(n, 4);
    if (!s->wg_x || !s->wg_y || !s->wg_z || !s->sg || !s->grf || !s->regs || !s->resident || !s->slm ||
        !s->carveout || !s->barrier || !s->limited_by || !s->reason || !s->occupancy || !s->es || !s->rs ||
        !s->max_wg || !s->reqd_sg) {
        fprintf(stderr, "bench_columns: out of memory\n");
        exit(1);
    }
    for (size_t i = 0; i < n; i++) {
        const occ_kernel *k = &s->ks[i];
        s->wg_x[i] = k->wg[0], s->wg_y[i] = k->wg[1], s->wg_z[i] = k->wg[2], s->sg[i] = k->sub_group;
        s->slm[i] = k->slm_bytes, s->barrier[i] = k->barrier, s->grf[i] = k->grf;
        s->regs[i] = k->regs_per_thread, s->carveout[i] = k->carveout_pct;
        s->max_wg[i] = k->max_wg_size, s->reqd_sg[i] = k->reqd_sub_group;
    }
    occ_columns_init(&s->in);
    s->in.wg_x = given & 1 ? s->wg_x : NULL, s->in.wg_y = given & 2 ? s->wg_y : NULL;
    s->in.wg_z = given & 4 ? s->wg_z : NULL, s->in.sub_group = given & 8 ? s->sg : NULL;
    s->in.slm_bytes = given & 16 ? s->slm : NULL, s->in.barrier = given & 32 ? s->barrier : NULL;
    s->in.grf = given & 64 ? s->grf : NULL, s->in.regs_per_thread = given & 128 ? s->regs : NULL;
    s->in.carveout_pct = given & 256 ? s->carveout : NULL;
    s->in.max_wg_size = given & 512 ? s->max_wg : NULL, s->in.reqd_sub_group = given & 1024 ? s->reqd_sg : NULL;
    occ_eval_columns_init(&s->out);
    s->out.resident_wgs = s->resident, s->out.occupancy = s->occupancy;
    s->out.limited_by = s->limited_by, s->out.reason = s->reason;
}

static void set_free(set *s)
{
    free(s->ks), free(s->wg_x), free(s->wg_y), free(s->wg_z), free(s->sg), free(s->grf), free(s->regs);
    free(s->resident), free(s->slm), free(s->carveout), free(s->barrier), free(s->limited_by);
    free(s->reason), free(s->occupancy), free(s->es), free(s->rs), free(s->max_wg), free(s->reqd_sg);
    occ_device_free(s->dev);
}

static occ_device *builtin(const char *name)
{
    occ_device *dev = NULL;
    if (occ_device_builtin(name, &dev, NULL) != OCC_OK) {
        fprintf(stderr, "bench_columns: no built-in profile %s\n", name);
        exit(1);
    }
    return dev;
}

static volatile uint64_t sink;

/* ns per kernel one by one: occ_evaluate, or occ_residency_compute (full). */
static double one_by_one_ns(set *s, bool full, double min_ms)
{
    uint64_t acc = 0;
    double ns;
    size_t j = 0;
    occ_eval e;
    occ_residency r;
    BENCH_PER_CALL(ns, min_ms, 5, {
        if (full) {
            occ_residency_compute(s->dev, &s->ks[j], &r);
            acc += r.resident_wgs;
        } else {
            occ_evaluate(s->dev, &s->ks[j], &e);
            acc += e.resident_wgs;
        }
        if (++j == s->n)
            j = 0;
    });
    sink += acc;
    return ns;
}

/* One row: ns per kernel one by one, as columns (AUTO, portable, AVX2). */
static void row(set *s, double min_ms)
{
    uint64_t acc = 0;
    double one = one_by_one_ns(s, false, min_ms), cols, portable = 0, avx2 = 0;
    BENCH_PER_CALL(cols, min_ms, 5, {
        occ_evaluate_columns(s->dev, s->n, &s->in, &s->out);
        acc += s->resident[bench_i % s->n];
    });
    cols /= (double)s->n;
    const occ__fast *f = occ__fast_of(s->dev);
    if (f) {
        BENCH_PER_CALL(portable, min_ms, 5, {
            occ__eval_columns(f, s->n, &s->in, &s->out, OCC__COLUMNS_PORTABLE);
            acc += s->resident[bench_i % s->n];
        });
        portable /= (double)s->n;
        if (occ__columns_have_avx2()) {
            BENCH_PER_CALL(avx2, min_ms, 5, {
                occ__eval_columns(f, s->n, &s->in, &s->out, OCC__COLUMNS_AVX2);
                acc += s->resident[bench_i % s->n];
            });
            avx2 /= (double)s->n;
        }
    }
    sink += acc;
    printf("  %-44s %7.1f %7.1f %5.2fx %7.1f %5.2fx", s->what, one, cols, cols / one, portable, portable / one);
    if (avx2 > 0)
        printf(" %7.1f %5.2fx\n", avx2, avx2 / one);
    else
        printf(" %7s\n", "-");
}

/* ns per kernel of a struct batch: full (occ_residency_batch) or compact
 * (occ_evaluate_batch), through the public call (isa AUTO) or with an
 * instruction set forced; 0 where the forced one cannot run. */
static double structs_ns(set *s, bool full, occ__columns_isa isa, double min_ms)
{
    const occ__fast *f = occ__fast_of(s->dev);
    if (isa != OCC__COLUMNS_AUTO && (!f || (isa == OCC__COLUMNS_AVX2 && !occ__columns_have_avx2())))
        return 0;
    uint64_t acc = 0;
    double ns;
    BENCH_PER_CALL(ns, min_ms, 5, {
        if (isa == OCC__COLUMNS_AUTO && full)
            occ_residency_batch(s->dev, s->ks, s->rs, s->n);
        else if (isa == OCC__COLUMNS_AUTO)
            occ_evaluate_batch(s->dev, s->ks, s->es, s->n);
        else if (full)
            occ__residency_structs(f, s->n, s->ks, s->rs, isa);
        else
            occ__eval_structs(f, s->n, s->ks, s->es, isa);
        acc += full ? s->rs[bench_i % s->n].resident_wgs : s->es[bench_i % s->n].resident_wgs;
    });
    sink += acc;
    return ns / (double)s->n;
}

/* One row of the struct batches: compact, then full, each one by one, the
 * public batch call, portable and AVX2 forced. */
static void row_structs(set *s, double min_ms)
{
    printf("  %-44s", s->what);
    for (int full = 0; full < 2; full++) {
        double one = one_by_one_ns(s, full, min_ms);
        printf(" %6.1f", one);
        static const occ__columns_isa isas[3] = {OCC__COLUMNS_AUTO, OCC__COLUMNS_PORTABLE, OCC__COLUMNS_AVX2};
        for (int k = 0; k < 3; k++) {
            double ns = structs_ns(s, full, isas[k], min_ms);
            if (ns > 0)
                printf(" %5.1f %4.2fx", ns, ns / one);
            else
                printf(" %5s %5s", "-", "");
        }
    }
    printf("\n");
}

int main(int argc, char **argv)
{
    bench_pin_cpu(); /* one CPU: steadier figures on a many-core host */
    double min_ms = argc > 1 ? atof(argv[1]) : 100;
    char machine[256];
    bench_machine(machine, sizeof machine);
    printf("bench_columns: occ_evaluate one by one against occ_evaluate_columns, by instruction set\n"
           "machine: %s; AVX2 %s\nns per kernel (thread CPU time, best of 5); ratio to one by one\n",
           machine, occ__columns_have_avx2() ? "yes" : "no");
    printf("  %-44s %7s %7s %6s %7s %6s %7s %6s\n", "kernels", "1-by-1", "columns", "", "portab.", "", "AVX2",
           "");

    enum { SETS = 9 };
    set sets[SETS];
    size_t n_sets = 0;
    /* tgl: work-group 1..512 for each sub-group size, as a tuner sweeps */
    for (int all = 0; all < 2; all++) {
        set *s = &sets[n_sets++];
        *s = (set){.what = all ? "tgl sweep 1..512 x sg, every column" : "tgl sweep 1..512 x sg, wg_x + sub_group",
                   .dev = builtin("tgl")};
        const occ_device_desc *d = occ_device_describe(s->dev);
        s->n = 512 * d->n_sub_group_sizes;
        s->ks = calloc(s->n, sizeof *s->ks);
        if (!s->ks)
            return 1;
        for (size_t i = 0; i < s->n; i++) {
            occ_kernel_init(&s->ks[i]);
            s->ks[i].wg[0] = (uint32_t)(i % 512 + 1);
            s->ks[i].sub_group = d->sub_group_sizes[i / 512];
        }
        set_columns(s, all ? 0x1ff : 0x9);
    }
    /* h100-sxm: 32 block sizes x 5 shared-memory sizes, 32 registers */
    {
        static const uint64_t smem[5] = {0, 8192, 16384, 32768, 49152};
        set *s = &sets[n_sets++];
        *s = (set){.what = "h100-sxm 160: wg_x, slm_bytes, regs", .dev = builtin("h100-sxm"), .n = 160};
        s->ks = calloc(s->n, sizeof *s->ks);
        if (!s->ks)
            return 1;
        for (size_t i = 0; i < s->n; i++) {
            occ_kernel_init(&s->ks[i]);
            s->ks[i].wg[0] = (uint32_t)(32 * (1 + i % 32));
            s->ks[i].slm_bytes = smem[i / 32];
            s->ks[i].regs_per_thread = 32;
        }
        set_columns(s, 0x1 | 0x10 | 0x80);
    }
    /* random configurations, every column, a few profiles */
    static const char *const random_on[] = {"tgl", "arc-a770", "ptl", "h100-sxm", "a100"};
    static char what[5][64];
    for (size_t p = 0; p < sizeof random_on / sizeof *random_on; p++) {
        snprintf(what[p], sizeof what[p], "%s 4096 random, every column", random_on[p]);
        set *s = &sets[n_sets++];
        *s = (set){.what = what[p], .dev = builtin(random_on[p]), .n = 4096};
        const occ_device_desc *d = occ_device_describe(s->dev);
        s->ks = calloc(s->n, sizeof *s->ks);
        if (!s->ks)
            return 1;
        for (size_t i = 0; i < s->n; i++)
            s->ks[i] = random_kernel(d);
        set_columns(s, 0x1ff);
    }
    /* tgl's random configurations again, with the kernel's constraints */
    {
        set *s = &sets[n_sets++];
        *s = (set){.what = "tgl 4096 random, constraints too", .dev = builtin("tgl"), .n = 4096};
        const occ_device_desc *d = occ_device_describe(s->dev);
        s->ks = calloc(s->n, sizeof *s->ks);
        if (!s->ks)
            return 1;
        for (size_t i = 0; i < s->n; i++) {
            s->ks[i] = random_kernel(d);
            s->ks[i].max_wg_size = (uint32_t)rng_range(32, d->max_work_group_size);
            if (rng_range(0, 1))
                s->ks[i].reqd_sub_group = d->sub_group_sizes[rng_range(0, d->n_sub_group_sizes - 1)];
        }
        set_columns(s, 0x7ff);
    }
    for (size_t i = 0; i < n_sets; i++)
        row(&sets[i], min_ms);
    printf("\nthe same kernels as occ_kernel structs: occ_evaluate_batch against occ_evaluate, then\n"
           "occ_residency_batch against occ_residency_compute (the columns given above do not matter)\n");
    printf("  %-44s %6s %11s %11s %11s %6s %11s %11s %11s\n", "kernels", "1-by-1", "batch", "portab.", "AVX2",
           "full", "batch", "portab.", "AVX2");
    for (size_t i = 0; i < n_sets; i++) {
        if (i == 1) /* the tgl sweep again: the same structs */
            continue;
        row_structs(&sets[i], min_ms);
    }
    for (size_t i = 0; i < n_sets; i++)
        set_free(&sets[i]);
    return 0;
}
