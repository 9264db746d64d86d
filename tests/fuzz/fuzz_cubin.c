/* Fuzz target: the cubin reader (libocc/src/kernels/cubin.c).  The input's
 * first bytes become a little-endian ELF64 header for EM_CUDA, so the
 * mutations land in what the reader looks at; fuzz_nvidia.h says what is
 * checked.  Seeds: tests/fuzz/corpus/cubin (tests/kernels/nvidia/build.sh). */
#include "fuzz_nvidia.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const uint8_t elf[6] = {0x7f, 'E', 'L', 'F', 2, 1};
    int r = fuzz_nvidia(data, size, elf, sizeof elf, 0);
    if (size >= 20) { /* and as EM_CUDA */
        uint8_t *copy = malloc(size);
        if (copy) {
            memcpy(copy, data, size);
            copy[18] = 190;
            copy[19] = 0;
            r = fuzz_nvidia(copy, size, elf, sizeof elf, 0);
            free(copy);
        }
    }
    return r;
}
