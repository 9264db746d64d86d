/* Every fast path of the residency model against a plain reference model, on
 * 10^6 random configurations over every built-in profile and a few devices
 * made here (one whose carveouts jump, and ones the per-device tables do not
 * cover, which take the general code).
 *
 * The reference below is written from the rules of docs/model.md alone, as
 * plainly as possible: loops over the device's lists, divisions, no tables.
 * For each configuration these must agree:
 *   - occ_residency_compute (the per-device tables of model/eval_fast.c when
 *     they cover the device),
 *   - residency.c's general code (occ__residency_eval), byte for byte with
 *     the one above (kernels that cannot launch included),
 *   - occ_residency_batch, byte for byte, and the compact numbers (occ_eval)
 *     of occ_evaluate one by one, occ_evaluate_batch and occ_evaluate_columns
 *     (every column given, the kernel's constraints and AMD's fields too;
 *     its eight-lane path, model/eval_columns.c, is also run with each
 *     instruction set forced, byte for byte with the one chosen),
 *   - the reference: whether it launches, why not, and for a kernel that
 *     launches every number of occ_residency.
 * The configurations set the kernel's constraints now and then, and in one
 * batch in eight every kernel sets some (constrain()).
 * (The Python batch calls occ_evaluate_columns; python/tests compare it with
 * occ_residency_compute.) */
#include <stdlib.h>
#include <string.h>

#include "common/internal.h"
#include "model/eval_columns.h"
#include "model/eval_fast.h"
#include "model/rule.h"
#include "occ/advise.h"
#include "test_common.h"

/* ---- the reference model ---------------------------------------------------- */

typedef struct ref_answer {
    occ_reason reason; /* OCC_REASON_NONE: launches */
    uint32_t sub_group, grf, cpw, cpc;
    uint32_t limits[OCC_RES_COUNT], limited_by, resident;
    uint64_t slm_alloc, slm_config;
    uint32_t regs_alloc;
    double occupancy;
} ref_answer;

static uint64_t ceil_div(uint64_t a, uint64_t b) { return a / b + (a % b != 0); }

/* AMD's rules after the common ones (docs/model.md "AMD"): work-group
 * slots only for work-groups of more than one wave, no barrier count; in
 * CU mode on a work-group processor each of its two CUs counts alone (half
 * the SIMDs, wave slots, LDS and VGPRs); on GFX9 (SIMD16) the SGPRs cap
 * waves per SIMD at 10, 9, 8 for up to 80, 88, 100, else 7.  false: refused
 * (a->reason says why). */
static bool amd_reference(const occ_device_desc *d, const occ_kernel *k, ref_answer *a, uint64_t t)
{
    a->limits[OCC_RES_WG_SLOTS] = t > 1 ? d->max_work_groups_per_core : OCC_NO_LIMIT;
    a->limits[OCC_RES_BARRIERS] = OCC_NO_LIMIT;
    uint32_t per_simd = a->cpc / d->engines_per_core;
    if (k->cu_mode && strcmp(d->core_name, "WGP") == 0) {
        uint32_t cu_slots = a->cpc / 2;
        if (t > cu_slots)
            return a->reason = OCC_REASON_CONTEXTS, false;
        a->limits[OCC_RES_THREADS] = 2 * (uint32_t)(cu_slots / t);
        if (a->slm_alloc > d->slm_per_core / 2)
            return a->reason = OCC_REASON_SLM_TOO_LARGE, false;
        if (a->slm_alloc)
            a->limits[OCC_RES_SLM] = 2 * (uint32_t)(d->slm_per_core / 2 / a->slm_alloc);
        if (k->regs_per_thread) {
            uint64_t per_wave = ceil_div((uint64_t)k->regs_per_thread * a->sub_group, d->reg_alloc_unit) *
                                d->reg_alloc_unit;
            uint64_t waves_per_simd = d->regs_per_core / d->reg_partitions / per_wave;
            a->limits[OCC_RES_REGISTERS] = 2 * (uint32_t)(waves_per_simd * (d->engines_per_core / 2) / t);
        }
    }
    if (k->sgprs && d->simd_width == 16) {
        uint32_t w = k->sgprs <= 80 ? 10 : k->sgprs <= 88 ? 9 : k->sgprs <= 100 ? 8 : 7;
        w = w < per_simd ? w : per_simd;
        uint32_t by = (uint32_t)(d->engines_per_core * w / t);
        if (by < a->limits[OCC_RES_REGISTERS])
            a->limits[OCC_RES_REGISTERS] = by;
    }
    return true;
}

static ref_answer reference(const occ_device_desc *d, const occ_kernel *k)
{
    ref_answer a;
    memset(&a, 0, sizeof a);
    for (int i = 0; i < OCC_RES_COUNT; i++)
        a.limits[i] = OCC_NO_LIMIT;
    /* work-items, saturating at 2^64 - 1 */
    unsigned __int128 items = (unsigned __int128)k->wg[0] * k->wg[1] * k->wg[2];
    uint64_t W = items > UINT64_MAX ? UINT64_MAX : (uint64_t)items;
    /* a kernel that requires a sub-group size runs at it unless told otherwise */
    a.sub_group = k->sub_group ? k->sub_group : k->reqd_sub_group ? k->reqd_sub_group : d->sub_group_sizes[0];
    /* the GRF mode: the smallest with at least the registers asked for */
    uint32_t want = k->grf ? k->grf : d->default_grf;
    const occ_grf_mode *mode = NULL;
    for (uint32_t i = 0; i < d->n_grf_modes && !mode; i++)
        if (d->grf_modes[i].registers >= want)
            mode = &d->grf_modes[i];
    a.grf = mode ? mode->registers : k->grf;
    if (W == 0)
        return a.reason = OCC_REASON_WG_ZERO, a;
    bool sg_ok = false;
    for (uint32_t i = 0; i < d->n_sub_group_sizes; i++)
        sg_ok |= d->sub_group_sizes[i] == a.sub_group;
    if (!sg_ok)
        return a.reason = OCC_REASON_SUB_GROUP, a;
    if (!mode)
        return a.reason = OCC_REASON_GRF_MODE, a;
    a.cpc = d->engines_per_core * mode->threads_per_engine;
    if (W > d->max_work_group_size)
        return a.reason = OCC_REASON_WG_TOO_LARGE, a;
    uint64_t t = ceil_div(W, a.sub_group);
    a.cpw = (uint32_t)t;
    if (t > a.cpc)
        return a.reason = OCC_REASON_CONTEXTS, a;
    /* what the compiled kernel allows: its required sizes, its launch bound */
    if (k->reqd_sub_group && a.sub_group != k->reqd_sub_group)
        return a.reason = OCC_REASON_REQD_SUB_GROUP, a;
    if (k->reqd_wg[0])
        for (int i = 0; i < 3; i++)
            if (k->wg[i] != (k->reqd_wg[i] ? k->reqd_wg[i] : 1u))
                return a.reason = OCC_REASON_REQD_WG, a;
    if (k->max_wg_size && W > k->max_wg_size)
        return a.reason = OCC_REASON_KERNEL_MAX_WG, a;
    if (k->carveout_pct < -1 || k->carveout_pct > 100)
        return a.reason = OCC_REASON_CARVEOUT, a;
    if (k->slm_bytes > d->slm_max_per_work_group)
        return a.reason = OCC_REASON_SLM_TOO_LARGE, a;
    a.limits[OCC_RES_THREADS] = (uint32_t)(a.cpc / t);
    a.limits[OCC_RES_WG_SLOTS] = d->max_work_groups_per_core;
    if (k->barrier)
        a.limits[OCC_RES_BARRIERS] = d->barriers_per_core;
    /* local memory: the request plus the reserved part, rounded as allocated */
    uint64_t need = k->slm_bytes + d->slm_reserved_per_work_group;
    if (need && d->slm_granule)
        a.slm_alloc = ceil_div(need, d->slm_granule) * d->slm_granule;
    for (uint32_t i = 0; need && !d->slm_granule && i < d->n_slm_steps && !a.slm_alloc; i++)
        if (d->slm_steps[i] >= need)
            a.slm_alloc = d->slm_steps[i];
    /* the core's size: the preference (whole by default), at least one work-group's,
     * rounded up to a legal carveout */
    a.slm_config = d->slm_per_core;
    if (d->n_carveouts) {
        uint64_t pref = k->carveout_pct < 0 ? d->slm_per_core
                                            : ceil_div((uint64_t)k->carveout_pct * d->slm_per_core, 100);
        if (pref < a.slm_alloc)
            pref = a.slm_alloc;
        for (uint32_t i = d->n_carveouts; i-- > 0;)
            if (d->carveouts[i] >= pref)
                a.slm_config = d->carveouts[i];
    }
    if (a.slm_alloc > a.slm_config)
        return a.reason = OCC_REASON_SLM_TOO_LARGE, a;
    if (a.slm_alloc)
        a.limits[OCC_RES_SLM] = (uint32_t)(a.slm_config / a.slm_alloc);
    /* registers: per warp rounded to the unit, warps per partition, the block's
     * warps rounded to the granularity for its own cap */
    if (d->has_register_file && k->regs_per_thread) {
        if (k->regs_per_thread > d->reg_max_per_thread)
            return a.reason = OCC_REASON_REGS_PER_THREAD, a;
        uint64_t per_warp = ceil_div((uint64_t)k->regs_per_thread * a.sub_group, d->reg_alloc_unit) *
                            d->reg_alloc_unit;
        uint64_t warps = ceil_div(t, d->reg_warp_granularity) * d->reg_warp_granularity;
        if (per_warp * warps > d->reg_max_per_work_group)
            return a.reason = OCC_REASON_REGS_PER_WG, a;
        a.regs_alloc = (uint32_t)(per_warp * t);
        uint64_t per_partition = d->regs_per_core / d->reg_partitions / per_warp;
        a.limits[OCC_RES_REGISTERS] = (uint32_t)(per_partition * d->reg_partitions / t);
    }
    if (d->vendor == OCC_VENDOR_AMD && !amd_reference(d, k, &a, t))
        return a;
    uint32_t resident = OCC_NO_LIMIT;
    for (int i = 0; i < OCC_RES_COUNT; i++)
        if (a.limits[i] < resident)
            resident = a.limits[i];
    if (resident == 0)
        return a.reason = OCC_REASON_REGS_PER_WG, a;
    for (int i = 0; i < OCC_RES_COUNT; i++)
        if (a.limits[i] == resident)
            a.limited_by |= 1u << i;
    a.resident = resident;
    a.occupancy = (double)(resident * t) / a.cpc;
    a.reason = OCC_REASON_NONE;
    return a;
}

