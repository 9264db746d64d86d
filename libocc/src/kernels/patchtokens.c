/* Intel patch-token binaries: the native format of compute-runtime before
 * zebin (the Debian driver, 22.43, still writes it: zeModuleGetNativeBinary
 * and ocloc's default output are this program inside an OpenCL ELF).
 *
 * Layout (little-endian, packed; from the public compute-runtime headers
 * patch_list.h / patch_shared.h, re-expressed here):
 *
 *   program header (28 bytes)  magic "CTNI" 0x494E5443, version, device (GFXCORE
 *                              family), pointer size, kernel count, stepping,
 *                              program patch-list size; then that patch list
 *   per kernel (40 bytes)      checksum, 64-bit shader hash, name size, patch-list
 *                              size, kernel heap, general / dynamic / surface
 *                              state heap sizes, unpadded kernel size; then the
 *                              name, the four heaps and the kernel's patch list
 *   patch item                 {token, size (with this 8-byte header)}, then data
 *
 * Tokens read (offsets after the 8-byte item header):
 *   15 ALLOCATE_LOCAL_SURFACE        +4 total inline (static) SLM bytes
 *   17 DATA_PARAMETER_BUFFER         +0 type (8 = a local-memory argument), +4 argument
 *   18 MEDIA_VFE_STATE               +4 per-thread scratch (spill) bytes
 *   23 EXECUTION_ENVIRONMENT         +0..+8 required work-group size, +12 compiled
 *                                    SIMD, +20 barrier count, +80 GRF registers
 *   27 KERNEL_ATTRIBUTES_INFO        +0 length, then the attribute string
 *                                    ("intel_reqd_sub_group_size(16)", ...)
 *   38 ALLOCATE_STATELESS_PRIVATE_MEMORY  +12 private bytes, +16 per work-item flag
 * Everything else is skipped by its size.
 */
#include "kernels/elf.h"
#include "kernels/intel.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    MAGIC = 0x494E5443u,
    PROGRAM_HEADER = 28,
    KERNEL_HEADER = 40,
    TOK_LOCAL_SURFACE = 15,
    TOK_DATA_PARAMETER = 17,
    TOK_VFE_STATE = 18,
    TOK_EXECUTION_ENV = 23,
    TOK_ATTRIBUTES = 27,
    TOK_PRIVATE_MEMORY = 38,
    DATA_PARAM_LOCAL_ARG = 8,
};

static const char *core_name(uint32_t device)
{
    switch (device) { /* GFXCORE_FAMILY numbers */
    case 12: return "Gen9";
    case 14: return "Gen11";
    case 15: return "Gen11LP";
    case 16: return "Gen12";
    case 18: return "Gen12LP";
    default: return NULL;
    }
}

/* A 32-bit field at off of an item of size n, or 0 when the item is shorter
 * (older compilers wrote shorter execution environments). */
static uint32_t field(const uint8_t *item, uint32_t n, uint32_t off)
{
    return 8 + off + 4 <= n ? occ__rd32(item + 8 + off) : 0;
}

/* "name(a,b,c)" inside the attribute string: up to 3 numbers. */
static int attribute(const char *attrs, size_t len, const char *name, uint32_t v[3])
{
    size_t m = strlen(name);
    for (size_t i = 0; i + m < len; i++) {
        if (memcmp(attrs + i, name, m) != 0 || attrs[i + m] != '(')
            continue;
        if (i > 0 && attrs[i - 1] != ' ' && attrs[i - 1] != ',')
            continue;
        int n = 0;
        size_t j = i + m + 1;
        while (n < 3 && j < len) {
            uint64_t x = 0;
            size_t start = j;
            while (j < len && attrs[j] >= '0' && attrs[j] <= '9' && x < UINT32_MAX)
                x = x * 10 + (uint64_t)(attrs[j++] - '0');
            if (j == start || x > UINT32_MAX)
                break;
            v[n++] = (uint32_t)x;
            while (j < len && (attrs[j] == ',' || attrs[j] == ' '))
                j++;
            if (j < len && attrs[j] == ')')
                break;
        }
        return n;
    }
    return 0;
}

