/*
 * Host cost of appending a kernel launch through Level Zero, for the tracing
 * overhead figure (tests/trace/bench_trace.sh, docs/performance.md): batches
 * of 256 zeCommandListAppendLaunchKernel calls (each after
 * zeKernelSetGroupSize, as programs do), timed; the list is reset between
 * batches, untimed.  Runs with the Intel driver in hardware-less mode.
 *   ze_launch_loop SPV [BATCHES]
 * Prints: launches N mean_ns X median_ns Y min_ns Z
 */
#define _GNU_SOURCE
#include <level_zero/ze_api.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        ze_result_t r_ = (call);                                                                   \
        if (r_ != ZE_RESULT_SUCCESS) {                                                             \
            fprintf(stderr, "ze_launch_loop: %s failed: 0x%x\n", #call, (unsigned)r_);             \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

#define PER_BATCH 256

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: ze_launch_loop SPV [BATCHES]\n");
        return 2;
    }
    int batches = argc > 2 ? atoi(argv[2]) : 200;
    if (batches < 1)
        batches = 1;
    CHECK(zeInit(ZE_INIT_FLAG_GPU_ONLY));
    uint32_t n = 1;
    ze_driver_handle_t driver;
    ze_device_handle_t device;
    CHECK(zeDriverGet(&n, &driver));
    n = 1;
    CHECK(zeDeviceGet(driver, &n, &device));
    ze_context_desc_t cd = {.stype = ZE_STRUCTURE_TYPE_CONTEXT_DESC};
    ze_context_handle_t context;
    CHECK(zeContextCreate(driver, &cd, &context));
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    static unsigned char il[1 << 16];
    size_t len = fread(il, 1, sizeof il, f);
    fclose(f);
    ze_module_desc_t md = {.stype = ZE_STRUCTURE_TYPE_MODULE_DESC,
                           .format = ZE_MODULE_FORMAT_IL_SPIRV,
                           .inputSize = len,
                           .pInputModule = il};
    ze_module_handle_t module;
    CHECK(zeModuleCreate(context, device, &md, &module, NULL));
    ze_kernel_desc_t kd = {.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC, .pKernelName = "scale"};
    ze_kernel_handle_t k;
    CHECK(zeKernelCreate(module, &kd, &k));
    void *buf;
    ze_device_mem_alloc_desc_t ad = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC};
    CHECK(zeMemAllocDevice(context, &ad, 1 << 20, 64, device, &buf));
    float s = 2.0f;
    CHECK(zeKernelSetArgumentValue(k, 0, sizeof buf, &buf));
    CHECK(zeKernelSetArgumentValue(k, 1, sizeof s, &s));
    ze_command_list_desc_t ld = {.stype = ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC};
    ze_command_list_handle_t list;
    CHECK(zeCommandListCreate(context, device, &ld, &list));
    double *per = malloc(sizeof *per * (size_t)batches);
    if (!per)
        return 1;
    ze_group_count_t g = {64, 1, 1};
    for (int b = 0; b < batches; b++) {
        double t0 = now_ns();
        for (int i = 0; i < PER_BATCH; i++) {
            CHECK(zeKernelSetGroupSize(k, 64 << (i & 1), 1, 1));
            CHECK(zeCommandListAppendLaunchKernel(list, k, &g, NULL, 0, NULL));
        }
        per[b] = (now_ns() - t0) / PER_BATCH;
        CHECK(zeCommandListReset(list));
    }
    double sum = 0;
    for (int b = 0; b < batches; b++)
        sum += per[b];
    qsort(per, (size_t)batches, sizeof *per, by_value);
    printf("launches %d mean_ns %.1f median_ns %.1f min_ns %.1f\n", batches * PER_BATCH,
           sum / batches, per[batches / 2], per[0]);
    free(per);
    return 0;
}
