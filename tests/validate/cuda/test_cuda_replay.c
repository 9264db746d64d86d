/* Validation machinery on real data, without a GPU.
 *
 * tests/data/cuda/replay/ holds raw records of launches on the lent H100
 * (tests/hw/cuda_campaign.c, tests/hw/carveout_experiment.sh): reading them,
 * rebuilding the measured timeline and comparing it with the prediction must
 * give what the hardware showed, including the three runs where the hardware
 * held more blocks than the driver's occupancy answer (carveout preference
 * below what the blocks could use; docs/validation/cuda-h100-2026-11-21.md).
 * Also: record files round-trip, the prediction equals an independent wave
 * model, jitter is merged and only jitter, bad records are refused, and the
 * profile `occcalc probe` wrote on the H100 equals the shipped h100-sxm;
 * a launch in clusters checked against the cluster rule by hand. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "occ/backend.h"
#include "test_common.h"

#ifndef CUDA_DATA_DIR
#define CUDA_DATA_DIR "tests/data/cuda"
#endif

static const struct expect {
    const char *file;
    bool pass;
    uint32_t model;        /* the model's (and the driver's) blocks per SM */
    uint32_t peak;         /* most blocks the hardware held on one SM */
    size_t phases;         /* measured phases */
    uint64_t work_groups;
} expected[] = {
    {"012-wg320-rmin-s0-cdef.rec", true, 6, 3, 1, 393},
    {"027-wg1024-rmin-s0-cdef.rec", true, 2, 2, 1, 792},
    {"061-wg256-r72-s0-cdef.rec", true, 3, 3, 1, 396},
    {"086-wg64-r232-s0-cdef.rec", true, 4, 4, 2, 705},
    {"093-wg1024-r40-s0-cdef.rec", true, 1, 1, 1, 396},
    {"106-wg64-rmin-s5000-c25.rec", false, 10, 11, 1, 1325},
    {"110-wg64-rmin-s10240-c25.rec", true, 5, 5, 2, 881},
    {"121-wg64-rmin-s48128-cdef.rec", true, 4, 4, 1, 528},
    {"147-wg256-rmin-s10240-c8.rec", true, 2, 2, 1, 792},
    {"154-wg32-rmin-s0-c1.rec", false, 8, 9, 1, 1061},
    {"168-wg32-rmin-s0-cdef.rec", true, 32, 16, 1, 2109},
    {"185-wg128-r64-s0-cdef-bar.rec", true, 8, 8, 1, 1056},
    {"195-wg256-r96-s4096-c25-bar.rec", true, 2, 2, 2, 529},
    {"198-wg8x8x4-r64-s0-cdef.rec", true, 4, 4, 2, 705},
    {"200-wg32x4x2-rmin-s0-cdef.rec", true, 8, 4, 1, 525},
    {"204-wg320-rmin-s0-cdef.rec", true, 6, 1, 1, 8},
    {"206-wg320-rmin-s0-cdef.rec", true, 6, 6, 2, 1000},
    {"208-wg256-rmin-s0-cdef.rec", true, 8, 8, 2, 1409},
    {"x05-s5000-c25.rec", false, 10, 12, 1, 1584},
};
#define N_EXPECTED (sizeof expected / sizeof expected[0])

typedef struct run {
    occ_backend_info info;
    occ_device_desc desc;
    occ_probe_result res;
    occ_device *dev;
    occ_residency r;
} run;

static void load_run(const char *file, run *x)
{
    char path[512];
    snprintf(path, sizeof path, "%s/replay/%s", CUDA_DATA_DIR, file);
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    occ_diag diag;
    occ_status s = occ_probe_file_read(f, path, &x->info, &x->desc, &x->res, &diag);
    fclose(f);
    ck_assert_msg(s == OCC_OK, "%s: %s", path, diag.message);
    ck_assert_int_eq(occ_device_create(&x->desc, &x->dev, &diag), OCC_OK);
    occ_residency_compute(x->dev, &x->res.actual, &x->r);
    ck_assert(x->r.launchable);
}

static void free_run(run *x)
{
    occ_probe_result_free(&x->res);
    occ_device_free(x->dev);
}

