/* Private to libocc: a bounds-checked reader of MessagePack, for the AMDGPU
 * code object metadata (amdgpu.c).  Pure: it reads a buffer in place and
 * copies nothing.
 *
 * Values are read one header at a time (occ__mp_next): a scalar whole, an
 * array or map as its count, its elements following.  occ__mp_skip passes
 * over a whole value without recursion, so nesting depth costs nothing, and
 * every count is checked against the bytes left (each element takes at least
 * one), so reading time is linear in the input however hostile.
 * The format: https://github.com/msgpack/msgpack/blob/master/spec.md */
#ifndef OCC_KERNELS_MSGPACK_H
#define OCC_KERNELS_MSGPACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum occ__mp_type {
    OCC__MP_NIL,
    OCC__MP_BOOL,
    OCC__MP_UINT,  /* non-negative integers, whatever their encoding */
    OCC__MP_INT,   /* negative integers */
    OCC__MP_FLOAT,
    OCC__MP_STR,
    OCC__MP_BIN,
    OCC__MP_EXT,
    OCC__MP_ARRAY,
    OCC__MP_MAP,
} occ__mp_type;

typedef struct occ__mp_item {
    occ__mp_type type;
    bool b;              /* BOOL */
    uint64_t u;          /* UINT */
    int64_t i;           /* INT */
    double f;            /* FLOAT */
    const uint8_t *data; /* STR, BIN, EXT: the payload (not NUL-terminated) */
    uint32_t len;        /* its length in bytes */
    int8_t ext_type;     /* EXT */
    uint32_t count;      /* ARRAY: elements; MAP: key-value pairs */
} occ__mp_item;

typedef struct occ__mp {
    const uint8_t *p, *end;
    const char *error; /* after a false return: what was wrong */
} occ__mp;

void occ__mp_init(occ__mp *r, const void *data, size_t size);

/* Read the next header into it; false (r->error set) on a truncated,
 * reserved (0xc1) or impossible one (more elements than bytes left). */
bool occ__mp_next(occ__mp *r, occ__mp_item *it);

/* Pass over the next value, containers with all they hold. */
bool occ__mp_skip(occ__mp *r);

/* it is a string equal to s. */
bool occ__mp_str_is(const occ__mp_item *it, const char *s);

#endif
