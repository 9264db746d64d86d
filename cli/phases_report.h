/* Renderings of a dispatch-phases timeline (occ/timeline.h): a compact text
 * table with a bar per phase, per-core lanes, JSON members and an SVG picture.
 * Shared by `occcalc phases` and the phases section of `occcalc [calc]`. */
#ifndef OCCCALC_PHASES_REPORT_H
#define OCCCALC_PHASES_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "doc.h"
#include "occ/timeline.h"

/* The phases table, one row per phase with a bar of occupancy.  With
 * max_rows > 0 and more phases than that, the first and last rows are shown
 * around a "... n more ..." line. */
void phases_table_text(FILE *f, const occ_timeline *t, size_t max_rows);
/* Per-core busy contexts (and work-groups) for every phase. */
void phases_lanes_text(FILE *f, const occ_device *dev, const occ_timeline *t);
/* "Average 28.6 % over [0, 2]; peak ..." */
void phases_summary_text(FILE *f, const occ_device *dev, const occ_timeline *t);

/* "pack", "spread" */
const char *phases_order_name(occ_dispatch_order o);
/* "at launch", "no", "always" (for text) */
const char *phases_partial_text(occ_partial_policy p);

/* JSON: "timeline": {summary} and "phases": [...] (null when not stored). */
/* time_unit: "work_group_duration", or "input" for durations from a file. */
void phases_timeline_doc(doc *j, const occ_timeline *t, const char *time_unit);
/* The phases as a list; with table, as the document's table (CSV rows, JSON
 * Lines), built row by row when rendered from *table, which must live until
 * then (t with it). */
typedef struct phase_rows_ctx {
    const occ_timeline *t;
    bool lanes;
} phase_rows_ctx;
void phases_array_doc(doc *j, const occ_timeline *t, bool lanes, phase_rows_ctx *table);

/* The picture, an SVG document written to f: total occupancy over time
 * above per-core lanes.  title may be NULL.  Returns 0 or an errno value. */
int phases_svg(FILE *f, const occ_device *dev, const occ_timeline *t, const char *title,
               const char *subtitle);

/* The phases section of `occcalc [calc]` for a --groups/--global run with
 * the profile's policies and equal durations. */
void phases_calc_text(FILE *f, const occ_device *dev, const occ_kernel *k, const occ_gpu *g);
void phases_calc_doc(doc *j, const occ_device *dev, const occ_kernel *k, uint64_t groups);

#endif
