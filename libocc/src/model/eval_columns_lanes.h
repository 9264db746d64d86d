/* The lanes of the column batch: included twice by eval_columns.c, once for
 * the baseline instruction set (NLANES 4: 16-byte vectors, SSE2 on x86-64,
 * NEON on ARM; wider generic vectors are split element by element there) and
 * once for AVX2 under a target pragma (NLANES 8), with ISA(name) naming this
 * copy's functions and VU, VI, VF (lanes), VIH, VD (half the lanes as int
 * and double) and VB (a byte per lane) its vector types.  Where __AVX2__ is defined
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
#define recip_up ISA(recip_up)
#define mul_floor ISA(mul_floor)
#define nonzero_u8 ISA(nonzero_u8)
#define store_u8 ISA(store_u8)
#define load_u64 ISA(load_u64)
#define half_of ISA(half_of)
#define lanes_set ISA(lanes_set)
#define store_occupancy ISA(store_occupancy)
#define group ISA(group)
#define groups ISA(groups)
#define structs ISA(structs)
#define store_rows ISA(store_rows)
#define gather ISA(gather)
#define load_rows ISA(load_rows)
#define lanes_in ISA(lanes_in)
#define load_columns ISA(load_columns)
#define load_structs ISA(load_structs)
#define store_doubles ISA(store_doubles)
#define occupancy_words ISA(occupancy_words)

INLINE VU load_u32(const void *p)
{
    VU v;
    memcpy(&v, p, sizeof v);
    return v;
}

INLINE void store_u32(void *p, VU v) { memcpy(p, &v, sizeof v); }

/* m ? a : b, lane by lane (m: all ones or zero); C has no vector ?:. */
INLINE VU sel(VU m, VU a, VU b)
{
#ifdef __AVX2__
    return (VU)_mm256_blendv_epi8((__m256i)b, (__m256i)a, (__m256i)m);
#else
    return (a & m) | (b & ~m);
#endif
}

INLINE VU min_u(VU a, VU b)
{
#ifdef __AVX2__
    return (VU)_mm256_min_epu32((__m256i)a, (__m256i)b);
#else
    return sel((VU)(a < b), a, b);
#endif
}

/* a <= b for a, b below 2^31 (one signed comparison; garbage above). */
INLINE VU le_s(VU a, VU b) { return ~(VU)((VI)a > (VI)b); }

/* floor(a / b) for a, b < 2^16, b >= 1 (exact: eval_columns.c's header). */
INLINE VU div_small(VU a, VU b)
{
    VF q = __builtin_convertvector((VI)a, VF) / __builtin_convertvector((VI)b, VF);
    return (VU)__builtin_convertvector(q, VI);
}

/* 1 / b in float, 3 units in the last place up, for b >= 1: then
 * floor(a x recip_up(b)) = floor(a / b) for a, b < 2^16 (mul_floor), so that
 * several quotients by one divisor cost one division.  Why: the float 1 / b
 * is within 2^-24 of the true value relatively, 3 units up puts it between
 * 2^-23 and 7 x 2^-24 above it, so the rounded product is at least a / b and
 * exceeds it by less than (a / b) x 2^-21, which is below 1 / b for
 * a < 2^21; a quotient that is not an integer is at least 1 / b below the
 * next integer.  tests/model/test_reference.c checks every b and both sides of
 * every multiple of it. */
INLINE VF recip_up(VU b)
{
    VF r = (VF){0} + 1.0f;
    r /= __builtin_convertvector((VI)b, VF);
    return (VF)((VU)r + 3);
}

INLINE VU mul_floor(VU a, VF r) { return (VU)__builtin_convertvector(__builtin_convertvector((VI)a, VF) * r, VI); }

/* NLANES bytes: lane j all ones when byte j is nonzero. */
INLINE VU nonzero_u8(const uint8_t *p)
{
#ifdef __AVX2__
    return (VU)((VU)_mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)p)) != 0);
#elif defined(__SSE2__) && NLANES == 4
    int32_t b4;
    memcpy(&b4, p, sizeof b4);
    __m128i z = _mm_setzero_si128();
    __m128i w = _mm_unpacklo_epi16(_mm_unpacklo_epi8(_mm_cvtsi32_si128(b4), z), z);
    return (VU)((VU)w != 0);
#else
    VB b;
    memcpy(&b, p, sizeof b);
    return (VU)(__builtin_convertvector(b, VU) != 0);
#endif
}

/* The low byte of each lane (values below 2^15). */
INLINE void store_u8(uint8_t *p, VU v)
{
#if defined(__SSE2__) && NLANES == 4
    __m128i x = _mm_packs_epi32((__m128i)v, (__m128i)v);
    int32_t b4 = _mm_cvtsi128_si32(_mm_packus_epi16(x, x));
    memcpy(p, &b4, sizeof b4);
#else
    VB low = __builtin_convertvector(v & 0xff, VB);
#if defined(HAVE_SHUFFLEVECTOR) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && NLANES == 8
    v32b b = (v32b)v;
    low = __builtin_shufflevector(b, b, 0, 4, 8, 12, 16, 20, 24, 28);
#endif
    memcpy(p, &low, sizeof low);
#endif
}

/* NLANES uint64 as their low and high 32 bits. */
INLINE void load_u64(const uint64_t *p, VU *lo, VU *hi)
{
#if defined(HAVE_SHUFFLEVECTOR) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    VU a = load_u32(p), b = load_u32(p + NLANES / 2);
#if NLANES == 8
    *lo = __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14);
    *hi = __builtin_shufflevector(a, b, 1, 3, 5, 7, 9, 11, 13, 15);
