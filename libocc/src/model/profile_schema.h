/* The profile schema as one table (docs/profiles.md): every key of a device
 * profile, its type, the occ_device_desc field it fills, whether it may be
 * left out, its bounds and its documentation line.
 *
 * The YAML loader (profiles/profile_yaml.c) walks a document against it, the
 * writer (profiles/profile_write.c) prints a description by it, the model's
 * check (model/device.c) applies its per-field rules, and a test holds the
 * key lists of docs/profiles.md and docs/occ-profile.5 equal to it.
 *
 * Adding a key: its OCC_PK_ name below (at the place it is written in a
 * file), its entry in profile_schema.c, the occ_device_desc field it fills
 * (occ/occ.h), its rows in the two documents.  An optional key (flag
 * OCC_KEYF_OPTIONAL) keeps the value occ_device_desc_init gives when absent
 * and is written only when not zero, so existing profiles stay valid.  Rules
 * that relate two keys stay hand-written (profile_yaml.c's after_read,
 * device.c's occ__desc_validate).
 *
 * Pure: data and small accessors only. */
#ifndef OCC_MODEL_PROFILE_SCHEMA_H
#define OCC_MODEL_PROFILE_SCHEMA_H

#include "common/internal.h"

#include <stddef.h>

typedef enum occ_key_kind {
    OCC_KEY_SECTION,         /* a mapping of the keys whose parent it is */
    OCC_KEY_SECTION_OR_NONE, /* ... or the word none (present: the bool at offset) */
    OCC_KEY_VERSION,         /* the schema version: an integer equal to max */
    OCC_KEY_TEXT,            /* char[size] at offset */
    OCC_KEY_WORD,            /* one of words[]; stores the word's index value (values[]) */
    OCC_KEY_BOOL,            /* true or false */
    OCC_KEY_COUNT,           /* integer in [min, max] */
    OCC_KEY_COUNT_OR_NONE,   /* integer in [min, max] or none (OCC_NO_LIMIT) */
    OCC_KEY_BYTES,           /* integer in [min, max] with an optional K or M suffix */
    OCC_KEY_COUNT_LIST,      /* list of COUNT, strictly ascending */
    OCC_KEY_BYTES_LIST,      /* list of BYTES, strictly ascending; OR_NONE flag: or none */
    OCC_KEY_MAP_LIST,        /* list of mappings of its child keys (offsets inside an item) */
    OCC_KEY_TEXT_LIST,       /* list of text kept beside the description (sources) */
    OCC_KEY_SIDE_TEXT,       /* text kept beside the description (dispatch evidence) */
    OCC_KEY_NANOSECONDS,     /* a plain number of ns in [min, max]; stored as a double in
                                seconds (dispatch timing) */
} occ_key_kind;

enum {
    OCC_KEYF_OPTIONAL = 1u << 0, /* may be absent (one_of names the key that replaces it) */
    OCC_KEYF_OR_NONE = 1u << 1,  /* lists: the word none means an empty list */
    OCC_KEYF_ITEM = 1u << 2,     /* a key of a MAP_LIST item: offset is inside the item */
    OCC_KEYF_ANY_ORDER = 1u << 3, /* lists: items in any order, repeats allowed */
};

