/* The kernel's constraints (occ_kernel's max_wg_size, reqd_wg,
 * reqd_sub_group): a launch outside them is refused by the rule, with the
 * bound in the reason's words, and every answer built on the rule (the
 * prepared kernel, the advisor, sweeps and limits) honours them.  Within
 * them a kernel's answer is the one it has without them. */
#include <string.h>

#include "occ/advise.h"
#include "test_common.h"

static occ_kernel bounded(uint32_t W, uint32_t bound)
{
    occ_kernel k = tc_kernel(W, 32);
    k.max_wg_size = bound;
    return k;
}

START_TEST(launch_bound_refuses_larger_work_groups)
{
    occ_device *dev = tc_builtin("h100-sxm");
    occ_kernel k = bounded(512, 256);
    occ_residency r = tc_residency(dev, &k);
    ck_assert(!r.launchable);
    ck_assert_int_eq(r.reason, OCC_REASON_KERNEL_MAX_WG);
    char why[160];
    occ_residency_reason(dev, &k, why, sizeof why);
    ck_assert_str_eq(why, "work-group of 512 work-items is over the kernel's launch bound 256");
    ck_assert_str_eq(occ_reason_text(OCC_REASON_KERNEL_MAX_WG), "work-group over the kernel's launch bound");
    /* at and below the bound: exactly the answer without it */
    for (uint32_t W = 1; W <= 256; W++) {
        occ_kernel with = bounded(W, 256), without = bounded(W, 0);
        occ_residency a = tc_residency(dev, &with), b = tc_residency(dev, &without);
        ck_assert_msg(memcmp(&a, &b, sizeof a) == 0, "W %u", W);
    }
    /* past the device's maximum the device's refusal comes first */
    k = bounded(2048, 256);
    ck_assert_int_eq(tc_residency(dev, &k).reason, OCC_REASON_WG_TOO_LARGE);
    /* the same through the compact path and the batch */
    occ_kernel ks[2] = {bounded(256, 256), bounded(257, 256)};
    occ_eval e[2];
    ck_assert_int_eq(occ_evaluate_batch(dev, ks, e, 2), OCC_OK);
    ck_assert_uint_gt(e[0].resident_wgs, 0);
    ck_assert_uint_eq(e[1].resident_wgs, 0);
    ck_assert_int_eq(e[1].reason, OCC_REASON_KERNEL_MAX_WG);
    occ_device_free(dev);
}
END_TEST

START_TEST(required_sizes_refuse_every_other)
{
    occ_device *dev = tc_builtin("tgl");
    occ_kernel k = tc_kernel(128, 0);
    k.sub_group = 0;
    k.reqd_wg[0] = 128; /* y and z 0: 1 */
    ck_assert(tc_residency(dev, &k).launchable);
    k.wg[0] = 256;
    occ_residency r = tc_residency(dev, &k);
    ck_assert_int_eq(r.reason, OCC_REASON_REQD_WG);
    char why[160];
    occ_residency_reason(dev, &k, why, sizeof why);
    ck_assert_str_eq(why, "work-group 256x1x1 is not the kernel's required work-group size 128x1x1");
    k.wg[0] = 64, k.wg[1] = 2; /* the same work-items, another shape */
    ck_assert_int_eq(tc_residency(dev, &k).reason, OCC_REASON_REQD_WG);

    /* a required sub-group size is the one used when none is given */
    occ_kernel s = tc_kernel(128, 0);
    s.sub_group = 0;
    s.reqd_sub_group = 16;
    r = tc_residency(dev, &s);
    ck_assert(r.launchable);
    ck_assert_uint_eq(r.sub_group, 16);
    ck_assert_uint_eq(r.contexts_per_wg, 8);
    s.sub_group = 8;
    r = tc_residency(dev, &s);
    ck_assert_int_eq(r.reason, OCC_REASON_REQD_SUB_GROUP);
    occ_residency_reason(dev, &s, why, sizeof why);
    ck_assert_str_eq(why, "sub-group size 8 is not the kernel's required sub-group size 16");
    occ_device_free(dev);
}
END_TEST

/* The prepared kernel keeps its table for a bounded kernel and answers every
 * size as occ_evaluate does. */
