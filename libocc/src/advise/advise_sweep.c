/* Sweeps (occupancy against one input) and the inverse view (the runs of an
 * input's values that give each residency).
 *
 * An axis's values are "band tops": residency is constant between two legal
 * allocation sizes (local memory), two GRF modes, two register-allocation
 * steps or two multiples of the sub-group size, so a value stands for the
 * band that ends at it.  occ_limits walks every band exactly; occ_sweep
 * samples them (every band for SLM steps and GRF modes, every sub-group
 * multiple for work-group sizes). */
#include "advise/advise_internal.h"

#include <string.h>

void occ_sweep_request_init(occ_sweep_request *q)
{
    if (!q)
        return;
    memset(q, 0, sizeof *q);
    q->struct_size = sizeof *q;
    occ_kernel_init(&q->k);
}

/* Values: an optional first value, then from + i * step (n of them), then an
 * optional last one; or a short list. */
typedef struct axis_values {
    bool is_list;
    uint64_t list[OCC_MAX_SLM_STEPS + 2];
    size_t n_list;
    bool have_pre, have_last;
    uint64_t pre, last;
    uint64_t from, step, n;
    uint64_t band_start; /* where the first value's band begins */
} axis_values;

static uint64_t count_of(const axis_values *v)
{
    if (v->is_list)
        return v->n_list;
    return v->n + v->have_pre + v->have_last;
}

static uint64_t value_at(const axis_values *v, uint64_t i)
{
    if (v->is_list)
        return v->list[i];
    if (v->have_pre) {
        if (i == 0)
            return v->pre;
        i--;
    }
    if (i < v->n)
        return v->from + i * v->step;
    return v->last;
}

/* from, from + step, ... <= to, and `to` itself when the steps miss it. */
static void linear(axis_values *v, uint64_t from, uint64_t to, uint64_t step, bool end_at_to)
{
    v->from = from;
    v->step = step;
    v->n = from <= to ? (to - from) / step + 1 : 0;
    uint64_t last = v->n ? from + (v->n - 1) * step : 0;
    if (end_at_to && (v->n == 0 || last != to) && to >= from)
        v->have_last = true, v->last = to;
}

static void push(axis_values *v, uint64_t x)
{
    if (v->n_list < sizeof v->list / sizeof v->list[0])
        v->list[v->n_list++] = x;
}

static uint64_t axis_max(const occ_device_desc *d, const occ_kernel *k, occ_axis axis)
{
    switch (axis) {
    case OCC_AXIS_WG_SIZE: /* the kernel's launch bound, where it has one below the device's */
        return k->max_wg_size && k->max_wg_size < d->max_work_group_size ? k->max_wg_size
                                                                          : d->max_work_group_size;
    case OCC_AXIS_SLM: return d->slm_max_per_work_group;
    case OCC_AXIS_REGISTERS: return d->reg_max_per_thread;
    case OCC_AXIS_GRF: return d->grf_modes[d->n_grf_modes - 1].registers;
    default: return d->sub_group_sizes[d->n_sub_group_sizes - 1];
    }
}

