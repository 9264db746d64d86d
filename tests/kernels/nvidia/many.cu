// Many small kernels in one file, for the benchmark of the cubin reader
// (tests/bench/bench_kernels.c): instantiations of one template, each with its own
// static shared memory and a little arithmetic.  build.sh compiles it
// (the explicit instantiations below are spelled by the preprocessor).
template <int N> __global__ void many(float *x, int n)
{
    __shared__ float s[N % 97 + 1];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x % (N % 97 + 1)] = i < n ? x[i] : 0.0f;
    __syncthreads();
    if (i < n)
        x[i] = s[(threadIdx.x + N) % (N % 97 + 1)] * (float)(N + 1);
}
#define I1(n) template __global__ void many<n>(float *, int);
#define I10(n) I1(n##0) I1(n##1) I1(n##2) I1(n##3) I1(n##4) I1(n##5) I1(n##6) I1(n##7) I1(n##8) I1(n##9)
#define I100(n) I10(n##0) I10(n##1) I10(n##2) I10(n##3) I10(n##4) I10(n##5) I10(n##6) I10(n##7) I10(n##8) I10(n##9)
// 450 kernels: about 1 MB of cubin for sm_90.
I100(1) I100(2) I100(3) I100(4) I10(50) I10(51) I10(52) I10(53) I10(54)
