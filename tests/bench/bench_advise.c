/* Benchmark of the advisor and of batch evaluation (not a test: it prints
 * figures).  Targets from the issue: a full advise for a (1024, 1024, 64)
 * global size over every work-group shape, sub-group size, SLM step and GRF
 * mode in 50 ms or less; batch evaluation at 20 million configurations per
 * second or more on one core.  Each figure is printed beside a reference
 * measured in the same run: the same work done one configuration at a time
 * through occ_residency_compute (and occ_gpu_compute).
 *
 * usage: bench_advise [seconds per figure, default 0.5]
 * Runs on one core (pinned to the CPU it starts on, bench_pin_cpu). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "bench_common.h"
#include "occ/advise.h"

/* CPU seconds of this thread (bench_common: other processes' time does not
 * count); wall-clock seconds bound the loop. */
static double now(void) { return bench_cpu_ns() * 1e-9; }
static double wall(void) { return bench_now_ns() * 1e-9; }

static double budget = 0.5;

/* Median CPU seconds per call of fn over repeated trials filling the budget. */
typedef void (*bench_fn)(void *);
static double per_call(bench_fn fn, void *arg)
{
    double times[64];
    int n = 0;
    double start = wall();
    do {
        double t0 = now();
        fn(arg);
        times[n++] = now() - t0;
    } while (n < 64 && (wall() - start < budget || n < 5));
    for (int i = 1; i < n; i++) /* insertion sort, n <= 64 */
        for (int j = i; j > 0 && times[j] < times[j - 1]; j--) {
            double t = times[j];
            times[j] = times[j - 1];
            times[j - 1] = t;
        }
    return times[n / 2];
}

static void machine(void)
{
    char model[256] = "unknown CPU";
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[512];
        while (fgets(line, sizeof line, f))
            if (strncmp(line, "model name", 10) == 0) {
                char *c = strchr(line, ':');
                if (c) {
                    snprintf(model, sizeof model, "%s", c + 2);
                    model[strcspn(model, "\n")] = '\0';
                }
                break;
            }
        fclose(f);
    }
    struct utsname u;
    uname(&u);
    time_t t = time(NULL);
    char date[64];
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&t));
    printf("machine: %s, %s %s, %ld CPUs online; one core used\n", model, u.sysname, u.release,
           sysconf(_SC_NPROCESSORS_ONLN));
    printf("date:    %s; libocc %s\n", date, occ_version());
}

/* ---- full advise ----------------------------------------------------------------- */

typedef struct advise_job {
    occ_device *dev;
    occ_advise_request q;
    occ_advice *out;
    size_t cap, n;
    occ_advise_summary s;
} advise_job;

static void run_advise(void *p)
{
    advise_job *j = p;
    occ_advise(j->dev, &j->q, j->out, j->cap, &j->n, &j->s);
}

/* The reference: what a tuner does without the advisor.  Every shape of the
 * global size, every sub-group size, GRF mode and SLM allocation step,
 * evaluated one by one; the best time-weighted occupancy is kept. */
typedef struct naive_job {
    occ_device *dev;
    uint64_t g[3];
    uint64_t evaluations;
    double best;
} naive_job;

static void run_naive(void *p)
{
    naive_job *j = p;
    const occ_device_desc *d = occ_device_describe(j->dev);
    uint32_t max = d->max_work_group_size;
    uint64_t slm[OCC_MAX_SLM_STEPS + 1];
    size_t n_slm = 0;
    slm[n_slm++] = 0;
    for (uint32_t i = 0; i < d->n_slm_steps; i++)
        if (d->slm_steps[i] <= d->slm_max_per_work_group)
            slm[n_slm++] = d->slm_steps[i];
    if (!d->n_slm_steps) /* granular local memory: 16 KB steps */
        for (uint64_t b = 16384; b <= d->slm_max_per_work_group && n_slm <= OCC_MAX_SLM_STEPS; b += 16384)
            slm[n_slm++] = b;
    j->evaluations = 0;
    j->best = 0;
    uint64_t items = j->g[0] * j->g[1] * j->g[2];
    for (uint32_t x = 1; x <= max; x++) {
        if (j->g[0] % x)
            continue;
        for (uint32_t y = 1; (uint64_t)x * y <= max; y++) {
            if (j->g[1] % y)
                continue;
            for (uint32_t z = 1; (uint64_t)x * y * z <= max; z++) {
                if (j->g[2] % z)
                    continue;
                for (uint32_t s = 0; s < d->n_sub_group_sizes; s++)
                    for (uint32_t m = 0; m < d->n_grf_modes; m++)
                        for (size_t l = 0; l < n_slm; l++) {
                            occ_kernel k;
                            occ_kernel_init(&k);
                            k.wg[0] = x, k.wg[1] = y, k.wg[2] = z;
                            k.sub_group = d->sub_group_sizes[s];
                            k.grf = d->grf_modes[m].registers;
                            k.slm_bytes = slm[l];
                            occ_residency r;
                            occ_residency_compute(j->dev, &k, &r);
                            j->evaluations++;
                            if (!r.launchable)
                                continue;
                            occ_gpu g;
                            occ_gpu_compute(j->dev, &r, items / ((uint64_t)x * y * z), &g);
                            if (g.average_occupancy > j->best)
                                j->best = g.average_occupancy;
                        }
            }
        }
    }
}