static occ_status measure(const run *x, double merge, occ_timeline *t, occ_measure_info *mi)
{
    occ_measure_params p;
    occ_measure_params_init(&p);
    p.cores = x->desc.cores;
    p.contexts_per_core = x->r.contexts_per_core;
    p.contexts_per_wg = x->r.contexts_per_wg;
    p.tick_seconds = x->res.tick_seconds;
    p.merge_tolerance = merge;
    p.lanes = true;
    occ_diag diag;
    return occ_timeline_from_records(x->res.records, x->res.n_records, &p, t, mi, &diag);
}

/* Every recorded run replays to what the hardware showed. */
START_TEST(replay_recorded_runs)
{
    const struct expect *e = &expected[_i];
    run x;
    load_run(e->file, &x);
    ck_assert_str_eq(x.info.backend, "cuda");
    ck_assert_uint_eq(x.res.work_groups, e->work_groups);
    ck_assert_uint_eq(x.res.n_records, e->work_groups);
    ck_assert_uint_eq(x.res.records_missing + x.res.records_invalid, 0);
    ck_assert_uint_eq(x.r.resident_wgs, e->model);
    ck_assert_int_eq(x.res.driver_resident, (int)e->model); /* the driver agrees with the model */
    occ_timeline meas, pred;
    occ_measure_info mi;
    ck_assert_int_eq(measure(&x, 0, &meas, &mi), OCC_OK);
    ck_assert_uint_eq(mi.work_groups, e->work_groups);
    ck_assert_uint_eq(mi.peak_per_core, e->peak);
    ck_assert_uint_eq(meas.n_phases, e->phases);
    /* the probe spins for duration_s: the measured median is within 2 % */
    ck_assert(fabs(mi.median_wg_s - x.res.duration_s) < 0.02 * x.res.duration_s);
    ck_assert(mi.migrated == 0);
    ck_assert_int_eq(occ_validation_predict(x.dev, &x.res.actual, x.res.work_groups, &pred), OCC_OK);
    occ_comparison c;
    ck_assert_int_eq(occ_timeline_compare(&pred, mi.median_wg_s, &meas, NULL, &c), OCC_OK);
    ck_assert_msg(c.pass == e->pass, "%s: %s", e->file, c.summary);
    ck_assert_uint_eq(c.measured_peak_per_core, e->peak);
    if (e->pass) {
        ck_assert(c.max_occupancy_diff_pp <= 1.0);
        ck_assert(c.max_duration_diff_rel <= 0.10);
        ck_assert_uint_eq(c.predicted_phases, c.measured_phases);
        /* phase by phase: the same work-groups resident */
        for (size_t i = 0; i < meas.n_phases; i++)
            ck_assert_uint_eq(meas.phases[i].work_groups, pred.phases[i].work_groups);
    } else {
        /* the known disagreement: the hardware held more than the driver said */
        ck_assert_uint_gt(c.measured_peak_per_core, c.predicted_peak_per_core);
        ck_assert(!c.peak_ok);
        ck_assert(x.res.actual.carveout_pct >= 0 && x.res.actual.carveout_pct < 50);
    }
    /* per-core lanes add up to the phase totals */
    for (size_t i = 0; i < meas.n_phases; i++) {
        uint64_t ctx = 0;
        for (uint32_t k = 0; k < meas.cores; k++)
            ctx += meas.core_contexts[i * meas.cores + k];
        ck_assert_uint_eq(ctx, meas.phases[i].thread_contexts);
    }
    occ_timeline_free(&meas);
    occ_timeline_free(&pred);
    free_run(&x);
}
END_TEST

/* Without merging, real jitter splits the run into many tiny phases: the
 * tolerance is doing the work (and 5 % is far from the next real event). */
START_TEST(merge_tolerance_matters)
{
    run x;
    load_run("206-wg320-rmin-s0-cdef.rec", &x);
    occ_timeline t;
    occ_measure_info mi;
    ck_assert_int_eq(measure(&x, 1e-6, &t, &mi), OCC_OK);
    ck_assert_uint_gt(t.n_phases, 10);
    occ_timeline_free(&t);
    for (double m = 0.01; m < 0.4; m += 0.05) {
        ck_assert_int_eq(measure(&x, m, &t, &mi), OCC_OK);
        ck_assert_uint_eq(t.n_phases, 2);
        occ_timeline_free(&t);
    }
    free_run(&x);
}
END_TEST

