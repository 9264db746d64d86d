/* NVIDIA fat binaries: a .fatbin file (nvcc -fatbin), or the .nv_fatbin
 * section of a host object or executable (nvcc -c), holding one or more
 * containers.
 *
 * A container is a 16-byte header (magic 0xBA55ED50, version 1, header size
 * 16, the size of what follows) and members one after the other.  A member
 * has a header of its own (64 bytes, more for newer targets) followed by its
 * payload:
 *   +0  u16 kind (1 PTX, 2 and 0x10 ELF = SASS)     +4  u32 header size
 *   +8  u64 payload size (padded to 8)             +16 u32 stored size
 *   +28 u32 SM version (90)                        +40 u64 flags
 *   +56 u64 size before compression
 * Flags: 0x8000 payload compressed with Zstandard (CUDA 12.8 and newer; CUDA
 * 13's default compresses PTX, -Xfatbin -compress-all SASS as well), 0x2000
 * the older compression of CUDA 11 and 12.  docs/kernels.md gives the
 * sources.  Zstandard is decompressed with the system's libzstd.so.1 (zstd.h);
 * without it, or for the older scheme, the reader says so.  What
 * decompression may produce is the read's unpack budget (kernel_set.h:
 * proportional to the file, with a hard cap), reserved from the sizes the
 * headers state before anything is decompressed, so a bomb is refused at
 * once.
 *
 * The member taken is the SASS of the highest SM version that runs on the
 * device (occ__nv_sass_runs_on); without a device, the highest there is. */
#include "kernels/elf.h"
#include "kernels/nvidia.h"
#include "kernels/zstd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FATBIN_MAGIC 0xBA55ED50u
#define FATBIN_WRAPPER_MAGIC 0x466243B1u
enum { KIND_PTX = 1, KIND_ELF = 2, KIND_ELF_ALT = 0x10 };
enum { FLAG_COMPRESSED_OLD = 0x2000, FLAG_ZSTD = 0x8000 };
enum { CONTAINER_HEADER = 16, MEMBER_HEADER_MIN = 64 };

typedef struct member {
    unsigned kind, sm;
    uint64_t flags;
    const uint8_t *data;  /* stored payload */
    uint64_t stored, raw; /* stored size, size before compression */
} member;

static bool is_sass(const member *m) { return m->kind == KIND_ELF || m->kind == KIND_ELF_ALT; }

/* Append to buf (NUL-terminated, size bytes); a full buffer ends in "...". */
static void append(char *buf, size_t size, const char *fmt, unsigned a, unsigned b)
{
    size_t used = strlen(buf);
    int w = snprintf(buf + used, size - used, fmt, a, b);
    if (w >= 0 && (size_t)w >= size - used && size > 4)
        memcpy(buf + size - 4, "...", 4);
}

/* What a container holds: "SASS sm_80, sm_90; PTX compute_90; kind 4". */
static void describe(const member *m, size_t n, char *buf, size_t size)
{
    buf[0] = 0;
    bool any = false;
    for (size_t i = 0; i < n; i++)
        if (is_sass(&m[i])) {
            append(buf, size, any ? ", sm_%u" : "SASS sm_%u", m[i].sm, 0);
            any = true;
        }
    bool ptx = false;
    for (size_t i = 0; i < n; i++)
        if (m[i].kind == KIND_PTX) {
            append(buf, size, ptx ? ", compute_%u" : any ? "; PTX compute_%u" : "PTX compute_%u",
                   m[i].sm, 0);
            ptx = any = true;
        }
    for (size_t i = 0; i < n; i++)
        if (!is_sass(&m[i]) && m[i].kind != KIND_PTX) {
            append(buf, size, any ? "; member of kind %u for %u" : "member of kind %u for %u",
                   m[i].kind, m[i].sm);
            any = true;
        }
}

/* A Zstandard-compressed member (zstd.h decompresses it). */
static occ_status read_zstd_member(occ_kernel_set *s, const member *m, occ_diag *diag)
{
    char what[48];
    snprintf(what, sizeof what, "SASS for sm_%u", m->sm);
    uint8_t *raw;
    /* m->raw is reserved from the read's budget already (read_member) */
    OCC__TRY(occ__zstd_decompress(m->data, (size_t)m->stored, m->raw, m->raw, s->origin, what,
                                  "; or rebuild with nvcc -Xfatbin -compress=false", &raw, diag));
    occ_status st = occ__cubin_collect(s, raw, (size_t)m->raw, diag);
    free(raw);
    return st;
}

