/* The advisor: enumerate the work-group shapes that fit a global size (or
 * the sizes for a work-group count), the sub-group sizes and the GRF modes;
 * score each configuration; keep the best N; say why each ranks where it
 * does, or which constraint leaves nothing valid.
 *
 * Every shape of one size gets the same scores (the model sees only the
 * product, and the work-group count is the global size over it), so shapes
 * are counted per size and each size is evaluated once per sub-group size and
 * GRF mode.  Ranking keys, in order (docs/advisor.md):
 *   1. score = time-weighted GPU occupancy x SIMD lane utilization
 *   2. per-core occupancy   3. lane utilization   4. fewer waves
 *   5. larger work-groups   6. smaller sub-group  7. more thread contexts
 *      (smaller GRF mode). */
#include "advise/advise_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ADVISE_MAX_WG 65536u
#define EPS 1e-12

void occ_advise_request_init(occ_advise_request *q)
{
    if (!q)
        return;
    memset(q, 0, sizeof *q);
    q->struct_size = sizeof *q;
    q->dims = 1;
    q->global[1] = q->global[2] = 1;
    q->carveout_pct = -1;
}

void occ_advise_summary_init(occ_advise_summary *s)
{
    if (!s)
        return;
    memset(s, 0, sizeof *s);
    s->struct_size = sizeof *s;
}

/* ---- ranking ---------------------------------------------------------------- */

static bool differ(double a, double b) { return fabs(a - b) > EPS; }

/* Which score explains why `lo` ranks below `hi` when their scores differ. */
static occ_why why_score(const occ_advice *lo, const occ_advice *hi)
{
    if (lo->gpu_occupancy < hi->gpu_occupancy - EPS)
        return lo->occupancy < hi->occupancy - EPS ? OCC_WHY_CORE_OCCUPANCY : OCC_WHY_GPU_OCCUPANCY;
    return OCC_WHY_LANES;
}

/* Compare two configurations: *sign < 0 when a ranks first.  Returns the key
 * that decides, seen from the one that ranks second. */
static occ_why decide(const occ_advice *a, const occ_advice *b, int *sign)
{
    if (differ(a->score, b->score)) {
        *sign = a->score > b->score ? -1 : 1;
        return *sign < 0 ? why_score(b, a) : why_score(a, b);
    }
    if (differ(a->occupancy, b->occupancy)) {
        *sign = a->occupancy > b->occupancy ? -1 : 1;
        return OCC_WHY_CORE_OCCUPANCY;
    }
    if (differ(a->lane_utilization, b->lane_utilization)) {
        *sign = a->lane_utilization > b->lane_utilization ? -1 : 1;
        return OCC_WHY_LANES;
    }
    if (a->waves != b->waves) {
        *sign = a->waves < b->waves ? -1 : 1;
        return OCC_WHY_WAVES;
    }
    if (a->wg_size != b->wg_size) {
        *sign = a->wg_size > b->wg_size ? -1 : 1;
        return OCC_WHY_WORK_GROUPS;
    }
    if (a->sub_group != b->sub_group) {
        *sign = a->sub_group < b->sub_group ? -1 : 1;
        return OCC_WHY_SUB_GROUP;
    }
    if (a->contexts_per_core != b->contexts_per_core) {
        *sign = a->contexts_per_core > b->contexts_per_core ? -1 : 1;
        return OCC_WHY_GRF;
    }
    if (a->grf != b->grf) {
        *sign = a->grf < b->grf ? -1 : 1;
        return OCC_WHY_GRF;
    }
    *sign = 0;
    return OCC_WHY_TIE;
}

static int cmp_size(const occ_advice *a, const occ_advice *b)
{
    if (a->sub_group != b->sub_group)
        return a->sub_group < b->sub_group ? -1 : 1;
    if (a->grf != b->grf)
        return a->grf < b->grf ? -1 : 1;
    if (a->wg_size != b->wg_size)
        return a->wg_size > b->wg_size ? -1 : 1;
    return 0;
}

/* < 0: a comes first in the requested order. */
static int before(occ_advise_order order, const occ_advice *a, const occ_advice *b)
{
    if (order == OCC_ORDER_SIZE)
        return cmp_size(a, b);
    int sign;
    decide(a, b, &sign);
    return sign;
}

/* The caller's buffer as a heap of the best `cap` seen so far, the worst at
 * the root; what falls out is remembered as the runner-up candidate. */
typedef struct keeper {
    occ_advice *h;
    size_t cap, n;
    occ_advise_order order;
    bool have_out;
    occ_advice out; /* the best configuration that was not kept */
} keeper;