/* ---- random configurations ----------------------------------------------------- */

/* Wider than tc_random_kernel: also huge sizes (products past 2^32 and
 * 2^64), preferences out of range, any register count. */
static occ_kernel random_config(tc_rng *r, const occ_device_desc *d)
{
    occ_kernel k = tc_random_kernel(r, d);
    uint64_t p = tc_range(r, 0, 99);
    if (p < 2) { /* enormous work-groups: overflow and saturation */
        k.wg[0] = (uint32_t)tc_range(r, 1u << 16, UINT32_MAX);
        k.wg[1] = (uint32_t)tc_range(r, 1u << 16, UINT32_MAX);
        k.wg[2] = (uint32_t)tc_range(r, 0, UINT32_MAX);
    } else if (p < 4) {
        k.wg[tc_range(r, 0, 2)] = 0;
    }
    p = tc_range(r, 0, 99);
    if (p < 3)
        k.carveout_pct = (int32_t)tc_range(r, 0, UINT32_MAX); /* any, mostly out of range */
    else if (p < 6)
        k.slm_bytes = tc_next(r);
    else if (p < 9)
        k.regs_per_thread = (uint32_t)tc_next(r);
    else if (p < 12)
        k.grf = (uint32_t)tc_range(r, 0, 2000);
    /* the kernel's constraints, sometimes met, sometimes not */
    p = tc_range(r, 0, 99);
    if (p < 4)
        k.max_wg_size = (uint32_t)tc_range(r, 1, 2 * (uint64_t)d->max_work_group_size);
    else if (p < 6)
        memcpy(k.reqd_wg, p < 5 ? k.wg : (uint32_t[3]){(uint32_t)tc_range(r, 1, 64), 0, 0}, sizeof k.reqd_wg);
    else if (p < 8)
        k.reqd_sub_group = p < 7 ? d->sub_group_sizes[tc_range(r, 0, d->n_sub_group_sizes - 1)]
                                 : (uint32_t)tc_range(r, 1, 64);
    /* AMD's kernel fields (any device: the others ignore them) */
    p = tc_range(r, 0, 99);
    if (p < 10)
        k.sgprs = (uint32_t)tc_range(r, 1, 112);
    else if (p < 15)
        k.cu_mode = 1;
    return k;
}

/* The kernel's constraints on k, a random set of the three, each met or not
 * about half the time and at its edges: a launch bound of W, W - 1,
 * anything up to twice the device's maximum, or 2^32 - 1; a required shape
 * equal to the work-group's (a y or z of 1 written as 0, which means 1) or
 * one dimension off; a required sub-group size equal to the one the kernel
 * runs with (or standing in for a sub-group of 0), another the device has,
 * or any of 1..64.  The batches' dense case: a kernel file's constraints
 * hold for every configuration of a search. */
static void constrain(tc_rng *r, const occ_device_desc *d, occ_kernel *k)
{
    unsigned which = (unsigned)tc_range(r, 1, 7);
    if (which & 1) {
        uint64_t W = occ__wg_items(k), p = tc_range(r, 0, 3);
        uint64_t b = p == 0   ? W
                     : p == 1 ? W - 1 /* W = 0: past 2^32, then 2^32 - 1 */
                     : p == 2 ? tc_range(r, 1, 2 * (uint64_t)d->max_work_group_size)
                              : UINT32_MAX;
        k->max_wg_size = (uint32_t)(b > UINT32_MAX ? UINT32_MAX : b);
    }
    if (which & 2) {
        memcpy(k->reqd_wg, k->wg, sizeof k->reqd_wg);
        for (int i = 1; i < 3; i++)
            if (k->reqd_wg[i] == 1 && tc_range(r, 0, 1))
                k->reqd_wg[i] = 0;
        if (tc_range(r, 0, 1))
            k->reqd_wg[tc_range(r, 0, 2)] += (uint32_t)tc_range(r, 1, 3);
    }
    if (which & 4) {
        uint64_t p = tc_range(r, 0, 3);
        uint32_t runs = k->sub_group ? k->sub_group : d->sub_group_sizes[0];
        k->reqd_sub_group = p < 2    ? runs
                            : p == 2 ? d->sub_group_sizes[tc_range(r, 0, d->n_sub_group_sizes - 1)]
                                     : (uint32_t)tc_range(r, 1, 64);
        if (p == 1 || tc_range(r, 0, 3) == 0)
            k->sub_group = 0; /* the required size stands in */
    }
}

/* ---- devices ---------------------------------------------------------------------- */

static occ_device *make(occ_device_desc *d, const char *name)
{
    snprintf(d->name, sizeof d->name, "%s", name);
    occ_device *dev = NULL;
    occ_diag diag;
    ck_assert_msg(occ_device_create(d, &dev, &diag) == OCC_OK, "%s: %s", name, diag.message);
    return dev;
}

