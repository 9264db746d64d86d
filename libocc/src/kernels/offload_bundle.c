/* clang offload bundles: what hipcc and clang --offload-arch write for HIP
 * (a .hipfb file, the .hip_fatbin section of a host object or executable),
 * with one AMDGPU code object per target.  Layout (clang's "Clang Offload
 * Bundler" document), little-endian:
 *   "__CLANG_OFFLOAD_BUNDLE__"  24 bytes
 *   u64 number of entries
 *   per entry: u64 offset (from the bundle's start), u64 size,
 *              u64 id length, the id ("hipv4-amdgcn-amd-amdhsa--gfx90a")
 * A compressed bundle wraps one:
 *   "CCOB", u16 version, u16 method (1 Zstandard, 0 zlib),
 *   version 1: u32 size uncompressed, u64 hash                 (20 bytes)
 *   version 2: u32 total size, u32 size uncompressed, u64 hash (24 bytes)
 *   version 3: u64 total size, u64 size uncompressed, u64 hash (32 bytes)
 *   then the compressed bundle.
 * Every AMDGPU entry's kernels are read, each with its target: no AMD
 * device model exists yet to pick one. */
#include "kernels/amd.h"
#include "kernels/elf.h"
#include "kernels/zstd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ENTRY_MIN = 24, CCOB_ZSTD = 1, CCOB_ZLIB = 0 };
/* A decompressed bundle larger than this is refused (a corrupt size field
 * must not make the reader allocate gigabytes). */
#define MAX_BUNDLE ((uint64_t)256 << 20)

/* What the entries held, for the note and the errors. */
typedef struct tally {
    unsigned objects, bitcode, other;
    char targets[256];
} tally;

static bool is_amdgcn(const char *id, size_t len)
{
    static const char t[] = "-amdgcn-";
    for (size_t i = 0; i + sizeof t - 1 <= len; i++)
        if (memcmp(id + i, t, sizeof t - 1) == 0)
            return true;
    return false;
}

/* The bundle at d[0..n) (starting with its magic): read its AMDGPU code
 * objects into s; *extent is where its last entry ends. */
static occ_status read_bundle(occ_kernel_set *s, const uint8_t *d, size_t n, tally *t,
                              uint64_t *extent, occ_diag *diag)
{
    const size_t head = OCC__BUNDLE_MAGIC_LEN + 8;
    if (n < head)
        return occ__diag(diag, OCC_ERR_PARSE, s->origin, 0, 0, NULL,
                         "truncated offload bundle header (%zu bytes)", n);
    uint64_t count = occ__rd64(d + OCC__BUNDLE_MAGIC_LEN);
    if (count > (n - head) / ENTRY_MIN)
        return occ__diag(diag, OCC_ERR_PARSE, s->origin, 0, 0, NULL,
                         "offload bundle of %llu entries in %zu bytes",
                         (unsigned long long)count, n);
    *extent = head;
    size_t at = head;
    for (uint64_t i = 0; i < count; i++) {
        if (n - at < ENTRY_MIN)
            return occ__diag(diag, OCC_ERR_PARSE, s->origin, 0, 0, NULL,
                             "offload bundle entry %llu is truncated", (unsigned long long)i);
        uint64_t off = occ__rd64(d + at), size = occ__rd64(d + at + 8),
                 id_len = occ__rd64(d + at + 16);
        at += ENTRY_MIN;
        if (id_len > n - at || off > n || size > n - off)
            return occ__diag(diag, OCC_ERR_PARSE, s->origin, 0, 0, NULL,
                             "offload bundle entry %llu lies outside the bundle",
                             (unsigned long long)i);
        const char *id = (const char *)d + at;
        at += id_len;
        if (off + size > *extent)
            *extent = off + size;
        if (at > *extent)
            *extent = at;
        if (size == 0 || !is_amdgcn(id, id_len)) /* the host's entry, other vendors' code */
            continue;
        const uint8_t *obj = d + off;
        if (size >= 4 && memcmp(obj, "BC\xc0\xde", 4) == 0) {
            t->bitcode++;
            continue;
        }
        char what[160];
        snprintf(what, sizeof what, "offload bundle entry %.*s", id_len > 100 ? 100 : (int)id_len,
                 id);
        size_t before = s->n;
        OCC__TRY(occ__amdgpu_collect(s, obj, (size_t)size, what, diag));
        t->objects++;
        if (s->n > before) {
            size_t used = strlen(t->targets);
            snprintf(t->targets + used, sizeof t->targets - used, "%s%s", used ? ", " : "",
                     s->v[s->n - 1].target);
        }
    }
    return OCC_OK;
}

