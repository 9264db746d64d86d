/* Private to libocc: the Intel kernel readers (zebin.c, patchtokens.c) and
 * what they share.  spirv.c compiles SPIR-V and OpenCL C with the installed
 * Intel driver and hands the native binary it gets back to these readers. */
#ifndef OCC_KERNELS_INTEL_H
#define OCC_KERNELS_INTEL_H

#include "kernels/kernel_set.h"

/* An Intel native binary in either format: zebin (ELF with .ze_info) or
 * patch tokens ("CTNI" program, bare or inside the OpenCL ELF container the
 * driver's zeModuleGetNativeBinary returns).  target (may be NULL) is the
 * product the caller compiled for; it names the kernels' target when the
 * binary itself does not say. */
occ_status occ__read_zebin(occ_kernel_set *s, const uint8_t *data, size_t size,
                           const occ_kernel_read_options *o, occ_diag *diag);
occ_status occ__read_patchtokens(occ_kernel_set *s, const uint8_t *data, size_t size,
                                 const occ_kernel_read_options *o, occ_diag *diag);

/* SPIR-V and OpenCL C (spirv.c): compiled by the installed Intel driver for
 * the product of o->device, then read with the readers above. */
occ_status occ__read_spirv(occ_kernel_set *s, const uint8_t *data, size_t size,
                           const occ_kernel_read_options *o, occ_diag *diag);
occ_status occ__read_opencl_c(occ_kernel_set *s, const uint8_t *data, size_t size,
                              const occ_kernel_read_options *o, occ_diag *diag);

/* ELF e_type values of Intel binaries: the zebin types older compilers
 * write (with the product family in e_machine), and the OpenCL ELF
 * container types (0xff01 source .. 0xff05 debug) that wrap patch tokens. */
enum {
    OCC__ET_ZEBIN_REL = 0xff11,
    OCC__ET_ZEBIN_EXE = 0xff12,
    OCC__ET_ZEBIN_DYN = 0xff13,
    OCC__ET_OPENCL_FIRST = 0xff01,
    OCC__ET_OPENCL_LAST = 0xff05,
};

/* The product name ("tgllp") of an IGC product-family number, as this
 * driver generation numbers them; NULL when not known. */
const char *occ__intel_product_name(uint32_t product_family);

#endif
