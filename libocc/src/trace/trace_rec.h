/*
 * The launch-record writer shared by the trace interposers (docs/trace.md).
 *
 * Each traced process appends text lines to its own file, DIR/PID.rec, where
 * DIR is $OCC_TRACE_DIR.  The file is mapped MAP_SHARED and a line is copied
 * into space reserved with one atomic add, so a launch costs no system call
 * and every line written is in the page cache even if the process is killed
 * the next instant.  Space never written (a thread killed between reserving
 * and copying, or the tail of a crashed process) reads as NUL bytes, which the
 * reader skips.
 *
 * What it promises the traced program: no descriptor is held (the file is
 * reopened, and recognised by device and inode, for each growth, so a program
 * that closes every descriptor and reuses the numbers is never touched); no
 * page is written before its disk space is allocated (posix_fallocate, never
 * past RLIMIT_FSIZE), so a full disk cannot fault the program; the per-thread
 * state is allocated, not static TLS.  When the file cannot grow (full disk,
 * the limit, the cap, the file replaced), recording stops and every line not
 * written is counted in the header's X line, which is rewritten in place.
 */
#ifndef OCC_TRACE_REC_H
#define OCC_TRACE_REC_H

#include <stdbool.h>
#include <stddef.h>

/* Largest line one call may write, newline included. */
#define TRACE_LINE_MAX 768

/* True when tracing is on in this process ($OCC_TRACE_DIR set and usable). */
bool trace_enabled(void);

/* Append one line (printf format; the newline is added).  Thread-safe and
 * lock-free unless the file must grow.  Lines longer than TRACE_LINE_MAX are
 * cut. */
void trace_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A launch line ("L ..."): like trace_line, but when it equals one of the
 * calling thread's last 8 distinct launch lines it is counted in an
 * "N <tid> <back> <count>" line instead of written again (docs/trace.md,
 * "Records"). */
void trace_launch(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Like trace_launch, but repeats are recognised by key (key_len bytes, at
 * most TRACE_LINE_MAX: every field of the line that is not implied by the
 * calling thread), compared before anything is formatted, so that a repeated
 * launch costs a comparison and a counter update.  Equal keys must give equal
 * lines. */
void trace_launch_keyed(const void *key, size_t key_len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* trace_launch_keyed in two steps, for a caller that formats its own line:
 * trace_launch_counted is true when the key was a repeat (counted) or
 * nothing is to be written; otherwise the caller formats the line (with its
 * newline, shorter than TRACE_LINE_MAX) and gives it to trace_launch_new. */
bool trace_launch_counted(const void *key, size_t key_len);
void trace_launch_new(const void *key, size_t key_len, const char *line, size_t len);

/* The calling thread's id (gettid), cached per thread. */
long trace_tid(void);

/* Copy s into out (size bytes) with blanks, control characters and '"'
 * replaced, so that a name is one field of a record line. */
void trace_field(char *out, size_t size, const char *s);

#endif
