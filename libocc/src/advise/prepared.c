/* The prepared kernel (occ/advise.h): a kernel's fixed resources answered
 * once per thread-context count, so that a query per launch shape is a table
 * look-up.
 *
 * Why a table by contexts per work-group (t = ceil(W / S)) is exact: for
 * 1 <= W <= the device maximum, every row of the rule (model/rule.c, in its
 * order) that the fast paths know depends on the work-group size only
 * through t (AMD's work-group slots too: whether t > 1); so the answer for any such W equals the answer for the
 * representative size min(t * S, maximum), which is what the table holds,
 * computed by occ_residency_compute itself.  The work-group size can only
 * make a kernel fail before t exists (0, or past the maximum) or through
 * t > contexts per core: those, and devices or kernels the tables do not
 * cover, are asked of occ_evaluate with the kernel written out (cold path).
 * A kernel's own maximum work-group size (launch bounds) is a check on W
 * alone: it lowers the maximum the table covers, and a larger W goes the
 * cold path, where the rule refuses it.
 *
 * Dynamic local memory changes only the local-memory limit and checks: a
 * kernel that launches with its static local memory launches with more as
 * long as the total stays within the maximum per work-group (an allocation
 * within it always fits the core size chosen: eval_fast.h), and its other
 * limits stay those of its t. */
#include "advise/advise_internal.h"
#include "model/eval_fast.h"

#include <stdlib.h>

typedef struct prepared_entry {
    occ_eval eval;      /* the answer with no dynamic local memory */
    uint32_t other;     /* min of every limit but local memory's */
    uint8_t other_by;   /* the limits equal to it */
    bool launchable;    /* with the static local memory */
} prepared_entry;

struct occ_prepared {
    const occ_device *dev;
    const occ__fast *f;   /* the device's tables (NULL: every query is cold) */
    occ_kernel base;      /* the kernel as given, wg[] aside */
    uint64_t max_wg;      /* sizes 1..max_wg take the table: the device's maximum or the kernel's */
    uint64_t sg_round;    /* S - 1 */
    uint32_t sg_shift;    /* log2 S */
    uint32_t n_t;         /* entries 1..n_t - 1 (0: no table) */
    uint32_t pct_i;       /* carveout preference index of the tables */
    uint64_t dyn_max;     /* dynamic local memory keeping the total within the maximum */
    prepared_entry e[];   /* by t */
};

/* The table is used only where the device's tables cover it and the kernel's
 * sub-group size and GRF request are ones the model accepts: then t is
 * (W + S - 1) >> log2 S for every size, as in eval_fast.h. */
static uint64_t max_wg_of(const occ_device *dev, const occ_kernel *k)
{
    uint64_t dmax = dev->desc.max_work_group_size;
    return k->max_wg_size && k->max_wg_size < dmax ? k->max_wg_size : dmax;
}

static uint32_t table_entries(const occ_device *dev, const occ_kernel *k)
{
    const occ__fast *f = occ__fast_of(dev);
    if (!f || occ__fast_declines_but_max_wg(k)) /* a required size depends on W's dimensions */
        return 0;
    occ_kernel one = *k;
    one.wg[0] = one.wg[1] = one.wg[2] = 1;
    occ_residency r;
    occ_residency_compute(dev, &one, &r);
    if (r.reason == OCC_REASON_SUB_GROUP || r.reason == OCC_REASON_GRF_MODE)
        return 0;
    /* past contexts per core a work-group never fits (OCC_REASON_CONTEXTS) */
    uint64_t t_max = occ__ceil_div(max_wg_of(dev, k), r.sub_group);
    if (t_max > r.contexts_per_core)
        t_max = r.contexts_per_core;
    return (uint32_t)t_max + 1;
}

