/* Device.advise and Device.bounds: the advisor and the bounds of
 * occ/advise.h.  Return plain dicts; occ/__init__.py wraps them. */
#include "pyocc.h"

#include <stdlib.h>
#include <string.h>

/* 1-3 non-negative integers into v (unused entries keep their value);
 * returns the count, or -1. */
static int dims_arg(PyObject *o, const char *name, long long lo, uint64_t v[3])
{
    if (!o || o == Py_None)
        return 0;
    PyObject *seq = PySequence_Fast(o, "expected 1 to 3 integers");
    if (!seq) {
        PyErr_Format(PyExc_TypeError, "%s must be 1 to 3 integers", name);
        return -1;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n < 1 || n > 3) {
        Py_DECREF(seq);
        PyErr_Format(PyExc_ValueError, "%s must have 1 to 3 dimensions, got %zd", name, n);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        long long x;
        if (pyocc_int_arg(PySequence_Fast_GET_ITEM(seq, i), name, lo, INT64_MAX, 0, &x) < 0) {
            Py_DECREF(seq);
            return -1;
        }
        v[i] = (uint64_t)x;
    }
    Py_DECREF(seq);
    return (int)n;
}

static int sub_groups_arg(PyObject *o, uint32_t *n, uint32_t out[OCC_MAX_SUB_GROUP_SIZES])
{
    *n = 0;
    if (!o || o == Py_None)
        return 0;
    PyObject *seq = PySequence_Fast(o, "sub_groups must be a sequence of integers");
    if (!seq)
        return -1;
    Py_ssize_t len = PySequence_Fast_GET_SIZE(seq);
    if (len > OCC_MAX_SUB_GROUP_SIZES) {
        Py_DECREF(seq);
        PyErr_Format(PyExc_ValueError, "sub_groups: at most %d sizes", OCC_MAX_SUB_GROUP_SIZES);
        return -1;
    }
    for (Py_ssize_t i = 0; i < len; i++) {
        long long x;
        if (pyocc_int_arg(PySequence_Fast_GET_ITEM(seq, i), "sub_groups", 1, UINT32_MAX, 0, &x) < 0) {
            Py_DECREF(seq);
            return -1;
        }
        out[i] = (uint32_t)x;
    }
    *n = (uint32_t)len;
    Py_DECREF(seq);
    return 0;
}

static PyObject *advice_dict(const occ_device *dev, const occ_advice *a, const occ_advice *best)
{
    char text[1024];
    occ_advice_explain(dev, a, a == best ? NULL : best, text, sizeof text);
    PyObject *d = PyDict_New();
    int bad = !d ||
        pyocc_dict_steal(d, "rank", PyLong_FromUnsignedLong(a->rank)) < 0 ||
        pyocc_dict_steal(d, "is_best", PyBool_FromLong(a->is_best)) < 0 ||
        pyocc_dict_steal(d, "wg", Py_BuildValue("(kkk)", (unsigned long)a->wg[0],
                                                (unsigned long)a->wg[1], (unsigned long)a->wg[2])) < 0 ||
        pyocc_dict_steal(d, "shapes", PyLong_FromUnsignedLongLong(a->shapes)) < 0 ||
        pyocc_dict_steal(d, "wg_size", PyLong_FromUnsignedLongLong(a->wg_size)) < 0 ||
        pyocc_dict_steal(d, "sg", PyLong_FromUnsignedLong(a->sub_group)) < 0 ||
        pyocc_dict_steal(d, "grf", PyLong_FromUnsignedLong(a->grf)) < 0 ||
        pyocc_dict_steal(d, "slm", PyLong_FromUnsignedLongLong(a->slm_bytes)) < 0 ||
        pyocc_dict_steal(d, "work_groups", PyLong_FromUnsignedLongLong(a->work_groups)) < 0 ||
        pyocc_dict_steal(d, "resident_wgs", PyLong_FromUnsignedLong(a->resident_wgs)) < 0 ||
        pyocc_dict_steal(d, "contexts_per_wg", PyLong_FromUnsignedLong(a->contexts_per_wg)) < 0 ||
        pyocc_dict_steal(d, "contexts_per_core", PyLong_FromUnsignedLong(a->contexts_per_core)) < 0 ||
        pyocc_dict_steal(d, "contexts_used", PyLong_FromUnsignedLong(a->contexts_used)) < 0 ||
        pyocc_dict_steal(d, "limited_by_mask", PyLong_FromUnsignedLong(a->limited_by)) < 0 ||
        pyocc_dict_steal(d, "cluster_capped", PyBool_FromLong(a->cluster_capped)) < 0 ||
        pyocc_dict_steal(d, "occupancy", PyFloat_FromDouble(a->occupancy)) < 0 ||
        pyocc_dict_steal(d, "lane_utilization", PyFloat_FromDouble(a->lane_utilization)) < 0 ||
        pyocc_dict_steal(d, "waves_average_occupancy", PyFloat_FromDouble(a->gpu_occupancy)) < 0 ||
        pyocc_dict_steal(d, "intel_calculator_occupancy", PyFloat_FromDouble(a->intel_gpu_occupancy)) < 0 ||
        pyocc_dict_steal(d, "waves", PyLong_FromUnsignedLongLong(a->waves)) < 0 ||
        pyocc_dict_steal(d, "last_wave_work_groups", PyLong_FromUnsignedLongLong(a->last_wave_work_groups)) < 0 ||
        pyocc_dict_steal(d, "last_wave_occupancy", PyFloat_FromDouble(a->last_wave_occupancy)) < 0 ||
        pyocc_dict_steal(d, "score", PyFloat_FromDouble(a->score)) < 0 ||
        pyocc_dict_steal(d, "slm_limit", PyLong_FromUnsignedLongLong(a->slm_limit)) < 0 ||
        pyocc_dict_steal(d, "why", PyUnicode_FromString(occ_why_name(a->why))) < 0 ||
        pyocc_dict_steal(d, "explanation", PyUnicode_FromString(text)) < 0;
    if (bad) {
        Py_XDECREF(d);
        return NULL;
    }
    return d;
}

