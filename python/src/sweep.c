/* Device.sweep and Device.limits (occ/advise.h): one input varied over a
 * range.  Return dicts of NumPy columns; occ/_api.py wraps them. */
#include "pyocc.h"
#include "pyocc_numpy.h"

#include <stdlib.h>
#include <string.h>

/* The request shared by both: the kernel keywords plus the axis and range. */
static int sweep_request(const occ_device *dev, PyObject *args, PyObject *kwargs, const char *fname,
                         occ_sweep_request *q)
{
    static char *kwlist[] = {"axis", "wg", "sg", "slm", "barrier", "grf", "regs", "carveout",
                             "start", "stop", "step", "slm_per_item", "work_items", "work_groups",
                             NULL};
    int axis = 0;
    PyObject *wg = NULL, *sg = NULL, *slm = NULL, *barrier = NULL, *grf = NULL, *regs = NULL,
             *carveout = NULL, *start = NULL, *stop = NULL, *step = NULL, *per_item = NULL,
             *items = NULL, *wgs = NULL;
    char fmt[64];
    snprintf(fmt, sizeof fmt, "iO|OOOOOOOOOOOO:%s", fname);
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, fmt, kwlist, &axis, &wg, &sg, &slm, &barrier,
                                     &grf, &regs, &carveout, &start, &stop, &step, &per_item,
                                     &items, &wgs))
        return -1;
    occ_sweep_request_init(q);
    if (pyocc_kernel_from(wg, sg, slm, barrier, grf, regs, carveout, &q->k) < 0)
        return -1;
    q->k.grf = occ_grf_as_driver(occ_device_describe(dev), q->k.grf);
    q->axis = (occ_axis)axis;
    long long v;
    if (pyocc_int_arg(start, "start", 0, INT64_MAX, 0, &v) < 0)
        return -1;
    q->from = (uint64_t)v;
    if (pyocc_int_arg(stop, "stop", 0, INT64_MAX, 0, &v) < 0)
        return -1;
    q->to = (uint64_t)v;
    if (pyocc_int_arg(step, "step", 0, INT64_MAX, 0, &v) < 0)
        return -1;
    q->step = (uint64_t)v;
    if (pyocc_int_arg(per_item, "slm_per_item", 0, INT64_MAX, 0, &v) < 0)
        return -1;
    q->slm_per_item = (uint64_t)v;
    if (pyocc_int_arg(items, "work_items", 0, INT64_MAX, 0, &v) < 0)
        return -1;
    q->work_items = (uint64_t)v;
    if (pyocc_int_arg(wgs, "work_groups", 0, INT64_MAX, 0, &v) < 0)
        return -1;
    q->work_groups = (uint64_t)v;
    return 0;
}

static PyObject *new_column(size_t n, int type, void **data)
{
    npy_intp dims[1] = {(npy_intp)n};
    PyObject *a = PyArray_SimpleNew(1, dims, type);
    if (a)
        *data = PyArray_DATA((PyArrayObject *)a);
    return a;
}

/* Most points a sweep may return: a guard against a range of 10^12 values. */
#define MAX_POINTS (1u << 24)

