/* A bounds-checked MessagePack reader (see msgpack.h). */
#include "kernels/msgpack.h"

#include <string.h>

void occ__mp_init(occ__mp *r, const void *data, size_t size)
{
    r->p = data;
    r->end = r->p + size;
    r->error = NULL;
}

static bool fail(occ__mp *r, const char *why)
{
    r->error = why;
    return false;
}

/* Big-endian unsigned integer of n bytes (1, 2, 4, 8) at r->p, consumed. */
static bool take_be(occ__mp *r, unsigned n, uint64_t *v)
{
    if ((size_t)(r->end - r->p) < n)
        return fail(r, "truncated MessagePack value");
    uint64_t x = 0;
    for (unsigned k = 0; k < n; k++)
        x = x << 8 | r->p[k];
    r->p += n;
    *v = x;
    return true;
}

/* A payload of len bytes (str, bin, ext). */
static bool take_payload(occ__mp *r, occ__mp_item *it, uint64_t len)
{
    if ((uint64_t)(r->end - r->p) < len)
        return fail(r, "MessagePack string or binary longer than the data left");
    it->data = r->p;
    it->len = (uint32_t)len;
    r->p += len;
    return true;
}

/* A container of count elements: each takes at least one byte. */
static bool take_container(occ__mp *r, occ__mp_item *it, occ__mp_type type, uint64_t count)
{
    uint64_t elements = type == OCC__MP_MAP ? 2 * count : count;
    if (elements > (uint64_t)(r->end - r->p))
        return fail(r, "MessagePack array or map with more elements than the data left");
    it->type = type;
    it->count = (uint32_t)count;
    return true;
}

bool occ__mp_next(occ__mp *r, occ__mp_item *it)
{
    memset(it, 0, sizeof *it);
    if (r->p >= r->end)
        return fail(r, "truncated MessagePack data");
    uint8_t c = *r->p++;
    uint64_t v;
    if (c <= 0x7f) {
        it->type = OCC__MP_UINT;
        it->u = c;
        return true;
    }
    if (c >= 0xe0) {
        it->type = OCC__MP_INT;
        it->i = (int8_t)c;
        return true;
    }
    if ((c & 0xf0) == 0x80)
        return take_container(r, it, OCC__MP_MAP, c & 0x0f);
    if ((c & 0xf0) == 0x90)
        return take_container(r, it, OCC__MP_ARRAY, c & 0x0f);
    if ((c & 0xe0) == 0xa0) {
        it->type = OCC__MP_STR;
        return take_payload(r, it, c & 0x1f);
    }
    switch (c) {
    case 0xc0: it->type = OCC__MP_NIL; return true;
    case 0xc2: case 0xc3: it->type = OCC__MP_BOOL; it->b = c == 0xc3; return true;
    case 0xc4: case 0xc5: case 0xc6: /* bin 8/16/32 */
        it->type = OCC__MP_BIN;
        return take_be(r, 1u << (c - 0xc4), &v) && take_payload(r, it, v);
    case 0xd9: case 0xda: case 0xdb: /* str 8/16/32 */
        it->type = OCC__MP_STR;
        return take_be(r, 1u << (c - 0xd9), &v) && take_payload(r, it, v);
    case 0xc7: case 0xc8: case 0xc9: { /* ext 8/16/32: length, type, payload */
        it->type = OCC__MP_EXT;
        uint64_t t;
        if (!take_be(r, 1u << (c - 0xc7), &v) || !take_be(r, 1, &t))
            return false;
        it->ext_type = (int8_t)t;
        return take_payload(r, it, v);
    }
    case 0xd4: case 0xd5: case 0xd6: case 0xd7: case 0xd8: { /* fixext 1..16 */
        it->type = OCC__MP_EXT;
        uint64_t t;
        if (!take_be(r, 1, &t))
            return false;
        it->ext_type = (int8_t)t;
        return take_payload(r, it, 1u << (c - 0xd4));
    }
    case 0xca: { /* float 32 */
        if (!take_be(r, 4, &v))
            return false;
        uint32_t w = (uint32_t)v;
        float f;
        memcpy(&f, &w, sizeof f);
        it->type = OCC__MP_FLOAT;
        it->f = f;
        return true;
    }
    case 0xcb: /* float 64 */
        if (!take_be(r, 8, &v))
            return false;
        it->type = OCC__MP_FLOAT;
        memcpy(&it->f, &v, sizeof it->f);
        return true;
    case 0xcc: case 0xcd: case 0xce: case 0xcf: /* uint 8..64 */
        it->type = OCC__MP_UINT;
        return take_be(r, 1u << (c - 0xcc), &it->u);
    case 0xd0: case 0xd1: case 0xd2: case 0xd3: { /* int 8..64 */
        unsigned n = 1u << (c - 0xd0);
        if (!take_be(r, n, &v))
            return false;
        if (n < 8 && v >> (8 * n - 1)) /* sign-extend */
            v |= ~(uint64_t)0 << (8 * n);
        int64_t s;
        memcpy(&s, &v, sizeof s);
        if (s >= 0) {
            it->type = OCC__MP_UINT;
            it->u = (uint64_t)s;
        } else {
            it->type = OCC__MP_INT;
            it->i = s;
        }
        return true;
    }
    case 0xdc: case 0xdd: /* array 16/32 */
        return take_be(r, c == 0xdc ? 2 : 4, &v) && take_container(r, it, OCC__MP_ARRAY, v);
    case 0xde: case 0xdf: /* map 16/32 */
        return take_be(r, c == 0xde ? 2 : 4, &v) && take_container(r, it, OCC__MP_MAP, v);
    default: /* 0xc1: never used */
        return fail(r, "reserved MessagePack byte 0xc1");
    }
}

bool occ__mp_skip(occ__mp *r)
{
    /* Values still to pass over: containers add their elements.  Each header
     * read consumes at least one byte and take_container bounds the count
     * by the bytes left, so the loop ends within the input's length. */
    uint64_t pending = 1;
    while (pending) {
        occ__mp_item it;
        if (!occ__mp_next(r, &it))
            return false;
        pending--;
        if (it.type == OCC__MP_ARRAY)
            pending += it.count;
        else if (it.type == OCC__MP_MAP)
            pending += 2 * (uint64_t)it.count;
    }
    return true;
}

bool occ__mp_str_is(const occ__mp_item *it, const char *s)
{
    size_t n = strlen(s);
    return it->type == OCC__MP_STR && it->len == n && memcmp(it->data, s, n) == 0;
}
