/* The read shared by the kernel-file fuzz targets (fuzz_kernels.c,
 * fuzz_amdgpu.c): occ_kernels_read_memory without a device, so nothing is
 * compiled, and the properties every reader keeps: a rejection has no set
 * and a message; a success has kernels, each with a name that
 * occ_kernel_set_find finds again.  NULL after a rejection. */
#ifndef OCC_FUZZ_READ_H
#define OCC_FUZZ_READ_H

#include <stdint.h>
#include <string.h>

#include "fuzz_fail.h"
#include "occ/kernels.h"

static inline occ_kernel_set *fuzz_read_kernels(const uint8_t *data, size_t size)
{
    occ_kernel_set *s = NULL;
    occ_diag diag;
    memset(&diag, 0, sizeof diag);
    occ_status st = occ_kernels_read_memory(data, size, "fuzz", NULL, &s, &diag);
    if (st != OCC_OK) {
        if (s)
            fuzz_fail("status %d with a set", st);
        if (!diag.message[0])
            fuzz_fail("status %d without a message", st);
        return NULL;
    }
    size_t n = occ_kernel_set_count(s);
    if (n == 0)
        fuzz_fail("success without kernels");
    for (size_t i = 0; i < n; i++) {
        const occ_kernel_info *k = occ_kernel_set_get(s, i);
        if (!k->name || !k->name[0] || !k->mangled || !k->mangled[0])
            fuzz_fail("kernel %zu: bad name", i);
        if (occ_kernel_set_find(s, k->name) == NULL)
            fuzz_fail("kernel %s not found by name", k->name);
    }
    return s;
}

#endif
