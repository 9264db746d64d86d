/* NVIDIA cubin: the ELF file ptxas and nvlink write (e_machine EM_CUDA, 190).
 *
 * What is read, per kernel (docs/kernels.md has the sources and the driver
 * comparison):
 *   kernels          symbols of type FUNC marked as entries (st_other 0x10),
 *                    defined in their section ".text.<name>"
 *   architecture     e_flags: sm in bits 8..15 for ELF ABI version 8 (CUDA
 *                    13), in bits 0..7 before
 *   registers        EIATTR_REGCOUNT in the global .nv.info, by symbol;
 *                    older files: the top byte of the .text section's sh_info
 *   local memory     EIATTR_FRAME_SIZE in the global .nv.info, by symbol
 *   shared memory    the size of the NOBITS section ".nv.shared.<name>",
 *                    less the 1 KB reserved window when the file refers to
 *                    the reserved shared memory (.nv.reservedSmem.*)
 *   barriers         EIATTR_NUM_BARRIERS in ".nv.info.<name>"; older files:
 *                    bits 20..26 of the .text section's flags
 *   block size       EIATTR_MAX_THREADS (.maxntid, __launch_bounds__) and
 *                    EIATTR_REQNTID (.reqntid) in ".nv.info.<name>"
 *   cluster dims     EIATTR_CTA_PER_CLUSTER (__cluster_dims__, .reqnctapercluster)
 *                    in ".nv.info.<name>"
 * The per-kernel sections are tied to their .text section by sh_info, so
 * one pass over the sections and one over the symbols find everything.
 * One kernel per .text section: further entry symbols naming it are
 * duplicates and skipped, so each .nv.info.<name> is walked once.  Name
 * comparisons and entries walked are charged to the read's budget
 * (kernel_set.h): a hostile file costs time linear in its size. */
#include "kernels/elf.h"
#include "kernels/nvidia.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { EM_CUDA = 190, STT_FUNC = 2, STO_CUDA_ENTRY = 0x10 };

/* .nv.info entry formats and the attributes read (EIATTR_*). */
enum { EIFMT_NVAL = 1, EIFMT_BVAL = 2, EIFMT_HVAL = 3, EIFMT_SVAL = 4 };
enum {
    EIATTR_MAX_THREADS = 0x05,
    EIATTR_REQNTID = 0x10,
    EIATTR_FRAME_SIZE = 0x11,
    EIATTR_REGCOUNT = 0x2f,
    EIATTR_CTA_PER_CLUSTER = 0x3d, /* __cluster_dims__: x, y, z (32 bits each) */
    EIATTR_NUM_BARRIERS = 0x4c,
};

/* Shared memory reserved by the system at the start of every block's window
 * from compute capability 8.0 on; a file that refers to it lays its own
 * variables out after it. */
#define RESERVED_SMEM_WINDOW 1024u

bool occ__nv_sass_runs_on(unsigned sm_code, unsigned sm_dev)
{
    return sm_code / 10 == sm_dev / 10 && sm_code % 10 <= sm_dev % 10;
}

bool occ__nv_device_sm(const occ_device *dev, unsigned *sm)
{
    const occ_device_desc *d = dev ? occ_device_describe(dev) : NULL;
    if (!d || d->vendor != OCC_VENDOR_NVIDIA)
        return false;
    /* the profile's target, "sm_90" (a profile without one names no SM) */
    unsigned v = 0, digits = 0;
    if (strncmp(d->target, "sm_", 3) != 0)
        return false;
    for (const char *q = d->target + 3; *q >= '0' && *q <= '9' && digits < 4; q++, digits++)
        v = v * 10 + (unsigned)(*q - '0');
    if (digits < 2)
        return false;
    *sm = v;
    return true;
}

static unsigned sm_of_flags(const occ__elf *e)
{
    return e->abiversion >= 8 ? (e->flags >> 8) & 0xffu : e->flags & 0xffu;
}

