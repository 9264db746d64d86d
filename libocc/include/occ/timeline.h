/*
 * libocc timelines: occupancy over time as work-groups are dispatched, run and
 * retire.  The same type holds a predicted timeline (the dispatch simulator
 * below) and a measured one (reconstructed from a backend's records), so the
 * two can be compared phase by phase.
 *
 * The dispatch simulator (docs/phases.md has the model and its evidence):
 *  - Work-groups are dispatched in order (0, 1, 2, ...); when the next one
 *    cannot be placed, dispatch waits until something retires, and slots are
 *    refilled as work-groups retire.
 *  - Order policy: PACK gives the next work-group to the lowest-numbered core
 *    that can take it; SPREAD to the core with the fewest busy thread contexts
 *    (ties: the lowest-numbered), breadth-first across cores.
 *  - Every work-group takes one work-group slot and its local memory, barrier
 *    and registers on one core when it is admitted; a core admits at most
 *    min(limits other than thread contexts) work-groups (occ_residency).
 *  - Whole dispatch: a core admits a work-group only when it has all of its
 *    thread contexts free.  Partial dispatch: a core with at least one free
 *    context admits it and the rest of its threads wait, bound to that core,
 *    for contexts there; they are served before any later work-group, and a
 *    core starts no new work-group while one of its own waits.  Partial
 *    dispatch thus only uses contexts that the whole-work-group rule leaves
 *    idle: whole work-groups on a core never exceed occ_residency.resident_wgs.
 *  - When: OCC_PARTIAL_LAUNCH (a profile's partial_work_groups: true) splits
 *    only work-groups dispatched at launch (time 0, each core's first fill);
 *    refills are whole, so the steady state is the whole-work-group rule of
 *    occ_residency.  OCC_PARTIAL_ALWAYS splits refills too (a what-if: steady
 *    state then fills every context).
 *  - Without a barrier, each dispatched part of a work-group runs for the
 *    work-group's duration from its own dispatch.  With a barrier, dispatched
 *    threads wait at the barrier (holding their contexts) until the last part
 *    arrives; then all run, and all retire together, one duration after the
 *    last part was dispatched (wherever the barrier is in the kernel).
 *    OCC_BARRIER_SPLIT_NEVER instead dispatches a barrier kernel's
 *    work-groups whole only (a what-if; no profile uses it).
 *
 * Phases: the simulator merges adjacent intervals in which every core has the
 * same busy thread contexts (what an occupancy trace shows; OCC_MERGE_NONE
 * gives one phase per dispatch/retire instant instead).
 */
#ifndef OCC_TIMELINE_H
#define OCC_TIMELINE_H

#include "occ/occ.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Partial dispatch policy (see above). */
typedef enum occ_partial_policy {
    OCC_PARTIAL_DEVICE = 0, /* the profile's dispatch.partial_work_groups:
                               true = LAUNCH, false = NO */
    OCC_PARTIAL_NO,         /* whole work-groups only */
    OCC_PARTIAL_LAUNCH,     /* split work-groups dispatched at launch */
    OCC_PARTIAL_ALWAYS      /* split refills too */
} occ_partial_policy;

OCC_API const char *occ_partial_policy_name(occ_partial_policy p); /* "no", "launch", "always" */

/* An interval of the run: see "Phases" above. */
typedef struct occ_phase {
    double start, end;         /* time; units of one work-group's duration for
                                  predictions, seconds for measurements */
    uint64_t work_groups;      /* work-groups resident (wholly or partly
                                  dispatched); the most at any one time when
                                  merged intervals differ */
    uint64_t thread_contexts;  /* busy thread contexts on the whole GPU (threads
                                  waiting at a barrier count as busy) */
    double occupancy;          /* thread_contexts / timeline.contexts_total */
    uint32_t cores_busy;       /* cores with at least one busy context */
} occ_phase;

typedef struct occ_timeline {
    uint32_t struct_size;
    uint32_t cores;
    uint64_t contexts_total;   /* thread contexts of the whole GPU */
    uint64_t work_groups;      /* work-groups the run dispatched */
    size_t n_phases;           /* with OCC_ERR_TOO_LARGE or summary_only: the
                                  number of phases the run has, none stored */
    occ_phase *phases;
    /* Per-core lanes, n_phases x cores row-major (phase i, core c at
     * [i * cores + c]); NULL when the caller did not ask for lanes. */
    uint32_t *core_contexts;
    uint32_t *core_work_groups;
    double average_occupancy;  /* time-weighted over [phases[0].start, end] */

    /* Filled by the simulator (zero elsewhere unless said otherwise). */
    double start, end;         /* the run: phases cover [start, end] without gaps */
    double busy_context_time;  /* integral of busy contexts over time */
    uint64_t peak_thread_contexts;
    uint32_t peak_core_work_groups; /* most work-groups on one core at once */
    uint32_t contexts_per_core;
    uint32_t contexts_per_work_group;
    uint32_t resident_work_groups;  /* whole-work-group rule per core (occ_residency) */
    uint32_t admit_limit;           /* work-groups a core admits (slots, local
                                       memory, barriers, registers) */
    occ_dispatch_order order;       /* the policies used (never DEVICE) */
    occ_partial_policy partial;
    bool barrier;
    bool extrapolated;              /* equal durations: a repeating stretch was
                                       computed once and repeated */
} occ_timeline;

OCC_API void occ_timeline_init(occ_timeline *t);
OCC_API void occ_timeline_free(occ_timeline *t); /* frees the arrays, keeps the struct */

/* ---- the dispatch simulator ---------------------------------------------- */