static const char *stage_name(occ_advise_stage s)
{
    static const char *const names[OCC_STAGE_COUNT] = {
        [OCC_STAGE_OK] = "ok",        [OCC_STAGE_SHAPE] = "shape",
        [OCC_STAGE_SIZE] = "size",    [OCC_STAGE_SUB_GROUP] = "sub_group",
        [OCC_STAGE_GRF] = "grf",      [OCC_STAGE_FULL_SUB_GROUPS] = "full_sub_groups",
        [OCC_STAGE_LAUNCH] = "launch", [OCC_STAGE_THRESHOLD] = "threshold",
    };
    return (unsigned)s < OCC_STAGE_COUNT ? names[s] : "unknown";
}

PyObject *pyocc_advise(pyocc_device *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"global_size", "work_groups", "wg_fixed", "wg_multiple", "wg_min",
                             "wg_max", "full_sub_groups", "sub_groups", "grf", "regs", "slm",
                             "slm_per_item", "barrier", "carveout", "threshold", "threshold_on",
                             "order", "limit", "cluster", "cluster_non_portable", NULL};
    PyObject *global = NULL, *wgs = NULL, *fixed = NULL, *mult = NULL, *wmin = NULL, *wmax = NULL,
             *sgs = NULL, *grf = NULL, *regs = NULL, *slm = NULL, *slm_item = NULL,
             *carveout = NULL, *limit = NULL, *cluster = NULL;
    int full = 0, barrier = 0, threshold_on = 0, order = 0, non_portable = 0;
    double threshold = 0;
    if (!self->dev) {
        PyErr_SetString(PyExc_RuntimeError, "Device was not initialised");
        return NULL;
    }
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|OOOOOOpOOOOOpOdiiOOp:_advise", kwlist, &global,
                                     &wgs, &fixed, &mult, &wmin, &wmax, &full, &sgs, &grf, &regs,
                                     &slm, &slm_item, &barrier, &carveout, &threshold,
                                     &threshold_on, &order, &limit, &cluster, &non_portable))
        return NULL;
    occ_advise_request q;
    occ_advise_request_init(&q);
    long long v;
    uint64_t g[3] = {0, 1, 1}, f[3] = {0, 0, 0};
    int gd = dims_arg(global, "global_size", 1, g);
    int fd = dims_arg(fixed, "wg_fixed", 0, f);
    if (gd < 0 || fd < 0)
        return NULL;
    q.dims = (uint32_t)(gd > fd ? gd : (fd ? fd : 1));
    if (gd > 0)
        for (int i = 0; i < 3; i++)
            q.global[i] = g[i];
    for (int i = 0; i < 3; i++) {
        if (f[i] > UINT32_MAX) {
            PyErr_SetString(PyExc_ValueError, "wg_fixed entries must fit in 32 bits");
            return NULL;
        }
        q.wg_fixed[i] = (uint32_t)f[i];
    }
    if (pyocc_int_arg(wgs, "work_groups", 0, INT64_MAX, 0, &v) < 0)
        return NULL;
    q.work_groups = (uint64_t)v;
    if (pyocc_int_arg(mult, "wg_multiple", 0, UINT32_MAX, 0, &v) < 0)
        return NULL;
    q.wg_multiple = (uint32_t)v;
    if (pyocc_int_arg(wmin, "wg_min", 0, UINT32_MAX, 0, &v) < 0)
        return NULL;
    q.wg_min = (uint32_t)v;
    if (pyocc_int_arg(wmax, "wg_max", 0, UINT32_MAX, 0, &v) < 0)
        return NULL;
    q.wg_max = (uint32_t)v;
    q.full_sub_groups = full != 0;
    if (sub_groups_arg(sgs, &q.n_sub_groups, q.sub_groups) < 0)
        return NULL;
    if (pyocc_int_arg(grf, "grf", 0, UINT32_MAX, 0, &v) < 0)
        return NULL;
    q.grf = occ_grf_as_driver(occ_device_describe(self->dev), (uint32_t)v);
    if (pyocc_int_arg(regs, "regs", 0, UINT32_MAX, 0, &v) < 0)
        return NULL;
    q.regs_per_thread = (uint32_t)v;
    if (pyocc_int_arg(slm, "slm", 0, INT64_MAX, 0, &v) < 0)
        return NULL;
    q.slm_bytes = (uint64_t)v;
    if (pyocc_int_arg(slm_item, "slm_per_item", 0, INT64_MAX, 0, &v) < 0)
        return NULL;
    q.slm_per_item = (uint64_t)v;
    q.barrier = barrier != 0;
    if (pyocc_int_arg(carveout, "carveout", -1, INT32_MAX, -1, &v) < 0)
        return NULL;
    q.carveout_pct = (int32_t)v;
    uint64_t cl[3] = {0, 0, 0}; /* a launch in clusters: 1 to 3 sizes of at least 1 */
    if (dims_arg(cluster, "cluster", 1, cl) < 0)
        return NULL;
    for (int i = 0; i < 3; i++)
        q.cluster[i] = cl[i] > UINT32_MAX ? UINT32_MAX : (uint32_t)cl[i];
    q.cluster_non_portable = non_portable != 0;
    q.threshold = threshold;
    q.threshold_on = (occ_threshold_on)threshold_on;
    q.order = (occ_advise_order)order;
    long long cap;
    if (pyocc_int_arg(limit, "limit", 1, 1 << 24, 10, &cap) < 0)
        return NULL;

    occ_advice *out = calloc((size_t)cap, sizeof *out);
    if (!out)
        return PyErr_NoMemory();
    size_t n = 0;
    occ_advise_summary s;
    occ_advise_summary_init(&s);
    occ_status st;
    Py_BEGIN_ALLOW_THREADS
    st = occ_advise(self->dev, &q, out, (size_t)cap, &n, &s);
    Py_END_ALLOW_THREADS
    if (st != OCC_OK) {
        free(out);
        occ_diag diag;
        memset(&diag, 0, sizeof diag);
        diag.status = st;
        snprintf(diag.message, sizeof diag.message, "%s", s.message);
        return pyocc_raise(st, &diag, "advise");
    }
    const occ_advice *best = NULL;
    for (size_t i = 0; i < n; i++)
        if (out[i].is_best)
            best = &out[i];
    PyObject *list = PyList_New((Py_ssize_t)n);
    for (size_t i = 0; list && i < n; i++) {
        PyObject *d = advice_dict(self->dev, &out[i], best ? best : &out[0]);
        if (!d) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, (Py_ssize_t)i, d);
    }
    free(out);
    if (!list)
        return NULL;
    PyObject *sd = PyDict_New();
    int bad = !sd ||
        pyocc_dict_steal(sd, "shapes", PyLong_FromUnsignedLongLong(s.shapes)) < 0 ||
        pyocc_dict_steal(sd, "sizes", PyLong_FromUnsignedLongLong(s.sizes)) < 0 ||
        pyocc_dict_steal(sd, "sub_groups", PyLong_FromUnsignedLong(s.sub_groups)) < 0 ||
        pyocc_dict_steal(sd, "grf_modes", PyLong_FromUnsignedLong(s.grf_modes)) < 0 ||
        pyocc_dict_steal(sd, "configurations", PyLong_FromUnsignedLongLong(s.configurations)) < 0 ||
        pyocc_dict_steal(sd, "launchable", PyLong_FromUnsignedLongLong(s.launchable)) < 0 ||
        pyocc_dict_steal(sd, "matching", PyLong_FromUnsignedLongLong(s.matching)) < 0 ||
        pyocc_dict_steal(sd, "failed", PyUnicode_FromString(stage_name(s.failed))) < 0 ||
        pyocc_dict_steal(sd, "launch_reason", PyUnicode_FromString(occ_reason_text(s.launch_reason))) < 0 ||
        pyocc_dict_steal(sd, "best_value", PyFloat_FromDouble(s.best_value)) < 0 ||
        pyocc_dict_steal(sd, "message", PyUnicode_FromString(s.message)) < 0;
    if (bad) {
        Py_DECREF(list);
        Py_XDECREF(sd);
        return NULL;
    }
    return Py_BuildValue("(NN)", list, sd);
}

