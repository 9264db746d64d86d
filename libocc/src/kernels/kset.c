/* Building a kernel set, for the readers: appending kernels and notes, and
 * recognising a format from the first bytes.  Kept apart from kernel_set.c
 * (which calls the readers) so that no two files call each other: readers
 * call this file, never kernel_set.c. */
#include "kernels/kernel_set.h"
#include "kernels/demangle.h"
#include "kernels/elf.h"
#include "kernels/intel.h"
#include "kernels/amd.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void occ__kinfo_init(occ_kernel_info *ki)
{
    memset(ki, 0, sizeof *ki);
    ki->struct_size = sizeof *ki;
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Text that looks like source: no NUL in the first 4 KB. */
static bool is_text(const uint8_t *d, size_t n)
{
    return n > 0 && !memchr(d, 0, n < 4096 ? n : 4096);
}

/* s occurs in d[0..n) */
static bool contains(const uint8_t *d, size_t n, const char *s)
{
    size_t m = strlen(s);
    for (size_t i = 0; m <= n && i <= n - m; i++)
        if (d[i] == (uint8_t)s[0] && memcmp(d + i, s, m) == 0)
            return true;
    return false;
}

enum { EM_CUDA = 190, EM_INTELGT = 205 };

occ_kernel_format occ__kernel_detect(const uint8_t *d, size_t n)
{
    if (n >= 20 && memcmp(d, "\177ELF", 4) == 0) {
        if (d[5] != 1) /* little-endian only */
            return OCC_KFMT_UNKNOWN;
        unsigned type = (unsigned)(d[16] | d[17] << 8), machine = (unsigned)(d[18] | d[19] << 8);
        if (machine == EM_CUDA)
            return OCC_KFMT_CUBIN;
        if (machine == EM_INTELGT)
            return OCC_KFMT_ZEBIN;
        if (machine == OCC__EM_AMDGPU)
            return OCC_KFMT_AMDGPU;
        /* Older Intel compilers: zebin types with the product family in
         * e_machine, and the OpenCL ELF container around patch tokens. */
        if (type >= OCC__ET_ZEBIN_REL && type <= OCC__ET_ZEBIN_DYN)
            return OCC_KFMT_ZEBIN;
        if (type >= OCC__ET_OPENCL_FIRST && type <= OCC__ET_OPENCL_LAST)
            return OCC_KFMT_PATCHTOKENS;
        /* A host object or executable with device code inside. */
        occ__elf e;
        occ__elf_section s;
        if (occ__elf_open(&e, d, n, NULL, NULL) == OCC_OK) {
            if (occ__elf_find(&e, ".nv_fatbin", &s)) /* NVIDIA (nvcc -c) */
                return OCC_KFMT_FATBIN;
            if (occ__elf_find(&e, ".hip_fatbin", &s)) /* HIP device code (clang -x hip -c) */
                return OCC_KFMT_OFFLOAD_BUNDLE;
        }
        return OCC_KFMT_UNKNOWN;
    }
    if ((n >= OCC__BUNDLE_MAGIC_LEN && memcmp(d, OCC__BUNDLE_MAGIC, OCC__BUNDLE_MAGIC_LEN) == 0) ||
        (n >= 4 && memcmp(d, OCC__CCOB_MAGIC, 4) == 0))
        return OCC_KFMT_OFFLOAD_BUNDLE;
    if (n >= 4) {
        uint32_t m = le32(d);
        if (m == 0xBA55ED50u || m == 0x466243B1u) /* fatbin file / wrapper */
            return OCC_KFMT_FATBIN;
        if (m == 0x07230203u || m == 0x03022307u) /* SPIR-V, either byte order */
            return OCC_KFMT_SPIRV;
        if (m == 0x494E5443u)                     /* "CTNI": Intel patch tokens */
            return OCC_KFMT_PATCHTOKENS;
    }
    if (is_text(d, n)) {
        if (contains(d, n, ".version") && contains(d, n, ".target"))
            return OCC_KFMT_PTX;
        if (contains(d, n, "__kernel") || contains(d, n, "kernel void"))
            return OCC_KFMT_OPENCL_C;
    }
    return OCC_KFMT_UNKNOWN;
}

/* ELF machines a refused file is likely built for (e_machine). */
static const char *elf_machine(unsigned m)
{
    switch (m) {
    case 3: return "x86";
    case 20: return "PowerPC";
    case 21: return "PowerPC64";
    case 22: return "IBM Z";
    case 40: return "ARM";
    case 62: return "x86-64";
    case 183: return "AArch64";
    case 224: return "AMDGPU";
    case 243: return "RISC-V";
    case 258: return "LoongArch";
    default: return NULL;
    }
}

static const char *elf_type(unsigned t)
{
    switch (t) {
    case 1: return "relocatable object";
    case 2: return "executable";
    case 3: return "shared object or position-independent executable";
    case 4: return "core dump";
    default: return "file";
    }
}

void occ__kernel_describe_unknown(const uint8_t *d, size_t n, char *out, size_t size)
{
    if (n == 0) {
        snprintf(out, size, "an empty file");
    } else if (n >= 20 && memcmp(d, "\177ELF", 4) == 0) {
        bool le = d[5] == 1;
        unsigned type = le ? (unsigned)(d[16] | d[17] << 8) : (unsigned)(d[16] << 8 | d[17]);
        unsigned machine = le ? (unsigned)(d[18] | d[19] << 8) : (unsigned)(d[18] << 8 | d[19]);
        const char *m = elf_machine(machine);
        char mbuf[32];
        if (!m) {
            snprintf(mbuf, sizeof mbuf, "machine %u", machine);
            m = mbuf;
        }
        snprintf(out, size, "a%s %s ELF %s%s with no .nv_fatbin section: no GPU kernels occ "
                 "can read",
                 m[0] == 'x' || m[0] == 'A' || m[0] == 'I' ? "n" : "", m, elf_type(type),
                 le ? "" : " (big-endian)");
    } else if (n >= 8 && memcmp(d, "!<arch>\n", 8) == 0) {
        snprintf(out, size, "a static library (ar archive): extract its objects (ar x) and give "
                 "the one with device code");
    } else if (n >= 4 && (le32(d) == 0xFEEDFACFu || le32(d) == 0xCFFAEDFEu ||
                          le32(d) == 0xFEEDFACEu || le32(d) == 0xCEFAEDFEu)) {
        snprintf(out, size, "a Mach-O file: no GPU kernels occ can read");
    } else if (n >= 2 && d[0] == 'M' && d[1] == 'Z') {
        snprintf(out, size, "a Windows PE file: no GPU kernels occ can read");
    } else if (n >= 4 && le32(d) == 0xFD2FB528u) {
        snprintf(out, size, "a Zstandard-compressed file: decompress it first");
    } else if (n >= 2 && d[0] == 0x1f && d[1] == 0x8b) {
        snprintf(out, size, "a gzip-compressed file: decompress it first");
    } else if (is_text(d, n)) {
        snprintf(out, size, "text that is neither PTX (no .version and .target directives) nor "
                 "OpenCL C (no __kernel)");
    } else {
        snprintf(out, size, "binary data of no kernel format (first bytes %02x %02x %02x %02x)",
                 d[0], n > 1 ? d[1] : 0, n > 2 ? d[2] : 0, n > 3 ? d[3] : 0);
    }
}

occ_status occ__kset_add(occ_kernel_set *s, const occ_kernel_info *ki, occ_diag *diag)
{
    const char *raw = ki->name ? ki->name : "";
    size_t len = strlen(raw);
    /* Copying and demangling a name is work on its length: a file that names
     * many kernels with one long string pays for each copy. */
    if (!occ__kset_charge(s, 4 * (uint64_t)len + 1))
        return occ__kset_budget_diag(s, diag);
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 8;
        occ_kernel_info *v = realloc(s->v, cap * sizeof *v);
        if (!v)
            return occ__diag(diag, OCC_ERR_NO_MEMORY, s->origin, 0, 0, NULL, "out of memory");
        s->v = v;
        s->cap = cap;
    }
    char *mangled = malloc(len + 1);
    if (!mangled)
        return occ__diag(diag, OCC_ERR_NO_MEMORY, s->origin, 0, 0, NULL, "out of memory");
    memcpy(mangled, raw, len + 1);
    char *name = occ__demangle(mangled);
    occ_kernel_info *dst = &s->v[s->n++];
    *dst = *ki;
    dst->mangled = mangled;
    dst->name = name ? name : mangled;
    return OCC_OK;
}

