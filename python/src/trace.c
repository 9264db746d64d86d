/* occ._occ._read_trace: a trace of occ/trace.h as plain Python values (one
 * dict per process, device, kernel with its configurations, launch record,
 * and the totals); occ.trace() (python/occ/_api.py) turns them into
 * dataclasses.  Names come from record files and need not be UTF-8: bytes
 * that are not become U+FFFD. */
#include "pyocc.h"

#include "occ/trace.h"

#include <string.h>

static PyObject *text(const char *s)
{
    if (!s)
        Py_RETURN_NONE;
    return PyUnicode_DecodeUTF8(s, (Py_ssize_t)strlen(s), "replace");
}

static PyObject *dims64(const uint64_t v[3])
{
    return Py_BuildValue("(KKK)", (unsigned long long)v[0], (unsigned long long)v[1],
                         (unsigned long long)v[2]);
}

static PyObject *dims32(const uint32_t v[3])
{
    return Py_BuildValue("(III)", v[0], v[1], v[2]);
}

static PyObject *u64(uint64_t v)
{
    return PyLong_FromUnsignedLongLong(v);
}

static PyObject *index_or_none(size_t i)
{
    return i == OCC_TRACE_NONE ? Py_NewRef(Py_None) : PyLong_FromSize_t(i);
}

static PyObject *limited_by(uint32_t mask)
{
    PyObject *t = PyList_New(0);
    for (int i = 0; t && i < OCC_RES_COUNT; i++) {
        if (!(mask & (1u << i)))
            continue;
        PyObject *s = PyUnicode_FromString(occ_resource_name((occ_resource)i));
        if (!s || PyList_Append(t, s) < 0)
            Py_CLEAR(t);
        Py_XDECREF(s);
    }
    return t ? PyList_AsTuple(t) : NULL;
}

/* The prediction of a configuration (None: not predicted). */
static PyObject *prediction(const occ_trace_config *c)
{
    if (!c->predicted)
        Py_RETURN_NONE;
    const occ_residency *r = &c->residency;
    PyObject *d = PyDict_New();
    if (!d ||
        pyocc_dict_steal(d, "launchable", PyBool_FromLong(r->launchable)) < 0 ||
        pyocc_dict_steal(d, "reason", r->launchable ? Py_NewRef(Py_None) : text(c->cannot_launch)) < 0 ||
        pyocc_dict_steal(d, "sub_group", PyLong_FromUnsignedLong(r->sub_group)) < 0 ||
        pyocc_dict_steal(d, "local_memory_bytes", u64(c->model_kernel.slm_bytes)) < 0 ||
        pyocc_dict_steal(d, "resident_wgs", PyLong_FromUnsignedLong(r->launchable ? r->resident_wgs : 0)) < 0 ||
        pyocc_dict_steal(d, "occupancy", PyFloat_FromDouble(r->launchable ? r->occupancy : 0.0)) < 0 ||
        pyocc_dict_steal(d, "limited_by", limited_by(r->launchable ? r->limited_by : 0)) < 0 ||
        pyocc_dict_steal(d, "waves", c->have_gpu ? u64(c->gpu.waves) : Py_NewRef(Py_None)) < 0 ||
        pyocc_dict_steal(d, "waves_average_occupancy",
                         c->have_gpu ? PyFloat_FromDouble(c->gpu.average_occupancy) : Py_NewRef(Py_None)) < 0 ||
        pyocc_dict_steal(d, "next_step", c->next_step[0] ? text(c->next_step) : Py_NewRef(Py_None)) < 0)
        Py_CLEAR(d);
    return d;
}

