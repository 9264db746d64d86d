/* Device.residency_batch: residency over NumPy arrays, one libocc call per
 * chunk (occ_evaluate_columns, the column batch of occ/advise.h, which runs
 * several kernels per vector instruction).
 *
 * NumPy's iterator broadcasts the sixteen inputs (the kernel's nine fields,
 * its five constraint columns and AMD's two fields) against each other (integer
 * arrays of the machine's byte order are read as they are; others are cast
 * to int64 in buffers of CHUNK elements) and allocates the outputs (the six
 * results, and the barrier and local-memory columns as the library read
 * them, which cooperative_max reads later); each inner loop
 * narrows at most CHUNK values of every input into the library's column
 * types (checking their ranges on the way, and leaving out a column that
 * holds only its default), evaluates them in one call and writes the results
 * straight into the output arrays where those are contiguous (through
 * scratch columns otherwise).  The GIL is released while it runs. */
#define PYOCC_IMPORT_ARRAY
#include "pyocc.h"
#include "pyocc_numpy.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/mman.h>

#define CHUNK PYOCC_BATCH_CHUNK
#define MAX_THREADS 64
#define MIN_PER_THREAD ((npy_intp)1 << 16)

enum { IN_WGX, IN_WGY, IN_WGZ, IN_SG, IN_SLM, IN_BARRIER, IN_GRF, IN_REGS, IN_CARVEOUT,
       IN_MAX_WG, IN_REQD_X, IN_REQD_Y, IN_REQD_Z, IN_REQD_SG, IN_SGPRS, IN_CU_MODE, N_IN };
/* the constraint columns and AMD's (0: not set, the usual case), N_CONSTRAINTS from here */
#define IN_CONSTRAINTS IN_MAX_WG
#define N_CONSTRAINTS (N_IN - IN_CONSTRAINTS)
/* The results, then the two inputs cooperative_max reads later, as the
 * library read them (private copies the caller cannot change). */
enum { OUT_RESIDENT = N_IN, OUT_OCCUPANCY, OUT_CPW, OUT_CPC, OUT_LIMITED, OUT_REASON, OUT_BARRIER, OUT_SLM, N_OPS };
#define N_RESULTS (OUT_BARRIER - N_IN)

/* The output columns' element types, in OUT_ order. */
static const struct {
    int type;
    size_t size;
} out_columns[N_OPS - N_IN] = {{NPY_UINT32, 4}, {NPY_FLOAT64, 8}, {NPY_UINT32, 4}, {NPY_UINT32, 4},
                               {NPY_UINT8, 1},  {NPY_UINT8, 1},   {NPY_UINT8, 1},  {NPY_UINT64, 8}};

static const char *const in_names[N_IN] = {"wg", "wg_y", "wg_z", "sg", "slm", "barrier", "grf",
                                           "regs", "carveout", "max_wg", "reqd_wg[0]", "reqd_wg[1]",
                                           "reqd_wg[2]", "reqd_sg", "sgprs", "cu_mode"};
static const long long in_lo[N_IN] = {0, 0, 0, 0, 0, 0, 0, 0, -1, 0, 0, 0, 0, 0, 0, 0};
static const long long in_hi[N_IN] = {UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, INT64_MAX,
                                      1, UINT32_MAX, UINT32_MAX, INT32_MAX, UINT32_MAX,
                                      UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, 1};
/* Each input's default (occ_kernel_init's, as an int64's bits): a chunk
 * whose column holds only it is passed as NULL, which the column batch
 * reads as that default and for which it skips the stage (occ/advise.h). */
static uint64_t in_default[N_IN];

int pyocc_batch_init(void)
{
    import_array1(-1);
    occ_kernel k;
    occ_kernel_init(&k);
    const int64_t d[N_IN] = {k.wg[0],        k.wg[1],         k.wg[2],         k.sub_group,
                             (int64_t)k.slm_bytes, k.barrier, k.grf,           k.regs_per_thread,
                             k.carveout_pct,  k.max_wg_size,   k.reqd_wg[0],    k.reqd_wg[1],
                             k.reqd_wg[2],    k.reqd_sub_group, k.sgprs,        k.cu_mode};
    for (int op = 0; op < N_IN; op++)
        in_default[op] = (uint64_t)d[op];
    return 0;
}

/* Scratch columns of one chunk (cap kernels): the narrowed inputs, and the
 * outputs whose array is not contiguous. */
typedef struct chunk {
    uint64_t *slm;
    double *occupancy;
    uint32_t *u32[6]; /* wg x, y, z, sub-group, GRF, registers */
    uint32_t *constraint[N_CONSTRAINTS]; /* in IN_ order from IN_CONSTRAINTS */
    int32_t *carveout;
    uint32_t *resident, *cpw, *cpc;
    uint8_t *barrier, *limited, *reason;
    void *block;
} chunk;

