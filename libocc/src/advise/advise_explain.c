/* One line per advised configuration: why the best wins, and on which score
 * every other loses to it. */
#include "advise/advise_internal.h"

#include <stdio.h>
#include <string.h>

typedef struct text {
    char *buf;
    size_t size, len;
} text;

static void put(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *at = t->size > t->len ? t->buf + t->len : NULL;
    size_t room = t->size > t->len ? t->size - t->len : 0;
    int n = vsnprintf(at, room, fmt, ap);
    va_end(ap);
    if (n > 0)
        t->len += (size_t)n;
}

static const char *s_(uint64_t n) { return n == 1 ? "" : "s"; }

static void put_bytes(text *t, uint64_t b)
{
    if (b && b % 1024 == 0)
        put(t, "%llu KB", (unsigned long long)(b / 1024));
    else
        put(t, "%llu B", (unsigned long long)b);
}

/* "(limited by thread contexts and barriers: 64 per Xe-core)" */
static void put_limits(text *t, const occ_device_desc *d, const occ_advice *a)
{
    const char *sep = "";
    put(t, "limited by ");
    if (a->cluster_capped)
        put(t, "the cluster launch: %u per %s", d->cluster_max_work_groups, d->core_name);
    for (int i = 0; i < OCC_RES_COUNT; i++) {
        if (!(a->limited_by & (1u << i)))
            continue;
        put(t, "%s", sep);
        sep = " and ";
        switch (i) {
        case OCC_RES_THREADS:
            put(t, "thread contexts");
            break;
        case OCC_RES_SLM:
            put(t, "%s: ", d->local_memory_name);
            put_bytes(t, a->slm_bytes);
            put(t, " per work-group");
            break;
        case OCC_RES_REGISTERS:
            put(t, "registers");
            break;
        case OCC_RES_WG_SLOTS:
            put(t, "work-group slots: %u per %s", d->max_work_groups_per_core, d->core_name);
            break;
        case OCC_RES_BARRIERS:
            put(t, "barriers: %u per %s", d->barriers_per_core, d->core_name);
            break;
        }
    }
}

/* "7 work-groups x 16 contexts fill all 112 contexts of each Xe-core" */
static void put_core(text *t, const occ_device_desc *d, const occ_advice *a)
{
    put(t, "%u work-group%s x %u context%s ", a->resident_wgs, s_(a->resident_wgs),
        a->contexts_per_wg, s_(a->contexts_per_wg));
    if (a->contexts_used == a->contexts_per_core)
        put(t, "fill all %u contexts of each %s", a->contexts_per_core, d->core_name);
    else
        put(t, "use %u of %u contexts per %s (%.1f %%)", a->contexts_used, a->contexts_per_core,
            d->core_name, a->occupancy * 100.0);
    if (a->cluster_capped)
        put(t, ", a cluster launch's most");
}

static void put_run(text *t, const occ_advice *a)
{
    if (!a->waves)
        return;
    put(t, "%.1f %% over the run (%llu wave%s", a->gpu_occupancy * 100.0,
        (unsigned long long)a->waves, s_(a->waves));
    if (a->waves > 1 && a->last_wave_occupancy + 1e-12 < a->occupancy)
        put(t, ", the last %.0f %% full", a->last_wave_occupancy * 100.0);
    else if (a->waves == 1 && a->last_wave_occupancy + 1e-12 < a->occupancy)
        put(t, ", %.0f %% full", a->last_wave_occupancy * 100.0);
    put(t, ")");
}

static const char *ahead_on(occ_why w)
{
    switch (w) {
    case OCC_WHY_CORE_OCCUPANCY: return "per-core occupancy";
    case OCC_WHY_GPU_OCCUPANCY: return "the tail wave";
    case OCC_WHY_LANES: return "busy SIMD lanes";
    case OCC_WHY_WAVES: return "fewer waves";
    case OCC_WHY_WORK_GROUPS: return "larger work-groups (fewer to dispatch)";
    case OCC_WHY_SUB_GROUP: return "the smaller sub-group";
    case OCC_WHY_GRF: return "more thread contexts (GRF mode)";
    default: return NULL;
    }
}

static bool same_config(const occ_advice *a, const occ_advice *b)
{
    return a->wg_size == b->wg_size && a->sub_group == b->sub_group && a->grf == b->grf;
}

