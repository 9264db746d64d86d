/* The kernel readers on hostile files: each file is built here, in memory,
 * from the shapes that once made reading quadratic or worse, and the test
 * checks what the reader answers and that the work it did (the read
 * budget's counter, kernels/kernel_set.h) stays proportional to the size.
 *
 *  - duplicate entry symbols naming one kernel, with a long .nv.info.NAME
 *    (inside a fatbin, as found): one kernel, the section walked once;
 *  - a 3.5 MB cubin whose kernel name is 1 MB long, named by many symbols
 *    and sections: read, name intact;
 *  - many .text sections under one long name: refused by the budget, fast;
 *  - 64 Zstandard bombs (256 MB each from 9 KB) in one fatbin: refused from
 *    the sizes the headers state, before anything is decompressed;
 *  - a name over 255 characters beside a short one, names with ':' and
 *    control characters: read as they are, found by name;
 *  - a .ze_info whose kernel list is 100,000 YAML aliases of one large
 *    kernel: refused by the budget. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kernel_set.h"
#include "occ/kernels.h"
#include "test_common.h"

/* ---- a growable byte buffer ------------------------------------------------ */

typedef struct buf {
    uint8_t *d;
    size_t n, cap;
} buf;

static size_t put(buf *b, const void *p, size_t n)
{
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 64;
        b->d = realloc(b->d, b->cap);
        ck_assert_ptr_nonnull(b->d);
    }
    size_t at = b->n;
    if (p)
        memcpy(b->d + at, p, n);
    else
        memset(b->d + at, 0, n);
    b->n += n;
    return at;
}

static void wr16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8); }
static void wr32(uint8_t *p, uint32_t v) { wr16(p, (uint16_t)v), wr16(p + 2, (uint16_t)(v >> 16)); }
static void wr64(uint8_t *p, uint64_t v) { wr32(p, (uint32_t)v), wr32(p + 4, (uint32_t)(v >> 32)); }

static size_t put_str(buf *b, const char *s) { return put(b, s, strlen(s) + 1); }

static size_t put_u32(buf *b, uint32_t v)
{
    uint8_t x[4];
    wr32(x, v);
    return put(b, x, 4);
}

/* An ELF64 little-endian header: section headers of 64 bytes at shoff,
 * names in section 1. */
static void write_elf_header(uint8_t *e, uint16_t type, uint16_t machine, uint8_t abiversion,
                             uint32_t flags, uint64_t shoff, uint16_t shnum)
{
    memcpy(e, "\177ELF\2\1\1", 7);
    e[7] = machine == 190 ? 0x33 : 0; /* ELFOSABI_CUDA */
    e[8] = abiversion;
    wr16(e + 16, type);
    wr16(e + 18, machine);
    wr32(e + 20, 1);
    wr64(e + 40, shoff);
    wr32(e + 48, flags);
    wr16(e + 52, 64);
    wr16(e + 58, 64);
    wr16(e + 60, shnum);
    wr16(e + 62, 1);
}

/* ---- a cubin builder ------------------------------------------------------- */

/* kernels[i] gets .text.NAME and .nv.info.NAME (EIATTR_NUM_BARRIERS = 1,
 * repeated info_entries times for kernel 0) and a register count of 20 + i
 * in the global .nv.info.  Kernel 0 also gets dup_symbols more entry
 * symbols, same_name_texts more .text sections under its name (each with a
 * symbol of that name), and same_name_infos more .nv.info sections under
 * its name tied to its .text. */
typedef struct cubin_spec {
    const char *const *kernels;
    size_t n_kernels;
    size_t dup_symbols, info_entries, same_name_texts, same_name_infos;
} cubin_spec;

typedef struct shdr {
    uint32_t name, type, link, info;
    uint64_t off, size, entsize;
} shdr;

/* A global FUNC symbol marked as a CUDA entry (st_other 0x10) in section
 * text, named by offset name of the string table. */
static void put_entry_symbol(buf *sym, uint32_t name, uint32_t text)
{
    uint8_t s[24] = {0};
    wr32(s, name);
    s[4] = 0x12;
    s[5] = 0x10;
    wr16(s + 6, (uint16_t)text);
    put(sym, s, 24);
}