/* How long each work-group runs. */
typedef enum occ_duration_kind {
    OCC_DURATIONS_EQUAL = 0, /* every work-group lasts 1 */
    OCC_DURATIONS_LIST,      /* values[i % n_values]: in dispatch order, cycled */
    OCC_DURATIONS_UNIFORM,   /* uniform on [a, b], 0 < a <= b */
    OCC_DURATIONS_NORMAL     /* normal with mean a > 0 and standard deviation
                                b >= 0; draws <= 0 are drawn again */
} occ_duration_kind;

typedef struct occ_durations {
    occ_duration_kind kind;
    const double *values;    /* LIST: positive and finite; not copied */
    size_t n_values;
    double a, b;             /* UNIFORM, NORMAL parameters */
    uint64_t seed;           /* UNIFORM, NORMAL: the same seed, the same durations */
} occ_durations;

/* Check a duration model (OCC_ERR_VALUE with diag naming the bad value). */
OCC_API occ_status occ_durations_check(const occ_durations *d, occ_diag *diag);
/* The duration of work-group i under a (checked) model: what the simulator uses. */
OCC_API double occ_duration_of(const occ_durations *d, uint64_t work_group);

/* What a barrier does to partial dispatch. */
typedef enum occ_barrier_split {
    OCC_BARRIER_SPLIT_WAIT = 0, /* parts of a barrier kernel's work-group may be
                                   dispatched; they wait at the barrier (the guide) */
    OCC_BARRIER_SPLIT_NEVER     /* a barrier kernel's work-groups are dispatched whole */
} occ_barrier_split;

typedef enum occ_merge {
    OCC_MERGE_SAME_CONTEXTS = 0, /* one phase while every core's busy contexts stay the same */
    OCC_MERGE_NONE               /* a new phase at every dispatch/retire instant */
} occ_merge;

/* Threads of one work-group dispatched together to one core (trace). */
typedef struct occ_chunk {
    uint64_t work_group;
    uint32_t core;
    uint32_t contexts;  /* threads (thread contexts) of this part */
    double dispatch;    /* the threads get their contexts */
    double run;         /* they start running: dispatch, or the barrier's release */
    double end;         /* they retire and free their contexts */
} occ_chunk;

typedef void (*occ_trace_fn)(void *user, const occ_chunk *chunk);

#define OCC_TIMELINE_DEFAULT_MAX_PHASES 100000
#define OCC_TIMELINE_MAX_WORK_GROUPS (1ull << 53) /* times are doubles */

typedef struct occ_sim_options {
    uint32_t struct_size;
    occ_dispatch_order order;   /* 0: the profile's dispatch.order */
    occ_partial_policy partial;
    occ_barrier_split barrier_split; /* default WAIT */
    occ_durations durations;    /* default: equal */
    occ_merge merge;
    bool lanes;                 /* fill core_contexts / core_work_groups */
    bool summary_only;          /* count phases and fill the summary; store none */
    size_t max_phases;          /* more phases than this: OCC_ERR_TOO_LARGE; 0 = default */
    bool force_events;          /* simulate equal durations work-group by work-group
                                   too (tests and benchmarks) */
    occ_trace_fn trace;         /* called once per chunk, in no particular order;
                                   implies force_events */
    void *trace_user;
    /* Seconds per duration unit (the work-group duration of equal durations).
     * 0 (default): dispatch takes no time.  > 0 with a device that has dispatch
     * timing (occ_device_has_timing) and whole-work-group dispatch: the launch
     * ramp and the refill gaps are simulated (docs/phases.md "Dispatch
     * timing"; at most OCC_TIMED_MAX_WORK_GROUPS work-groups, all phases
     * stored: max_phases and summary_only do not apply). */
    double time_unit_s;
} occ_sim_options;

#define OCC_TIMED_MAX_WORK_GROUPS (1ull << 24)

OCC_API void occ_sim_options_init(occ_sim_options *o);

/*
 * Simulate work_groups work-groups of kernel k on dev and write the timeline
 * (out is overwritten; occ_timeline_free it afterwards, whatever the status).
 * opts may be NULL (defaults).  Equal durations take time proportional to the
 * length of the run's repeating pattern, not to work_groups; other durations
 * go through an event queue, work-group by work-group.
 * Errors: OCC_ERR_INVALID_ARGUMENT (NULL, bad struct_size, bad policy value),
 * OCC_ERR_VALUE (zero or more than OCC_TIMELINE_MAX_WORK_GROUPS work-groups, bad
 * durations; diag says which),
 * OCC_ERR_UNSUPPORTED (the kernel cannot launch; diag has the reason),
 * OCC_ERR_TOO_LARGE (more than max_phases phases: out has the summary and
 * n_phases, no phases), OCC_ERR_NO_MEMORY.
 */
OCC_API occ_status occ_timeline_simulate(const occ_device *dev, const occ_kernel *k,
                                         uint64_t work_groups, const occ_sim_options *opts,
                                         occ_timeline *out, occ_diag *diag);

/*
 * A timeline from intervals during which threads held contexts on a core
 * (measured records, or a simulator trace): chunk.dispatch to chunk.end holds
 * chunk.contexts contexts on chunk.core; a work-group is resident on its core
 * from its first dispatch to its last end.  Phases merge as the simulator's do
 * (merge), so a trace of the simulator rebuilds its timeline.
 * OCC_ERR_VALUE for an interval with end < dispatch, a core >= cores, or
 * contexts that exceed contexts_per_core on a core (diag says which).
 */
OCC_API occ_status occ_timeline_from_chunks(const occ_chunk *chunks, size_t n, uint32_t cores,
                                            uint32_t contexts_per_core, occ_merge merge,
                                            bool lanes, occ_timeline *out, occ_diag *diag);

#ifdef __cplusplus
}
#endif
#endif /* OCC_TIMELINE_H */
