/* occ._occ._read_kernels: the kernel readers of occ/kernels.h.  Returns the
 * file's format, the reader's note and one dict per kernel; occ.kernels()
 * (python/occ/_api.py) turns them into KernelInfo objects. */
#include "pyocc.h"

#include "occ/kernels.h"

#include <string.h>

static int put_u64(PyObject *d, const char *key, bool known, uint64_t v)
{
    return pyocc_dict_steal(d, key, known ? PyLong_FromUnsignedLongLong(v) : Py_NewRef(Py_None));
}

static PyObject *info_dict(const occ_kernel_info *ki)
{
    PyObject *d = PyDict_New();
    if (!d)
        return NULL;
    unsigned k = ki->known;
    PyObject *reqd = (k & OCC_KINFO_REQD_WG && ki->reqd_wg[0])
                         ? Py_BuildValue("(III)", ki->reqd_wg[0], ki->reqd_wg[1], ki->reqd_wg[2])
                         : Py_NewRef(Py_None);
    if (pyocc_dict_steal(d, "name", pyocc_text(ki->name, "kernel name")) < 0 ||
        pyocc_dict_steal(d, "mangled", pyocc_text(ki->mangled, "kernel name")) < 0 ||
        pyocc_dict_steal(d, "vendor", PyUnicode_FromString(pyocc_vendor_word(ki->vendor))) < 0 ||
        pyocc_dict_steal(d, "format", PyUnicode_FromString(occ_kernel_format_name(ki->format))) < 0 ||
        pyocc_dict_steal(d, "target", pyocc_text(ki->target, "kernel target")) < 0 ||
        put_u64(d, "simd", k & OCC_KINFO_SIMD, ki->simd) < 0 ||
        put_u64(d, "required_sub_group", k & OCC_KINFO_SUB_GROUP, ki->required_sub_group) < 0 ||
        put_u64(d, "grf", k & OCC_KINFO_GRF, ki->grf) < 0 ||
        put_u64(d, "regs", k & OCC_KINFO_REGS, ki->regs_per_thread) < 0 ||
        put_u64(d, "static_slm", k & OCC_KINFO_SLM, ki->static_slm) < 0 ||
        put_u64(d, "slm_args", k & OCC_KINFO_SLM_ARGS, ki->slm_args) < 0 ||
        put_u64(d, "barriers", k & OCC_KINFO_BARRIERS, ki->barriers) < 0 ||
        put_u64(d, "max_wg_size", k & OCC_KINFO_MAX_WG, ki->max_wg_size) < 0 ||
        put_u64(d, "private_bytes", k & OCC_KINFO_PRIVATE, ki->private_bytes) < 0 ||
        put_u64(d, "spill_bytes", k & OCC_KINFO_SPILL, ki->spill_bytes) < 0 ||
        pyocc_dict_steal(d, "reqd_wg", reqd) < 0 ||
        /* AMD's, as the code object's metadata states them */
        put_u64(d, "vgprs", k & OCC_KINFO_AMD_REGS, ki->vgprs) < 0 ||
        put_u64(d, "agprs", k & OCC_KINFO_AMD_REGS, ki->agprs) < 0 ||
        put_u64(d, "sgprs", k & OCC_KINFO_AMD_REGS, ki->sgprs) < 0 ||
        put_u64(d, "vgpr_spills", k & OCC_KINFO_REG_SPILLS, ki->vgpr_spills) < 0 ||
        put_u64(d, "sgpr_spills", k & OCC_KINFO_REG_SPILLS, ki->sgpr_spills) < 0 ||
        pyocc_dict_steal(d, "dynamic_stack", k & OCC_KINFO_DYNAMIC_STACK ? PyBool_FromLong(ki->dynamic_stack)
                                                                        : Py_NewRef(Py_None)) < 0 ||
        pyocc_dict_steal(d, "wgp_mode", k & OCC_KINFO_WGP_MODE ? PyBool_FromLong(ki->wgp_mode)
                                                              : Py_NewRef(Py_None)) < 0) {
        Py_DECREF(d);
        return NULL;
    }
    /* what occ_kernel_apply_info makes of it: the residency keywords */
    occ_kernel kern;
    occ_kernel_init(&kern);
    occ_kernel_apply_info(&kern, ki, 0);
    PyObject *args = Py_BuildValue("{s:I,s:I,s:I,s:K,s:O}", "sg", kern.sub_group, "grf", kern.grf,
                                   "regs", kern.regs_per_thread, "slm",
                                   (unsigned long long)kern.slm_bytes, "barrier",
                                   kern.barrier ? Py_True : Py_False);
    /* the constraints, where the file states them: a tuner passing these on
     * never calls a refused launch launchable */
    if (args && kern.max_wg_size &&
        pyocc_dict_steal(args, "max_wg", PyLong_FromUnsignedLong(kern.max_wg_size)) < 0)
        Py_CLEAR(args);
    if (args && kern.reqd_wg[0] &&
        pyocc_dict_steal(args, "reqd_wg", Py_BuildValue("(III)", kern.reqd_wg[0], kern.reqd_wg[1],
                                                        kern.reqd_wg[2])) < 0)
        Py_CLEAR(args);
    if (args && kern.reqd_sub_group &&
        pyocc_dict_steal(args, "reqd_sg", PyLong_FromUnsignedLong(kern.reqd_sub_group)) < 0)
        Py_CLEAR(args);
    /* AMD's: SGPRs per wave and CU mode */
    if (args && kern.sgprs && pyocc_dict_steal(args, "sgprs", PyLong_FromUnsignedLong(kern.sgprs)) < 0)
        Py_CLEAR(args);
    if (args && kern.cu_mode && pyocc_dict_steal(args, "cu_mode", Py_NewRef(Py_True)) < 0)
        Py_CLEAR(args);
    if (pyocc_dict_steal(d, "residency_args", args) < 0) {
        Py_DECREF(d);
        return NULL;
    }
    return d;
}

