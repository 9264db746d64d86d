/* Strict YAML profile loader (schema: docs/profiles.md).
 *
 * libyaml builds the document tree; we walk it against a fixed schema and
 * stop at the first problem with its file, line, column and dotted key. */
#include "common/internal.h"
#include "model/profile_schema.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <yaml.h>

#define MAX_PROFILE_BYTES (1u << 20)

typedef struct loader {
    yaml_document_t doc;
    const char *file;
    occ_diag *diag;
    occ_device_desc *d;
    char **sources;
    size_t n_sources;
    char *evidence;
    yaml_node_t *vals[OCC_PK_COUNT]; /* each key's value node, NULL while absent */
} loader;

static yaml_node_t *node(loader *L, int id) { return yaml_document_get_node(&L->doc, id); }

static occ_status err_at(loader *L, const yaml_node_t *n, occ_status st, const char *key,
                         const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static occ_status err_at(loader *L, const yaml_node_t *n, occ_status st, const char *key,
                         const char *fmt, ...)
{
    char msg[384];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    unsigned line = n ? (unsigned)n->start_mark.line + 1 : 0;
    unsigned col = n ? (unsigned)n->start_mark.column + 1 : 0;
    return occ__diag(L->diag, st, L->file, line, col, key, "%s", msg);
}

static const char *kind_name(const yaml_node_t *n)
{
    switch (n->type) {
    case YAML_SCALAR_NODE: return "a scalar";
    case YAML_SEQUENCE_NODE: return "a list";
    case YAML_MAPPING_NODE: return "a mapping";
    default: return "nothing";
    }
}

static const char *scalar(const yaml_node_t *n) { return (const char *)n->data.scalar.value; }
static bool is_plain(const yaml_node_t *n)
{
    return n->type == YAML_SCALAR_NODE && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
}
static bool is_none(const yaml_node_t *n) { return is_plain(n) && strcmp(scalar(n), "none") == 0; }

/* ---- typed readers ----------------------------------------------------- */

/* Unsigned integer with optional K/M suffix (if allow_suffix). */
static occ_status read_u64(loader *L, const yaml_node_t *n, const char *key, bool allow_suffix,
                           uint64_t max, bool allow_zero, uint64_t *out)
{
    if (n->type != YAML_SCALAR_NODE)
        return err_at(L, n, OCC_ERR_SCHEMA, key, "expected an integer, got %s", kind_name(n));
    const char *s = scalar(n);
    if (!is_plain(n))
        return err_at(L, n, OCC_ERR_SCHEMA, key, "expected an integer, got the quoted string '%s'", s);
    if (*s == '-')
        return err_at(L, n, OCC_ERR_VALUE, key, "must not be negative, got '%s'", s);
    if (*s < '0' || *s > '9')
        return err_at(L, n, OCC_ERR_SCHEMA, key, "expected an integer, got '%s'", s);
    uint64_t v = 0;
    const char *p = s;
    for (; *p >= '0' && *p <= '9'; p++) {
        unsigned digit = (unsigned)(*p - '0');
        if (v > (UINT64_MAX - digit) / 10)
            return err_at(L, n, OCC_ERR_VALUE, key, "'%s' is too large", s);
        v = v * 10 + digit;
    }
    uint64_t mult = 1;
    if (*p && allow_suffix && (p[0] == 'K' || p[0] == 'M') && !p[1])
        mult = p[0] == 'K' ? 1024u : 1048576u;
    else if (*p)
        return err_at(L, n, OCC_ERR_SCHEMA, key, "expected an integer%s, got '%s'",
                      allow_suffix ? " (bytes, optional K or M suffix)" : "", s);
    if (v > UINT64_MAX / mult || v * mult > max)
        return err_at(L, n, OCC_ERR_VALUE, key, "'%s' is too large (at most %llu)", s,
                      (unsigned long long)max);
    v *= mult;
    if (!v && !allow_zero)
        return err_at(L, n, OCC_ERR_VALUE, key, "must be a positive integer, got '%s'", s);
    *out = v;
    return OCC_OK;
}

static occ_status read_text(loader *L, const yaml_node_t *n, const char *key, char *out, size_t size)
{
    if (n->type != YAML_SCALAR_NODE)
        return err_at(L, n, OCC_ERR_SCHEMA, key, "expected text, got %s", kind_name(n));
    size_t len = n->data.scalar.length;
    if (len == 0)
        return err_at(L, n, OCC_ERR_VALUE, key, "must not be empty");
    if (len >= size)
        return err_at(L, n, OCC_ERR_VALUE, key, "longer than %zu characters", size - 1);
    if (memchr(scalar(n), '\0', len))
        return err_at(L, n, OCC_ERR_VALUE, key, "contains a NUL character");
    memcpy(out, scalar(n), len + 1);
    return OCC_OK;
}

static occ_status read_bool(loader *L, const yaml_node_t *n, const char *key, bool *out)
{
    if (is_plain(n) && strcmp(scalar(n), "true") == 0)
        *out = true;
    else if (is_plain(n) && strcmp(scalar(n), "false") == 0)
        *out = false;
    else
        return err_at(L, n, OCC_ERR_SCHEMA, key, "expected true or false, got %s",
                      n->type == YAML_SCALAR_NODE ? scalar(n) : kind_name(n));
    return OCC_OK;
}

/* One of the words of a NULL-terminated list; index in *out. */
static occ_status read_word(loader *L, const yaml_node_t *n, const char *key,
                            const char *const *words, int *out)
{
    if (is_plain(n))
        for (int i = 0; words[i]; i++)
            if (strcmp(scalar(n), words[i]) == 0) {
                *out = i;
                return OCC_OK;
            }
    char list[128] = "";
    for (int i = 0; words[i]; i++) {
        strncat(list, !i ? "" : words[i + 1] ? ", " : " or ", sizeof list - strlen(list) - 1);
        strncat(list, words[i], sizeof list - strlen(list) - 1);
    }
    return err_at(L, n, n->type == YAML_SCALAR_NODE ? OCC_ERR_VALUE : OCC_ERR_SCHEMA, key,
                  "expected %s, got %s", list, n->type == YAML_SCALAR_NODE ? scalar(n) : kind_name(n));
}

static occ_status expect_seq(loader *L, const yaml_node_t *n, const char *key, size_t min,
                             size_t max, size_t *count)
{
    if (n->type != YAML_SEQUENCE_NODE)
        return err_at(L, n, OCC_ERR_SCHEMA, key, "expected a list, got %s", kind_name(n));
    size_t c = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
    if (c < min || c > max)
        return err_at(L, n, OCC_ERR_VALUE, key, "needs %zu to %zu entries, got %zu", min, max, c);
    *count = c;
    return OCC_OK;
}

static yaml_node_t *item(loader *L, const yaml_node_t *seq, size_t i)
{
    return node(L, seq->data.sequence.items.start[i]);
}

/* ---- mappings against the schema table ---------------------------------- */

static const occ_profile_key *const K = occ__profile_keys;

/* The keys whose parent is `parent`, in the table's order. */
static size_t children(int parent, int *out)
{
    size_t n = 0;
    for (int k = 0; k < OCC_PK_COUNT; k++)
        if (K[k].parent == parent)
            out[n++] = k;
    return n;
}

/* Finds each child key's value node (vals[key], NULL when absent); rejects
 * unknown, duplicate and missing required keys. */
static occ_status match_keys(loader *L, const yaml_node_t *map, int parent, yaml_node_t **vals)
{
    const char *prefix = parent == OCC_PK_NONE ? "" : K[parent].key;
    int kids[OCC_PK_COUNT];
    size_t nkids = children(parent, kids);
    char path[128];
    if (map->type != YAML_MAPPING_NODE)
        return err_at(L, map, OCC_ERR_SCHEMA, prefix[0] ? prefix : NULL,
                      "expected a mapping, got %s", kind_name(map));
    for (size_t i = 0; i < nkids; i++)
        vals[kids[i]] = NULL;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
        yaml_node_t *k = node(L, p->key);
        if (k->type != YAML_SCALAR_NODE)
            return err_at(L, k, OCC_ERR_SCHEMA, prefix[0] ? prefix : NULL,
                          "keys must be plain words, got %s", kind_name(k));
        size_t i = 0;
        while (i < nkids && strcmp(K[kids[i]].name, scalar(k)) != 0)
            i++;
        snprintf(path, sizeof path, "%s%s%s", prefix, prefix[0] ? "." : "", scalar(k));
        if (i == nkids) {
            char list[256] = "";
            for (size_t j = 0; j < nkids; j++) {
                strncat(list, j ? ", " : "", sizeof list - strlen(list) - 1);
                strncat(list, K[kids[j]].name, sizeof list - strlen(list) - 1);
            }
            return err_at(L, k, OCC_ERR_SCHEMA, path, "unknown key (expected one of: %s)", list);
        }
        if (vals[kids[i]])
            return err_at(L, k, OCC_ERR_SCHEMA, path, "duplicate key");
        vals[kids[i]] = node(L, p->value);
    }
    for (size_t i = 0; i < nkids; i++)
        if (!vals[kids[i]] && !(K[kids[i]].flags & OCC_KEYF_OPTIONAL))
            return err_at(L, map, OCC_ERR_SCHEMA, K[kids[i]].key, "missing key");
    return OCC_OK;
}

