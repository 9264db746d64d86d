/* The compact batch, the SLM limit (most local memory that keeps a
 * residency) and the advisor's name tables. */
#include "advise/advise_internal.h"
#include "model/eval_fast.h"

occ_status occ_evaluate_batch(const occ_device *dev, const occ_kernel *ks, occ_eval *out, size_t n)
{
    if (!dev || (n && (!ks || !out)))
        return OCC_ERR_INVALID_ARGUMENT;
    size_t good = 0; /* a bad entry stops the batch; those before it are answered */
    while (good < n && ks[good].struct_size >= sizeof *ks)
        good++;
    const occ__fast *f = occ__fast_of(dev); /* the model in tables (eval_fast.c) */
    if (f) {
        occ__fast_eval_n(f, ks, out, good);
        return good == n ? OCC_OK : OCC_ERR_INVALID_ARGUMENT;
    }
    occ_residency r; /* stays in L1: only the 24 bytes of out[i] go to memory */
    for (size_t i = 0; i < good; i++) {
        occ__eval(&dev->desc, &ks[i], &r);
        occ_eval *e = &out[i];
        e->resident_wgs = r.launchable ? r.resident_wgs : 0;
        e->contexts_per_wg = r.contexts_per_wg;
        e->contexts_per_core = r.contexts_per_core;
        e->limited_by = r.launchable ? (uint8_t)r.limited_by : 0;
        e->reason = (uint8_t)r.reason;
        e->unused = 0;
        e->occupancy = r.launchable ? r.occupancy : 0.0;
    }
    return good == n ? OCC_OK : OCC_ERR_INVALID_ARGUMENT;
}

size_t occ__core_slm_sizes(const occ_device_desc *d, uint64_t *sizes)
{
    if (!d->n_carveouts) {
        sizes[0] = d->slm_per_core;
        return 1;
    }
    for (uint32_t i = 0; i < d->n_carveouts; i++)
        sizes[i] = d->carveouts[i];
    return d->n_carveouts;
}

uint64_t occ__alloc_floor(const occ_device_desc *d, uint64_t bytes)
{
    if (d->slm_granule)
        return bytes / d->slm_granule * d->slm_granule;
    uint64_t best = 0;
    for (uint32_t i = 0; i < d->n_slm_steps; i++)
        if (d->slm_steps[i] <= bytes)
            best = d->slm_steps[i];
    return best;
}

/* Residency depends on the request only through its allocation, and between
 * two legal allocation sizes it is constant; so the largest request keeping
 * `need` is the top of some allocation band.  With steps, the bands are
 * scanned from the top.  With a granule there are too many bands, but the
 * answer is the largest allocation that one legal core size c can hold need
 * times, floor(c / need), for some c (the core size used is the smallest legal
 * one >= the preference and >= the allocation: docs/model.md, carveouts).  Every
 * candidate is checked with the model itself. */
bool occ__slm_limit(const occ_device_desc *d, const occ_kernel *base, uint32_t need, uint64_t *bytes)
{
    occ_kernel k = *base;
    occ_residency r;
    uint64_t max = d->slm_max_per_work_group, res = d->slm_reserved_per_work_group;
    if (need == 0)
        need = 1;
#define KEEPS(s) (k.slm_bytes = (s), occ__eval(d, &k, &r), r.launchable && r.resident_wgs >= need)
    if (KEEPS(max)) {
        *bytes = max;
        return true;
    }
    bool found = false;
    uint64_t best = 0;
    if (!d->slm_granule) {
        for (uint32_t i = d->n_slm_steps; i-- > 0;) {
            uint64_t a = d->slm_steps[i];
            if (a < res || a - res >= max)
                continue;
            if (KEEPS(a - res)) {
                best = a - res;
                found = true;
                break;
            }
        }
    } else {
        uint64_t sizes[OCC_MAX_CARVEOUTS];
        size_t n = occ__core_slm_sizes(d, sizes);
        for (size_t i = 0; i < n; i++) {
            uint64_t a = occ__alloc_floor(d, sizes[i] / need);
            if (a <= res || a - res >= max || (found && a - res <= best))
                continue;
            if (KEEPS(a - res)) {
                best = a - res;
                found = true;
            }
        }
    }
    if (!found && KEEPS(0))
        found = true, best = 0;
#undef KEEPS
    if (found)
        *bytes = best;
    return found;
}

bool occ_slm_limit(const occ_device *dev, const occ_kernel *k, uint32_t min_resident, uint64_t *bytes)
{
    if (!dev || !k || !bytes || k->struct_size < sizeof *k)
        return false;
    return occ__slm_limit(&dev->desc, k, min_resident, bytes);
}

const char *occ_why_name(occ_why w)
{
    static const char *const names[OCC_WHY_COUNT] = {
        [OCC_WHY_ONLY] = "only",
        [OCC_WHY_CORE_OCCUPANCY] = "core_occupancy",
        [OCC_WHY_GPU_OCCUPANCY] = "gpu_occupancy",
        [OCC_WHY_LANES] = "lanes",
        [OCC_WHY_WAVES] = "waves",
        [OCC_WHY_WORK_GROUPS] = "work_groups",
        [OCC_WHY_SUB_GROUP] = "sub_group",
        [OCC_WHY_GRF] = "grf",
        [OCC_WHY_TIE] = "tie",
    };
    return (unsigned)w < OCC_WHY_COUNT ? names[w] : "unknown";
}

const char *occ_axis_name(occ_axis a)
{
    static const char *const names[OCC_AXIS_COUNT] = {
        [OCC_AXIS_WG_SIZE] = "wg",
        [OCC_AXIS_SLM] = "slm",
        [OCC_AXIS_REGISTERS] = "regs",
        [OCC_AXIS_GRF] = "grf",
        [OCC_AXIS_SUB_GROUP] = "sg",
    };
    return (unsigned)a < OCC_AXIS_COUNT ? names[a] : "unknown";
}