/* Read the kernels of member m (SASS) into s. */
static occ_status read_member(occ_kernel_set *s, const member *m, occ_diag *diag)
{
    if (m->flags & FLAG_COMPRESSED_OLD)
        return occ__diag(diag, OCC_ERR_UNSUPPORTED, s->origin, 0, 0, NULL,
                         "the SASS for sm_%u is compressed with the scheme of CUDA 11 and 12 "
                         "(fatbinary flag 0x2000), which occ does not decompress; rebuild with "
                         "nvcc -Xfatbin -compress=false",
                         m->sm);
    if (m->flags & FLAG_ZSTD) {
        char what[64];
        snprintf(what, sizeof what, "the compressed SASS for sm_%u", m->sm);
        if (!occ__kset_unpack(s, m->raw, what))
            return occ__kset_budget_diag(s, diag);
        return read_zstd_member(s, m, diag);
    }
    return occ__cubin_collect(s, m->data, (size_t)m->stored, diag);
}

/* Parse the members of the container at d[0..n); *used = its whole size. */
static occ_status parse_container(const occ_kernel_set *s, const uint8_t *d, size_t n,
                                  size_t at, member **v, size_t *count, size_t *used,
                                  occ_diag *diag)
{
    if (n < CONTAINER_HEADER)
        return occ__diag(diag, OCC_ERR_PARSE, s->origin, 0, 0, NULL,
                         "fatbin header at offset %zu cut off (%zu bytes left)", at, n);
    uint16_t header = occ__rd16(d + 6);
    uint64_t body = occ__rd64(d + 8);
    if (header < CONTAINER_HEADER || header > n)
        return occ__diag(diag, OCC_ERR_PARSE, s->origin, 0, 0, NULL,
                         "fatbin at offset %zu: header size %u", at, header);
    if (body > n - header)
        return occ__diag(diag, OCC_ERR_PARSE, s->origin, 0, 0, NULL,
                         "fatbin at offset %zu claims %llu bytes, the file has %zu after its "
                         "header",
                         at, (unsigned long long)body, n - header);
    *used = header + (size_t)body;
    size_t off = header, end = header + (size_t)body;
    while (off < end) {
        if (end - off < MEMBER_HEADER_MIN)
            return occ__diag(diag, OCC_ERR_PARSE, s->origin, 0, 0, NULL,
                             "fatbin member header at offset %zu cut off", at + off);
        const uint8_t *h = d + off;
        uint32_t hsize = occ__rd32(h + 4);
        uint64_t payload = occ__rd64(h + 8);
        if (hsize < MEMBER_HEADER_MIN || hsize > end - off)
            return occ__diag(diag, OCC_ERR_PARSE, s->origin, 0, 0, NULL,
                             "fatbin member at offset %zu: header size %u", at + off, hsize);
        if (payload > end - off - hsize)
            return occ__diag(diag, OCC_ERR_PARSE, s->origin, 0, 0, NULL,
                             "fatbin member at offset %zu claims %llu bytes, past the end of "
                             "its container",
                             at + off, (unsigned long long)payload);
        member m = {
            .kind = occ__rd16(h),
            .sm = occ__rd32(h + 28),
            .flags = occ__rd64(h + 40),
            .data = h + hsize,
            .stored = payload,
            .raw = occ__rd64(h + 56),
        };
        if (m.flags & (FLAG_ZSTD | FLAG_COMPRESSED_OLD)) {
            uint32_t stored = occ__rd32(h + 16);
            if (stored > payload)
                return occ__diag(diag, OCC_ERR_PARSE, s->origin, 0, 0, NULL,
                                 "fatbin member at offset %zu: compressed size %u exceeds its "
                                 "payload of %llu bytes",
                                 at + off, stored, (unsigned long long)payload);
            m.stored = stored;
        }
        if (*count % 16 == 0) {
            member *bigger = realloc(*v, (*count + 16) * sizeof *bigger);
            if (!bigger)
                return occ__diag(diag, OCC_ERR_NO_MEMORY, s->origin, 0, 0, NULL, "out of memory");
            *v = bigger;
        }
        (*v)[(*count)++] = m;
        off += hsize + (size_t)payload;
    }
    return OCC_OK;
}

/* The SASS member to read among v[0..n): the highest SM version that runs on
 * dev_sm (any when dev_sm is 0); NULL when none. */
static const member *pick(const member *v, size_t n, unsigned dev_sm)
{
    const member *best = NULL;
    for (size_t i = 0; i < n; i++)
        if (is_sass(&v[i]) && (!dev_sm || occ__nv_sass_runs_on(v[i].sm, dev_sm)) &&
            (!best || v[i].sm > best->sm))
            best = &v[i];
    return best;
}

