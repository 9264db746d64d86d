/* Example: an autotuner pruning its search space with libocc before it
 * compiles anything (docs/advisor.md walks through it).
 *
 * The kernel: a tiled matrix product of two 2048 x 2048 float matrices on an
 * Intel Arc A770.  Tunables: the work-group tile TX x TY (one work-item per
 * element of C), the sub-group size, and the depth KB of the slices of A and
 * B kept in SLM: (TX + TY) x KB x 4 bytes per work-group.  How many registers
 * the compiler will use is not known before compiling, so the GRF mode is
 * left unknown.
 *
 *  1. Bounds: for every candidate, the best and worst time-weighted GPU
 *     occupancy over every GRF mode (occ_residency_bounds_batch).  Candidates
 *     whose best case is under 80 % are dropped without compiling.
 *  2. "Compile" the survivors (a stand-in below gives each one a GRF mode, as
 *     a compiler's report would) and score them in one call
 *     (occ_evaluate_batch).
 *  3. Ask the advisor for the best shapes of the global size with the SLM the
 *     best tile depth needs per work-item, and print its reasons.
 *
 * The program checks what it relies on and exits non-zero if any fails: every
 * pruned candidate really is under 80 % once compiled (the bound was safe),
 * and the batch agrees with one-by-one evaluation.  It runs as a test. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "occ/advise.h"

enum { N = 2048 };
#define TARGET 0.80

typedef struct candidate {
    uint32_t tx, ty, sg, kb;
} candidate;

/* Stand-in for the compiler: deep slices at wide sub-groups need the large
 * register file. */
static uint32_t compiled_grf(const candidate *c) { return c->kb * c->sg > 512 ? 256 : 128; }

static occ_kernel kernel_of(const candidate *c)
{
    occ_kernel k;
    occ_kernel_init(&k);
    k.wg[0] = c->tx, k.wg[1] = c->ty;
    k.sub_group = c->sg;
    k.slm_bytes = (uint64_t)(c->tx + c->ty) * c->kb * 4;
    k.barrier = c->kb > 0; /* the slices are loaded cooperatively */
    return k;
}