#else
    *lo = __builtin_shufflevector(a, b, 0, 2, 4, 6);
    *hi = __builtin_shufflevector(a, b, 1, 3, 5, 7);
#endif
#else
    for (int j = 0; j < NLANES; j++)
        (*lo)[j] = (uint32_t)p[j], (*hi)[j] = (uint32_t)(p[j] >> 32);
#endif
}

INLINE VIH half_of(VU v, int half)
{
#ifdef HAVE_SHUFFLEVECTOR
#if NLANES == 8
    return (VIH)(half ? __builtin_shufflevector(v, v, 4, 5, 6, 7) : __builtin_shufflevector(v, v, 0, 1, 2, 3));
#else
    return (VIH)(half ? __builtin_shufflevector(v, v, 2, 3) : __builtin_shufflevector(v, v, 0, 1));
#endif
#else
    VIH h;
    for (int j = 0; j < NLANES / 2; j++)
        h[j] = (int32_t)v[half * (NLANES / 2) + j];
    return h;
#endif
}

/* Bit j: lane j's mask is set. */
INLINE unsigned lanes_set(VU m)
{
#ifdef __AVX2__
    return (unsigned)_mm256_movemask_ps((__m256)m);
#elif defined(__SSE2__) && NLANES == 4
    return (unsigned)_mm_movemask_ps((__m128)m);
#else
    unsigned r = 0;
    for (int j = 0; j < NLANES; j++)
        r |= (m[j] & 1u) << j;
    return r;
#endif
}

/* occupancy[j] = (double)used[j] / c[j] (both below 2^31 where it counts:
 * the scalar path's division, correctly rounded either way). */
INLINE void store_occupancy(double *p, VU used, VU c)
{
#if defined(__SSE2__) && NLANES == 4 /* the compiler converts two lanes at a time element by element */
    __m128i u = (__m128i)used, d = (__m128i)c;
    __m128d lo = _mm_div_pd(_mm_cvtepi32_pd(u), _mm_cvtepi32_pd(d));
    __m128d hi = _mm_div_pd(_mm_cvtepi32_pd(_mm_unpackhi_epi64(u, u)), _mm_cvtepi32_pd(_mm_unpackhi_epi64(d, d)));
    _mm_storeu_pd(p, lo);
    _mm_storeu_pd(p + 2, hi);
#else
    VD lo = __builtin_convertvector(half_of(used, 0), VD) / __builtin_convertvector(half_of(c, 0), VD);
    VD hi = __builtin_convertvector(half_of(used, 1), VD) / __builtin_convertvector(half_of(c, 1), VD);
    memcpy(p, &lo, sizeof lo);
    memcpy(p + NLANES / 2, &hi, sizeof hi);
#endif
}

/* tab[idx[j]] in lane j, for a table of `width`-byte entries (4, 2 or 1):
 * the rule's tables (eval_fast.h) read by the lanes.  The 32-bit gathers of
 * narrower entries read up to 3 bytes past an entry: occ__fast keeps padding
 * after its last table (OCC__FAST_PAD). */
INLINE VU gather(const void *tab, VU idx, int width)
{
#ifdef __AVX2__
    const int *t = (const int *)tab;
    if (width == 4)
        return (VU)_mm256_i32gather_epi32(t, (__m256i)idx, 4);
    if (width == 2)
        return (VU)_mm256_i32gather_epi32(t, (__m256i)idx, 2) & 0xffff;
    return (VU)_mm256_i32gather_epi32(t, (__m256i)idx, 1) & 0xff;
#else
    VU r;
    for (int j = 0; j < NLANES; j++)
        r[j] = width == 4   ? ((const uint32_t *)tab)[idx[j]]
               : width == 2 ? ((const uint16_t *)tab)[idx[j]]
                            : ((const uint8_t *)tab)[idx[j]];
    return r;
#endif
}

/* Lane j's 16 bytes {a[j], b[j], c[j], d[j]} at byte off of row j (rows of
 * SIZE bytes from rows): a 4 x 4 transpose (in each 16-byte half under
 * AVX2: kernels j and j + 4). */
