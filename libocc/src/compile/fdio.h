/* Private to libocc: descriptor I/O for talking to child processes (the
 * driver compile service, the validation watchdog) and writing tools'
 * input files. */
#ifndef OCC_COMPILE_FDIO_H
#define OCC_COMPILE_FDIO_H

#include <stdbool.h>
#include <stddef.h>

/* Seconds on the monotonic clock. */
double occ__now_s(void);

/* Write all n bytes (retrying on EINTR); false on an error. */
bool occ__write_all(int fd, const void *p, size_t n);

/* Read n bytes before the deadline (occ__now_s): 0 done, 1 timed out,
 * 2 closed or failed. */
int occ__read_deadline(int fd, void *p, size_t n, double deadline);

#endif
