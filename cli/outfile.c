#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "args.h"

#define MAX_LINKS 40 /* as the kernel's own limit for one lookup */

static bool stdout_reported; /* a failure of stdout was already printed */

/* Temporary files not yet renamed: removed if a signal ends occcalc (Ctrl-C
 * during a long simulation, a reader closing the pipe), so none is left. */
#define MAX_PENDING 8
static char *volatile pending[MAX_PENDING];

static void remove_pending(int sig)
{
    for (int i = 0; i < MAX_PENDING; i++)
        if (pending[i])
            unlink(pending[i]); /* async-signal-safe */
    signal(sig, SIG_DFL);
    raise(sig);
}

static void track(char *tmp)
{
    static bool installed;
    if (!installed) {
        static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGXFSZ};
        for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
            struct sigaction sa, old;
            if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
                continue; /* ignored by whoever started us: keep it so */
            memset(&sa, 0, sizeof sa);
            sa.sa_handler = remove_pending;
            sigemptyset(&sa.sa_mask);
            sigaction(sigs[i], &sa, NULL);
        }
        installed = true;
    }
    for (int i = 0; i < MAX_PENDING; i++)
        if (!pending[i]) {
            pending[i] = tmp;
            return;
        }
}

static void untrack(const char *tmp)
{
    for (int i = 0; i < MAX_PENDING; i++)
        if (pending[i] == tmp)
            pending[i] = NULL;
}

static int report(const char *name, int e)
{
    fprintf(stderr, "occcalc: %s: %s\n", name, strerror(e ? e : EIO));
    return EXIT_OUTPUT;
}

/* "-" and the names of descriptor 1: the stdout stream itself, so the
 * report and the file share one position (a second open of the same file
 * would write over it). */
