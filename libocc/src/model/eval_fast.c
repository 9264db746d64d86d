/* residency.c's per-core model over per-device tables (eval_fast.h): the
 * tables (occ__fast_init), the path for kernels that cannot launch, and the
 * batch loops; the launchable path is inline in eval_fast.h.  Same steps,
 * same answers; what changes is how each step is done.  A change to
 * compute() needs the same change here and in eval_fast.h
 * (tests/model/test_reference.c compares all of them, and a plain model, byte
 * for byte). */
#include "model/eval_fast.h"

#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "occ/advise.h"

static bool pow2(uint64_t v) { return v && (v & (v - 1)) == 0; }

static uint8_t log2_of(uint64_t v)
{
    uint8_t s = 0;
    while ((1ull << s) < v)
        s++;
    return s;
}

/* The reciprocals used must reach every divisor: contexts per work-group
 * (<= contexts per core) and local memory in units (which also sizes the
 * core-size table).  0 when the device is out of reach. */
static uint64_t recip_needed(const occ_device_desc *d)
{
    uint64_t top = 1;
    for (uint32_t m = 0; m < d->n_grf_modes; m++) {
        /* one past: a clamped divisor above every mode's contexts still gives 0 */
        uint64_t cpc = (uint64_t)d->engines_per_core * d->grf_modes[m].threads_per_engine + 1;
        top = cpc > top ? cpc : top;
    }
    uint64_t unit = d->slm_granule ? d->slm_granule : 1024;
    uint64_t slm = d->slm_per_core / unit + 1;
    top = slm > top ? slm : top;
    return top < OCC__FAST_UNITS ? top + 1 : 0;
}

/* The core's local memory when a work-group needs `want` (residency.c's
 * slm_config): the smallest carveout >= it, else the whole. */
static uint64_t smallest_legal(const occ_device_desc *d, uint64_t want)
{
    for (uint32_t i = 0; i < d->n_carveouts; i++)
        if (d->carveouts[i] >= want)
            return d->carveouts[i];
    return d->slm_per_core;
}

/* The smallest step >= bytes; UINT64_MAX when none. */
static uint64_t smallest_step(const occ_device_desc *d, uint64_t bytes)
{
    for (uint32_t i = 0; i < d->n_slm_steps; i++)
        if (d->slm_steps[i] >= bytes)
            return d->slm_steps[i];
    return UINT64_MAX;
}

uint64_t occ__recip[OCC__FAST_UNITS];
static pthread_once_t recip_once = PTHREAD_ONCE_INIT;

static void recip_fill(void)
{
    for (uint32_t i = 1; i < OCC__FAST_UNITS; i++)
        occ__recip[i] = ((1ull << 32) + i - 1) / i;
}

/* The largest request's KB class, and the step table's entries: the
 * classes up to it (1 with a granule, or past the tables' reach). */
static uint64_t kb_top_of(const occ_device_desc *d)
{
    return (d->slm_max_per_work_group + d->slm_reserved_per_work_group + 1023) / 1024;
}

static uint64_t steps_needed(const occ_device_desc *d)
{
    uint64_t kb_top = kb_top_of(d);
    return !d->slm_granule && kb_top < OCC__FAST_UNITS ? kb_top + 1 : 1;
}

size_t occ__fast_size(const occ_device_desc *d)
{
    return sizeof(occ__fast) + (size_t)(steps_needed(d) + recip_needed(d)) * sizeof(uint16_t);
}