static void sift_down(keeper *k, size_t i, size_t n)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, w = i;
        if (l < n && before(k->order, &k->h[w], &k->h[l]) < 0)
            w = l;
        if (r < n && before(k->order, &k->h[w], &k->h[r]) < 0)
            w = r;
        if (w == i)
            return;
        occ_advice t = k->h[i];
        k->h[i] = k->h[w];
        k->h[w] = t;
        i = w;
    }
}

static void drop(keeper *k, const occ_advice *a)
{
    if (!k->have_out || before(OCC_ORDER_RANK, a, &k->out) < 0)
        k->out = *a, k->have_out = true;
}

static void keep(keeper *k, const occ_advice *a)
{
    if (k->n < k->cap) {
        size_t i = k->n++;
        k->h[i] = *a;
        while (i > 0) {
            size_t p = (i - 1) / 2;
            if (before(k->order, &k->h[p], &k->h[i]) >= 0)
                break;
            occ_advice t = k->h[p];
            k->h[p] = k->h[i];
            k->h[i] = t;
            i = p;
        }
        return;
    }
    if (k->cap == 0 || before(k->order, a, &k->h[0]) >= 0) {
        drop(k, a);
        return;
    }
    drop(k, &k->h[0]);
    k->h[0] = *a;
    sift_down(k, 0, k->n);
}

/* Heap to sorted, first in order at index 0. */
static void finish(keeper *k)
{
    for (size_t end = k->n; end > 1; end--) {
        occ_advice t = k->h[0];
        k->h[0] = k->h[end - 1];
        k->h[end - 1] = t;
        sift_down(k, 0, end - 1);
    }
}

/* ---- the search ------------------------------------------------------------- */

typedef struct size_entry {
    uint64_t shapes;
    uint32_t rep[3];
} size_entry;

typedef struct search {
    const occ_device *dev;
    const occ_device_desc *d;
    const occ_advise_request *q;
    occ_advise_summary *sum;
    uint32_t dims;
    bool have_global, have_count;
    uint64_t total_items;           /* product of the global size */
    uint32_t lo, hi, multiple;      /* size filters (hi within the device maximum) */
    uint32_t sgs[OCC_MAX_SUB_GROUP_SIZES], n_sg;
    uint32_t grfs[OCC_MAX_GRF_MODES], n_grf;
    size_entry *sizes;              /* indexed by size, 0..hi */
} search;

static occ_status fail(occ_advise_summary *s, occ_advise_stage stage, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static occ_status fail(occ_advise_summary *s, occ_advise_stage stage, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->message, sizeof s->message, fmt, ap);
    va_end(ap);
    s->failed = stage;
    return OCC_OK;
}

static occ_status contradiction(occ_advise_summary *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static occ_status contradiction(occ_advise_summary *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->message, sizeof s->message, fmt, ap);
    va_end(ap);
    return OCC_ERR_INVALID_ARGUMENT;
}

static void fmt_global(const search *S, char *buf, size_t size)
{
    int n = snprintf(buf, size, "%llu", (unsigned long long)S->q->global[0]);
    for (uint32_t i = 1; i < S->dims && n > 0 && (size_t)n < size; i++)
        n += snprintf(buf + n, size - (size_t)n, " x %llu", (unsigned long long)S->q->global[i]);
}

static void fmt_list(char *buf, size_t size, const uint32_t *v, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && used + 1 < size; i++) {
        int k = snprintf(buf + used, size - used, "%s%u", i ? ", " : "", v[i]);
        used += k > 0 ? (size_t)k : 0;
    }
}

/* Contradictions in the request itself: no device needed to see them. */
static void request_kernel(const occ_advise_request *q, const uint32_t wg[3], uint32_t sg, uint32_t grf,
                           occ_kernel *k);
static bool in_clusters(const occ_advise_request *q);

