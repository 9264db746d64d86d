/* Level Zero backend, pure part (no driver needed): family identification,
 * Xe-core derivation, the probed profile and its provenance, the driver's
 * cooperative-group rule, record decoding and the driver note.
 *
 * The device properties below were recorded from the real Intel driver
 * (Debian bookworm, compute-runtime 22.43, libze_intel_gpu 1.3.24595) in
 * hardware-less mode (NEOReadDebugKeys=1 SetCommandStreamReceiver=1
 * ProductFamilyOverride=...), and so were the zeKernelSuggestMaxCooperativeGroupCount
 * answers of the probe kernels (kernels/probe_ze.cl).  tests/validate/ze/ checks the
 * same things against the live driver.  Records of an executing device are
 * synthesised from the simulator's schedule (nothing executes here). */
#include <string.h>

#include <stdlib.h>

#include "validate/backends/ze/backend_ze.h"
#include "occ/backend.h"
#include "occ/timeline.h"
#include "test_common.h"

static occ_ze_props recorded(const char *product)
{
    occ_ze_props p;
    memset(&p, 0, sizeof p);
    p.vendor_id = 0x8086;
    p.threads_per_eu = 7;
    p.simd_width = 8;
    p.slices = 1;
    p.max_slm = 65536;
    p.n_sub_group_sizes = 3;
    p.sub_group_sizes[0] = 8;
    p.sub_group_sizes[1] = 16;
    p.sub_group_sizes[2] = 32;
    p.timer_resolution = 83;
    p.kernel_ts_valid_bits = 32;
    p.integrated = true;
    if (strcmp(product, "tgllp") == 0) {
        p.device_id = 0xff20, p.eus_per_subslice = 16, p.subslices_per_slice = 6;
        p.max_total_group_size = 512;
    } else if (strcmp(product, "dg1") == 0) {
        p.device_id = 0x4905, p.eus_per_subslice = 16, p.subslices_per_slice = 6;
        p.max_total_group_size = 512, p.integrated = false;
    } else if (strcmp(product, "rkl") == 0) {
        p.device_id = 0x4c80, p.eus_per_subslice = 16, p.subslices_per_slice = 2;
        p.max_total_group_size = 512;
    } else if (strcmp(product, "skl") == 0) {
        p.device_id = 0x1902, p.eus_per_subslice = 8, p.subslices_per_slice = 3;
        p.max_total_group_size = 256;
    } else if (strcmp(product, "icllp") == 0) {
        p.device_id = 0xff05, p.eus_per_subslice = 8, p.subslices_per_slice = 8;
        p.max_total_group_size = 256;
    } else {
        ck_abort_msg("no recording for %s", product);
    }
    snprintf(p.name, sizeof p.name, "Intel(R) Graphics [0x%04x]", p.device_id);
    return p;
}

static const struct {
    const char *product, *profile;
    occ_intel_family_id family;
    uint32_t cores;
} products[] = {
    {"tgllp", "tgl", OCC_INTEL_FAMILY_XE_LP, 6}, {"dg1", "dg1", OCC_INTEL_FAMILY_XE_LP, 6},
    {"rkl", "rkl", OCC_INTEL_FAMILY_XE_LP, 2},   {"skl", "gen9", OCC_INTEL_FAMILY_GEN9, 3},
    {"icllp", "gen11", OCC_INTEL_FAMILY_GEN11, 8},
};

START_TEST(recorded_devices_match_shipped_profiles)
{
    occ_ze_profile pr;
    occ_ze_props p = recorded(products[_i].product);
    ck_assert_int_eq(occ__ze_profile(&p, &pr, NULL), OCC_OK);
    ck_assert(pr.complete);
    ck_assert_ptr_nonnull(pr.ident.family);
    ck_assert_int_eq(pr.ident.family->id, products[_i].family);
    ck_assert(pr.ident.by_pci_id);
    ck_assert(pr.ident.signature_agrees);
    ck_assert_uint_eq(pr.desc.cores, products[_i].cores);
    ck_assert_str_eq(pr.matches, products[_i].profile);
    /* Field by field against the shipped profile, on what the driver reports. */
    occ_device *shipped = tc_builtin(products[_i].profile);
    ck_assert_uint_eq(occ__ze_compare_driver_fields(&pr.desc, occ_device_describe(shipped)), 0);
    /* The rest comes from the family's profile and is marked so. */
    ck_assert_int_eq(pr.origin[OCC_ZE_F_SIMD], OCC_ZE_FROM_DRIVER);
    ck_assert_int_eq(pr.origin[OCC_ZE_F_THREADS], OCC_ZE_FROM_DRIVER);
    ck_assert_int_eq(pr.origin[OCC_ZE_F_CORES], OCC_ZE_FROM_DERIVED);
    ck_assert_int_eq(pr.origin[OCC_ZE_F_BARRIERS], OCC_ZE_FROM_FAMILY);
    ck_assert_int_eq(pr.origin[OCC_ZE_F_SLM_PER_CORE], OCC_ZE_FROM_FAMILY);
    ck_assert(pr.desc.provisional);
    /* The probed description is a valid device. */
    occ_device *dev = NULL;
    ck_assert_int_eq(occ_device_create(&pr.desc, &dev, NULL), OCC_OK);
    occ_device_free(dev);
    occ_device_free(shipped);
}
END_TEST

