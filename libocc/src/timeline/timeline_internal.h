/* Private to libocc: the phase tracker shared by the dispatch simulator and the
 * chunk-timeline builder.  A caller changes per-core busy contexts and
 * resident work-groups, then calls occ__trk_instant(T) once all events at time
 * T are applied; the tracker decides whether a phase ends at T (some core's
 * busy contexts differ from the open phase's, or merge is NONE), stores or
 * counts phases and keeps the run's summary.  Work per change is O(1); per
 * closed phase O(cores touched), plus O(cores) when lanes are stored. */
#ifndef OCC_TIMELINE_INTERNAL_H
#define OCC_TIMELINE_INTERNAL_H

#include <math.h>

#include "common/internal.h"
#include "occ/timeline.h"

typedef struct occ__tracker {
    occ_timeline *tl;
    uint32_t cores;
    uint64_t contexts_total;
    bool lanes, store, merge_none;
    size_t max_phases;
    bool overflow;        /* more phases than max_phases: stored ones dropped */
    occ_status err;       /* OCC_ERR_NO_MEMORY once an allocation failed */
    size_t cap;           /* phases allocated */

    /* the present state */
    uint32_t *busy, *wgs;
    uint64_t busy_total, wgs_total;
    uint32_t cores_busy;

    /* the open phase */
    bool open;
    double start;
    uint32_t *base;       /* per-core busy contexts of the open phase */
    uint32_t *wg_max;     /* per-core most work-groups during it */
    uint64_t base_total, wg_max_total;
    uint32_t base_cores_busy;
    uint32_t n_diff;      /* cores whose busy differs from base */
    uint32_t *touched;    /* cores changed since the phase opened */
    uint32_t n_touched;
    uint32_t *batch;      /* cores changed since the last instant */
    uint32_t n_batch;
    uint8_t *flags;       /* bit 0: in touched, bit 1: in batch */

    /* summary */
    size_t n;             /* phases closed */
    double area;          /* sum of busy contexts x length */
    uint64_t peak;
    uint32_t peak_core_wgs;
} occ__tracker;

occ_status occ__trk_init(occ__tracker *t, occ_timeline *tl, uint32_t cores,
                         uint32_t contexts_per_core, bool lanes, bool store, occ_merge merge,
                         size_t max_phases);
void occ__trk_free(occ__tracker *t);
/* All events at time T applied: returns true when a phase ended at T. */
bool occ__trk_instant(occ__tracker *t, double T);
/* Equal durations: the run repeats a stretch of `length` time with m phase
 * ends and busy-context area `area`, `times` more times (only while phases
 * are counted, not stored, or when m == 0). */
void occ__trk_repeat(occ__tracker *t, uint64_t times, double length, uint64_t m, double area);
/* The run is over (all contexts idle): fill the summary of tl.  Returns the
 * status: OCC_OK, OCC_ERR_TOO_LARGE or OCC_ERR_NO_MEMORY. */
occ_status occ__trk_finish(occ__tracker *t, double start, double end);

/* The draws' blocks (draws.c) must compute what occ__draw does, operation by
 * operation: no fused multiply-adds.  GCC does not contract in ISO C mode;
 * clang does by default where the target has FMA. */
#ifdef __clang__
#pragma STDC FP_CONTRACT OFF
#endif

/* ---- duration draws: a counter-based generator (splitmix64's finaliser), so
 * the duration of work-group i depends on (seed, i) only, in any order ---- */