static occ_status read_patch_list(occ_kernel_set *s, const uint8_t *p, uint32_t size,
                                  uint64_t file_off, occ_kernel_info *ki, occ_diag *diag)
{
    uint64_t local_args[4] = {0};
    bool have_env = false;
    uint32_t private_size = 0;
    bool private_simt = false, have_private = false;
    for (uint32_t off = 0; off < size;) {
        if (size - off < 8)
            return occ__diag(diag, OCC_ERR_PARSE, s->origin, 0, 0, NULL,
                             "kernel %s: truncated patch item at byte %" PRIu64, ki->name,
                             file_off + off);
        const uint8_t *item = p + off;
        uint32_t token = occ__rd32(item), n = occ__rd32(item + 4);
        if (n < 8 || n > size - off)
            return occ__diag(diag, OCC_ERR_PARSE, s->origin, 0, 0, NULL,
                             "kernel %s: patch token %" PRIu32 " at byte %" PRIu64
                             " has size %" PRIu32 ", outside its list (%" PRIu32 " bytes left)",
                             ki->name, token, file_off + off, n, size - off);
        switch (token) {
        case TOK_LOCAL_SURFACE:
            ki->static_slm = field(item, n, 4);
            break;
        case TOK_DATA_PARAMETER:
            if (field(item, n, 0) == DATA_PARAM_LOCAL_ARG) {
                uint32_t arg = field(item, n, 4);
                if (arg >= 256 || !(local_args[arg / 64] & (1ull << (arg % 64)))) {
                    if (arg < 256)
                        local_args[arg / 64] |= 1ull << (arg % 64);
                    ki->slm_args++;
                }
            }
            break;
        case TOK_VFE_STATE:
            ki->spill_bytes = field(item, n, 4);
            break;
        case TOK_EXECUTION_ENV:
            if (n < 8 + 24)
                return occ__diag(diag, OCC_ERR_PARSE, s->origin, 0, 0, NULL,
                                 "kernel %s: execution environment of %" PRIu32
                                 " bytes is too short to hold the SIMD width",
                                 ki->name, n);
            have_env = true;
            for (int d = 0; d < 3; d++)
                ki->reqd_wg[d] = field(item, n, 4 * (uint32_t)d);
            ki->simd = field(item, n, 12);
            ki->barriers = field(item, n, 20);
            ki->grf = field(item, n, 80);
            break;
        case TOK_ATTRIBUTES: {
            uint32_t len = field(item, n, 0);
            if (len > n - 12)
                return occ__diag(diag, OCC_ERR_PARSE, s->origin, 0, 0, NULL,
                                 "kernel %s: attribute string of %" PRIu32
                                 " bytes in a patch item of %" PRIu32, ki->name, len, n);
            const char *a = (const char *)item + 12;
            uint32_t v[3] = {0, 0, 0};
            if (attribute(a, len, "intel_reqd_sub_group_size", v) == 1)
                ki->required_sub_group = v[0];
            uint32_t w[3] = {0, 0, 0};
            if (!ki->reqd_wg[0] && attribute(a, len, "reqd_work_group_size", w) == 3)
                memcpy(ki->reqd_wg, w, sizeof w);
            break;
        }
        case TOK_PRIVATE_MEMORY:
            have_private = true;
            private_size = field(item, n, 12);
            private_simt = field(item, n, 16) != 0;
            break;
        default:
            break;
        }
        off += n;
    }
    if (!have_env)
        return occ__diag(diag, OCC_ERR_PARSE, s->origin, 0, 0, NULL,
                         "kernel %s has no execution environment (patch token 23)", ki->name);
    if (ki->simd != 1 && ki->simd != 8 && ki->simd != 16 && ki->simd != 32)
        return occ__diag(diag, OCC_ERR_PARSE, s->origin, 0, 0, NULL,
                         "kernel %s: compiled SIMD width %" PRIu32 " is not 1, 8, 16 or 32",
                         ki->name, ki->simd);
    if (have_private)
        ki->private_bytes = private_simt ? private_size : private_size / ki->simd;
    ki->known = OCC_KINFO_SIMD | OCC_KINFO_SUB_GROUP | OCC_KINFO_SLM | OCC_KINFO_BARRIERS |
                OCC_KINFO_REQD_WG | OCC_KINFO_PRIVATE | OCC_KINFO_SPILL | OCC_KINFO_SLM_ARGS;
    if (ki->grf)
        ki->known |= OCC_KINFO_GRF;
    return OCC_OK;
}

