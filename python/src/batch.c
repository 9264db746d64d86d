/* Device.residency_batch: residency over NumPy arrays, one libocc call per
 * chunk (occ_evaluate_columns, the column batch of occ/advise.h, which runs
 * several kernels per vector instruction).
 *
 * NumPy's iterator broadcasts the nine inputs against each other, casts them
 * to int64 in buffers of CHUNK elements where needed and allocates the six
 * outputs; each inner loop narrows at most CHUNK values of every input into
 * the library's column types (checking their ranges on the way), evaluates
 * them in one call and writes the results straight into the output arrays
 * where those are contiguous (through scratch columns otherwise).  The GIL is
 * released while it runs. */
#define PYOCC_IMPORT_ARRAY
#include "pyocc.h"
#include "pyocc_numpy.h"

#include <stdlib.h>

#define CHUNK 4096 /* kernels per library call */

int pyocc_batch_init(void)
{
    import_array1(-1);
    return 0;
}

enum { IN_WGX, IN_WGY, IN_WGZ, IN_SG, IN_SLM, IN_BARRIER, IN_GRF, IN_REGS, IN_CARVEOUT, N_IN };
enum { OUT_RESIDENT = N_IN, OUT_OCCUPANCY, OUT_CPW, OUT_CPC, OUT_LIMITED, OUT_REASON, OUT_COOP, N_OPS };

static const char *const in_names[N_IN] = {"wg", "wg_y", "wg_z", "sg", "slm",
                                           "barrier", "grf", "regs", "carveout"};
static const long long in_lo[N_IN] = {0, 0, 0, 0, 0, 0, 0, 0, -1};
static const long long in_hi[N_IN] = {UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, INT64_MAX,
                                      1, UINT32_MAX, UINT32_MAX, INT32_MAX};

/* Scratch columns of one chunk (cap kernels): the narrowed inputs, and the
 * results whose output array is not contiguous. */
typedef struct chunk {
    uint64_t *slm, *coop;
    double *occupancy;
    uint32_t *u32[6]; /* wg x, y, z, sub-group, GRF, registers */
    int32_t *carveout;
    uint32_t *resident, *cpw, *cpc;
    uint8_t *barrier, *limited, *reason;
    void *block;
} chunk;

/* One allocation, the 8-byte columns first so that each stays aligned. */
static bool chunk_alloc(chunk *c, size_t cap)
{
    size_t bytes = cap * (3 * 8 + 10 * 4 + 3 * 1);
    char *b = c->block = malloc(bytes ? bytes : 1);
    if (!b)
        return false;
    c->slm = (uint64_t *)b, b += cap * 8;
    c->coop = (uint64_t *)b, b += cap * 8;
    c->occupancy = (double *)b, b += cap * 8;
    for (int j = 0; j < 6; j++)
        c->u32[j] = (uint32_t *)b, b += cap * 4;
    c->carveout = (int32_t *)b, b += cap * 4;
    c->resident = (uint32_t *)b, b += cap * 4;
    c->cpw = (uint32_t *)b, b += cap * 4;
    c->cpc = (uint32_t *)b, b += cap * 4;
    c->barrier = (uint8_t *)b, b += cap;
    c->limited = (uint8_t *)b, b += cap;
    c->reason = (uint8_t *)b;
    return true;
}

/* Narrow n int64 values (stride bytes apart) into dst; false when one lies
 * outside both ranges lo1 .. lo1 + 2^bits1 - 1 and lo2 .. lo2 + 2^bits2 - 1
 * (two ranges, since the carveout's -1 .. 2^31 - 1 is not one of a power of
 * two).  Shifts and ORs rather than comparisons: SSE2 has no 64-bit compare,
 * and so the loop over contiguous values is vectorised. */
#define DEFINE_NARROW(name, T)                                                                 \
    static bool name(const char *src, npy_intp stride, npy_intp n, T *dst, uint64_t lo1,       \
                     unsigned bits1, uint64_t lo2, unsigned bits2)                             \
    {                                                                                          \
        uint64_t out = 0;                                                                      \
        if (stride == (npy_intp)sizeof(int64_t)) {                                             \
            const uint64_t *s = (const uint64_t *)src;                                         \
            for (npy_intp i = 0; i < n; i++) {                                                 \
                out |= ((s[i] - lo1) >> bits1) | ((s[i] - lo2) >> bits2);                     \
                dst[i] = (T)s[i];                                                              \
            }                                                                                  \
        } else {                                                                               \
            for (npy_intp i = 0; i < n; i++) {                                                 \
                uint64_t v = *(const uint64_t *)(src + i * stride);                            \
                out |= ((v - lo1) >> bits1) | ((v - lo2) >> bits2);                            \
                dst[i] = (T)v;                                                                 \
            }                                                                                  \
        }                                                                                      \
        return out == 0;                                                                       \
    }
DEFINE_NARROW(narrow_u32, uint32_t)
DEFINE_NARROW(narrow_u64, uint64_t)
DEFINE_NARROW(narrow_u8, uint8_t)
DEFINE_NARROW(narrow_i32, int32_t)