static occ_status check_request(search *S)
{
    const occ_advise_request *q = S->q;
    occ_advise_summary *s = S->sum;
    if (q->dims < 1 || q->dims > 3)
        return contradiction(s, "dims must be 1, 2 or 3, got %u", q->dims);
    S->dims = q->dims;
    S->have_global = q->global[0] != 0;
    S->have_count = q->work_groups != 0;
    if (S->have_global && S->have_count)
        return contradiction(s, "a global size and a work-group count are exclusive: give one");
    if (S->have_global) {
        S->total_items = 1;
        for (uint32_t i = 0; i < S->dims; i++) {
            if (q->global[i] == 0)
                return contradiction(s, "the global size is zero in dimension %u", i);
            if (S->total_items > UINT64_MAX / q->global[i])
                return contradiction(s, "the global size has more than 2^64 work-items");
            S->total_items *= q->global[i];
        }
    }
    for (uint32_t i = S->dims; i < 3; i++)
        if (q->wg_fixed[i] > 1)
            return contradiction(s, "work-group dimension %u is fixed to %u but the problem has %u "
                                    "dimension%s", i, q->wg_fixed[i], S->dims, S->dims == 1 ? "" : "s");
    bool fixed = false;
    for (uint32_t i = 0; i < S->dims; i++)
        fixed |= q->wg_fixed[i] != 0;
    if (fixed && !S->have_global)
        return contradiction(s, "fixed work-group dimensions need a global size (with a work-group "
                                "count, sizes are 1-D)");
    if (S->have_count && S->dims > 1)
        return contradiction(s, "with a work-group count, work-group sizes are 1-D (dims 1)");
    if (q->wg_min && q->wg_max && q->wg_min > q->wg_max)
        return contradiction(s, "the minimum work-group size %u is above the maximum %u", q->wg_min,
                             q->wg_max);
    if (!(q->threshold >= 0.0 && q->threshold <= 1.0))
        return contradiction(s, "the threshold must be between 0 and 100 %%, got %g %%",
                             q->threshold * 100.0);
    if (q->threshold > 0 && q->threshold_on == OCC_THRESHOLD_GPU && !S->have_global && !S->have_count)
        return contradiction(s, "a threshold on GPU occupancy needs a global size or a work-group count");
    if ((unsigned)q->threshold_on > OCC_THRESHOLD_GPU || (unsigned)q->order > OCC_ORDER_SIZE)
        return contradiction(s, "unknown threshold target or order");
    if (q->n_sub_groups > OCC_MAX_SUB_GROUP_SIZES)
        return contradiction(s, "at most %d sub-group sizes may be allowed", OCC_MAX_SUB_GROUP_SIZES);
    for (uint32_t i = 0; i < q->n_sub_groups; i++)
        if (!q->sub_groups[i])
            return contradiction(s, "an allowed sub-group size is zero");
    if (q->carveout_pct < -1 || q->carveout_pct > 100)
        return contradiction(s, "carveout %d %% is outside 0..100", (int)q->carveout_pct);
    if (in_clusters(q)) { /* the device and the size, whatever the configuration */
        occ_kernel k;
        request_kernel(q, (const uint32_t[3]){1, 1, 1}, 0, 0, &k);
        occ_clusters c;
        occ_diag diag;
        memset(&diag, 0, sizeof diag);
        occ_status st = occ_cluster_compute(S->dev, &k, &c, &diag);
        if (st != OCC_OK) {
            snprintf(s->message, sizeof s->message, "%s", diag.message);
            return st;
        }
    }
    return OCC_OK;
}

/* Sub-group sizes and GRF modes to try. */
static occ_status choose_modes(search *S)
{
    const occ_device_desc *d = S->d;
    const occ_advise_request *q = S->q;
    char have[64], want[64];
    if (q->n_sub_groups) {
        for (uint32_t i = 0; i < q->n_sub_groups; i++)
            for (uint32_t j = 0; j < d->n_sub_group_sizes; j++)
                if (q->sub_groups[i] == d->sub_group_sizes[j]) {
                    bool dup = false;
                    for (uint32_t k = 0; k < S->n_sg; k++)
                        dup |= S->sgs[k] == q->sub_groups[i];
                    if (!dup)
                        S->sgs[S->n_sg++] = q->sub_groups[i];
                }
        if (!S->n_sg) {
            fmt_list(want, sizeof want, q->sub_groups, q->n_sub_groups);
            fmt_list(have, sizeof have, d->sub_group_sizes, d->n_sub_group_sizes);
            return fail(S->sum, OCC_STAGE_SUB_GROUP,
                        "none of the allowed sub-group sizes (%s) is supported by %s (%s)", want,
                        d->name, have);
        }
    } else {
        for (uint32_t j = 0; j < d->n_sub_group_sizes; j++)
            S->sgs[S->n_sg++] = d->sub_group_sizes[j];
    }
    for (uint32_t i = 0; i < d->n_grf_modes; i++)
        if (d->grf_modes[i].registers >= q->grf)
            S->grfs[S->n_grf++] = d->grf_modes[i].registers;
    S->sum->sub_groups = S->n_sg;
    S->sum->grf_modes = S->n_grf;
    if (!S->n_grf)
        return fail(S->sum, OCC_STAGE_GRF, "no GRF mode of %s has %u registers per thread (largest: %u)",
                    d->name, q->grf, d->grf_modes[d->n_grf_modes - 1].registers);
    return OCC_OK;
}

/* Divisors of g that are at most max, ascending. */
static size_t divisors(uint64_t g, uint32_t max, uint32_t *out)
{
    size_t n = 0;
    for (uint32_t v = 1; v <= max; v++)
        if (g % v == 0)
            out[n++] = v;
    return n;
}

