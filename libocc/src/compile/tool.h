/* Private to libocc: running an external compiler (ptxas, ocloc) so that it
 * never outlives its purpose.
 *
 *  - its files live in a private temporary directory ($TMPDIR, else /tmp)
 *    whose paths are registered: on SIGINT or SIGTERM a handler (installed
 *    only while a tool runs, and only over a signal that is not ignored)
 *    kills the tool, removes the files and the directory, then hands the
 *    signal to the handler there was before;
 *  - the tool dies with its caller (PR_SET_PDEATHSIG), even one killed
 *    with SIGKILL;
 *  - it is killed after a timeout: $OCC_COMPILE_TIMEOUT seconds, else 120.
 */
#ifndef OCC_COMPILE_TOOL_H
#define OCC_COMPILE_TOOL_H

#include "common/internal.h"

#define OCC__TOOL_MAX_FILES 4
#define OCC__TOOL_PATH 1024

typedef struct occ__tool_dir {
    char dir[OCC__TOOL_PATH];
    char files[OCC__TOOL_MAX_FILES][OCC__TOOL_PATH]; /* full paths, "" unused */
    int slot;                                          /* in the signal registry; -1 none */
} occ__tool_dir;

/* Make the directory ("occ-PREFIX-XXXXXX") and register the files named
 * (NULL-terminated, at most OCC__TOOL_MAX_FILES) inside it: d->files[i] is
 * the path of names[i].  OCC_ERR_IO when it cannot be made. */
occ_status occ__tool_dir_make(occ__tool_dir *d, const char *prefix, const char *const *names,
                              occ_diag *diag);

/* Remove the files and the directory, and unregister them. */
void occ__tool_dir_remove(occ__tool_dir *d);

/* The compile timeout: $OCC_COMPILE_TIMEOUT seconds (a positive number),
 * else 120. */
double occ__tool_timeout_s(void);

enum { OCC__TOOL_NOT_STARTED = -1, OCC__TOOL_TIMED_OUT = -2 };

/* Run argv (argv[0] a path, or a name searched in $PATH) with stdin from
 * /dev/null and stdout and stderr into the file log (a path).  The exit
 * status (0..255; 127: it could not be run), 256 + N when killed by signal
 * N, OCC__TOOL_TIMED_OUT (killed after timeout_s), or OCC__TOOL_NOT_STARTED
 * with errno. */
int occ__tool_run(occ__tool_dir *d, char *const argv[], const char *log, double timeout_s);

#endif
