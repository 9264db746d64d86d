/* libFuzzer target: the Intel native-binary readers (zebin with its .ze_info
 * YAML, patch tokens bare or inside the OpenCL ELF).  Inputs that are not
 * ELF or "CTNI" are skipped: the other formats either compile (SPIR-V,
 * OpenCL C: a driver, not a parser) or belong to other readers.
 *
 * Properties: no crash, no sanitizer report; a failure has a message and no
 * set; a success has kernels with a name and a SIMD width of 1, 8, 16 or 32. */
#include <stdint.h>
#include <string.h>

#include "fuzz_read.h"
#include "occ/kernels.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 4 || (memcmp(data, "\177ELF", 4) != 0 && memcmp(data, "CTNI", 4) != 0))
        return 0;
    occ_kernel_set *s = fuzz_read_kernels(data, size);
    if (!s)
        return 0;
    occ_kernel_format f = occ_kernel_set_format(s);
    if (f != OCC_KFMT_ZEBIN && f != OCC_KFMT_PATCHTOKENS && f != OCC_KFMT_CUBIN &&
        f != OCC_KFMT_AMDGPU && f != OCC_KFMT_OFFLOAD_BUNDLE)
        fuzz_fail("read as %s", occ_kernel_format_name(f));
    for (size_t i = 0; i < occ_kernel_set_count(s); i++) {
        const occ_kernel_info *k = occ_kernel_set_get(s, i);
        if (k->vendor == OCC_VENDOR_INTEL && k->simd != 1 && k->simd != 8 && k->simd != 16 &&
            k->simd != 32)
            fuzz_fail("kernel %s: SIMD %u", k->name, k->simd);
    }
    occ_kernel_set_free(s);
    return 0;
}