/* An independent wave model: full waves of resident_wgs per SM, the tail
 * spread one block per SM, round after round. */
START_TEST(prediction_equals_wave_model)
{
    run x;
    load_run(expected[_i].file, &x);
    occ_timeline pred;
    ck_assert_int_eq(occ_validation_predict(x.dev, &x.res.actual, x.res.work_groups, &pred), OCC_OK);
    uint64_t cores = x.desc.cores, wave = cores * x.r.resident_wgs, n = x.res.work_groups;
    uint64_t full = n / wave, tail = n % wave;
    ck_assert_uint_eq(pred.n_phases, (full ? 1u : 0u) + (tail ? 1u : 0u));
    size_t i = 0;
    if (full) {
        ck_assert(fabs(pred.phases[0].end - pred.phases[0].start - (double)full) < 1e-9);
        ck_assert_uint_eq(pred.phases[0].work_groups, wave);
        for (uint64_t k = 0; k < cores; k++)
            ck_assert_uint_eq(pred.core_work_groups[k], x.r.resident_wgs);
        i = 1;
    }
    if (tail) {
        ck_assert(fabs(pred.phases[i].end - pred.phases[i].start - 1.0) < 1e-9);
        ck_assert_uint_eq(pred.phases[i].work_groups, tail);
        for (uint64_t k = 0; k < cores; k++)
            ck_assert_uint_eq(pred.core_work_groups[i * cores + k], tail / cores + (k < tail % cores));
    }
    occ_timeline_free(&pred);
    free_run(&x);
}
END_TEST

START_TEST(record_file_round_trip)
{
    run x;
    load_run("195-wg256-r96-s4096-c25-bar.rec", &x);
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    ck_assert_int_eq(occ_probe_file_write(m, &x.info, &x.desc, &x.res), OCC_OK);
    fclose(m);
    FILE *f = fmemopen(buf, len, "r");
    run y;
    occ_diag diag;
    ck_assert_int_eq(occ_probe_file_read(f, "<memory>", &y.info, &y.desc, &y.res, &diag), OCC_OK);
    fclose(f);
    free(buf);
    const char *what = NULL;
    ck_assert_msg(tc_desc_equal(&x.desc, &y.desc, &what), "differs in %s", what);
    ck_assert_str_eq(x.info.driver, y.info.driver);
    ck_assert_str_eq(x.res.kernel_name, y.res.kernel_name);
    ck_assert_int_eq(memcmp(&x.res.actual, &y.res.actual, sizeof x.res.actual), 0);
    ck_assert_int_eq(memcmp(&x.res.requested, &y.res.requested, sizeof x.res.requested), 0);
    ck_assert_int_eq(x.res.driver_resident, y.res.driver_resident);
    ck_assert(x.res.duration_s == y.res.duration_s);
    ck_assert(x.res.timer_resolution_s == y.res.timer_resolution_s);
    ck_assert_uint_eq(x.res.n_records, y.res.n_records);
    ck_assert_int_eq(memcmp(x.res.records, y.res.records, x.res.n_records * sizeof *x.res.records), 0);
    occ_probe_result_free(&y.res);
    free_run(&x);
}
END_TEST

START_TEST(bad_record_files)
{
    static const char *const bad[] = {
        "",
        "occ-probe-records 2\n",
        "occ-probe-records 1\nbackend cuda\nnosuchkey 1\n",
        "occ-probe-records 1\nrequested wg=1,1 sg=0\n",
        "occ-probe-records 1\nprofile 99999\nschema: 1\n",
        "occ-probe-records 1\nbackend cuda\nrecords 1 0\n0 - 1 1 - - 10 5\nend\n",
        "occ-probe-records 1\nbackend cuda\nrecords 1 0\n0 - 1\nend\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        FILE *f = fmemopen((void *)bad[i], strlen(bad[i]) + (bad[i][0] ? 0 : 1), "r");
        occ_probe_result r;
        occ_diag diag;
        memset(&diag, 0, sizeof diag);
        occ_status s = occ_probe_file_read(f, "bad.rec", NULL, NULL, &r, &diag);
        fclose(f);
        ck_assert_msg(s != OCC_OK, "bad file %zu accepted", i);
        ck_assert_msg(diag.message[0] != 0, "bad file %zu: no message", i);
        ck_assert_ptr_null(r.records);
    }
}
END_TEST

