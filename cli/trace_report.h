/* occcalc trace: a trace (occ/trace.h: records read, aggregated per kernel
 * and launch configuration, predicted) written as text, JSON or CSV
 * (docs/trace.md).  Rendering only: every number comes from the library. */
#ifndef OCCCALC_TRACE_REPORT_H
#define OCCCALC_TRACE_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "occ/trace.h"

typedef enum tr_format { TR_TEXT, TR_JSON, TR_JSONL, TR_CSV } tr_format;

typedef struct tr_program {
    char *const *argv;    /* the traced command; NULL for --replay */
    const char *replay;   /* the directory replayed, or NULL */
    bool exited;          /* false: killed by a signal, or not run */
    int status;           /* exit status, or the signal number */
    bool signaled;
} tr_program;

typedef struct tr_options {
    tr_format format;
    bool launches;        /* --launches: every launch, not only per configuration */
} tr_options;

/* Write the report; false when a write failed. */
bool tr_report_write(const occ_trace *t, const tr_options *o, const tr_program *p, FILE *f);

#endif
