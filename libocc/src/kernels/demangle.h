/* Private to libocc: C++ names as people write them.
 *
 * Kernel symbols of CUDA C++ are mangled by the Itanium C++ ABI
 * ("_Z5heavyPdi").  The demangler is the toolchain's own: libstdc++'s
 * __cxa_demangle (C linkage), found in libstdc++.so.6 at run time, so
 * libocc stays a C library with no build dependency; without libstdc++ the
 * names stay as the file spells them. */
#ifndef OCC_KERNELS_DEMANGLE_H
#define OCC_KERNELS_DEMANGLE_H

#include <stdbool.h>
#include <stddef.h>

/* Names longer than this are not demangled (shown as the file spells
 * them): the demangler's stack use grows with the name's length. */
#define OCC__DEMANGLE_MAX 4096

/* The demangled form of an Itanium-mangled name ("heavy(double*, int)"),
 * malloc'd; NULL when the name is not mangled, too long, not valid, or no
 * demangler is installed. */
char *occ__demangle(const char *mangled);

/* The short names a demangled function name answers to, without its
 * parameter list and return type: "ns::k<8, double>" and, without the
 * final template arguments, "ns::k".  full and full_len, and base_len
 * point into demangled; false when it has no parameter list. */
bool occ__demangled_short(const char *demangled, const char **full, size_t *full_len,
                          size_t *base_len);

#endif
