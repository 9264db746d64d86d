/* Private to libocc: a bounds-checked view of a little-endian ELF64 file in
 * memory, for the readers of cubin and zebin.  Nothing is copied: sections
 * and names point into the caller's buffer, which must outlive the view.
 * Every offset and size is checked against the buffer once, in
 * occ__elf_open and occ__elf_get_section, so readers can trust what they get. */
#ifndef OCC_KERNELS_ELF_H
#define OCC_KERNELS_ELF_H

#include "common/internal.h"

typedef struct occ__elf {
    const uint8_t *data;
    size_t size;
    uint16_t type;       /* e_type */
    uint16_t machine;    /* e_machine: 190 CUDA, 205 Intel GT */
    uint32_t flags;      /* e_flags: cubin's architecture lives here */
    uint8_t osabi, abiversion;
    uint64_t shoff;
    uint16_t shnum, shentsize, shstrndx;
    uint64_t names_end;  /* section names: the offset after the last NUL of
                            the name table, so a name is checked in O(1) */
} occ__elf;

typedef struct occ__elf_section {
    const char *name;    /* NUL-terminated inside the buffer; "" when unnamed */
    uint32_t type;       /* sh_type */
    uint64_t flags;
    uint64_t addr;       /* sh_addr: where a linked file loads it (0 in relocatable ones) */
    const uint8_t *data; /* NULL for SHT_NOBITS (size is then the memory size) */
    uint64_t size;
    uint32_t link, info;
    uint64_t entsize;
} occ__elf_section;

enum { OCC__SHT_SYMTAB = 2, OCC__SHT_STRTAB = 3, OCC__SHT_NOBITS = 8, OCC__SHT_DYNSYM = 11 };

/* Check the header and the section table; OCC_ERR_PARSE with a message that
 * says what is wrong ("truncated section header table", ...). */
occ_status occ__elf_open(occ__elf *e, const void *data, size_t size, const char *origin,
                         occ_diag *diag);

/* Section i (0 <= i < e->shnum); false when it lies outside the file. */
bool occ__elf_get_section(const occ__elf *e, size_t i, occ__elf_section *s);

/* The first section of that name; false when none. */
bool occ__elf_find(const occ__elf *e, const char *name, occ__elf_section *s);

/* A NUL-terminated string at offset off of a string table section; NULL
 * when out of bounds or not terminated.  Scans for the terminator: for one
 * lookup.  Many lookups in one table use occ__elf_strings_end once and
 * occ__elf_string_before, which is O(1). */
const char *occ__elf_string(const occ__elf_section *strtab, uint64_t off);

/* The offset after the last NUL of a string table (0 when none): every
 * offset below it starts a terminated string. */
uint64_t occ__elf_strings_end(const occ__elf_section *strtab);

/* The string at off when off < end (end from occ__elf_strings_end); NULL
 * otherwise. */
const char *occ__elf_string_before(const occ__elf_section *strtab, uint64_t end, uint64_t off);

/* Symbol i of a symbol table section (SHT_SYMTAB, entsize 24): its name
 * (through the table's linked string table), value, size, section index,
 * info and other bytes (cubin marks kernels in st_other).  false when out of
 * bounds. */
typedef struct occ__elf_symbol {
    const char *name;
    uint64_t value, size;
    uint16_t shndx;
    uint8_t info, other;
} occ__elf_symbol;
bool occ__elf_symbol_at(const occ__elf *e, const occ__elf_section *symtab, size_t i,
                        occ__elf_symbol *sym);

static inline uint16_t occ__rd16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static inline uint32_t occ__rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t occ__rd64(const uint8_t *p)
{
    return (uint64_t)occ__rd32(p) | (uint64_t)occ__rd32(p + 4) << 32;
}

#endif
