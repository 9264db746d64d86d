/* occ._occ.Device (a loaded profile), the scalar residency call and its
 * result type, occ._occ.Residency. */
#include "pyocc.h"

#include <stddef.h>
#include <string.h>
#include <structmember.h>

/* ---- NextStep and Waves: struct sequences ------------------------------- */

PyTypeObject pyocc_next_step_type;
static PyTypeObject waves_type;

static PyStructSequence_Field next_step_fields[] = {
    {"input", "the input to change: 'wg', 'sg', 'slm', 'grf', 'regs', 'carveout' or 'barrier'"},
    {"value", "its new value (work-items, sub-group size, bytes, registers, percent; "
              "0 for 'barrier' = remove it)"},
    {"at_most", "True: 'value or less'; False: 'value or more' or exactly value"},
    {"resident_wgs", "work-groups per core after the change"},
    {"occupancy", "core occupancy after the change, 0..1"},
    {"text", "the advice in words, as occcalc prints it"},
    {NULL, NULL},
};
static PyStructSequence_Desc next_step_desc = {
    "occ.NextStep",
    "One change of a single input that raises resident work-groups (or makes an\n"
    "unlaunchable kernel launch) without lowering occupancy.",
    next_step_fields, 6,
};

static PyStructSequence_Field waves_fields[] = {
    {"work_groups", "work-groups in the run"},
    {"contexts_needed", "work_groups x thread contexts per work-group"},
    {"contexts_total", "cores x thread contexts per core"},
    {"wave_capacity", "cores x resident work-groups per core"},
    {"waves", "ceil(work_groups / wave_capacity)"},
    {"full_waves", "waves that fill every core"},
    {"full_wave_occupancy", "occupancy of a full wave, 0..1"},
    {"last_wave_work_groups", "work-groups in the last wave"},
    {"last_wave_occupancy", "occupancy of the last wave, 0..1"},
    {"waves_average_occupancy", "time-weighted over the waves (whole work-groups, equal durations), 0..1"},
    {"intel_calculator_occupancy", "Intel's calculator formula (docs/model.md), 0..1"},
    {NULL, NULL},
};
static PyStructSequence_Desc waves_desc = {
    "occ.Waves",
    "The whole GPU for a number of work-groups of equal duration, in waves.",
    waves_fields, 11,
};

/* ---- Residency ----------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    occ_residency r;
    occ_kernel k;
    pyocc_device *device;
    PyObject *next_steps; /* cached list */
} pyocc_residency;

