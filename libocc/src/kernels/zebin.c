/* Intel zebin: an ELF file whose .ze_info section (YAML) describes every
 * kernel.  What occ reads, per kernel (the format: intel/compute-runtime's
 * "zebin" documentation, the .ze_info section):
 *
 *   execution_env.simd_size                  compiled SIMD width
 *   execution_env.grf_count                  GRF registers per thread (128, 256)
 *   execution_env.slm_size                   static SLM bytes
 *   execution_env.barrier_count              named barriers used (0 = none)
 *   execution_env.required_sub_group_size    and user_attributes.intel_reqd_sub_group_size
 *   execution_env.required_work_group_size   and user_attributes.reqd_work_group_size
 *   per_thread_memory_buffers                private and spill (scratch) memory per thread
 *   payload_arguments                        arguments in the local address space (slm_args)
 *
 * Newer compilers also write execution_env.private_size / spill_size; they
 * are used when the buffers list is absent.  Unknown keys are ignored (the
 * format grows), wrong types of known keys are errors with the YAML line.
 */
#include "kernels/elf.h"
#include "kernels/intel.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

const char *occ__intel_product_name(uint32_t pf)
{
    /* IGC's PRODUCT_FAMILY numbers of the products the installed driver
     * (compute-runtime 22.43) compiles for, as its ocloc writes them into
     * .note.intelgt.compat. */
    switch (pf) {
    case 18: return "skl";
    case 26: return "icllp";
    case 29: return "tgllp";
    case 30: return "rkl";
    case 1210: return "dg1";
    default: return NULL;
    }
}

typedef struct zeinfo {
    yaml_document_t doc;
    occ_kernel_set *set; /* its budget pays for the nodes visited (aliases
                            can make one node be visited many times) */
    const char *origin;
    occ_diag *diag;
} zeinfo;

