/* Files occcalc writes (SVG pictures, probed profiles, record files) appear
 * whole or not at all: written to a temporary name beside the target, then
 * renamed over it.  A target that exists and is not a regular file (a
 * device such as /dev/null, a FIFO) is written in place instead. */
#ifndef OCCCALC_OUTFILE_H
#define OCCCALC_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>

/* Calls write(f, user) on a temporary file and renames it to path if write
 * returns true and every write succeeded; otherwise removes it.  Returns 0
 * or an errno value (EIO when write() itself reported failure). */
int outfile_write(const char *path, bool (*write)(FILE *f, void *user), void *user);

/* The same, printing "occcalc: cannot write PATH: reason" on failure;
 * returns EXIT_OK or EXIT_INTERNAL. */
int outfile_write_or_report(const char *path, bool (*write)(FILE *f, void *user), void *user);

#endif