/* exact: every band (limits); otherwise the sweep's points. */
static occ_status build_axis(const occ_device_desc *d, const occ_sweep_request *q, bool exact,
                             axis_values *v)
{
    memset(v, 0, sizeof *v);
    uint64_t to = q->to ? q->to : axis_max(d, &q->k, q->axis);
    uint64_t step = exact ? 0 : q->step;
    switch (q->axis) {
    case OCC_AXIS_WG_SIZE: {
        uint64_t sg = q->k.sub_group ? q->k.sub_group : d->sub_group_sizes[0];
        if (exact)
            step = 1;
        else if (!step)
            step = sg;
        uint64_t from = q->from ? q->from : (exact ? 1 : step);
        if (from > to)
            return OCC_ERR_INVALID_ARGUMENT;
        linear(v, from, to, step, false);
        v->band_start = from;
        return OCC_OK;
    }
    case OCC_AXIS_SLM: {
        uint64_t from = q->from, res = d->slm_reserved_per_work_group;
        if (from > to)
            return OCC_ERR_INVALID_ARGUMENT;
        v->band_start = from;
        if (step) {
            linear(v, from, to, step, false);
        } else if (d->n_slm_steps) {
            v->is_list = true;
            if (from == 0)
                push(v, 0);
            for (uint32_t i = 0; i < d->n_slm_steps; i++) {
                uint64_t a = d->slm_steps[i];
                if (a >= res && a - res >= from && a - res <= to && a - res > 0)
                    push(v, a - res);
            }
            if (!v->n_list || v->list[v->n_list - 1] != to)
                push(v, to);
        } else if (!exact) {
            linear(v, from, to, 1024, true);
        } else {
            /* every granule band: tops k * g - reserved */
            uint64_t g = d->slm_granule, lo = from ? from : 1;
            v->have_pre = from == 0;
            v->pre = 0;
            uint64_t k0 = occ__ceil_div(lo + res, g);
            linear(v, k0 * g - res, to, g, true);
        }
        return OCC_OK;
    }
    case OCC_AXIS_REGISTERS: {
        if (!d->has_register_file)
            return OCC_ERR_INVALID_ARGUMENT;
        if (exact)
            step = 1;
        else if (!step)
            step = 8;
        uint64_t from = q->from ? q->from : (exact ? 1 : step);
        if (from > to)
            return OCC_ERR_INVALID_ARGUMENT;
        linear(v, from, to, step, !exact);
        v->band_start = from;
        return OCC_OK;
    }
    case OCC_AXIS_GRF:
        if (d->has_register_file)
            return OCC_ERR_INVALID_ARGUMENT;
        if (q->from > to)
            return OCC_ERR_INVALID_ARGUMENT;
        v->is_list = true;
        v->band_start = q->from ? q->from : 1;
        for (uint32_t i = 0; i < d->n_grf_modes; i++)
            if (d->grf_modes[i].registers >= q->from && d->grf_modes[i].registers <= to)
                push(v, d->grf_modes[i].registers);
        return OCC_OK;
    case OCC_AXIS_SUB_GROUP:
        if (q->from > to)
            return OCC_ERR_INVALID_ARGUMENT;
        v->is_list = true;
        for (uint32_t i = 0; i < d->n_sub_group_sizes; i++)
            if (d->sub_group_sizes[i] >= q->from && d->sub_group_sizes[i] <= to)
                push(v, d->sub_group_sizes[i]);
        v->band_start = v->n_list ? v->list[0] : 0;
        return OCC_OK;
    default:
        return OCC_ERR_INVALID_ARGUMENT;
    }
}

static occ_status check(const occ_device *dev, const occ_sweep_request *q)
{
    if (!dev || !q || q->struct_size < sizeof *q || q->k.struct_size < sizeof q->k)
        return OCC_ERR_INVALID_ARGUMENT;
    if ((unsigned)q->axis >= OCC_AXIS_COUNT || (q->work_items && q->work_groups))
        return OCC_ERR_INVALID_ARGUMENT;
    return OCC_OK;
}

/* The kernel at value x of the axis. */
static void at(const occ_sweep_request *q, uint64_t x, occ_kernel *k)
{
    *k = q->k;
    switch (q->axis) {
    case OCC_AXIS_WG_SIZE:
        k->wg[0] = x > UINT32_MAX ? UINT32_MAX : (uint32_t)x;
        k->wg[1] = k->wg[2] = 1;
        k->slm_bytes = occ__mul_add_sat(q->slm_per_item, x, q->k.slm_bytes);
        break;
    case OCC_AXIS_SLM:
        k->slm_bytes = x;
        break;
    case OCC_AXIS_REGISTERS:
        k->regs_per_thread = (uint32_t)x;
        break;
    case OCC_AXIS_GRF:
        k->grf = (uint32_t)x;
        break;
    default:
        k->sub_group = (uint32_t)x;
    }
}