static uint8_t *build_cubin(const cubin_spec *c, size_t *size)
{
    buf shstr = {0}, str = {0}, sym = {0}, ginfo = {0};
    put(&shstr, NULL, 1);
    put(&str, NULL, 1);
    put(&sym, NULL, 24); /* symbol 0 */
    size_t nk = c->n_kernels;
    size_t n_sec = 5 + 2 * nk + c->same_name_texts + c->same_name_infos;
    shdr *sh = calloc(n_sec, sizeof *sh);
    buf *bodies = calloc(n_sec, sizeof *bodies);
    ck_assert(sh && bodies);
    /* 1 .shstrtab, 2 .strtab, 3 .symtab, 4 .nv.info, then per kernel .text, .nv.info.NAME */
    sh[1] = (shdr){.name = (uint32_t)put_str(&shstr, ".shstrtab"), .type = 3};
    sh[2] = (shdr){.name = (uint32_t)put_str(&shstr, ".strtab"), .type = 3};
    sh[3] = (shdr){.name = (uint32_t)put_str(&shstr, ".symtab"), .type = 2, .link = 2, .entsize = 24};
    sh[4] = (shdr){.name = (uint32_t)put_str(&shstr, ".nv.info"), .type = 0x70000000};
    size_t next = 5;
    uint32_t text0 = 0, text_name0 = 0, info_name0 = 0, sym_name0 = 0;
    for (size_t k = 0; k < nk; k++) {
        char *t = malloc(strlen(c->kernels[k]) + 16), *i = malloc(strlen(c->kernels[k]) + 16);
        sprintf(t, ".text.%s", c->kernels[k]);
        sprintf(i, ".nv.info.%s", c->kernels[k]);
        uint32_t text = (uint32_t)next++, info = (uint32_t)next++;
        sh[text] = (shdr){.name = (uint32_t)put_str(&shstr, t), .type = 1};
        put(&bodies[text], "\0\0\0\0\0\0\0\0", 8);
        sh[info] = (shdr){.name = (uint32_t)put_str(&shstr, i), .type = 0x70000000, .info = text};
        size_t entries = k == 0 && c->info_entries ? c->info_entries : 1;
        for (size_t e = 0; e < entries; e++) {
            uint8_t ent[4] = {2 /* BVAL */, 0x4c /* NUM_BARRIERS */, 1, 0};
            put(&bodies[info], ent, 4);
        }
        uint32_t name = (uint32_t)put_str(&str, c->kernels[k]);
        size_t copies = k == 0 ? 1 + c->dup_symbols : 1;
        for (size_t d = 0; d < copies; d++)
            put_entry_symbol(&sym, name, text);
        /* global .nv.info: EIATTR_REGCOUNT for the first symbol of this kernel */
        uint8_t g[12] = {4 /* SVAL */, 0x2f, 8, 0};
        wr32(g + 4, (uint32_t)(sym.n / 24 - copies));
        wr32(g + 8, (uint32_t)(20 + k));
        put(&ginfo, g, 12);
        if (k == 0) {
            text0 = text;
            text_name0 = sh[text].name;
            info_name0 = sh[info].name;
            sym_name0 = name;
        }
        free(t);
        free(i);
    }
    for (size_t j = 0; j < c->same_name_texts; j++) {
        uint32_t text = (uint32_t)next++;
        sh[text] = (shdr){.name = text_name0, .type = 1};
        put(&bodies[text], "\0\0\0\0\0\0\0\0", 8);
        put_entry_symbol(&sym, sym_name0, text);
    }
    for (size_t j = 0; j < c->same_name_infos; j++) {
        uint32_t info = (uint32_t)next++;
        sh[info] = (shdr){.name = info_name0, .type = 0x70000000, .info = text0};
        put(&bodies[info], "\2\x4c\1\0", 4);
    }
    ck_assert_uint_eq(next, n_sec);
    ck_assert_uint_lt(n_sec, 65280);
    bodies[1] = shstr;
    bodies[2] = str;
    bodies[3] = sym;
    bodies[4] = ginfo;

    buf out = {0};
    put(&out, NULL, 64);
    for (size_t i = 1; i < n_sec; i++) {
        while (out.n % 8)
            put(&out, NULL, 1);
        sh[i].off = put(&out, bodies[i].d, bodies[i].n);
        sh[i].size = bodies[i].n;
        free(bodies[i].d);
    }
    while (out.n % 8)
        put(&out, NULL, 1);
    size_t shoff = put(&out, NULL, 64 * n_sec);
    for (size_t i = 1; i < n_sec; i++) {
        uint8_t *h = out.d + shoff + 64 * i;
        wr32(h, sh[i].name);
        wr32(h + 4, sh[i].type);
        wr64(h + 24, sh[i].off);
        wr64(h + 32, sh[i].size);
        wr32(h + 40, sh[i].link);
        wr32(h + 44, sh[i].info);
        wr64(h + 56, sh[i].entsize);
    }
    /* ELF ABI version 7: the SM version in the low byte of e_flags */
    write_elf_header(out.d, 2, 190, 7, 90, shoff, (uint16_t)n_sec);
    free(sh);
    free(bodies);
    *size = out.n;
    return out.d;
}

