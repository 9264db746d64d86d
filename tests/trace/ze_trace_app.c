/*
 * A Level Zero program for the `occcalc trace` tests: it knows nothing of
 * occ.  Two threads each build their own kernels from one SPIR-V module and
 * append launches (several work-group sizes, local-memory arguments, one
 * cooperative launch, 40 identical launches in a row); a child process started with fork + exec appends one
 * more.  For every launch it writes what it did and what zeKernelGetProperties
 * says of the kernel to EXPECT (the child to EXPECT.child):
 *   tid kernel wg_x wg_y wg_z arg_slm groups_x groups_y groups_z simd slm_static private spill rc
 * so the test can compute the model's prediction without the tracer.
 *
 *   ze_trace_app SPV EXPECT [exit N | kill SIG | child]
 * Prints one line on stdout and one on stderr (the tests check they pass
 * through).  Exit 0; 'exit N' exits N, 'kill SIG' raises SIG after the launches.
 */
#define _GNU_SOURCE
#include <level_zero/ze_api.h>

#include <pthread.h>
#include <stdbool.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        ze_result_t r_ = (call);                                                                   \
        if (r_ != ZE_RESULT_SUCCESS) {                                                             \
            fprintf(stderr, "ze_trace_app: %s failed: 0x%x\n", #call, (unsigned)r_);               \
            exit(90);                                                                              \
        }                                                                                          \
    } while (0)

static ze_context_handle_t context;
static ze_device_handle_t device;
static ze_module_handle_t module;
static void *buffer;

typedef struct launch_cfg {
    const char *kernel;
    unsigned wg;
    unsigned slm_args[2]; /* bytes of local-memory arguments 1 and 2; 0 none */
    unsigned groups[3];
    bool cooperative;
    unsigned repeat; /* launches of the same kernel in a row; 0 = 1 */
} launch_cfg;

/* thread 0 and thread 1 launch different mixes */
static const launch_cfg plan0[] = {
    {"scale", 64, {0, 0}, {16, 1, 1}, false, 1},
    {"scale", 128, {0, 0}, {8, 1, 1}, false, 1},
    {"reduce_slm", 64, {256, 0}, {32, 1, 1}, false, 1},
    {"reduce_slm", 256, {1024, 0}, {500, 1, 1}, false, 1},
    {"reduce_slm", 256, {1024, 0}, {500, 1, 1}, false, 1},
    {"tile_static", 128, {0, 0}, {4, 2, 1}, false, 1},
    {"wide_sg32", 512, {16384, 8192}, {12, 1, 1}, false, 1},
    {"scale", 32, {0, 0}, {6, 1, 1}, true, 1},
};
static const launch_cfg plan1[] = {
    {"reduce_slm", 128, {40000, 0}, {24, 1, 1}, false, 1},
    {"scale", 256, {0, 0}, {7, 3, 2}, false, 1},
    {"tile_static", 512, {0, 0}, {6, 1, 1}, false, 1},
    {"wide_sg32", 64, {256, 256}, {200, 1, 1}, false, 1},
    {"reduce_slm", 512, {8, 0}, {1, 1, 1}, false, 1},
    {"scale", 64, {0, 0}, {16, 1, 1}, false, 1},
    {"tile_static", 256, {0, 0}, {12, 1, 1}, false, 40},
};
static const launch_cfg plan_child[] = {
    {"reduce_slm", 32, {2048, 0}, {64, 1, 1}, false, 1},
};

typedef struct job {
    const launch_cfg *plan;
    size_t n;
    char lines[16384];
    size_t len;
} job;

static void add(job *j, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(j->lines + j->len, sizeof j->lines - j->len, fmt, ap);
    va_end(ap);
    if (n > 0)
        j->len += (size_t)n;
}

