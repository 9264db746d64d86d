/* Invariants of the model over many random configurations on every built-in
 * profile (deterministic seeds: a failure names the seed and the kernel and
 * reproduces on every machine). */
#include <math.h>
#include <pthread.h>
#include <string.h>

#include "test_common.h"

#define KERNELS_PER_DEVICE 4000
#define NEXT_STEP_KERNELS_PER_DEVICE 600

static char kdesc[256];
static const char *describe(const occ_device_desc *d, const occ_kernel *k)
{
    snprintf(kdesc, sizeof kdesc, "%s wg=%ux%ux%u sg=%u slm=%llu barrier=%d grf=%u regs=%u carveout=%d",
             d->name, k->wg[0], k->wg[1], k->wg[2], k->sub_group, (unsigned long long)k->slm_bytes,
             k->barrier, k->grf, k->regs_per_thread, (int)k->carveout_pct);
    return kdesc;
}

#define EXPECT(cond, ...)                                                                          \
    do {                                                                                           \
        if (!(cond))                                                                               \
            ck_abort_msg("%s: %s fails for %s", __func__, #cond, describe(d, &k));                 \
    } while (0)

/* The residency result is consistent with itself and with the description. */
static void check_result(const occ_device_desc *d, occ_kernel k, const occ_residency *r)
{
    uint64_t W = (uint64_t)k.wg[0] * k.wg[1] * k.wg[2];
    EXPECT(r->struct_size == sizeof *r);
    EXPECT(r->wg_size == W);
    EXPECT(r->occupancy >= 0.0 && r->occupancy <= 1.0);
    if (!r->launchable) {
        EXPECT(r->reason != OCC_REASON_NONE && r->reason < OCC_REASON_COUNT);
        EXPECT(r->resident_wgs == 0 && r->occupancy == 0.0 && r->contexts_used == 0);
        return;
    }
    EXPECT(r->reason == OCC_REASON_NONE);
    EXPECT(W <= d->max_work_group_size);
    EXPECT(r->sub_group == (k.sub_group ? k.sub_group : d->sub_group_sizes[0]));
    EXPECT(r->contexts_per_wg == (W + r->sub_group - 1) / r->sub_group);
    EXPECT(r->contexts_per_core == occ_desc_contexts_per_core(d, r->grf));
    EXPECT(r->contexts_per_core > 0);
    EXPECT(k.grf == 0 ? r->grf == d->default_grf : r->grf >= k.grf);
    uint32_t min = UINT32_MAX, mask = 0;
    for (int i = 0; i < OCC_RES_COUNT; i++) {
        EXPECT(r->resident_wgs <= r->limits[i]);
        if (r->limits[i] < min)
            min = r->limits[i];
    }
    for (int i = 0; i < OCC_RES_COUNT; i++)
        if (r->limits[i] == min)
            mask |= 1u << i;
    EXPECT(r->resident_wgs == min);
    EXPECT(r->limited_by == mask);
    EXPECT(r->resident_wgs >= 1);
    EXPECT(r->limits[OCC_RES_THREADS] == r->contexts_per_core / r->contexts_per_wg);
    if (d->vendor == OCC_VENDOR_AMD) { /* slots for work-groups of more than one wave; no barrier count */
        EXPECT(r->limits[OCC_RES_WG_SLOTS] == (r->contexts_per_wg > 1 ? d->max_work_groups_per_core : OCC_NO_LIMIT));
        EXPECT(r->limits[OCC_RES_BARRIERS] == OCC_NO_LIMIT);
    } else {
        EXPECT(r->limits[OCC_RES_WG_SLOTS] == d->max_work_groups_per_core);
        EXPECT(r->limits[OCC_RES_BARRIERS] == (k.barrier ? d->barriers_per_core : OCC_NO_LIMIT));
    }
    EXPECT((r->limits[OCC_RES_SLM] == OCC_NO_LIMIT) == (r->slm_per_wg_alloc == 0));
    EXPECT(r->slm_per_wg_alloc >= k.slm_bytes + d->slm_reserved_per_work_group);
    EXPECT(r->slm_per_wg_alloc == 0 || r->slm_per_wg_alloc <= r->slm_core_config);
    EXPECT(r->slm_core_config <= d->slm_per_core);
    if (r->slm_per_wg_alloc)
        EXPECT(r->limits[OCC_RES_SLM] == r->slm_core_config / r->slm_per_wg_alloc);
    EXPECT((r->limits[OCC_RES_REGISTERS] == OCC_NO_LIMIT) ==
           (!d->has_register_file || k.regs_per_thread == 0));
    EXPECT(r->contexts_used == r->resident_wgs * r->contexts_per_wg);
    EXPECT(r->contexts_used <= r->contexts_per_core);
    EXPECT(r->contexts_idle == r->contexts_per_core - r->contexts_used);
    EXPECT(fabs(r->occupancy - (double)r->contexts_used / r->contexts_per_core) < 1e-15);
    EXPECT(r->occupancy > 0.0);
}

/* Changing one input in the direction that uses more of a resource never
 * raises residency. */
static void check_monotone(const occ_device *dev, tc_rng *rng, occ_kernel k)
{
    const occ_device_desc *d = occ_device_describe(dev);
    uint32_t base = tc_resident(dev, &k);
    occ_kernel m;

    m = k; /* more local memory */
    m.slm_bytes += tc_range(rng, 1, d->slm_max_per_work_group / 4 + 1);
    EXPECT(tc_resident(dev, &m) <= base);
    m.slm_bytes = k.slm_bytes + 1;
    EXPECT(tc_resident(dev, &m) <= base);

    m = k; /* more registers */
    m.regs_per_thread += (uint32_t)tc_range(rng, 1, 64);
    EXPECT(tc_resident(dev, &m) <= base);
    m.regs_per_thread = k.regs_per_thread + 1;
    EXPECT(tc_resident(dev, &m) <= base);

    m = k; /* a larger work-group, in any dimension */
    int dim = (int)tc_range(rng, 0, 2);
    m.wg[dim] += (uint32_t)tc_range(rng, 1, 64);
    EXPECT(tc_resident(dev, &m) <= base);
    m = k;
    m.wg[0] += 1;
    EXPECT(tc_resident(dev, &m) <= base);

    m = k; /* a barrier */
    m.barrier = true;
    EXPECT(tc_resident(dev, &m) <= base);
    m.barrier = false;
    EXPECT(tc_resident(dev, &m) >= base);

    /* a larger GRF mode (fewer or as many threads) */
    for (uint32_t i = 0; i + 1 < d->n_grf_modes; i++) {
        m = k;
        m.grf = d->grf_modes[i].registers;
        uint32_t smaller = tc_resident(dev, &m);
        m.grf = d->grf_modes[i + 1].registers;
        EXPECT(tc_resident(dev, &m) <= smaller);
    }

    /* a larger carveout never lowers it; the default is the maximum */
    if (d->n_carveouts && k.carveout_pct >= 0 && k.carveout_pct < 100) {
        m = k;
        m.carveout_pct = k.carveout_pct + (int32_t)tc_range(rng, 1, (uint64_t)(100 - k.carveout_pct));
        EXPECT(tc_resident(dev, &m) >= base);
    }
    m = k;
    m.carveout_pct = -1;
    uint32_t dflt = tc_resident(dev, &m);
    m.carveout_pct = 100;
    EXPECT(tc_resident(dev, &m) == dflt);
}

START_TEST(random_configurations)
{
    const char *name = occ_builtin_name((size_t)_i);
    occ_device *dev = tc_builtin(name);
    const occ_device_desc *d = occ_device_describe(dev);
    tc_rng rng = {0x5eed0000u + (uint64_t)_i};
    unsigned launchable = 0, not_launchable = 0, limited[OCC_RES_COUNT] = {0};
    for (int n = 0; n < KERNELS_PER_DEVICE; n++) {
        occ_kernel k = tc_random_kernel(&rng, d);
        occ_residency r = tc_residency(dev, &k);
        check_result(d, k, &r);
        /* the reason in words exists exactly when the kernel cannot launch */
        char why[256];
        size_t why_len = occ_residency_reason(dev, &k, why, sizeof why);
        EXPECT(r.launchable ? why_len == 0 && why[0] == '\0' : why_len > 0 && strlen(why) == why_len);
        check_monotone(dev, &rng, k);
        if (r.launchable) {
            launchable++;
            for (int i = 0; i < OCC_RES_COUNT; i++)
                limited[i] += (r.limited_by >> i) & 1;
        } else {
            not_launchable++;
        }
    }
    /* the generator reaches both outcomes and the main limiters */
    ck_assert_uint_gt(launchable, KERNELS_PER_DEVICE / 4);
    ck_assert_uint_gt(not_launchable, 10);
    ck_assert_uint_gt(limited[OCC_RES_THREADS], 0);
    ck_assert_uint_gt(limited[OCC_RES_SLM], 0);
    if (d->has_register_file)
        ck_assert_uint_gt(limited[OCC_RES_REGISTERS], 0);
    occ_device_free(dev);
}
END_TEST

START_TEST(batch_equals_one_by_one)
{
    occ_device *dev = tc_builtin(occ_builtin_name((size_t)_i));
    const occ_device_desc *d = occ_device_describe(dev);
    tc_rng rng = {0xba7c4u + (uint64_t)_i};
    enum { NB = 257 };
    static occ_kernel ks[NB];
    static occ_residency batch[NB];
    for (int round = 0; round < 8; round++) {
        for (int i = 0; i < NB; i++)
            ks[i] = tc_random_kernel(&rng, d);
        memset(batch, 0xa5, sizeof batch); /* stale contents must be overwritten */
        ck_assert_int_eq(occ_residency_batch(dev, ks, batch, NB), OCC_OK);
        for (int i = 0; i < NB; i++) {
            occ_residency one; /* computed in place: memcmp below sees padding too */
            ck_assert_int_eq(occ_residency_compute(dev, &ks[i], &one), OCC_OK);
            occ_kernel k = ks[i];
            EXPECT(one.launchable == batch[i].launchable);
            EXPECT(one.resident_wgs == batch[i].resident_wgs);
            EXPECT(memcmp(one.limits, batch[i].limits, sizeof one.limits) == 0);
            EXPECT(one.occupancy == batch[i].occupancy);
            EXPECT(memcmp(&one, &batch[i], sizeof one) == 0);
        }
    }
    ck_assert_int_eq(occ_residency_batch(dev, NULL, NULL, 0), OCC_OK);
    occ_device_free(dev);
}
END_TEST

/* Apply a next step to a kernel. */
static occ_kernel apply(occ_kernel k, const occ_next_step *s, uint64_t value)
{
    switch (s->input) {
    case OCC_INPUT_WG_SIZE:
        k.wg[0] = (uint32_t)value;
        k.wg[1] = k.wg[2] = 1;
        break;
    case OCC_INPUT_SUB_GROUP: k.sub_group = (uint32_t)value; break;
    case OCC_INPUT_SLM: k.slm_bytes = value; break;
    case OCC_INPUT_GRF: k.grf = (uint32_t)value; break;
    case OCC_INPUT_REGISTERS: k.regs_per_thread = (uint32_t)value; break;
    case OCC_INPUT_CARVEOUT: k.carveout_pct = (int32_t)value; break;
    case OCC_INPUT_BARRIER: k.barrier = false; break;
    default: ck_abort_msg("unknown input %d", s->input);
    }
    return k;
}

/* Next steps: each one, applied, gives the residency it promises, which beats
 * the current one; it is the smallest such change of its input; the list is
 * ordered by occupancy; and no input that could help alone is missing. */
/* What occ_next_steps promises: more resident work-groups and strictly more
 * occupancy (a step's line names the occupancy it reaches). */
static bool step_helps(const occ_device *dev, const occ_kernel *m, const occ_residency *cur,
                       uint32_t base)
{
    occ_residency after = tc_residency(dev, m);
    return after.launchable && after.resident_wgs > base &&
           (!cur->launchable || after.occupancy > cur->occupancy);
}

START_TEST(next_steps_really_help)
{
    occ_device *dev = tc_builtin(occ_builtin_name((size_t)_i));
    const occ_device_desc *d = occ_device_describe(dev);
    tc_rng rng = {0x57e9u + (uint64_t)_i};
    unsigned with_steps = 0;
    for (int n = 0; n < NEXT_STEP_KERNELS_PER_DEVICE; n++) {
        occ_kernel k = tc_random_kernel(&rng, d);
        if (n % 4 == 1) /* a launch bound: no step may cross it */
            k.max_wg_size = (uint32_t)tc_range(&rng, 1, d->max_work_group_size);
        else if (n % 8 == 3) /* the sub-group the kernel requires: no sub-group step */
            k.reqd_sub_group = d->sub_group_sizes[tc_range(&rng, 0, d->n_sub_group_sizes - 1)];
        occ_residency cur = tc_residency(dev, &k);
        uint32_t base = cur.launchable ? cur.resident_wgs : 0;
        occ_next_step steps[OCC_INPUT_COUNT];
        size_t ns = occ_next_steps(dev, &k, steps, OCC_INPUT_COUNT);
        EXPECT(ns <= OCC_INPUT_COUNT);
        if (cur.launchable && cur.occupancy >= 1.0)
            EXPECT(ns == 0);
        bool seen[OCC_INPUT_COUNT] = {false};
        for (size_t i = 0; i < ns; i++) {
            const occ_next_step *s = &steps[i];
            EXPECT(!seen[s->input]); /* one step per input */
            seen[s->input] = true;
            occ_kernel m = apply(k, s, s->value);
            occ_residency after = tc_residency(dev, &m);
            EXPECT(after.launchable);
            EXPECT(after.resident_wgs > base);
            EXPECT(!cur.launchable || after.occupancy > cur.occupancy); /* what it claims, raised */
            EXPECT(after.resident_wgs == s->resident_wgs);
            EXPECT(fabs(after.occupancy - s->occupancy) < 1e-12);
            if (i)
                EXPECT(steps[i - 1].occupancy >= s->occupancy);
            /* smallest change: one unit less of a change does not help */
            uint64_t W = occ_kernel_wg_size(&k);
            if (s->input == OCC_INPUT_WG_SIZE) {
                EXPECT(s->at_most && s->value < W);
                if (s->value + 1 < W && s->value + 1 <= d->max_work_group_size) {
                    m = apply(k, s, s->value + 1);
                    EXPECT(!step_helps(dev, &m, &cur, base));
                }
            } else if (s->input == OCC_INPUT_SLM) {
                EXPECT(s->at_most && s->value < k.slm_bytes);
                if (s->value + 1 < k.slm_bytes) {
                    m = apply(k, s, s->value + 1);
                    EXPECT(!step_helps(dev, &m, &cur, base));
                }
            } else if (s->input == OCC_INPUT_REGISTERS) {
                EXPECT(s->at_most && s->value < k.regs_per_thread);
                if (s->value + 1 < k.regs_per_thread) {
                    m = apply(k, s, s->value + 1);
                    EXPECT(!step_helps(dev, &m, &cur, base));
                }
            } else if (s->input == OCC_INPUT_CARVEOUT) {
                EXPECT(k.carveout_pct >= 0 && (int64_t)s->value > k.carveout_pct);
                if ((int64_t)s->value - 1 > k.carveout_pct) {
                    m = apply(k, s, s->value - 1);
                    EXPECT(!step_helps(dev, &m, &cur, base));
                }
            }
        }
        with_steps += ns > 0;
        if (cur.launchable && cur.occupancy >= 1.0)
            continue; /* every context busy: more work-groups would not raise occupancy */
        /* completeness: an input whose most favourable value helps has a step */
        occ_kernel m;
        if (k.slm_bytes) {
            m = k;
            m.slm_bytes = 0;
            EXPECT(!step_helps(dev, &m, &cur, base) || seen[OCC_INPUT_SLM]);
        }
        if (k.barrier) {
            m = k;
            m.barrier = false;
            EXPECT(!step_helps(dev, &m, &cur, base) || seen[OCC_INPUT_BARRIER]);
        }
        if (d->has_register_file && k.regs_per_thread > 1) {
            m = k;
            m.regs_per_thread = 1;
            EXPECT(!step_helps(dev, &m, &cur, base) || seen[OCC_INPUT_REGISTERS]);
        }
        if (occ_kernel_wg_size(&k) > 1) {
            m = k;
            m.wg[0] = 1, m.wg[1] = m.wg[2] = 1;
            EXPECT(!step_helps(dev, &m, &cur, base) || seen[OCC_INPUT_WG_SIZE]);
        }
        if (d->n_carveouts && k.carveout_pct >= 0) {
            m = k;
            m.carveout_pct = 100;
            EXPECT(!step_helps(dev, &m, &cur, base) || seen[OCC_INPUT_CARVEOUT]);
        }
        for (uint32_t g = 0; g < d->n_grf_modes; g++) {
            m = k;
            m.grf = d->grf_modes[g].registers;
            if (m.grf < cur.grf)
                EXPECT(!step_helps(dev, &m, &cur, base) || seen[OCC_INPUT_GRF]);
        }
        for (uint32_t g = 0; g < d->n_sub_group_sizes; g++) {
            m = k;
            m.sub_group = d->sub_group_sizes[g];
            if (m.sub_group > cur.sub_group || cur.reason == OCC_REASON_SUB_GROUP)
                EXPECT(!step_helps(dev, &m, &cur, base) || seen[OCC_INPUT_SUB_GROUP]);
        }
        /* cap limits what is written, not what is counted */
        occ_next_step one;
        EXPECT(occ_next_steps(dev, &k, &one, 1) == ns);
        if (ns) /* field by field: the struct has padding */
            EXPECT(one.input == steps[0].input && one.value == steps[0].value &&
                   one.at_most == steps[0].at_most && one.resident_wgs == steps[0].resident_wgs &&
                   one.occupancy == steps[0].occupancy);
        EXPECT(occ_next_steps(dev, &k, NULL, 0) == ns);
    }
    ck_assert_uint_gt(with_steps, NEXT_STEP_KERNELS_PER_DEVICE / 4);
    occ_device_free(dev);
}
END_TEST

/* Whole GPU: waves partition the work-groups, the average lies between the
 * last and the full wave's occupancy, the calculator's figure never exceeds it. */
/* Next steps of launches in clusters (every built-in with GPC data): judged
 * under the cluster cap.  Each step, applied, reaches the occupancy it names
 * in the cluster launch, above the current one; where the cap binds, a larger
 * work-group is offered exactly when one helps, and it is the smallest whole
 * number of sub-groups that reaches the most any larger one does. */
static double cluster_occupancy(const occ_device *dev, const occ_kernel *k, uint32_t *wgs)
{
    occ_clusters c;
    bool ok = occ_cluster_compute(dev, k, &c, NULL) == OCC_OK;
    *wgs = ok ? c.work_groups_per_core : 0;
    return ok ? c.occupancy : 0.0;
}

START_TEST(next_steps_in_clusters)
{
    unsigned devices = 0, raised = 0;
    for (size_t di = 0; di < occ_builtin_count(); di++) {
        occ_device *dev = tc_builtin(occ_builtin_name(di));
        const occ_device_desc *d = occ_device_describe(dev);
        if (!d->n_gpcs) {
            occ_device_free(dev);
            continue;
        }
        devices++;
        tc_rng rng = {0xc1u + di};
        for (int n = 0; n < NEXT_STEP_KERNELS_PER_DEVICE; n++) {
            occ_kernel k = tc_random_kernel(&rng, d);
            k.cluster[0] = (uint32_t)tc_range(&rng, 1, d->cluster_max_size);
            uint32_t base;
            double cur = cluster_occupancy(dev, &k, &base);
            occ_residency r = tc_residency(dev, &k);
            occ_next_step steps[OCC_INPUT_COUNT];
            size_t ns = occ_next_steps(dev, &k, steps, OCC_INPUT_COUNT);
            if (base && cur >= 1.0)
                EXPECT(ns == 0);
            bool raise = false;
            for (size_t i = 0; i < ns; i++) {
                occ_kernel m = apply(k, &steps[i], steps[i].value);
                uint32_t wgs;
                double after = cluster_occupancy(dev, &m, &wgs);
                EXPECT(wgs == steps[i].resident_wgs && fabs(after - steps[i].occupancy) < 1e-12);
                EXPECT(wgs && (!base || after > cur));
                if (steps[i].input == OCC_INPUT_WG_SIZE && !steps[i].at_most) {
                    raise = true;
                    EXPECT(base && base < r.resident_wgs); /* only where the cap binds */
                    EXPECT(steps[i].value > occ_kernel_wg_size(&k) && steps[i].value % r.sub_group == 0);
                }
            }
            if (!base || base >= r.resident_wgs || cur >= 1.0)
                continue;
            /* the cap binds: brute force over larger whole sub-groups */
            uint64_t best = 0;
            double best_occ = cur;
            uint64_t top = k.max_wg_size && k.max_wg_size < d->max_work_group_size ? k.max_wg_size
                                                                                   : d->max_work_group_size;
            for (uint64_t w = (occ_kernel_wg_size(&k) / r.sub_group + 1) * r.sub_group; w <= top; w += r.sub_group) {
                occ_kernel m = k;
                m.wg[0] = (uint32_t)w, m.wg[1] = m.wg[2] = 1;
                uint32_t wgs;
                double o = cluster_occupancy(dev, &m, &wgs);
                if (wgs && o > best_occ)
                    best = w, best_occ = o;
            }
            EXPECT(raise == (best != 0));
            for (size_t i = 0; best && i < ns; i++)
                if (steps[i].input == OCC_INPUT_WG_SIZE && !steps[i].at_most)
                    EXPECT(steps[i].value == best);
            raised += raise;
        }
        occ_device_free(dev);
    }
    ck_assert_uint_gt(devices, 0);
    ck_assert_uint_gt(raised, 10);
}
END_TEST

START_TEST(gpu_waves)
{
    occ_device *dev = tc_builtin(occ_builtin_name((size_t)_i));
    const occ_device_desc *d = occ_device_describe(dev);
    tc_rng rng = {0x6a7e5u + (uint64_t)_i};
    unsigned checked = 0;
    for (int n = 0; n < KERNELS_PER_DEVICE; n++) {
        occ_kernel k = tc_random_kernel(&rng, d);
        occ_residency r = tc_residency(dev, &k);
        occ_gpu g;
        uint64_t N = tc_range(&rng, 0, 3) == 0 ? tc_range(&rng, 1, UINT64_MAX / 2)
                                                : tc_range(&rng, 1, 20ull * d->cores * 64);
        occ_status st = occ_gpu_compute(dev, &r, N, &g);
        if (!r.launchable) {
            EXPECT(st == OCC_ERR_UNSUPPORTED);
            continue;
        }
        EXPECT(st == OCC_OK);
        EXPECT(occ_gpu_compute(dev, &r, 0, &g) == OCC_ERR_INVALID_ARGUMENT);
        st = occ_gpu_compute(dev, &r, N, &g);
        uint64_t cap = (uint64_t)d->cores * r.resident_wgs;
        EXPECT(g.struct_size == sizeof g);
        EXPECT(g.work_groups == N);
        EXPECT(g.wave_capacity == cap);
        EXPECT(g.waves == N / cap + (N % cap != 0));
        EXPECT(g.full_waves == N / cap);
        EXPECT(g.last_wave_work_groups == (N % cap ? N % cap : cap));
        EXPECT(g.contexts_total == (uint64_t)d->cores * r.contexts_per_core);
        EXPECT(N > UINT64_MAX / r.contexts_per_wg || g.contexts_needed == N * r.contexts_per_wg);
        EXPECT(fabs(g.full_wave_occupancy - r.occupancy) < 1e-12);
        EXPECT(g.last_wave_occupancy <= g.full_wave_occupancy + 1e-15);
        EXPECT(g.last_wave_occupancy > 0.0);
        EXPECT(g.average_occupancy >= g.last_wave_occupancy - 1e-12);
        EXPECT(g.average_occupancy <= g.full_wave_occupancy + 1e-12);
        double weighted = ((double)(g.waves - 1) * g.full_wave_occupancy + g.last_wave_occupancy) / (double)g.waves;
        EXPECT(fabs(g.average_occupancy - weighted) < 1e-12);
        double calc = N < cap    ? g.full_wave_occupancy * (double)N / (double)cap
                      : N % cap ? g.full_wave_occupancy * (double)g.full_waves / (double)(g.full_waves + 1)
                                : g.full_wave_occupancy;
        EXPECT(fabs(g.intel_calculator_occupancy - calc) < 1e-12);
        EXPECT(g.intel_calculator_occupancy <= g.average_occupancy + 1e-12);
        EXPECT(g.average_occupancy >= 0.0 && g.average_occupancy <= 1.0);
        checked++;
    }
    ck_assert_uint_gt(checked, KERNELS_PER_DEVICE / 4);
    occ_device_free(dev);
}
END_TEST

/* Bad arguments are reported, never crash. */
START_TEST(invalid_arguments)
{
    occ_device *dev = tc_builtin("tgl");
    occ_kernel k = tc_kernel(64, 8);
    occ_residency r;
    ck_assert_int_eq(occ_residency_compute(NULL, &k, &r), OCC_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(occ_residency_compute(dev, NULL, &r), OCC_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(occ_residency_compute(dev, &k, NULL), OCC_ERR_INVALID_ARGUMENT);
    occ_kernel old = k;
    old.struct_size = 4; /* a caller built against a smaller struct */
    ck_assert_int_eq(occ_residency_compute(dev, &old, &r), OCC_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(occ_residency_batch(dev, &old, &r, 1), OCC_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(occ_residency_batch(dev, NULL, &r, 1), OCC_ERR_INVALID_ARGUMENT);
    ck_assert_uint_eq(occ_next_steps(NULL, &k, NULL, 0), 0);
    r = tc_residency(dev, &k);
    occ_gpu g;
    ck_assert_int_eq(occ_gpu_compute(NULL, &r, 1, &g), OCC_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(occ_gpu_compute(dev, &r, 1, NULL), OCC_ERR_INVALID_ARGUMENT);
    /* a zero-sized work-group is a result, not an error */
    k.wg[1] = 0;
    r = tc_residency(dev, &k);
    ck_assert(!r.launchable);
    ck_assert_int_eq(r.reason, OCC_REASON_WG_ZERO);
    /* a work-group past 2^32 work-items does not wrap around */
    k = tc_kernel(65536, 8);
    k.wg[1] = 65536;
    r = tc_residency(dev, &k);
    ck_assert(!r.launchable);
    ck_assert_int_eq(r.reason, OCC_REASON_WG_TOO_LARGE);
    ck_assert_uint_eq(r.wg_size, 1ull << 32);
    occ_device_free(dev);
}
END_TEST

/* Several threads on one shared device get the single-threaded answers. */
typedef struct worker {
    const occ_device *dev;
    const occ_kernel *ks;
    occ_residency *rs;
    size_t n;
} worker;

static void *work(void *arg)
{
    worker *w = arg;
    for (int rep = 0; rep < 4; rep++)
        for (size_t i = 0; i < w->n; i++)
            occ_residency_compute(w->dev, &w->ks[i], &w->rs[i]);
    return NULL;
}

START_TEST(shared_device_threads)
{
    enum { NT = 4, NK = 2000 };
    occ_device *dev = tc_builtin("h100-sxm");
    const occ_device_desc *d = occ_device_describe(dev);
    static occ_kernel ks[NK];
    static occ_residency ref[NK], out[NT][NK];
    tc_rng rng = {42};
    for (int i = 0; i < NK; i++) {
        ks[i] = tc_random_kernel(&rng, d);
        ck_assert_int_eq(occ_residency_compute(dev, &ks[i], &ref[i]), OCC_OK);
    }
    pthread_t th[NT];
    worker w[NT];
    for (int t = 0; t < NT; t++) {
        w[t] = (worker){dev, ks, out[t], NK};
        ck_assert_int_eq(pthread_create(&th[t], NULL, work, &w[t]), 0);
    }
    for (int t = 0; t < NT; t++)
        pthread_join(th[t], NULL);
    for (int t = 0; t < NT; t++)
        ck_assert(memcmp(out[t], ref, sizeof ref) == 0);
    occ_device_free(dev);
}
END_TEST

static Suite *invariants_suite(void)
{
    Suite *s = suite_create("invariants");
    int n = (int)occ_builtin_count();
    TCase *tc = tcase_create("random");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, random_configurations, 0, n);
    tcase_add_loop_test(tc, batch_equals_one_by_one, 0, n);
    tcase_add_loop_test(tc, next_steps_really_help, 0, n);
    tcase_add_test(tc, next_steps_in_clusters);
    tcase_add_loop_test(tc, gpu_waves, 0, n);
    suite_add_tcase(s, tc);
    tc = tcase_create("api");
    tcase_add_test(tc, invalid_arguments);
    tcase_add_test(tc, shared_device_threads);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tc_run(invariants_suite()); }
