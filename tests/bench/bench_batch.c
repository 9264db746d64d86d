/* bench_batch: how long `occcalc batch` takes for 10^5 configurations, as CSV
 * and as JSON Lines (target: under 1 s each, the whole process: start, read,
 * check, evaluate, write).
 *
 *   bench_batch [--runs N] [--occcalc PATH]
 *
 * The inputs are written once to a temporary directory: 10^5 random tgl
 * configurations (work-group 1..1100, sub-group 8/16/32, SLM 0..70 KB, a
 * barrier or not; a tenth cannot launch).  Each run forks occcalc with stdout
 * on /dev/null; the figure is the wall time of the best of N runs (default 5),
 * the median and the child's CPU time are printed beside it.  Reference in
 * the same run: one occcalc process per configuration, estimated as 10^5
 * times the median of 20 runs of the seed example.  Exit 1 when a figure
 * exceeds 1 s. */
#define _DEFAULT_SOURCE /* wait4, mkdtemp */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_common.h"

#ifndef OCC_BENCH_OCCCALC
#define OCC_BENCH_OCCCALC "occcalc"
#endif

#define LINES 100000
#define MAX_RUNS 50

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static uint32_t rnd(uint32_t lo, uint32_t hi)
{
    rng_state = rng_state * 6364136223846793005u + 1442695040888963407u;
    return lo + (uint32_t)((rng_state >> 33) % (hi - lo + 1));
}

static int write_inputs(const char *csv, const char *jsonl)
{
    FILE *c = fopen(csv, "w"), *j = fopen(jsonl, "w");
    if (!c || !j)
        return -1;
    static const uint32_t sgs[] = {8, 16, 32};
    fputs("wg,sg,slm,barrier\n", c);
    for (int i = 0; i < LINES; i++) {
        uint32_t wg = rnd(1, 1100), sg = sgs[rnd(0, 2)], slm = rnd(0, 70 * 1024), bar = rnd(0, 1);
        fprintf(c, "%u,%u,%u,%s\n", wg, sg, slm, bar ? "true" : "false");
        fprintf(j, "{\"wg\": %u, \"sg\": %u, \"slm\": %u, \"barrier\": %s}\n", wg, sg, slm,
                bar ? "true" : "false");
    }
    int bad = ferror(c) || ferror(j);
    bad |= fclose(c) != 0;
    bad |= fclose(j) != 0;
    return bad ? -1 : 0;
}

/* One run of argv with stdout on /dev/null: wall and child CPU nanoseconds; -1 on failure. */
static int run_once(char *const argv[], double *wall_ns, double *cpu_ns)
{
    double s = bench_now_ns();
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        int fd = open("/dev/null", O_WRONLY);
        if (fd >= 0)
            dup2(fd, 1);
        execv(argv[0], argv);
        _exit(127);
    }
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) != pid)
        return -1;
    *wall_ns = bench_now_ns() - s;
    *cpu_ns = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e9 + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e3;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Best and median wall time and the best run's CPU time over runs. */
static int time_runs(char *const argv[], int runs, double *best, double *median, double *cpu)
{
    double wall[MAX_RUNS];
    *best = 1e300;
    for (int i = 0; i < runs; i++) {
        double c;
        if (run_once(argv, &wall[i], &c) != 0) {
            fprintf(stderr, "bench_batch: %s %s failed\n", argv[0], argv[1]);
            return -1;
        }
        if (wall[i] < *best)
            *best = wall[i], *cpu = c;
    }
    qsort(wall, (size_t)runs, sizeof wall[0], by_value);
    *median = wall[runs / 2];
    return 0;
}

int main(int argc, char **argv)
{
    int runs = 5;
    const char *occcalc = OCC_BENCH_OCCCALC;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--runs") && i + 1 < argc)
            runs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--occcalc") && i + 1 < argc)
            occcalc = argv[++i];
        else {
            fprintf(stderr, "usage: bench_batch [--runs N] [--occcalc PATH]\n");
            return 2;
        }
    }
    if (runs < 1 || runs > MAX_RUNS)
        runs = 5;
    bench_pin_cpu();
    char dir[] = "/tmp/occ-bench-batch-XXXXXX", csv[64], jsonl[64];
    if (!mkdtemp(dir)) {
        perror("bench_batch: mkdtemp");
        return 2;
    }
    snprintf(csv, sizeof csv, "%s/in.csv", dir);
    snprintf(jsonl, sizeof jsonl, "%s/in.jsonl", dir);
    int rc = 0;
    if (write_inputs(csv, jsonl) != 0) {
        fprintf(stderr, "bench_batch: cannot write the inputs in %s\n", dir);
        rc = 2;
    }
    char machine[256];
    bench_machine(machine, sizeof machine);
    printf("occcalc batch, %d configurations (tgl, random), best of %d runs; %s\n", LINES, runs, machine);
    double seed_best = 0, seed_median = 0, seed_cpu = 0;
    char *seed[] = {(char *)occcalc, "--wg", "320", "--sg", "8", "--json", NULL};
    if (rc == 0 && time_runs(seed, 20, &seed_best, &seed_median, &seed_cpu) != 0)
        rc = 1;
    const char *paths[2] = {csv, jsonl}, *keys[2] = {"batch_csv_1e5", "batch_jsonl_1e5"};
    for (int f = 0; f < 2 && rc == 0; f++) {
        char *args[] = {(char *)occcalc, "batch", (char *)paths[f], NULL};
        double best, median, cpu;
        if (time_runs(args, runs, &best, &median, &cpu) != 0) {
            rc = 1;
            break;
        }
        printf("  %-6s best %.3f s, median %.3f s, CPU %.3f s (one process per line: %.0f s)\n",
               f ? "JSONL" : "CSV", best / 1e9, median / 1e9, cpu / 1e9, seed_median * LINES / 1e9);
        bench_result(keys[f], best, "ns", "spawn_per_line_estimate", seed_median * LINES);
        if (best > 1e9) {
            printf("  NOT met: %s over 1 s\n", keys[f]);
            rc = 1;
        }
    }
    unlink(csv);
    unlink(jsonl);
    rmdir(dir);
    return rc;
}
