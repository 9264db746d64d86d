/* The per-core rule (rule.h): an ordered table of rows.  A row may refuse the
 * kernel (the reason, and its words when asked) and may set the limit of one
 * resource, the work-groups per core it allows.  Intel's rule (the guide
 * and the GPU Occupancy Calculator) and CUDA's (docs/model.md, "NVIDIA:
 * CUDA's rule") are the same rows over one device description:
 *   shape      ceil(W / S) thread contexts per work-group (sub-group size and
 *              GRF mode checked, W within the device maximum)
 *   kernel     what the compiled kernel allows: its required sub-group size,
 *              its required work-group size, its maximum (launch bounds)
 *   request    the carveout preference and the local memory within range
 *   threads    floor(contexts per core / contexts per work-group)
 *   slots      the work-groups a core may hold (AMD: only work-groups of
 *              more than one wave take a slot)
 *   barriers   barrier-using work-groups per core (AMD: none, the slots are
 *              the barriers)
 *   local mem  floor(core size / allocation per work-group)
 *   registers  floor(warps a core holds by registers / warps per work-group)
 *   vendor     the vendor's own, for the kernel's vendor fields (AMD: SGPRs
 *              and CU mode)
 * resident = the least limit; every limit equal to it binds.  The rows run
 * in this order: a kernel refused by a row has the fields of the rows before
 * it, so every caller sees the same partial answer. */
#include "model/rule.h"

#include "arch/arch.h"

#include <stdio.h>

/* What the rows share while they run over one kernel. */
typedef struct rule_run {
    const occ_device_desc *d;
    const occ_kernel *k;
    occ_residency *r;
    char *detail; /* NULL: no words (the common case: snprintf costs more than the rule) */
    size_t detail_size;
    const occ_grf_mode *mode;
    uint32_t t; /* contexts per work-group, once the shape row passed */
} rule_run;

/* Refuse with a reason, formatting its words only when asked for. */
#define REFUSE(code, ...)                                                                          \
    do {                                                                                           \
        if (run->detail)                                                                           \
            snprintf(run->detail, run->detail_size, __VA_ARGS__);                                  \
        return code;                                                                               \
    } while (0)

/* ---- the steps over the device alone ------------------------------------------ */

/* The loops below run over whole small tables without an early exit: their
 * trip count is a property of the device, which the branch predictor learns,
 * not of the request. */

bool occ__rule_sub_group_ok(const occ_device_desc *d, uint32_t sg)
{
    bool found = false;
    for (uint32_t i = 0; i < d->n_sub_group_sizes; i++)
        found |= d->sub_group_sizes[i] == sg;
    return found;
}

const occ_grf_mode *occ__rule_grf_mode(const occ_device_desc *d, uint32_t grf)
{
    if (grf == 0)
        grf = d->default_grf;
    uint32_t below = 0;
    for (uint32_t i = 0; i < d->n_grf_modes; i++)
        below += d->grf_modes[i].registers < grf;
    return below < d->n_grf_modes ? &d->grf_modes[below] : NULL;
}

uint32_t occ__rule_contexts_per_core(const occ_device_desc *d, const occ_grf_mode *mode)
{
    return d->engines_per_core * mode->threads_per_engine;
}

uint64_t occ__rule_slm_alloc(const occ_device_desc *d, uint64_t slm_bytes)
{
    uint64_t need = slm_bytes + d->slm_reserved_per_work_group;
    if (need == 0)
        return 0;
    if (d->slm_granule)
        return occ__round_up(need, d->slm_granule);
    uint32_t below = 0;
    for (uint32_t i = 0; i < d->n_slm_steps; i++)
        below += d->slm_steps[i] < need;
    return below < d->n_slm_steps ? d->slm_steps[below] : 0;
}

uint64_t occ__rule_slm_config(const occ_device_desc *d, int32_t carveout_pct, uint64_t per_wg)
{
    if (!d->n_carveouts)
        return d->slm_per_core;
    uint64_t want = carveout_pct < 0 ? d->slm_per_core
                                     : occ__ceil_div((uint64_t)carveout_pct * d->slm_per_core, 100);
    if (want < per_wg)
        want = per_wg;
    uint32_t below = 0;
    for (uint32_t i = 0; i < d->n_carveouts; i++)
        below += d->carveouts[i] < want;
    return below < d->n_carveouts ? d->carveouts[below] : d->slm_per_core;
}