static void residency_dealloc(pyocc_residency *self)
{
    Py_XDECREF(self->device);
    Py_XDECREF(self->next_steps);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *res_reason(pyocc_residency *self, void *unused)
{
    if (self->r.launchable)
        Py_RETURN_NONE;
    char buf[512];
    occ_residency_reason(self->device->dev, &self->k, buf, sizeof buf);
    return PyUnicode_FromString(buf);
}

static PyObject *res_limited_by(pyocc_residency *self, void *unused)
{
    PyObject *t = PyTuple_New(0);
    for (int i = 0; t && i < OCC_RES_COUNT; i++) {
        if (!(self->r.limited_by & (1u << i)))
            continue;
        PyObject *s = PyUnicode_FromString(occ_resource_name((occ_resource)i));
        if (!s || _PyTuple_Resize(&t, PyTuple_GET_SIZE(t) + 1) < 0) {
            Py_XDECREF(s);
            Py_CLEAR(t);
            break;
        }
        PyTuple_SET_ITEM(t, PyTuple_GET_SIZE(t) - 1, s);
    }
    return t;
}

static PyObject *res_limiter(pyocc_residency *self, void *unused)
{
    for (int i = 0; i < OCC_RES_COUNT; i++)
        if (self->r.limited_by & (1u << i))
            return PyUnicode_FromString(occ_resource_name((occ_resource)i));
    Py_RETURN_NONE;
}

static PyObject *res_limits(pyocc_residency *self, void *unused)
{
    PyObject *d = PyDict_New();
    for (int i = 0; d && i < OCC_RES_COUNT; i++) {
        uint32_t v = self->r.limits[i];
        PyObject *o = v == OCC_NO_LIMIT ? Py_NewRef(Py_None) : PyLong_FromUnsignedLong(v);
        if (pyocc_dict_steal(d, occ_resource_name((occ_resource)i), o) < 0)
            Py_CLEAR(d);
    }
    return d;
}

static PyObject *res_wg(pyocc_residency *self, void *unused)
{
    return Py_BuildValue("(kkk)", (unsigned long)self->k.wg[0], (unsigned long)self->k.wg[1],
                         (unsigned long)self->k.wg[2]);
}

static PyObject *res_slm(pyocc_residency *self, void *unused)
{
    return PyLong_FromUnsignedLongLong(self->k.slm_bytes);
}

static PyObject *res_barrier(pyocc_residency *self, void *unused)
{
    return PyBool_FromLong(self->k.barrier);
}

/* The clusters at once of a launch in clusters (occ_cluster_compute); None
 * for a launch that is not in clusters. */
static PyObject *res_max_active_clusters(pyocc_residency *self, void *unused)
{
    (void)unused;
    if (!self->k.cluster[0])
        return Py_NewRef(Py_None);
    uint64_t n = 0;
    occ_status st = occ_max_active_clusters(self->device->dev, &self->k, &n);
    if (st != OCC_OK) /* checked when the residency was made */
        return pyocc_raise(st, NULL, "max_active_clusters");
    return PyLong_FromUnsignedLongLong(n);
}

/* A core's occupancy in the launch in clusters (occ_clusters.occupancy: under
 * the cluster cap); None for a launch that is not in clusters. */
static PyObject *res_cluster_occupancy(pyocc_residency *self, void *unused)
{
    (void)unused;
    if (!self->k.cluster[0])
        return Py_NewRef(Py_None);
    occ_clusters c;
    occ_status st = occ_cluster_compute(self->device->dev, &self->k, &c, NULL);
    if (st != OCC_OK) /* checked when the residency was made */
        return pyocc_raise(st, NULL, "cluster_occupancy");
    return PyFloat_FromDouble(c.occupancy);
}

static PyObject *res_cooperative_max(pyocc_residency *self, void *unused)
{
    (void)unused;
    uint64_t n = 0;
    if (occ_cooperative_max(self->device->dev, &self->k, &n) != OCC_OK)
        return pyocc_raise(OCC_ERR_INVALID_ARGUMENT, NULL, "cooperative_max");
    return PyLong_FromUnsignedLongLong(n);
}

static PyObject *res_device(pyocc_residency *self, void *unused)
{
    return Py_NewRef((PyObject *)self->device);
}

static PyObject *next_steps_list(pyocc_device *dev, const occ_kernel *k)
{
    occ_next_step steps[OCC_INPUT_COUNT * 2];
    size_t n = occ_next_steps(dev->dev, k, steps, sizeof steps / sizeof steps[0]);
    if (n > sizeof steps / sizeof steps[0])
        n = sizeof steps / sizeof steps[0];
    PyObject *list = PyList_New((Py_ssize_t)n);
    for (size_t i = 0; list && i < n; i++) {
        char text[512];
        occ_next_step_format(dev->dev, &steps[i], text, sizeof text);
        PyObject *s = PyStructSequence_New(&pyocc_next_step_type);
        if (!s) {
            Py_CLEAR(list);
            break;
        }
        PyStructSequence_SET_ITEM(s, 0, PyUnicode_FromString(pyocc_input_name(steps[i].input)));
        PyStructSequence_SET_ITEM(s, 1, PyLong_FromUnsignedLongLong(steps[i].value));
        PyStructSequence_SET_ITEM(s, 2, PyBool_FromLong(steps[i].at_most));
        PyStructSequence_SET_ITEM(s, 3, PyLong_FromUnsignedLong(steps[i].resident_wgs));
        PyStructSequence_SET_ITEM(s, 4, PyFloat_FromDouble(steps[i].occupancy));
        PyStructSequence_SET_ITEM(s, 5, PyUnicode_FromString(text));
        for (int j = 0; j < 6; j++)
            if (!PyStructSequence_GET_ITEM(s, j)) {
                Py_DECREF(s);
                Py_CLEAR(list);
                return NULL;
            }
        PyList_SET_ITEM(list, (Py_ssize_t)i, s);
    }
    return list;
}

static PyObject *res_next_steps(pyocc_residency *self, void *unused)
{
    if (!self->next_steps)
        self->next_steps = next_steps_list(self->device, &self->k);
    if (!self->next_steps)
        return NULL;
    return PyList_GetSlice(self->next_steps, 0, PyList_GET_SIZE(self->next_steps));
}

static PyObject *res_gpu(pyocc_residency *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"work_groups", "global_size", NULL};
    PyObject *wgs = NULL, *global = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O$O:gpu", kwlist, &wgs, &global))
        return NULL;
    uint64_t n = 0;
    if ((wgs && wgs != Py_None) == (global && global != Py_None)) {
        PyErr_SetString(PyExc_TypeError, "gpu() takes work_groups or global_size (exactly one)");
        return NULL;
    }
    if (wgs && wgs != Py_None) {
        long long v;
        if (pyocc_int_arg(wgs, "work_groups", 1, INT64_MAX, 1, &v) < 0)
            return NULL;
        n = (uint64_t)v;
    } else {
        uint64_t g[3] = {1, 1, 1};
        PyObject *seq = PySequence_Fast(global, "global_size must be 1 to 3 integers");
        if (!seq)
            return NULL;
        Py_ssize_t len = PySequence_Fast_GET_SIZE(seq);
        if (len < 1 || len > 3) {
            Py_DECREF(seq);
            PyErr_Format(PyExc_ValueError, "global_size must have 1 to 3 dimensions, got %zd", len);
            return NULL;
        }
        for (Py_ssize_t i = 0; i < len; i++) {
            long long v;
            if (pyocc_int_arg(PySequence_Fast_GET_ITEM(seq, i), "global_size", 1, INT64_MAX, 1,
                              &v) < 0) {
                Py_DECREF(seq);
                return NULL;
            }
            g[i] = (uint64_t)v;
        }
        Py_DECREF(seq);
        occ_diag diag;
        memset(&diag, 0, sizeof diag);
        occ_status st = occ_work_groups_for_global(&self->k, g, &n, &diag);
        if (st != OCC_OK)
            return pyocc_raise(st, &diag, "global_size");
    }
    occ_gpu g;
    memset(&g, 0, sizeof g);
    g.struct_size = sizeof g;
    occ_status st;
    if (self->k.cluster[0]) { /* waves of clusters (docs/clusters.md) */
        occ_clusters cl;
        st = occ_cluster_compute(self->device->dev, &self->k, &cl, NULL);
        if (st == OCC_OK)
            st = occ_gpu_compute_clusters(self->device->dev, &self->r, &cl, n, &g);
    } else {
        st = occ_gpu_compute(self->device->dev, &self->r, n, &g);
    }
    if (st != OCC_OK)
        return pyocc_raise(st, NULL, "gpu");
    PyObject *s = PyStructSequence_New(&waves_type);
    if (!s)
        return NULL;
    PyStructSequence_SET_ITEM(s, 0, PyLong_FromUnsignedLongLong(g.work_groups));
    PyStructSequence_SET_ITEM(s, 1, PyLong_FromUnsignedLongLong(g.contexts_needed));
    PyStructSequence_SET_ITEM(s, 2, PyLong_FromUnsignedLongLong(g.contexts_total));
    PyStructSequence_SET_ITEM(s, 3, PyLong_FromUnsignedLongLong(g.wave_capacity));
    PyStructSequence_SET_ITEM(s, 4, PyLong_FromUnsignedLongLong(g.waves));
    PyStructSequence_SET_ITEM(s, 5, PyLong_FromUnsignedLongLong(g.full_waves));
    PyStructSequence_SET_ITEM(s, 6, PyFloat_FromDouble(g.full_wave_occupancy));
    PyStructSequence_SET_ITEM(s, 7, PyLong_FromUnsignedLongLong(g.last_wave_work_groups));
    PyStructSequence_SET_ITEM(s, 8, PyFloat_FromDouble(g.last_wave_occupancy));
    PyStructSequence_SET_ITEM(s, 9, PyFloat_FromDouble(g.average_occupancy));
    PyStructSequence_SET_ITEM(s, 10, PyFloat_FromDouble(g.intel_calculator_occupancy));
    for (int j = 0; j < 11; j++)
        if (!PyStructSequence_GET_ITEM(s, j)) {
            Py_DECREF(s);
            return NULL;
        }
    return s;
}

