/* The per-core model of residency.c, specialised for batches (eval_fast.h).
 * Same steps in the same order, so the same answers and the same reason for
 * a kernel that cannot launch; what changes is how each step is done:
 * table look-ups for the sub-group size, the GRF mode and the local-memory
 * allocation, shifts for power-of-two divisors.  Anything the tables do not
 * cover (a carveout preference, odd sizes) is left to residency.c. */
#include "model/eval_fast.h"

#include <string.h>

#include "occ/advise.h"

static bool pow2(uint64_t v) { return v && (v & (v - 1)) == 0; }

void occ__fast_init(occ__fast *f, const occ_device_desc *d)
{
    memset(f, 0, offsetof(occ__fast, slm_kb)); /* the table is filled below as far as used */
    f->d = d;
    f->usable = true;
    for (uint32_t i = 0; i < d->n_sub_group_sizes; i++) {
        uint32_t s = d->sub_group_sizes[i];
        if (s >= 64 || !pow2(s))
            f->usable = false;
        else
            f->sg_mask |= 1ull << s;
    }
    f->sg0 = d->sub_group_sizes[0];
    f->largest_grf = d->grf_modes[d->n_grf_modes - 1].registers;
    if (f->largest_grf > OCC__FAST_GRF_MAX)
        f->usable = false;
    for (uint32_t r = 0, m = 0; r <= OCC__FAST_GRF_MAX; r++) {
        while (m < d->n_grf_modes && d->grf_modes[m].registers < r)
            m++;
        f->grf_mode[r] = m < d->n_grf_modes ? (uint8_t)(m + 1) : 0;
    }
    for (uint32_t m = 0; m < d->n_grf_modes; m++)
        f->contexts[m] = d->engines_per_core * d->grf_modes[m].threads_per_engine;

    uint64_t res = d->slm_reserved_per_work_group;
    if (d->slm_granule) {
        if (!pow2(d->slm_granule))
            f->usable = false;
        f->granule_mask = d->slm_granule - 1;
    } else {
        bool kb = res % 1024 == 0;
        for (uint32_t i = 0; i < d->n_slm_steps; i++)
            kb &= d->slm_steps[i] % 1024 == 0;
        uint64_t top_kb = (d->slm_max_per_work_group + res + 1023) / 1024;
        if (!kb || top_kb > OCC__FAST_SLM_KB) {
            f->usable = false;
        } else {
            f->slm_by_kb = true;
            f->slm_kb_n = (uint32_t)top_kb;
            for (uint32_t i = 0, s = 0; i <= f->slm_kb_n; i++) {
                while (s < d->n_slm_steps && d->slm_steps[s] < (uint64_t)i * 1024)
                    s++;
                f->slm_kb[i] = s < d->n_slm_steps ? d->slm_steps[s] : 0;
            }
        }
    }
    if (d->has_register_file) {
        if (!pow2(d->reg_alloc_unit) || !pow2(d->reg_warp_granularity))
            f->usable = false;
        f->reg_unit_mask = d->reg_alloc_unit - 1;
        f->reg_gran_mask = d->reg_warp_granularity - 1;
        f->regs_per_partition = d->regs_per_core / d->reg_partitions;
    }
}

/* One evaluation: the numbers of residency.c's compute(). */
typedef struct core {
    uint64_t W;
    uint32_t sg, grf;
    uint32_t cpw, cpc;
    occ_reason reason;
    uint32_t limits[OCC_RES_COUNT];
    uint32_t resident, limited_by, used;
    uint64_t per_wg, config;
    uint32_t regs_alloc;
    double occupancy;
} core;

/* Answered: the kernel cannot launch, for this reason (not a failure of the
 * evaluator; "not handled" is a plain return false). */
#define CANNOT_LAUNCH(why)                                                                         \
    do {                                                                                           \
        c->reason = (why);                                                                         \
        return true;                                                                               \
    } while (0)

/* true: c holds the answer (launchable when c->reason is OCC_REASON_NONE);
 * false: not handled. */
