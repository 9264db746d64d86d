/* Fuzz target: the fatbin reader (libocc/src/kernels/fatbin.c) and, through
 * it, the cubin reader on the member it picks (compressed members go through
 * libzstd).  Inputs that start as an ELF file are read as host objects with
 * a .nv_fatbin section; others get the fatbin magic.  fuzz_nvidia.h says
 * what is checked.  Seeds: tests/fuzz/corpus/fatbin. */
#include "fuzz_nvidia.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const uint8_t magic[4] = {0x50, 0xed, 0x55, 0xba};
    if (size >= 4 && memcmp(data, "\177ELF", 4) == 0)
        return fuzz_nvidia(data, size, magic, 0, 0);
    return fuzz_nvidia(data, size, magic, sizeof magic, 0);
}
