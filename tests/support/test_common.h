/* Helpers shared by the Check unit tests: opening devices, building kernels,
 * a deterministic PRNG and a field-by-field comparison of device descriptions. */
#ifndef OCC_TEST_COMMON_H
#define OCC_TEST_COMMON_H

#include <check.h>
#include <stdbool.h>
#include <stdint.h>

#include "occ/occ.h"
#include "occ/timeline.h"

/* A built-in device; fails the current test if it does not load. */
occ_device *tc_builtin(const char *name);

/* dev's description written as YAML (occ_device_write_yaml, no sources,
 * this dispatch evidence or NULL) into memory, its length in *len; free() it.
 * Fails the current test if writing fails. */
char *tc_yaml_of(const occ_device *dev, const char *evidence, size_t *len);

/* A 1-D kernel: work-group W, sub-group S (0 = default), everything else default. */
occ_kernel tc_kernel(uint32_t W, uint32_t S);

/* Residency of k on dev; fails the test unless occ_residency_compute says OK. */
occ_residency tc_residency(const occ_device *dev, const occ_kernel *k);

/* Resident work-groups, 0 when the kernel cannot launch. */
uint32_t tc_resident(const occ_device *dev, const occ_kernel *k);

/* splitmix64: small, fast, and the same sequence on every machine. */
typedef struct tc_rng {
    uint64_t state;
} tc_rng;
uint64_t tc_next(tc_rng *r);
/* Uniform in [lo, hi] (inclusive). */
uint64_t tc_range(tc_rng *r, uint64_t lo, uint64_t hi);

/* Random kernel for a device: mostly legal values, with a share of edge and
 * out-of-range values so that "cannot launch" paths are exercised too. */
occ_kernel tc_random_kernel(tc_rng *r, const occ_device_desc *d);

/* A random kernel for dev that launches with at least one resident
 * work-group (50 tries of tc_random_kernel, a barrier or not); false when
 * none did (the device then suits no simulation). */
bool tc_random_launchable(tc_rng *r, const occ_device *dev, occ_kernel *k, occ_residency *res);

/* Random simulation policies: order, partial work-groups, barrier split, merge. */
void tc_random_policies(tc_rng *r, occ_sim_options *o);

/* Chunks of a simulation's trace, collected by tc_trace_collect (the
 * occ_sim_options.trace callback; user: the tc_trace). Free c when done. */
typedef struct tc_trace {
    occ_chunk *c;
    size_t n, cap;
} tc_trace;
void tc_trace_collect(void *user, const occ_chunk *ch);

/* Compare two descriptions field by field; on a difference writes the field's
 * name into what (if not NULL) and returns false. */
bool tc_desc_equal(const occ_device_desc *a, const occ_device_desc *b, const char **what);

/* Run a suite with Check's normal output; returns the process exit code. */
/* The description with another core count: its GPCs (measured for the real
 * count; docs/clusters.md) go, so that it stays valid. */
void tc_desc_set_cores(occ_device_desc *d, uint32_t cores);

int tc_run(Suite *s);

#endif
