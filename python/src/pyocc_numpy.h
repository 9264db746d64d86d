/* NumPy's C API for the files of occ._occ that use it (batch.c imports it). */
#ifndef PYOCC_NUMPY_H
#define PYOCC_NUMPY_H
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#define PY_ARRAY_UNIQUE_SYMBOL pyocc_ARRAY_API
#ifndef PYOCC_IMPORT_ARRAY
#define NO_IMPORT_ARRAY
#endif
#include <numpy/arrayobject.h>
#endif