static PyObject *res_repr(pyocc_residency *self)
{
    char occ_text[32];
    snprintf(occ_text, sizeof occ_text, "%.1f %%", self->r.occupancy * 100.0);
    if (!self->r.launchable) {
        PyObject *reason = res_reason(self, NULL);
        if (!reason)
            return NULL;
        PyObject *r = PyUnicode_FromFormat("<occ.Residency cannot launch: %U>", reason);
        Py_DECREF(reason);
        return r;
    }
    const char *limiter = "none";
    for (int i = 0; i < OCC_RES_COUNT; i++)
        if (self->r.limited_by & (1u << i)) {
            limiter = occ_resource_name((occ_resource)i);
            break;
        }
    return PyUnicode_FromFormat(
        "<occ.Residency %u work-group%s/core, %s, limited by %s (wg %llu, sg %u)>",
        (unsigned)self->r.resident_wgs, self->r.resident_wgs == 1 ? "" : "s", occ_text, limiter,
        (unsigned long long)self->r.wg_size,
        (unsigned)self->r.sub_group);
}

#define RMEM(name, type, field, doc)                                                          \
    {name, type, offsetof(pyocc_residency, r) + offsetof(occ_residency, field), READONLY, doc}

static PyMemberDef residency_members[] = {
    RMEM("launchable", T_BOOL, launchable, "False when the kernel cannot launch (see reason)"),
    RMEM("reason_code", T_INT, reason, "libocc's occ_reason value; 0 when launchable"),
    RMEM("occupancy", T_DOUBLE, occupancy, "core occupancy: thread contexts used / per core, 0..1"),
    RMEM("resident_wgs", T_UINT, resident_wgs, "resident work-groups per core"),
    RMEM("sub_group", T_UINT, sub_group, "the sub-group (SIMD) size used"),
    RMEM("grf", T_UINT, grf, "the GRF mode used (registers per thread)"),
    RMEM("wg_size", T_ULONGLONG, wg_size, "work-items per work-group"),
    RMEM("contexts_per_wg", T_UINT, contexts_per_wg, "thread contexts per work-group, ceil(W/S)"),
    RMEM("contexts_per_core", T_UINT, contexts_per_core, "thread contexts per core in this GRF mode"),
    RMEM("contexts_used", T_UINT, contexts_used, "thread contexts used per core"),
    RMEM("contexts_idle", T_UINT, contexts_idle, "thread contexts left idle per core"),
    RMEM("limited_by_mask", T_UINT, limited_by, "bit mask (1 << resource index) of binding limits"),
    RMEM("slm_per_wg_alloc", T_ULONGLONG, slm_per_wg_alloc,
         "local memory allocated per work-group (reserved part and rounding included)"),
    RMEM("slm_core_config", T_ULONGLONG, slm_core_config, "the core's local memory size used (carveout)"),
    RMEM("regs_per_wg_alloc", T_UINT, regs_per_wg_alloc, "registers allocated per work-group"),
    {NULL, 0, 0, 0, NULL},
};