/* Synthetic records: a wave whose starts and ends jitter by up to a
 * microsecond is one phase; bad records are refused. */
START_TEST(synthetic_jitter_and_errors)
{
    enum { CORES = 4, N = 12 };
    occ_record rec[N];
    tc_rng rng = {42};
    for (int i = 0; i < N; i++) {
        /* 2 per core in wave 1 (8 WGs), 1 per core for the first 4 in wave 2 */
        uint64_t wave = i < 8 ? 0 : 1;
        uint64_t t0 = wave * 300000 + tc_range(&rng, 0, 900) + (wave ? 200 : 0);
        memset(&rec[i], 0, sizeof rec[i]);
        rec[i].work_group = (uint64_t)i;
        rec[i].thread = OCC_RECORD_WHOLE_WG;
        rec[i].core_start = rec[i].core_end = (uint32_t)(i % CORES);
        rec[i].engine = rec[i].slot = OCC_RECORD_UNKNOWN;
        rec[i].t_start = t0;
        rec[i].t_end = t0 + 300000 + tc_range(&rng, 0, 500);
    }
    occ_measure_params p;
    occ_measure_params_init(&p);
    p.cores = CORES;
    p.contexts_per_core = 64;
    p.contexts_per_wg = 10;
    p.tick_seconds = 1e-9;
    p.lanes = true;
    occ_timeline t;
    occ_measure_info mi;
    occ_diag diag;
    ck_assert_int_eq(occ_timeline_from_records(rec, N, &p, &t, &mi, &diag), OCC_OK);
    ck_assert_uint_eq(t.n_phases, 2);
    ck_assert_uint_eq(t.phases[0].work_groups, 8);
    ck_assert_uint_eq(t.phases[0].thread_contexts, 80);
    ck_assert_uint_eq(t.phases[1].work_groups, 4);
    ck_assert(fabs(t.phases[0].occupancy - 80.0 / 256.0) < 1e-12);
    ck_assert_uint_eq(mi.peak_per_core, 2);
    ck_assert_uint_eq(mi.cores_used, CORES);
    ck_assert(fabs(t.phases[0].end - t.phases[0].start - 300e-6) < 2e-6);
    occ_timeline_free(&t);

    /* per-sub-group records (Intel style): each record holds one context */
    occ_record sg[8];
    for (int i = 0; i < 8; i++) {
        sg[i] = rec[0];
        sg[i].work_group = (uint64_t)(i / 4);
        sg[i].thread = (uint32_t)(i % 4);
        sg[i].core_start = sg[i].core_end = 0;
        sg[i].t_start = (uint64_t)(i % 4) * 100; /* threads of a WG start apart */
        sg[i].t_end = sg[i].t_start + 300000;
    }
    ck_assert_int_eq(occ_timeline_from_records(sg, 8, &p, &t, &mi, &diag), OCC_OK);
    ck_assert_uint_eq(t.n_phases, 1);
    ck_assert_uint_eq(t.phases[0].thread_contexts, 8);
    ck_assert_uint_eq(t.phases[0].work_groups, 2);
    ck_assert_uint_eq(mi.work_groups, 2);
    occ_timeline_free(&t);

    occ_record r2[2] = {rec[0], rec[1]};
    r2[1].t_end = r2[1].t_start - 1;
    ck_assert_int_eq(occ_timeline_from_records(r2, 2, &p, &t, &mi, &diag), OCC_ERR_VALUE);
    ck_assert_ptr_nonnull(strstr(diag.message, "ends before it starts"));
    r2[1] = rec[1];
    r2[1].core_end = CORES;
    ck_assert_int_eq(occ_timeline_from_records(r2, 2, &p, &t, &mi, &diag), OCC_ERR_VALUE);
    ck_assert_ptr_nonnull(strstr(diag.message, "names core"));
    ck_assert_int_eq(occ_timeline_from_records(rec, 0, &p, &t, &mi, &diag), OCC_ERR_VALUE);
}
END_TEST

