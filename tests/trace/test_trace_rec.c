/*
 * The interposer's record writer and handle map (libocc/src/trace/), compiled
 * in directly:
 *  - 8 threads write 40 000 lines each while the file grows past several
 *    1 MiB steps: every line arrives whole, each thread's in order;
 *  - a forked child writes its own file, not the parent's;
 *  - the map against a plain array over random inserts, finds and removes.
 * Prints FAIL lines; exit 0 pass, 1 fail.
 */
#define _GNU_SOURCE
#include "trace_check.h"
#include "trace_map.h"
#include "trace_rec.h"
#include "trace_time.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define THREADS 8
#define LINES 40000

static void *writer(void *arg)
{
    long t = (long)(intptr_t)arg;
    for (long i = 0; i < LINES; i++)
        trace_line("L %ld %ld padding-to-make-the-line-longer-than-a-few-bytes %ld", t, i, t * i);
    return NULL;
}

/* Read DIR/PID.rec: lines of each thread in order, no NUL inside a line. */
static void check_file(const char *dir, long pid, long expect_per_thread, int threads)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%ld.rec", dir, pid);
    FILE *f = fopen(path, "rb");
    CHECK(f, "no record file %s", path);
    if (!f)
        return;
    long next[THREADS] = {0};
    long lines = 0, bad = 0, header = 0;
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getdelim(&line, &cap, '\n', f)) > 0) {
        size_t start = 0;
        while (start < (size_t)n && line[start] == 0) /* NUL padding before a line */
            start++;
        if (start == (size_t)n)
            continue;
        const char *l = line + start;
        if (memchr(l, 0, (size_t)n - start)) {
            bad++;
            continue;
        }
        long t, i, p;
        if (sscanf(l, "L %ld %ld padding-to-make-the-line-longer-than-a-few-bytes %ld", &t, &i, &p) == 3) {
            if (t < 0 || t >= threads || i != next[t] || p != t * i)
                bad++;
            else
                next[t]++;
            lines++;
        } else if (strncmp(l, "occ-trace 1", 11) == 0 || l[0] == 'P' || strncmp(l, "X dropped 0000000000 other 0000000000 errno 000\n", 48) == 0) {
            header++;
        } else {
            bad++;
        }
    }
    free(line);
    fclose(f);
    CHECK(bad == 0, "%s: %ld bad or out-of-order lines", path, bad);
    CHECK(header == 3, "%s: %ld header lines, expected 3", path, header);
    CHECK(lines == expect_per_thread * threads, "%s: %ld lines, expected %ld", path, lines,
          expect_per_thread * threads);
    for (int t = 0; t < threads; t++)
        CHECK(next[t] == expect_per_thread, "%s: thread %d wrote %ld of %ld", path, t, next[t],
              expect_per_thread);
}

/* The writer opens its file when the program starts (as in a traced
 * program): OCC_TRACE_DIR is set by main before it re-executes itself. */