#define ROW(j) ((char *)rows + (j) * SIZE + off)
INLINE void store_rows(void *rows, size_t SIZE, size_t off, VU a, VU b, VU c, VU d)
{
#ifdef HAVE_SHUFFLEVECTOR
#if NLANES == 8
    VU t0 = __builtin_shufflevector(a, b, 0, 8, 1, 9, 4, 12, 5, 13);
    VU t1 = __builtin_shufflevector(c, d, 0, 8, 1, 9, 4, 12, 5, 13);
    VU t2 = __builtin_shufflevector(a, b, 2, 10, 3, 11, 6, 14, 7, 15);
    VU t3 = __builtin_shufflevector(c, d, 2, 10, 3, 11, 6, 14, 7, 15);
    /* kernel j in the low half, j + 4 in the high half (no loop: the
     * compiler kept an array of these on the stack) */
#define ROWS_STORE(j, r)                                                                           \
    do {                                                                                           \
        VU r_ = (r);                                                                               \
        v4u lo_ = __builtin_shufflevector(r_, r_, 0, 1, 2, 3);                                     \
        v4u hi_ = __builtin_shufflevector(r_, r_, 4, 5, 6, 7);                                     \
        memcpy(ROW(j), &lo_, sizeof lo_);                                                          \
        memcpy(ROW((j) + 4), &hi_, sizeof hi_);                                                    \
    } while (0)
    ROWS_STORE(0, __builtin_shufflevector(t0, t1, 0, 1, 8, 9, 4, 5, 12, 13));
    ROWS_STORE(1, __builtin_shufflevector(t0, t1, 2, 3, 10, 11, 6, 7, 14, 15));
    ROWS_STORE(2, __builtin_shufflevector(t2, t3, 0, 1, 8, 9, 4, 5, 12, 13));
    ROWS_STORE(3, __builtin_shufflevector(t2, t3, 2, 3, 10, 11, 6, 7, 14, 15));
#undef ROWS_STORE
#else
    VU t0 = __builtin_shufflevector(a, b, 0, 4, 1, 5), t1 = __builtin_shufflevector(c, d, 0, 4, 1, 5);
    VU t2 = __builtin_shufflevector(a, b, 2, 6, 3, 7), t3 = __builtin_shufflevector(c, d, 2, 6, 3, 7);
    VU r0 = __builtin_shufflevector(t0, t1, 0, 1, 4, 5), r1 = __builtin_shufflevector(t0, t1, 2, 3, 6, 7);
    VU r2 = __builtin_shufflevector(t2, t3, 0, 1, 4, 5), r3 = __builtin_shufflevector(t2, t3, 2, 3, 6, 7);
    memcpy(ROW(0), &r0, sizeof r0);
    memcpy(ROW(1), &r1, sizeof r1);
    memcpy(ROW(2), &r2, sizeof r2);
    memcpy(ROW(3), &r3, sizeof r3);
#endif
#else
    for (int j = 0; j < NLANES; j++) {
        uint32_t v[4] = {a[j], b[j], c[j], d[j]};
        memcpy(ROW(j), v, sizeof v);
    }
#endif
}

/* (double)used[j] / c[j] (as store_occupancy) at byte off of row j. */
INLINE void store_doubles(void *rows, size_t SIZE, size_t off, VU used, VU c)
{
    VD lo = __builtin_convertvector(half_of(used, 0), VD) / __builtin_convertvector(half_of(c, 0), VD);
    VD hi = __builtin_convertvector(half_of(used, 1), VD) / __builtin_convertvector(half_of(c, 1), VD);
    for (int j = 0; j < NLANES / 2; j++) {
        double a = lo[j], b = hi[j];
        memcpy(ROW(j), &a, sizeof a);
        memcpy(ROW(j + NLANES / 2), &b, sizeof b);
    }
}
#undef ROW

/* (double)used[j] / c[j] (as store_occupancy) as its low and high 32 bits. */
INLINE void occupancy_words(VU used, VU c, VU *lo, VU *hi)
{
    VD q[2] = {__builtin_convertvector(half_of(used, 0), VD) / __builtin_convertvector(half_of(c, 0), VD),
               __builtin_convertvector(half_of(used, 1), VD) / __builtin_convertvector(half_of(c, 1), VD)};
    VU w[2];
    memcpy(w, q, sizeof w);
#ifdef HAVE_SHUFFLEVECTOR
#if NLANES == 8
    *lo = __builtin_shufflevector(w[0], w[1], 0, 2, 4, 6, 8, 10, 12, 14);
    *hi = __builtin_shufflevector(w[0], w[1], 1, 3, 5, 7, 9, 11, 13, 15);
#else
    *lo = __builtin_shufflevector(w[0], w[1], 0, 2, 4, 6);
    *hi = __builtin_shufflevector(w[0], w[1], 1, 3, 5, 7);
#endif
#else
    for (int j = 0; j < NLANES; j++)
        (*lo)[j] = w[j / (NLANES / 2)][2 * (j % (NLANES / 2))],
        (*hi)[j] = w[j / (NLANES / 2)][2 * (j % (NLANES / 2)) + 1];
#endif
}

/* Row j's 16 bytes at byte off (rows of SIZE bytes from rows) as lane j of
 * a, b, c, d: store_rows' transpose the other way. */
