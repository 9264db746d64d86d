/* bench_exec: run a command N times, print the wall time of the first (cold)
 * run, the median of the others, and the peak resident memory, for run.py.
 * A small C parent keeps the measurement honest: Linux carries a process's
 * peak RSS across exec, so a child forked from a big parent (Python) would
 * report the parent's size.  The command's stdout goes to /dev/null.
 *   bench_exec N COMMAND [ARGS...]
 * Output: "cold_ns <n>\nmedian_ns <n>\npeak_rss_kib <n>\n"; exit 1 if any run
 * failed. */
#define _DEFAULT_SOURCE /* wait4 from <sys/wait.h> (the build sets _POSIX_C_SOURCE) */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int n = argc > 2 ? atoi(argv[1]) : 0;
    if (n < 1 || n > 10000) {
        fprintf(stderr, "usage: bench_exec N COMMAND [ARGS...]\n");
        return 2;
    }
    double *t = malloc(sizeof *t * (size_t)n);
    if (!t)
        return 2;
    long peak = 0;
    for (int i = 0; i < n; i++) {
        double s = now_ns();
        pid_t pid = fork();
        if (pid < 0) {
            perror("fork");
            return 2;
        }
        if (pid == 0) {
            int fd = open("/dev/null", O_WRONLY);
            if (fd >= 0)
                dup2(fd, 1);
            execv(argv[2], argv + 2);
            _exit(127);
        }
        int status;
        struct rusage ru;
        if (wait4(pid, &status, 0, &ru) != pid)
            return 2;
        t[i] = now_ns() - s;
        if (ru.ru_maxrss > peak)
            peak = ru.ru_maxrss;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            fprintf(stderr, "bench_exec: %s failed (status %d)\n", argv[2], status);
            return 1;
        }
    }
    double cold = t[0];
    qsort(t + 1, (size_t)(n - 1), sizeof *t, by_value);
    double median = n > 1 ? t[1 + (n - 1) / 2] : cold;
    printf("cold_ns %.0f\nmedian_ns %.0f\npeak_rss_kib %ld\n", cold, median, peak);
    free(t);
    return 0;
}