static void test_writer(const char *dir)
{
    pthread_t th[THREADS];
    for (long t = 0; t < THREADS; t++)
        pthread_create(&th[t], NULL, writer, (void *)(intptr_t)t);
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
    check_file(dir, (long)getpid(), LINES, THREADS);

    pid_t child = fork();
    if (child == 0) {
        trace_line("L 0 0 padding-to-make-the-line-longer-than-a-few-bytes 0");
        _exit(0);
    }
    int status;
    waitpid(child, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child failed");
    check_file(dir, (long)child, 1, 1);
    check_file(dir, (long)getpid(), LINES, THREADS); /* the child wrote nothing here */

}

/* A launch line, by its text (trace_launch) or by a binary key that stands
 * for it (trace_launch_keyed, as the CUDA tracer does). */
static void launch_line(bool keyed, const char *text)
{
    if (!keyed) {
        trace_launch("%s", text);
        return;
    }
    char key[64] = {0}; /* a leading NUL, then the text: one key per text */
    snprintf(key + 1, sizeof key - 1, "%s", text);
    trace_launch_keyed(key, 1 + strlen(text), "%s", text);
}

/* Repeated launch lines become counts: in a forked child (its own file),
 * after the parent wrote the same line (the child must not count into the
 * parent's file); the same by text and by key. */
static void test_repeats(const char *dir, bool keyed)
{
    launch_line(keyed, "L same");
    pid_t child = fork();
    if (child == 0) {
        launch_line(keyed, "L same");
        const char *pattern[] = {"L a", "L b", "L a", "L a", "L a", "L a", "L a", "L b", "L b", "L b",
                                 "L c", "L a"};
        for (size_t i = 0; i < sizeof pattern / sizeof pattern[0]; i++)
            launch_line(keyed, pattern[i]);
        for (int i = 0; i < 9; i++) { /* 9 new lines push a, b and c out of the 8 remembered */
            char d[8];
            snprintf(d, sizeof d, "L d%d", i);
            launch_line(keyed, d);
        }
        launch_line(keyed, "L a");
        _exit(0);
    }
    int status;
    waitpid(child, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "repeats: child failed");
    char path[512], expect[1024];
    snprintf(path, sizeof path, "%s/%ld.rec", dir, (long)child);
    snprintf(expect, sizeof expect,
             "L same\nL a\nL b\nN %ld 1 0000000006\nN %ld 0 0000000003\nL c\n"
             "L d0\nL d1\nL d2\nL d3\nL d4\nL d5\nL d6\nL d7\nL d8\nL a\n",
             (long)child, (long)child);
    FILE *f = fopen(path, "rb");
    char buf[4096] = "";
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = 0; /* stops at the NUL padding */
    const char *body = strstr(buf, "\nL ");
    CHECK(body && strcmp(body + 1, expect) == 0,
          "repeats (%s): file\n%s\nexpected after the header\n%s", keyed ? "keyed" : "by text",
          buf, expect);
}

/* Runs of equal GPU-time records become one T line each (trace_time.c). */
static void test_times(const char *dir)
{
    pid_t child = fork();
    if (child == 0) {
        trace_time_run run = {0};
        int wg[3] = {128, 1, 1}, g[3] = {64, 2, 1}, g2[3] = {65, 2, 1};
        trace_time_add(&run, "k a", wg, g, 0, 10);
        trace_time_add(&run, "k a", wg, g, 0, 20);
        trace_time_add(&run, "k a", wg, g, 0, 30);
        trace_time_add(&run, "k a", wg, g2, 0, 5);  /* another grid */
        trace_time_add(&run, "k a", wg, g, 512, 7); /* another dynamic size */
        trace_time_add(&run, "k b", wg, g, 512, 1);
        trace_time_add(&run, "k b", wg, g, 512, 2);
        trace_time_flush(&run);
        trace_time_flush(&run); /* nothing pending: no line */
        _exit(0);
    }
    int status;
    waitpid(child, &status, 0);
    char path[512], buf[4096] = "";
    snprintf(path, sizeof path, "%s/%ld.rec", dir, (long)child);
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = 0;
    const char *expect = "T 60 count=3 wg=128,1,1 groups=64,2,1 dyn=0 name=k_a\n"
                         "T 5 count=1 wg=128,1,1 groups=65,2,1 dyn=0 name=k_a\n"
                         "T 7 count=1 wg=128,1,1 groups=64,2,1 dyn=512 name=k_a\n"
                         "T 3 count=2 wg=128,1,1 groups=64,2,1 dyn=512 name=k_b\n";
    const char *body = strstr(buf, "\nT ");
    CHECK(body && strcmp(body + 1, expect) == 0, "times: file\n%s\nexpected after the header\n%s", buf,
          expect);
}

static void test_map(void)
{
    enum { KEYS = 5000, OPS = 200000 };
    trace_map m;
    trace_map_init(&m, sizeof(long));
    static long model[KEYS]; /* 0 = absent, else the value stored */
    srand(7);
    for (long op = 1; op <= OPS; op++) {
        size_t k = (size_t)rand() % KEYS;
        const void *key = (const void *)(uintptr_t)(0x1000 + k * 64);
        int what = rand() % 3;
        if (what == 0) {
            bool created;
            long *v = trace_map_get(&m, key, &created);
            CHECK(v && created == (model[k] == 0), "get %zu: created %d, model %ld", k, created, model[k]);
            if (v && created)
                *v = model[k] = op;
        } else if (what == 1) {
            long *v = trace_map_find(&m, key);
            CHECK((v ? *v : 0) == model[k], "find %zu: %ld, model %ld", k, v ? *v : 0, model[k]);
        } else {
            trace_map_remove(&m, key);
            model[k] = 0;
        }
        if (failures > 10)
            break;
    }
    trace_map_free(&m);
}

int main(int argc, char **argv)
{
    const char *dir = trace_test_dir(argv, "occ-trace-rec");
    if (!dir)
        return 1;
    (void)argc;
    test_writer(dir);
    test_repeats(dir, false);
    test_repeats(dir, true);
    test_times(dir);
    test_map();
    return trace_test_end(dir, "trace-rec");
}
