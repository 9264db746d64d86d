/* The rule (rule.h) over per-device tables (eval_fast.h): occ__fast_init
 * fills every table by asking the rule's steps (the GRF mode of a request,
 * a work-group's local-memory allocation, the core's size for a preference,
 * what registers cost), so the tables hold the rule's own answers; the
 * launchable path (inline in eval_fast.h) only combines them: each limit is
 * a capacity divided by a demand, the least binds.  Whatever the tables do
 * not answer (a kernel that cannot launch, a device they do not cover) is
 * the rule's: occ__fast_cannot_launch asks it. */
#include "model/eval_fast.h"

#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "model/rule.h"
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
        uint64_t cpc = (uint64_t)occ__rule_contexts_per_core(d, &d->grf_modes[m]) + 1;
        top = cpc > top ? cpc : top;
    }
    uint64_t unit = d->slm_granule ? d->slm_granule : 1024;
    uint64_t slm = d->slm_per_core / unit + 1;
    top = slm > top ? slm : top;
    return top < OCC__FAST_UNITS ? top + 1 : 0;
}

uint64_t occ__recip[OCC__FAST_UNITS];
static pthread_once_t recip_once = PTHREAD_ONCE_INIT;

static void first_fail_fill(void);

static void recip_fill(void)
{
    first_fail_fill();
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
    return sizeof(occ__fast) + (size_t)(steps_needed(d) + recip_needed(d)) * sizeof(uint16_t) + OCC__FAST_PAD;
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

    for (uint32_t i = 0; i < d->n_sub_group_sizes; i++) /* t by a shift: powers of two up to 64 */
        ok &= d->sub_group_sizes[i] <= 64 && pow2(d->sub_group_sizes[i]);
    for (uint32_t s = 1; s <= 64; s++)
        f->sg_mask |= (uint64_t)occ__rule_sub_group_ok(d, s) << (s - 1);
    f->sg0 = d->sub_group_sizes[0];
    f->default_grf = d->default_grf;
    f->max_wg = d->max_work_group_size;
    ok &= f->max_wg <= (1u << 24);
    /* GRF modes: index 0 is "no such mode" */
    ok &= d->grf_modes[d->n_grf_modes - 1].registers <= OCC__FAST_GRF_MAX;
    for (uint32_t r = 0; r <= OCC__FAST_GRF_MAX; r++) {
        const occ_grf_mode *mode = occ__rule_grf_mode(d, r);
        f->grf_mode[r] = mode ? (uint8_t)(mode - d->grf_modes + 1) : 0;
    }
    for (uint32_t m = 0; m < d->n_grf_modes; m++) {
        f->mode_regs[m + 1] = d->grf_modes[m].registers;
        f->mode_cpc[m + 1] = occ__rule_contexts_per_core(d, &d->grf_modes[m]);
    }

    /* local memory: the unit is the granule, or 1 KB when the steps are whole KB */
    f->slm_max = d->slm_max_per_work_group;
    f->slm_reserved = d->slm_reserved_per_work_group;
    ok &= d->slm_per_core < (1ull << 31);
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
        /* a need in (i - 1, i] KB gets the step of i KB: the steps are whole KB */
        uint64_t reserved_kb = d->slm_reserved_per_work_group / 1024;
        for (uint32_t i = (uint32_t)(reserved_kb > 0 ? reserved_kb : 1); i <= f->slm_units_max; i++) {
            uint64_t step_kb = occ__rule_slm_alloc(d, (uint64_t)i * 1024 - d->slm_reserved_per_work_group) / 1024;
            ok &= step_kb <= UINT16_MAX;
            slm_units[i] = (uint16_t)step_kb;
        }
    }
    /* carveouts: the legal size for a preference (in bytes here), and for a need */
    for (int32_t pct = -1; pct <= 100; pct++) {
        uint64_t legal = occ__rule_slm_config(d, pct, 0);
        ok &= (legal & f->slm_unit_mask) == 0;
        f->config_pct[pct + 1] = (uint32_t)(legal >> f->slm_shift);
    }
    for (uint32_t u = 0; u < n_recip; u++) {
        uint64_t legal = occ__rule_slm_config(d, 0, (uint64_t)u << f->slm_shift);
        ok &= (legal & f->slm_unit_mask) == 0 && (legal >> f->slm_shift) <= UINT16_MAX; /* whole units */
        config_of[u] = (uint16_t)(legal >> f->slm_shift);
    }
    /* work-group slots: one count for t = 1 and one for every t > 1 (up to
     * the most contexts a core has, the largest t that launches) */
    f->slots[0] = occ__rule_wg_slots(d, 1);
    f->slots[1] = occ__rule_wg_slots(d, 2);
    for (uint32_t m = 1; m <= d->n_grf_modes; m++)
        for (uint32_t t = 2; ok && t <= f->mode_cpc[m] && t < 0xffff; t++)
            ok &= occ__rule_wg_slots(d, t) == f->slots[1];
    f->barriers = occ__rule_barriers(d, true);
    ok &= occ__rule_barriers(d, false) == OCC_NO_LIMIT;
    /* what the launchable path leaves out (eval_fast.h): the largest request
     * fits the whole core, and only registers can allow no work-group */
    uint64_t top_alloc = occ__rule_slm_alloc(d, d->slm_max_per_work_group);
    ok &= (top_alloc != 0 || d->slm_max_per_work_group + d->slm_reserved_per_work_group == 0) &&
          top_alloc <= d->slm_per_core;
    ok &= f->slots[0] >= 1 && f->slots[1] >= 1 && f->barriers >= 1;

    f->has_rf = d->has_register_file;
    /* registers unknown, or no register file (regs_cap 0): no limit */
    f->regs_tab[0][0] = f->regs_tab[1][0] = 0xffffffffu;
    for (uint32_t m = 1; m <= d->n_grf_modes; m++) /* so that t > 0xffff fails the contexts' check first */
        ok &= f->mode_cpc[m] < 0xffff;
    if (d->has_register_file) {
        /* the launchable path's check: registers per work-group and the
         * core's room both bound the warps, t <= entry >> 16 */
        ok &= d->reg_max_per_thread < OCC__FAST_REGS - 1;
        f->regs_cap = occ__min_u32(d->reg_max_per_thread + 1, OCC__FAST_REGS - 1);
        /* a table per sub-group size: two at most (one size: both the same) */
        ok &= d->n_sub_group_sizes <= 2;
        for (uint32_t j = 0; j < 2; j++) {
            uint32_t sg = d->sub_group_sizes[j < d->n_sub_group_sizes ? j : 0];
            for (uint32_t r = 1; r < f->regs_cap; r++) {
                occ__rule_regs c = occ__rule_registers(d, r, sg);
                ok &= c.warps_by_regs <= 0xffff && c.per_warp <= 0xffff;
                uint64_t most = occ__min_u64(c.max_warps, c.warps_by_regs); /* past it: no room, or refused */
                f->regs_tab[j][r] = c.warps_by_regs | (uint32_t)occ__min_u64(most, 0xffff) << 16;
                f->regs_per_warp[j][r] = (uint16_t)c.per_warp;
            }
        }
    }
    /* the launchable path combines the rows it was written for; a rule with
     * more rows is answered by the rule until the path learns them */
    ok &= occ__rule_rows() == OCC__RULE_FAST_ROWS;
    f->usable = ok;
}


