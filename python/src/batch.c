/* Device.residency_batch: residency over NumPy arrays, one libocc call per
 * chunk (occ_evaluate_batch, the compact batch of occ/advise.h).
 *
 * NumPy's iterator broadcasts the nine inputs against each other, casts them
 * to int64 in buffers of CHUNK elements where needed and allocates the six
 * outputs; each inner loop packs at most CHUNK kernels, checks their ranges,
 * evaluates them in one call and scatters the 24-byte results.  The GIL is
 * released while it runs. */
#define PYOCC_IMPORT_ARRAY
#include "pyocc.h"
#include "pyocc_numpy.h"

#include <stdlib.h>

#define CHUNK 4096 /* kernels per library call: >= its fast-path minimum (48) */

int pyocc_batch_init(void)
{
    import_array1(-1);
    return 0;
}

enum { IN_WGX, IN_WGY, IN_WGZ, IN_SG, IN_SLM, IN_BARRIER, IN_GRF, IN_REGS, IN_CARVEOUT, N_IN };
enum { OUT_RESIDENT = N_IN, OUT_OCCUPANCY, OUT_CPW, OUT_CPC, OUT_LIMITED, OUT_REASON, N_OPS };

static const char *const in_names[N_IN] = {"wg", "wg_y", "wg_z", "sg", "slm",
                                           "barrier", "grf", "regs", "carveout"};
static const long long in_lo[N_IN] = {0, 0, 0, 0, 0, 0, 0, 0, -1};
static const long long in_hi[N_IN] = {UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, INT64_MAX,
                                      1, UINT32_MAX, UINT32_MAX, INT32_MAX};

/* Pack n kernels from the inputs; on a value out of range, report its
 * operand and value and return false. */
static bool pack(char *const *data, const npy_intp *strides, npy_intp n, occ_kernel *ks,
                 int *bad_op, long long *bad_value)
{
    for (npy_intp i = 0; i < n; i++) {
        long long v[N_IN];
        for (int op = 0; op < N_IN; op++)
            v[op] = *(const int64_t *)(data[op] + i * strides[op]);
        for (int op = 0; op < N_IN; op++) {
            if (v[op] < in_lo[op] || v[op] > in_hi[op]) {
                *bad_op = op;
                *bad_value = v[op];
                return false;
            }
        }
        occ_kernel *k = &ks[i];
        k->struct_size = sizeof *k;
        k->wg[0] = (uint32_t)v[IN_WGX];
        k->wg[1] = (uint32_t)v[IN_WGY];
        k->wg[2] = (uint32_t)v[IN_WGZ];
        k->sub_group = (uint32_t)v[IN_SG];
        k->slm_bytes = (uint64_t)v[IN_SLM];
        k->barrier = v[IN_BARRIER] != 0;
        k->grf = (uint32_t)v[IN_GRF];
        k->regs_per_thread = (uint32_t)v[IN_REGS];
        k->carveout_pct = (int32_t)v[IN_CARVEOUT];
    }
    return true;
}

static void scatter(const occ_eval *ev, npy_intp n, char *const *data, const npy_intp *strides)
{
    char *res = data[OUT_RESIDENT], *occ = data[OUT_OCCUPANCY], *cpw = data[OUT_CPW],
         *cpc = data[OUT_CPC], *lim = data[OUT_LIMITED], *rsn = data[OUT_REASON];
    for (npy_intp i = 0; i < n; i++) {
        *(uint32_t *)(res + i * strides[OUT_RESIDENT]) = ev[i].resident_wgs;
        *(double *)(occ + i * strides[OUT_OCCUPANCY]) = ev[i].occupancy;
        *(uint32_t *)(cpw + i * strides[OUT_CPW]) = ev[i].contexts_per_wg;
        *(uint32_t *)(cpc + i * strides[OUT_CPC]) = ev[i].contexts_per_core;
        *(uint8_t *)(lim + i * strides[OUT_LIMITED]) = ev[i].limited_by;
        *(uint8_t *)(rsn + i * strides[OUT_REASON]) = ev[i].reason;
    }
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
    occ_kernel *ks = NULL;
    occ_eval *ev = NULL;
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
                                                NPY_UINT32, NPY_UINT8, NPY_UINT8};
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
    occ_status st = OCC_OK;
    if (NpyIter_GetIterSize(iter) > 0) {
        ks = malloc(sizeof *ks * CHUNK);
        ev = malloc(sizeof *ev * CHUNK);
        if (!ks || !ev) {
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
                if (!pack(p, strides, m, ks, &bad_op, &bad_value))
                    break;
                st = occ_evaluate_batch(self->dev, ks, ev, (size_t)m);
                if (st != OCC_OK)
                    break;
                scatter(ev, m, p, strides);
                n -= m;
                for (int op = 0; op < N_OPS; op++)
                    p[op] += m * strides[op];
            }
        } while (bad_op < 0 && st == OCC_OK && next(iter));
        NPY_END_THREADS;
        if (PyErr_Occurred())
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
    free(ks);
    free(ev);
    if (iter && NpyIter_Deallocate(iter) != NPY_SUCCEED)
        Py_CLEAR(result);
    for (int op = 0; op < N_IN; op++)
        Py_XDECREF(ops[op]);
    return result;
}