/* A launch in clusters of 2 blocks of 256 threads on h200 (8 per SM, the
 * cluster cap 8; 528 clusters at once), each cluster k on SMs sm[2k] and
 * sm[2k+1] from start[k] for 1000 ns, checked against the rule by hand. */
static void cluster_launch(occ_validation *v, const occ_device *dev, size_t clusters, const uint32_t *sm,
                           const uint64_t *start)
{
    occ_validation_init(v);
    v->desc = *occ_device_describe(dev);
    occ_probe_result *r = &v->res;
    r->actual.wg[0] = 256;
    r->actual.regs_per_thread = 16;
    r->actual.cluster[0] = 2, r->actual.cluster[1] = 1, r->actual.cluster[2] = 1;
    r->requested = r->actual;
    r->work_groups = 2 * clusters;
    r->duration_s = 1e-6;
    r->tick_seconds = 1e-9;
    r->records = calloc(2 * clusters, sizeof *r->records);
    ck_assert_ptr_nonnull(r->records);
    r->n_records = 2 * clusters;
    for (size_t i = 0; i < 2 * clusters; i++) {
        occ_record *o = &r->records[i];
        o->work_group = i;
        o->thread = OCC_RECORD_WHOLE_WG;
        o->core_start = o->core_end = sm[i];
        o->engine = o->slot = OCC_RECORD_UNKNOWN;
        o->cluster = (uint32_t)(i / 2);
        o->t_start = start[i / 2];
        o->t_end = start[i / 2] + 1000;
    }
    occ_diag diag;
    ck_assert_int_eq(occ_validation_analyse(v, dev, 0, &diag), OCC_OK);
    ck_assert(v->clusters.clustered);
    ck_assert_uint_eq(v->clusters.predicted.max_active_clusters, 528);
    ck_assert_uint_eq(v->clusters.launched, clusters);
}

START_TEST(cluster_check_by_hand)
{
    occ_device *dev = NULL;
    ck_assert_int_eq(occ_device_builtin("h200", &dev, NULL), OCC_OK);
    occ_validation v;
    /* two clusters at once on four SMs: every check holds */
    uint32_t sm4[4] = {0, 1, 2, 3};
    uint64_t together[2] = {0, 0}, apart[2] = {0, 5000};
    cluster_launch(&v, dev, 2, sm4, together);
    ck_assert(v.clusters.ok && v.pass);
    ck_assert_uint_eq(v.clusters.at_once, 2);
    ck_assert_uint_eq(v.clusters.first_wave, 2);
    ck_assert_uint_eq(v.clusters.cores_used, 4);
    ck_assert_uint_eq(v.clusters.peak_per_core, 1);
    ck_assert_uint_eq(v.clusters.n_groups, 2);
    ck_assert_uint_eq(v.clusters.group_cores[0], 2);
    /* the driver's answer must be the rule's */
    v.res.driver_clusters = 527;
    occ_diag diag;
    ck_assert_int_eq(occ_validation_analyse(&v, dev, 0, &diag), OCC_OK);
    ck_assert(!v.clusters.driver_ok && !v.clusters.ok && !v.pass);
    v.res.driver_clusters = 528;
    ck_assert_int_eq(occ_validation_analyse(&v, dev, 0, &diag), OCC_OK);
    ck_assert(v.clusters.ok && v.pass);
    occ_validation_free(&v);
    /* one after the other: one cluster at once, one in the first wave */
    cluster_launch(&v, dev, 2, sm4, apart);
    ck_assert_uint_eq(v.clusters.at_once, 1);
    ck_assert_uint_eq(v.clusters.first_wave, 1);
    ck_assert(!v.clusters.at_once_ok && !v.clusters.first_wave_ok && v.clusters.groups_ok && !v.pass);
    occ_validation_free(&v);
    /* 19 clusters chained over 20 SMs (k on k and k + 1): a group larger than any GPC (18) */
    enum { CHAIN = 19 };
    uint32_t chain[2 * CHAIN];
    uint64_t at0[CHAIN] = {0};
    for (uint32_t k = 0; k < CHAIN; k++)
        chain[2 * k] = k, chain[2 * k + 1] = k + 1;
    cluster_launch(&v, dev, CHAIN, chain, at0);
    ck_assert_uint_eq(v.clusters.n_groups, 1);
    ck_assert_uint_eq(v.clusters.group_cores[0], 20);
    ck_assert(!v.clusters.groups_ok && v.clusters.at_once_ok && v.clusters.per_core_ok && !v.pass);
    occ_validation_free(&v);
    /* nine clusters at once on the same two SMs: 9 blocks on an SM, over the cap of 8 */
    uint32_t two[18];
    uint64_t at0b[9] = {0};
    for (int i = 0; i < 18; i++)
        two[i] = (uint32_t)(i % 2);
    cluster_launch(&v, dev, 9, two, at0b);
    ck_assert_uint_eq(v.clusters.peak_per_core, 9);
    ck_assert(!v.clusters.per_core_ok && !v.pass);
    occ_validation_free(&v);
    /* a record naming a cluster beyond the launch's */
    cluster_launch(&v, dev, 2, sm4, together);
    v.res.records[3].cluster = 2;
    ck_assert_int_eq(occ_validation_analyse(&v, dev, 0, &diag), OCC_ERR_VALUE);
    ck_assert_ptr_nonnull(strstr(diag.message, "cluster 2 of a launch of 2 clusters"));
    /* a profile without GPC data cannot predict it */
    occ_device *h100 = NULL;
    ck_assert_int_eq(occ_device_builtin("h100-sxm", &h100, NULL), OCC_OK);
    ck_assert_int_eq(occ_validation_analyse(&v, h100, 0, &diag), OCC_ERR_UNSUPPORTED);
    occ_validation_free(&v);
    occ_device_free(h100);
    occ_device_free(dev);
}
END_TEST

