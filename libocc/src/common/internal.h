/* Private to libocc: the device object and helpers shared by the sources. */
#ifndef OCC_INTERNAL_H
#define OCC_INTERNAL_H

#include "occ/occ.h"

#include <stdarg.h>
#include <string.h>

struct occ__fast; /* model/eval_fast.h: the model's tables, built once per device */

struct occ_device {
    occ_device_desc desc;
    /* then, in the same allocation, the residency tables (model/eval_fast.h) */
    char origin[256];
    char **sources;
    size_t n_sources;
    char *dispatch_evidence;
};

/* Fill a diagnostic (any of d, file, key may be NULL); returns status. */
/* Decimal numbers in files (profiles, record files) in the "C" locale's
 * form whatever the process's locale (common/c_numbers.c): strtod's twin,
 * and a bracket for printf-family writes. */
#include <locale.h>
typedef struct occ_c_numbers {
    locale_t previous;
} occ_c_numbers;
double occ__strtod_c(const char *s, char **end);
occ_c_numbers occ__c_numbers_begin(void);
void occ__c_numbers_end(occ_c_numbers saved);

occ_status occ__diag(occ_diag *d, occ_status status, const char *file, unsigned line,
                     unsigned column, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));

/* The library's early returns, one meaning each:
 * OCC__FAIL(diag, key, ...)  a check failed: fill diag (a value error at key,
 *                            no position) and return OCC_ERR_VALUE;
 * OCC__TRY(call)             a call failed: return its status unchanged.
 * (An evaluator that answers "cannot launch" is not a failure and says so:
 * model/eval_fast.c's CANNOT_LAUNCH.) */
#define OCC__FAIL(diag, key, ...) return occ__diag((diag), OCC_ERR_VALUE, NULL, 0, 0, (key), __VA_ARGS__)
#define OCC__TRY(x)                                                                                \
    do {                                                                                           \
        occ_status st_ = (x);                                                                      \
        if (st_)                                                                                   \
            return st_;                                                                            \
    } while (0)

/* Check a description; on failure fills diag (key set, no position). */
occ_status occ__desc_validate(const occ_device_desc *d, occ_diag *diag);

/* Device object from an already validated description (takes ownership of
 * sources and evidence, which may be NULL). */
occ_status occ__device_new(const occ_device_desc *desc, const char *origin, char **sources,
                           size_t n_sources, char *evidence, occ_device **out);

/* Per-core residency from a description (occ_residency_compute without the
 * argument checks), for the advisor's loops. */
void occ__residency_eval(const occ_device_desc *d, const occ_kernel *k, occ_residency *r);

/* memset(r, 0, sizeof *r) without the "rep stos" GCC emits for it, which
 * costs a quarter of a whole evaluation: 16-byte stores, unrolled by hand so
 * that the compiler does not turn them back into a memset. */
static inline void occ__zero_residency(occ_residency *r)
{
#if defined(__GNUC__)
    typedef unsigned char v16 __attribute__((vector_size(16), may_alias, aligned(1)));
    const v16 zero = {0};
    unsigned char *p = (unsigned char *)r;
#define Z16(i)                                                                                     \
    if (16 * (i) + 16 <= sizeof *r)                                                                \
        *(v16 *)(p + 16 * (i)) = zero;
    Z16(0) Z16(1) Z16(2) Z16(3) Z16(4) Z16(5) Z16(6) Z16(7) Z16(8) Z16(9) Z16(10) Z16(11)
    Z16(12) Z16(13) Z16(14) Z16(15) Z16(16) Z16(17) Z16(18) Z16(19) Z16(20) Z16(21)
#undef Z16
    _Static_assert(sizeof(occ_residency) <= 22 * 16, "occ__zero_residency: add stores");
    memset(p + sizeof *r / 16 * 16, 0, sizeof *r % 16);
#else
    memset(r, 0, sizeof *r);
#endif
}

/* occ_kernel_init's kernel (1x1x1, every field at its default), for code
 * that must not call the model's exported helpers. */
static inline void occ__default_kernel(occ_kernel *k)
{
    memset(k, 0, sizeof *k);
    k->struct_size = sizeof *k;
    k->wg[0] = k->wg[1] = k->wg[2] = 1;
    k->carveout_pct = -1;
}

/* How many of ks[0..n) come before the first with a struct_size too small
 * (a batch stops there). */
static inline size_t occ__kernels_valid(const occ_kernel *ks, size_t n)
{
    size_t good = 0;
    while (good < n && ks[good].struct_size >= sizeof *ks)
        good++;
    return good;
}

static inline void occ__reset_residency(occ_residency *r)
{
    occ__zero_residency(r);
    r->struct_size = sizeof *r;
    for (int i = 0; i < OCC_RES_COUNT; i++)
        r->limits[i] = OCC_NO_LIMIT;
}

/* Work-items of a work-group; saturates at UINT64_MAX (then "too large"). */
static inline uint64_t occ__wg_items(const occ_kernel *k)
{
    uint64_t xy = (uint64_t)k->wg[0] * k->wg[1], w;
    return __builtin_mul_overflow(xy, (uint64_t)k->wg[2], &w) ? UINT64_MAX : w;
}

/* Whether the kernel sets a field only a vendor's own row of the rule reads
 * (AMD's sgprs and cu_mode): the fast paths decline such a kernel. */
static inline bool occ__kernel_vendor_fields(const occ_kernel *k) { return (k->sgprs | k->cu_mode) != 0; }

static inline uint64_t occ__ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }
static inline uint64_t occ__round_up(uint64_t a, uint64_t m) { return occ__ceil_div(a, m) * m; }

#endif