PyObject *pyocc_read_kernels(PyObject *mod, PyObject *args)
{
    (void)mod;
    PyObject *path_obj;
    const occ_device *dev;
    if (pyocc_path_and_device(args, &path_obj, &dev) < 0)
        return NULL;
    occ_kernel_read_options o;
    occ_kernel_read_options_init(&o);
    o.device = dev;
    occ_kernel_set *set = NULL;
    occ_diag diag;
    memset(&diag, 0, sizeof diag);
    occ_status st;
    const char *path = PyBytes_AS_STRING(path_obj);
    Py_BEGIN_ALLOW_THREADS
    st = occ_kernels_read_file(path, &o, &set, &diag);
    Py_END_ALLOW_THREADS
    Py_DECREF(path_obj);
    if (st != OCC_OK)
        return pyocc_raise(st, &diag, NULL);
    PyObject *list = PyList_New(0);
    for (size_t i = 0; list && i < occ_kernel_set_count(set); i++) {
        PyObject *d = info_dict(occ_kernel_set_get(set, i));
        if (!d || PyList_Append(list, d) < 0)
            Py_CLEAR(list);
        Py_XDECREF(d);
    }
    PyObject *note = list ? pyocc_text(occ_kernel_set_note(set), "kernel file note") : NULL;
    PyObject *r = note ? Py_BuildValue("(sNN)", occ_kernel_format_name(occ_kernel_set_format(set)), note, list)
                       : NULL;
    if (!note)
        Py_XDECREF(list);
    occ_kernel_set_free(set);
    return r;
}

/* The library's rule for the names a kernel answers to (occ_kernel_name_matches),
 * so occ.KernelFile["heavy"] finds what `--kernel FILE:heavy` finds. */
PyObject *pyocc_kernel_name_matches(PyObject *mod, PyObject *args)
{
    (void)mod;
    const char *name, *mangled, *query;
    if (!PyArg_ParseTuple(args, "sss", &name, &mangled, &query))
        return NULL;
    occ_kernel_info ki;
    memset(&ki, 0, sizeof ki);
    ki.struct_size = sizeof ki;
    ki.name = name;
    ki.mangled = mangled;
    return PyBool_FromLong(occ_kernel_name_matches(&ki, query));
}
