/* bench_ze_reference: occ's residency query against the Intel driver's own
 * answer, zeKernelSuggestMaxCooperativeGroupCount, measured in the same run.
 *
 * The driver runs without an Intel GPU in hardware-less mode (section 5 of
 * the Intel notes): NEOReadDebugKeys=1 SetCommandStreamReceiver=1
 * ProductFamilyOverride=tgllp.  It is loaded in a child process working in a
 * temporary directory, so a driver crash or a stray capture file cannot hurt;
 * the child sends its timings back through a pipe.
 *
 * Both sides answer the same questions: a kernel compiled for sub-group 8
 * (tests/bench/ze_reference.cl), work-group sizes 8..512 in turn, on Tiger
 * Lake (occ's built-in "tgl").  One driver answer = zeKernelSetGroupSize +
 * zeKernelSuggestMaxCooperativeGroupCount (the size must be set to ask about
 * it); the suggest call alone, with the size unchanged, is timed as well.
 * One occ answer = occ_evaluate (the compact query; as columns, occ_evaluate_columns)
 * and occ_residency_compute (the full report; batched, occ_residency_batch).
 * Times are the CPU time of the thread that asks; every form of occ's and
 * both driver calls are timed in alternation (bench_alternate, in the
 * driver's process), 7 rounds of about 30 ms each, the best round of each.
 *
 *   bench_ze_reference [--spv FILE] [-v]
 * Exit: 0 with the reference measured; 77 when the driver is not available
 * (occ's figures are printed all the same); 1 on a usage or file error. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <ze_api.h>

#include "bench_common.h"
#include "occ_forms.h"
#include "occ/advise.h"
#include "occ/occ.h"

#ifndef OCC_BENCH_ZE_SPV
#define OCC_BENCH_ZE_SPV "ze_reference.spv"
#endif

static const uint32_t sizes[] = {8, 16, 32, 64, 96, 128, 160, 192, 256, 320, 384, 448, 512};
#define N_SIZES (sizeof sizes / sizeof sizes[0])
#define SUB_GROUP 8

enum { BATCH = 1024 };

/* What the timed passes read: occ's forms (the sizes in turn one by one,
 * BATCH kernels batched), and the driver's kernel (NULL: not timed). */
typedef struct sides {
    occ_forms occ;
    ze_kernel_handle_t kernel;
} sides;

/* ns per answer of each side, every one timed in the same alternation. */
typedef struct timings {
    double compact, prepared, full, batch, columns;
    double set_suggest; /* the driver: set the size, then suggest (sizes in turn) */
    double suggest;     /* the driver: suggest alone, size unchanged */
} timings;

/* The driver's passes (occ's: bench/occ_forms.c). */
static void pass_set_suggest(const void *ctx, uint64_t *acc)
{
    const sides *s = ctx;
    uint32_t count = 0;
    for (size_t i = 0; i < N_SIZES; i++) {
        zeKernelSetGroupSize(s->kernel, sizes[i], 1, 1);
        zeKernelSuggestMaxCooperativeGroupCount(s->kernel, &count);
        *acc += count;
    }
}

static void pass_suggest(const void *ctx, uint64_t *acc)
{
    const sides *s = ctx;
    uint32_t count = 0;
    zeKernelSuggestMaxCooperativeGroupCount(s->kernel, &count); /* the size last set: 512 */
    *acc += count;
}

/* Every side in alternation, the best round of each (occ's alone when there
 * is no driver kernel): the ratios then compare figures taken under the same
 * state of a shared host.  Returns the answers' sum (never 0 when it ran). */
static uint64_t time_sides(const sides *s, timings *t)
{
    enum { T_COMPACT, T_PREPARED, T_FULL, T_BATCH, T_COLUMNS, T_SET_SUGGEST, T_SUGGEST };
    bench_turn turns[] = {
        [T_COMPACT] = {occ_forms_compact, &s->occ, N_SIZES, 0}, [T_PREPARED] = {occ_forms_prepared, &s->occ, N_SIZES, 0},
        [T_FULL] = {occ_forms_full, &s->occ, N_SIZES, 0},       [T_BATCH] = {occ_forms_batch, &s->occ, BATCH, 0},
        [T_COLUMNS] = {occ_forms_columns, &s->occ, BATCH, 0},   [T_SET_SUGGEST] = {pass_set_suggest, s, N_SIZES, 0},
        [T_SUGGEST] = {pass_suggest, s, 1, 0},
    };
    uint64_t sum = bench_alternate(turns, s->kernel ? T_SUGGEST + 1 : T_COLUMNS + 1, 7, 30);
    *t = (timings){turns[T_COMPACT].ns, turns[T_PREPARED].ns, turns[T_FULL].ns, turns[T_BATCH].ns,
                   turns[T_COLUMNS].ns, s->kernel ? turns[T_SET_SUGGEST].ns : 0,
                   s->kernel ? turns[T_SUGGEST].ns : 0};
    return sum;
}

