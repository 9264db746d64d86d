/* AMDGPU code objects: the ELF files clang and hipcc write for AMD GPUs
 * (e_machine EM_AMDGPU), relocatable (-c) or linked (what the runtime loads).
 *
 * What a kernel uses is in the code object metadata: an ELF note of owner
 * "AMDGPU" and type NT_AMDGPU_METADATA (32) holding a MessagePack map
 * (code object versions 3 to 6; LLVM's AMDGPUUsage document, "Code Object
 * V3 Metadata" and later):
 *   amdhsa.version  [1, minor]: code object version minor + 3
 *   amdhsa.target   "amdgcn-amd-amdhsa--gfx90a:xnack-" (V4 and later)
 *   amdhsa.kernels  one map per kernel: .name, .vgpr_count, .sgpr_count,
 *                   .agpr_count, .group_segment_fixed_size (LDS),
 *                   .private_segment_fixed_size (scratch per work-item),
 *                   .max_flat_workgroup_size, .wavefront_size,
 *                   .reqd_workgroup_size, .uses_dynamic_stack,
 *                   .vgpr_spill_count, .sgpr_spill_count.
 * Version 2 kept YAML in a note of owner "AMD" (type 10): refused, by name.
 *
 * Each kernel's descriptor (the 64-byte object its .symbol, "name.kd",
 * names; AMDGPUUsage, "Kernel Descriptor") adds what the metadata does not
 * say: COMPUTE_PGM_RSRC1 (offset 48) bit 29, WGP_MODE (RDNA; 0 before). */
#include "kernels/amd.h"
#include "kernels/elf.h"
#include "kernels/msgpack.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SHT_NOTE = 7, NT_AMDGPU_METADATA = 32, NT_AMD_HSA_METADATA = 10 };
enum { KD_SIZE = 64, KD_RSRC1 = 48, RSRC1_WGP_MODE_BIT = 29 };

/* A kernel's descriptor symbol (.symbol), to find it in the symbol tables. */
typedef struct kd_ref {
    const uint8_t *symbol;
    uint32_t len;
    size_t kernel; /* index in the set */
} kd_ref;

/* The parse of one code object: where messages point and what the metadata
 * said outside the kernels. */
typedef struct meta {
    occ_kernel_set *s;
    const char *what;   /* "the gfx90a code object" or the file */
    occ_diag *diag;
    char target[32];    /* processor: "gfx90a" */
    char target_id[96]; /* the whole target id: "gfx90a:xnack-" */
    kd_ref *refs;       /* one per kernel with a .symbol */
    size_t nrefs;
} meta;

static occ_status bad(const meta *m, const char *fmt, const char *a, const char *b)
{
    return occ__diag(m->diag, OCC_ERR_PARSE, m->s->origin, 0, 0, NULL,
                     "%s: code object metadata: %s%s%s", m->what, fmt, a ? a : "", b ? b : "");
}

static occ_status bad_mp(const meta *m, const occ__mp *r)
{
    return bad(m, r->error, NULL, NULL);
}

/* "amdgcn-amd-amdhsa--gfx90a:xnack-": the processor follows the fourth '-'
 * (arch, vendor, OS, environment; generic processors hold '-' themselves). */
static occ_status read_target(meta *m, const occ__mp_item *it)
{
    if (it->type != OCC__MP_STR)
        return bad(m, "amdhsa.target is not a string", NULL, NULL);
    const char *p = (const char *)it->data, *end = p + it->len;
    for (int dashes = 0; dashes < 4; p++) {
        if (p == end)
            return bad(m, "amdhsa.target is no target triple with a processor", NULL, NULL);
        dashes += *p == '-';
    }
    size_t id = (size_t)(end - p), proc = id;
    const char *colon = memchr(p, ':', id);
    if (colon)
        proc = (size_t)(colon - p);
    if (proc == 0 || proc >= sizeof m->target || id >= sizeof m->target_id)
        return bad(m, "amdhsa.target's processor is empty or too long", NULL, NULL);
    memcpy(m->target, p, proc);
    m->target[proc] = '\0';
    memcpy(m->target_id, p, id);
    m->target_id[id] = '\0';
    return OCC_OK;
}

/* A kernel's unsigned value that must fit limit. */
static occ_status read_uint(const meta *m, occ__mp *r, const char *key, const occ_kernel_info *ki,
                            uint64_t limit, uint64_t *v)
{
    occ__mp_item it;
    if (!occ__mp_next(r, &it))
        return bad_mp(m, r);
    if (it.type != OCC__MP_UINT || it.u > limit) {
        char where[300];
        snprintf(where, sizeof where, " of kernel '%.200s'", ki->name ? ki->name : "?");
        return bad(m, key, " is not an unsigned integer in range", where);
    }
    *v = it.u;
    return OCC_OK;
}

