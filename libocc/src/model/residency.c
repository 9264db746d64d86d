/* Per-core residency: how many work-groups of a kernel one core holds, what
 * each resource allows and which ones bind.  Intel's rule (the guide and the
 * GPU Occupancy Calculator) and CUDA's rule (docs/model.md, "NVIDIA: CUDA's
 * rule", with its sources) are the same computation over one device description:
 *   contexts per WG = ceil(W / S)
 *   threads   floor(contexts per core / contexts per WG)
 *   slm       floor(core local memory / allocated local memory per WG)
 *   registers floor(partitions * floor(regs per partition / regs per warp) / warps per WG)
 *   slots     max work-groups per core; barriers: barrier-using WGs per core
 * resident = min of all; every limit equal to it binds. */
#include "common/internal.h"

#include <string.h>

#include "model/eval_columns.h"
#include "model/eval_fast.h"

void occ_kernel_init(occ_kernel *k)
{
    if (k)
        occ__default_kernel(k);
}

/* Static copy of the public helper below (and occ__reset_residency for
 * occ_residency_init): compute() calls these so that the hot path makes no
 * calls through the PLT (exported names may be interposed, so the compiler
 * cannot inline them). */
static inline uint64_t wg_size_of(const occ_kernel *k)
{
    return occ__wg_items(k);
}

uint64_t occ_kernel_wg_size(const occ_kernel *k)
{
    return wg_size_of(k);
}

void occ_residency_init(occ_residency *r)
{
    if (!r)
        return;
    occ__reset_residency(r);
}

static const char *const resource_names[OCC_RES_COUNT] = {
    [OCC_RES_THREADS] = "threads",
    [OCC_RES_SLM] = "slm",
    [OCC_RES_REGISTERS] = "registers",
    [OCC_RES_WG_SLOTS] = "work_group_slots",
    [OCC_RES_BARRIERS] = "barriers",
};

const char *occ_resource_name(occ_resource r)
{
    return (unsigned)r < OCC_RES_COUNT ? resource_names[r] : "unknown";
}

static const char *const reason_texts[OCC_REASON_COUNT] = {
    [OCC_REASON_NONE] = "launchable",
    [OCC_REASON_WG_TOO_LARGE] = "work-group larger than the device maximum",
    [OCC_REASON_WG_ZERO] = "work-group size is zero",
    [OCC_REASON_SUB_GROUP] = "sub-group size not supported",
    [OCC_REASON_GRF_MODE] = "no GRF mode with that many registers",
    [OCC_REASON_SLM_TOO_LARGE] = "local memory per work-group over the maximum",
    [OCC_REASON_REGS_PER_THREAD] = "registers per thread over the maximum",
    [OCC_REASON_REGS_PER_WG] = "registers per work-group over the maximum",
    [OCC_REASON_CONTEXTS] = "work-group needs more thread contexts than a core has",
    [OCC_REASON_CARVEOUT] = "carveout percentage out of range",
};

const char *occ_reason_text(occ_reason r)
{
    return (unsigned)r < OCC_REASON_COUNT ? reason_texts[r] : "unknown reason";
}

/* Smallest legal step >= bytes, or 0 if none.  The loops in this file run
 * over whole small tables without an early exit: their trip count is then a
 * property of the device, which the branch predictor learns, not of the
 * request, which it cannot. */
static uint64_t round_to_step(const occ_device_desc *d, uint64_t bytes)
{
    uint32_t below = 0;
    for (uint32_t i = 0; i < d->n_slm_steps; i++)
        below += d->slm_steps[i] < bytes;
    return below < d->n_slm_steps ? d->slm_steps[below] : 0;
}

/* The local memory one work-group is charged, reserved part included. */
static uint64_t slm_alloc(const occ_device_desc *d, uint64_t bytes)
{
    uint64_t need = bytes + d->slm_reserved_per_work_group;
    if (need == 0)
        return 0;
    return d->slm_granule ? occ__round_up(need, d->slm_granule) : round_to_step(d, need);
}

/* Core's local memory for a carveout preference: the preference rounded up
 * to a legal size, never less than one work-group needs. */
static uint64_t slm_config(const occ_device_desc *d, int32_t pct, uint64_t per_wg)
{
    if (!d->n_carveouts)
        return d->slm_per_core;
    uint64_t want = pct < 0 ? d->slm_per_core : occ__ceil_div((uint64_t)pct * d->slm_per_core, 100);
    if (want < per_wg)
        want = per_wg;
    uint32_t below = 0;
    for (uint32_t i = 0; i < d->n_carveouts; i++)
        below += d->carveouts[i] < want;
    return below < d->n_carveouts ? d->carveouts[below] : d->slm_per_core;
}