#define ROW(j) ((const char *)rows + (j) * SIZE + off)
INLINE void load_rows(const void *rows, size_t SIZE, size_t off, VU *a, VU *b, VU *c, VU *d)
{
#ifdef HAVE_SHUFFLEVECTOR
    /* named rows, no array or loop: the compiler kept those on the stack */
    v4u r0, r1, r2, r3;
    memcpy(&r0, ROW(0), sizeof r0);
    memcpy(&r1, ROW(1), sizeof r1);
    memcpy(&r2, ROW(2), sizeof r2);
    memcpy(&r3, ROW(3), sizeof r3);
#if NLANES == 8
    v4u r4, r5, r6, r7;
    memcpy(&r4, ROW(4), sizeof r4);
    memcpy(&r5, ROW(5), sizeof r5);
    memcpy(&r6, ROW(6), sizeof r6);
    memcpy(&r7, ROW(7), sizeof r7);
    /* kernel j in the low half, j + 4 in the high half */
    VU a0 = __builtin_shufflevector(r0, r4, 0, 1, 2, 3, 4, 5, 6, 7);
    VU a1 = __builtin_shufflevector(r1, r5, 0, 1, 2, 3, 4, 5, 6, 7);
    VU a2 = __builtin_shufflevector(r2, r6, 0, 1, 2, 3, 4, 5, 6, 7);
    VU a3 = __builtin_shufflevector(r3, r7, 0, 1, 2, 3, 4, 5, 6, 7);
    VU t0 = __builtin_shufflevector(a0, a1, 0, 8, 1, 9, 4, 12, 5, 13);
    VU t1 = __builtin_shufflevector(a2, a3, 0, 8, 1, 9, 4, 12, 5, 13);
    VU t2 = __builtin_shufflevector(a0, a1, 2, 10, 3, 11, 6, 14, 7, 15);
    VU t3 = __builtin_shufflevector(a2, a3, 2, 10, 3, 11, 6, 14, 7, 15);
    *a = __builtin_shufflevector(t0, t1, 0, 1, 8, 9, 4, 5, 12, 13);
    *b = __builtin_shufflevector(t0, t1, 2, 3, 10, 11, 6, 7, 14, 15);
    *c = __builtin_shufflevector(t2, t3, 0, 1, 8, 9, 4, 5, 12, 13);
    *d = __builtin_shufflevector(t2, t3, 2, 3, 10, 11, 6, 7, 14, 15);
#else
    VU t0 = __builtin_shufflevector(r0, r1, 0, 4, 1, 5), t1 = __builtin_shufflevector(r2, r3, 0, 4, 1, 5);
    VU t2 = __builtin_shufflevector(r0, r1, 2, 6, 3, 7), t3 = __builtin_shufflevector(r2, r3, 2, 6, 3, 7);
    *a = __builtin_shufflevector(t0, t1, 0, 1, 4, 5), *b = __builtin_shufflevector(t0, t1, 2, 3, 6, 7);
    *c = __builtin_shufflevector(t2, t3, 0, 1, 4, 5), *d = __builtin_shufflevector(t2, t3, 2, 3, 6, 7);
#endif
#else
    for (int j = 0; j < NLANES; j++) {
        uint32_t v[4];
        memcpy(v, ROW(j), sizeof v);
        (*a)[j] = v[0], (*b)[j] = v[1], (*c)[j] = v[2], (*d)[j] = v[3];
    }
#endif
}
#undef ROW

/* The inputs of NLANES kernels as lanes (a field without a column: its
 * default); the barrier as a mask.  The kernel's constraints (0: none; in
 * lanes only when their column is given), and "vendor": all ones where the
 * kernel sets a vendor field (AMD's SGPRs or CU mode), which the rule answers. */
typedef struct lanes_in {
    VU x, y, z, sg, slm_lo, slm_hi, bar, grf, regs, carve;
    VU max_wg, reqd_x, reqd_y, reqd_z, reqd_sg, vendor;
} lanes_in;

/* From columns, kernels i..i+NLANES-1 (only the columns group() reads). */
INLINE lanes_in load_columns(const occ_columns *in, size_t i, bool YZ, bool SLM, bool REGS, bool CONS)
{
    lanes_in v;
    v.x = in->wg_x ? load_u32(in->wg_x + i) : SPLAT(1);
    v.y = YZ && in->wg_y ? load_u32(in->wg_y + i) : SPLAT(1);
    v.z = YZ && in->wg_z ? load_u32(in->wg_z + i) : SPLAT(1);
    v.sg = in->sub_group ? load_u32(in->sub_group + i) : SPLAT(0);
    v.slm_lo = v.slm_hi = SPLAT(0);
    if (SLM && in->slm_bytes)
        load_u64(in->slm_bytes + i, &v.slm_lo, &v.slm_hi);
    v.bar = in->barrier ? nonzero_u8(in->barrier + i) : SPLAT(0);
    v.grf = in->grf ? load_u32(in->grf + i) : SPLAT(0);
    v.regs = REGS ? load_u32(in->regs_per_thread + i) : SPLAT(0);
    v.carve = in->carveout_pct ? load_u32(in->carveout_pct + i) : SPLAT(-1);
    v.max_wg = v.reqd_x = v.reqd_y = v.reqd_z = v.reqd_sg = v.vendor = SPLAT(0);
    if (CONS) {
        v.max_wg = in->max_wg_size ? load_u32(in->max_wg_size + i) : SPLAT(0);
        v.reqd_x = in->reqd_wg_x ? load_u32(in->reqd_wg_x + i) : SPLAT(0);
        v.reqd_y = in->reqd_wg_y ? load_u32(in->reqd_wg_y + i) : SPLAT(0);
        v.reqd_z = in->reqd_wg_z ? load_u32(in->reqd_wg_z + i) : SPLAT(0);
        v.reqd_sg = in->reqd_sub_group ? load_u32(in->reqd_sub_group + i) : SPLAT(0);
        VU vendor = in->sgprs ? load_u32(in->sgprs + i) : SPLAT(0);
        if (in->cu_mode)
            vendor |= load_u32(in->cu_mode + i);
        v.vendor = (VU)(vendor != 0);
    }
    return v;
}

/* From NLANES occ_kernel structs: three 4 x 4 transposes of their 16-byte
 * rows (eval_columns.c's layout check), the ones the fields given need. */
