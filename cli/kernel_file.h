/* Kernel files on the command line: `--kernel FILE[:NAME]` and `occcalc
 * kernels FILE`.  Reads the file through occ/kernels.h and turns the
 * library's answers into occcalc's messages and exit codes. */
#ifndef OCCCALC_KERNEL_FILE_H
#define OCCCALC_KERNEL_FILE_H

#include <stdio.h>

#include "occ/kernels.h"

/* Read a kernel file for a device (NULL: the file decides).  Prints the
 * diagnostic and returns EXIT_INPUT (unreadable, corrupt, not a kernel file),
 * EXIT_DEVICE (a compiler or driver is missing or failed) or EXIT_OK. */
int kernel_file_read(const char *path, const occ_device *dev, occ_kernel_set **out);

/* `FILE[:NAME]`: the kernel of that name, or the only kernel of the file.
 * With several kernels and no NAME, or a NAME not in the file, lists the
 * kernels on stderr and returns EXIT_USAGE.  *set must be freed by the caller
 * (also on failure, when not NULL). */
int kernel_file_pick(const char *spec, const occ_device *dev, occ_kernel_set **set,
                     const occ_kernel_info **info);

/* Print a kernel's name as text: control characters and '\\' as \\xNN, so a
 * name cannot move the cursor or forge lines. */
void kernel_print_name(FILE *f, const char *name);

/* A kernel with no built-in profile for its target is never shown on
 * another device: says so on stderr, with the nearest profiles of its vendor
 * and how to get one; returns EXIT_INPUT. */
int kernel_no_profile(const occ_kernel_info *ki);

#endif
