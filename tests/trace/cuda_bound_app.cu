// For `occcalc trace` (tests/data/trace/README.md): knows nothing of occ. Kernels
// with launch bounds, launched within and outside them. Per launch, to EXPECT:
//   kernel block maxThreadsPerBlock cudaGetLastError
// Exit 1 when a launch's answer is not what its bound implies.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

__global__ void __launch_bounds__(256) bounded256(float *x)
{
    x[blockIdx.x * blockDim.x + threadIdx.x] += 1.0f;
}

__global__ void __launch_bounds__(128, 4) bounded128(float *x)
{
    x[blockIdx.x * blockDim.x + threadIdx.x] *= 2.0f;
}

__global__ void unbounded(float *x)
{
    x[blockIdx.x * blockDim.x + threadIdx.x] -= 1.0f;
}

struct plan {
    const char *name;
    void (*fn)(float *);
    int block;
};

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: cuda_bound_app EXPECT\n");
        return 2;
    }
    FILE *out = fopen(argv[1], "w");
    if (!out)
        return 2;
    float *x;
    if (cudaMalloc(&x, 64 * 1024 * sizeof(float)) != cudaSuccess)
        return 2;
    const plan launches[] = {
        {"bounded256", bounded256, 128}, {"bounded256", bounded256, 256}, {"bounded256", bounded256, 257},
        {"bounded256", bounded256, 512}, {"bounded256", bounded256, 1024}, {"bounded128", bounded128, 64},
        {"bounded128", bounded128, 128}, {"bounded128", bounded128, 192}, {"unbounded", unbounded, 1024},
    };
    int wrong = 0;
    for (const plan &p : launches) {
        cudaFuncAttributes a;
        if (cudaFuncGetAttributes(&a, p.fn) != cudaSuccess)
            return 2;
        p.fn<<<8, p.block>>>(x);
        cudaError_t e = cudaGetLastError();
        cudaDeviceSynchronize();
        fprintf(out, "%s %d %d %d\n", p.name, p.block, a.maxThreadsPerBlock, (int)e);
        wrong += (e != cudaSuccess) != (p.block > a.maxThreadsPerBlock);
    }
    fclose(out);
    cudaFree(x);
    printf("cuda_bound_app: %zu launches, %d not as their bound implies\n", sizeof launches / sizeof launches[0],
           wrong);
    return wrong ? 1 : 0;
}
