/*
 * The AMD kernel readers without a GPU: the committed corpus of
 * tests/kernels/amd/ (clang-19, make_corpus.py) against LLVM's own remarks
 * of the same compiles, and hostile inputs.
 *
 * For every code object <target>_w<wave>.o the remarks file beside it
 * (-Rpass-analysis=kernel-resource-usage) is parsed here, and every kernel's
 * SGPRs, VGPRs, AGPRs, LDS, scratch, spills and dynamic stack must equal the
 * reader's.  The wave size and the CU or WGP mode are the ones the file was
 * compiled for (its name says which); the flat
 * work-group size bound is the one the sources' attributes give (clang's
 * default for OpenCL C, 256, without one).
 */
#define _GNU_SOURCE /* memmem */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "test_common.h"
#include "fuzz/amd_code_object.h"
#include "kernels/msgpack.h"
#include "occ/kernels.h"

static const char *dir;

/* ---- LLVM's remarks -------------------------------------------------------- */

typedef struct remark {
    char name[256];
    unsigned sgprs, vgprs, agprs, scratch, lds, sgpr_spills, vgpr_spills, occupancy;
    bool dynamic_stack;
} remark;

/* The remarks of one compile, in the order LLVM printed them. */
static size_t read_remarks(const char *file, remark *out, size_t cap)
{
    char path[1024], line[1024];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    size_t n = 0;
    while (fgets(line, sizeof line, f)) {
        const char *r = strstr(line, " remark: ");
        if (!r)
            continue;
        r += 9;
        while (*r == ' ')
            r++;
        char value[256];
        if (sscanf(r, "Function Name: %255s", value) == 1) {
            ck_assert_uint_lt(n, cap);
            memset(&out[n], 0, sizeof out[n]);
            snprintf(out[n].name, sizeof out[n].name, "%s", value);
            n++;
            continue;
        }
        ck_assert_msg(n > 0, "%s: a remark before the first function: %s", file, line);
        remark *k = &out[n - 1];
        const char *colon = strrchr(r, ':');
        ck_assert_msg(colon != NULL, "%s: %s", file, line);
        unsigned v = 0;
        bool number = sscanf(colon + 1, "%u", &v) == 1;
        size_t key = (size_t)(colon - r);
#define IS(s) (key == strlen(s) && strncmp(r, s, key) == 0)
        if (IS("SGPRs")) k->sgprs = v;
        else if (IS("VGPRs")) k->vgprs = v;
        else if (IS("AGPRs")) k->agprs = v;
        else if (IS("ScratchSize [bytes/lane]")) k->scratch = v;
        else if (IS("Occupancy [waves/SIMD]")) k->occupancy = v;
        else if (IS("SGPRs Spill")) k->sgpr_spills = v;
        else if (IS("VGPRs Spill")) k->vgpr_spills = v;
        else if (IS("LDS Size [bytes/block]")) k->lds = v;
        else if (IS("Dynamic Stack")) {
            k->dynamic_stack = strstr(colon, "True") != NULL;
            number = true;
        } else
            ck_abort_msg("%s: unknown remark: %s", file, line);
#undef IS
        ck_assert_msg(number, "%s: no value: %s", file, line);
    }
    fclose(f);
    return n;
}

/* The VGPRs a wave allocates as the metadata counts them: where VGPRs and
 * AGPRs share one file (gfx90a, gfx942) the AGPRs start at a multiple of 4
 * after the VGPRs (LLVM's AMDGPUUsage, "accum_offset"); gfx908's AGPRs are
 * a file of their own, as large, and the larger count is the one stated. */
static unsigned metadata_vgprs(const char *target, const remark *r)
{
    bool unified = strcmp(target, "gfx90a") == 0 || strcmp(target, "gfx942") == 0;
    if (unified && r->agprs)
        return ((r->vgprs + 3) / 4) * 4 + r->agprs;
    return r->vgprs > r->agprs ? r->vgprs : r->agprs;
}

/* kernels.cl's amdgpu_flat_work_group_size (or reqd_work_group_size) bounds. */
static unsigned source_max_wg(const char *name)
{
    static const struct {
        const char *name;
        unsigned max;
    } bounds[] = {{"regs_spill_wg1024", 1024}, {"wg_flat_64", 64},     {"wg_flat_1024", 1024},
                  {"wg_flat_128_512", 512},    {"wg_reqd_16x8", 128},
                  {"_Z8unrolledILi4EEvPf", 1024}, {"_Z8unrolledILi48EEvPf", 1024},
                  {"recursive", 128}};
    for (size_t i = 0; i < sizeof bounds / sizeof bounds[0]; i++)
        if (strcmp(name, bounds[i].name) == 0)
            return bounds[i].max;
    return 256; /* WG256, HIP's WG(1, 256), and OpenCL's default (wg_default) */
}