/* A driver that reports DG2's "sub-slices" as 8 EUs (2 x 8 x 8): the Xe-core
 * count must come from the total, not from the sub-slice count. */
START_TEST(subslices_are_not_xe_cores)
{
    occ_ze_props p = recorded("tgllp");
    p.device_id = 0x56a5; /* DG2 */
    p.slices = 2, p.subslices_per_slice = 8, p.eus_per_subslice = 8;
    p.threads_per_eu = 8, p.max_total_group_size = 1024;
    occ_ze_profile pr;
    ck_assert_int_eq(occ__ze_profile(&p, &pr, NULL), OCC_OK);
    ck_assert_int_eq(pr.ident.family->id, OCC_INTEL_FAMILY_XE_HPG);
    ck_assert_uint_eq(pr.desc.cores, 8); /* 128 XVE / 16, not 16 sub-slices */
    ck_assert_uint_eq(pr.desc.engines_per_core, 16);
    ck_assert_str_eq(pr.matches, "arc-a380");
    bool noted = false;
    for (uint32_t i = 0; i < pr.n_notes; i++)
        noted |= strstr(pr.notes[i], "are not Xe-cores") != NULL;
    ck_assert_msg(noted, "no note that the driver's sub-slices are not Xe-cores");
    /* The EU-count extension, when present, wins over the product. */
    p.has_eu_count_ext = true;
    p.eu_count_ext = 512;
    ck_assert_int_eq(occ__ze_profile(&p, &pr, NULL), OCC_OK);
    ck_assert_uint_eq(pr.desc.cores, 32);
    ck_assert_str_eq(pr.matches, "arc-a770");
}
END_TEST

START_TEST(unknown_ids_fall_back_to_the_signature)
{
    occ_ze_props p = recorded("tgllp");
    p.device_id = 0x1234;
    occ_ze_profile pr;
    ck_assert_int_eq(occ__ze_profile(&p, &pr, NULL), OCC_OK);
    ck_assert_int_eq(pr.ident.family->id, OCC_INTEL_FAMILY_XE_LP);
    ck_assert(!pr.ident.by_pci_id);
    ck_assert_str_eq(pr.matches, "tgl");
    p = recorded("skl");
    p.device_id = 0x1234;
    ck_assert_int_eq(occ__ze_profile(&p, &pr, NULL), OCC_OK);
    ck_assert_int_eq(pr.ident.family->id, OCC_INTEL_FAMILY_GEN9_OR_GEN11);
    ck_assert_uint_eq(pr.desc.cores, 3);
    ck_assert_str_eq(pr.matches, "gen9");
}
END_TEST

START_TEST(unknown_family_is_incomplete_not_invented)
{
    occ_ze_props p = recorded("tgllp");
    p.device_id = 0x1234;
    p.simd_width = 16, p.threads_per_eu = 9, p.max_total_group_size = 2048;
    occ_ze_profile pr;
    ck_assert_int_eq(occ__ze_profile(&p, &pr, NULL), OCC_OK);
    ck_assert_ptr_null(pr.ident.family);
    ck_assert(!pr.complete);
    ck_assert_int_eq(pr.origin[OCC_ZE_F_CORES], OCC_ZE_UNKNOWN);
    ck_assert_int_eq(pr.origin[OCC_ZE_F_BARRIERS], OCC_ZE_UNKNOWN);
    ck_assert_int_eq(pr.origin[OCC_ZE_F_SIMD], OCC_ZE_FROM_DRIVER);
    ck_assert_uint_eq(pr.desc.cores, 0);
    ck_assert_str_eq(pr.matches, "");
    /* Not Intel at all. */
    p = recorded("tgllp");
    p.vendor_id = 0x10de;
    ck_assert_int_eq(occ__ze_profile(&p, &pr, NULL), OCC_OK);
    ck_assert(!pr.complete);
    /* Nothing usable reported. */
    p = recorded("tgllp");
    p.eus_per_subslice = 0;
    occ_diag d;
    ck_assert_int_eq(occ__ze_profile(&p, &pr, &d), OCC_ERR_DEVICE);
    ck_assert_ptr_nonnull(strstr(d.message, "incomplete"));
}
END_TEST

