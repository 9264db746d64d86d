/* occ._occ: module definition, occ.OccError and argument helpers. */
#include "pyocc.h"

#include <string.h>

PyObject *pyocc_error;

PyObject *pyocc_raise(occ_status status, const occ_diag *diag, const char *context)
{
    char text[1024];
    if (diag && diag->message[0]) {
        occ_diag_format(diag, text, sizeof text);
    } else {
        snprintf(text, sizeof text, "%s%s%s", context ? context : "", context ? ": " : "",
                 occ_status_text(status));
    }
    /* Paths in messages need not be UTF-8: undecodable bytes become U+FFFD. */
    PyObject *msg = PyUnicode_DecodeUTF8(text, (Py_ssize_t)strlen(text), "replace");
    if (!msg)
        return NULL;
    PyObject *exc = PyObject_CallOneArg(pyocc_error, msg);
    Py_DECREF(msg);
    if (!exc)
        return NULL;
    /* Attributes for programs: the status name and the diagnostic's parts. */
    PyObject *status_name = PyUnicode_FromString(occ_status_name(status));
    int bad = !status_name || PyObject_SetAttrString(exc, "status", status_name) < 0;
    Py_XDECREF(status_name);
    const char *file = diag ? diag->file : "";
    const char *key = diag ? diag->key : "";
    const char *message = diag && diag->message[0] ? diag->message : occ_status_text(status);
    PyObject *v;
    if (!bad) {
        v = PyUnicode_DecodeUTF8(file, (Py_ssize_t)strlen(file), "replace");
        bad = !v || PyObject_SetAttrString(exc, "file", v) < 0;
        Py_XDECREF(v);
    }
    if (!bad) {
        v = PyLong_FromUnsignedLong(diag ? diag->line : 0);
        bad = !v || PyObject_SetAttrString(exc, "line", v) < 0;
        Py_XDECREF(v);
    }
    if (!bad) {
        v = PyLong_FromUnsignedLong(diag ? diag->column : 0);
        bad = !v || PyObject_SetAttrString(exc, "column", v) < 0;
        Py_XDECREF(v);
    }
    if (!bad) {
        v = PyUnicode_DecodeUTF8(key, (Py_ssize_t)strlen(key), "replace");
        bad = !v || PyObject_SetAttrString(exc, "key", v) < 0;
        Py_XDECREF(v);
    }
    if (!bad) {
        v = PyUnicode_DecodeUTF8(message, (Py_ssize_t)strlen(message), "replace");
        bad = !v || PyObject_SetAttrString(exc, "message", v) < 0;
        Py_XDECREF(v);
    }
    if (!bad)
        PyErr_SetObject(pyocc_error, exc);
    Py_DECREF(exc);
    return NULL;
}

PyObject *pyocc_text(const char *s, const char *what)
{
    PyObject *v = PyUnicode_DecodeUTF8(s, (Py_ssize_t)strlen(s), "strict");
    if (v || !PyErr_ExceptionMatches(PyExc_UnicodeDecodeError))
        return v;
    PyErr_Clear();
    /* the name's bytes, escaped, so the message says which one */
    char shown[160];
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p && n + 5 < sizeof shown; p++)
        n += (size_t)snprintf(shown + n, sizeof shown - n, *p >= 0x20 && *p < 0x7f ? "%c" : "\\x%02x", *p);
    occ_diag diag;
    memset(&diag, 0, sizeof diag);
    snprintf(diag.message, sizeof diag.message, "%s '%s' is not valid UTF-8 (occcalc shows it escaped)",
             what, shown);
    return pyocc_raise(OCC_ERR_PARSE, &diag, NULL);
}

