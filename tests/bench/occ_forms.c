#include "occ_forms.h"

void occ_forms_compact(const void *ctx, uint64_t *acc)
{
    const occ_forms *f = ctx;
    occ_eval e;
    for (size_t i = 0; i < f->n_one; i++) {
        occ_evaluate(f->dev, &f->ks[i], &e);
        *acc += e.resident_wgs;
    }
}

void occ_forms_full(const void *ctx, uint64_t *acc)
{
    const occ_forms *f = ctx;
    occ_residency r;
    for (size_t i = 0; i < f->n_one; i++) {
        occ_residency_compute(f->dev, &f->ks[i], &r);
        *acc += r.resident_wgs;
    }
}

void occ_forms_prepared(const void *ctx, uint64_t *acc)
{
    const occ_forms *f = ctx;
    occ_eval e;
    for (size_t i = 0; i < f->n_one; i++) {
        occ_prepared_evaluate(f->prep, f->ks[i].wg[0], 1, 1, f->ks[i].slm_bytes, &e);
        *acc += e.resident_wgs;
    }
}

void occ_forms_batch(const void *ctx, uint64_t *acc)
{
    const occ_forms *f = ctx;
    occ_residency_batch(f->dev, f->ks, f->rs, f->n_batch);
    *acc += f->rs[f->n_batch - 1].resident_wgs;
}

void occ_forms_columns(const void *ctx, uint64_t *acc)
{
    const occ_forms *f = ctx;
    occ_evaluate_columns(f->dev, f->n_batch, f->in, f->out);
    *acc += f->out->resident_wgs[f->n_batch - 1];
}
