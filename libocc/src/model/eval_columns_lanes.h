/* Eight lanes of the column batch: included twice by eval_columns.c, once
 * for the baseline instruction set and once for AVX2 (under a target pragma),
 * with ISA(name) naming this copy's functions.  Where __AVX2__ is defined
 * (GCC defines it under the pragma) a few helpers use AVX2 instructions the
 * compiler does not find from the generic vector code (unsigned minimum,
 * byte-to-lane widening, blends); everything else is the same source. */
#ifndef ISA
#error "eval_columns_lanes.h is included by eval_columns.c"
#endif

#define load_u32 ISA(load_u32)
#define store_u32 ISA(store_u32)
#define sel ISA(sel)
#define min_u ISA(min_u)
#define le_s ISA(le_s)
#define div_small ISA(div_small)
#define nonzero_u8 ISA(nonzero_u8)
#define store_u8 ISA(store_u8)
#define load_u64 ISA(load_u64)
#define half_of ISA(half_of)
#define lanes_set ISA(lanes_set)
#define occupancy_half ISA(occupancy_half)
#define group ISA(group)
#define groups ISA(groups)

INLINE v8u load_u32(const void *p)
{
    v8u v;
    memcpy(&v, p, sizeof v);
    return v;
}

INLINE void store_u32(void *p, v8u v) { memcpy(p, &v, sizeof v); }

/* m ? a : b, lane by lane (m: all ones or zero); C has no vector ?:. */
INLINE v8u sel(v8u m, v8u a, v8u b)
{
#ifdef __AVX2__
    return (v8u)_mm256_blendv_epi8((__m256i)b, (__m256i)a, (__m256i)m);
#else
    return (a & m) | (b & ~m);
#endif
}

INLINE v8u min_u(v8u a, v8u b)
{
#ifdef __AVX2__
    return (v8u)_mm256_min_epu32((__m256i)a, (__m256i)b);
#else
    return sel((v8u)(a < b), a, b);
#endif
}

/* a <= b for a, b below 2^31 (one signed comparison; garbage above). */
INLINE v8u le_s(v8u a, v8u b) { return ~(v8u)((v8i)a > (v8i)b); }

/* floor(a / b) for a, b < 2^16, b >= 1 (exact: eval_columns.c's header). */
INLINE v8u div_small(v8u a, v8u b)
{
    v8f q = __builtin_convertvector((v8i)a, v8f) / __builtin_convertvector((v8i)b, v8f);
    return (v8u)__builtin_convertvector(q, v8i);
}

/* Eight bytes: lane j all ones when byte j is nonzero. */
INLINE v8u nonzero_u8(const uint8_t *p)
{
#ifdef __AVX2__
    return (v8u)((v8u)_mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)p)) != 0);
#elif defined(HAVE_SHUFFLEVECTOR) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    v8b b, z = {0};
    memcpy(&b, p, sizeof b);
    v32b w = __builtin_shufflevector(b, z, 0, 8, 8, 8, 1, 8, 8, 8, 2, 8, 8, 8, 3, 8, 8, 8, 4, 8, 8, 8, 5, 8, 8, 8, 6,
                                     8, 8, 8, 7, 8, 8, 8);
    return (v8u)((v8u)w != 0);
#else
    v8b b;
    memcpy(&b, p, sizeof b);
    return (v8u)(__builtin_convertvector(b, v8u) != 0);
#endif
}

/* The low byte of each lane. */
INLINE void store_u8(uint8_t *p, v8u v)
{
#if defined(HAVE_SHUFFLEVECTOR) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    v32b b = (v32b)v;
    v8b low = __builtin_shufflevector(b, b, 0, 4, 8, 12, 16, 20, 24, 28);
#else
    v8b low = __builtin_convertvector(v, v8b);
#endif
    memcpy(p, &low, sizeof low);
}

/* Eight uint64 as their low and high 32 bits. */
INLINE void load_u64(const uint64_t *p, v8u *lo, v8u *hi)
{
#if defined(HAVE_SHUFFLEVECTOR) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    v8u a = load_u32(p), b = load_u32(p + 4);
    *lo = __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14);
    *hi = __builtin_shufflevector(a, b, 1, 3, 5, 7, 9, 11, 13, 15);
