/* The kernel bench_ze_reference asks the Intel driver about: trivial work,
 * compiled for sub-group 8 so the driver's answer depends on the work-group
 * size alone (no SLM, no barrier), like the occ query it is timed against. */
__attribute__((intel_reqd_sub_group_size(8)))
kernel void occ_bench(global uint *out)
{
    out[get_global_id(0)] = (uint)get_local_id(0);
}
