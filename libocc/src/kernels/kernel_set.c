/* Kernel sets: read a file, recognise its format, hand it to its reader, and
 * answer questions about the kernels found. */
#include "arch/arch.h"
#include "kernels/kernel_set.h"
#include "kernels/demangle.h"
#include "kernels/elf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Larger files are refused: device binaries of whole libraries reach a few
 * hundred MB, and the reader holds the file in memory. */
#define MAX_KERNEL_FILE ((size_t)1 << 30)

static const char *const format_names[OCC_KFMT_COUNT] = {
    [OCC_KFMT_UNKNOWN] = "unknown",   [OCC_KFMT_CUBIN] = "cubin",
    [OCC_KFMT_FATBIN] = "fatbin",     [OCC_KFMT_PTX] = "ptx",
    [OCC_KFMT_ZEBIN] = "zebin",       [OCC_KFMT_PATCHTOKENS] = "patch-tokens",
    [OCC_KFMT_SPIRV] = "spirv",       [OCC_KFMT_OPENCL_C] = "opencl-c",
    [OCC_KFMT_AMDGPU] = "amdgpu",     [OCC_KFMT_OFFLOAD_BUNDLE] = "offload-bundle",
};

const char *occ_kernel_format_name(occ_kernel_format f)
{
    return (unsigned)f < OCC_KFMT_COUNT ? format_names[f] : "unknown";
}

void occ_kernel_read_options_init(occ_kernel_read_options *o)
{
    if (!o)
        return;
    memset(o, 0, sizeof *o);
    o->struct_size = sizeof *o;
}

occ_status occ_kernels_read_memory(const void *data, size_t size, const char *origin,
                                   const occ_kernel_read_options *o, occ_kernel_set **out,
                                   occ_diag *diag)
{
    if (!out || (!data && size) || (o && o->struct_size < sizeof *o))
        return occ__diag(diag, OCC_ERR_INVALID_ARGUMENT, origin, 0, 0, NULL,
                         "occ_kernels_read_memory: missing argument");
    *out = NULL;
    occ_kernel_read_options defaults;
    occ_kernel_read_options_init(&defaults);
    if (!o)
        o = &defaults;
    occ_kernel_set *s = calloc(1, sizeof *s);
    if (!s)
        return occ__diag(diag, OCC_ERR_NO_MEMORY, origin, 0, 0, NULL, "out of memory");
    snprintf(s->origin, sizeof s->origin, "%s", origin ? origin : "<memory>");
    s->input_size = size;
    uint64_t work = (uint64_t)size * OCC__WORK_PER_INPUT_BYTE + OCC__WORK_FLOOR;
    uint64_t unpack = (uint64_t)size * OCC__UNPACK_PER_INPUT_BYTE;
    s->budget.work_left = work;
    s->budget.unpack_left = unpack < OCC__UNPACK_FLOOR ? OCC__UNPACK_FLOOR
                            : unpack > OCC__UNPACK_CAP ? OCC__UNPACK_CAP
                                                       : unpack;
    s->format = occ__kernel_detect(data, size);
    occ__kernel_reader read = occ__kernel_reader_for(s->format);
    occ_status st;
    if (s->format == OCC_KFMT_UNKNOWN) {
        char what[200];
        occ__kernel_describe_unknown(data, size, what, sizeof what);
        st = occ__diag(diag, OCC_ERR_PARSE, s->origin, 0, 0, NULL,
                       "%s (occ reads cubin, fatbin, PTX, zebin, Intel patch-token binaries, "
                       "SPIR-V, OpenCL C, AMDGPU code objects and offload bundles)",
                       what);
    }
    else if (!read)
        st = occ__diag(diag, OCC_ERR_UNSUPPORTED, s->origin, 0, 0, NULL,
                       "%s files are not supported by this build of libocc",
                       occ_kernel_format_name(s->format));
    else
        st = read(s, data, size, o, diag);
    /* A spent budget refuses the file whatever the reader made of it. */
    if (s->budget.exceeded)
        st = occ__kset_budget_diag(s, diag);
    if (st == OCC_OK && s->n == 0)
        st = occ__diag(diag, OCC_ERR_PARSE, s->origin, 0, 0, NULL, "no kernels in this %s file",
                       occ_kernel_format_name(s->format));
    if (st != OCC_OK) {
        occ_kernel_set_free(s);
        return st;
    }
    *out = s;
    return OCC_OK;
}