/* ---- rules checked as soon as a key is read (they point at its node) ---- */

static occ_status after_read(loader *L, int key, const yaml_node_t *n)
{
    const occ_device_desc *d = L->d;
    switch (key) {
    case OCC_PK_CORE_DEFAULT_GRF:
        if (!occ_desc_contexts_per_core(d, d->default_grf))
            return err_at(L, n, OCC_ERR_VALUE, K[key].key, "%u is not one of core.grf_modes",
                          d->default_grf);
        break;
    case OCC_PK_LM_MAX_PER_WG:
        if (d->slm_max_per_work_group > d->slm_per_core)
            return err_at(L, n, OCC_ERR_VALUE, K[key].key,
                          "%llu is more than local_memory.per_core (%llu)",
                          (unsigned long long)d->slm_max_per_work_group,
                          (unsigned long long)d->slm_per_core);
        break;
    case OCC_PK_LM_CARVEOUTS:
        if (d->n_carveouts && d->carveouts[d->n_carveouts - 1] != d->slm_per_core)
            return err_at(L, n, OCC_ERR_VALUE, K[key].key,
                          "the largest carveout (%llu) must equal local_memory.per_core (%llu)",
                          (unsigned long long)d->carveouts[d->n_carveouts - 1],
                          (unsigned long long)d->slm_per_core);
        break;
    case OCC_PK_DISPATCH_EVIDENCE: {
        /* dispatch timing: all five required keys or none, the optional
         * refinements only with them (the section's keys are matched) */
        size_t t = 0, r = 0;
        for (size_t i = 0; i < OCC__PROFILE_TIMING_REQUIRED; i++)
            t += L->vals[occ__profile_timing_required[i]] != NULL;
        /* the refinements: profile_schema.h keeps them in one run of keys */
        for (int k = OCC_PK_DISPATCH_REFINEMENTS_FIRST; k <= OCC_PK_DISPATCH_REFINEMENTS_LAST; k++)
            r += L->vals[k] != NULL;
        if (t != 0 && t != OCC__PROFILE_TIMING_REQUIRED)
            return err_at(L, n, OCC_ERR_SCHEMA, "dispatch",
                          "dispatch timing needs all of refill_gap_ns, core_interval_ns, "
                          "core_interval_per_context_ns, gpu_interval_ns and timing_evidence, or "
                          "none");
        if (t == 0 && r != 0)
            return err_at(L, n, OCC_ERR_SCHEMA, "dispatch",
                          "gpu_burst_work_groups, launch_interval_ns, refill_gap_drained_ns, "
                          "gpu_interval_per_context_ns and the refill_pause_ns group refine the "
                          "dispatch timing: give refill_gap_ns, core_interval_ns, "
                          "core_interval_per_context_ns, gpu_interval_ns and timing_evidence too");
        break;
    }
    default:
        break;
    }
    return OCC_OK;
}

