/* Validation backends: the public wrappers and the watchdog (the registry of
 * backends is backends/registry.c).
 *
 * With a timeout (the default) occ_backend_open forks a child process that
 * loads the driver and serves requests over a socket pair: the caller sends
 * {op, arguments}, the child answers {status, diag, payload}.  The caller
 * waits at most timeout_s for each answer; a child that is late is killed, a
 * child that dies (driver crash) is reaped, and either way the call returns
 * OCC_ERR_DEVICE with a message and the handle is dead from then on.  Both
 * sides are the same program image, so structs travel as raw bytes. */
#include "validate/backend_impl.h"
#include "compile/fdio.h"
#include "common/internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- the handle ------------------------------------------------------------------ */

enum { OP_DESCRIBE = 1, OP_LAUNCH, OP_DRIVER_RESIDENCY, OP_CLOSE, OP_COMPILE };

struct occ_backend {
    const occ__backend_ops *ops;
    double timeout_s;
    void *state; /* in-process mode */
    pid_t child; /* watchdog mode; 0 when in-process */
    int fd;
    bool dead;   /* the child is gone: every call fails */
    char name[16];
    char workdir[256]; /* the child's own directory (occ__backend_open_env), or "" */
};

typedef struct request {
    uint32_t op;
    occ_probe_config cfg;
    uint64_t n;
} request;

typedef struct reply {
    occ_status status;
    occ_diag diag;
} reply;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static bool send_all(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n) {
        ssize_t w = send(fd, c, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        c += w;
        n -= (size_t)w;
    }
    return true;
}

/* Blocking read in the child (the caller's end closing means: stop). */
static bool recv_all(int fd, void *p, size_t n)
{
    char *c = p;
    while (n) {
        ssize_t r = recv(fd, c, n, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return false;
        c += r;
        n -= (size_t)r;
    }
    return true;
}

/* ---- the child ---------------------------------------------------------------------- */

static void serve(const occ__backend_ops *ops, void *state, int fd)
{
    request q;
    while (recv_all(fd, &q, sizeof q)) {
        reply a;
        memset(&a, 0, sizeof a);
        if (q.op == OP_CLOSE)
            break;
        if (q.op == OP_DESCRIBE) {
            occ_device_desc d;
            occ_backend_info info;
            occ_device_desc_init(&d);
            memset(&info, 0, sizeof info);
            info.struct_size = sizeof info;
            a.status = ops->describe(state, &d, &info, &a.diag);
            if (!send_all(fd, &a, sizeof a))
                break;
            if (a.status == OCC_OK && !(send_all(fd, &d, sizeof d) && send_all(fd, &info, sizeof info)))
                break;
        } else if (q.op == OP_LAUNCH) {
            occ_probe_result res;
            occ_probe_result_init(&res);
            a.status = ops->launch(state, &q.cfg, &res, &a.diag);
            bool ok = send_all(fd, &a, sizeof a);
            if (ok && a.status == OCC_OK)
                ok = send_all(fd, &res, sizeof res) &&
                     send_all(fd, res.records, res.n_records * sizeof *res.records);
            occ_probe_result_free(&res);
            if (!ok)
                break;
        } else if (q.op == OP_DRIVER_RESIDENCY) {
            size_t n = (size_t)q.n;
            occ_kernel *req = calloc(n ? n : 1, sizeof *req);
            occ_kernel *act = calloc(n ? n : 1, sizeof *act);
            int32_t *ans = calloc(n ? n : 1, sizeof *ans);
            bool ok = req && act && ans && recv_all(fd, req, n * sizeof *req);
            if (ok) {
                a.status = ops->driver_residency
                               ? ops->driver_residency(state, req, act, ans, n, &a.diag)
                               : occ__diag(&a.diag, OCC_ERR_UNSUPPORTED, NULL, 0, 0, NULL,
                                           "the %s backend has no driver occupancy query",
                                           ops->name);
                ok = send_all(fd, &a, sizeof a);
                if (ok && a.status == OCC_OK)
                    ok = send_all(fd, act, n * sizeof *act) && send_all(fd, ans, n * sizeof *ans);
            }
            free(req);
            free(act);
            free(ans);
            if (!ok)
                break;
        } else if (q.op == OP_COMPILE) {
            occ__compile_request req = {0};
            uint8_t *il = malloc(q.n ? (size_t)q.n : 1);
            bool ok = il && recv_all(fd, req.flags, sizeof req.flags) &&
                      recv_all(fd, req.wg, sizeof req.wg) &&
                      recv_all(fd, &req.native, sizeof req.native) && recv_all(fd, il, (size_t)q.n);
            if (ok) {
                req.flags[sizeof req.flags - 1] = '\0';
                req.il = il;
                req.il_size = (size_t)q.n;
                occ__compile_result res = {0};
                a.status = ops->compile ? ops->compile(state, &req, &res, &a.diag)
                                        : occ__diag(&a.diag, OCC_ERR_UNSUPPORTED, NULL, 0, 0, NULL,
                                                    "the %s backend cannot compile modules",
                                                    ops->name);
                ok = send_all(fd, &a, sizeof a);
                if (ok && a.status == OCC_OK) {
                    uint64_t sizes[2] = {res.native_size, res.n_kernels};
                    ok = send_all(fd, sizes, sizeof sizes) &&
                         send_all(fd, res.native, res.native_size) &&
                         send_all(fd, res.kernels, res.n_kernels * sizeof *res.kernels);
                }
                occ__compile_result_free(&res);
            }
            free(il);
            if (!ok)
                break;
        } else {
            break;
        }
    }
    ops->close(state);
}

/* ---- the caller's side ------------------------------------------------------------------ */

/* Remove the child's directory and what the driver left in it (flat: the
 * Intel driver's capture files). */
static void remove_workdir(occ_backend *b)
{
    if (!b->workdir[0])
        return;
    DIR *d = opendir(b->workdir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL)
            if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
                unlinkat(dirfd(d), e->d_name, 0);
        closedir(d);
    }
    rmdir(b->workdir);
    b->workdir[0] = '\0';
}

