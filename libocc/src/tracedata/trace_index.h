/* A hash index of items (by their position in an array), for reading and
 * aggregating trace records in time linear in their number.  The caller
 * hashes its key and compares candidates itself:
 *
 *     uint64_t h = hash of the key;
 *     size_t p = tr_index_first(&t, h);
 *     for (; t.slots[p].item != TR_NONE; p = tr_index_next(&t, p))
 *         if (t.slots[p].hash == h && equal(key, items[t.slots[p].item]))
 *             break;                      // found t.slots[p].item
 *     // not found: p is where it goes (tr_index_put), after tr_index_room
 *
 * tr_index_room must be called before the search that may end in a put. */
#ifndef OCC_TRACE_INDEX_H
#define OCC_TRACE_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#define TR_NONE SIZE_MAX

typedef struct tr_slot {
    uint64_t hash;
    size_t item; /* TR_NONE: empty */
} tr_slot;

typedef struct tr_index {
    tr_slot *slots;
    size_t cap, n; /* cap: a power of two, or 0 */
} tr_index;

static inline size_t tr_index_first(const tr_index *t, uint64_t h)
{
    return (size_t)(h ^ h >> 31) & (t->cap - 1);
}

static inline size_t tr_index_next(const tr_index *t, size_t p)
{
    return (p + 1) & (t->cap - 1);
}

/* Room for one more item (at most half full); false when out of memory. */
static inline bool tr_index_room(tr_index *t)
{
    if ((t->n + 1) * 2 <= t->cap)
        return true;
    size_t cap = t->cap ? t->cap * 2 : 64;
    tr_slot *s = malloc(cap * sizeof *s);
    if (!s)
        return false;
    for (size_t i = 0; i < cap; i++)
        s[i].item = TR_NONE;
    tr_index old = *t;
    t->slots = s;
    t->cap = cap;
    for (size_t i = 0; i < old.cap; i++)
        if (old.slots[i].item != TR_NONE) {
            size_t p = tr_index_first(t, old.slots[i].hash);
            while (s[p].item != TR_NONE)
                p = tr_index_next(t, p);
            s[p] = old.slots[i];
        }
    free(old.slots);
    return true;
}

static inline void tr_index_put(tr_index *t, size_t p, uint64_t h, size_t item)
{
    t->slots[p].hash = h;
    t->slots[p].item = item;
    t->n++;
}

static inline void tr_index_free(tr_index *t)
{
    free(t->slots);
    t->slots = NULL;
    t->cap = t->n = 0;
}

/* FNV-1a over bytes, then mixed: keys are hashed field by field. */
static inline uint64_t tr_hash_bytes(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

static inline uint64_t tr_hash_u64(uint64_t h, uint64_t v)
{
    return tr_hash_bytes(h, &v, sizeof v);
}

#define TR_HASH_SEED 1469598103934665603ull

#endif
