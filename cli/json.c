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

static void put_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        /* Runs that need no escape in one write: a call per byte was a
         * tenth of a whole `occcalc --json` run. */
        size_t run = 0;
        while (p[run] >= 0x20 && p[run] != '"' && p[run] != '\\')
            run++;
        if (run) {
            fwrite(p, 1, run, f);
            p += run - 1;
            continue;
        }
        switch (*p) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\t': fputs("\\t", f); break;
        case '\r': fputs("\\r", f); break;
        default:
            if (*p < 0x20)
                fprintf(f, "\\u%04x", *p);
            else
                fputc(*p, f);
        }
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