/* A kernel the launchable path refuses (or cannot answer): the rule's. */
void occ__fast_cannot_launch(const occ__fast *f, const occ_kernel *k, occ_residency *r)
{
    occ__rule_eval(&occ__fast_device(f)->desc, k, r, NULL, 0);
}

/* The reason of each set of failed checks: the first in the rule's order
 * (rule.h), for the compact answer of a kernel that cannot launch. */
static uint8_t first_fail[1u << OCC_REASON_COUNT];

static void first_fail_fill(void)
{
    for (uint32_t fails = 1; fails < (1u << OCC_REASON_COUNT); fails++)
        for (int j = OCC__RULE_N_CHECKS; j-- > 0;)
            if (fails & OCC__FAIL_BIT(occ__rule_check_order[j]))
                first_fail[fails] = occ__rule_check_order[j];
}

/* The compact answer of a kernel the launchable path refuses: its checks
 * name the reason (the first in the rule's order), with the contexts known
 * by then, none before the sub-group size and GRF mode passed.  A work-group
 * past the launchable path's exact range (2^30 work-items), and a kernel
 * it does not refuse, get the rule's answer. */
void occ__fast_cannot_launch_eval(const occ__fast *f, const occ_kernel *k, occ_eval *e)
{
    occ__launch o;
    if (occ__evaluate_launch(f, k, &o) || o.W >= (1u << 30) || occ__fast_declines(k)) {
        occ_residency r; /* stays in L1: only the 24 bytes of *e go to memory */
        occ__fast_cannot_launch(f, k, &r);
        occ__eval_from_residency(&r, e);
        return;
    }
    uint32_t shape_unknown = o.fails & (OCC__FAIL_BIT(OCC_REASON_WG_ZERO) | OCC__FAIL_BIT(OCC_REASON_SUB_GROUP) |
                                        OCC__FAIL_BIT(OCC_REASON_GRF_MODE));
    *e = (occ_eval){0};
    e->reason = first_fail[o.fails];
    e->contexts_per_wg = shape_unknown ? 0 : o.t;
    e->contexts_per_core = o.fails & (OCC__FAIL_BIT(OCC_REASON_WG_ZERO) | OCC__FAIL_BIT(OCC_REASON_SUB_GROUP))
                               ? 0 : o.cpc;
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