/* ---- one value of any kind --------------------------------------------- */

static occ_status load_value(loader *L, int key, const yaml_node_t *n, void *base);

/* A number of a COUNT, COUNT_OR_NONE or BYTES key (also a list's item). */
static occ_status read_number(loader *L, const occ_profile_key *e, const yaml_node_t *n,
                              uint64_t *out)
{
    if (e->kind == OCC_KEY_COUNT_OR_NONE && is_none(n)) {
        *out = OCC_NO_LIMIT;
        return OCC_OK;
    }
    bool bytes = e->kind == OCC_KEY_BYTES || e->kind == OCC_KEY_BYTES_LIST;
    return read_u64(L, n, e->key, bytes, e->max, e->min == 0, out);
}

/* A list of numbers, strictly ascending unless the key takes any order. */
static occ_status load_number_list(loader *L, const occ_profile_key *e, const yaml_node_t *seq,
                                   void *base)
{
    size_t n;
    OCC__TRY(expect_seq(L, seq, e->key, 1, e->max_items, &n));
    uint64_t prev = 0;
    for (size_t i = 0; i < n; i++) {
        yaml_node_t *it = item(L, seq, i);
        uint64_t v;
        OCC__TRY(read_number(L, e, it, &v));
        if (i && v <= prev && !(e->flags & OCC_KEYF_ANY_ORDER))
            return err_at(L, it, OCC_ERR_VALUE, e->key, "%s must ascend strictly",
                          e->kind == OCC_KEY_COUNT_LIST ? "sizes" : "values");
        occ__field_set(base, e->offset + i * e->size, e->size, v);
        prev = v;
    }
    occ__field_set(base, e->count_offset, sizeof(uint32_t), n);
    return OCC_OK;
}