uint32_t occ__rule_warps_by_regs(const occ_device_desc *d, uint32_t per_warp)
{
    return (d->regs_per_core / d->reg_partitions) / per_warp * d->reg_partitions;
}

occ__rule_regs occ__rule_registers(const occ_device_desc *d, uint32_t regs, uint32_t sg)
{
    /* registers per warp and per block stay below 2^32: at most 512 x 64 */
    uint32_t unit = d->reg_alloc_unit, gran = d->reg_warp_granularity;
    occ__rule_regs c;
    c.per_warp = (regs * sg + unit - 1) / unit * unit;
    c.warps_by_regs = occ__rule_warps_by_regs(d, c.per_warp);
    /* round_up(t, gran) x per_warp <= the maximum  <=>  t <= this */
    c.max_warps = d->reg_max_per_work_group / c.per_warp / gran * gran;
    return c;
}

static bool slots_are_barriers(const occ_device_desc *d)
{
    const occ__vendor_rules *v = occ__vendor_rules_of(d->vendor);
    return v && v->slots_are_barriers;
}

uint32_t occ__rule_wg_slots(const occ_device_desc *d, uint32_t t)
{
    return t > 1 || !slots_are_barriers(d) ? d->max_work_groups_per_core : OCC_NO_LIMIT;
}

uint32_t occ__rule_barriers(const occ_device_desc *d, bool barrier)
{
    return barrier && !slots_are_barriers(d) ? d->barriers_per_core : OCC_NO_LIMIT;
}

/* ---- the rows ------------------------------------------------------------------- */

/* The work-group's shape: its size, sub-group and GRF mode, and the thread
 * contexts it needs against the core's. */
static occ_reason row_shape(rule_run *run)
{
    const occ_device_desc *d = run->d;
    occ_residency *r = run->r;
    uint64_t W = r->wg_size;
    if (W == 0)
        REFUSE(OCC_REASON_WG_ZERO, "work-group size is zero");
    if (!occ__rule_sub_group_ok(d, r->sub_group)) {
        char list[64] = "";
        size_t used = 0;
        for (uint32_t i = 0; run->detail && i < d->n_sub_group_sizes && used < sizeof list; i++) {
            int n = snprintf(list + used, sizeof list - used, "%s%u", i ? ", " : "", d->sub_group_sizes[i]);
            used += n > 0 ? (size_t)n : 0;
        }
        REFUSE(OCC_REASON_SUB_GROUP, "sub-group size %u is not supported (supported: %s)", r->sub_group, list);
    }
    if (!run->mode)
        REFUSE(OCC_REASON_GRF_MODE, "no GRF mode has %u registers (largest: %u)", run->k->grf,
               d->grf_modes[d->n_grf_modes - 1].registers);
    r->contexts_per_core = occ__rule_contexts_per_core(d, run->mode);
    if (W == UINT64_MAX)
        REFUSE(OCC_REASON_WG_TOO_LARGE, "work-group of 2^64 or more work-items is larger than the maximum %u",
               d->max_work_group_size);
    if (W > d->max_work_group_size) {
        uint64_t t = occ__ceil_div(W, r->sub_group);
        r->contexts_per_wg = t > UINT32_MAX ? UINT32_MAX : (uint32_t)t;
        REFUSE(OCC_REASON_WG_TOO_LARGE, "work-group of %llu work-items is larger than the maximum %u",
               (unsigned long long)W, d->max_work_group_size);
    }
    /* from here W fits 32 bits: 32-bit divisions are several times cheaper */
    uint32_t t = ((uint32_t)W + r->sub_group - 1) / r->sub_group;
    r->contexts_per_wg = run->t = t;
    if (t > r->contexts_per_core)
        REFUSE(OCC_REASON_CONTEXTS, "work-group needs %u thread contexts; a core has %u in the %u-register mode",
               t, r->contexts_per_core, run->mode->registers);
    return OCC_REASON_NONE;
}

/* What the compiled kernel allows (0: no constraint): a launch outside it
 * is refused by the driver whatever the device could hold. */