#else
    v4q a, b;
    memcpy(&a, p, sizeof a);
    memcpy(&b, p + 4, sizeof b);
    union {
        v8u v;
        v4u h[2];
    } l = {.h = {__builtin_convertvector(a, v4u), __builtin_convertvector(b, v4u)}},
      h = {.h = {__builtin_convertvector(a >> 32, v4u), __builtin_convertvector(b >> 32, v4u)}};
    *lo = l.v, *hi = h.v;
#endif
}

INLINE v4i half_of(v8u v, int half)
{
#ifdef HAVE_SHUFFLEVECTOR
    return (v4i)(half ? __builtin_shufflevector(v, v, 4, 5, 6, 7) : __builtin_shufflevector(v, v, 0, 1, 2, 3));
#else
    union {
        v8u v;
        v4i h[2];
    } u = {v};
    return u.h[half];
#endif
}

/* Bit j: lane j's mask is set. */
INLINE unsigned lanes_set(v8u m)
{
#ifdef __AVX2__
    return (unsigned)_mm256_movemask_ps((__m256)m);
#elif defined(__SSE2__)
    return (unsigned)_mm_movemask_ps((__m128)half_of(m, 0)) | (unsigned)_mm_movemask_ps((__m128)half_of(m, 1)) << 4;
#else
    unsigned r = 0;
    for (int j = 0; j < LANES; j++)
        r |= (m[j] & 1u) << j;
    return r;
#endif
}

/* (double)(a * b) / c for lanes 0..3 or 4..7 (a * b below 2^31 where it
 * counts: the product is exact in double either way). */
INLINE v4d occupancy_half(v8u used, v8u c, int half)
{
    return __builtin_convertvector(half_of(used, half), v4d) / __builtin_convertvector(half_of(c, half), v4d);
}

/* Kernels i..i+7: their answers into the result columns, and the lanes the
 * scalar code must answer again (bit j: kernel i + j).  YZ: a wg_y or wg_z
 * column; SLM: a local-memory column, or a carveout column on a device with
 * carveouts; REGS: a register column on a device with a register file.
 * The stages are eval_fast.h's occ__evaluate_launch, in its order. */