occ_status occ_kernels_read_file(const char *path, const occ_kernel_read_options *o,
                                 occ_kernel_set **out, occ_diag *diag)
{
    if (!path || !out)
        return occ__diag(diag, OCC_ERR_INVALID_ARGUMENT, NULL, 0, 0, NULL,
                         "occ_kernels_read_file: missing argument");
    *out = NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return occ__diag(diag, OCC_ERR_IO, path, 0, 0, NULL, "cannot open: %s", strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return occ__diag(diag, OCC_ERR_IO, path, 0, 0, NULL, "not a regular file");
    }
    if ((uint64_t)st.st_size > MAX_KERNEL_FILE) {
        close(fd);
        return occ__diag(diag, OCC_ERR_IO, path, 0, 0, NULL,
                         "too large for a kernel file (%lld bytes, at most %zu)",
                         (long long)st.st_size, MAX_KERNEL_FILE);
    }
    size_t size = (size_t)st.st_size;
    uint8_t *buf = malloc(size ? size : 1);
    if (!buf) {
        close(fd);
        return occ__diag(diag, OCC_ERR_NO_MEMORY, path, 0, 0, NULL, "out of memory");
    }
    size_t got = 0;
    while (got < size) {
        ssize_t r = read(fd, buf + got, size - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            int e = r < 0 ? errno : 0;
            free(buf);
            close(fd);
            return occ__diag(diag, OCC_ERR_IO, path, 0, 0, NULL, "cannot read: %s",
                             e ? strerror(e) : "file shrank while reading");
        }
        got += (size_t)r;
    }
    close(fd);
    occ_status s = occ_kernels_read_memory(buf, size, path, o, out, diag);
    free(buf);
    return s;
}

void occ_kernel_set_free(occ_kernel_set *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n; i++) {
        if (s->v[i].name != s->v[i].mangled)
            free((char *)s->v[i].name);
        free((char *)s->v[i].mangled);
    }
    free(s->v);
    free(s);
}

occ_kernel_format occ_kernel_set_format(const occ_kernel_set *s)
{
    return s ? s->format : OCC_KFMT_UNKNOWN;
}

size_t occ_kernel_set_count(const occ_kernel_set *s) { return s ? s->n : 0; }

const occ_kernel_info *occ_kernel_set_get(const occ_kernel_set *s, size_t i)
{
    return s && i < s->n ? &s->v[i] : NULL;
}

static bool short_matches(const occ_kernel_info *ki, const char *name)
{
    const char *full;
    size_t full_len, base_len, n = strlen(name);
    if (ki->name == ki->mangled || !occ__demangled_short(ki->name, &full, &full_len, &base_len))
        return false;
    /* the short names, or the signature without a template's return type */
    return ((n == full_len || n == base_len) && strncmp(full, name, n) == 0) ||
           strcmp(full, name) == 0;
}

bool occ_kernel_name_matches(const occ_kernel_info *ki, const char *name)
{
    if (!ki || !name || !ki->name)
        return false;
    return strcmp(ki->mangled, name) == 0 || strcmp(ki->name, name) == 0 ||
           short_matches(ki, name);
}

const occ_kernel_info *occ_kernel_set_find(const occ_kernel_set *s, const char *name)
{
    if (!s || !name)
        return NULL;
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->v[i].mangled, name) == 0 || strcmp(s->v[i].name, name) == 0)
            return &s->v[i];
    const occ_kernel_info *found = NULL;
    for (size_t i = 0; i < s->n; i++)
        if (short_matches(&s->v[i], name)) {
            if (found)
                return NULL; /* ambiguous */
            found = &s->v[i];
        }
    return found;
}

const char *occ_kernel_set_note(const occ_kernel_set *s) { return s ? s->note : ""; }

void occ_kernel_apply_info(occ_kernel *k, const occ_kernel_info *ki, uint64_t dynamic_slm)
{
    if (!k || !ki)
        return;
    if (ki->known & OCC_KINFO_SUB_GROUP && ki->required_sub_group)
        k->sub_group = k->reqd_sub_group = ki->required_sub_group;
    else if (ki->known & OCC_KINFO_SIMD && occ__vendor_rules_of(ki->vendor) &&
             occ__vendor_rules_of(ki->vendor)->simd_is_sub_group)
        k->sub_group = ki->simd;
    if (ki->known & OCC_KINFO_GRF)
        k->grf = ki->grf;
    if (ki->known & OCC_KINFO_REGS)
        k->regs_per_thread = ki->regs_per_thread;
    if (ki->known & OCC_KINFO_AMD_REGS) { /* the VGPRs a wave allocates, AGPRs included */
        k->regs_per_thread = ki->vgprs;
        k->sgprs = ki->sgprs;
    }
    if (ki->known & OCC_KINFO_WGP_MODE) /* 1 on GCN and CDNA too, where it changes nothing */
        k->cu_mode = !ki->wgp_mode;
    if (ki->known & OCC_KINFO_SLM)
        k->slm_bytes = ki->static_slm + dynamic_slm;
    else if (dynamic_slm)
        k->slm_bytes = dynamic_slm;
    if (ki->known & OCC_KINFO_BARRIERS)
        k->barrier = ki->barriers > 0;
    /* the constraints: the size the file requires is also the default shape;
     * a caller's other shape is then refused by the rule, not overridden */
    if (ki->known & OCC_KINFO_REQD_WG && ki->reqd_wg[0])
        for (int d = 0; d < 3; d++)
            k->wg[d] = k->reqd_wg[d] = ki->reqd_wg[d] ? ki->reqd_wg[d] : 1;
    if (ki->known & OCC_KINFO_MAX_WG && ki->max_wg_size)
        k->max_wg_size = ki->max_wg_size;
    /* compiled cluster dimensions are every launch's (the driver counts them) */
    if (ki->known & OCC_KINFO_CLUSTER && ki->cluster[0])
        for (int d = 0; d < 3; d++)
            k->cluster[d] = ki->cluster[d] ? ki->cluster[d] : 1;
}