/* One entry of amdhsa.kernels into ki; its .symbol into *ref (len 0: none). */
static occ_status read_kernel(meta *m, occ__mp *r, occ_kernel_info *ki, kd_ref *ref)
{
    occ__mp_item map, key;
    if (!occ__mp_next(r, &map))
        return bad_mp(m, r);
    if (map.type != OCC__MP_MAP)
        return bad(m, "an entry of amdhsa.kernels is not a map", NULL, NULL);
    bool have_v = false, have_s = false;
    uint64_t v;
    for (uint32_t i = 0; i < map.count; i++) {
        if (!occ__mp_next(r, &key))
            return bad_mp(m, r);
        have_v |= occ__mp_str_is(&key, ".vgpr_count");
        have_s |= occ__mp_str_is(&key, ".sgpr_count");
        /* Each key's value; unknown keys (arguments, kernarg layout) are skipped. */
#define U32(k, field, bit)                                                                         \
        if (occ__mp_str_is(&key, k)) {                                                             \
            OCC__TRY(read_uint(m, r, k, ki, UINT32_MAX, &v));                                      \
            ki->field = (uint32_t)v;                                                               \
            ki->known |= (bit);                                                                    \
            continue;                                                                              \
        }
        U32(".vgpr_count", vgprs, 0)
        U32(".sgpr_count", sgprs, 0)
        U32(".agpr_count", agprs, 0)
        U32(".vgpr_spill_count", vgpr_spills, OCC_KINFO_REG_SPILLS)
        U32(".sgpr_spill_count", sgpr_spills, OCC_KINFO_REG_SPILLS)
        U32(".max_flat_workgroup_size", max_wg_size, OCC_KINFO_MAX_WG)
        U32(".wavefront_size", simd, OCC_KINFO_SIMD)
#undef U32
        if (occ__mp_str_is(&key, ".name")) {
            occ__mp_item name;
            if (!occ__mp_next(r, &name))
                return bad_mp(m, r);
            if (name.type != OCC__MP_STR || name.len == 0 || memchr(name.data, 0, name.len))
                return bad(m, "a kernel's .name is not a string", NULL, NULL);
            /* a name of any length; the caller frees it once the set holds its copy */
            char *copy = malloc(name.len + 1);
            if (!copy)
                return occ__diag(m->diag, OCC_ERR_NO_MEMORY, m->s->origin, 0, 0, NULL,
                                 "out of memory");
            memcpy(copy, name.data, name.len);
            copy[name.len] = '\0';
            free((char *)ki->name);
            ki->name = copy;
        } else if (occ__mp_str_is(&key, ".group_segment_fixed_size")) {
            OCC__TRY(read_uint(m, r, ".group_segment_fixed_size", ki, UINT32_MAX, &ki->static_slm));
            ki->known |= OCC_KINFO_SLM;
        } else if (occ__mp_str_is(&key, ".private_segment_fixed_size")) {
            OCC__TRY(read_uint(m, r, ".private_segment_fixed_size", ki, UINT32_MAX,
                               &ki->private_bytes));
            ki->known |= OCC_KINFO_PRIVATE;
        } else if (occ__mp_str_is(&key, ".symbol")) {
            occ__mp_item sym;
            if (!occ__mp_next(r, &sym))
                return bad_mp(m, r);
            if (sym.type != OCC__MP_STR)
                return bad(m, "a kernel's .symbol is not a string", NULL, NULL);
            ref->symbol = sym.data;
            ref->len = sym.len;
        } else if (occ__mp_str_is(&key, ".uses_dynamic_stack")) {
            occ__mp_item b;
            if (!occ__mp_next(r, &b))
                return bad_mp(m, r);
            if (b.type != OCC__MP_BOOL)
                return bad(m, ".uses_dynamic_stack is not a boolean", NULL, NULL);
            ki->dynamic_stack = b.b;
            ki->known |= OCC_KINFO_DYNAMIC_STACK;
        } else if (occ__mp_str_is(&key, ".reqd_workgroup_size")) {
            occ__mp_item a;
            if (!occ__mp_next(r, &a))
                return bad_mp(m, r);
            if (a.type != OCC__MP_ARRAY || a.count != 3)
                return bad(m, ".reqd_workgroup_size is not an array of 3", NULL, NULL);
            for (int d = 0; d < 3; d++) {
                OCC__TRY(read_uint(m, r, ".reqd_workgroup_size", ki, 1024 * 1024, &v));
                ki->reqd_wg[d] = (uint32_t)v;
            }
            ki->known |= OCC_KINFO_REQD_WG;
        } else if (!occ__mp_skip(r)) {
            return bad_mp(m, r);
        }
    }
    if (!ki->name)
        return bad(m, "a kernel without .name", NULL, NULL);
    if (have_v && have_s)
        ki->known |= OCC_KINFO_AMD_REGS;
    if (ki->known & OCC_KINFO_SIMD && ki->simd != 32 && ki->simd != 64)
        return bad(m, ".wavefront_size is neither 32 nor 64 in kernel ", ki->name, NULL);
    return OCC_OK;
}

