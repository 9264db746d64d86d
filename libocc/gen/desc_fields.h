/* Every field of occ_device_desc (occ/occ.h), by kind, in declaration order:
 * one list for the generator that compiles the built-in profiles to C data
 * (embed_profiles.c) and the test that compares that data with the YAML
 * files field by field (tests/profiles/test_profiles.c).  A field added to
 * occ_device_desc is added here; the test's whole-struct comparison fails
 * until it is.
 *
 *   SIZE(f)  the struct_size field          NUM(f)   an integer, bool or enum
 *   TEXT(f)  a char array (string)          REAL(f)  a double
 *   NUMS(f)  an array of integers           GRFS(f)  the array of occ_grf_mode */
#ifndef OCC_GEN_DESC_FIELDS_H
#define OCC_GEN_DESC_FIELDS_H

#define OCC_DESC_FIELDS(SIZE, TEXT, NUM, NUMS, GRFS, REAL)                                         \
    SIZE(struct_size)                                                                              \
    TEXT(name) TEXT(product) TEXT(architecture) TEXT(target) NUM(vendor) NUM(provisional)                       \
    TEXT(core_name) TEXT(engine_name) NUM(cores) NUM(engines_per_core) NUM(simd_width)             \
    NUM(n_sub_group_sizes) NUMS(sub_group_sizes) NUM(n_grf_modes) GRFS(grf_modes)                  \
    NUM(default_grf) NUM(max_work_group_size) NUM(max_work_groups_per_core)                        \
    NUM(barriers_per_core) NUM(barriers_per_core_driver)                                           \
    TEXT(local_memory_name) NUM(slm_per_core) NUM(slm_max_per_work_group)                          \
    NUM(slm_reserved_per_work_group) NUM(slm_granule) NUM(n_slm_steps) NUMS(slm_steps)             \
    NUM(n_carveouts) NUMS(carveouts)                                                               \
    NUM(has_register_file) NUM(regs_per_core) NUM(reg_alloc_unit) NUM(reg_warp_granularity)        \
    NUM(reg_max_per_thread) NUM(reg_max_per_work_group) NUM(reg_partitions)                        \
    NUM(dispatch_order) NUM(partial_dispatch)                                                      \
    REAL(refill_gap_s) REAL(core_interval_s) REAL(core_interval_per_context_s)                     \
    REAL(gpu_interval_s) NUM(gpu_burst_work_groups) REAL(launch_interval_s)                       \
    REAL(refill_gap_drained_s) REAL(gpu_interval_per_context_s) REAL(refill_pause_s)             \
    REAL(refill_window_s) REAL(refill_window_threads_s) REAL(gpu_report_per_work_group_s)          \
    REAL(refill_gap_spread_s) REAL(core_interval_threads_s) REAL(refill_pause_first_s)            \
    REAL(core_interval_slots_s) NUM(gpu_burst_slots_work_groups)                                  \
    REAL(sub_partition_hold_s) TEXT(timing_evidence)                                              \
    NUM(n_gpcs) NUMS(gpc_sms) NUM(cluster_max_work_groups) NUM(cluster_max_size)                   \
    NUM(cluster_max_size_non_portable)

#endif