static inline bool run(const occ__fast *f, const occ_kernel *k, core *c)
{
    const occ_device_desc *d = f->d;
    uint64_t W = occ__wg_items(k);
    uint32_t sg = k->sub_group ? k->sub_group : f->sg0;
    uint32_t want = k->grf ? k->grf : d->default_grf;
    uint32_t m = want <= OCC__FAST_GRF_MAX ? f->grf_mode[want] : 0;
    c->W = W;
    c->sg = sg;
    c->grf = m ? d->grf_modes[m - 1].registers : k->grf;
    c->cpw = c->cpc = 0;
    c->regs_alloc = 0;
    if (W == 0)
        CANNOT_LAUNCH(OCC_REASON_WG_ZERO);
    if (sg >= 64 || !((f->sg_mask >> sg) & 1))
        CANNOT_LAUNCH(OCC_REASON_SUB_GROUP);
    if (!m)
        CANNOT_LAUNCH(OCC_REASON_GRF_MODE);
    uint64_t t = (W + sg - 1) >> __builtin_ctz(sg);
    c->cpw = t > UINT32_MAX ? UINT32_MAX : (uint32_t)t;
    c->cpc = f->contexts[m - 1];
    if (W > d->max_work_group_size)
        CANNOT_LAUNCH(OCC_REASON_WG_TOO_LARGE);
    if (t > c->cpc)
        CANNOT_LAUNCH(OCC_REASON_CONTEXTS);
    if (k->carveout_pct < -1 || k->carveout_pct > 100)
        CANNOT_LAUNCH(OCC_REASON_CARVEOUT);
    if (k->slm_bytes > d->slm_max_per_work_group)
        CANNOT_LAUNCH(OCC_REASON_SLM_TOO_LARGE);
    if (d->n_carveouts && k->carveout_pct >= 0)
        return false; /* a preference: residency.c picks the core size */

    uint32_t t32 = (uint32_t)t; /* 1 <= t <= contexts per core here */
    c->limits[OCC_RES_THREADS] = c->cpc / t32;
    c->limits[OCC_RES_SLM] = OCC_NO_LIMIT;
    c->limits[OCC_RES_REGISTERS] = OCC_NO_LIMIT;
    c->limits[OCC_RES_WG_SLOTS] = d->max_work_groups_per_core;
    c->limits[OCC_RES_BARRIERS] = k->barrier ? d->barriers_per_core : OCC_NO_LIMIT;

    uint64_t need = k->slm_bytes + d->slm_reserved_per_work_group;
    uint64_t per_wg = 0;
    if (need) {
        if (f->slm_by_kb)
            per_wg = f->slm_kb[(need + 1023) >> 10];
        else
            per_wg = (need + f->granule_mask) & ~f->granule_mask;
    }
    /* without carveouts, or at the default preference, the core keeps all of
     * its local memory (the largest carveout is the whole) */
    c->per_wg = per_wg;
    c->config = d->slm_per_core;
    if (per_wg) {
        uint64_t lim = c->config / per_wg;
        c->limits[OCC_RES_SLM] = lim > UINT32_MAX - 1 ? UINT32_MAX - 1 : (uint32_t)lim;
    }

    if (d->has_register_file && k->regs_per_thread) {
        if (k->regs_per_thread > d->reg_max_per_thread)
            CANNOT_LAUNCH(OCC_REASON_REGS_PER_THREAD);
        uint64_t warp = d->sub_group_sizes[0];
        uint64_t per_warp = ((uint64_t)k->regs_per_thread * warp + f->reg_unit_mask) & ~f->reg_unit_mask;
        uint64_t per_block = per_warp * ((t + f->reg_gran_mask) & ~f->reg_gran_mask);
        if (per_block > d->reg_max_per_work_group)
            CANNOT_LAUNCH(OCC_REASON_REGS_PER_WG);
        c->regs_alloc = (uint32_t)(per_warp * t);
        uint64_t warps_per_partition = f->regs_per_partition / per_warp;
        c->limits[OCC_RES_REGISTERS] = (uint32_t)(warps_per_partition * d->reg_partitions / t);
    }

    uint32_t resident = OCC_NO_LIMIT;
    for (int i = 0; i < OCC_RES_COUNT; i++)
        resident = c->limits[i] < resident ? c->limits[i] : resident;
    if (resident == 0) /* as residency.c: one work-group's registers exceed a core's */
        CANNOT_LAUNCH(OCC_REASON_REGS_PER_WG);
    uint32_t by = 0;
    for (int i = 0; i < OCC_RES_COUNT; i++)
        by |= (uint32_t)(c->limits[i] == resident) << i;
    c->reason = OCC_REASON_NONE;
    c->resident = resident;
    c->limited_by = by;
    c->used = resident * c->cpw;
    c->occupancy = (double)c->used / c->cpc;
    return true;
}

bool occ__fast_eval(const occ__fast *f, const occ_kernel *k, occ_eval *e)
{
    core c;
    if (!run(f, k, &c))
        return false;
    bool ok = c.reason == OCC_REASON_NONE;
    e->resident_wgs = ok ? c.resident : 0;
    e->contexts_per_wg = c.cpw;
    e->contexts_per_core = c.cpc;
    e->limited_by = ok ? (uint8_t)c.limited_by : 0;
    e->reason = (uint8_t)c.reason;
    e->unused = 0;
    e->occupancy = ok ? c.occupancy : 0.0;
    return true;
}

bool occ__fast_residency(const occ__fast *f, const occ_kernel *k, occ_residency *r)
{
    core c;
    if (!run(f, k, &c) || c.reason != OCC_REASON_NONE)
        return false;
    occ__reset_residency(r);
    r->launchable = true;
    r->reason = OCC_REASON_NONE;
    r->sub_group = c.sg;
    r->grf = c.grf;
    r->wg_size = c.W;
    r->contexts_per_wg = c.cpw;
    r->contexts_per_core = c.cpc;
    memcpy(r->limits, c.limits, sizeof r->limits);
    r->limited_by = c.limited_by;
    r->resident_wgs = c.resident;
    r->contexts_used = c.used;
    r->contexts_idle = c.cpc - c.used;
    r->occupancy = c.occupancy;
    r->slm_per_wg_alloc = c.per_wg;
    r->slm_core_config = c.config;
    r->regs_per_wg_alloc = c.regs_alloc;
    return true;
}
