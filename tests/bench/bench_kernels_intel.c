/* bench_kernels_intel: open a 1 MB Intel native binary and list its kernels.
 *
 * The binaries are made here, in a temporary directory, by the installed
 * ocloc from tests/kernels/intel/kernels.cl copied COPIES times (kernel names
 * suffixed): a zebin and a patch-token binary of at least 1 MB each for
 * tgllp.  Each is then read with occ_kernels_read_file and every kernel's
 * name and SIMD width visited; the best and the median of RUNS reads are
 * printed in milliseconds.  Reference, measured in the same run: reading the
 * same file into memory (open, read, close) without parsing.  Target: <= 5 ms.
 *
 *   bench_kernels_intel KERNELS_CL [--runs N]
 * Prints the machine, a table, and "BENCH key value unit" lines.  Exit 0; 77
 * when ocloc is missing; 1 on failure.  Not a test. */
#define _XOPEN_SOURCE 700
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench_common.h"
#include "occ/kernels.h"

#define COPIES 12

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double read_only_ms(const char *path)
{
    double t0 = bench_now_ns();
    int fd = open(path, O_RDONLY);
    struct stat st;
    fstat(fd, &st);
    char *buf = malloc((size_t)st.st_size);
    ssize_t got = read(fd, buf, (size_t)st.st_size);
    close(fd);
    volatile char sink = got > 0 ? buf[got - 1] : 0;
    (void)sink;
    free(buf);
    return (bench_now_ns() - t0) / 1e6;
}

static double parse_ms(const char *path, size_t *kernels)
{
    double t0 = bench_now_ns();
    occ_kernel_set *s = NULL;
    occ_diag d;
    if (occ_kernels_read_file(path, NULL, &s, &d) != OCC_OK) {
        fprintf(stderr, "%s: %s\n", path, d.message);
        exit(1);
    }
    size_t n = occ_kernel_set_count(s);
    volatile uint32_t sink = 0;
    for (size_t i = 0; i < n; i++) {
        const occ_kernel_info *k = occ_kernel_set_get(s, i);
        sink += k->simd + (uint32_t)k->name[0];
    }
    occ_kernel_set_free(s);
    *kernels = n;
    return (bench_now_ns() - t0) / 1e6;
}

/* key: the figure's name for tests/bench/run.py, which gives it its label */
static void measure(const char *label, const char *key, const char *path, int runs)
{
    struct stat st;
    stat(path, &st);
    double *p = calloc((size_t)runs, sizeof *p), *r = calloc((size_t)runs, sizeof *r);
    size_t kernels = 0;
    for (int i = 0; i < runs; i++) { /* interleaved: the same conditions for both */
        r[i] = read_only_ms(path);
        p[i] = parse_ms(path, &kernels);
    }
    qsort(p, (size_t)runs, sizeof *p, cmp_double);
    qsort(r, (size_t)runs, sizeof *r, cmp_double);
    printf("%-14s %9.2f MB %8zu %10.3f %10.3f %14.3f\n", label, st.st_size / 1048576.0, kernels,
           p[0], p[runs / 2], r[runs / 2]);
    bench_result(key, p[runs / 2], "ms", "read_only_ms", r[runs / 2]);
    free(p);
    free(r);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s KERNELS_CL [--runs N]\n", argv[0]);
        return 2;
    }
    int runs = 50;
    if (argc > 3 && strcmp(argv[2], "--runs") == 0)
        runs = atoi(argv[3]) > 0 ? atoi(argv[3]) : 50;
    char src[PATH_MAX]; /* what realpath writes at most (a fortified build checks it) */
    if (!realpath(argv[1], src)) {
        fprintf(stderr, "no %s\n", argv[1]);
        return 1;
    }
    char dir[] = "/tmp/occ-bench-kernels-XXXXXX";
    if (!mkdtemp(dir) || chdir(dir) != 0)
        return 1;
    /* COPIES renamed copies of the test kernels in one file. */
    FILE *f = fopen("big.cl", "w");
    for (int c = 0; c < COPIES; c++)
        fprintf(f, "#define k_trivial c%d_trivial\n#define k_sg8 c%d_sg8\n#define k_sg16 c%d_sg16\n"
                   "#define k_sg32 c%d_sg32\n#define k_static_slm c%d_static_slm\n"
                   "#define k_slm_args c%d_slm_args\n#define k_slm_both c%d_slm_both\n"
                   "#define k_barrier c%d_barrier\n#define k_private c%d_private\n"
                   "#define k_spill c%d_spill\n#define k_reqd_wg c%d_reqd_wg\n"
                   "#define k_reqd_wg_sg8 c%d_reqd_wg_sg8\n#include \"%s\"\n"
                   "#undef k_trivial\n#undef k_sg8\n#undef k_sg16\n#undef k_sg32\n"
                   "#undef k_static_slm\n#undef k_slm_args\n#undef k_slm_both\n#undef k_barrier\n"
                   "#undef k_private\n#undef k_spill\n#undef k_reqd_wg\n#undef k_reqd_wg_sg8\n",
                c, c, c, c, c, c, c, c, c, c, c, c, src);
    fclose(f);
    int a = system("ocloc compile -file big.cl -device tgllp --format zebin -output_no_suffix "
                   "-output big_zebin -options -cl-std=CL2.0 -q >/dev/null 2>&1");
    int b = system("ocloc compile -file big.cl -device tgllp -output_no_suffix -output big_ptok "
                   "-options -cl-std=CL2.0 -q >/dev/null 2>&1");
    if (a != 0 || b != 0) {
        printf("ocloc could not build the binaries (is intel-opencl-icd installed?): skipped\n");
        return 77;
    }
    char machine[256];
    bench_machine(machine, sizeof machine);
    printf("bench_kernels_intel: %s\n", machine);
    printf("open + parse + list every kernel, %d runs each (ms); reference: read the file only\n",
           runs);
    printf("%-14s %12s %8s %10s %10s %14s\n", "binary", "size", "kernels", "best", "median",
           "read only");
    measure("zebin", "kernels_intel_zebin_ms", "big_zebin", runs);
    measure("patch_tokens", "kernels_intel_patch_tokens_ms", "big_ptok", runs);
    static const char *const files[] = {"big.cl", "big_zebin", "big_zebin.spv", "big_ptok",
                                        "big_ptok.spv"};
    for (size_t i = 0; i < 5; i++)
        remove(files[i]);
    if (chdir("/") == 0)
        rmdir(dir);
    return 0;
}