START_TEST(pci_id_and_signature_disagree)
{
    occ_ze_props p = recorded("tgllp");
    p.device_id = 0x9a49;       /* a Tiger Lake id */
    p.max_total_group_size = 1024; /* but not Xe-LP's limit */
    occ_ze_profile pr;
    ck_assert_int_eq(occ__ze_profile(&p, &pr, NULL), OCC_OK);
    ck_assert_int_eq(pr.ident.family->id, OCC_INTEL_FAMILY_XE_LP);
    ck_assert(!pr.ident.signature_agrees);
    ck_assert_ptr_nonnull(strstr(pr.ident.how, "do not fit"));
    ck_assert_str_eq(pr.matches, ""); /* max work-group differs from every Xe-LP profile */
}
END_TEST

/* zeKernelSuggestMaxCooperativeGroupCount as answered by the real driver for
 * the probe kernels (recorded), against the rule written down in the notes. */
typedef struct coop_row {
    uint32_t cores, eus, sg, wg;
    bool barrier;
    uint32_t slm, driver;
} coop_row;

static const coop_row coop_recorded[] = {
    /* tgllp: 6 DSS x 16 EU x 7 threads */
    {6, 16, 8, 320, false, 0, 16},      {6, 16, 8, 64, false, 0, 84},
    {6, 16, 8, 512, false, 0, 10},      {6, 16, 8, 256, false, 0, 21},
    {6, 16, 8, 8, true, 0, 192},        {6, 16, 8, 320, true, 0, 16},
    {6, 16, 8, 8, false, 1, 384},       {6, 16, 8, 8, false, 100, 384},
    {6, 16, 8, 8, false, 1024, 384},    {6, 16, 8, 8, false, 1025, 192},
    {6, 16, 8, 8, false, 2048, 192},    {6, 16, 8, 8, false, 3000, 96},
    {6, 16, 8, 8, false, 5000, 48},     {6, 16, 8, 8, false, 12288, 24},
    {6, 16, 8, 8, false, 40000, 6},     {6, 16, 8, 8, false, 65536, 6},
    {6, 16, 8, 8, true, 1024, 192},     {6, 16, 8, 8, true, 3000, 96},
    {6, 16, 8, 64, false, 16384, 24},   {6, 16, 8, 64, false, 65536, 6},
    {6, 16, 8, 64, false, 3000, 84},    {6, 16, 16, 64, true, 0, 168},
    {6, 16, 32, 64, true, 0, 192},      {6, 16, 16, 8, true, 0, 192},
    /* skl: 3 sub-slices x 8 EU x 7 threads */
    {3, 8, 8, 64, false, 0, 21},        {3, 8, 8, 256, false, 0, 5},
    {3, 8, 8, 64, false, 16384, 12},    {3, 8, 8, 64, false, 65536, 3},
};

START_TEST(driver_coop_rule_matches_recorded_answers)
{
    for (size_t i = 0; i < sizeof coop_recorded / sizeof coop_recorded[0]; i++) {
        const coop_row *c = &coop_recorded[i];
        uint32_t got = occ__intel_driver_coop_rule(c->cores, c->eus, 7, c->sg, c->wg, c->barrier,
                                                c->slm, 65536);
        ck_assert_msg(got == c->driver, "row %zu (W %u, SG %u, barrier %d, SLM %u): rule %u, driver %u",
                      i, c->wg, c->sg, c->barrier, c->slm, got, c->driver);
    }
    ck_assert_uint_eq(occ__intel_driver_coop_rule(0, 16, 7, 8, 64, false, 0, 65536), 0);
}
END_TEST

/* The same answers through the public occ_cooperative_max, on the profiles
 * of the products they were recorded on (tgllp: tgl, skl: gen9), for the
 * kernels as occ describes them. */