INLINE lanes_in load_structs(const occ_kernel *ks, const occ_columns *in)
{
    lanes_in v;
    VU size, pad;
    load_rows(ks, sizeof *ks, 0, &size, &v.x, &v.y, &v.z);
    v.sg = v.slm_lo = v.slm_hi = SPLAT(0);
    if (in->sub_group || in->slm_bytes)
        load_rows(ks, sizeof *ks, 16, &v.sg, &pad, &v.slm_lo, &v.slm_hi);
    v.bar = v.grf = v.regs = SPLAT(0), v.carve = SPLAT(-1);
    if (in->barrier || in->grf || in->regs_per_thread || in->carveout_pct) {
        load_rows(ks, sizeof *ks, 32, &v.bar, &v.grf, &v.regs, &v.carve);
        v.bar = (VU)((v.bar & 0xff) != 0); /* the bool's byte, not its padding */
    }
    /* the struct batches decline kernels with constraints or vendor fields
     * (eval_columns.c's F_PAST): none here */
    v.max_wg = v.reqd_x = v.reqd_y = v.reqd_z = v.reqd_sg = v.vendor = SPLAT(0);
    (void)size, (void)pad;
    return v;
}

/* Kernels i..i+NLANES-1 that launch: their answers into the result columns
 * (TO_COLUMNS), or each kernel's occ_eval or full report into row j of rows
 * (TO_EVALS, TO_REPORTS); returns the lanes the rule must answer instead
 * (bit j: kernel i + j): work-groups of 2^24 work-items or more, whose
 * contexts the lanes do not compute exactly, and for full reports every
 * kernel that fails a check (it cannot launch: the rule says why, with what
 * it had found by then).  What a flagged lane wrote is overwritten.
 * YZ: a wg_y or wg_z column; SLM: a local-memory column, or a carveout
 * column on a device with carveouts; REGS: a register column on a device
 * with a register file; CONS: a column of the kernel's constraints or
 * vendor fields (the struct batches have none: they decline such kernels).
 * v: the kernels' inputs; in: which columns are
 * given (their pointers are not read here).  The stages are eval_fast.h's
 * occ__evaluate_launch, in its order, over the same tables' values. */