/* The metadata map: version and target first (they follow the kernels in
 * the map's order), then the kernels. */
static occ_status read_metadata(meta *m, const uint8_t *data, size_t size)
{
    occ__mp r;
    occ__mp_init(&r, data, size);
    occ__mp_item top, key, it;
    if (!occ__mp_next(&r, &top))
        return bad_mp(m, &r);
    if (top.type != OCC__MP_MAP)
        return bad(m, "not a map", NULL, NULL);
    occ__mp kernels = {0};
    unsigned version = 0;
    for (uint32_t i = 0; i < top.count; i++) {
        if (!occ__mp_next(&r, &key))
            return bad_mp(m, &r);
        if (occ__mp_str_is(&key, "amdhsa.kernels")) {
            kernels = r;
            if (!occ__mp_skip(&r))
                return bad_mp(m, &r);
        } else if (occ__mp_str_is(&key, "amdhsa.target")) {
            if (!occ__mp_next(&r, &it))
                return bad_mp(m, &r);
            OCC__TRY(read_target(m, &it));
        } else if (occ__mp_str_is(&key, "amdhsa.version")) {
            occ__mp_item major, minor;
            if (!occ__mp_next(&r, &it))
                return bad_mp(m, &r);
            if (it.type != OCC__MP_ARRAY || it.count != 2 || !occ__mp_next(&r, &major) ||
                !occ__mp_next(&r, &minor) || major.type != OCC__MP_UINT ||
                minor.type != OCC__MP_UINT)
                return bad(m, "amdhsa.version is not [major, minor]", NULL, NULL);
            if (major.u != 1)
                return bad(m, "amdhsa.version is not 1.x (code object version 3 or later)", NULL,
                           NULL);
            version = (unsigned)(minor.u < 100 ? minor.u + 3 : 0);
        } else if (!occ__mp_skip(&r)) {
            return bad_mp(m, &r);
        }
    }
    if (!kernels.p)
        return bad(m, "no amdhsa.kernels", NULL, NULL);
    if (!occ__mp_next(&kernels, &it))
        return bad_mp(m, &kernels);
    if (it.type != OCC__MP_ARRAY)
        return bad(m, "amdhsa.kernels is not an array", NULL, NULL);
    /* it.count is bounded by the bytes left, so this allocation is too */
    m->refs = calloc(it.count ? it.count : 1, sizeof *m->refs);
    if (!m->refs)
        return occ__diag(m->diag, OCC_ERR_NO_MEMORY, m->s->origin, 0, 0, NULL, "out of memory");
    for (uint32_t k = 0; k < it.count; k++) {
        occ_kernel_info ki;
        occ__kinfo_init(&ki);
        ki.format = OCC_KFMT_AMDGPU;
        ki.vendor = OCC_VENDOR_AMD;
        memcpy(ki.target, m->target, sizeof ki.target);
        kd_ref ref = {.kernel = m->s->n};
        occ_status st = read_kernel(m, &kernels, &ki, &ref);
        if (st == OCC_OK)
            st = occ__kset_add(m->s, &ki, m->diag);
        free((char *)ki.name);
        OCC__TRY(st);
        if (ref.len)
            m->refs[m->nrefs++] = ref;
    }
    occ__kset_note(m->s, "code object v%u for %s", version,
                   m->target_id[0] ? m->target_id : "an unnamed target");
    return OCC_OK;
}

/* The notes of one SHT_NOTE section: namesz, descsz, type, then the name
 * and the descriptor, each padded to 4 bytes.  Finds the metadata note. */
static bool find_note(const occ__elf_section *sec, uint32_t want_type, const char *want_name,
                      const uint8_t **desc, uint32_t *desc_size)
{
    size_t n = (size_t)sec->size, off = 0, want_len = strlen(want_name) + 1;
    while (n - off >= 12) {
        const uint8_t *h = sec->data + off;
        uint64_t namesz = occ__rd32(h), descsz = occ__rd32(h + 4), type = occ__rd32(h + 8);
        uint64_t name_pad = (namesz + 3) & ~(uint64_t)3, desc_pad = (descsz + 3) & ~(uint64_t)3;
        if (name_pad > n - off - 12 || descsz > n - off - 12 - name_pad)
            return false;
        if (type == want_type && namesz == want_len && memcmp(h + 12, want_name, want_len) == 0) {
            *desc = h + 12 + name_pad;
            *desc_size = (uint32_t)descsz;
            return true;
        }
        if (desc_pad > n - off - 12 - name_pad)
            return false;
        off += 12 + name_pad + desc_pad;
    }
    return false;
}

