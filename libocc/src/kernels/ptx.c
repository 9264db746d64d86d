/* NVIDIA PTX text: compiled with the CUDA toolkit's ptxas into a temporary
 * cubin, which cubin.c reads.  That is what the driver's JIT does when it
 * loads PTX, so the registers and memory are those the GPU would get (on the
 * lent H100, the driver's JIT and ptxas 13.0 agreed on every test kernel:
 * docs/kernels.md).
 *
 * The target: the device's sm_XX when a device is given, else the PTX's own
 * .target.  ptxas: options->ptxas, else the first in $PATH, else
 * /usr/local/cuda/bin/ptxas.  options->build_options are passed to ptxas,
 * split at white space.  ptxas runs through compile/tool.h: its files in a
 * private temporary directory ($TMPDIR, else /tmp) removed before returning
 * and on SIGINT/SIGTERM, killed after the compile timeout or with its
 * caller.  ptxas rejecting the PTX is bad input (OCC_ERR_PARSE, its log in
 * the message); ptxas killed or timed out is OCC_ERR_DEVICE. */
#define _GNU_SOURCE /* memmem */
#include "kernels/nvidia.h"
#include "compile/tool.h"
#include "compile/fdio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* Run ptxas on the directory's files (in.ptx -> out.cubin, messages in
 * log.txt); what occ__tool_run returns. */
static int run_ptxas(const char *ptxas, const char *arch, occ__tool_dir *t, const char *extra)
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
    argv[argc++] = t->files[1];
    argv[argc++] = t->files[0];
    argv[argc] = NULL;
    return occ__tool_run(t, argv, t->files[2], occ__tool_timeout_s());
}

/* The whole of a file; NULL when it cannot be read. */
static uint8_t *slurp_path(const char *path, size_t *n)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    uint8_t *b = slurp(fd, n);
    close(fd);
    return b;
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

    static const char *const names[] = {"in.ptx", "out.cubin", "log.txt", NULL};
    occ__tool_dir t;
    occ_status st = occ__tool_dir_make(&t, "ptx", names, diag);
    if (st != OCC_OK) {
        if (diag)
            snprintf(diag->file, sizeof diag->file, "%s", s->origin);
        return st;
    }
    int fd = open(t.files[0], O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    bool wrote = fd >= 0 && occ__write_all(fd, data, size);
    if (fd >= 0 && close(fd) != 0)
        wrote = false;
    if (!wrote) {
        st = occ__diag(diag, OCC_ERR_IO, s->origin, 0, 0, NULL,
                       "cannot write the temporary file %s: %s", t.files[0], strerror(errno));
        occ__tool_dir_remove(&t);
        return st;
    }
    int rc = run_ptxas(ptxas, arch, &t, o ? o->build_options : NULL);
    size_t n = 0;
    if (rc == OCC__TOOL_NOT_STARTED || rc == 127) {
        st = occ__diag(diag, OCC_ERR_UNSUPPORTED, s->origin, 0, 0, NULL, "cannot run %s%s%s",
                       ptxas, rc < 0 ? ": " : "", rc < 0 ? strerror(errno) : "");
    } else if (rc == OCC__TOOL_TIMED_OUT) {
        st = occ__diag(diag, OCC_ERR_DEVICE, s->origin, 0, 0, NULL,
                       "ptxas -arch=%s did not finish within %.0f s (OCC_COMPILE_TIMEOUT); it was "
                       "killed",
                       arch, occ__tool_timeout_s());
    } else if (rc > 255) {
        st = occ__diag(diag, OCC_ERR_DEVICE, s->origin, 0, 0, NULL,
                       "ptxas -arch=%s was killed by signal %d", arch, rc - 256);
    } else if (rc != 0) {
        char *log = (char *)slurp_path(t.files[2], &n);
        char summary[300];
        log_summary(log ? log : "", summary, sizeof summary);
        st = occ__diag(diag, OCC_ERR_PARSE, s->origin, 0, 0, NULL, "ptxas -arch=%s failed (%d): %s",
                       arch, rc, summary[0] ? summary : "no output");
        free(log);
    } else {
        uint8_t *cubin = slurp_path(t.files[1], &n);
        if (!cubin) {
            st = occ__diag(diag, OCC_ERR_IO, s->origin, 0, 0, NULL,
                           "cannot read what ptxas wrote (%s)", t.files[1]);
        } else if (!occ__kset_unpack(s, n, "ptxas's cubin")) { /* read like unpacked data */
            st = occ__kset_budget_diag(s, diag);
            free(cubin);
        } else {
            st = occ__cubin_collect(s, cubin, n, diag);
            occ__kset_note(s, "PTX compiled with %s for %s", ptxas, arch);
            free(cubin);
        }
    }
    occ__tool_dir_remove(&t);
    return st;
}
