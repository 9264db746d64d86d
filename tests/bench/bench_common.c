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
