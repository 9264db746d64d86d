#include "svg.h"


#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void put_escaped(FILE *f, const char *t)
{
    for (; *t; t++) {
        switch (*t) {
        case '&':
            fputs("&amp;", f);
            break;
        case '<':
            fputs("&lt;", f);
            break;
        case '>':
            fputs("&gt;", f);
            break;
        case '"':
            fputs("&quot;", f);
            break;
        default:
            fputc(*t, f);
        }
    }
}

/* %.2f without a locale's decimal comma: printf's %f honours LC_NUMERIC, and
 * occcalc never calls setlocale, so the C locale is in force. */
#define N2 "%.2f"

void svg_begin(svg *s, FILE *f, double width, double height)
{
    s->f = f;
    s->width = width;
    s->height = height;
    fprintf(f,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" N2 "\" height=\"" N2
            "\" viewBox=\"0 0 " N2 " " N2 "\" font-family=\"DejaVu Sans, Arial, sans-serif\">\n",
            width, height, width, height);
    svg_rect(s, 0, 0, width, height, "#ffffff", NULL, 0);
}

void svg_end(svg *s) { fputs("</svg>\n", s->f); }

void svg_rect(svg *s, double x, double y, double w, double h, const char *fill, const char *stroke,
              double stroke_width)
{
    fprintf(s->f, "<rect x=\"" N2 "\" y=\"" N2 "\" width=\"" N2 "\" height=\"" N2 "\" fill=\"%s\"",
            x, y, w, h, fill);
    if (stroke)
        fprintf(s->f, " stroke=\"%s\" stroke-width=\"" N2 "\"", stroke, stroke_width);
    fputs("/>\n", s->f);
}

void svg_line(svg *s, double x1, double y1, double x2, double y2, const char *stroke, double width,
              bool dashed)
{
    fprintf(s->f,
            "<line x1=\"" N2 "\" y1=\"" N2 "\" x2=\"" N2 "\" y2=\"" N2 "\" stroke=\"%s\" "
            "stroke-width=\"" N2 "\"%s/>\n",
            x1, y1, x2, y2, stroke, width, dashed ? " stroke-dasharray=\"4 3\"" : "");
}

void svg_text(svg *s, double x, double y, const char *anchor, double size, const char *fill,
              bool bold, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    fprintf(s->f, "<text x=\"" N2 "\" y=\"" N2 "\" text-anchor=\"%s\" font-size=\"" N2
                  "\" fill=\"%s\"%s>",
            x, y, anchor, size, fill, bold ? " font-weight=\"bold\"" : "");
    put_escaped(s->f, buf);
    fputs("</text>\n", s->f);
}

void svg_polyline(svg *s, const double *xs, const double *ys, size_t n, const char *stroke,
                  double width, const char *fill)
{
    if (n == 0)
        return;
    fprintf(s->f, "<%s points=\"", fill && strcmp(fill, "none") ? "polygon" : "polyline");
    for (size_t i = 0; i < n; i++)
        fprintf(s->f, "%s" N2 "," N2, i ? " " : "", xs[i], ys[i]);
    fprintf(s->f, "\" fill=\"%s\" stroke=\"%s\" stroke-width=\"" N2 "\" stroke-linejoin=\"miter\"/>\n",
            fill ? fill : "none", stroke ? stroke : "none", width);
}

double svg_px(const svg_plot *p, double x)
{
    double span = p->x1 - p->x0;
    return p->x + (span > 0 ? (x - p->x0) / span : 0) * p->w;
}

double svg_py(const svg_plot *p, double y)
{
    double span = p->y1 - p->y0;
    return p->y + p->h - (span > 0 ? (y - p->y0) / span : 0) * p->h;
}

double svg_nice_step(double span, int about)
{
    if (!(span > 0) || about < 1)
        return 1;
    double raw = span / about;
    double mag = pow(10, floor(log10(raw)));
    double r = raw / mag;
    return (r < 1.5 ? 1 : r < 3.5 ? 2 : r < 7.5 ? 5 : 10) * mag;
}

