#define _GNU_SOURCE /* sched_setaffinity, sched_getcpu */
#include "bench_common.h"

#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

double bench_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

double bench_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void cpu_model(char *buf, size_t size)
{
    snprintf(buf, size, "unknown CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) == 0) {
            const char *colon = strchr(line, ':');
            if (colon) {
                snprintf(buf, size, "%s", colon + 2);
                buf[strcspn(buf, "\n")] = '\0';
            }
            break;
        }
    }
    fclose(f);
}

void bench_machine(char *buf, size_t size)
{
    struct utsname u;
    char cpu[256];
    cpu_model(cpu, sizeof cpu);
    if (uname(&u) != 0)
        strcpy(u.machine, "?");
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    char date[64];
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", &tm);
    snprintf(buf, size, "%s, %s, %ld CPUs online, %s", u.machine, cpu, sysconf(_SC_NPROCESSORS_ONLN),
             date);
}

void bench_result(const char *key, double value, const char *unit, const char *ref_name,
                  double ref_value)
{
    if (ref_name)
        printf("BENCH\t%s\t%.6g\t%s\t%s\t%.6g\n", key, value, unit, ref_name, ref_value);
    else
        printf("BENCH\t%s\t%.6g\t%s\n", key, value, unit);
}

void bench_pin_cpu(void)
{
    cpu_set_t set;
    int cpu = sched_getcpu();
    if (cpu < 0 || sched_getaffinity(0, sizeof set, &set) != 0 || !CPU_ISSET(cpu, &set))
        return; /* not pinned: the figures only get noisier */
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    sched_setaffinity(0, sizeof set, &set);
}

uint64_t bench_alternate(bench_turn *turns, size_t n, int rounds, double turn_ms)
{
    uint64_t acc = 0;
    uint64_t reps[n ? n : 1];
    for (size_t i = 0; i < n; i++) { /* size the turns: double the passes until they take 1 ms */
        uint64_t k = 1;
        double took;
        for (;;) {
            double t0 = bench_cpu_ns();
            for (uint64_t p = 0; p < k; p++)
                turns[i].pass(turns[i].ctx, &acc);
            took = bench_cpu_ns() - t0;
            if (took >= 1e6 || k >= ((uint64_t)1 << 40))
                break;
            k *= 2;
        }
        double want = took > 0 ? turn_ms * 1e6 / took * (double)k : (double)k;
        reps[i] = want > 1 ? (uint64_t)want : 1;
        turns[i].ns = 0;
    }
    for (int r = 0; r < rounds; r++)
        for (size_t i = 0; i < n; i++) {
            double t0 = bench_cpu_ns();
            for (uint64_t p = 0; p < reps[i]; p++)
                turns[i].pass(turns[i].ctx, &acc);
            double ns = (bench_cpu_ns() - t0) / ((double)reps[i] * turns[i].per_pass);
            if (r == 0 || ns < turns[i].ns)
                turns[i].ns = ns;
        }
    return acc;
}