int pyocc_int_arg(PyObject *o, const char *name, long long lo, long long hi, long long dflt,
                  long long *out)
{
    if (!o || o == Py_None) {
        *out = dflt;
        return 0;
    }
    if (PyLong_CheckExact(o)) { /* the common case, without PyNumber_Index */
        int overflow = 0;
        long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
        if (!overflow && v >= lo && v <= hi) {
            *out = v;
            return 0;
        }
        if (v == -1 && PyErr_Occurred())
            return -1;
    }
    if (PyFloat_Check(o) || PyUnicode_Check(o) || PyBytes_Check(o) || !PyIndex_Check(o)) {
        PyErr_Format(PyExc_TypeError, "%s must be an integer, not %.80s", name,
                     Py_TYPE(o)->tp_name);
        return -1;
    }
    PyObject *idx = PyNumber_Index(o);
    if (!idx)
        return -1;
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(idx, &overflow);
    if (v == -1 && PyErr_Occurred()) {
        Py_DECREF(idx);
        return -1;
    }
    if (overflow || v < lo || v > hi) {
        PyErr_Format(PyExc_ValueError, "%s must be in %lld..%lld, got %R", name, lo, hi, idx);
        Py_DECREF(idx);
        return -1;
    }
    Py_DECREF(idx);
    *out = v;
    return 0;
}

/* A shape of 1 to 3 dimensions (the work-group, a required size, a
 * cluster) into dims; name is the argument's, for messages. */
static int shape_arg(PyObject *wg, const char *name, uint32_t dims[3])
{
    long long v;
    if (!wg) {
        PyErr_SetString(PyExc_TypeError, "wg (the work-group size) is required");
        return -1;
    }
    if (PyTuple_Check(wg) || PyList_Check(wg)) {
        Py_ssize_t n = PySequence_Fast_GET_SIZE(wg);
        if (n < 1 || n > 3) {
            PyErr_Format(PyExc_ValueError, "%s must have 1 to 3 dimensions, got %zd", name, n);
            return -1;
        }
        for (Py_ssize_t i = 0; i < n; i++) {
            char item_name[32];
            snprintf(item_name, sizeof item_name, "%s[%zd]", name, i);
            PyObject *item = PySequence_Fast_GET_ITEM(wg, i);
            if (item == Py_None) {
                PyErr_Format(PyExc_TypeError, "%s must be an integer, not None", item_name);
                return -1;
            }
            if (pyocc_int_arg(item, item_name, 0, UINT32_MAX, 1, &v) < 0)
                return -1;
            dims[i] = (uint32_t)v;
        }
        return 0;
    }
    if (wg == Py_None) {
        PyErr_Format(PyExc_TypeError, "%s must be an integer or 1 to 3 integers, not None", name);
        return -1;
    }
    if (pyocc_int_arg(wg, name, 0, UINT32_MAX, 1, &v) < 0)
        return -1;
    dims[0] = (uint32_t)v;
    return 0;
}

static int bool_arg(PyObject *o, const char *name, bool *out)
{
    if (!o || o == Py_None) {
        *out = false;
        return 0;
    }
    if (PyBool_Check(o)) {
        *out = o == Py_True;
        return 0;
    }
    long long v;
    if (pyocc_int_arg(o, name, 0, 1, 0, &v) < 0) {
        if (PyErr_ExceptionMatches(PyExc_TypeError)) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError, "%s must be a bool, not %.80s", name, Py_TYPE(o)->tp_name);
        }
        return -1;
    }
    *out = v != 0;
    return 0;
}

int pyocc_kernel_from(PyObject *wg, PyObject *sg, PyObject *slm, PyObject *barrier, PyObject *grf,
                      PyObject *regs, PyObject *carveout, occ_kernel *k)
{
    occ_kernel_init(k);
    long long v;
    if (shape_arg(wg, "wg", k->wg) < 0)
        return -1;
    if (pyocc_int_arg(sg, "sg", 0, UINT32_MAX, 0, &v) < 0)
        return -1;
    k->sub_group = (uint32_t)v;
    if (pyocc_int_arg(slm, "slm", 0, INT64_MAX, 0, &v) < 0)
        return -1;
    k->slm_bytes = (uint64_t)v;
    if (bool_arg(barrier, "barrier", &k->barrier) < 0)
        return -1;
    if (pyocc_int_arg(grf, "grf", 0, UINT32_MAX, 0, &v) < 0)
        return -1;
    k->grf = (uint32_t)v;
    if (pyocc_int_arg(regs, "regs", 0, UINT32_MAX, 0, &v) < 0)
        return -1;
    k->regs_per_thread = (uint32_t)v;
    if (pyocc_int_arg(carveout, "carveout", -1, INT32_MAX, -1, &v) < 0)
        return -1;
    k->carveout_pct = (int32_t)v;
    return 0;
}