occ_status occ_prepare(const occ_device *dev, const occ_kernel *k, occ_prepared **out)
{
    if (out)
        *out = NULL;
    if (!dev || !k || !out || k->struct_size < sizeof *k)
        return OCC_ERR_INVALID_ARGUMENT;
    uint32_t n_t = table_entries(dev, k);
    occ_prepared *p = calloc(1, sizeof *p + n_t * sizeof p->e[0]);
    if (!p)
        return OCC_ERR_NO_MEMORY;
    p->dev = dev;
    p->f = occ__fast_of(dev);
    p->base = *k;
    p->base.struct_size = sizeof p->base;
    p->base.wg[0] = p->base.wg[1] = p->base.wg[2] = 1;
    p->n_t = n_t;
    const occ_device_desc *d = &dev->desc;
    uint32_t sg = k->sub_group ? k->sub_group : d->sub_group_sizes[0];
    p->max_wg = max_wg_of(dev, k);
    p->sg_round = sg - 1;
    p->sg_shift = (uint32_t)__builtin_ctz(sg | 0x80000000u);
    p->pct_i = (uint32_t)k->carveout_pct + 1u; /* used only where the carveout is valid */
    p->dyn_max = k->slm_bytes <= d->slm_max_per_work_group ? d->slm_max_per_work_group - k->slm_bytes : 0;
    for (uint32_t t = 1; t < n_t; t++) {
        occ_kernel one = p->base;
        uint64_t W = (uint64_t)t * sg;
        one.wg[0] = (uint32_t)(W < p->max_wg ? W : p->max_wg); /* ceil(that / S) = t */
        occ_residency r;
        occ_residency_compute(dev, &one, &r);
        prepared_entry *e = &p->e[t];
        occ__eval_from_residency(&r, &e->eval);
        e->launchable = r.launchable;
        e->other = OCC_NO_LIMIT;
        for (int i = 0; i < OCC_RES_COUNT; i++)
            if (i != OCC_RES_SLM && r.limits[i] < e->other)
                e->other = r.limits[i];
        for (int i = 0; i < OCC_RES_COUNT; i++)
            if (i != OCC_RES_SLM && r.limits[i] == e->other)
                e->other_by |= (uint8_t)(1u << i);
    }
    *out = p;
    return OCC_OK;
}

void occ_prepared_free(occ_prepared *p)
{
    free(p);
}

/* Everything the table does not answer: the kernel written out. */
__attribute__((noinline)) static occ_status prepared_cold(const occ_prepared *p, uint32_t x, uint32_t y, uint32_t z,
                                                          uint64_t dyn, occ_eval *out)
{
    occ_kernel k = p->base;
    k.wg[0] = x, k.wg[1] = y, k.wg[2] = z;
    if (__builtin_add_overflow(k.slm_bytes, dyn, &k.slm_bytes))
        k.slm_bytes = UINT64_MAX;
    return occ_evaluate(p->dev, &k, out);
}

occ_status occ_prepared_evaluate(const occ_prepared *p, uint32_t x, uint32_t y, uint32_t z, uint64_t dyn,
                                 occ_eval *out)
{
    if (!p || !out)
        return OCC_ERR_INVALID_ARGUMENT;
    uint64_t xy = (uint64_t)x * y, W;
    if (__builtin_mul_overflow(xy, (uint64_t)z, &W))
        W = UINT64_MAX;
    uint64_t t = W - 1 < p->max_wg ? (W + p->sg_round) >> p->sg_shift : UINT64_MAX;
    if (__builtin_expect(t >= p->n_t, 0))
        return prepared_cold(p, x, y, z, dyn, out);
    const prepared_entry *e = &p->e[t];
    if (dyn == 0) {
        *out = e->eval;
        return OCC_OK;
    }
    if (__builtin_expect(!e->launchable || dyn > p->dyn_max, 0))
        return prepared_cold(p, x, y, z, dyn, out);
    uint64_t alloc, config;
    uint32_t lim_slm = occ__fast_slm_limit(p->f, p->base.slm_bytes + dyn, p->pct_i, &alloc, &config);
    uint32_t resident = e->other < lim_slm ? e->other : lim_slm;
    uint32_t by = (e->other == resident ? e->other_by : 0u) | (uint32_t)(lim_slm == resident) << OCC_RES_SLM;
    occ_eval r = e->eval;
    r.resident_wgs = resident;
    r.limited_by = (uint8_t)by;
    r.occupancy = (double)(resident * (uint32_t)t) / r.contexts_per_core;
    *out = r;
    return OCC_OK;
}