/* occ's waves per SIMD of a kernel on its target's built-in profile (the
 * default device of --kernel) at its flat work-group-size maximum, or at
 * its required size. */
static unsigned model_waves(const occ_kernel_info *ki, const char *what)
{
    const char *name = occ_builtin_for_target(ki->vendor, ki->target);
    ck_assert_msg(name != NULL, "%s: no built-in profile for %s", what, ki->target);
    occ_device *dev = NULL;
    ck_assert_int_eq(occ_device_builtin(name, &dev, NULL), OCC_OK);
    occ_kernel k;
    occ_kernel_init(&k);
    occ_kernel_apply_info(&k, ki, 0);
    if (!(ki->known & OCC_KINFO_REQD_WG))
        k.wg[0] = ki->max_wg_size;
    uint32_t waves = 0;
    double resident = -1;
    ck_assert_int_eq(occ_waves_per_simd(dev, &k, &waves, &resident), OCC_OK);
    /* whole work-groups never hold more than the per-wave count */
    ck_assert_msg(resident >= 0 && resident <= waves, "%s %s: resident %.2f, waves %u", what, ki->name, resident,
                  waves);
    occ_device_free(dev);
    return waves;
}

/* Every kernel of the set for target, against the remarks, in order. */
static void check_against(const occ_kernel_set *s, const char *target, unsigned wave,
                          const remark *rm, size_t nrm, const char *what)
{
    size_t seen = 0;
    for (size_t i = 0; i < occ_kernel_set_count(s); i++) {
        const occ_kernel_info *ki = occ_kernel_set_get(s, i);
        if (strcmp(ki->target, target) != 0)
            continue;
        ck_assert_msg(seen < nrm, "%s: more kernels than remarks", what);
        const remark *r = &rm[seen++];
        /* the remarks name the symbol: the mangled name */
        ck_assert_msg(strcmp(ki->mangled, r->name) == 0, "%s: kernel %s, remark %s", what, ki->mangled,
                      r->name);
        /* .uses_dynamic_stack is new in code object version 5 */
        bool v4 = strstr(what, "_v4") != NULL;
        uint32_t need = OCC_KINFO_AMD_REGS | OCC_KINFO_SIMD | OCC_KINFO_SLM | OCC_KINFO_PRIVATE |
                        OCC_KINFO_MAX_WG | OCC_KINFO_REG_SPILLS | OCC_KINFO_WGP_MODE |
                        (v4 ? 0 : OCC_KINFO_DYNAMIC_STACK);
        ck_assert(!v4 || !(ki->known & OCC_KINFO_DYNAMIC_STACK));
        ck_assert_msg((ki->known & need) == need, "%s %s: known %#x", what, ki->name, ki->known);
        ck_assert_int_eq(ki->format, OCC_KFMT_AMDGPU);
        ck_assert_msg(occ_vendor_words_of(ki->vendor) && strcmp(occ_vendor_words_of(ki->vendor)->name, "AMD") == 0,
                      "%s %s: vendor %d", what, ki->name, (int)ki->vendor);
#define EQ(got, want)                                                                              \
        ck_assert_msg((uint64_t)(got) == (uint64_t)(want), "%s %s: %s = %llu, LLVM says %llu", what, \
                      ki->name, #got, (unsigned long long)(got), (unsigned long long)(want))
        EQ(ki->sgprs, r->sgprs);
        EQ(ki->vgprs, metadata_vgprs(target, r));
        EQ(ki->agprs, r->agprs);
        EQ(ki->static_slm, r->lds);
        EQ(ki->private_bytes, r->scratch);
        EQ(ki->vgpr_spills, r->vgpr_spills);
        EQ(ki->sgpr_spills, r->sgpr_spills);
        if (!v4)
            EQ(ki->dynamic_stack, r->dynamic_stack);
        EQ(ki->simd, wave);
        /* clang compiles RDNA (gfx1xxx) kernels for WGP mode unless -mcumode
         * (the _cu files); GCN and CDNA have CUs only */
        EQ(ki->wgp_mode, strncmp(target, "gfx1", 4) == 0 && !strstr(what, "_cu."));
        EQ(ki->max_wg_size, source_max_wg(ki->mangled));
        /* the model: waves per SIMD at the flat work-group-size maximum
         * on the target's own profile, as LLVM states them */
        EQ(model_waves(ki, what), r->occupancy);
#undef EQ
        if (strcmp(ki->name, "wg_reqd_16x8") == 0)
            ck_assert(ki->known & OCC_KINFO_REQD_WG && ki->reqd_wg[0] == 16 &&
                      ki->reqd_wg[1] == 8 && ki->reqd_wg[2] == 1);
        else
            ck_assert(!(ki->known & OCC_KINFO_REQD_WG));
    }
    ck_assert_msg(seen == nrm, "%s: %zu kernels for %s, %zu remarks", what, seen, target, nrm);
}

static occ_kernel_set *read_file(const char *file, occ_kernel_format want)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    occ_kernel_set *s = NULL;
    occ_diag d;
    occ_status st = occ_kernels_read_file(path, NULL, &s, &d);
    ck_assert_msg(st == OCC_OK, "%s: %s", path, d.message);
    ck_assert_int_eq(occ_kernel_set_format(s), want);
    return s;
}