/* One allocation, the 8-byte columns first so that each stays aligned. */
static bool chunk_alloc(chunk *c, size_t cap)
{
    size_t bytes = cap * (2 * 8 + (10 + N_CONSTRAINTS) * 4 + 3 * 1);
    char *b = c->block = malloc(bytes ? bytes : 1);
    if (!b)
        return false;
    c->slm = (uint64_t *)b, b += cap * 8;
    c->occupancy = (double *)b, b += cap * 8;
    for (int j = 0; j < 6; j++)
        c->u32[j] = (uint32_t *)b, b += cap * 4;
    for (int j = 0; j < N_CONSTRAINTS; j++)
        c->constraint[j] = (uint32_t *)b, b += cap * 4;
    c->carveout = (int32_t *)b, b += cap * 4;
    c->resident = (uint32_t *)b, b += cap * 4;
    c->cpw = (uint32_t *)b, b += cap * 4;
    c->cpc = (uint32_t *)b, b += cap * 4;
    c->barrier = (uint8_t *)b, b += cap;
    c->limited = (uint8_t *)b, b += cap;
    c->reason = (uint8_t *)b;
    return true;
}

/* What narrowing a column found. */
enum { NARROW_BAD = 1,    /* a value out of its operand's range */
       NARROW_VARIES = 2  /* a value other than the operand's default */ };

/* An input's element type as the batch reads it: an integer array of the
 * machine's byte order is read as it is (no copy into a cast buffer); any
 * other goes through NumPy's cast to int64.  A uint64 value is read as an
 * int64's bits, as the cast gives it (one past INT64_MAX and up: out of
 * range). */
enum { SRC_I8, SRC_U8, SRC_I16, SRC_U16, SRC_I32, SRC_U32, SRC_64, N_SRC };

/* Narrow n values of type S (stride bytes apart), each as an int64's bits,
 * into dst (of type T).  NARROW_BAD when one lies outside both ranges lo1 ..
 * lo1 + 2^bits1 - 1 and lo2 .. lo2 + 2^bits2 - 1 (two ranges, since the
 * carveout's -1 .. 2^31 - 1 is not one of a power of two); NARROW_VARIES
 * when one is not def.  A broadcast value (stride 0: an argument left at
 * its default, the usual case) is read once, and written only when it is
 * not def or keep asks for it.  Shifts, XORs and ORs rather than
 * comparisons: SSE2 has no 64-bit compare, and so the loop over contiguous
 * values is vectorised. */
#define DEFINE_NARROW(name, S, T)                                                              \
    static unsigned name(const char *src, npy_intp stride, npy_intp n, void *dst_, uint64_t lo1, \
                         unsigned bits1, uint64_t lo2, unsigned bits2, uint64_t def, bool keep) \
    {                                                                                          \
        T *dst = dst_;                                                                         \
        uint64_t out = 0, diff = 0;                                                            \
        if (stride == 0) {                                                                     \
            uint64_t v = (uint64_t)(int64_t) * (const S *)(const void *)src;                   \
            out = ((v - lo1) >> bits1) | ((v - lo2) >> bits2);                                 \
            diff = v ^ def;                                                                    \
            for (npy_intp i = 0; (diff || keep) && i < n; i++)                                 \
                dst[i] = (T)v;                                                                 \
        } else if (stride == (npy_intp)sizeof(S)) {                                            \
            const S *s = (const S *)(const void *)src;                                         \
            for (npy_intp i = 0; i < n; i++) {                                                 \
                uint64_t v = (uint64_t)(int64_t)s[i];                                          \
                out |= ((v - lo1) >> bits1) | ((v - lo2) >> bits2);                            \
                diff |= v ^ def;                                                               \
                dst[i] = (T)v;                                                                 \
            }                                                                                  \
        } else {                                                                               \
            for (npy_intp i = 0; i < n; i++) {                                                 \
                uint64_t v = (uint64_t)(int64_t) * (const S *)(const void *)(src + i * stride); \
                out |= ((v - lo1) >> bits1) | ((v - lo2) >> bits2);                            \
                diff |= v ^ def;                                                               \
                dst[i] = (T)v;                                                                 \
            }                                                                                  \
        }                                                                                      \
        return (out ? NARROW_BAD : 0) | (diff ? NARROW_VARIES : 0);                            \
    }