/* Every key, in the order of the schema (and of the written file). */
typedef enum occ_pkey {
    OCC_PK_SCHEMA,
    OCC_PK_NAME,
    OCC_PK_VENDOR,
    OCC_PK_PRODUCT,
    OCC_PK_ARCHITECTURE,
    OCC_PK_TARGET,
    OCC_PK_STATUS,
    OCC_PK_SOURCES,
    OCC_PK_CORE,
    OCC_PK_CORE_NAME,
    OCC_PK_CORE_COUNT,
    OCC_PK_CORE_ENGINES,
    OCC_PK_CORE_ENGINE_NAME,
    OCC_PK_CORE_SIMD,
    OCC_PK_CORE_SUB_GROUPS,
    OCC_PK_CORE_GRF_MODES,
    OCC_PK_GRF_REGISTERS,
    OCC_PK_GRF_THREADS,
    OCC_PK_CORE_DEFAULT_GRF,
    OCC_PK_CORE_MAX_WG_SIZE,
    OCC_PK_CORE_MAX_WGS,
    OCC_PK_CORE_BARRIERS,
    OCC_PK_CORE_BARRIERS_DRIVER,
    OCC_PK_CORE_GPC_SMS,
    OCC_PK_CORE_CLUSTER_MAX_WGS,
    OCC_PK_CORE_CLUSTER_MAX_SIZE,
    OCC_PK_CORE_CLUSTER_MAX_SIZE_NP,
    OCC_PK_LM,
    OCC_PK_LM_NAME,
    OCC_PK_LM_PER_CORE,
    OCC_PK_LM_MAX_PER_WG,
    OCC_PK_LM_RESERVED,
    OCC_PK_LM_STEPS,
    OCC_PK_LM_GRANULE,
    OCC_PK_LM_CARVEOUTS,
    OCC_PK_REGS,
    OCC_PK_REGS_PER_CORE,
    OCC_PK_REGS_UNIT,
    OCC_PK_REGS_WARP_GRANULARITY,
    OCC_PK_REGS_MAX_PER_THREAD,
    OCC_PK_REGS_MAX_PER_WG,
    OCC_PK_REGS_PARTITIONS,
    OCC_PK_DISPATCH,
    OCC_PK_DISPATCH_ORDER,
    OCC_PK_DISPATCH_PARTIAL,
    OCC_PK_DISPATCH_EVIDENCE,
    OCC_PK_DISPATCH_REFILL_GAP,
    OCC_PK_DISPATCH_CORE_INTERVAL,
    OCC_PK_DISPATCH_CORE_INTERVAL_PER_CONTEXT,
    OCC_PK_DISPATCH_GPU_INTERVAL,
    /* the optional refinements of the dispatch timing, one run from here
     * to OCC_PK_DISPATCH_SUB_PARTITION_HOLD (a new one goes inside it):
     * accepted only with the required keys above (profile_yaml.c) */
    OCC_PK_DISPATCH_GPU_BURST,
    OCC_PK_DISPATCH_LAUNCH_INTERVAL,
    OCC_PK_DISPATCH_REFILL_GAP_DRAINED,
    OCC_PK_DISPATCH_GPU_INTERVAL_PER_CONTEXT,
    OCC_PK_DISPATCH_REFILL_PAUSE,
    OCC_PK_DISPATCH_REFILL_WINDOW,
    OCC_PK_DISPATCH_REFILL_WINDOW_THREADS,
    OCC_PK_DISPATCH_GPU_REPORT_PER_WORK_GROUP,
    OCC_PK_DISPATCH_REFILL_GAP_SPREAD,
    OCC_PK_DISPATCH_CORE_INTERVAL_THREADS,
    OCC_PK_DISPATCH_REFILL_PAUSE_FIRST,
    OCC_PK_DISPATCH_CORE_INTERVAL_SLOTS,
    OCC_PK_DISPATCH_GPU_BURST_SLOTS,
    OCC_PK_DISPATCH_SUB_PARTITION_HOLD,
    OCC_PK_DISPATCH_TIMING_EVIDENCE,
    OCC_PK_COUNT,
    OCC_PK_DISPATCH_REFINEMENTS_FIRST = OCC_PK_DISPATCH_GPU_BURST,
    OCC_PK_DISPATCH_REFINEMENTS_LAST = OCC_PK_DISPATCH_SUB_PARTITION_HOLD
} occ_pkey;

#define OCC_PK_NONE (-1)

typedef struct occ_profile_key {
    const char *key;      /* dotted: "core.count" */
    const char *name;     /* its last part, as written in the file: "count" */
    occ_key_kind kind;
    int parent;           /* the section or MAP_LIST it belongs to; OCC_PK_NONE at the top */
    unsigned flags;       /* OCC_KEYF_* */
    int one_of;           /* optional keys: the key that replaces this one (exactly one of both) */
    size_t offset;        /* field in occ_device_desc (ITEM: in the list's item) */
    size_t size;          /* the field's size; lists: one item's size */
    size_t count_offset;  /* lists: the uint32_t count field */
    uint32_t max_items;   /* lists: capacity (and the most the file may hold) */
    uint32_t min_items;   /* lists: the fewest the model accepts in a description */
    uint64_t min, max;    /* numbers and list items: bounds; VERSION: max is the version */
    const char *const *words;  /* WORD: the accepted words, NULL-terminated */
    const int *values;         /* WORD: the value stored for each word */
    const char *items;    /* lists: what the items are called in messages ("sizes") */
    const char *doc_type; /* documentation: the type column (NULL: not listed) */
    const char *doc;      /* documentation: the meaning column */
} occ_profile_key;

/* The table, indexed by occ_pkey. */
extern const occ_profile_key occ__profile_keys[OCC_PK_COUNT];

/* The index of a dotted key, or OCC_PK_NONE. */
int occ__profile_key_find(const char *dotted);

/* A number field of a description (or list item) read or written at an
 * entry's offset, whatever its size (bool, enum, uint32_t, uint64_t). */
uint64_t occ__field_get(const void *base, size_t offset, size_t size);
void occ__field_set(void *base, size_t offset, size_t size, uint64_t value);

/* The dispatch timing's required keys (the four intervals and
 * timing_evidence): a file gives all of them or none (profile_yaml.c), and
 * a description with timing writes all of them, zeros included. */
#define OCC__PROFILE_TIMING_REQUIRED 5
extern const int occ__profile_timing_required[OCC__PROFILE_TIMING_REQUIRED];
bool occ__profile_key_timing_required(int key);

/* Does a description hold this key's section?  (registers: has_register_file) */
bool occ__profile_key_present(const occ_device_desc *d, int key);

/* The per-field rules of the table (positive counts, list lengths, items
 * positive and ascending) for every key the description holds, in the
 * table's order; the first failure fills diag (key, no position). */
occ_status occ__desc_check_fields(const occ_device_desc *d, occ_diag *diag);

#endif
