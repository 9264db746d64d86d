/* Strict YAML profile loader (schema: docs/profiles.md).
 *
 * libyaml builds the document tree; we walk it against a fixed schema and
 * stop at the first problem with its file, line, column and dotted key. */
#include "common/internal.h"

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

static occ_status read_u32(loader *L, const yaml_node_t *n, const char *key, uint32_t *out)
{
    uint64_t v;
    occ_status st = read_u64(L, n, key, false, UINT32_MAX - 1, false, &v);
    if (!st)
        *out = (uint32_t)v;
    return st;
}

static occ_status read_bytes(loader *L, const yaml_node_t *n, const char *key, bool allow_zero,
                             uint64_t *out)
{
    return read_u64(L, n, key, true, (uint64_t)1 << 48, allow_zero, out);
}

static occ_status read_u32_or_none(loader *L, const yaml_node_t *n, const char *key, uint32_t *out)
{
    if (is_none(n)) {
        *out = OCC_NO_LIMIT;
        return OCC_OK;
    }
    return read_u32(L, n, key, out);
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

/* A time in nanoseconds: a plain non-negative number below 1e9; stored in seconds. */
static occ_status read_ns(loader *L, const yaml_node_t *n, const char *key, double *out)
{
    char *end = NULL;
    double v = is_plain(n) && scalar(n)[0] ? strtod(scalar(n), &end) : -1;
    if (!end || *end || !(v >= 0 && v <= 1e9))
        return err_at(L, n, OCC_ERR_VALUE, key, "expected nanoseconds in [0, 1e9], got %s",
                      n->type == YAML_SCALAR_NODE ? scalar(n) : kind_name(n));
    *out = v * 1e-9;
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
        strncat(list, i ? " or " : "", sizeof list - strlen(list) - 1);
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

/* ---- mappings against a key table -------------------------------------- */

/* Finds each named key's value node; rejects unknown and duplicate keys and
 * (for required ones) missing keys.  vals[i] is NULL for absent keys. */
static occ_status match_keys(loader *L, const yaml_node_t *map, const char *prefix,
                             const char *const *keys, size_t nkeys, yaml_node_t **vals)
{
    char path[128];
    if (map->type != YAML_MAPPING_NODE)
        return err_at(L, map, OCC_ERR_SCHEMA, prefix[0] ? prefix : NULL,
                      "expected a mapping, got %s", kind_name(map));
    for (size_t i = 0; i < nkeys; i++)
        vals[i] = NULL;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
        yaml_node_t *k = node(L, p->key);
        if (k->type != YAML_SCALAR_NODE)
            return err_at(L, k, OCC_ERR_SCHEMA, prefix[0] ? prefix : NULL,
                          "keys must be plain words, got %s", kind_name(k));
        size_t i = 0;
        while (i < nkeys && strcmp(keys[i], scalar(k)) != 0)
            i++;
        snprintf(path, sizeof path, "%s%s%s", prefix, prefix[0] ? "." : "", scalar(k));
        if (i == nkeys) {
            char list[256] = "";
            for (size_t j = 0; j < nkeys; j++) {
                strncat(list, j ? ", " : "", sizeof list - strlen(list) - 1);
                strncat(list, keys[j], sizeof list - strlen(list) - 1);
            }
            return err_at(L, k, OCC_ERR_SCHEMA, path, "unknown key (expected one of: %s)", list);
        }
        if (vals[i])
            return err_at(L, k, OCC_ERR_SCHEMA, path, "duplicate key");
        vals[i] = node(L, p->value);
    }
    return OCC_OK;
}

static occ_status require(loader *L, const yaml_node_t *map, const char *prefix,
                          const char *const *keys, size_t nkeys, yaml_node_t **vals, size_t optional_mask)
{
    for (size_t i = 0; i < nkeys; i++)
        if (!vals[i] && !(optional_mask & ((size_t)1 << i))) {
            char path[128];
            snprintf(path, sizeof path, "%s%s%s", prefix, prefix[0] ? "." : "", keys[i]);
            return err_at(L, map, OCC_ERR_SCHEMA, path, "missing key");
        }
    return OCC_OK;
}

#define TRY(x)                                                                                     \
    do {                                                                                           \
        occ_status st_ = (x);                                                                      \
        if (st_)                                                                                   \
            return st_;                                                                            \
    } while (0)
#define NKEYS(a) (sizeof(a) / sizeof((a)[0]))

/* ---- sections ---------------------------------------------------------- */

static occ_status load_core(loader *L, const yaml_node_t *map)
{
    static const char *const keys[] = {"name", "count", "vector_engines", "vector_engine_name",
                                       "simd_width", "sub_group_sizes", "grf_modes", "default_grf",
                                       "max_work_group_size", "max_work_groups", "barriers",
                                       "barriers_driver"};
    yaml_node_t *v[NKEYS(keys)];
    occ_device_desc *d = L->d;
    TRY(match_keys(L, map, "core", keys, NKEYS(keys), v));
    TRY(require(L, map, "core", keys, NKEYS(keys), v, 0));
    TRY(read_text(L, v[0], "core.name", d->core_name, sizeof d->core_name));
    TRY(read_u32(L, v[1], "core.count", &d->cores));
    TRY(read_u32(L, v[2], "core.vector_engines", &d->engines_per_core));
    TRY(read_text(L, v[3], "core.vector_engine_name", d->engine_name, sizeof d->engine_name));
    TRY(read_u32(L, v[4], "core.simd_width", &d->simd_width));

    size_t n;
    TRY(expect_seq(L, v[5], "core.sub_group_sizes", 1, OCC_MAX_SUB_GROUP_SIZES, &n));
    d->n_sub_group_sizes = (uint32_t)n;
    for (size_t i = 0; i < n; i++) {
        yaml_node_t *it = item(L, v[5], i);
        TRY(read_u32(L, it, "core.sub_group_sizes", &d->sub_group_sizes[i]));
        if (i && d->sub_group_sizes[i] <= d->sub_group_sizes[i - 1])
            return err_at(L, it, OCC_ERR_VALUE, "core.sub_group_sizes", "sizes must ascend strictly");
    }

    TRY(expect_seq(L, v[6], "core.grf_modes", 1, OCC_MAX_GRF_MODES, &n));
    d->n_grf_modes = (uint32_t)n;
    for (size_t i = 0; i < n; i++) {
        static const char *const mkeys[] = {"registers", "threads_per_engine"};
        yaml_node_t *mv[2], *it = item(L, v[6], i);
        TRY(match_keys(L, it, "core.grf_modes", mkeys, 2, mv));
        TRY(require(L, it, "core.grf_modes", mkeys, 2, mv, 0));
        TRY(read_u32(L, mv[0], "core.grf_modes.registers", &d->grf_modes[i].registers));
        TRY(read_u32(L, mv[1], "core.grf_modes.threads_per_engine", &d->grf_modes[i].threads_per_engine));
        if (i && d->grf_modes[i].registers <= d->grf_modes[i - 1].registers)
            return err_at(L, mv[0], OCC_ERR_VALUE, "core.grf_modes.registers",
                          "modes must ascend strictly by registers");
    }
    TRY(read_u32(L, v[7], "core.default_grf", &d->default_grf));
    if (!occ_desc_contexts_per_core(d, d->default_grf))
        return err_at(L, v[7], OCC_ERR_VALUE, "core.default_grf", "%u is not one of core.grf_modes",
                      d->default_grf);
    TRY(read_u32(L, v[8], "core.max_work_group_size", &d->max_work_group_size));
    TRY(read_u32(L, v[9], "core.max_work_groups", &d->max_work_groups_per_core));
    TRY(read_u32_or_none(L, v[10], "core.barriers", &d->barriers_per_core));
    TRY(read_u32_or_none(L, v[11], "core.barriers_driver", &d->barriers_per_core_driver));
    return OCC_OK;
}

static occ_status load_bytes_list(loader *L, const yaml_node_t *seq, const char *key, size_t max,
                                  bool allow_zero, uint64_t *out, uint32_t *count)
{
    size_t n;
    TRY(expect_seq(L, seq, key, 1, max, &n));
    for (size_t i = 0; i < n; i++) {
        yaml_node_t *it = item(L, seq, i);
        TRY(read_bytes(L, it, key, allow_zero, &out[i]));
        if (i && out[i] <= out[i - 1])
            return err_at(L, it, OCC_ERR_VALUE, key, "values must ascend strictly");
    }
    *count = (uint32_t)n;
    return OCC_OK;
}

static occ_status load_local_memory(loader *L, const yaml_node_t *map)
{
    static const char *const keys[] = {"name", "per_core", "max_per_work_group",
                                       "reserved_per_work_group", "steps", "granule", "carveouts"};
    yaml_node_t *v[NKEYS(keys)];
    occ_device_desc *d = L->d;
    TRY(match_keys(L, map, "local_memory", keys, NKEYS(keys), v));
    TRY(require(L, map, "local_memory", keys, NKEYS(keys), v, (1u << 4) | (1u << 5)));
    TRY(read_text(L, v[0], "local_memory.name", d->local_memory_name, sizeof d->local_memory_name));
    TRY(read_bytes(L, v[1], "local_memory.per_core", false, &d->slm_per_core));
    TRY(read_bytes(L, v[2], "local_memory.max_per_work_group", false, &d->slm_max_per_work_group));
    if (d->slm_max_per_work_group > d->slm_per_core)
        return err_at(L, v[2], OCC_ERR_VALUE, "local_memory.max_per_work_group",
                      "%llu is more than local_memory.per_core (%llu)",
                      (unsigned long long)d->slm_max_per_work_group,
                      (unsigned long long)d->slm_per_core);
    TRY(read_bytes(L, v[3], "local_memory.reserved_per_work_group", true,
                   &d->slm_reserved_per_work_group));
    if (!v[4] == !v[5])
        return err_at(L, map, OCC_ERR_SCHEMA, v[4] ? "local_memory.granule" : "local_memory.steps",
                      v[4] ? "give either steps or granule, not both" : "missing key (or granule)");
    if (v[4])
        TRY(load_bytes_list(L, v[4], "local_memory.steps", OCC_MAX_SLM_STEPS, false, d->slm_steps,
                            &d->n_slm_steps));
    if (v[5]) {
        uint64_t g;
        TRY(read_u64(L, v[5], "local_memory.granule", true, UINT32_MAX - 1, false, &g));
        d->slm_granule = (uint32_t)g;
    }
    if (!is_none(v[6])) {
        TRY(load_bytes_list(L, v[6], "local_memory.carveouts", OCC_MAX_CARVEOUTS, true, d->carveouts,
                            &d->n_carveouts));
        if (d->carveouts[d->n_carveouts - 1] != d->slm_per_core)
            return err_at(L, v[6], OCC_ERR_VALUE, "local_memory.carveouts",
                          "the largest carveout (%llu) must equal local_memory.per_core (%llu)",
                          (unsigned long long)d->carveouts[d->n_carveouts - 1],
                          (unsigned long long)d->slm_per_core);
    }
    return OCC_OK;
}

static occ_status load_registers(loader *L, const yaml_node_t *map)
{
    occ_device_desc *d = L->d;
    if (is_none(map)) {
        d->has_register_file = false;
        return OCC_OK;
    }
    static const char *const keys[] = {"per_core", "allocation_unit", "warp_allocation_granularity",
                                       "max_per_thread", "max_per_work_group", "partitions"};
    yaml_node_t *v[NKEYS(keys)];
    if (map->type != YAML_MAPPING_NODE)
        return err_at(L, map, OCC_ERR_SCHEMA, "registers", "expected a mapping or none, got %s",
                      map->type == YAML_SCALAR_NODE ? scalar(map) : kind_name(map));
    TRY(match_keys(L, map, "registers", keys, NKEYS(keys), v));
    TRY(require(L, map, "registers", keys, NKEYS(keys), v, 0));
    d->has_register_file = true;
    TRY(read_u32(L, v[0], "registers.per_core", &d->regs_per_core));
    TRY(read_u32(L, v[1], "registers.allocation_unit", &d->reg_alloc_unit));
    TRY(read_u32(L, v[2], "registers.warp_allocation_granularity", &d->reg_warp_granularity));
    TRY(read_u32(L, v[3], "registers.max_per_thread", &d->reg_max_per_thread));
    TRY(read_u32(L, v[4], "registers.max_per_work_group", &d->reg_max_per_work_group));
    TRY(read_u32(L, v[5], "registers.partitions", &d->reg_partitions));
    return OCC_OK;
}

static occ_status load_dispatch(loader *L, const yaml_node_t *map)
{
    static const char *const keys[] = {"order", "partial_work_groups", "evidence",
                                       "refill_gap_ns", "core_interval_ns",
                                       "core_interval_per_context_ns", "gpu_interval_ns",
                                       "timing_evidence"};
    static const char *const orders[] = {"pack", "spread", NULL};
    yaml_node_t *v[NKEYS(keys)];
    TRY(match_keys(L, map, "dispatch", keys, NKEYS(keys), v));
    TRY(require(L, map, "dispatch", keys, NKEYS(keys), v, 0xf8)); /* timing: optional */
    int order;
    TRY(read_word(L, v[0], "dispatch.order", orders, &order));
    L->d->dispatch_order = order == 0 ? OCC_DISPATCH_PACK : OCC_DISPATCH_SPREAD;
    TRY(read_bool(L, v[1], "dispatch.partial_work_groups", &L->d->partial_dispatch));
    char text[1024];
    TRY(read_text(L, v[2], "dispatch.evidence", text, sizeof text));
    /* dispatch timing: optional, all or none, with its evidence */
    int timing = (v[3] != NULL) + (v[4] != NULL) + (v[5] != NULL) + (v[6] != NULL) + (v[7] != NULL);
    if (timing != 0 && timing != 5)
        return err_at(L, map, OCC_ERR_SCHEMA, "dispatch",
                      "dispatch timing needs all of refill_gap_ns, core_interval_ns, "
                      "core_interval_per_context_ns, gpu_interval_ns and timing_evidence, or none");
    if (timing) {
        TRY(read_ns(L, v[3], "dispatch.refill_gap_ns", &L->d->refill_gap_s));
        TRY(read_ns(L, v[4], "dispatch.core_interval_ns", &L->d->core_interval_s));
        TRY(read_ns(L, v[5], "dispatch.core_interval_per_context_ns",
                    &L->d->core_interval_per_context_s));
        TRY(read_ns(L, v[6], "dispatch.gpu_interval_ns", &L->d->gpu_interval_s));
        TRY(read_text(L, v[7], "dispatch.timing_evidence", L->d->timing_evidence,
                      sizeof L->d->timing_evidence));
    }
    L->evidence = strdup(text);
    return L->evidence ? OCC_OK : OCC_ERR_NO_MEMORY;
}

static occ_status load_sources(loader *L, const yaml_node_t *seq)
{
    size_t n;
    TRY(expect_seq(L, seq, "sources", 1, 64, &n));
    L->sources = calloc(n, sizeof *L->sources);
    if (!L->sources)
        return OCC_ERR_NO_MEMORY;
    for (size_t i = 0; i < n; i++) {
        char text[1024];
        TRY(read_text(L, item(L, seq, i), "sources", text, sizeof text));
        if (!(L->sources[i] = strdup(text)))
            return OCC_ERR_NO_MEMORY;
        L->n_sources = i + 1;
    }
    return OCC_OK;
}

static occ_status load_root(loader *L, const yaml_node_t *root)
{
    static const char *const keys[] = {"schema", "name", "vendor", "product", "architecture",
                                       "status", "sources", "core", "local_memory", "registers",
                                       "dispatch"};
    static const char *const vendors[] = {"intel", "nvidia", NULL};
    static const char *const statuses[] = {"verified", "provisional", NULL};
    yaml_node_t *v[NKEYS(keys)];
    occ_device_desc *d = L->d;
    TRY(match_keys(L, root, "", keys, NKEYS(keys), v));
    TRY(require(L, root, "", keys, NKEYS(keys), v, 0));
    uint64_t schema;
    TRY(read_u64(L, v[0], "schema", false, UINT32_MAX, false, &schema));
    if (schema != 1)
        return err_at(L, v[0], OCC_ERR_VALUE, "schema", "unsupported schema version %llu (this library reads 1)",
                      (unsigned long long)schema);
    TRY(read_text(L, v[1], "name", d->name, sizeof d->name));
    int w;
    TRY(read_word(L, v[2], "vendor", vendors, &w));
    d->vendor = w == 0 ? OCC_VENDOR_INTEL : OCC_VENDOR_NVIDIA;
    TRY(read_text(L, v[3], "product", d->product, sizeof d->product));
    TRY(read_text(L, v[4], "architecture", d->architecture, sizeof d->architecture));
    TRY(read_word(L, v[5], "status", statuses, &w));
    d->provisional = w == 1;
    TRY(load_sources(L, v[6]));
    TRY(load_core(L, v[7]));
    TRY(load_local_memory(L, v[8]));
    TRY(load_registers(L, v[9]));
    TRY(load_dispatch(L, v[10]));

    /* Cross-field rules: reported at the key they concern, without a position
     * when they span sections. */
    occ_diag tmp;
    memset(&tmp, 0, sizeof tmp);
    occ_status st = occ__desc_validate(d, &tmp);
    if (st) {
        /* Point at the key's node when it is a top-level section member. */
        const yaml_node_t *at = root;
        if (strncmp(tmp.key, "core", 4) == 0)
            at = v[7];
        else if (strncmp(tmp.key, "local_memory", 12) == 0)
            at = v[8];
        else if (strncmp(tmp.key, "registers", 9) == 0)
            at = v[9];
        else if (strncmp(tmp.key, "dispatch", 8) == 0)
            at = v[10];
        else if (strcmp(tmp.key, "name") == 0)
            at = v[1];
        /* find the exact child node for "section.child" keys */
        const char *dot = strchr(tmp.key, '.');
        if (dot && at->type == YAML_MAPPING_NODE) {
            for (yaml_node_pair_t *p = at->data.mapping.pairs.start; p < at->data.mapping.pairs.top; p++)
                if (strcmp(scalar(node(L, p->key)), dot + 1) == 0) {
                    at = node(L, p->value);
                    break;
                }
        }
        return err_at(L, at, st, tmp.key, "%s", tmp.message);
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