static occ_reason row_kernel(rule_run *run)
{
    const occ_kernel *k = run->k;
    const occ_residency *r = run->r;
    if (k->reqd_sub_group && r->sub_group != k->reqd_sub_group)
        REFUSE(OCC_REASON_REQD_SUB_GROUP, "sub-group size %u is not the kernel's required sub-group size %u",
               r->sub_group, k->reqd_sub_group);
    if (k->reqd_wg[0]) {
        uint32_t want[3] = {k->reqd_wg[0], k->reqd_wg[1] ? k->reqd_wg[1] : 1, k->reqd_wg[2] ? k->reqd_wg[2] : 1};
        if (k->wg[0] != want[0] || k->wg[1] != want[1] || k->wg[2] != want[2])
            REFUSE(OCC_REASON_REQD_WG, "work-group %ux%ux%u is not the kernel's required work-group size %ux%ux%u",
                   k->wg[0], k->wg[1], k->wg[2], want[0], want[1], want[2]);
    }
    if (k->max_wg_size && r->wg_size > k->max_wg_size)
        REFUSE(OCC_REASON_KERNEL_MAX_WG, "work-group of %llu work-items is over the kernel's launch bound %u",
               (unsigned long long)r->wg_size, k->max_wg_size);
    return OCC_REASON_NONE;
}

/* The local-memory request itself, before any limit. */
static occ_reason row_request(rule_run *run)
{
    const occ_device_desc *d = run->d;
    const occ_kernel *k = run->k;
    if (k->carveout_pct < -1 || k->carveout_pct > 100)
        REFUSE(OCC_REASON_CARVEOUT, "carveout %d %% is outside 0..100", (int)k->carveout_pct);
    if (k->slm_bytes > d->slm_max_per_work_group)
        REFUSE(OCC_REASON_SLM_TOO_LARGE, "%llu bytes of %s per work-group; the maximum is %llu",
               (unsigned long long)k->slm_bytes, d->local_memory_name,
               (unsigned long long)d->slm_max_per_work_group);
    return OCC_REASON_NONE;
}

static occ_reason row_threads(rule_run *run)
{
    run->r->limits[OCC_RES_THREADS] = run->r->contexts_per_core / run->t;
    return OCC_REASON_NONE;
}

static occ_reason row_slots(rule_run *run)
{
    run->r->limits[OCC_RES_WG_SLOTS] = occ__rule_wg_slots(run->d, run->t);
    return OCC_REASON_NONE;
}

static occ_reason row_barriers(rule_run *run)
{
    run->r->limits[OCC_RES_BARRIERS] = occ__rule_barriers(run->d, run->k->barrier);
    return OCC_REASON_NONE;
}

static occ_reason row_local_memory(rule_run *run)
{
    const occ_device_desc *d = run->d;
    occ_residency *r = run->r;
    uint64_t per_wg = occ__rule_slm_alloc(d, run->k->slm_bytes);
    r->slm_per_wg_alloc = per_wg;
    r->slm_core_config = occ__rule_slm_config(d, run->k->carveout_pct, per_wg);
    if (per_wg > r->slm_core_config)
        REFUSE(OCC_REASON_SLM_TOO_LARGE, "%llu bytes of %s round up to %llu, more than a core's %llu",
               (unsigned long long)run->k->slm_bytes, d->local_memory_name, (unsigned long long)per_wg,
               (unsigned long long)r->slm_core_config);
    if (per_wg) {
        uint64_t lim = r->slm_core_config <= UINT32_MAX ? (uint32_t)r->slm_core_config / (uint32_t)per_wg
                                                        : r->slm_core_config / per_wg;
        r->limits[OCC_RES_SLM] = lim > UINT32_MAX - 1 ? UINT32_MAX - 1 : (uint32_t)lim;
    }
    return OCC_REASON_NONE;
}

static occ_reason row_registers(rule_run *run)
{
    const occ_device_desc *d = run->d;
    uint32_t regs = run->k->regs_per_thread;
    if (!d->has_register_file || !regs)
        return OCC_REASON_NONE; /* no register file, or registers unknown: not limiting */
    if (regs > d->reg_max_per_thread)
        REFUSE(OCC_REASON_REGS_PER_THREAD, "%u registers per thread; the maximum is %u", regs,
               d->reg_max_per_thread);
    occ__rule_regs c = occ__rule_registers(d, regs, run->r->sub_group);
    uint32_t t = run->t;
    if (t > c.max_warps) {
        uint32_t gran = d->reg_warp_granularity;
        REFUSE(OCC_REASON_REGS_PER_WG, "%llu registers per work-group; the maximum is %u",
               (unsigned long long)c.per_warp * ((t + gran - 1) / gran * gran), d->reg_max_per_work_group);
    }
    run->r->regs_per_wg_alloc = c.per_warp * t;
    run->r->limits[OCC_RES_REGISTERS] = c.warps_by_regs / t;
    return OCC_REASON_NONE;
}