static occ_status bad(zeinfo *z, const yaml_node_t *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static occ_status bad(zeinfo *z, const yaml_node_t *n, const char *fmt, ...)
{
    char msg[320];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* The position is inside the section, not the file: it goes in the text. */
    if (n)
        return occ__diag(z->diag, OCC_ERR_PARSE, z->origin, 0, 0, NULL,
                         ".ze_info line %zu, column %zu: %s", n->start_mark.line + 1,
                         n->start_mark.column + 1, msg);
    return occ__diag(z->diag, OCC_ERR_PARSE, z->origin, 0, 0, NULL, ".ze_info: %s", msg);
}

static const char *scalar(const yaml_node_t *n)
{
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* The value of key in a mapping node; NULL when absent. */
static yaml_node_t *get(zeinfo *z, const yaml_node_t *map, const char *key)
{
    if (!map || map->type != YAML_MAPPING_NODE)
        return NULL;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
        if (!occ__kset_charge(z->set, 1))
            return NULL; /* the read is refused: see occ_kernels_read_memory */
        const char *k = scalar(yaml_document_get_node(&z->doc, p->key));
        if (k && strcmp(k, key) == 0)
            return yaml_document_get_node(&z->doc, p->value);
    }
    return NULL;
}

/* A non-negative integer below 2^32 (decimal or 0x hex). */
static occ_status get_u32(zeinfo *z, const yaml_node_t *map, const char *key, uint32_t *out,
                          bool *present)
{
    yaml_node_t *n = get(z, map, key);
    if (present)
        *present = n != NULL;
    if (!n)
        return OCC_OK;
    const char *v = scalar(n);
    char *end = NULL;
    unsigned long long x = v && *v && *v != '-' ? strtoull(v, &end, 0) : 0;
    if (!v || !*v || *v == '-' || *end || x > UINT32_MAX)
        return bad(z, n, "%s: expected a non-negative integer, got %s%.40s%s", key,
                   v ? "'" : "", v ? v : "a collection", v ? "'" : "");
    *out = (uint32_t)x;
    return OCC_OK;
}

static occ_status get_bool(zeinfo *z, const yaml_node_t *map, const char *key, bool *out)
{
    yaml_node_t *n = get(z, map, key);
    if (!n)
        return OCC_OK;
    const char *v = scalar(n);
    if (v && (strcmp(v, "true") == 0 || strcmp(v, "1") == 0))
        *out = true;
    else if (v && (strcmp(v, "false") == 0 || strcmp(v, "0") == 0))
        *out = false;
    else
        return bad(z, n, "%s: expected true or false", key);
    return OCC_OK;
}

/* [x, y, z] of non-negative integers. */
static occ_status get_triple(zeinfo *z, const yaml_node_t *map, const char *key, uint32_t out[3],
                             bool *present)
{
    yaml_node_t *n = get(z, map, key);
    *present = n != NULL;
    if (!n)
        return OCC_OK;
    if (n->type != YAML_SEQUENCE_NODE || n->data.sequence.items.top - n->data.sequence.items.start != 3)
        return bad(z, n, "%s: expected a list of three integers", key);
    for (int d = 0; d < 3; d++) {
        yaml_node_t *e = yaml_document_get_node(&z->doc, n->data.sequence.items.start[d]);
        const char *v = scalar(e);
        char *end = NULL;
        unsigned long long x = v && *v && *v != '-' ? strtoull(v, &end, 0) : 0;
        if (!v || !*v || *v == '-' || *end || x > UINT32_MAX)
            return bad(z, e ? e : n, "%s: expected a list of three integers", key);
        out[d] = (uint32_t)x;
    }
    return OCC_OK;
}

static bool is_seq(const yaml_node_t *n) { return n && n->type == YAML_SEQUENCE_NODE; }

#define TRY(x)                                                                                     \
    do {                                                                                           \
        occ_status s_ = (x);                                                                       \
        if (s_ != OCC_OK)                                                                          \
            return s_;                                                                             \
    } while (0)

/* per_thread_memory_buffers: type global/scratch/slm, usage private_space /
 * spill_fill_space / single_space, size (per thread, or per work-item when
 * is_simt_thread).  Private memory is reported per work-item, spill per
 * hardware thread (the fields of occ_kernel_info). */
static occ_status read_buffers(zeinfo *z, const yaml_node_t *list, occ_kernel_info *ki)
{
    if (!is_seq(list))
        return bad(z, list, "per_thread_memory_buffers: expected a list");
    for (yaml_node_item_t *it = list->data.sequence.items.start; it < list->data.sequence.items.top;
         it++) {
        yaml_node_t *b = yaml_document_get_node(&z->doc, *it);
        if (!b || b->type != YAML_MAPPING_NODE)
            return bad(z, b, "per_thread_memory_buffers: expected a mapping per buffer");
        const char *type = scalar(get(z, b, "type"));
        const char *usage = scalar(get(z, b, "usage"));
        uint32_t size = 0, slot = 0;
        bool simt = false, has_size;
        TRY(get_u32(z, b, "size", &size, &has_size));
        TRY(get_u32(z, b, "slot", &slot, NULL));
        TRY(get_bool(z, b, "is_simt_thread", &simt));
        if (!type || !usage || !has_size)
            return bad(z, b, "per_thread_memory_buffers: a buffer needs type, usage and size");
        bool private_use = strcmp(usage, "private_space") == 0;
        bool spill_use = strcmp(usage, "spill_fill_space") == 0 || strcmp(usage, "single_space") == 0;
        if (strcmp(type, "slm") == 0)
            continue; /* per-thread SLM (stack calls): not a per-work-group figure */
        uint64_t per_thread = simt && ki->simd ? (uint64_t)size * ki->simd : size;
        if (private_use) {
            ki->private_bytes += simt || !ki->simd ? size : size / ki->simd;
            ki->known |= OCC_KINFO_PRIVATE;
        } else if (spill_use && slot == 0) {
            ki->spill_bytes += per_thread;
            ki->known |= OCC_KINFO_SPILL;
        }
    }
    return OCC_OK;
}

/* payload_arguments: arguments passed by pointer into the local address
 * space (addrspace local or addrmode slm), counted once per argument index. */
static occ_status read_payload(zeinfo *z, const yaml_node_t *list, occ_kernel_info *ki)
{
    if (!is_seq(list))
        return bad(z, list, "payload_arguments: expected a list");
    uint64_t seen[4] = {0}; /* argument indices below 256 */
    for (yaml_node_item_t *it = list->data.sequence.items.start; it < list->data.sequence.items.top;
         it++) {
        yaml_node_t *a = yaml_document_get_node(&z->doc, *it);
        if (!a || a->type != YAML_MAPPING_NODE)
            return bad(z, a, "payload_arguments: expected a mapping per argument");
        const char *space = scalar(get(z, a, "addrspace"));
        const char *mode = scalar(get(z, a, "addrmode"));
        if (!((space && strcmp(space, "local") == 0) || (mode && strcmp(mode, "slm") == 0)))
            continue;
        uint32_t idx = 0;
        bool has_idx;
        TRY(get_u32(z, a, "arg_index", &idx, &has_idx));
        if (has_idx && idx < 256) {
            if (seen[idx / 64] & (1ull << (idx % 64)))
                continue;
            seen[idx / 64] |= 1ull << (idx % 64);
        }
        ki->slm_args++;
    }
    ki->known |= OCC_KINFO_SLM_ARGS;
    return OCC_OK;
}

/* "reqd_work_group_size": in user_attributes it is a list of three. */
static occ_status read_kernel(zeinfo *z, const yaml_node_t *k, const char *target,
                              occ_kernel_info *ki)
{
    if (!k || k->type != YAML_MAPPING_NODE)
        return bad(z, k, "kernels: expected a mapping per kernel");
    yaml_node_t *name_node = get(z, k, "name");
    const char *name = scalar(name_node);
    if (!name || !*name)
        return bad(z, k, "a kernel without a name");
    occ__kinfo_init(ki);
    ki->name = name;
    ki->vendor = OCC_VENDOR_INTEL;
    ki->format = OCC_KFMT_ZEBIN;
    if (target)
        snprintf(ki->target, sizeof ki->target, "%s", target);

    yaml_node_t *env = get(z, k, "execution_env");
    if (!env || env->type != YAML_MAPPING_NODE)
        return bad(z, env ? env : k, "kernel %s: no execution_env mapping", name);
    bool has_simd, has_grf, has_slm, has_barriers, has_sg, has_wg, present;
    TRY(get_u32(z, env, "simd_size", &ki->simd, &has_simd));
    if (!has_simd)
        return bad(z, env, "kernel %s: execution_env has no simd_size", name);
    if (ki->simd != 1 && ki->simd != 8 && ki->simd != 16 && ki->simd != 32)
        return bad(z, get(z, env, "simd_size"), "kernel %s: simd_size %" PRIu32
                   " is not 1, 8, 16 or 32", name, ki->simd);
    ki->known |= OCC_KINFO_SIMD;
    TRY(get_u32(z, env, "grf_count", &ki->grf, &has_grf));
    if (has_grf)
        ki->known |= OCC_KINFO_GRF;
    uint32_t slm = 0;
    TRY(get_u32(z, env, "slm_size", &slm, &has_slm));
    ki->static_slm = slm;
    ki->known |= OCC_KINFO_SLM; /* absent means 0 */
    TRY(get_u32(z, env, "barrier_count", &ki->barriers, &has_barriers));
    bool has_barrier_flag = false;
    TRY(get_bool(z, env, "has_barriers", &has_barrier_flag)); /* spelled so by some writers */
    if (has_barrier_flag && !ki->barriers)
        ki->barriers = 1;
    ki->known |= OCC_KINFO_BARRIERS;
    TRY(get_u32(z, env, "required_sub_group_size", &ki->required_sub_group, &has_sg));
    TRY(get_triple(z, env, "required_work_group_size", ki->reqd_wg, &has_wg));

    yaml_node_t *attrs = get(z, k, "user_attributes");
    if (attrs && attrs->type == YAML_MAPPING_NODE) {
        if (!ki->required_sub_group)
            TRY(get_u32(z, attrs, "intel_reqd_sub_group_size", &ki->required_sub_group, &present));
        if (!ki->reqd_wg[0])
            TRY(get_triple(z, attrs, "reqd_work_group_size", ki->reqd_wg, &present));
    }
    ki->known |= OCC_KINFO_SUB_GROUP | OCC_KINFO_REQD_WG;

    yaml_node_t *bufs = get(z, k, "per_thread_memory_buffers");
    if (bufs)
        TRY(read_buffers(z, bufs, ki));
    uint32_t priv = 0, spill = 0;
    bool has_priv, has_spill;
    TRY(get_u32(z, env, "private_size", &priv, &has_priv));
    TRY(get_u32(z, env, "spill_size", &spill, &has_spill));
    if (has_priv && !(ki->known & OCC_KINFO_PRIVATE))
        ki->private_bytes = priv / (ki->simd ? ki->simd : 1);
    if (has_spill && !(ki->known & OCC_KINFO_SPILL))
        ki->spill_bytes = spill;
    ki->known |= OCC_KINFO_PRIVATE | OCC_KINFO_SPILL; /* no buffer: none */

    yaml_node_t *payload = get(z, k, "payload_arguments");
    if (payload)
        TRY(read_payload(z, payload, ki));
    else
        ki->known |= OCC_KINFO_SLM_ARGS;
    return OCC_OK;
}

/* The product of .note.intelgt.compat (note type 1: product family). */
static const char *note_product(const occ__elf *e, char *buf, size_t size)
{
    occ__elf_section sec;
    if (!occ__elf_find(e, ".note.intelgt.compat", &sec) || !sec.data)
        return NULL;
    uint64_t off = 0;
    while (off + 12 <= sec.size) {
        uint32_t namesz = occ__rd32(sec.data + off), descsz = occ__rd32(sec.data + off + 4);
        uint32_t type = occ__rd32(sec.data + off + 8);
        uint64_t name_end = off + 12 + (((uint64_t)namesz + 3) & ~3ull);
        uint64_t desc_end = name_end + (((uint64_t)descsz + 3) & ~3ull);
        if (desc_end > sec.size)
            break;
        if (type == 1 && descsz == 4 && namesz >= 7 && memcmp(sec.data + off + 12, "IntelGT", 7) == 0) {
            uint32_t pf = occ__rd32(sec.data + name_end);
            const char *n = occ__intel_product_name(pf);
            if (n)
                return n;
            snprintf(buf, size, "product family %" PRIu32, pf);
            return buf;
        }
        off = desc_end;
    }
    return NULL;
}

occ_status occ__read_zebin(occ_kernel_set *s, const uint8_t *data, size_t size,
                           const occ_kernel_read_options *o, occ_diag *diag)
{
    (void)o;
    if (size >= 5 && memcmp(data, "\177ELF", 4) == 0 && data[4] == 1)
        return occ__diag(diag, OCC_ERR_UNSUPPORTED, s->origin, 0, 0, NULL,
                         "32-bit zebin files are not supported (compile for 64-bit pointers)");
    occ__elf e;
    occ_status st = occ__elf_open(&e, data, size, s->origin, diag);
    if (st != OCC_OK)
        return st;
    occ__elf_section info;
    bool found = occ__elf_find(&e, ".ze_info", &info);
    for (size_t i = 0; !found && i < e.shnum; i++)
        found = occ__elf_get_section(&e, i, &info) && info.type == 0xff000011u;
    if (!found)
        return occ__diag(diag, OCC_ERR_PARSE, s->origin, 0, 0, NULL,
                         "an Intel GPU ELF without a .ze_info section: not a zebin occ can read");
    if (!info.data || info.size == 0)
        return occ__diag(diag, OCC_ERR_PARSE, s->origin, 0, 0, NULL, "the .ze_info section is empty");

    char pbuf[32];
    const char *target = note_product(&e, pbuf, sizeof pbuf);
    if (!target && e.machine != 205) { /* older zebins: the product family in e_machine */
        target = occ__intel_product_name(e.machine);
        if (!target) {
            snprintf(pbuf, sizeof pbuf, "product family %u", e.machine);
            target = pbuf;
        }
    }

    /* libyaml's time grows with the square of the nesting depth of flow
     * collections; a real .ze_info uses one level ("[64, 2, 1]"). */
    unsigned depth = 0;
    size_t line = 1;
    for (uint64_t i = 0; i < info.size; i++) {
        uint8_t c = info.data[i];
        if (c == '\n')
            line++;
        else if ((c == '[' || c == '{') && ++depth > 32)
            return occ__diag(diag, OCC_ERR_PARSE, s->origin, 0, 0, NULL,
                             ".ze_info line %zu: nested more than 32 levels deep ('[' and '{'): "
                             "not a zebin's metadata", line);
        else if ((c == ']' || c == '}') && depth)
            depth--;
    }

    zeinfo z = {.set = s, .origin = s->origin, .diag = diag};
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser))
        return occ__diag(diag, OCC_ERR_NO_MEMORY, s->origin, 0, 0, NULL, "out of memory");
    yaml_parser_set_input_string(&parser, info.data, (size_t)info.size);
    if (!yaml_parser_load(&parser, &z.doc)) {
        char context[160] = "";
        if (parser.context)
            snprintf(context, sizeof context, " %s (from line %zu, column %zu)", parser.context,
                     parser.context_mark.line + 1, parser.context_mark.column + 1);
        st = occ__diag(diag, OCC_ERR_PARSE, s->origin, 0, 0, NULL,
                       ".ze_info line %zu, column %zu: not valid YAML: %s%s",
                       parser.problem_mark.line + 1, parser.problem_mark.column + 1,
                       parser.problem ? parser.problem : "syntax error", context);
        yaml_parser_delete(&parser);
        return st;
    }
    yaml_parser_delete(&parser);
    yaml_node_t *root = yaml_document_get_root_node(&z.doc);
    yaml_node_t *kernels = root ? get(&z, root, "kernels") : NULL;
    if (!root || root->type != YAML_MAPPING_NODE)
        st = bad(&z, root, "expected a mapping at the top");
    else if (!kernels)
        st = occ__diag(diag, OCC_ERR_PARSE, s->origin, 0, 0, NULL, "no kernels in this zebin");
    else if (!is_seq(kernels))
        st = bad(&z, kernels, "kernels: expected a list");
    else
        for (yaml_node_item_t *it = kernels->data.sequence.items.start;
             st == OCC_OK && !s->budget.exceeded && it < kernels->data.sequence.items.top;
             it++) {
            occ_kernel_info ki;
            st = read_kernel(&z, yaml_document_get_node(&z.doc, *it), target, &ki);
            if (st == OCC_OK)
                st = occ__kset_add(s, &ki, diag);
        }
    yaml_document_delete(&z.doc);
    return st;
}
