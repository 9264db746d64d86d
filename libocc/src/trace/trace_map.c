/* Open addressing with linear probing; removed entries become tombstones
 * until the next rehash. */
#include "trace_map.h"

#include <stdint.h>
#include <stdlib.h>

struct trace_map_slot {
    const void *key; /* NULL: empty */
    void *value;     /* NULL with a key: removed */
};

void trace_map_init(trace_map *m, size_t value_size)
{
    m->slots = NULL;
    m->cap = 0;
    m->count = 0;
    m->value_size = value_size;
}

static size_t hash(const void *key)
{
    uint64_t x = (uint64_t)(uintptr_t)key;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return (size_t)x;
}

static struct trace_map_slot *lookup(const trace_map *m, const void *key)
{
    if (!m->cap)
        return NULL;
    for (size_t i = hash(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        struct trace_map_slot *s = &m->slots[i];
        if (!s->key || (s->key == key && s->value))
            return s;
    }
}

void *trace_map_find(const trace_map *m, const void *key)
{
    struct trace_map_slot *s = lookup(m, key);
    return s && s->key ? s->value : NULL;
}

static bool rehash(trace_map *m)
{
    size_t cap = m->cap ? m->cap * 2 : 64;
    struct trace_map_slot *slots = calloc(cap, sizeof *slots);
    if (!slots)
        return false;
    trace_map old = *m;
    m->slots = slots;
    m->cap = cap;
    m->count = 0;
    for (size_t i = 0; i < old.cap; i++)
        if (old.slots[i].key && old.slots[i].value) {
            struct trace_map_slot *s = lookup(m, old.slots[i].key);
            *s = old.slots[i];
            m->count++;
        }
    free(old.slots);
    return true;
}

void *trace_map_get(trace_map *m, const void *key, bool *created)
{
    *created = false;
    void *v = trace_map_find(m, key);
    if (v)
        return v;
    if ((m->count + 1) * 2 > m->cap && !rehash(m))
        return NULL;
    v = calloc(1, m->value_size);
    if (!v)
        return NULL;
    struct trace_map_slot *s = lookup(m, key);
    s->key = key;
    s->value = v;
    m->count++;
    *created = true;
    return v;
}

void trace_map_remove(trace_map *m, const void *key)
{
    struct trace_map_slot *s = lookup(m, key);
    if (s && s->key) {
        free(s->value);
        s->value = NULL; /* tombstone: the chain through it stays intact */
    }
}

void trace_map_free(trace_map *m)
{
    for (size_t i = 0; i < m->cap; i++)
        free(m->slots[i].value);
    free(m->slots);
    m->slots = NULL;
    m->cap = 0;
    m->count = 0;
}