typedef struct dim_lists {
    uint32_t *v[3];
    size_t n[3];
} dim_lists;

/* Per-dimension candidates for the shapes; fails (stage SHAPE) when a fixed
 * dimension cannot be used. */
static occ_status dim_candidates(search *S, dim_lists *L, uint32_t *store)
{
    const occ_advise_request *q = S->q;
    uint32_t max = S->d->max_work_group_size;
    uint64_t fixed_product = 1;
    for (uint32_t i = 0; i < 3; i++) {
        L->v[i] = store + (size_t)i * (max + 1);
        if (i >= S->dims) {
            L->v[i][0] = 1, L->n[i] = 1;
            continue;
        }
        uint32_t f = q->wg_fixed[i];
        if (f) {
            if (q->global[i] % f)
                return fail(S->sum, OCC_STAGE_SHAPE,
                            "the fixed work-group dimension %u (%u) does not divide the global size "
                            "%llu in that dimension", i, f, (unsigned long long)q->global[i]);
            if (f > max)
                return fail(S->sum, OCC_STAGE_SHAPE,
                            "the fixed work-group dimension %u (%u) is larger than %s's maximum "
                            "work-group size %u", i, f, S->d->name, max);
            fixed_product *= f;
            L->v[i][0] = f, L->n[i] = 1;
        } else {
            L->n[i] = divisors(q->global[i], max, L->v[i]);
        }
    }
    if (fixed_product > max)
        return fail(S->sum, OCC_STAGE_SHAPE,
                    "the fixed work-group dimensions alone make work-groups of %llu work-items; %s's "
                    "maximum is %u", (unsigned long long)fixed_product, S->d->name, max);
    return OCC_OK;
}

/* Filter one size through minimum, maximum and multiple, counting what
 * survives each so that a failure can name the filter that emptied it. */
typedef struct filter_counts {
    uint64_t fit, min, max, mult;
    uint64_t largest, smallest;
} filter_counts;

static void count_size(search *S, filter_counts *c, uint64_t W, uint64_t shapes, const uint32_t *shape)
{
    c->fit += shapes;
    if (W > c->largest)
        c->largest = W;
    if (!c->smallest || W < c->smallest)
        c->smallest = W;
    if (W < S->lo)
        return;
    c->min += shapes;
    if (W > S->hi)
        return;
    c->max += shapes;
    if (W % S->multiple)
        return;
    c->mult += shapes;
    size_entry *e = &S->sizes[W];
    if (!e->shapes)
        S->sum->sizes++;
    e->shapes += shapes;
    /* ascending enumeration: the last shape seen has the largest last dimension */
    memcpy(e->rep, shape, sizeof e->rep);
}

static occ_status size_failure(search *S, const filter_counts *c)
{
    char where[160];
    if (S->have_global) {
        char g[80];
        fmt_global(S, g, sizeof g);
        snprintf(where, sizeof where, "that fits the global size %s", g);
    } else {
        snprintf(where, sizeof where, "up to %s's maximum %u", S->d->name, S->d->max_work_group_size);
    }
    if (!c->fit)
        return fail(S->sum, OCC_STAGE_SHAPE, "no work-group shape fits");
    if (!c->min)
        return fail(S->sum, OCC_STAGE_SIZE,
                    "minimum work-group size %u: no work-group %s is that large (the largest is %llu)",
                    S->lo, where, (unsigned long long)c->largest);
    if (!c->max)
        return fail(S->sum, OCC_STAGE_SIZE,
                    "work-group sizes %u..%u: no work-group %s is in that range", S->lo, S->hi, where);
    return fail(S->sum, OCC_STAGE_SIZE,
                "work-group multiple %u: no work-group size from %u to %u %s is a multiple of it",
                S->multiple, S->lo, S->hi, where);
}

/* Fill S->sizes: shape counts and a representative per size. */
static occ_status enumerate_sizes(search *S)
{
    filter_counts c;
    memset(&c, 0, sizeof c);
    uint32_t max = S->d->max_work_group_size;
    if (!S->have_global) {
        const uint32_t *reqd = S->q->reqd_wg;
        for (uint32_t W = 1; W <= max; W++) {
            uint32_t shape[3] = {W, 1, 1};
            if (reqd[0]) /* constrain_request left its size alone in range: its shape */
                shape[0] = reqd[0], shape[1] = reqd[1] ? reqd[1] : 1, shape[2] = reqd[2] ? reqd[2] : 1;
            count_size(S, &c, W, 1, shape);
        }
    } else {
        uint32_t *store = malloc(sizeof(uint32_t) * 3 * ((size_t)max + 1));
        if (!store)
            return OCC_ERR_NO_MEMORY;
        dim_lists L;
        occ_status st = dim_candidates(S, &L, store);
        if (st == OCC_OK && S->sum->failed == OCC_STAGE_OK) {
            for (size_t iz = 0; iz < L.n[2]; iz++) {
                uint64_t z = L.v[2][iz];
                if (z > max)
                    break;
                for (size_t iy = 0; iy < L.n[1]; iy++) {
                    uint64_t yz = z * L.v[1][iy];
                    if (yz > max)
                        break;
                    for (size_t ix = 0; ix < L.n[0]; ix++) {
                        uint64_t W = yz * L.v[0][ix];
                        if (W > max)
                            break;
                        uint32_t shape[3] = {L.v[0][ix], L.v[1][iy], (uint32_t)z};
                        count_size(S, &c, W, 1, shape);
                    }
                }
            }
        }
        free(store);
        if (st != OCC_OK || S->sum->failed != OCC_STAGE_OK)
            return st;
    }
    S->sum->shapes = c.mult;
    if (!c.mult)
        return size_failure(S, &c);
    return OCC_OK;
}

