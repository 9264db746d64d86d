/* Device descriptions: validation and the device object (pure: no I/O; the
 * built-in profiles and file loading live in profiles/). */
#include "common/internal.h"

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
            return d->engines_per_core * d->grf_modes[i].threads_per_engine;
    return 0;
}

#define FAIL(key, ...) return occ__diag(diag, OCC_ERR_VALUE, NULL, 0, 0, key, __VA_ARGS__)

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

occ_status occ__desc_validate(const occ_device_desc *d, occ_diag *diag)
{
    if (!d || d->struct_size < sizeof *d)
        return occ__diag(diag, OCC_ERR_INVALID_ARGUMENT, NULL, 0, 0, NULL,
                         "device description missing or struct_size too small");
    if (!name_ok(d->name))
        FAIL("name", "must be a non-empty id of [a-z0-9._-]");
    if (d->vendor != OCC_VENDOR_INTEL && d->vendor != OCC_VENDOR_NVIDIA)
        FAIL("vendor", "must be intel or nvidia");
    if (!d->cores)
        FAIL("core.count", "must be positive");
    if (!d->engines_per_core)
        FAIL("core.vector_engines", "must be positive");
    if (!d->simd_width)
        FAIL("core.simd_width", "must be positive");
    if (!d->n_sub_group_sizes || d->n_sub_group_sizes > OCC_MAX_SUB_GROUP_SIZES)
        FAIL("core.sub_group_sizes", "needs 1 to %d sizes", OCC_MAX_SUB_GROUP_SIZES);
    for (uint32_t i = 0; i < d->n_sub_group_sizes; i++) {
        if (!d->sub_group_sizes[i])
            FAIL("core.sub_group_sizes", "sizes must be positive");
        if (i && d->sub_group_sizes[i] <= d->sub_group_sizes[i - 1])
            FAIL("core.sub_group_sizes", "sizes must ascend strictly");
    }
    if (!d->n_grf_modes || d->n_grf_modes > OCC_MAX_GRF_MODES)
        FAIL("core.grf_modes", "needs 1 to %d modes", OCC_MAX_GRF_MODES);
    uint32_t best_threads = 0;
    for (uint32_t i = 0; i < d->n_grf_modes; i++) {
        if (!d->grf_modes[i].registers || !d->grf_modes[i].threads_per_engine)
            FAIL("core.grf_modes", "registers and threads_per_engine must be positive");
        if (i && d->grf_modes[i].registers <= d->grf_modes[i - 1].registers)
            FAIL("core.grf_modes", "registers must ascend strictly");
        if ((uint64_t)d->grf_modes[i].threads_per_engine * d->engines_per_core > UINT32_MAX / 2)
            FAIL("core.grf_modes", "thread contexts per core overflow");
        if (d->grf_modes[i].threads_per_engine > best_threads)
            best_threads = d->grf_modes[i].threads_per_engine;
    }
    if (!occ_desc_contexts_per_core(d, d->default_grf))
        FAIL("core.default_grf", "%u is not one of core.grf_modes", d->default_grf);
    if (!d->max_work_group_size)
        FAIL("core.max_work_group_size", "must be positive");
    uint64_t widest = d->sub_group_sizes[d->n_sub_group_sizes - 1];
    uint64_t need = occ__ceil_div(d->max_work_group_size, widest);
    uint64_t have = (uint64_t)best_threads * d->engines_per_core;
    if (need > have)
        FAIL("core.max_work_group_size",
             "%u work-items need %llu thread contexts at sub-group %llu, but a core has only %llu",
             d->max_work_group_size, (unsigned long long)need, (unsigned long long)widest,
             (unsigned long long)have);
    if (!d->max_work_groups_per_core)
        FAIL("core.max_work_groups", "must be positive");
    if (!d->barriers_per_core || !d->barriers_per_core_driver)
        FAIL("core.barriers", "must be positive or none");

    if (!d->slm_per_core)
        FAIL("local_memory.per_core", "must be positive");
    if (!d->slm_max_per_work_group)
        FAIL("local_memory.max_per_work_group", "must be positive");
    if (d->slm_max_per_work_group > d->slm_per_core)
        FAIL("local_memory.max_per_work_group", "%llu is more than local_memory.per_core %llu",
             (unsigned long long)d->slm_max_per_work_group, (unsigned long long)d->slm_per_core);
    if (d->slm_reserved_per_work_group >= d->slm_per_core)
        FAIL("local_memory.reserved_per_work_group", "must be less than local_memory.per_core");
    if ((d->slm_granule != 0) == (d->n_slm_steps != 0))
        FAIL("local_memory", "needs exactly one of 'steps' and 'granule'");
    if (d->n_slm_steps > OCC_MAX_SLM_STEPS)
        FAIL("local_memory.steps", "at most %d steps", OCC_MAX_SLM_STEPS);
    for (uint32_t i = 0; i < d->n_slm_steps; i++) {
        if (!d->slm_steps[i])
            FAIL("local_memory.steps", "steps must be positive");
        if (i && d->slm_steps[i] <= d->slm_steps[i - 1])
            FAIL("local_memory.steps", "steps must ascend strictly");
    }
    if (d->n_slm_steps &&
        d->slm_steps[d->n_slm_steps - 1] < d->slm_max_per_work_group + d->slm_reserved_per_work_group)
        FAIL("local_memory.steps", "largest step %llu cannot hold max_per_work_group %llu",
             (unsigned long long)d->slm_steps[d->n_slm_steps - 1],
             (unsigned long long)d->slm_max_per_work_group);
    if (d->n_slm_steps) {
        /* the step a maximal work-group is charged must fit in a core */
        uint64_t wg_need = d->slm_max_per_work_group + d->slm_reserved_per_work_group;
        for (uint32_t i = 0; i < d->n_slm_steps; i++)
            if (d->slm_steps[i] >= wg_need) {
                if (d->slm_steps[i] > d->slm_per_core)
                    FAIL("local_memory.steps",
                         "max_per_work_group %llu rounds up to the step %llu, more than per_core %llu",
                         (unsigned long long)d->slm_max_per_work_group,
                         (unsigned long long)d->slm_steps[i], (unsigned long long)d->slm_per_core);
                break;
            }
    } else if (occ__round_up(d->slm_max_per_work_group + d->slm_reserved_per_work_group,
                             d->slm_granule) > d->slm_per_core) {
        FAIL("local_memory.granule", "max_per_work_group plus reserved, rounded to the granule, exceeds per_core");
    }
    if (d->n_carveouts > OCC_MAX_CARVEOUTS)
        FAIL("local_memory.carveouts", "at most %d carveouts", OCC_MAX_CARVEOUTS);
    for (uint32_t i = 0; i < d->n_carveouts; i++)
        if (i && d->carveouts[i] <= d->carveouts[i - 1])
            FAIL("local_memory.carveouts", "carveouts must ascend strictly");
    if (d->n_carveouts && d->carveouts[d->n_carveouts - 1] != d->slm_per_core)
        FAIL("local_memory.carveouts", "the largest carveout %llu must equal per_core %llu",
             (unsigned long long)d->carveouts[d->n_carveouts - 1],
             (unsigned long long)d->slm_per_core);

    if (d->vendor == OCC_VENDOR_NVIDIA && !d->has_register_file)
        FAIL("registers", "an nvidia profile needs a register file");
    if (d->vendor == OCC_VENDOR_INTEL && d->has_register_file)
        FAIL("registers", "an intel profile uses core.grf_modes: write 'registers: none'");
    if (d->has_register_file) {
        if (!d->regs_per_core)
            FAIL("registers.per_core", "must be positive");
        if (!d->reg_alloc_unit)
            FAIL("registers.allocation_unit", "must be positive");
        if (!d->reg_warp_granularity)
            FAIL("registers.warp_allocation_granularity", "must be positive");
        if (!d->reg_max_per_thread)
            FAIL("registers.max_per_thread", "must be positive");
        if (!d->reg_max_per_work_group)
            FAIL("registers.max_per_work_group", "must be positive");
        if (d->reg_max_per_work_group > d->regs_per_core)
            FAIL("registers.max_per_work_group", "%u is more than registers.per_core %u",
                 d->reg_max_per_work_group, d->regs_per_core);
        if (!d->reg_partitions || d->regs_per_core % d->reg_partitions)
            FAIL("registers.partitions", "must be positive and divide registers.per_core");
        if (d->n_sub_group_sizes != 1)
            FAIL("core.sub_group_sizes", "a register-file device has one warp size");
        uint64_t one_warp = occ__round_up((uint64_t)d->reg_max_per_thread * d->sub_group_sizes[0],
                                          d->reg_alloc_unit);
        if (one_warp == 0 || one_warp > d->regs_per_core / d->reg_partitions)
            FAIL("registers.max_per_thread", "one warp at the maximum does not fit a partition");
    }
    if (d->dispatch_order != OCC_DISPATCH_PACK && d->dispatch_order != OCC_DISPATCH_SPREAD)
        FAIL("dispatch.order", "must be pack or spread");
    if (!(d->refill_gap_s >= 0 && d->refill_gap_s <= 1))
        FAIL("dispatch.refill_gap_ns", "must be in [0, 1e9] ns");
    if (!(d->core_interval_s >= 0 && d->core_interval_s <= 1))
        FAIL("dispatch.core_interval_ns", "must be in [0, 1e9] ns");
    if (!(d->core_interval_per_context_s >= 0 && d->core_interval_per_context_s <= 1))
        FAIL("dispatch.core_interval_per_context_ns", "must be in [0, 1e9] ns");
    if (!(d->gpu_interval_s >= 0 && d->gpu_interval_s <= 1))
        FAIL("dispatch.gpu_interval_ns", "must be in [0, 1e9] ns");
    if (occ_device_has_timing(d) && !d->timing_evidence[0])
        FAIL("dispatch.timing_evidence", "dispatch timing needs its evidence");
    return OCC_OK;
}

bool occ_device_has_timing(const occ_device_desc *d)
{
    return d && (d->refill_gap_s > 0 || d->core_interval_s > 0 ||
                 d->core_interval_per_context_s > 0 || d->gpu_interval_s > 0);
}

occ_status occ__device_new(const occ_device_desc *desc, const char *origin, char **sources,
                           size_t n_sources, char *evidence, occ_device **out)
{
    occ_device *dev = calloc(1, sizeof *dev);
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
