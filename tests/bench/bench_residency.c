/* bench_residency: how fast libocc answers, and how cheap occcalc is to run.
 *
 *  1. Residency queries: a large random mix of kernel configurations (mostly
 *     legal, some that cannot launch) on every built-in profile, asked one by
 *     one (occ_residency_compute) and batched (occ_residency_batch); ns per
 *     query, per profile and for all profiles mixed in one shuffled stream.
 *     Also a tuner's sweep on tgl (sizes in order: predictable branches).
 *     Target: <= 50 ns per query.
 *  2. occcalc's run: `occcalc --wg 320 --sg 8 --groups 8 --json` started as a
 *     new process (fork, exec, wait4) many times, wall time and peak resident
 *     memory (ru_maxrss) of each run; `/bin/true` measured the same way,
 *     interleaved in the same run, is the reference for what starting any
 *     process costs here.  Targets: < 5 ms, < 8 MB, within 0.5 ms of /bin/true.
 *
 *   bench_residency [--runs N] [--per-profile N] [--occcalc PATH] [--quick]
 * Prints the machine and date, a small table with units, then
 * "BENCH key value unit [reference value]" lines for tests/bench/run.py.
 * Exit 0; 1 when occcalc cannot be run; 2 on a usage error.  Not a test:
 * figures depend on the machine (docs/performance.md records them). */
#define _DEFAULT_SOURCE /* wait4 and struct rusage from <sys/wait.h> */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_common.h"
#include "occ/advise.h"
#include "occ/occ.h"

/* ---- random configurations -------------------------------------------------- */

static uint64_t rng_next(uint64_t *s) /* splitmix64: same stream everywhere */
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t rng_range(uint64_t *s, uint64_t lo, uint64_t hi) /* inclusive */
{
    return lo + rng_next(s) % (hi - lo + 1);
}

/* The kind of question a tuner asks: sizes up to a little past the maximum,
 * mostly supported sub-groups, local memory from none to a little too much,
 * GRF modes, registers and carveouts where the device has them. */
static occ_kernel random_kernel(uint64_t *s, const occ_device_desc *d)
{
    occ_kernel k;
    occ_kernel_init(&k);
    uint64_t p = rng_range(s, 0, 99);
    if (p < 70) {
        k.wg[0] = (uint32_t)rng_range(s, 1, d->max_work_group_size + d->max_work_group_size / 16);
    } else if (p < 90) {
        k.wg[0] = (uint32_t)rng_range(s, 1, 64);
        k.wg[1] = (uint32_t)rng_range(s, 1, 16);
    } else {
        k.wg[0] = (uint32_t)rng_range(s, 1, 16);
        k.wg[1] = (uint32_t)rng_range(s, 1, 8);
        k.wg[2] = (uint32_t)rng_range(s, 1, 8);
    }
    p = rng_range(s, 0, 99);
    k.sub_group = p < 10   ? 0
                  : p < 97 ? d->sub_group_sizes[rng_range(s, 0, d->n_sub_group_sizes - 1)]
                           : (uint32_t)rng_range(s, 1, 64);
    p = rng_range(s, 0, 99);
    k.slm_bytes = p < 40 ? 0 : rng_range(s, 1, d->slm_max_per_work_group + d->slm_max_per_work_group / 16);
    k.barrier = rng_range(s, 0, 1);
    if (d->n_grf_modes > 1 && rng_range(s, 0, 1))
        k.grf = d->grf_modes[rng_range(s, 0, d->n_grf_modes - 1)].registers;
    if (d->has_register_file) {
        /* mostly what the block can have (registers x threads rounded to
         * 128 within the per-block file), sometimes anything */
        uint64_t threads = (occ_kernel_wg_size(&k) + 127) / 128 * 128;
        uint64_t fit = d->reg_max_per_work_group / threads;
        uint64_t hi = rng_range(s, 0, 9) ? (fit < d->reg_max_per_thread ? fit : d->reg_max_per_thread)
                                         : d->reg_max_per_thread;
        k.regs_per_thread = rng_range(s, 0, 9) && hi >= 16 ? (uint32_t)rng_range(s, 16, hi) : 0;
        k.carveout_pct = rng_range(s, 0, 1) ? -1 : (int32_t)rng_range(s, 0, 100);
    }
    return k;
}