occ_status occ__cubin_sm(const uint8_t *data, size_t size, const char *origin, unsigned *sm,
                         occ_diag *diag)
{
    occ__elf e;
    occ_status st = occ__elf_open(&e, data, size, origin, diag);
    if (st != OCC_OK)
        return st;
    if (e.machine != EM_CUDA)
        return occ__diag(diag, OCC_ERR_PARSE, origin, 0, 0, NULL,
                         "ELF file for machine %u, not a CUDA cubin (EM_CUDA, 190)", e.machine);
    *sm = sm_of_flags(&e);
    return OCC_OK;
}

/* What the per-kernel sections say, by .text section index. */
typedef struct text_facts {
    const occ__elf_section *info; /* .nv.info.<name>, or NULL */
    uint64_t shared;              /* .nv.shared.<name> size */
    bool has_shared;
    bool taken;                   /* a kernel was read from this section */
} text_facts;

/* What the global .nv.info says, by symbol index. */
typedef struct sym_facts {
    uint32_t regs, frame;
    bool has_regs, has_frame;
} sym_facts;

typedef struct cubin {
    occ__elf e;
    occ_kernel_set *set;    /* its budget pays for the work */
    const char *origin;
    occ__elf_section *secs; /* every section, resolved once */
    text_facts *text;       /* one per section */
    sym_facts *sym;         /* one per symbol */
    size_t nsym;
    int symtab;             /* section index of .symtab, -1 if none */
    bool reserved_smem;     /* the file refers to .nv.reservedSmem.* */
} cubin;

/* Walk the entries of a .nv.info section; call f on each.  false (diag
 * filled) when an entry is cut off or of an unknown format. */
typedef void (*eiattr_fn)(void *ctx, unsigned attr, unsigned fmt, const uint8_t *val, uint32_t len);
static occ_status walk_nv_info(const cubin *c, const occ__elf_section *s, eiattr_fn f, void *ctx,
                               occ_diag *diag)
{
    uint64_t off = 0;
    while (s->data && off < s->size) {
        if (!occ__kset_charge(c->set, 1))
            return occ__kset_budget_diag(c->set, diag);
        if (s->size - off < 4)
            return occ__diag(diag, OCC_ERR_PARSE, c->origin, 0, 0, NULL,
                             "section %s: entry at offset %llu cut off", s->name,
                             (unsigned long long)off);
        const uint8_t *p = s->data + off;
        unsigned fmt = p[0], attr = p[1];
        if (fmt == EIFMT_SVAL) {
            uint32_t len = occ__rd16(p + 2);
            if (s->size - off - 4 < len)
                return occ__diag(diag, OCC_ERR_PARSE, c->origin, 0, 0, NULL,
                                 "section %s: attribute 0x%02x at offset %llu claims %u bytes, "
                                 "past the section's end",
                                 s->name, attr, (unsigned long long)off, len);
            f(ctx, attr, fmt, p + 4, len);
            off += 4 + (uint64_t)len;
        } else if (fmt == EIFMT_NVAL || fmt == EIFMT_BVAL || fmt == EIFMT_HVAL) {
            f(ctx, attr, fmt, p + 2, fmt == EIFMT_BVAL ? 1 : fmt == EIFMT_HVAL ? 2 : 0);
            off += 4;
        } else {
            return occ__diag(diag, OCC_ERR_PARSE, c->origin, 0, 0, NULL,
                             "section %s: unknown entry format %u at offset %llu", s->name, fmt,
                             (unsigned long long)off);
        }
    }
    return OCC_OK;
}

/* Global .nv.info: (symbol index, value) pairs. */
static void global_attr(void *ctx, unsigned attr, unsigned fmt, const uint8_t *v, uint32_t len)
{
    cubin *c = ctx;
    if (fmt != EIFMT_SVAL || len < 8 || (attr != EIATTR_REGCOUNT && attr != EIATTR_FRAME_SIZE))
        return;
    uint32_t sym = occ__rd32(v), value = occ__rd32(v + 4);
    if (sym >= c->nsym)
        return;
    if (attr == EIATTR_REGCOUNT) {
        c->sym[sym].regs = value;
        c->sym[sym].has_regs = true;
    } else {
        c->sym[sym].frame = value;
        c->sym[sym].has_frame = true;
    }
}

