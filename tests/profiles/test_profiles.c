/* Device profiles: every shipped file loads and equals its built-in copy;
 * writing a description back out and reading it again gives the same device;
 * every broken profile in tests/profiles/bad/ is refused with exactly the
 * diagnostic (status, file, line, column, key, message) listed below.
 *
 * Environment (set by tests/profiles/meson.build): OCC_DEVICES_DIR = devices/,
 * OCC_TEST_PROFILES = tests/profiles/. */
#define _GNU_SOURCE /* open_memstream is POSIX 2008; strdup */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "desc_fields.h" /* libocc/gen/: every field of occ_device_desc */
#include "test_common.h"
#include "occ/kernels.h"

static const char *env_dir(const char *var)
{
    const char *v = getenv(var);
    ck_assert_msg(v && *v, "%s is not set (run through meson test)", var);
    return v;
}

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    char *buf = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        if (n + 4096 + 1 > cap) {
            cap = cap ? cap * 2 : 8192;
            buf = realloc(buf, cap);
            ck_assert(buf != NULL);
        }
        size_t got = fread(buf + n, 1, 4096, f);
        n += got;
        if (got < 4096)
            break;
    }
    fclose(f);
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* Sources and dispatch evidence are equal too. */
static void assert_same_device(const occ_device *a, const occ_device *b, const char *what)
{
    const char *field = "";
    ck_assert_msg(tc_desc_equal(occ_device_describe(a), occ_device_describe(b), &field),
                  "%s: descriptions differ in %s", what, field);
    ck_assert_uint_eq(occ_device_source_count(a), occ_device_source_count(b));
    for (size_t i = 0; i < occ_device_source_count(a); i++)
        ck_assert_str_eq(occ_device_source(a, i), occ_device_source(b, i));
    ck_assert_str_eq(occ_device_dispatch_evidence(a), occ_device_dispatch_evidence(b));
}

/* Every field of two descriptions (desc_fields.h, the generator's own list),
 * whole arrays included; then the whole struct, so that a field missing from
 * the list shows as "bytes no listed field covers".  false: field names the
 * first difference. */
