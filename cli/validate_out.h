/* occcalc validate's results and their renderings (text, JSON, SVG). */
#ifndef OCCCALC_VALIDATE_OUT_H
#define OCCCALC_VALIDATE_OUT_H

#include <stdio.h>

#include "occ/backend.h"

typedef struct validation {
    const char *source;           /* "cuda device 0" or the replayed file */
    occ_backend_info info;
    occ_device_desc desc;         /* the device as the backend (or file) described it */
    const occ_device *dev;        /* the profile predictions use */
    occ_probe_result res;
    occ_residency model;          /* per core, for the kernel that ran */
    occ_timeline predicted;       /* units of one work-group duration */
    occ_timeline measured;        /* seconds */
    occ_measure_info minfo;
    occ_compare_tolerance tol;
    occ_comparison cmp;
    double unit_s;                /* seconds per work-group duration (measured median) */
    bool records_ok;              /* none missing or invalid */
    bool driver_ok;               /* driver's answer equals the model (or no answer) */
} validation;

void validation_print_text(FILE *f, const validation *v);
void validation_print_json(FILE *f, const validation *v);
/* Measured and predicted occupancy over time, and the measured per-core lanes. */
bool validation_write_svg(FILE *f, void *validation);

#endif