START_TEST(cooperative_max_equals_recorded_answers)
{
    occ_device *tgl = tc_builtin("tgl"), *gen9 = tc_builtin("gen9");
    for (size_t i = 0; i < sizeof coop_recorded / sizeof coop_recorded[0]; i++) {
        const coop_row *c = &coop_recorded[i];
        occ_kernel k = tc_kernel(c->wg, c->sg);
        k.barrier = c->barrier;
        k.slm_bytes = c->slm;
        uint64_t got = 1234;
        ck_assert_int_eq(occ_cooperative_max(c->cores == 6 ? tgl : gen9, &k, &got), OCC_OK);
        ck_assert_msg(got == c->driver, "row %zu (W %u, SG %u, barrier %d, SLM %u): %llu, driver %u", i, c->wg,
                      c->sg, c->barrier, c->slm, (unsigned long long)got, c->driver);
    }
    /* a kernel that cannot launch: none */
    occ_kernel big = tc_kernel(1024, 8);
    uint64_t got = 1234;
    ck_assert_int_eq(occ_cooperative_max(tgl, &big, &got), OCC_OK);
    ck_assert_uint_eq(got, 0);
    ck_assert_int_eq(occ_cooperative_max(tgl, NULL, &got), OCC_ERR_INVALID_ARGUMENT);
    occ_device_free(tgl);
    occ_device_free(gen9);
}
END_TEST

static void put_record(uint64_t *raw, size_t slot, uint32_t group, uint32_t sg, uint32_t slice,
                       uint32_t dss, uint32_t subslice, uint64_t t0, uint64_t t1)
{
    uint64_t *w = raw + slot * OCC_ZE_RECORD_WORDS;
    w[0] = OCC_ZE_RECORD_MAGIC;
    w[1] = group | (uint64_t)sg << 32;
    w[2] = 5 | (uint64_t)slice << 32;
    w[3] = dss | (uint64_t)subslice << 32;
    w[4] = 3 | (uint64_t)6 << 32;
    w[5] = t0;
    w[6] = t1;
    w[7] = 8;
}

START_TEST(records_map_physical_ids_to_dense_cores)
{
    enum { TPG = 2, SLOTS = 12 };
    uint64_t raw[SLOTS * OCC_ZE_RECORD_WORDS];
    memset(raw, 0, sizeof raw);
    /* Cores with gaps: (0,0) (0,2) (1,1); sub-slice ids differ within a DSS. */
    put_record(raw, 0, 0, 0, 0, 2, 4, 1000, 1500);
    put_record(raw, 1, 0, 1, 0, 2, 5, 1001, 1502);
    put_record(raw, 2, 1, 0, 1, 1, 2, 1010, 1600);
    put_record(raw, 3, 1, 1, 1, 1, 3, 1011, 1601);
    put_record(raw, 4, 2, 0, 0, 0, 0, 1100, 1700);
    /* slot 5 missing: that thread never ran */
    put_record(raw, 6, 9, 0, 0, 0, 0, 1100, 1700); /* wrong group for its slot */
    put_record(raw, 7, 3, 1, 0, 0, 0, 1200, 1100); /* ends before it starts */
    /* slots 8..11 missing */
    occ_record out[SLOTS];
    occ_ze_records_info info;
    occ__ze_records_convert(raw, SLOTS, TPG, true, 6, out, &info);
    ck_assert_uint_eq(info.written, 5);
    ck_assert_uint_eq(info.missing, 5);
    ck_assert_uint_eq(info.invalid, 2);
    ck_assert_uint_eq(info.cores_seen, 3);
    ck_assert_uint_eq(info.t_min, 1000);
    ck_assert_uint_eq(info.t_max, 1700);
    ck_assert_uint_eq(out[0].core_start, 1); /* (0,2) is the second of (0,0) (0,2) (1,1) */
    ck_assert_uint_eq(out[1].core_start, 1);
    ck_assert_uint_eq(out[2].core_start, 2);
    ck_assert_uint_eq(out[4].core_start, 0);
    ck_assert_uint_eq(out[0].t_start, 0);
    ck_assert_uint_eq(out[1].t_end, 502);
    ck_assert_uint_eq(out[3].work_group, 1);
    ck_assert_uint_eq(out[3].thread, 1);
    ck_assert_uint_eq(out[3].engine, 3);
    ck_assert_uint_eq(out[3].slot, 6);
    /* By sub-slice (Xe2, Gen9): every sub-slice id is its own core. */
    occ__ze_records_convert(raw, SLOTS, TPG, false, 6, out, &info);
    ck_assert_uint_eq(info.cores_seen, 5);
    ck_assert_uint_eq(info.written, 5);
    /* More cores in the records than the device has: invalid, not guessed. */
    occ__ze_records_convert(raw, SLOTS, TPG, false, 3, out, &info);
    ck_assert_uint_eq(info.written, 3);
    ck_assert_uint_eq(info.invalid, 4);
    /* Untouched buffer (the hardware-less driver): nothing written, all missing. */
    memset(raw, 0, sizeof raw);
    occ__ze_records_convert(raw, SLOTS, TPG, true, 6, out, &info);
    ck_assert_uint_eq(info.written, 0);
    ck_assert_uint_eq(info.missing, SLOTS);
}
END_TEST


