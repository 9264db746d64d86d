/* occ's forms of one set of questions, for the benchmarks against the
 * vendors' calls (bench_ze_reference, bench_cuda_reference): one pass of each
 * form asks every question once, to be timed with bench_alternate beside the
 * vendor's own passes. */
#ifndef OCC_BENCH_OCC_FORMS_H
#define OCC_BENCH_OCC_FORMS_H

#include <stddef.h>
#include <stdint.h>

#include "occ/advise.h"
#include "occ/occ.h"

typedef struct occ_forms {
    const occ_device *dev;
    const occ_kernel *ks;
    size_t n_one;             /* one by one: ks[0 .. n_one - 1], in turn */
    size_t n_batch;           /* batched: ks[0 .. n_batch - 1] in one call */
    occ_residency *rs;        /* n_batch results */
    const occ_prepared *prep; /* asked ks[i].wg[0] x 1 x 1 with ks[i].slm_bytes of dynamic memory */
    const occ_columns *in;    /* ks as n_batch columns */
    occ_eval_columns *out;
} occ_forms;

/* ctx: an occ_forms; *acc gets the answers (the compiler keeps the work) */
void occ_forms_compact(const void *ctx, uint64_t *acc);  /* occ_evaluate, n_one */
void occ_forms_full(const void *ctx, uint64_t *acc);     /* occ_residency_compute, n_one */
void occ_forms_prepared(const void *ctx, uint64_t *acc); /* occ_prepared_evaluate, n_one */
void occ_forms_batch(const void *ctx, uint64_t *acc);    /* occ_residency_batch, n_batch */
void occ_forms_columns(const void *ctx, uint64_t *acc);  /* occ_evaluate_columns, n_batch */

#endif