INLINE unsigned group(const plan *p, const occ_columns *in, const lanes_in *v, occ_eval_columns *out, size_t i,
                      bool YZ, bool SLM, bool REGS, bool CONS, int TO, void *rows)
{
    const VU one = SPLAT(1), zero = SPLAT(0), none = SPLAT(NL), m24 = SPLAT(0xffffff);
    /* each check of the launchable path as a mask: bad lanes go to the rule */
    VU c_zero, c_large, c_sg = zero, c_grf, c_ctx, c_pct = zero, c_slm = zero, c_rpt = zero, c_rwg = zero;
    VU far;
    /* work-group size: with every dimension below 2^24, the product is exact
     * in float below 2^24 and stays >= 2^24 past it */
    VU x = v->x;
    VU W;
    if (YZ) {
        VU y = v->y, z = v->z;
        VF prod = __builtin_convertvector((VI)(x & m24), VF) * __builtin_convertvector((VI)(y & m24), VF) *
                  __builtin_convertvector((VI)(z & m24), VF);
        far = (VU)((x | y | z) > m24) | (VU)(prod >= 16777216.0f);
        W = (VU)__builtin_convertvector((VF)((VU)prod & ~far), VI);
    } else {
        far = (VU)(x > m24);
        W = x & m24;
    }
    c_zero = (VU)(W == 0);
    c_large = (VU)(W > p->max_wg);
    /* the rule's kernel row (rule.c's row_kernel) as checks on the lanes:
     * the launch bound on W (exact here: a lane past 2^24 is far), the
     * required work-group size on the dimensions as given (0 in y, z: 1),
     * the required sub-group size below, with the sub-group */
    VU c_max_wg = zero, c_reqd_wg = zero, c_reqd_sg = zero;
    if (CONS && in->max_wg_size)
        c_max_wg = (VU)(v->max_wg != 0) & (VU)(W > v->max_wg);
    if (CONS && in->reqd_wg_x) {
        VU y = YZ ? v->y : one, z = YZ ? v->z : one;
        VU ry = v->reqd_y | ((VU)(v->reqd_y == 0) & one), rz = v->reqd_z | ((VU)(v->reqd_z == 0) & one);
        c_reqd_wg = (VU)(v->reqd_x != 0) & ((VU)(x != v->reqd_x) | (VU)(y != ry) | (VU)(z != rz));
    }
    if (CONS && (in->sgprs || in->cu_mode)) /* the vendor's own row: the rule's */
        far |= v->vendor;
    /* contexts per work-group, ceil(W / sg) = floor((W - 1) / sg) + 1: for
     * a power of two, (W - 1) times 1 / sg in float is exact (W < 2^24), and
     * 1 / sg is sg's float with the exponent negated */
    VU t, sg_used = SPLAT(p->sg[0]);
    bool reqd_sg = CONS && in->reqd_sub_group;
    if (in->sub_group || reqd_sg) {
        VU sg = v->sg; /* 0 without a column */
        /* 0: the kernel's required size, else the device's smallest */
        VU dflt = SPLAT(p->sg[0]);
        if (reqd_sg)
            dflt = sel((VU)(v->reqd_sg != 0), v->reqd_sg, dflt);
        sg |= (VU)(sg == 0) & dflt;
        if (reqd_sg)
            c_reqd_sg = (VU)(v->reqd_sg != 0) & (VU)(sg != v->reqd_sg);
        VU known = zero;
        for (uint32_t s = 0; s < p->n_sg; s++)
            known |= (VU)(sg == p->sg[s]);
        c_sg = ~known;
        VU inv = (SPLAT(254u << 23) - (VU)__builtin_convertvector((VI)sg, VF)) & known;
        VF q = __builtin_convertvector((VI)(W - 1), VF) * (VF)inv;
        t = (VU)__builtin_convertvector(q, VI) + 1;
        sg_used = sg;
    } else {
        t = (W + (p->sg[0] - 1)) >> p->sg_shift[0];
    }
    /* GRF mode: the rule's mode of the request (table index + 1; 0: none,
     * whose contexts per core are 0) */
    VU cpc, grf_used = SPLAT(p->grf0);
    if (in->grf) {
        VU g = v->grf;
        VU want = min_u(sel((VU)(g == 0), SPLAT(p->default_grf), g), SPLAT(OCC__FAST_GRF_MAX + 1));
        VU mode = gather(p->f->grf_info, want, 4); /* contexts | registers << 16 */
        cpc = mode & 0xffff;
        if (TO == TO_REPORTS) /* the mode's registers */
            grf_used = mode >> 16;
    } else {
        cpc = SPLAT(p->cpc0);
    }
    c_grf = (VU)(cpc == 0);
    c_ctx = (VU)(t > cpc);
    VU t_div = t | ((VU)(t == 0) & one); /* a divisor >= 1 in every lane */
    VU lim_threads;
    VF per_t; /* with registers, a second quotient by t: one division for both */
    if (REGS) {
        per_t = recip_up(t_div);
        lim_threads = mul_floor(cpc, per_t);
    } else {
        lim_threads = div_small(cpc, t_div);
    }
    /* carveout preference -1..100, as its index in the rule's table (pct + 1) */
    VU pct1 = zero;
    if (in->carveout_pct) {
        pct1 = v->carve + 1;
        VU in_range = (VU)(pct1 < OCC__FAST_PCT);
        c_pct = ~in_range;
        pct1 &= in_range;
    }
    /* local memory: the rule's allocation and core size from its tables
     * (eval_fast.h's occ__fast_slm_limit, lane by lane), the work-groups
     * that fit */
    VU lim_slm = SPLAT(p->lim_slm0), alloc_out = SPLAT(p->alloc0), config_out = SPLAT(p->config0_full);
    if (SLM) {
        VU bytes = zero;
        if (in->slm_bytes) {
            VU hi = v->slm_hi;
            bytes = v->slm_lo;
            c_slm = (VU)(hi != 0) | (VU)(bytes > p->slm_max);
            bytes &= SPLAT(0x7fffffff);
        }
        VU rounded = (bytes + p->slm_reserved + p->slm_unit_mask) >> p->slm_shift; /* in units */
        VU units = rounded;
        if (p->steps)
            units = gather(occ__fast_slm_units(p->f), min_u(rounded, SPLAT(p->f->slm_units_max)), 1);
        VU alloc_units = min_u(units, SPLAT(p->f->n_recip - 1));
        VU by_pct = gather(p->f->config_pct, pct1, 2),
           by_alloc = gather(occ__fast_config_of(p->f), (alloc_units + p->f->config_round) >> p->f->config_shift, 2);
        VU config = sel((VU)((VI)by_pct > (VI)by_alloc), by_pct, by_alloc); /* both below 2^16 */
        VU none_alloc = (VU)(units == 0);
        lim_slm = div_small(config, alloc_units | (none_alloc & one)) | none_alloc;
        alloc_out = units << p->slm_shift, config_out = config << p->slm_shift;
    }
    /* registers: only a kernel that gives its count is limited by them (and
     * only they can leave room for no work-group) */
    VU lim_regs = none, regs_alloc = zero;
    if (REGS) {
        /* the rule's register table (eval_fast.h): the warps a core holds
         * (low half) and the most a work-group may have (high half), by
         * group of counts */
        VU r = v->regs;
        VU given = (VU)(r != 0);
        VU ri = (min_u(r, SPLAT(p->f->regs_clamp)) + p->f->regs_round) >> p->f->regs_shift;
        c_rpt = (VU)(r > p->f->regs_over);
        /* the column of the lane's sub-group size (eval_fast.h: the second for any but sg0) */
        ri = (ri << p->f->regs_col_shift) + ((VU)(sg_used != SPLAT(p->sg[0])) & 1);
        VU entry = gather(p->f->regs_tab, ri, 4);
        VU lim = mul_floor(entry & 0xffff, per_t);
        c_rwg = given & ~c_rpt & (VU)(t > (entry >> 16));
        lim_regs = lim | ~given;
        if (TO == TO_REPORTS)
            regs_alloc = (gather(p->f->regs_per_warp, ri, 2) * t) & given;
    }
    VU lim_bar = none;
    if (in->barrier)
        lim_bar = (SPLAT(p->barriers) & v->bar) | ~v->bar;
    VU wgs = sel((VU)(t > one), SPLAT(p->f->slots[1]), SPLAT(p->f->slots[0]));
    VU resident = min_u(min_u(lim_threads, lim_slm), min_u(min_u(lim_regs, wgs), lim_bar));
    VU by = ((VU)(lim_threads == resident) & 1) | ((VU)(lim_slm == resident) & 2) |
            ((VU)(lim_regs == resident) & 4) | ((VU)(wgs == resident) & 8) | ((VU)(lim_bar == resident) & 16);
    VU c = cpc | ((VU)(cpc == 0) & one); /* a divisor >= 1 */
    VU bad = far | c_zero | c_large | c_sg | c_grf | c_ctx | c_reqd_sg | c_reqd_wg | c_max_wg | c_pct | c_slm | c_rpt |
             c_rwg;
    VU reason = zero;
    if (TO != TO_REPORTS && __builtin_expect(lanes_set(bad & ~far) != 0, 0)) {
        /* the compact answer of a kernel that cannot launch, here: the first
         * failure in the rule's order names the reason; no work-groups; the
         * contexts known by then (none before the sub-group size and GRF mode
         * passed).  The full report of one is the rule's (flagged). */
        VU fails = (c_zero & OCC__FAIL_BIT(OCC_REASON_WG_ZERO)) | (c_sg & OCC__FAIL_BIT(OCC_REASON_SUB_GROUP)) |
                   (c_grf & OCC__FAIL_BIT(OCC_REASON_GRF_MODE)) | (c_large & OCC__FAIL_BIT(OCC_REASON_WG_TOO_LARGE)) |
                   (c_ctx & OCC__FAIL_BIT(OCC_REASON_CONTEXTS)) |
                   (c_reqd_sg & OCC__FAIL_BIT(OCC_REASON_REQD_SUB_GROUP)) |
                   (c_reqd_wg & OCC__FAIL_BIT(OCC_REASON_REQD_WG)) |
                   (c_max_wg & OCC__FAIL_BIT(OCC_REASON_KERNEL_MAX_WG)) | (c_pct & OCC__FAIL_BIT(OCC_REASON_CARVEOUT)) |
                   (c_slm & OCC__FAIL_BIT(OCC_REASON_SLM_TOO_LARGE)) |
                   (c_rpt & OCC__FAIL_BIT(OCC_REASON_REGS_PER_THREAD)) | (c_rwg & OCC__FAIL_BIT(OCC_REASON_REGS_PER_WG));
        reason = gather(occ__first_fail, fails, 1); /* 0, launchable, where nothing failed */
        VU refused = bad & ~far;
        resident &= ~refused;
        by &= ~refused;
        t &= ~(c_zero | c_sg | c_grf);
        cpc &= ~(c_zero | c_sg);
        bad = far;
    }
    if (TO == TO_EVALS) { /* occ_eval: 16 bytes, then the occupancy */
        store_rows(rows, sizeof(occ_eval), 0, resident, t, cpc, by | reason << 8);
        store_doubles(rows, sizeof(occ_eval), 16, resident * t, c);
        return lanes_set(bad);
    }
    if (TO == TO_REPORTS) { /* each kernel's report, 16 bytes at a time (eval_fast.h's words) */
        VU used = resident * t, occ_lo, occ_hi;
        occupancy_words(used, c, &occ_lo, &occ_hi);
        store_rows(rows, sizeof(occ_residency), 0, SPLAT(sizeof(occ_residency)), one, zero, sg_used);
        store_rows(rows, sizeof(occ_residency), 16, grf_used, zero, W, zero);
        store_rows(rows, sizeof(occ_residency), 32, t, cpc, lim_threads, lim_slm);
        store_rows(rows, sizeof(occ_residency), 48, lim_regs, wgs, lim_bar, by);
        store_rows(rows, sizeof(occ_residency), 64, resident, used, cpc - used, zero);
        store_rows(rows, sizeof(occ_residency), 80, occ_lo, occ_hi, alloc_out, zero);
        store_rows(rows, sizeof(occ_residency), 96, config_out, zero, regs_alloc, zero);
        return lanes_set(bad);
    }

    if (out->resident_wgs)
        store_u32(out->resident_wgs + i, resident);
    if (out->contexts_per_wg)
        store_u32(out->contexts_per_wg + i, t);
    if (out->contexts_per_core)
        store_u32(out->contexts_per_core + i, cpc);
    if (out->limited_by)
        store_u8(out->limited_by + i, by);
    if (out->reason)
        store_u8(out->reason + i, reason);
    if (out->occupancy)
        store_occupancy(out->occupancy + i, resident * t, c);
    return lanes_set(bad);
}