static PyGetSetDef residency_getset[] = {
    {"reason", (getter)res_reason, NULL, "why the kernel cannot launch, in words; None when it can", NULL},
    {"limiter", (getter)res_limiter, NULL, "the first binding resource's name, or None", NULL},
    {"limited_by", (getter)res_limited_by, NULL, "names of every binding resource", NULL},
    {"limits", (getter)res_limits, NULL,
     "work-groups per core each resource allows: {'threads', 'slm', 'registers', "
     "'work_group_slots', 'barriers'}; None = does not limit", NULL},
    {"next_steps", (getter)res_next_steps, NULL,
     "list of occ.NextStep: the smallest single changes that raise residency, best first", NULL},
    {"wg", (getter)res_wg, NULL, "the work-group shape (x, y, z)", NULL},
    {"slm", (getter)res_slm, NULL, "local memory per work-group requested, bytes", NULL},
    {"barrier", (getter)res_barrier, NULL, "whether the kernel uses a barrier", NULL},
    {"device", (getter)res_device, NULL, "the device this was computed for", NULL},
    {"max_active_clusters", (getter)res_max_active_clusters, NULL,
     "clusters resident at once for a launch in clusters (cluster=; occ_cluster_compute, "
     "cuOccupancyMaxActiveClusters); None when not launched in clusters", NULL},
    {"cluster_occupancy", (getter)res_cluster_occupancy, NULL,
     "a core's occupancy in the launch in clusters, under the cluster cap (occ_clusters.occupancy; "
     "next_steps are judged by it); None when not launched in clusters", NULL},
    {"cooperative_max", (getter)res_cooperative_max, NULL,
     "the most work-groups one cooperative launch may have, as the driver counts them "
     "(occ_cooperative_max); 0 when the kernel cannot launch", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef residency_methods[] = {
    {"gpu", (PyCFunction)(void (*)(void))res_gpu, METH_VARARGS | METH_KEYWORDS,
     "gpu($self, work_groups=None, *, global_size=None)\n--\n\n"
     "occ.Waves: the whole GPU for work_groups work-groups (or the work-groups of a 1-3 D\n"
     "global size, which the work-group shape must divide), equal durations."},
    {NULL, NULL, 0, NULL},
};

PyTypeObject pyocc_residency_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "occ.Residency",
    .tp_basicsize = sizeof(pyocc_residency),
    .tp_dealloc = (destructor)residency_dealloc,
    .tp_repr = (reprfunc)res_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Per-core residency of one kernel on one device (Device.residency()).\n\n"
              "occupancy, resident_wgs, limiter, limited_by, limits and next_steps are\n"
              "what occcalc prints; reason says why a kernel cannot launch.",
    .tp_members = residency_members,
    .tp_getset = residency_getset,
    .tp_methods = residency_methods,
};

/* ---- Device --------------------------------------------------------------- */

static void device_dealloc(pyocc_device *self)
{
    occ_device_free(self->dev);
    Py_XDECREF(self->spec);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int device_init(pyocc_device *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"name_or_path", NULL};
    PyObject *spec = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O:Device", kwlist, &spec))
        return -1;
    occ_device *dev = NULL;
    occ_diag diag;
    memset(&diag, 0, sizeof diag);
    occ_status st;
    PyObject *bytes = NULL;
    if (!spec || spec == Py_None) {
        st = occ_device_open(NULL, &dev, &diag);
    } else if (PyUnicode_Check(spec)) {
        if (!PyUnicode_FSConverter(spec, &bytes))
            return -1;
        const char *s = PyBytes_AS_STRING(bytes);
        if ((size_t)PyBytes_GET_SIZE(bytes) != strlen(s)) {
            Py_DECREF(bytes);
            PyErr_SetString(PyExc_ValueError, "device name or path contains a NUL character");
            return -1;
        }
        st = occ_device_open(s, &dev, &diag);
    } else if (PyObject_HasAttrString(spec, "__fspath__")) {
        /* A path object is always a file, even without '/' or ".yaml". */
        if (!PyUnicode_FSConverter(spec, &bytes))
            return -1;
        const char *s = PyBytes_AS_STRING(bytes);
        if ((size_t)PyBytes_GET_SIZE(bytes) != strlen(s)) {
            Py_DECREF(bytes);
            PyErr_SetString(PyExc_ValueError, "device path contains a NUL character");
            return -1;
        }
        st = occ_device_load_file(s, &dev, &diag);
    } else {
        PyErr_Format(PyExc_TypeError,
                     "device must be a built-in name (str) or a path to a YAML profile, not %.80s",
                     Py_TYPE(spec)->tp_name);
        return -1;
    }
    Py_XDECREF(bytes);
    if (st != OCC_OK) {
        occ_device_free(dev);
        pyocc_raise(st, &diag, "device");
        return -1;
    }
    occ_device_free(self->dev);
    self->dev = dev;
    PyObject *origin = PyUnicode_DecodeFSDefault(occ_device_origin(dev));
    if (!origin)
        return -1;
    Py_XSETREF(self->spec, origin);
    return 0;
}

static int device_ready(pyocc_device *self)
{
    if (!self->dev) {
        PyErr_SetString(PyExc_RuntimeError, "Device was not initialised");
        return -1;
    }
    return 0;
}

/* residency(wg, *, sg=None, slm=0, barrier=False, grf=None, regs=None, carveout=None):
 * vectorcall-style parsing, since this is the call a tuner makes in a loop. */
static PyObject *device_residency(pyocc_device *self, PyObject *const *args, Py_ssize_t nargs,
                                  PyObject *kwnames)
{
    if (device_ready(self) < 0)
        return NULL;
    enum { WG, SG, SLM, BARRIER, GRF, REGS, CARVEOUT, MAX_WG, REQD_WG, REQD_SG, CLUSTER, NON_PORTABLE, SGPRS,
           CU_MODE, NKW };
    static const char *const names[NKW] = {"wg",      "sg",       "slm",    "barrier", "grf",
                                           "regs",    "carveout", "max_wg", "reqd_wg", "reqd_sg",
                                           "cluster", "cluster_non_portable", "sgprs", "cu_mode"};
    PyObject *v[NKW] = {NULL};
    if (nargs > 1) {
        PyErr_Format(PyExc_TypeError,
                     "residency() takes the work-group size positionally and the rest by keyword "
                     "(%zd positional arguments given)", nargs);
        return NULL;
    }
    if (nargs == 1)
        v[WG] = args[0];
    /* Keyword names are interned by the compiler: compare pointers first. */
    static PyObject *interned[NKW];
    if (!interned[0]) {
        for (int j = 0; j < NKW; j++) {
            interned[j] = PyUnicode_InternFromString(names[j]);
            if (!interned[j])
                return NULL;
        }
    }
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t i = 0; i < nkw; i++) {
        PyObject *key = PyTuple_GET_ITEM(kwnames, i);
        int slot = -1;
        for (int j = 0; j < NKW && slot < 0; j++)
            if (key == interned[j])
                slot = j;
        for (int j = 0; j < NKW && slot < 0; j++)
            if (PyUnicode_CompareWithASCIIString(key, names[j]) == 0)
                slot = j;
        if (slot < 0) {
            PyErr_Format(PyExc_TypeError,
                         "residency() got an unexpected keyword argument '%U' (expected wg, sg, "
                         "slm, barrier, grf, regs, carveout, max_wg, reqd_wg, reqd_sg, cluster, "
                         "cluster_non_portable, sgprs, cu_mode)", key);
            return NULL;
        }
        if (v[slot]) {
            PyErr_Format(PyExc_TypeError, "residency() got multiple values for argument '%s'",
                         names[slot]);
            return NULL;
        }
        v[slot] = args[nargs + i];
    }
    pyocc_residency *res = PyObject_New(pyocc_residency, &pyocc_residency_type);
    if (!res)
        return NULL;
    res->device = NULL;
    res->next_steps = NULL;
    if (pyocc_kernel_from(v[WG], v[SG], v[SLM], v[BARRIER], v[GRF], v[REGS], v[CARVEOUT],
                          &res->k) < 0 ||
        pyocc_constraints_from(v[MAX_WG], v[REQD_WG], v[REQD_SG], &res->k) < 0 ||
        pyocc_cluster_from(v[CLUSTER], v[NON_PORTABLE], &res->k) < 0 ||
        pyocc_amd_from(v[SGPRS], v[CU_MODE], &res->k) < 0) {
        Py_DECREF(res);
        return NULL;
    }
    res->k.grf = occ_grf_as_driver(occ_device_describe(self->dev), res->k.grf);
    res->device = (pyocc_device *)Py_NewRef((PyObject *)self);
    occ_residency_init(&res->r);
    occ_status st = occ_residency_compute(self->dev, &res->k, &res->r);
    if (st != OCC_OK) {
        Py_DECREF(res);
        return pyocc_raise(st, NULL, "residency");
    }
    if (res->k.cluster[0]) { /* a cluster launch the device refuses: now, in words */
        occ_clusters cl;
        occ_diag diag = {0};
        if ((st = occ_cluster_compute(self->dev, &res->k, &cl, &diag)) != OCC_OK) {
            Py_DECREF(res);
            return pyocc_raise(st, &diag, "residency");
        }
    }
    return (PyObject *)res;
}

