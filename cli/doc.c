#include "doc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Nodes and strings come from chunks freed together: a sweep's million rows
 * cost a few hundred allocations, not millions. */
typedef struct doc_chunk {
    struct doc_chunk *prev;
    size_t used, size;
    max_align_t data[];
} doc_chunk;

#define CHUNK_BYTES (64 * 1024)

static void *arena_alloc(doc *d, size_t n)
{
    n = (n + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
    doc_chunk *c = d->arena;
    if (!c || c->size - c->used < n) {
        size_t size = n > CHUNK_BYTES ? n : CHUNK_BYTES;
        c = malloc(sizeof *c + size);
        if (!c) {
            d->failed = true;
            return NULL;
        }
        c->prev = d->arena;
        c->used = 0;
        c->size = size;
        d->arena = c;
    }
    void *p = (char *)c->data + c->used;
    c->used += n;
    return p;
}

static const char *arena_strdup(doc *d, const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = arena_alloc(d, n);
    if (p)
        memcpy(p, s, n);
    return p;
}

void doc_init(doc *d) { memset(d, 0, sizeof *d); }

void doc_free(doc *d)
{
    for (doc_chunk *c = d->arena, *prev; c; c = prev) {
        prev = c->prev;
        free(c);
    }
    memset(d, 0, sizeof *d);
}

/* A new value where the builder stands: a member of the open object (after
 * its key), an element of the open array, or the root. */
static doc_node *add(doc *d, doc_kind kind)
{
    if (d->failed)
        return NULL;
    doc_node *parent = d->depth ? d->stack[d->depth - 1] : NULL;
    bool in_object = parent && parent->kind == DOC_OBJECT;
    if ((in_object && !d->key) || (!in_object && d->key) || (!parent && d->root)) {
        d->failed = true; /* a value without its key, a key in an array, two roots */
        return NULL;
    }
    doc_node *n = arena_alloc(d, sizeof *n);
    if (!n)
        return NULL;
    memset(n, 0, sizeof *n);
    n->kind = kind;
    n->key = d->key;
    d->key = NULL;
    if (!parent)
        d->root = n;
    else if (parent->last)
        parent->last = parent->last->next = n;
    else
        parent->first = parent->last = n;
    return n;
}

static void open_node(doc *d, doc_kind kind)
{
    doc_node *n = add(d, kind);
    if (!n)
        return;
    if (d->depth == DOC_MAX_DEPTH) {
        d->failed = true;
        return;
    }
    d->stack[d->depth++] = n;
}

static void close_node(doc *d, doc_kind kind)
{
    if (d->failed)
        return;
    if (!d->depth || d->stack[d->depth - 1]->kind != kind || d->key) {
        d->failed = true;
        return;
    }
    d->depth--;
}

void doc_begin_object(doc *d) { open_node(d, DOC_OBJECT); }
void doc_end_object(doc *d) { close_node(d, DOC_OBJECT); }
void doc_begin_array(doc *d) { open_node(d, DOC_ARRAY); }
void doc_end_array(doc *d) { close_node(d, DOC_ARRAY); }

void doc_begin_table(doc *d, const char *key)
{
    doc_key(d, key);
    doc_begin_array(d);
    if (!d->failed)
        d->table = d->stack[d->depth - 1];
}

void doc_key(doc *d, const char *key)
{
    if (d->failed)
        return;
    if (d->key) {
        d->failed = true;
        return;
    }
    d->key = arena_strdup(d, key);
}

void doc_str(doc *d, const char *s)
{
    if (!s) {
        doc_null(d);
        return;
    }
    const char *copy = d->failed ? NULL : arena_strdup(d, s);
    doc_node *n = copy ? add(d, DOC_STR) : NULL;
    if (n)
        n->v.s = copy;
}

void doc_u64(doc *d, uint64_t v)
{
    doc_node *n = add(d, DOC_U64);
    if (n)
        n->v.u = v;
}

void doc_i64(doc *d, int64_t v)
{
    doc_node *n = add(d, DOC_I64);
    if (n)
        n->v.i = v;
}

void doc_num(doc *d, double v)
{
    if (!isfinite(v)) {
        doc_null(d);
        return;
    }
    doc_node *n = add(d, DOC_NUM);
    if (n)
        n->v.n = v;
}

void doc_bool(doc *d, bool v)
{
    doc_node *n = add(d, DOC_BOOL);
    if (n)
        n->v.b = v;
}

void doc_null(doc *d) { add(d, DOC_NULL); }

void doc_kstr(doc *d, const char *k, const char *s) { doc_key(d, k), doc_str(d, s); }
void doc_ku64(doc *d, const char *k, uint64_t v) { doc_key(d, k), doc_u64(d, v); }
void doc_knum(doc *d, const char *k, double v) { doc_key(d, k), doc_num(d, v); }
void doc_kbool(doc *d, const char *k, bool v) { doc_key(d, k), doc_bool(d, v); }