static PyObject *config_dict(const occ_trace_config *c)
{
    PyObject *d = PyDict_New();
    int drv = c->driver_resident_blocks >= 0 && !c->driver_mixed ? c->driver_resident_blocks : -1;
    if (!d ||
        pyocc_dict_steal(d, "work_group", dims32(c->work_group)) < 0 ||
        pyocc_dict_steal(d, "dynamic_local_bytes", u64(c->dynamic_local_bytes)) < 0 ||
        pyocc_dict_steal(d, "grid", c->grid_known ? dims64(c->grid) : Py_NewRef(Py_None)) < 0 ||
        pyocc_dict_steal(d, "cluster", dims32(c->cluster)) < 0 ||
        pyocc_dict_steal(d, "launches", u64(c->launches)) < 0 ||
        pyocc_dict_steal(d, "outside_bound", PyBool_FromLong(c->outside_bound)) < 0 ||
        pyocc_dict_steal(d, "prediction", prediction(c)) < 0 ||
        pyocc_dict_steal(d, "driver_resident_blocks", drv >= 0 ? PyLong_FromLong(drv) : Py_NewRef(Py_None)) < 0 ||
        pyocc_dict_steal(d, "gpu_time_ns", c->gpu_executions ? u64(c->gpu_time_ns) : Py_NewRef(Py_None)) < 0 ||
        pyocc_dict_steal(d, "gpu_executions", u64(c->gpu_executions)) < 0 ||
        pyocc_dict_steal(d, "max_active_clusters",
                         c->in_clusters && c->have_clusters ? u64(c->clusters.max_active_clusters)
                                                            : Py_NewRef(Py_None)) < 0 ||
        pyocc_dict_steal(d, "cluster_occupancy",
                         c->in_clusters && c->have_clusters ? PyFloat_FromDouble(c->clusters.occupancy)
                                                            : Py_NewRef(Py_None)) < 0 ||
        pyocc_dict_steal(d, "driver_max_active_clusters",
                         c->in_clusters && c->driver_max_active_clusters >= 0 && !c->driver_clusters_mixed
                             ? PyLong_FromLong(c->driver_max_active_clusters)
                             : Py_NewRef(Py_None)) < 0)
        Py_CLEAR(d);
    return d;
}

static PyObject *resources(const occ_trace_kernel *k)
{
    if (k->api == OCC_TRACE_LEVEL_ZERO)
        return Py_BuildValue("{s:I,s:I,s:I,s:I,s:I,s:s,s:(III)}", "simd", k->ze.simd, "required_sub_group",
                             k->ze.required_sub_group, "slm_static_bytes", k->ze.slm_bytes,
                             "private_bytes", k->ze.private_bytes, "spill_bytes", k->ze.spill_bytes,
                             "grf", k->ze.grf, "required_work_group", k->required_work_group[0],
                             k->required_work_group[1], k->required_work_group[2]);
    return Py_BuildValue("{s:i,s:i,s:i,s:i,s:i}", "registers", k->cuda.registers,
                         "shared_static_bytes", k->cuda.shared_static_bytes, "local_bytes_per_thread",
                         k->cuda.local_bytes_per_thread, "max_threads_per_block",
                         k->cuda.max_threads_per_block, "carveout_preference", k->cuda.carveout);
}

static PyObject *kernel_dict(const occ_trace *t, const occ_trace_kernel *k)
{
    const occ_trace_device *dev = occ_trace_device_at(t, k->device);
    PyObject *configs = PyList_New(0);
    for (size_t i = 0; configs && i < k->n_configs; i++) {
        PyObject *c = config_dict(occ_trace_config_at(t, k->first_config + i));
        if (!c || PyList_Append(configs, c) < 0)
            Py_CLEAR(configs);
        Py_XDECREF(c);
    }
    if (!configs)
        return NULL;
    const occ_trace_config *advised = occ_trace_config_at(t, k->advised_config);
    PyObject *d = PyDict_New();
    if (!d ||
        pyocc_dict_steal(d, "name", text(k->name)) < 0 ||
        pyocc_dict_steal(d, "api", PyUnicode_FromString(k->api == OCC_TRACE_CUDA ? "cuda" : "level_zero")) < 0 ||
        pyocc_dict_steal(d, "profile", dev && dev->profile ? PyUnicode_FromString(occ_device_describe(dev->profile)->name)
                                                           : Py_NewRef(Py_None)) < 0 ||
        pyocc_dict_steal(d, "resources", resources(k)) < 0 ||
        pyocc_dict_steal(d, "launches", u64(k->launches)) < 0 ||
        pyocc_dict_steal(d, "refused_launches", u64(k->refused_launches)) < 0 ||
        pyocc_dict_steal(d, "launches_outside_bound", u64(k->launches_outside_bound)) < 0 ||
        pyocc_dict_steal(d, "work_group_sizes", PyLong_FromSize_t(k->work_group_sizes)) < 0 ||
        pyocc_dict_steal(d, "grids", PyLong_FromSize_t(k->grids)) < 0 ||
        pyocc_dict_steal(d, "gpu_time_ns", k->gpu_executions ? u64(k->gpu_time_ns) : Py_NewRef(Py_None)) < 0 ||
        pyocc_dict_steal(d, "gpu_executions", u64(k->gpu_executions)) < 0 ||
        pyocc_dict_steal(d, "next_step", advised && advised->next_step[0] ? text(advised->next_step)
                                                                          : Py_NewRef(Py_None)) < 0 ||
        pyocc_dict_steal(d, "configurations", PyList_AsTuple(configs)) < 0)
        Py_CLEAR(d);
    Py_DECREF(configs);
    return d;
}