/* A list of mappings (core.grf_modes), strictly ascending by its first key. */
static occ_status load_map_list(loader *L, int key, const yaml_node_t *seq, void *base)
{
    const occ_profile_key *e = &K[key];
    int kids[OCC_PK_COUNT];
    size_t nkids = children(key, kids), n;
    OCC__TRY(expect_seq(L, seq, e->key, 1, e->max_items, &n));
    for (size_t i = 0; i < n; i++) {
        yaml_node_t *vals[OCC_PK_COUNT], *it = item(L, seq, i);
        unsigned char *elem = (unsigned char *)base + e->offset + i * e->size;
        OCC__TRY(match_keys(L, it, key, vals));
        for (size_t j = 0; j < nkids; j++)
            OCC__TRY(load_value(L, kids[j], vals[kids[j]], elem));
        const occ_profile_key *first = &K[kids[0]];
        if (i && occ__field_get(elem, first->offset, first->size) <=
                     occ__field_get(elem - e->size, first->offset, first->size))
            return err_at(L, vals[kids[0]], OCC_ERR_VALUE, first->key,
                          "%s must ascend strictly by %s", e->items, first->name);
    }
    occ__field_set(base, e->count_offset, sizeof(uint32_t), n);
    return OCC_OK;
}

static occ_status load_text_list(loader *L, const occ_profile_key *e, const yaml_node_t *seq)
{
    size_t n;
    OCC__TRY(expect_seq(L, seq, e->key, e->min_items, e->max_items, &n));
    L->sources = calloc(n, sizeof *L->sources);
    if (!L->sources)
        return OCC_ERR_NO_MEMORY;
    for (size_t i = 0; i < n; i++) {
        char text[1024];
        OCC__TRY(read_text(L, item(L, seq, i), e->key, text, e->size));
        if (!(L->sources[i] = strdup(text)))
            return OCC_ERR_NO_MEMORY;
        L->n_sources = i + 1;
    }
    return OCC_OK;
}

