// A CUDA program for `occcalc trace` on a GPU machine (tests/hw/trace_gpu.sh):
// unmodified, it knows nothing of occ.  cuBLAS sgemm and dgemm at a few sizes,
// and a kernel of its own with dynamic shared memory at several block sizes
// (one above the 48 KB default, after raising the function's limit).
// Prints a checksum; exits 0, or 1 on a CUDA or cuBLAS error.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(call)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_));                            \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)
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

int main()
{
    cublasHandle_t h;
    CB(cublasCreate(&h));
    double sum = 0;
    const int sizes[] = {128, 512, 1024, 4096};
    for (int n : sizes)
        sum += run_gemm<float>(h, n);
    for (int n : sizes)
        sum += run_gemm<double>(h, n);
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
    float first;
    CK(cudaMemcpy(&first, y, sizeof first, cudaMemcpyDeviceToHost));
    printf("cuda_trace_app: checksum %.3f %.1f\n", sum, first);
    CK(cudaFree(x));
    CK(cudaFree(y));
    return 0;
}
