/* CSV renderer (RFC 4180): the document's table, one line per row, or the
 * document itself as one row when it has no table.  Nested objects become
 * dotted column names (gpu.waves), arrays of scalars one cell joined by '|'
 * (limited_by: threads|slm), other arrays indexed columns (steps.0.input).
 * The columns are every path any row has, in the order first seen; a row
 * without one leaves the cell empty, as null does.  So the rows are read
 * twice: once for the columns, once for the cells. */
#include <stdlib.h>
#include <string.h>

#include "render.h"

#define PATH_MAX_LEN 256

typedef struct column {
    char *path;
} column;

typedef struct columns {
    column *v;
    size_t n, cap;
    size_t hint; /* where the last path was found: rows share their order */
    bool failed;
} columns;

typedef void (*leaf_fn)(void *ctx, const char *path, const doc_node *n);

static bool scalar(const doc_node *n)
{
    return n->kind != DOC_ARRAY && n->kind != DOC_OBJECT && n->kind != DOC_ROWS;
}

static bool all_scalars(const doc_node *n)
{
    for (const doc_node *c = n->first; c; c = c->next)
        if (!scalar(c))
            return false;
    return true;
}

/* Calls leaf for every cell of n under the name path (len chars used). */
static void flatten(const doc_node *n, char *path, size_t len, leaf_fn leaf, void *ctx)
{
    if (scalar(n) || (n->kind == DOC_ARRAY && all_scalars(n))) {
        leaf(ctx, path, n);
        return;
    }
    size_t i = 0;
    for (const doc_node *c = n->first; c; c = c->next, i++) {
        char name[32];
        const char *part = c->key;
        if (!part) {
            snprintf(name, sizeof name, "%zu", i);
            part = name;
        }
        int w = snprintf(path + len, PATH_MAX_LEN - len, "%s%s", len ? "." : "", part);
        if (w < 0 || (size_t)w >= PATH_MAX_LEN - len)
            continue; /* a name too long for a column: left out */
        flatten(c, path, len + (size_t)w, leaf, ctx);
        path[len] = '\0';
    }
}

static size_t find_column(columns *cs, const char *path)
{
    for (size_t k = 0; k < cs->n; k++) {
        size_t i = (cs->hint + k) % cs->n;
        if (strcmp(cs->v[i].path, path) == 0) {
            cs->hint = i + 1;
            return i;
        }
    }
    return cs->n;
}

static void add_column(void *ctx, const char *path, const doc_node *n)
{
    (void)n;
    columns *cs = ctx;
    if (cs->failed || find_column(cs, path) < cs->n)
        return;
    if (cs->n == cs->cap) {
        size_t cap = cs->cap ? 2 * cs->cap : 16;
        column *v = realloc(cs->v, cap * sizeof *v);
        if (!v) {
            cs->failed = true;
            return;
        }
        cs->v = v;
        cs->cap = cap;
    }
    if (!(cs->v[cs->n].path = strdup(path))) {
        cs->failed = true;
        return;
    }
    cs->hint = ++cs->n;
}

/* s inside a quoted cell: each '"' doubled (a no-op on text without one) */
static void put_quoted_body(FILE *f, const char *s)
{
    for (const char *q; (q = strchr(s, '"')); s = q + 1)
        fwrite(s, 1, (size_t)(q - s) + 1, f), fputc('"', f);
    fputs(s, f);
}

/* Text as one cell: quoted when it holds a comma, a quote or a line break. */
static void put_cell_text(FILE *f, const char *s)
{
    bool quoted = strpbrk(s, ",\"\r\n") != NULL;
    if (quoted)
        fputc('"', f);
    put_quoted_body(f, s);
    if (quoted)
        fputc('"', f);
}