static void constrain_request(occ_advise_request *q)
{
    if (q->max_wg_size && (!q->wg_max || q->wg_max > q->max_wg_size))
        q->wg_max = q->max_wg_size;
    if (q->reqd_sub_group && !q->n_sub_groups)
        q->n_sub_groups = 1, q->sub_groups[0] = q->reqd_sub_group;
    if (q->reqd_wg[0]) {
        uint64_t W = 1;
        for (uint32_t i = 0; i < 3; i++) {
            uint32_t f = q->reqd_wg[i] ? q->reqd_wg[i] : 1;
            W *= f;
            if (q->global[0] && i < q->dims && !q->wg_fixed[i])
                q->wg_fixed[i] = f;
        }
        if (!q->global[0] && W <= UINT32_MAX) /* 1-D sizes: the required size's */
            q->wg_min = q->wg_max = (uint32_t)W;
    }
}

/* The kernel of a configuration: the request's resources and constraints
 * (the rule refuses what the constraints forbid), shape and modes its own. */
static void request_kernel(const occ_advise_request *q, const uint32_t wg[3], uint32_t sg, uint32_t grf,
                           occ_kernel *k)
{
    occ_kernel_init(k);
    memcpy(k->wg, wg, sizeof k->wg);
    k->sub_group = sg;
    k->grf = grf;
    k->regs_per_thread = q->regs_per_thread;
    k->barrier = q->barrier;
    k->carveout_pct = q->carveout_pct;
    k->max_wg_size = q->max_wg_size;
    memcpy(k->reqd_wg, q->reqd_wg, sizeof k->reqd_wg);
    k->reqd_sub_group = q->reqd_sub_group;
    k->sgprs = q->sgprs;
    k->cu_mode = q->cu_mode;
    memcpy(k->cluster, q->cluster, sizeof k->cluster);
    k->cluster_non_portable = q->cluster_non_portable;
}

static bool in_clusters(const occ_advise_request *q) { return q->cluster[0] | q->cluster[1] | q->cluster[2]; }

/* Evaluate one configuration into an advice entry; false if it cannot launch. */
static bool score(const search *S, uint64_t W, uint32_t sg, uint32_t grf, occ_advice *a,
                  occ_residency *r)
{
    const occ_advise_request *q = S->q;
    const size_entry *e = &S->sizes[W];
    occ_kernel k;
    request_kernel(q, e->rep, sg, grf, &k);
    k.slm_bytes = occ__mul_add_sat(q->slm_per_item, W, q->slm_bytes);
    occ__eval(S->d, &k, r);
    if (!r->launchable)
        return false;
    occ_clusters cl; /* in clusters: the residency under the cluster cap */
    if (in_clusters(q) && (occ_cluster_compute(S->dev, &k, &cl, NULL) != OCC_OK || !cl.max_active_clusters))
        return false;
    memset(a, 0, sizeof *a);
    a->struct_size = sizeof *a;
    memcpy(a->wg, e->rep, sizeof a->wg);
    a->shapes = e->shapes;
    a->wg_size = W;
    a->sub_group = sg;
    a->grf = r->grf;
    a->slm_bytes = k.slm_bytes;
    a->resident_wgs = r->resident_wgs;
    a->contexts_per_wg = r->contexts_per_wg;
    a->contexts_per_core = r->contexts_per_core;
    a->contexts_used = r->contexts_used;
    a->limited_by = r->limited_by;
    a->occupancy = r->occupancy;
    if (in_clusters(q) && cl.work_groups_per_core < r->resident_wgs) {
        a->resident_wgs = cl.work_groups_per_core;
        a->contexts_used = cl.contexts_used;
        a->occupancy = cl.occupancy;
        a->limited_by = 0;
        a->cluster_capped = true;
    }
    a->lane_utilization = (double)W / ((double)r->contexts_per_wg * sg);
    a->gpu_occupancy = a->occupancy;
    a->intel_gpu_occupancy = a->occupancy;
    uint64_t groups = S->have_global ? S->total_items / W : q->work_groups;
    if (groups) {
        occ_gpu g;
        if ((in_clusters(q) ? occ_gpu_compute_clusters(S->dev, r, &cl, groups, &g)
                            : occ_gpu_compute(S->dev, r, groups, &g)) == OCC_OK) {
            a->work_groups = groups;
            a->gpu_occupancy = g.average_occupancy;
            a->intel_gpu_occupancy = g.intel_calculator_occupancy;
            a->waves = g.waves;
            a->last_wave_work_groups = g.last_wave_work_groups;
            a->last_wave_occupancy = g.last_wave_occupancy;
        }
    }
    a->score = a->gpu_occupancy * a->lane_utilization;
    return true;
}