enum { N_MADE = 5 };

/* i < builtins: built-in profile i; then the devices made here. */
static occ_device *device_at(size_t i, bool *covered)
{
    size_t nb = occ_builtin_count();
    occ_device *dev;
    if (i < nb) {
        dev = tc_builtin(occ_builtin_name(i));
    } else {
        occ_device *base = tc_builtin(i - nb < 2 ? "h100-sxm" : i - nb == 4 ? "rx-7900xtx" : "arc-a770");
        occ_device_desc d = *occ_device_describe(base);
        occ_device_free(base);
        switch (i - nb) {
        case 0: /* carveouts that jump: residency not monotone in local memory */
            d.n_carveouts = 4;
            d.carveouts[0] = 0, d.carveouts[1] = 8192, d.carveouts[2] = 100 * 1024,
            d.carveouts[3] = d.slm_per_core;
            dev = make(&d, "odd-carveouts");
            break;
        case 1: /* a granule that is not a power of two: the general code */
            d.slm_granule = 96;
            d.slm_max_per_work_group = d.slm_max_per_work_group / 96 * 96;
            dev = make(&d, "granule-96");
            break;
        case 2: /* a sub-group size that is not a power of two: the general code */
            d.n_sub_group_sizes = 3;
            d.sub_group_sizes[0] = 8, d.sub_group_sizes[1] = 12, d.sub_group_sizes[2] = 16;
            dev = make(&d, "sub-group-12");
            break;
        case 4: /* a register file and three sub-group sizes: one register table per size is two too few */
            d.n_sub_group_sizes = 3;
            d.sub_group_sizes[0] = 16, d.sub_group_sizes[1] = 32, d.sub_group_sizes[2] = 64;
            dev = make(&d, "regs-three-sub-groups");
            break;
        default: /* reserved local memory per work-group, half-KB steps: the general code */
            d.slm_reserved_per_work_group = 1024;
            d.slm_steps[0] = 512;
            d.slm_max_per_work_group -= 1024;
            dev = make(&d, "reserved-1k");
            break;
        }
    }
    *covered = occ__fast_of(dev) != NULL;
    return dev;
}

/* ---- the test ------------------------------------------------------------------------ */

#define TOTAL 1000000
#define CHUNK 1000

static void check_one(const occ_device *dev, const occ_kernel *k, const occ_residency *one,
                      const occ_residency *batched, const occ_eval *e, size_t at)
{
    const occ_device_desc *d = occ_device_describe(dev);
    occ_residency general;
    memset(&general, 0x5a, sizeof general);
    occ__residency_eval(d, k, &general);
#define WHERE "%s, configuration %zu (wg %u x %u x %u, sg %u, slm %llu, grf %u, regs %u, carveout %d, barrier %d): "
#define AT d->name, at, k->wg[0], k->wg[1], k->wg[2], k->sub_group, (unsigned long long)k->slm_bytes, \
           k->grf, k->regs_per_thread, (int)k->carveout_pct, (int)k->barrier
    if (memcmp(one, &general, sizeof general) != 0)
        ck_abort_msg(WHERE "occ_residency_compute differs from the general code", AT);
    if (memcmp(batched, &general, sizeof general) != 0)
        ck_abort_msg(WHERE "occ_residency_batch differs from the general code", AT);
    ref_answer a = reference(d, k);
    bool ok = a.reason == OCC_REASON_NONE;
    if (one->launchable != ok || one->reason != a.reason)
        ck_abort_msg(WHERE "reason %d (launchable %d), reference %d", AT, one->reason, one->launchable,
                     a.reason);
    if (one->sub_group != a.sub_group || one->grf != a.grf)
        ck_abort_msg(WHERE "sub-group %u grf %u, reference %u %u", AT, one->sub_group, one->grf,
                     a.sub_group, a.grf);
    if (ok && (one->resident_wgs != a.resident || one->limited_by != a.limited_by ||
               memcmp(one->limits, a.limits, sizeof a.limits) != 0 || one->contexts_per_wg != a.cpw ||
               one->contexts_per_core != a.cpc || one->contexts_used != a.resident * a.cpw ||
               one->contexts_idle != a.cpc - a.resident * a.cpw || one->occupancy != a.occupancy ||
               one->slm_per_wg_alloc != a.slm_alloc || one->slm_core_config != a.slm_config ||
               one->regs_per_wg_alloc != a.regs_alloc))
        ck_abort_msg(WHERE "resident %u (limits %u %u %u %u %u), reference %u (%u %u %u %u %u)", AT,
                     one->resident_wgs, one->limits[0], one->limits[1], one->limits[2], one->limits[3],
                     one->limits[4], a.resident, a.limits[0], a.limits[1], a.limits[2], a.limits[3],
                     a.limits[4]);
    for (int p = 0; p < 3; p++) {
        const occ_eval *x = &e[p];
        if (x->resident_wgs != a.resident || x->reason != a.reason || x->limited_by != a.limited_by ||
            x->occupancy != a.occupancy || x->contexts_per_wg != one->contexts_per_wg ||
            x->contexts_per_core != one->contexts_per_core || x->unused != 0)
            ck_abort_msg(WHERE "%s: resident %u reason %u limited_by %u occupancy %g contexts %u/%u; "
                               "reference %u %u %u %g %u/%u", AT,
                         p == 0 ? "occ_evaluate_batch" : p == 1 ? "occ_evaluate" : "occ_evaluate_columns",
                         x->resident_wgs, x->reason, x->limited_by, x->occupancy, x->contexts_per_wg,
                         x->contexts_per_core, a.resident, (unsigned)a.reason, a.limited_by, a.occupancy,
                         one->contexts_per_wg, one->contexts_per_core);
    }
#undef WHERE
#undef AT
}

/* Kernels as columns, every column given (the constraints and AMD's fields
 * too). */
typedef struct columns_buf {
    uint32_t wg_x[CHUNK], wg_y[CHUNK], wg_z[CHUNK], sub_group[CHUNK], grf[CHUNK], regs[CHUNK];
    uint64_t slm[CHUNK];
    uint8_t barrier[CHUNK];
    int32_t carveout[CHUNK];
    uint32_t max_wg[CHUNK], reqd_x[CHUNK], reqd_y[CHUNK], reqd_z[CHUNK], reqd_sg[CHUNK], sgprs[CHUNK],
        cu_mode[CHUNK];
    uint32_t resident[CHUNK], cpw[CHUNK], cpc[CHUNK];
    double occupancy[CHUNK];
    uint8_t limited_by[CHUNK], reason[CHUNK];
} columns_buf;

/* The seven fields after carveout_pct (the constraints, AMD's): bit j of
 * mask sets field j of *k to its default, 0, and column j of *in to NULL
 * (either may be NULL). */
enum { CONSTRAINT_FIELDS = 7 };
static uint32_t *constraint_field(occ_kernel *k, int j)
{
    uint32_t *const field[CONSTRAINT_FIELDS] = {&k->max_wg_size, &k->reqd_wg[0], &k->reqd_wg[1], &k->reqd_wg[2],
                                                &k->reqd_sub_group, &k->sgprs, &k->cu_mode};
    return field[j];
}

static void clear_constraints(unsigned mask, occ_kernel *k, occ_columns *in)
{
    for (int j = 0; j < CONSTRAINT_FIELDS; j++) {
        if (!(mask & 1u << j))
            continue;
        if (k)
            *constraint_field(k, j) = 0;
        if (in) {
            const uint32_t **const col[CONSTRAINT_FIELDS] = {&in->max_wg_size, &in->reqd_wg_x, &in->reqd_wg_y,
                                                             &in->reqd_wg_z, &in->reqd_sub_group, &in->sgprs,
                                                             &in->cu_mode};
            *col[j] = NULL;
        }
    }
}