/* The keys of a section, in the table's order: each read, then its rule. */
static occ_status load_section(loader *L, int section, const yaml_node_t *map)
{
    if (section != OCC_PK_NONE && K[section].kind == OCC_KEY_SECTION_OR_NONE) {
        bool present = !is_none(map);
        occ__field_set(L->d, K[section].offset, K[section].size, present);
        if (!present)
            return OCC_OK;
        if (map->type != YAML_MAPPING_NODE)
            return err_at(L, map, OCC_ERR_SCHEMA, K[section].key, "expected a mapping or none, got %s",
                          map->type == YAML_SCALAR_NODE ? scalar(map) : kind_name(map));
    }
    OCC__TRY(match_keys(L, map, section, L->vals));
    int kids[OCC_PK_COUNT];
    size_t nkids = children(section, kids);
    for (size_t i = 0; i < nkids; i++) {
        int k = kids[i], other = K[k].one_of;
        if (other != OCC_PK_NONE && other > k && !L->vals[k] == !L->vals[other])
            return err_at(L, map, OCC_ERR_SCHEMA, L->vals[k] ? K[other].key : K[k].key,
                          L->vals[k] ? "give either %s or %s, not both" : "missing key (or %s%s)",
                          L->vals[k] ? K[k].name : K[other].name, L->vals[k] ? K[other].name : "");
        if (!L->vals[k])
            continue;
        OCC__TRY(load_value(L, k, L->vals[k], L->d));
        OCC__TRY(after_read(L, k, L->vals[k]));
    }
    return OCC_OK;
}

static occ_status load_value(loader *L, int key, const yaml_node_t *n, void *base)
{
    const occ_profile_key *e = &K[key];
    uint64_t v;
    int w = 0;
    switch (e->kind) {
    case OCC_KEY_SECTION:
    case OCC_KEY_SECTION_OR_NONE:
        return load_section(L, key, n);
    case OCC_KEY_VERSION:
        OCC__TRY(read_u64(L, n, e->key, false, UINT32_MAX, false, &v));
        if (v != e->max)
            return err_at(L, n, OCC_ERR_VALUE, e->key,
                          "unsupported schema version %llu (this library reads %llu)",
                          (unsigned long long)v, (unsigned long long)e->max);
        return OCC_OK;
    case OCC_KEY_TEXT:
        return read_text(L, n, e->key, (char *)base + e->offset, e->size);
    case OCC_KEY_WORD:
        OCC__TRY(read_word(L, n, e->key, e->words, &w));
        occ__field_set(base, e->offset, e->size, (uint64_t)e->values[w]);
        return OCC_OK;
    case OCC_KEY_BOOL: {
        bool b = false;
        OCC__TRY(read_bool(L, n, e->key, &b));
        occ__field_set(base, e->offset, e->size, b);
        return OCC_OK;
    }
    case OCC_KEY_COUNT:
    case OCC_KEY_COUNT_OR_NONE:
    case OCC_KEY_BYTES:
        OCC__TRY(read_number(L, e, n, &v));
        occ__field_set(base, e->offset, e->size, v);
        return OCC_OK;
    case OCC_KEY_COUNT_LIST:
    case OCC_KEY_BYTES_LIST:
        if ((e->flags & OCC_KEYF_OR_NONE) && is_none(n))
            return OCC_OK;
        return load_number_list(L, e, n, base);
    case OCC_KEY_MAP_LIST:
        return load_map_list(L, key, n, base);
    case OCC_KEY_TEXT_LIST:
        return load_text_list(L, e, n);
    case OCC_KEY_NANOSECONDS: {
        char *end = NULL;
        double ns = is_plain(n) && scalar(n)[0] ? occ__strtod_c(scalar(n), &end) : -1;
        if (!end || *end || !(ns >= (double)e->min && ns <= (double)e->max))
            return err_at(L, n, OCC_ERR_VALUE, e->key,
                          "expected nanoseconds in [%llu, %llu], got %s", (unsigned long long)e->min,
                          (unsigned long long)e->max,
                          n->type == YAML_SCALAR_NODE ? scalar(n) : kind_name(n));
        double s = ns * 1e-9;
        memcpy((char *)base + e->offset, &s, sizeof s);
        return OCC_OK;
    }
    case OCC_KEY_SIDE_TEXT: {
        char text[1024];
        OCC__TRY(read_text(L, n, e->key, text, e->size));
        L->evidence = strdup(text);
        return L->evidence ? OCC_OK : OCC_ERR_NO_MEMORY;
    }
    }
    return OCC_ERR_INVALID_ARGUMENT; /* not reached: every kind is handled above */
}