/* GRF mode: the smallest mode with at least the requested registers. */
static const occ_grf_mode *pick_grf(const occ_device_desc *d, uint32_t grf)
{
    if (grf == 0)
        grf = d->default_grf;
    uint32_t below = 0;
    for (uint32_t i = 0; i < d->n_grf_modes; i++)
        below += d->grf_modes[i].registers < grf;
    return below < d->n_grf_modes ? &d->grf_modes[below] : NULL;
}

static bool sub_group_supported(const occ_device_desc *d, uint32_t sg)
{
    bool found = false;
    for (uint32_t i = 0; i < d->n_sub_group_sizes; i++)
        found |= d->sub_group_sizes[i] == sg;
    return found;
}

/* The detail text is formatted only when asked for (occ_residency_reason):
 * snprintf costs several times more than the whole model. */
#define CANNOT(code, ...)                                                                          \
    do {                                                                                           \
        r->reason = code;                                                                          \
        if (detail)                                                                                \
            snprintf(detail, detail_size, __VA_ARGS__);                                            \
        return;                                                                                    \
    } while (0)

/* The general code: every device, and the reason in words.  eval_fast.c
 * mirrors it step by step over per-device tables, and answers every query
 * of a device the tables cover; eval_columns_lanes.h mirrors it again in
 * vector lanes for occ_evaluate_columns: a change here needs the same change
 * there (tests/model/test_reference.c compares them all, and a plain model, byte
 * for byte). */
static void compute(const occ_device_desc *d, const occ_kernel *k, occ_residency *r, char *detail,
                    size_t detail_size)
{
    occ__reset_residency(r);
    uint64_t W = wg_size_of(k);
    r->wg_size = W;
    r->sub_group = k->sub_group ? k->sub_group : d->sub_group_sizes[0];
    const occ_grf_mode *mode = pick_grf(d, k->grf);
    r->grf = mode ? mode->registers : k->grf;
    if (W == 0)
        CANNOT(OCC_REASON_WG_ZERO, "work-group size is zero");
    if (!sub_group_supported(d, r->sub_group)) {
        char list[64] = "";
        size_t used = 0;
        for (uint32_t i = 0; detail && i < d->n_sub_group_sizes && used < sizeof list; i++) {
            int n = snprintf(list + used, sizeof list - used, "%s%u", i ? ", " : "",
                             d->sub_group_sizes[i]);
            used += n > 0 ? (size_t)n : 0;
        }
        CANNOT(OCC_REASON_SUB_GROUP, "sub-group size %u is not supported (supported: %s)",
               r->sub_group, list);
    }
    if (!mode)
        CANNOT(OCC_REASON_GRF_MODE, "no GRF mode has %u registers (largest: %u)", k->grf,
               d->grf_modes[d->n_grf_modes - 1].registers);
    r->contexts_per_core = d->engines_per_core * mode->threads_per_engine;
    if (W == UINT64_MAX)
        CANNOT(OCC_REASON_WG_TOO_LARGE, "work-group of 2^64 or more work-items is larger than the maximum %u",
               d->max_work_group_size);
    if (W > d->max_work_group_size) {
        r->contexts_per_wg = (uint32_t)(occ__ceil_div(W, r->sub_group) > UINT32_MAX
                                            ? UINT32_MAX
                                            : occ__ceil_div(W, r->sub_group));
        CANNOT(OCC_REASON_WG_TOO_LARGE, "work-group of %llu work-items is larger than the maximum %u",
               (unsigned long long)W, d->max_work_group_size);
    }
    /* From here W fits 32 bits: 32-bit divisions are several times cheaper. */
    uint32_t t = ((uint32_t)W + r->sub_group - 1) / r->sub_group;
    r->contexts_per_wg = t;
    if (t > r->contexts_per_core)
        CANNOT(OCC_REASON_CONTEXTS,
               "work-group needs %u thread contexts; a core has %u in the %u-register mode", t,
               r->contexts_per_core, mode->registers);
    if (k->carveout_pct < -1 || k->carveout_pct > 100)
        CANNOT(OCC_REASON_CARVEOUT, "carveout %d %% is outside 0..100", (int)k->carveout_pct);
    if (k->slm_bytes > d->slm_max_per_work_group)
        CANNOT(OCC_REASON_SLM_TOO_LARGE, "%llu bytes of %s per work-group; the maximum is %llu",
               (unsigned long long)k->slm_bytes, d->local_memory_name,
               (unsigned long long)d->slm_max_per_work_group);

    r->limits[OCC_RES_THREADS] = r->contexts_per_core / t;
    r->limits[OCC_RES_WG_SLOTS] = d->max_work_groups_per_core;
    r->limits[OCC_RES_BARRIERS] = k->barrier ? d->barriers_per_core : OCC_NO_LIMIT;

    uint64_t per_wg = slm_alloc(d, k->slm_bytes);
    r->slm_per_wg_alloc = per_wg;
    r->slm_core_config = slm_config(d, k->carveout_pct, per_wg);
    if (per_wg > r->slm_core_config)
        CANNOT(OCC_REASON_SLM_TOO_LARGE, "%llu bytes of %s round up to %llu, more than a core's %llu",
               (unsigned long long)k->slm_bytes, d->local_memory_name, (unsigned long long)per_wg,
               (unsigned long long)r->slm_core_config);
    if (per_wg) {
        uint64_t lim = r->slm_core_config <= UINT32_MAX
                           ? (uint32_t)r->slm_core_config / (uint32_t)per_wg
                           : r->slm_core_config / per_wg;
        r->limits[OCC_RES_SLM] = lim > UINT32_MAX - 1 ? UINT32_MAX - 1 : (uint32_t)lim;
    }

    if (d->has_register_file && k->regs_per_thread) {
        if (k->regs_per_thread > d->reg_max_per_thread)
            CANNOT(OCC_REASON_REGS_PER_THREAD, "%u registers per thread; the maximum is %u",
                   k->regs_per_thread, d->reg_max_per_thread);
        /* registers per warp and per block stay below 2^32: max 255 x warp */
        uint32_t unit = d->reg_alloc_unit;
        uint32_t per_warp = (k->regs_per_thread * d->sub_group_sizes[0] + unit - 1) / unit * unit;
        uint32_t gran = d->reg_warp_granularity;
        uint64_t per_block = (uint64_t)per_warp * ((t + gran - 1) / gran * gran);
        if (per_block > d->reg_max_per_work_group)
            CANNOT(OCC_REASON_REGS_PER_WG, "%llu registers per work-group; the maximum is %u",
                   (unsigned long long)per_block, d->reg_max_per_work_group);
        r->regs_per_wg_alloc = per_warp * t;
        uint32_t warps_per_partition = (d->regs_per_core / d->reg_partitions) / per_warp;
        r->limits[OCC_RES_REGISTERS] = warps_per_partition * d->reg_partitions / t;
    }

    uint32_t resident = OCC_NO_LIMIT;
    for (int i = 0; i < OCC_RES_COUNT; i++)
        resident = r->limits[i] < resident ? r->limits[i] : resident;
    if (resident == 0) /* only a profile at its edge gets here: one WG's registers exceed a core's */
        CANNOT(OCC_REASON_REGS_PER_WG, "one work-group needs more registers than a core has (%u)",
               d->regs_per_core);
    for (int i = 0; i < OCC_RES_COUNT; i++)
        r->limited_by |= (uint32_t)(r->limits[i] == resident) << i;
    r->launchable = true;
    r->reason = OCC_REASON_NONE;
    r->resident_wgs = resident;
    r->contexts_used = resident * r->contexts_per_wg;
    r->contexts_idle = r->contexts_per_core - r->contexts_used;
    r->occupancy = (double)r->contexts_used / r->contexts_per_core;
}

