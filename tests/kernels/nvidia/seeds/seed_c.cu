#include <cooperative_groups.h>
extern "C" __global__ void c_grid(float *x) { cooperative_groups::this_grid().sync(); x[threadIdx.x] = 1; }