/* What the child sends back. */
typedef struct ze_report {
    int ok;
    char error[256];
    char device[512];
    uint32_t groups[N_SIZES];   /* the driver's answer per size */
    timings t;                  /* occ and the driver, in alternation */
} ze_report;

static int fail(ze_report *r, const char *what, ze_result_t res)
{
    snprintf(r->error, sizeof r->error, "%s failed (0x%x)", what, (unsigned)res);
    return 1;
}

/* In the child: ask the driver, time it.  Returns 0 on success. */
static int ask_driver(const unsigned char *spv, size_t spv_len, sides sd, ze_report *r)
{
    ze_result_t res = zeInit(ZE_INIT_FLAG_GPU_ONLY);
    if (res != ZE_RESULT_SUCCESS) /* never call ze* again after this (Intel notes, section 5) */
        return fail(r, "zeInit (no Level Zero GPU driver)", res);
    uint32_t n = 1;
    ze_driver_handle_t driver;
    if ((res = zeDriverGet(&n, &driver)) != ZE_RESULT_SUCCESS || n == 0)
        return fail(r, "zeDriverGet", res);
    n = 1;
    ze_device_handle_t device;
    if ((res = zeDeviceGet(driver, &n, &device)) != ZE_RESULT_SUCCESS || n == 0)
        return fail(r, "zeDeviceGet", res);
    ze_device_properties_t props = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    if ((res = zeDeviceGetProperties(device, &props)) != ZE_RESULT_SUCCESS)
        return fail(r, "zeDeviceGetProperties", res);
    snprintf(r->device, sizeof r->device, "%s (%u slices x %u sub-slices x %u EU x %u threads)",
             props.name, props.numSlices, props.numSubslicesPerSlice, props.numEUsPerSubslice,
             props.numThreadsPerEU);
    ze_context_desc_t cdesc = {.stype = ZE_STRUCTURE_TYPE_CONTEXT_DESC};
    ze_context_handle_t ctx;
    if ((res = zeContextCreate(driver, &cdesc, &ctx)) != ZE_RESULT_SUCCESS)
        return fail(r, "zeContextCreate", res);
    ze_module_desc_t mdesc = {.stype = ZE_STRUCTURE_TYPE_MODULE_DESC,
                              .format = ZE_MODULE_FORMAT_IL_SPIRV,
                              .inputSize = spv_len,
                              .pInputModule = spv,
                              .pBuildFlags = ""};
    ze_module_handle_t module;
    if ((res = zeModuleCreate(ctx, device, &mdesc, &module, NULL)) != ZE_RESULT_SUCCESS)
        return fail(r, "zeModuleCreate", res);
    ze_kernel_desc_t kdesc = {.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC, .pKernelName = "occ_bench"};
    ze_kernel_handle_t kernel;
    if ((res = zeKernelCreate(module, &kdesc, &kernel)) != ZE_RESULT_SUCCESS)
        return fail(r, "zeKernelCreate", res);

    for (size_t i = 0; i < N_SIZES; i++) {
        if ((res = zeKernelSetGroupSize(kernel, sizes[i], 1, 1)) != ZE_RESULT_SUCCESS)
            return fail(r, "zeKernelSetGroupSize", res);
        if ((res = zeKernelSuggestMaxCooperativeGroupCount(kernel, &r->groups[i])) != ZE_RESULT_SUCCESS)
            return fail(r, "zeKernelSuggestMaxCooperativeGroupCount", res);
    }
    sd.kernel = kernel;
    if (time_sides(&sd, &r->t) == 0)
        return fail(r, "the driver answered 0 every time", ZE_RESULT_SUCCESS);
    zeKernelDestroy(kernel);
    zeModuleDestroy(module);
    zeContextDestroy(ctx);
    r->ok = 1;
    return 0;
}