int pyocc_amd_from(PyObject *sgprs, PyObject *cu_mode, occ_kernel *k)
{
    long long v;
    if (pyocc_int_arg(sgprs, "sgprs", 0, UINT32_MAX, 0, &v) < 0)
        return -1;
    k->sgprs = (uint32_t)v;
    bool cu = false;
    if (cu_mode && cu_mode != Py_None && bool_arg(cu_mode, "cu_mode", &cu) < 0)
        return -1;
    k->cu_mode = cu;
    return 0;
}

int pyocc_constraints_from(PyObject *max_wg, PyObject *reqd_wg, PyObject *reqd_sg, occ_kernel *k)
{
    long long v;
    if (pyocc_int_arg(max_wg, "max_wg", 0, UINT32_MAX, 0, &v) < 0)
        return -1;
    k->max_wg_size = (uint32_t)v;
    if (pyocc_int_arg(reqd_sg, "reqd_sg", 0, UINT32_MAX, 0, &v) < 0)
        return -1;
    k->reqd_sub_group = (uint32_t)v;
    if (reqd_wg && reqd_wg != Py_None) {
        occ_kernel shape;
        occ_kernel_init(&shape);
        if (shape_arg(reqd_wg, "wg", shape.wg) < 0)
            return -1;
        memcpy(k->reqd_wg, shape.wg, sizeof k->reqd_wg);
    }
    return 0;
}

int pyocc_cluster_from(PyObject *cluster, PyObject *non_portable, occ_kernel *k)
{
    if (bool_arg(non_portable, "cluster_non_portable", &k->cluster_non_portable) < 0)
        return -1;
    if (!cluster || cluster == Py_None)
        return 0;
    uint32_t dims[3] = {1, 1, 1};
    if (shape_arg(cluster, "cluster", dims) < 0)
        return -1;
    for (int i = 0; i < 3; i++)
        if (!dims[i]) {
            PyErr_SetString(PyExc_ValueError, "cluster dimensions must be positive");
            return -1;
        }
    memcpy(k->cluster, dims, sizeof dims);
    return 0;
}

int pyocc_path_and_device(PyObject *args, PyObject **path, const occ_device **dev)
{
    PyObject *dev_obj;
    *dev = NULL;
    if (!PyArg_ParseTuple(args, "O&O", PyUnicode_FSConverter, path, &dev_obj))
        return -1;
    if (dev_obj == Py_None)
        return 0;
    if (!PyObject_TypeCheck(dev_obj, &pyocc_device_type)) {
        Py_CLEAR(*path);
        PyErr_SetString(PyExc_TypeError, "device must be an occ.Device or None");
        return -1;
    }
    *dev = ((pyocc_device *)dev_obj)->dev;
    return 0;
}

int pyocc_dict_steal(PyObject *d, const char *key, PyObject *value)
{
    if (!value)
        return -1;
    int rc = PyDict_SetItemString(d, key, value);
    Py_DECREF(value);
    return rc;
}

const char *pyocc_input_name(occ_input in)
{
    static const char *const names[OCC_INPUT_COUNT] = {
        [OCC_INPUT_WG_SIZE] = "wg",       [OCC_INPUT_SUB_GROUP] = "sg",
        [OCC_INPUT_SLM] = "slm",          [OCC_INPUT_GRF] = "grf",
        [OCC_INPUT_REGISTERS] = "regs",   [OCC_INPUT_CARVEOUT] = "carveout",
        [OCC_INPUT_BARRIER] = "barrier",
    };
    return (unsigned)in < OCC_INPUT_COUNT ? names[in] : "unknown";
}

/* ---- module-level functions ---------------------------------------------- */

static PyObject *mod_builtin_devices(PyObject *mod, PyObject *unused)
{
    size_t n = occ_builtin_count();
    PyObject *list = PyList_New((Py_ssize_t)n);
    for (size_t i = 0; list && i < n; i++) {
        PyObject *s = PyUnicode_FromString(occ_builtin_name(i));
        if (!s) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, (Py_ssize_t)i, s);
    }
    return list;
}

static PyObject *mod_library_version(PyObject *mod, PyObject *unused)
{
    return PyUnicode_FromString(occ_version());
}