/* What an executing device would write: raw records as the probe kernel lays
 * them out, from the simulator's own schedule, with physical Xe-core ids that
 * have gaps and a little start jitter.  Through the ze conversion and the
 * shared reconstruction the measured timeline must compare equal to the
 * prediction: the path a real validate run takes after the launch. */
typedef struct trace_buf {
    uint64_t *raw;
    uint32_t tpg;            /* threads (contexts) per work-group */
    uint32_t *next_thread;   /* per work-group: next sub-group index */
    double cycles_per_unit;
    size_t chunks;
} trace_buf;

static void trace_chunk(void *user, const occ_chunk *c)
{
    trace_buf *t = user;
    static const uint32_t dss_of_core[] = {0, 1, 2, 4, 5, 6}; /* id 3 fused off */
    for (uint32_t i = 0; i < c->contexts; i++) {
        uint32_t sg = t->next_thread[c->work_group]++;
        ck_assert_uint_lt(sg, t->tpg);
        uint64_t jitter = (c->work_group * 7 + sg) % 13; /* cycles */
        put_record(t->raw, c->work_group * t->tpg + sg, (uint32_t)c->work_group, sg, 0,
                   dss_of_core[c->core], 2 * dss_of_core[c->core] + (sg & 1),
                   5000 + (uint64_t)(c->dispatch * t->cycles_per_unit) + jitter,
                   5000 + (uint64_t)(c->end * t->cycles_per_unit));
    }
    t->chunks++;
}

static void executed_run_compares_equal(const char *profile, bool partial, uint32_t W, uint32_t S,
                                        uint64_t groups)
{
    occ_device *base = tc_builtin(profile);
    occ_device_desc d = *occ_device_describe(base);
    d.partial_dispatch = partial;
    occ_device *dev = NULL;
    ck_assert_int_eq(occ_device_create(&d, &dev, NULL), OCC_OK);
    occ_kernel k = tc_kernel(W, S);
    occ_residency r = tc_residency(dev, &k);
    trace_buf t = {0};
    t.tpg = r.contexts_per_wg;
    t.cycles_per_unit = 1e6; /* 1 ms work-groups at 1 GHz */
    t.raw = calloc(groups * t.tpg * OCC_ZE_RECORD_WORDS, sizeof(uint64_t));
    t.next_thread = calloc(groups, sizeof(uint32_t));
    ck_assert(t.raw && t.next_thread);
    occ_sim_options o;
    occ_sim_options_init(&o);
    o.trace = trace_chunk;
    o.trace_user = &t;
    occ_timeline sim;
    occ_timeline_init(&sim);
    ck_assert_int_eq(occ_timeline_simulate(dev, &k, groups, &o, &sim, NULL), OCC_OK);
    occ_timeline_free(&sim);

    size_t slots = groups * t.tpg;
    occ_record *recs = calloc(slots, sizeof *recs);
    occ_ze_records_info info;
    occ__ze_records_convert(t.raw, slots, t.tpg, true, d.cores, recs, &info);
    ck_assert_uint_eq(info.written, slots);
    ck_assert_uint_eq(info.missing + info.invalid, 0);
    ck_assert_uint_le(info.cores_seen, d.cores);
    if (groups >= (uint64_t)d.cores * r.resident_wgs)
        ck_assert_uint_eq(info.cores_seen, d.cores);

    occ_measure_params p;
    occ_measure_params_init(&p);
    p.cores = d.cores;
    p.contexts_per_core = r.contexts_per_core;
    p.contexts_per_wg = r.contexts_per_wg;
    p.tick_seconds = 1e-9;
    p.lanes = true;
    occ_timeline measured, predicted;
    occ_timeline_init(&measured);
    occ_timeline_init(&predicted);
    occ_measure_info mi;
    occ_measure_info_init(&mi);
    occ_diag diag;
    ck_assert_msg(occ_timeline_from_records(recs, info.written, &p, &measured, &mi, &diag) == OCC_OK,
                  "%s", diag.message);
    ck_assert_int_eq(occ_validation_predict(dev, &k, groups, &predicted), OCC_OK);
    occ_comparison cmp;
    ck_assert_int_eq(occ_timeline_compare(&predicted, mi.median_wg_s, &measured, NULL, &cmp), OCC_OK);
    ck_assert_msg(cmp.pass, "%s W %u S %u x %llu: %s", profile, W, S, (unsigned long long)groups,
                  cmp.summary);
    ck_assert_uint_eq(cmp.measured_peak_per_core, r.resident_wgs);
    ck_assert_uint_eq(mi.cores_used, info.cores_seen);
    occ_timeline_free(&measured);
    occ_timeline_free(&predicted);
    free(recs);
    free(t.raw);
    free(t.next_thread);
    occ_device_free(dev);
    occ_device_free(base);
}

