/* The kernel readers compiled into this build, by format: the one file that
 * knows them all (each reader lives in its own file of this folder). */
#include "kernels/kernel_set.h"
#include "kernels/nvidia.h"
#include "kernels/intel.h"
#include "kernels/amd.h"

occ__kernel_reader occ__kernel_reader_for(occ_kernel_format f)
{
    switch (f) {
    case OCC_KFMT_CUBIN:
        return occ__cubin_read;
    case OCC_KFMT_FATBIN:
        return occ__fatbin_read;
    case OCC_KFMT_PTX:
        return occ__ptx_read;
    case OCC_KFMT_ZEBIN:
        return occ__read_zebin;
    case OCC_KFMT_PATCHTOKENS:
        return occ__read_patchtokens;
    case OCC_KFMT_SPIRV:
        return occ__read_spirv;
    case OCC_KFMT_OPENCL_C:
        return occ__read_opencl_c;
    case OCC_KFMT_AMDGPU:
        return occ__amdgpu_read;
    case OCC_KFMT_OFFLOAD_BUNDLE:
        return occ__offload_bundle_read;
    default:
        return NULL;
    }
}
