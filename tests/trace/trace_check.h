/* The checks of the tracer's C tests: CHECK prints a FAIL line and counts
 * it in failures; main exits 1 when failures is not 0. */
#ifndef OCC_TEST_TRACE_CHECK_H
#define OCC_TEST_TRACE_CHECK_H

#include <stdio.h>

static int failures;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            printf("FAIL: " __VA_ARGS__);                                                          \
            printf("\n");                                                                          \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

#endif
