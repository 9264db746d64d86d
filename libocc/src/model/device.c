/* Device descriptions: validation and the device object (pure: no I/O; the
 * built-in profiles and file loading live in profiles/). */
#include "common/internal.h"
#include "model/eval_columns.h"
#include "model/eval_fast.h"
#include "model/rule.h"
#include "model/profile_schema.h"

#include <stdlib.h>
#include <string.h>

void occ_device_desc_init(occ_device_desc *d)
{
    if (!d)
        return;
    memset(d, 0, sizeof *d);
    d->struct_size = sizeof *d;
    d->barriers_per_core = OCC_NO_LIMIT;
    d->barriers_per_core_driver = OCC_NO_LIMIT;
    d->dispatch_order = OCC_DISPATCH_PACK;
}

uint32_t occ_desc_contexts_per_core(const occ_device_desc *d, uint32_t grf)
{
    for (uint32_t i = 0; i < d->n_grf_modes; i++)
        if (d->grf_modes[i].registers == grf)
            return occ__rule_contexts_per_core(d, &d->grf_modes[i]);
    return 0;
}

static bool name_ok(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-' || *s == '_' ||
              *s == '.'))
            return false;
    return true;
}

/* core.grf_modes items and the work-group size they must hold. */
static occ_status check_core(const occ_device_desc *d, occ_diag *diag)
{
    uint32_t best_threads = 0;
    for (uint32_t i = 0; i < d->n_grf_modes; i++) {
        if (!d->grf_modes[i].registers || !d->grf_modes[i].threads_per_engine)
            OCC__FAIL(diag, "core.grf_modes", "registers and threads_per_engine must be positive");
        if (i && d->grf_modes[i].registers <= d->grf_modes[i - 1].registers)
            OCC__FAIL(diag, "core.grf_modes", "registers must ascend strictly");
        if ((uint64_t)d->grf_modes[i].threads_per_engine * d->engines_per_core > UINT32_MAX / 2)
            OCC__FAIL(diag, "core.grf_modes", "thread contexts per core overflow");
        if (d->grf_modes[i].threads_per_engine > best_threads)
            best_threads = d->grf_modes[i].threads_per_engine;
    }
    if (!occ_desc_contexts_per_core(d, d->default_grf))
        OCC__FAIL(diag, "core.default_grf", "%u is not one of core.grf_modes", d->default_grf);
    uint64_t widest = d->sub_group_sizes[d->n_sub_group_sizes - 1];
    uint64_t need = occ__ceil_div(d->max_work_group_size, widest);
    uint64_t have = (uint64_t)best_threads * d->engines_per_core;
    if (need > have)
        OCC__FAIL(diag, "core.max_work_group_size",
                   "%u work-items need %llu thread contexts at sub-group %llu, but a core has only %llu",
                   d->max_work_group_size, (unsigned long long)need, (unsigned long long)widest,
                   (unsigned long long)have);
    return OCC_OK;
}

/* Thread-block clusters: the GPCs and the three caps together or none; the
 * GPCs hold every core once; the non-portable maximum at least the portable. */
static occ_status check_clusters(const occ_device_desc *d, occ_diag *diag)
{
    bool any = d->n_gpcs || d->cluster_max_work_groups || d->cluster_max_size ||
               d->cluster_max_size_non_portable;
    if (!any)
        return OCC_OK;
    if (!d->n_gpcs || !d->cluster_max_work_groups || !d->cluster_max_size ||
        !d->cluster_max_size_non_portable)
        OCC__FAIL(diag, "core.gpc_sms",
                  "gpc_sms, cluster_max_work_groups, cluster_max_size and "
                  "cluster_max_size_non_portable go together: all four or none");
    uint64_t sum = 0;
    for (uint32_t i = 0; i < d->n_gpcs; i++)
        sum += d->gpc_sms[i];
    if (sum != d->cores)
        OCC__FAIL(diag, "core.gpc_sms", "the GPCs hold %llu cores in all, core.count is %u",
                  (unsigned long long)sum, d->cores);
    if (d->cluster_max_size_non_portable < d->cluster_max_size)
        OCC__FAIL(diag, "core.cluster_max_size_non_portable", "%u is less than cluster_max_size (%u)",
                  d->cluster_max_size_non_portable, d->cluster_max_size);
    return OCC_OK;
}