static occ_status load_root(loader *L, const yaml_node_t *root)
{
    OCC__TRY(load_section(L, OCC_PK_NONE, root));

    /* Cross-field rules: reported at the key they concern (or its section,
     * or the document when the key is not in the file). */
    occ_diag tmp;
    memset(&tmp, 0, sizeof tmp);
    occ_status st = occ__desc_validate(L->d, &tmp);
    if (st) {
        const yaml_node_t *at = NULL;
        int k = occ__profile_key_find(tmp.key);
        for (; k != OCC_PK_NONE && !at; k = K[k].parent)
            at = L->vals[k];
        return err_at(L, at ? at : root, st, tmp.key, "%s", tmp.message);
    }
    return OCC_OK;
}

static void loader_free(loader *L)
{
    for (size_t i = 0; i < L->n_sources; i++)
        free(L->sources[i]);
    free(L->sources);
    free(L->evidence);
    L->sources = NULL;
    L->n_sources = 0;
    L->evidence = NULL;
}

/* libyaml's time grows with the square of the nesting depth of flow
 * collections ("[[[[..." takes minutes at 100000 levels), so deep nesting is
 * refused before parsing.  Brackets are counted as they come, quoted or not:
 * a profile needs three levels at most. */
#define MAX_FLOW_DEPTH 32

static bool flow_too_deep(const char *text, size_t len, unsigned *line, unsigned *col)
{
    unsigned depth = 0;
    *line = 1;
    *col = 1;
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (c == '[' || c == '{') {
            if (++depth > MAX_FLOW_DEPTH)
                return true;
        } else if ((c == ']' || c == '}') && depth) {
            depth--;
        }
        if (c == '\n')
            ++*line, *col = 1;
        else if (((unsigned char)c & 0xC0) != 0x80)
            ++*col;
    }
    return false;
}

