/* Terminal column chart: one column per point (or per group of points), the
 * height in eighths of a row with U+2581..U+2588. */
#include <math.h>
#include <string.h>

#include "chart.h"

static const char *const eighths[9] = {" ", "\u2581", "\u2582", "\u2583", "\u2584",
                                       "\u2585", "\u2586", "\u2587", "\u2588"};

void chart_term(FILE *f, const chart *c, int height, int width)
{
    if (!c->n || !c->n_series)
        return;
    if (height < 2)
        height = 2;
    if (width < 8)
        width = 8;
    size_t cols = c->n < (size_t)width ? c->n : (size_t)width;
    double col[512];
    size_t mark_col = SIZE_MAX;
    if (cols > sizeof col / sizeof col[0])
        cols = sizeof col / sizeof col[0];
    for (size_t i = 0; i < cols; i++) {
        size_t a = i * c->n / cols, b = (i + 1) * c->n / cols;
        double lo = INFINITY;
        for (size_t j = a; j < b; j++) {
            double y = c->series[0].y[j];
            if (!isnan(y) && y < lo)
                lo = y;
            if (c->have_mark && c->x[j] >= c->mark_x && (j == 0 || c->x[j - 1] < c->mark_x))
                mark_col = i;
        }
        col[i] = isinf(lo) ? NAN : lo;
    }
    if (c->title)
        fprintf(f, "%s\n", c->title);
    for (int row = height; row >= 1; row--) {
        if (row == height)
            fputs(" 100 % \u2524", f);
        else if (row == (height + 1) / 2)
            fputs("  50 % \u2524", f);
        else
            fputs("       \u2502", f);
        for (size_t i = 0; i < cols; i++) {
            if (isnan(col[i])) {
                fputc(' ', f);
                continue;
            }
            /* eighths filled in this row */
            double level = col[i] * height * 8.0 - (row - 1) * 8.0;
            int e = level >= 8 ? 8 : level <= 0 ? 0 : (int)lround(level);
            if (e == 0 && row == 1 && col[i] > 0)
                e = 1; /* never hide a non-zero value */
            fputs(eighths[e], f);
        }
        fputc('\n', f);
    }
    fputs("    0 % \u2514", f);
    for (size_t i = 0; i < cols; i++)
        fputs(i == mark_col ? "\u25b2" : "\u2500", f);
    fputc('\n', f);
    char first[32], last[32];
    snprintf(first, sizeof first, "%llu", (unsigned long long)c->x[0]);
    snprintf(last, sizeof last, "%llu", (unsigned long long)c->x[c->n - 1]);
    int pad = (int)cols - (int)strlen(first) - (int)strlen(last);
    fprintf(f, "        %s%*s%s\n", first, pad > 1 ? pad : 1, "", last);
    fprintf(f, "        %s", c->x_label ? c->x_label : "");
    if (cols < c->n)
        fprintf(f, " (%zu points in %zu columns, lowest shown)", c->n, cols);
    if (mark_col != SIZE_MAX)
        fprintf(f, "; \u25b2 = %llu", (unsigned long long)c->mark_x);
    fputc('\n', f);
}
