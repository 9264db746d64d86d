/* The profile schema table (see profile_schema.h) and the per-field rules it
 * drives.  The documentation columns are those of docs/profiles.md, which a
 * test holds equal to this table. */
#include "model/profile_schema.h"
#include "arch/arch.h"

#include <stddef.h>
#include <string.h>

#define FIELD(f) offsetof(occ_device_desc, f), sizeof(((occ_device_desc *)0)->f)
#define GRF_FIELD(f) offsetof(occ_grf_mode, f), sizeof(((occ_grf_mode *)0)->f)
#define LIST(f, n, cap)                                                                            \
    offsetof(occ_device_desc, f), sizeof(((occ_device_desc *)0)->f[0]),                            \
        offsetof(occ_device_desc, n), (cap)
#define COUNT_MAX ((uint64_t)UINT32_MAX - 1) /* UINT32_MAX is OCC_NO_LIMIT */
#define BYTES_MAX ((uint64_t)1 << 48)
#define TOP OCC_PK_NONE

static const char *const status_words[] = {"verified", "provisional", NULL};
static const int status_values[] = {0, 1};
static const char *const order_words[] = {"pack", "spread", NULL};
static const int order_values[] = {OCC_DISPATCH_PACK, OCC_DISPATCH_SPREAD};

const occ_profile_key occ__profile_keys[OCC_PK_COUNT] = {
    [OCC_PK_SCHEMA] = {"schema", "schema", OCC_KEY_VERSION, TOP, 0, TOP, 0, 0, 0, 0, 0, 1, 1,
                       .doc_type = "1", .doc = "schema version"},
    [OCC_PK_NAME] = {"name", "name", OCC_KEY_TEXT, TOP, 0, TOP, FIELD(name),
                     .doc_type = "`[a-z0-9._-]+`", .doc = "short id used with `--device`"},
    [OCC_PK_VENDOR] = {"vendor", "vendor", OCC_KEY_WORD, TOP, 0, TOP, FIELD(vendor),
                       .words = occ__vendor_profile_words, .values = occ__vendor_ids,
                       .doc_type = "a vendor's word", .doc = "the GPU's maker: `occcalc devices` lists each vendor's word"},
    [OCC_PK_PRODUCT] = {"product", "product", OCC_KEY_TEXT, TOP, 0, TOP, FIELD(product),
                        .doc_type = "text", .doc = "marketing name"},
    [OCC_PK_ARCHITECTURE] = {"architecture", "architecture", OCC_KEY_TEXT, TOP, 0, TOP,
                             FIELD(architecture), .doc_type = "text",
                             .doc = "e.g. `Xe-LP (Gen12LP)`, `Hopper (sm_90)`"},
    [OCC_PK_TARGET] = {"target", "target", OCC_KEY_TEXT, TOP, OCC_KEYF_OPTIONAL, TOP, FIELD(target),
                       .doc_type = "`[a-z0-9._-]+`, optional",
                       .doc = "what kernels for it are compiled for, as kernel files name it: `sm_90`, "
                              "`tgllp`; a kernel file finds its device by it"},
    [OCC_PK_STATUS] = {"status", "status", OCC_KEY_WORD, TOP, 0, TOP, FIELD(provisional),
                       .words = status_words, .values = status_values,
                       .doc_type = "`verified` or `provisional`",
                       .doc = "`provisional`: numbers not confirmed by a vendor document"},
    [OCC_PK_SOURCES] = {"sources", "sources", OCC_KEY_TEXT_LIST, TOP, 0, TOP, 0, 1024, 0, 64, 1,
                        .doc_type = "list of text, at least one",
                        .doc = "where each number comes from"},

    [OCC_PK_CORE] = {.key = "core", .name = "core", .kind = OCC_KEY_SECTION, .parent = TOP,
                   .one_of = TOP},
    [OCC_PK_CORE_NAME] = {"core.name", "name", OCC_KEY_TEXT, OCC_PK_CORE, 0, TOP, FIELD(core_name),
                          .doc_type = "text",
                          .doc = "what a core is called: `Xe-core`, `DSS`, `sub-slice`, `SM`"},
    [OCC_PK_CORE_COUNT] = {"core.count", "count", OCC_KEY_COUNT, OCC_PK_CORE, 0, TOP, FIELD(cores),
                           .min = 1, .max = COUNT_MAX, .doc_type = "int > 0",
                           .doc = "cores on the device"},
    [OCC_PK_CORE_ENGINES] = {"core.vector_engines", "vector_engines", OCC_KEY_COUNT, OCC_PK_CORE, 0,
                             TOP, FIELD(engines_per_core), .min = 1, .max = COUNT_MAX,
                             .doc_type = "int > 0",
                             .doc = "vector engines per core (XVE/EU; NVIDIA: SM sub-partitions)"},
    [OCC_PK_CORE_ENGINE_NAME] = {"core.vector_engine_name", "vector_engine_name", OCC_KEY_TEXT,
                                 OCC_PK_CORE, 0, TOP, FIELD(engine_name), .doc_type = "text",
                                 .doc = "`XVE`, `EU`, `SMSP`"},
    [OCC_PK_CORE_SIMD] = {"core.simd_width", "simd_width", OCC_KEY_COUNT, OCC_PK_CORE, 0, TOP,
                          FIELD(simd_width), .min = 1, .max = COUNT_MAX, .doc_type = "int > 0",
                          .doc = "physical SIMD width of one engine (NVIDIA: 32)"},
    [OCC_PK_CORE_SUB_GROUPS] = {"core.sub_group_sizes", "sub_group_sizes", OCC_KEY_COUNT_LIST,
                                OCC_PK_CORE, 0, TOP,
                                LIST(sub_group_sizes, n_sub_group_sizes, OCC_MAX_SUB_GROUP_SIZES),
                                .min_items = 1, .min = 1, .max = COUNT_MAX, .items = "sizes",
                                .doc_type = "list of int, ascending",
                                .doc = "supported sub-group sizes (NVIDIA: `[32]`)"},
    [OCC_PK_CORE_GRF_MODES] = {"core.grf_modes", "grf_modes", OCC_KEY_MAP_LIST, OCC_PK_CORE, 0, TOP,
                               LIST(grf_modes, n_grf_modes, OCC_MAX_GRF_MODES), .min_items = 1,
                               .items = "modes",
                               .doc_type = "list of `{registers, threads_per_engine}`, ascending registers",
                               .doc = "thread contexts per vector engine in each register (GRF) mode. "
                                      "Intel: 128 and 256 GRF; Xe3 has a graded table. NVIDIA: one "
                                      "mode, warp slots per sub-partition"},
    [OCC_PK_GRF_REGISTERS] = {"core.grf_modes.registers", "registers", OCC_KEY_COUNT,
                              OCC_PK_CORE_GRF_MODES, OCC_KEYF_ITEM, TOP, GRF_FIELD(registers),
                              .min = 1, .max = COUNT_MAX},
    [OCC_PK_GRF_THREADS] = {"core.grf_modes.threads_per_engine", "threads_per_engine", OCC_KEY_COUNT,
                            OCC_PK_CORE_GRF_MODES, OCC_KEYF_ITEM, TOP,
                            GRF_FIELD(threads_per_engine), .min = 1, .max = COUNT_MAX},
    [OCC_PK_CORE_DEFAULT_GRF] = {"core.default_grf", "default_grf", OCC_KEY_COUNT, OCC_PK_CORE, 0,
                                 TOP, FIELD(default_grf), .min = 1, .max = COUNT_MAX,
                                 .doc_type = "int, one of the modes",
                                 .doc = "the mode used when a kernel names none"},
    [OCC_PK_CORE_MAX_WG_SIZE] = {"core.max_work_group_size", "max_work_group_size", OCC_KEY_COUNT,
                                 OCC_PK_CORE, 0, TOP, FIELD(max_work_group_size), .min = 1,
                                 .max = COUNT_MAX, .doc_type = "int > 0",
                                 .doc = "work-items per work-group"},
    [OCC_PK_CORE_MAX_WGS] = {"core.max_work_groups", "max_work_groups", OCC_KEY_COUNT, OCC_PK_CORE,
                             0, TOP, FIELD(max_work_groups_per_core), .min = 1, .max = COUNT_MAX,
                             .doc_type = "int > 0", .doc = "work-groups (blocks) per core"},
    [OCC_PK_CORE_BARRIERS] = {"core.barriers", "barriers", OCC_KEY_COUNT_OR_NONE, OCC_PK_CORE, 0,
                              TOP, FIELD(barriers_per_core), .min = 1, .max = COUNT_MAX,
                              .doc_type = "int > 0 or `none`",
                              .doc = "barrier-using work-groups per core (Intel calculator's figure; "
                                     "NVIDIA 9.0+: `2 * block slots`); `none`: barriers do not limit"},
    [OCC_PK_CORE_BARRIERS_DRIVER] = {"core.barriers_driver", "barriers_driver",
                                     OCC_KEY_COUNT_OR_NONE, OCC_PK_CORE, 0, TOP,
                                     FIELD(barriers_per_core_driver), .min = 1, .max = COUNT_MAX,
                                     .doc_type = "int > 0 or `none`",
                                     .doc = "the driver's figure for cooperative launches "
                                            "(compute-runtime: 32), which the cooperative maximum "
                                            "uses; shown beside `core.barriers`"},
    /* thread-block clusters (docs/clusters.md): all four or none (device.c) */
    [OCC_PK_CORE_GPC_SMS] = {"core.gpc_sms", "gpc_sms", OCC_KEY_COUNT_LIST, OCC_PK_CORE,
                             OCC_KEYF_OPTIONAL | OCC_KEYF_ANY_ORDER, TOP,
                             LIST(gpc_sms, n_gpcs, OCC_MAX_GPCS), .min_items = 0, .min = 1,
                             .max = COUNT_MAX, .items = "GPCs",
                             .doc_type = "list of int > 0, summing to `count`, optional",
                             .doc = "cores of each group that a thread-block cluster's work-groups "
                                    "share (NVIDIA: the GPCs, as the driver places clusters; "
                                    "`occcalc probe` measures them); absent: no cluster launches"},
    [OCC_PK_CORE_CLUSTER_MAX_WGS] = {"core.cluster_max_work_groups", "cluster_max_work_groups",
                                     OCC_KEY_COUNT, OCC_PK_CORE, OCC_KEYF_OPTIONAL, TOP,
                                     FIELD(cluster_max_work_groups), .min = 1, .max = COUNT_MAX,
                                     .doc_type = "int > 0, with `gpc_sms`",
                                     .doc = "work-groups per core a cluster launch holds at most, "
                                            "however many fit (H200: 8)"},
    [OCC_PK_CORE_CLUSTER_MAX_SIZE] = {"core.cluster_max_size", "cluster_max_size", OCC_KEY_COUNT,
                                      OCC_PK_CORE, OCC_KEYF_OPTIONAL, TOP, FIELD(cluster_max_size),
                                      .min = 1, .max = COUNT_MAX, .doc_type = "int > 0, with `gpc_sms`",
                                      .doc = "work-groups per cluster (CUDA's portable maximum: 8)"},
    [OCC_PK_CORE_CLUSTER_MAX_SIZE_NP] = {"core.cluster_max_size_non_portable",
                                         "cluster_max_size_non_portable", OCC_KEY_COUNT, OCC_PK_CORE,
                                         OCC_KEYF_OPTIONAL, TOP,
                                         FIELD(cluster_max_size_non_portable), .min = 1,
                                         .max = COUNT_MAX,
                                         .doc_type = "int >= `cluster_max_size`, with `gpc_sms`",
                                         .doc = "the same for a kernel that allows non-portable "
                                                "sizes (H200: 16)"},

    [OCC_PK_LM] = {.key = "local_memory", .name = "local_memory", .kind = OCC_KEY_SECTION,
                   .parent = TOP, .one_of = TOP},
    [OCC_PK_LM_NAME] = {"local_memory.name", "name", OCC_KEY_TEXT, OCC_PK_LM, 0, TOP,
                        FIELD(local_memory_name), .doc_type = "text",
                        .doc = "`SLM`, `shared memory`"},
    [OCC_PK_LM_PER_CORE] = {"local_memory.per_core", "per_core", OCC_KEY_BYTES, OCC_PK_LM, 0, TOP,
                            FIELD(slm_per_core), .min = 1, .max = BYTES_MAX,
                            .doc_type = "bytes > 0",
                            .doc = "allocatable local memory per core (NVIDIA: the largest carveout)"},
    [OCC_PK_LM_MAX_PER_WG] = {"local_memory.max_per_work_group", "max_per_work_group",
                              OCC_KEY_BYTES, OCC_PK_LM, 0, TOP, FIELD(slm_max_per_work_group),
                              .min = 1, .max = BYTES_MAX, .doc_type = "bytes > 0",
                              .doc = "per work-group maximum (NVIDIA: opt-in maximum per block)"},
    [OCC_PK_LM_RESERVED] = {"local_memory.reserved_per_work_group", "reserved_per_work_group",
                            OCC_KEY_BYTES, OCC_PK_LM, 0, TOP, FIELD(slm_reserved_per_work_group),
                            .min = 0, .max = BYTES_MAX, .doc_type = "bytes >= 0",
                            .doc = "added by the runtime to every work-group (NVIDIA 8.0+: 1 KB)"},
    [OCC_PK_LM_STEPS] = {"local_memory.steps", "steps", OCC_KEY_BYTES_LIST, OCC_PK_LM,
                         OCC_KEYF_OPTIONAL, OCC_PK_LM_GRANULE,
                         LIST(slm_steps, n_slm_steps, OCC_MAX_SLM_STEPS), .min_items = 0, .min = 1,
                         .max = BYTES_MAX, .items = "steps", .doc_type = "list of bytes, ascending",
                         .doc = "legal allocation sizes; a request is rounded **up** to the next "
                                "step. Exactly one of `steps` and `granule`"},
    [OCC_PK_LM_GRANULE] = {"local_memory.granule", "granule", OCC_KEY_BYTES, OCC_PK_LM,
                           OCC_KEYF_OPTIONAL, OCC_PK_LM_STEPS, FIELD(slm_granule), .min = 1,
                           .max = COUNT_MAX, .doc_type = "bytes > 0",
                           .doc = "allocation granule; a request (plus reserved) is rounded up to a "
                                  "multiple"},
    [OCC_PK_LM_CARVEOUTS] = {"local_memory.carveouts", "carveouts", OCC_KEY_BYTES_LIST, OCC_PK_LM,
                             OCC_KEYF_OR_NONE, TOP,
                             LIST(carveouts, n_carveouts, OCC_MAX_CARVEOUTS), .min_items = 0,
                             .min = 0, .max = BYTES_MAX, .items = "carveouts",
                             .doc_type = "list of bytes, ascending, last = `per_core`, or `none`",
                             .doc = "legal sizes of the core's local memory (NVIDIA carveout); "
                                    "`none`: fixed"},

    [OCC_PK_REGS] = {"registers", "registers", OCC_KEY_SECTION_OR_NONE, TOP, 0, TOP,
                     FIELD(has_register_file), .doc_type = "mapping or `none`",
                     .doc = "register file for devices that allocate registers per warp (NVIDIA); "
                            "`none` for Intel (GRF modes)"},
    [OCC_PK_REGS_PER_CORE] = {"registers.per_core", "per_core", OCC_KEY_COUNT, OCC_PK_REGS, 0, TOP,
                              FIELD(regs_per_core), .min = 1, .max = COUNT_MAX,
                              .doc_type = "int > 0", .doc = "registers per SM"},
    [OCC_PK_REGS_UNIT] = {"registers.allocation_unit", "allocation_unit", OCC_KEY_COUNT,
                          OCC_PK_REGS, 0, TOP, FIELD(reg_alloc_unit), .min = 1, .max = COUNT_MAX,
                          .doc_type = "int > 0",
                          .doc = "registers per warp are rounded up to this (256)"},
    [OCC_PK_REGS_WARP_GRANULARITY] = {"registers.warp_allocation_granularity",
                                      "warp_allocation_granularity", OCC_KEY_COUNT, OCC_PK_REGS, 0,
                                      TOP, FIELD(reg_warp_granularity), .min = 1, .max = COUNT_MAX,
                                      .doc_type = "int > 0",
                                      .doc = "warps of a block rounded up to this for the per-block "
                                             "cap (4)"},
    [OCC_PK_REGS_MAX_PER_THREAD] = {"registers.max_per_thread", "max_per_thread", OCC_KEY_COUNT,
                                    OCC_PK_REGS, 0, TOP, FIELD(reg_max_per_thread), .min = 1,
                                    .max = COUNT_MAX, .doc_type = "int > 0", .doc = "(255)"},
    [OCC_PK_REGS_MAX_PER_WG] = {"registers.max_per_work_group", "max_per_work_group", OCC_KEY_COUNT,
                                OCC_PK_REGS, 0, TOP, FIELD(reg_max_per_work_group), .min = 1,
                                .max = COUNT_MAX, .doc_type = "int > 0",
                                .doc = "registers per block (65536)"},
    [OCC_PK_REGS_PARTITIONS] = {"registers.partitions", "partitions", OCC_KEY_COUNT, OCC_PK_REGS, 0,
                                TOP, FIELD(reg_partitions), .min = 1, .max = COUNT_MAX,
                                .doc_type = "int > 0, divides `per_core`",
                                .doc = "sub-partitions the register file is split across (4)"},

    [OCC_PK_DISPATCH] = {.key = "dispatch", .name = "dispatch", .kind = OCC_KEY_SECTION,
                         .parent = TOP, .one_of = TOP},
    [OCC_PK_DISPATCH_ORDER] = {"dispatch.order", "order", OCC_KEY_WORD, OCC_PK_DISPATCH, 0, TOP,
                               FIELD(dispatch_order), .words = order_words, .values = order_values,
                               .doc_type = "`pack` or `spread`",
                               .doc = "how the timeline simulator assigns work-groups to cores: fill "
                                      "a core first, or breadth-first"},
    [OCC_PK_DISPATCH_PARTIAL] = {"dispatch.partial_work_groups", "partial_work_groups",
                                 OCC_KEY_BOOL, OCC_PK_DISPATCH, 0, TOP, FIELD(partial_dispatch),
                                 .doc_type = "bool",
                                 .doc = "whether a work-group's threads may be dispatched in parts "
                                        "when a core has too few free contexts; `true` means at "
                                        "launch only, refills stay whole (`docs/phases.md`)"},
    [OCC_PK_DISPATCH_EVIDENCE] = {"dispatch.evidence", "evidence", OCC_KEY_SIDE_TEXT,
                                  OCC_PK_DISPATCH, 0, TOP, 0, 1024, .doc_type = "text",
                                  .doc = "why the profile uses that policy"},
    /* dispatch timing (docs/phases.md "Dispatch timing"): the four intervals
     * and the evidence all or none, the three refinements after them optional
     * (cross-field rules of profile_yaml.c's after_read) */
    [OCC_PK_DISPATCH_REFILL_GAP] = {"dispatch.refill_gap_ns", "refill_gap_ns", OCC_KEY_NANOSECONDS,
                                    OCC_PK_DISPATCH, OCC_KEYF_OPTIONAL, TOP, FIELD(refill_gap_s),
                                    .min = 0, .max = 1000000000, .doc_type = "ns, optional",
                                    .doc = "dispatch timing (`docs/phases.md` \"Dispatch timing\"): a "
                                           "work-group's end to the start of the one that takes "
                                           "its slot"},
    [OCC_PK_DISPATCH_CORE_INTERVAL] = {"dispatch.core_interval_ns", "core_interval_ns",
                                       OCC_KEY_NANOSECONDS, OCC_PK_DISPATCH, OCC_KEYF_OPTIONAL, TOP,
                                       FIELD(core_interval_s), .min = 0, .max = 1000000000,
                                       .doc_type = "ns, optional",
                                       .doc = "least time between two refills on one core"},
    [OCC_PK_DISPATCH_CORE_INTERVAL_PER_CONTEXT] = {
        "dispatch.core_interval_per_context_ns", "core_interval_per_context_ns",
        OCC_KEY_NANOSECONDS, OCC_PK_DISPATCH, OCC_KEYF_OPTIONAL, TOP,
        FIELD(core_interval_per_context_s), .min = 0, .max = 1000000000,
        .doc_type = "ns, optional",
        .doc = "the same per thread context of the work-group (the larger of the two applies); "
               "at launch this one alone"},
    [OCC_PK_DISPATCH_GPU_INTERVAL] = {"dispatch.gpu_interval_ns", "gpu_interval_ns",
                                      OCC_KEY_NANOSECONDS, OCC_PK_DISPATCH, OCC_KEYF_OPTIONAL, TOP,
                                      FIELD(gpu_interval_s), .min = 0, .max = 1000000000,
                                      .doc_type = "ns, optional",
                                      .doc = "least time between two refills anywhere on the GPU, "
                                             "once a burst of `gpu_burst_work_groups` is spent"},
    [OCC_PK_DISPATCH_GPU_BURST] = {"dispatch.gpu_burst_work_groups", "gpu_burst_work_groups",
                                   OCC_KEY_COUNT, OCC_PK_DISPATCH, OCC_KEYF_OPTIONAL, TOP,
                                   FIELD(gpu_burst_work_groups), .min = 0, .max = 1u << 24,
                                   .doc_type = "integer, optional",
                                   .doc = "refills that may go out as fast as slots free before "
                                          "`gpu_interval_ns` spaces them (the dispatcher's burst); "
                                          "0 or absent: none"},
    [OCC_PK_DISPATCH_LAUNCH_INTERVAL] = {"dispatch.launch_interval_ns", "launch_interval_ns",
                                         OCC_KEY_NANOSECONDS, OCC_PK_DISPATCH, OCC_KEYF_OPTIONAL,
                                         TOP, FIELD(launch_interval_s), .min = 0,
                                         .max = 1000000000, .doc_type = "ns, optional",
                                         .doc = "at launch, least time between two work-group "
                                                "starts on an idle core (or "
                                                "`core_interval_per_context_ns` per context, the "
                                                "larger); 0 or absent: the per-context one alone"},
    [OCC_PK_DISPATCH_REFILL_GAP_DRAINED] = {
        "dispatch.refill_gap_drained_ns", "refill_gap_drained_ns", OCC_KEY_NANOSECONDS,
        OCC_PK_DISPATCH, OCC_KEYF_OPTIONAL, TOP, FIELD(refill_gap_drained_s), .min = 0,
        .max = 1000000000, .doc_type = "ns, optional",
        .doc = "when registers limit the residency, a core's freed slots are refilled only after "
               "its last work-group retired, this long after; 0 or absent: `refill_gap_ns` per "
               "slot"},
    [OCC_PK_DISPATCH_GPU_INTERVAL_PER_CONTEXT] = {
        "dispatch.gpu_interval_per_context_ns", "gpu_interval_per_context_ns", OCC_KEY_NANOSECONDS,
        OCC_PK_DISPATCH, OCC_KEYF_OPTIONAL, TOP, FIELD(gpu_interval_per_context_s), .min = 0,
        .max = 1000000000, .doc_type = "ns, optional",
        .doc = "the same per thread context of the work-group, when larger than "
               "`gpu_interval_ns`; 0 or absent: `gpu_interval_ns` alone"},
    [OCC_PK_DISPATCH_REFILL_PAUSE] = {
        "dispatch.refill_pause_ns", "refill_pause_ns", OCC_KEY_NANOSECONDS, OCC_PK_DISPATCH,
        OCC_KEYF_OPTIONAL, TOP, FIELD(refill_pause_s), .min = 0, .max = 1000000000,
        .doc_type = "ns, optional",
        .doc = "refills in reports (`docs/phases.md`): a core reports its freed slots in groups, "
               "the next no sooner than this after the last send of its group; 0 or absent: "
               "every freed slot is refilled on its own"},
    [OCC_PK_DISPATCH_REFILL_WINDOW] = {
        "dispatch.refill_window_ns", "refill_window_ns", OCC_KEY_NANOSECONDS, OCC_PK_DISPATCH,
        OCC_KEYF_OPTIONAL, TOP, FIELD(refill_window_s), .min = 0, .max = 1000000000,
        .doc_type = "ns, optional",
        .doc = "with `refill_pause_ns`: a group takes the slots that free within this of its "
               "opening; 0 or absent: those freed when it opens"},
    [OCC_PK_DISPATCH_REFILL_WINDOW_THREADS] = {
        "dispatch.refill_window_threads_ns", "refill_window_threads_ns", OCC_KEY_NANOSECONDS,
        OCC_PK_DISPATCH, OCC_KEYF_OPTIONAL, TOP, FIELD(refill_window_threads_s), .min = 0,
        .max = 1000000000, .doc_type = "ns, optional",
        .doc = "the same when thread contexts alone limit the residency (not the work-group "
               "slots); 0 or absent: 0"},
    [OCC_PK_DISPATCH_GPU_REPORT_PER_WORK_GROUP] = {
        "dispatch.gpu_report_per_work_group_ns", "gpu_report_per_work_group_ns",
        OCC_KEY_NANOSECONDS, OCC_PK_DISPATCH, OCC_KEYF_OPTIONAL, TOP,
        FIELD(gpu_report_per_work_group_s), .min = 0, .max = 1000000000,
        .doc_type = "ns, optional",
        .doc = "with `refill_pause_ns`: the dispatcher takes the cores' reports in one at a time, "
               "this long per slot reported; 0 or absent: at once"},
    [OCC_PK_DISPATCH_REFILL_GAP_SPREAD] = {
        "dispatch.refill_gap_spread_ns", "refill_gap_spread_ns", OCC_KEY_NANOSECONDS,
        OCC_PK_DISPATCH, OCC_KEYF_OPTIONAL, TOP, FIELD(refill_gap_spread_s), .min = 0,
        .max = 1000000000, .doc_type = "ns, optional",
        .doc = "with `refill_pause_ns`: the refill gap differs by pair of cores, spread evenly "
               "from `refill_gap_ns` - half this to `refill_gap_ns` + half this over the pairs; "
               "0 or absent: the same on every core"},
    [OCC_PK_DISPATCH_CORE_INTERVAL_THREADS] = {
        "dispatch.core_interval_threads_ns", "core_interval_threads_ns", OCC_KEY_NANOSECONDS,
        OCC_PK_DISPATCH, OCC_KEYF_OPTIONAL, TOP, FIELD(core_interval_threads_s), .min = 0,
        .max = 1000000000, .doc_type = "ns, optional",
        .doc = "with `refill_pause_ns`: `core_interval_ns` when thread contexts alone limit the "
               "residency (not the work-group slots; the per-context interval still applies); "
               "0 or absent: `core_interval_ns`"},
    [OCC_PK_DISPATCH_REFILL_PAUSE_FIRST] = {
        "dispatch.refill_pause_first_ns", "refill_pause_first_ns", OCC_KEY_NANOSECONDS,
        OCC_PK_DISPATCH, OCC_KEYF_OPTIONAL, TOP, FIELD(refill_pause_first_s), .min = 0,
        .max = 1000000000, .doc_type = "ns, optional",
        .doc = "with `refill_pause_ns`: when the work-group slots limit the residency, the "
               "pause after a core's first group after the launch; 0 or absent: "
               "`refill_pause_ns`"},
    [OCC_PK_DISPATCH_CORE_INTERVAL_SLOTS] = {
        "dispatch.core_interval_slots_ns", "core_interval_slots_ns", OCC_KEY_NANOSECONDS,
        OCC_PK_DISPATCH, OCC_KEYF_OPTIONAL, TOP, FIELD(core_interval_slots_s), .min = 0,
        .max = 1000000000, .doc_type = "ns, optional",
        .doc = "with `refill_pause_ns`: `core_interval_ns` when the work-group slots limit the "
               "residency (the per-context interval still applies); 0 or absent: "
               "`core_interval_ns`"},
    [OCC_PK_DISPATCH_GPU_BURST_SLOTS] = {
        "dispatch.gpu_burst_slots_work_groups", "gpu_burst_slots_work_groups", OCC_KEY_COUNT,
        OCC_PK_DISPATCH, OCC_KEYF_OPTIONAL, TOP, FIELD(gpu_burst_slots_work_groups), .min = 0,
        .max = 1u << 24, .doc_type = "integer, optional",
        .doc = "with `refill_pause_ns`: `gpu_burst_work_groups` when the work-group slots limit "
               "the residency; 0 or absent: `gpu_burst_work_groups`"},
    [OCC_PK_DISPATCH_SUB_PARTITION_HOLD] = {
        "dispatch.sub_partition_hold_ns", "sub_partition_hold_ns", OCC_KEY_NANOSECONDS,
        OCC_PK_DISPATCH, OCC_KEYF_OPTIONAL, TOP, FIELD(sub_partition_hold_s), .min = 0,
        .max = 1000000000, .doc_type = "ns, optional",
        .doc = "with `refill_pause_ns`: a work-group's thread contexts go to the core's "
               "sub-partitions (`registers.partitions`) in turn, from where the last one's ended; "
               "it starts once each of them has room, or this long after its refill gap on the "
               "opposite ones, and the core takes its next work-group once it has started; 0 or "
               "absent: no sub-partitions"},
    [OCC_PK_DISPATCH_TIMING_EVIDENCE] = {"dispatch.timing_evidence", "timing_evidence", OCC_KEY_TEXT,
                                         OCC_PK_DISPATCH, OCC_KEYF_OPTIONAL, TOP,
                                         FIELD(timing_evidence), .doc_type = "text, optional",
                                         .doc = "where the values come from"},
};