START_TEST(executed_records_rebuild_the_predicted_timeline)
{
    executed_run_compares_equal("tgl", false, 320, 8, 24);  /* two full waves, 2 per Xe-core */
    executed_run_compares_equal("tgl", false, 320, 8, 17);  /* a partial last wave */
    executed_run_compares_equal("tgl", true, 448, 8, 30);   /* 56 contexts: no idle ones */
    executed_run_compares_equal("tgl", false, 64, 16, 200); /* 28 per Xe-core */
    executed_run_compares_equal("rkl", false, 512, 32, 9);
}
END_TEST

START_TEST(driver_note_explains_the_difference)
{
    occ_device *tgl = tc_builtin("tgl");
    char buf[512];
    occ_kernel k = tc_kernel(320, 8);
    occ__ze_driver_note(tgl, 7, &k, 16, buf, sizeof buf);
    ck_assert_ptr_nonnull(strstr(buf, "16 work-groups"));
    ck_assert_ptr_nonnull(strstr(buf, "2 per Xe-core x 6 = 12"));
    ck_assert_ptr_nonnull(strstr(buf, "pools"));
    ck_assert_ptr_nonnull(strstr(buf, "672 / 40"));
    k = tc_kernel(64, 8);
    occ__ze_driver_note(tgl, 7, &k, 84, buf, sizeof buf);
    ck_assert_ptr_nonnull(strstr(buf, "agree"));
    /* Barrier: the driver caps at 32 per core, the calculator's figure is 64. */
    k = tc_kernel(8, 8);
    k.barrier = true;
    occ__ze_driver_note(tgl, 7, &k, 192, buf, sizeof buf);
    ck_assert_ptr_nonnull(strstr(buf, "64 per Xe-core x 6 = 384"));
    ck_assert_ptr_nonnull(strstr(buf, "rule"));
    occ__ze_driver_note(tgl, 7, &k, -1, buf, sizeof buf);
    ck_assert_str_eq(buf, "");
    occ_device_free(tgl);
}
END_TEST

static Suite *ze_suite(void)
{
    Suite *s = suite_create("ze-family");
    TCase *tc = tcase_create("profile");
    tcase_add_loop_test(tc, recorded_devices_match_shipped_profiles, 0,
                        (int)(sizeof products / sizeof products[0]));
    tcase_add_test(tc, subslices_are_not_xe_cores);
    tcase_add_test(tc, unknown_ids_fall_back_to_the_signature);
    tcase_add_test(tc, unknown_family_is_incomplete_not_invented);
    tcase_add_test(tc, pci_id_and_signature_disagree);
    suite_add_tcase(s, tc);
    tc = tcase_create("driver");
    tcase_add_test(tc, driver_coop_rule_matches_recorded_answers);
    tcase_add_test(tc, cooperative_max_equals_recorded_answers);
    tcase_add_test(tc, records_map_physical_ids_to_dense_cores);
    tcase_add_test(tc, driver_note_explains_the_difference);
    tcase_add_test(tc, executed_records_rebuild_the_predicted_timeline);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tc_run(ze_suite()); }
