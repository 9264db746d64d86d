/*
 * occ._occ: the CPython extension over libocc (docs/python.md).
 *
 * Split by concern: module.c (module, exception, helpers), device.c (the
 * Device type, scalar residency, the Residency result), batch.c (residency
 * over NumPy arrays), timeline.c (phases), advise.c (advisor and bounds),
 * sweep.c (sweeps and the inverse "limits" view).
 * Everything here converts Python values to libocc's structs, calls the
 * library once and converts back; no model logic lives in this directory.
 */
#ifndef PYOCC_H
#define PYOCC_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdbool.h>
#include <stdint.h>

#include "occ/advise.h"
#include "occ/occ.h"
#include "occ/timeline.h"

/* occ.OccError: a library status with its message (module.c). */
extern PyObject *pyocc_error;

typedef struct {
    PyObject_HEAD
    occ_device *dev;
    PyObject *spec; /* the name or path it was opened with */
} pyocc_device;

extern PyTypeObject pyocc_device_type;
extern PyTypeObject pyocc_residency_type;
extern PyTypeObject pyocc_next_step_type; /* a struct sequence */

/* Raise occ.OccError for status (and diag, which may be NULL); returns NULL. */
PyObject *pyocc_raise(occ_status status, const occ_diag *diag, const char *context);
/* A name read from a file as str; not UTF-8: occ.OccError (OCC_ERR_PARSE)
 * naming it escaped, never a bare UnicodeDecodeError.  what: "kernel name". */
PyObject *pyocc_text(const char *s, const char *what);

/* Integer argument in [lo, hi]: a Python int or anything with __index__
 * (NumPy integers); bool only where allow_bool.  None gives dflt.  On error
 * sets TypeError/ValueError naming `name` and returns -1. */
int pyocc_int_arg(PyObject *o, const char *name, long long lo, long long hi, long long dflt,
                  long long *out);

/* The kernel keywords shared by residency, phases, advise and bounds:
 * wg (int or 1-3 ints), sg, slm, barrier, grf, regs, carveout.  Fills k. */
int pyocc_kernel_from(PyObject *wg, PyObject *sg, PyObject *slm, PyObject *barrier, PyObject *grf,
                      PyObject *regs, PyObject *carveout, occ_kernel *k);
/* The kernel's constraints (max_wg, reqd_wg, reqd_sg keywords; None: none)
 * into k. */
int pyocc_constraints_from(PyObject *max_wg, PyObject *reqd_wg, PyObject *reqd_sg, occ_kernel *k);
/* cluster=: None, an integer or 1 to 3 positive integers (k->cluster);
 * cluster_non_portable=: a bool */
int pyocc_cluster_from(PyObject *cluster, PyObject *non_portable, occ_kernel *k);
/* AMD's kernel fields: SGPRs per wave (None: 0) and CU mode (None: False). */
int pyocc_amd_from(PyObject *sgprs, PyObject *cu_mode, occ_kernel *k);

/* Device methods implemented in other files. */
PyObject *pyocc_residency_batch(pyocc_device *self, PyObject *args);
PyObject *pyocc_cooperative_max_batch(pyocc_device *self, PyObject *args);
PyObject *pyocc_max_active_clusters_batch(pyocc_device *self, PyObject *args);
PyObject *pyocc_phases(pyocc_device *self, PyObject *args, PyObject *kwargs);
PyObject *pyocc_advise(pyocc_device *self, PyObject *args, PyObject *kwargs);
PyObject *pyocc_bounds(pyocc_device *self, PyObject *args, PyObject *kwargs);
PyObject *pyocc_sweep(pyocc_device *self, PyObject *args, PyObject *kwargs);
PyObject *pyocc_limits(pyocc_device *self, PyObject *args, PyObject *kwargs);
PyObject *pyocc_cuda_block_size(pyocc_device *self, PyObject *args, PyObject *kwargs);
/* Module function: occ._occ._read_kernels(path, device_or_None) (kernels.c). */
PyObject *pyocc_read_kernels(PyObject *mod, PyObject *args);
PyObject *pyocc_read_trace(PyObject *mod, PyObject *args);
PyObject *pyocc_kernel_name_matches(PyObject *mod, PyObject *args);

/* Module init helpers. */
int pyocc_device_init_types(PyObject *module);
int pyocc_batch_init(void); /* import_array */
/* Kernels per library call of residency_batch (occ._occ._BATCH_CHUNK, which
 * the tests read).  Narrowing streams each input column through memory,
 * faster the longer each column's run (docs/performance.md: 5.0 ns a kernel
 * with 4096 per call, 4.1 with 16384); the narrowed columns a call reads (28
 * bytes a kernel) still fit in a core's L2 cache. */
#define PYOCC_BATCH_CHUNK 16384

/* Names used in results. */
const char *pyocc_input_name(occ_input in);

/* The (path, device) arguments of the file readers: *path the path as bytes
 * (the caller releases it), *dev an occ.Device's device or NULL for None.
 * 0, or -1 with an exception set. */
int pyocc_path_and_device(PyObject *args, PyObject **path, const occ_device **dev);

/* dict[key] = value, stealing value; -1 on error. */
int pyocc_dict_steal(PyObject *d, const char *key, PyObject *value);

/* The profile word of a vendor ("intel"); "unknown" for one libocc does not know. */
static inline const char *pyocc_vendor_word(occ_vendor v)
{
    const occ_vendor_words *w = occ_vendor_words_of(v);
    return w ? w->word : "unknown";
}

#endif