INLINE unsigned group(const plan *p, const occ_columns *in, occ_eval_columns *out, size_t i, bool YZ, bool SLM,
                      bool REGS)
{
    const v8u one = SPLAT(1), zero = SPLAT(0), none = SPLAT(NL);
    /* work-group size: dimensions past the maximum (or zero) are bad, the
     * others are below 2^24 and their product is exact in float up to 2^24
     * (past it, it stays past the maximum, which is below 2^24) */
    v8u x = in->wg_x ? load_u32(in->wg_x + i) : one;
    v8u bad, W;
    if (YZ) {
        v8u y = in->wg_y ? load_u32(in->wg_y + i) : one;
        v8u z = in->wg_z ? load_u32(in->wg_z + i) : one;
        v8u big = SPLAT(p->max_wg);
        bad = (v8u)(x > big) | (v8u)(y > big) | (v8u)(z > big);
        v8u m24 = SPLAT(0xffffff);
        v8f prod = __builtin_convertvector((v8i)(x & m24), v8f) * __builtin_convertvector((v8i)(y & m24), v8f) *
                   __builtin_convertvector((v8i)(z & m24), v8f);
        v8u fits = (v8u)(prod <= (float)p->max_wg);
        W = (v8u)__builtin_convertvector((v8f)((v8u)prod & fits), v8i); /* past the maximum: 0, bad below */
    } else {
        bad = zero;
        W = x & SPLAT(0xffffff);
    }
    bad |= (v8u)(W - 1 >= SPLAT(p->max_wg));
    /* contexts per work-group, ceil(W / sg) = floor((W - 1) / sg) + 1: for
     * a power of two, (W - 1) times 1 / sg in float is exact (W < 2^24), and
     * 1 / sg is sg's float with the exponent negated */
    v8u t;
    if (in->sub_group) {
        v8u sg = load_u32(in->sub_group + i);
        sg |= (v8u)(sg == 0) & p->sg[0];
        v8u known = zero;
        for (uint32_t s = 0; s < p->n_sg; s++)
            known |= (v8u)(sg == p->sg[s]);
        bad |= ~known;
        v8u inv = (SPLAT(254u << 23) - (v8u)__builtin_convertvector((v8i)sg, v8f)) & known;
        v8f q = __builtin_convertvector((v8i)(W - 1), v8f) * (v8f)inv;
        t = (v8u)__builtin_convertvector(q, v8i) + 1;
    } else {
        t = (W + (p->sg[0] - 1)) >> p->sg_shift[0];
    }
    /* GRF mode: the one with the fewest registers >= the request; none: 0
     * contexts per core, and t > 0 makes the lane bad */
    v8u cpc;
    if (in->grf) {
        v8u g = load_u32(in->grf + i);
        v8u want = sel((v8u)(g == 0), SPLAT(p->default_grf), g);
        cpc = zero;
        for (uint32_t m = p->n_modes; m-- > 0;)
            cpc = sel((v8u)(want <= p->mode_regs[m]), SPLAT(p->mode_cpc[m]), cpc);
    } else {
        cpc = SPLAT(p->cpc0);
    }
    bad |= (v8u)(t > cpc);
    v8u t_div = t | ((v8u)(t == 0) & one); /* a divisor >= 1 in every lane */
    v8u lim_threads = div_small(cpc, t_div);
    /* carveout preference -1..100 */
    v8u want = SPLAT(p->want0);
    if (in->carveout_pct) {
        v8u pct1 = load_u32(in->carveout_pct + i) + 1;
        v8u in_range = (v8u)(pct1 < OCC__FAST_PCT);
        bad |= ~in_range;
        if (SLM && p->n_carve) {
            pct1 &= in_range;
#ifdef __AVX2__
            want = (v8u)_mm256_i32gather_epi32((const int *)(const void *)p->want_pct, (__m256i)pct1, 4);
#else
            for (int j = 0; j < LANES; j++) /* a gather; a 102-entry table */
                want[j] = p->want_pct[pct1[j]];
#endif
        }
    }
    /* local memory: allocation, the core's size, work-groups that fit */
    v8u lim_slm = SPLAT(p->lim_slm0);
    if (SLM) {
        v8u bytes = zero;
        if (in->slm_bytes) {
            v8u hi;
            load_u64(in->slm_bytes + i, &bytes, &hi);
            bad |= (v8u)(hi != 0) | (v8u)(bytes > p->slm_max);
            bytes &= SPLAT(0x7fffffff);
        }
        v8u need = bytes + p->slm_reserved;
        v8u rounded = (need + p->slm_unit_mask) & ~SPLAT(p->slm_unit_mask);
        v8u alloc = rounded;
        if (p->steps) { /* the smallest step >= the request (all ones: none), 0 for no request */
            alloc = none;
            for (uint32_t s = 0; s < p->n_steps; s++)
                alloc = min_u(alloc, SPLAT(p->step[s]) | (v8u)((v8i)rounded > (v8i)SPLAT(p->step[s])));
            alloc &= ~(v8u)(rounded == 0);
        }
        /* the smallest carveout >= both the preference and the allocation
         * (eval_fast.h's two look-ups, as the smallest legal size is
         * monotone), else the whole core */
        v8u config = SPLAT(p->per_core);
        if (p->n_carve && (in->carveout_pct || !p->config_fixed)) {
            v8u need_core = sel(le_s(alloc, want), want, alloc);
            for (uint32_t c = 0; c < p->n_carve; c++)
                config = min_u(config, SPLAT(p->carve[c]) | ~le_s(need_core, SPLAT(p->carve[c])));
        } else if (p->n_carve) {
            config = SPLAT(p->config0);
        }
        v8u none_alloc = (v8u)(alloc == 0);
        lim_slm = div_small(config >> p->slm_shift, (alloc >> p->slm_shift) | (none_alloc & one)) | none_alloc;
    }
    /* registers: only a kernel that gives its count is limited by them */
    v8u lim_regs = none;
    if (REGS) {
        v8u r = load_u32(in->regs_per_thread + i);
        v8u given = (v8u)(r != 0);
        bad |= (v8u)(r > p->reg_max_per_thread);
        r &= SPLAT(0xffff);
        v8u per_warp = ((r << p->warp_shift) + p->reg_unit_mask) >> p->reg_unit_shift;
        v8u per_block = (per_warp << p->reg_unit_shift) * ((t + p->reg_gran_mask) & ~SPLAT(p->reg_gran_mask));
        v8u warps_pp = div_small(SPLAT(p->rpp_units), per_warp | ((v8u)(per_warp == 0) & one));
        v8u lim = div_small(warps_pp * p->partitions, t_div);
        bad |= given & ((v8u)(per_block > p->reg_max_per_wg) | (v8u)(lim == 0));
        lim_regs = lim | ~given;
    }
    v8u lim_bar = none;
    if (in->barrier)
        lim_bar = (SPLAT(p->barriers) & nonzero_u8(in->barrier + i)) | ~nonzero_u8(in->barrier + i);
    v8u wgs = SPLAT(p->max_wgs);
    v8u resident = min_u(min_u(lim_threads, lim_slm), min_u(min_u(lim_regs, wgs), lim_bar));

    if (out->resident_wgs)
        store_u32(out->resident_wgs + i, resident);
    if (out->contexts_per_wg)
        store_u32(out->contexts_per_wg + i, t);
    if (out->contexts_per_core)
        store_u32(out->contexts_per_core + i, cpc);
    if (out->limited_by) {
        v8u by = ((v8u)(lim_threads == resident) & 1) | ((v8u)(lim_slm == resident) & 2) |
                 ((v8u)(lim_regs == resident) & 4) | ((v8u)(wgs == resident) & 8) |
                 ((v8u)(lim_bar == resident) & 16);
        store_u8(out->limited_by + i, by);
    }
    if (out->reason)
        memset(out->reason + i, OCC_REASON_NONE, LANES);
    if (out->occupancy) {
        v8u c = cpc | ((v8u)(cpc == 0) & one); /* cpc 0: a bad lane */
        v8u used = resident * t;
        v4d lo = occupancy_half(used, c, 0), hi = occupancy_half(used, c, 1);
        memcpy(out->occupancy + i, &lo, sizeof lo);
        memcpy(out->occupancy + i + 4, &hi, sizeof hi);
    }
    return lanes_set(bad);
}

