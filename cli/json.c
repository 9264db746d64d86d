#include "json.h"

#include <math.h>
#include <string.h>

void json_init(json *j, FILE *out, bool pretty)
{
    memset(j, 0, sizeof *j);
    j->out = out;
    j->first[0] = true;
    j->pretty = pretty;
}

static void indent(json *j)
{
    if (!j->pretty)
        return;
    fputc('\n', j->out);
    for (int i = 0; i < j->depth; i++)
        fputs("  ", j->out);
}

/* Separator before a value or key at the current depth. */
static void before_item(json *j)
{
    if (j->after_key) {
        j->after_key = false;
        return;
    }
    if (!j->first[j->depth])
        fputc(',', j->out);
    j->first[j->depth] = false;
    if (j->depth > 0)
        indent(j);
}

static void open(json *j, char c)
{
    before_item(j);
    fputc(c, j->out);
    if (j->depth < 31)
        j->depth++;
    j->first[j->depth] = true;
}

static void close(json *j, char c)
{
    bool empty = j->first[j->depth];
    if (j->depth > 0)
        j->depth--;
    if (!empty)
        indent(j);
    fputc(c, j->out);
}

void json_begin_object(json *j) { open(j, '{'); }
void json_end_object(json *j) { close(j, '}'); }
void json_begin_array(json *j) { open(j, '['); }
void json_end_array(json *j) { close(j, ']'); }

/* Length of the valid UTF-8 sequence at p (1..4), or 0 when p does not
 * start one (a stray continuation byte, an overlong form, a surrogate, a
 * value past U+10FFFF, a sequence cut short). */
static size_t utf8_sequence(const unsigned char *p)
{
    unsigned char c = p[0];
    if (c < 0x80)
        return 1;
    size_t n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    if (!n)
        return 0;
    /* the second byte's range excludes overlongs, surrogates and > U+10FFFF */
    unsigned char lo = c == 0xe0 ? 0xa0 : c == 0xf0 ? 0x90 : 0x80;
    unsigned char hi = c == 0xed ? 0x9f : c == 0xf4 ? 0x8f : 0xbf;
    if (p[1] < lo || p[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++)
        if ((p[i] & 0xc0) != 0x80)
            return 0;
    return n;
}

/* A string as JSON: always valid UTF-8.  A byte that is not part of a valid
 * UTF-8 sequence is written as the character of its Latin-1 reading
 * (\u00XX), so a Latin-1 path or a kernel name with byte 0xff stays
 * readable and distinct (docs/cli.md). */
static void put_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        /* Runs that need no escape in one write: a call per byte was a
         * tenth of a whole `occcalc --json` run. */
        size_t run = 0, n;
        while (p[run] >= 0x20 && p[run] != '"' && p[run] != '\\' && (n = utf8_sequence(p + run)))
            run += n;
        if (run) {
            fwrite(p, 1, run, f);
            p += run;
            continue;
        }
        switch (*p) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\t': fputs("\\t", f); break;
        case '\r': fputs("\\r", f); break;
        default: fprintf(f, "\\u%04x", *p); /* a control character, or a byte not UTF-8 */
        }
        p++;
    }
    fputc('"', f);
}

void json_key(json *j, const char *key)
{
    before_item(j);
    put_string(j->out, key);
    fputs(j->pretty ? ": " : ":", j->out);
    j->after_key = true;
}

void json_str(json *j, const char *s)
{
    before_item(j);
    if (s)
        put_string(j->out, s);
    else
        fputs("null", j->out);
}

void json_u64(json *j, uint64_t v)
{
    before_item(j);
    fprintf(j->out, "%llu", (unsigned long long)v);
}

void json_i64(json *j, int64_t v)
{
    before_item(j);
    fprintf(j->out, "%lld", (long long)v);
}

void json_num(json *j, double v)
{
    before_item(j);
    if (!isfinite(v)) {
        fputs("null", j->out);
        return;
    }
    /* printf honours LC_NUMERIC; occcalc never calls setlocale, so this is "C". */
    char buf[64];
    snprintf(buf, sizeof buf, "%.10g", v);
    fputs(buf, j->out);
}

void json_bool(json *j, bool v)
{
    before_item(j);
    fputs(v ? "true" : "false", j->out);
}

void json_null(json *j)
{
    before_item(j);
    fputs("null", j->out);
}

void json_end(json *j) { fputc('\n', j->out); }

void json_kstr(json *j, const char *k, const char *s) { json_key(j, k), json_str(j, s); }
void json_ku64(json *j, const char *k, uint64_t v) { json_key(j, k), json_u64(j, v); }
void json_knum(json *j, const char *k, double v) { json_key(j, k), json_num(j, v); }
void json_kbool(json *j, const char *k, bool v) { json_key(j, k), json_bool(j, v); }