static PyObject *launch_dict(const occ_trace *t, const occ_trace_launch *l)
{
    const occ_trace_config *c = occ_trace_config_at(t, l->config);
    PyObject *d = PyDict_New();
    if (!d ||
        pyocc_dict_steal(d, "pid", PyLong_FromLong(l->pid)) < 0 ||
        pyocc_dict_steal(d, "tid", PyLong_FromLong(l->tid)) < 0 ||
        pyocc_dict_steal(d, "kernel", c ? text(occ_trace_kernel_at(t, c->kernel)->name) : Py_NewRef(Py_None)) < 0 ||
        pyocc_dict_steal(d, "configuration", index_or_none(l->config)) < 0 ||
        pyocc_dict_steal(d, "kind", text(l->kind)) < 0 ||
        pyocc_dict_steal(d, "count", u64(l->count)) < 0 ||
        pyocc_dict_steal(d, "work_group", dims32(l->work_group)) < 0 ||
        pyocc_dict_steal(d, "dynamic_local_bytes", u64(l->dynamic_local_bytes)) < 0 ||
        pyocc_dict_steal(d, "grid", l->grid_known ? dims64(l->grid) : Py_NewRef(Py_None)) < 0 ||
        pyocc_dict_steal(d, "result", PyLong_FromLong(l->result)) < 0 ||
        pyocc_dict_steal(d, "driver_resident_blocks", l->driver_resident_blocks >= 0
                                                          ? PyLong_FromLong(l->driver_resident_blocks)
                                                          : Py_NewRef(Py_None)) < 0)
        Py_CLEAR(d);
    return d;
}

static PyObject *totals_dict(const occ_trace_totals *s)
{
    PyObject *d = PyDict_New();
    if (!d ||
        pyocc_dict_steal(d, "processes", PyLong_FromSize_t(s->processes)) < 0 ||
        pyocc_dict_steal(d, "threads", PyLong_FromSize_t(s->threads)) < 0 ||
        pyocc_dict_steal(d, "kernels", PyLong_FromSize_t(s->kernels)) < 0 ||
        pyocc_dict_steal(d, "configurations", PyLong_FromSize_t(s->configurations)) < 0 ||
        pyocc_dict_steal(d, "launches", u64(s->launches)) < 0 ||
        pyocc_dict_steal(d, "launches_of_unknown_kernels", u64(s->launches_of_unknown_kernels)) < 0 ||
        pyocc_dict_steal(d, "unresolved_indirect_launches", u64(s->unresolved_indirect_launches)) < 0 ||
        pyocc_dict_steal(d, "launches_outside_bound", u64(s->launches_outside_bound)) < 0 ||
        pyocc_dict_steal(d, "gpu_time_ns", s->gpu_executions ? u64(s->gpu_time_ns) : Py_NewRef(Py_None)) < 0 ||
        pyocc_dict_steal(d, "unreadable_lines", u64(s->unreadable_lines)) < 0 ||
        pyocc_dict_steal(d, "dropped", u64(s->dropped_launches)) < 0 ||
        pyocc_dict_steal(d, "dropped_records", u64(s->dropped_records)) < 0 ||
        pyocc_dict_steal(d, "dropped_reason", !s->dropped_launches && !s->dropped_records
                                                  ? Py_NewRef(Py_None)
                                                  : text(s->stop_errno ? strerror(s->stop_errno) : "record cap")) < 0 ||
        pyocc_dict_steal(d, "warnings", text(s->warnings)) < 0)
        Py_CLEAR(d);
    return d;
}