void occ__fast_init(occ__fast *f, const occ_device_desc *d)
{
    uint64_t n_recip = recip_needed(d);
    uint64_t kb_top = kb_top_of(d);
    uint64_t n_alloc = steps_needed(d);
    pthread_once(&recip_once, recip_fill);
    bool ok = n_recip != 0;
    f->n_recip = (uint32_t)n_recip;
    uint16_t *slm_units = f->tail;
    f->slm_units = slm_units;
    uint16_t *config_of = slm_units + n_alloc;
    f->config_of = config_of;

    for (uint32_t i = 0; i < d->n_sub_group_sizes; i++) {
        uint32_t s = d->sub_group_sizes[i];
        ok &= s < 64 && pow2(s);
        f->sg_mask |= (s < 64 ? 1ull : 0) << (s & 63);
    }
    f->sg0 = d->sub_group_sizes[0];
    f->default_grf = d->default_grf;
    f->max_wg = d->max_work_group_size;
    ok &= f->max_wg <= (1u << 24);
    /* GRF modes: index 0 is "no such mode" */
    ok &= d->grf_modes[d->n_grf_modes - 1].registers <= OCC__FAST_GRF_MAX;
    for (uint32_t r = 0, m = 0; r <= OCC__FAST_GRF_MAX + 1; r++) {
        while (m < d->n_grf_modes && d->grf_modes[m].registers < r)
            m++;
        f->grf_mode[r] = r <= OCC__FAST_GRF_MAX && m < d->n_grf_modes ? (uint8_t)(m + 1) : 0;
    }
    for (uint32_t m = 0; m < d->n_grf_modes; m++) {
        f->mode_regs[m + 1] = d->grf_modes[m].registers;
        f->mode_cpc[m + 1] = d->engines_per_core * d->grf_modes[m].threads_per_engine;
    }

    /* local memory: the unit is the granule, or 1 KB when the steps are whole KB */
    f->slm_max = d->slm_max_per_work_group;
    f->slm_reserved = d->slm_reserved_per_work_group;
    ok &= d->slm_per_core < (1ull << 31);
    f->per_core = (uint32_t)d->slm_per_core;
    uint64_t unit = d->slm_granule ? d->slm_granule : 1024;
    ok &= pow2(unit);
    f->slm_shift = log2_of(unit);
    f->slm_unit_mask = (uint32_t)(unit - 1);
    if (!d->slm_granule) {
        f->slm_steps = true;
        bool kb = d->slm_reserved_per_work_group % 1024 == 0;
        for (uint32_t i = 0; i < d->n_slm_steps; i++)
            kb &= d->slm_steps[i] % 1024 == 0 && d->slm_steps[i] <= d->slm_per_core;
        ok &= kb && kb_top < OCC__FAST_UNITS;
        f->slm_units_max = (uint32_t)(n_alloc - 1);
        for (uint32_t i = 1, s = 0; i <= f->slm_units_max; i++) {
            while (s < d->n_slm_steps && d->slm_steps[s] < (uint64_t)i * 1024)
                s++;
            uint64_t step_kb = s < d->n_slm_steps ? d->slm_steps[s] / 1024 : 0;
            ok &= step_kb <= UINT16_MAX;
            slm_units[i] = (uint16_t)step_kb;
        }
    }
    /* carveouts: the legal size for a preference (in bytes here), and for a need */
    for (int32_t pct = -1; pct <= 100; pct++) {
        uint64_t want = !d->n_carveouts ? 0
                        : pct < 0       ? d->slm_per_core
                                        : occ__ceil_div((uint64_t)pct * d->slm_per_core, 100);
        uint64_t legal = smallest_legal(d, want);
        ok &= (legal & f->slm_unit_mask) == 0;
        f->config_pct[pct + 1] = (uint32_t)(legal >> f->slm_shift);
    }
    for (uint32_t u = 0; u < n_recip; u++) {
        uint64_t legal = smallest_legal(d, (uint64_t)u << f->slm_shift);
        ok &= (legal & f->slm_unit_mask) == 0 && (legal >> f->slm_shift) <= UINT16_MAX; /* whole units */
        config_of[u] = (uint16_t)(legal >> f->slm_shift);
    }
    f->max_wgs = d->max_work_groups_per_core;
    f->barriers = d->barriers_per_core;
    /* what the launchable path leaves out (eval_fast.h): the largest request
     * fits the whole core, and only registers can allow no work-group */
    uint64_t top_need = d->slm_max_per_work_group + d->slm_reserved_per_work_group;
    ok &= (d->slm_granule ? occ__round_up(top_need, d->slm_granule) : smallest_step(d, top_need)) <= d->slm_per_core;
    ok &= f->max_wgs >= 1 && f->barriers >= 1;

    f->has_rf = d->has_register_file;
    f->regs_tab[0] = 0xffffffffu; /* registers unknown, or no register file (regs_cap 0): no limit */
    for (uint32_t m = 1; m <= d->n_grf_modes; m++) /* so that t > 0xffff fails the contexts' check first */
        ok &= f->mode_cpc[m] < 0xffff;
    if (d->has_register_file) {
        ok &= pow2(d->reg_alloc_unit) && pow2(d->reg_warp_granularity);
        f->reg_unit_shift = log2_of(d->reg_alloc_unit);
        f->warp = d->sub_group_sizes[0];
        f->reg_max_per_thread = d->reg_max_per_thread;
        f->reg_max_per_wg = d->reg_max_per_work_group;
        f->reg_gran_mask = d->reg_warp_granularity - 1;
        f->partitions = d->reg_partitions;
        uint64_t rpp = d->regs_per_core / d->reg_partitions;
        ok &= (rpp >> f->reg_unit_shift) * d->reg_partitions < 65536;
        f->rpp_units = (uint32_t)(rpp >> f->reg_unit_shift);
        f->reg_unit_mask = d->reg_alloc_unit - 1;
        uint64_t top = ((uint64_t)d->reg_max_per_thread * f->warp + f->reg_unit_mask) >> f->reg_unit_shift;
        ok &= top < OCC__FAST_PER_WARP;
        f->per_warp_max = (uint32_t)occ__min_u64(top, OCC__FAST_PER_WARP - 1);
        for (uint32_t w = 1; w <= f->per_warp_max; w++)
            f->warps_by_regs[w] = (uint16_t)(f->rpp_units / w * f->partitions);
        /* the launchable path's check: registers per work-group and the
         * core's room both bound the warps, t <= entry >> 16 */
        ok &= d->reg_max_per_thread < OCC__FAST_REGS - 1;
        f->regs_cap = occ__min_u32(d->reg_max_per_thread + 1, OCC__FAST_REGS - 1);
        for (uint32_t r = 1; r < f->regs_cap; r++) {
            uint64_t per_warp = ((uint64_t)r * f->warp + f->reg_unit_mask) >> f->reg_unit_shift;
            if (per_warp > f->per_warp_max) /* not usable (checked above) */
                break;
            uint64_t warp_alloc = per_warp << f->reg_unit_shift;
            uint64_t fits = d->reg_max_per_work_group / warp_alloc; /* warps, before the granularity */
            uint64_t most = occ__min_u64(fits & ~(uint64_t)f->reg_gran_mask, f->warps_by_regs[per_warp]);
            f->regs_tab[r] = f->warps_by_regs[per_warp] | (uint32_t)occ__min_u64(most, 0xffff) << 16;
        }
    }
    f->usable = ok;
}