/* The fatbin bytes of the buffer: itself, or a host ELF's .nv_fatbin. */
static occ_status fatbin_bytes(occ_kernel_set *s, const uint8_t *data, size_t size,
                               const uint8_t **fb, size_t *fbn, occ_diag *diag)
{
    if (size >= 4 && occ__rd32(data) == FATBIN_WRAPPER_MAGIC)
        return occ__diag(diag, OCC_ERR_PARSE, s->origin, 0, 0, NULL,
                         "a fatbin wrapper (magic 0x466243B1) points to its fatbin by address; "
                         "give the .fatbin file, or the object or executable that holds it");
    if (size >= 4 && memcmp(data, "\177ELF", 4) == 0) {
        occ__elf e;
        occ_status st = occ__elf_open(&e, data, size, s->origin, diag);
        if (st != OCC_OK)
            return st;
        occ__elf_section sec;
        if (!occ__elf_find(&e, ".nv_fatbin", &sec) || !sec.data)
            return occ__diag(diag, OCC_ERR_PARSE, s->origin, 0, 0, NULL,
                             "ELF file without NVIDIA device code (no .nv_fatbin section)");
        *fb = sec.data;
        *fbn = (size_t)sec.size;
        return OCC_OK;
    }
    *fb = data;
    *fbn = size;
    return OCC_OK;
}

occ_status occ__fatbin_read(occ_kernel_set *s, const uint8_t *data, size_t size,
                            const occ_kernel_read_options *o, occ_diag *diag)
{
    const uint8_t *fb = NULL;
    size_t n = 0;
    occ_status st = fatbin_bytes(s, data, size, &fb, &n, diag);
    if (st != OCC_OK)
        return st;
    unsigned dev_sm = 0;
    const occ_device_desc *dd = o && o->device ? occ_device_describe(o->device) : NULL;
    if (dd && dd->vendor != OCC_VENDOR_NVIDIA)
        return occ__diag(diag, OCC_ERR_UNSUPPORTED, s->origin, 0, 0, NULL,
                         "a fatbin holds NVIDIA code; device '%s' is not an NVIDIA GPU", dd->name);
    if (dd && !occ__nv_device_sm(o->device, &dev_sm))
        occ__kset_note(s, "device '%s' names no sm_XX; took the newest SASS", dd->name);

    member *v = NULL;
    size_t containers = 0, off = 0;
    while (st == OCC_OK && off < n) {
        if (n - off < 4 || occ__rd32(fb + off) != FATBIN_MAGIC) {
            /* containers in a .nv_fatbin section may be padded */
            if (fb[off] == 0) {
                off++;
                continue;
            }
            st = occ__diag(diag, OCC_ERR_PARSE, s->origin, 0, 0, NULL,
                           "no fatbin header (magic 0xBA55ED50) at offset %zu", off);
            break;
        }
        size_t count = 0, used = 0;
        st = parse_container(s, fb + off, n - off, off, &v, &count, &used, diag);
        if (st != OCC_OK)
            break;
        char what[200];
        describe(v, count, what, sizeof what);
        const member *m = pick(v, count, dev_sm);
        containers++;
        if (!m && count) {
            bool has_ptx = false;
            for (size_t i = 0; i < count; i++)
                has_ptx |= v[i].kind == KIND_PTX;
            const char *ptx_hint = has_ptx ? "; the driver would compile its PTX at load time: "
                                             "read that PTX (cuobjdump -ptx) instead"
                                           : "";
            if (dd && dev_sm)
                st = occ__diag(diag, OCC_ERR_UNSUPPORTED, s->origin, 0, 0, NULL,
                               "fatbin%s has no SASS that runs on device '%s' (sm_%u), only %s%s; "
                               "or compile for sm_%u",
                               containers > 1 ? " container" : "", dd->name, dev_sm, what,
                               ptx_hint, dev_sm);
            else
                st = occ__diag(diag, OCC_ERR_UNSUPPORTED, s->origin, 0, 0, NULL,
                               "fatbin holds no SASS, only %s%s", what, ptx_hint);
            break;
        }
        if (m) {
            occ__kset_note(s, "fatbin: %s; took sm_%u%s", what, m->sm,
                           m->flags & FLAG_ZSTD ? " (Zstandard-compressed)" : "");
            st = read_member(s, m, diag);
        }
        off += used;
    }
    free(v);
    if (st == OCC_OK && containers == 0)
        st = occ__diag(diag, OCC_ERR_PARSE, s->origin, 0, 0, NULL, "empty fatbin");
    return st;
}
