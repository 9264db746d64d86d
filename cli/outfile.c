#include "outfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "args.h"

/* A path that exists and is not a regular file (/dev/null, /dev/stdout, a
 * FIFO): written in place.  Renaming over it would replace the device. */
static int write_in_place(const char *path, bool (*write)(FILE *f, void *user), void *user)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return errno;
    int e = write(f, user) ? 0 : EIO;
    if (ferror(f) && !e)
        e = EIO;
    errno = 0;
    if (fclose(f) != 0 && !e)
        e = errno ? errno : EIO;
    return e;
}

int outfile_write(const char *path, bool (*write)(FILE *f, void *user), void *user)
{
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
        return write_in_place(path, write, user);
    size_t n = strlen(path) + 16;
    char *tmp = malloc(n);
    if (!tmp)
        return ENOMEM;
    snprintf(tmp, n, "%s.tmpXXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        int e = errno;
        free(tmp);
        return e;
    }
    /* mkstemp makes the file 0600; give it what a plain fopen would */
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask);
    FILE *f = fdopen(fd, "w");
    if (!f) {
        int e = errno;
        close(fd);
        unlink(tmp);
        free(tmp);
        return e;
    }
    int e = write(f, user) ? 0 : EIO;
    if (ferror(f) && !e)
        e = EIO;
    errno = 0;
    if (fclose(f) != 0 && !e)
        e = errno ? errno : EIO;
    if (!e && rename(tmp, path) != 0)
        e = errno;
    if (e)
        unlink(tmp);
    free(tmp);
    return e;
}

int outfile_write_or_report(const char *path, bool (*write)(FILE *f, void *user), void *user)
{
    int e = outfile_write(path, write, user);
    if (!e)
        return EXIT_OK;
    fprintf(stderr, "occcalc: cannot write %s: %s\n", path, strerror(e));
    return EXIT_INTERNAL;
}
