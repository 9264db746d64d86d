/* NumPy's C API for the files of occ._occ that use it (batch.c imports it). */
#ifndef PYOCC_NUMPY_H
#define PYOCC_NUMPY_H
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#define PY_ARRAY_UNIQUE_SYMBOL pyocc_ARRAY_API
#ifndef PYOCC_IMPORT_ARRAY
#define NO_IMPORT_ARRAY
#endif
#include <numpy/arrayobject.h>
/* NumPy 2 hides PyArray_Descr's size behind an accessor; NumPy 1's headers
 * (Debian's 1.24) have only the field.  Built with either, run with either. */
#if NPY_ABI_VERSION < 0x02000000
#define PyDataType_ELSIZE(d) ((d)->elsize)
#endif
#endif
