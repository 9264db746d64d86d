/* Benchmark of the dispatch simulator (not a test: it prints figures).
 *
 *  1. Equal durations, 10^9 work-groups: target 1 ms or less per run.  Beside
 *     it, in the same run: the closed-form wave model (occ_gpu_compute) and
 *     what simulating work-group by work-group would take (the event engine
 *     on 10^6, scaled).
 *  2. Unequal durations through the event queue, 10^7 work-groups: target
 *     0.1 s or less each (10^8 work-groups per CPU second), for five duration
 *     models: uniform and normal (drawn by the simulator), lognormal and
 *     bimodal (lists of 2^20 values, cycled), and a short list of 1000
 *     values.  Best and worst of 3 runs.  Beside it: drawing the durations
 *     alone, and the event engine on equal durations.
 *
 * Times are CPU time of the process (one thread, pinned to the CPU it starts
 * on); part 2 also prints wall time.
 * Usage: bench_phases [SCALE]  (SCALE multiplies the work-groups of part 2;
 * default 1 = 10^7). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_common.h"
#include "occ/timeline.h"

/* CPU time of this process: what "per second on one core" means, and less
 * disturbed than wall time on a shared machine (wall time is printed too). */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
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
    char date[64];
    time_t t = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&t));
    printf("machine  %s, %ld CPUs online; %s\n", model, sysconf(_SC_NPROCESSORS_ONLN), date);
}

static occ_device *dev_of(const char *name)
{
    occ_device *d = NULL;
    occ_diag diag;
    if (occ_device_builtin(name, &d, &diag) != OCC_OK) {
        fprintf(stderr, "bench_phases: no device %s\n", name);
        exit(1);
    }
    return d;
}

typedef struct config {
    const char *device;
    uint32_t wg, sg;
    bool barrier;
    occ_dispatch_order order;
    occ_partial_policy partial;
} config;

static const config configs[] = {
    {"tgl", 320, 8, false, 0, OCC_PARTIAL_DEVICE},   /* the seed example, tgl's policies */
    {"tgl", 320, 8, true, 0, OCC_PARTIAL_DEVICE},    /* with a barrier */
    {"tgl", 512, 32, false, 0, OCC_PARTIAL_DEVICE},  /* VectorAdd2 */
    {"h100-sxm", 320, 32, false, 0, OCC_PARTIAL_DEVICE}, /* spread, 132 SMs */
    {"max-1550", 1024, 16, true, OCC_DISPATCH_SPREAD, OCC_PARTIAL_ALWAYS},
};

static void describe(char *buf, size_t n, const config *c)
{
    snprintf(buf, n, "%s wg %u sg %u%s%s%s", c->device, c->wg, c->sg, c->barrier ? " barrier" : "",
             c->order == OCC_DISPATCH_SPREAD ? " spread" : "",
             c->partial == OCC_PARTIAL_ALWAYS ? " partial-always" : "");
}

/* Best of `reps` runs of the simulator, seconds. */
static double time_sim(const occ_device *dev, const occ_kernel *k, uint64_t n,
                       const occ_sim_options *o, int reps, occ_timeline *keep)
{
    double best = 1e30;
    for (int r = 0; r < reps; r++) {
        occ_timeline t;
        double t0 = now();
        occ_status st = occ_timeline_simulate(dev, k, n, o, &t, NULL);
        double dt = now() - t0;
        if (st != OCC_OK && st != OCC_ERR_TOO_LARGE) {
            fprintf(stderr, "bench_phases: simulate: %s\n", occ_status_name(st));
            exit(1);
        }
        if (dt < best)
            best = dt;
        if (keep && r == 0)
            *keep = t;
        else
            occ_timeline_free(&t);
    }
    return best;
}

long sysconf_cpus(void);

