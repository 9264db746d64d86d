/*
 * libocc timelines: occupancy over time as work-groups are dispatched, run and
 * retire.  The same type holds a predicted timeline (the dispatch simulator)
 * and a measured one (reconstructed from a backend's records), so the two can
 * be compared phase by phase.
 */
#ifndef OCC_TIMELINE_H
#define OCC_TIMELINE_H

#include "occ/occ.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An interval during which nothing is dispatched or retired. */
typedef struct occ_phase {
    double start, end;         /* time; units of one work-group's duration for
                                  predictions, seconds for measurements */
    uint64_t work_groups;      /* work-groups resident (wholly or partly dispatched) */
    uint64_t thread_contexts;  /* busy thread contexts on the whole GPU */
    double occupancy;          /* thread_contexts / timeline.contexts_total */
    uint32_t cores_busy;       /* cores with at least one busy context */
} occ_phase;

typedef struct occ_timeline {
    uint32_t struct_size;
    uint32_t cores;
    uint64_t contexts_total;   /* thread contexts of the whole GPU */
    uint64_t work_groups;      /* work-groups the run dispatched */
    size_t n_phases;
    occ_phase *phases;
    /* Per-core lanes, n_phases x cores row-major (phase i, core c at
     * [i * cores + c]); NULL when the caller did not ask for lanes. */
    uint32_t *core_contexts;
    uint32_t *core_work_groups;
    double average_occupancy;  /* time-weighted over [phases[0].start, end] */
} occ_timeline;

OCC_API void occ_timeline_init(occ_timeline *t);
OCC_API void occ_timeline_free(occ_timeline *t); /* frees the arrays, keeps the struct */

#ifdef __cplusplus
}
#endif
#endif /* OCC_TIMELINE_H */