/* GPU occupancy with `resident` work-groups per core instead. */
static double gpu_at(const search *S, const occ_advice *a, uint32_t resident)
{
    occ_residency r;
    occ_residency_init(&r);
    r.launchable = true;
    r.resident_wgs = resident;
    r.contexts_per_wg = a->contexts_per_wg;
    r.contexts_per_core = a->contexts_per_core;
    occ_gpu g;
    if (in_clusters(S->q)) { /* resident is at most the capped residency: the cap holds */
        occ_kernel k;
        request_kernel(S->q, a->wg, a->sub_group, a->grf, &k);
        occ_clusters c = {.struct_size = sizeof c, .work_groups_per_core = resident,
                          .size = occ_kernel_cluster_size(&k)};
        c.max_active_clusters = occ_max_active_clusters_of(S->dev, resident, c.size);
        return occ_gpu_compute_clusters(S->dev, &r, &c, a->work_groups, &g) == OCC_OK ? g.average_occupancy
                                                                                      : 0.0;
    }
    return occ_gpu_compute(S->dev, &r, a->work_groups, &g) == OCC_OK ? g.average_occupancy : 0.0;
}

/* Work-groups per core a configuration needs to reach the threshold; 0 if
 * it cannot. */
static uint32_t resident_for_threshold(const search *S, const occ_advice *a)
{
    double t = S->q->threshold;
    if (S->q->threshold_on == OCC_THRESHOLD_CORE) {
        double need = ceil(t * a->contexts_per_core / a->contexts_per_wg - 1e-9);
        uint32_t R = need < 1 ? 1 : (uint32_t)need;
        return R <= a->resident_wgs ? R : 0;
    }
    for (uint32_t R = 1; R <= a->resident_wgs; R++)
        if (gpu_at(S, a, R) >= t - 1e-9)
            return R;
    return 0;
}

static bool reaches(const search *S, const occ_advice *a)
{
    if (S->q->threshold <= 0)
        return true;
    double v = S->q->threshold_on == OCC_THRESHOLD_GPU ? a->gpu_occupancy : a->occupancy;
    return v >= S->q->threshold - 1e-9;
}

static void fill_slm_limit(const search *S, occ_advice *a)
{
    uint32_t need = S->q->threshold > 0 ? resident_for_threshold(S, a) : a->resident_wgs;
    occ_kernel k;
    request_kernel(S->q, a->wg, a->sub_group, a->grf, &k);
    uint64_t b = a->slm_bytes;
    if (need && occ__slm_limit(S->d, &k, need, &b) && b >= a->slm_bytes)
        a->slm_limit = b;
    else
        a->slm_limit = a->slm_bytes;
}

static occ_status launch_failure(search *S, const uint64_t *by_reason, uint64_t total)
{
    int top = 1;
    for (int i = 1; i < OCC_REASON_COUNT; i++)
        if (by_reason[i] > by_reason[top])
            top = i;
    S->sum->launch_reason = (occ_reason)top;
    /* an example of the commonest reason, with its detail text */
    char detail[256] = "";
    for (uint32_t W = 1; W <= S->hi && !detail[0]; W++) {
        if (!S->sizes[W].shapes)
            continue;
        for (uint32_t i = 0; i < S->n_sg && !detail[0]; i++)
            for (uint32_t g = 0; g < S->n_grf && !detail[0]; g++) {
                if (S->q->full_sub_groups && W % S->sgs[i])
                    continue;
                occ_kernel k;
                request_kernel(S->q, S->sizes[W].rep, S->sgs[i], S->grfs[g], &k);
                k.slm_bytes = occ__mul_add_sat(S->q->slm_per_item, W, S->q->slm_bytes);
                occ_residency r;
                occ_residency_compute(S->dev, &k, &r);
                if (!r.launchable && r.reason == (occ_reason)top) {
                    char why[192];
                    occ_residency_reason(S->dev, &k, why, sizeof why);
                    snprintf(detail, sizeof detail, "work-group %u, sub-group %u: %s", W, S->sgs[i],
                             why);
                }
            }
    }
    if (by_reason[top] == total)
        return fail(S->sum, OCC_STAGE_LAUNCH, "none of the %llu configurations can launch: %s (e.g. %s)",
                    (unsigned long long)total, occ_reason_text((occ_reason)top), detail);
    return fail(S->sum, OCC_STAGE_LAUNCH,
                "none of the %llu configurations can launch; %llu because %s (e.g. %s), the rest for "
                "other reasons", (unsigned long long)total, (unsigned long long)by_reason[top],
                occ_reason_text((occ_reason)top), detail);
}

