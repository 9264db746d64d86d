/*
 * The CUDA tracer's callback without a GPU: trace_cuda.c is compiled in with
 * the driver functions it asks replaced by fakes, and CUPTI's callback is
 * called as CUPTI would call it.  Checks the record lines against the format
 * of docs/trace.md written with printf: the K line once per function, launch
 * lines formatted by hand equal to printf's, repeats counted (N lines), the
 * driver asked once per configuration, cuLaunchKernelEx's cluster and
 * cooperative attributes, API-entry callbacks and failed launches.
 * Prints FAIL lines; exit 0 pass, 1 fail.
 */
#include "trace_cuda.c"
#include "trace_check.h"

#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int occupancy_calls;

static CUresult fake_attribute(int *v, CUfunction_attribute a, CUfunction f)
{
    *v = 100 + (int)a; /* distinct per attribute */
    return CUDA_SUCCESS;
}

static CUresult fake_occupancy(int *n, CUfunction f, int block, size_t dyn)
{
    occupancy_calls++;
    if (dyn == 999) /* the driver refuses: recorded as -1 */
        return CUDA_ERROR_INVALID_VALUE;
    *n = 2048 / block;
    return CUDA_SUCCESS;
}

static void call_back(CUpti_CallbackId cbid, const void *params, CUresult rc, CUpti_ApiCallbackSite site)
{
    CUpti_CallbackData cb = {.callbackSite = site,
                             .functionParams = params,
                             .functionReturnValue = &rc,
                             .symbolName = "_Z6kernelPf"};
    on_callback(NULL, CUPTI_CB_DOMAIN_DRIVER_API, cbid, &cb);
}

static void plain(unsigned grid, unsigned block, size_t dyn, CUresult rc)
{
    cuLaunchKernel_params p = {.f = (CUfunction)0x1000, .gridDimX = grid, .gridDimY = 2, .gridDimZ = 1,
                               .blockDimX = block, .blockDimY = 1, .blockDimZ = 1,
                               .sharedMemBytes = (unsigned)dyn};
    call_back(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &p, rc, CUPTI_API_EXIT);
}

/* Append the line printf writes for a launch of kernel 1 to expect. */
static void expect_line(char *expect, size_t size, const char *kind, unsigned grid, unsigned block,
                        size_t dyn, int rc, int drv, unsigned cluster)
{
    size_t n = strlen(expect);
    snprintf(expect + n, size - n,
             "L 1 %ld cuda %s wg=%u,1,1 groups=%u,2,1 dyn=%zu rc=%d drv=%d cluster=%u,1,1\n",
             trace_tid(), kind, block, grid, dyn, rc, drv, cluster);
}

