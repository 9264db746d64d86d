/* Private to libocc: the AMD kernel readers (amdgpu.c: code objects;
 * offload_bundle.c: clang offload bundles, plain and compressed).
 * docs/kernels.md says what is read from where. */
#ifndef OCC_KERNELS_AMD_H
#define OCC_KERNELS_AMD_H

#include "kernels/kernel_set.h"

enum { OCC__EM_AMDGPU = 224 };

/* The first bytes of an offload bundle and of a compressed one. */
#define OCC__BUNDLE_MAGIC "__CLANG_OFFLOAD_BUNDLE__"
#define OCC__BUNDLE_MAGIC_LEN 24
#define OCC__CCOB_MAGIC "CCOB"

/* Append every kernel of an AMDGPU code object (an ELF file) to s; what
 * names the object in messages (the file, or "the gfx90a code object of the
 * bundle"). */
occ_status occ__amdgpu_collect(occ_kernel_set *s, const uint8_t *data, size_t size,
                               const char *what, occ_diag *diag);

/* The readers of readers.c. */
occ_status occ__amdgpu_read(occ_kernel_set *s, const uint8_t *data, size_t size,
                            const occ_kernel_read_options *o, occ_diag *diag);
occ_status occ__offload_bundle_read(occ_kernel_set *s, const uint8_t *data, size_t size,
                                    const occ_kernel_read_options *o, occ_diag *diag);

#endif
