// Cluster probes on the lent GPU machine (docs/clusters.md, "Evidence"): a
// kernel launched in thread-block clusters of 1..16 blocks records, for every
// block, its SM (%smid), cluster (%clusterid.x), rank in the cluster
// (%cluster_ctarank) and when it ran (%globaltimer), over block sizes and
// dynamic shared memory, with a grid of twice the clusters the driver says
// are active at once (cudaOccupancyMaxActiveClusters), so the second half
// waits for the first.  tests/hw/cluster_validate.py derives the GPCs and
// the peaks from the file and compares them with occ's prediction.
//
//   cluster_probe > probe.csv
#include <cuda_runtime.h>

#include "../trace/cuda_check.h"

#include <cstdio>
#include <cstdlib>
#include <vector>


struct rec {
    unsigned smid, cluster, rank, pad;
    unsigned long long start, end;
};

__device__ unsigned long long now_ns()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// Block 0's thread 0 of each block records; every block holds its SM for
// spin_ns so that the first clusters are all resident before any ends.
__global__ void probe(rec *out, unsigned long long spin_ns)
{
    __shared__ unsigned char smem[4]; // the dynamic shared memory is only held
    unsigned long long t0 = now_ns();
    if (threadIdx.x == 0) {
        rec r;
        asm volatile("mov.u32 %0, %%smid;" : "=r"(r.smid));
        asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(r.cluster));
        asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r.rank));
        smem[0] = (unsigned char)r.rank;
        while (now_ns() - t0 < spin_ns)
            ;
        r.pad = smem[0];
        r.start = t0;
        r.end = now_ns();
        out[blockIdx.x] = r;
    }
    __syncthreads();
}

int main()
{
    int dev = 0;
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, dev));
    const int top = 200 * 1024;
    CK(cudaFuncSetAttribute(probe, cudaFuncAttributeMaxDynamicSharedMemorySize, top));
    CK(cudaFuncSetAttribute(probe, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    cudaFuncAttributes fa;
    CK(cudaFuncGetAttributes(&fa, probe));
    printf("# occ cluster probe (tests/hw/cluster_probe.cu): %s, %d SMs, cc %d.%d, probe %d registers\n",
           p.name, p.multiProcessorCount, p.major, p.minor, fa.numRegs);
    printf("launch,cluster,block,dyn,driver_clusters,blockid,smid,clusterid,rank,start_ns,end_ns\n");
    rec *d;
    CK(cudaMalloc(&d, sizeof(rec) * 1 << 16));
    static const unsigned blocks[] = {32, 256, 1024};
    static const int dyns[] = {0, 100 * 1024};
    static const unsigned sizes[] = {1, 2, 3, 4, 6, 8, 12, 16};
    int launch = 0;
    for (unsigned b : blocks)
        for (int dyn : dyns)
            for (unsigned c : sizes) {
                cudaLaunchConfig_t cfg = {};
                cfg.blockDim = dim3(b);
                cfg.dynamicSmemBytes = dyn;
                cudaLaunchAttribute a[1];
                a[0].id = cudaLaunchAttributeClusterDimension;
                a[0].val.clusterDim.x = c;
                a[0].val.clusterDim.y = 1;
                a[0].val.clusterDim.z = 1;
                cfg.attrs = a;
                cfg.numAttrs = 1;
                cfg.gridDim = dim3(c);
                int active = 0;
                CK(cudaOccupancyMaxActiveClusters(&active, probe, &cfg));
                if (!active)
                    continue;
                unsigned n = 2 * active * c;
                cfg.gridDim = dim3(n);
                CK(cudaMemset(d, 0, sizeof(rec) * n));
                CK(cudaLaunchKernelEx(&cfg, probe, d, 200000ull));
                CK(cudaDeviceSynchronize());
                std::vector<rec> h(n);
                CK(cudaMemcpy(h.data(), d, sizeof(rec) * n, cudaMemcpyDeviceToHost));
                for (unsigned i = 0; i < n; i++)
                    printf("%d,%u,%u,%d,%d,%u,%u,%u,%u,%llu,%llu\n", launch, c, b, dyn, active, i, h[i].smid,
                           h[i].cluster, h[i].rank, h[i].start, h[i].end);
                launch++;
            }
    CK(cudaFree(d));
    return 0;
}