/* ---- residency queries ------------------------------------------------------ */

typedef struct query {
    const occ_device *dev;
    occ_kernel k;
} query;

static volatile uint64_t sink; /* keeps the answers alive */

/* A timed pass asks every query once and adds the answers to *acc (so the
 * compiler cannot drop the work). */
typedef void (*pass_fn)(const void *ctx, uint64_t *acc);

/* ns per query: the best of 5 timed rounds, each running the pass `reps`
 * times, reps sized by a first untimed round to take about min_ms. */
static double best_ns(pass_fn pass, const void *ctx, size_t per_pass, double min_ms)
{
    uint64_t acc = 0;
    double best = 0;
    size_t reps = 1;
    for (int round = 0; round < 6; round++) {
        double t0 = bench_cpu_ns();
        for (size_t p = 0; p < reps; p++)
            pass(ctx, &acc);
        double ns = (bench_cpu_ns() - t0) / (double)(reps * per_pass);
        if (round == 0) { /* first round: size the passes to take min_ms */
            double want = min_ms * 1e6 / (ns * (double)per_pass);
            reps = want < 1 ? 1 : (size_t)want + 1;
            continue;
        }
        if (best == 0 || ns < best)
            best = ns;
    }
    sink += acc;
    return best;
}

typedef struct queries {
    const query *q;
    size_t n;
} queries;

static void pass_one_by_one(const void *ctx, uint64_t *acc)
{
    const queries *qs = ctx;
    occ_residency r;
    occ_residency_init(&r);
    for (size_t i = 0; i < qs->n; i++) {
        occ_residency_compute(qs->q[i].dev, &qs->q[i].k, &r);
        *acc += r.resident_wgs;
    }
}

static double time_one_by_one(const query *q, size_t n, double min_ms)
{
    queries qs = {q, n};
    return best_ns(pass_one_by_one, &qs, n, min_ms);
}

/* Batched: the queries of one device in one occ_residency_batch call each
 * (a kernel array per device, as a caller with many candidates has). */
typedef struct batches {
    const occ_device *const *devs;
    const occ_kernel *const *ks;
    const size_t *nk;
    size_t ndev;
    occ_residency *out;
} batches;

static void pass_batched(const void *ctx, uint64_t *acc)
{
    const batches *b = ctx;
    for (size_t d = 0; d < b->ndev; d++) {
        occ_residency_batch(b->devs[d], b->ks[d], b->out, b->nk[d]);
        *acc += b->out[b->nk[d] - 1].resident_wgs;
    }
}

static double time_batched(const occ_device *const *devs, const occ_kernel *const *ks, const size_t *nk,
                           size_t ndev, occ_residency *out, double min_ms)
{
    batches b = {devs, ks, nk, ndev, out};
    size_t total = 0;
    for (size_t d = 0; d < ndev; d++)
        total += nk[d];
    return best_ns(pass_batched, &b, total, min_ms);
}

/* The compact query (occ_evaluate, 24 bytes of occ_eval), one by one. */
static void pass_compact(const void *ctx, uint64_t *acc)
{
    const queries *qs = ctx;
    occ_eval e;
    for (size_t i = 0; i < qs->n; i++) {
        occ_evaluate(qs->q[i].dev, &qs->q[i].k, &e);
        *acc += e.resident_wgs;
    }
}

static double time_compact(const query *q, size_t n, double min_ms)
{
    queries qs = {q, n};
    return best_ns(pass_compact, &qs, n, min_ms);
}

/* Two passes timed in alternation (bench_alternate), `rounds` times: the
 * best of each in *ns_a and *ns_b, per query. */
static void time_alternating(bench_turn a, bench_turn b, int rounds, double *ns_a, double *ns_b)
{
    bench_turn t[2] = {a, b};
    sink += bench_alternate(t, 2, rounds, 25);
    *ns_a = t[0].ns, *ns_b = t[1].ns;
}

/* One device's kernels as columns, with result columns for what a tuner
 * reads (work-groups per core, occupancy, what limits it, why not). */
typedef struct column_set {
    size_t n;
    uint32_t *wg_x, *wg_y, *wg_z, *sg, *grf, *regs, *resident;
    uint64_t *slm;
    int32_t *carveout;
    uint8_t *barrier, *limited_by, *reason;
    double *occupancy;
    occ_columns in;
    occ_eval_columns out;
} column_set;