static void run_child(int fd, const unsigned char *spv, size_t spv_len, const sides *sd)
{
    ze_report r;
    memset(&r, 0, sizeof r);
    char dir[] = "/tmp/occ-bench-ze-XXXXXX";
    if (!mkdtemp(dir) || chdir(dir) != 0) {
        snprintf(r.error, sizeof r.error, "cannot make a temporary directory: %s", strerror(errno));
    } else {
        setenv("NEOReadDebugKeys", "1", 1);
        setenv("SetCommandStreamReceiver", "1", 1);
        setenv("ProductFamilyOverride", "tgllp", 1);
        alarm(120);
        ask_driver(spv, spv_len, *sd, &r);
        /* The driver may leave capture files behind: clear the directory. */
        if (system("rm -rf -- ./* 2>/dev/null") != 0) { /* best effort */
        }
        if (chdir("/") == 0)
            rmdir(dir);
    }
    ssize_t w = write(fd, &r, sizeof r);
    _exit(w == (ssize_t)sizeof r ? 0 : 1);
}

/* Fork, let the child ask the driver, collect its report. */
static void measure_driver(const unsigned char *spv, size_t spv_len, const sides *sd, ze_report *r)
{
    memset(r, 0, sizeof *r);
    int fds[2];
    if (pipe(fds) != 0) {
        snprintf(r->error, sizeof r->error, "pipe: %s", strerror(errno));
        return;
    }
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(r->error, sizeof r->error, "fork: %s", strerror(errno));
        return;
    }
    if (pid == 0) {
        close(fds[0]);
        run_child(fds[1], spv, spv_len, sd);
    }
    close(fds[1]);
    size_t got = 0;
    while (got < sizeof *r) {
        ssize_t n = read(fds[0], (char *)r + got, sizeof *r - got);
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fds[0]);
    int status;
    waitpid(pid, &status, 0);
    if (got != sizeof *r) {
        memset(r, 0, sizeof *r);
        if (WIFSIGNALED(status))
            snprintf(r->error, sizeof r->error, "the driver's process died of signal %d (%s)",
                     WTERMSIG(status), strsignal(WTERMSIG(status)));
        else
            snprintf(r->error, sizeof r->error, "the driver's process sent no report");
    }
}

static unsigned char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    unsigned char *buf = malloc(1 << 20);
    *len = buf ? fread(buf, 1, 1 << 20, f) : 0;
    fclose(f);
    return buf;
}