static inline uint64_t occ__mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in (0, 1), open: draw j < 64 of work-group i; mixed = occ__mix64(seed). */
static inline double occ__unit(uint64_t mixed, uint64_t i, uint64_t j)
{
    uint64_t z = occ__mix64(mixed + (i * 64 + j + 1) * 0x9e3779b97f4a7c15ull);
    return ((double)(z >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

/* The standard normal quantile (Acklam's rational approximation, relative
 * error below 1.2e-9). */
double occ__normal_quantile(double p);

/* Its central part, for OCC__NORMAL_LOW <= p <= 1 - OCC__NORMAL_LOW, with
 * q = p - 0.5 and r = q * q: one expression, so that the simulator's block of
 * draws (two at a time, with vector types) computes exactly what
 * occ__normal_quantile does one by one. */
#define OCC__NORMAL_LOW 0.02425
#define OCC__NORMAL_CENTRAL(q, r)                                                                  \
    ((((((-3.969683028665376e+01 * (r) + 2.209460984245205e+02) * (r) - 2.759285104469687e+02) *   \
           (r) +                                                                                   \
       1.383577518672690e+02) *                                                                    \
          (r) -                                                                                    \
      3.066479806614716e+01) *                                                                     \
         (r) +                                                                                     \
     2.506628277459239e+00) *                                                                      \
     (q) /                                                                                         \
     (((((-5.447609879822406e+01 * (r) + 1.615858368580409e+02) * (r) - 1.556989798598866e+02) *   \
           (r) +                                                                                   \
       6.680131188771972e+01) *                                                                    \
          (r) -                                                                                    \
      1.328068155288572e+01) *                                                                     \
         (r) +                                                                                     \
     1))

/* The tails' rational function of q = sqrt(-2 log(side)), one expression for
 * the same reason (the block of draws computes it in vectors). */
#define OCC__NORMAL_TAIL_RATIONAL(q)                                                               \
    ((((((-7.784894002430293e-03 * (q) - 3.223964580411365e-01) * (q) - 2.400758277161838e+00) *   \
          (q) -                                                                                    \
      2.549732539343734e+00) *                                                                     \
         (q) +                                                                                     \
     4.374664141464968e+00) *                                                                      \
         (q) +                                                                                     \
     2.938163982698783e+00) /                                                                      \
     ((((7.784695709041462e-03 * (q) + 3.224671290700398e-01) * (q) + 2.445134137142996e+00) *     \
          (q) +                                                                                    \
      3.754408661907416e+00) *                                                                     \
         (q) +                                                                                     \
     1))

/* Its tails, p < OCC__NORMAL_LOW or p > 1 - OCC__NORMAL_LOW (here so that the
 * simulator's block of draws computes them as occ__normal_quantile does). */
static inline double occ__normal_tail(double p)
{
    const bool lower = p < OCC__NORMAL_LOW;
    double q = sqrt(-2 * log(lower ? p : 1 - p));
    double x = OCC__NORMAL_TAIL_RATIONAL(q);
    return lower ? x : -x;
}

static inline double occ__draw(const occ_durations *d, uint64_t mixed, uint64_t i)
{
    switch (d->kind) {
    case OCC_DURATIONS_LIST:
        return d->values[i % d->n_values];
    case OCC_DURATIONS_UNIFORM:
        return d->a + (d->b - d->a) * occ__unit(mixed, i, 0);
    case OCC_DURATIONS_NORMAL:
        /* a draw <= 0 is replaced by the next (a normal truncated to > 0);
         * each is positive with probability >= 1/2 */
        for (uint64_t j = 0; j < 64; j++) {
            double v = d->a + d->b * occ__normal_quantile(occ__unit(mixed, i, j));
            if (v > 0)
                return v;
        }
        return d->a;
    case OCC_DURATIONS_EQUAL:
    default:
        return 1.0;
    }
}

/* For tests of the simulator (timeline_sim.c), set by them only (the
 * simulator reads them): off = true sends the steady state through the
 * calendar only (no lanes); base = true uses the lanes' copy without AVX2;
 * runs counts the lanes' runs (atomic: simulations may run in threads). */
typedef struct occ__lanes_hook {
    bool off, base;
    _Atomic uint64_t runs;
} occ__lanes_hook_t;
extern occ__lanes_hook_t occ__lanes_hook;

/* Blocks of draws (draws.c): out[k] = occ__draw(d, mixed, first + k) for k <
 * OCC__DRAW_BLOCK, bit for bit, for UNIFORM and NORMAL durations, by any copy
 * up to the best this CPU has (occ__draw_block_best): the base one (SSE2 or
 * portable C), AVX2 (four lanes at a time), or AVX2 with AVX-512's 64-bit
 * multiplication and conversion. */
#define OCC__DRAW_BLOCK 256
typedef enum occ__draw_copy { OCC__DRAW_BASE, OCC__DRAW_AVX2, OCC__DRAW_AVX512 } occ__draw_copy;
occ__draw_copy occ__draw_block_best(void);
void occ__draw_block(const occ_durations *d, uint64_t mixed, uint64_t first, occ__draw_copy copy,
                     double *out);

/* Dispatch with timing (dispatch_timed.c): whole work-groups of one size;
 * drain: registers limit the residency (the profile's refill_gap_drained
 * rule applies); threads_limit: thread contexts alone limit it (the
 * refill_window_threads rule).  With refill_pause_s and the spread order it
 * hands over to occ__simulate_timed_reports (dispatch_reports.c). */
occ_status occ__simulate_timed(const occ_device_desc *d, uint32_t contexts_per_core,
                               uint32_t contexts_per_wg, uint32_t resident_wgs, bool spread,
                               bool drain, bool threads_limit, uint64_t N,
                               const occ_sim_options *o, occ_timeline *out, occ_diag *diag);
/* A launch in thread-block clusters (dispatch_clusters.c): clusters placed
 * on distinct cores of one GPC, the timeline from their intervals. */
occ_status occ__simulate_clusters(const occ_device *dev, const occ_kernel *k, const occ_residency *r,
                                  uint64_t work_groups, const occ_sim_options *opts, occ_timeline *out,
                                  occ_diag *diag);
occ_status occ__simulate_timed_reports(const occ_device_desc *d, uint32_t contexts_per_core,
                                       uint32_t contexts_per_wg, uint32_t resident_wgs,
                                       bool drain, bool threads_limit, uint64_t N,
                                       const occ_sim_options *o, occ_timeline *out,
                                       occ_diag *diag);

static inline void occ__trk_mark(occ__tracker *t, uint32_t c)
{
    uint8_t f = t->flags[c];
    if (!(f & 1))
        t->touched[t->n_touched++] = c;
    if (!(f & 2))
        t->batch[t->n_batch++] = c;
    t->flags[c] = 3;
}

static inline void occ__trk_set_busy(occ__tracker *t, uint32_t c, uint32_t v)
{
    uint32_t old = t->busy[c];
    if (old == v)
        return;
    occ__trk_mark(t, c);
    t->n_diff += (v != t->base[c]) - (old != t->base[c]);
    t->busy_total = t->busy_total - old + v;
    t->cores_busy += (v != 0) - (old != 0);
    t->busy[c] = v;
}

static inline void occ__trk_set_wgs(occ__tracker *t, uint32_t c, uint32_t v)
{
    uint32_t old = t->wgs[c];
    if (old == v)
        return;
    occ__trk_mark(t, c);
    t->wgs_total = t->wgs_total - old + v;
    t->wgs[c] = v;
    if (v > t->peak_core_wgs)
        t->peak_core_wgs = v;
}

#endif
