/* The result of a command as data: a small document (objects, arrays,
 * numbers, strings, booleans, null) that a command fills and a renderer
 * (render.h) writes as JSON, JSON Lines or CSV.  Text output stays with
 * each command; no command writes JSON itself.
 *
 * The builder is a stream, like a writer: begin an object, give keys and
 * values, end it.  Everything is copied into the document's arena, so the
 * caller's strings may go away.  One array may be marked as the document's
 * table: its rows are the CSV rows and the JSON Lines.  A long table (a
 * sweep's million points, a timeline's phases) is given as a row count and
 * a function that builds row i: the renderers build one row at a time and
 * keep none, so the document stays small whatever the table's length. */
#ifndef OCCCALC_DOC_H
#define OCCCALC_DOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
    DOC_NULL, DOC_BOOL, DOC_U64, DOC_I64, DOC_NUM, DOC_STR, DOC_ARRAY, DOC_OBJECT,
    DOC_ROWS /* an array built row by row when rendered (doc_table_rows) */
} doc_kind;

typedef struct doc doc;
/* Builds row i of a table into row (one value, an object as a rule). */
typedef void (*doc_row_fn)(doc *row, size_t i, const void *ctx);

typedef struct doc_rows_source {
    size_t n;
    doc_row_fn fill;
    const void *ctx;
} doc_rows_source;

typedef struct doc_node {
    doc_kind kind;
    const char *key;            /* the member's name inside an object; NULL in an array */
    union {
        bool b;
        uint64_t u;
        int64_t i;
        double n;
        const char *s;
        const doc_rows_source *rows;
    } v;
    struct doc_node *first;     /* children of an array or object, in order */
    struct doc_node *next;      /* the next sibling */
} doc_node;

#define DOC_MAX_DEPTH 32
#define DOC_KEY_CACHE 64

struct doc {
    doc_node *root;             /* the first value given (the command's result) */
    doc_node *stack[DOC_MAX_DEPTH];
    doc_node *last[DOC_MAX_DEPTH]; /* the last child of each open container */
    int depth;
    const char *key;            /* a key given, waiting for its value */
    doc_node *table;            /* the main table, when one was marked */
    struct doc_chunk *arena;
    /* keys already copied, by the caller's pointer: rows repeat the same literals */
    struct {
        const char *given, *copy;
    } keys[DOC_KEY_CACHE];
    bool failed;                /* out of memory or misuse: renderers refuse the document */
};

void doc_init(doc *d);
void doc_free(doc *d);

void doc_begin_object(doc *d);
void doc_end_object(doc *d);
void doc_begin_array(doc *d);
void doc_end_array(doc *d);
/* key + an array whose elements are the document's table rows (objects) */
void doc_begin_table(doc *d, const char *key);
/* key + the document's table, n rows that fill builds when rendered; ctx
 * must live until the document is rendered */
void doc_table_rows(doc *d, const char *key, size_t n, doc_row_fn fill, const void *ctx);
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

/* For renderers: the rows of an array or of a table given by rows, one at a
 * time.  A row is valid until the next call. */
typedef struct doc_row_iter {
    const doc_node *array;      /* DOC_ARRAY or DOC_ROWS */
    const doc_node *next;       /* DOC_ARRAY: the next element */
    size_t i;                   /* DOC_ROWS: the next row's index */
    doc *scratch;               /* DOC_ROWS: where a row is built */
    bool failed;                /* a row could not be built (out of memory) */
} doc_row_iter;

void doc_rows_begin(doc_row_iter *it, const doc_node *array);
const doc_node *doc_rows_next(doc_row_iter *it); /* NULL after the last (or on failure) */
void doc_rows_end(doc_row_iter *it);

#endif
