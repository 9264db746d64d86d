/* SVG chart of occupancy against an input, on the shared SVG writer
 * (svg.h): step lines (a value holds from the previous x to its own), a
 * dashed marker at the kernel's own value, a legend for two series. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "chart.h"
#include "svg.h"

static const char *const colours[CHART_MAX_SERIES] = {"#1f6fb4", "#d9661f"};

/* The run of points [a, b) as steps; the first band starts one spacing
 * before its point (or at it, for x = 0). */
static void run(svg *s, const svg_plot *p, const chart *c, const double *y, size_t a, size_t b,
                const char *colour)
{
    size_t n = b - a;
    double *edges = malloc((n + 1) * sizeof *edges);
    if (!edges)
        return;
    for (size_t i = 0; i < n; i++) {
        size_t j = a + i;
        double prev = j ? (double)c->x[j - 1]
                        : (c->n > 1 && c->x[0] >= c->x[1] - c->x[0] ? (double)(2 * c->x[0] - c->x[1])
                                                                    : (double)c->x[0]);
        if (i == 0)
            edges[0] = prev;
        edges[i + 1] = (double)c->x[j];
    }
    svg_steps(s, p, edges, y + a, n, colour, 2, NULL);
    free(edges);
}

static int draw(FILE *f, void *user)
{
    const chart *c = user;
    svg s;
    svg_begin(&s, f, 720, 400);
    svg_plot p = {.x = 70, .y = 48, .w = 620, .h = 290, .y0 = 0, .y1 = 1};
    p.x0 = c->n > 1 && c->x[0] >= c->x[1] - c->x[0] ? (double)(2 * c->x[0] - c->x[1]) : (double)c->x[0];
    if (c->x[0] == 0)
        p.x0 = 0;
    p.x1 = (double)c->x[c->n - 1];
    if (p.x1 <= p.x0)
        p.x0 -= 1, p.x1 += 1;
    if (c->title)
        svg_text(&s, 360, 26, "middle", 14, "#222222", true, "%s", c->title);
    svg_axes(&s, &p, c->x_label, "occupancy", 8, 4, 100, " %");
    for (size_t k = 0; k < c->n_series; k++) {
        const double *y = c->series[k].y;
        for (size_t i = 0; i < c->n;) {
            while (i < c->n && isnan(y[i]))
                i++;
            size_t j = i;
            while (j < c->n && !isnan(y[j]))
                j++;
            if (j > i)
                run(&s, &p, c, y, i, j, colours[k]);
            i = j;
        }
        if (c->n_series > 1) { /* legend in the top margin, left */
            double lx = p.x + 130 * (double)k, ly = p.y - 10;
            svg_line(&s, lx, ly, lx + 24, ly, colours[k], 2, false);
            svg_text(&s, lx + 30, ly + 4, "start", 11, "#222222", false, "%s",
                     c->series[k].name ? c->series[k].name : "");
        }
    }
    if (c->have_mark && (double)c->mark_x >= p.x0 && (double)c->mark_x <= p.x1) {
        double X = svg_px(&p, (double)c->mark_x);
        svg_line(&s, X, p.y, X, p.y + p.h, "#c0392b", 1, true);
        bool right = X > p.x + p.w - 110; /* label inside the plot, beside the line */
        svg_text(&s, right ? X - 4 : X + 4, p.y + 14, right ? "end" : "start", 11, "#c0392b", false,
                 "as given: %llu", (unsigned long long)c->mark_x);
    }
    svg_end(&s);
    return ferror(f) ? EIO : 0;
}

int chart_svg(FILE *f, const chart *c)
{
    if (!c->n || !c->n_series)
        return EINVAL;
    return draw(f, (void *)c);
}
