/*
 * Level Zero probe kernels (OpenCL C, compiled to SPIR-V at build time).
 *
 * Built once per sub-group size with -DOCC_SG=8|16|32; each module holds four
 * kernels: with and without a work-group barrier, with and without dynamic SLM
 * (a local-memory argument whose size is set at launch).
 *
 * Lane 0 of every sub-group (one sub-group = one hardware thread) writes one
 * record: where the thread ran (the Intel compiler's intel_get_* built-ins)
 * and its cycle counter at start and end.  The host reads the records back;
 * a record whose magic word is still zero means the thread never ran.
 *
 * Record layout: OCC_ZE_RECORD_WORDS ulongs, see libocc/src/validate/backends/ze/backend_ze.h
 * (keep both in step).
 */

#ifndef OCC_SG
#error "build with -DOCC_SG=8, 16 or 32"
#endif

#define OCC_ZE_RECORD_MAGIC 0x4f43435aUL /* "OCCZ" */
#define OCC_ZE_RECORD_WORDS 8

/* Intel Graphics Compiler built-ins (no header declares them). */
uint __attribute__((overloadable)) intel_get_hw_thread_id(void);
uint __attribute__((overloadable)) intel_get_slice_id(void);
uint __attribute__((overloadable)) intel_get_dual_subslice_id(void);
uint __attribute__((overloadable)) intel_get_subslice_id(void);
uint __attribute__((overloadable)) intel_get_eu_id(void);
uint __attribute__((overloadable)) intel_get_eu_thread_id(void);
ulong __attribute__((overloadable)) intel_get_cycle_counter(void);

/* Busy-wait until `cycles` have passed since `from`; returns the iterations
 * so the loop cannot be removed. */
static uint spin_until(ulong from, ulong cycles)
{
    uint n = 0;
    while (intel_get_cycle_counter() - from < cycles)
        n++;
    return n;
}

static ulong pack2(uint lo, uint hi)
{
    return (ulong)lo | ((ulong)hi << 32);
}

/* The body shared by the four kernels.  `slm`/`slm_words` may be 0. */
static void probe_body(global ulong *records, ulong spin_cycles, bool use_barrier,
                       local uint *slm, uint slm_words)
{
    ulong t_start = intel_get_cycle_counter();
    uint hw_thread = intel_get_hw_thread_id();
    uint slice = intel_get_slice_id();
    uint dss = intel_get_dual_subslice_id();
    uint subslice = intel_get_subslice_id();
    uint eu = intel_get_eu_id();
    uint eu_thread = intel_get_eu_thread_id();

    uint lid = (uint)get_local_linear_id();
    uint check = 0;
    if (slm_words) {
        slm[lid % slm_words] = lid + 1;
    }
    if (use_barrier) {
        check += spin_until(t_start, spin_cycles / 2);
        barrier(CLK_LOCAL_MEM_FENCE);
        check += spin_until(t_start, spin_cycles);
    } else {
        check += spin_until(t_start, spin_cycles);
    }
    if (slm_words) {
        check += slm[lid % slm_words];
    }
    ulong t_end = intel_get_cycle_counter();

    if (get_sub_group_local_id() == 0) {
        size_t groups_x = get_num_groups(0), groups_y = get_num_groups(1);
        size_t group = get_group_id(0) + groups_x * (get_group_id(1) + groups_y * get_group_id(2));
        size_t index = group * get_num_sub_groups() + get_sub_group_id();
        global ulong *r = records + index * OCC_ZE_RECORD_WORDS;
        r[1] = pack2((uint)group, get_sub_group_id());
        r[2] = pack2(hw_thread, slice);
        r[3] = pack2(dss, subslice);
        r[4] = pack2(eu, eu_thread);
        r[5] = t_start;
        r[6] = t_end;
        r[7] = pack2(get_max_sub_group_size(), check);
        mem_fence(CLK_GLOBAL_MEM_FENCE);
        r[0] = OCC_ZE_RECORD_MAGIC;
    }
}

__attribute__((intel_reqd_sub_group_size(OCC_SG)))
kernel void occ_probe(global ulong *records, ulong spin_cycles)
{
    probe_body(records, spin_cycles, false, 0, 0);
}

__attribute__((intel_reqd_sub_group_size(OCC_SG)))
kernel void occ_probe_barrier(global ulong *records, ulong spin_cycles)
{
    probe_body(records, spin_cycles, true, 0, 0);
}

__attribute__((intel_reqd_sub_group_size(OCC_SG)))
kernel void occ_probe_slm(global ulong *records, ulong spin_cycles, local uint *slm, uint slm_words)
{
    probe_body(records, spin_cycles, false, slm, slm_words);
}

__attribute__((intel_reqd_sub_group_size(OCC_SG)))
kernel void occ_probe_barrier_slm(global ulong *records, ulong spin_cycles, local uint *slm,
                                  uint slm_words)
{
    probe_body(records, spin_cycles, true, slm, slm_words);
}