/* Narrow n kernels' inputs into c's columns; false when some value is out of
 * its operand's range. */
static bool narrow(char *const *p, const npy_intp *strides, npy_intp n, chunk *c)
{
    static const int u32_ops[6] = {IN_WGX, IN_WGY, IN_WGZ, IN_SG, IN_GRF, IN_REGS};
    bool ok = true;
    for (int j = 0; j < 6; j++) {
        int op = u32_ops[j];
        ok &= narrow_u32(p[op], strides[op], n, c->u32[j], 0, 32, 0, 32);
    }
    ok &= narrow_u64(p[IN_SLM], strides[IN_SLM], n, c->slm, 0, 63, 0, 63);
    ok &= narrow_u8(p[IN_BARRIER], strides[IN_BARRIER], n, c->barrier, 0, 1, 0, 1);
    /* -1 .. 2^32 - 2 and -2^31 .. 2^31 - 1: together -1 .. 2^31 - 1 */
    ok &= narrow_i32(p[IN_CARVEOUT], strides[IN_CARVEOUT], n, c->carveout, (uint64_t)-1, 32,
                     (uint64_t)-(int64_t)0x80000000, 32);
    return ok;
}

/* The first out-of-range value in NumPy's order (row by row, then operand):
 * what the error names.  Called when narrow() failed; false if it finds none
 * (the two checks disagree: a bug). */
static bool first_bad(char *const *p, const npy_intp *strides, npy_intp n, int *bad_op,
                      long long *bad_value)
{
    for (npy_intp i = 0; i < n; i++)
        for (int op = 0; op < N_IN; op++) {
            long long v = *(const int64_t *)(p[op] + i * strides[op]);
            if (v < in_lo[op] || v > in_hi[op]) {
                *bad_op = op;
                *bad_value = v;
                return true;
            }
        }
    return false;
}

/* Where the library writes result column op: the output itself when it is
 * contiguous, else the chunk's scratch column (copied out by copy_out). */
static void *result_column(char *const *p, const npy_intp *strides, int op, size_t size,
                           void *scratch)
{
    return strides[op] == (npy_intp)size ? (void *)p[op] : scratch;
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
    COPY_OUT(uint64_t, OUT_COOP, c->coop);
}

/* One chunk of at most CHUNK kernels. */
static occ_status eval_chunk(const occ_device *dev, char *const *p, const npy_intp *strides,
                             npy_intp n, chunk *c)
{
    occ_columns in;
    occ_columns_init(&in);
    in.wg_x = c->u32[0];
    in.wg_y = c->u32[1];
    in.wg_z = c->u32[2];
    in.sub_group = c->u32[3];
    in.grf = c->u32[4];
    in.regs_per_thread = c->u32[5];
    in.slm_bytes = c->slm;
    in.barrier = c->barrier;
    in.carveout_pct = c->carveout;
    occ_eval_columns out;
    occ_eval_columns_init(&out);
    out.resident_wgs = result_column(p, strides, OUT_RESIDENT, sizeof(uint32_t), c->resident);
    out.occupancy = result_column(p, strides, OUT_OCCUPANCY, sizeof(double), c->occupancy);
    out.contexts_per_wg = result_column(p, strides, OUT_CPW, sizeof(uint32_t), c->cpw);
    out.contexts_per_core = result_column(p, strides, OUT_CPC, sizeof(uint32_t), c->cpc);
    out.limited_by = result_column(p, strides, OUT_LIMITED, sizeof(uint8_t), c->limited);
    out.reason = result_column(p, strides, OUT_REASON, sizeof(uint8_t), c->reason);
    occ_status st = occ_evaluate_columns(dev, (size_t)n, &in, &out);
    if (st == OCC_OK) {
        /* the cooperative maximum from the answers (the driver's count) */
        uint64_t *coop = result_column(p, strides, OUT_COOP, sizeof(uint64_t), c->coop);
        for (npy_intp i = 0; i < n; i++)
            coop[i] = occ_cooperative_max_of(dev, out.resident_wgs[i], out.contexts_per_wg[i],
                                             out.contexts_per_core[i], c->barrier[i], c->slm[i]);
        copy_out(p, strides, n, c);
    }
    return st;
}

