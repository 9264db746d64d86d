/* Build-time tool: compile the devices/ profiles into C data, so that a
 * built-in device is made without parsing YAML (profiles/builtin.c).
 *
 *   embed_profiles OUT.c FILE.yaml...     (a profile's name is its file's stem)
 *
 * Each file is loaded with the library's own YAML loader (so a profile that
 * does not load fails the build, with the loader's message) and written out
 * as a struct occ_builtin_profile (profiles/builtin.h): the description, field
 * by field (desc_fields.h), its sources, its dispatch evidence, and the file's
 * text itself (occ_builtin_yaml).  tests/profiles/test_profiles.c compares the result
 * with a fresh load of every file. */
#include "desc_fields.h"
#include "occ/occ.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A C string literal; long text is cut into lines after each newline and
 * every 100 characters.  Bytes outside printable ASCII are 3-digit octal
 * escapes, so a digit after one cannot extend it. */
static void emit_string(FILE *out, const char *s)
{
    fputc('"', out);
    size_t col = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '\\' || *p == '"')
            fprintf(out, "\\%c", *p);
        else if (*p == '\n')
            fputs("\\n", out);
        else if (*p < 0x20 || *p >= 0x7f)
            fprintf(out, "\\%03o", *p);
        else
            fputc(*p, out);
        if ((*p == '\n' || ++col >= 100) && p[1]) {
            fputs("\"\n    \"", out);
            col = 0;
        }
    }
    fputc('"', out);
}

static char *read_file(const char *path)
{
    FILE *in = fopen(path, "rb");
    if (!in)
        return NULL;
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap + 1);
    size_t n;
    while (buf && (n = fread(buf + len, 1, cap - len, in)) > 0) {
        len += n;
        if (len == cap) {
            char *bigger = realloc(buf, 2 * cap + 1);
            if (!bigger) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = bigger;
            cap *= 2;
        }
    }
    fclose(in);
    if (buf)
        buf[len] = '\0';
    return buf;
}

/* The integers of an array, up to its last non-zero one (C zeroes the rest). */
#define EMIT_ARRAY(out, array, ITEM)                                                               \
    do {                                                                                           \
        size_t used_ = sizeof(array) / sizeof((array)[0]);                                         \
        while (used_ > 0 && !(ITEM((array)[used_ - 1])))                                           \
            used_--;                                                                               \
        fputc('{', out);                                                                           \
        for (size_t i_ = 0; i_ < used_; i_++) {                                                    \
            fputs(i_ ? ", " : "", out);                                                            \
            EMIT_##ITEM(out, (array)[i_]);                                                         \
        }                                                                                          \
        fputs(used_ ? "}" : "0}", out); /* {} is not C11 */                                        \
    } while (0)
#define NUMBER(x) ((x) != 0)
#define EMIT_NUMBER(out, x) fprintf(out, "%lluu", (unsigned long long)(x))
#define GRF(m) ((m).registers != 0 || (m).threads_per_engine != 0)
#define EMIT_GRF(out, m)                                                                           \
    fprintf(out, "{%uu, %uu}", (unsigned)(m).registers, (unsigned)(m).threads_per_engine)

static void emit_desc(FILE *out, const occ_device_desc *d)
{
#define FIELD(f, ...)                                                                              \
    {                                                                                              \
        fputs("      ." #f " = ", out);                                                            \
        __VA_ARGS__;                                                                               \
        fputs(",\n", out);                                                                         \
    }
#define SIZE(f) FIELD(f, fputs("sizeof(occ_device_desc)", out))
#define TEXT(f) FIELD(f, emit_string(out, d->f))
#define NUM(f) FIELD(f, EMIT_NUMBER(out, d->f))
#define NUMS(f) FIELD(f, EMIT_ARRAY(out, d->f, NUMBER))
#define GRFS(f) FIELD(f, EMIT_ARRAY(out, d->f, GRF))
#define REAL(f) FIELD(f, fprintf(out, "%a", d->f))
    OCC_DESC_FIELDS(SIZE, TEXT, NUM, NUMS, GRFS, REAL)
#undef SIZE
#undef TEXT
#undef NUM
#undef NUMS
#undef GRFS
#undef REAL
#undef FIELD
}

/* One profile: its sources array (static), then its table entry into
 * `entries`, which is written after every profile's sources. */
static int emit_profile(FILE *out, FILE *entries, size_t index, const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    int stem = (int)(dot ? (size_t)(dot - base) : strlen(base));

    occ_device *dev = NULL;
    occ_diag diag;
    memset(&diag, 0, sizeof diag);
    if (occ_device_load_file(path, &dev, &diag) != OCC_OK) {
        char text[1024];
        occ_diag_format(&diag, text, sizeof text);
        fprintf(stderr, "embed_profiles: %s\n", text);
        return -1;
    }
    char *yaml = read_file(path);
    if (!yaml) {
        fprintf(stderr, "embed_profiles: cannot read %s\n", path);
        occ_device_free(dev);
        return -1;
    }
    size_t n_sources = occ_device_source_count(dev);
    fprintf(out, "static const char *const sources_%zu[] = {\n", index);
    for (size_t i = 0; i < n_sources; i++) {
        fputs("    ", out);
        emit_string(out, occ_device_source(dev, i));
        fputs(",\n", out);
    }
    fputs("    NULL,\n};\n\n", out);

    fprintf(entries, "  { .name = \"%.*s\",\n    .yaml = ", stem, base);
    emit_string(entries, yaml);
    fputs(",\n    .desc = {\n", entries);
    emit_desc(entries, occ_device_describe(dev));
    fprintf(entries, "    },\n    .sources = sources_%zu,\n    .n_sources = %zu,\n", index,
            n_sources);
    fputs("    .dispatch_evidence = ", entries);
    emit_string(entries, occ_device_dispatch_evidence(dev));
    fputs(" },\n", entries);
    free(yaml);
    occ_device_free(dev);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: embed_profiles OUT.c FILE.yaml...\n");
        return 2;
    }
    FILE *out = fopen(argv[1], "w");
    FILE *entries = tmpfile();
    if (!out || !entries) {
        fprintf(stderr, "embed_profiles: cannot write %s\n", argv[1]);
        return 1;
    }
    fputs("/* Generated by libocc/gen/embed_profiles.c from the devices/ profiles: "
          "do not edit. */\n"
          "#include \"profiles/builtin.h\"\n\n#include <stddef.h>\n\n",
          out);
    int status = 0;
    for (int i = 2; i < argc && status == 0; i++)
        status = emit_profile(out, entries, (size_t)(i - 2), argv[i]);
    fputs("const struct occ_builtin_profile occ_builtin_profiles[] = {\n", out);
    rewind(entries);
    int c;
    while (status == 0 && (c = fgetc(entries)) != EOF)
        fputc(c, out);
    fprintf(out, "};\nconst size_t occ_builtin_profile_count = %d;\n", argc - 2);
    fclose(entries);
    if (fclose(out) != 0 || status != 0) {
        remove(argv[1]);
        return 1;
    }
    return 0;
}