/* Per-kernel .nv.info.<name>. */
typedef struct kernel_attrs {
    occ_kernel_info *ki;
    bool has_barriers;
} kernel_attrs;

static uint32_t clamp_u32(uint64_t v) { return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v; }

static void kernel_attr(void *ctx, unsigned attr, unsigned fmt, const uint8_t *v, uint32_t len)
{
    kernel_attrs *k = ctx;
    occ_kernel_info *ki = k->ki;
    if (attr == EIATTR_NUM_BARRIERS && (fmt == EIFMT_BVAL || fmt == EIFMT_HVAL) && len >= 1) {
        ki->barriers = fmt == EIFMT_BVAL ? v[0] : occ__rd16(v);
        k->has_barriers = true;
    } else if ((attr == EIATTR_MAX_THREADS || attr == EIATTR_REQNTID) && fmt == EIFMT_SVAL &&
               len >= 12) {
        uint32_t x = occ__rd32(v), y = occ__rd32(v + 4), z = occ__rd32(v + 8);
        uint64_t total = (uint64_t)(x ? x : 1) * (y ? y : 1) * (z ? z : 1);
        if (attr == EIATTR_REQNTID) {
            /* A required size, not a maximum: the driver's
             * MAX_THREADS_PER_BLOCK ignores it (1024 for .reqntid 128). */
            ki->reqd_wg[0] = x;
            ki->reqd_wg[1] = y;
            ki->reqd_wg[2] = z;
            ki->known |= OCC_KINFO_REQD_WG;
        } else {
            ki->max_wg_size = clamp_u32(total);
        }
    } else if (attr == EIATTR_CTA_PER_CLUSTER && fmt == EIFMT_SVAL && len >= 12 && occ__rd32(v)) {
        for (int d = 0; d < 3; d++)
            ki->cluster[d] = occ__rd32(v + 4 * d) ? occ__rd32(v + 4 * d) : 1;
        ki->known |= OCC_KINFO_CLUSTER;
    }
}

static bool starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* The .text section of a per-kernel section: its sh_info, checked by name
 * (".nv.info.NAME" belongs to ".text.NAME"); -1 when they disagree. */
static long text_of(const cubin *c, const occ__elf_section *s, const char *suffix)
{
    if (s->info >= c->e.shnum)
        return -1;
    const char *t = c->secs[s->info].name;
    return starts_with(t, ".text.") && occ__kset_streq(c->set, t + 6, suffix) ? (long)s->info
                                                                               : -1;
}

static occ_status scan_sections(cubin *c, occ_diag *diag)
{
    c->symtab = -1;
    for (size_t i = 0; i < c->e.shnum; i++) {
        if (!occ__elf_get_section(&c->e, i, &c->secs[i]))
            return occ__diag(diag, OCC_ERR_PARSE, c->origin, 0, 0, NULL,
                             "ELF section %zu lies outside the file", i);
        if (c->secs[i].type == OCC__SHT_SYMTAB && c->symtab < 0)
            c->symtab = (int)i;
    }
    for (size_t i = 0; i < c->e.shnum; i++) {
        const occ__elf_section *s = &c->secs[i];
        /* The first section of each kind tied to a .text counts (a kernel
         * has one); later ones are not compared at all. */
        text_facts *tied = s->info < c->e.shnum ? &c->text[s->info] : NULL;
        if (starts_with(s->name, ".nv.info.") && s->data) {
            if (tied && !tied->info && text_of(c, s, s->name + 9) >= 0)
                tied->info = s;
        } else if (starts_with(s->name, ".nv.shared.") &&
                   !starts_with(s->name, ".nv.shared.reserved.")) {
            if (tied && !tied->has_shared && text_of(c, s, s->name + 11) >= 0) {
                tied->shared = s->size;
                tied->has_shared = true;
            }
        }
    }
    return c->set->budget.exceeded ? occ__kset_budget_diag(c->set, diag) : OCC_OK;
}