/* The groups of eight, compiled for one combination of stages. */
#define GROUPS(YZ, SLM, REGS)                                                                      \
    for (size_t i = 0; i + LANES <= n; i += LANES) {                                               \
        unsigned flagged = group(p, in, out, i, YZ, SLM, REGS);                                    \
        while (__builtin_expect(flagged != 0, 0)) {                                                \
            answer_flagged(f, in, out, i + (size_t)__builtin_ctz(flagged));                        \
            flagged &= flagged - 1;                                                                \
        }                                                                                          \
    }

/* Every group of eight of n kernels.  The plan and the column pointers are
 * copied into locals: the result stores (memcpy, which may alias anything)
 * then do not make the compiler load them again for every group. */
static void groups(const plan *pp, const occ__fast *f, size_t n, const occ_columns *inp, occ_eval_columns *outp,
                   unsigned variant)
{
    const plan P = *pp, *p = &P;
    const occ_columns I = *inp, *in = &I;
    occ_eval_columns O = *outp, *out = &O;
    switch (variant) {
    case 0: GROUPS(false, false, false) break;
    case 1: GROUPS(true, false, false) break;
    case 2: GROUPS(false, true, false) break;
    case 3: GROUPS(true, true, false) break;
    case 4: GROUPS(false, false, true) break;
    case 5: GROUPS(true, false, true) break;
    case 6: GROUPS(false, true, true) break;
    default: GROUPS(true, true, true) break;
    }
}
#undef GROUPS

#undef load_u32
#undef store_u32
#undef sel
#undef min_u
#undef le_s
#undef div_small
#undef nonzero_u8
#undef store_u8
#undef load_u64
#undef half_of
#undef lanes_set
#undef occupancy_half
#undef group
#undef groups
