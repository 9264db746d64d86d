/* A map from handles (pointers) to small records, for the interposers'
 * per-kernel, per-module and per-device state.  Not thread-safe: callers
 * hold their own lock.  Values are allocated (zeroed) by the map and stay at
 * the same address until removed. */
#ifndef OCC_TRACE_MAP_H
#define OCC_TRACE_MAP_H

#include <stdbool.h>
#include <stddef.h>

typedef struct trace_map {
    struct trace_map_slot *slots;
    size_t cap;   /* power of two */
    size_t count; /* live + removed (removed slots keep probing chains) */
    size_t value_size;
} trace_map;

void trace_map_init(trace_map *m, size_t value_size);
/* The value of key, or NULL. */
void *trace_map_find(const trace_map *m, const void *key);
/* The value of key, created zeroed if absent (*created says so); NULL when out of memory. */
void *trace_map_get(trace_map *m, const void *key, bool *created);
void trace_map_remove(trace_map *m, const void *key);
/* Free every value and the table (the map is empty and usable again). */
void trace_map_free(trace_map *m);

#endif