static occ_status read_kernel(cubin *c, occ_kernel_set *s, size_t symi, const occ__elf_symbol *sym,
                              unsigned sm, occ_diag *diag)
{
    const occ__elf_section *text = &c->secs[sym->shndx];
    occ_kernel_info ki;
    occ__kinfo_init(&ki);
    ki.name = sym->name;
    ki.vendor = OCC_VENDOR_NVIDIA;
    ki.format = OCC_KFMT_CUBIN;
    snprintf(ki.target, sizeof ki.target, "sm_%u", sm);
    ki.simd = 32;
    ki.known = OCC_KINFO_SIMD;

    const sym_facts *f = &c->sym[symi];
    if (f->has_regs) {
        ki.regs_per_thread = f->regs;
        ki.known |= OCC_KINFO_REGS;
    } else if (text->info >> 24) { /* files before EIATTR_REGCOUNT */
        ki.regs_per_thread = text->info >> 24;
        ki.known |= OCC_KINFO_REGS;
    }
    if (f->has_frame) {
        ki.private_bytes = f->frame;
        ki.known |= OCC_KINFO_PRIVATE;
    }
    const text_facts *t = &c->text[sym->shndx];
    ki.static_slm = t->shared;
    if (c->reserved_smem && t->has_shared && sm >= 80)
        ki.static_slm = t->shared >= RESERVED_SMEM_WINDOW ? t->shared - RESERVED_SMEM_WINDOW : 0;
    ki.known |= OCC_KINFO_SLM;

    /* The file states every bound it has: none stated is no bound. */
    ki.known |= OCC_KINFO_MAX_WG;
    kernel_attrs k = {&ki, false};
    if (t->info) {
        occ_status st = walk_nv_info(c, t->info, kernel_attr, &k, diag);
        if (st != OCC_OK)
            return st;
    }
    if (!k.has_barriers) /* older files: in the .text section's flags */
        ki.barriers = (uint32_t)(text->flags >> 20) & 0x7fu;
    ki.known |= OCC_KINFO_BARRIERS;
    return occ__kset_add(s, &ki, diag);
}

static occ_status collect(cubin *c, occ_kernel_set *s, unsigned sm, occ_diag *diag)
{
    occ_status st = scan_sections(c, diag);
    if (st != OCC_OK)
        return st;
    if (c->symtab < 0)
        return occ__diag(diag, OCC_ERR_PARSE, c->origin, 0, 0, NULL,
                         "cubin without a symbol table (.symtab)");
    const occ__elf_section *symtab = &c->secs[c->symtab];
    if (symtab->entsize != 24 || !symtab->data)
        return occ__diag(diag, OCC_ERR_PARSE, c->origin, 0, 0, NULL,
                         "symbol table with entries of %llu bytes (expected 24)",
                         (unsigned long long)symtab->entsize);
    if (symtab->link >= c->e.shnum || c->secs[symtab->link].type != OCC__SHT_STRTAB)
        return occ__diag(diag, OCC_ERR_PARSE, c->origin, 0, 0, NULL,
                         "symbol table without a string table (link %u)", symtab->link);
    c->nsym = symtab->size / 24;
    c->sym = calloc(c->nsym ? c->nsym : 1, sizeof *c->sym);
    if (!c->sym)
        return occ__diag(diag, OCC_ERR_NO_MEMORY, c->origin, 0, 0, NULL, "out of memory");
    /* Symbol names come from the linked string table directly: one lookup
     * per symbol, not a section-table walk. */
    const occ__elf_section *strtab = &c->secs[symtab->link];
    uint64_t strings_end = occ__elf_strings_end(strtab);
    for (size_t i = 0; i < c->nsym; i++) {
        const char *n = occ__elf_string_before(strtab, strings_end,
                                               occ__rd32(symtab->data + i * 24));
        if (n && starts_with(n, ".nv.reservedSmem.")) {
            c->reserved_smem = true;
            break;
        }
    }
    occ__elf_section info;
    if (occ__elf_find(&c->e, ".nv.info", &info) && info.data) {
        st = walk_nv_info(c, &info, global_attr, c, diag);
        if (st != OCC_OK)
            return st;
    }
    size_t duplicates = 0;
    for (size_t i = 0; i < c->nsym; i++) {
        const uint8_t *p = symtab->data + i * 24;
        occ__elf_symbol sym = {
            .name = occ__elf_string_before(strtab, strings_end, occ__rd32(p)),
            .info = p[4],
            .other = p[5],
            .shndx = occ__rd16(p + 6),
        };
        if ((sym.info & 0xf) != STT_FUNC || !(sym.other & STO_CUDA_ENTRY) || !sym.name ||
            !sym.name[0] || sym.shndx == 0 || sym.shndx >= c->e.shnum)
            continue;
        if (c->text[sym.shndx].taken) {
            duplicates++;
            continue;
        }
        const char *tn = c->secs[sym.shndx].name;
        if (!starts_with(tn, ".text.") || !occ__kset_streq(s, tn + 6, sym.name)) {
            if (s->budget.exceeded)
                return occ__kset_budget_diag(s, diag);
            continue;
        }
        c->text[sym.shndx].taken = true;
        st = read_kernel(c, s, i, &sym, sm, diag);
        if (st != OCC_OK)
            return st;
    }
    if (duplicates)
        occ__kset_note(s, "%zu duplicate entry symbol%s skipped (one kernel per .text section)",
                       duplicates, duplicates == 1 ? "" : "s");
    return OCC_OK;
}