/* One narrowing for each source type (SRC_ order) into column type T. */
#define DEFINE_NARROWS(T, tname)                                                               \
    DEFINE_NARROW(narrow_##tname##_i8, int8_t, T)                                              \
    DEFINE_NARROW(narrow_##tname##_u8, uint8_t, T)                                             \
    DEFINE_NARROW(narrow_##tname##_i16, int16_t, T)                                            \
    DEFINE_NARROW(narrow_##tname##_u16, uint16_t, T)                                           \
    DEFINE_NARROW(narrow_##tname##_i32, int32_t, T)                                            \
    DEFINE_NARROW(narrow_##tname##_u32, uint32_t, T)                                           \
    DEFINE_NARROW(narrow_##tname##_64, uint64_t, T)
DEFINE_NARROWS(uint32_t, u32)
DEFINE_NARROWS(uint64_t, u64)
DEFINE_NARROWS(uint8_t, u8)
DEFINE_NARROWS(int32_t, i32)

typedef unsigned narrow_fn(const char *src, npy_intp stride, npy_intp n, void *dst, uint64_t lo1,
                           unsigned bits1, uint64_t lo2, unsigned bits2, uint64_t def, bool keep);
#define NARROWS_TO(tname)                                                                      \
    {narrow_##tname##_i8,  narrow_##tname##_u8,  narrow_##tname##_i16, narrow_##tname##_u16,   \
     narrow_##tname##_i32, narrow_##tname##_u32, narrow_##tname##_64}
static narrow_fn *const narrow_to_u32[N_SRC] = NARROWS_TO(u32);
static narrow_fn *const narrow_to_u64[N_SRC] = NARROWS_TO(u64);
static narrow_fn *const narrow_to_u8[N_SRC] = NARROWS_TO(u8);
static narrow_fn *const narrow_to_i32[N_SRC] = NARROWS_TO(i32);

/* Value i of an input of source type src, as an int64 (what first_bad names). */
static long long read_in(int src, const char *p)
{
    switch (src) {
    case SRC_I8: return *(const int8_t *)(const void *)p;
    case SRC_U8: return *(const uint8_t *)(const void *)p;
    case SRC_I16: return *(const int16_t *)(const void *)p;
    case SRC_U16: return *(const uint16_t *)(const void *)p;
    case SRC_I32: return *(const int32_t *)(const void *)p;
    case SRC_U32: return *(const uint32_t *)(const void *)p;
    default: return *(const int64_t *)(const void *)p;
    }
}

/* The source type of an array of dtype d read as it is, or -1 when it needs
 * NumPy's cast to int64 (another byte order or size). */
static int src_of(const PyArray_Descr *d)
{
    if (!PyArray_ISNBO(d->byteorder))
        return -1;
    bool is_signed = d->kind == 'i';
    switch (PyDataType_ELSIZE(d)) {
    case 1: return is_signed ? SRC_I8 : SRC_U8; /* bool: 0 or 1 */
    case 2: return is_signed ? SRC_I16 : SRC_U16;
    case 4: return is_signed ? SRC_I32 : SRC_U32;
    case 8: return SRC_64;
    default: return -1;
    }
}

/* Where a column of op goes: the output itself when it is contiguous, else
 * the chunk's scratch column (copied out by copy_out). */
static void *out_column(char *const *p, const npy_intp *strides, int op, void *scratch)
{
    return strides[op] == (npy_intp)out_columns[op - N_IN].size ? (void *)p[op] : scratch;
}

/* Narrow n kernels' inputs into the library's columns in: c's scratch, the
 * barrier and local memory straight into their outputs; a column of only
 * the default is left NULL.  False when some value is out of range. */
static bool narrow(char *const *p, const npy_intp *strides, npy_intp n, const int *src, chunk *c,
                   occ_columns *in)
{
    static const int u32_ops[6] = {IN_WGX, IN_WGY, IN_WGZ, IN_SG, IN_GRF, IN_REGS};
    const uint32_t **u32_cols[6] = {&in->wg_x, &in->wg_y, &in->wg_z, &in->sub_group, &in->grf,
                                    &in->regs_per_thread};
    unsigned bad = 0, r;
    for (int j = 0; j < 6; j++) {
        int op = u32_ops[j];
        r = narrow_to_u32[src[op]](p[op], strides[op], n, c->u32[j], 0, 32, 0, 32, in_default[op], false);
        *u32_cols[j] = r & NARROW_VARIES ? c->u32[j] : NULL;
        bad |= r;
    }
    uint64_t *slm = out_column(p, strides, OUT_SLM, c->slm);
    r = narrow_to_u64[src[IN_SLM]](p[IN_SLM], strides[IN_SLM], n, slm, 0, 63, 0, 63, in_default[IN_SLM], true);
    in->slm_bytes = r & NARROW_VARIES ? slm : NULL;
    bad |= r;
    uint8_t *barrier = out_column(p, strides, OUT_BARRIER, c->barrier);
    r = narrow_to_u8[src[IN_BARRIER]](p[IN_BARRIER], strides[IN_BARRIER], n, barrier, 0, 1, 0, 1,
                                      in_default[IN_BARRIER], true);
    in->barrier = r & NARROW_VARIES ? barrier : NULL;
    bad |= r;
    /* -1 .. 2^32 - 2 and -2^31 .. 2^31 - 1: together -1 .. 2^31 - 1 */
    r = narrow_to_i32[src[IN_CARVEOUT]](p[IN_CARVEOUT], strides[IN_CARVEOUT], n, c->carveout, (uint64_t)-1,
                                        32, (uint64_t)-(int64_t)0x80000000, 32, in_default[IN_CARVEOUT], false);
    in->carveout_pct = r & NARROW_VARIES ? c->carveout : NULL;
    bad |= r;
    /* the kernel's constraints and AMD's fields, which the library checks
     * with the rest: a batch without them passes none */
    const uint32_t **constraint_cols[N_CONSTRAINTS] = {&in->max_wg_size, &in->reqd_wg_x, &in->reqd_wg_y,
                                                       &in->reqd_wg_z,   &in->reqd_sub_group, &in->sgprs,
                                                       &in->cu_mode};
    for (int j = 0; j < N_CONSTRAINTS; j++) {
        int op = IN_CONSTRAINTS + j;
        unsigned bits = op == IN_CU_MODE ? 1 : 32;
        r = narrow_to_u32[src[op]](p[op], strides[op], n, c->constraint[j], 0, bits, 0, bits, in_default[op],
                                   false);
        *constraint_cols[j] = r & NARROW_VARIES ? c->constraint[j] : NULL;
        bad |= r;
    }
    return !(bad & NARROW_BAD);
}

/* The first out-of-range value in NumPy's order (row by row, then operand):
 * what the error names.  Called when narrow() failed; false if it finds none
 * (the two checks disagree: a bug). */
static bool first_bad(char *const *p, const npy_intp *strides, npy_intp n, const int *src,
                      int *bad_op, long long *bad_value)
{
    for (npy_intp i = 0; i < n; i++)
        for (int op = 0; op < N_IN; op++) {
            long long v = read_in(src[op], p[op] + i * strides[op]);
            if (v < in_lo[op] || v > in_hi[op]) {
                *bad_op = op;
                *bad_value = v;
                return true;
            }
        }
    return false;
}

#define COPY_OUT(T, op, scratch)                                                               \
    do {                                                                                       \
        if (strides[op] != (npy_intp)sizeof(T))                                                \
            for (npy_intp i_ = 0; i_ < n; i_++)                                                \
                *(T *)(p[op] + i_ * strides[op]) = (scratch)[i_];                              \
    } while (0)

static void copy_out(char *const *p, const npy_intp *strides, npy_intp n, const chunk *c)
{
    COPY_OUT(uint32_t, OUT_RESIDENT, c->resident);
    COPY_OUT(double, OUT_OCCUPANCY, c->occupancy);
    COPY_OUT(uint32_t, OUT_CPW, c->cpw);
    COPY_OUT(uint32_t, OUT_CPC, c->cpc);
    COPY_OUT(uint8_t, OUT_LIMITED, c->limited);
    COPY_OUT(uint8_t, OUT_REASON, c->reason);
    COPY_OUT(uint8_t, OUT_BARRIER, c->barrier);
    COPY_OUT(uint64_t, OUT_SLM, c->slm);
}

/* One chunk of at most CHUNK kernels, narrowed into in. */
static occ_status eval_chunk(const occ_device *dev, char *const *p, const npy_intp *strides,
                             npy_intp n, chunk *c, occ_columns *in)
{
    /* a GRF the device has no mode for runs as its driver runs it: where
     * occ_grf_as_driver lowers a request, it lowers every larger one to the
     * same mode, so its answer for the largest request is a bound to clamp
     * at (a loop the compiler vectorises, not a call per kernel) */
    uint32_t top = occ_grf_as_driver(occ_device_describe(dev), UINT32_MAX);
    if (top != UINT32_MAX && in->grf)
        for (npy_intp i = 0; i < n; i++)
            c->u32[4][i] = c->u32[4][i] > top ? top : c->u32[4][i];
    occ_eval_columns out;
    occ_eval_columns_init(&out);
    out.resident_wgs = out_column(p, strides, OUT_RESIDENT, c->resident);
    out.occupancy = out_column(p, strides, OUT_OCCUPANCY, c->occupancy);
    out.contexts_per_wg = out_column(p, strides, OUT_CPW, c->cpw);
    out.contexts_per_core = out_column(p, strides, OUT_CPC, c->cpc);
    out.limited_by = out_column(p, strides, OUT_LIMITED, c->limited);
    out.reason = out_column(p, strides, OUT_REASON, c->reason);
    occ_status st = occ_evaluate_columns(dev, (size_t)n, in, &out);
    if (st == OCC_OK)
        copy_out(p, strides, n, c);
    return st;
}

/* The six result arrays share one block of memory, each column aligned to a
 * cache line, freed when the last of them goes.  Most of a large batch's time
 * went to the kernel faulting in and zeroing the pages of six fresh arrays:
 * a large block is mapped with transparent huge pages advised, and the last
 * one freed is kept (one, up to SPARE_MAX) for the next batch, as an
 * allocator keeps freed memory. */
typedef struct out_block {
    char *base;        /* the columns */
    char *map;         /* the mapping base lies in; NULL when allocated by malloc */
    size_t map_bytes;  /* its length */
    size_t capacity;   /* bytes from base */
} out_block;

#define HUGE_BLOCK ((size_t)2 << 20)
#define SPARE_MAX ((size_t)256 << 20)

static _Atomic(out_block *) spare;

static void out_block_release(out_block *b)
{
    if (b->map)
        munmap(b->map, b->map_bytes);
    else
        free(b->base);
    free(b);
}

static void out_block_free(PyObject *capsule)
{
    out_block *b = PyCapsule_GetPointer(capsule, "occ.batch_block");
    if (!b)
        return;
    if (b->map && b->map_bytes <= SPARE_MAX)
        b = atomic_exchange(&spare, b); /* keep it; release the one it replaces */
    if (b)
        out_block_release(b);
}

static out_block *out_block_alloc(size_t bytes)
{
    out_block *b = atomic_exchange(&spare, NULL);
    if (b && b->capacity >= bytes)
        return b;
    if (b)
        out_block_release(b);
    if (!(b = calloc(1, sizeof *b)))
        return NULL;
    if (bytes >= HUGE_BLOCK) {
        /* huge pages back only whole, aligned 2 MB ranges: map one more and start at the boundary */
        size_t len = bytes + HUGE_BLOCK;
        char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m != MAP_FAILED) {
            b->map = m;
            b->map_bytes = len;
            b->base = (char *)(((uintptr_t)m + HUGE_BLOCK - 1) & ~(uintptr_t)(HUGE_BLOCK - 1));
            b->capacity = (size_t)(m + len - b->base);
#ifdef MADV_HUGEPAGE
            (void)madvise(b->base, b->capacity, MADV_HUGEPAGE); /* advice: else 4 KB pages */
#endif
            return b;
        }
    }
    b->capacity = (bytes + 63) / 64 * 64;
    if (!(b->base = aligned_alloc(64, b->capacity))) {
        free(b);
        return NULL;
    }
    return b;
}

/* A capsule owning a block of at least bytes, its columns' start in *base. */
static PyObject *out_block_new(size_t bytes, void **base)
{
    out_block *b = out_block_alloc(bytes);
    if (!b)
        return PyErr_NoMemory();
    PyObject *capsule = PyCapsule_New(b, "occ.batch_block", out_block_free);
    if (!capsule) {
        out_block_release(b);
        return NULL;
    }
    *base = b->base;
    return capsule;
}

/* The result arrays of the inputs' broadcast shape into ops[N_IN..]; false
 * with an exception set. */
static bool alloc_outputs(PyArrayObject **ops)
{
    _Static_assert(N_IN == 16, "list every input below");
    PyObject *shape_of = PyArray_MultiIterNew(N_IN, ops[0], ops[1], ops[2], ops[3], ops[4], ops[5],
                                              ops[6], ops[7], ops[8], ops[9], ops[10], ops[11], ops[12],
                                              ops[13], ops[14], ops[15]);
    if (!shape_of)
        return false; /* shapes that do not broadcast: NumPy's ValueError */
    const PyArrayMultiIterObject *m = (const PyArrayMultiIterObject *)shape_of;
    int nd = m->nd;
    npy_intp dims[NPY_MAXDIMS];
    for (int i = 0; i < nd; i++)
        dims[i] = m->dimensions[i];
    size_t n = (size_t)m->size;
    Py_DECREF(shape_of);
    size_t offset[N_OPS - N_IN], bytes = 0;
    for (int j = 0; j < N_OPS - N_IN; j++) {
        offset[j] = bytes;
        size_t column = n * out_columns[j].size;
        bytes += (column + 63) / 64 * 64;
    }
    void *base = NULL;
    PyObject *capsule = out_block_new(bytes ? bytes : 64, &base);
    if (!capsule)
        return false;
    bool ok = true;
    for (int j = 0; j < N_OPS - N_IN && ok; j++) {
        PyObject *a = PyArray_NewFromDescr(&PyArray_Type, PyArray_DescrFromType(out_columns[j].type), nd, dims, NULL,
                                           (char *)base + offset[j], NPY_ARRAY_CARRAY, NULL);
        if (!a) {
            ok = false;
            break;
        }
        ops[N_IN + j] = (PyArrayObject *)a;
        Py_INCREF(capsule);
        ok = PyArray_SetBaseObject((PyArrayObject *)a, capsule) == 0; /* steals the reference */
    }
    Py_DECREF(capsule);
    return ok;
}

/* One thread's share of a batch: the iterations [begin, end) of its own copy
 * of the iterator, and the first thing that stopped it. */
typedef struct batch_part {
    const occ_device *dev;
    const int *src;   /* each input's source type (SRC_) */
    NpyIter *iter;
    npy_intp begin, end;
    chunk scratch;
    bool started;     /* its thread was created */
    pthread_t thread;
    /* what stopped it, if anything: the first in its range */
    int bad_op;       /* an input out of range (-1: none) */
    long long bad_value;
    bool disagree;    /* narrow() and first_bad() disagree: a bug */
    bool no_memory;
    bool iter_error;  /* the iterator could not be reset to the range */
    occ_status st;
} batch_part;

static void *run_part(void *arg)
{
    batch_part *t = arg;
    char *errmsg = NULL; /* with it, NumPy calls that need no GIL */
    if (!chunk_alloc(&t->scratch, (size_t)(t->end - t->begin < CHUNK ? t->end - t->begin : CHUNK))) {
        t->no_memory = true;
        return NULL;
    }
    if (NpyIter_ResetToIterIndexRange(t->iter, t->begin, t->end, &errmsg) != NPY_SUCCEED) {
        t->iter_error = true;
        return NULL;
    }
    NpyIter_IterNextFunc *next = NpyIter_GetIterNext(t->iter, &errmsg);
    if (!next) {
        t->iter_error = true;
        return NULL;
    }
    char **data = NpyIter_GetDataPtrArray(t->iter);
    npy_intp *strides = NpyIter_GetInnerStrideArray(t->iter);
    npy_intp *sizep = NpyIter_GetInnerLoopSizePtr(t->iter);
    do {
        npy_intp n = *sizep;
        char *p[N_OPS]; /* the iterator's pointers stay untouched */
        for (int op = 0; op < N_OPS; op++)
            p[op] = data[op];
        while (n > 0) { /* an unbuffered inner loop may exceed CHUNK */
            npy_intp m = n < CHUNK ? n : CHUNK;
            occ_columns in;
            occ_columns_init(&in);
            if (!narrow(p, strides, m, t->src, &t->scratch, &in)) {
                t->disagree = !first_bad(p, strides, m, t->src, &t->bad_op, &t->bad_value);
                return NULL;
            }
            if ((t->st = eval_chunk(t->dev, p, strides, m, &t->scratch, &in)) != OCC_OK)
                return NULL;
            n -= m;
            for (int op = 0; op < N_OPS; op++)
                p[op] += m * strides[op];
        }
    } while (next(t->iter));
    return NULL;
}

static bool part_stopped(const batch_part *t)
{
    return t->bad_op >= 0 || t->disagree || t->no_memory || t->iter_error || t->st != OCC_OK;
}

/* Raise what stopped the batch: the first part's stop, which holds the first
 * bad value in NumPy's order. */
static void raise_stop(const batch_part *t, const bool *is_u64)
{
    if (t->no_memory)
        PyErr_NoMemory();
    else if (t->iter_error)
        PyErr_SetString(PyExc_SystemError, "residency_batch: the iterator could not be split");
    else if (t->disagree)
        PyErr_SetString(PyExc_SystemError, "residency_batch: its two range checks disagree (a bug)");
    else if (t->bad_op >= 0 && is_u64[t->bad_op] && t->bad_value < 0)
        PyErr_Format(PyExc_ValueError, "%s contains %llu: must be in %lld..%lld", in_names[t->bad_op],
                     (unsigned long long)t->bad_value, in_lo[t->bad_op], in_hi[t->bad_op]);
    else if (t->bad_op >= 0)
        PyErr_Format(PyExc_ValueError, "%s contains %lld: must be in %lld..%lld", in_names[t->bad_op],
                     t->bad_value, in_lo[t->bad_op], in_hi[t->bad_op]);
    else
        pyocc_raise(t->st, NULL, "residency_batch");
}

PyObject *pyocc_residency_batch(pyocc_device *self, PyObject *args)
{
    if (!self->dev) {
        PyErr_SetString(PyExc_RuntimeError, "Device was not initialised");
        return NULL;
    }
    if (PyTuple_GET_SIZE(args) != N_IN + 1) {
        PyErr_Format(PyExc_TypeError, "_residency_batch takes %d arrays and a thread count", N_IN);
        return NULL;
    }
    long threads = PyLong_AsLong(PyTuple_GET_ITEM(args, N_IN));
    if (threads == -1 && PyErr_Occurred())
        return NULL;
    if (threads < 1 || threads > MAX_THREADS) {
        PyErr_Format(PyExc_ValueError, "threads must be in 1..%d, got %ld", MAX_THREADS, threads);
        return NULL;
    }
    PyArrayObject *ops[N_OPS] = {NULL};
    PyArray_Descr *dtypes[N_OPS] = {NULL};
    npy_uint32 op_flags[N_OPS];
    PyObject *result = NULL;
    NpyIter *iter = NULL;
    batch_part parts[MAX_THREADS];
    int n_parts = 0;
    bool is_u64[N_IN] = {false};
    int src[N_IN];

    for (int op = 0; op < N_IN; op++) {
        PyObject *a = PyArray_FROM_O(PyTuple_GET_ITEM(args, op));
        if (!a)
            goto done;
        ops[op] = (PyArrayObject *)a;
        int kind = PyArray_DESCR(ops[op])->kind;
        if (kind != 'i' && kind != 'u' && kind != 'b') {
            PyErr_Format(PyExc_TypeError, "%s must be an array of integers, not %R", in_names[op],
                         (PyObject *)PyArray_DESCR(ops[op]));
            goto done;
        }
        /* uint64 values over INT64_MAX read as negative int64s: out of
         * range either way; the message prints them unsigned. */
        is_u64[op] = kind == 'u' && PyArray_ITEMSIZE(ops[op]) == 8;
        src[op] = src_of(PyArray_DESCR(ops[op]));
        if (src[op] >= 0) {
            dtypes[op] = PyArray_DESCR(ops[op]);
            Py_INCREF(dtypes[op]);
        } else {
            src[op] = SRC_64;
            dtypes[op] = PyArray_DescrFromType(NPY_INT64);
        }
        op_flags[op] = NPY_ITER_READONLY | NPY_ITER_NBO | NPY_ITER_ALIGNED;
    }
    if (!alloc_outputs(ops))
        goto done;
    for (int op = N_IN; op < N_OPS; op++) {
        dtypes[op] = PyArray_DescrFromType(out_columns[op - N_IN].type);
        op_flags[op] = NPY_ITER_WRITEONLY | NPY_ITER_NO_BROADCAST;
    }
    /* ranged, its buffers allocated by each part's reset: one copy per thread */
    iter = NpyIter_AdvancedNew(N_OPS, ops, NPY_ITER_EXTERNAL_LOOP | NPY_ITER_BUFFERED | NPY_ITER_RANGED |
                                               NPY_ITER_DELAY_BUFALLOC | NPY_ITER_ZEROSIZE_OK,
                               NPY_KEEPORDER, NPY_UNSAFE_CASTING, op_flags, dtypes, -1, NULL, NULL, CHUNK);
    for (int op = 0; op < N_OPS; op++)
        Py_CLEAR(dtypes[op]);
    if (!iter)
        goto done;

    npy_intp size = NpyIter_GetIterSize(iter);
    if (size > 0) {
        /* a thread takes at least MIN_PER_THREAD kernels: below that, starting it costs more */
        npy_intp most = (size + MIN_PER_THREAD - 1) / MIN_PER_THREAD;
        n_parts = threads < most ? (int)threads : (int)most;
        for (int i = 0; i < n_parts; i++) {
            batch_part *t = &parts[i];
            *t = (batch_part){.dev = self->dev, .src = src, .bad_op = -1, .st = OCC_OK};
            t->begin = size * i / n_parts;
            t->end = size * (i + 1) / n_parts;
            t->iter = i == 0 ? iter : NpyIter_Copy(iter);
            if (!t->iter) {
                n_parts = i;
                goto done;
            }
        }
        bool with_gil = NpyIter_IterationNeedsAPI(iter); /* never for integers; then one part */
        NPY_BEGIN_THREADS_DEF;
        if (!with_gil)
            NPY_BEGIN_THREADS;
        for (int i = 1; i < n_parts && !with_gil; i++)
            parts[i].started = pthread_create(&parts[i].thread, NULL, run_part, &parts[i]) == 0;
        for (int i = 0; i < n_parts; i++) {
            if (parts[i].started)
                pthread_join(parts[i].thread, NULL);
            else
                run_part(&parts[i]); /* the calling thread's part, or a thread that did not start */
        }
        NPY_END_THREADS;
        if (PyErr_Occurred())
            goto done;
        for (int i = 0; i < n_parts; i++)
            if (part_stopped(&parts[i])) {
                raise_stop(&parts[i], is_u64);
                goto done;
            }
    }
    result = PyTuple_New(N_OPS - N_IN);
    if (!result)
        goto done;
    for (int op = N_IN; op < N_OPS; op++) {
        PyArrayObject *o = NpyIter_GetOperandArray(iter)[op];
        if (op >= OUT_BARRIER) /* cooperative_max's inputs: what the results came from */
            PyArray_CLEARFLAGS(o, NPY_ARRAY_WRITEABLE);
        PyTuple_SET_ITEM(result, op - N_IN, Py_NewRef((PyObject *)o));
    }
done:
    for (int op = 0; op < N_OPS; op++)
        Py_XDECREF(dtypes[op]); /* set only when an input failed its check */
    for (int i = 0; i < n_parts; i++) {
        free(parts[i].scratch.block);
        if (i > 0 && NpyIter_Deallocate(parts[i].iter) != NPY_SUCCEED)
            Py_CLEAR(result);
    }
    if (iter && NpyIter_Deallocate(iter) != NPY_SUCCEED)
        Py_CLEAR(result);
    for (int op = 0; op < N_OPS; op++)
        Py_XDECREF(ops[op]);
    return result;
}

/* BatchResult.cooperative_max, computed when it is first read (a division or
 * two per kernel that residency_batch itself does not pay): the driver's
 * count (occ_cooperative_max_of) from a batch's answers and the inputs they
 * came from, all broadcast to the answers' shape. */
PyObject *pyocc_cooperative_max_batch(pyocc_device *self, PyObject *args)
{
    enum { C_RESIDENT, C_CPW, C_CPC, C_BARRIER, C_SLM, C_OUT, C_N };
    if (!self->dev) {
        PyErr_SetString(PyExc_RuntimeError, "Device was not initialised");
        return NULL;
    }
    PyObject *in[C_OUT];
    if (!PyArg_ParseTuple(args, "OOOOO", &in[0], &in[1], &in[2], &in[3], &in[4]))
        return NULL;
    static const int types[C_N] = {NPY_UINT32, NPY_UINT32, NPY_UINT32, NPY_UINT8, NPY_UINT64, NPY_UINT64};
    PyArrayObject *ops[C_N] = {NULL};
    PyArray_Descr *dtypes[C_N] = {NULL};
    npy_uint32 flags[C_N];
    PyObject *result = NULL;
    NpyIter *iter = NULL;
    for (int op = 0; op < C_N; op++) {
        if (op < C_OUT && !(ops[op] = (PyArrayObject *)PyArray_FROM_O(in[op])))
            goto done;
        dtypes[op] = PyArray_DescrFromType(types[op]);
        flags[op] = op < C_OUT ? NPY_ITER_READONLY | NPY_ITER_NBO | NPY_ITER_ALIGNED
                               : NPY_ITER_WRITEONLY | NPY_ITER_ALLOCATE | NPY_ITER_NO_BROADCAST;
    }
    /* the inputs were range-checked by residency_batch: the casts keep every value */
    iter = NpyIter_AdvancedNew(C_N, ops, NPY_ITER_EXTERNAL_LOOP | NPY_ITER_BUFFERED | NPY_ITER_ZEROSIZE_OK,
                               NPY_KEEPORDER, NPY_UNSAFE_CASTING, flags, dtypes, -1, NULL, NULL, CHUNK);
    if (!iter)
        goto done;
    if (NpyIter_GetIterSize(iter) > 0) {
        NpyIter_IterNextFunc *next = NpyIter_GetIterNext(iter, NULL);
        if (!next)
            goto done;
        char **data = NpyIter_GetDataPtrArray(iter);
        npy_intp *strides = NpyIter_GetInnerStrideArray(iter);
        npy_intp *sizep = NpyIter_GetInnerLoopSizePtr(iter);
        NPY_BEGIN_THREADS_DEF;
        NPY_BEGIN_THREADS;
        do {
            char *p[C_N];
            for (int op = 0; op < C_N; op++)
                p[op] = data[op];
            for (npy_intp i = 0; i < *sizep; i++) {
                *(uint64_t *)p[C_OUT] = occ_cooperative_max_of(
                    self->dev, *(const uint32_t *)p[C_RESIDENT], *(const uint32_t *)p[C_CPW],
                    *(const uint32_t *)p[C_CPC], *(const uint8_t *)p[C_BARRIER] != 0,
                    *(const uint64_t *)p[C_SLM]);
                for (int op = 0; op < C_N; op++)
                    p[op] += strides[op];
            }
        } while (next(iter));
        NPY_END_THREADS;
    }
    result = Py_NewRef((PyObject *)NpyIter_GetOperandArray(iter)[C_OUT]);
done:
    for (int op = 0; op < C_N; op++) {
        Py_XDECREF(dtypes[op]);
        Py_XDECREF(ops[op]);
    }
    if (iter && NpyIter_Deallocate(iter) != NPY_SUCCEED)
        Py_CLEAR(result);
    return result;
}

/* Device.residency_batch(cluster=...): the clusters at once of each kernel
 * of a batch (occ_max_active_clusters_of) and the work-groups a core holds in
 * the launch in clusters (occ_cluster_work_groups_of), from its resident
 * work-groups and its cluster size, two arrays of one shape (broadcast by the
 * caller); sizes outside 1 to the device's maximum (portable, or non-portable
 * when asked) raise, as one query would. */
PyObject *pyocc_max_active_clusters_batch(pyocc_device *self, PyObject *args)
{
    PyObject *res_obj, *size_obj;
    int non_portable = 0;
    if (!self->dev) {
        PyErr_SetString(PyExc_RuntimeError, "Device was not initialised");
        return NULL;
    }
    if (!PyArg_ParseTuple(args, "OOp", &res_obj, &size_obj, &non_portable))
        return NULL;
    const occ_device_desc *d = occ_device_describe(self->dev);
    if (!d->n_gpcs) { /* the library's refusal, in its words */
        occ_kernel k;
        occ_kernel_init(&k);
        k.cluster[0] = 1;
        occ_clusters c;
        occ_diag diag = {0};
        return pyocc_raise(occ_cluster_compute(self->dev, &k, &c, &diag), &diag, "residency_batch");
    }
    int64_t top = non_portable ? d->cluster_max_size_non_portable : d->cluster_max_size;
    const int req = NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED;
    PyArrayObject *res = (PyArrayObject *)PyArray_FROMANY(res_obj, NPY_UINT32, 0, 0, req);
    PyArrayObject *size = res ? (PyArrayObject *)PyArray_FROMANY(size_obj, NPY_INT64, 0, 0, req) : NULL;
    PyArrayObject *out = NULL, *held = NULL;
    PyObject *pair = NULL;
    if (!size)
        goto done;
    npy_intp n = PyArray_SIZE(res);
    if (PyArray_SIZE(size) != n) {
        PyErr_SetString(PyExc_ValueError, "cluster: the sizes do not match the batch");
        goto done;
    }
    const uint32_t *r = PyArray_DATA(res);
    const int64_t *c = PyArray_DATA(size);
    for (npy_intp i = 0; i < n; i++)
        if (c[i] < 1 || c[i] > top) {
            PyErr_Format(PyExc_ValueError, "cluster: %lld blocks per cluster is outside 1..%lld, %s's %s maximum",
                         (long long)c[i], (long long)top, d->name, non_portable ? "non-portable" : "portable");
            goto done;
        }
    out = (PyArrayObject *)PyArray_SimpleNew(PyArray_NDIM(res), PyArray_DIMS(res), NPY_UINT64);
    held = out ? (PyArrayObject *)PyArray_SimpleNew(PyArray_NDIM(res), PyArray_DIMS(res), NPY_UINT32) : NULL;
    if (held) {
        uint64_t *o = PyArray_DATA(out);
        uint32_t *h = PyArray_DATA(held);
        Py_BEGIN_ALLOW_THREADS
        for (npy_intp i = 0; i < n; i++) {
            o[i] = occ_max_active_clusters_of(self->dev, r[i], (uint32_t)c[i]);
            h[i] = occ_cluster_work_groups_of(self->dev, r[i]);
        }
        Py_END_ALLOW_THREADS
        pair = PyTuple_Pack(2, (PyObject *)out, (PyObject *)held);
    }
done:
    Py_XDECREF(res);
    Py_XDECREF(size);
    Py_XDECREF(out);
    Py_XDECREF(held);
    return pair;
}