int occ__profile_key_find(const char *dotted)
{
    for (int i = 0; i < OCC_PK_COUNT; i++)
        if (strcmp(occ__profile_keys[i].key, dotted) == 0)
            return i;
    return OCC_PK_NONE;
}

uint64_t occ__field_get(const void *base, size_t offset, size_t size)
{
    const unsigned char *p = (const unsigned char *)base + offset;
    switch (size) {
    case 1: return *p != 0; /* a bool: any non-zero byte is true */
    case 4: { uint32_t v; memcpy(&v, p, 4); return v; }
    default: { uint64_t v; memcpy(&v, p, 8); return v; }
    }
}

void occ__field_set(void *base, size_t offset, size_t size, uint64_t value)
{
    unsigned char *p = (unsigned char *)base + offset;
    switch (size) {
    case 1: *(bool *)p = value != 0; break;
    case 4: { uint32_t v = (uint32_t)value; memcpy(p, &v, 4); break; }
    default: memcpy(p, &value, 8); break;
    }
}

const int occ__profile_timing_required[OCC__PROFILE_TIMING_REQUIRED] = {
    OCC_PK_DISPATCH_REFILL_GAP, OCC_PK_DISPATCH_CORE_INTERVAL,
    OCC_PK_DISPATCH_CORE_INTERVAL_PER_CONTEXT, OCC_PK_DISPATCH_GPU_INTERVAL,
    OCC_PK_DISPATCH_TIMING_EVIDENCE};

