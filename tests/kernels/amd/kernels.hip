// A HIP source without the ROCm headers (-nogpuinc): what it uses is declared
// here.  make_corpus.py builds it into an offload bundle, a compressed bundle
// and a host object that carries the bundle.
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __device__ __attribute__((device))
#define WG(lo, hi) __attribute__((amdgpu_flat_work_group_size(lo, hi)))
struct dim3 {
    unsigned x, y, z;
};
typedef struct ihipStream_t *hipStream_t;
extern "C" int hipLaunchKernel(const void *f, dim3 grid, dim3 block, void **args, unsigned long shm,
                               hipStream_t stream);

__device__ static unsigned tid() { return __builtin_amdgcn_workitem_id_x(); }

extern "C" __global__ void WG(1, 256) scale_lds(float *a, float s)
{
    __shared__ float t[512];
    t[tid()] = a[tid()];
    t[tid() + 256] = a[tid() + 256];
    __builtin_amdgcn_s_barrier();
    a[tid()] = t[511 - tid()] * s;
}

// A C++ name: the metadata carries the mangled one.
template <int N> __global__ void WG(1, 1024) unrolled(float *a)
{
    float v[N];
#pragma unroll
    for (int i = 0; i < N; i++)
        v[i] = a[tid() + i * 1024];
#pragma unroll
    for (int i = 0; i < N; i++)
        a[tid() + i * 1024] = v[i] * v[(i + 1) % N];
}
template __global__ void unrolled<4>(float *);
template __global__ void unrolled<48>(float *);

// Recursion: the stack size is not known at compile time.
__device__ __attribute__((noinline)) int depth(int n, int *p)
{
    return n <= 0 ? p[0] : depth(n - 1, p + 1) * p[n] + depth(n - 2, p + 2);
}
extern "C" __global__ void WG(1, 128) recursive(int *p) { p[tid()] = depth(p[0], p); }