/* A zebin: an Intel GT ELF (e_machine 205) with its .ze_info section. */
static uint8_t *build_zebin(const char *yaml, size_t *size)
{
    static const char names[] = "\0.shstrtab\0.ze_info";
    buf out = {0};
    put(&out, NULL, 64);
    size_t names_off = put(&out, names, sizeof names);
    size_t info_off = put(&out, yaml, strlen(yaml));
    while (out.n % 8)
        put(&out, NULL, 1);
    size_t shoff = put(&out, NULL, 3 * 64);
    uint8_t *h = out.d + shoff + 64; /* 1: .shstrtab */
    wr32(h, 1);
    wr32(h + 4, 3);
    wr64(h + 24, names_off);
    wr64(h + 32, sizeof names);
    h += 64; /* 2: .ze_info */
    wr32(h, 11);
    wr32(h + 4, 0xff000011u);
    wr64(h + 24, info_off);
    wr64(h + 32, strlen(yaml));
    write_elf_header(out.d, 1, 205, 0, 0, shoff, 3);
    *size = out.n;
    return out.d;
}

/* ---- a fatbin builder ------------------------------------------------------ */

/* Append a container holding one SASS member for sm_90. */
static void put_container(buf *b, const uint8_t *payload, size_t n, uint64_t flags, uint64_t raw)
{
    size_t padded = (n + 7) & ~(size_t)7;
    uint8_t h[16] = {0};
    wr32(h, 0xBA55ED50u);
    wr16(h + 4, 1);
    wr16(h + 6, 16);
    wr64(h + 8, 64 + padded);
    put(b, h, 16);
    uint8_t m[64] = {0};
    wr16(m, 2);          /* ELF */
    wr32(m + 4, 64);     /* header size */
    wr64(m + 8, padded); /* payload */
    wr32(m + 16, (uint32_t)n);
    wr32(m + 28, 90);
    wr64(m + 40, flags);
    wr64(m + 56, raw);
    put(b, m, 64);
    put(b, payload, n);
    put(b, NULL, padded - n);
}

/* A Zstandard frame of RLE blocks: `raw` bytes of zeros (a multiple of
 * 128 KB) in 4 bytes per 128 KB. */
static size_t put_zstd_zeros(buf *b, uint64_t raw)
{
    size_t start = b->n;
    put_u32(b, 0xFD2FB528u);
    uint8_t fhd = 0xE0; /* 8-byte content size, single segment */
    put(b, &fhd, 1);
    uint8_t fcs[8];
    wr64(fcs, raw);
    put(b, fcs, 8);
    const uint32_t block = 128 * 1024;
    for (uint64_t done = 0; done < raw; done += block) {
        uint32_t last = done + block >= raw;
        uint32_t hdr = last | 1u << 1 | block << 3; /* RLE block */
        uint8_t x[4] = {(uint8_t)hdr, (uint8_t)(hdr >> 8), (uint8_t)(hdr >> 16), 0};
        put(b, x, 4); /* 3 header bytes + the byte repeated */
    }
    return b->n - start;
}

