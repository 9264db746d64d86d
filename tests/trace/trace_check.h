/* The checks of the tracer's C tests: CHECK prints a FAIL line and counts
 * it in failures; trace_test_dir and trace_test_end begin and end a test
 * whose records go to a directory of its own. */
#ifndef OCC_TEST_TRACE_CHECK_H
#define OCC_TEST_TRACE_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int failures;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            printf("FAIL: " __VA_ARGS__);                                                          \
            printf("\n");                                                                          \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

/* The record directory: $OCC_TRACE_DIR, or a new /tmp/PREFIX-XXXXXX, with
 * which the test runs itself again (the writer opens its file when the
 * program starts, as in a traced program); NULL when that fails. */
static inline const char *trace_test_dir(char **argv, const char *prefix)
{
    const char *dir = getenv("OCC_TRACE_DIR");
    if (dir)
        return dir;
    char tmp[256];
    snprintf(tmp, sizeof tmp, "/tmp/%s-XXXXXX", prefix);
    if (!mkdtemp(tmp) || setenv("OCC_TRACE_DIR", tmp, 1) != 0)
        return NULL;
    execv(argv[0], argv); /* meson runs it by its full path */
    return NULL;
}

/* Remove the directory, say how it went; the exit status. */
static inline int trace_test_end(const char *dir, const char *name)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0, "cleanup");
    if (failures)
        printf("%d failure(s)\n", failures);
    else
        printf("%s: all checks passed\n", name);
    return failures ? 1 : 0;
}

#endif