static PyObject *u64_list(const uint64_t *v, uint32_t n)
{
    PyObject *l = PyList_New(n);
    for (uint32_t i = 0; l && i < n; i++) {
        PyObject *o = PyLong_FromUnsignedLongLong(v[i]);
        if (!o) {
            Py_CLEAR(l);
            break;
        }
        PyList_SET_ITEM(l, i, o);
    }
    return l;
}

static PyObject *u32_list(const uint32_t *v, uint32_t n)
{
    PyObject *l = PyList_New(n);
    for (uint32_t i = 0; l && i < n; i++) {
        PyObject *o = PyLong_FromUnsignedLong(v[i]);
        if (!o) {
            Py_CLEAR(l);
            break;
        }
        PyList_SET_ITEM(l, i, o);
    }
    return l;
}

static PyObject *limit_or_none(uint32_t v)
{
    return v == OCC_NO_LIMIT ? Py_NewRef(Py_None) : PyLong_FromUnsignedLong(v);
}

static PyObject *device_describe(pyocc_device *self, PyObject *unused)
{
    if (device_ready(self) < 0)
        return NULL;
    const occ_device_desc *d = occ_device_describe(self->dev);
    PyObject *o = PyDict_New();
    if (!o)
        return NULL;
    PyObject *modes = PyList_New(d->n_grf_modes);
    for (uint32_t i = 0; modes && i < d->n_grf_modes; i++) {
        PyObject *t = Py_BuildValue("(kk)", (unsigned long)d->grf_modes[i].registers,
                                    (unsigned long)d->grf_modes[i].threads_per_engine);
        if (!t) {
            Py_CLEAR(modes);
            break;
        }
        PyList_SET_ITEM(modes, i, t);
    }
    size_t ns = occ_device_source_count(self->dev);
    PyObject *sources = PyList_New((Py_ssize_t)ns);
    for (size_t i = 0; sources && i < ns; i++) {
        PyObject *s = PyUnicode_FromString(occ_device_source(self->dev, i));
        if (!s) {
            Py_CLEAR(sources);
            break;
        }
        PyList_SET_ITEM(sources, (Py_ssize_t)i, s);
    }
    const char *evidence = occ_device_dispatch_evidence(self->dev);
    int bad =
        pyocc_dict_steal(o, "name", PyUnicode_FromString(d->name)) < 0 ||
        pyocc_dict_steal(o, "product", PyUnicode_FromString(d->product)) < 0 ||
        pyocc_dict_steal(o, "architecture", PyUnicode_FromString(d->architecture)) < 0 ||
        pyocc_dict_steal(o, "target", PyUnicode_FromString(d->target)) < 0 ||
        pyocc_dict_steal(o, "vendor", PyUnicode_FromString(pyocc_vendor_word(d->vendor))) < 0 ||
        pyocc_dict_steal(o, "provisional", PyBool_FromLong(d->provisional)) < 0 ||
        pyocc_dict_steal(o, "origin", PyUnicode_DecodeFSDefault(occ_device_origin(self->dev))) < 0 ||
        pyocc_dict_steal(o, "core_name", PyUnicode_FromString(d->core_name)) < 0 ||
        pyocc_dict_steal(o, "engine_name", PyUnicode_FromString(d->engine_name)) < 0 ||
        pyocc_dict_steal(o, "cores", PyLong_FromUnsignedLong(d->cores)) < 0 ||
        pyocc_dict_steal(o, "engines_per_core", PyLong_FromUnsignedLong(d->engines_per_core)) < 0 ||
        pyocc_dict_steal(o, "simd_width", PyLong_FromUnsignedLong(d->simd_width)) < 0 ||
        pyocc_dict_steal(o, "sub_group_sizes", u32_list(d->sub_group_sizes, d->n_sub_group_sizes)) < 0 ||
        pyocc_dict_steal(o, "grf_modes", modes) < 0 ||
        pyocc_dict_steal(o, "default_grf", PyLong_FromUnsignedLong(d->default_grf)) < 0 ||
        pyocc_dict_steal(o, "max_work_group_size", PyLong_FromUnsignedLong(d->max_work_group_size)) < 0 ||
        pyocc_dict_steal(o, "max_work_groups_per_core",
                         PyLong_FromUnsignedLong(d->max_work_groups_per_core)) < 0 ||
        pyocc_dict_steal(o, "barriers_per_core", limit_or_none(d->barriers_per_core)) < 0 ||
        pyocc_dict_steal(o, "local_memory_name", PyUnicode_FromString(d->local_memory_name)) < 0 ||
        pyocc_dict_steal(o, "slm_per_core", PyLong_FromUnsignedLongLong(d->slm_per_core)) < 0 ||
        pyocc_dict_steal(o, "slm_max_per_work_group",
                         PyLong_FromUnsignedLongLong(d->slm_max_per_work_group)) < 0 ||
        pyocc_dict_steal(o, "slm_reserved_per_work_group",
                         PyLong_FromUnsignedLongLong(d->slm_reserved_per_work_group)) < 0 ||
        pyocc_dict_steal(o, "slm_granule", PyLong_FromUnsignedLong(d->slm_granule)) < 0 ||
        pyocc_dict_steal(o, "slm_steps", u64_list(d->slm_steps, d->n_slm_steps)) < 0 ||
        pyocc_dict_steal(o, "carveouts", u64_list(d->carveouts, d->n_carveouts)) < 0 ||
        pyocc_dict_steal(o, "has_register_file", PyBool_FromLong(d->has_register_file)) < 0 ||
        pyocc_dict_steal(o, "regs_per_core", PyLong_FromUnsignedLong(d->regs_per_core)) < 0 ||
        pyocc_dict_steal(o, "reg_max_per_thread", PyLong_FromUnsignedLong(d->reg_max_per_thread)) < 0 ||
        pyocc_dict_steal(o, "reg_max_per_work_group",
                         PyLong_FromUnsignedLong(d->reg_max_per_work_group)) < 0 ||
        pyocc_dict_steal(o, "dispatch_order", PyUnicode_FromString(
                             d->dispatch_order == OCC_DISPATCH_SPREAD ? "spread" : "pack")) < 0 ||
        pyocc_dict_steal(o, "partial_dispatch", PyBool_FromLong(d->partial_dispatch)) < 0 ||
        pyocc_dict_steal(o, "sources", sources) < 0 ||
        pyocc_dict_steal(o, "dispatch_evidence",
                         evidence ? PyUnicode_FromString(evidence) : Py_NewRef(Py_None)) < 0;
    if (bad) {
        Py_DECREF(o);
        return NULL;
    }
    return o;
}

