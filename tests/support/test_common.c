#include "test_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

occ_device *tc_builtin(const char *name)
{
    occ_device *dev = NULL;
    occ_diag diag;
    memset(&diag, 0, sizeof diag);
    occ_status st = occ_device_builtin(name, &dev, &diag);
    ck_assert_msg(st == OCC_OK && dev, "built-in '%s' does not load: %s %s", name,
                  occ_status_name(st), diag.message);
    return dev;
}

char *tc_yaml_of(const occ_device *dev, const char *evidence, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    ck_assert(f != NULL);
    ck_assert_int_eq(occ_device_write_yaml(occ_device_describe(dev), NULL, 0, evidence, f), OCC_OK);
    ck_assert_int_eq(fclose(f), 0);
    return buf;
}

occ_kernel tc_kernel(uint32_t W, uint32_t S)
{
    occ_kernel k;
    occ_kernel_init(&k);
    k.wg[0] = W;
    k.sub_group = S;
    return k;
}

occ_residency tc_residency(const occ_device *dev, const occ_kernel *k)
{
    occ_residency r;
    occ_status st = occ_residency_compute(dev, k, &r);
    if (st != OCC_OK) /* not ck_assert: it records a mark point per call, slow in hot loops */
        ck_abort_msg("occ_residency_compute: %s", occ_status_name(st));
    return r;
}

uint32_t tc_resident(const occ_device *dev, const occ_kernel *k)
{
    occ_residency r = tc_residency(dev, k);
    return r.launchable ? r.resident_wgs : 0;
}