static void bench_advise(const char *name)
{
    occ_device *dev = NULL;
    if (occ_device_builtin(name, &dev, NULL) != OCC_OK)
        return;
    const occ_device_desc *d = occ_device_describe(dev);
    advise_job j = {.dev = dev};
    occ_advise_request_init(&j.q);
    j.q.dims = 3;
    j.q.global[0] = 1024, j.q.global[1] = 1024, j.q.global[2] = 64;
    j.cap = 10;
    j.out = calloc(((size_t)d->max_work_group_size + 1) * d->n_sub_group_sizes * d->n_grf_modes,
                   sizeof *j.out);
    double top = per_call(run_advise, &j);
    uint64_t configs = j.s.configurations, shapes = j.s.shapes;
    /* every configuration reaching 50 %, each with its SLM limit found over the
     * allocation steps */
    j.q.threshold = 0.5;
    j.cap = ((size_t)d->max_work_group_size + 1) * d->n_sub_group_sizes * d->n_grf_modes;
    double thr = per_call(run_advise, &j);
    uint64_t listed = j.n;
    naive_job nj = {.dev = dev, .g = {1024, 1024, 64}};
    double naive = per_call(run_naive, &nj);
    printf("  %-10s %6llu shapes, %4llu configurations: best 10 %8.3f ms; threshold list (%4llu, SLM "
           "limits) %8.3f ms | one by one x SLM steps (%7llu evaluations) %8.2f ms\n",
           name, (unsigned long long)shapes, (unsigned long long)configs, top * 1e3,
           (unsigned long long)listed, thr * 1e3, (unsigned long long)nj.evaluations, naive * 1e3);
    free(j.out);
    occ_device_free(dev);
}

/* ---- batch evaluation -------------------------------------------------------------- */

enum { CHUNK = 4096 };

typedef struct batch_job {
    occ_device *dev;
    occ_kernel *ks;
    size_t n;
    occ_residency *rs;
    occ_eval *es;
} batch_job;

static void run_residency_batch(const void *p, uint64_t *acc)
{
    const batch_job *j = p;
    for (size_t i = 0; i < j->n; i += CHUNK)
        occ_residency_batch(j->dev, j->ks + i, j->rs, j->n - i < CHUNK ? j->n - i : CHUNK);
    *acc += j->rs[0].resident_wgs;
}

static void run_eval_batch(const void *p, uint64_t *acc)
{
    const batch_job *j = p;
    for (size_t i = 0; i < j->n; i += CHUNK)
        occ_evaluate_batch(j->dev, j->ks + i, j->es + i, j->n - i < CHUNK ? j->n - i : CHUNK);
    *acc += j->es[0].resident_wgs;
}

static void run_one_by_one(const void *p, uint64_t *acc)
{
    const batch_job *j = p;
    for (size_t i = 0; i < j->n; i++)
        occ_residency_compute(j->dev, &j->ks[i], &j->rs[i % CHUNK]);
    *acc += j->rs[0].resident_wgs;
}

/* A tuner's search space: every work-group size, sub-group size, GRF mode,
 * SLM step (and 0) and barrier or not. */