PyObject *pyocc_residency_batch(pyocc_device *self, PyObject *args)
{
    if (!self->dev) {
        PyErr_SetString(PyExc_RuntimeError, "Device was not initialised");
        return NULL;
    }
    if (PyTuple_GET_SIZE(args) != N_IN) {
        PyErr_Format(PyExc_TypeError, "_residency_batch takes %d arrays", N_IN);
        return NULL;
    }
    PyArrayObject *ops[N_OPS] = {NULL};
    PyArray_Descr *dtypes[N_OPS] = {NULL};
    npy_uint32 op_flags[N_OPS];
    PyObject *result = NULL;
    NpyIter *iter = NULL;
    chunk scratch = {0};
    bool is_u64[N_IN] = {false};

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
        /* uint64 values over INT64_MAX wrap to negative in the int64 buffer:
         * out of range either way; the message prints them unsigned. */
        is_u64[op] = kind == 'u' && PyArray_ITEMSIZE(ops[op]) == 8;
        dtypes[op] = PyArray_DescrFromType(NPY_INT64);
        op_flags[op] = NPY_ITER_READONLY | NPY_ITER_NBO | NPY_ITER_ALIGNED;
    }
    static const int out_types[N_OPS - N_IN] = {NPY_UINT32, NPY_FLOAT64, NPY_UINT32,
                                                NPY_UINT32, NPY_UINT8, NPY_UINT8, NPY_UINT64};
    for (int op = N_IN; op < N_OPS; op++) {
        dtypes[op] = PyArray_DescrFromType(out_types[op - N_IN]);
        op_flags[op] = NPY_ITER_WRITEONLY | NPY_ITER_ALLOCATE | NPY_ITER_NO_BROADCAST;
    }
    iter = NpyIter_AdvancedNew(N_OPS, ops, NPY_ITER_EXTERNAL_LOOP | NPY_ITER_BUFFERED |
                                               NPY_ITER_ZEROSIZE_OK,
                               NPY_KEEPORDER, NPY_UNSAFE_CASTING, op_flags, dtypes, -1, NULL,
                               NULL, CHUNK);
    for (int op = 0; op < N_OPS; op++)
        Py_CLEAR(dtypes[op]);
    if (!iter)
        goto done;

    int bad_op = -1;
    long long bad_value = 0;
    bool disagree = false;
    occ_status st = OCC_OK;
    if (NpyIter_GetIterSize(iter) > 0) {
        npy_intp size = NpyIter_GetIterSize(iter);
        if (!chunk_alloc(&scratch, size < CHUNK ? (size_t)size : CHUNK)) {
            PyErr_NoMemory();
            goto done;
        }
        NpyIter_IterNextFunc *next = NpyIter_GetIterNext(iter, NULL);
        if (!next)
            goto done;
        char **data = NpyIter_GetDataPtrArray(iter);
        npy_intp *strides = NpyIter_GetInnerStrideArray(iter);
        npy_intp *sizep = NpyIter_GetInnerLoopSizePtr(iter);
        NPY_BEGIN_THREADS_DEF;
        if (!NpyIter_IterationNeedsAPI(iter))
            NPY_BEGIN_THREADS;
        do {
            npy_intp n = *sizep;
            char *p[N_OPS]; /* the iterator's pointers stay untouched */
            for (int op = 0; op < N_OPS; op++)
                p[op] = data[op];
            while (n > 0) { /* an unbuffered inner loop may exceed CHUNK */
                npy_intp m = n < CHUNK ? n : CHUNK;
                if (!narrow(p, strides, m, &scratch)) {
                    disagree = !first_bad(p, strides, m, &bad_op, &bad_value);
                    break;
                }
                st = eval_chunk(self->dev, p, strides, m, &scratch);
                if (st != OCC_OK)
                    break;
                n -= m;
                for (int op = 0; op < N_OPS; op++)
                    p[op] += m * strides[op];
            }
        } while (bad_op < 0 && !disagree && st == OCC_OK && next(iter));
        NPY_END_THREADS;
        if (PyErr_Occurred())
            goto done;
    }
    if (disagree) {
        PyErr_SetString(PyExc_SystemError, "residency_batch: its two range checks disagree (a bug)");
        goto done;
    }
    if (bad_op >= 0 && is_u64[bad_op] && bad_value < 0) {
        PyErr_Format(PyExc_ValueError, "%s contains %llu: must be in %lld..%lld", in_names[bad_op],
                     (unsigned long long)bad_value, in_lo[bad_op], in_hi[bad_op]);
        goto done;
    }
    if (bad_op >= 0) {
        PyErr_Format(PyExc_ValueError, "%s contains %lld: must be in %lld..%lld", in_names[bad_op],
                     bad_value, in_lo[bad_op], in_hi[bad_op]);
        goto done;
    }
    if (st != OCC_OK) {
        pyocc_raise(st, NULL, "residency_batch");
        goto done;
    }
    result = PyTuple_New(N_OPS - N_IN);
    if (!result)
        goto done;
    for (int op = N_IN; op < N_OPS; op++) {
        PyArrayObject *o = NpyIter_GetOperandArray(iter)[op];
        PyTuple_SET_ITEM(result, op - N_IN, Py_NewRef((PyObject *)o));
    }
done:
    for (int op = 0; op < N_OPS; op++)
        Py_XDECREF(dtypes[op]); /* set only when an input failed its check */
    free(scratch.block);
    if (iter && NpyIter_Deallocate(iter) != NPY_SUCCEED)
        Py_CLEAR(result);
    for (int op = 0; op < N_IN; op++)
        Py_XDECREF(ops[op]);
    return result;
}
