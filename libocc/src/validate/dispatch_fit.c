/* Dispatch timing from two probe launches (docs/phases.md "Dispatch timing",
 * docs/validation/cuda-h100-2026-11-24.md): what `occcalc probe` measures.
 *
 *  small: blocks of one warp (one thread context), at least two full waves;
 *  large: the largest blocks the device takes (many contexts), at least two
 *         full waves.
 *
 * Per core, the blocks that started before the core's first end are its first
 * wave (k of them); the next k starts are its refills.  Then
 *   refill gap    = median over cores of (first refill - first end)      (small)
 *   GPU interval  = (last - first refill start over the GPU) / refills    (small)
 *   core interval = median over cores of the median spacing of refills    (small)
 *   per context   = median over cores of (second - first refill) / contexts (large) */
#include "common/internal.h"
#include "occ/backend.h"

#include <stdlib.h>
#include <string.h>

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, size_t n)
{
    if (!n)
        return -1;
    qsort(v, n, sizeof *v, cmp_dbl);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* One core's starts and ends, sorted. */
typedef struct core_times {
    uint64_t *s, *e;
    size_t n, k; /* blocks, first wave */
} core_times;

static bool split(const occ_probe_result *r, uint32_t cores, core_times *ct, uint64_t **mem)
{
    size_t n = r->n_records;
    uint64_t *buf = malloc(2 * (n ? n : 1) * sizeof *buf);
    size_t *count = calloc(cores, sizeof *count);
    if (!buf || !count) {
        free(buf);
        free(count);
        return false;
    }
    for (size_t i = 0; i < n; i++)
        if (r->records[i].core_start < cores)
            count[r->records[i].core_start]++;
    size_t at = 0;
    for (uint32_t c = 0; c < cores; c++) {
        ct[c].s = buf + at;
        ct[c].e = buf + n + at;
        ct[c].n = 0;
        at += count[c];
    }
    for (size_t i = 0; i < n; i++) {
        const occ_record *x = &r->records[i];
        if (x->core_start >= cores)
            continue;
        core_times *t = &ct[x->core_start];
        t->s[t->n] = x->t_start;
        t->e[t->n] = x->t_end;
        t->n++;
    }
    for (uint32_t c = 0; c < cores; c++) {
        core_times *t = &ct[c];
        qsort(t->s, t->n, sizeof *t->s, cmp_u64);
        qsort(t->e, t->n, sizeof *t->e, cmp_u64);
        t->k = 0;
        while (t->k < t->n && t->s[t->k] < t->e[0])
            t->k++;
    }
    free(count);
    *mem = buf;
    return true;
}

occ_status occ_dispatch_timing_fit(const occ_probe_result *small, uint32_t small_contexts,
                                   const occ_probe_result *large, uint32_t large_contexts,
                                   uint32_t cores, occ_device_desc *out, occ_diag *diag)
{
    if (!small || !large || !out || !cores || !small_contexts || !large_contexts)
        return OCC_ERR_INVALID_ARGUMENT;
    core_times *a = calloc(cores, sizeof *a), *b = calloc(cores, sizeof *b);
    double *v = malloc(cores * sizeof *v), *w = NULL;
    uint64_t *ma = NULL, *mb = NULL;
    occ_status st = OCC_ERR_NO_MEMORY;
    if (!a || !b || !v || !split(small, cores, a, &ma) || !split(large, cores, b, &mb))
        goto out;
    st = OCC_ERR_VALUE;
    /* refill gap and GPU-wide refill span (small blocks) */
    size_t m = 0, refills = 0, most = 0;
    uint64_t first = UINT64_MAX, last = 0;
    for (uint32_t c = 0; c < cores; c++) {
        core_times *t = &a[c];
        if (!t->k || t->n < 2 * t->k)
            continue;
        v[m++] = (double)t->s[t->k] - (double)t->e[0];
        if (t->s[t->k] < first)
            first = t->s[t->k];
        if (t->s[2 * t->k - 1] > last)
            last = t->s[2 * t->k - 1];
        refills += t->k;
        if (t->k > most)
            most = t->k;
    }
    if (m < cores / 2 || refills < 2) {
        occ__diag(diag, st, NULL, 0, 0, "dispatch",
                  "the small-block launch has no second wave on most cores");
        goto out;
    }
    double tick = small->tick_seconds;
    out->refill_gap_s = median(v, m) * tick;
    out->gpu_interval_s = (double)(last - first) / (double)(refills - 1) * tick;
    /* core interval: each core's median spacing of its refills */
    w = malloc((most ? most : 1) * sizeof *w);
    if (!w) {
        st = OCC_ERR_NO_MEMORY;
        goto out;
    }
    m = 0;
    for (uint32_t c = 0; c < cores; c++) {
        core_times *t = &a[c];
        if (t->k < 2 || t->n < 2 * t->k)
            continue;
        for (size_t i = 0; i + 1 < t->k; i++)
            w[i] = (double)t->s[t->k + i + 1] - (double)t->s[t->k + i];
        v[m++] = median(w, t->k - 1);
    }
    out->core_interval_s = m ? median(v, m) * tick : 0;
    /* per context (large blocks): the second refill after the first */
    m = 0;
    for (uint32_t c = 0; c < cores; c++) {
        core_times *t = &b[c];
        if (t->k < 2 || t->n < t->k + 2)
            continue;
        v[m++] = ((double)t->s[t->k + 1] - (double)t->s[t->k]) / large_contexts;
    }
    if (m < cores / 2) {
        occ__diag(diag, st, NULL, 0, 0, "dispatch",
                  "the large-block launch has no two refills on most cores");
        goto out;
    }
    out->core_interval_per_context_s = median(v, m) * large->tick_seconds;
    (void)small_contexts;
    if (out->refill_gap_s < 0)
        out->refill_gap_s = 0;
    st = OCC_OK;
out:
    free(a);
    free(b);
    free(v);
    free(w);
    free(ma);
    free(mb);
    return st;
}