/* compute()'s checks in its order over the tables, for a kernel that cannot
 * launch (out of line, with early returns: these kernels are the rare ones).
 * The first that fails is returned (OCC_REASON_NONE: all passed, up to the
 * registers), with the values known by then and how far it got. */
enum { KNOWN_NOTHING, KNOWN_CONTEXTS_PER_CORE, KNOWN_CONTEXTS_PER_WG, KNOWN_SLM_ALLOC, KNOWN_SLM_LIMIT, KNOWN_ALL };
typedef struct fast_stage {
    uint64_t W, t_wide, alloc, config, per_warp;
    uint32_t sg, m, cpc, t, lim_slm;
    int known; /* KNOWN_*: the stages passed */
} fast_stage;

static inline __attribute__((always_inline)) occ_reason fast_checks(const occ__fast *f, const occ_kernel *k,
                                                                   fast_stage *st)
{
    *st = (fast_stage){.known = KNOWN_NOTHING};
    uint64_t W = st->W = occ__wg_items(k);
    uint32_t sg = st->sg = k->sub_group ? k->sub_group : f->sg0;
    uint32_t want = k->grf ? k->grf : f->default_grf;
    uint32_t m = st->m = f->grf_mode[occ__min_u64(want, OCC__FAST_GRF_MAX + 1)];
    if (W == 0)
        return OCC_REASON_WG_ZERO;
    if (sg >= 64 || !((f->sg_mask >> sg) & 1))
        return OCC_REASON_SUB_GROUP;
    if (!m)
        return OCC_REASON_GRF_MODE;
    uint32_t cpc = st->cpc = f->mode_cpc[m];
    st->known = KNOWN_CONTEXTS_PER_CORE;
    if (W == UINT64_MAX)
        return OCC_REASON_WG_TOO_LARGE;
    /* ceil(W / sg), as compute()'s 64-bit sum (which may wrap) gives it */
    st->t_wide = (W + sg - 1) >> __builtin_ctz(sg);
    st->known = KNOWN_CONTEXTS_PER_WG;
    if (W > f->max_wg)
        return OCC_REASON_WG_TOO_LARGE;
    uint32_t t = st->t = (uint32_t)st->t_wide;
    if (t > cpc)
        return OCC_REASON_CONTEXTS;
    if (k->carveout_pct < -1 || k->carveout_pct > 100)
        return OCC_REASON_CARVEOUT;
    if (k->slm_bytes > f->slm_max)
        return OCC_REASON_SLM_TOO_LARGE;
    st->lim_slm = occ__fast_slm_limit(f, k->slm_bytes, (uint32_t)(k->carveout_pct + 1), &st->alloc, &st->config);
    st->known = KNOWN_SLM_ALLOC;
    if (st->alloc > st->config)
        return OCC_REASON_SLM_TOO_LARGE;
    st->known = KNOWN_SLM_LIMIT;
    if (f->has_rf && k->regs_per_thread) {
        if (k->regs_per_thread > f->reg_max_per_thread)
            return OCC_REASON_REGS_PER_THREAD;
        st->per_warp = ((uint64_t)k->regs_per_thread * f->warp + f->reg_unit_mask) >> f->reg_unit_shift;
        uint64_t per_block = (st->per_warp << f->reg_unit_shift) * ((t + f->reg_gran_mask) & ~f->reg_gran_mask);
        if (per_block > f->reg_max_per_wg)
            return OCC_REASON_REGS_PER_WG;
    }
    st->known = KNOWN_ALL;
    return OCC_REASON_NONE;
}