static PyObject *device_slm_limit(pyocc_device *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"wg", "min_resident", "sg", "barrier", "grf", "regs", "carveout", NULL};
    PyObject *wg = NULL, *minr = NULL, *sg = NULL, *barrier = NULL, *grf = NULL, *regs = NULL,
             *carveout = NULL;
    if (device_ready(self) < 0 ||
        !PyArg_ParseTupleAndKeywords(args, kwargs, "O|O$OOOOO:slm_limit", kwlist, &wg, &minr, &sg,
                                     &barrier, &grf, &regs, &carveout))
        return NULL;
    occ_kernel k;
    long long m;
    if (pyocc_kernel_from(wg, sg, NULL, barrier, grf, regs, carveout, &k) < 0 ||
        pyocc_int_arg(minr, "min_resident", 1, UINT32_MAX, 1, &m) < 0)
        return NULL;
    k.grf = occ_grf_as_driver(occ_device_describe(self->dev), k.grf);
    uint64_t bytes = 0;
    if (!occ_slm_limit(self->dev, &k, (uint32_t)m, &bytes))
        Py_RETURN_NONE;
    return PyLong_FromUnsignedLongLong(bytes);
}

static PyObject *device_get_origin(pyocc_device *self, void *unused)
{
    if (device_ready(self) < 0)
        return NULL;
    return PyUnicode_DecodeFSDefault(occ_device_origin(self->dev));
}

