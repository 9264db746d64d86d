/* The column batch (occ_evaluate_columns) over a device's tables, 4 or 8
 * kernels per instruction: every stage of eval_fast.h's launchable path as
 * vector arithmetic over lanes, with a flag for the lanes it does not answer
 * (cannot launch, or outside what the lanes cover), which are then answered
 * one by one by the scalar code (eval_fast.c).  The answers are the scalar
 * ones, byte for byte (tests/model/test_reference.c, with each instruction set
 * forced). */
#ifndef OCC_EVAL_COLUMNS_H
#define OCC_EVAL_COLUMNS_H

#include "model/eval_fast.h"

struct occ_columns;      /* occ/advise.h */
struct occ_eval_columns; /* occ/advise.h */
struct occ_eval;         /* occ/advise.h */

/* Which instructions: AUTO picks AVX2 (8 lanes) when the CPU has it (x86
 * builds with GCC or Clang), else the portable path (4 lanes: SSE2 on
 * x86-64, the compiler's generic vectors elsewhere).  The others force one
 * (tests); AVX2 only where occ__columns_have_avx2(). */
typedef enum occ__columns_isa {
    OCC__COLUMNS_AUTO = 0,
    OCC__COLUMNS_PORTABLE,
    OCC__COLUMNS_AVX2,
} occ__columns_isa;

/* The column batch's plan of a device (what a call needs of its description,
 * in the lanes' terms), made once with its tables: occ__device_new puts it
 * in the device's allocation, plan_size bytes at mem, after f, and records
 * where in f.  f: the device's tables, already made. */
size_t occ__columns_plan_size(void);
void occ__columns_plan_init(const occ_device *dev, occ__fast *f, void *mem);

/* Kernel i of columns in (a NULL column: its field's default). */
occ_kernel occ__columns_kernel(const struct occ_columns *in, size_t i);

/* Whether this build and CPU can run the AVX2 path. */
bool occ__columns_have_avx2(void);

/* n kernels of dev (whose tables are f) from columns into result columns, as
 * occ_evaluate_columns documents (arguments already checked).  false: the
 * device is outside what the vector path covers (nothing written); the
 * caller answers one by one. */
bool occ__eval_columns(const occ__fast *f, size_t n, const struct occ_columns *in,
                       struct occ_eval_columns *out, occ__columns_isa isa);

/* n kernels as structs through the lanes, read and written in place:
 * occ_evaluate_batch's answers into es, occ_residency_batch's into rs, the
 * same bytes as one by one.  A device the lanes do not cover, or a few
 * kernels, are answered one by one.  Stops before the first kernel whose
 * struct_size is too small (nothing written for it or after it); returns
 * how many were answered. */
size_t occ__eval_structs(const occ__fast *f, size_t n, const occ_kernel *ks,
                         struct occ_eval *es, occ__columns_isa isa);
size_t occ__residency_structs(const occ__fast *f, size_t n, const occ_kernel *ks,
                              occ_residency *rs, occ__columns_isa isa);

#endif