int main(void)
{
    occ_device *dev = NULL;
    occ_diag diag;
    if (occ_device_builtin("arc-a770", &dev, &diag) != OCC_OK) {
        fprintf(stderr, "example: %s\n", diag.message);
        return 1;
    }
    const occ_device_desc *d = occ_device_describe(dev);

    /* the search space: tiles of 8..64 per side (at most the device's work-group) */
    static const uint32_t sides[] = {8, 16, 32, 64};
    static const uint32_t sgs[] = {8, 16, 32};
    static const uint32_t kbs[] = {8, 16, 32, 64, 128};
    enum { CAP = 4 * 4 * 3 * 5 };
    static candidate cand[CAP];
    size_t n = 0;
    for (size_t a = 0; a < 4; a++)
        for (size_t b = 0; b < 4; b++)
            for (size_t s = 0; s < 3; s++)
                for (size_t m = 0; m < 5; m++)
                    if (sides[a] * sides[b] <= d->max_work_group_size)
                        cand[n++] = (candidate){sides[a], sides[b], sgs[s], kbs[m]};

    /* 1. bounds over the unknown GRF mode, in one call */
    static occ_kernel_range ranges[CAP];
    static occ_bounds bounds[CAP];
    for (size_t i = 0; i < n; i++) {
        occ_kernel_range_init(&ranges[i]);
        ranges[i].k = kernel_of(&cand[i]);
        ranges[i].unknown = OCC_UNKNOWN_REGISTERS;
        ranges[i].work_groups = (uint64_t)N * N / (cand[i].tx * cand[i].ty);
    }
    if (occ_residency_bounds_batch(dev, ranges, bounds, n) != OCC_OK)
        return 1;
    static candidate keep[CAP];
    static bool pruned[CAP];
    size_t kept = 0, never = 0, low = 0;
    for (size_t i = 0; i < n; i++) {
        pruned[i] = bounds[i].never_launchable || bounds[i].gpu_occupancy_max < TARGET;
        never += bounds[i].never_launchable;
        low += !bounds[i].never_launchable && pruned[i];
        if (!pruned[i])
            keep[kept++] = cand[i];
    }

    /* 2. "compile" the survivors and score them exactly, in one call */
    static occ_kernel ks[CAP];
    static occ_eval ev[CAP];
    for (size_t i = 0; i < kept; i++) {
        ks[i] = kernel_of(&keep[i]);
        ks[i].grf = compiled_grf(&keep[i]);
    }
    if (occ_evaluate_batch(dev, ks, ev, kept) != OCC_OK)
        return 1;
    int failures = 0;
    size_t best = SIZE_MAX;
    double best_gpu = -1;
    for (size_t i = 0; i < kept; i++) {
        occ_residency r;
        occ_residency_compute(dev, &ks[i], &r);
        if (ev[i].resident_wgs != (r.launchable ? r.resident_wgs : 0) ||
            ev[i].occupancy != (r.launchable ? r.occupancy : 0)) {
            fprintf(stderr, "example: batch and one-by-one differ for candidate %zu\n", i);
            failures++;
        }
        if (!r.launchable)
            continue;
        occ_gpu g;
        occ_gpu_compute(dev, &r, (uint64_t)N * N / (keep[i].tx * keep[i].ty), &g);
        /* at equal occupancy prefer the larger tile, then the deeper slice:
         * both mean fewer trips to memory per element of C */
        uint64_t area = (uint64_t)keep[i].tx * keep[i].ty;
        bool better = g.average_occupancy > best_gpu + 1e-12;
        if (!better && g.average_occupancy > best_gpu - 1e-12 && best != SIZE_MAX) {
            uint64_t barea = (uint64_t)keep[best].tx * keep[best].ty;
            better = area > barea || (area == barea && keep[i].kb > keep[best].kb);
        }
        if (better)
            best_gpu = g.average_occupancy, best = i;
    }

    /* the bound was safe: every pruned candidate, compiled, is under the target */
    for (size_t i = 0; i < n; i++) {
        if (!pruned[i])
            continue;
        occ_kernel k = kernel_of(&cand[i]);
        k.grf = compiled_grf(&cand[i]);
        occ_residency r;
        occ_residency_compute(dev, &k, &r);
        if (!r.launchable)
            continue;
        occ_gpu g;
        occ_gpu_compute(dev, &r, (uint64_t)N * N / (cand[i].tx * cand[i].ty), &g);
        if (g.average_occupancy >= TARGET) {
            fprintf(stderr, "example: pruned candidate %zu reaches %.3f\n", i, g.average_occupancy);
            failures++;
        }
    }

    printf("search space: %zu candidates on %s\n", n, d->name);
    printf("pruned before compiling: %zu cannot launch in any GRF mode, %zu stay under %.0f %% "
           "over the run in every mode\n", never, low, TARGET * 100);
    printf("compiled and scored: %zu\n", kept);
    if (best == SIZE_MAX) {
        fprintf(stderr, "example: no candidate left\n");
        return 1;
    }
    const candidate *c = &keep[best];
    printf("best: tile %u x %u, sub-group %u, slices of depth %u (%llu B of SLM, GRF %u): %u "
           "work-group%s per %s, %.1f %% over the run\n", c->tx, c->ty, c->sg, c->kb,
           (unsigned long long)ks[best].slm_bytes, ks[best].grf, ev[best].resident_wgs,
           ev[best].resident_wgs == 1 ? "" : "s", d->core_name, best_gpu * 100);

    /* 3. the advisor: with the best tile's SLM and barrier, every shape of
     * the global size of at least 64 work-items, every sub-group size and GRF
     * mode the kernel's registers allow, ranked with reasons */
    occ_advise_request q;
    occ_advise_request_init(&q);
    q.dims = 2;
    q.global[0] = N, q.global[1] = N;
    q.wg_min = 64;
    q.slm_bytes = ks[best].slm_bytes;
    q.barrier = ks[best].barrier;
    q.grf = compiled_grf(c);
    occ_advice top[3];
    size_t m = 0;
    occ_advise_summary s;
    if (occ_advise(dev, &q, top, 3, &m, &s) != OCC_OK || s.failed) {
        fprintf(stderr, "example: advise: %s\n", s.message);
        return 1;
    }
    printf("advisor over %llu shapes: best %u x %u, sub-group %u\n", (unsigned long long)s.shapes,
           top[0].wg[0], top[0].wg[1], top[0].sub_group);
    for (size_t i = 0; i < m; i++) {
        char why[512];
        occ_advice_explain(dev, &top[i], &top[0], why, sizeof why);
        printf("  %zu. %u x %u sg %u: %s\n", i + 1, top[i].wg[0], top[i].wg[1], top[i].sub_group, why);
    }
    occ_device_free(dev);
    return failures ? 1 : 0;
}