static void *run(void *arg)
{
    job *j = arg;
    long tid = (long)syscall(SYS_gettid);
    ze_command_list_desc_t ld = {.stype = ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC};
    ze_command_list_handle_t list;
    CHECK(zeCommandListCreate(context, device, &ld, &list));
    for (size_t i = 0; i < j->n; i++) {
        const launch_cfg *c = &j->plan[i];
        ze_kernel_desc_t kd = {.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC, .pKernelName = c->kernel};
        ze_kernel_handle_t k;
        CHECK(zeKernelCreate(module, &kd, &k));
        CHECK(zeKernelSetGroupSize(k, c->wg, 1, 1));
        CHECK(zeKernelSetArgumentValue(k, 0, sizeof buffer, &buffer));
        if (strcmp(c->kernel, "scale") == 0) {
            float s = 2.0f;
            CHECK(zeKernelSetArgumentValue(k, 1, sizeof s, &s));
        } else {
            for (unsigned a = 0; a < 2; a++)
                if (c->slm_args[a])
                    CHECK(zeKernelSetArgumentValue(k, a + 1, c->slm_args[a], NULL));
        }
        ze_group_count_t g = {c->groups[0], c->groups[1], c->groups[2]};
        ze_kernel_properties_t p = {.stype = ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES};
        CHECK(zeKernelGetProperties(k, &p));
        for (unsigned r = 0; r < (c->repeat ? c->repeat : 1); r++) {
            /* a cooperative launch may be refused (the hardware-less driver does):
             * the tracer records it with its result */
            ze_result_t rc = ZE_RESULT_SUCCESS;
            if (c->cooperative)
                rc = zeCommandListAppendLaunchCooperativeKernel(list, k, &g, NULL, 0, NULL);
            else
                CHECK(zeCommandListAppendLaunchKernel(list, k, &g, NULL, 0, NULL));
            add(j, "%ld %s %u 1 1 %u %u %u %u %u %u %u %u %d\n", tid, c->kernel, c->wg,
                c->slm_args[0] + c->slm_args[1], c->groups[0], c->groups[1], c->groups[2],
                p.maxSubgroupSize, p.localMemSize, p.privateMemSize, p.spillMemSize, (int)rc);
        }
        CHECK(zeKernelDestroy(k));
    }
    CHECK(zeCommandListClose(list));
    CHECK(zeCommandListDestroy(list));
    return NULL;
}

static void load(const char *spv)
{
    CHECK(zeInit(ZE_INIT_FLAG_GPU_ONLY));
    uint32_t n = 1;
    ze_driver_handle_t driver;
    CHECK(zeDriverGet(&n, &driver));
    n = 1;
    CHECK(zeDeviceGet(driver, &n, &device));
    ze_context_desc_t cd = {.stype = ZE_STRUCTURE_TYPE_CONTEXT_DESC};
    CHECK(zeContextCreate(driver, &cd, &context));
    FILE *f = fopen(spv, "rb");
    if (!f) {
        perror(spv);
        exit(91);
    }
    static unsigned char il[1 << 16];
    size_t len = fread(il, 1, sizeof il, f);
    fclose(f);
    ze_module_desc_t md = {.stype = ZE_STRUCTURE_TYPE_MODULE_DESC,
                           .format = ZE_MODULE_FORMAT_IL_SPIRV,
                           .inputSize = len,
                           .pInputModule = il,
                           .pBuildFlags = ""};
    CHECK(zeModuleCreate(context, device, &md, &module, NULL));
    ze_device_mem_alloc_desc_t ad = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC};
    CHECK(zeMemAllocDevice(context, &ad, 1 << 24, 64, device, &buffer));
}

static void write_expect(const char *path, job *jobs, size_t n)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(92);
    }
    for (size_t i = 0; i < n; i++)
        fwrite(jobs[i].lines, 1, jobs[i].len, f);
    if (fclose(f) != 0)
        exit(92);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: ze_trace_app SPV EXPECT [exit N | kill SIG | child]\n");
        return 2;
    }
    load(argv[1]);
    if (argc > 3 && strcmp(argv[3], "child") == 0) {
        job c = {plan_child, sizeof plan_child / sizeof plan_child[0], "", 0};
        run(&c);
        write_expect(argv[2], &c, 1);
        return 0;
    }
    job jobs[2] = {{plan0, sizeof plan0 / sizeof plan0[0], "", 0},
                   {plan1, sizeof plan1 / sizeof plan1[0], "", 0}};
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        if (pthread_create(&t[i], NULL, run, &jobs[i]) != 0)
            return 93;
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    write_expect(argv[2], jobs, 2);

    /* a child through fork + exec: traced too */
    char child_expect[4096];
    snprintf(child_expect, sizeof child_expect, "%s.child", argv[2]);
    pid_t pid = fork();
    if (pid == 0) {
        execl("/proc/self/exe", argv[0], argv[1], child_expect, "child", (char *)NULL);
        _exit(94);
    }
    int status;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
        return 95;

    printf("ze_trace_app: stdout line\n");
    fprintf(stderr, "ze_trace_app: stderr line\n");
    fflush(NULL);
    if (argc > 4 && strcmp(argv[3], "exit") == 0)
        return atoi(argv[4]);
    if (argc > 4 && strcmp(argv[3], "kill") == 0)
        raise(atoi(argv[4]));
    return 0;
}