/* Uniform in (0, 1) from xorshift64*: the bench's own lists (not occ's draws). */
static double unit_draw(uint64_t *x)
{
    *x ^= *x >> 12;
    *x ^= *x << 25;
    *x ^= *x >> 27;
    return ((double)((*x * 0x2545f4914f6cdd1dull) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

int main(int argc, char **argv)
{
    bench_pin_cpu(); /* one CPU: steadier figures on a many-core host, as the other benchmarks */
    double scale = argc > 1 ? atof(argv[1]) : 1;
    if (!(scale > 0))
        scale = 1;
    machine();
#ifdef __OPTIMIZE__
    printf("build    optimised (%s)\n", __VERSION__);
#else
    printf("build    NOT optimised: figures are not representative (%s)\n", __VERSION__);
#endif

    const uint64_t N = 1000000000ull;
    printf("\n1. Equal durations, %llu work-groups (target: <= 1 ms each)\n",
           (unsigned long long)N);
    printf("   %-44s %7s %8s %12s %12s %8s\n", "configuration", "phases", "CPU ms", "wave model",
           "per-WG est.", "verdict");
    int failed = 0;
    for (size_t i = 0; i < sizeof configs / sizeof configs[0]; i++) {
        const config *c = &configs[i];
        occ_device *dev = dev_of(c->device);
        occ_kernel k;
        occ_kernel_init(&k);
        k.wg[0] = c->wg;
        k.sub_group = c->sg;
        k.barrier = c->barrier;
        occ_sim_options o;
        occ_sim_options_init(&o);
        o.order = c->order;
        o.partial = c->partial;
        o.lanes = true;
        occ_timeline t;
        double dt = time_sim(dev, &k, N, &o, 20, &t);
        /* reference 1: the closed-form wave model */
        occ_residency r;
        occ_residency_compute(dev, &k, &r);
        occ_gpu g;
        double best_g = 1e30;
        for (int rep = 0; rep < 1000; rep++) {
            double t0 = now();
            occ_gpu_compute(dev, &r, N, &g);
            double d = now() - t0;
            if (d < best_g)
                best_g = d;
        }
        /* reference 2: work-group by work-group (event engine), 10^6, scaled */
        occ_sim_options e = o;
        e.force_events = true;
        e.summary_only = true;
        double de = time_sim(dev, &k, 1000000, &e, 1, NULL) * (double)N / 1e6;
        char name[96];
        describe(name, sizeof name, c);
        bool ok = dt <= 1e-3;
        failed += !ok;
        printf("   %-44s %7zu %8.3f %9.4f ms %10.1f s %8s\n", name, t.n_phases, dt * 1e3,
               best_g * 1e3, de, ok ? "ok" : "SLOWER");
        occ_timeline_free(&t);
        occ_device_free(dev);
    }

    uint64_t M = (uint64_t)(1e7 * scale);
    const double budget = 0.1 * scale; /* seconds for M work-groups */
    printf("\n2. Unequal durations, event queue, %llu work-groups (target: <= %.3g s, 10^8 WGs/s)\n",
           (unsigned long long)M, budget);
    printf("   %-44s %-18s %8s %8s %8s %10s %12s %8s\n", "configuration", "durations", "CPU s",
           "worst", "wall s", "WGs/s", "draws only", "verdict");
    /* lists the simulator cycles through: lognormal (median 1, sigma 0.5),
     * bimodal (90 % near 1, 10 % near 4), and a short list of 1000 values */
    enum { LONG_LIST = 1 << 20, SHORT_LIST = 1000 };
    double *lognormal = malloc(LONG_LIST * sizeof *lognormal);
    double *bimodal = malloc(LONG_LIST * sizeof *bimodal);
    double *shortlist = malloc(SHORT_LIST * sizeof *shortlist);
    if (!lognormal || !bimodal || !shortlist) {
        fprintf(stderr, "bench_phases: out of memory\n");
        return 1;
    }
    uint64_t rng = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < LONG_LIST; i++) {
        double u1 = unit_draw(&rng), u2 = unit_draw(&rng);
        lognormal[i] = exp(0.5 * sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2));
        double u3 = unit_draw(&rng);
        bimodal[i] = unit_draw(&rng) < 0.9 ? 0.9 + 0.2 * u3 : 3.6 + 0.8 * u3;
    }
    for (size_t i = 0; i < SHORT_LIST; i++)
        shortlist[i] = 0.5 + unit_draw(&rng);
    for (size_t i = 0; i < sizeof configs / sizeof configs[0]; i++) {
        const config *c = &configs[i];
        occ_device *dev = dev_of(c->device);
        occ_kernel k;
        occ_kernel_init(&k);
        k.wg[0] = c->wg;
        k.sub_group = c->sg;
        k.barrier = c->barrier;
        for (int kind = 0; kind < 6; kind++) {
            occ_sim_options o;
            occ_sim_options_init(&o);
            o.order = c->order;
            o.partial = c->partial;
            o.summary_only = true;
            const char *dname;
            switch (kind) {
            case 0:
                o.durations = (occ_durations){.kind = OCC_DURATIONS_UNIFORM, .a = 0.5, .b = 1.5, .seed = 1};
                dname = "uniform 0.5..1.5";
                break;
            case 1:
                o.durations = (occ_durations){.kind = OCC_DURATIONS_NORMAL, .a = 1, .b = 0.1, .seed = 1};
                dname = "normal 1, 0.1";
                break;
            case 2:
                o.durations = (occ_durations){.kind = OCC_DURATIONS_LIST, .values = lognormal,
                                              .n_values = LONG_LIST};
                dname = "lognormal 0, 0.5";
                break;
            case 3:
                o.durations = (occ_durations){.kind = OCC_DURATIONS_LIST, .values = bimodal,
                                              .n_values = LONG_LIST};
                dname = "bimodal 1 | 4";
                break;
            case 4:
                o.durations = (occ_durations){.kind = OCC_DURATIONS_LIST, .values = shortlist,
                                              .n_values = SHORT_LIST};
                dname = "list of 1000";
                break;
            default:
                o.force_events = true;
                dname = "equal (events)";
            }
            const bool ref = kind == 5;
            double best = 1e30, worst = 0, dw = 0;
            for (int rep = 0; rep < (ref ? 1 : 3); rep++) {
                double w0 = wall();
                double dt = time_sim(dev, &k, M, &o, 1, NULL);
                if (rep == 0)
                    dw = wall() - w0;
                best = dt < best ? dt : best;
                worst = dt > worst ? dt : worst;
            }
            /* reference: drawing the durations alone */
            double t0 = now(), sink = 0;
            bool drawn = kind < 2;
            if (drawn)
                for (uint64_t w = 0; w < M; w++)
                    sink += occ_duration_of(&o.durations, w);
            double draws = now() - t0;
            char name[96];
            describe(name, sizeof name, c);
            bool ok = worst <= budget;
            failed += !ok && !ref;
            char dr[32] = "-";
            if (drawn)
                snprintf(dr, sizeof dr, "%.2e/s", (double)M / draws);
            printf("   %-44s %-18s %8.3f %8.3f %8.3f %10.2e %12s %8s%s\n", name, dname, best, worst,
                   dw, (double)M / best, dr, ref ? "(ref)" : ok ? "ok" : "SLOWER",
                   sink < 0 ? "!" : "");
        }
        occ_device_free(dev);
    }
    free(lognormal);
    free(bimodal);
    free(shortlist);
    printf("\n%s\n", failed ? "some targets missed (see SLOWER above)" : "all targets met");
    return 0;
}

#include <unistd.h>
long sysconf_cpus(void) { return sysconf(_SC_NPROCESSORS_ONLN); }