/* The child is gone or late: kill and reap it, say why. */
static occ_status child_failed(occ_backend *b, int how, const char *what, occ_diag *diag)
{
    int st = 0;
    if (how == 1)
        kill(b->child, SIGKILL);
    pid_t w = waitpid(b->child, &st, 0);
    b->dead = true;
    close(b->fd);
    b->fd = -1;
    remove_workdir(b);
    if (how == 1)
        return occ__diag(diag, OCC_ERR_DEVICE, NULL, 0, 0, NULL,
                         "the %s backend did not finish %s within %.0f s (watchdog); the probe "
                         "process was killed",
                         b->name, what, b->timeout_s);
    if (w > 0 && WIFSIGNALED(st))
        return occ__diag(diag, OCC_ERR_DEVICE, NULL, 0, 0, NULL,
                         "the %s backend's probe process died with signal %d during %s", b->name,
                         WTERMSIG(st), what);
    return occ__diag(diag, OCC_ERR_DEVICE, NULL, 0, 0, NULL,
                     "the %s backend's probe process ended unexpectedly during %s (exit %d)",
                     b->name, what, w > 0 && WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

/* Send a request, wait for the reply header; 0 = got it. */
static occ_status call(occ_backend *b, const request *q, const void *extra, size_t extra_size,
                       const char *what, reply *a, double *deadline, occ_diag *diag)
{
    if (b->dead)
        return occ__diag(diag, OCC_ERR_DEVICE, NULL, 0, 0, NULL,
                         "the %s backend stopped earlier (watchdog or crash); open it again",
                         b->name);
    *deadline = now_s() + b->timeout_s;
    if (!send_all(b->fd, q, sizeof *q) || (extra_size && !send_all(b->fd, extra, extra_size)))
        return child_failed(b, 2, what, diag);
    int r = occ__read_deadline(b->fd, a, sizeof *a, *deadline);
    if (r)
        return child_failed(b, r, what, diag);
    if (a->status != OCC_OK && diag)
        *diag = a->diag;
    return a->status;
}

static occ_status open_backend(const char *name, const occ_backend_options *opts,
                               const char *const *env, occ_backend **out, occ_diag *diag)
{
    if (!name || !out || (opts && opts->struct_size < sizeof *opts))
        return occ__diag(diag, OCC_ERR_INVALID_ARGUMENT, NULL, 0, 0, NULL,
                         "occ_backend_open: missing argument");
    *out = NULL;
    occ_backend_options o;
    occ_backend_options_init(&o);
    if (opts)
        o = *opts;
    bool known;
    const occ__backend_ops *ops = occ__backend_find(name, &known);
    if (!known) {
        char list[64] = "";
        for (size_t j = 0; j < occ_backend_count(); j++) {
            strncat(list, j ? ", " : "", sizeof list - strlen(list) - 1);
            strncat(list, occ_backend_name(j), sizeof list - strlen(list) - 1);
        }
        return occ__diag(diag, OCC_ERR_NOT_FOUND, NULL, 0, 0, "backend",
                         "no backend named '%s' (known: %s)", name, list);
    }
    if (!ops)
        return occ__diag(diag, OCC_ERR_UNSUPPORTED, NULL, 0, 0, "backend",
                         "the %s backend was not built into this libocc", name);
    occ_backend *b = calloc(1, sizeof *b);
    if (!b)
        return occ__diag(diag, OCC_ERR_NO_MEMORY, NULL, 0, 0, NULL, "out of memory");
    b->ops = ops;
    b->timeout_s = o.timeout_s;
    b->fd = -1;
    snprintf(b->name, sizeof b->name, "%s", name);

    if (env && o.timeout_s <= 0)
        o.timeout_s = 30; /* the environment is the child's alone */
    if (env) {
        const char *tmp = getenv("TMPDIR");
        snprintf(b->workdir, sizeof b->workdir, "%s/occ-%s-XXXXXX", tmp && *tmp ? tmp : "/tmp",
                 name);
        if (!mkdtemp(b->workdir)) {
            int e = errno;
            free(b);
            return occ__diag(diag, OCC_ERR_IO, NULL, 0, 0, NULL,
                             "cannot make a working directory for the %s backend: %s", name,
                             strerror(e));
        }
    }
    if (o.timeout_s <= 0) {
        occ_status s = ops->open(&o, &b->state, diag);
        if (s != OCC_OK) {
            free(b);
            return s;
        }
        *out = b;
        return OCC_OK;
    }

    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) {
        remove_workdir(b);
        free(b);
        return occ__diag(diag, OCC_ERR_DEVICE, NULL, 0, 0, NULL,
                         "cannot create the watchdog's socket pair: %s", strerror(errno));
    }
    fflush(NULL); /* the child must not repeat the caller's buffered output */
    pid_t pid = fork();
    if (pid < 0) {
        close(sv[0]);
        close(sv[1]);
        remove_workdir(b);
        free(b);
        return occ__diag(diag, OCC_ERR_DEVICE, NULL, 0, 0, NULL,
                         "cannot fork the watchdog's probe process: %s", strerror(errno));
    }
    if (pid == 0) {
        close(sv[0]);
        signal(SIGPIPE, SIG_IGN);
        reply a;
        memset(&a, 0, sizeof a);
        void *state = NULL;
        for (size_t i = 0; env && env[i] && env[i + 1]; i += 2)
            setenv(env[i], env[i + 1], 1);
        if (b->workdir[0] && chdir(b->workdir) != 0)
            _exit(3);
        a.status = ops->open(&o, &state, &a.diag);
        if (send_all(sv[1], &a, sizeof a) && a.status == OCC_OK)
            serve(ops, state, sv[1]);
        else if (a.status == OCC_OK)
            ops->close(state);
        close(sv[1]);
        _exit(0);
    }
    close(sv[1]);
    b->child = pid;
    b->fd = sv[0];
    reply a;
    int r = occ__read_deadline(b->fd, &a, sizeof a, now_s() + o.timeout_s);
    if (r) {
        occ_status s = child_failed(b, r, "opening the device", diag);
        remove_workdir(b);
        free(b);
        return s;
    }
    if (a.status != OCC_OK) {
        if (diag)
            *diag = a.diag;
        int st;
        close(b->fd);
        waitpid(b->child, &st, 0);
        remove_workdir(b);
        free(b);
        return a.status;
    }
    *out = b;
    return OCC_OK;
}

occ_status occ_backend_open(const char *name, const occ_backend_options *opts, occ_backend **out,
                            occ_diag *diag)
{
    return open_backend(name, opts, NULL, out, diag);
}

occ_status occ__backend_open_env(const char *name, const occ_backend_options *opts,
                                 const char *const *env, occ_backend **out, occ_diag *diag)
{
    static const char *const none[] = {NULL};
    return open_backend(name, opts, env ? env : none, out, diag);
}

void occ__compile_result_free(occ__compile_result *r)
{
    if (!r)
        return;
    free(r->native);
    free(r->kernels);
    memset(r, 0, sizeof *r);
}

occ_status occ__backend_compile(occ_backend *b, const occ__compile_request *req,
                                occ__compile_result *res, occ_diag *diag)
{
    if (!b || !req || !res || (!req->il && req->il_size))
        return occ__diag(diag, OCC_ERR_INVALID_ARGUMENT, NULL, 0, 0, NULL,
                         "occ__backend_compile: missing argument");
    memset(res, 0, sizeof *res);
    if (!b->child)
        return b->ops->compile ? b->ops->compile(b->state, req, res, diag)
                               : occ__diag(diag, OCC_ERR_UNSUPPORTED, NULL, 0, 0, NULL,
                                           "the %s backend cannot compile modules", b->name);
    request q;
    memset(&q, 0, sizeof q);
    q.op = OP_COMPILE;
    q.n = req->il_size;
    /* flags, work-group sizes and the module travel after the request */
    size_t extra = sizeof req->flags + sizeof req->wg + sizeof req->native + req->il_size;
    uint8_t *buf = malloc(extra);
    if (!buf)
        return occ__diag(diag, OCC_ERR_NO_MEMORY, NULL, 0, 0, NULL, "out of memory");
    memcpy(buf, req->flags, sizeof req->flags);
    memcpy(buf + sizeof req->flags, req->wg, sizeof req->wg);
    memcpy(buf + sizeof req->flags + sizeof req->wg, &req->native, sizeof req->native);
    if (req->il_size)
        memcpy(buf + sizeof req->flags + sizeof req->wg + sizeof req->native, req->il,
               req->il_size);
    reply a;
    double deadline;
    occ_status s = call(b, &q, buf, extra, "compiling the module", &a, &deadline, diag);
    free(buf);
    if (s != OCC_OK)
        return s;
    uint64_t sizes[2];
    int r = occ__read_deadline(b->fd, sizes, sizeof sizes, deadline);
    if (!r && (sizes[0] > ((uint64_t)1 << 31) || sizes[1] > 65536))
        r = 2; /* cannot be a real answer */
    if (!r) {
        res->native = malloc(sizes[0] ? (size_t)sizes[0] : 1);
        res->kernels = calloc(sizes[1] ? (size_t)sizes[1] : 1, sizeof *res->kernels);
        if (!res->native || !res->kernels) {
            occ__compile_result_free(res);
            return child_failed(b, 1, "compiling the module (out of memory)", diag);
        }
        res->native_size = (size_t)sizes[0];
        res->n_kernels = (size_t)sizes[1];
        r = occ__read_deadline(b->fd, res->native, res->native_size, deadline);
        if (!r)
            r = occ__read_deadline(b->fd, res->kernels, res->n_kernels * sizeof *res->kernels, deadline);
    }
    if (r) {
        occ__compile_result_free(res);
        return child_failed(b, r, "compiling the module", diag);
    }
    return OCC_OK;
}

void occ_backend_close(occ_backend *b)
{
    if (!b)
        return;
    if (!b->child) {
        b->ops->close(b->state);
    } else if (!b->dead) {
        request q;
        memset(&q, 0, sizeof q);
        q.op = OP_CLOSE;
        send_all(b->fd, &q, sizeof q);
        /* give the driver a moment to tear down, then insist */
        int st;
        double deadline = now_s() + (b->timeout_s < 10 ? b->timeout_s : 10);
        while (waitpid(b->child, &st, WNOHANG) == 0) {
            if (now_s() > deadline) {
                kill(b->child, SIGKILL);
                waitpid(b->child, &st, 0);
                break;
            }
            struct timespec ts = {0, 2000000};
            nanosleep(&ts, NULL);
        }
        close(b->fd);
    }
    remove_workdir(b);
    free(b);
}

occ_status occ_backend_describe(occ_backend *b, occ_device_desc *desc, occ_backend_info *info,
                                occ_diag *diag)
{
    if (!b)
        return occ__diag(diag, OCC_ERR_INVALID_ARGUMENT, NULL, 0, 0, NULL, "no backend");
    occ_device_desc d;
    occ_backend_info in;
    occ_device_desc_init(&d);
    memset(&in, 0, sizeof in);
    in.struct_size = sizeof in;
    occ_status s;
    if (!b->child) {
        s = b->ops->describe(b->state, &d, &in, diag);
    } else {
        request q;
        memset(&q, 0, sizeof q);
        q.op = OP_DESCRIBE;
        reply a;
        double deadline;
        s = call(b, &q, NULL, 0, "describing the device", &a, &deadline, diag);
        if (s == OCC_OK) {
            int r = occ__read_deadline(b->fd, &d, sizeof d, deadline);
            if (!r)
                r = occ__read_deadline(b->fd, &in, sizeof in, deadline);
            if (r)
                return child_failed(b, r, "describing the device", diag);
        }
    }
    if (s != OCC_OK)
        return s;
    if (desc)
        *desc = d;
    if (info)
        *info = in;
    return OCC_OK;
}

static int cmp_record(const void *a, const void *b)
{
    const occ_record *x = a, *y = b;
    if (x->work_group != y->work_group)
        return x->work_group < y->work_group ? -1 : 1;
    if (x->thread != y->thread)
        return x->thread < y->thread ? -1 : 1;
    return 0;
}

occ_status occ_backend_launch(occ_backend *b, const occ_probe_config *cfg, occ_probe_result *res,
                              occ_diag *diag)
{
    if (!b || !cfg || !res || cfg->struct_size < sizeof *cfg ||
        cfg->kernel.struct_size < sizeof cfg->kernel)
        return occ__diag(diag, OCC_ERR_INVALID_ARGUMENT, NULL, 0, 0, NULL,
                         "occ_backend_launch: missing argument");
    if (cfg->work_groups == 0 || !(cfg->duration_s > 0) || cfg->duration_s > 10.0)
        return occ__diag(diag, OCC_ERR_VALUE, NULL, 0, 0, NULL,
                         "a probe needs at least one work-group and a duration in (0, 10] s");
    if (!(cfg->duration_spread_s >= 0) || cfg->duration_spread_s > 10.0)
        return occ__diag(diag, OCC_ERR_VALUE, NULL, 0, 0, NULL,
                         "a probe's duration spread must be in [0, 10] s");
    occ_probe_result_init(res);
    occ_status s;
    if (!b->child) {
        s = b->ops->launch(b->state, cfg, res, diag);
    } else {
        request q;
        memset(&q, 0, sizeof q);
        q.op = OP_LAUNCH;
        q.cfg = *cfg;
        reply a;
        double deadline;
        s = call(b, &q, NULL, 0, "the probe launch", &a, &deadline, diag);
        if (s == OCC_OK) {
            int r = occ__read_deadline(b->fd, res, sizeof *res, deadline);
            res->records = NULL;
            if (!r && res->n_records) {
                res->records = malloc(res->n_records * sizeof *res->records);
                if (!res->records) {
                    res->n_records = 0;
                    return child_failed(b, 1, "the probe launch (out of memory)", diag);
                }
                r = occ__read_deadline(b->fd, res->records, res->n_records * sizeof *res->records,
                                  deadline);
            }
            if (r) {
                occ_probe_result_free(res);
                return child_failed(b, r, "the probe launch", diag);
            }
        }
    }
    if (s != OCC_OK) {
        occ_probe_result_free(res);
        return s;
    }
    qsort(res->records, res->n_records, sizeof *res->records, cmp_record);
    return OCC_OK;
}

occ_status occ_backend_driver_residency(occ_backend *b, const occ_kernel *requested,
                                        occ_kernel *actual, int32_t *driver_resident, size_t n,
                                        occ_diag *diag)
{
    if (!b || (n && (!requested || !actual || !driver_resident)))
        return occ__diag(diag, OCC_ERR_INVALID_ARGUMENT, NULL, 0, 0, NULL,
                         "occ_backend_driver_residency: missing argument");
    if (!b->child)
        return b->ops->driver_residency
                   ? b->ops->driver_residency(b->state, requested, actual, driver_resident, n, diag)
                   : occ__diag(diag, OCC_ERR_UNSUPPORTED, NULL, 0, 0, NULL,
                               "the %s backend has no driver occupancy query", b->name);
    request q;
    memset(&q, 0, sizeof q);
    q.op = OP_DRIVER_RESIDENCY;
    q.n = n;
    reply a;
    double deadline;
    occ_status s = call(b, &q, requested, n * sizeof *requested, "the driver occupancy query", &a,
                        &deadline, diag);
    if (s != OCC_OK)
        return s;
    int r = occ__read_deadline(b->fd, actual, n * sizeof *actual, deadline);
    if (!r)
        r = occ__read_deadline(b->fd, driver_resident, n * sizeof *driver_resident, deadline);
    if (r)
        return child_failed(b, r, "the driver occupancy query", diag);
    return OCC_OK;
}