static void explain_best(text *t, const occ_device_desc *d, const occ_advice *a)
{
    put(t, "best: ");
    put_core(t, d, a);
    if (a->waves) {
        put(t, "; ");
        put_run(t, a);
    }
    if (a->lane_utilization < 1.0 - 1e-12)
        put(t, "; %.0f %% of SIMD lanes busy (partial sub-groups)", a->lane_utilization * 100.0);
    const char *on = ahead_on(a->why);
    if (a->why == OCC_WHY_ONLY)
        put(t, "; the only valid configuration");
    else if (on)
        put(t, "; ahead of the next on %s", on);
}

static void explain_loss(text *t, const occ_device_desc *d, const occ_advice *a, const occ_advice *b)
{
    switch (a->why) {
    case OCC_WHY_CORE_OCCUPANCY:
        put(t, "%.1f %% per %s: %u work-group%s x %u context%s", a->occupancy * 100.0, d->core_name,
            a->resident_wgs, s_(a->resident_wgs), a->contexts_per_wg, s_(a->contexts_per_wg));
        if (a->contexts_used < a->contexts_per_core) {
            uint32_t left = a->contexts_per_core - a->contexts_used;
            if (a->limited_by & (1u << OCC_RES_THREADS))
                put(t, ", the %u left cannot hold another", left);
            else
                put(t, ", %u context%s idle", left, s_(left));
        }
        put(t, " (");
        put_limits(t, d, a);
        put(t, ")");
        break;
    case OCC_WHY_GPU_OCCUPANCY:
        if (a->occupancy >= b->occupancy - 1e-12)
            put(t, "%s %.1f %% per %s, but ", a->occupancy > b->occupancy + 1e-12 ? "higher:" : "same",
                a->occupancy * 100.0, d->core_name);
        put(t, "%.1f %% over the run vs %.1f %%: %llu wave%s of up to %llu work-group%s",
            a->gpu_occupancy * 100.0, b->gpu_occupancy * 100.0, (unsigned long long)a->waves,
            s_(a->waves), (unsigned long long)d->cores * a->resident_wgs,
            s_((uint64_t)d->cores * a->resident_wgs));
        if (a->last_wave_occupancy + 1e-12 < a->occupancy)
            put(t, ", the last %.0f %% full", a->last_wave_occupancy * 100.0);
        break;
    case OCC_WHY_LANES:
        put(t, "partial sub-groups: %llu work-item%s in %u x %u lanes, %.0f %% of SIMD lanes busy",
            (unsigned long long)a->wg_size, s_(a->wg_size), a->contexts_per_wg, a->sub_group,
            a->lane_utilization * 100.0);
        break;
    case OCC_WHY_WAVES:
        put(t, "same occupancy in %llu wave%s vs %llu", (unsigned long long)a->waves, s_(a->waves),
            (unsigned long long)b->waves);
        break;
    case OCC_WHY_WORK_GROUPS:
        if (a->work_groups && b->work_groups && a->work_groups != b->work_groups)
            put(t, "same occupancy with smaller work-groups: %llu to dispatch vs %llu",
                (unsigned long long)a->work_groups, (unsigned long long)b->work_groups);
        else
            put(t, "same occupancy with smaller work-groups (%llu vs %llu work-items)",
                (unsigned long long)a->wg_size, (unsigned long long)b->wg_size);
        break;
    case OCC_WHY_SUB_GROUP:
        put(t, "same occupancy with sub-group %u vs %u: more registers per work-item, longer latency",
            a->sub_group, b->sub_group);
        break;
    case OCC_WHY_GRF:
        put(t, "same occupancy in the %u-register GRF mode: %u thread contexts per %s vs %u", a->grf,
            a->contexts_per_core, d->core_name, b->contexts_per_core);
        break;
    case OCC_WHY_TIE:
        put(t, "equal to the best on every score");
        break;
    default:
        put(t, "the only valid configuration");
    }
}

size_t occ_advice_explain(const occ_device *dev, const occ_advice *a, const occ_advice *best,
                          char *buf, size_t size)
{
    if (!dev || !a || (!buf && size))
        return 0;
    text t = {.buf = buf, .size = size, .len = 0};
    if (size)
        buf[0] = '\0';
    const occ_device_desc *d = &dev->desc;
    if (!best || same_config(a, best))
        explain_best(&t, d, a);
    else
        explain_loss(&t, d, a, best);
    return t.len;
}
