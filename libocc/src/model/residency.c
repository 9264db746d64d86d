/* The residency API (occ.h) over the rule (rule.h): names and texts of
 * resources and reasons, and the entry points, which take a device's fast
 * tables (eval_fast.h, eval_columns.h) where they cover it and the rule
 * itself elsewhere. */
#include "common/internal.h"

#include <string.h>

#include "model/eval_columns.h"
#include "model/eval_fast.h"
#include "model/rule.h"
#include "arch/arch.h"

void occ_kernel_init(occ_kernel *k)
{
    if (k)
        occ__default_kernel(k);
}

uint64_t occ_kernel_wg_size(const occ_kernel *k)
{
    return occ__wg_items(k);
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
    [OCC_REASON_KERNEL_MAX_WG] = "work-group over the kernel's launch bound",
    [OCC_REASON_REQD_WG] = "work-group not the kernel's required size",
    [OCC_REASON_REQD_SUB_GROUP] = "sub-group not the kernel's required size",
};

const char *occ_reason_text(occ_reason r)
{
    return (unsigned)r < OCC_REASON_COUNT ? reason_texts[r] : "unknown reason";
}

occ_status occ_residency_compute(const occ_device *dev, const occ_kernel *k, occ_residency *r)
{
    if (!dev || !k || !r || k->struct_size < sizeof *k)
        return OCC_ERR_INVALID_ARGUMENT;
    const occ__fast *f = occ__fast_of(dev);
    if (f)
        occ__fast_residency(f, k, r);
    else
        occ__rule_eval(&dev->desc, k, r, NULL, 0);
    return OCC_OK;
}

void occ__residency_eval(const occ_device_desc *d, const occ_kernel *k, occ_residency *r)
{
    occ__rule_eval(d, k, r, NULL, 0);
}

size_t occ_residency_reason(const occ_device *dev, const occ_kernel *k, char *buf, size_t size)
{
    if (!buf || size == 0)
        return 0;
    buf[0] = '\0';
    if (!dev || !k || k->struct_size < sizeof *k)
        return 0;
    occ_residency r;
    occ__rule_eval(&dev->desc, k, &r, buf, size);
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
        occ__rule_eval(&dev->desc, &ks[i], &rs[i], NULL, 0);
    return good == n ? OCC_OK : OCC_ERR_INVALID_ARGUMENT;
}

occ_status occ_waves_per_simd(const occ_device *dev, const occ_kernel *k, uint32_t *compiler, double *resident)
{
    if (!dev || !k || !compiler || !resident || k->struct_size < sizeof *k)
        return OCC_ERR_INVALID_ARGUMENT;
    const occ__vendor_rules *v = occ__vendor_rules_of(dev->desc.vendor);
    if (!v || !v->compiler_waves || !v->compiler_waves(&dev->desc, k, occ__wg_items(k), compiler))
        return OCC_ERR_UNSUPPORTED;
    occ_residency r;
    occ__rule_eval(&dev->desc, k, &r, NULL, 0);
    *resident = r.launchable ? (double)r.contexts_used / dev->desc.engines_per_core : 0.0;
    return OCC_OK;
}