static PyObject *mod_builtin_yaml(PyObject *mod, PyObject *arg)
{
    const char *name = PyUnicode_AsUTF8(arg);
    if (!name)
        return NULL;
    const char *text = occ_builtin_yaml(name);
    if (!text) {
        occ_diag d;
        memset(&d, 0, sizeof d);
        snprintf(d.message, sizeof d.message, "no built-in device '%.200s'", name);
        return pyocc_raise(OCC_ERR_NOT_FOUND, &d, NULL);
    }
    return PyUnicode_FromString(text);
}

static const char *table_name(int which, int i)
{
    switch (which) {
    case 0: return occ_resource_name((occ_resource)i);
    case 1: return occ_reason_text((occ_reason)i);
    case 2: return occ_why_name((occ_why)i);
    default: return pyocc_input_name((occ_input)i);
    }
}

static PyObject *mod_name_table(PyObject *mod, PyObject *which)
{
    /* Names of the library's enumerations, index = value. */
    const char *w = PyUnicode_AsUTF8(which);
    if (!w)
        return NULL;
    static const char *const tables[4] = {"resource", "reason", "why", "input"};
    static const int counts[4] = {OCC_RES_COUNT, OCC_REASON_COUNT, OCC_WHY_COUNT, OCC_INPUT_COUNT};
    int which_i = -1;
    for (int i = 0; i < 4; i++)
        if (!strcmp(w, tables[i]))
            which_i = i;
    if (which_i < 0) {
        PyErr_Format(PyExc_ValueError, "no name table '%s'", w);
        return NULL;
    }
    PyObject *t = PyTuple_New(counts[which_i]);
    for (int i = 0; t && i < counts[which_i]; i++) {
        PyObject *s = PyUnicode_FromString(table_name(which_i, i));
        if (!s) {
            Py_CLEAR(t);
            break;
        }
        PyTuple_SET_ITEM(t, i, s);
    }
    return t;
}

static PyMethodDef module_methods[] = {
    {"builtin_devices", mod_builtin_devices, METH_NOARGS,
     "builtin_devices($module, /)\n--\n\nNames of the device profiles compiled into libocc."},
    {"library_version", mod_library_version, METH_NOARGS,
     "library_version($module, /)\n--\n\nlibocc's package version."},
    {"builtin_yaml", mod_builtin_yaml, METH_O,
     "builtin_yaml($module, name, /)\n--\n\nThe YAML text of a built-in profile."},
    {"_name_table", mod_name_table, METH_O, "Names of a libocc enumeration (internal)."},
    {"_read_kernels", pyocc_read_kernels, METH_VARARGS,
     "Kernels of a compiled file: (format, note, [dict per kernel]) (internal; use occ.kernels)."},
    {"_read_trace", pyocc_read_trace, METH_VARARGS,
     "A trace's records aggregated: a dict of tuples of dicts (internal; use occ.trace)."},
    {"_kernel_name_matches", pyocc_kernel_name_matches, METH_VARARGS,
     "Whether (name, mangled) answers to a query, as occ_kernel_name_matches (internal)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "occ._occ",
    "Low-level binding of libocc; use the `occ` package instead.", -1, module_methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__occ(void);
PyMODINIT_FUNC PyInit__occ(void)
{
    if (pyocc_batch_init() < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (!m)
        return NULL;
    pyocc_error = PyErr_NewExceptionWithDoc(
        "occ.OccError",
        "An error reported by libocc.\n\n"
        "str(e) is the library's message (for profiles: file:line:column: key: message).\n"
        "Attributes: status (e.g. 'OCC_ERR_SCHEMA'), file, line, column, key, message.",
        PyExc_ValueError, NULL);
    if (!pyocc_error || PyModule_AddObjectRef(m, "OccError", pyocc_error) < 0)
        goto fail;
    if (pyocc_device_init_types(m) < 0)
        goto fail;
    if (PyModule_AddIntConstant(m, "NO_LIMIT", OCC_NO_LIMIT) < 0 ||
        PyModule_AddIntConstant(m, "API_VERSION", OCC_API_VERSION) < 0 ||
        PyModule_AddIntConstant(m, "_BATCH_CHUNK", PYOCC_BATCH_CHUNK) < 0)
        goto fail;
    return m;
fail:
    Py_DECREF(m);
    return NULL;
}