static occ_status with_cubin(occ_kernel_set *s, const uint8_t *data, size_t size, unsigned *sm_out,
                             bool check, const occ_kernel_read_options *o, occ_diag *diag)
{
    cubin c;
    memset(&c, 0, sizeof c);
    c.set = s;
    c.origin = s->origin;
    unsigned sm;
    occ_status st = occ__cubin_sm(data, size, s->origin, &sm, diag);
    if (st != OCC_OK)
        return st;
    if (sm_out)
        *sm_out = sm;
    if (sm < 70)
        return occ__diag(diag, OCC_ERR_UNSUPPORTED, s->origin, 0, 0, NULL,
                         "cubin for sm_%u: occ reads cubins for sm_70 and newer", sm);
    if (check && o && o->device) {
        unsigned dev_sm;
        const occ_device_desc *d = occ_device_describe(o->device);
        if (d && d->vendor != OCC_VENDOR_NVIDIA)
            return occ__diag(diag, OCC_ERR_UNSUPPORTED, s->origin, 0, 0, NULL,
                             "cubin for sm_%u is NVIDIA code; device '%s' is not an NVIDIA GPU",
                             sm, d->name);
        if (!occ__nv_device_sm(o->device, &dev_sm))
            occ__kset_note(s, "device '%s' names no sm_XX in its architecture; sm_%u not checked",
                           d ? d->name : "?", sm);
        else if (!occ__nv_sass_runs_on(sm, dev_sm))
            return occ__diag(diag, OCC_ERR_UNSUPPORTED, s->origin, 0, 0, NULL,
                             "cubin compiled for sm_%u, but device '%s' is sm_%u (%s): SASS runs "
                             "only on its own major version with the same or a newer minor; "
                             "compile for sm_%u or read PTX",
                             sm, d->name, dev_sm, d->architecture, dev_sm);
    }
    st = occ__elf_open(&c.e, data, size, s->origin, diag);
    if (st != OCC_OK)
        return st;
    c.secs = calloc(c.e.shnum, sizeof *c.secs);
    c.text = calloc(c.e.shnum, sizeof *c.text);
    if (!c.secs || !c.text)
        st = occ__diag(diag, OCC_ERR_NO_MEMORY, s->origin, 0, 0, NULL, "out of memory");
    else
        st = collect(&c, s, sm, diag);
    free(c.secs);
    free(c.text);
    free(c.sym);
    return st;
}

occ_status occ__cubin_collect(occ_kernel_set *s, const uint8_t *data, size_t size, occ_diag *diag)
{
    return with_cubin(s, data, size, NULL, false, NULL, diag);
}

occ_status occ__cubin_read(occ_kernel_set *s, const uint8_t *data, size_t size,
                           const occ_kernel_read_options *o, occ_diag *diag)
{
    return with_cubin(s, data, size, NULL, true, o, diag);
}
