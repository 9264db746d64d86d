/* The model against CUDA's own occupancy calculator, on recorded data.
 *
 * tests/data/cuda/campaign/sweep.txt holds what the driver of the lent H100
 * (cuOccupancyMaxActiveBlocksPerMultiprocessor) answered for every compiled
 * probe variant (its real NUM_REGS, no static shared memory) x block size x
 * carveout preference x barrier x dynamic shared memory: 41040 queries, made
 * by tests/hw/cuda_campaign.c.  Every answer must equal the model's for the
 * shipped h100-sxm profile and for the profile `occcalc probe` wrote on that
 * machine (-1 = the driver refused the size: the model must say it cannot
 * launch). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_common.h"

#ifndef CUDA_DATA_DIR
#define CUDA_DATA_DIR "tests/data/cuda"
#endif

#define MAX_DYN 32

typedef struct sweep {
    size_t n_dyn;
    uint64_t dyn[MAX_DYN];
    size_t n_rows;
    struct row {
        uint32_t regs, block;
        int32_t carve;
        int barrier;
        int32_t ans[MAX_DYN];
    } *rows;
} sweep;

static void load_sweep(sweep *s)
{
    const char *path = CUDA_DATA_DIR "/campaign/sweep.txt";
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    memset(s, 0, sizeof *s);
    size_t cap = 0;
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#')
            continue;
        if (strncmp(line, "dynamic", 7) == 0) {
            char *p = line + 7;
            char *e;
            while (s->n_dyn < MAX_DYN) {
                unsigned long long v = strtoull(p, &e, 10);
                if (e == p)
                    break;
                s->dyn[s->n_dyn++] = v;
                p = e;
            }
            continue;
        }
        if (s->n_rows == cap) {
            cap = cap ? cap * 2 : 1024;
            s->rows = realloc(s->rows, cap * sizeof *s->rows);
            ck_assert_ptr_nonnull(s->rows);
        }
        struct row *r = &s->rows[s->n_rows];
        int used = 0;
        ck_assert_int_eq(sscanf(line, "%u %u %d %d |%n", &r->regs, &r->block, &r->carve,
                                &r->barrier, &used),
                         4);
        char *p = line + used, *e;
        for (size_t d = 0; d < s->n_dyn; d++) {
            r->ans[d] = (int32_t)strtol(p, &e, 10);
            ck_assert_msg(e != p, "short row in %s: %s", path, line);
            p = e;
        }
        s->n_rows++;
    }
    fclose(f);
    ck_assert_uint_gt(s->n_dyn, 0);
}

/* Compare every answer; returns the number of disagreements (printed). */
static size_t compare(const sweep *s, const occ_device *dev, const char *label)
{
    size_t bad = 0, total = 0;
    for (size_t i = 0; i < s->n_rows; i++) {
        const struct row *r = &s->rows[i];
        for (size_t d = 0; d < s->n_dyn; d++) {
            occ_kernel k;
            occ_kernel_init(&k);
            k.wg[0] = r->block;
            k.regs_per_thread = r->regs;
            k.slm_bytes = s->dyn[d];
            k.carveout_pct = r->carve;
            k.barrier = r->barrier;
            uint32_t model = tc_resident(dev, &k);
            int32_t driver = r->ans[d] < 0 ? 0 : r->ans[d];
            total++;
            if ((int32_t)model != driver) {
                if (bad < 20)
                    fprintf(stderr,
                            "%s: regs %u block %u dynamic %llu carveout %d barrier %d: model %u, "
                            "driver %d\n",
                            label, r->regs, r->block, (unsigned long long)s->dyn[d], r->carve,
                            r->barrier, model, r->ans[d]);
                bad++;
            }
        }
    }
    fprintf(stderr, "%s: %zu of %zu configurations disagree\n", label, bad, total);
    return bad;
}

START_TEST(sweep_has_ten_thousand)
{
    sweep s;
    load_sweep(&s);
    ck_assert_uint_ge(s.n_rows * s.n_dyn, 10000);
    /* it covers what it claims: registers, block sizes, carveouts, barrier, refusals */
    bool regs255 = false, block1024 = false, carve0 = false, bar = false, refused = false;
    for (size_t i = 0; i < s.n_rows; i++) {
        regs255 |= s.rows[i].regs == 255;
        block1024 |= s.rows[i].block == 1024;
        carve0 |= s.rows[i].carve == 0;
        bar |= s.rows[i].barrier;
        for (size_t d = 0; d < s.n_dyn; d++)
            refused |= s.rows[i].ans[d] < 0;
    }
    ck_assert(regs255 && block1024 && carve0 && bar && refused);
    free(s.rows);
}
END_TEST

START_TEST(model_equals_driver_shipped_profile)
{
    sweep s;
    load_sweep(&s);
    occ_device *dev = tc_builtin("h100-sxm");
    ck_assert_uint_eq(compare(&s, dev, "h100-sxm"), 0);
    occ_device_free(dev);
    free(s.rows);
}
END_TEST

START_TEST(model_equals_driver_probed_profile)
{
    sweep s;
    load_sweep(&s);
    occ_device *dev;
    occ_diag diag;
    ck_assert_int_eq(occ_device_load_file(CUDA_DATA_DIR "/campaign/probe-h100.yaml", &dev, &diag),
                     OCC_OK);
    ck_assert_uint_eq(compare(&s, dev, "probe-h100.yaml"), 0);
    occ_device_free(dev);
    free(s.rows);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cuda-sweep");
    TCase *tc = tcase_create("sweep");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, sweep_has_ten_thousand);
    tcase_add_test(tc, model_equals_driver_shipped_profile);
    tcase_add_test(tc, model_equals_driver_probed_profile);
    suite_add_tcase(s, tc);
    return tc_run(s);
}