static columns_buf *columns_buf_new(void)
{
    columns_buf *b = malloc(sizeof *b);
    ck_assert_ptr_nonnull(b);
    return b;
}

static void to_columns(const occ_kernel *ks, size_t n, columns_buf *b, occ_columns *in, occ_eval_columns *out)
{
    for (size_t i = 0; i < n; i++) {
        b->wg_x[i] = ks[i].wg[0], b->wg_y[i] = ks[i].wg[1], b->wg_z[i] = ks[i].wg[2];
        b->sub_group[i] = ks[i].sub_group, b->grf[i] = ks[i].grf, b->regs[i] = ks[i].regs_per_thread;
        b->slm[i] = ks[i].slm_bytes, b->barrier[i] = ks[i].barrier, b->carveout[i] = ks[i].carveout_pct;
        b->max_wg[i] = ks[i].max_wg_size, b->reqd_sg[i] = ks[i].reqd_sub_group;
        b->reqd_x[i] = ks[i].reqd_wg[0], b->reqd_y[i] = ks[i].reqd_wg[1], b->reqd_z[i] = ks[i].reqd_wg[2];
        b->sgprs[i] = ks[i].sgprs, b->cu_mode[i] = ks[i].cu_mode;
    }
    occ_columns_init(in);
    in->wg_x = b->wg_x, in->wg_y = b->wg_y, in->wg_z = b->wg_z, in->sub_group = b->sub_group;
    in->slm_bytes = b->slm, in->barrier = b->barrier, in->grf = b->grf, in->regs_per_thread = b->regs;
    in->carveout_pct = b->carveout;
    in->max_wg_size = b->max_wg, in->reqd_sub_group = b->reqd_sg;
    in->reqd_wg_x = b->reqd_x, in->reqd_wg_y = b->reqd_y, in->reqd_wg_z = b->reqd_z;
    in->sgprs = b->sgprs, in->cu_mode = b->cu_mode;
    occ_eval_columns_init(out);
    out->resident_wgs = b->resident, out->occupancy = b->occupancy, out->limited_by = b->limited_by;
    out->reason = b->reason, out->contexts_per_wg = b->cpw, out->contexts_per_core = b->cpc;
}

static occ_eval column_result(const columns_buf *b, size_t i)
{
    return (occ_eval){.resident_wgs = b->resident[i], .contexts_per_wg = b->cpw[i],
                      .contexts_per_core = b->cpc[i], .limited_by = b->limited_by[i],
                      .reason = b->reason[i], .occupancy = b->occupancy[i]};
}

/* The instruction sets this machine can run, forced (model/eval_columns.h). */
static size_t forced_isas(occ__columns_isa *isas)
{
    size_t n = 0;
    isas[n++] = OCC__COLUMNS_PORTABLE;
    if (occ__columns_have_avx2())
        isas[n++] = OCC__COLUMNS_AVX2;
    return n;
}

/* The same columns again through the eight-lane path with each instruction
 * set forced: every result column byte for byte equal to *want's (the
 * answers of occ_evaluate_columns, already checked). */