occ_status occ_device_load_yaml(const char *text, size_t len, const char *origin, occ_device **out,
                                occ_diag *diag)
{
    if (!out || (!text && len))
        return occ__diag(diag, OCC_ERR_INVALID_ARGUMENT, origin, 0, 0, NULL, "no profile text");
    *out = NULL;
    loader L;
    memset(&L, 0, sizeof L);
    L.file = origin ? origin : "<string>";
    L.diag = diag;
    occ_device_desc d;
    occ_device_desc_init(&d);
    L.d = &d;

    if (len == 0)
        return occ__diag(diag, OCC_ERR_PARSE, L.file, 0, 0, NULL, "empty profile");
    if (memchr(text, '\0', len))
        return occ__diag(diag, OCC_ERR_PARSE, L.file, 0, 0, NULL,
                         "not a text file (contains NUL bytes)");
    unsigned deep_line, deep_col;
    if (flow_too_deep(text, len, &deep_line, &deep_col))
        return occ__diag(diag, OCC_ERR_PARSE, L.file, deep_line, deep_col, NULL,
                         "YAML nested more than %d levels deep ('[' and '{'): not a profile",
                         MAX_FLOW_DEPTH);
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser))
        return OCC_ERR_NO_MEMORY;
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    if (!yaml_parser_load(&parser, &L.doc)) {
        occ_status st;
        if (parser.error == YAML_READER_ERROR) {
            /* The reader reports a byte offset, not a mark: count lines ourselves. */
            unsigned line = 1, col = 1;
            for (size_t i = 0; i < parser.problem_offset && i < len; i++) {
                if (text[i] == '\n')
                    line++, col = 1;
                else if (((unsigned char)text[i] & 0xC0) != 0x80)
                    col++;
            }
            st = occ__diag(diag, OCC_ERR_PARSE, L.file, line, col, NULL,
                           "not valid UTF-8 text: %s", parser.problem ? parser.problem : "bad byte");
        } else {
            st = occ__diag(diag, OCC_ERR_PARSE, L.file, (unsigned)parser.problem_mark.line + 1,
                           (unsigned)parser.problem_mark.column + 1, NULL, "YAML syntax error: %s%s%s",
                           parser.problem ? parser.problem : "unknown problem",
                           parser.context ? " " : "", parser.context ? parser.context : "");
        }
        yaml_parser_delete(&parser);
        return st;
    }
    occ_status st;
    yaml_node_t *root = yaml_document_get_root_node(&L.doc);
    if (!root) {
        st = occ__diag(diag, OCC_ERR_PARSE, L.file, 0, 0, NULL, "empty profile (no YAML document)");
    } else {
        /* A second document in the same stream is not allowed. */
        yaml_document_t extra;
        st = load_root(&L, root);
        if (!st && yaml_parser_load(&parser, &extra)) {
            if (yaml_document_get_root_node(&extra))
                st = occ__diag(diag, OCC_ERR_PARSE, L.file, (unsigned)extra.start_mark.line + 1,
                               (unsigned)extra.start_mark.column + 1, NULL,
                               "more than one YAML document in the file");
            yaml_document_delete(&extra);
        }
    }
    yaml_document_delete(&L.doc);
    yaml_parser_delete(&parser);
    if (!st) {
        st = occ__device_new(&d, L.file, L.sources, L.n_sources, L.evidence, out);
        L.sources = NULL;
        L.n_sources = 0;
        L.evidence = NULL;
    }
    loader_free(&L);
    return st;
}

occ_status occ_device_load_file(const char *path, occ_device **out, occ_diag *diag)
{
    if (!out || !path)
        return occ__diag(diag, OCC_ERR_INVALID_ARGUMENT, NULL, 0, 0, NULL, "no profile path");
    *out = NULL;
    struct stat sb;
    if (stat(path, &sb) != 0)
        return occ__diag(diag, OCC_ERR_IO, path, 0, 0, NULL, "cannot open: %s", strerror(errno));
    if (S_ISDIR(sb.st_mode))
        return occ__diag(diag, OCC_ERR_IO, path, 0, 0, NULL,
                         "is a directory, not a profile (give a .yaml file inside it)");
    if (!S_ISREG(sb.st_mode))
        return occ__diag(diag, OCC_ERR_IO, path, 0, 0, NULL, "not a regular file");
    if (sb.st_size > (off_t)MAX_PROFILE_BYTES)
        return occ__diag(diag, OCC_ERR_IO, path, 0, 0, NULL, "too large for a profile (%lld bytes, at most %u)",
                         (long long)sb.st_size, MAX_PROFILE_BYTES);
    FILE *f = fopen(path, "rb");
    if (!f)
        return occ__diag(diag, OCC_ERR_IO, path, 0, 0, NULL, "cannot open: %s", strerror(errno));
    char *buf = malloc(MAX_PROFILE_BYTES + 1);
    if (!buf) {
        fclose(f);
        return OCC_ERR_NO_MEMORY;
    }
    size_t len = fread(buf, 1, MAX_PROFILE_BYTES + 1, f);
    int read_error = ferror(f);
    fclose(f);
    occ_status st;
    if (read_error)
        st = occ__diag(diag, OCC_ERR_IO, path, 0, 0, NULL, "cannot read: %s", strerror(errno));
    else if (len > MAX_PROFILE_BYTES)
        st = occ__diag(diag, OCC_ERR_IO, path, 0, 0, NULL, "too large for a profile");
    else
        st = occ_device_load_yaml(buf, len, path, out, diag);
    free(buf);
    return st;
}