static bool column_set_make(column_set *c, const occ_kernel *ks, size_t n)
{
    size_t m = n ? n : 1;
    c->n = n;
    c->wg_x = calloc(m, 4), c->wg_y = calloc(m, 4), c->wg_z = calloc(m, 4), c->sg = calloc(m, 4);
    c->grf = calloc(m, 4), c->regs = calloc(m, 4), c->resident = calloc(m, 4), c->slm = calloc(m, 8);
    c->carveout = calloc(m, 4), c->barrier = calloc(m, 1), c->limited_by = calloc(m, 1);
    c->reason = calloc(m, 1), c->occupancy = calloc(m, 8);
    if (!c->wg_x || !c->wg_y || !c->wg_z || !c->sg || !c->grf || !c->regs || !c->resident || !c->slm ||
        !c->carveout || !c->barrier || !c->limited_by || !c->reason || !c->occupancy)
        return false;
    for (size_t i = 0; i < n; i++) {
        c->wg_x[i] = ks[i].wg[0], c->wg_y[i] = ks[i].wg[1], c->wg_z[i] = ks[i].wg[2];
        c->sg[i] = ks[i].sub_group, c->grf[i] = ks[i].grf, c->regs[i] = ks[i].regs_per_thread;
        c->slm[i] = ks[i].slm_bytes, c->carveout[i] = ks[i].carveout_pct, c->barrier[i] = ks[i].barrier;
    }
    occ_columns_init(&c->in);
    c->in.wg_x = c->wg_x, c->in.wg_y = c->wg_y, c->in.wg_z = c->wg_z, c->in.sub_group = c->sg;
    c->in.slm_bytes = c->slm, c->in.barrier = c->barrier, c->in.grf = c->grf;
    c->in.regs_per_thread = c->regs, c->in.carveout_pct = c->carveout;
    occ_eval_columns_init(&c->out);
    c->out.resident_wgs = c->resident, c->out.occupancy = c->occupancy;
    c->out.limited_by = c->limited_by, c->out.reason = c->reason;
    return true;
}

static void column_set_free(column_set *c)
{
    free(c->wg_x), free(c->wg_y), free(c->wg_z), free(c->sg), free(c->grf), free(c->regs);
    free(c->resident), free(c->slm), free(c->carveout), free(c->barrier), free(c->limited_by);
    free(c->reason), free(c->occupancy);
}

/* The column batch: one occ_evaluate_columns call per device. */
typedef struct column_batches {
    const occ_device *const *devs;
    column_set *cs;
    size_t ndev;
} column_batches;

static void pass_columns(const void *ctx, uint64_t *acc)
{
    const column_batches *c = ctx;
    for (size_t d = 0; d < c->ndev; d++) {
        occ_evaluate_columns(c->devs[d], c->cs[d].n, &c->cs[d].in, &c->cs[d].out);
        *acc += c->cs[d].resident[0];
    }
}

/* The same queries in four forms, timed in alternation (bench_alternate): the
 * full report one by one and batched, the compact query one by one and as
 * columns.  The batch targets' ratios then compare figures taken under the
 * same state of the machine.  ns[]: in that order, per query. */
static void time_forms(const queries *q, const batches *b, const column_batches *c, double ns[4])
{
    bench_turn t[4] = {{pass_one_by_one, q, (double)q->n, 0}, {pass_batched, b, (double)q->n, 0},
                       {pass_compact, q, (double)q->n, 0}, {pass_columns, c, (double)q->n, 0}};
    sink += bench_alternate(t, 4, 7, 25);
    for (int i = 0; i < 4; i++)
        ns[i] = t[i].ns;
}

static bool launchable(const query *q)
{
    occ_residency r;
    occ_residency_init(&r);
    occ_residency_compute(q->dev, &q->k, &r);
    return r.launchable;
}

static size_t count_launchable(const query *q, size_t n)
{
    size_t ok = 0;
    for (size_t i = 0; i < n; i++)
        ok += launchable(&q[i]);
    return ok;
}

/* ---- process runs ------------------------------------------------------------ */

typedef struct run_stats {
    double *ms;     /* wall time of each run */
    double *cpu_ms; /* its user + system CPU time */
    long *rss_kib;  /* ru_maxrss of each run */
    int n;
} run_stats;

