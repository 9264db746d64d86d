/* Reporting a broken property from a fuzz target: print why, then abort (the
 * fuzzer and the replay driver both catch the abort).  The message goes to the
 * file descriptor in OCC_FUZZ_REPORT_FD when set (the replay driver silences
 * the target's stderr and sets it), else to stderr. */
#ifndef OCC_FUZZ_FAIL_H
#define OCC_FUZZ_FAIL_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((format(printf, 1, 2), noreturn)) static inline void fuzz_fail(const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const char *fd = getenv("OCC_FUZZ_REPORT_FD");
    FILE *out = fd ? fdopen(atoi(fd), "w") : NULL;
    fprintf(out ? out : stderr, "%s\n", msg);
    fflush(out ? out : stderr);
    abort();
}

#endif
