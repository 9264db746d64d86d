/* The result of a command as data: a small document (objects, arrays,
 * numbers, strings, booleans, null) that a command fills and a renderer
 * (render.h) writes as JSON, JSON Lines or CSV.  Text output stays with
 * each command; no command writes JSON itself.
 *
 * The builder is a stream, like a writer: begin an object, give keys and
 * values, end it.  Everything is copied into the document's arena, so the
 * caller's strings may go away.  One array may be marked as the document's
 * table (doc_begin_table): its rows are the CSV rows and the JSON Lines. */
#ifndef OCCCALC_DOC_H
#define OCCCALC_DOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum { DOC_NULL, DOC_BOOL, DOC_U64, DOC_I64, DOC_NUM, DOC_STR, DOC_ARRAY, DOC_OBJECT } doc_kind;

typedef struct doc_node {
    doc_kind kind;
    const char *key;            /* the member's name inside an object; NULL in an array */
    union {
        bool b;
        uint64_t u;
        int64_t i;
        double n;
        const char *s;
    } v;
    struct doc_node *first;     /* children of an array or object, in order */
    struct doc_node *last;
    struct doc_node *next;      /* the next sibling */
} doc_node;

#define DOC_MAX_DEPTH 32

typedef struct doc {
    doc_node *root;             /* the first value given (the command's result) */
    doc_node *stack[DOC_MAX_DEPTH];
    int depth;
    const char *key;            /* a key given, waiting for its value */
    doc_node *table;            /* the main table, when one was marked */
    struct doc_chunk *arena;
    bool failed;                /* out of memory or misuse: renderers refuse the document */
} doc;

void doc_init(doc *d);
void doc_free(doc *d);

void doc_begin_object(doc *d);
void doc_end_object(doc *d);
void doc_begin_array(doc *d);
void doc_end_array(doc *d);
/* key + an array whose elements are the document's table rows (objects) */
void doc_begin_table(doc *d, const char *key);
void doc_key(doc *d, const char *key);
void doc_str(doc *d, const char *s); /* NULL gives null */
void doc_u64(doc *d, uint64_t v);
void doc_i64(doc *d, int64_t v);
void doc_num(doc *d, double v);      /* not finite: null */
void doc_bool(doc *d, bool v);
void doc_null(doc *d);

/* key + value shorthands */
void doc_kstr(doc *d, const char *k, const char *s);
void doc_ku64(doc *d, const char *k, uint64_t v);
void doc_knum(doc *d, const char *k, double v);
void doc_kbool(doc *d, const char *k, bool v);

#endif
