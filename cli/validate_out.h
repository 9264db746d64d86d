/* occcalc validate's results and their renderings (text, JSON, SVG). */
#ifndef OCCCALC_VALIDATE_OUT_H
#define OCCCALC_VALIDATE_OUT_H

#include <stdio.h>

#include "occ/backend.h"

/* The library's report (occ_validation_analyse) and where it came from. */
typedef struct validation {
    const char *source;           /* "cuda device 0" or the replayed file */
    occ_validation a;
} validation;

void validation_print_text(FILE *f, const validation *v);
void validation_print_json(FILE *f, const validation *v);
/* Measured and predicted occupancy over time, and the measured per-core lanes. */
bool validation_write_svg(FILE *f, void *validation);

#endif
