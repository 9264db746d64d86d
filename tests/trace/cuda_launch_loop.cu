// Host cost of a kernel launch (tests/hw/trace_gpu.sh, docs/performance.md):
// batches of 256 launches of an empty kernel into an idle stream, timing the
// enqueue loop only (the queue never fills), synchronizing between batches.
// Prints the mean, median and minimum nanoseconds per launch over the batches.
// "cuda_launch_loop N vary": the grid cycles through 64 sizes, so that no
// launch repeats one of the last few (the tracer's path for a new line).
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

__global__ void empty_kernel(int *p)
{
    if (p && threadIdx.x == 1024)
        *p = 1;
}

int main(int argc, char **argv)
{
    int batches = argc > 1 ? atoi(argv[1]) : 200;
    bool vary = argc > 2 && std::string(argv[2]) == "vary";
    const int per_batch = 256;
    cudaFree(0);
    empty_kernel<<<1, 32>>>(nullptr); // warm
    cudaDeviceSynchronize();
    std::vector<double> ns;
    for (int b = 0; b < batches; b++) {
        auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < per_batch; i++)
            empty_kernel<<<vary ? 1 + i % 64 : 1, 32>>>(nullptr);
        auto t1 = std::chrono::steady_clock::now();
        cudaDeviceSynchronize();
        ns.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / per_batch);
    }
    if (cudaGetLastError() != cudaSuccess)
        return 1;
    double sum = 0;
    for (double v : ns)
        sum += v;
    std::sort(ns.begin(), ns.end());
    printf("launches %d mean_ns %.1f median_ns %.1f min_ns %.1f\n", batches * per_batch,
           sum / ns.size(), ns[ns.size() / 2], ns[0]);
    return 0;
}
