/* Shared by the commands that talk to a live device (probe, validate):
 * --backend / --index / --timeout, opening a backend with the right exit
 * code (their output files: outfile.h). */
#ifndef OCCCALC_BACKEND_CLI_H
#define OCCCALC_BACKEND_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "occ/backend.h"

typedef struct cli_backend {
    const char *name;     /* --backend; default "cuda" */
    unsigned index;       /* --index */
    double timeout_s;     /* --timeout; default 30 */
} cli_backend;

void cli_backend_init(cli_backend *b);
/* "--backend NAME", "--index N", "--timeout S": 1 handled, 0 not ours, -1 usage error printed. */
int cli_backend_option(cli_backend *b, const char *opt_name, const char *arg);

/* Open and describe; prints the message and returns the exit code
 * (EXIT_DEVICE for a missing driver or device, EXIT_USAGE for an unknown
 * backend), EXIT_OK on success. */
int cli_backend_open(const cli_backend *b, occ_backend **out, occ_device_desc *desc,
                     occ_backend_info *info);

/* CUDA: the GPCs and the cluster caps (desc's four cluster keys) from the
 * driver's cluster answers for the probe kernel (docs/clusters.md, the rule
 * inverted); source gets the sentence for the profile's sources.  A note or a
 * warning on stderr, and desc left without cluster data, when the answers
 * give no structure (probe, validate --cluster). */
void cli_measure_gpcs(occ_backend *b, occ_device_desc *desc, char *source, size_t size);

/* Print "occcalc: MESSAGE" for a diag and map its status to an exit code. */
int cli_backend_error(const occ_diag *diag, occ_status s);

#endif