occ_status occ_residency_compute(const occ_device *dev, const occ_kernel *k, occ_residency *r)
{
    if (!dev || !k || !r || k->struct_size < sizeof *k)
        return OCC_ERR_INVALID_ARGUMENT;
    const occ__fast *f = occ__fast_of(dev);
    if (f)
        occ__fast_residency(f, k, r);
    else
        compute(&dev->desc, k, r, NULL, 0);
    return OCC_OK;
}

void occ__residency_eval(const occ_device_desc *d, const occ_kernel *k, occ_residency *r)
{
    compute(d, k, r, NULL, 0);
}

size_t occ_residency_reason(const occ_device *dev, const occ_kernel *k, char *buf, size_t size)
{
    if (!buf || size == 0)
        return 0;
    buf[0] = '\0';
    if (!dev || !k || k->struct_size < sizeof *k)
        return 0;
    occ_residency r;
    compute(&dev->desc, k, &r, buf, size);
    if (r.launchable)
        buf[0] = '\0';
    return strlen(buf);
}

occ_status occ_residency_batch(const occ_device *dev, const occ_kernel *ks, occ_residency *rs,
                               size_t n)
{
    if (!dev || (n && (!ks || !rs)))
        return OCC_ERR_INVALID_ARGUMENT;
    /* a bad entry stops the batch; those before it are answered */
    const occ__fast *f = occ__fast_of(dev);
    if (f) /* in lanes (eval_columns.c) */
        return occ__residency_structs(f, n, ks, rs, OCC__COLUMNS_AUTO) == n ? OCC_OK : OCC_ERR_INVALID_ARGUMENT;
    size_t good = occ__kernels_valid(ks, n);
    for (size_t i = 0; i < good; i++)
        compute(&dev->desc, &ks[i], &rs[i], NULL, 0);
    return good == n ? OCC_OK : OCC_ERR_INVALID_ARGUMENT;
}