static bool is_stdout_name(const char *path)
{
    static const char *const names[] = {"-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(path, names[i]) == 0)
            return true;
    return false;
}

/* /proc/PID/fd/N and /dev/fd/N name open descriptors (pipes, terminals,
 * files opened by the shell): written directly, never renamed over. */
static bool is_descriptor_link(const char *p)
{
    return strncmp(p, "/proc/", 6) == 0 || strncmp(p, "/dev/fd/", 8) == 0;
}

/* path with the symlinks of its last component followed: the file a write
 * really lands on.  Intermediate directories need no resolving (rename works
 * through them).  Sets *descriptor when a link leads into /proc or /dev/fd.
 * Returns a malloc'd path, or NULL with errno set. */
static char *follow_links(const char *path, bool *descriptor)
{
    char *p = strdup(path);
    *descriptor = p && is_descriptor_link(p);
    for (int hops = 0; p; hops++) {
        struct stat sb;
        if (lstat(p, &sb) != 0)
            return errno == ENOENT ? p : (free(p), NULL); /* a new file at p */
        if (!S_ISLNK(sb.st_mode))
            return p;
        if (hops == MAX_LINKS) {
            free(p);
            errno = ELOOP;
            return NULL;
        }
        char link[PATH_MAX];
        ssize_t n = readlink(p, link, sizeof link - 1);
        if (n < 0) {
            free(p);
            return NULL;
        }
        link[n] = '\0';
        char *next;
        const char *slash = strrchr(p, '/');
        if (link[0] == '/' || !slash) {
            next = strdup(link);
        } else { /* relative to the link's own directory */
            size_t dir = (size_t)(slash - p) + 1;
            next = malloc(dir + (size_t)n + 1);
            if (next) {
                memcpy(next, p, dir);
                memcpy(next + dir, link, (size_t)n + 1);
            }
        }
        free(p);
        p = next;
        if (p && is_descriptor_link(p))
            *descriptor = true;
    }
    return NULL;
}

/* Writes straight into what is there: a device, a FIFO, a descriptor. */
static int open_direct(outfile *o, const char *path)
{
    /* O_TRUNC only affects regular files (/proc/self/fd/N of one); never O_CREAT */
    int fd = open(path, O_WRONLY | O_NOCTTY | O_TRUNC | O_CLOEXEC);
    if (fd < 0)
        return errno;
    o->f = fdopen(fd, "w");
    if (!o->f) {
        int e = errno;
        close(fd);
        return e;
    }
    return 0;
}

/* A temporary file beside target, with the mode (and, for root, the owner)
 * of the file it will replace, or what a plain creat() would give. */
static int open_atomic(outfile *o, char *target, const struct stat *old)
{
    size_t n = strlen(target) + sizeof ".tmpXXXXXX";
    o->tmp = malloc(n);
    if (!o->tmp)
        return ENOMEM;
    snprintf(o->tmp, n, "%s.tmpXXXXXX", target);
    int fd = mkstemp(o->tmp);
    if (fd < 0) {
        int e = errno;
        free(o->tmp);
        o->tmp = NULL;
        return e;
    }
    o->target = target;
    track(o->tmp);
    fcntl(fd, F_SETFD, FD_CLOEXEC);
    mode_t mode;
    if (old) {
        mode = old->st_mode & 07777;
        if (geteuid() == 0 && fchown(fd, old->st_uid, old->st_gid) != 0)
            mode &= 0777; /* no set-id bits on a file of the wrong owner */
    } else {
        mode_t mask = umask(0);
        umask(mask);
        mode = 0666 & ~mask;
    }
    if (fchmod(fd, mode) != 0 || !(o->f = fdopen(fd, "w"))) {
        int e = errno;
        close(fd);
        return e;
    }
    return 0;
}

int outfile_open(outfile *o, const char *path)
{
    memset(o, 0, sizeof *o);
    o->name = path;
    if (is_stdout_name(path)) {
        o->name = OUTFILE_STDOUT_NAME;
        o->f = stdout;
        o->is_stdout = true;
        return EXIT_OK;
    }
    if (!*path)
        return report("''", ENOENT);
    bool descriptor;
    char *target = follow_links(path, &descriptor);
    if (!target)
        return report(path, errno);
    int e;
    struct stat sb;
    if (descriptor) {
        e = open_direct(o, path);
    } else if (lstat(target, &sb) != 0) {
        e = errno == ENOENT ? open_atomic(o, target, NULL) : errno;
    } else if (S_ISREG(sb.st_mode)) {
        e = open_atomic(o, target, &sb);
    } else if (S_ISDIR(sb.st_mode)) {
        e = EISDIR;
    } else { /* character or block device, FIFO, socket */
        e = open_direct(o, target);
    }
    if (o->target != target)
        free(target);
    if (e) {
        outfile_discard(o);
        return report(path, e);
    }
    return EXIT_OK;
}

int outfile_commit(outfile *o)
{
    if (!o->f)
        return EXIT_OUTPUT;
    if (o->is_stdout) {
        errno = 0;
        if (fflush(stdout) != 0 || ferror(stdout)) {
            stdout_reported = true;
            o->f = NULL;
            return report(o->name, errno);
        }
        o->f = NULL;
        return EXIT_OK;
    }
    int e = 0;
    errno = 0;
    if (fflush(o->f) != 0 || ferror(o->f))
        e = errno ? errno : EIO;
    if (!e && o->tmp && fsync(fileno(o->f)) != 0)
        e = errno;
    errno = 0;
    if (fclose(o->f) != 0 && !e)
        e = errno ? errno : EIO;
    o->f = NULL;
    if (!e && o->tmp) {
        /* something else appeared meanwhile: never rename over it */
        struct stat sb;
        if (lstat(o->target, &sb) == 0 && !S_ISREG(sb.st_mode))
            e = EEXIST;
        else if (rename(o->tmp, o->target) != 0)
            e = errno;
        else {
            untrack(o->tmp);
            free(o->tmp);
            o->tmp = NULL;
        }
    }
    outfile_discard(o);
    return e ? report(o->name, e) : EXIT_OK;
}

void outfile_discard(outfile *o)
{
    if (o->f && !o->is_stdout)
        fclose(o->f);
    o->f = NULL;
    if (o->tmp) {
        unlink(o->tmp);
        untrack(o->tmp);
    }
    free(o->tmp);
    free(o->target);
    o->tmp = o->target = NULL;
}

int outfile_close(outfile *o, int err)
{
    if (!err)
        return outfile_commit(o);
    if (o->f && ferror(o->f)) {
        /* the renderer saw the stream fail (EIO): the buffer's retry names why */
        errno = 0;
        if (fflush(o->f) != 0 && errno)
            err = errno;
    }
    if (o->is_stdout)
        stdout_reported = true;
    outfile_discard(o);
    return report(o->name, err);
}

int outfile_write(const char *path, bool (*write)(FILE *f, void *user), void *user)
{
    outfile o;
    int rc = outfile_open(&o, path);
    if (rc)
        return rc;
    errno = 0;
    bool ok = write(o.f, user);
    return outfile_close(&o, ok ? 0 : ferror(o.f) && errno ? errno : EIO);
}

void outfile_guard_std_fds(void)
{
    for (int fd = 0; fd <= 2; fd++)
        if (fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
            int n = open("/dev/null", O_RDONLY); /* lands on fd: the lowest free one */
            if (n >= 0 && n != fd)
                close(n);
        }
}

int outfile_flush_stdout(void)
{
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout))
        return EXIT_OK;
    int e = errno;
    if (stdout_reported)
        return EXIT_OUTPUT;
    stdout_reported = true;
    return report(OUTFILE_STDOUT_NAME, e);
}

int outfile_finish_stdout(int rc, bool really_close)
{
    errno = 0;
    bool bad = fflush(stdout) != 0 || ferror(stdout);
    int e = errno;
    if (really_close) {
        errno = 0;
        if (fclose(stdout) != 0 && !bad) {
            bad = true;
            e = errno;
        }
    } else {
        clearerr(stdout);
    }
    if (bad) {
        if (!stdout_reported)
            report(OUTFILE_STDOUT_NAME, e);
        if (rc == EXIT_OK || rc == EXIT_NEGATIVE)
            rc = EXIT_OUTPUT;
    }
    stdout_reported = false;
    return rc;
}
