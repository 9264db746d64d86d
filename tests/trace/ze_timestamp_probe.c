/*
 * Does this Level Zero driver execute a launch and give its kernel
 * timestamps?  The question behind Level Zero GPU time in `occcalc trace`
 * (docs/trace.md, "Level Zero GPU time"): one launch of tests/trace/
 * trace_kernels.cl's `scale` signals an event from a pool with
 * ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP; the list is executed and the queue
 * synchronised; then the event's status and zeEventQueryKernelTimestamp.
 *   ze_timestamp_probe SPV
 * Prints each call's result and the timestamps; exit 0 when the event
 * signalled with an end after its start, 1 when not (the hardware-less
 * driver: nothing executes), 2 on a setup failure.
 */
#include <level_zero/ze_api.h>

#include <stdio.h>
#include <stdlib.h>

static int setup_failed;

static ze_result_t say(const char *what, ze_result_t r)
{
    printf("%-40s 0x%x\n", what, (unsigned)r);
    return r;
}

#define SETUP(call)                                                                                \
    do {                                                                                           \
        if (say(#call, (call)) != ZE_RESULT_SUCCESS)                                               \
            setup_failed = 1;                                                                      \
    } while (0)

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: ze_timestamp_probe SPV\n");
        return 2;
    }
    static unsigned char il[1 << 16];
    FILE *f = fopen(argv[1], "rb");
    size_t len = f ? fread(il, 1, sizeof il, f) : 0;
    if (f)
        fclose(f);
    if (!len) {
        perror(argv[1]);
        return 2;
    }
    uint32_t n = 1;
    ze_driver_handle_t driver = NULL;
    ze_device_handle_t device = NULL;
    SETUP(zeInit(ZE_INIT_FLAG_GPU_ONLY));
    SETUP(zeDriverGet(&n, &driver));
    n = 1;
    SETUP(zeDeviceGet(driver, &n, &device));
    if (setup_failed)
        return 2;
    ze_device_properties_t dp = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    SETUP(zeDeviceGetProperties(device, &dp));
    printf("device %s, timer resolution %llu, kernel timestamp bits %u\n", dp.name,
           (unsigned long long)dp.timerResolution, dp.kernelTimestampValidBits);
    ze_context_desc_t cd = {.stype = ZE_STRUCTURE_TYPE_CONTEXT_DESC};
    ze_context_handle_t context = NULL;
    SETUP(zeContextCreate(driver, &cd, &context));
    ze_module_desc_t md = {.stype = ZE_STRUCTURE_TYPE_MODULE_DESC,
                           .format = ZE_MODULE_FORMAT_IL_SPIRV,
                           .inputSize = len,
                           .pInputModule = il};
    ze_module_handle_t module = NULL;
    SETUP(zeModuleCreate(context, device, &md, &module, NULL));
    ze_kernel_desc_t kd = {.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC, .pKernelName = "scale"};
    ze_kernel_handle_t k = NULL;
    SETUP(zeKernelCreate(module, &kd, &k));
    void *buf = NULL;
    ze_device_mem_alloc_desc_t ad = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC};
    SETUP(zeMemAllocDevice(context, &ad, 1 << 20, 64, device, &buf));
    float s = 2.0f;
    SETUP(zeKernelSetArgumentValue(k, 0, sizeof buf, &buf));
    SETUP(zeKernelSetArgumentValue(k, 1, sizeof s, &s));
    SETUP(zeKernelSetGroupSize(k, 64, 1, 1));
    ze_event_pool_desc_t pd = {.stype = ZE_STRUCTURE_TYPE_EVENT_POOL_DESC,
                               .flags = ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP |
                                        ZE_EVENT_POOL_FLAG_HOST_VISIBLE,
                               .count = 1};
    ze_event_pool_handle_t pool = NULL;
    SETUP(zeEventPoolCreate(context, &pd, 1, &device, &pool));
    ze_event_desc_t ed = {.stype = ZE_STRUCTURE_TYPE_EVENT_DESC, .signal = ZE_EVENT_SCOPE_FLAG_HOST};
    ze_event_handle_t event = NULL;
    SETUP(zeEventCreate(pool, &ed, &event));
    ze_command_list_desc_t ld = {.stype = ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC};
    ze_command_list_handle_t list = NULL;
    SETUP(zeCommandListCreate(context, device, &ld, &list));
    ze_group_count_t g = {64, 1, 1};
    SETUP(zeCommandListAppendLaunchKernel(list, k, &g, event, 0, NULL));
    SETUP(zeCommandListClose(list));
    ze_command_queue_desc_t qd = {.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC};
    ze_command_queue_handle_t queue = NULL;
    SETUP(zeCommandQueueCreate(context, device, &qd, &queue));
    SETUP(zeCommandQueueExecuteCommandLists(queue, 1, &list, NULL));
    SETUP(zeCommandQueueSynchronize(queue, 2000000000ull));
    if (setup_failed)
        return 2;
    /* what a tracer would read at synchronisation */
    say("zeEventHostSynchronize(1 s)", zeEventHostSynchronize(event, 1000000000ull));
    ze_result_t status = say("zeEventQueryStatus", zeEventQueryStatus(event));
    ze_kernel_timestamp_result_t ts = {0};
    ze_result_t q = say("zeEventQueryKernelTimestamp", zeEventQueryKernelTimestamp(event, &ts));
    printf("global %llu..%llu, context %llu..%llu\n", (unsigned long long)ts.global.kernelStart,
           (unsigned long long)ts.global.kernelEnd, (unsigned long long)ts.context.kernelStart,
           (unsigned long long)ts.context.kernelEnd);
    int timed = status == ZE_RESULT_SUCCESS && q == ZE_RESULT_SUCCESS &&
                ts.context.kernelEnd != ts.context.kernelStart;
    printf("%s\n", timed ? "kernel timestamps: yes" : "kernel timestamps: no (the launch did not execute)");
    return timed ? 0 : 1;
}
