/* Runs of equal GPU-time records as one line (trace_time.h). */
#include "trace_time.h"

#include <string.h>

#include "trace_rec.h"

void trace_time_flush(trace_time_run *run)
{
    if (!run->count)
        return;
    char field[TRACE_LINE_MAX - 200];
    trace_field(field, sizeof field, run->name ? run->name : "?");
    trace_line("T %llu count=%llu wg=%d,%d,%d groups=%d,%d,%d dyn=%d name=%s", run->ns, run->count,
               run->wg[0], run->wg[1], run->wg[2], run->groups[0], run->groups[1], run->groups[2],
               run->dyn, field);
    run->count = 0;
    run->ns = 0;
    run->name = NULL;
}

void trace_time_add(trace_time_run *run, const char *name, const int wg[3], const int groups[3],
                    int dyn, unsigned long long ns)
{
    if (!name)
        name = "?";
    if (run->count && (strcmp(run->name, name) != 0 || memcmp(run->wg, wg, sizeof run->wg) != 0 ||
                       memcmp(run->groups, groups, sizeof run->groups) != 0 || run->dyn != dyn))
        trace_time_flush(run);
    if (!run->count) {
        run->name = name;
        memcpy(run->wg, wg, sizeof run->wg);
        memcpy(run->groups, groups, sizeof run->groups);
        run->dyn = dyn;
    }
    run->ns += ns;
    run->count++;
}
