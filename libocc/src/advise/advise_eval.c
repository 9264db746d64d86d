/* The compact query (one kernel, a batch, columns), the SLM limit (most
 * local memory that keeps a residency) and the advisor's name tables. */
#include "advise/advise_internal.h"
#include "model/eval_columns.h"
#include "model/eval_fast.h"

/* The compact answer from the general model (devices outside the tables). */
__attribute__((noinline)) static void eval_general(const occ_device_desc *d, const occ_kernel *k, occ_eval *e)
{
    occ_residency r; /* stays in L1: only the 24 bytes of *e go to memory */
    occ__eval(d, k, &r);
    occ__eval_from_residency(&r, e);
}

static inline void write_eval(const occ__launch *o, occ_eval *e)
{
    e->resident_wgs = o->resident;
    e->contexts_per_wg = o->t;
    e->contexts_per_core = o->cpc;
    e->limited_by = (uint8_t)o->by;
    e->reason = OCC_REASON_NONE;
    e->unused = 0;
    e->occupancy = o->occupancy;
}

occ_status occ_evaluate_batch(const occ_device *dev, const occ_kernel *ks, occ_eval *out, size_t n)
{
    if (!dev || (n && (!ks || !out)))
        return OCC_ERR_INVALID_ARGUMENT;
    /* a bad entry stops the batch; those before it are answered */
    const occ__fast *f = occ__fast_of(dev); /* the model in tables (eval_fast.c), in lanes (eval_columns.c) */
    if (f)
        return occ__eval_structs(f, n, ks, out, OCC__COLUMNS_AUTO) == n ? OCC_OK : OCC_ERR_INVALID_ARGUMENT;
    size_t good = occ__kernels_valid(ks, n);
    for (size_t i = 0; i < good; i++)
        eval_general(&dev->desc, &ks[i], &out[i]);
    return good == n ? OCC_OK : OCC_ERR_INVALID_ARGUMENT;
}

occ_status occ_evaluate(const occ_device *dev, const occ_kernel *k, occ_eval *out)
{
    if (!dev || !k || !out || k->struct_size < sizeof *k)
        return OCC_ERR_INVALID_ARGUMENT;
    const occ__fast *f = occ__fast_of(dev);
    if (__builtin_expect(f == NULL, 0)) {
        eval_general(&dev->desc, k, out);
        return OCC_OK;
    }
    occ__launch o;
    if (__builtin_expect(!occ__fast_fails_early(f, k), 1) && __builtin_expect(occ__evaluate_launch(f, k, &o), 1))
        write_eval(&o, out);
    else
        occ__fast_cannot_launch_eval(f, k, out);
    return OCC_OK;
}

/* The rare kernels (cannot launch, or a device outside the tables), out of
 * line and by value: the loop's kernel and result then stay in registers. */
__attribute__((noinline)) static occ_eval eval_cold(const occ_device *dev, const occ__fast *f, occ_kernel k)
{
    occ_eval e;
    if (f)
        occ__fast_cannot_launch_eval(f, &k, &e);
    else
        eval_general(&dev->desc, &k, &e);
    return e;
}

void occ_columns_init(occ_columns *c)
{
    if (c)
        *c = (occ_columns){.struct_size = sizeof *c};
}

void occ_eval_columns_init(occ_eval_columns *c)
{
    if (c)
        *c = (occ_eval_columns){.struct_size = sizeof *c};
}

/* A result column and an index mask: a NULL result column writes to a
 * scratch word with mask 0, so that the loop has no branch per field. */
#define RESULT(type, p)                                                                            \
    type scratch_##p;                                                                              \
    type *res_##p = out->p ? out->p : &scratch_##p;                                                \
    const size_t m_##p = out->p ? SIZE_MAX : 0

occ_status occ_evaluate_columns(const occ_device *dev, size_t n, const occ_columns *caller, occ_eval_columns *out)
{
    if (!dev || !caller || !out || caller->struct_size < OCC_COLUMNS_SIZE_NO_CONSTRAINTS || out->struct_size < sizeof *out)
        return OCC_ERR_INVALID_ARGUMENT;
    /* a caller's struct as this version has it: the columns past its
     * struct_size (an older caller's) are NULL */
    occ_columns whole;
    occ_columns_init(&whole);
    memcpy(&whole, caller, caller->struct_size < sizeof whole ? caller->struct_size : sizeof whole);
    whole.struct_size = sizeof whole;
    const occ_columns *in = &whole;
    const occ__fast *f = occ__fast_of(dev);
    /* eight kernels per instruction (model/eval_columns.c) where it covers the device */
    if (f && occ__eval_columns(f, n, in, out, OCC__COLUMNS_AUTO))
        return OCC_OK;
    RESULT(uint32_t, resident_wgs);
    RESULT(double, occupancy);
    RESULT(uint8_t, limited_by);
    RESULT(uint8_t, reason);
    RESULT(uint32_t, contexts_per_wg);
    RESULT(uint32_t, contexts_per_core);
    for (size_t i = 0; i < n; i++) { /* devices the lanes do not cover: one by one */
        occ_kernel k = occ__columns_kernel(in, i);
        occ_eval e;
        occ__launch o;
        /* a kernel with constraints or vendor fields: the rule's (eval_cold) */
        if (__builtin_expect(f != NULL, 1) && !occ__fast_declines(&k) &&
            __builtin_expect(occ__evaluate_launch(f, &k, &o), 1))
            write_eval(&o, &e);
        else
            e = eval_cold(dev, f, k);
        res_resident_wgs[i & m_resident_wgs] = e.resident_wgs;
        res_occupancy[i & m_occupancy] = e.occupancy;
        res_limited_by[i & m_limited_by] = e.limited_by;
        res_reason[i & m_reason] = e.reason;
        res_contexts_per_wg[i & m_contexts_per_wg] = e.contexts_per_wg;
        res_contexts_per_core[i & m_contexts_per_core] = e.contexts_per_core;
    }
    return OCC_OK;
}
#undef RESULT

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