/* The comparison flags each kind of difference on its own. */
START_TEST(compare_flags_each_check)
{
    occ_phase pp[2] = {{0, 1, 10, 100, 0.5, 4}, {1, 2, 5, 50, 0.25, 4}};
    occ_phase mp[2] = {{0, 1e-3, 10, 100, 0.5, 4}, {1e-3, 2e-3, 5, 50, 0.25, 4}};
    uint32_t lanes_p[8] = {3, 3, 2, 2, 2, 1, 1, 1}, lanes_m[8] = {3, 3, 2, 2, 2, 1, 1, 1};
    uint32_t ctx[8] = {0};
    occ_timeline pred, meas;
    occ_timeline_init(&pred);
    occ_timeline_init(&meas);
    pred.cores = meas.cores = 4;
    pred.contexts_total = meas.contexts_total = 200;
    pred.work_groups = meas.work_groups = 15;
    pred.n_phases = meas.n_phases = 2;
    pred.phases = pp;
    meas.phases = mp;
    pred.core_contexts = meas.core_contexts = ctx;
    pred.core_work_groups = lanes_p;
    meas.core_work_groups = lanes_m;
    pred.average_occupancy = meas.average_occupancy = 0.375;
    occ_comparison c;
    ck_assert_int_eq(occ_timeline_compare(&pred, 1e-3, &meas, NULL, &c), OCC_OK);
    ck_assert_msg(c.pass, "%s", c.summary);
    mp[1].occupancy = 0.25 + 0.011;
    occ_timeline_compare(&pred, 1e-3, &meas, NULL, &c);
    ck_assert(!c.pass && !c.occupancy_ok && c.peak_ok && c.durations_ok && c.phases_ok);
    ck_assert_uint_eq(c.worst_occupancy_phase, 1);
    mp[1].occupancy = 0.25 + 0.009;
    mp[1].end = 2.11e-3;
    occ_timeline_compare(&pred, 1e-3, &meas, NULL, &c);
    ck_assert(!c.pass && c.occupancy_ok && !c.durations_ok);
    mp[1].end = 2.09e-3;
    lanes_m[0] = 4;
    occ_timeline_compare(&pred, 1e-3, &meas, NULL, &c);
    ck_assert(!c.pass && !c.peak_ok && c.durations_ok);
    ck_assert_uint_eq(c.measured_peak_per_core, 4);
    lanes_m[0] = 3;
    /* a missing phase: reported, and the curves differ: average and distance fail */
    meas.n_phases = 1;
    meas.average_occupancy = 0.5;
    occ_timeline_compare(&pred, 1e-3, &meas, NULL, &c);
    ck_assert(!c.pass && !c.phases_ok && !c.average_ok && !c.distance_ok && !c.phases_compared);
    ck_assert_double_eq_tol(c.average_diff_pp, 12.5, 1e-9);
    /* |0.25 - 0| over half of the 2 ms: 12.5 points */
    ck_assert_double_eq_tol(c.distance_pp, 12.5, 1e-9);
    ck_assert_ptr_nonnull(strstr(c.summary, "average"));
    /* phase counts differ but the curves agree within tolerance: pass (issue 16) */
    occ_phase mp3[3] = {{0, 0.5e-3, 10, 100, 0.5, 4}, {0.5e-3, 1e-3, 10, 99, 0.495, 4},
                        {1e-3, 2e-3, 5, 50, 0.25, 4}};
    uint32_t lanes_m3[12] = {3, 3, 2, 2, 3, 3, 2, 2, 2, 1, 1, 1}, ctx3[12] = {0};
    meas.n_phases = 3;
    meas.phases = mp3;
    meas.core_work_groups = lanes_m3;
    meas.core_contexts = ctx3;
    meas.average_occupancy = (0.5 * 0.5 + 0.495 * 0.5 + 0.25) / 2;
    occ_timeline_compare(&pred, 1e-3, &meas, NULL, &c);
    ck_assert_msg(c.pass && !c.phases_ok && !c.phases_compared, "%s", c.summary);
    ck_assert_double_eq_tol(c.distance_pp, 0.5 * 0.5 * 0.5, 1e-9); /* 0.5 pt over a quarter */
    /* the distance alone: the same average, the occupancy moved in time */
    occ_phase mp4[2] = {{0, 1e-3, 5, 50, 0.25, 4}, {1e-3, 2e-3, 10, 100, 0.5, 4}};
    meas.n_phases = 2;
    meas.phases = mp4;
    meas.core_work_groups = lanes_m;
    meas.core_contexts = ctx;
    meas.average_occupancy = 0.375;
    occ_timeline_compare(&pred, 1e-3, &meas, NULL, &c);
    ck_assert(!c.pass && c.average_ok && !c.distance_ok);
    ck_assert_double_eq_tol(c.distance_pp, 25.0, 1e-9);
    ck_assert_ptr_nonnull(strstr(c.summary, "over time"));
}
END_TEST

