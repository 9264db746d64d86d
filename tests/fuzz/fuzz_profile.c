/* Fuzz target: YAML profile loading.
 *
 * Feeds the input to occ_device_load_yaml.  Beyond "does not crash", it checks
 * what must hold for every input:
 *  - a rejection has a known status and a non-empty message;
 *  - an accepted profile survives occ_device_write_yaml and loads again to the
 *    same description, sources and evidence (the writer and the loader agree);
 *  - the model answers every kernel of a small fixed set without breaking its
 *    own invariants (resident <= every limit, contexts used <= contexts).
 * A broken property aborts, which the fuzzer reports as a crash.
 *
 * Built with clang -fsanitize=fuzzer (tests/fuzz/build.sh) or, with gcc, into
 * the corpus replay driver (tests/fuzz/replay.c) that CI runs. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_fail.h"
#include "occ/occ.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REQUIRE(cond, ...)                                                                         \
    do {                                                                                           \
        if (!(cond))                                                                               \
            fuzz_fail("fuzz_profile: property broken: " __VA_ARGS__);                              \
    } while (0)

static void check_rejection(occ_status st, const occ_diag *diag)
{
    REQUIRE(st > OCC_OK && st < OCC_STATUS_COUNT, "status %d out of range", (int)st);
    REQUIRE(diag->status == st, "diag.status %d != returned %d", (int)diag->status, (int)st);
    REQUIRE(diag->message[0] != '\0', "rejected (%s) without a message", occ_status_name(st));
    REQUIRE(memchr(diag->message, '\0', sizeof diag->message) != NULL, "message not terminated");
    char text[1024];
    size_t n = occ_diag_format(diag, text, sizeof text);
    REQUIRE(n > 0 && strlen(text) < sizeof text, "occ_diag_format gave nothing");
}

/* The writer's output loads back to the same device. */
static void check_round_trip(const occ_device *dev)
{
    const occ_device_desc *d = occ_device_describe(dev);
    size_t ns = occ_device_source_count(dev);
    const char *src[64];
    REQUIRE(ns >= 1 && ns <= 64, "%zu sources", ns);
    for (size_t i = 0; i < ns; i++)
        src[i] = occ_device_source(dev, i);

    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem)
        return; /* out of memory: nothing to check */
    occ_status st = occ_device_write_yaml(d, src, ns, occ_device_dispatch_evidence(dev), mem);
    fclose(mem);
    REQUIRE(st == OCC_OK, "occ_device_write_yaml: %s", occ_status_name(st));

    occ_device *again = NULL;
    occ_diag diag;
    memset(&diag, 0, sizeof diag);
    st = occ_device_load_yaml(text, len, "<round-trip>", &again, &diag);
    if (st != OCC_OK) {
        char msg[1024];
        occ_diag_format(&diag, msg, sizeof msg);
        REQUIRE(0, "written profile does not load: %s\n--- written profile ---\n%.600s...", msg, text);
    }
    const occ_device_desc *e = occ_device_describe(again);
    REQUIRE(memcmp(d, e, sizeof *d) == 0, "description changed in the round trip (%s)", d->name);
    REQUIRE(occ_device_source_count(again) == ns, "source count changed");
    for (size_t i = 0; i < ns; i++)
        REQUIRE(strcmp(src[i], occ_device_source(again, i)) == 0, "source %zu changed", i);
    REQUIRE(strcmp(occ_device_dispatch_evidence(dev), occ_device_dispatch_evidence(again)) == 0,
            "evidence changed");
    occ_device_free(again);
    free(text);
}

static void check_model(const occ_device *dev)
{
    const occ_device_desc *d = occ_device_describe(dev);
    static const uint32_t wgs[] = {1, 7, 64, 320, 1024, 0 /* = device maximum */};
    static const uint64_t slms[] = {0, 1, 4096, 65536, 1u << 20};
    for (size_t w = 0; w < sizeof wgs / sizeof wgs[0]; w++)
        for (uint32_t s = 0; s <= d->n_sub_group_sizes; s++)
            for (size_t m = 0; m < sizeof slms / sizeof slms[0]; m++)
                for (int barrier = 0; barrier < 2; barrier++) {
                    occ_kernel k;
                    occ_kernel_init(&k);
                    k.wg[0] = wgs[w] ? wgs[w] : d->max_work_group_size;
                    k.sub_group = s < d->n_sub_group_sizes ? d->sub_group_sizes[s] : 0;
                    k.slm_bytes = slms[m];
                    k.barrier = barrier;
                    k.regs_per_thread = d->has_register_file ? 64 : 0;
                    occ_residency r;
                    occ_status st = occ_residency_compute(dev, &k, &r);
                    REQUIRE(st == OCC_OK, "occ_residency_compute: %s", occ_status_name(st));
                    if (!r.launchable)
                        continue;
                    REQUIRE(r.resident_wgs >= 1, "launchable with 0 work-groups");
                    for (int i = 0; i < OCC_RES_COUNT; i++)
                        REQUIRE(r.resident_wgs <= r.limits[i], "resident %u over limit %s %u",
                                r.resident_wgs, occ_resource_name((occ_resource)i), r.limits[i]);
                    REQUIRE(r.contexts_used <= r.contexts_per_core, "contexts %u > %u",
                            r.contexts_used, r.contexts_per_core);
                    REQUIRE(r.occupancy >= 0 && r.occupancy <= 1.0, "occupancy %g", r.occupancy);
                    occ_gpu g;
                    if (occ_gpu_compute(dev, &r, 1000003, &g) == OCC_OK)
                        REQUIRE(g.waves >= 1 && g.average_occupancy <= 1.0 + 1e-9,
                                "waves %llu, average %g", (unsigned long long)g.waves,
                                g.average_occupancy);
                    occ_next_step steps[8];
                    size_t n = occ_next_steps(dev, &k, steps, 8);
                    for (size_t i = 0; i < n && i < 8; i++) {
                        char line[512];
                        occ_next_step_format(dev, &steps[i], line, sizeof line);
                    }
                }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    occ_device *dev = NULL;
    occ_diag diag;
    memset(&diag, 0, sizeof diag);
    occ_status st = occ_device_load_yaml((const char *)data, size, "<fuzz>", &dev, &diag);
    if (st != OCC_OK) {
        REQUIRE(dev == NULL, "failed load returned a device");
        check_rejection(st, &diag);
        return 0;
    }
    REQUIRE(dev != NULL, "OCC_OK without a device");
    check_round_trip(dev);
    check_model(dev);
    occ_device_free(dev);
    return 0;
}