/* The vendor's own row, for the kernel's vendor fields the common rows do
 * not know (occ__vendor_rules.rule_row; AMD: SGPRs, CU mode).  Nothing for
 * most vendors.  (Work-group slots that are barriers,
 * occ__vendor_rules.slots_are_barriers, are the slots and barriers rows'
 * own steps.) */
static occ_reason row_vendor(rule_run *run)
{
    if (!occ__kernel_vendor_fields(run->k))
        return OCC_REASON_NONE;
    const occ__vendor_rules *v = occ__vendor_rules_of(run->d->vendor);
    if (!v || !v->rule_row)
        return OCC_REASON_NONE;
    return v->rule_row(run->d, run->k, run->r, run->detail, run->detail_size);
}

/* The rule, in order.  A new check or limit is a row here (and a resource or
 * a reason in occ.h when it brings one).  A list of names rather than of
 * function pointers: the evaluator below calls each row directly, so the
 * compiler inlines them. */
#define RULE_ROWS(X)                                                                               \
    X(shape) X(kernel) X(request) X(threads) X(slots) X(barriers) X(local_memory) X(registers) X(vendor)

/* The rows' refusals in their order (row_shape's five, row_kernel's three,
 * row_request's two: OCC__RULE_CHECKS_BEFORE_LIMITS, before row_threads sets
 * the first limit; then row_registers' two). */
const uint8_t occ__rule_check_order[OCC__RULE_N_CHECKS] = {
    OCC_REASON_WG_ZERO,  OCC_REASON_SUB_GROUP, OCC_REASON_GRF_MODE,       OCC_REASON_WG_TOO_LARGE, OCC_REASON_CONTEXTS,
    OCC_REASON_REQD_SUB_GROUP, OCC_REASON_REQD_WG, OCC_REASON_KERNEL_MAX_WG,
    OCC_REASON_CARVEOUT, OCC_REASON_SLM_TOO_LARGE, OCC_REASON_REGS_PER_THREAD, OCC_REASON_REGS_PER_WG,
};

#define COUNT_ROW(name) +1
size_t occ__rule_rows(void) { return 0 RULE_ROWS(COUNT_ROW); }

void occ__rule_eval(const occ_device_desc *d, const occ_kernel *k, occ_residency *r, char *detail,
                    size_t detail_size)
{
    occ__reset_residency(r);
    rule_run run = {.d = d, .k = k, .r = r, .detail = detail, .detail_size = detail_size};
    r->wg_size = occ__wg_items(k);
    r->sub_group = k->sub_group ? k->sub_group : k->reqd_sub_group ? k->reqd_sub_group : d->sub_group_sizes[0];
    run.mode = occ__rule_grf_mode(d, k->grf);
    r->grf = run.mode ? run.mode->registers : k->grf;
    occ_reason why;
#define RUN_ROW(name)                                                                              \
    if ((why = row_##name(&run)) != OCC_REASON_NONE)                                               \
        goto refused;
    RULE_ROWS(RUN_ROW)
#undef RUN_ROW
    uint32_t resident = OCC_NO_LIMIT;
    for (int i = 0; i < OCC_RES_COUNT; i++)
        resident = r->limits[i] < resident ? r->limits[i] : resident;
    if (resident == 0) { /* only a profile at its edge gets here: one WG's registers exceed a core's */
        if (detail)
            snprintf(detail, detail_size, "one work-group needs more registers than a core has (%u)",
                     d->regs_per_core);
        r->reason = OCC_REASON_REGS_PER_WG;
        return;
    }
    for (int i = 0; i < OCC_RES_COUNT; i++)
        r->limited_by |= (uint32_t)(r->limits[i] == resident) << i;
    r->launchable = true;
    r->reason = OCC_REASON_NONE;
    r->resident_wgs = resident;
    r->contexts_used = resident * r->contexts_per_wg;
    r->contexts_idle = r->contexts_per_core - r->contexts_used;
    r->occupancy = (double)r->contexts_used / r->contexts_per_core;
    return;
refused:
    r->reason = why;
}
