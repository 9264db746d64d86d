/* A bounds-checked ELF64 view (see elf.h). */
#define _GNU_SOURCE /* memrchr */
#include "kernels/elf.h"

#include <string.h>

enum { EHDR_SIZE = 64, SHDR_SIZE = 64, SYM_SIZE = 24 };

static bool raw_section(const occ__elf *e, size_t i, occ__elf_section *s, uint32_t *name_off);

/* [off, off + len) lies inside a buffer of n bytes */
static bool inside(uint64_t off, uint64_t len, size_t n)
{
    return off <= n && len <= n - off;
}

occ_status occ__elf_open(occ__elf *e, const void *data, size_t size, const char *origin,
                         occ_diag *diag)
{
    const uint8_t *d = data;
    memset(e, 0, sizeof *e);
    if (size < EHDR_SIZE || memcmp(d, "\177ELF", 4) != 0)
        return occ__diag(diag, OCC_ERR_PARSE, origin, 0, 0, NULL,
                         "truncated ELF header (%zu bytes)", size);
    if (d[4] != 2 || d[5] != 1)
        return occ__diag(diag, OCC_ERR_PARSE, origin, 0, 0, NULL,
                         "not a little-endian 64-bit ELF file (class %u, data %u)", d[4], d[5]);
    e->data = d;
    e->size = size;
    e->osabi = d[7];
    e->abiversion = d[8];
    e->type = occ__rd16(d + 16);
    e->machine = occ__rd16(d + 18);
    e->shoff = occ__rd64(d + 40);
    e->flags = occ__rd32(d + 48);
    e->shentsize = occ__rd16(d + 58);
    e->shnum = occ__rd16(d + 60);
    e->shstrndx = occ__rd16(d + 62);
    if (e->shnum == 0)
        return occ__diag(diag, OCC_ERR_PARSE, origin, 0, 0, NULL, "ELF file without sections");
    if (e->shentsize != SHDR_SIZE)
        return occ__diag(diag, OCC_ERR_PARSE, origin, 0, 0, NULL,
                         "ELF section header size %u, expected %u", e->shentsize, SHDR_SIZE);
    if (!inside(e->shoff, (uint64_t)e->shnum * SHDR_SIZE, size))
        return occ__diag(diag, OCC_ERR_PARSE, origin, 0, 0, NULL,
                         "truncated ELF section header table (%u sections at offset %llu, "
                         "file of %zu bytes)",
                         e->shnum, (unsigned long long)e->shoff, size);
    if (e->shstrndx >= e->shnum)
        return occ__diag(diag, OCC_ERR_PARSE, origin, 0, 0, NULL,
                         "ELF section name table index %u out of range", e->shstrndx);
    occ__elf_section names;
    uint32_t unused;
    if (!raw_section(e, e->shstrndx, &names, &unused))
        return occ__diag(diag, OCC_ERR_PARSE, origin, 0, 0, NULL,
                         "ELF section name table lies outside the file");
    e->names_end = occ__elf_strings_end(&names);
    for (size_t i = 0; i < e->shnum; i++) {
        occ__elf_section s;
        if (!occ__elf_get_section(e, i, &s))
            return occ__diag(diag, OCC_ERR_PARSE, origin, 0, 0, NULL,
                             "ELF section %zu lies outside the file", i);
    }
    return OCC_OK;
}

/* Header fields of section i, without resolving its name. */
static bool raw_section(const occ__elf *e, size_t i, occ__elf_section *s, uint32_t *name_off)
{
    if (i >= e->shnum)
        return false;
    const uint8_t *h = e->data + e->shoff + i * SHDR_SIZE;
    memset(s, 0, sizeof *s);
    *name_off = occ__rd32(h);
    s->type = occ__rd32(h + 4);
    s->flags = occ__rd64(h + 8);
    s->addr = occ__rd64(h + 16);
    uint64_t off = occ__rd64(h + 24);
    s->size = occ__rd64(h + 32);
    s->link = occ__rd32(h + 40);
    s->info = occ__rd32(h + 44);
    s->entsize = occ__rd64(h + 56);
    if (s->type == OCC__SHT_NOBITS || s->type == 0)
        return true;
    if (!inside(off, s->size, e->size))
        return false;
    s->data = e->data + off;
    return true;
}

const char *occ__elf_string(const occ__elf_section *strtab, uint64_t off)
{
    if (!strtab->data || off >= strtab->size)
        return NULL;
    const char *p = (const char *)strtab->data + off;
    return memchr(p, 0, strtab->size - off) ? p : NULL;
}

uint64_t occ__elf_strings_end(const occ__elf_section *strtab)
{
    if (!strtab->data || strtab->size == 0)
        return 0;
    const uint8_t *last = memrchr(strtab->data, 0, (size_t)strtab->size);
    return last ? (uint64_t)(last - strtab->data) + 1 : 0;
}

const char *occ__elf_string_before(const occ__elf_section *strtab, uint64_t end, uint64_t off)
{
    return strtab->data && off < end ? (const char *)strtab->data + off : NULL;
}

bool occ__elf_get_section(const occ__elf *e, size_t i, occ__elf_section *s)
{
    uint32_t name_off, unused;
    occ__elf_section names;
    if (!raw_section(e, i, s, &name_off) || !raw_section(e, e->shstrndx, &names, &unused))
        return false;
    const char *name = occ__elf_string_before(&names, e->names_end, name_off);
    s->name = name ? name : "";
    return true;
}

bool occ__elf_find(const occ__elf *e, const char *name, occ__elf_section *s)
{
    for (size_t i = 0; i < e->shnum; i++)
        if (occ__elf_get_section(e, i, s) && strcmp(s->name, name) == 0)
            return true;
    return false;
}

bool occ__elf_symbol_at(const occ__elf *e, const occ__elf_section *symtab, size_t i,
                        occ__elf_symbol *sym)
{
    if (!symtab->data || symtab->entsize != SYM_SIZE || i >= symtab->size / SYM_SIZE)
        return false;
    const uint8_t *p = symtab->data + i * SYM_SIZE;
    occ__elf_section strtab;
    if (!occ__elf_get_section(e, symtab->link, &strtab))
        return false;
    const char *name = occ__elf_string(&strtab, occ__rd32(p));
    sym->name = name ? name : "";
    sym->info = p[4];
    sym->other = p[5];
    sym->shndx = occ__rd16(p + 6);
    sym->value = occ__rd64(p + 8);
    sym->size = occ__rd64(p + 16);
    return true;
}