/* A maximal work-group's local memory, rounded as the device allocates it,
 * fits a core; the carveouts end at the core's size. */
static occ_status check_local_memory(const occ_device_desc *d, occ_diag *diag)
{
    if (d->slm_max_per_work_group > d->slm_per_core)
        OCC__FAIL(diag, "local_memory.max_per_work_group", "%llu is more than local_memory.per_core %llu",
                   (unsigned long long)d->slm_max_per_work_group, (unsigned long long)d->slm_per_core);
    if (d->slm_reserved_per_work_group >= d->slm_per_core)
        OCC__FAIL(diag, "local_memory.reserved_per_work_group", "must be less than local_memory.per_core");
    if ((d->slm_granule != 0) == (d->n_slm_steps != 0))
        OCC__FAIL(diag, "local_memory", "needs exactly one of 'steps' and 'granule'");
    uint64_t wg_need = d->slm_max_per_work_group + d->slm_reserved_per_work_group;
    if (d->n_slm_steps && d->slm_steps[d->n_slm_steps - 1] < wg_need)
        OCC__FAIL(diag, "local_memory.steps", "largest step %llu cannot hold max_per_work_group %llu",
                   (unsigned long long)d->slm_steps[d->n_slm_steps - 1],
                   (unsigned long long)d->slm_max_per_work_group);
    if (d->n_slm_steps) {
        /* the step a maximal work-group is charged must fit in a core */
        for (uint32_t i = 0; i < d->n_slm_steps; i++)
            if (d->slm_steps[i] >= wg_need) {
                if (d->slm_steps[i] > d->slm_per_core)
                    OCC__FAIL(diag, "local_memory.steps",
                               "max_per_work_group %llu rounds up to the step %llu, more than per_core %llu",
                               (unsigned long long)d->slm_max_per_work_group,
                               (unsigned long long)d->slm_steps[i], (unsigned long long)d->slm_per_core);
                break;
            }
    } else if (occ__round_up(wg_need, d->slm_granule) > d->slm_per_core) {
        OCC__FAIL(diag, "local_memory.granule",
                   "max_per_work_group plus reserved, rounded to the granule, exceeds per_core");
    }
    if (d->n_carveouts && d->carveouts[d->n_carveouts - 1] != d->slm_per_core)
        OCC__FAIL(diag, "local_memory.carveouts", "the largest carveout %llu must equal per_core %llu",
                   (unsigned long long)d->carveouts[d->n_carveouts - 1],
                   (unsigned long long)d->slm_per_core);
    return OCC_OK;
}

/* Whether the vendor's profiles have a register file (before its keys are checked). */
static occ_status check_register_file(const occ_device_desc *d, occ_diag *diag)
{
    const occ_vendor_words *w = occ_vendor_words_of(d->vendor);
    if (w && w->register_file && !d->has_register_file)
        OCC__FAIL(diag, "registers", "an %s profile needs a register file", w->word);
    if (w && !w->register_file && d->has_register_file)
        OCC__FAIL(diag, "registers", "an %s profile uses core.grf_modes: write 'registers: none'",
                  w->word);
    return OCC_OK;
}

/* The register file's sizes agree, and one warp fits a partition. */
static occ_status check_registers(const occ_device_desc *d, occ_diag *diag)
{
    if (!d->has_register_file)
        return OCC_OK;
    if (d->reg_max_per_work_group > d->regs_per_core)
        OCC__FAIL(diag, "registers.max_per_work_group", "%u is more than registers.per_core %u",
                   d->reg_max_per_work_group, d->regs_per_core);
    if (d->regs_per_core % d->reg_partitions)
        OCC__FAIL(diag, "registers.partitions", "must be positive and divide registers.per_core");
    /* the widest warp (wave) at the maximum */
    uint64_t one_warp = occ__round_up((uint64_t)d->reg_max_per_thread * d->sub_group_sizes[d->n_sub_group_sizes - 1],
                                      d->reg_alloc_unit);
    if (one_warp == 0 || one_warp > d->regs_per_core / d->reg_partitions)
        OCC__FAIL(diag, "registers.max_per_thread", "one warp at the maximum does not fit a partition");
    return OCC_OK;
}