/* ---- the corpus ------------------------------------------------------------ */

/* Every <target>_w<wave>[_v4].remarks with its object (.o; .co linked). */
START_TEST(corpus_code_objects)
{
    DIR *dd = opendir(dir);
    ck_assert(dd);
    struct dirent *e;
    unsigned objects = 0, targets_seen = 0;
    char seen[16][32] = {{0}};
    remark rm[64];
    while ((e = readdir(dd))) {
        char target[32], rest[32];
        unsigned wave;
        if (strncmp(e->d_name, "gfx", 3) != 0 || !strstr(e->d_name, ".remarks"))
            continue;
        ck_assert(sscanf(e->d_name, "%31[^_]_w%u%31s", target, &wave, rest) == 3);
        char base[256];
        snprintf(base, sizeof base, "%.*s", (int)(strstr(e->d_name, ".remarks") - e->d_name),
                 e->d_name);
        size_t nrm = read_remarks(e->d_name, rm, 64);
        ck_assert_uint_ge(nrm, 17);
        static const char *const exts[] = {".o", ".co"};
        for (size_t x = 0; x < 2; x++) {
            char file[300], path[1300];
            snprintf(file, sizeof file, "%s%s", base, exts[x]);
            snprintf(path, sizeof path, "%s/%s", dir, file);
            FILE *f = fopen(path, "rb");
            if (!f) {
                ck_assert_msg(x == 1, "%s missing", path);
                continue;
            }
            fclose(f);
            occ_kernel_set *s = read_file(file, OCC_KFMT_AMDGPU);
            ck_assert_uint_eq(occ_kernel_set_count(s), nrm);
            check_against(s, target, wave, rm, nrm, file);
            char v[8];
            snprintf(v, sizeof v, "v%d", strstr(base, "_v4") ? 4 : 5);
            ck_assert_msg(strstr(occ_kernel_set_note(s), v), "%s: %s", file, occ_kernel_set_note(s));
            occ_kernel_set_free(s);
            objects++;
        }
        bool known = false;
        for (unsigned t = 0; t < targets_seen; t++)
            known |= strcmp(seen[t], target) == 0;
        if (!known && targets_seen < 16)
            snprintf(seen[targets_seen++], sizeof seen[0], "%s", target);
    }
    closedir(dd);
    /* ten targets; wave32 and wave64 on the five RDNA ones; three in CU
     * mode; v4; one linked */
    ck_assert_uint_eq(targets_seen, 10);
    ck_assert_uint_eq(objects, 5 + 10 + 3 + 1 + 1);
}
END_TEST

/* AGPRs where MFMA exists: the corpus must hold them, or the test above
 * proves nothing about them. */
START_TEST(corpus_has_agprs)
{
    static const char *const files[] = {"gfx908_w64.o", "gfx90a_w64.o", "gfx942_w64.o"};
    for (size_t i = 0; i < 3; i++) {
        occ_kernel_set *s = read_file(files[i], OCC_KFMT_AMDGPU);
        const occ_kernel_info *k = occ_kernel_set_find(s, "mfma_2x32x32");
        ck_assert(k && k->agprs >= 64);
        occ_kernel_set_free(s);
    }
}
END_TEST

/* The HIP bundle, compressed and not, and the host object that carries one:
 * each architecture's kernels against that architecture's remarks. */
