// Kernels with compiled thread-block cluster dimensions (__cluster_dims__),
// for the cubin reader's cluster attribute (tests/kernels/nvidia/build.sh).
__global__ void __cluster_dims__(2, 1, 1) cluster2(float *out) { out[blockIdx.x] = 1.0f; }
__global__ void __cluster_dims__(4, 2, 1) cluster4x2(float *out) { out[blockIdx.x] = 2.0f; }
__global__ void __cluster_dims__(2, 2, 2) __launch_bounds__(128) cluster2x2x2(float *out)
{
    out[blockIdx.x] = 3.0f;
}
__global__ void plain(float *out) { out[blockIdx.x] = 4.0f; }