/* A name of len copies of c (malloc'd). */
static char *repeated(char c, size_t len)
{
    char *name = malloc(len + 1);
    ck_assert_ptr_nonnull(name);
    memset(name, c, len);
    name[len] = 0;
    return name;
}

/* ---- reading --------------------------------------------------------------- */

static occ_kernel_set *read_ok(const uint8_t *d, size_t n, uint64_t *work)
{
    occ_kernel_set *s = NULL;
    occ_diag diag;
    occ_status st = occ_kernels_read_memory(d, n, "hostile", NULL, &s, &diag);
    ck_assert_msg(st == OCC_OK, "%s: %s", occ_status_name(st), diag.message);
    *work = s->budget.work_used;
    return s;
}

static void read_refused(const uint8_t *d, size_t n, const char *want)
{
    occ_kernel_set *s = NULL;
    occ_diag diag;
    occ_status st = occ_kernels_read_memory(d, n, "hostile", NULL, &s, &diag);
    ck_assert_int_eq(st, OCC_ERR_PARSE);
    ck_assert_ptr_null(s);
    ck_assert_msg(strstr(diag.message, want), "message: %s", diag.message);
}

/* The fatbin: duplicate symbols for one kernel with a long per-kernel
 * section.  Read as one kernel; work about the file's size, not symbols x
 * entries (20,000 x 100,000 before). */
START_TEST(duplicate_symbols)
{
    const char *names[] = {"k_dup"};
    cubin_spec c = {.kernels = names, .n_kernels = 1, .dup_symbols = 20000,
                    .info_entries = 100000};
    size_t n;
    uint8_t *cubin = build_cubin(&c, &n);
    buf fb = {0};
    put_container(&fb, cubin, n, 0, 0);
    uint64_t work;
    occ_kernel_set *s = read_ok(fb.d, fb.n, &work);
    ck_assert_uint_eq(occ_kernel_set_count(s), 1);
    const occ_kernel_info *k = occ_kernel_set_get(s, 0);
    ck_assert_str_eq(k->name, "k_dup");
    ck_assert_uint_eq(k->regs_per_thread, 20);
    ck_assert_uint_eq(k->barriers, 1);
    ck_assert_msg(strstr(occ_kernel_set_note(s), "20000 duplicate entry symbols skipped"),
                  "note: %s", occ_kernel_set_note(s));
    ck_assert_msg(work < fb.n, "work %llu for %zu bytes", (unsigned long long)work, fb.n);
    occ_kernel_set_free(s);
    free(fb.d);
    free(cubin);
}
END_TEST

/* A 3.5 MB cubin: a kernel named by a 1 MB string, 20,000 more symbols and
 * 20,000 more .nv.info sections of that name.  Each lookup used to scan and
 * compare the 1 MB name. */
START_TEST(long_name_many_references)
{
    size_t len = 1 << 20;
    char *name = repeated('A', len);
    const char *names[] = {name, "k_short"};
    cubin_spec c = {.kernels = names, .n_kernels = 2, .dup_symbols = 20000,
                    .same_name_infos = 20000};
    size_t n;
    uint8_t *cubin = build_cubin(&c, &n);
    ck_assert_uint_gt(n, 3u << 20);
    uint64_t work;
    occ_kernel_set *s = read_ok(cubin, n, &work);
    ck_assert_uint_eq(occ_kernel_set_count(s), 2);
    ck_assert_uint_eq(strlen(occ_kernel_set_get(s, 0)->name), len);
    ck_assert_ptr_nonnull(occ_kernel_set_find(s, name));
    const occ_kernel_info *k = occ_kernel_set_find(s, "k_short");
    ck_assert_ptr_nonnull(k);
    ck_assert_uint_eq(k->regs_per_thread, 21);
    ck_assert_msg(work < 8 * (uint64_t)n, "work %llu for %zu bytes", (unsigned long long)work, n);
    occ_kernel_set_free(s);
    free(cubin);
    free(name);
}
END_TEST