static void same_with_each_isa(const occ_device *dev, size_t n, const occ_columns *in, const occ_eval_columns *want,
                               columns_buf *scratch)
{
    const occ__fast *f = occ__fast_of(dev);
    if (!f)
        return;
    occ__columns_isa isas[2];
    size_t nisa = forced_isas(isas);
    for (size_t k = 0; k < nisa; k++) {
        memset(scratch, 0x5a, sizeof *scratch);
        occ_eval_columns out;
        occ_eval_columns_init(&out);
        if (want->resident_wgs)
            out.resident_wgs = scratch->resident;
        if (want->occupancy)
            out.occupancy = scratch->occupancy;
        if (want->limited_by)
            out.limited_by = scratch->limited_by;
        if (want->reason)
            out.reason = scratch->reason;
        if (want->contexts_per_wg)
            out.contexts_per_wg = scratch->cpw;
        if (want->contexts_per_core)
            out.contexts_per_core = scratch->cpc;
        /* every built-in profile is covered: a silent fallback would test nothing */
        ck_assert_msg(occ__eval_columns(f, n, in, &out, isas[k]), "%s: the eight-lane path does not cover it",
                      occ_device_describe(dev)->name);
#define SAME(col, size)                                                                                \
    ck_assert_msg(!want->col || memcmp(want->col, out.col, n * (size)) == 0, "%s, isa %d: %s differs (n %zu)", \
                  occ_device_describe(dev)->name, (int)isas[k], #col, n)
        SAME(resident_wgs, 4);
        SAME(occupancy, 8);
        SAME(limited_by, 1);
        SAME(reason, 1);
        SAME(contexts_per_wg, 4);
        SAME(contexts_per_core, 4);
#undef SAME
    }
}

/* A tuner's batch varies a few fields: each field of *mask (bit per field)
 * held at its default in every kernel of the batch, so that the struct
 * batches' stages leave those columns out (model/eval_columns.c). */
static void hold_defaults(occ_kernel *ks, size_t n, unsigned mask)
{
    for (size_t i = 0; i < n; i++) {
        occ_kernel *k = &ks[i];
        if (mask & 1)
            k->wg[1] = k->wg[2] = 1;
        if (mask & 2)
            k->sub_group = 0;
        if (mask & 4)
            k->grf = 0;
        if (mask & 8)
            k->regs_per_thread = 0;
        if (mask & 16)
            k->carveout_pct = -1;
        if (mask & 32)
            k->slm_bytes = 0;
        if (mask & 64)
            k->barrier = false;
    }
}

/* The struct batches through the lanes with each instruction set forced:
 * byte for byte the answers of occ_residency_batch and occ_evaluate_batch
 * (already checked). */
static void structs_with_each_isa(const occ_device *dev, const occ_kernel *ks, size_t n, const occ_residency *rs,
                                  const occ_eval *es)
{
    const occ__fast *f = occ__fast_of(dev);
    if (!f)
        return;
    static occ_residency r2[CHUNK + 1]; /* one past the batch: not written */
    static occ_eval e2[CHUNK + 1];
    occ__columns_isa isas[2];
    size_t nisa = forced_isas(isas);
    for (size_t k = 0; k < nisa; k++) {
        memset(r2, 0x5a, sizeof r2);
        memset(e2, 0x5a, sizeof e2);
        occ__residency_structs(f, n, ks, r2, isas[k]);
        occ__eval_structs(f, n, ks, e2, isas[k]);
        ck_assert_msg(memcmp(r2, rs, n * sizeof *rs) == 0, "%s, isa %d: the struct batch's reports differ (n %zu)",
                      occ_device_describe(dev)->name, (int)isas[k], n);
        ck_assert_msg(memcmp(e2, es, n * sizeof *es) == 0, "%s, isa %d: the struct batch's evals differ (n %zu)",
                      occ_device_describe(dev)->name, (int)isas[k], n);
        ck_assert_msg(r2[n].struct_size == 0x5a5a5a5a && e2[n].resident_wgs == 0x5a5a5a5a,
                      "%s, isa %d: written past the batch's end (n %zu)", occ_device_describe(dev)->name,
                      (int)isas[k], n);
    }
}

START_TEST(every_path_equals_the_reference)
{
    size_t ndev = occ_builtin_count() + N_MADE;
    size_t per = TOTAL / ndev + 1, checked = 0, launched = 0, covered_devices = 0;
    size_t reasons[OCC_REASON_COUNT] = {0};
    occ_kernel ks[CHUNK];
    occ_residency rs[CHUNK];
    occ_eval es[CHUNK];
    columns_buf *cb = columns_buf_new(), *scratch = columns_buf_new();
    occ_columns cin;
    occ_eval_columns cout;
    for (size_t di = 0; di < ndev; di++) {
        bool covered;
        occ_device *dev = device_at(di, &covered);
        const occ_device_desc *d = occ_device_describe(dev);
        covered_devices += covered;
        /* the devices made to miss the tables miss them; every built-in
         * profile is covered, AMD's (their vendor row) too */
        if (di >= occ_builtin_count() + 1)
            ck_assert_msg(!covered, "%s: the tables should not cover it", d->name);
        else
            ck_assert_msg(covered, "%s: the tables should cover it", d->name);
        tc_rng rng = {0x5eed0 + di};
        for (size_t done = 0, n; done < per; done += n) {
            /* chunks of 993..1000 (the eight-lane path's last n % 8
             * kernels too), one in eight of 1..70 (a few kernels, a part
             * of one stage of the struct batches) */
            n = tc_range(&rng, 0, 7) ? CHUNK - (size_t)tc_range(&rng, 0, 7) : (size_t)tc_range(&rng, 1, 70);
            n = per - done < n ? per - done : n;
            bool dense = tc_range(&rng, 0, 7) == 0; /* one batch in eight: every kernel constrained */
            for (size_t i = 0; i < n; i++) {
                ks[i] = random_config(&rng, d);
                if (dense)
                    constrain(&rng, d, &ks[i]);
            }
            if (tc_range(&rng, 0, 1)) /* half the batches hold some fields at their defaults */
                hold_defaults(ks, n, (unsigned)tc_range(&rng, 0, 127));
            memset(rs, 0xa5, sizeof rs);
            memset(es, 0xa5, sizeof es);
            ck_assert_int_eq(occ_residency_batch(dev, ks, rs, n), OCC_OK);
            ck_assert_int_eq(occ_evaluate_batch(dev, ks, es, n), OCC_OK);
            structs_with_each_isa(dev, ks, n, rs, es);
            memset(cb, 0xa5, sizeof *cb);
            to_columns(ks, n, cb, &cin, &cout);
            ck_assert_int_eq(occ_evaluate_columns(dev, n, &cin, &cout), OCC_OK);
            same_with_each_isa(dev, n, &cin, &cout, scratch);
            for (size_t i = 0; i < n; i++) {
                occ_residency one;
                memset(&one, 0x3c, sizeof one);
                if (occ_residency_compute(dev, &ks[i], &one) != OCC_OK)
                    ck_abort_msg("occ_residency_compute failed");
                occ_eval three[3] = {es[i]};
                memset(&three[1], 0x3c, sizeof three[1]);
                ck_assert_int_eq(occ_evaluate(dev, &ks[i], &three[1]), OCC_OK);
                three[2] = column_result(cb, i);
                check_one(dev, &ks[i], &one, &rs[i], three, done + i);
                launched += one.launchable;
                reasons[one.reason]++;
            }
            checked += n;
        }
        occ_device_free(dev);
    }
    free(cb);
    free(scratch);
    ck_assert_uint_ge(checked, TOTAL);
    size_t amd = 0;
    for (size_t i = 0; i < occ_builtin_count(); i++) {
        occ_device *dev = tc_builtin(occ_builtin_name(i));
        amd += occ_device_describe(dev)->vendor == OCC_VENDOR_AMD;
        occ_device_free(dev);
    }
    ck_assert_uint_ge(amd, 10); /* the AMD profiles are sampled, through the tables */
    ck_assert_uint_eq(covered_devices, occ_builtin_count() + 1);
    /* a sane mix: most launch, and every reason occurs */
    ck_assert_msg(launched > checked / 2 && launched < checked * 95 / 100, "%zu of %zu launch", launched,
                  checked);
    for (int r = 1; r < OCC_REASON_COUNT; r++)
        ck_assert_msg(reasons[r] > 0, "reason %s never occurs", occ_reason_text((occ_reason)r));
}
END_TEST

/* The constraint and vendor columns at values no kernel file holds (a
 * required sub-group size no device has, 0 in a required shape's x only,
 * sizes past 2^24, 2^32 - 1, a bound of 1) give occ_evaluate's answer for
 * each kernel, the reason included (counted in refused), through the lanes
 * with each instruction set too; a caller built against API 3.3
 * (struct_size OCC_COLUMNS_SIZE_NO_CONSTRAINTS) has the columns after
 * carveout_pct ignored, whatever they point to; a struct_size below that is
 * refused, nothing written. */
static void odd_constraints_and_old_callers(occ_device *dev, bool covered, tc_rng *rng, columns_buf *cb,
                                            columns_buf *scratch, size_t *refused)
{
    enum { N = 203 };
    static const uint32_t odd[] = {0, 1, 2, 3, 7, 8, 12, 16, 17, 32, 64, 128, 1024, 1u << 24, UINT32_MAX};
    const occ_device_desc *d = occ_device_describe(dev);
    occ_kernel ks[N];
    for (size_t i = 0; i < N; i++) {
        ks[i] = random_config(rng, d);
        for (int j = 0; j < CONSTRAINT_FIELDS; j++)
            if (tc_range(rng, 0, j < 5 ? 1 : 7) == 0) /* AMD's fields (the last two) in fewer kernels */
                *constraint_field(&ks[i], j) = odd[tc_range(rng, 0, sizeof odd / sizeof *odd - 1)];
    }
    occ_columns in;
    occ_eval_columns out;
    memset(cb, 0xa5, sizeof *cb);
    to_columns(ks, N, cb, &in, &out);
    ck_assert_int_eq(occ_evaluate_columns(dev, N, &in, &out), OCC_OK);
    for (size_t i = 0; i < N; i++) {
        occ_eval want, got = column_result(cb, i);
        memset(&want, 0, sizeof want);
        ck_assert_int_eq(occ_evaluate(dev, &ks[i], &want), OCC_OK);
        if (memcmp(&got, &want, sizeof want) != 0)
            ck_abort_msg("%s, kernel %zu (wg %u x %u x %u, sg %u; max_wg %u, reqd %u x %u x %u, reqd_sg %u, "
                         "sgprs %u, cu_mode %u): resident %u reason %u, occ_evaluate %u %u",
                         d->name, i, ks[i].wg[0], ks[i].wg[1], ks[i].wg[2], ks[i].sub_group, ks[i].max_wg_size,
                         ks[i].reqd_wg[0], ks[i].reqd_wg[1], ks[i].reqd_wg[2], ks[i].reqd_sub_group, ks[i].sgprs,
                         ks[i].cu_mode, got.resident_wgs, got.reason, want.resident_wgs, want.reason);
        refused[want.reason]++;
    }
    if (covered)
        same_with_each_isa(dev, N, &in, &out, scratch);
    /* an older caller: the kernels without the fields after carveout_pct */
    memset(cb, 0xa5, sizeof *cb);
    to_columns(ks, N, cb, &in, &out);
    in.struct_size = OCC_COLUMNS_SIZE_NO_CONSTRAINTS;
    ck_assert_int_eq(occ_evaluate_columns(dev, N, &in, &out), OCC_OK);
    for (size_t i = 0; i < N; i++) {
        occ_kernel plain = ks[i];
        clear_constraints((1u << CONSTRAINT_FIELDS) - 1, &plain, NULL);
        occ_eval want, got = column_result(cb, i);
        memset(&want, 0, sizeof want);
        ck_assert_int_eq(occ_evaluate(dev, &plain, &want), OCC_OK);
        ck_assert_msg(memcmp(&got, &want, sizeof want) == 0, "%s, kernel %zu: an older caller's answer differs",
                      d->name, i);
    }
    memset(cb, 0xa5, sizeof *cb);
    in.struct_size = OCC_COLUMNS_SIZE_NO_CONSTRAINTS - 1;
    ck_assert_int_eq(occ_evaluate_columns(dev, N, &in, &out), OCC_ERR_INVALID_ARGUMENT);
    ck_assert_uint_eq(cb->resident[0], 0xa5a5a5a5u);
}

/* A NULL input column is that field's default for every kernel; a NULL
 * result column is not written; n = 0 writes nothing; bad arguments are
 * refused; odd constraint values and older callers as above.  Over every
 * built-in profile and the devices made here. */
START_TEST(columns_defaults_and_edges)
{
    enum { N = 400, FIELDS = 16 };
    size_t ndev = occ_builtin_count() + N_MADE, refused[OCC_REASON_COUNT] = {0};
    occ_kernel ks[N], kd[N];
    columns_buf *cb = columns_buf_new(), *scratch = columns_buf_new();
    occ_columns in;
    occ_eval_columns out;
    for (size_t di = 0; di < ndev; di++) {
        bool covered;
        occ_device *dev = device_at(di, &covered);
        const occ_device_desc *d = occ_device_describe(dev);
        tc_rng rng = {0xc01 + di};
        for (size_t i = 0; i < N; i++) {
            ks[i] = random_config(&rng, d);
            if (tc_range(&rng, 0, 1))
                constrain(&rng, d, &ks[i]);
        }
        for (int field = 0; field < FIELDS; field++) {
            /* kd: the kernels with this field at its default */
            for (size_t i = 0; i < N; i++) {
                kd[i] = ks[i];
                switch (field) {
                case 0: kd[i].wg[0] = 1; break;
                case 1: kd[i].wg[1] = 1; break;
                case 2: kd[i].wg[2] = 1; break;
                case 3: kd[i].sub_group = 0; break;
                case 4: kd[i].slm_bytes = 0; break;
                case 5: kd[i].barrier = false; break;
                case 6: kd[i].grf = 0; break;
                case 7: kd[i].regs_per_thread = 0; break;
                case 8: kd[i].carveout_pct = -1; break;
                case 9: kd[i].max_wg_size = 0; break;
                case 10: kd[i].reqd_wg[0] = 0; break;
                case 11: kd[i].reqd_wg[1] = 0; break;
                case 12: kd[i].reqd_wg[2] = 0; break;
                case 13: kd[i].reqd_sub_group = 0; break;
                case 14: kd[i].sgprs = 0; break;
                default: kd[i].cu_mode = 0; break;
                }
            }
            memset(cb, 0xa5, sizeof *cb);
            to_columns(ks, N, cb, &in, &out);
            const void **col[FIELDS] = {
                (const void **)&in.wg_x, (const void **)&in.wg_y, (const void **)&in.wg_z,
                (const void **)&in.sub_group, (const void **)&in.slm_bytes, (const void **)&in.barrier,
                (const void **)&in.grf, (const void **)&in.regs_per_thread, (const void **)&in.carveout_pct,
                (const void **)&in.max_wg_size, (const void **)&in.reqd_wg_x, (const void **)&in.reqd_wg_y,
                (const void **)&in.reqd_wg_z, (const void **)&in.reqd_sub_group, (const void **)&in.sgprs,
                (const void **)&in.cu_mode,
            };
            *col[field] = NULL;
            /* only two result columns asked for: the others stay untouched */
            out.limited_by = NULL, out.contexts_per_wg = NULL;
            ck_assert_int_eq(occ_evaluate_columns(dev, N, &in, &out), OCC_OK);
            for (size_t i = 0; i < N; i++) {
                occ_eval e;
                ck_assert_int_eq(occ_evaluate(dev, &kd[i], &e), OCC_OK);
                if (cb->resident[i] != e.resident_wgs || cb->occupancy[i] != e.occupancy ||
                    cb->reason[i] != e.reason || cb->cpc[i] != e.contexts_per_core)
                    ck_abort_msg("%s, field %d NULL, configuration %zu: resident %u reason %u, "
                                 "occ_evaluate %u %u", d->name, field, i, cb->resident[i], cb->reason[i],
                                 e.resident_wgs, e.reason);
                ck_assert_uint_eq(cb->limited_by[i], 0xa5);
                ck_assert_uint_eq(cb->cpw[i], 0xa5a5a5a5u);
            }
        }
        /* n = 0: nothing written, even with every column given */
        memset(cb, 0xa5, sizeof *cb);
        to_columns(ks, 0, cb, &in, &out);
        ck_assert_int_eq(occ_evaluate_columns(dev, 0, &in, &out), OCC_OK);
        ck_assert_uint_eq(cb->resident[0], 0xa5a5a5a5u);
        ck_assert_uint_eq(cb->reason[0], 0xa5);
        /* bad arguments */
        ck_assert_int_eq(occ_evaluate_columns(NULL, 1, &in, &out), OCC_ERR_INVALID_ARGUMENT);
        ck_assert_int_eq(occ_evaluate_columns(dev, 1, NULL, &out), OCC_ERR_INVALID_ARGUMENT);
        ck_assert_int_eq(occ_evaluate_columns(dev, 1, &in, NULL), OCC_ERR_INVALID_ARGUMENT);
        in.struct_size = 4;
        ck_assert_int_eq(occ_evaluate_columns(dev, 1, &in, &out), OCC_ERR_INVALID_ARGUMENT);
        in.struct_size = sizeof in, out.struct_size = 0;
        ck_assert_int_eq(occ_evaluate_columns(dev, 1, &in, &out), OCC_ERR_INVALID_ARGUMENT);
        ck_assert_uint_eq(cb->resident[0], 0xa5a5a5a5u);
        occ_eval e;
        memset(&e, 0x77, sizeof e);
        occ_kernel bad = ks[0];
        bad.struct_size = 4;
        ck_assert_int_eq(occ_evaluate(dev, &bad, &e), OCC_ERR_INVALID_ARGUMENT);
        ck_assert_int_eq(occ_evaluate(dev, NULL, &e), OCC_ERR_INVALID_ARGUMENT);
        ck_assert_int_eq(occ_evaluate(NULL, &ks[0], &e), OCC_ERR_INVALID_ARGUMENT);
        ck_assert_int_eq(occ_evaluate(dev, &ks[0], NULL), OCC_ERR_INVALID_ARGUMENT);
        ck_assert_uint_eq(e.resident_wgs, 0x77777777u);
        odd_constraints_and_old_callers(dev, covered, &rng, cb, scratch, refused);
        occ_device_free(dev);
    }
    /* every refusal of the rule's kernel row occurs among the odd values, and launches too */
    ck_assert_uint_gt(refused[OCC_REASON_REQD_SUB_GROUP], 0);
    ck_assert_uint_gt(refused[OCC_REASON_REQD_WG], 0);
    ck_assert_uint_gt(refused[OCC_REASON_KERNEL_MAX_WG], 0);
    ck_assert_uint_gt(refused[OCC_REASON_NONE], 0);
    free(cb);
    free(scratch);
}
END_TEST

/* Every combination of NULL input columns among the first nine (2^9), each
 * with a random set of the constraint and vendor columns NULL, a random set of
 * result columns and a length that is mostly not a multiple of eight: the
 * answers equal occ_evaluate of the kernels with those fields at their
 * defaults, result columns not asked for stay untouched, and the eight-lane
 * path gives the same bytes with each instruction set forced. */
START_TEST(columns_every_null_combination)
{
    enum { FIELDS = 9 };
    size_t ndev = occ_builtin_count() + N_MADE;
    occ_kernel ks[CHUNK], kd[CHUNK];
    columns_buf *cb = columns_buf_new(), *scratch = columns_buf_new();
    for (size_t di = 0; di < ndev; di++) {
        bool covered;
        occ_device *dev = device_at(di, &covered);
        const occ_device_desc *d = occ_device_describe(dev);
        tc_rng rng = {0x9a11 + di};
        for (unsigned nulls = 0; nulls < (1u << FIELDS); nulls++) {
            size_t n = (size_t)tc_range(&rng, 0, 77);
            unsigned results = (unsigned)tc_range(&rng, 0, 63);
            unsigned more = (unsigned)tc_range(&rng, 0, (1u << CONSTRAINT_FIELDS) - 1); /* after carveout_pct */
            for (size_t i = 0; i < n; i++) {
                ks[i] = random_config(&rng, d);
                if (tc_range(&rng, 0, 1)) /* half the kernels constrained: the lanes' checks, met or not */
                    constrain(&rng, d, &ks[i]);
                kd[i] = ks[i];
                clear_constraints(more, &kd[i], NULL);
                if (nulls & 1u << 0) kd[i].wg[0] = 1;
                if (nulls & 1u << 1) kd[i].wg[1] = 1;
                if (nulls & 1u << 2) kd[i].wg[2] = 1;
                if (nulls & 1u << 3) kd[i].sub_group = 0;
                if (nulls & 1u << 4) kd[i].slm_bytes = 0;
                if (nulls & 1u << 5) kd[i].barrier = false;
                if (nulls & 1u << 6) kd[i].grf = 0;
                if (nulls & 1u << 7) kd[i].regs_per_thread = 0;
                if (nulls & 1u << 8) kd[i].carveout_pct = -1;
            }
            occ_columns in;
            occ_eval_columns out;
            memset(cb, 0xa5, sizeof *cb);
            to_columns(ks, n, cb, &in, &out);
            if (nulls & 1u << 0) in.wg_x = NULL;
            if (nulls & 1u << 1) in.wg_y = NULL;
            if (nulls & 1u << 2) in.wg_z = NULL;
            if (nulls & 1u << 3) in.sub_group = NULL;
            if (nulls & 1u << 4) in.slm_bytes = NULL;
            if (nulls & 1u << 5) in.barrier = NULL;
            if (nulls & 1u << 6) in.grf = NULL;
            if (nulls & 1u << 7) in.regs_per_thread = NULL;
            if (nulls & 1u << 8) in.carveout_pct = NULL;
            clear_constraints(more, NULL, &in);
            if (!(results & 1u << 0)) out.resident_wgs = NULL;
            if (!(results & 1u << 1)) out.occupancy = NULL;
            if (!(results & 1u << 2)) out.limited_by = NULL;
            if (!(results & 1u << 3)) out.reason = NULL;
            if (!(results & 1u << 4)) out.contexts_per_wg = NULL;
            if (!(results & 1u << 5)) out.contexts_per_core = NULL;
            ck_assert_int_eq(occ_evaluate_columns(dev, n, &in, &out), OCC_OK);
            for (size_t i = 0; i < n; i++) {
                occ_eval e;
                ck_assert_int_eq(occ_evaluate(dev, &kd[i], &e), OCC_OK);
                occ_eval got = column_result(cb, i);
                bool same = (!out.resident_wgs || got.resident_wgs == e.resident_wgs) &&
                            (!out.occupancy || memcmp(&got.occupancy, &e.occupancy, sizeof e.occupancy) == 0) &&
                            (!out.limited_by || got.limited_by == e.limited_by) &&
                            (!out.reason || got.reason == e.reason) &&
                            (!out.contexts_per_wg || got.contexts_per_wg == e.contexts_per_wg) &&
                            (!out.contexts_per_core || got.contexts_per_core == e.contexts_per_core);
                if (!same)
                    ck_abort_msg("%s, NULL columns %#x, results %#x, n %zu, kernel %zu: resident %u reason %u, "
                                 "occ_evaluate %u %u", d->name, nulls, results, n, i, got.resident_wgs,
                                 got.reason, e.resident_wgs, e.reason);
                /* the columns not asked for are untouched */
                ck_assert_uint_eq(out.resident_wgs ? 0xa5a5a5a5u : cb->resident[i], 0xa5a5a5a5u);
                ck_assert_uint_eq(out.limited_by ? 0xa5 : cb->limited_by[i], 0xa5);
                ck_assert_uint_eq(out.reason ? 0xa5 : cb->reason[i], 0xa5);
                ck_assert_uint_eq(out.contexts_per_wg ? 0xa5a5a5a5u : cb->cpw[i], 0xa5a5a5a5u);
                ck_assert_uint_eq(out.contexts_per_core ? 0xa5a5a5a5u : cb->cpc[i], 0xa5a5a5a5u);
            }
            /* nothing past n */
            ck_assert_uint_eq(cb->resident[n], 0xa5a5a5a5u);
            ck_assert_uint_eq(cb->reason[n], 0xa5);
            if (covered)
                same_with_each_isa(dev, n, &in, &out, scratch);
        }
        occ_device_free(dev);
    }
    free(cb);
    free(scratch);
}
END_TEST


/* A prepared kernel answers every launch shape exactly as occ_evaluate of
 * the kernel written out: random kernels on every device, each asked about
 * random work-group sizes (zero and past 2^64 items too) and dynamic local
 * memory (none, some, up to and past the maximum, sums past 2^64). */
START_TEST(prepared_equals_occ_evaluate)
{
    enum { KERNELS = 2000, QUERIES = 24 };
    size_t ndev = occ_builtin_count() + N_MADE, checked = 0;
    for (size_t di = 0; di < ndev; di++) {
        bool covered;
        occ_device *dev = device_at(di, &covered);
        const occ_device_desc *d = occ_device_describe(dev);
        tc_rng rng = {0x9e9 + di};
        size_t launched_dyn = 0;
        for (size_t ki = 0; ki < KERNELS; ki++) {
            occ_kernel k = random_config(&rng, d);
            if (tc_range(&rng, 0, 3) == 0)
                k.slm_bytes = 0;
            if (tc_range(&rng, 0, 3) == 0) /* a launch bound: the table stops at it */
                k.max_wg_size = (uint32_t)tc_range(&rng, 1, d->max_work_group_size + 64);
            occ_prepared *p = NULL;
            ck_assert_int_eq(occ_prepare(dev, &k, &p), OCC_OK);
            ck_assert_ptr_nonnull(p);
            for (int q = 0; q < QUERIES; q++) {
                occ_kernel shape = random_config(&rng, d);
                uint64_t dyn = 0, pick = tc_range(&rng, 0, 9);
                if (pick >= 4 && pick < 7)
                    dyn = tc_range(&rng, 1, 64 * 1024);
                else if (pick == 7)
                    dyn = tc_range(&rng, 1, d->slm_max_per_work_group + 1024);
                else if (pick == 8)
                    dyn = d->slm_max_per_work_group - (k.slm_bytes < d->slm_max_per_work_group ? k.slm_bytes : 0) +
                          tc_range(&rng, 0, 1);
                else if (pick == 9)
                    dyn = UINT64_MAX - tc_range(&rng, 0, 3);
                occ_kernel whole = k;
                memcpy(whole.wg, shape.wg, sizeof whole.wg);
                if (__builtin_add_overflow(k.slm_bytes, dyn, &whole.slm_bytes))
                    whole.slm_bytes = UINT64_MAX;
                occ_eval want, got;
                memset(&want, 0x3c, sizeof want);
                memset(&got, 0xc3, sizeof got);
                ck_assert_int_eq(occ_evaluate(dev, &whole, &want), OCC_OK);
                ck_assert_int_eq(occ_prepared_evaluate(p, shape.wg[0], shape.wg[1], shape.wg[2], dyn, &got), OCC_OK);
                if (memcmp(&want, &got, sizeof want) != 0)
                    ck_abort_msg("%s, kernel %zu, query %d (wg %u x %u x %u, static %llu + dynamic %llu B): "
                                 "prepared %u (reason %u, by %#x, %.17g), occ_evaluate %u (reason %u, by %#x, %.17g)",
                                 d->name, ki, q, shape.wg[0], shape.wg[1], shape.wg[2],
                                 (unsigned long long)k.slm_bytes, (unsigned long long)dyn, got.resident_wgs,
                                 got.reason, got.limited_by, got.occupancy, want.resident_wgs, want.reason,
                                 want.limited_by, want.occupancy);
                launched_dyn += dyn && want.resident_wgs;
                checked++;
            }
            occ_prepared_free(p);
        }
        /* the dynamic local-memory path is exercised on every device */
        ck_assert_msg(launched_dyn > KERNELS, "%s: %zu launchable queries with dynamic local memory", d->name,
                      launched_dyn);
        /* bad arguments */
        occ_kernel k;
        occ_kernel_init(&k);
        occ_prepared *p = (occ_prepared *)&k;
        ck_assert_int_eq(occ_prepare(NULL, &k, &p), OCC_ERR_INVALID_ARGUMENT);
        ck_assert_ptr_null(p);
        ck_assert_int_eq(occ_prepare(dev, NULL, &p), OCC_ERR_INVALID_ARGUMENT);
        ck_assert_int_eq(occ_prepare(dev, &k, NULL), OCC_ERR_INVALID_ARGUMENT);
        k.struct_size = 4;
        ck_assert_int_eq(occ_prepare(dev, &k, &p), OCC_ERR_INVALID_ARGUMENT);
        k.struct_size = sizeof k;
        ck_assert_int_eq(occ_prepare(dev, &k, &p), OCC_OK);
        occ_eval e;
        memset(&e, 0x77, sizeof e);
        ck_assert_int_eq(occ_prepared_evaluate(NULL, 1, 1, 1, 0, &e), OCC_ERR_INVALID_ARGUMENT);
        ck_assert_int_eq(occ_prepared_evaluate(p, 1, 1, 1, 0, NULL), OCC_ERR_INVALID_ARGUMENT);
        ck_assert_uint_eq(e.resident_wgs, 0x77777777u);
        occ_prepared_free(p);
        occ_prepared_free(NULL);
        occ_device_free(dev);
    }
    ck_assert_uint_ge(checked, (size_t)KERNELS * QUERIES * occ_builtin_count());
}
END_TEST

/* The reciprocal division the tables use (occ__div_small: floor(n x
 * ceil(2^31 / d) / 2^31), the table filled by the first device) equals
 * floor(n / d) for every divisor the table holds and every n below 2^16,
 * and is 0 for d = 0. */
START_TEST(reciprocal_division_is_exact)
{
    occ_device *dev = tc_builtin(OCC_DEFAULT_DEVICE); /* fills the table */
    for (uint64_t n = 0; n < 65536; n++)
        if (occ__div_small(n, 0) != 0)
            ck_abort_msg("%llu / 0", (unsigned long long)n);
    for (uint64_t d = 1; d < OCC__FAST_UNITS; d++)
        for (uint64_t n = 0; n < 65536; n++)
            if (occ__div_small(n, d) != n / d)
                ck_abort_msg("%llu / %llu", (unsigned long long)n, (unsigned long long)d);
    occ_device_free(dev);
}
END_TEST

/* The column batch's quotients by one reciprocal (eval_columns_lanes.h's
 * recip_up and mul_floor, the same float operations one lane at a time):
 * floor(a x r) = floor(a / b) for every a, b < 2^16.  Checking both sides
 * of every multiple of b suffices: the product grows with a. */
START_TEST(reciprocal_multiplication_is_exact)
{
    for (uint32_t b = 1; b < 65536; b++) {
        float r = 1.0f / (float)b;
        uint32_t bits;
        memcpy(&bits, &r, sizeof bits);
        bits += 3;
        memcpy(&r, &bits, sizeof r);
        for (uint32_t k = 0; k * b < 65536 + b; k++) {
            uint32_t at = k * b; /* a multiple of b, then the one before it */
            if (at < 65536 && (uint32_t)(int32_t)((float)at * r) != k)
                ck_abort_msg("%u / %u", at, b);
            if (at >= 1 && at - 1 < 65536 && (uint32_t)(int32_t)((float)(at - 1) * r) != k - 1)
                ck_abort_msg("%u / %u", at - 1, b);
        }
    }
}
END_TEST

/* Every register count around a device's limits, with every work-group size
 * that changes the warps (a multiple of the warp and one more): where the
 * per-work-group maximum and the core's room meet, the launchable path's
 * register table and the general code must agree to the byte. */
START_TEST(registers_every_count)
{
    size_t checked = 0, nb = occ_builtin_count();
    for (size_t di = 0; di < nb + 2; di++) {
        occ_device *dev;
        if (di < nb) {
            dev = tc_builtin(occ_builtin_name(di));
        } else { /* a per-work-group maximum below the core's room (as on Jetson GPUs), then odd warp units */
            occ_device *base = tc_builtin("h100-sxm");
            occ_device_desc made = *occ_device_describe(base);
            occ_device_free(base);
            made.reg_max_per_work_group = di == nb ? 32768 : 40000;
            made.reg_warp_granularity = di == nb ? 4 : 2;
            dev = make(&made, di == nb ? "regs-per-wg-32k" : "regs-per-wg-40000");
            ck_assert_ptr_nonnull(occ__fast_of(dev));
        }
        const occ_device_desc *d = occ_device_describe(dev);
        if (!d->has_register_file) {
            occ_device_free(dev);
            continue;
        }
        uint32_t warp = d->sub_group_sizes[0];
        for (uint32_t regs = 0; regs <= d->reg_max_per_thread + 2; regs++)
            for (uint32_t w = warp; w <= d->max_work_group_size + warp; w += warp)
                for (uint32_t extra = 0; extra < 2; extra++) {
                    occ_kernel k;
                    occ_kernel_init(&k);
                    k.wg[0] = w - 1 + extra;
                    k.regs_per_thread = regs;
                    k.barrier = extra;
                    occ_residency one, general;
                    memset(&one, 0x3c, sizeof one);
                    memset(&general, 0x5a, sizeof general);
                    ck_assert_int_eq(occ_residency_compute(dev, &k, &one), OCC_OK);
                    occ__residency_eval(d, &k, &general);
                    if (memcmp(&one, &general, sizeof one) != 0)
                        ck_abort_msg("%s: wg %u, regs %u: occ_residency_compute differs from the general code",
                                     d->name, k.wg[0], regs);
                    occ_eval e, from;
                    memset(&e, 0x3c, sizeof e);
                    ck_assert_int_eq(occ_evaluate(dev, &k, &e), OCC_OK);
                    occ__eval_from_residency(&general, &from);
                    if (memcmp(&e, &from, sizeof e) != 0)
                        ck_abort_msg("%s: wg %u, regs %u: occ_evaluate differs from the general code", d->name,
                                     k.wg[0], regs);
                    checked++;
                }
        occ_device_free(dev);
    }
    ck_assert_uint_gt(checked, 10000);
}
END_TEST

static Suite *reference_suite(void)
{
    Suite *s = suite_create("reference");
    TCase *tc = tcase_create("random");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, every_path_equals_the_reference);
    tcase_add_test(tc, columns_defaults_and_edges);
    tcase_add_test(tc, columns_every_null_combination);
    tcase_add_test(tc, prepared_equals_occ_evaluate);
    tcase_add_test(tc, reciprocal_division_is_exact);
    tcase_add_test(tc, registers_every_count);
    tcase_add_test(tc, reciprocal_multiplication_is_exact);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tc_run(reference_suite()); }
