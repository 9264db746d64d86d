extern "C" __global__ void a_smem(float *x) { __shared__ float t[100]; t[threadIdx.x % 100] = x[threadIdx.x]; __syncthreads(); x[threadIdx.x] = t[(threadIdx.x + 1) % 100]; }
extern "C" __global__ void __launch_bounds__(64, 2) a_lb(float *x) { x[threadIdx.x] *= 2.0f; }