/* The program (from its "CTNI" magic to the end of the buffer). */
static occ_status read_program(occ_kernel_set *s, const uint8_t *p, size_t size, uint64_t base,
                               occ_diag *diag)
{
    if (size < PROGRAM_HEADER)
        return occ__diag(diag, OCC_ERR_PARSE, s->origin, 0, 0, NULL,
                         "truncated patch-token program header (%zu of %d bytes)", size,
                         PROGRAM_HEADER);
    uint32_t device = occ__rd32(p + 8), pointer = occ__rd32(p + 12);
    uint32_t kernels = occ__rd32(p + 16), list = occ__rd32(p + 24);
    if (pointer != 4 && pointer != 8)
        return occ__diag(diag, OCC_ERR_PARSE, s->origin, 0, 0, NULL,
                         "patch-token program with a pointer size of %" PRIu32
                         " bytes (4 or 8 expected): corrupt header", pointer);
    uint64_t off = PROGRAM_HEADER + (uint64_t)list;
    if (off > size)
        return occ__diag(diag, OCC_ERR_PARSE, s->origin, 0, 0, NULL,
                         "truncated patch-token program: its patch list needs %" PRIu32
                         " bytes, %zu remain", list, size - PROGRAM_HEADER);
    if (kernels > (size - off) / KERNEL_HEADER)
        return occ__diag(diag, OCC_ERR_PARSE, s->origin, 0, 0, NULL,
                         "the patch-token program claims %" PRIu32
                         " kernels, more than its %zu bytes can hold: truncated or corrupt",
                         kernels, size);
    const char *core = core_name(device);
    char target[32];
    if (core)
        snprintf(target, sizeof target, "%s", core);
    else
        snprintf(target, sizeof target, "gfxcore %" PRIu32, device);
    for (uint32_t k = 0; k < kernels; k++) {
        if (size - off < KERNEL_HEADER)
            return occ__diag(diag, OCC_ERR_PARSE, s->origin, 0, 0, NULL,
                             "truncated patch-token binary: kernel %" PRIu32
                             " header at byte %" PRIu64 " is cut off", k, base + off);
        const uint8_t *h = p + off;
        uint64_t name = occ__rd32(h + 12), plist = occ__rd32(h + 16);
        uint64_t heaps = (uint64_t)occ__rd32(h + 20) + occ__rd32(h + 24) + occ__rd32(h + 28) +
                         occ__rd32(h + 32);
        uint64_t need = KERNEL_HEADER + name + heaps + plist;
        if (need > size - off)
            return occ__diag(diag, OCC_ERR_PARSE, s->origin, 0, 0, NULL,
                             "truncated patch-token binary: kernel %" PRIu32 " at byte %" PRIu64
                             " needs %" PRIu64 " bytes, %" PRIu64 " remain",
                             k, base + off, need, (uint64_t)(size - off));
        occ_kernel_info ki;
        occ__kinfo_init(&ki);
        ki.vendor = OCC_VENDOR_INTEL;
        ki.format = OCC_KFMT_PATCHTOKENS;
        snprintf(ki.target, sizeof ki.target, "%s", target);
        const char *nm = (const char *)h + KERNEL_HEADER;
        size_t len = name ? strnlen(nm, (size_t)name) : 0;
        if (len == 0 || len == name)
            return occ__diag(diag, OCC_ERR_PARSE, s->origin, 0, 0, NULL,
                             "kernel %" PRIu32 " at byte %" PRIu64
                             ": its name is empty or not terminated", k, base + off);
        ki.name = nm; /* terminated: len < name */
        uint64_t list_off = off + KERNEL_HEADER + name + heaps;
        occ_status st = read_patch_list(s, p + list_off, (uint32_t)plist, base + list_off, &ki, diag);
        if (st == OCC_OK)
            st = occ__kset_add(s, &ki, diag);
        if (st != OCC_OK)
            return st;
        off += need;
    }
    return OCC_OK;
}

occ_status occ__read_patchtokens(occ_kernel_set *s, const uint8_t *data, size_t size,
                                 const occ_kernel_read_options *o, occ_diag *diag)
{
    (void)o;
    if (size >= 4 && occ__rd32(data) == MAGIC)
        return read_program(s, data, size, 0, diag);
    /* The OpenCL ELF container: the program is the section that starts with
     * the magic (SHT_OPENCL_DEV_BINARY, named "Intel(R) OpenCL Device Binary"). */
    occ__elf e;
    occ_status st = occ__elf_open(&e, data, size, s->origin, diag);
    if (st != OCC_OK)
        return st;
    for (size_t i = 0; i < e.shnum; i++) {
        occ__elf_section sec;
        if (occ__elf_get_section(&e, i, &sec) && sec.data && sec.size >= 4 &&
            occ__rd32(sec.data) == MAGIC)
            return read_program(s, sec.data, (size_t)sec.size, (uint64_t)(sec.data - data), diag);
    }
    return occ__diag(diag, OCC_ERR_PARSE, s->origin, 0, 0, NULL,
                     "an OpenCL ELF without a device binary (no section holds a patch-token "
                     "program): compiled for no device, or only SPIR-V/LLVM inside");
}