/* `occcalc probe --backend cuda` on the H100 equals the shipped profile in
 * every model field (names and sources aside). */
START_TEST(probe_profile_equals_shipped_h100)
{
    occ_device *live, *shipped = tc_builtin("h100-sxm");
    occ_diag diag;
    ck_assert_int_eq(occ_device_load_file(CUDA_DATA_DIR "/campaign/probe-h100.yaml", &live, &diag),
                     OCC_OK);
    occ_device_desc a = *occ_device_describe(live), b = *occ_device_describe(shipped);
    ck_assert_str_eq(a.product, "NVIDIA H100 80GB HBM3");
    memcpy(a.name, b.name, sizeof a.name);
    memcpy(a.product, b.product, sizeof a.product);
    const char *what = NULL;
    ck_assert_msg(tc_desc_equal(&a, &b, &what), "probed profile differs from h100-sxm in %s", what);
    occ_device_free(live);
    occ_device_free(shipped);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cuda-replay");
    TCase *tc = tcase_create("replay");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, replay_recorded_runs, 0, N_EXPECTED);
    tcase_add_loop_test(tc, prediction_equals_wave_model, 0, N_EXPECTED);
    tcase_add_test(tc, merge_tolerance_matters);
    tcase_add_test(tc, record_file_round_trip);
    tcase_add_test(tc, bad_record_files);
    tcase_add_test(tc, synthetic_jitter_and_errors);
    tcase_add_test(tc, compare_flags_each_check);
    tcase_add_test(tc, cluster_check_by_hand);
    tcase_add_test(tc, probe_profile_equals_shipped_h100);
    suite_add_tcase(s, tc);
    return tc_run(s);
}
