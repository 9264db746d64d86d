/* Private to libocc: Zstandard decompression for the kernel readers (NVIDIA
 * fatbin members, compressed clang offload bundles), through the system's
 * libzstd.so.1 opened when a file needs it, so that libocc has no link-time
 * dependency on it. */
#ifndef OCC_KERNELS_ZSTD_H
#define OCC_KERNELS_ZSTD_H

#include "common/internal.h"

/* Decompress the one Zstandard frame in src[0..n) that must hold exactly raw
 * bytes (1 <= raw <= max): the frame has to state that size before anything
 * is allocated, so a corrupt size costs nothing.  *out (malloc'd, the
 * caller frees it) on success.  what names the payload in messages ("SASS
 * for sm_90", "offload bundle"); remedy follows the message when libzstd.so.1 is missing
 * ("; or rebuild with ...").  Errors: OCC_ERR_UNSUPPORTED (no libzstd),
 * OCC_ERR_PARSE (not such a frame), OCC_ERR_NO_MEMORY. */
occ_status occ__zstd_decompress(const uint8_t *src, size_t n, uint64_t raw, uint64_t max,
                                const char *origin, const char *what, const char *remedy,
                                uint8_t **out, occ_diag *diag);

#endif