/* A kernel that cannot launch, in full: the fields compute() has written
 * where it stops. */
void occ__fast_cannot_launch(const occ__fast *f, const occ_kernel *k, occ_residency *r)
{
    occ__reset_residency(r);
    fast_stage st;
    occ_reason why = fast_checks(f, k, &st);
    r->wg_size = st.W;
    r->sub_group = st.sg;
    r->grf = st.m ? f->mode_regs[st.m] : k->grf;
    if (st.known >= KNOWN_CONTEXTS_PER_CORE)
        r->contexts_per_core = st.cpc;
    if (st.known >= KNOWN_CONTEXTS_PER_WG)
        r->contexts_per_wg = (uint32_t)occ__min_u64(st.t_wide, UINT32_MAX);
    if (st.known >= KNOWN_SLM_ALLOC) {
        r->limits[OCC_RES_THREADS] = occ__div_small(st.cpc, st.t);
        r->limits[OCC_RES_WG_SLOTS] = f->max_wgs;
        r->limits[OCC_RES_BARRIERS] = k->barrier ? f->barriers : OCC_NO_LIMIT;
        r->slm_per_wg_alloc = st.alloc;
        r->slm_core_config = st.config;
    }
    if (st.known >= KNOWN_SLM_LIMIT)
        r->limits[OCC_RES_SLM] = st.lim_slm; /* no allocation: no limit */
    if (st.known >= KNOWN_ALL && f->has_rf && k->regs_per_thread) {
        r->regs_per_wg_alloc = (uint32_t)((st.per_warp << f->reg_unit_shift) * st.t);
        r->limits[OCC_RES_REGISTERS] = occ__div_small(f->warps_by_regs[st.per_warp], st.t); /* <= its max */
    }
    if (why != OCC_REASON_NONE) {
        r->reason = why;
        return;
    }
    uint32_t resident = OCC_NO_LIMIT;
    for (int i = 0; i < OCC_RES_COUNT; i++)
        resident = r->limits[i] < resident ? r->limits[i] : resident;
    if (resident == 0) {
        r->reason = OCC_REASON_REGS_PER_WG;
        return;
    }
    /* not reached while the launchable path's checks are compute()'s; if
     * they ever differ, the kernel launches and gets that answer */
    occ__launch o;
    occ__evaluate_launch(f, k, &o);
    occ__write_launch(&o, r);
}

/* The compact answer of a kernel that cannot launch: the same checks,
 * writing only what occ_eval holds. */
void occ__fast_cannot_launch_eval(const occ__fast *f, const occ_kernel *k, occ_eval *e)
{
    fast_stage st;
    occ_reason why = fast_checks(f, k, &st);
    if (why == OCC_REASON_NONE) { /* no room for one work-group (a profile at its edge) */
        occ_residency r;
        occ__fast_cannot_launch(f, k, &r);
        occ__eval_from_residency(&r, e);
        return;
    }
    *e = (occ_eval){0};
    e->contexts_per_core = st.known >= KNOWN_CONTEXTS_PER_CORE ? st.cpc : 0;
    e->contexts_per_wg = st.known >= KNOWN_CONTEXTS_PER_WG ? (uint32_t)occ__min_u64(st.t_wide, UINT32_MAX) : 0;
    e->reason = (uint8_t)why;
}

void occ__eval_from_residency(const occ_residency *r, occ_eval *e)
{
    e->resident_wgs = r->launchable ? r->resident_wgs : 0;
    e->contexts_per_wg = r->contexts_per_wg;
    e->contexts_per_core = r->contexts_per_core;
    e->limited_by = r->launchable ? (uint8_t)r->limited_by : 0;
    e->reason = (uint8_t)r->reason;
    e->unused = 0;
    e->occupancy = r->launchable ? r->occupancy : 0.0;
}


void occ__fast_residency_n(const occ__fast *f, const occ_kernel *ks, occ_residency *rs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        occ__fast_residency(f, &ks[i], &rs[i]);
}

void occ__fast_eval_n(const occ__fast *f, const occ_kernel *ks, occ_eval *es, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        occ__launch o;
        if (!occ__fast_fails_early(f, &ks[i]) && occ__evaluate_launch(f, &ks[i], &o)) {
            occ_eval *e = &es[i];
            e->resident_wgs = o.resident;
            e->contexts_per_wg = o.t;
            e->contexts_per_core = o.cpc;
            e->limited_by = (uint8_t)o.by;
            e->reason = OCC_REASON_NONE;
            e->unused = 0;
            e->occupancy = o.occupancy;
        } else {
            occ__fast_cannot_launch_eval(f, &ks[i], &es[i]);
        }
    }
}
