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

struct occ_kernel_set {
    occ_kernel_format format;
    char origin[256];
    char note[512];
    occ_kernel_info *v;
    size_t n, cap;
};

typedef occ_status (*occ__kernel_reader)(occ_kernel_set *s, const uint8_t *data, size_t size,
                                         const occ_kernel_read_options *o, occ_diag *diag);

/* The reader of a format, or NULL when this build has none (readers.c). */
occ__kernel_reader occ__kernel_reader_for(occ_kernel_format f);

/* The format of a buffer from its first bytes; OCC_KFMT_UNKNOWN if none. */
occ_kernel_format occ__kernel_detect(const uint8_t *data, size_t size);

/* An info with struct_size set and everything else zero. */
void occ__kinfo_init(occ_kernel_info *ki);

/* Append a copy of ki; OCC_ERR_NO_MEMORY (diag filled) on failure. */
occ_status occ__kset_add(occ_kernel_set *s, const occ_kernel_info *ki, occ_diag *diag);

/* Append to the set's note ("; " between parts). */
void occ__kset_note(occ_kernel_set *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
