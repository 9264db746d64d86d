/* bench_kernels: how long occ takes to open a 1 MB cubin and list its
 * kernels (the target: at most 5 ms).
 *
 *   bench_kernels [FILE]     default: tests/data/kernels/nvidia/many_sm90.cubin
 *                            (450 kernels, tests/kernels/nvidia/many.cu)
 *
 * Figures, in thread CPU time, best of several runs (bench_common.h):
 *   kernels_open_1mb_cubin   occ_kernels_read_file for the H100 + listing every
 *                            kernel's name and resources (what `occcalc
 *                            kernels` needs), per file
 *   kernels_parse_1mb_cubin  occ_kernels_read_memory on the bytes in memory
 * Reference in the same run: reading the file alone (open, read, close), the
 * floor any reader pays.  The wall time of one cold open is printed too.
 * Exit 1 when the open-and-list figure exceeds 5 ms. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench_common.h"
#include "occ/kernels.h"

#ifndef BENCH_KERNELS_FILE
#define BENCH_KERNELS_FILE "many_sm90.cubin"
#endif

static volatile uint64_t sink;

static void list(const occ_kernel_set *s)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < occ_kernel_set_count(s); i++) {
        const occ_kernel_info *ki = occ_kernel_set_get(s, i);
        sum += strlen(ki->name) + ki->regs_per_thread + ki->static_slm + ki->private_bytes;
    }
    sink += sum;
}

static void read_only(const char *path, uint8_t *buf, size_t size)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        exit(2);
    size_t got = 0;
    ssize_t r;
    while (got < size && (r = read(fd, buf + got, size - got)) > 0)
        got += (size_t)r;
    close(fd);
    sink += buf[got / 2];
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : BENCH_KERNELS_FILE;
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "bench_kernels: cannot open %s\n", path);
        return 2;
    }
    size_t size = (size_t)st.st_size;
    uint8_t *bytes = malloc(size);
    if (!bytes)
        return 2;
    read_only(path, bytes, size);

    occ_device *dev = NULL;
    if (occ_device_builtin("h100-sxm", &dev, NULL) != OCC_OK)
        return 2;
    occ_kernel_read_options o;
    occ_kernel_read_options_init(&o);
    o.device = dev;

    char machine[256];
    bench_machine(machine, sizeof machine);
    printf("bench_kernels: %s\nfile: %s (%zu bytes)\n", machine, path, size);

    /* One cold open, wall time (page cache warm from the read above). */
    occ_kernel_set *s = NULL;
    occ_diag diag;
    double t0 = bench_now_ns();
    occ_status rc = occ_kernels_read_file(path, &o, &s, &diag);
    double cold = bench_now_ns() - t0;
    if (rc != OCC_OK) {
        fprintf(stderr, "bench_kernels: %s: %s\n", path, diag.message);
        return 2;
    }
    size_t kernels = occ_kernel_set_count(s);
    list(s);
    occ_kernel_set_free(s);
    printf("kernels: %zu; first open (wall): %.3f ms\n", kernels, cold / 1e6);

    double open_ns, parse_ns, read_ns;
    BENCH_PER_CALL(open_ns, 200, 5, {
        occ_kernel_set *k = NULL;
        if (occ_kernels_read_file(path, &o, &k, NULL) == OCC_OK)
            list(k);
        occ_kernel_set_free(k);
    });
    BENCH_PER_CALL(parse_ns, 200, 5, {
        occ_kernel_set *k = NULL;
        if (occ_kernels_read_memory(bytes, size, path, &o, &k, NULL) == OCC_OK)
            list(k);
        occ_kernel_set_free(k);
    });
    BENCH_PER_CALL(read_ns, 200, 5, read_only(path, bytes, size));
    printf("open + list: %.3f ms per file (%.2f us per kernel); parse only: %.3f ms; "
           "reading the file alone: %.3f ms\n",
           open_ns / 1e6, open_ns / 1e3 / (double)kernels, parse_ns / 1e6, read_ns / 1e6);
    bench_result("kernels_open_1mb_cubin", open_ns / 1e6, "ms", "file_read_only", read_ns / 1e6);
    bench_result("kernels_parse_1mb_cubin", parse_ns / 1e6, "ms", NULL, 0);
    occ_device_free(dev);
    free(bytes);
    if (open_ns > 5e6) {
        printf("bench_kernels: over the 5 ms goal\n");
        return 1;
    }
    return 0;
}
