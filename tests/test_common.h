/* Helpers shared by the Check unit tests: opening devices, building kernels,
 * a deterministic PRNG and a field-by-field comparison of device descriptions. */
#ifndef OCC_TEST_COMMON_H
#define OCC_TEST_COMMON_H

#include <check.h>
#include <stdbool.h>
#include <stdint.h>

#include "occ/occ.h"

/* A built-in device; fails the current test if it does not load. */
occ_device *tc_builtin(const char *name);

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

/* Compare two descriptions field by field; on a difference writes the field's
 * name into what (if not NULL) and returns false. */
bool tc_desc_equal(const occ_device_desc *a, const occ_device_desc *b, const char **what);

/* Run a suite with Check's normal output; returns the process exit code. */
int tc_run(Suite *s);

#endif
