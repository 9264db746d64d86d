/* Every file occcalc writes (SVG pictures, probed profiles, record files)
 * and standard output itself.
 *
 * A regular file, or a path that does not exist yet, appears whole or not at
 * all: it is written to a temporary name in the target's own directory, then
 * renamed over it.  A symlink is followed to its final target, which is
 * written that way (the link stays a link; the target keeps its mode).
 * Anything else -- a character device, a FIFO, "-" or /dev/stdout (standard
 * output) -- is opened and written directly: never replaced, never unlinked.
 *
 * Commands open their outputs before they print anything, so a bad path
 * stops them before a partial report reaches stdout.  Every failure is
 * reported as "occcalc: PATH: reason" with exit code EXIT_OUTPUT. */
#ifndef OCCCALC_OUTFILE_H
#define OCCCALC_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>

/* How standard output is named in messages. */
#define OUTFILE_STDOUT_NAME "<stdout>"

typedef struct outfile {
    const char *name; /* for messages: the path as given, or "<stdout>" */
    FILE *f;          /* where to write; NULL when not open */
    char *tmp;        /* the temporary file renamed to target (atomic mode) */
    char *target;     /* the file tmp replaces: the path, symlinks followed */
    bool is_stdout;
} outfile;

/* Opens path for writing ("-" and "/dev/stdout" are standard output).  On
 * failure prints "occcalc: PATH: reason" and returns EXIT_OUTPUT; EXIT_OK
 * otherwise.  A FIFO blocks here until a reader opens it. */
int outfile_open(outfile *o, const char *path);

/* Finishes o: flushes it, checks every write, renames the temporary file
 * over the target.  On failure prints the message, removes the temporary
 * file and returns EXIT_OUTPUT.  Standard output is only flushed here;
 * outfile_finish_stdout closes it at exit. */
int outfile_commit(outfile *o);

/* Gives up o (the command failed): removes the temporary file, leaves the
 * target as it was.  Safe on an outfile that was never opened. */
void outfile_discard(outfile *o);

/* After writing with a renderer that returns 0 or an errno value: commits
 * when err is 0, otherwise discards o and reports err.  EXIT_OK or EXIT_OUTPUT. */
int outfile_close(outfile *o, int err);

/* Opens path, calls write(f, user), commits; any failure (write returning
 * false included) is reported.  Returns EXIT_OK or EXIT_OUTPUT. */
int outfile_write(const char *path, bool (*write)(FILE *f, void *user), void *user);

/* At start-up: occupies a closed descriptor 0, 1 or 2 with /dev/null opened
 * read-only, so no file occcalc opens lands there and writes to a closed
 * stdout fail (EBADF) instead of going into another file. */
void outfile_guard_std_fds(void);

/* Flushes standard output now (before a note on stderr that must follow the
 * report): EXIT_OK, or the failure reported once (as outfile_finish_stdout
 * would) and EXIT_OUTPUT. */
int outfile_flush_stdout(void);

/* At exit: flushes and closes standard output (close only when
 * really_close).  A failed write is reported as "occcalc: <stdout>: reason";
 * returns rc, or EXIT_OUTPUT in place of EXIT_OK / EXIT_NEGATIVE when the
 * output was lost. */
int outfile_finish_stdout(int rc, bool really_close);

#endif