/* The groups of NLANES, compiled for one combination of stages. */
#define GROUPS(YZ, SLM, REGS, CONS)                                                                \
    for (; i + NLANES <= n; i += NLANES) {                                                         \
        lanes_in v = load_columns(in, i, YZ, SLM, REGS, CONS);                                     \
        unsigned flagged = group(p, in, &v, out, i, YZ, SLM, REGS, CONS, TO_COLUMNS, NULL);        \
        while (__builtin_expect(flagged != 0, 0)) {                                                \
            answer_flagged(f, in, out, i + (size_t)__builtin_ctz(flagged));                        \
            flagged &= flagged - 1;                                                                \
        }                                                                                          \
    }

/* Every group of NLANES of n kernels; returns how many kernels they hold.  The plan and the column pointers are
 * copied into locals: the result stores (memcpy, which may alias anything)
 * then do not make the compiler load them again for every group. */
static size_t groups(const plan *pp, const occ__fast *f, size_t n, const occ_columns *inp, occ_eval_columns *outp,
                     unsigned variant)
{
    size_t i = 0;
    const plan *restrict p = pp; /* never written: its fields stay in registers across the stores */
    const occ_columns I = *inp, *in = &I;
    occ_eval_columns O = *outp, *out = &O;
    switch (variant) {
    case 0: GROUPS(false, false, false, false) break;
    case 1: GROUPS(true, false, false, false) break;
    case 2: GROUPS(false, true, false, false) break;
    case 3: GROUPS(true, true, false, false) break;
    case 4: GROUPS(false, false, true, false) break;
    case 5: GROUPS(true, false, true, false) break;
    case 6: GROUPS(false, true, true, false) break;
    case 7: GROUPS(true, true, true, false) break;
    case 8: GROUPS(false, false, false, true) break;
    case 9: GROUPS(true, false, false, true) break;
    case 10: GROUPS(false, true, false, true) break;
    case 11: GROUPS(true, true, false, true) break;
    case 12: GROUPS(false, false, true, true) break;
    case 13: GROUPS(true, false, true, true) break;
    case 14: GROUPS(false, true, true, true) break;
    default: GROUPS(true, true, true, true) break;
    }
    return i;
}
#undef GROUPS