/* The launches and the check of the record file they leave in dir. */
static void run_checks(const char *dir)
{
    api.FuncGetAttribute = fake_attribute;
    api.Occupancy = fake_occupancy;

    static char expect[16384];
    size_t cap = sizeof expect;
    /* 10 grids: more than the 8 remembered, so every one is a new line */
    for (unsigned g = 1; g <= 10; g++) {
        plain(g, 128, 0, CUDA_SUCCESS);
        expect_line(expect, cap, "normal", g, 128, 0, 0, 16, 1);
    }
    /* the last one 5 more times: one N line, its count rewritten in place */
    for (int i = 0; i < 5; i++)
        plain(10, 128, 0, CUDA_SUCCESS);
    snprintf(expect + strlen(expect), cap - strlen(expect), "N %ld 0 0000000005\n", trace_tid());
    /* the entry site is not a launch; a failed launch keeps its code */
    cuLaunchKernel_params p = {.f = (CUfunction)0x1000, .gridDimX = 7, .gridDimY = 2, .gridDimZ = 1,
                               .blockDimX = 64, .blockDimY = 1, .blockDimZ = 1};
    call_back(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &p, CUDA_SUCCESS, CUPTI_API_ENTER);
    plain(7, 64, 0, CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES);
    expect_line(expect, cap, "normal", 7, 64, 0, CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, 32, 1);
    plain(7, 64, 999, CUDA_SUCCESS); /* the driver refuses the occupancy query */
    expect_line(expect, cap, "normal", 7, 64, 999, 0, -1, 1);
    /* cuLaunchKernelEx: a cluster of 2, then cooperative */
    CUlaunchAttribute attrs[2] = {{.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION},
                                  {.id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE}};
    attrs[0].value.clusterDim.x = 2, attrs[0].value.clusterDim.y = 1, attrs[0].value.clusterDim.z = 1;
    attrs[1].value.cooperative = 1;
    CUlaunchConfig config = {.gridDimX = 4, .gridDimY = 2, .gridDimZ = 1, .blockDimX = 256,
                             .blockDimY = 1, .blockDimZ = 1, .sharedMemBytes = 4096,
                             .attrs = attrs, .numAttrs = 1};
    cuLaunchKernelEx_params ex = {.config = &config, .f = (CUfunction)0x1000};
    call_back(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, &ex, CUDA_SUCCESS, CUPTI_API_EXIT);
    expect_line(expect, cap, "ex", 4, 256, 4096, 0, 8, 2);
    config.numAttrs = 2;
    call_back(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, &ex, CUDA_SUCCESS, CUPTI_API_EXIT);
    expect_line(expect, cap, "coop", 4, 256, 4096, 0, 8, 2);
    /* back to the first configuration: the driver is not asked again */
    plain(1, 128, 0, CUDA_SUCCESS);
    expect_line(expect, cap, "normal", 1, 128, 0, 0, 16, 1);
    CHECK(occupancy_calls == 4, "the driver was asked %d times, expected 4 (once per configuration)",
          occupancy_calls);

    char path[512], buf[32768] = "";
    snprintf(path, sizeof path, "%s/%ld.rec", dir, (long)getpid());
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = 0; /* stops at the NUL padding */
    const char *k = strstr(buf, "\nK ");
    static const char k_line[] = "K 1 cuda dev=0 regs=104 static=101 local=103 max_threads=100 "
                                 "carveout=109 max_dyn=108 name=_Z6kernelPf\n";
    CHECK(k && strncmp(k + 1, k_line, sizeof k_line - 1) == 0, "K line: %.200s", k ? k + 1 : "(none)");
    CHECK(k && !strstr(k + 1, "\nK "), "more than one K line");
    const char *l = strstr(buf, "\nL ");
    CHECK(l && strcmp(l + 1, expect) == 0, "launch lines:\n%s\nexpected\n%s", l ? l + 1 : "(none)",
          expect);
    unlink(path);
}

/* Unmap the record file (found in /proc/self/maps by its directory): valgrind's
 * leak check would otherwise read all of its 1 GiB reservation, page by page
 * past the end of the file, for many minutes. */
static void unmap_records(const char *dir)
{
    FILE *maps = fopen("/proc/self/maps", "r");
    char line[1024];
    while (maps && fgets(line, sizeof line, maps)) {
        unsigned long start, end;
        if (strstr(line, dir) && sscanf(line, "%lx-%lx", &start, &end) == 2)
            munmap((void *)start, end - start);
    }
    if (maps)
        fclose(maps);
}

int main(int argc, char **argv)
{
    /* the record writer reads $OCC_TRACE_DIR when the program starts: set it and start again */
    const char *dir = getenv("OCC_TRACE_DIR");
    (void)argc;
    if (!dir) {
        char tmp[] = "/tmp/occ-test-trace-cuda-XXXXXX";
        if (!mkdtemp(tmp))
            return 1;
        setenv("OCC_TRACE_DIR", tmp, 1);
        execv(argv[0], argv); /* meson runs it by its full path */
        perror("exec");
        return 1;
    }
    /* in a child, which writes its own record file */
    pid_t child = fork();
    if (child == 0) {
        run_checks(dir);
        unmap_records(dir);
        fflush(stdout);
        _exit(failures ? 1 : 0);
    }
    int status = 0;
    waitpid(child, &status, 0);
    char own[512]; /* this process's file (header only), written when it started */
    snprintf(own, sizeof own, "%s/%ld.rec", dir, (long)getpid());
    unmap_records(dir);
    unlink(own);
    rmdir(dir);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        printf("FAIL: the checks failed or did not finish (status 0x%x)\n", (unsigned)status);
        return 1;
    }
    printf("trace-cuda: all checks passed\n");
    return 0;
}
