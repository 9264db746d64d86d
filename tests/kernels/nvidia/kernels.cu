// Kernels of occ's own for the NVIDIA readers' tests (tests/kernels/nvidia/
// build.sh compiles them to cubin, fatbin and PTX; tests/data/kernels/nvidia/
// holds the results and the driver's answers for them).  Each kernel pulls
// one resource a reader must see: registers, launch bounds, static and
// dynamic shared memory, barriers, local memory and spills, grid sync, and
// template (mangled) names.  extern "C" keeps most names plain.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

// Few registers, nothing else.
extern "C" __global__ void k_simple(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

// Many live values: 48 independent accumulators keep registers busy.
extern "C" __global__ void k_regheavy(const float *a, float *out, int n)
{
    float acc[48];
#pragma unroll
    for (int j = 0; j < 48; j++)
        acc[j] = a[(threadIdx.x + j * 97) % n];
    for (int it = 0; it < n; it++) {
#pragma unroll
        for (int j = 0; j < 48; j++)
            acc[j] = acc[j] * acc[(j + 7) % 48] + a[(it * 48 + j) % n];
    }
    float s = 0;
#pragma unroll
    for (int j = 0; j < 48; j++)
        s += acc[j] * (float)(j + 1);
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

// __launch_bounds__ with a maximum only.
extern "C" __global__ void __launch_bounds__(256) k_lb256(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] = sqrtf(x[i]) * 3.0f + 1.0f;
}

// __launch_bounds__ with a minimum of resident blocks: ptxas caps registers.
extern "C" __global__ void __launch_bounds__(128, 4) k_lb128_min4(const float *a, float *out, int n)
{
    float acc[24];
#pragma unroll
    for (int j = 0; j < 24; j++)
        acc[j] = a[(threadIdx.x + j * 31) % n];
    for (int it = 0; it < n; it++) {
#pragma unroll
        for (int j = 0; j < 24; j++)
            acc[j] = acc[j] * acc[(j + 5) % 24] + 1.0f;
    }
    float s = 0;
#pragma unroll
    for (int j = 0; j < 24; j++)
        s += acc[j];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

// A small static shared array.
extern "C" __global__ void k_smem_small(float *x)
{
    __shared__ float tile[64];
    tile[threadIdx.x % 64] = x[threadIdx.x];
    __syncthreads();
    x[threadIdx.x] = tile[(threadIdx.x + 1) % 64];
}

// A large static shared array (40000 B).
extern "C" __global__ void k_smem_big(char *x)
{
    __shared__ char big[40000];
    for (int i = threadIdx.x; i < 40000; i += blockDim.x)
        big[i] = x[i];
    __syncthreads();
    for (int i = threadIdx.x; i < 40000; i += blockDim.x)
        x[i] = big[39999 - i];
}

// Two static shared arrays of odd sizes (they are laid out one after the other).
extern "C" __global__ void k_smem_two(double *x)
{
    __shared__ double d[100];
    __shared__ int k[37];
    d[threadIdx.x % 100] = x[threadIdx.x];
    k[threadIdx.x % 37] = (int)threadIdx.x;
    __syncthreads();
    x[threadIdx.x] = d[(threadIdx.x + 3) % 100] + k[(threadIdx.x + 5) % 37];
}

// Dynamic shared memory only: the file states none, the launch adds it.
extern "C" __global__ void k_dyn_smem(float *x)
{
    extern __shared__ float dyn[];
    dyn[threadIdx.x] = x[threadIdx.x];
    __syncthreads();
    x[threadIdx.x] = dyn[blockDim.x - 1 - threadIdx.x];
}

// Static and dynamic shared memory together, and a second named barrier.
extern "C" __global__ void k_static_dyn_bar(float *x)
{
    __shared__ float s[256];
    extern __shared__ float dyn2[];
    s[threadIdx.x % 256] = x[threadIdx.x];
    dyn2[threadIdx.x] = 2.0f * x[threadIdx.x];
    __syncthreads();
    if (threadIdx.x < 64) {
        asm volatile("bar.sync 1, 64;");
        x[threadIdx.x] = s[(threadIdx.x + 1) % 256] + dyn2[threadIdx.x];
    }
}

// A local array indexed at run time: it lives in local memory (stack frame).
extern "C" __global__ void k_local(const int *idx, float *out)
{
    float buf[200];
    for (int i = 0; i < 200; i++)
        buf[i] = (float)(i * threadIdx.x);
    out[threadIdx.x] = buf[idx[threadIdx.x] % 200] + buf[idx[threadIdx.x + 1] % 200];
}

// A call to a function that is not inlined and has a local array of its
// own: the kernel's frame and the callee's frame differ, so this shows which
// of them (or their sum) the driver reports as local memory.
__device__ __noinline__ float callee_with_frame(const int *idx, int t)
{
    float buf[64];
    for (int i = 0; i < 64; i++)
        buf[i] = (float)(i * t + 1);
    return buf[idx[t] % 64];
}

extern "C" __global__ void k_call_frame(const int *idx, float *out)
{
    float mine[16];
    int t = (int)threadIdx.x;
    for (int i = 0; i < 16; i++)
        mine[i] = (float)(i + t);
    out[t] = callee_with_frame(idx, t) + mine[idx[t + 1] % 16];
}

// Register-heavy code squeezed into 32 registers by __launch_bounds__(1024, 2):
// ptxas spills.
extern "C" __global__ void __launch_bounds__(1024, 2) k_spill(const float *a, float *out, int n)
{
    float acc[40];
#pragma unroll
    for (int j = 0; j < 40; j++)
        acc[j] = a[(threadIdx.x + j * 13) % n];
    for (int it = 0; it < n; it++) {
#pragma unroll
        for (int j = 0; j < 40; j++)
            acc[j] = acc[j] * acc[(j + 11) % 40] + a[(it + j) % n];
    }
    float s = 0;
#pragma unroll
    for (int j = 0; j < 40; j++)
        s += acc[j] * (float)j;
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

// Cooperative groups: a grid-wide barrier.
extern "C" __global__ void k_grid_sync(float *x, int n)
{
    cg::grid_group g = cg::this_grid();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] += 1.0f;
    g.sync();
    if (i < n)
        x[i] *= x[(i + 1) % n];
}

// Uses blockIdx.z (the CTAIDZ attribute) and a 3-D block.
extern "C" __global__ void k_3d(float *x, int nx, int ny)
{
    int i = (blockIdx.z * gridDim.y + blockIdx.y) * nx * ny + threadIdx.z * blockDim.y * blockDim.x +
            threadIdx.y * blockDim.x + threadIdx.x;
    x[i] = 2.0f * x[i];
}

// A template: its instantiations have mangled names and different shared
// memory and registers.
template <int N, typename T> __global__ void k_tmpl(const T *in, T *out)
{
    __shared__ T t[N * 32];
    T acc[N];
#pragma unroll
    for (int j = 0; j < N; j++)
        acc[j] = in[threadIdx.x * N + j];
#pragma unroll
    for (int j = 0; j < N; j++)
        t[threadIdx.x % 32 * N + j] = acc[(j + 1) % N] * acc[j];
    __syncthreads();
    T s = 0;
#pragma unroll
    for (int j = 0; j < N; j++)
        s += t[(threadIdx.x + 1) % 32 * N + j];
    out[threadIdx.x] = s;
}
template __global__ void k_tmpl<1, float>(const float *, float *);
template __global__ void k_tmpl<8, double>(const double *, double *);
template __global__ void k_tmpl<32, float>(const float *, float *);
