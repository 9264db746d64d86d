/* A small SVG writer for occcalc's pictures: shapes, text, plot areas with
 * axes and nice ticks, step series (outfile.h writes the file).  Numbers
 * are written in the C locale; text is escaped. */
#ifndef OCCCALC_SVG_H
#define OCCCALC_SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct svg {
    FILE *f;
    double width, height;
} svg;

/* Header (with a white background and a default font); svg_end closes it. */
void svg_begin(svg *s, FILE *f, double width, double height);
void svg_end(svg *s);

/* stroke may be NULL (none); fill may be "none". */
void svg_rect(svg *s, double x, double y, double w, double h, const char *fill, const char *stroke,
              double stroke_width);
void svg_line(svg *s, double x1, double y1, double x2, double y2, const char *stroke, double width,
              bool dashed);
/* anchor: "start", "middle" or "end"; printf-style text, escaped. */
void svg_text(svg *s, double x, double y, const char *anchor, double size, const char *fill,
              bool bold, const char *fmt, ...) __attribute__((format(printf, 8, 9)));
/* Open polyline (fill "none") or closed polygon (fill set). */
void svg_polyline(svg *s, const double *xs, const double *ys, size_t n, const char *stroke,
                  double width, const char *fill);

/* A plot area in pixels and the data range it shows. */
typedef struct svg_plot {
    double x, y, w, h;    /* pixels: top-left corner and size */
    double x0, x1, y0, y1;/* data range; y grows upwards */
} svg_plot;

double svg_px(const svg_plot *p, double x);
double svg_py(const svg_plot *p, double y);

/* A "nice" tick step (1, 2 or 5 x 10^k) giving about `about` ticks over span. */
double svg_nice_step(double span, int about);

/* Frame, grid lines and tick labels.  y labels are value * y_scale printed
 * with y_suffix ("%" for fractions with y_scale 100); either label may be NULL. */
void svg_axes(svg *s, const svg_plot *p, const char *x_label, const char *y_label, int x_ticks,
              int y_ticks, double y_scale, const char *y_suffix);

/* A step series: value ys[i] holds from xs[i] to xs[i + 1] (n values, n + 1
 * x edges), drawn as a line and, if fill is not NULL, filled down to y0. */
void svg_steps(svg *s, const svg_plot *p, const double *edges, const double *ys, size_t n,
               const char *stroke, double width, const char *fill);

/* Shortest text for a number: integers without decimals, others with up to
 * `digits` significant digits, never exponents below 1e15. */
void svg_fmt_num(char *buf, size_t size, double v, int digits);

#endif