bool occ__kset_charge(occ_kernel_set *s, uint64_t units)
{
    occ__read_budget *b = &s->budget;
    if (b->exceeded)
        return false;
    if (units > b->work_left) {
        b->work_used += b->work_left;
        b->work_left = 0;
        b->exceeded = true;
        if (!b->what[0])
            snprintf(b->what, sizeof b->what, "reading its metadata");
        return false;
    }
    b->work_left -= units;
    b->work_used += units;
    return true;
}

bool occ__kset_unpack(occ_kernel_set *s, uint64_t bytes, const char *what)
{
    occ__read_budget *b = &s->budget;
    if (b->exceeded)
        return false;
    if (bytes > b->unpack_left) {
        b->exceeded = true;
        snprintf(b->what, sizeof b->what, "%s: %llu bytes once decompressed, %llu left of what "
                 "its size allows", what, (unsigned long long)bytes,
                 (unsigned long long)b->unpack_left);
        return false;
    }
    b->unpack_left -= bytes;
    b->unpacked += bytes;
    uint64_t more = bytes * OCC__WORK_PER_INPUT_BYTE;
    b->work_left = UINT64_MAX - b->work_left < more ? UINT64_MAX : b->work_left + more;
    return true;
}

bool occ__kset_streq(occ_kernel_set *s, const char *a, const char *b)
{
    if (a == b)
        return !s->budget.exceeded;
    /* Compared in steps of at most 4 KB, each charged for the bytes it
     * compared: a long comparison stops when the budget is spent. */
    for (size_t i = 0;;) {
        size_t start = i, end = i + 4096;
        int verdict = -1; /* -1 undecided, 0 differ, 1 equal */
        for (; i < end && verdict < 0; i++)
            if (a[i] != b[i])
                verdict = 0;
            else if (!a[i])
                verdict = 1;
        if (!occ__kset_charge(s, i - start))
            return false;
        if (verdict >= 0)
            return verdict == 1;
    }
}

occ_status occ__kset_budget_diag(const occ_kernel_set *s, occ_diag *diag)
{
    const occ__read_budget *b = &s->budget;
    return occ__diag(diag, OCC_ERR_PARSE, s->origin, 0, 0, NULL,
                     "refused: a file of %zu bytes that asks for more than its size warrants "
                     "(%s; occ reads a kernel file in time and memory proportional to its "
                     "size: at most %u units of work and %u bytes decompressed per byte, "
                     "%llu MiB decompressed in all)",
                     s->input_size, b->what[0] ? b->what : "reading its metadata",
                     OCC__WORK_PER_INPUT_BYTE, OCC__UNPACK_PER_INPUT_BYTE,
                     (unsigned long long)(OCC__UNPACK_CAP >> 20));
}

void occ__kset_note(occ_kernel_set *s, const char *fmt, ...)
{
    size_t used = strlen(s->note);
    if (used && used + 2 < sizeof s->note) {
        memcpy(s->note + used, "; ", 3);
        used += 2;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->note + used, sizeof s->note - used, fmt, ap);
    va_end(ap);
}