/* 2,000 .text sections all named by one 64 KB name: each would be a kernel
 * with its own copy of the name (128 MB from 200 KB): refused by the budget. */
START_TEST(many_texts_one_long_name)
{
    char *name = repeated('B', 64 << 10);
    const char *names[] = {name};
    cubin_spec c = {.kernels = names, .n_kernels = 1, .same_name_texts = 2000};
    size_t n;
    uint8_t *cubin = build_cubin(&c, &n);
    read_refused(cubin, n, "more than its size warrants");
    free(cubin);
    free(name);
}
END_TEST

/* The 64 bombs: each container's member states 256 MB, compressed
 * to about 8 KB.  Refused before anything is decompressed (libzstd need not
 * even be installed). */
START_TEST(zstd_bombs)
{
    buf fb = {0};
    for (int i = 0; i < 64; i++) {
        buf z = {0};
        uint64_t raw = (uint64_t)256 << 20;
        size_t zn = put_zstd_zeros(&z, raw);
        put_container(&fb, z.d, zn, 0x8000, raw);
        free(z.d);
    }
    ck_assert_uint_lt(fb.n, 700 << 10);
    read_refused(fb.d, fb.n, "compressed SASS for sm_90: 268435456 bytes once decompressed");
    free(fb.d);
}
END_TEST

/* Names as they come: over 255 characters (CUTLASS-like templates), with
 * ':' and with control characters; each read and found again. */
START_TEST(odd_names)
{
    char *longname = repeated('x', 599);
    const char *names[] = {longname, "k_short", "a:b", "esc\x1b[31m\x7f"};
    cubin_spec c = {.kernels = names, .n_kernels = 4};
    size_t n;
    uint8_t *cubin = build_cubin(&c, &n);
    uint64_t work;
    occ_kernel_set *s = read_ok(cubin, n, &work);
    ck_assert_uint_eq(occ_kernel_set_count(s), 4);
    for (size_t i = 0; i < 4; i++) {
        const occ_kernel_info *k = occ_kernel_set_find(s, names[i]);
        ck_assert_msg(k != NULL, "kernel %zu not found", i);
        ck_assert_str_eq(k->name, names[i]);
        ck_assert_str_eq(k->mangled, names[i]);
        ck_assert_uint_eq(k->regs_per_thread, 20 + i);
    }
    ck_assert_ptr_null(occ_kernel_set_find(s, "a"));
    occ_kernel_set_free(s);
    free(cubin);
    free(longname);
}
END_TEST