/* One run of argv: fork, exec with stdout to /dev/null, wait4.  Returns 0, or
 * -1 (message printed) when the command failed. */
static int run_once(char *const argv[], double *ms, double *cpu_ms, long *rss_kib)
{
    double t0 = bench_now_ns();
    pid_t pid = fork();
    if (pid < 0) {
        perror("bench_residency: fork");
        return -1;
    }
    if (pid == 0) {
        int fd = open("/dev/null", O_WRONLY);
        if (fd >= 0)
            dup2(fd, STDOUT_FILENO);
        execv(argv[0], argv);
        _exit(127);
    }
    int status;
    struct rusage ru;
    pid_t w;
    while ((w = wait4(pid, &status, 0, &ru)) < 0 && errno == EINTR)
        ;
    *ms = (bench_now_ns() - t0) / 1e6;
    if (w != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        if (w == pid && WIFEXITED(status) && WEXITSTATUS(status) == 127)
            fprintf(stderr, "bench_residency: cannot run %s (--occcalc PATH)\n", argv[0]);
        else if (w == pid && WIFEXITED(status))
            fprintf(stderr, "bench_residency: %s exited with %d\n", argv[0], WEXITSTATUS(status));
        else
            fprintf(stderr, "bench_residency: %s did not exit normally (wait status %d)\n", argv[0], status);
        return -1;
    }
    *rss_kib = ru.ru_maxrss; /* KiB on Linux */
    *cpu_ms = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
              (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
    return 0;
}

static int by_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int by_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

/* q-quantile of sorted values (nearest rank). */
static double quantile(const double *v, int n, double q)
{
    int i = (int)(q * n + 0.999999) - 1;
    return v[i < 0 ? 0 : i >= n ? n - 1 : i];
}

static double median(const double *v, int n)
{
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* ---- main ------------------------------------------------------------------- */

static int usage(void)
{
    fprintf(stderr, "usage: bench_residency [--runs N] [--per-profile N] [--occcalc PATH] [--quick]\n");
    return 2;
}

/* occcalc next to this program's build directory: BUILD/tests/.. /cli/occcalc */
static void default_occcalc(char *buf, size_t size)
{
    char self[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0) {
        snprintf(buf, size, "cli/occcalc");
        return;
    }
    self[len] = '\0';
    char *slash = strrchr(self, '/');
    if (slash)
        *slash = '\0';
    snprintf(buf, size, "%s/../../cli/occcalc", self); /* build/tests/bench -> build/cli */
}

int main(int argc, char **argv)
{
    bench_pin_cpu(); /* one CPU: steadier figures on a many-core host */
    int runs = 200;
    size_t per_profile = 8192;
    double min_ms = 40;
    int alt_rounds = 20; /* mix and sweep in alternation (--quick: 10) */
    char occcalc[PATH_MAX + 32];
    default_occcalc(occcalc, sizeof occcalc);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc)
            runs = atoi(argv[++i]);
        else if (strcmp(argv[i], "--per-profile") == 0 && i + 1 < argc)
            per_profile = (size_t)atol(argv[++i]);
        else if (strcmp(argv[i], "--occcalc") == 0 && i + 1 < argc)
            snprintf(occcalc, sizeof occcalc, "%s", argv[++i]);
        else if (strcmp(argv[i], "--quick") == 0)
            /* fewer and shorter rounds, the same mix: the processor's branch
             * predictor learns part of a mix that short passes repeat (2048
             * kernels per profile: 1.25-1.30x of the sweep; 8192: 1.40x) */
            runs = 40, min_ms = 10, alt_rounds = 10;
        else
            return usage();
    }
    if (runs < 2 || runs > 100000 || per_profile < 1 || per_profile > (1u << 20))
        return usage();

    char machine[512];
    bench_machine(machine, sizeof machine);
    printf("bench_residency: libocc %s residency queries; occcalc cold start\nmachine: %s\n\n",
           occ_version(), machine);

    /* 2. process runs first, while this process is small: Linux carries the
     * pre-exec size of a forked child into its ru_maxrss. */
    char *occ_argv[] = {occcalc, "--wg", "320", "--sg", "8", "--groups", "8", "--json", NULL};
    char *true_argv[] = {"/bin/true", NULL};
    run_stats st[2];
    char *const *cmd[2] = {occ_argv, true_argv};
    for (int c = 0; c < 2; c++) {
        st[c].ms = calloc((size_t)runs, sizeof *st[c].ms);
        st[c].cpu_ms = calloc((size_t)runs, sizeof *st[c].cpu_ms);
        st[c].rss_kib = calloc((size_t)runs, sizeof *st[c].rss_kib);
        st[c].n = runs;
        if (!st[c].ms || !st[c].cpu_ms || !st[c].rss_kib)
            return 1;
    }
    for (int i = 0; i < runs; i++) /* interleaved: both see the same machine load */
        for (int c = 0; c < 2; c++)
            if (run_once(cmd[c], &st[c].ms[i], &st[c].cpu_ms[i], &st[c].rss_kib[i]) != 0)
                return 1;
    double first[2], med[2], p90[2], cpu_med[2], rss_med[2];
    long rss_max[2];
    for (int c = 0; c < 2; c++) {
        first[c] = st[c].ms[0];
        qsort(st[c].ms, (size_t)runs, sizeof *st[c].ms, by_double);
        qsort(st[c].cpu_ms, (size_t)runs, sizeof *st[c].cpu_ms, by_double);
        qsort(st[c].rss_kib, (size_t)runs, sizeof *st[c].rss_kib, by_long);
        cpu_med[c] = median(st[c].cpu_ms, runs);
        med[c] = median(st[c].ms, runs);
        p90[c] = quantile(st[c].ms, runs, 0.9);
        rss_med[c] = runs % 2 ? (double)st[c].rss_kib[runs / 2]
                              : (st[c].rss_kib[runs / 2 - 1] + st[c].rss_kib[runs / 2]) / 2.0;
        rss_max[c] = st[c].rss_kib[runs - 1];
    }

    /* 1. residency queries */
    size_t ndev = occ_builtin_count();
    const occ_device **devs = calloc(ndev, sizeof *devs);
    occ_kernel **ks = calloc(ndev, sizeof *ks);
    size_t *nk = calloc(ndev, sizeof *nk);
    query *mix = calloc(ndev * per_profile, sizeof *mix);
    query *one = calloc(per_profile, sizeof *one);
    occ_residency *out = calloc(per_profile, sizeof *out);
    if (!devs || !ks || !nk || !mix || !one || !out)
        return 1;
    uint64_t seed = 0x0cc0cc;
    size_t nmix = 0;
    for (size_t d = 0; d < ndev; d++) {
        occ_diag diag;
        occ_device *dev;
        if (occ_device_builtin(occ_builtin_name(d), &dev, &diag) != OCC_OK) {
            fprintf(stderr, "bench_residency: built-in %s does not load\n", occ_builtin_name(d));
            return 1;
        }
        devs[d] = dev;
        ks[d] = calloc(per_profile, sizeof **ks);
        if (!ks[d])
            return 1;
        nk[d] = per_profile;
        for (size_t i = 0; i < per_profile; i++) {
            ks[d][i] = random_kernel(&seed, occ_device_describe(dev));
            mix[nmix++] = (query){dev, ks[d][i]};
        }
    }
    for (size_t i = nmix - 1; i > 0; i--) { /* shuffle: devices interleaved */
        size_t j = (size_t)rng_range(&seed, 0, i);
        query t = mix[i];
        mix[i] = mix[j];
        mix[j] = t;
    }
    for (size_t i = 0; i < per_profile; i++)
        occ_residency_init(&out[i]);

    printf("residency queries: %zu random configurations per profile, ns per query\n(thread CPU time, best of 5;"
           " \"all, mixed\" and \"tgl sweep\": every form in alternation, best of 7 rounds)\n",
           per_profile);
    printf("  %-12s %12s %12s %10s\n", "profile", "one by one", "batched", "launchable");
    for (size_t d = 0; d < ndev; d++) {
        for (size_t i = 0; i < per_profile; i++)
            one[i] = (query){devs[d], ks[d][i]};
        double t1 = time_one_by_one(one, per_profile, min_ms / 4);
        double tb = time_batched(&devs[d], (const occ_kernel *const *)&ks[d], &nk[d], 1, out,
                                 min_ms / 4);
        size_t ok = 0;
        for (size_t i = 0; i < per_profile; i++)
            ok += out[i].launchable;
        printf("  %-12s %9.1f ns %9.1f ns %9.0f %%\n", occ_builtin_name(d), t1, tb,
               100.0 * (double)ok / (double)per_profile);
    }
    /* the same mix in every form, in alternation: the full report one by one
     * and batched (one call per device), the compact query occ_evaluate one
     * by one and occ_evaluate_columns (one call per device) */
    column_set *cs = calloc(ndev, sizeof *cs);
    if (!cs)
        return 1;
    for (size_t d = 0; d < ndev; d++)
        if (!column_set_make(&cs[d], ks[d], nk[d]))
            return 1; /* cs kept for the alternating rounds below */
    double forms[4];
    time_forms(&(queries){mix, nmix}, &(batches){devs, (const occ_kernel *const *)ks, nk, ndev, out},
               &(column_batches){devs, cs, ndev}, forms);
    double mix1 = forms[0], mixb = forms[1], cmix1 = forms[2], cmixc = forms[3];
    printf("  %-12s %9.1f ns %9.1f ns %9.0f %%  (%zu profiles, %zu queries, shuffled)\n", "all, mixed",
           mix1, mixb, 100.0 * (double)count_launchable(mix, nmix) / (double)nmix, ndev, nmix);
    /* where the mix's extra cost comes from: the same kernels one device
     * after another (the device changes 21 times, not at every query) */
    query *grouped = calloc(nmix, sizeof *grouped);
    if (!grouped)
        return 1;
    for (size_t d = 0, j = 0; d < ndev; d++)
        for (size_t i = 0; i < nk[d]; i++)
            grouped[j++] = (query){devs[d], ks[d][i]};
    double cgrp1 = time_compact(grouped, nmix, min_ms * 2);
    free(grouped);
    query *mix_all = malloc(nmix * sizeof *mix_all); /* kept for the alternating rounds below */
    if (!mix_all)
        return 1;
    memcpy(mix_all, mix, nmix * sizeof *mix_all);

    /* The same mix without the kernels that cannot launch: those format a
     * reason text (snprintf), which costs more than the model itself. */
    size_t nok = 0;
    for (size_t i = 0; i < nmix; i++)
        if (launchable(&mix[i]))
            mix[nok++] = mix[i];
    for (size_t d = 0; d < ndev; d++) {
        size_t m = 0;
        for (size_t i = 0; i < nk[d]; i++)
            if (launchable(&(query){devs[d], ks[d][i]}))
                ks[d][m++] = ks[d][i];
        nk[d] = m;
    }
    double ok1 = time_one_by_one(mix, nok, min_ms * 2);
    double cok1 = time_compact(mix, nok, min_ms * 2); /* ... and those that cannot launch */
    double okb = time_batched(devs, (const occ_kernel *const *)ks, nk, ndev, out, min_ms * 2);
    printf("  %-12s %9.1f ns %9.1f ns %9.0f %%  (the launchable ones: %zu queries)\n", "all, launch",
           ok1, okb, 100.0, nok);

    /* A tuner's sweep: tgl, work-group 1..512 for each sub-group size, in
     * order (predictable branches, unlike the random mix). */
    size_t nsweep = 0;
    const occ_device *tgl = NULL;
    for (size_t d = 0; d < ndev; d++)
        if (strcmp(occ_builtin_name(d), OCC_DEFAULT_DEVICE) == 0)
            tgl = devs[d];
    double sw1 = 0, swb = 0, csw1 = 0, cswc = 0;
    /* the mix against the sweep in alternation: compact query, full report, columns */
    double alt_mix = 0, alt_sweep = 0, alt_full_mix = 0, alt_full_sweep = 0, alt_col_mix = 0, alt_col_sweep = 0;
    if (tgl && per_profile >= 3 * 512) {
        const occ_device_desc *td = occ_device_describe(tgl);
        for (uint32_t sg = 0; sg < td->n_sub_group_sizes && sg < 3; sg++)
            for (uint32_t w = 1; w <= 512; w++) {
                occ_kernel k;
                occ_kernel_init(&k);
                k.wg[0] = w;
                k.sub_group = td->sub_group_sizes[sg];
                mix[nsweep] = (query){tgl, k};
                ks[0][nsweep++] = k;
            }
        column_set sweep_cs;
        if (!column_set_make(&sweep_cs, ks[0], nsweep))
            return 1;
        time_forms(&(queries){mix, nsweep}, &(batches){&tgl, (const occ_kernel *const *)ks, &nsweep, 1, out},
                   &(column_batches){&tgl, &sweep_cs, 1}, forms);
        sw1 = forms[0], swb = forms[1], csw1 = forms[2], cswc = forms[3];
        printf("  %-12s %9.1f ns %9.1f ns %9.0f %%  (tgl, work-group 1..512 x sub-group 8, 16, 32 in order)\n",
               "tgl sweep", sw1, swb, 100.0 * (double)count_launchable(mix, nsweep) / (double)nsweep);
        queries q_mix = {mix_all, nmix}, q_sweep = {mix, nsweep};
        time_alternating((bench_turn){pass_compact, &q_mix, (double)nmix, 0}, (bench_turn){pass_compact, &q_sweep, (double)nsweep, 0},
                         alt_rounds, &alt_mix, &alt_sweep);
        time_alternating((bench_turn){pass_one_by_one, &q_mix, (double)nmix, 0},
                         (bench_turn){pass_one_by_one, &q_sweep, (double)nsweep, 0},
                         alt_rounds, &alt_full_mix, &alt_full_sweep);
        size_t ncol_mix = 0;
        for (size_t d = 0; d < ndev; d++)
            ncol_mix += cs[d].n;
        column_batches col_mix = {devs, cs, ndev}, col_sweep = {&tgl, &sweep_cs, 1};
        time_alternating((bench_turn){pass_columns, &col_mix, (double)ncol_mix, 0},
                         (bench_turn){pass_columns, &col_sweep, (double)nsweep, 0},
                         alt_rounds, &alt_col_mix, &alt_col_sweep);
        column_set_free(&sweep_cs);
    }
    for (size_t d = 0; d < ndev; d++)
        column_set_free(&cs[d]);
    if (alt_full_sweep > 0)
        printf("  %-12s %9.1f ns / %.1f ns = %.2fx  (the mix and the sweep in alternation, best of %d rounds each)\n",
               "mix / sweep", alt_full_mix, alt_full_sweep, alt_full_mix / alt_full_sweep, alt_rounds);
    printf("\ncompact query (occ_eval: work-groups per core, occupancy, limits, reason; 24 bytes),\n"
           "ns per query: occ_evaluate one by one, occ_evaluate_columns (one call per device)\n");
    printf("  %-12s %9.1f ns %9.1f ns  (random mix of all profiles)\n", "all, mixed", cmix1, cmixc);
    printf("  %-12s %9.1f ns %12s  (the same, one device after another)\n", "all, grouped", cgrp1, "");
    printf("  %-12s %9.1f ns %12s  (the mix without the kernels that cannot launch)\n", "all, launch", cok1, "");
    if (alt_sweep > 0)
        printf("  %-12s %9.1f ns / %.1f ns = %.2fx  (the mix and the sweep in alternation, best of %d rounds each)\n",
               "mix / sweep", alt_mix, alt_sweep, alt_mix / alt_sweep, alt_rounds);
    if (csw1 > 0)
        printf("  %-12s %9.1f ns %9.1f ns  (tgl, work-group 1..512 x sub-group 8, 16, 32 in order)\n",
               "tgl sweep", csw1, cswc);
    if (alt_col_sweep > 0)
        printf("  %-12s %12s %9.2f ns / %.2f ns = %.2fx  (columns: the mix and the sweep in alternation)\n",
               "mix / sweep", "", alt_col_mix, alt_col_sweep, alt_col_mix / alt_col_sweep);
    printf("\n");

    printf("occcalc --wg 320 --sg 8 --groups 8 --json: %d runs, each a new process, interleaved\n"
           "with /bin/true (the cost of starting any process here)\n", runs);
    printf("  %-20s %9s %9s %9s %9s %14s %12s\n", "wall time:", "median", "p90", "first", "CPU med",
           "peak RSS med", "peak RSS max");
    const char *label[2] = {"occcalc", "/bin/true"};
    for (int c = 0; c < 2; c++)
        printf("  %-20s %6.2f ms %6.2f ms %6.2f ms %6.2f ms %10.0f KiB %8ld KiB\n", label[c], med[c],
               p90[c], first[c], cpu_med[c], rss_med[c], rss_max[c]);
    printf("  %-20s %6.2f ms %6.2f ms %9s %6.2f ms %10.0f KiB %8ld KiB\n\n", "occcalc - /bin/true",
           med[0] - med[1], p90[0] - p90[1], "", cpu_med[0] - cpu_med[1], rss_med[0] - rss_med[1],
           rss_max[0] - rss_max[1]);

    const char *verdict = mix1 <= 50 && mixb <= 50  ? "met"
                          : ok1 <= 50 && okb <= 50  ? "met for launchable kernels, NOT for the random mix"
                          : sw1 > 0 && sw1 <= 50    ? "met on a sweep, NOT on the random mix"
                                                    : "NOT met";
    char sweep[64] = "not run: --per-profile below 1536";
    if (sw1 > 0)
        snprintf(sweep, sizeof sweep, "%.1f / %.1f", sw1, swb);
    printf("targets: query <= 50 ns: %s\n"
           "         (random mix %.1f / %.1f ns one by one / batched; launchable only %.1f / %.1f;\n"
           "         tgl sweep %s)\n",
           verdict, mix1, mixb, ok1, okb, sweep);
    printf("         occcalc run < 5 ms: %s (median %.2f ms, p90 %.2f ms, spawn included)\n",
           p90[0] < 5 ? "met" : med[0] < 5 ? "met by the median only" : "NOT met", med[0], p90[0]);
    printf("         occcalc peak memory < 8 MB: %s (max %ld KiB)\n",
           rss_max[0] < 8 * 1024 ? "met" : "NOT met", rss_max[0]);
    printf("         occcalc within 0.5 ms of /bin/true: %s (median +%.2f ms, p90 +%.2f ms)\n\n",
           p90[0] - p90[1] <= 0.5 ? "met" : med[0] - med[1] <= 0.5 ? "met by the median only" : "NOT met",
           med[0] - med[1], p90[0] - p90[1]);

    bench_result("residency_query_mix", mix1, "ns", NULL, 0);
    bench_result("residency_query_mix_batched", mixb, "ns", NULL, 0);
    bench_result("residency_query_mix_launchable", ok1, "ns", NULL, 0);
    bench_result("residency_query_mix_launchable_batched", okb, "ns", NULL, 0);
    if (sw1 > 0) {
        bench_result("residency_query_sweep", sw1, "ns", NULL, 0);
        bench_result("residency_query_sweep_batched", swb, "ns", NULL, 0);
    }
    bench_result("compact_query_mix", cmix1, "ns", NULL, 0);
    bench_result("compact_query_mix_columns", cmixc, "ns", "compact_one_by_one", cmix1);
    bench_result("compact_query_mix_grouped", cgrp1, "ns", NULL, 0);
    if (alt_sweep > 0) {
        bench_result("compact_query_mix_alternating", alt_mix, "ns", "compact_query_sweep_alternating", alt_sweep);
        bench_result("residency_query_mix_alternating", alt_full_mix, "ns", "residency_query_sweep_alternating",
                     alt_full_sweep);
        bench_result("compact_query_mix_columns_alternating", alt_col_mix, "ns",
                     "compact_query_sweep_columns_alternating", alt_col_sweep);
    }
    bench_result("compact_query_mix_launchable", cok1, "ns", NULL, 0);
    if (csw1 > 0) {
        bench_result("compact_query_sweep", csw1, "ns", NULL, 0);
        bench_result("compact_query_sweep_columns", cswc, "ns", "compact_one_by_one", csw1);
    }
    bench_result("occcalc_spawn_median", med[0], "ms", "bin_true", med[1]);
    bench_result("occcalc_spawn_p90", p90[0], "ms", "bin_true", p90[1]);
    bench_result("occcalc_spawn_cpu_median", cpu_med[0], "ms", "bin_true", cpu_med[1]);
    bench_result("occcalc_spawn_peak_rss", (double)rss_max[0], "KiB", "bin_true", (double)rss_max[1]);

    for (size_t d = 0; d < ndev; d++) {
        occ_device_free((occ_device *)devs[d]);
        free(ks[d]);
    }
    free(devs), free(ks), free(nk), free(mix), free(mix_all), free(one), free(out), free(cs);
    for (int c = 0; c < 2; c++)
        free(st[c].ms), free(st[c].cpu_ms), free(st[c].rss_kib);
    return 0;
}
