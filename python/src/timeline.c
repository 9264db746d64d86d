/* Device.phases: the dispatch simulator of occ/timeline.h.  Returns a dict of
 * NumPy columns and summary figures; occ/__init__.py wraps it in occ.Timeline. */
#include "pyocc.h"
#include "pyocc_numpy.h"

#include <stdlib.h>
#include <string.h>

static PyObject *column_f64(const occ_phase *ph, size_t n, size_t offset)
{
    npy_intp dims[1] = {(npy_intp)n};
    PyObject *a = PyArray_SimpleNew(1, dims, NPY_FLOAT64);
    if (!a)
        return NULL;
    double *out = PyArray_DATA((PyArrayObject *)a);
    for (size_t i = 0; i < n; i++)
        memcpy(&out[i], (const char *)&ph[i] + offset, sizeof(double));
    return a;
}

static PyObject *column_u64(const occ_phase *ph, size_t n, size_t offset)
{
    npy_intp dims[1] = {(npy_intp)n};
    PyObject *a = PyArray_SimpleNew(1, dims, NPY_UINT64);
    if (!a)
        return NULL;
    uint64_t *out = PyArray_DATA((PyArrayObject *)a);
    for (size_t i = 0; i < n; i++)
        memcpy(&out[i], (const char *)&ph[i] + offset, sizeof(uint64_t));
    return a;
}

static PyObject *cores_busy(const occ_phase *ph, size_t n)
{
    npy_intp dims[1] = {(npy_intp)n};
    PyObject *a = PyArray_SimpleNew(1, dims, NPY_UINT32);
    if (!a)
        return NULL;
    uint32_t *out = PyArray_DATA((PyArrayObject *)a);
    for (size_t i = 0; i < n; i++)
        out[i] = ph[i].cores_busy;
    return a;
}

static PyObject *lanes(const uint32_t *v, size_t n, uint32_t cores)
{
    if (!v)
        Py_RETURN_NONE;
    npy_intp dims[2] = {(npy_intp)n, (npy_intp)cores};
    PyObject *a = PyArray_SimpleNew(2, dims, NPY_UINT32);
    if (a && n && cores)
        memcpy(PyArray_DATA((PyArrayObject *)a), v, n * cores * sizeof *v);
    return a;
}

