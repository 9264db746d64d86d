/* Private to libocc: how a kernel reader fills a set.
 *
 * kernel_set.c reads the file, recognises its format (occ__kernel_detect)
 * and calls the reader that readers.c lists for it.  A reader appends one
 * occ_kernel_info per kernel (occ__kset_add), may leave a note for reports
 * (occ__kset_note), and on failure returns a status with diag filled
 * (occ__diag, key NULL, the file as origin). */
#ifndef OCC_KERNEL_SET_H
#define OCC_KERNEL_SET_H

#include "common/internal.h"
#include "occ/kernels.h"

/* A reader's budget, so that reading costs time linear in the input however
 * hostile it is: work (bytes of names compared or copied, metadata entries
 * and YAML nodes visited) and decompressed output, both proportional to the
 * input's size.  Spent budget is sticky: every later charge fails, and
 * occ_kernels_read_memory refuses the file whatever the reader returned. */
typedef struct occ__read_budget {
    uint64_t work_left;
    uint64_t unpack_left;
    uint64_t work_used, unpacked; /* for the message and the tests */
    bool exceeded;
    char what[160];               /* what ran out: "decompressed SASS for sm_90" */
} occ__read_budget;

struct occ_kernel_set {
    occ_kernel_format format;
    char origin[256];
    char note[512];
    occ_kernel_info *v;
    size_t n, cap;
    size_t input_size;
    occ__read_budget budget;
};

typedef occ_status (*occ__kernel_reader)(occ_kernel_set *s, const uint8_t *data, size_t size,
                                         const occ_kernel_read_options *o, occ_diag *diag);

/* The reader of a format, or NULL when this build has none (readers.c). */
occ__kernel_reader occ__kernel_reader_for(occ_kernel_format f);

/* The format of a buffer from its first bytes; OCC_KFMT_UNKNOWN if none. */
occ_kernel_format occ__kernel_detect(const uint8_t *data, size_t size);

/* What a buffer of no kernel format is, for the refusal: "an x86-64 ELF
 * executable with no .nv_fatbin section: no GPU kernels occ can read". */
void occ__kernel_describe_unknown(const uint8_t *data, size_t size, char *out, size_t out_size);

/* An info with struct_size set and everything else zero. */
void occ__kinfo_init(occ_kernel_info *ki);

/* Append a copy of ki.  ki->name points to the kernel's name as the file
 * spells it (any length, valid until this call returns): the set keeps its
 * own copy as `mangled` and a demangled `name`.  OCC_ERR_NO_MEMORY (diag
 * filled) on failure; OCC_ERR_PARSE when the names exceed the budget. */
occ_status occ__kset_add(occ_kernel_set *s, const occ_kernel_info *ki, occ_diag *diag);

/* Budget: per unit of input, how much work and decompressed output a read
 * may cost; a floor lets small files hold ordinary content; a cap bounds
 * the memory of the largest. */
#define OCC__WORK_PER_INPUT_BYTE 32u
#define OCC__WORK_FLOOR ((uint64_t)1 << 20)
#define OCC__UNPACK_PER_INPUT_BYTE 64u
#define OCC__UNPACK_FLOOR ((uint64_t)16 << 20)
#define OCC__UNPACK_CAP ((uint64_t)1 << 30)

/* Spend units of work; false once the budget is spent (then always). */
bool occ__kset_charge(occ_kernel_set *s, uint64_t units);

/* Reserve bytes of decompressed output for what (a short phrase);
 * false (budget spent) when they exceed what is left.  Output is work to
 * read too: the work budget grows with it. */
bool occ__kset_unpack(occ_kernel_set *s, uint64_t bytes, const char *what);

/* a and b are equal strings; the bytes compared are charged (false once
 * the budget is spent). */
bool occ__kset_streq(occ_kernel_set *s, const char *a, const char *b);

/* The refusal of a file that spent its budget (OCC_ERR_PARSE). */
occ_status occ__kset_budget_diag(const occ_kernel_set *s, occ_diag *diag);

/* Append to the set's note ("; " between parts). */
void occ__kset_note(occ_kernel_set *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
