// CK(call): a CUDA runtime call that must succeed, else the program says
// which and exits 1.  Shared by the CUDA programs run on the GPU machine.
#ifndef OCC_TESTS_CUDA_CHECK_H
#define OCC_TESTS_CUDA_CHECK_H
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#define CK(call)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_));                            \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

#endif