static int ref_cmp(const uint8_t *a, uint32_t alen, const uint8_t *b, uint32_t blen)
{
    if (alen != blen)
        return alen < blen ? -1 : 1;
    return memcmp(a, b, alen);
}

static int ref_order(const void *a, const void *b)
{
    const kd_ref *x = a, *y = b;
    return ref_cmp(x->symbol, x->len, y->symbol, y->len);
}

/* The descriptor of each kernel whose .symbol the symbol tables define:
 * one pass over the symbols, each looked up among the sorted .symbol names,
 * so the time is (symbols + kernels) x log(kernels). */
static void read_descriptors(const occ__elf *e, meta *m)
{
    qsort(m->refs, m->nrefs, sizeof *m->refs, ref_order);
    for (size_t t = 0; t < e->shnum && m->nrefs; t++) {
        occ__elf_section tab, sec;
        if (!occ__elf_get_section(e, t, &tab) ||
            (tab.type != OCC__SHT_SYMTAB && tab.type != OCC__SHT_DYNSYM))
            continue;
        occ__elf_symbol sym;
        for (size_t i = 0; occ__elf_symbol_at(e, &tab, i, &sym); i++) {
            size_t len = strlen(sym.name), lo = 0, hi = m->nrefs;
            while (lo < hi) { /* the first ref not below the name */
                size_t mid = lo + (hi - lo) / 2;
                if (ref_cmp(m->refs[mid].symbol, m->refs[mid].len, (const uint8_t *)sym.name,
                            (uint32_t)len) < 0)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            if (lo == m->nrefs || len > UINT32_MAX ||
                ref_cmp(m->refs[lo].symbol, m->refs[lo].len, (const uint8_t *)sym.name,
                        (uint32_t)len) != 0 ||
                !occ__elf_get_section(e, sym.shndx, &sec) || !sec.data || sym.value < sec.addr ||
                sym.value - sec.addr > sec.size || sec.size - (sym.value - sec.addr) < KD_SIZE)
                continue;
            const uint8_t *kd = sec.data + (sym.value - sec.addr);
            occ_kernel_info *ki = &m->s->v[m->refs[lo].kernel];
            ki->wgp_mode = occ__rd32(kd + KD_RSRC1) >> RSRC1_WGP_MODE_BIT & 1;
            ki->known |= OCC_KINFO_WGP_MODE;
        }
    }
}

occ_status occ__amdgpu_collect(occ_kernel_set *s, const uint8_t *data, size_t size,
                               const char *what, occ_diag *diag)
{
    occ__elf e;
    OCC__TRY(occ__elf_open(&e, data, size, s->origin, diag));
    if (e.machine != OCC__EM_AMDGPU)
        return occ__diag(diag, OCC_ERR_PARSE, s->origin, 0, 0, NULL,
                         "%s: not an AMDGPU code object (ELF machine %u)", what, e.machine);
    meta m = {.s = s, .what = what, .diag = diag};
    bool v2 = false;
    for (size_t i = 0; i < e.shnum; i++) {
        occ__elf_section sec;
        const uint8_t *desc;
        uint32_t desc_size;
        if (!occ__elf_get_section(&e, i, &sec) || sec.type != SHT_NOTE || !sec.data)
            continue;
        if (find_note(&sec, NT_AMDGPU_METADATA, "AMDGPU", &desc, &desc_size)) {
            occ_status st = read_metadata(&m, desc, desc_size);
            if (st == OCC_OK)
                read_descriptors(&e, &m);
            free(m.refs);
            return st;
        }
        v2 |= find_note(&sec, NT_AMD_HSA_METADATA, "AMD", &desc, &desc_size);
    }
    if (v2)
        return occ__diag(diag, OCC_ERR_UNSUPPORTED, s->origin, 0, 0, NULL,
                         "%s: code object version 2 (YAML metadata), which occ does not read; "
                         "rebuild with clang's default code object version",
                         what);
    return occ__diag(diag, OCC_ERR_PARSE, s->origin, 0, 0, NULL,
                     "%s: no AMDGPU metadata note (NT_AMDGPU_METADATA) in the code object", what);
}

occ_status occ__amdgpu_read(occ_kernel_set *s, const uint8_t *data, size_t size,
                            const occ_kernel_read_options *o, occ_diag *diag)
{
    (void)o; /* no AMD device model yet: nothing to pick or check */
    return occ__amdgpu_collect(s, data, size, "AMDGPU code object", diag);
}
