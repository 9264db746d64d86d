/* A tiny streaming JSON writer for occcalc's --json output (C locale
 * numbers, escaped strings, commas handled by a nesting stack). */
#ifndef OCCCALC_JSON_H
#define OCCCALC_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef struct json {
    FILE *out;
    int depth;
    bool first[32];  /* nothing written yet at this depth */
    bool after_key;  /* a key was just written: no comma before the value */
    bool pretty;
} json;

void json_init(json *j, FILE *out, bool pretty);
void json_begin_object(json *j);
void json_end_object(json *j);
void json_begin_array(json *j);
void json_end_array(json *j);
void json_key(json *j, const char *key);
void json_str(json *j, const char *s);
void json_u64(json *j, uint64_t v);
void json_i64(json *j, int64_t v);
void json_num(json *j, double v); /* %.6g-ish, never locale dependent */
void json_bool(json *j, bool v);
void json_null(json *j);
void json_end(json *j); /* final newline */

/* key + value shorthands */
void json_kstr(json *j, const char *k, const char *s);
void json_ku64(json *j, const char *k, uint64_t v);
void json_knum(json *j, const char *k, double v);
void json_kbool(json *j, const char *k, bool v);

#endif