static PyObject *kernel_dict(const occ_kernel *k)
{
    return Py_BuildValue("{s:(kkk),s:k,s:K,s:O,s:k,s:k,s:i}", "wg", (unsigned long)k->wg[0],
                         (unsigned long)k->wg[1], (unsigned long)k->wg[2], "sg",
                         (unsigned long)k->sub_group, "slm", (unsigned long long)k->slm_bytes,
                         "barrier", k->barrier ? Py_True : Py_False, "grf", (unsigned long)k->grf,
                         "regs", (unsigned long)k->regs_per_thread, "carveout",
                         (int)k->carveout_pct);
}

PyObject *pyocc_bounds(pyocc_device *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"wg", "sg", "slm", "barrier", "grf", "regs", "carveout", "unknown",
                             "slm_min", "slm_max", "regs_min", "regs_max", "sub_groups",
                             "work_groups", NULL};
    PyObject *wg = NULL, *sg = NULL, *slm = NULL, *barrier = NULL, *grf = NULL, *regs = NULL,
             *carveout = NULL, *smin = NULL, *smax = NULL, *rmin = NULL, *rmax = NULL,
             *sgs = NULL, *wgs = NULL;
    unsigned int unknown = 0;
    if (!self->dev) {
        PyErr_SetString(PyExc_RuntimeError, "Device was not initialised");
        return NULL;
    }
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|OOOOOOIOOOOOO:_bounds", kwlist, &wg, &sg,
                                     &slm, &barrier, &grf, &regs, &carveout, &unknown, &smin,
                                     &smax, &rmin, &rmax, &sgs, &wgs))
        return NULL;
    occ_kernel_range r;
    occ_kernel_range_init(&r);
    long long v;
    if (pyocc_kernel_from(wg, sg, slm, barrier, grf, regs, carveout, &r.k) < 0)
        return NULL;
    r.k.grf = occ_grf_as_driver(occ_device_describe(self->dev), r.k.grf);
    r.unknown = unknown & OCC_UNKNOWN_ALL;
    if (pyocc_int_arg(smin, "slm_min", 0, INT64_MAX, 0, &v) < 0)
        return NULL;
    r.slm_min = (uint64_t)v;
    if (pyocc_int_arg(smax, "slm_max", 0, INT64_MAX, 0, &v) < 0)
        return NULL;
    r.slm_max = (uint64_t)v;
    if (pyocc_int_arg(rmin, "regs_min", 0, UINT32_MAX, 0, &v) < 0)
        return NULL;
    r.regs_min = (uint32_t)v;
    if (pyocc_int_arg(rmax, "regs_max", 0, UINT32_MAX, 0, &v) < 0)
        return NULL;
    r.regs_max = (uint32_t)v;
    if (sub_groups_arg(sgs, &r.n_sub_groups, r.sub_groups) < 0)
        return NULL;
    if (pyocc_int_arg(wgs, "work_groups", 0, INT64_MAX, 0, &v) < 0)
        return NULL;
    r.work_groups = (uint64_t)v;
    occ_bounds b;
    occ_bounds_init(&b);
    occ_status st = occ_residency_bounds(self->dev, &r, &b);
    if (st != OCC_OK)
        return pyocc_raise(st, NULL, "bounds");
    PyObject *d = PyDict_New();
    int bad = !d ||
        pyocc_dict_steal(d, "always_launchable", PyBool_FromLong(b.always_launchable)) < 0 ||
        pyocc_dict_steal(d, "never_launchable", PyBool_FromLong(b.never_launchable)) < 0 ||
        pyocc_dict_steal(d, "resident_min", PyLong_FromUnsignedLong(b.resident_min)) < 0 ||
        pyocc_dict_steal(d, "resident_max", PyLong_FromUnsignedLong(b.resident_max)) < 0 ||
        pyocc_dict_steal(d, "occupancy_min", PyFloat_FromDouble(b.occupancy_min)) < 0 ||
        pyocc_dict_steal(d, "occupancy_max", PyFloat_FromDouble(b.occupancy_max)) < 0 ||
        pyocc_dict_steal(d, "waves_average_occupancy_min", PyFloat_FromDouble(b.gpu_occupancy_min)) < 0 ||
        pyocc_dict_steal(d, "waves_average_occupancy_max", PyFloat_FromDouble(b.gpu_occupancy_max)) < 0 ||
        pyocc_dict_steal(d, "waves_min", PyLong_FromUnsignedLongLong(b.waves_min)) < 0 ||
        pyocc_dict_steal(d, "waves_max", PyLong_FromUnsignedLongLong(b.waves_max)) < 0 ||
        pyocc_dict_steal(d, "best", kernel_dict(&b.best)) < 0 ||
        pyocc_dict_steal(d, "worst", kernel_dict(&b.worst)) < 0 ||
        pyocc_dict_steal(d, "evaluations", PyLong_FromUnsignedLong(b.evaluations)) < 0;
    if (bad) {
        Py_XDECREF(d);
        return NULL;
    }
    return d;
}