/* A scalar's text; arrays of scalars are joined with '|'. */
static void put_scalar(FILE *f, const doc_node *n)
{
    char buf[64];
    switch (n->kind) {
    case DOC_NULL: return;
    case DOC_BOOL: fputs(n->v.b ? "true" : "false", f); return;
    case DOC_U64: fprintf(f, "%llu", (unsigned long long)n->v.u); return;
    case DOC_I64: fprintf(f, "%lld", (long long)n->v.i); return;
    case DOC_NUM:
        snprintf(buf, sizeof buf, "%.10g", n->v.n); /* occcalc never calls setlocale: '.' */
        fputs(buf, f);
        return;
    case DOC_STR: put_cell_text(f, n->v.s); return;
    default: break;
    }
}

static void put_cell(FILE *f, const doc_node *n)
{
    if (n->kind != DOC_ARRAY) {
        put_scalar(f, n);
        return;
    }
    /* a joined cell is quoted as a whole when one part needs it */
    bool quote = false;
    for (const doc_node *c = n->first; c; c = c->next)
        quote |= c->kind == DOC_STR && strpbrk(c->v.s, ",\"\r\n|") != NULL;
    if (quote)
        fputc('"', f);
    for (const doc_node *c = n->first; c; c = c->next) {
        if (c != n->first)
            fputc('|', f);
        if (quote && c->kind == DOC_STR)
            put_quoted_body(f, c->v.s);
        else
            put_scalar(f, c);
    }
    if (quote)
        fputc('"', f);
}

typedef struct row_cells {
    columns *cs;
    const doc_node **cell; /* per column, NULL when the row has none */
} row_cells;

static void place_cell(void *ctx, const char *path, const doc_node *n)
{
    row_cells *r = ctx;
    size_t i = find_column(r->cs, path);
    if (i < r->cs->n)
        r->cell[i] = n;
}

/* The rows: the table's, or the document itself as the one row. */
typedef struct csv_rows {
    const doc *d;
    doc_row_iter it;
    bool done;
} csv_rows;

static void rows_begin(csv_rows *r, const doc *d)
{
    r->d = d;
    r->done = false;
    if (d->table)
        doc_rows_begin(&r->it, d->table);
}

static const doc_node *rows_next(csv_rows *r)
{
    if (r->d->table)
        return doc_rows_next(&r->it);
    if (r->done)
        return NULL;
    r->done = true;
    return r->d->root;
}

/* true when every row was read */
static bool rows_end(csv_rows *r)
{
    bool ok = !r->d->table || !r->it.failed;
    if (r->d->table)
        doc_rows_end(&r->it);
    return ok;
}

bool render_csv(const doc *d, FILE *f)
{
    columns cs = {0};
    char path[PATH_MAX_LEN];
    csv_rows rows;
    rows_begin(&rows, d);
    for (const doc_node *r; (r = rows_next(&rows));) {
        path[0] = '\0';
        flatten(r, path, 0, add_column, &cs);
    }
    bool ok = rows_end(&rows);
    const doc_node **cell = calloc(cs.n ? cs.n : 1, sizeof *cell);
    if (!ok || cs.failed || !cell) {
        ok = false;
        goto out;
    }
    for (size_t i = 0; i < cs.n; i++) {
        if (i)
            fputc(',', f);
        put_cell_text(f, cs.v[i].path);
    }
    fputc('\n', f);
    rows_begin(&rows, d);
    for (const doc_node *r; (r = rows_next(&rows));) {
        memset(cell, 0, cs.n * sizeof *cell);
        row_cells rc = {&cs, cell};
        path[0] = '\0';
        flatten(r, path, 0, place_cell, &rc);
        for (size_t i = 0; i < cs.n; i++) {
            if (i)
                fputc(',', f);
            if (cell[i])
                put_cell(f, cell[i]);
        }
        fputc('\n', f);
    }
    ok = rows_end(&rows);
out:
    free(cell);
    for (size_t i = 0; i < cs.n; i++)
        free(cs.v[i].path);
    free(cs.v);
    return ok;
}