static occ_status run(search *S, occ_advice *out, size_t cap, size_t *n_out)
{
    const occ_advise_request *q = S->q;
    occ_advise_summary *sum = S->sum;
    keeper K = {.h = out, .cap = cap, .order = q->order};
    uint64_t by_reason[OCC_REASON_COUNT] = {0};
    uint64_t pairs = 0;
    bool have_best = false;
    occ_advice best_seen;
    for (uint32_t W = S->lo; W <= S->hi; W++) {
        if (!S->sizes[W].shapes)
            continue;
        for (uint32_t i = 0; i < S->n_sg; i++) {
            uint32_t sg = S->sgs[i];
            if (q->full_sub_groups && W % sg)
                continue;
            pairs++;
            for (uint32_t g = 0; g < S->n_grf; g++) {
                occ_advice a;
                occ_residency r;
                sum->configurations++;
                if (!score(S, W, sg, S->grfs[g], &a, &r)) {
                    by_reason[r.reason]++;
                    continue;
                }
                sum->launchable++;
                double v = q->threshold_on == OCC_THRESHOLD_GPU ? a.gpu_occupancy : a.occupancy;
                if (!have_best || v > sum->best_value)
                    sum->best_value = v, best_seen = a, have_best = true;
                if (!reaches(S, &a))
                    continue;
                sum->matching++;
                keep(&K, &a);
            }
        }
    }
    if (!pairs) {
        char sg[64];
        fmt_list(sg, sizeof sg, S->sgs, S->n_sg);
        return fail(sum, OCC_STAGE_FULL_SUB_GROUPS,
                    "full sub-groups only: no work-group size that fits is a multiple of the "
                    "sub-group size (%s)", sg);
    }
    if (!sum->launchable)
        return launch_failure(S, by_reason, sum->configurations);
    if (!sum->matching) {
        char shape[48];
        snprintf(shape, sizeof shape, "%u", best_seen.wg[0]);
        for (uint32_t i = 1; i < S->dims; i++)
            snprintf(shape + strlen(shape), sizeof shape - strlen(shape), ",%u", best_seen.wg[i]);
        /* enough decimals that the best does not print as the threshold */
        int dec = 1;
        char a[32], b[32];
        do {
            snprintf(a, sizeof a, "%.*f", dec, q->threshold * 100.0);
            snprintf(b, sizeof b, "%.*f", dec, sum->best_value * 100.0);
        } while (strcmp(a, b) == 0 && ++dec <= 6);
        return fail(sum, OCC_STAGE_THRESHOLD,
                    "no configuration reaches %.1f %% %s occupancy; the best is %s %% (work-group "
                    "(%s), sub-group %u)", q->threshold * 100.0,
                    q->threshold_on == OCC_THRESHOLD_GPU ? "time-weighted GPU" : "per-core", b, shape,
                    best_seen.sub_group);
    }
    finish(&K);
    *n_out = K.n;

    /* Ranks and reasons.  In size order, the best is found among the entries. */
    size_t ib = 0;
    int sign;
    if (q->order == OCC_ORDER_SIZE) {
        for (size_t i = 1; i < K.n; i++)
            if (decide(&out[i], &out[ib], &sign), sign < 0)
                ib = i;
    }
    for (size_t i = 0; i < K.n; i++) {
        out[i].rank = q->order == OCC_ORDER_RANK ? (uint32_t)(i + 1) : 0;
        if (i != ib)
            out[i].why = decide(&out[ib], &out[i], &sign);
        fill_slm_limit(S, &out[i]);
    }
    if (K.n) {
        const occ_advice *second = NULL;
        if (q->order == OCC_ORDER_RANK && K.n > 1)
            second = &out[1];
        else if (K.n > 1)
            for (size_t i = 0; i < K.n; i++)
                if (i != ib && (!second || (decide(&out[i], second, &sign), sign < 0)))
                    second = &out[i];
        if (K.have_out && (!second || (decide(&K.out, second, &sign), sign < 0)))
            second = &K.out;
        out[ib].why = second ? decide(&out[ib], second, &sign) : OCC_WHY_ONLY;
        out[ib].is_best = true;
    }
    return OCC_OK;
}

