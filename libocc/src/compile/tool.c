/* External compilers with a timeout, cleaned up on signals (tool.h). */
#define _GNU_SOURCE /* prctl's PR_SET_PDEATHSIG, pipe2 */
#include "compile/tool.h"
#include "compile/fdio.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h> /* nanosleep */
#include <unistd.h>

/* ---- the registry the signal handler reads --------------------------------------- */

#define MAX_ACTIVE 8

typedef struct active {
    volatile sig_atomic_t live;
    volatile pid_t pid;         /* the tool running, 0 none */
    const occ__tool_dir *dir;
} active;

static active registry[MAX_ACTIVE];
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static int n_live;
static struct sigaction old_int, old_term;
static bool have_int, have_term;

/* Only async-signal-safe calls: kill, unlink, rmdir, sigaction, raise. */
static void on_signal(int sig)
{
    for (int i = 0; i < MAX_ACTIVE; i++) {
        if (!registry[i].live)
            continue;
        if (registry[i].pid > 0)
            kill(registry[i].pid, SIGKILL);
        const occ__tool_dir *d = registry[i].dir;
        for (int f = 0; f < OCC__TOOL_MAX_FILES; f++)
            if (d->files[f][0])
                unlink(d->files[f]);
        rmdir(d->dir);
    }
    sigaction(sig, sig == SIGINT ? &old_int : &old_term, NULL);
    raise(sig);
}

/* Install the handler over a signal that is not ignored. */
static bool install(int sig, struct sigaction *old)
{
    if (sigaction(sig, NULL, old) != 0 || old->sa_handler == SIG_IGN)
        return false;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND;
    return sigaction(sig, &sa, NULL) == 0;
}

static int register_dir(const occ__tool_dir *d)
{
    pthread_mutex_lock(&registry_lock);
    int slot = -1;
    for (int i = 0; i < MAX_ACTIVE && slot < 0; i++)
        if (!registry[i].live)
            slot = i;
    if (slot >= 0) {
        registry[slot].pid = 0;
        registry[slot].dir = d;
        registry[slot].live = 1;
        if (n_live++ == 0) {
            have_int = install(SIGINT, &old_int);
            have_term = install(SIGTERM, &old_term);
        }
    }
    pthread_mutex_unlock(&registry_lock);
    return slot;
}

static void unregister_dir(int slot)
{
    if (slot < 0)
        return;
    pthread_mutex_lock(&registry_lock);
    registry[slot].live = 0;
    registry[slot].pid = 0;
    if (--n_live == 0) {
        /* Give the signals back, unless our handler has already done so. */
        struct sigaction cur;
        if (have_int && sigaction(SIGINT, NULL, &cur) == 0 && cur.sa_handler == on_signal)
            sigaction(SIGINT, &old_int, NULL);
        if (have_term && sigaction(SIGTERM, NULL, &cur) == 0 && cur.sa_handler == on_signal)
            sigaction(SIGTERM, &old_term, NULL);
        have_int = have_term = false;
    }
    pthread_mutex_unlock(&registry_lock);
}

/* ---- the directory ----------------------------------------------------------------- */

occ_status occ__tool_dir_make(occ__tool_dir *d, const char *prefix, const char *const *names,
                              occ_diag *diag)
{
    memset(d, 0, sizeof *d);
    d->slot = -1;
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp)
        tmp = "/tmp";
    size_t longest = 0;
    for (size_t i = 0; names[i]; i++)
        longest = strlen(names[i]) > longest ? strlen(names[i]) : longest;
    if (strlen(tmp) + strlen(prefix) + longest + 16 >= OCC__TOOL_PATH)
        return occ__diag(diag, OCC_ERR_IO, NULL, 0, 0, NULL,
                         "the temporary directory's path is too long: %s", tmp);
    snprintf(d->dir, sizeof d->dir, "%s/occ-%s-XXXXXX", tmp, prefix);
    if (!mkdtemp(d->dir))
        return occ__diag(diag, OCC_ERR_IO, NULL, 0, 0, NULL,
                         "cannot create a temporary directory in %s: %s", tmp, strerror(errno));
    size_t dl = strlen(d->dir);
    for (size_t i = 0; names[i] && i < OCC__TOOL_MAX_FILES; i++) { /* lengths checked above */
        size_t nl = strlen(names[i]);
        memcpy(d->files[i], d->dir, dl);
        d->files[i][dl] = '/';
        memcpy(d->files[i] + dl + 1, names[i], nl + 1);
    }
    d->slot = register_dir(d);
    return OCC_OK;
}

void occ__tool_dir_remove(occ__tool_dir *d)
{
    if (!d->dir[0])
        return;
    unregister_dir(d->slot);
    d->slot = -1;
    for (int f = 0; f < OCC__TOOL_MAX_FILES; f++)
        if (d->files[f][0])
            unlink(d->files[f]);
    rmdir(d->dir);
    d->dir[0] = '\0';
}

double occ__tool_timeout_s(void)
{
    const char *e = getenv("OCC_COMPILE_TIMEOUT");
    char *end = NULL;
    double t = e && *e ? strtod(e, &end) : 0;
    return end && !*end && t > 0 && t < 1e6 ? t : 120.0;
}

/* ---- running ----------------------------------------------------------------------- */

int occ__tool_run(occ__tool_dir *d, char *const argv[], const char *log, double timeout_s)
{
    int log_fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (log_fd < 0)
        return OCC__TOOL_NOT_STARTED;
    pid_t parent = getpid();
    sigset_t all, old_mask;
    sigfillset(&all);
    /* No signal between fork and the child's own setup: the child must not
     * run the caller's handlers (ours removes the caller's files). */
    pthread_sigmask(SIG_SETMASK, &all, &old_mask);
    pid_t pid = fork();
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(127);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        int in = open("/dev/null", O_RDONLY);
        if (in < 0 || dup2(in, 0) < 0 || dup2(log_fd, 1) < 0 || dup2(log_fd, 2) < 0)
            _exit(127);
        sigset_t none;
        sigemptyset(&none);
        pthread_sigmask(SIG_SETMASK, &none, NULL);
        execvp(argv[0], argv);
        _exit(127);
    }
    int fork_errno = errno;
    if (pid > 0 && d->slot >= 0)
        registry[d->slot].pid = pid;
    pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
    close(log_fd);
    if (pid < 0) {
        errno = fork_errno;
        return OCC__TOOL_NOT_STARTED;
    }
    double deadline = occ__now_s() + timeout_s;
    long nap_ns = 1000000; /* 1 ms, growing to 20 ms */
    int status = 0;
    int result;
    for (;;) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid) {
            result = WIFEXITED(status) ? WEXITSTATUS(status) : 256 + WTERMSIG(status);
            break;
        }
        if (w < 0 && errno != EINTR) {
            result = OCC__TOOL_NOT_STARTED;
            break;
        }
        if (occ__now_s() > deadline) {
            kill(pid, SIGKILL);
            while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                ;
            result = OCC__TOOL_TIMED_OUT;
            break;
        }
        struct timespec ts = {0, nap_ns};
        nanosleep(&ts, NULL);
        if (nap_ns < 20000000)
            nap_ns *= 2;
    }
    if (d->slot >= 0)
        registry[d->slot].pid = 0;
    return result;
}
