/*
 * The CUDA tracer's callback without a GPU: trace_cuda.c is compiled in with
 * the driver functions it asks replaced by fakes, and CUPTI's callback is
 * called as CUPTI would call it.  Checks the record lines against the format
 * of docs/trace.md written with printf: the K line once per function, launch
 * lines formatted by hand equal to printf's, repeats counted (N lines), the
 * driver asked once per configuration, cuLaunchKernelEx's cluster and
 * cooperative attributes, the driver's active clusters of a launch in
 * clusters (an attribute or compiled dimensions; asked once per
 * configuration), API-entry callbacks and failed launches.
 * Prints FAIL lines; exit 0 pass, 1 fail.
 */
#include "trace_cuda.c"
#include "trace_check.h"

#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int occupancy_calls, cluster_calls;

#define COMPILED_CLUSTER ((CUfunction)0x2000) /* __cluster_dims__(4, 2, 1) */

static CUresult fake_attribute(int *v, CUfunction_attribute a, CUfunction f)
{
    bool compiled = f == COMPILED_CLUSTER;
    switch (a) {
    case CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET: *v = compiled; break;
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH: *v = compiled ? 4 : 0; break;
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT: *v = compiled ? 2 : 0; break;
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH: *v = compiled ? 1 : 0; break;
    case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED: *v = 0; break;
    default: *v = 100 + (int)a; /* distinct per attribute */
    }
    return CUDA_SUCCESS;
}

/* 132 SMs' worth of clusters, by the attribute's size or (none given) 8 */
static CUresult fake_clusters(int *n, CUfunction f, const CUlaunchConfig *c)
{
    cluster_calls++;
    if (c->sharedMemBytes == 999)
        return CUDA_ERROR_INVALID_VALUE;
    unsigned size = 8;
    if (c->numAttrs == 1 && c->attrs[0].id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION)
        size = c->attrs[0].value.clusterDim.x * c->attrs[0].value.clusterDim.y * c->attrs[0].value.clusterDim.z;
    else if (f != COMPILED_CLUSTER)
        return CUDA_ERROR_INVALID_VALUE; /* no cluster given: the driver needs one */
    *n = (int)(132 / size);
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
    const CUfunction *f = params; /* each parameter struct starts with it */
    bool other = cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel && *f == COMPILED_CLUSTER;
    CUpti_CallbackData cb = {.callbackSite = site,
                             .functionParams = params,
                             .functionReturnValue = &rc,
                             .symbolName = other ? "_Z8clusters" : "_Z6kernelPf"};
    on_callback(NULL, CUPTI_CB_DOMAIN_DRIVER_API, cbid, &cb);
}

static void launch_of(CUfunction f, unsigned grid, unsigned block, size_t dyn, CUresult rc)
{
    cuLaunchKernel_params p = {.f = f, .gridDimX = grid, .gridDimY = 2, .gridDimZ = 1,
                               .blockDimX = block, .blockDimY = 1, .blockDimZ = 1,
                               .sharedMemBytes = (unsigned)dyn};
    call_back(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &p, rc, CUPTI_API_EXIT);
}

static void plain(unsigned grid, unsigned block, size_t dyn, CUresult rc)
{
    launch_of((CUfunction)0x1000, grid, block, dyn, rc);
}

/* Append the line printf writes for a launch of kernel 1 to expect;
 * clusters: the driver's active clusters, -2 for a launch not in clusters. */
static void expect_line_of(char *expect, size_t size, unsigned kernel, const char *kind, unsigned grid,
                           unsigned block, size_t dyn, int rc, int drv, unsigned cluster, int clusters)
{
    size_t n = strlen(expect);
    n += (size_t)snprintf(expect + n, size - n,
                          "L %u %ld cuda %s wg=%u,1,1 groups=%u,2,1 dyn=%zu rc=%d drv=%d cluster=%u,1,1", kernel,
                          trace_tid(), kind, block, grid, dyn, rc, drv, cluster);
    if (clusters != -2)
        n += (size_t)snprintf(expect + n, size - n, " drv_clusters=%d", clusters);
    snprintf(expect + n, size - n, "\n");
}

static void expect_line(char *expect, size_t size, const char *kind, unsigned grid, unsigned block,
                        size_t dyn, int rc, int drv, unsigned cluster)
{
    expect_line_of(expect, size, 1, kind, grid, block, dyn, rc, drv, cluster, cluster > 1 ? 132 / (int)cluster : -2);
}

/* The launches and the check of the record file they leave in dir. */
static void run_checks(const char *dir)
{
    api.FuncGetAttribute = fake_attribute;
    api.Occupancy = fake_occupancy;
    api.OccupancyClusters = fake_clusters;

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
    CHECK(cluster_calls == 1, "the driver was asked for clusters %d times, expected 1", cluster_calls);
    /* compiled cluster dimensions: every launch is in clusters (asked once
     * per configuration; no attribute given to the driver) */
    launch_of(COMPILED_CLUSTER, 3, 64, 0, CUDA_SUCCESS);
    expect_line_of(expect, cap, 2, "normal", 3, 64, 0, 0, 32, 1, 16);
    launch_of(COMPILED_CLUSTER, 5, 64, 0, CUDA_SUCCESS);
    expect_line_of(expect, cap, 2, "normal", 5, 64, 0, 0, 32, 1, 16);
    launch_of(COMPILED_CLUSTER, 5, 64, 999, CUDA_SUCCESS); /* both refused: -1 */
    expect_line_of(expect, cap, 2, "normal", 5, 64, 999, 0, -1, 1, -1);
    launch_of(COMPILED_CLUSTER, 6, 64, 0, CUDA_SUCCESS);
    expect_line_of(expect, cap, 2, "normal", 6, 64, 0, 0, 32, 1, 16);
    CHECK(cluster_calls == 5, "the driver was asked for clusters %d times, expected 5", cluster_calls);

    char path[512], buf[32768] = "";
    snprintf(path, sizeof path, "%s/%ld.rec", dir, (long)getpid());
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = 0; /* stops at the NUL padding */
    const char *k = strstr(buf, "\nK ");
    static const char k_line[] = "K 1 cuda dev=0 regs=104 static=101 local=103 max_threads=100 "
                                 "carveout=109 max_dyn=108 cluster=0,0,0 nonportable=0 name=_Z6kernelPf\n";
    CHECK(k && strncmp(k + 1, k_line, sizeof k_line - 1) == 0, "K line: %.200s", k ? k + 1 : "(none)");
    const char *k2 = k ? strstr(k + 1, "\nK ") : NULL;
    static const char k2_line[] = "K 2 cuda dev=0 regs=104 static=101 local=103 max_threads=100 "
                                  "carveout=109 max_dyn=108 cluster=4,2,1 nonportable=0 name=_Z8clusters\n";
    CHECK(k2 && strncmp(k2 + 1, k2_line, sizeof k2_line - 1) == 0, "second K line: %.200s", k2 ? k2 + 1 : "(none)");
    CHECK(k2 && !strstr(k2 + 1, "\nK "), "more than two K lines");
    /* the launch lines, the K line of the second kernel left out */
    if (k2) {
        const char *end = strchr(k2 + 1, '\n');
        memmove((char *)k2, end, strlen(end) + 1);
    }
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
