/* JSON and JSON Lines renderers: the document through the JSON writer (json.h). */
#include <string.h>

#include "json.h"
#include "render.h"

static bool value(json *j, const doc_node *n);

static bool members(json *j, const doc_node *n)
{
    bool ok = true;
    for (const doc_node *c = n->first; c && ok; c = c->next) {
        json_key(j, c->key);
        ok = value(j, c);
    }
    return ok;
}

/* false: a row of a table could not be built (out of memory) */
static bool value(json *j, const doc_node *n)
{
    bool ok = true;
    doc_row_iter rows;
    switch (n->kind) {
    case DOC_NULL: json_null(j); break;
    case DOC_BOOL: json_bool(j, n->v.b); break;
    case DOC_U64: json_u64(j, n->v.u); break;
    case DOC_I64: json_i64(j, n->v.i); break;
    case DOC_NUM: json_num(j, n->v.n); break;
    case DOC_STR: json_str(j, n->v.s); break;
    case DOC_ARRAY:
    case DOC_ROWS:
        json_begin_array(j);
        doc_rows_begin(&rows, n);
        for (const doc_node *row; ok && (row = doc_rows_next(&rows));)
            ok = value(j, row);
        ok = ok && !rows.failed;
        doc_rows_end(&rows);
        json_end_array(j);
        break;
    case DOC_OBJECT:
        json_begin_object(j);
        ok = members(j, n);
        json_end_object(j);
        break;
    }
    return ok;
}

bool render_json(const doc *d, FILE *f)
{
    json j;
    json_init(&j, f, true);
    bool ok = value(&j, d->root);
    json_end(&j);
    return ok;
}

static bool has_key(const doc_node *obj, const char *key)
{
    for (const doc_node *c = obj->first; c; c = c->next)
        if (strcmp(c->key, key) == 0)
            return true;
    return false;
}

/* One line per row of the table: the document's members that are not
 * arrays (schema, device, ...) and then the row's own, so every line stands
 * alone.  Without a table (or when the table is not the root's member), the
 * whole document on one line. */
bool render_jsonl(const doc *d, FILE *f)
{
    const doc_node *root = d->root;
    bool rows = d->table && root->kind == DOC_OBJECT;
    if (rows) {
        rows = false;
        for (const doc_node *c = root->first; c; c = c->next)
            rows |= c == d->table;
    }
    json j;
    if (!rows) {
        json_init(&j, f, false);
        bool ok = value(&j, root);
        json_end(&j);
        return ok;
    }
    doc_row_iter it;
    doc_rows_begin(&it, d->table);
    bool ok = true;
    for (const doc_node *row; ok && (row = doc_rows_next(&it));) {
        json_init(&j, f, false);
        if (row->kind != DOC_OBJECT) {
            ok = value(&j, row);
            json_end(&j);
            continue;
        }
        json_begin_object(&j);
        for (const doc_node *c = root->first; c && ok; c = c->next)
            if (c->kind != DOC_ARRAY && c->kind != DOC_ROWS && !has_key(row, c->key)) {
                json_key(&j, c->key);
                ok = value(&j, c);
            }
        ok = ok && members(&j, row);
        json_end_object(&j);
        json_end(&j);
    }
    ok = ok && !it.failed;
    doc_rows_end(&it);
    return ok;
}