static bool desc_identical(const occ_device_desc *a, const occ_device_desc *b, char *field,
                           size_t size)
{
#define DIFF(...)                                                                                  \
    do {                                                                                           \
        snprintf(field, size, __VA_ARGS__);                                                        \
        return false;                                                                              \
    } while (0)
#define SIZE(f)                                                                                    \
    if (a->f != b->f)                                                                              \
        DIFF(#f);
#define NUM(f) SIZE(f)
#define REAL(f)                                                                                    \
    if (memcmp(&a->f, &b->f, sizeof a->f) != 0)                                                    \
        DIFF(#f);
#define TEXT(f)                                                                                    \
    if (strncmp(a->f, b->f, sizeof a->f) != 0)                                                     \
        DIFF(#f);
#define NUMS(f)                                                                                    \
    for (size_t i = 0; i < sizeof a->f / sizeof a->f[0]; i++)                                      \
        if (a->f[i] != b->f[i])                                                                    \
            DIFF(#f "[%zu]", i);
#define GRFS(f)                                                                                    \
    for (size_t i = 0; i < sizeof a->f / sizeof a->f[0]; i++) {                                    \
        if (a->f[i].registers != b->f[i].registers)                                                \
            DIFF(#f "[%zu].registers", i);                                                         \
        if (a->f[i].threads_per_engine != b->f[i].threads_per_engine)                              \
            DIFF(#f "[%zu].threads_per_engine", i);                                                \
    }
    OCC_DESC_FIELDS(SIZE, TEXT, NUM, NUMS, GRFS, REAL)
    if (memcmp(a, b, sizeof *a) != 0)
        DIFF("bytes no field of libocc/gen/desc_fields.h covers (a field missing from its list?)");
    return true;
#undef SIZE
#undef NUM
#undef REAL
#undef TEXT
#undef NUMS
#undef GRFS
#undef DIFF
}

/* ---- shipped profiles ------------------------------------------------------ */

/* The built-in profiles are compiled to C data at build time
 * (libocc/gen/embed_profiles.c): each equals a fresh load of its file in
 * every field of the description, every source and the dispatch evidence. */
START_TEST(compiled_builtins_equal_files)
{
    const char *dir = env_dir("OCC_DEVICES_DIR");
    ck_assert_uint_ge(occ_builtin_count(), 1);
    for (size_t i = 0; i < occ_builtin_count(); i++) {
        const char *name = occ_builtin_name(i);
        char path[1024], field[160];
        snprintf(path, sizeof path, "%s/%s.yaml", dir, name);
        occ_device *file = NULL;
        occ_diag diag;
        memset(&diag, 0, sizeof diag);
        ck_assert_msg(occ_device_load_file(path, &file, &diag) == OCC_OK, "%s: %s", path,
                      diag.message);
        occ_device *compiled = tc_builtin(name);
        const occ_device_desc *a = occ_device_describe(compiled), *b = occ_device_describe(file);
        ck_assert_msg(desc_identical(a, b, field, sizeof field),
                      "built-in %s: the compiled description differs from %s in %s", name, path,
                      field);
        size_t n = occ_device_source_count(file);
        ck_assert_msg(occ_device_source_count(compiled) == n,
                      "built-in %s: %zu sources compiled, %zu in %s", name,
                      occ_device_source_count(compiled), n, path);
        for (size_t k = 0; k < n; k++)
            ck_assert_msg(strcmp(occ_device_source(compiled, k), occ_device_source(file, k)) == 0,
                          "built-in %s: source %zu differs from %s", name, k, path);
        ck_assert_msg(strcmp(occ_device_dispatch_evidence(compiled),
                             occ_device_dispatch_evidence(file)) == 0,
                      "built-in %s: the dispatch evidence differs from %s", name, path);
        occ_device_free(compiled);
        occ_device_free(file);
    }
}
END_TEST

/* The comparison above sees a change in any listed field and names it. */
START_TEST(compiled_comparison_names_each_field)
{
    occ_device *dev = tc_builtin("h100-sxm");
    const occ_device_desc *a = occ_device_describe(dev);
    char field[160];
    ck_assert(desc_identical(a, a, field, sizeof field));
    size_t checked = 0;
#define EXPECT(f, name, change)                                                                    \
    do {                                                                                           \
        occ_device_desc b = *a;                                                                    \
        change;                                                                                    \
        ck_assert_msg(!desc_identical(a, &b, field, sizeof field), "%s: change not seen", name);  \
        ck_assert_str_eq(field, name);                                                             \
        checked++;                                                                                 \
    } while (0);
#define LAST(f) (sizeof a->f / sizeof a->f[0] - 1)
#define SIZE(f) EXPECT(f, #f, b.f += 1)
#define NUM(f) EXPECT(f, #f, b.f = !b.f ? 1 : 0)
#define REAL(f) EXPECT(f, #f, b.f += 1.0)
#define TEXT(f) EXPECT(f, #f, b.f[0] ^= 1)
#define NUMS(f)                                                                                    \
    {                                                                                              \
        char name_[64];                                                                            \
        snprintf(name_, sizeof name_, #f "[%zu]", LAST(f));                                        \
        EXPECT(f, name_, b.f[LAST(f)] += 1)                                                        \
    }
#define GRFS(f)                                                                                    \
    {                                                                                              \
        char name_[64];                                                                            \
        snprintf(name_, sizeof name_, #f "[%zu].threads_per_engine", LAST(f));                     \
        EXPECT(f, name_, b.f[LAST(f)].threads_per_engine += 1)                                     \
    }
    OCC_DESC_FIELDS(SIZE, TEXT, NUM, NUMS, GRFS, REAL)
#undef SIZE
#undef NUM
#undef REAL
#undef TEXT
#undef NUMS
#undef GRFS
#undef LAST
#undef EXPECT
    ck_assert_uint_ge(checked, 40);
    occ_device_free(dev);
}
END_TEST

START_TEST(shipped_profiles_equal_builtins)
{
    const char *dir = env_dir("OCC_DEVICES_DIR");
    DIR *dh = opendir(dir);
    ck_assert_msg(dh != NULL, "cannot open %s", dir);
    size_t files = 0;
    bool seen[64] = {false};
    ck_assert_uint_le(occ_builtin_count(), 64);
    struct dirent *e;
    while ((e = readdir(dh))) {
        size_t n = strlen(e->d_name);
        if (n < 6 || strcmp(e->d_name + n - 5, ".yaml") != 0)
            continue;
        files++;
        char path[1024], stem[256];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        snprintf(stem, sizeof stem, "%.*s", (int)(n - 5), e->d_name);

        occ_device *from_file = NULL;
        occ_diag diag;
        memset(&diag, 0, sizeof diag);
        occ_status st = occ_device_load_file(path, &from_file, &diag);
        ck_assert_msg(st == OCC_OK, "%s: %s %u:%u %s %s", path, occ_status_name(st), diag.line,
                      diag.column, diag.key, diag.message);
        ck_assert_str_eq(occ_device_origin(from_file), path);
        /* the file's stem is the profile's name, and the built-in of that name
         * is the same profile, byte for byte */
        ck_assert_str_eq(occ_device_describe(from_file)->name, stem);
        size_t i = 0;
        while (i < occ_builtin_count() && strcmp(occ_builtin_name(i), stem) != 0)
            i++;
        ck_assert_msg(i < occ_builtin_count(), "%s is not built in", stem);
        seen[i] = true;
        size_t len;
        char *text = read_all(path, &len);
        ck_assert_msg(strcmp(text, occ_builtin_yaml(stem)) == 0, "%s: built-in text differs", stem);
        free(text);

        occ_device *builtin = tc_builtin(stem);
        char origin[300];
        snprintf(origin, sizeof origin, "<builtin:%s>", stem);
        ck_assert_str_eq(occ_device_origin(builtin), origin);
        assert_same_device(from_file, builtin, stem);
        ck_assert_uint_ge(occ_device_source_count(builtin), 1);
        ck_assert(occ_device_dispatch_evidence(builtin)[0] != '\0');
        occ_device_free(builtin);
        occ_device_free(from_file);
    }
    closedir(dh);
    ck_assert_uint_eq(files, occ_builtin_count());
    for (size_t i = 0; i < occ_builtin_count(); i++)
        ck_assert_msg(seen[i], "built-in %s has no file in devices/", occ_builtin_name(i));
    /* the default device is built in */
    occ_device *dflt = NULL;
    occ_diag diag;
    ck_assert_int_eq(occ_device_open(NULL, &dflt, &diag), OCC_OK);
    ck_assert_str_eq(occ_device_describe(dflt)->name, OCC_DEFAULT_DEVICE);
    occ_device_free(dflt);
}
END_TEST

/* Write a device out, read it back: the same device, and writing that again
 * gives the same text. */
static char *write_text(const occ_device *dev)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ck_assert(f != NULL);
    size_t n = occ_device_source_count(dev);
    const char *src[64];
    ck_assert_uint_le(n, 64);
    for (size_t i = 0; i < n; i++)
        src[i] = occ_device_source(dev, i);
    ck_assert_int_eq(occ_device_write_yaml(occ_device_describe(dev), src, n,
                                           occ_device_dispatch_evidence(dev), f),
                     OCC_OK);
    fclose(f);
    return buf;
}

START_TEST(write_back_round_trip)
{
    const char *name = occ_builtin_name((size_t)_i);
    occ_device *dev = tc_builtin(name);
    char *text = write_text(dev);
    occ_device *again = NULL;
    occ_diag diag;
    memset(&diag, 0, sizeof diag);
    occ_status st = occ_device_load_yaml(text, strlen(text), "<written>", &again, &diag);
    ck_assert_msg(st == OCC_OK, "%s written back does not load: %u:%u %s %s\n%s", name, diag.line,
                  diag.column, diag.key, diag.message, text);
    assert_same_device(dev, again, name);
    char *text2 = write_text(again);
    ck_assert_str_eq(text, text2);
    free(text2);
    free(text);
    occ_device_free(again);
    occ_device_free(dev);
}
END_TEST

/* A description without sources or evidence is written with placeholders
 * that load. */
START_TEST(write_without_sources)
{
    occ_device *dev = tc_builtin("v100");
    size_t len = 0;
    char *buf = tc_yaml_of(dev, NULL, &len);
    occ_device *again = NULL;
    occ_diag diag;
    ck_assert_int_eq(occ_device_load_yaml(buf, len, "<written>", &again, &diag), OCC_OK);
    const char *field = "";
    ck_assert_msg(tc_desc_equal(occ_device_describe(dev), occ_device_describe(again), &field), "%s", field);
    ck_assert_uint_eq(occ_device_source_count(again), 1);
    ck_assert_int_eq(occ_device_write_yaml(NULL, NULL, 0, NULL, stdout), OCC_ERR_INVALID_ARGUMENT);
    free(buf);
    occ_device_free(again);
    occ_device_free(dev);
}
END_TEST

/* occ_device_create validates a description the same way as a file. */
START_TEST(create_from_description)
{
    occ_device *dev = tc_builtin("a100");
    occ_device_desc d = *occ_device_describe(dev);
    occ_device *made = NULL;
    occ_diag diag;
    memset(&diag, 0, sizeof diag);
    ck_assert_int_eq(occ_device_create(&d, &made, &diag), OCC_OK);
    const char *field = "";
    ck_assert_msg(tc_desc_equal(&d, occ_device_describe(made), &field), "%s", field);
    occ_device_free(made);

    d.carveouts[d.n_carveouts - 1] -= 1024; /* no longer ends at per_core */
    ck_assert_int_eq(occ_device_create(&d, &made, &diag), OCC_ERR_VALUE);
    ck_assert_ptr_null(made);
    ck_assert_str_eq(diag.key, "local_memory.carveouts");
    ck_assert_uint_eq(diag.line, 0);

    d = *occ_device_describe(dev);
    d.struct_size = 8;
    ck_assert_int_eq(occ_device_create(&d, &made, &diag), OCC_ERR_INVALID_ARGUMENT);
    occ_device_free(dev);

    /* the cluster keys: GPCs in any order that hold every SM once, the caps with them */
    dev = tc_builtin("h200");
    d = *occ_device_describe(dev);
    ck_assert_uint_eq(d.n_gpcs, 12);
    uint32_t first = d.gpc_sms[0];
    d.gpc_sms[0] = d.gpc_sms[11], d.gpc_sms[11] = first;
    ck_assert_int_eq(occ_device_create(&d, &made, &diag), OCC_OK);
    occ_device_free(made);
    d.gpc_sms[0] += 1;
    ck_assert_int_eq(occ_device_create(&d, &made, &diag), OCC_ERR_VALUE);
    ck_assert_str_eq(diag.key, "core.gpc_sms");
    ck_assert_str_eq(diag.message, "the GPCs hold 133 cores in all, core.count is 132");
    d = *occ_device_describe(dev);
    d.cluster_max_size = 0;
    ck_assert_int_eq(occ_device_create(&d, &made, &diag), OCC_ERR_VALUE);
    ck_assert_ptr_nonnull(strstr(diag.message, "all four or none"));
    d = *occ_device_describe(dev);
    d.cluster_max_size_non_portable = 4;
    ck_assert_int_eq(occ_device_create(&d, &made, &diag), OCC_ERR_VALUE);
    ck_assert_str_eq(diag.key, "core.cluster_max_size_non_portable");
    occ_device_free(dev);
}
END_TEST

/* ---- broken profiles --------------------------------------------------------- */

typedef struct bad_case {
    const char *file; /* under tests/profiles/bad/ */
    occ_status status;
    unsigned line, column; /* 0: no position */
    const char *key;
    const char *message;
} bad_case;

/* Line 1 of each file (but empty and binary-junk) is a comment naming the defect. */
static const bad_case bad[] = {
    {"unknown-key", OCC_ERR_SCHEMA, 13, 3, "core.clock_mhz",
     "unknown key (expected one of: name, count, vector_engines, vector_engine_name, simd_width, "
     "sub_group_sizes, grf_modes, default_grf, max_work_group_size, max_work_groups, barriers, "
     "barriers_driver, gpc_sms, cluster_max_work_groups, cluster_max_size, "
     "cluster_max_size_non_portable)"},
    /* a missing key points at the mapping it is missing from (core: starts at 11:3) */
    {"missing-key", OCC_ERR_SCHEMA, 11, 3, "core.simd_width", "missing key"},
    {"invalid-utf8", OCC_ERR_PARSE, 3, 7, "", "not valid UTF-8 text: invalid leading UTF-8 octet"},
    {"missing-section", OCC_ERR_SCHEMA, 2, 1, "dispatch", "missing key"},
    {"wrong-type", OCC_ERR_SCHEMA, 12, 10, "core.count", "expected an integer, got a list"},
    {"zero-count", OCC_ERR_VALUE, 12, 10, "core.count", "must be a positive integer, got '0'"},
    {"negative", OCC_ERR_VALUE, 13, 19, "core.vector_engines", "must not be negative, got '-16'"},
    {"negative-bytes", OCC_ERR_VALUE, 28, 28, "local_memory.reserved_per_work_group",
     "must not be negative, got '-1K'"},
    {"quoted-number", OCC_ERR_SCHEMA, 12, 10, "core.count",
     "expected an integer, got the quoted string '6'"},
    /* the second occurrence is the one reported */
    {"duplicate-key", OCC_ERR_SCHEMA, 24, 3, "core.count", "duplicate key"},
    /* libyaml notices the unclosed '[' of line 16 at the ':' of the next key */
    {"syntax-error", OCC_ERR_PARSE, 17, 12, "",
     "YAML syntax error: did not find expected ',' or ']' while parsing a flow sequence"},
    {"bad-indent", OCC_ERR_PARSE, 13, 18, "",
     "YAML syntax error: mapping values are not allowed in this context"},
    {"empty", OCC_ERR_PARSE, 0, 0, "", "empty profile"},
    {"binary-junk", OCC_ERR_PARSE, 0, 0, "", "not a text file (contains NUL bytes)"},
    {"two-documents", OCC_ERR_PARSE, 36, 1, "", "more than one YAML document in the file"},
    /* ceil(4096 / 32) = 128 contexts > 16 XVE x 7 */
    {"max-wg-contexts", OCC_ERR_VALUE, 20, 24, "core.max_work_group_size",
     "4096 work-items need 128 thread contexts at sub-group 32, but a core has only 112"},
    {"carveouts-end", OCC_ERR_VALUE, 30, 14, "local_memory.carveouts",
     "the largest carveout (200704) must equal local_memory.per_core (233472)"},
    /* reported at the local_memory mapping (25:3), naming the second key */
    {"steps-and-granule", OCC_ERR_SCHEMA, 25, 3, "local_memory.granule",
     "give either steps or granule, not both"},
    {"no-steps-no-granule", OCC_ERR_SCHEMA, 25, 3, "local_memory.steps", "missing key (or granule)"},
    /* reported at the registers mapping (32:3) */
    {"registers-on-intel", OCC_ERR_VALUE, 32, 3, "registers",
     "an intel profile uses core.grf_modes: write 'registers: none'"},
    {"nvidia-no-registers", OCC_ERR_VALUE, 31, 12, "registers", "an nvidia profile needs a register file"},
    {"default-grf", OCC_ERR_VALUE, 19, 16, "core.default_grf", "256 is not one of core.grf_modes"},
    /* counts are 32-bit; 2^32 - 1 means "no limit", so 2^32 - 2 is the largest */
    {"count-overflow", OCC_ERR_VALUE, 12, 10, "core.count",
     "'4294967296' is too large (at most 4294967294)"},
    {"bytes-overflow", OCC_ERR_VALUE, 26, 13, "local_memory.per_core",
     "'18446744073709551616' is too large"},
    {"unknown-vendor", OCC_ERR_VALUE, 4, 9, "vendor", "expected intel, nvidia or amd, got arm"},
    {"bad-bool", OCC_ERR_SCHEMA, 34, 24, "dispatch.partial_work_groups", "expected true or false, got yes"},
    {"slm-wg-over-core", OCC_ERR_VALUE, 27, 23, "local_memory.max_per_work_group",
     "131072 is more than local_memory.per_core (65536)"},
    {"steps-descending", OCC_ERR_VALUE, 29, 19, "local_memory.steps", "values must ascend strictly"},
    {"schema-version", OCC_ERR_VALUE, 2, 9, "schema", "unsupported schema version 2 (this library reads 1)"},
    {"root-list", OCC_ERR_SCHEMA, 2, 1, "", "expected a mapping, got a list"},
    {"size-suffix", OCC_ERR_SCHEMA, 26, 13, "local_memory.per_core",
     "expected an integer (bytes, optional K or M suffix), got '64KB'"},
    {"fraction", OCC_ERR_SCHEMA, 26, 13, "local_memory.per_core",
     "expected an integer (bytes, optional K or M suffix), got '0.0625M'"},
    {"sources-empty", OCC_ERR_VALUE, 8, 10, "sources", "needs 1 to 64 entries, got 0"},
    {"grf-modes-order", OCC_ERR_VALUE, 19, 19, "core.grf_modes.registers",
     "modes must ascend strictly by registers"},
    {"name-chars", OCC_ERR_VALUE, 3, 7, "name", "must be a non-empty id of [a-z0-9._-]"},
    /* the cluster keys' rules (device.c), reported at gpc_sms */
    {"gpc-sum", OCC_ERR_VALUE, 29, 12, "core.gpc_sms", "the GPCs hold 131 cores in all, core.count is 132"},
    {"cluster-partial", OCC_ERR_VALUE, 29, 12, "core.gpc_sms",
     "gpc_sms, cluster_max_work_groups, cluster_max_size and cluster_max_size_non_portable go together: "
     "all four or none"},
    {"target-chars", OCC_ERR_VALUE, 7, 9, "target",
     "must be an id of [a-z0-9._-], as kernel files name it (sm_90, tgllp)"},
};
#define N_BAD (sizeof bad / sizeof bad[0])

START_TEST(broken_profile)
{
    const bad_case *c = &bad[_i];
    char path[1024];
    snprintf(path, sizeof path, "%s/bad/%s.yaml", env_dir("OCC_TEST_PROFILES"), c->file);
    occ_device *dev = (occ_device *)&dev; /* must be reset to NULL */
    occ_diag diag;
    memset(&diag, 0x55, sizeof diag);
    occ_status st = occ_device_load_file(path, &dev, &diag);
    ck_assert_ptr_null(dev);
    ck_assert_msg(st == c->status, "%s: status %s, expected %s (%s)", c->file, occ_status_name(st),
                  occ_status_name(c->status), diag.message);
    ck_assert_int_eq(diag.status, c->status);
    ck_assert_str_eq(diag.file, path);
    ck_assert_msg(diag.line == c->line && diag.column == c->column, "%s: at %u:%u, expected %u:%u",
                  c->file, diag.line, diag.column, c->line, c->column);
    ck_assert_str_eq(diag.key, c->key);
    ck_assert_str_eq(diag.message, c->message);
    /* the formatted diagnostic puts it together */
    char want[1024], got[1024];
    int n = c->line ? snprintf(want, sizeof want, "%s:%u:%u: ", path, c->line, c->column)
                    : snprintf(want, sizeof want, "%s: ", path);
    snprintf(want + n, sizeof want - (size_t)n, c->key[0] ? "key '%s': %s" : "%s%s", c->key, c->message);
    occ_diag_format(&diag, got, sizeof got);
    ck_assert_str_eq(got, want);
}
END_TEST

/* Every file in bad/ is listed above, so none is silently untested. */
START_TEST(every_bad_file_listed)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/bad", env_dir("OCC_TEST_PROFILES"));
    DIR *dh = opendir(dir);
    ck_assert_msg(dh != NULL, "cannot open %s", dir);
    size_t files = 0;
    struct dirent *e;
    while ((e = readdir(dh))) {
        size_t n = strlen(e->d_name);
        if (n < 6 || strcmp(e->d_name + n - 5, ".yaml") != 0)
            continue;
        files++;
        size_t i = 0;
        while (i < N_BAD && !(strlen(bad[i].file) == n - 5 && strncmp(bad[i].file, e->d_name, n - 5) == 0))
            i++;
        ck_assert_msg(i < N_BAD, "%s is not in the table of test_profiles.c", e->d_name);
    }
    closedir(dh);
    ck_assert_uint_eq(files, N_BAD);
}
END_TEST

/* The bases the broken files were made from load: each broken file has
 * exactly the defect its comment names. */
START_TEST(good_bases_load)
{
    static const char *const good[] = {"intel", "nvidia"};
    for (int i = 0; i < 2; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/good/%s.yaml", env_dir("OCC_TEST_PROFILES"), good[i]);
        occ_device *dev = NULL;
        occ_diag diag;
        memset(&diag, 0, sizeof diag);
        occ_status st = occ_device_load_file(path, &dev, &diag);
        ck_assert_msg(st == OCC_OK, "%s: %u:%u %s %s", path, diag.line, diag.column, diag.key, diag.message);
        /* same model as the built-in it was trimmed from */
        occ_device *ref = tc_builtin(i == 0 ? "tgl" : "h100-sxm");
        occ_device_desc a = *occ_device_describe(dev), b = *occ_device_describe(ref);
        memcpy(a.name, b.name, sizeof a.name);
        memcpy(a.product, b.product, sizeof a.product);
        const char *field = "";
        ck_assert_msg(tc_desc_equal(&a, &b, &field), "%s: %s", path, field);
        occ_device_free(ref);
        occ_device_free(dev);
    }
}
END_TEST

/* Opening devices by name or path, and the I/O failures. */
START_TEST(open_names_and_paths)
{
    occ_device *dev = NULL;
    occ_diag diag;
    memset(&diag, 0, sizeof diag);
    ck_assert_int_eq(occ_device_open("h100-sxm", &dev, &diag), OCC_OK);
    ck_assert_str_eq(occ_device_origin(dev), "<builtin:h100-sxm>");
    occ_device_free(dev);
    ck_assert_int_eq(occ_device_open("", &dev, &diag), OCC_OK);
    ck_assert_str_eq(occ_device_describe(dev)->name, "tgl");
    occ_device_free(dev);

    ck_assert_int_eq(occ_device_open("no-such-gpu", &dev, &diag), OCC_ERR_NOT_FOUND);
    ck_assert_ptr_null(dev);
    ck_assert_ptr_nonnull(strstr(diag.message, "unknown device 'no-such-gpu'"));
    ck_assert_ptr_nonnull(strstr(diag.message, "h100-sxm"));

    char path[1024];
    snprintf(path, sizeof path, "%s/does-not-exist.yaml", env_dir("OCC_TEST_PROFILES"));
    ck_assert_int_eq(occ_device_open(path, &dev, &diag), OCC_ERR_IO);
    ck_assert_str_eq(diag.file, path);
    ck_assert_str_eq(diag.message, "cannot open: No such file or directory");
    snprintf(path, sizeof path, "%s/bad/", env_dir("OCC_TEST_PROFILES"));
    ck_assert_int_eq(occ_device_open(path, &dev, &diag), OCC_ERR_IO);
    ck_assert_str_eq(diag.message, "is a directory, not a profile (give a .yaml file inside it)");
    ck_assert_int_eq(occ_device_load_file("/dev/null", &dev, &diag), OCC_ERR_IO);
    ck_assert_str_eq(diag.message, "not a regular file");

    /* from memory: the origin names it */
    const char *tgl = occ_builtin_yaml("tgl");
    ck_assert_int_eq(occ_device_load_yaml(tgl, strlen(tgl), "<mine>", &dev, &diag), OCC_OK);
    ck_assert_str_eq(occ_device_origin(dev), "<mine>");
    occ_device_free(dev);
    ck_assert_int_eq(occ_device_load_yaml("core: [", 7, "<mine>", &dev, &diag), OCC_ERR_PARSE);
    ck_assert_str_eq(diag.file, "<mine>");
    ck_assert_int_eq(occ_device_load_yaml(tgl, strlen(tgl), NULL, &dev, &diag), OCC_OK);
    ck_assert_str_eq(occ_device_origin(dev), "<string>");
    occ_device_free(dev);
    ck_assert_ptr_null(occ_builtin_yaml("no-such-gpu"));
    ck_assert_ptr_null(occ_builtin_name(occ_builtin_count()));
}
END_TEST

/* A kernel's target finds its profile from the compiled data: every built-in
 * profile's own target leads to the first built-in with it, of its vendor;
 * a variant target ("sm_90a") to its base; no other vendor's profile. */
START_TEST(profile_for_target)
{
    for (size_t i = 0; i < occ_builtin_count(); i++) {
        occ_device *dev = tc_builtin(occ_builtin_name(i));
        const occ_device_desc *d = occ_device_describe(dev);
        ck_assert_msg(d->target[0], "built-in %s names no target", d->name);
        const char *found = occ_builtin_for_target(d->vendor, d->target);
        ck_assert_ptr_nonnull(found);
        occ_device *first = tc_builtin(found);
        ck_assert_str_eq(occ_device_describe(first)->target, d->target);
        ck_assert_int_eq(occ_device_describe(first)->vendor, d->vendor);
        for (size_t j = 0; j < i; j++) /* the first of them in the built-in order */
            if (strcmp(occ_builtin_name(j), found) == 0)
                break;
            else {
                occ_device *before = tc_builtin(occ_builtin_name(j));
                ck_assert(strcmp(occ_device_describe(before)->target, d->target) != 0 ||
                          occ_device_describe(before)->vendor != d->vendor);
                occ_device_free(before);
            }
        occ_device_free(first);
        for (size_t v = 1; occ_vendor_words_of((occ_vendor)v); v++)
            if ((occ_vendor)v != d->vendor)
                ck_assert_ptr_null(occ_builtin_for_target((occ_vendor)v, d->target));
        occ_device_free(dev);
    }
    occ_device *h100 = tc_builtin("h100-sxm"), *tgl = tc_builtin("tgl");
    occ_vendor nv = occ_device_describe(h100)->vendor, in = occ_device_describe(tgl)->vendor;
    ck_assert_str_eq(occ_builtin_for_target(nv, "sm_90a"), "h100-sxm");
    ck_assert_ptr_null(occ_builtin_for_target(nv, "sm_9"));  /* no variant letter to drop */
    ck_assert_ptr_null(occ_builtin_for_target(nv, "sm_20")); /* no profile of that target */
    ck_assert_ptr_null(occ_builtin_for_target(in, ""));
    ck_assert_ptr_null(occ_builtin_for_target(in, NULL));
    occ_device_free(h100);
    occ_device_free(tgl);
}
END_TEST

/* A kernel with compiled clusters runs, without a named device, on the first
 * built-in of its target that takes cluster launches (sm_90: h200, after
 * h100-sxm which has no GPC data); any other kernel on the first of its
 * target; a cluster kernel whose target has no such profile on the first. */
START_TEST(profile_for_kernel)
{
    occ_device *h100 = tc_builtin("h100-sxm");
    occ_kernel_info ki;
    memset(&ki, 0, sizeof ki);
    ki.vendor = occ_device_describe(h100)->vendor;
    snprintf(ki.target, sizeof ki.target, "sm_90a");
    ck_assert_str_eq(occ_builtin_for_kernel(&ki), "h100-sxm");
    ki.cluster[0] = 2, ki.cluster[1] = ki.cluster[2] = 1; /* not stated: not used */
    ck_assert_str_eq(occ_builtin_for_kernel(&ki), "h100-sxm");
    ki.known = OCC_KINFO_CLUSTER;
    const char *found = occ_builtin_for_kernel(&ki);
    ck_assert_str_eq(found, "h200");
    occ_device *h200 = tc_builtin(found);
    ck_assert_uint_gt(occ_device_describe(h200)->n_gpcs, 0);
    ck_assert_uint_eq(occ_device_describe(h100)->n_gpcs, 0);
    memset(ki.cluster, 0, sizeof ki.cluster); /* stated as none */
    ck_assert_str_eq(occ_builtin_for_kernel(&ki), "h100-sxm");
    ki.cluster[0] = 1; /* a cluster of one is a cluster launch all the same */
    ck_assert_str_eq(occ_builtin_for_kernel(&ki), "h200");
    snprintf(ki.target, sizeof ki.target, "sm_80");
    ck_assert_str_eq(occ_builtin_for_kernel(&ki), occ_builtin_for_target(ki.vendor, "sm_80"));
    snprintf(ki.target, sizeof ki.target, "sm_20");
    ck_assert_ptr_null(occ_builtin_for_kernel(&ki));
    ck_assert_ptr_null(occ_builtin_for_kernel(NULL));
    occ_device_free(h200);
    occ_device_free(h100);
}
END_TEST

static Suite *profiles_suite(void)
{
    Suite *s = suite_create("profiles");
    TCase *tc = tcase_create("shipped");
    tcase_add_test(tc, shipped_profiles_equal_builtins);
    tcase_add_test(tc, compiled_builtins_equal_files);
    tcase_add_test(tc, compiled_comparison_names_each_field);
    tcase_add_loop_test(tc, write_back_round_trip, 0, (int)occ_builtin_count());
    tcase_add_test(tc, write_without_sources);
    tcase_add_test(tc, create_from_description);
    suite_add_tcase(s, tc);
    tc = tcase_create("broken");
    tcase_add_loop_test(tc, broken_profile, 0, (int)N_BAD);
    tcase_add_test(tc, every_bad_file_listed);
    tcase_add_test(tc, good_bases_load);
    tcase_add_test(tc, open_names_and_paths);
    tcase_add_test(tc, profile_for_target);
    tcase_add_test(tc, profile_for_kernel);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tc_run(profiles_suite()); }