START_TEST(prepared_kernel_knows_the_bound)
{
    const char *names[] = {"h100-sxm", "tgl", "max-1550"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        occ_device *dev = tc_builtin(names[i]);
        uint32_t max = occ_device_describe(dev)->max_work_group_size;
        for (uint32_t bound = 1; bound <= max + 8; bound += 37) {
            occ_kernel k = bounded(1, bound);
            k.sub_group = 0;
            k.slm_bytes = 1024;
            occ_prepared *p = NULL;
            ck_assert_int_eq(occ_prepare(dev, &k, &p), OCC_OK);
            for (uint32_t W = 1; W <= max + 8; W++) {
                occ_kernel whole = k;
                whole.wg[0] = W;
                occ_eval want, got;
                ck_assert_int_eq(occ_evaluate(dev, &whole, &want), OCC_OK);
                ck_assert_int_eq(occ_prepared_evaluate(p, W, 1, 1, 0, &got), OCC_OK);
                ck_assert_msg(memcmp(&want, &got, sizeof want) == 0, "%s bound %u W %u", names[i], bound, W);
                ck_assert(W <= bound || got.resident_wgs == 0);
            }
            occ_prepared_free(p);
        }
        occ_device_free(dev);
    }
}
END_TEST

START_TEST(advisor_never_proposes_a_refused_launch)
{
    occ_device *dev = tc_builtin("h100-sxm");
    occ_advise_request q;
    occ_advise_request_init(&q);
    q.regs_per_thread = 32;
    q.max_wg_size = 256;
    occ_advice out[64];
    size_t n = 0;
    ck_assert_int_eq(occ_advise(dev, &q, out, 64, &n, NULL), OCC_OK);
    ck_assert_uint_gt(n, 0);
    for (size_t i = 0; i < n; i++)
        ck_assert_uint_le(out[i].wg_size, 256);
    /* a required size is the only one proposed */
    occ_advise_request_init(&q);
    q.reqd_wg[0] = 96;
    ck_assert_int_eq(occ_advise(dev, &q, out, 64, &n, NULL), OCC_OK);
    ck_assert_uint_eq(n, 1);
    ck_assert_uint_eq(out[0].wg_size, 96);
    occ_device_free(dev);

    dev = tc_builtin("tgl");
    occ_advise_request_init(&q);
    q.reqd_sub_group = 16;
    ck_assert_int_eq(occ_advise(dev, &q, out, 64, &n, NULL), OCC_OK);
    ck_assert_uint_gt(n, 0);
    for (size_t i = 0; i < n; i++)
        ck_assert_uint_eq(out[i].sub_group, 16);
    occ_device_free(dev);
}
END_TEST

START_TEST(sweep_and_limits_stop_at_the_bound)
{
    occ_device *dev = tc_builtin("h100-sxm");
    occ_sweep_request q;
    occ_sweep_request_init(&q);
    q.k = bounded(1, 256);
    q.axis = OCC_AXIS_WG_SIZE;
    occ_sweep_point pts[64];
    size_t n = 0;
    ck_assert_int_eq(occ_sweep(dev, &q, pts, 64, &n), OCC_OK);
    ck_assert_uint_eq(n, 8); /* 32, 64, ..., 256 */
    ck_assert_uint_eq(pts[n - 1].x, 256);
    /* asked past it, the rule refuses */
    q.to = 512;
    ck_assert_int_eq(occ_sweep(dev, &q, pts, 64, &n), OCC_OK);
    ck_assert_uint_eq(n, 16);
    ck_assert(pts[7].launchable && !pts[8].launchable);
    ck_assert_int_eq(pts[8].reason, OCC_REASON_KERNEL_MAX_WG);
    occ_limit_row rows[64];
    ck_assert_int_eq(occ_limits(dev, &q, rows, 64, &n), OCC_OK);
    ck_assert_uint_eq(rows[n - 1].lo, 257);
    ck_assert_uint_eq(rows[n - 1].hi, 512);
    ck_assert_int_eq(rows[n - 1].reason, OCC_REASON_KERNEL_MAX_WG);
    occ_device_free(dev);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("constraints");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, launch_bound_refuses_larger_work_groups);
    tcase_add_test(tc, required_sizes_refuse_every_other);
    tcase_add_test(tc, prepared_kernel_knows_the_bound);
    tcase_add_test(tc, advisor_never_proposes_a_refused_launch);
    tcase_add_test(tc, sweep_and_limits_stop_at_the_bound);
    suite_add_tcase(s, tc);
    return tc_run(s);
}