/* Kernels as structs (occ_evaluate_batch, occ_residency_batch): STAGE of
 * them at a time, the fields they set found first (stage_in: a field every
 * kernel of the stage leaves at its default is not read), then the groups
 * over the stage, each reading its kernels by transposes and writing their
 * answers in place (es or rs, the one not NULL). */
#define STAGE_GROUPS(YZ, SLM, REGS, TO)                                                            \
    for (size_t i = 0; i < m8; i += NLANES) {                                                      \
        bool last = i + NLANES > m; /* past the caller's arrays: s->pad in, tail out */             \
        lanes_in v = load_structs(last ? s->pad : ks + at + i, in);                                \
        flagged |= (uint64_t)group(p, in, &v, out, i, YZ, SLM, REGS, false, TO,                    \
                                   last ? tail : (char *)rows + i * size) << i;                    \
    }
#define STAGE_VARIANTS(TO)                                                                         \
    switch (variant) {                                                                             \
    case 0: STAGE_GROUPS(false, false, false, TO) break;                                           \
    case 1: STAGE_GROUPS(true, false, false, TO) break;                                            \
    case 2: STAGE_GROUPS(false, true, false, TO) break;                                            \
    case 3: STAGE_GROUPS(true, true, false, TO) break;                                             \
    case 4: STAGE_GROUPS(false, false, true, TO) break;                                            \
    case 5: STAGE_GROUPS(true, false, true, TO) break;                                             \
    case 6: STAGE_GROUPS(false, true, true, TO) break;                                             \
    default: STAGE_GROUPS(true, true, true, TO) break;                                             \
    }

static size_t structs(const plan *pp, const occ__fast *f, size_t n, const occ_kernel *ks, occ_eval *es,
                      occ_residency *rs, stage *s)
{
    const plan *restrict p = pp; /* never written: its fields stay in registers across the stores */
    size_t size = rs ? sizeof *rs : sizeof *es;
    void *tail = rs ? (void *)s->tail : (void *)s->tail_evals; /* a last group past the caller's array */
    for (size_t at = 0; at < n; at += STAGE) {
        size_t m = n - at < STAGE ? n - at : STAGE;
        unsigned fl = stage_fields(ks + at, m);
        if (__builtin_expect(fl & F_BAD_SIZE, 0)) { /* answer those before the first bad one, and stop */
            size_t good = occ__kernels_valid(ks + at, m);
            n = at + good, m = good;
            if (m == 0)
                break;
            fl = stage_fields(ks + at, m);
        }
        if (__builtin_expect(fl & F_PAST, 0)) { /* a field the lanes do not read: one by one (the rule) */
            if (rs)
                occ__fast_residency_n(f, ks + at, rs + at, m);
            else
                occ__fast_eval_n(f, ks + at, es + at, m);
            continue;
        }
        size_t m8 = (m + NLANES - 1) / NLANES * NLANES; /* stage_in pads the last group with defaults */
        unsigned variant;
        const occ_columns I = stage_in(p, f, ks + at, fl, m, m8, NLANES, s, &variant), *in = &I;
        occ_eval_columns O = {.struct_size = sizeof O}, *out = &O; /* not written */
        void *rows = rs ? (void *)(rs + at) : (void *)(es + at);
        uint64_t flagged = 0;
        if (rs) {
            STAGE_VARIANTS(TO_REPORTS)
        } else {
            STAGE_VARIANTS(TO_EVALS)
        }
        if (m < m8)
            memcpy((char *)rows + (m8 - NLANES) * size, tail, (m - (m8 - NLANES)) * size);
        flagged &= m == STAGE ? ~0ull : (1ull << m) - 1;
        answer_flagged_structs(f, ks + at, es ? es + at : NULL, rs ? rs + at : NULL, flagged);
    }
    return n;
}
#undef STAGE_GROUPS
#undef STAGE_VARIANTS

#undef load_u32
#undef store_u32
#undef sel
#undef min_u
#undef le_s
#undef div_small
#undef recip_up
#undef mul_floor
#undef nonzero_u8
#undef store_u8
#undef load_u64
#undef half_of
#undef lanes_set
#undef store_occupancy
#undef group
#undef groups
#undef structs
#undef store_rows
#undef gather
#undef load_rows
#undef lanes_in
#undef load_columns
#undef load_structs
#undef store_doubles
#undef occupancy_words

/* the parameters, undefined for the next inclusion */
#undef ISA
#undef NLANES
#undef VU
#undef VI
#undef VF
#undef VIH
#undef VD
#undef VB
