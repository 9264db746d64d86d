// A CUDA program that launches in thread-block clusters, for `occcalc trace`
// on a GPU machine (tests/hw/trace_clusters_gpu.sh): it knows nothing of occ.
// cudaLaunchKernelEx with a cluster-dimension attribute (1-D to 3-D shapes of
// 2..8 blocks; 9..16 for a kernel that allows non-portable sizes) over block
// sizes 32..1024 and dynamic shared memory up to 200 KB, and kernels with
// compiled dimensions (__cluster_dims__) launched with <<<>>>.  The tracer
// records each launch's cluster shape and asks the driver for its active
// clusters (cuOccupancyMaxActiveClusters); occ's model is compared with that.
// Prints the launches made; exits 0, or 1 on a CUDA error.
#include <cuda_runtime.h>

#include "cuda_check.h"

#include <cstdio>
#include <cstdlib>


// Writes its cluster rank (the dynamic shared memory is only held).
__device__ void write_rank(unsigned *out)
{
    __shared__ unsigned buf[32];
    unsigned rank;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    buf[threadIdx.x % 32] = rank;
    __syncthreads();
    if (threadIdx.x == 0)
        out[blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z)] = buf[0];
}

__global__ void in_cluster(unsigned *out) { write_rank(out); }

// The same for sizes over 8 (cudaFuncAttributeNonPortableClusterSizeAllowed).
__global__ void in_big_cluster(unsigned *out) { write_rank(out); }

// Many registers per thread: fewer blocks per SM.
__global__ void __launch_bounds__(256) in_cluster_heavy(unsigned *out, int n)
{
    float acc[48];
#pragma unroll
    for (int i = 0; i < 48; i++)
        acc[i] = (float)(threadIdx.x * (i + 1));
    for (int k = 0; k < n; k++)
#pragma unroll
        for (int i = 0; i < 48; i++)
            acc[i] = acc[i] * 1.0001f + acc[(i + 7) % 48];
    float s = 0;
#pragma unroll
    for (int i = 0; i < 48; i++)
        s += acc[i];
    if (threadIdx.x == 0)
        out[blockIdx.x] = (unsigned)s;
}

__global__ void __cluster_dims__(2, 1, 1) compiled2(unsigned *out)
{
    out[blockIdx.x] = blockIdx.x;
}

__global__ void __cluster_dims__(4, 2, 1) compiled4x2(unsigned *out)
{
    out[blockIdx.x + gridDim.x * blockIdx.y] = blockIdx.y;
}

static unsigned *out;
static int launches;

template <typename... A>
static void launch(void (*k)(A...), dim3 cluster, unsigned block, size_t dyn, A... args)
{
    cudaLaunchConfig_t c = {};
    c.gridDim = dim3(cluster.x * 4, cluster.y * 2, cluster.z);
    c.blockDim = dim3(block, 1, 1);
    c.dynamicSmemBytes = dyn;
    cudaLaunchAttribute a[1];
    a[0].id = cudaLaunchAttributeClusterDimension;
    a[0].val.clusterDim.x = cluster.x;
    a[0].val.clusterDim.y = cluster.y;
    a[0].val.clusterDim.z = cluster.z;
    c.attrs = a;
    c.numAttrs = 1;
    CK(cudaLaunchKernelEx(&c, k, args...));
    launches++;
}

int main()
{
    CK(cudaMalloc(&out, 1 << 20));
    const size_t top = 200 * 1024;
    CK(cudaFuncSetAttribute(in_cluster, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)top));
    CK(cudaFuncSetAttribute(in_big_cluster, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)top));
    CK(cudaFuncSetAttribute(in_big_cluster, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    static const dim3 portable[] = {dim3(2), dim3(3), dim3(4), dim3(5), dim3(6), dim3(7), dim3(8),
                                    dim3(2, 2), dim3(4, 2), dim3(2, 2, 2)};
    static const dim3 big[] = {dim3(9), dim3(12), dim3(16), dim3(4, 4), dim3(2, 2, 4)};
    static const unsigned blocks[] = {32, 128, 256, 512, 1024};
    static const size_t dyns[] = {0, 16 * 1024, 60 * 1024, 100 * 1024, top};
    for (unsigned b : blocks)
        for (size_t d : dyns) {
            for (const dim3 &c : portable)
                launch(in_cluster, c, b, d, out);
            for (const dim3 &c : big)
                launch(in_big_cluster, c, b, d, out);
        }
    for (const dim3 &c : portable)
        for (unsigned b : {64u, 256u})
            launch(in_cluster_heavy, c, b, 0, out, 4);
    // compiled dimensions: an ordinary launch is in clusters
    for (unsigned b : {32u, 256u, 1024u}) {
        compiled2<<<64, b>>>(out);
        compiled4x2<<<dim3(16, 4), b>>>(out);
        launches += 2;
        CK(cudaGetLastError());
    }
    CK(cudaDeviceSynchronize());
    printf("%d launches in clusters\n", launches);
    CK(cudaFree(out));
    return 0;
}