START_TEST(hip_bundles)
{
    static const struct {
        const char *file;
        const char *archs[2];
    } files[] = {{"hip_bundle.hipfb", {"gfx90a", "gfx1100"}},
                 {"hip_bundle.ccob", {"gfx90a", "gfx1100"}},
                 {"hip_host.o", {"gfx90a", NULL}}};
    remark rm[16];
    for (size_t f = 0; f < 3; f++) {
        occ_kernel_set *s = read_file(files[f].file, OCC_KFMT_OFFLOAD_BUNDLE);
        size_t total = 0;
        for (size_t a = 0; a < 2 && files[f].archs[a]; a++) {
            char rf[64];
            snprintf(rf, sizeof rf, "hip_%s.remarks", files[f].archs[a]);
            size_t nrm = read_remarks(rf, rm, 16);
            ck_assert_uint_eq(nrm, 4);
            check_against(s, files[f].archs[a], strcmp(files[f].archs[a], "gfx90a") ? 32 : 64, rm,
                          nrm, files[f].file);
            total += nrm;
        }
        ck_assert_uint_eq(occ_kernel_set_count(s), total);
        ck_assert_ptr_nonnull(strstr(occ_kernel_set_note(s), "offload bundle"));
        const occ_kernel_info *rec = occ_kernel_set_find(s, "recursive");
        ck_assert(rec && rec->dynamic_stack && rec->private_bytes > 0);
        occ_kernel_set_free(s);
    }
}
END_TEST

/* ---- MessagePack ----------------------------------------------------------- */

typedef struct mp_buf {
    uint8_t b[1 << 12];
    size_t n;
} mp_buf;

static void put(mp_buf *m, const void *p, size_t n)
{
    ck_assert_uint_le(m->n + n, sizeof m->b);
    memcpy(m->b + m->n, p, n);
    m->n += n;
}
static void put1(mp_buf *m, unsigned c) { uint8_t b = (uint8_t)c; put(m, &b, 1); }
static void put_be(mp_buf *m, uint64_t v, int n)
{
    for (int i = n - 1; i >= 0; i--)
        put1(m, (unsigned)(v >> (8 * i)) & 0xff);
}
static void mp_str(mp_buf *m, const char *s)
{
    size_t n = strlen(s);
    if (n < 32)
        put1(m, 0xa0 | (unsigned)n);
    else {
        put1(m, 0xd9);
        put1(m, (unsigned)n);
    }
    put(m, s, n);
}
static void mp_uint(mp_buf *m, uint64_t v)
{
    if (v < 128)
        put1(m, (unsigned)v);
    else {
        put1(m, 0xce);
        put_be(m, v, 4);
    }
}

