/* The rule (rule.h) over per-device tables (eval_fast.h): occ__fast_init
 * fills every table by asking the rule's steps (the GRF mode of a request,
 * a work-group's local-memory allocation, the core's size for a preference,
 * what registers cost), so the tables hold the rule's own answers; the
 * launchable path (inline in eval_fast.h) only combines them: each limit is
 * a capacity divided by a demand, the least binds.  A kernel it refuses gets
 * the rule's answer from what the path found (occ__fast_cannot_launch: the
 * checks that failed, the first in the rule's order, and the values of the
 * rows before it); whatever the tables do not answer (a device they do not
 * cover, a kernel field they decline) is the rule's own. */
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

uint32_t occ__recip[OCC__FAST_UNITS];
static pthread_once_t recip_once = PTHREAD_ONCE_INIT;

static void first_fail_fill(void);
/* The reasons of the checks before the rule's first limit row (rule.h) */
static uint32_t before_limits;

static void recip_fill(void)
{
    first_fail_fill();
    for (uint32_t i = 1; i < OCC__FAST_UNITS; i++)
        occ__recip[i] = (uint32_t)(((1ull << 31) + i - 1) / i);
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

/* The register tables (eval_fast.h) with the counts 1..maximum in groups of
 * 2^shift, entry (r + 2^shift - 1) >> shift each, from the rule's step for
 * the group's first count; false when another count of a group has other
 * values (shift 0 always fits).  The launchable path's check: registers per
 * work-group and the core's room both bound the warps, t <= entry >> 16. */
static bool regs_fill(occ__fast *f, const occ_device_desc *d, unsigned shift, bool *ok)
{
    bool fits = true;
    for (uint32_t j = 0; j <= f->regs_col_shift; j++) {
        uint32_t sg = d->sub_group_sizes[j];
        for (uint32_t r = 1; r <= d->reg_max_per_thread && r < OCC__FAST_REGS; r++) {
            occ__rule_regs c = occ__rule_registers(d, r, sg);
            *ok &= c.warps_by_regs <= 0xffff && c.per_warp <= 0xffff;
            uint64_t most = occ__min_u64(c.max_warps, c.warps_by_regs); /* past it: no room, or refused */
            uint32_t entry = c.warps_by_regs | (uint32_t)occ__min_u64(most, 0xffff) << 16;
            uint32_t i = (r + (1u << shift) - 1) >> shift;
            i = (i << f->regs_col_shift) + j; /* the sub-group size's column */
            if (((r - 1) & ((1u << shift) - 1)) == 0) { /* the group's first count */
                f->regs_tab[i] = entry;
                f->regs_per_warp[i] = (uint16_t)c.per_warp;
            }
            fits &= f->regs_tab[i] == entry && f->regs_per_warp[i] == (uint16_t)c.per_warp;
        }
    }
    return fits || shift == 0;
}

/* config_of (n entries, one per unit) by groups of units: the widest 2^shift
 * (up to 64) over which the rule's size is the same, each group (i - 1,
 * i] x 2^shift read at entry i, in place. */
static void config_group(uint16_t *config_of, uint32_t n, occ__fast *f)
{
    unsigned shift = 6;
    for (;; shift--) {
        bool fits = true;
        for (uint32_t u = 0; u < n; u++) {
            uint32_t last = occ__min_u32(((u + (1u << shift) - 1) >> shift) << shift, n - 1);
            fits &= config_of[u] == config_of[last];
        }
        if (fits || shift == 0)
            break;
    }
    for (uint32_t i = 0; i << shift < n + (1u << shift) - 1; i++) /* entry i reads a later entry, or itself */
        config_of[i] = config_of[occ__min_u32(i << shift, n - 1)];
    f->config_shift = (uint8_t)shift;
    f->config_round = (uint16_t)((1u << shift) - 1);
}

size_t occ__fast_size(const occ_device_desc *d)
{
    return sizeof(occ__fast) + (size_t)((steps_needed(d) + 1) / 2 + recip_needed(d)) * sizeof(uint16_t) + OCC__FAST_PAD;
}

void occ__fast_init(occ__fast *f, const occ_device_desc *d)
{
    uint64_t n_recip = recip_needed(d);
    uint64_t kb_top = kb_top_of(d);
    uint64_t n_alloc = steps_needed(d);
    pthread_once(&recip_once, recip_fill);
    bool ok = n_recip != 0;
    f->n_recip = (uint32_t)n_recip;
    uint8_t *slm_units = (uint8_t *)f->tail;
    ok &= n_alloc <= UINT16_MAX;
    f->config_of_at = (uint16_t)((n_alloc + 1) / 2);
    uint16_t *config_of = f->tail + f->config_of_at;

    for (uint32_t i = 0; i < d->n_sub_group_sizes; i++) /* t by a shift: powers of two up to 64 */
        ok &= d->sub_group_sizes[i] <= 64 && pow2(d->sub_group_sizes[i]);
    for (uint32_t s = 1; s <= 64; s++)
        f->sg_mask |= (uint64_t)occ__rule_sub_group_ok(d, s) << (s - 1);
    f->sg0 = (uint16_t)d->sub_group_sizes[0];
    f->default_grf = (uint16_t)occ__min_u64(d->default_grf, OCC__FAST_GRF_MAX + 1); /* as a request is clamped */
    f->max_wg = d->max_work_group_size;
    ok &= f->max_wg <= (1u << 24);
    /* GRF modes: index 0 is "no such mode" */
    ok &= d->grf_modes[d->n_grf_modes - 1].registers <= OCC__FAST_GRF_MAX;
    /* so that t > 0xffff fails the contexts' check first, and a mode's
     * contexts and registers share an entry */
    uint32_t most_cpc = 0;
    for (uint32_t r = 0; r <= OCC__FAST_GRF_MAX + 1; r++) {
        const occ_grf_mode *mode = occ__rule_grf_mode(d, r);
        uint32_t cpc = mode ? occ__rule_contexts_per_core(d, mode) : 0;
        ok &= !mode || (cpc >= 1 && cpc < 0xffff && mode->registers <= 0xffff);
        f->grf_info[r] = mode ? (cpc & 0xffff) | mode->registers << 16 : 0;
        most_cpc = cpc > most_cpc ? cpc : most_cpc;
    }

    /* local memory: the unit is the granule, or 1 KB when the steps are whole KB */
    ok &= d->slm_per_core < (1ull << 31) && d->slm_max_per_work_group < (1ull << 31) &&
          d->slm_reserved_per_work_group < (1ull << 31);
    f->slm_max = (uint32_t)d->slm_max_per_work_group;
    f->slm_reserved = (uint32_t)d->slm_reserved_per_work_group;
    uint64_t unit = d->slm_granule ? d->slm_granule : 1024;
    ok &= pow2(unit) && unit <= 0x8000;
    f->slm_shift = log2_of(unit);
    f->slm_unit_mask = (uint16_t)(unit - 1);
    if (!d->slm_granule) {
        f->slm_steps = true;
        bool kb = d->slm_reserved_per_work_group % 1024 == 0;
        for (uint32_t i = 0; i < d->n_slm_steps; i++)
            kb &= d->slm_steps[i] % 1024 == 0 && d->slm_steps[i] <= d->slm_per_core;
        ok &= kb && kb_top < OCC__FAST_UNITS;
        f->slm_units_max = (uint16_t)(n_alloc - 1);
        /* a need in (i - 1, i] KB gets the step of i KB: the steps are whole KB */
        uint64_t reserved_kb = d->slm_reserved_per_work_group / 1024;
        for (uint32_t i = (uint32_t)(reserved_kb > 0 ? reserved_kb : 1); i <= f->slm_units_max; i++) {
            uint64_t step_kb = occ__rule_slm_alloc(d, (uint64_t)i * 1024 - d->slm_reserved_per_work_group) / 1024;
            ok &= step_kb <= UINT8_MAX;
            slm_units[i] = (uint8_t)step_kb;
        }
    }
    /* carveouts: the legal size for a preference (in bytes here), and for a need */
    for (int32_t pct = -1; pct <= 100; pct++) {
        uint64_t legal = occ__rule_slm_config(d, pct, 0);
        ok &= (legal & f->slm_unit_mask) == 0 && (legal >> f->slm_shift) <= UINT16_MAX;
        f->config_pct[pct + 1] = (uint16_t)(legal >> f->slm_shift);
    }
    for (uint32_t u = 0; u < n_recip; u++) {
        uint64_t legal = occ__rule_slm_config(d, 0, (uint64_t)u << f->slm_shift);
        ok &= (legal & f->slm_unit_mask) == 0 && (legal >> f->slm_shift) <= UINT16_MAX; /* whole units */
        config_of[u] = (uint16_t)(legal >> f->slm_shift);
    }
    config_group(config_of, (uint32_t)n_recip, f);
    /* work-group slots: one count for t = 1 and one for every t > 1 (up to
     * the most contexts a core has, the largest t that launches) */
    f->slots[0] = occ__rule_wg_slots(d, 1);
    f->slots[1] = occ__rule_wg_slots(d, 2);
    for (uint32_t t = 2; ok && t <= most_cpc; t++)
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
    /* registers unknown, or no register file (regs_clamp 0): no limit */
    f->regs_tab[0] = f->regs_tab[1] = 0xffffffffu;
    f->regs_over = UINT32_MAX;
    if (d->has_register_file) {
        ok &= d->reg_max_per_thread < OCC__FAST_REGS;
        f->regs_over = d->reg_max_per_thread;
        f->regs_clamp = (uint16_t)occ__min_u64(d->reg_max_per_thread, OCC__FAST_REGS);
        /* a column per sub-group size: two at most */
        ok &= d->n_sub_group_sizes <= 2;
        f->regs_col_shift = d->n_sub_group_sizes >= 2; /* (a third size leaves the tables unusable) */
        /* the widest groups of counts that the rule answers alike */
        unsigned shift = 5;
        while (!regs_fill(f, d, shift, &ok))
            shift--;
        f->regs_shift = (uint8_t)shift;
        f->regs_round = (uint16_t)((1u << shift) - 1);
    }
    /* the launchable path combines the rows it was written for; a rule with
     * more rows is answered by the rule until the path learns them; a
     * refusal by the shape stage is answered as one before any limit */
    ok &= occ__rule_rows() == OCC__RULE_FAST_ROWS && (OCC__FAST_SHAPE_CHECKS & ~before_limits) == 0;
    f->usable = ok;
}

uint8_t occ__first_fail[(1u << OCC_REASON_COUNT) + OCC__FAST_PAD];

static void first_fail_fill(void)
{
    for (uint32_t fails = 1; fails < (1u << OCC_REASON_COUNT); fails++)
        for (int j = OCC__RULE_N_CHECKS; j-- > 0;)
            if (fails & OCC__FAIL_BIT(occ__rule_check_order[j]))
                occ__first_fail[fails] = occ__rule_check_order[j];
    for (int j = 0; j < OCC__RULE_CHECKS_BEFORE_LIMITS; j++)
        before_limits |= OCC__FAIL_BIT(occ__rule_check_order[j]);
}

/* What the rule's answer of a kernel the launchable path refuses holds,
 * found from the checks that failed: the reason (the first in the rule's
 * order), the contexts known by then (none before the sub-group size and
 * GRF mode passed). */
typedef struct refusal {
    occ_reason reason;
    uint32_t cpw, cpc;
} refusal;

static refusal refusal_of(uint32_t fails, uint32_t t, uint32_t cpc)
{
    const uint32_t no_mode = OCC__FAIL_BIT(OCC_REASON_WG_ZERO) | OCC__FAIL_BIT(OCC_REASON_SUB_GROUP);
    return (refusal){.reason = occ__first_fail[fails],
                     .cpw = fails & (no_mode | OCC__FAIL_BIT(OCC_REASON_GRF_MODE)) ? 0 : t,
                     .cpc = fails & no_mode ? 0 : cpc};
}

/* A refusal the launchable path answers: by a check of the kernel's shape
 * or request (occ__evaluate_shape alone, none of the later tables read), or
 * by the registers' (o filled).  false: the rule answers (the kernel
 * launches, its work-group is past the path's exact range of 2^30
 * work-items, or it sets a field the path declines). */
__attribute__((always_inline)) static inline bool refused(const occ__fast *f, const occ_kernel *k, occ__shape *s,
                                                         occ__launch *o, refusal *why)
{
    occ__evaluate_shape(f, k, s);
    if (s->W >= (1u << 30) || occ__fast_declines(k))
        return false;
    if (s->fails) {
        *why = refusal_of(s->fails, s->t, s->cpc);
        return true;
    }
    if (occ__evaluate_launch(f, k, o))
        return false;
    *why = refusal_of(o->fails, o->t, o->cpc);
    return true;
}

/* A kernel the launchable path refuses: the rule's report, from what the
 * path found (the rule itself answers a kernel the path cannot).  The rule
 * writes the fields of the rows before the one that refuses (rule.h):
 *   - a check of the shape or request (before the first limit row): the
 *     kernel's shape as far as the rule got, no limit, no allocation;
 *   - the registers row's checks (the last row with a limit): every other
 *     limit and the local memory's allocation;
 *   - no room for one work-group (the rule's end, only registers can leave
 *     none, eval_fast.h): every limit and allocation, nothing resident. */
void occ__fast_cannot_launch(const occ__fast *f, const occ_kernel *k, occ_residency *r)
{
    occ__shape s;
    occ__launch o;
    refusal why;
    if (!refused(f, k, &s, &o, &why)) {
        occ__rule_eval(&occ__fast_device(f)->desc, k, r, NULL, 0);
        return;
    }
    occ__reset_residency(r);
    r->reason = why.reason;
    r->sub_group = s.sg;
    r->grf = s.cpc ? s.grf : k->grf; /* no GRF mode (contexts 0): the request as given */
    r->wg_size = s.W;
    r->contexts_per_wg = why.cpw;
    r->contexts_per_core = why.cpc;
    if (s.fails)
        return;
    /* registers: the path's check is the lesser of the row's (the most warps
     * a work-group may have) and the core's room; the rule's step says which */
    bool no_room = why.reason == OCC_REASON_REGS_PER_WG &&
                   o.t <= occ__rule_registers(&occ__fast_device(f)->desc, k->regs_per_thread, o.sg).max_warps;
    memcpy(r->limits, o.lim, sizeof r->limits);
    r->slm_per_wg_alloc = o.alloc;
    r->slm_core_config = o.config;
    if (no_room)
        r->regs_per_wg_alloc = o.regs_alloc;
    else
        r->limits[OCC_RES_REGISTERS] = OCC_NO_LIMIT;
}

/* The compact answer of a kernel the launchable path refuses: the reason
 * and the contexts (refused()); a kernel it does not refuse, or cannot
 * answer, gets the rule's answer. */
void occ__fast_cannot_launch_eval(const occ__fast *f, const occ_kernel *k, occ_eval *e)
{
    occ__shape s;
    occ__launch o;
    refusal why;
    if (!refused(f, k, &s, &o, &why)) {
        occ_residency r; /* stays in L1: only the 24 bytes of *e go to memory */
        occ__rule_eval(&occ__fast_device(f)->desc, k, &r, NULL, 0);
        occ__eval_from_residency(&r, e);
        return;
    }
    *e = (occ_eval){0};
    e->reason = (uint8_t)why.reason;
    e->contexts_per_wg = why.cpw;
    e->contexts_per_core = why.cpc;
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