/* A compressed bundle: decompressed, then read as a plain one. */
static occ_status read_ccob(occ_kernel_set *s, const uint8_t *d, size_t n, tally *t,
                            uint64_t *extent, occ_diag *diag)
{
    if (n < 8)
        return occ__diag(diag, OCC_ERR_PARSE, s->origin, 0, 0, NULL,
                         "truncated compressed offload bundle header");
    unsigned version = occ__rd16(d + 4), method = occ__rd16(d + 6);
    size_t head = version == 1 ? 20 : version == 2 ? 24 : version == 3 ? 32 : 0;
    if (!head)
        return occ__diag(diag, OCC_ERR_UNSUPPORTED, s->origin, 0, 0, NULL,
                         "compressed offload bundle of version %u, which occ does not know",
                         version);
    if (n < head)
        return occ__diag(diag, OCC_ERR_PARSE, s->origin, 0, 0, NULL,
                         "truncated compressed offload bundle header");
    uint64_t total = version == 1 ? n : version == 2 ? occ__rd32(d + 8) : occ__rd64(d + 8);
    uint64_t raw = version == 1 ? occ__rd32(d + 8) : version == 2 ? occ__rd32(d + 12)
                                                                 : occ__rd64(d + 16);
    if (total < head || total > n)
        return occ__diag(diag, OCC_ERR_PARSE, s->origin, 0, 0, NULL,
                         "compressed offload bundle of %llu bytes in %zu",
                         (unsigned long long)total, n);
    *extent = total;
    if (method != CCOB_ZSTD)
        return occ__diag(diag, OCC_ERR_UNSUPPORTED, s->origin, 0, 0, NULL,
                         "offload bundle compressed with %s, which occ does not decompress "
                         "(Zstandard only); unbundle it with clang-offload-bundler",
                         method == CCOB_ZLIB ? "zlib" : "an unknown method");
    uint8_t *plain;
    if (!occ__kset_unpack(s, raw, "the compressed offload bundle")) /* the read's budget */
        return occ__kset_budget_diag(s, diag);
    OCC__TRY(occ__zstd_decompress(d + head, (size_t)(total - head), raw, MAX_BUNDLE, s->origin,
                                  "offload bundle", "", &plain, diag));
    occ_status st;
    uint64_t inner;
    if (raw < OCC__BUNDLE_MAGIC_LEN || memcmp(plain, OCC__BUNDLE_MAGIC, OCC__BUNDLE_MAGIC_LEN) != 0)
        st = occ__diag(diag, OCC_ERR_PARSE, s->origin, 0, 0, NULL,
                       "a compressed offload bundle that holds no offload bundle");
    else
        st = read_bundle(s, plain, (size_t)raw, t, &inner, diag);
    free(plain);
    return st;
}

/* The bundles one after another in d[0..n): a file holds one, a host
 * executable's .hip_fatbin one per translation unit, each aligned. */
static occ_status read_bundles(occ_kernel_set *s, const uint8_t *d, size_t n, occ_diag *diag)
{
    tally t = {0};
    unsigned bundles = 0;
    for (size_t at = 0; at < n;) {
        const uint8_t *b = d + at;
        size_t left = n - at;
        uint64_t extent = 0;
        if (left >= OCC__BUNDLE_MAGIC_LEN && memcmp(b, OCC__BUNDLE_MAGIC, OCC__BUNDLE_MAGIC_LEN) == 0)
            OCC__TRY(read_bundle(s, b, left, &t, &extent, diag));
        else if (left >= 4 && memcmp(b, OCC__CCOB_MAGIC, 4) == 0)
            OCC__TRY(read_ccob(s, b, left, &t, &extent, diag));
        else if (bundles == 0)
            return occ__diag(diag, OCC_ERR_PARSE, s->origin, 0, 0, NULL,
                             "no offload bundle where one should start");
        else { /* padding up to the next bundle: look at the next 8-byte boundary */
            at = (at + 8) & ~(size_t)7;
            continue;
        }
        bundles++;
        at += (size_t)extent; /* extent >= the header, never 0 */
    }
    if (s->n == 0 && t.bitcode)
        return occ__diag(diag, OCC_ERR_UNSUPPORTED, s->origin, 0, 0, NULL,
                         "the offload bundle holds LLVM bitcode (-fgpu-rdc), not code objects: "
                         "read the linked program or its code objects");
    if (t.objects == 0)
        return occ__diag(diag, OCC_ERR_PARSE, s->origin, 0, 0, NULL,
                         "no AMDGPU code object in the offload bundle");
    /* The per-object notes of occ__amdgpu_collect stay; this one sums up. */
    occ__kset_note(s, "offload bundle: %u code object%s (%s)", t.objects,
                   t.objects == 1 ? "" : "s", t.targets);
    return OCC_OK;
}

occ_status occ__offload_bundle_read(occ_kernel_set *s, const uint8_t *data, size_t size,
                                    const occ_kernel_read_options *o, occ_diag *diag)
{
    (void)o; /* no AMD device model yet: every target's code is read */
    if (size >= 4 && memcmp(data, "\177ELF", 4) == 0) {
        occ__elf e;
        occ__elf_section sec;
        OCC__TRY(occ__elf_open(&e, data, size, s->origin, diag));
        if (!occ__elf_find(&e, ".hip_fatbin", &sec) || !sec.data)
            return occ__diag(diag, OCC_ERR_PARSE, s->origin, 0, 0, NULL,
                             "no .hip_fatbin section with contents");
        return read_bundles(s, sec.data, (size_t)sec.size, diag);
    }
    return read_bundles(s, data, size, diag);
}
