// A CUDA program for `occcalc trace` on a GPU machine (tests/hw/trace_gpu.sh):
// unmodified, it knows nothing of occ.  cuBLAS sgemm and dgemm at a few sizes,
// and a kernel of its own with dynamic shared memory at several block sizes
// (one above the 48 KB default, after raising the function's limit).
// Prints a checksum; exits 0, or 1 on a CUDA or cuBLAS error.
//
//   cuda_trace_app [more [crash]]
// 'more' adds: a child process (fork + exec) that launches block_sum once;
// half-precision and TF32 tensor-core GEMMs (cublasGemmEx) and a strided
// batched SGEMM; two host threads launching block_sum 10 times each; a
// cooperative launch; a CUDA graph of 3 block_sum launches, replayed twice.
// 'crash' then ends the program with SIGSEGV.
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "cuda_check.h"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <unistd.h>
#include <sys/wait.h>
#include <vector>

#define CB(call)                                                                                   \
    do {                                                                                           \
        cublasStatus_t s_ = (call);                                                                \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                                         \
            fprintf(stderr, "%s: cuBLAS status %d\n", #call, (int)s_);                             \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

// Sums blocks of x into y through dynamic shared memory.
__global__ void block_sum(const float *x, float *y, int n)
{
    extern __shared__ float buf[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    buf[threadIdx.x] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s /= 2) {
        if (threadIdx.x < s)
            buf[threadIdx.x] += buf[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        y[blockIdx.x] = buf[0];
}

template <typename T> static double run_gemm(cublasHandle_t h, int n)
{
    std::vector<T> host((size_t)n * n);
    for (size_t i = 0; i < host.size(); i++)
        host[i] = (T)((i % 7) * 0.25);
    T *a, *b, *c;
    size_t bytes = host.size() * sizeof(T);
    CK(cudaMalloc(&a, bytes));
    CK(cudaMalloc(&b, bytes));
    CK(cudaMalloc(&c, bytes));
    CK(cudaMemcpy(a, host.data(), bytes, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(b, host.data(), bytes, cudaMemcpyHostToDevice));
    T one = 1, zero = 0;
    if constexpr (sizeof(T) == 4)
        CB(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, b, n, &zero, c, n));
    else
        CB(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, b, n, &zero, c, n));
    T corner;
    CK(cudaMemcpy(&corner, c, sizeof corner, cudaMemcpyDeviceToHost));
    CK(cudaFree(a));
    CK(cudaFree(b));
    CK(cudaFree(c));
    return (double)corner;
}

// cublasGemmEx with half inputs (tensor cores), then TF32 SGEMM and a
// strided batched SGEMM.
static void more_gemms(cublasHandle_t h)
{
    const int n = 4096;
    void *a, *b, *c;
    CK(cudaMalloc(&a, (size_t)n * n * 4));
    CK(cudaMalloc(&b, (size_t)n * n * 4));
    CK(cudaMalloc(&c, (size_t)n * n * 4));
    CK(cudaMemset(a, 0, (size_t)n * n * 4));
    CK(cudaMemset(b, 0, (size_t)n * n * 4));
    float one = 1, zero = 0;
    for (int m : {1024, 4096})
        CB(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_T, m, m, m, &one, a, CUDA_R_16F, m, b, CUDA_R_16F, m,
                        &zero, c, CUDA_R_32F, m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    CB(cublasSetMathMode(h, CUBLAS_TF32_TENSOR_OP_MATH));
    CB(cublasSgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, 2048, 2048, 2048, &one, (float *)a, 2048,
                   (float *)b, 2048, &zero, (float *)c, 2048));
    CB(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));
    CB(cublasSgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, 256, 256, 256, &one, (float *)a, 256,
                                 256 * 256, (float *)b, 256, 256 * 256, &zero, (float *)c, 256,
                                 256 * 256, 64));
    CK(cudaDeviceSynchronize());
    CK(cudaFree(a));
    CK(cudaFree(b));
    CK(cudaFree(c));
}

// Threads, a cooperative launch and a graph, all of block_sum.
static void more_launches(float *x, float *y, int n)
{
    std::thread t[2];
    for (int i = 0; i < 2; i++)
        t[i] = std::thread([=] {
            cudaStream_t s;
            CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
            for (int r = 0; r < 10; r++) {
                int block = i ? 96 : 160;
                block_sum<<<n / 1024, block, block * sizeof(float) + r * 1024, s>>>(x, y, n);
            }
            CK(cudaStreamSynchronize(s));
            CK(cudaStreamDestroy(s));
        });
    for (auto &th : t)
        th.join();
    CK(cudaGetLastError());
    void *args[] = {&x, &y, &n};
    CK(cudaLaunchCooperativeKernel((void *)block_sum, dim3(132), dim3(256), args, 1024, 0));
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cudaGraph_t g;
    cudaGraphExec_t ge;
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    for (int i = 0; i < 3; i++)
        block_sum<<<n / 512, 512, 512 * sizeof(float), s>>>(x, y, n);
    CK(cudaStreamEndCapture(s, &g));
    CK(cudaGraphInstantiate(&ge, g, 0));
    CK(cudaGraphLaunch(ge, s));
    CK(cudaGraphLaunch(ge, s));
    CK(cudaStreamSynchronize(s));
    CK(cudaGraphExecDestroy(ge));
    CK(cudaGraphDestroy(g));
    CK(cudaStreamDestroy(s));
}

int main(int argc, char **argv)
{
    bool more = argc > 1 && strcmp(argv[1], "more") == 0;
    bool crash = more && argc > 2 && strcmp(argv[2], "crash") == 0;
    if (argc > 1 && strcmp(argv[1], "child") == 0) {
        float *x;
        CK(cudaMalloc(&x, 1 << 20));
        block_sum<<<1024, 64, 64 * sizeof(float)>>>(x, x, 1 << 16);
        CK(cudaDeviceSynchronize());
        return 0;
    }
    pid_t child = -1;
    if (more) { // before CUDA starts in this process
        child = fork();
        if (child == 0) {
            execl("/proc/self/exe", argv[0], "child", (char *)nullptr);
            _exit(1);
        }
    }
    cublasHandle_t h;
    CB(cublasCreate(&h));
    double sum = 0;
    const int sizes[] = {128, 512, 1024, 4096};
    for (int n : sizes)
        sum += run_gemm<float>(h, n);
    for (int n : sizes)
        sum += run_gemm<double>(h, n);
    if (more)
        more_gemms(h);
    CB(cublasDestroy(h));

    const int n = 1 << 20;
    float *x, *y;
    CK(cudaMalloc(&x, n * sizeof(float)));
    CK(cudaMalloc(&y, n * sizeof(float)));
    CK(cudaMemset(x, 0, n * sizeof(float)));
    // dynamic shared memory: the block's floats, plus padding that lowers occupancy
    CK(cudaFuncSetAttribute(block_sum, cudaFuncAttributeMaxDynamicSharedMemorySize, 100 * 1024));
    const struct { int block; size_t extra; } cfg[] = {
        {128, 0}, {256, 0}, {1024, 0}, {256, 20 * 1024}, {512, 60 * 1024}, {64, 99 * 1024},
    };
    for (auto c : cfg) {
        size_t dyn = c.block * sizeof(float) + c.extra;
        block_sum<<<n / c.block, c.block, dyn>>>(x, y, n);
        CK(cudaGetLastError());
    }
    CK(cudaDeviceSynchronize());
    if (more)
        more_launches(x, y, n);
    float first;
    CK(cudaMemcpy(&first, y, sizeof first, cudaMemcpyDeviceToHost));
    printf("cuda_trace_app: checksum %.3f %.1f\n", sum, first);
    CK(cudaFree(x));
    CK(cudaFree(y));
    int status = 0;
    if (child > 0 && (waitpid(child, &status, 0) != child || status != 0)) {
        fprintf(stderr, "cuda_trace_app: the child failed (%d)\n", status);
        return 1;
    }
    fflush(stdout);
    if (crash)
        raise(SIGSEGV);
    return 0;
}
