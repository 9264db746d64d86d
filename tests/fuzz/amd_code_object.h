/* A minimal AMDGPU code object around given metadata bytes, for the AMD
 * reader's unit test and fuzz target: an ELF64 header (EM_AMDGPU), a .note
 * section with one note of owner "AMDGPU" and type NT_AMDGPU_METADATA (32)
 * whose descriptor is the bytes, and the section name table.  desc_size
 * overrides the note's stated descriptor size (for truncated notes);
 * UINT32_MAX keeps the real one. */
#ifndef OCC_TESTS_AMD_CODE_OBJECT_H
#define OCC_TESTS_AMD_CODE_OBJECT_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void amd_put(uint8_t *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* malloc'd; *size set.  NULL when out of memory. */
static uint8_t *amd_code_object(const uint8_t *meta, size_t n, uint32_t desc_size, size_t *size)
{
    static const char names[] = "\0.note\0.shstrtab";
    size_t note = 64, note_size = 12 + 8 + ((n + 3) & ~(size_t)3);
    size_t strtab = note + note_size, shoff = (strtab + sizeof names + 7) & ~(size_t)7;
    *size = shoff + 3 * 64;
    uint8_t *d = calloc(1, *size);
    if (!d)
        return NULL;
    memcpy(d, "\177ELF\2\1\1", 7);
    d[7] = 64;                       /* ELFOSABI_AMDGPU_HSA */
    amd_put(d + 16, 1, 2);           /* ET_REL */
    amd_put(d + 18, 224, 2);         /* EM_AMDGPU */
    amd_put(d + 20, 1, 4);
    amd_put(d + 40, shoff, 8);
    amd_put(d + 52, 64, 2);
    amd_put(d + 58, 64, 2);
    amd_put(d + 60, 3, 2);
    amd_put(d + 62, 2, 2);
    amd_put(d + note, 7, 4);
    amd_put(d + note + 4, desc_size == UINT32_MAX ? n : desc_size, 4);
    amd_put(d + note + 8, 32, 4);
    memcpy(d + note + 12, "AMDGPU", 7);
    if (n)
        memcpy(d + note + 20, meta, n);
    memcpy(d + strtab, names, sizeof names);
    uint8_t *sh = d + shoff + 64; /* section 1: .note */
    amd_put(sh, 1, 4);
    amd_put(sh + 4, 7, 4);
    amd_put(sh + 24, note, 8);
    amd_put(sh + 32, note_size, 8);
    amd_put(sh + 48, 4, 8);
    sh += 64;                     /* section 2: .shstrtab */
    amd_put(sh, 7, 4);
    amd_put(sh + 4, 3, 4);
    amd_put(sh + 24, strtab, 8);
    amd_put(sh + 32, sizeof names, 8);
    amd_put(sh + 48, 1, 8);
    return d;
}

#endif
