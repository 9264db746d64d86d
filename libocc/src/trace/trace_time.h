/* GPU-time records (CUDA's CUPTI activity): consecutive executions of the
 * same kernel configuration in one activity buffer become one "T" line with
 * their count and summed time, so a launch loop does not write a line per
 * kernel.  Kept apart from trace_cuda.c so that it is tested without CUDA. */
#ifndef OCC_TRACE_TIME_H
#define OCC_TRACE_TIME_H

typedef struct trace_time_run {
    const char *name;       /* NULL: empty */
    int wg[3], groups[3], dyn;
    unsigned long long ns;  /* summed */
    unsigned long long count;
} trace_time_run;

/* Add one execution; writes the previous run's line when this one differs. */
void trace_time_add(trace_time_run *run, const char *name, const int wg[3], const int groups[3],
                    int dyn, unsigned long long ns);
/* Write the pending run's line (at the end of a buffer). */
void trace_time_flush(trace_time_run *run);

#endif