/* A list of f(t, item i) for i < n; NULL on error. */
static PyObject *tuple_of(const occ_trace *t, size_t n, PyObject *(*f)(const occ_trace *, size_t))
{
    PyObject *l = PyList_New(0);
    for (size_t i = 0; l && i < n; i++) {
        PyObject *x = f(t, i);
        if (!x || PyList_Append(l, x) < 0)
            Py_CLEAR(l);
        Py_XDECREF(x);
    }
    PyObject *r = l ? PyList_AsTuple(l) : NULL;
    Py_XDECREF(l);
    return r;
}

static PyObject *process_at(const occ_trace *t, size_t i)
{
    const occ_trace_process *p = occ_trace_process_at(t, i);
    PyObject *d = Py_BuildValue("{s:l,s:l,s:N,s:K}", "pid", p->pid, "ppid", p->ppid, "executable",
                                text(p->executable), "launches", (unsigned long long)p->launches);
    return d;
}

static PyObject *device_at(const occ_trace *t, size_t i)
{
    const occ_trace_device *v = occ_trace_device_at(t, i);
    return Py_BuildValue("{s:N,s:N,s:N,s:N}", "profile",
                         v->profile ? PyUnicode_FromString(occ_device_describe(v->profile)->name)
                                    : Py_NewRef(Py_None),
                         "chosen", text(v->chosen), "api",
                         v->api == OCC_TRACE_CUDA         ? PyUnicode_FromString("cuda")
                         : v->api == OCC_TRACE_LEVEL_ZERO ? PyUnicode_FromString("level_zero")
                                                          : Py_NewRef(Py_None),
                         "name", text(v->traced_name));
}

static PyObject *kernel_at(const occ_trace *t, size_t i)
{
    return kernel_dict(t, occ_trace_kernel_at(t, i));
}

static PyObject *launch_at(const occ_trace *t, size_t i)
{
    return launch_dict(t, occ_trace_launch_at(t, i));
}

PyObject *pyocc_read_trace(PyObject *mod, PyObject *args)
{
    (void)mod;
    PyObject *path_obj;
    const occ_device *dev;
    if (pyocc_path_and_device(args, &path_obj, &dev) < 0)
        return NULL;
    occ_trace *t = NULL;
    char err[512] = "";
    occ_status st;
    const char *path = PyBytes_AS_STRING(path_obj);
    Py_BEGIN_ALLOW_THREADS
    st = occ_trace_open(path, dev, &t, err, sizeof err);
    Py_END_ALLOW_THREADS
    Py_DECREF(path_obj);
    if (st != OCC_OK) {
        occ_diag diag;
        memset(&diag, 0, sizeof diag);
        snprintf(diag.message, sizeof diag.message, "%s", err);
        return pyocc_raise(st, &diag, NULL);
    }
    PyObject *r = Py_BuildValue("{s:N,s:N,s:N,s:N,s:N}", "processes",
                                tuple_of(t, occ_trace_process_count(t), process_at), "devices",
                                tuple_of(t, occ_trace_device_count(t), device_at), "totals",
                                totals_dict(occ_trace_totals_get(t)), "kernels",
                                tuple_of(t, occ_trace_kernel_count(t), kernel_at), "launches",
                                tuple_of(t, occ_trace_launch_count(t), launch_at));
    occ_trace_close(t);
    return r;
}
