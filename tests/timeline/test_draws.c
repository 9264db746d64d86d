/* The simulator's blocks of duration draws (libocc/src/timeline/draws.c)
 * against occ__draw one by one, bit for bit: the answers of the simulator may
 * not depend on how the draws are computed.  Every copy the CPU can run (the
 * base one, AVX2, AVX2 with AVX-512's 64-bit instructions), uniform and normal durations, seeds and parameters
 * at random, blocks anywhere up to 2^53 work-groups, and normal parameters
 * whose draws are often <= 0 (drawn again) or in the tails. */
#include <math.h>
#include <string.h>

#include "test_common.h"
#include "timeline/timeline_internal.h"

/* Every value of the block starting at first equals occ__draw's, both copies. */
static void check_block(const occ_durations *d, uint64_t first)
{
    const uint64_t mixed = occ__mix64(d->seed);
    double out[OCC__DRAW_BLOCK];
    const occ__draw_copy best = occ__draw_block_best();
    static const char *const names[] = {"base", "AVX2", "AVX-512"};
    for (occ__draw_copy copy = OCC__DRAW_BASE; copy <= best; copy++) {
        memset(out, 0, sizeof out);
        occ__draw_block(d, mixed, first, copy, out);
        for (uint32_t k = 0; k < OCC__DRAW_BLOCK; k++) {
            double want = occ__draw(d, mixed, first + k);
            ck_assert_msg(memcmp(&out[k], &want, sizeof want) == 0,
                          "%s copy, kind %d (%g, %g), seed %llu, work-group %llu: %.17g, "
                          "occ__draw %.17g",
                          names[copy], (int)d->kind, d->a, d->b,
                          (unsigned long long)d->seed, (unsigned long long)(first + k), out[k],
                          want);
        }
    }
}

START_TEST(blocks_equal_draws)
{
    tc_rng g = {20261125};
    for (int trial = 0; trial < 400; trial++) {
        occ_durations d = {.seed = tc_next(&g)};
        double x = (double)tc_range(&g, 1, 1000000) / 1000, y = (double)tc_range(&g, 0, 1000000) / 1000;
        if (trial % 2) {
            d.kind = OCC_DURATIONS_UNIFORM;
            d.a = x;
            d.b = x + y;
        } else {
            d.kind = OCC_DURATIONS_NORMAL;
            d.a = x;
            d.b = trial % 4 ? y : 3 * x; /* 3x: a quarter of the draws <= 0 */
        }
        ck_assert_int_eq(occ_durations_check(&d, NULL), OCC_OK);
        uint64_t first = trial % 3 == 0   ? tc_range(&g, 0, 1000)
                         : trial % 3 == 1 ? tc_next(&g) >> 11 /* up to 2^53 */
                                          : tc_range(&g, 0, 1u << 30);
        check_block(&d, first);
    }
}
END_TEST

/* The bench's models, over the first 10^5 work-groups (the simulator's blocks
 * start at multiples of the block from the first refill on, any offset before). */
START_TEST(bench_models)
{
    const occ_durations models[] = {
        {.kind = OCC_DURATIONS_UNIFORM, .a = 0.5, .b = 1.5, .seed = 1},
        {.kind = OCC_DURATIONS_NORMAL, .a = 1, .b = 0.1, .seed = 1},
    };
    for (size_t m = 0; m < 2; m++)
        for (uint64_t first = 0; first < 100000; first += OCC__DRAW_BLOCK)
            check_block(&models[m], first + (first % 3));
}
END_TEST

static Suite *draws_suite(void)
{
    Suite *s = suite_create("draws");
    TCase *t = tcase_create("blocks");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, blocks_equal_draws);
    tcase_add_test(t, bench_models);
    suite_add_tcase(s, t);
    return s;
}

int main(void) { return tc_run(draws_suite()); }