bool occ__profile_key_timing_required(int key)
{
    for (int i = 0; i < OCC__PROFILE_TIMING_REQUIRED; i++)
        if (occ__profile_timing_required[i] == key)
            return true;
    return false;
}

bool occ__profile_key_present(const occ_device_desc *d, int key)
{
    for (int k = key; k != OCC_PK_NONE; k = occ__profile_keys[k].parent)
        if (occ__profile_keys[k].kind == OCC_KEY_SECTION_OR_NONE &&
            !occ__field_get(d, occ__profile_keys[k].offset, occ__profile_keys[k].size))
            return false;
    return true;
}

/* A list's length and items: "needs 1 to 8 sizes", "steps must be positive",
 * "carveouts must ascend strictly". */
static occ_status check_list(const occ_profile_key *e, const occ_device_desc *d, occ_diag *diag)
{
    uint32_t n = (uint32_t)occ__field_get(d, e->count_offset, sizeof(uint32_t));
    if (n < e->min_items || n > e->max_items) {
        if (e->min_items)
            OCC__FAIL(diag, e->key, "needs %u to %u %s", e->min_items, e->max_items, e->items);
        OCC__FAIL(diag, e->key, "at most %u %s", e->max_items, e->items);
    }
    if (e->kind == OCC_KEY_MAP_LIST)
        return OCC_OK; /* items are mappings: their rules are cross-field ones */
    uint64_t prev = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t v = occ__field_get(d, e->offset + i * e->size, e->size);
        if (v < e->min)
            OCC__FAIL(diag, e->key, "%s must be positive", e->items);
        if (i && v <= prev && !(e->flags & OCC_KEYF_ANY_ORDER))
            OCC__FAIL(diag, e->key, "%s must ascend strictly", e->items);
        prev = v;
    }
    return OCC_OK;
}