occ_status occ_advise(const occ_device *dev, const occ_advise_request *q, occ_advice *out, size_t cap,
                      size_t *n_out, occ_advise_summary *summary)
{
    occ_advise_summary scratch;
    occ_advise_summary *sum = summary ? summary : &scratch;
    occ_advise_summary_init(sum);
    if (n_out)
        *n_out = 0;
    if (!dev || !q || !n_out || (cap && !out) || q->struct_size < sizeof *q)
        return OCC_ERR_INVALID_ARGUMENT;
    /* the kernel's constraints narrow the search: a required shape is the
     * fixed one, a required sub-group the only one, the launch bound the
     * largest size (the rule refuses anything else in any case) */
    occ_advise_request qc = *q;
    constrain_request(&qc);
    q = &qc;
    search S;
    memset(&S, 0, sizeof S);
    S.dev = dev;
    S.d = &dev->desc;
    S.q = q;
    S.sum = sum;
    occ_status st = check_request(&S);
    if (st != OCC_OK)
        return st;
    uint32_t devmax = S.d->max_work_group_size;
    if (devmax > ADVISE_MAX_WG) {
        snprintf(sum->message, sizeof sum->message,
                 "%s's maximum work-group size %u is over the advisor's limit %u", S.d->name, devmax,
                 ADVISE_MAX_WG);
        return OCC_ERR_TOO_LARGE;
    }
    S.lo = q->wg_min ? q->wg_min : 1;
    S.hi = q->wg_max && q->wg_max < devmax ? q->wg_max : devmax;
    S.multiple = q->wg_multiple ? q->wg_multiple : 1;
    if (S.lo > devmax)
        return fail(sum, OCC_STAGE_SIZE, "the minimum work-group size %u is above %s's maximum %u",
                    S.lo, S.d->name, devmax);
    if ((st = choose_modes(&S)) != OCC_OK || sum->failed)
        return st;
    S.sizes = calloc((size_t)devmax + 1, sizeof *S.sizes);
    if (!S.sizes)
        return OCC_ERR_NO_MEMORY;
    st = enumerate_sizes(&S);
    if (st == OCC_OK && !sum->failed)
        st = run(&S, out, cap, n_out);
    free(S.sizes);
    return st;
}

/* ---- shapes of one size --------------------------------------------------------- */

uint64_t occ_advise_shapes(const occ_device *dev, const occ_advise_request *q, uint64_t wg_size,
                           uint32_t (*shapes)[3], size_t cap)
{
    if (!dev || !q || q->struct_size < sizeof *q || (cap && !shapes) || !wg_size)
        return 0;
    const occ_device_desc *d = &dev->desc;
    uint32_t max = d->max_work_group_size;
    if (wg_size > max || max > ADVISE_MAX_WG)
        return 0;
    if (!q->global[0]) {
        if (cap)
            shapes[0][0] = (uint32_t)wg_size, shapes[0][1] = shapes[0][2] = 1;
        return 1;
    }
    uint32_t dims = q->dims >= 1 && q->dims <= 3 ? q->dims : 1;
    uint32_t *store = malloc(sizeof(uint32_t) * 3 * ((size_t)max + 1));
    if (!store)
        return 0;
    uint32_t *v[3];
    size_t n[3];
    for (uint32_t i = 0; i < 3; i++) {
        v[i] = store + (size_t)i * (max + 1);
        uint32_t f = i < dims ? q->wg_fixed[i] : 1;
        if (i >= dims || f) {
            bool ok = i >= dims || (q->global[i] % f == 0 && f <= max);
            v[i][0] = f ? f : 1;
            n[i] = ok ? 1 : 0;
        } else {
            n[i] = divisors(q->global[i], max, v[i]);
        }
    }
    uint64_t count = 0;
    for (size_t iz = n[2]; iz-- > 0;) {
        if (wg_size % v[2][iz])
            continue;
        for (size_t iy = n[1]; iy-- > 0;) {
            uint64_t yz = (uint64_t)v[2][iz] * v[1][iy];
            if (wg_size % yz)
                continue;
            uint64_t x = wg_size / yz;
            for (size_t ix = 0; ix < n[0]; ix++)
                if (v[0][ix] == x) {
                    if (count < cap) {
                        shapes[count][0] = (uint32_t)x;
                        shapes[count][1] = v[1][iy];
                        shapes[count][2] = v[2][iz];
                    }
                    count++;
                    break;
                }
        }
    }
    free(store);
    return count;
}