START_TEST(msgpack_types)
{
    static const uint8_t in[] = {
        0x05, 0xff, 0xc0, 0xc2, 0xc3, 0xcc, 0xfe, 0xcd, 0x12, 0x34, 0xce, 0, 1, 0, 0,
        0xcf, 0x80, 0, 0, 0, 0, 0, 0, 1, 0xd0, 0x80, 0xd1, 0xff, 0x00, 0xd2, 0, 0, 0, 7,
        0xd3, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe, 0xca, 0x3f, 0xc0, 0, 0,
        0xcb, 0xbf, 0xf0, 0, 0, 0, 0, 0, 0, 0xa3, 'a', 'b', 'c', 0xd9, 1, 'x',
        0xda, 0, 2, 'h', 'i', 0xdb, 0, 0, 0, 1, 'z', 0xc4, 2, 9, 9, 0xc5, 0, 1, 7,
        0xc6, 0, 0, 0, 0, 0xd4, 3, 0x42, 0xd8, 0xfe, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 0xc7, 2, 5, 1, 2, 0x92, 1, 2, 0x81, 1, 2, 0xdc, 0, 1, 0, 0xde, 0, 1, 0, 0};
    struct {
        occ__mp_type type;
        uint64_t u;
        int64_t i;
        double f;
        uint32_t len_or_count;
    } want[] = {
        {OCC__MP_UINT, 5, 0, 0, 0}, {OCC__MP_INT, 0, -1, 0, 0}, {OCC__MP_NIL, 0, 0, 0, 0},
        {OCC__MP_BOOL, 0, 0, 0, 0}, {OCC__MP_BOOL, 1, 0, 0, 0}, {OCC__MP_UINT, 254, 0, 0, 0},
        {OCC__MP_UINT, 0x1234, 0, 0, 0}, {OCC__MP_UINT, 0x10000, 0, 0, 0},
        {OCC__MP_UINT, 0x8000000000000001ull, 0, 0, 0}, {OCC__MP_INT, 0, -128, 0, 0},
        {OCC__MP_INT, 0, -256, 0, 0}, {OCC__MP_UINT, 7, 0, 0, 0}, {OCC__MP_INT, 0, -2, 0, 0},
        {OCC__MP_FLOAT, 0, 0, 1.5, 0}, {OCC__MP_FLOAT, 0, 0, -1.0, 0}, {OCC__MP_STR, 0, 0, 0, 3},
        {OCC__MP_STR, 0, 0, 0, 1}, {OCC__MP_STR, 0, 0, 0, 2}, {OCC__MP_STR, 0, 0, 0, 1},
        {OCC__MP_BIN, 0, 0, 0, 2}, {OCC__MP_BIN, 0, 0, 0, 1}, {OCC__MP_BIN, 0, 0, 0, 0},
        {OCC__MP_EXT, 0, 0, 0, 1}, {OCC__MP_EXT, 0, 0, 0, 16}, {OCC__MP_EXT, 0, 0, 0, 2},
        {OCC__MP_ARRAY, 0, 0, 0, 2}, {OCC__MP_UINT, 1, 0, 0, 0}, {OCC__MP_UINT, 2, 0, 0, 0},
        {OCC__MP_MAP, 0, 0, 0, 1}, {OCC__MP_UINT, 1, 0, 0, 0}, {OCC__MP_UINT, 2, 0, 0, 0},
        {OCC__MP_ARRAY, 0, 0, 0, 1}, {OCC__MP_UINT, 0, 0, 0, 0}, {OCC__MP_MAP, 0, 0, 0, 1},
        {OCC__MP_UINT, 0, 0, 0, 0}, {OCC__MP_UINT, 0, 0, 0, 0}};
    occ__mp r;
    occ__mp_init(&r, in, sizeof in);
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        occ__mp_item it;
        ck_assert_msg(occ__mp_next(&r, &it), "item %zu: %s", k, r.error);
        ck_assert_msg(it.type == want[k].type, "item %zu: type %d", k, it.type);
        switch (it.type) {
        case OCC__MP_BOOL: ck_assert_int_eq(it.b, want[k].u); break;
        case OCC__MP_UINT: ck_assert_msg(it.u == want[k].u, "item %zu: %llu", k,
                                         (unsigned long long)it.u); break;
        case OCC__MP_INT: ck_assert_int_eq(it.i, want[k].i); break;
        case OCC__MP_FLOAT: ck_assert(it.f == want[k].f); break;
        case OCC__MP_ARRAY: case OCC__MP_MAP: ck_assert_uint_eq(it.count, want[k].len_or_count); break;
        case OCC__MP_STR: case OCC__MP_BIN: case OCC__MP_EXT:
            ck_assert_uint_eq(it.len, want[k].len_or_count);
            break;
        default: break;
        }
    }
    ck_assert(r.p == r.end);
    occ__mp_item it;
    ck_assert(!occ__mp_next(&r, &it) && strstr(r.error, "truncated"));
    static const uint8_t reserved[] = {0xc1};
    occ__mp_init(&r, reserved, 1);
    ck_assert(!occ__mp_next(&r, &it) && strstr(r.error, "0xc1"));
    /* A string, a map and an array that claim more than there is. */
    static const uint8_t long_str[] = {0xdb, 0xff, 0xff, 0xff, 0xff, 'a'};
    occ__mp_init(&r, long_str, sizeof long_str);
    ck_assert(!occ__mp_next(&r, &it) && strstr(r.error, "longer than the data left"));
    static const uint8_t big_map[] = {0xdf, 0xff, 0xff, 0xff, 0xff, 1, 2};
    occ__mp_init(&r, big_map, sizeof big_map);
    ck_assert(!occ__mp_next(&r, &it) && strstr(r.error, "more elements than the data left"));
    static const uint8_t map_half[] = {0x82, 1, 2, 3}; /* 2 pairs need 4 bytes */
    occ__mp_init(&r, map_half, sizeof map_half);
    ck_assert(!occ__mp_next(&r, &it));
    /* skip passes over a nested value and stops after it */
    static const uint8_t nested[] = {0x92, 0x81, 0xa1, 'k', 0x91, 0xc0, 0xcd, 1, 2, 0x07};
    occ__mp_init(&r, nested, sizeof nested);
    ck_assert(occ__mp_skip(&r));
    ck_assert(occ__mp_next(&r, &it) && it.type == OCC__MP_UINT && it.u == 7);
}
END_TEST

/* ---- hostile and hand-made code objects ------------------------------------ */

/* The metadata of one kernel "k" for gfx942, with extra bytes (a key and its
 * value) placed inside the kernel's map when given. */