static PyObject *device_get_name(pyocc_device *self, void *unused)
{
    if (device_ready(self) < 0)
        return NULL;
    return PyUnicode_FromString(occ_device_describe(self->dev)->name);
}

static PyObject *device_repr(pyocc_device *self)
{
    if (!self->dev)
        return PyUnicode_FromString("<occ.Device (not initialised)>");
    const occ_device_desc *d = occ_device_describe(self->dev);
    return PyUnicode_FromFormat("<occ.Device %s: %s [%s]>", d->name, d->product,
                                occ_device_origin(self->dev));
}

static PyMethodDef device_methods[] = {
    {"residency", (PyCFunction)(void (*)(void))device_residency, METH_FASTCALL | METH_KEYWORDS,
     "residency($self, wg, *, sg=None, slm=0, barrier=False, grf=None, regs=None, carveout=None,\n"
     "          max_wg=None, reqd_wg=None, reqd_sg=None, sgprs=None, cu_mode=False)\n"
     "--\n\n"
     "Per-core residency of one kernel: an occ.Residency.\n\n"
     "wg: work-group size, an int or 1 to 3 ints (x, y, z)\n"
     "sg: sub-group (SIMD) size; None = the smallest the device supports\n"
     "slm: local (shared) memory per work-group, bytes\n"
     "barrier: the kernel uses a work-group barrier\n"
     "grf: Intel GRF registers per thread (selects the GRF mode); None = default\n"
     "regs: NVIDIA registers per thread; None = unknown (not limiting)\n"
     "carveout: NVIDIA shared-memory carveout preference, percent; None = default\n"
     "max_wg, reqd_wg, reqd_sg: the kernel's maximum work-group size (launch bounds),\n"
     "  required work-group size and required sub-group size; a launch outside them\n"
     "  cannot launch; None = none\n"
     "sgprs: AMD scalar registers per wave; None = unknown (not limiting)\n"
     "cu_mode: AMD RDNA, the kernel was compiled for CU mode (-mcumode)\n\n"
     "A kernel that cannot launch is a result (launchable False, reason says\n"
     "why), not an exception.  Bad arguments raise TypeError or ValueError."},
    {"_residency_batch", (PyCFunction)pyocc_residency_batch, METH_VARARGS,
     "Internal: Device.residency_batch's C part."},
    {"_max_active_clusters_batch", (PyCFunction)pyocc_max_active_clusters_batch, METH_VARARGS,
     "Internal: Device.residency_batch's clusters (cluster=)."},
    {"_cooperative_max_batch", (PyCFunction)pyocc_cooperative_max_batch, METH_VARARGS,
     "Internal: BatchResult.cooperative_max's C part."},
    {"_phases", (PyCFunction)(void (*)(void))pyocc_phases, METH_VARARGS | METH_KEYWORDS,
     "Internal: Device.phases's C part."},
    {"_advise", (PyCFunction)(void (*)(void))pyocc_advise, METH_VARARGS | METH_KEYWORDS,
     "Internal: Device.advise's C part."},
    {"_bounds", (PyCFunction)(void (*)(void))pyocc_bounds, METH_VARARGS | METH_KEYWORDS,
     "Internal: Device.bounds's C part."},
    {"_sweep", (PyCFunction)(void (*)(void))pyocc_sweep, METH_VARARGS | METH_KEYWORDS,
     "Internal: Device.sweep's C part."},
    {"_limits", (PyCFunction)(void (*)(void))pyocc_limits, METH_VARARGS | METH_KEYWORDS,
     "Internal: Device.limits's C part."},
    {"cuda_block_size", (PyCFunction)(void (*)(void))pyocc_cuda_block_size,
     METH_VARARGS | METH_KEYWORDS,
     "cuda_block_size($self, *, slm=0, static_slm=0, regs=None, barrier=False, carveout=None,\n"
     "                block_limit=0, max_threads=0)\n--\n\n"
     "CUDA's choice of block size, as cudaOccupancyMaxPotentialBlockSize\n"
     "answers it (NVIDIA devices): the largest block size reaching the most\n"
     "resident threads per SM, searched down from the largest allowed in steps of\n"
     "the warp size.  occ's own ranking is Device.advise.\n\n"
     "slm: dynamic shared memory per block, bytes, or a function of the block\n"
     "     size (cudaOccupancyMaxPotentialBlockSizeVariableSMem)\n"
     "static_slm: the kernel's static shared memory, bytes\n"
     "block_limit: CUDA's blockSizeLimit; 0 = none\n"
     "max_threads: the kernel's own maximum (launch bounds); 0 = none\n\n"
     "Returns a dict: block_size (0 when none launches), min_grid_size (resident\n"
     "blocks x SMs), resident_wgs, occupancy."},
    {"describe", (PyCFunction)device_describe, METH_NOARGS,
     "describe($self, /)\n--\n\nEverything the profile says about the device (the fields of\n"
     "occ_device_desc), as a dict."},
    {"slm_limit", (PyCFunction)(void (*)(void))device_slm_limit, METH_VARARGS | METH_KEYWORDS,
     "slm_limit($self, wg, min_resident=1, *, sg=None, barrier=False, grf=None, regs=None,\n"
     "          carveout=None)\n--\n\n"
     "The most local memory per work-group (bytes) with which the kernel still\n"
     "keeps at least min_resident work-groups per core; None if none does."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef device_getset[] = {
    {"name", (getter)device_get_name, NULL, "the profile's short name, e.g. 'tgl'", NULL},
    {"origin", (getter)device_get_origin, NULL, "the profile's file, or '<builtin:NAME>'", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject pyocc_device_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "occ._occ.Device",
    .tp_basicsize = sizeof(pyocc_device),
    .tp_dealloc = (destructor)device_dealloc,
    .tp_repr = (reprfunc)device_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "Device(name_or_path='tgl')\n\nA device profile loaded by libocc: a built-in name "
              "or a YAML file.",
    .tp_methods = device_methods,
    .tp_getset = device_getset,
    .tp_init = (initproc)device_init,
    .tp_new = PyType_GenericNew,
};

int pyocc_device_init_types(PyObject *module)
{
    if (PyType_Ready(&pyocc_device_type) < 0 || PyType_Ready(&pyocc_residency_type) < 0)
        return -1;
    if (PyStructSequence_InitType2(&pyocc_next_step_type, &next_step_desc) < 0 ||
        PyStructSequence_InitType2(&waves_type, &waves_desc) < 0)
        return -1;
    if (PyModule_AddObjectRef(module, "Device", (PyObject *)&pyocc_device_type) < 0 ||
        PyModule_AddObjectRef(module, "Residency", (PyObject *)&pyocc_residency_type) < 0 ||
        PyModule_AddObjectRef(module, "NextStep", (PyObject *)&pyocc_next_step_type) < 0 ||
        PyModule_AddObjectRef(module, "Waves", (PyObject *)&waves_type) < 0)
        return -1;
    return 0;
}