/* The per-field rules come from the schema table (model/profile_schema.c);
 * the rules that relate fields are written out here. */
bool occ_device_has_timing(const occ_device_desc *d)
{
    return d && (d->refill_gap_s > 0 || d->core_interval_s > 0 ||
                 d->core_interval_per_context_s > 0 || d->gpu_interval_s > 0);
}

/* Dispatch timing (a description made in code skips the YAML bounds). */
static occ_status check_timing(const occ_device_desc *d, occ_diag *diag)
{
    const double t[16] = {d->refill_gap_s,     d->core_interval_s,
                          d->core_interval_per_context_s, d->gpu_interval_s,
                          d->launch_interval_s, d->refill_gap_drained_s,
                          d->gpu_interval_per_context_s, d->refill_pause_s,
                          d->refill_window_s, d->refill_window_threads_s,
                          d->gpu_report_per_work_group_s, d->refill_gap_spread_s,
                          d->core_interval_threads_s, d->refill_pause_first_s,
                          d->core_interval_slots_s, d->sub_partition_hold_s};
    static const char *const key[16] = {
        "dispatch.refill_gap_ns",      "dispatch.core_interval_ns",
        "dispatch.core_interval_per_context_ns", "dispatch.gpu_interval_ns",
        "dispatch.launch_interval_ns", "dispatch.refill_gap_drained_ns",
        "dispatch.gpu_interval_per_context_ns", "dispatch.refill_pause_ns",
        "dispatch.refill_window_ns", "dispatch.refill_window_threads_ns",
        "dispatch.gpu_report_per_work_group_ns", "dispatch.refill_gap_spread_ns",
        "dispatch.core_interval_threads_ns", "dispatch.refill_pause_first_ns",
        "dispatch.core_interval_slots_ns", "dispatch.sub_partition_hold_ns"};
    for (int i = 0; i < 16; i++)
        if (!(t[i] >= 0 && t[i] <= 1))
            OCC__FAIL(diag, key[i], "must be in [0, 1e9] ns");
    if (d->gpu_burst_work_groups > (1u << 24))
        OCC__FAIL(diag, "dispatch.gpu_burst_work_groups", "must be at most 16777216");
    if (d->gpu_burst_slots_work_groups > (1u << 24))
        OCC__FAIL(diag, "dispatch.gpu_burst_slots_work_groups", "must be at most 16777216");
    /* the refinements only refine: without the four intervals they would be ignored */
    if (!occ_device_has_timing(d) &&
        (d->gpu_burst_work_groups || d->launch_interval_s > 0 || d->refill_gap_drained_s > 0 ||
         d->gpu_interval_per_context_s > 0 || d->refill_pause_s > 0 || d->refill_window_s > 0 ||
         d->refill_window_threads_s > 0 || d->gpu_report_per_work_group_s > 0 ||
         d->refill_gap_spread_s > 0 || d->core_interval_threads_s > 0))
        OCC__FAIL(diag, "dispatch", "gpu_burst_work_groups, launch_interval_ns, "
                                    "refill_gap_drained_ns, gpu_interval_per_context_ns and the "
                                    "refill_pause_ns group need the dispatch timing they refine");
    /* the window and the report time only shape reports */
    if (!(d->refill_pause_s > 0) &&
        (d->refill_window_s > 0 || d->refill_window_threads_s > 0 ||
         d->gpu_report_per_work_group_s > 0 || d->refill_gap_spread_s > 0 ||
         d->core_interval_threads_s > 0 || d->refill_pause_first_s > 0 ||
         d->core_interval_slots_s > 0 || d->gpu_burst_slots_work_groups ||
         d->sub_partition_hold_s > 0))
        OCC__FAIL(diag, "dispatch", "refill_window_ns, refill_window_threads_ns, "
                                    "gpu_report_per_work_group_ns, refill_gap_spread_ns, "
                                    "core_interval_threads_ns, refill_pause_first_ns, "
                                    "core_interval_slots_ns, gpu_burst_slots_work_groups and "
                                    "sub_partition_hold_ns need refill_pause_ns");
    /* a core's gap never below zero */
    if (d->refill_gap_spread_s > 2 * d->refill_gap_s)
        OCC__FAIL(diag, "dispatch.refill_gap_spread_ns", "must be at most twice refill_gap_ns");
    if (occ_device_has_timing(d) && !d->timing_evidence[0])
        OCC__FAIL(diag, "dispatch.timing_evidence", "dispatch timing needs its evidence");
    return OCC_OK;
}