PyObject *pyocc_phases(pyocc_device *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"wg", "work_groups", "sg", "slm", "barrier", "grf", "regs",
                             "carveout", "order", "partial", "barrier_split", "durations",
                             "duration_values", "a", "b", "seed", "merge", "lanes", "max_phases",
                             "cluster", "cluster_non_portable", NULL};
    PyObject *wg = NULL, *wgs = NULL, *sg = NULL, *slm = NULL, *barrier = NULL, *grf = NULL,
             *regs = NULL, *carveout = NULL, *values = NULL, *seed = NULL, *max_phases = NULL,
             *cluster = NULL, *non_portable = NULL;
    int order = 0, partial = 0, barrier_split = 0, durations = 0, merge = 0, want_lanes = 0;
    double a = 0, b = 0;
    if (!self->dev) {
        PyErr_SetString(PyExc_RuntimeError, "Device was not initialised");
        return NULL;
    }
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|OOOOOOiiiiOddOipOOO:_phases", kwlist, &wg,
                                     &wgs, &sg, &slm, &barrier, &grf, &regs, &carveout, &order,
                                     &partial, &barrier_split, &durations, &values, &a, &b, &seed,
                                     &merge, &want_lanes, &max_phases, &cluster, &non_portable))
        return NULL;
    occ_kernel k;
    long long n_wgs, seed_v, maxp;
    if (pyocc_kernel_from(wg, sg, slm, barrier, grf, regs, carveout, &k) < 0 ||
        pyocc_cluster_from(cluster, non_portable, &k) < 0 ||
        pyocc_int_arg(wgs, "work_groups", 0, INT64_MAX, 0, &n_wgs) < 0 ||
        pyocc_int_arg(seed, "seed", 0, INT64_MAX, 0, &seed_v) < 0 ||
        pyocc_int_arg(max_phases, "max_phases", 0, INT64_MAX, 0, &maxp) < 0)
        return NULL;
    k.grf = occ_grf_as_driver(occ_device_describe(self->dev), k.grf);
    occ_sim_options o;
    occ_sim_options_init(&o);
    o.order = (occ_dispatch_order)order;
    o.partial = (occ_partial_policy)partial;
    o.barrier_split = (occ_barrier_split)barrier_split;
    o.merge = (occ_merge)merge;
    o.lanes = want_lanes != 0;
    o.max_phases = (size_t)maxp;
    o.durations.kind = (occ_duration_kind)durations;
    o.durations.a = a;
    o.durations.b = b;
    o.durations.seed = (uint64_t)seed_v;
    double *vals = NULL;
    if (values && values != Py_None) {
        PyObject *seq = PySequence_Fast(values, "durations must be a sequence of numbers");
        if (!seq)
            return NULL;
        Py_ssize_t nv = PySequence_Fast_GET_SIZE(seq);
        vals = malloc(sizeof *vals * (size_t)(nv ? nv : 1));
        if (!vals) {
            Py_DECREF(seq);
            return PyErr_NoMemory();
        }
        for (Py_ssize_t i = 0; i < nv; i++) {
            PyObject *item = PySequence_Fast_GET_ITEM(seq, i);
            if (!PyFloat_Check(item) && !PyLong_Check(item) && !PyIndex_Check(item)) {
                PyErr_Format(PyExc_TypeError, "durations must be numbers, not %.80s",
                             Py_TYPE(item)->tp_name);
                Py_DECREF(seq);
                free(vals);
                return NULL;
            }
            vals[i] = PyFloat_AsDouble(item);
            if (vals[i] == -1.0 && PyErr_Occurred()) {
                Py_DECREF(seq);
                free(vals);
                return NULL;
            }
        }
        Py_DECREF(seq);
        o.durations.values = vals;
        o.durations.n_values = (size_t)nv;
    }
    occ_timeline t;
    occ_timeline_init(&t);
    occ_diag diag;
    memset(&diag, 0, sizeof diag);
    occ_status st;
    Py_BEGIN_ALLOW_THREADS
    st = occ_timeline_simulate(self->dev, &k, (uint64_t)n_wgs, &o, &t, &diag);
    Py_END_ALLOW_THREADS
    free(vals);
    if (st != OCC_OK) {
        if (st == OCC_ERR_TOO_LARGE && !diag.message[0])
            snprintf(diag.message, sizeof diag.message,
                     "the run has %zu phases, more than max_phases (%zu)", t.n_phases,
                     o.max_phases ? o.max_phases : (size_t)OCC_TIMELINE_DEFAULT_MAX_PHASES);
        occ_timeline_free(&t);
        return pyocc_raise(st, &diag, "phases");
    }
    size_t n = t.phases ? t.n_phases : 0;
    PyObject *d = PyDict_New();
    int bad = !d ||
        pyocc_dict_steal(d, "start", column_f64(t.phases, n, offsetof(occ_phase, start))) < 0 ||
        pyocc_dict_steal(d, "end", column_f64(t.phases, n, offsetof(occ_phase, end))) < 0 ||
        pyocc_dict_steal(d, "work_groups_resident", column_u64(t.phases, n, offsetof(occ_phase, work_groups))) < 0 ||
        pyocc_dict_steal(d, "thread_contexts", column_u64(t.phases, n, offsetof(occ_phase, thread_contexts))) < 0 ||
        pyocc_dict_steal(d, "occupancy", column_f64(t.phases, n, offsetof(occ_phase, occupancy))) < 0 ||
        pyocc_dict_steal(d, "cores_busy", cores_busy(t.phases, n)) < 0 ||
        pyocc_dict_steal(d, "core_contexts", lanes(t.core_contexts, n, t.cores)) < 0 ||
        pyocc_dict_steal(d, "core_work_groups", lanes(t.core_work_groups, n, t.cores)) < 0 ||
        pyocc_dict_steal(d, "n_phases", PyLong_FromSize_t(t.n_phases)) < 0 ||
        pyocc_dict_steal(d, "cores", PyLong_FromUnsignedLong(t.cores)) < 0 ||
        pyocc_dict_steal(d, "contexts_total", PyLong_FromUnsignedLongLong(t.contexts_total)) < 0 ||
        pyocc_dict_steal(d, "work_groups", PyLong_FromUnsignedLongLong(t.work_groups)) < 0 ||
        pyocc_dict_steal(d, "phases_average_occupancy", PyFloat_FromDouble(t.average_occupancy)) < 0 ||
        pyocc_dict_steal(d, "run_start", PyFloat_FromDouble(t.start)) < 0 ||
        pyocc_dict_steal(d, "run_end", PyFloat_FromDouble(t.end)) < 0 ||
        pyocc_dict_steal(d, "busy_context_time", PyFloat_FromDouble(t.busy_context_time)) < 0 ||
        pyocc_dict_steal(d, "peak_thread_contexts", PyLong_FromUnsignedLongLong(t.peak_thread_contexts)) < 0 ||
        pyocc_dict_steal(d, "peak_core_work_groups", PyLong_FromUnsignedLong(t.peak_core_work_groups)) < 0 ||
        pyocc_dict_steal(d, "contexts_per_core", PyLong_FromUnsignedLong(t.contexts_per_core)) < 0 ||
        pyocc_dict_steal(d, "contexts_per_work_group", PyLong_FromUnsignedLong(t.contexts_per_work_group)) < 0 ||
        pyocc_dict_steal(d, "resident_work_groups", PyLong_FromUnsignedLong(t.resident_work_groups)) < 0 ||
        pyocc_dict_steal(d, "admit_limit", PyLong_FromUnsignedLong(t.admit_limit)) < 0 ||
        pyocc_dict_steal(d, "order", PyUnicode_FromString(t.order == OCC_DISPATCH_SPREAD ? "spread" : "pack")) < 0 ||
        pyocc_dict_steal(d, "partial", PyUnicode_FromString(occ_partial_policy_name(t.partial))) < 0 ||
        pyocc_dict_steal(d, "barrier", PyBool_FromLong(t.barrier)) < 0 ||
        pyocc_dict_steal(d, "extrapolated", PyBool_FromLong(t.extrapolated)) < 0;
    occ_timeline_free(&t);
    if (bad) {
        Py_XDECREF(d);
        return NULL;
    }
    return d;
}