static size_t search_space(const occ_device_desc *d, occ_kernel *ks, size_t cap)
{
    size_t n = 0;
    for (uint32_t W = 1; W <= d->max_work_group_size; W++)
        for (uint32_t s = 0; s < d->n_sub_group_sizes; s++)
            for (uint32_t m = 0; m < d->n_grf_modes; m++)
                for (uint32_t l = 0; l <= d->n_slm_steps && l <= 8; l++)
                    for (int b = 0; b <= 1; b++) {
                        if (n == cap)
                            return n;
                        occ_kernel *k = &ks[n++];
                        occ_kernel_init(k);
                        k->wg[0] = W;
                        k->sub_group = d->sub_group_sizes[s];
                        k->grf = d->grf_modes[m].registers;
                        k->slm_bytes = l ? d->slm_steps[l - 1] : 0;
                        k->barrier = b;
                        if (d->has_register_file)
                            k->regs_per_thread = 32 + 8 * (W % 12);
                    }
    return n;
}

/* Random kernels, a share of which cannot launch. */
static size_t random_space(const occ_device_desc *d, occ_kernel *ks, size_t n)
{
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        occ_kernel *k = &ks[i];
        occ_kernel_init(k);
        k->wg[0] = 1 + (uint32_t)(x % d->max_work_group_size);
        k->sub_group = d->sub_group_sizes[(x >> 20) % d->n_sub_group_sizes];
        k->grf = d->grf_modes[(x >> 24) % d->n_grf_modes].registers;
        k->slm_bytes = (x >> 28) % (d->slm_max_per_work_group + 1);
        k->barrier = (x >> 50) & 1;
        if (d->has_register_file)
            k->regs_per_thread = 16 + (uint32_t)((x >> 40) % 200);
    }
    return n;
}

static void bench_batch(const char *name, bool random)
{
    occ_device *dev = NULL;
    if (occ_device_builtin(name, &dev, NULL) != OCC_OK)
        return;
    const occ_device_desc *d = occ_device_describe(dev);
    size_t cap = 1u << 20;
    batch_job j = {.dev = dev};
    j.ks = malloc(cap * sizeof *j.ks);
    j.es = malloc(cap * sizeof *j.es);
    j.rs = malloc(CHUNK * sizeof *j.rs);
    j.n = random ? random_space(d, j.ks, cap) : search_space(d, j.ks, cap);
    size_t launchable = 0;
    occ_evaluate_batch(dev, j.ks, j.es, j.n);
    for (size_t i = 0; i < j.n; i++)
        launchable += j.es[i].resident_wgs > 0;
    /* in alternation (bench_alternate), so that the batches and the loop are
     * compared under the same state of a shared host */
    bench_turn turns[] = {{run_eval_batch, &j, 1, 0}, {run_residency_batch, &j, 1, 0}, {run_one_by_one, &j, 1, 0}};
    if (bench_alternate(turns, 3, 7, 30) == 42)
        putchar('\n');
    double t_eval = turns[0].ns * 1e-9, t_res = turns[1].ns * 1e-9, t_one = turns[2].ns * 1e-9;
    printf("  %-10s %-13s %8zu configs (%3.0f %% launch): occ_evaluate_batch %6.1f M/s, "
           "occ_residency_batch %6.1f M/s | one by one %6.1f M/s\n", name,
           random ? "random" : "search space", j.n, 100.0 * (double)launchable / (double)j.n,
           (double)j.n / t_eval * 1e-6, (double)j.n / t_res * 1e-6, (double)j.n / t_one * 1e-6);
    free(j.ks);
    free(j.es);
    free(j.rs);
    occ_device_free(dev);
}

int main(int argc, char **argv)
{
    if (argc > 1)
        budget = atof(argv[1]) > 0 ? atof(argv[1]) : budget;
    bench_pin_cpu(); /* one CPU: steadier figures on a many-core host */
    machine();
    printf("(times are the thread's CPU time, median of repeated runs)\n");
    printf("\nFull advise, global (1024, 1024, 64), every shape x sub-group x GRF mode (median ms per "
           "call; target <= 50 ms):\n");
    static const char *const devices[] = {"tgl", "arc-a770", "max-1550", "ptl", "h100-sxm"};
    for (size_t i = 0; i < sizeof devices / sizeof devices[0]; i++)
        bench_advise(devices[i]);
    printf("\nBatch evaluation on one core, chunks of %d, the three forms in alternation, best of 7 rounds\n"
           "(target >= 20 M configurations/s):\n", CHUNK);
    for (size_t i = 0; i < sizeof devices / sizeof devices[0]; i++) {
        bench_batch(devices[i], false);
        bench_batch(devices[i], true);
    }
    return 0;
}
