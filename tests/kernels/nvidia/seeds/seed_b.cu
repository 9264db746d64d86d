extern "C" __global__ void b_local(const int *i, float *o) { float b[40]; for (int k = 0; k < 40; k++) b[k] = k * threadIdx.x; o[threadIdx.x] = b[i[threadIdx.x] % 40]; }
template <int N> __global__ void b_t(float *x) { __shared__ float s[N]; s[threadIdx.x % N] = 1; __syncthreads(); x[threadIdx.x] = s[(threadIdx.x + 1) % N]; }
template __global__ void b_t<7>(float *);