/* ---- Device.cuda_block_size: CUDA's choice (occ_cuda_block_size) ---------- */

typedef struct slm_call {
    PyObject *fn;   /* slm(block_size) -> bytes */
    bool failed;    /* the function raised or returned a bad value: stop asking */
} slm_call;

static uint64_t slm_from_python(void *user, uint32_t wg)
{
    slm_call *c = user;
    if (c->failed)
        return UINT64_MAX;
    PyObject *r = PyObject_CallFunction(c->fn, "I", wg);
    long long v;
    if (!r || pyocc_int_arg(r, "slm(block_size)", 0, INT64_MAX, 0, &v) < 0) {
        Py_XDECREF(r);
        c->failed = true;
        return UINT64_MAX;
    }
    Py_DECREF(r);
    return (uint64_t)v;
}

PyObject *pyocc_cuda_block_size(pyocc_device *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"slm", "static_slm", "regs", "barrier", "carveout", "block_limit",
                             "max_threads", NULL};
    PyObject *slm = NULL, *static_slm = NULL, *regs = NULL, *barrier = NULL, *carveout = NULL,
             *limit = NULL, *max_threads = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|$OOOOOOO:cuda_block_size", kwlist, &slm,
                                     &static_slm, &regs, &barrier, &carveout, &limit, &max_threads))
        return NULL;
    if (!self->dev) {
        PyErr_SetString(PyExc_RuntimeError, "Device was not initialised");
        return NULL;
    }
    occ_kernel k;
    long long lim, maxt;
    PyObject *one = PyLong_FromLong(1); /* the block size is what is searched */
    if (!one)
        return NULL;
    int bad = pyocc_kernel_from(one, NULL, static_slm, barrier, NULL, regs, carveout, &k);
    Py_DECREF(one);
    if (bad < 0 ||
        pyocc_int_arg(limit, "block_limit", 0, UINT32_MAX, 0, &lim) < 0 ||
        pyocc_int_arg(max_threads, "max_threads", 0, UINT32_MAX, 0, &maxt) < 0)
        return NULL;
    occ_cuda_choice_request q;
    occ_cuda_choice_request_init(&q);
    q.wg_limit = (uint32_t)lim;
    q.kernel_max_wg = (uint32_t)maxt;
    slm_call call = {NULL, false};
    if (slm && PyCallable_Check(slm)) {
        call.fn = slm;
        q.slm_for_wg = slm_from_python;
        q.user = &call;
    } else {
        long long bytes;
        if (pyocc_int_arg(slm, "slm", 0, INT64_MAX, 0, &bytes) < 0)
            return NULL;
        q.dyn_slm_bytes = (uint64_t)bytes;
    }
    occ_cuda_choice c = {.struct_size = sizeof c};
    occ_status st = occ_cuda_block_size(self->dev, &k, &q, &c);
    if (call.failed)
        return NULL; /* the slm function's exception */
    if (st != OCC_OK)
        return pyocc_raise(st, NULL, "cuda_block_size");
    PyObject *o = PyDict_New();
    if (!o)
        return NULL;
    if (pyocc_dict_steal(o, "block_size", PyLong_FromUnsignedLong(c.wg_size)) < 0 ||
        pyocc_dict_steal(o, "min_grid_size", PyLong_FromUnsignedLongLong(c.min_work_groups)) < 0 ||
        pyocc_dict_steal(o, "resident_wgs", PyLong_FromUnsignedLong(c.resident_wgs)) < 0 ||
        pyocc_dict_steal(o, "occupancy", PyFloat_FromDouble(c.occupancy)) < 0) {
        Py_DECREF(o);
        return NULL;
    }
    return o;
}