static void one_kernel(mp_buf *m, const uint8_t *extra, size_t extra_n, uint64_t wave)
{
    put1(m, 0x83);
    mp_str(m, "amdhsa.kernels");
    put1(m, 0x91);
    put1(m, 0x80 | (extra_n ? 10 : 9));
    mp_str(m, ".name"); mp_str(m, "k");
    mp_str(m, ".vgpr_count"); mp_uint(m, 40);
    mp_str(m, ".sgpr_count"); mp_uint(m, 20);
    mp_str(m, ".agpr_count"); mp_uint(m, 8);
    mp_str(m, ".wavefront_size"); mp_uint(m, wave);
    mp_str(m, ".group_segment_fixed_size"); mp_uint(m, 70000);
    mp_str(m, ".private_segment_fixed_size"); mp_uint(m, 16);
    mp_str(m, ".max_flat_workgroup_size"); mp_uint(m, 256);
    mp_str(m, ".uses_dynamic_stack"); put1(m, 0xc2);
    if (extra_n)
        put(m, extra, extra_n);
    mp_str(m, "amdhsa.target"); mp_str(m, "amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-");
    mp_str(m, "amdhsa.version"); put1(m, 0x92); put1(m, 1); put1(m, 2);
}

static occ_status read_meta(const mp_buf *m, uint32_t desc_size, occ_kernel_set **s, occ_diag *d)
{
    size_t n;
    uint8_t *co = amd_code_object(m->b, m->n, desc_size, &n);
    ck_assert(co);
    memset(d, 0, sizeof *d);
    occ_status st = occ_kernels_read_memory(co, n, "hand-made", NULL, s, d);
    free(co);
    return st;
}

START_TEST(hand_made_kernel)
{
    mp_buf m = {.n = 0};
    one_kernel(&m, NULL, 0, 64);
    occ_kernel_set *s;
    occ_diag d;
    ck_assert_msg(read_meta(&m, UINT32_MAX, &s, &d) == OCC_OK, "%s", d.message);
    ck_assert_uint_eq(occ_kernel_set_count(s), 1);
    const occ_kernel_info *k = occ_kernel_set_get(s, 0);
    ck_assert_str_eq(k->name, "k");
    ck_assert_str_eq(k->target, "gfx942");
    ck_assert_uint_eq(k->vgprs, 40);
    ck_assert_uint_eq(k->sgprs, 20);
    ck_assert_uint_eq(k->agprs, 8);
    ck_assert_uint_eq(k->simd, 64);
    ck_assert_uint_eq(k->static_slm, 70000);
    ck_assert_uint_eq(k->private_bytes, 16);
    ck_assert_uint_eq(k->max_wg_size, 256);
    ck_assert(!k->dynamic_stack && k->known & OCC_KINFO_DYNAMIC_STACK);
    ck_assert(!(k->known & OCC_KINFO_REG_SPILLS)); /* not stated */
    ck_assert(!(k->known & OCC_KINFO_WGP_MODE));   /* no descriptor */
    ck_assert_str_eq(occ_kernel_set_note(s), "code object v5 for gfx942:sramecc+:xnack-");
    occ_kernel_set_free(s);
}
END_TEST

/* Every cut of the metadata, and every cut of the note, fails with a
 * message and no set. */
START_TEST(truncated_metadata)
{
    mp_buf m = {.n = 0};
    one_kernel(&m, NULL, 0, 64);
    for (size_t cut = 0; cut < m.n; cut++) {
        mp_buf c = m;
        c.n = cut;
        occ_kernel_set *s = (occ_kernel_set *)1;
        occ_diag d;
        occ_status st = read_meta(&c, UINT32_MAX, &s, &d);
        ck_assert_msg(st == OCC_ERR_PARSE && s == NULL && d.message[0], "cut %zu: %d", cut, st);
    }
    /* a note that states more than its section holds */
    occ_kernel_set *s;
    occ_diag d;
    ck_assert_int_eq(read_meta(&m, (uint32_t)m.n + 64, &s, &d), OCC_ERR_PARSE);
    ck_assert_ptr_nonnull(strstr(d.message, "no AMDGPU metadata note"));
    ck_assert_int_eq(read_meta(&m, UINT32_MAX - 1, &s, &d), OCC_ERR_PARSE);
}
END_TEST

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Counts that claim the world, and nesting a million deep: errors or
 * answers in time linear in the input. */
