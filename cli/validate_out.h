/* occcalc validate's results and their renderings (text, the result document, SVG). */
#ifndef OCCCALC_VALIDATE_OUT_H
#define OCCCALC_VALIDATE_OUT_H

#include <stdio.h>

#include "occ/backend.h"
#include "render.h"

/* The library's report (occ_validation_analyse) and where it came from. */
typedef struct validation {
    const char *source;           /* "cuda device 0" or the replayed file */
    occ_validation a;
} validation;

void validation_print_text(FILE *f, const validation *v);
/* The result as a document, written in format; EXIT_OK or EXIT_INTERNAL. */
int validation_print_doc(const validation *v, out_format format);
/* Measured and predicted occupancy over time, and the measured per-core lanes. */
bool validation_write_svg(FILE *f, void *validation);

#endif