static void point(const occ_device *dev, const occ_sweep_request *q, uint64_t x, occ_sweep_point *p,
                  occ_residency *r)
{
    occ_kernel k;
    at(q, x, &k);
    occ__eval(&dev->desc, &k, r);
    memset(p, 0, sizeof *p);
    p->x = x;
    p->launchable = r->launchable;
    p->reason = r->reason;
    p->contexts_per_wg = r->contexts_per_wg;
    p->contexts_per_core = r->contexts_per_core;
    if (occ_waves_per_simd(dev, &k, &p->waves_per_simd, &p->waves_per_simd_resident) != OCC_OK)
        p->waves_per_simd = 0, p->waves_per_simd_resident = 0.0;
    if (!r->launchable)
        return;
    p->resident_wgs = r->resident_wgs;
    p->limited_by = r->limited_by;
    p->occupancy = r->occupancy;
    uint64_t W = occ_kernel_wg_size(&k);
    uint64_t groups = q->work_groups;
    if (!groups && q->work_items && W && q->work_items % W == 0)
        groups = q->work_items / W;
    occ_gpu g;
    if (groups && occ_gpu_compute(dev, r, groups, &g) == OCC_OK) {
        p->has_gpu = true;
        p->work_groups = groups;
        p->waves = g.waves;
        p->gpu_occupancy = g.average_occupancy;
    }
}

occ_status occ_sweep(const occ_device *dev, const occ_sweep_request *q, occ_sweep_point *pts,
                     size_t cap, size_t *n_total)
{
    occ_status st = check(dev, q);
    if (st != OCC_OK || !n_total || (cap && !pts))
        return st != OCC_OK ? st : OCC_ERR_INVALID_ARGUMENT;
    axis_values v;
    if ((st = build_axis(&dev->desc, q, false, &v)) != OCC_OK)
        return st;
    uint64_t n = count_of(&v);
    *n_total = n > SIZE_MAX ? SIZE_MAX : (size_t)n;
    occ_residency r;
    for (uint64_t i = 0; i < n && i < cap; i++)
        point(dev, q, value_at(&v, i), &pts[i], &r);
    return OCC_OK;
}

static bool same_run(const occ_limit_row *row, const occ_sweep_point *p)
{
    if (row->resident_wgs != (p->launchable ? p->resident_wgs : 0))
        return false;
    return p->launchable || row->reason == p->reason;
}

occ_status occ_limits(const occ_device *dev, const occ_sweep_request *q, occ_limit_row *rows,
                      size_t cap, size_t *n_total)
{
    occ_status st = check(dev, q);
    if (st != OCC_OK || !n_total || (cap && !rows))
        return st != OCC_OK ? st : OCC_ERR_INVALID_ARGUMENT;
    axis_values v;
    if ((st = build_axis(&dev->desc, q, true, &v)) != OCC_OK)
        return st;
    uint64_t n = count_of(&v);
    size_t nrows = 0;
    occ_limit_row cur;
    memset(&cur, 0, sizeof cur);
    bool open = false;
    uint64_t start = v.band_start;
    occ_residency r;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t x = value_at(&v, i);
        occ_sweep_point p;
        point(dev, q, x, &p, &r);
        uint64_t lo = q->axis == OCC_AXIS_SUB_GROUP ? x : start; /* sub-groups have no bands */
        start = x + 1;
        if (open && q->axis != OCC_AXIS_SUB_GROUP && same_run(&cur, &p)) {
            cur.hi = x;
            cur.limited_by = p.limited_by;
            if (p.occupancy < cur.occupancy_lo)
                cur.occupancy_lo = p.occupancy;
            if (p.occupancy > cur.occupancy_hi)
                cur.occupancy_hi = p.occupancy;
            continue;
        }
        if (open) {
            if (nrows < cap)
                rows[nrows] = cur;
            nrows++;
        }
        memset(&cur, 0, sizeof cur);
        cur.lo = lo < x ? lo : x;
        cur.hi = x;
        cur.resident_wgs = p.launchable ? p.resident_wgs : 0;
        cur.reason = p.reason;
        cur.limited_by = p.limited_by;
        cur.occupancy_lo = cur.occupancy_hi = p.occupancy;
        open = true;
    }
    if (open) {
        if (nrows < cap)
            rows[nrows] = cur;
        nrows++;
    }
    *n_total = nrows;
    return OCC_OK;
}
