/* Charts of occupancy against an input: a terminal column chart (Unicode
 * blocks) and an SVG line chart.  Values are fractions 0..1; a point holds
 * from the previous x (exclusive) to its own x ("band tops", see
 * libocc/src/advise/advise_sweep.c), so lines are drawn as steps. */
#ifndef OCCCALC_CHART_H
#define OCCCALC_CHART_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CHART_MAX_SERIES 2

typedef struct chart_series {
    const char *name;  /* legend: "per core", "over the run" */
    const double *y;   /* fractions 0..1; NAN = no value at this point */
} chart_series;

typedef struct chart {
    const char *title;
    const char *x_label;
    const uint64_t *x; /* ascending */
    size_t n;
    chart_series series[CHART_MAX_SERIES];
    size_t n_series;
    bool have_mark;    /* a marker at mark_x: the kernel as given */
    uint64_t mark_x;
} chart;

/* Column chart, height rows, at most width columns (points resampled by
 * taking the lowest value in each column).  First series only. */
void chart_term(FILE *f, const chart *c, int height, int width);

/* The SVG document, written to f.  Returns 0 or an errno value. */
int chart_svg(FILE *f, const chart *c);

#endif
