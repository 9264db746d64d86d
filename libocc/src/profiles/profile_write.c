/* Write a device description back out as a profile (docs/profiles.md). */
#include "common/internal.h"
#include "model/profile_schema.h"

#include <string.h>

/* Decode one UTF-8 sequence at s, its length in *len.  A byte that starts
 * no valid sequence decodes as itself (the loader accepts only valid UTF-8,
 * so that happens only for text from elsewhere). */
static uint32_t utf8_decode(const unsigned char *s, int *len)
{
    if (s[0] >= 0xC0 && s[0] < 0xE0 && (s[1] & 0xC0) == 0x80) {
        *len = 2;
        return ((uint32_t)(s[0] & 0x1F) << 6) | (s[1] & 0x3F);
    }
    if (s[0] >= 0xE0 && s[0] < 0xF0 && (s[1] & 0xC0) == 0x80 && (s[2] & 0xC0) == 0x80) {
        *len = 3;
        return ((uint32_t)(s[0] & 0x0F) << 12) | ((uint32_t)(s[1] & 0x3F) << 6) | (s[2] & 0x3F);
    }
    if (s[0] >= 0xF0 && s[0] < 0xF8 && (s[1] & 0xC0) == 0x80 && (s[2] & 0xC0) == 0x80 &&
        (s[3] & 0xC0) == 0x80) {
        *len = 4;
        return ((uint32_t)(s[0] & 0x07) << 18) | ((uint32_t)(s[1] & 0x3F) << 12) |
               ((uint32_t)(s[2] & 0x3F) << 6) | (s[3] & 0x3F);
    }
    *len = 1;
    return s[0] < 0x80 ? s[0] : 0xFFFD; /* stray byte: never one of the escaped ones */
}

/* A YAML double-quoted scalar that reads back to exactly the same text:
 * escape quotes, backslashes, C0 and C1 controls, DEL, the line and
 * paragraph separators (which libyaml would fold) and the non-characters. */
static void put_text(FILE *f, const char *text)
{
    const unsigned char *s = (const unsigned char *)text;
    fputc('"', f);
    while (*s) {
        int len;
        uint32_t c = utf8_decode(s, &len);
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", (int)c);
        else if (c < 0x20 || c == 0x7F || (c >= 0x80 && c <= 0x9F) || c == 0x2028 || c == 0x2029 ||
                 c == 0xFFFE || c == 0xFFFF)
            fprintf(f, "\\u%04X", (unsigned)c);
        else
            fwrite(s, 1, (size_t)len, f);
        s += len;
    }
    fputc('"', f);
}

static void put_bytes(FILE *f, uint64_t b)
{
    if (b && b % 1024 == 0)
        fprintf(f, "%lluK", (unsigned long long)(b / 1024));
    else
        fprintf(f, "%llu", (unsigned long long)b);
}

static const occ_profile_key *const K = occ__profile_keys;

static uint32_t list_count(const void *base, const occ_profile_key *e)
{
    return (uint32_t)occ__field_get(base, e->count_offset, sizeof(uint32_t));
}

/* Is an optional key set?  Of two keys that replace each other, the first in
 * the table is written when neither is set. */
static bool is_set(const occ_device_desc *d, int key)
{
    const occ_profile_key *e = &K[key];
    /* all or none, zeros included: a probe's fit may give an interval of 0
     * (below the timer's step), and a file without it would not load */
    if (occ__profile_key_timing_required(key))
        return occ_device_has_timing(d);
    if (!(e->flags & OCC_KEYF_OPTIONAL))
        return true;
    bool list = e->kind == OCC_KEY_BYTES_LIST || e->kind == OCC_KEY_COUNT_LIST;
    bool set = list ? list_count(d, e) != 0 : occ__field_get(d, e->offset, e->size) != 0;
    if (set || e->one_of == OCC_PK_NONE)
        return set;
    const occ_profile_key *o = &K[e->one_of];
    bool other = o->kind == OCC_KEY_BYTES_LIST ? list_count(d, o) != 0
                                               : occ__field_get(d, o->offset, o->size) != 0;
    return !other && key < e->one_of;
}

/* One number in the key's notation: bytes in K where exact, none for no limit. */
static void put_number(FILE *f, const occ_profile_key *e, uint64_t v)
{
    if (e->kind == OCC_KEY_COUNT_OR_NONE && v == OCC_NO_LIMIT)
        fputs("none", f);
    else if (e->kind == OCC_KEY_BYTES || e->kind == OCC_KEY_BYTES_LIST)
        put_bytes(f, v);
    else
        fprintf(f, "%llu", (unsigned long long)v);
}

typedef struct writer {
    FILE *f;
    const occ_device_desc *d;
    const char *const *sources;
    size_t n_sources;
    const char *evidence;
} writer;