void svg_fmt_num(char *buf, size_t size, double v, int digits)
{
    if (v == floor(v) && fabs(v) < 1e15) {
        snprintf(buf, size, "%.0f", v);
        return;
    }
    if (fabs(v) >= 1e15) {
        snprintf(buf, size, "%.*g", digits, v);
        return;
    }
    /* fixed notation with `digits` significant digits, trailing zeros dropped */
    int decimals = digits - 1 - (v != 0 ? (int)floor(log10(fabs(v))) : 0);
    if (decimals < 0)
        decimals = 0;
    if (decimals > 12)
        decimals = 12;
    snprintf(buf, size, "%.*f", decimals, v);
    char *dot = strchr(buf, '.');
    if (dot) {
        char *e = buf + strlen(buf) - 1;
        while (e > dot && *e == '0')
            *e-- = '\0';
        if (e == dot)
            *e = '\0';
    }
}

void svg_axes(svg *s, const svg_plot *p, const char *x_label, const char *y_label, int x_ticks,
              int y_ticks, double y_scale, const char *y_suffix)
{
    char num[64];
    if (y_ticks > 0) {
        double step = svg_nice_step(p->y1 - p->y0, y_ticks);
        for (double v = ceil(p->y0 / step) * step; v <= p->y1 + step * 1e-9; v += step) {
            double py = svg_py(p, v);
            svg_line(s, p->x, py, p->x + p->w, py, "#e0e0e0", 1, false);
            svg_fmt_num(num, sizeof num, v * y_scale, 4);
            svg_text(s, p->x - 6, py + 4, "end", 11, "#444444", false, "%s%s", num,
                     y_suffix ? y_suffix : "");
        }
    }
    if (x_ticks > 0) {
        double step = svg_nice_step(p->x1 - p->x0, x_ticks);
        for (double v = ceil(p->x0 / step) * step; v <= p->x1 + step * 1e-9; v += step) {
            double px = svg_px(p, v);
            svg_line(s, px, p->y + p->h, px, p->y + p->h + 4, "#444444", 1, false);
            svg_fmt_num(num, sizeof num, v, 4);
            svg_text(s, px, p->y + p->h + 16, "middle", 11, "#444444", false, "%s", num);
        }
    }
    svg_rect(s, p->x, p->y, p->w, p->h, "none", "#444444", 1);
    if (x_label)
        svg_text(s, p->x + p->w / 2, p->y + p->h + 32, "middle", 12, "#222222", false, "%s",
                 x_label);
    if (y_label) {
        double cx = p->x - 44, cy = p->y + p->h / 2;
        fprintf(s->f, "<g transform=\"rotate(-90 " N2 " " N2 ")\">\n", cx, cy);
        svg_text(s, cx, cy, "middle", 12, "#222222", false, "%s", y_label);
        fputs("</g>\n", s->f);
    }
}

void svg_steps(svg *s, const svg_plot *p, const double *edges, const double *ys, size_t n,
               const char *stroke, double width, const char *fill)
{
    if (n == 0)
        return;
    size_t m = 2 * n + 2;
    double *xs = malloc(m * sizeof *xs), *vs = malloc(m * sizeof *vs);
    if (!xs || !vs) {
        free(xs);
        free(vs);
        return;
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        xs[k] = svg_px(p, edges[i]);
        vs[k++] = svg_py(p, ys[i]);
        xs[k] = svg_px(p, edges[i + 1]);
        vs[k++] = svg_py(p, ys[i]);
    }
    if (fill) {
        xs[k] = svg_px(p, edges[n]);
        vs[k++] = svg_py(p, p->y0);
        xs[k] = svg_px(p, edges[0]);
        vs[k++] = svg_py(p, p->y0);
        svg_polyline(s, xs, vs, k, "none", 0, fill);
        k -= 2;
    }
    svg_polyline(s, xs, vs, k, stroke, width, "none");
    free(xs);
    free(vs);
}