occ_status occ__desc_check_fields(const occ_device_desc *d, occ_diag *diag)
{
    for (int k = 0; k < OCC_PK_COUNT; k++) {
        const occ_profile_key *e = &occ__profile_keys[k];
        if ((e->flags & OCC_KEYF_ITEM) || !occ__profile_key_present(d, k))
            continue;
        switch (e->kind) {
        case OCC_KEY_COUNT:
        case OCC_KEY_BYTES:
            /* an optional number is absent when zero (granule beside steps) */
            if (e->min && !(e->flags & OCC_KEYF_OPTIONAL) && !occ__field_get(d, e->offset, e->size))
                OCC__FAIL(diag, e->key, "must be positive");
            break;
        case OCC_KEY_COUNT_OR_NONE:
            if (!occ__field_get(d, e->offset, e->size))
                OCC__FAIL(diag, e->key, "must be positive or none");
            break;
        case OCC_KEY_COUNT_LIST:
        case OCC_KEY_BYTES_LIST:
        case OCC_KEY_MAP_LIST: {
            occ_status st = check_list(e, d, diag);
            if (st)
                return st;
            break;
        }
        case OCC_KEY_WORD: {
            if (e->size == 1)
                break; /* a bool holds one of its two words whatever it is */
            uint64_t v = occ__field_get(d, e->offset, e->size);
            char list[128] = "";
            for (int i = 0; e->words[i]; i++) {
                if ((uint64_t)e->values[i] == v)
                    break;
                strncat(list, !i ? "" : e->words[i + 1] ? ", " : " or ", sizeof list - strlen(list) - 1);
                strncat(list, e->words[i], sizeof list - strlen(list) - 1);
                if (!e->words[i + 1])
                    OCC__FAIL(diag, e->key, "must be %s", list);
            }
            break;
        }
        default:
            break;
        }
    }
    return OCC_OK;
}
