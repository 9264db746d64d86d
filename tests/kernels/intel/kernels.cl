/* Test kernels for the Intel kernel readers (tests/kernels/intel/test_intel_driver.c):
 * each one exercises one thing the readers report. */

/* A one-liner: the compiler picks SIMD32 for it on these products. */
kernel void k_trivial(global int *a) { a[get_global_id(0)] = 1; }

__attribute__((intel_reqd_sub_group_size(8)))
kernel void k_sg8(global float *a) { a[get_global_id(0)] *= 2.0f; }

__attribute__((intel_reqd_sub_group_size(16)))
kernel void k_sg16(global float *a) { a[get_global_id(0)] += 1.0f; }

__attribute__((intel_reqd_sub_group_size(32)))
kernel void k_sg32(global float *a) { a[get_global_id(0)] -= 1.0f; }

/* Static SLM: a __local array inside the kernel, and a barrier. */
kernel void k_static_slm(global float *a)
{
    local float tile[1024];
    size_t l = get_local_id(0);
    tile[l % 1024] = a[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    a[get_global_id(0)] = tile[(l + 1) % 1024];
}

/* Two local-memory arguments (dynamic SLM) and a barrier. */
kernel void k_slm_args(global float *a, local float *x, local int *y)
{
    size_t l = get_local_id(0);
    x[l] = a[get_global_id(0)];
    y[l] = (int)l;
    barrier(CLK_LOCAL_MEM_FENCE);
    a[get_global_id(0)] = x[(l + 1) % get_local_size(0)] + (float)y[0];
}

/* Both: static SLM and an argument. */
__attribute__((intel_reqd_sub_group_size(16)))
kernel void k_slm_both(global float *a, local float *x)
{
    local float s[256];
    size_t l = get_local_id(0);
    s[l % 256] = a[get_global_id(0)];
    x[l] = 2.0f * s[l % 256];
    barrier(CLK_LOCAL_MEM_FENCE);
    a[get_global_id(0)] = x[0] + s[255];
}

/* A barrier without SLM. */
kernel void k_barrier(global int *a)
{
    a[get_global_id(0)] += 1;
    barrier(CLK_GLOBAL_MEM_FENCE);
    a[get_global_id(0)] *= 2;
}

/* A private array indexed at run time: private memory (and spills). */
kernel void k_private(global float *a, global const int *idx)
{
    float p[512];
    for (int i = 0; i < 512; i++)
        p[i] = a[i] * (float)i;
    a[get_global_id(0)] = p[idx[get_global_id(0)] & 511];
}

/* Many live values at once: register pressure that makes the compiler spill. */
kernel void k_spill(global float4 *a, int n)
{
    float4 v[96];
#pragma unroll
    for (int i = 0; i < 96; i++)
        v[i] = a[get_global_id(0) * 96 + i];
    float4 acc = 0;
    for (int r = 0; r < n; r++) {
#pragma unroll
        for (int i = 0; i < 96; i++) {
            v[i] = v[i] * v[(i + 7) % 96] + acc;
            acc += v[i];
        }
    }
#pragma unroll
    for (int i = 0; i < 96; i++)
        a[get_global_id(0) * 96 + i] = v[i] + acc;
}

__attribute__((reqd_work_group_size(64, 2, 1)))
kernel void k_reqd_wg(global int *a) { a[get_global_id(0) + get_global_id(1)] = 3; }

__attribute__((reqd_work_group_size(128, 1, 1))) __attribute__((intel_reqd_sub_group_size(8)))
kernel void k_reqd_wg_sg8(global int *a)
{
    local int s[128];
    s[get_local_id(0)] = a[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    a[get_global_id(0)] = s[127 - get_local_id(0)];
}