occ_status occ__desc_validate(const occ_device_desc *d, occ_diag *diag)
{
    if (!d || d->struct_size < sizeof *d)
        return occ__diag(diag, OCC_ERR_INVALID_ARGUMENT, NULL, 0, 0, NULL,
                         "device description missing or struct_size too small");
    if (!name_ok(d->name))
        OCC__FAIL(diag, "name", "must be a non-empty id of [a-z0-9._-]");
    if (d->target[0] && !name_ok(d->target))
        OCC__FAIL(diag, "target", "must be an id of [a-z0-9._-], as kernel files name it (sm_90, tgllp)");
    occ_status st = check_register_file(d, diag);
    if (!st)
        st = occ__desc_check_fields(d, diag);
    if (!st)
        st = check_timing(d, diag);
    if (!st)
        st = check_core(d, diag);
    if (!st)
        st = check_clusters(d, diag);
    if (!st)
        st = check_local_memory(d, diag);
    if (!st)
        st = check_registers(d, diag);
    return st;
}

occ_status occ__device_new(const occ_device_desc *desc, const char *origin, char **sources,
                           size_t n_sources, char *evidence, occ_device **out)
{
    /* the device, then its residency tables (eval_fast.c) on their own
     * cache lines (every query reads them), then the column batch's plan
     * (eval_columns.c) */
    size_t plan_at = (OCC__FAST_OFFSET + occ__fast_size(desc) + 63) & ~(size_t)63;
    size_t size = plan_at + occ__columns_plan_size();
    occ_device *dev = aligned_alloc(64, size);
    if (dev)
        memset(dev, 0, size);
    if (!dev) {
        for (size_t i = 0; i < n_sources; i++)
            free(sources[i]);
        free(sources);
        free(evidence);
        return OCC_ERR_NO_MEMORY;
    }
    dev->desc = *desc;
    dev->desc.struct_size = sizeof dev->desc;
    snprintf(dev->origin, sizeof dev->origin, "%s", origin ? origin : "<description>");
    dev->sources = sources;
    dev->n_sources = n_sources;
    dev->dispatch_evidence = evidence;
    occ__fast *f = (occ__fast *)(void *)((char *)dev + OCC__FAST_OFFSET);
    occ__fast_init(f, &dev->desc);
    occ__columns_plan_init(dev, f, (char *)dev + plan_at);
    *out = dev;
    return OCC_OK;
}

occ_status occ_device_create(const occ_device_desc *desc, occ_device **out, occ_diag *diag)
{
    if (!out)
        return OCC_ERR_INVALID_ARGUMENT;
    *out = NULL;
    occ_status st = occ__desc_validate(desc, diag);
    if (st)
        return st;
    return occ__device_new(desc, "<description>", NULL, 0, NULL, out);
}

void occ_device_free(occ_device *dev)
{
    if (!dev)
        return;
    for (size_t i = 0; i < dev->n_sources; i++)
        free(dev->sources[i]);
    free(dev->sources);
    free(dev->dispatch_evidence);
    free(dev);
}

const occ_device_desc *occ_device_describe(const occ_device *dev) { return dev ? &dev->desc : NULL; }
const char *occ_device_origin(const occ_device *dev) { return dev ? dev->origin : ""; }
size_t occ_device_source_count(const occ_device *dev) { return dev ? dev->n_sources : 0; }
const char *occ_device_source(const occ_device *dev, size_t i)
{
    return dev && i < dev->n_sources ? dev->sources[i] : NULL;
}
const char *occ_device_dispatch_evidence(const occ_device *dev)
{
    return dev && dev->dispatch_evidence ? dev->dispatch_evidence : "";
}
