/* occcalc trace: the launch records aggregated per kernel and per launch
 * configuration, predicted with libocc's model, and written as text, JSON
 * or CSV (docs/trace.md). */
#ifndef OCCCALC_TRACE_REPORT_H
#define OCCCALC_TRACE_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "occ/occ.h"
#include "trace_data.h"

typedef enum tr_format { TR_TEXT, TR_JSON, TR_CSV } tr_format;

typedef struct tr_program {
    char *const *argv;    /* the traced command; NULL for --replay */
    const char *replay;   /* the directory replayed, or NULL */
    bool exited;          /* false: killed by a signal, or not run */
    int status;           /* exit status, or the signal number */
    bool signaled;
} tr_program;

typedef struct tr_options {
    const char *device;   /* --device; NULL = chosen per traced device */
    tr_format format;
    bool launches;        /* --launches: every launch, not only per configuration */
} tr_options;

typedef struct tr_report tr_report;

/* Aggregate and predict.  Returns 0, EXIT_INPUT when --device cannot be
 * opened (message printed), or EXIT_INTERNAL (out of memory). */
int tr_report_build(const tr_data *d, const tr_options *o, tr_report **out);
/* Write it; false when a write failed. */
bool tr_report_write(const tr_report *r, const tr_program *p, FILE *f);
void tr_report_free(tr_report *r);

#endif