PyObject *pyocc_sweep(pyocc_device *self, PyObject *args, PyObject *kwargs)
{
    occ_sweep_request q;
    if (!self->dev) {
        PyErr_SetString(PyExc_RuntimeError, "Device was not initialised");
        return NULL;
    }
    if (sweep_request(self->dev, args, kwargs, "_sweep", &q) < 0)
        return NULL;
    size_t total = 0;
    occ_status st = occ_sweep(self->dev, &q, NULL, 0, &total);
    if (st != OCC_OK)
        return pyocc_raise(st, NULL, "sweep");
    if (total > MAX_POINTS) {
        occ_diag d;
        memset(&d, 0, sizeof d);
        snprintf(d.message, sizeof d.message,
                 "the sweep has %zu points, more than %u: narrow the range or raise the step",
                 total, MAX_POINTS);
        return pyocc_raise(OCC_ERR_TOO_LARGE, &d, NULL);
    }
    occ_sweep_point *pts = malloc(sizeof *pts * (total ? total : 1));
    if (!pts)
        return PyErr_NoMemory();
    size_t n = 0;
    Py_BEGIN_ALLOW_THREADS
    st = occ_sweep(self->dev, &q, pts, total, &n);
    Py_END_ALLOW_THREADS
    if (st != OCC_OK) {
        free(pts);
        return pyocc_raise(st, NULL, "sweep");
    }
    if (n > total)
        n = total;
    uint64_t *x, *wgs, *waves;
    uint8_t *launch, *reason, *lim, *has_gpu;
    uint32_t *res, *cpw, *cpc;
    double *occ, *gocc;
    PyObject *d = PyDict_New();
    int bad = !d ||
        pyocc_dict_steal(d, "x", new_column(n, NPY_UINT64, (void **)&x)) < 0 ||
        pyocc_dict_steal(d, "launchable", new_column(n, NPY_BOOL, (void **)&launch)) < 0 ||
        pyocc_dict_steal(d, "reason", new_column(n, NPY_UINT8, (void **)&reason)) < 0 ||
        pyocc_dict_steal(d, "resident_wgs", new_column(n, NPY_UINT32, (void **)&res)) < 0 ||
        pyocc_dict_steal(d, "contexts_per_wg", new_column(n, NPY_UINT32, (void **)&cpw)) < 0 ||
        pyocc_dict_steal(d, "contexts_per_core", new_column(n, NPY_UINT32, (void **)&cpc)) < 0 ||
        pyocc_dict_steal(d, "limited_by", new_column(n, NPY_UINT8, (void **)&lim)) < 0 ||
        pyocc_dict_steal(d, "occupancy", new_column(n, NPY_FLOAT64, (void **)&occ)) < 0 ||
        pyocc_dict_steal(d, "has_gpu", new_column(n, NPY_BOOL, (void **)&has_gpu)) < 0 ||
        pyocc_dict_steal(d, "work_groups", new_column(n, NPY_UINT64, (void **)&wgs)) < 0 ||
        pyocc_dict_steal(d, "waves", new_column(n, NPY_UINT64, (void **)&waves)) < 0 ||
        pyocc_dict_steal(d, "waves_average_occupancy", new_column(n, NPY_FLOAT64, (void **)&gocc)) < 0;
    if (!bad) {
        for (size_t i = 0; i < n; i++) {
            x[i] = pts[i].x;
            launch[i] = pts[i].launchable;
            reason[i] = (uint8_t)pts[i].reason;
            res[i] = pts[i].resident_wgs;
            cpw[i] = pts[i].contexts_per_wg;
            cpc[i] = pts[i].contexts_per_core;
            lim[i] = (uint8_t)pts[i].limited_by;
            occ[i] = pts[i].occupancy;
            has_gpu[i] = pts[i].has_gpu;
            wgs[i] = pts[i].work_groups;
            waves[i] = pts[i].waves;
            gocc[i] = pts[i].gpu_occupancy;
        }
    }
    free(pts);
    if (bad) {
        Py_XDECREF(d);
        return NULL;
    }
    return d;
}

PyObject *pyocc_limits(pyocc_device *self, PyObject *args, PyObject *kwargs)
{
    occ_sweep_request q;
    if (!self->dev) {
        PyErr_SetString(PyExc_RuntimeError, "Device was not initialised");
        return NULL;
    }
    if (sweep_request(self->dev, args, kwargs, "_limits", &q) < 0)
        return NULL;
    size_t total = 0;
    occ_status st;
    Py_BEGIN_ALLOW_THREADS
    st = occ_limits(self->dev, &q, NULL, 0, &total);
    Py_END_ALLOW_THREADS
    if (st != OCC_OK)
        return pyocc_raise(st, NULL, "limits");
    occ_limit_row *rows = malloc(sizeof *rows * (total ? total : 1));
    if (!rows)
        return PyErr_NoMemory();
    size_t n = 0;
    Py_BEGIN_ALLOW_THREADS
    st = occ_limits(self->dev, &q, rows, total, &n);
    Py_END_ALLOW_THREADS
    if (st != OCC_OK) {
        free(rows);
        return pyocc_raise(st, NULL, "limits");
    }
    if (n > total)
        n = total;
    uint64_t *lo, *hi;
    uint32_t *res;
    uint8_t *reason, *lim;
    double *olo, *ohi;
    PyObject *d = PyDict_New();
    int bad = !d ||
        pyocc_dict_steal(d, "lo", new_column(n, NPY_UINT64, (void **)&lo)) < 0 ||
        pyocc_dict_steal(d, "hi", new_column(n, NPY_UINT64, (void **)&hi)) < 0 ||
        pyocc_dict_steal(d, "resident_wgs", new_column(n, NPY_UINT32, (void **)&res)) < 0 ||
        pyocc_dict_steal(d, "reason", new_column(n, NPY_UINT8, (void **)&reason)) < 0 ||
        pyocc_dict_steal(d, "limited_by", new_column(n, NPY_UINT8, (void **)&lim)) < 0 ||
        pyocc_dict_steal(d, "occupancy_lo", new_column(n, NPY_FLOAT64, (void **)&olo)) < 0 ||
        pyocc_dict_steal(d, "occupancy_hi", new_column(n, NPY_FLOAT64, (void **)&ohi)) < 0;
    if (!bad) {
        for (size_t i = 0; i < n; i++) {
            lo[i] = rows[i].lo;
            hi[i] = rows[i].hi;
            res[i] = rows[i].resident_wgs;
            reason[i] = (uint8_t)rows[i].reason;
            lim[i] = (uint8_t)rows[i].limited_by;
            olo[i] = rows[i].occupancy_lo;
            ohi[i] = rows[i].occupancy_hi;
        }
    }
    free(rows);
    if (bad) {
        Py_XDECREF(d);
        return NULL;
    }
    return d;
}
