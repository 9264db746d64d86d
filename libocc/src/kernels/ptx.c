/* NVIDIA PTX text: compiled with the CUDA toolkit's ptxas into a temporary
 * cubin, which cubin.c reads.  That is what the driver's JIT does when it
 * loads PTX, so the registers and memory are those the GPU would get (on the
 * lent H100, the driver's JIT and ptxas 13.0 agreed on every test kernel:
 * docs/kernels.md).
 *
 * The target: the device's sm_XX when a device is given, else the PTX's own
 * .target.  ptxas: options->ptxas, else the first in $PATH, else
 * /usr/local/cuda/bin/ptxas.  options->build_options are passed to ptxas,
 * split at white space.  Temporary files go to $TMPDIR (else /tmp) and are
 * removed before returning. */
#define _GNU_SOURCE /* mkstemps */
#include "kernels/nvidia.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define DEFAULT_PTXAS "/usr/local/cuda/bin/ptxas"
#define MAX_OPTIONS 32

static bool executable(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* The first ptxas in $PATH, else the toolkit's default place. */
static bool find_ptxas(char *out, size_t size)
{
    const char *path = getenv("PATH");
    while (path && *path) {
        const char *colon = strchr(path, ':');
        size_t len = colon ? (size_t)(colon - path) : strlen(path);
        if (len > 0 && len + 7 < size) {
            memcpy(out, path, len);
            memcpy(out + len, "/ptxas", 7);
            if (executable(out))
                return true;
        }
        path = colon ? colon + 1 : NULL;
    }
    snprintf(out, size, "%s", DEFAULT_PTXAS);
    return executable(out);
}

/* The PTX's own ".target sm_XX[a]" (the first target named). */
static bool ptx_target(const uint8_t *d, size_t n, char *out, size_t size)
{
    static const char key[] = ".target";
    for (size_t i = 0; i + sizeof key - 1 < n; i++) {
        if (memcmp(d + i, key, sizeof key - 1) != 0)
            continue;
        size_t j = i + sizeof key - 1;
        while (j < n && (d[j] == ' ' || d[j] == '\t'))
            j++;
        size_t k = 0;
        while (j < n && k + 1 < size && (d[j] == '_' || (d[j] >= 'a' && d[j] <= 'z') ||
                                         (d[j] >= '0' && d[j] <= '9')))
            out[k++] = (char)d[j++];
        out[k] = 0;
        return strncmp(out, "sm_", 3) == 0 && k > 3;
    }
    return false;
}

static bool write_all(int fd, const uint8_t *d, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, d, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        d += w;
        n -= (size_t)w;
    }
    return true;
}

/* The whole of an open file; NULL when it cannot be read. */
static uint8_t *slurp(int fd, size_t *len)
{
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_size < 0 || lseek(fd, 0, SEEK_SET) != 0)
        return NULL;
    size_t n = (size_t)st.st_size, got = 0;
    uint8_t *buf = malloc(n + 1);
    while (buf && got < n) {
        ssize_t r = read(fd, buf + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            free(buf);
            return NULL;
        }
        got += (size_t)r;
    }
    if (buf)
        buf[n] = 0;
    *len = n;
    return buf;
}

/* ptxas's complaint, shortened to what fits a message: its lines that say
 * "error", else its first lines. */
static void log_summary(const char *log, char *out, size_t size)
{
    out[0] = 0;
    size_t used = 0;
    for (int pass = 0; pass < 2 && used == 0; pass++)
        for (const char *p = log; *p && used + 1 < size;) {
            const char *nl = strchr(p, '\n');
            size_t len = nl ? (size_t)(nl - p) : strlen(p);
            if (len && (pass == 1 || memmem(p, len, "rror", 4))) {
                int w = snprintf(out + used, size - used, "%s%.*s", used ? " | " : "", (int)len, p);
                used = w < 0 ? size : used + (size_t)w;
            }
            p = nl ? nl + 1 : p + len;
        }
}

typedef struct temps {
    char ptx[4096], cubin[4096], log[4096];
    int ptx_fd, cubin_fd, log_fd;
} temps;

static void temps_remove(temps *t)
{
    if (t->ptx_fd >= 0) {
        close(t->ptx_fd);
        unlink(t->ptx);
    }
    if (t->cubin_fd >= 0) {
        close(t->cubin_fd);
        unlink(t->cubin);
    }
    if (t->log_fd >= 0) {
        close(t->log_fd);
        unlink(t->log);
    }
}

static bool temps_make(temps *t)
{
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir)
        dir = "/tmp";
    t->ptx_fd = t->cubin_fd = t->log_fd = -1;
    snprintf(t->ptx, sizeof t->ptx, "%s/occ-ptx-XXXXXX.ptx", dir);
    snprintf(t->cubin, sizeof t->cubin, "%s/occ-ptx-XXXXXX.cubin", dir);
    snprintf(t->log, sizeof t->log, "%s/occ-ptx-XXXXXX.log", dir);
    t->ptx_fd = mkstemps(t->ptx, 4);
    t->cubin_fd = mkstemps(t->cubin, 6);
    t->log_fd = mkstemps(t->log, 4);
    return t->ptx_fd >= 0 && t->cubin_fd >= 0 && t->log_fd >= 0;
}