uint64_t tc_next(tc_rng *r)
{
    uint64_t z = (r->state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

uint64_t tc_range(tc_rng *r, uint64_t lo, uint64_t hi)
{
    uint64_t span = hi - lo + 1;
    return span == 0 ? tc_next(r) : lo + tc_next(r) % span;
}

occ_kernel tc_random_kernel(tc_rng *r, const occ_device_desc *d)
{
    occ_kernel k;
    occ_kernel_init(&k);
    uint64_t p = tc_range(r, 0, 99);
    uint32_t maxwg = d->max_work_group_size;
    if (p < 70) { /* 1-D, sometimes a little over the maximum */
        k.wg[0] = (uint32_t)tc_range(r, 1, maxwg + maxwg / 8);
    } else if (p < 90) { /* 2-D */
        k.wg[0] = (uint32_t)tc_range(r, 1, 64);
        k.wg[1] = (uint32_t)tc_range(r, 1, 32);
    } else { /* 3-D */
        k.wg[0] = (uint32_t)tc_range(r, 1, 16);
        k.wg[1] = (uint32_t)tc_range(r, 1, 16);
        k.wg[2] = (uint32_t)tc_range(r, 1, 8);
    }
    p = tc_range(r, 0, 99);
    if (p < 10)
        k.sub_group = 0;
    else if (p < 92)
        k.sub_group = d->sub_group_sizes[tc_range(r, 0, d->n_sub_group_sizes - 1)];
    else
        k.sub_group = (uint32_t)tc_range(r, 1, 64); /* often unsupported */
    p = tc_range(r, 0, 99);
    if (p < 30)
        k.slm_bytes = 0;
    else if (p < 85)
        k.slm_bytes = tc_range(r, 1, d->slm_max_per_work_group);
    else if (p < 95 && d->n_slm_steps) /* exactly on, or one past, a step */
        k.slm_bytes = d->slm_steps[tc_range(r, 0, d->n_slm_steps - 1)] + tc_range(r, 0, 1);
    else
        k.slm_bytes = tc_range(r, 1, d->slm_max_per_work_group * 2);
    k.barrier = tc_range(r, 0, 1);
    p = tc_range(r, 0, 99);
    if (p < 50)
        k.grf = 0;
    else if (p < 85)
        k.grf = d->grf_modes[tc_range(r, 0, d->n_grf_modes - 1)].registers;
    else
        k.grf = (uint32_t)tc_range(r, 1, 300);
    p = tc_range(r, 0, 99);
    if (p < 20)
        k.regs_per_thread = 0;
    else if (p < 95)
        k.regs_per_thread = (uint32_t)tc_range(r, 1, 255);
    else
        k.regs_per_thread = (uint32_t)tc_range(r, 256, 300);
    p = tc_range(r, 0, 99);
    k.carveout_pct = p < 50 ? -1 : (int32_t)tc_range(r, 0, 100);
    return k;
}

#define SAME(field)                                                                                \
    do {                                                                                           \
        if (memcmp(&a->field, &b->field, sizeof a->field) != 0) {                                  \
            if (what)                                                                              \
                *what = #field;                                                                    \
            return false;                                                                          \
        }                                                                                          \
    } while (0)
#define SAME_STR(field)                                                                            \
    do {                                                                                           \
        if (strcmp(a->field, b->field) != 0) {                                                     \
            if (what)                                                                              \
                *what = #field;                                                                    \
            return false;                                                                          \
        }                                                                                          \
    } while (0)

bool tc_desc_equal(const occ_device_desc *a, const occ_device_desc *b, const char **what)
{
    SAME(struct_size);
    SAME_STR(name);
    SAME_STR(product);
    SAME_STR(architecture);
    SAME(vendor);
    SAME(provisional);
    SAME_STR(core_name);
    SAME_STR(engine_name);
    SAME(cores);
    SAME(engines_per_core);
    SAME(simd_width);
    SAME(n_sub_group_sizes);
    SAME(sub_group_sizes);
    SAME(n_grf_modes);
    for (uint32_t i = 0; i < a->n_grf_modes; i++) {
        SAME(grf_modes[i].registers);
        SAME(grf_modes[i].threads_per_engine);
    }
    SAME(default_grf);
    SAME(max_work_group_size);
    SAME(max_work_groups_per_core);
    SAME(barriers_per_core);
    SAME(barriers_per_core_driver);
    SAME_STR(local_memory_name);
    SAME(slm_per_core);
    SAME(slm_max_per_work_group);
    SAME(slm_reserved_per_work_group);
    SAME(slm_granule);
    SAME(n_slm_steps);
    SAME(slm_steps);
    SAME(n_carveouts);
    SAME(carveouts);
    SAME(has_register_file);
    SAME(regs_per_core);
    SAME(reg_alloc_unit);
    SAME(reg_warp_granularity);
    SAME(reg_max_per_thread);
    SAME(reg_max_per_work_group);
    SAME(reg_partitions);
    SAME(dispatch_order);
    SAME(partial_dispatch);
    return true;
}

int tc_run(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

bool tc_random_launchable(tc_rng *r, const occ_device *dev, occ_kernel *k, occ_residency *res)
{
    for (int i = 0; i < 50; i++) {
        *k = tc_random_kernel(r, occ_device_describe(dev));
        k->barrier = tc_range(r, 0, 1);
        *res = tc_residency(dev, k);
        if (res->launchable && res->resident_wgs > 0)
            return true;
    }
    return false;
}

void tc_random_policies(tc_rng *r, occ_sim_options *o)
{
    o->order = (occ_dispatch_order)tc_range(r, 0, 2);
    o->partial = (occ_partial_policy)tc_range(r, 0, 3);
    o->barrier_split = (occ_barrier_split)tc_range(r, 0, 1);
    o->merge = tc_range(r, 0, 3) ? OCC_MERGE_SAME_CONTEXTS : OCC_MERGE_NONE;
}

void tc_trace_collect(void *user, const occ_chunk *ch)
{
    tc_trace *b = user;
    if (b->n == b->cap) {
        b->cap = b->cap ? 2 * b->cap : 1024;
        b->c = realloc(b->c, b->cap * sizeof *b->c);
        ck_assert_ptr_nonnull(b->c);
    }
    b->c[b->n++] = *ch;
}

void tc_desc_set_cores(occ_device_desc *d, uint32_t cores)
{
    d->cores = cores;
    d->n_gpcs = 0;
    d->cluster_max_work_groups = d->cluster_max_size = d->cluster_max_size_non_portable = 0;
}