/* C++ names: shown demangled, found by every form a user writes. */
START_TEST(demangled_names)
{
    const char *names[] = {"_Z5heavyPdi", "_Z5heavyPfi", "_ZN2ns5lightEv", "_Z6k_tmplILi8EdEvPKT0_PS0_"};
    cubin_spec c = {.kernels = names, .n_kernels = 4};
    size_t n;
    uint8_t *cubin = build_cubin(&c, &n);
    uint64_t work;
    occ_kernel_set *s = read_ok(cubin, n, &work);
    const occ_kernel_info *k0 = occ_kernel_set_get(s, 0);
    if (strcmp(k0->name, k0->mangled) == 0) { /* no libstdc++ here: names stay mangled */
        ck_assert_ptr_eq(occ_kernel_set_find(s, "_Z5heavyPdi"), k0);
        occ_kernel_set_free(s);
        free(cubin);
        return;
    }
    ck_assert_str_eq(k0->name, "heavy(double*, int)");
    ck_assert_str_eq(k0->mangled, "_Z5heavyPdi");
    ck_assert_ptr_eq(occ_kernel_set_find(s, "heavy(double*, int)"), k0);
    ck_assert_ptr_eq(occ_kernel_set_find(s, "_Z5heavyPdi"), k0);
    ck_assert_ptr_eq(occ_kernel_set_find(s, "heavy(float*, int)"), occ_kernel_set_get(s, 1));
    /* two overloads: the short name is ambiguous, and both answer to it */
    ck_assert_ptr_null(occ_kernel_set_find(s, "heavy"));
    ck_assert(occ_kernel_name_matches(k0, "heavy"));
    ck_assert(occ_kernel_name_matches(occ_kernel_set_get(s, 1), "heavy"));
    ck_assert_str_eq(occ_kernel_set_get(s, 2)->name, "ns::light()");
    ck_assert_ptr_eq(occ_kernel_set_find(s, "ns::light"), occ_kernel_set_get(s, 2));
    const occ_kernel_info *t = occ_kernel_set_get(s, 3);
    ck_assert_str_eq(t->name, "void k_tmpl<8, double>(double const*, double*)");
    ck_assert_ptr_eq(occ_kernel_set_find(s, "k_tmpl"), t);
    ck_assert_ptr_eq(occ_kernel_set_find(s, "k_tmpl<8, double>"), t);
    ck_assert_ptr_eq(occ_kernel_set_find(s, "k_tmpl<8, double>(double const*, double*)"), t);
    ck_assert_ptr_null(occ_kernel_set_find(s, "k_tmpl<8, double"));
    ck_assert_ptr_null(occ_kernel_set_find(s, "tmpl"));
    occ_kernel_set_free(s);
    free(cubin);
}
END_TEST

/* YAML aliases: one kernel mapping of 2,000 keys named by 100,000 aliases
 * (600 KB) would be walked once per alias (2 x 10^8 keys, 100,000 kernels):
 * refused by the budget.  The same kernel without aliases reads. */
START_TEST(zeinfo_alias_amplification)
{
    buf y = {0};
    const char *head = "---\nkernels:\n  - &k\n    name: k\n    execution_env:\n"
                       "      simd_size: 16\n";
    put(&y, head, strlen(head));
    char line[64];
    for (int i = 0; i < 2000; i++) {
        int w = snprintf(line, sizeof line, "    unused_%d: 0\n", i);
        put(&y, line, (size_t)w);
    }
    size_t one_kernel = y.n;
    for (int i = 0; i < 100000; i++)
        put(&y, "  - *k\n", 7);
    put(&y, "", 1);
    size_t n;
    uint8_t *z = build_zebin((const char *)y.d, &n);
    read_refused(z, n, "more than its size warrants");
    free(z);
    y.d[one_kernel] = 0;
    z = build_zebin((const char *)y.d, &n);
    uint64_t work;
    occ_kernel_set *s = read_ok(z, n, &work);
    ck_assert_uint_eq(occ_kernel_set_count(s), 1);
    ck_assert_uint_eq(occ_kernel_set_get(s, 0)->simd, 16);
    occ_kernel_set_free(s);
    free(z);
    free(y.d);
}
END_TEST

/* A host object without device code says what it is. */
START_TEST(host_objects)
{
    uint8_t elf[64] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
    wr16(elf + 16, 2);  /* executable */
    wr16(elf + 18, 62); /* x86-64 */
    read_refused(elf, sizeof elf, "an x86-64 ELF executable with no .nv_fatbin section");
    wr16(elf + 16, 1);
    wr16(elf + 18, 183);
    read_refused(elf, sizeof elf, "an AArch64 ELF relocatable object with no .nv_fatbin");
    read_refused((const uint8_t *)"!<arch>\nxxxxxxxx", 16, "a static library (ar archive)");
    read_refused((const uint8_t *)"int main(void) { return 0; }\n", 29,
                 "text that is neither PTX");
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {
        duplicate_symbols, long_name_many_references, many_texts_one_long_name, zstd_bombs,
        odd_names,         demangled_names,           host_objects,             zeinfo_alias_amplification,
    };
    Suite *su = suite_create("hostile-readers");
    TCase *tc = tcase_create("hostile");
    tcase_set_timeout(tc, 20);
    for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++)
        tcase_add_test(tc, tests[i]);
    suite_add_tcase(su, tc);
    return tc_run(su);
}