/* Run ptxas; its output and errors go to the log file.  The exit status, or
 * -1 with errno when it could not be started. */
static int run_ptxas(const char *ptxas, const char *arch, const temps *t, const char *extra)
{
    char opts[1024];
    snprintf(opts, sizeof opts, "%s", extra ? extra : "");
    char arch_opt[64];
    snprintf(arch_opt, sizeof arch_opt, "-arch=%s", arch);
    char *argv[MAX_OPTIONS + 8];
    int argc = 0;
    argv[argc++] = (char *)ptxas;
    argv[argc++] = arch_opt;
    for (char *save = NULL, *tok = strtok_r(opts, " \t\n", &save); tok && argc < MAX_OPTIONS;
         tok = strtok_r(NULL, " \t\n", &save))
        argv[argc++] = tok;
    argv[argc++] = "-o";
    argv[argc++] = (char *)t->cubin;
    argv[argc++] = (char *)t->ptx;
    argv[argc] = NULL;

    posix_spawn_file_actions_t fa;
    if (posix_spawn_file_actions_init(&fa) != 0)
        return -1;
    posix_spawn_file_actions_adddup2(&fa, t->log_fd, 1);
    posix_spawn_file_actions_adddup2(&fa, t->log_fd, 2);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    pid_t pid;
    int rc = posix_spawn(&pid, ptxas, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) {
        errno = rc;
        return -1;
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

occ_status occ__ptx_read(occ_kernel_set *s, const uint8_t *data, size_t size,
                         const occ_kernel_read_options *o, occ_diag *diag)
{
    /* The target. */
    char arch[32];
    unsigned dev_sm;
    const occ_device_desc *dd = o && o->device ? occ_device_describe(o->device) : NULL;
    if (dd && dd->vendor != OCC_VENDOR_NVIDIA)
        return occ__diag(diag, OCC_ERR_UNSUPPORTED, s->origin, 0, 0, NULL,
                         "PTX is NVIDIA code; device '%s' is not an NVIDIA GPU", dd->name);
    if (dd && occ__nv_device_sm(o->device, &dev_sm))
        snprintf(arch, sizeof arch, "sm_%u", dev_sm);
    else if (!ptx_target(data, size, arch, sizeof arch))
        return occ__diag(diag, OCC_ERR_PARSE, s->origin, 0, 0, NULL,
                         "PTX without a .target sm_XX directive%s",
                         dd ? ", and the device names no sm_XX" : "");

    /* The compiler. */
    char ptxas[4096];
    if (o && o->ptxas) {
        snprintf(ptxas, sizeof ptxas, "%s", o->ptxas);
        if (!executable(ptxas))
            return occ__diag(diag, OCC_ERR_UNSUPPORTED, s->origin, 0, 0, NULL,
                             "PTX needs ptxas from the CUDA toolkit (%s: not an executable file)",
                             o->ptxas);
    } else if (!find_ptxas(ptxas, sizeof ptxas)) {
        return occ__diag(diag, OCC_ERR_UNSUPPORTED, s->origin, 0, 0, NULL,
                         "PTX needs ptxas from the CUDA toolkit (not found in PATH or "
                         "/usr/local/cuda/bin)");
    }

    temps t;
    occ_status st = OCC_OK;
    if (!temps_make(&t)) {
        st = occ__diag(diag, OCC_ERR_IO, s->origin, 0, 0, NULL,
                       "cannot create temporary files in %s: %s",
                       getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
                       strerror(errno));
        temps_remove(&t);
        return st;
    }
    if (!write_all(t.ptx_fd, data, size)) {
        st = occ__diag(diag, OCC_ERR_IO, s->origin, 0, 0, NULL,
                       "cannot write the temporary file %s: %s", t.ptx, strerror(errno));
        temps_remove(&t);
        return st;
    }
    int rc = run_ptxas(ptxas, arch, &t, o ? o->build_options : NULL);
    size_t n = 0;
    if (rc < 0) {
        st = occ__diag(diag, OCC_ERR_UNSUPPORTED, s->origin, 0, 0, NULL, "cannot run %s: %s",
                       ptxas, strerror(errno));
    } else if (rc != 0) {
        char *log = (char *)slurp(t.log_fd, &n);
        char summary[300];
        log_summary(log ? log : "", summary, sizeof summary);
        st = occ__diag(diag, OCC_ERR_DEVICE, s->origin, 0, 0, NULL, "ptxas -arch=%s failed (%d): %s",
                       arch, rc, summary[0] ? summary : "no output");
        free(log);
    } else {
        /* ptxas may replace the file rather than write into it: open it anew. */
        int fd = open(t.cubin, O_RDONLY | O_CLOEXEC);
        uint8_t *cubin = fd >= 0 ? slurp(fd, &n) : NULL;
        if (fd >= 0)
            close(fd);
        if (!cubin) {
            st = occ__diag(diag, OCC_ERR_IO, s->origin, 0, 0, NULL,
                           "cannot read what ptxas wrote (%s)", t.cubin);
        } else {
            st = occ__cubin_collect(s, cubin, n, diag);
            occ__kset_note(s, "PTX compiled with %s for %s", ptxas, arch);
            free(cubin);
        }
    }
    temps_remove(&t);
    return st;
}