static void put_section(writer *w, int section, int depth);

/* The value of one key after its "name:" (and the line's end). */
static void put_value(writer *w, int key, int depth, const void *base)
{
    const occ_profile_key *e = &K[key];
    FILE *f = w->f;
    switch (e->kind) {
    case OCC_KEY_SECTION:
    case OCC_KEY_SECTION_OR_NONE:
        if (!occ__profile_key_present(w->d, key)) {
            fputs(" none\n", f);
            return;
        }
        fputc('\n', f);
        put_section(w, key, depth + 1);
        return;
    case OCC_KEY_VERSION:
        fprintf(f, " %llu\n", (unsigned long long)e->max);
        return;
    case OCC_KEY_TEXT:
        fputc(' ', f);
        put_text(f, (const char *)base + e->offset);
        break;
    case OCC_KEY_WORD: {
        uint64_t v = occ__field_get(base, e->offset, e->size);
        int i = 0;
        while (e->words[i + 1] && (uint64_t)e->values[i] != v)
            i++;
        fprintf(f, " %s", (uint64_t)e->values[i] == v ? e->words[i] : e->words[0]);
        break;
    }
    case OCC_KEY_BOOL:
        fputs(occ__field_get(base, e->offset, e->size) ? " true" : " false", f);
        break;
    case OCC_KEY_COUNT:
    case OCC_KEY_COUNT_OR_NONE:
    case OCC_KEY_BYTES:
        fputc(' ', f);
        put_number(f, e, occ__field_get(base, e->offset, e->size));
        break;
    case OCC_KEY_COUNT_LIST:
    case OCC_KEY_BYTES_LIST: {
        uint32_t n = list_count(base, e);
        if (!n && (e->flags & OCC_KEYF_OR_NONE)) {
            fputs(" none", f);
            break;
        }
        fputs(" [", f);
        for (uint32_t i = 0; i < n; i++) {
            if (i)
                fputs(", ", f);
            put_number(f, e, occ__field_get(base, e->offset + i * e->size, e->size));
        }
        fputc(']', f);
        break;
    }
    case OCC_KEY_MAP_LIST: {
        /* one flow mapping per item: "- {registers: 128, threads_per_engine: 7}" */
        fputc('\n', f);
        uint32_t n = list_count(base, e);
        for (uint32_t i = 0; i < n; i++) {
            const unsigned char *elem = (const unsigned char *)base + e->offset + i * e->size;
            fprintf(f, "%*s- {", 2 * (depth + 1), "");
            bool first = true;
            for (int k = 0; k < OCC_PK_COUNT; k++)
                if (K[k].parent == key) {
                    fprintf(f, "%s%s:", first ? "" : ", ", K[k].name);
                    fputc(' ', f);
                    put_number(f, &K[k], occ__field_get(elem, K[k].offset, K[k].size));
                    first = false;
                }
            fputs("}\n", f);
        }
        return;
    }
    case OCC_KEY_TEXT_LIST:
        fputc('\n', f);
        if (w->n_sources == 0)
            fprintf(f, "%*s- \"written by libocc\"\n", 2 * (depth + 1), "");
        for (size_t i = 0; i < w->n_sources; i++) {
            fprintf(f, "%*s- ", 2 * (depth + 1), "");
            put_text(f, w->sources[i]);
            fputc('\n', f);
        }
        return;
    case OCC_KEY_NANOSECONDS: {
        double s;
        memcpy(&s, (const char *)base + e->offset, sizeof s);
        occ_c_numbers c = occ__c_numbers_begin();
        fprintf(f, " %.6g", s * 1e9);
        occ__c_numbers_end(c);
        break;
    }
    case OCC_KEY_SIDE_TEXT:
        fputc(' ', f);
        put_text(f, w->evidence && *w->evidence ? w->evidence : "not stated");
        break;
    }
    fputc('\n', f);
}

static void put_section(writer *w, int section, int depth)
{
    for (int k = 0; k < OCC_PK_COUNT; k++)
        if (K[k].parent == section && is_set(w->d, k)) {
            fprintf(w->f, "%*s%s:", 2 * depth, "", K[k].name);
            put_value(w, k, depth, w->d);
        }
}

/* The file is the schema table written out in its order (model/profile_schema.c). */
occ_status occ_device_write_yaml(const occ_device_desc *d, const char *const *sources,
                                 size_t n_sources, const char *evidence, FILE *f)
{
    if (!d || !f)
        return OCC_ERR_INVALID_ARGUMENT;
    writer w = {f, d, sources, n_sources, evidence};
    put_section(&w, OCC_PK_NONE, 0);
    return ferror(f) ? OCC_ERR_IO : OCC_OK;
}