START_TEST(hostile_counts_and_nesting)
{
    occ_kernel_set *s;
    occ_diag d;
    /* amdhsa.kernels: an array of 2^32 - 1 entries in a few bytes */
    static const uint8_t huge[] = {0x81, 0xae, 'a', 'm', 'd', 'h', 's', 'a', '.', 'k', 'e', 'r',
                                   'n', 'e', 'l', 's', 0xdd, 0xff, 0xff, 0xff, 0xff, 0x80};
    mp_buf m = {.n = 0};
    put(&m, huge, sizeof huge);
    ck_assert_int_eq(read_meta(&m, UINT32_MAX, &s, &d), OCC_ERR_PARSE);
    ck_assert_ptr_nonnull(strstr(d.message, "more elements than the data left"));
    /* a value nested 1,000,000 deep under an unknown key: skipped */
    enum { DEPTH = 1000000 };
    uint8_t *extra = malloc(DEPTH + 8);
    ck_assert(extra);
    size_t n = 0;
    extra[n++] = 0xa2; extra[n++] = '.'; extra[n++] = 'x';
    memset(extra + n, 0x91, DEPTH);
    n += DEPTH;
    extra[n++] = 0xc0;
    mp_buf *big = malloc(sizeof *big + DEPTH + 64);
    /* one_kernel writes into a 4 KB buffer: build around it by hand */
    mp_buf head = {.n = 0};
    one_kernel(&head, (const uint8_t *)"\xa2.y\xc0", 4, 64); /* placeholder key .y: nil */
    uint8_t *meta = malloc(head.n + DEPTH + 8);
    ck_assert(meta && big);
    /* replace the placeholder (4 bytes) by the deep value */
    const uint8_t *ph = memmem(head.b, head.n, "\xa2.y\xc0", 4);
    ck_assert(ph);
    size_t pre = (size_t)(ph - head.b), total = 0;
    memcpy(meta, head.b, pre);
    memcpy(meta + pre, extra, n);
    memcpy(meta + pre + n, ph + 4, head.n - pre - 4);
    total = pre + n + head.n - pre - 4;
    size_t co_n;
    uint8_t *co = amd_code_object(meta, total, UINT32_MAX, &co_n);
    double t0 = now();
    occ_status st = occ_kernels_read_memory(co, co_n, "deep", NULL, &s, &d);
    double dt = now() - t0;
    ck_assert_msg(st == OCC_OK, "%s", d.message);
    ck_assert_uint_eq(occ_kernel_set_get(s, 0)->vgprs, 40);
    occ_kernel_set_free(s);
    ck_assert_msg(dt < 1.0, "a million levels took %.2f s", dt);
    /* the same depth where a kernel's map should be */
    memset(meta, 0, 1);
    mp_buf k = {.n = 0};
    put1(&k, 0x81);
    mp_str(&k, "amdhsa.kernels");
    size_t kn = k.n;
    memcpy(meta, k.b, kn);
    memset(meta + kn, 0x91, DEPTH);
    meta[kn + DEPTH] = 0xc0;
    free(co);
    co = amd_code_object(meta, kn + DEPTH + 1, UINT32_MAX, &co_n);
    st = occ_kernels_read_memory(co, co_n, "deep", NULL, &s, &d);
    ck_assert_int_eq(st, OCC_ERR_PARSE);
    ck_assert_ptr_nonnull(strstr(d.message, "is not a map"));
    free(co);
    free(meta);
    free(big);
    free(extra);
}
END_TEST

