// Kernels of the Level Zero program that `occcalc trace` is tested on
// (tests/trace/ze_trace_app.c): no local memory, a local-memory argument
// with a barrier, static local memory, and a required sub-group size.

kernel void scale(global float *a, float s)
{
    a[get_global_id(0)] *= s;
}

kernel void reduce_slm(global float *a, local float *tmp)
{
    size_t l = get_local_id(0);
    tmp[l] = a[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t s = get_local_size(0) / 2; s > 0; s /= 2) {
        if (l < s)
            tmp[l] += tmp[l + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l == 0)
        a[get_group_id(0)] = tmp[0];
}

kernel void tile_static(global float *a)
{
    local float tile[1024];
    size_t l = get_local_id(0);
    tile[l] = a[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    a[get_global_id(0)] = tile[get_local_size(0) - 1 - l];
}

__attribute__((intel_reqd_sub_group_size(32)))
kernel void wide_sg32(global float *a, local float *scratch, local int *flags)
{
    size_t l = get_local_id(0);
    scratch[l] = a[get_global_id(0)];
    flags[l] = 1;
    barrier(CLK_LOCAL_MEM_FENCE);
    a[get_global_id(0)] = scratch[l] + (float)flags[l];
}
