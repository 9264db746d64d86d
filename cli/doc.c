#include "doc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Nodes and strings come from chunks freed together: a sweep's million rows
 * cost a few hundred allocations, not millions. */
typedef struct doc_chunk {
    struct doc_chunk *prev;
    size_t used, size;
    uint64_t data[]; /* 8-byte aligned: nodes and strings need no more */
} doc_chunk;

#define CHUNK_BYTES (64 * 1024)

static void *arena_alloc(doc *d, size_t n)
{
    n = (n + 7) / 8 * 8;
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

/* A key's copy: once per distinct literal, however many rows use it. */
static const char *key_copy(doc *d, const char *key)
{
    size_t h = ((uintptr_t)key >> 3) % DOC_KEY_CACHE;
    for (size_t k = 0; k < DOC_KEY_CACHE; k++) {
        size_t i = (h + k) % DOC_KEY_CACHE;
        if (!d->keys[i].given) {
            const char *copy = arena_strdup(d, key);
            if (copy)
                d->keys[i].given = key, d->keys[i].copy = copy;
            return copy;
        }
        /* the same pointer with the same text: a buffer reused for another key is not a hit */
        if (d->keys[i].given == key && strcmp(d->keys[i].copy, key) == 0)
            return d->keys[i].copy;
    }
    return arena_strdup(d, key); /* the cache is full: a copy each time */
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

/* Empty again, keeping one chunk of the arena for what comes next. */
static void doc_reset(doc *d)
{
    doc_chunk *keep = d->arena;
    if (keep) {
        for (doc_chunk *c = keep->prev, *prev; c; c = prev) {
            prev = c->prev;
            free(c);
        }
        keep->prev = NULL;
        keep->used = 0;
    }
    memset(d, 0, sizeof *d);
    d->arena = keep;
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
    else if (d->last[d->depth - 1])
        d->last[d->depth - 1] = d->last[d->depth - 1]->next = n;
    else
        parent->first = d->last[d->depth - 1] = n;
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
    d->last[d->depth] = NULL;
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

void doc_table_rows(doc *d, const char *key, size_t n, doc_row_fn fill, const void *ctx)
{
    doc_key(d, key);
    doc_rows_source *src = d->failed ? NULL : arena_alloc(d, sizeof *src);
    doc_node *node = src ? add(d, DOC_ROWS) : NULL;
    if (!node)
        return;
    *src = (doc_rows_source){n, fill, ctx};
    node->v.rows = src;
    d->table = node;
}

void doc_key(doc *d, const char *key)
{
    if (d->failed)
        return;
    if (d->key) {
        d->failed = true;
        return;
    }
    d->key = key_copy(d, key);
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

/* ---- rows, for the renderers ------------------------------------------------------ */

void doc_rows_begin(doc_row_iter *it, const doc_node *array)
{
    memset(it, 0, sizeof *it);
    it->array = array;
    it->next = array->kind == DOC_ARRAY ? array->first : NULL;
}

const doc_node *doc_rows_next(doc_row_iter *it)
{
    if (it->failed)
        return NULL;
    if (it->array->kind != DOC_ROWS) {
        const doc_node *row = it->next;
        if (row)
            it->next = row->next;
        return row;
    }
    const doc_rows_source *src = it->array->v.rows;
    if (it->i >= src->n)
        return NULL;
    if (!it->scratch) {
        if (!(it->scratch = malloc(sizeof *it->scratch))) {
            it->failed = true;
            return NULL;
        }
        doc_init(it->scratch);
    }
    doc_reset(it->scratch); /* the last row goes; its memory serves the next */
    src->fill(it->scratch, it->i++, src->ctx);
    if (it->scratch->failed || !it->scratch->root || it->scratch->depth) {
        it->failed = true;
        return NULL;
    }
    return it->scratch->root;
}

void doc_rows_end(doc_row_iter *it)
{
    if (it->scratch)
        doc_free(it->scratch);
    free(it->scratch);
    it->scratch = NULL;
}