/* Values the reader refuses, each with its reason. */
START_TEST(bad_values)
{
    static const struct {
        const char *extra;
        size_t n;
        uint64_t wave;
        const char *msg;
    } cases[] = {
        {NULL, 0, 48, "neither 32 nor 64"},
        {"\xab.sgpr_count\xa1x", 14, 64, ".sgpr_count is not an unsigned integer"},
        {"\xab.vgpr_count\xcf\0\0\0\1\0\0\0\0", 21, 64, ".vgpr_count is not an unsigned"},
        {"\xb3.uses_dynamic_stack\x01", 21, 64, "not a boolean"},
        {"\xb4.reqd_workgroup_size\x92\x01\x01", 24, 64, "array of 3"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        mp_buf m = {.n = 0};
        one_kernel(&m, (const uint8_t *)cases[i].extra, cases[i].n, cases[i].wave);
        occ_kernel_set *s;
        occ_diag d;
        occ_status st = read_meta(&m, UINT32_MAX, &s, &d);
        ck_assert_msg(st == OCC_ERR_PARSE && strstr(d.message, cases[i].msg), "case %zu: %d %s", i,
                      st, d.message);
    }
    /* a name of 256 bytes: read as it is (names have any length) */
    mp_buf m = {.n = 0};
    put1(&m, 0x81);
    mp_str(&m, "amdhsa.kernels");
    put1(&m, 0x91);
    put1(&m, 0x81);
    mp_str(&m, ".name");
    put1(&m, 0xda);
    put_be(&m, 256, 2);
    for (int i = 0; i < 256; i++)
        put1(&m, 'n');
    occ_kernel_set *s;
    occ_diag d;
    ck_assert_int_eq(read_meta(&m, UINT32_MAX, &s, &d), OCC_OK);
    ck_assert_uint_eq(strlen(occ_kernel_set_get(s, 0)->name), 256);
    occ_kernel_set_free(s);
    /* code object version 2: YAML in a note of owner "AMD" */
    size_t n;
    uint8_t *co = amd_code_object((const uint8_t *)"---\n", 4, UINT32_MAX, &n);
    memcpy(co + 64 + 12, "AMD\0\0\0\0", 8);
    co[64] = 4;                /* namesz */
    co[64 + 8] = 10;           /* NT_AMD_HSA_METADATA */
    memmove(co + 64 + 16, co + 64 + 20, 4);
    ck_assert_int_eq(occ_kernels_read_memory(co, n, "v2", NULL, &s, &d), OCC_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(d.message, "version 2"));
    free(co);
}
END_TEST

/* Broken bundles: counts, offsets, compression headers. */
START_TEST(bad_bundles)
{
    uint8_t b[256] = {0};
    memcpy(b, "__CLANG_OFFLOAD_BUNDLE__", 24);
    occ_kernel_set *s;
    occ_diag d;
    amd_put(b + 24, UINT64_MAX, 8);
    ck_assert_int_eq(occ_kernels_read_memory(b, 64, "b", NULL, &s, &d), OCC_ERR_PARSE);
    ck_assert_ptr_nonnull(strstr(d.message, "entries in"));
    /* one entry whose code lies past the end */
    static const char id[] = "hipv4-amdgcn-amd-amdhsa--gfx90a";
    amd_put(b + 24, 1, 8);
    amd_put(b + 32, 200, 8);
    amd_put(b + 40, 100, 8);
    amd_put(b + 48, sizeof id - 1, 8);
    memcpy(b + 56, id, sizeof id - 1);
    ck_assert_int_eq(occ_kernels_read_memory(b, 120, "b", NULL, &s, &d), OCC_ERR_PARSE);
    ck_assert_ptr_nonnull(strstr(d.message, "outside the bundle"));
    /* LLVM bitcode only (-fgpu-rdc) */
    amd_put(b + 32, 96, 8);
    amd_put(b + 40, 4, 8);
    memcpy(b + 96, "BC\xc0\xde", 4);
    ck_assert_int_eq(occ_kernels_read_memory(b, 120, "b", NULL, &s, &d), OCC_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(d.message, "bitcode"));
    /* a host entry alone */
    memcpy(b + 56, "host-x86_64-unknown-linux-gnu-\0", sizeof id - 1);
    ck_assert_int_eq(occ_kernels_read_memory(b, 120, "b", NULL, &s, &d), OCC_ERR_PARSE);
    ck_assert_ptr_nonnull(strstr(d.message, "no AMDGPU code object"));
    /* compressed: zlib, an unknown version, sizes past the end, a lie */
    uint8_t c[64] = {'C', 'C', 'O', 'B', 2, 0, 0, 0};
    amd_put(c + 8, 40, 4);
    amd_put(c + 12, 1000, 4);
    ck_assert_int_eq(occ_kernels_read_memory(c, 40, "c", NULL, &s, &d), OCC_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(d.message, "zlib"));
    c[4] = 9;
    ck_assert_int_eq(occ_kernels_read_memory(c, 40, "c", NULL, &s, &d), OCC_ERR_UNSUPPORTED);
    c[4] = 2;
    c[6] = 1;
    amd_put(c + 8, 4000, 4);
    ck_assert_int_eq(occ_kernels_read_memory(c, 40, "c", NULL, &s, &d), OCC_ERR_PARSE);
    amd_put(c + 8, 40, 4);
    occ_status st = occ_kernels_read_memory(c, 40, "c", NULL, &s, &d); /* no zstd frame */
    ck_assert_msg(st == OCC_ERR_PARSE || (st == OCC_ERR_UNSUPPORTED && strstr(d.message, "libzstd")),
                  "%d %s", st, d.message);
}
END_TEST

int main(int argc, char **argv)
{
    dir = argc > 1 ? argv[1] : "tests/data/kernels/amd";
    Suite *s = suite_create("kernels-amd");
    TCase *tc = tcase_create("amd");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, corpus_code_objects);
    tcase_add_test(tc, corpus_has_agprs);
    tcase_add_test(tc, hip_bundles);
    tcase_add_test(tc, msgpack_types);
    tcase_add_test(tc, hand_made_kernel);
    tcase_add_test(tc, truncated_metadata);
    tcase_add_test(tc, hostile_counts_and_nesting);
    tcase_add_test(tc, bad_values);
    tcase_add_test(tc, bad_bundles);
    suite_add_tcase(s, tc);
    return tc_run(s);
}