int main(int argc, char **argv)
{
    bench_pin_cpu(); /* one CPU: steadier figures on a many-core host */
    const char *spv_path = OCC_BENCH_ZE_SPV;
    int verbose = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--spv") == 0 && i + 1 < argc)
            spv_path = argv[++i];
        else if (strcmp(argv[i], "-v") == 0)
            verbose = 1;
        else {
            fprintf(stderr, "usage: bench_ze_reference [--spv FILE] [-v]\n");
            return 1;
        }
    }
    char machine[512];
    bench_machine(machine, sizeof machine);
    printf("bench_ze_reference: occ vs the Intel driver, per residency answer (tgl, sub-group 8, "
           "work-groups 8..512)\nmachine: %s\n", machine);

    occ_device *dev;
    occ_diag diag;
    if (occ_device_builtin("tgl", &dev, &diag) != OCC_OK) {
        fprintf(stderr, "bench_ze_reference: %s\n", diag.message);
        return 1;
    }
    const occ_device_desc *d = occ_device_describe(dev);
    static occ_kernel ks[BATCH];
    static occ_residency rs[BATCH];
    for (size_t i = 0; i < BATCH; i++) {
        occ_kernel_init(&ks[i]);
        ks[i].wg[0] = sizes[i % N_SIZES];
        ks[i].sub_group = SUB_GROUP;
    }
    /* the compact query (occ_eval, 24 bytes) as a column batch */
    static uint32_t col_wg[BATCH], col_sg[BATCH], col_resident[BATCH];
    static double col_occupancy[BATCH];
    static uint8_t col_limited[BATCH], col_reason[BATCH];
    for (size_t i = 0; i < BATCH; i++)
        col_wg[i] = ks[i].wg[0], col_sg[i] = ks[i].sub_group;
    occ_columns in;
    occ_columns_init(&in);
    in.wg_x = col_wg, in.sub_group = col_sg;
    occ_eval_columns out;
    occ_eval_columns_init(&out);
    out.resident_wgs = col_resident, out.occupancy = col_occupancy;
    out.limited_by = col_limited, out.reason = col_reason;
    /* the prepared kernel: what the driver holds (a kernel, its sub-group
     * size and resources fixed), asked about one work-group size at a time */
    occ_prepared *prep = NULL;
    if (occ_prepare(dev, &ks[0], &prep) != OCC_OK) {
        fprintf(stderr, "bench_ze_reference: occ_prepare failed\n");
        return 1;
    }
    occ_eval e;
    for (size_t i = 0; i < N_SIZES; i++) { /* a check on the side: the same answers */
        occ_eval want;
        occ_evaluate(dev, &ks[i], &want);
        occ_prepared_evaluate(prep, sizes[i], 1, 1, 0, &e);
        if (memcmp(&want, &e, sizeof e) != 0) {
            fprintf(stderr, "bench_ze_reference: the prepared kernel differs at size %u\n", sizes[i]);
            return 1;
        }
    }

    /* The driver's process times both sides in alternation; without the
     * driver, occ's side is timed here. */
    sides sd = {{dev, ks, N_SIZES, BATCH, rs, prep, &in, &out}, NULL};
    size_t spv_len = 0;
    unsigned char *spv = read_file(spv_path, &spv_len);
    ze_report zr;
    if (!spv || spv_len == 0) {
        memset(&zr, 0, sizeof zr);
        snprintf(zr.error, sizeof zr.error, "cannot read the SPIR-V kernel %s", spv_path);
    } else {
        measure_driver(spv, spv_len, &sd, &zr);
    }
    free(spv);
    timings t = zr.t;
    uint64_t sink = 0;
    if (!zr.ok)
        sink = time_sides(&sd, &t);
    occ_prepared_free(prep);
    double ns_compact = t.compact, ns_prepared = t.prepared, ns_occ = t.full, ns_batch = t.batch;
    double ns_columns = t.columns;

    printf("%-58s %12s\n", "per answer (thread CPU time)", "ns");
    printf("%-58s %12.1f\n", "occ_prepared_evaluate, prepared kernel (sizes in turn)", ns_prepared);
    printf("%-58s %12.1f\n", "occ_evaluate, compact (sizes in turn)", ns_compact);
    printf("%-58s %12.1f\n", "occ_evaluate_columns (1024 kernels, per kernel)", ns_columns);
    printf("%-58s %12.1f\n", "occ_residency_compute, full report (sizes in turn)", ns_occ);
    printf("%-58s %12.1f\n", "occ_residency_batch (1024 kernels, per kernel)", ns_batch);
    if (zr.ok) {
        printf("%-58s %12.1f\n", "zeKernelSetGroupSize + SuggestMaxCooperativeGroupCount", t.set_suggest);
        printf("%-58s %12.1f\n", "zeKernelSuggestMaxCooperativeGroupCount (size unchanged)", t.suggest);
        printf("driver: %s\n", zr.device);
        printf("the driver's call returns one number; occ_evaluate returns occ_eval (work-groups per core,\n"
               "occupancy, what limits it, contexts; 24 bytes), occ_residency_compute the full report\n");
        printf("occ_evaluate is %.0fx faster per answer (%.0fx against the suggest call alone); target: 40x\n",
               t.set_suggest / ns_compact, t.suggest / ns_compact);
        printf("occ_residency_compute is %.0fx faster per answer\n", t.set_suggest / ns_occ);
        printf("occ_prepared_evaluate (the same kernel prepared once, as the driver's kernel is) is %.0fx faster\n",
               t.set_suggest / ns_prepared);
        if (verbose) {
            printf("%6s %10s %10s   (whole device: driver's suggestion vs occ cores x per-core)\n",
                   "wg", "driver", "occ");
            for (size_t i = 0; i < N_SIZES; i++) {
                occ_residency r;
                occ_residency_compute(dev, &ks[i], &r);
                printf("%6u %10u %10llu\n", sizes[i], zr.groups[i],
                       (unsigned long long)r.resident_wgs * d->cores);
            }
        }
    } else {
        printf("Intel driver reference: not available: %s\n", zr.error);
    }
    bench_result("prepared_query", ns_prepared, "ns", zr.ok ? "ze_suggest_max_cooperative" : NULL,
                 t.set_suggest);
    bench_result("compact_query", ns_compact, "ns", zr.ok ? "ze_suggest_max_cooperative" : NULL,
                 t.set_suggest);
    bench_result("compact_query_columns", ns_columns, "ns", "compact_one_by_one", ns_compact);
    bench_result("residency_query", ns_occ, "ns", zr.ok ? "ze_suggest_max_cooperative" : NULL,
                 t.set_suggest);
    bench_result("residency_query_batched", ns_batch, "ns", zr.ok ? "ze_suggest_max_cooperative" : NULL,
                 t.set_suggest);
    if (zr.ok)
        bench_result("residency_query_vs_suggest_only", ns_occ, "ns", "ze_suggest_only", t.suggest);
    if (sink == 42) /* keep the results alive */
        putchar('\n');
    occ_device_free(dev);
    return zr.ok ? 0 : 77;
}
