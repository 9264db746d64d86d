/* occcalc trace: run a program unmodified, record its kernel launches
 * through the trace interposer (libocc_trace.so) and report, per kernel, the
 * occupancy the model predicts (docs/trace.md). */
#define _GNU_SOURCE
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "args.h"
#include "commands.h"
#include "outfile.h"
#include "trace_report.h"

/* Exit codes of the shell for a program that cannot be run. */
enum { EXIT_NOT_EXECUTABLE = 126, EXIT_NOT_FOUND = 127 };

static void trace_help(void)
{
    puts("usage: occcalc trace [--device D] [--json | --jsonl | --csv] [-o FILE] [--launches]\n"
         "                     [--records DIR] [--no-gpu-time] -- PROGRAM [ARGS...]\n"
         "       occcalc trace --replay DIR [--device D] [--json | --jsonl | --csv] [-o FILE]\n"
         "                     [--launches]\n"
         "\n"
         "Runs PROGRAM unmodified, records every kernel launch it makes through Level Zero or\n"
         "CUDA (children included), and reports per kernel: launches, work-group and grid sizes,\n"
         "predicted occupancy per core and over the GPU (waves), the limiter, the next step,\n"
         "spills, and GPU time where CUDA gives it.  The report goes to stderr (or FILE).\n"
         "\n"
         "  -d, --device NAME|PATH  predict with this profile (default: the built-in profile that\n"
         "                          fits each traced device)\n"
         "  -j, --json              JSON (schema \"occ-trace/1\")\n"
         "      --jsonl             JSON Lines: one line per launch with --launches, else the JSON on one line\n"
         "      --csv               CSV, one row per kernel configuration (per launch with --launches)\n"
         "  -o, --output FILE       write the report to FILE instead of stderr\n"
         "      --launches          also list every launch\n"
         "      --records DIR       keep the launch records in DIR (created if missing)\n"
         "      --replay DIR        report on records kept earlier; runs nothing\n"
         "      --no-gpu-time       CUDA: do not collect kernel times (CUPTI activity)\n"
         "  -h, --help              this help\n"
         "\n"
         "Exit code: PROGRAM's own (killed by a signal: occcalc ends with the same signal).\n"
         "Before PROGRAM runs: 2 usage error, 3 bad profile, 4 cannot trace (static or setuid\n"
         "program, interposer missing), 126 not executable, 127 not found.  After it: 5 when the\n"
         "report cannot be written and PROGRAM exited 0.  With --replay: 0, 2, 3, 5.");
}

/* ---- finding things ------------------------------------------------------------------- */

#ifndef OCC_TRACE_BUILD_LIB
#define OCC_TRACE_BUILD_LIB ""
#define OCC_TRACE_BUILD_CLI_DIR ""
#define OCC_TRACE_INSTALL_LIB ""
#define OCC_TRACE_LIBDIR_REL "lib"
#endif

static bool readable(const char *path) { return path[0] && access(path, R_OK) == 0; }

/* The interposer: $OCC_TRACE_LIB, then beside this occcalc (build tree or
 * install prefix), then the configured install path. */
static bool find_trace_lib(char *out, size_t size)
{
    const char *env = getenv("OCC_TRACE_LIB");
    if (env && *env) {
        snprintf(out, size, "%s", env);
        return readable(out);
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = 0;
        char *slash = strrchr(exe, '/');
        if (slash)
            *slash = 0;
        if (strcmp(exe, OCC_TRACE_BUILD_CLI_DIR) == 0 && readable(OCC_TRACE_BUILD_LIB)) {
            snprintf(out, size, "%s", OCC_TRACE_BUILD_LIB);
            return true;
        }
        int len = snprintf(out, size, "%s/../%s/occ/libocc_trace.so", exe, OCC_TRACE_LIBDIR_REL);
        if (len > 0 && (size_t)len < size && readable(out))
            return true;
    }
    snprintf(out, size, "%s", OCC_TRACE_INSTALL_LIB);
    return readable(out);
}

/* PROGRAM as execvp would find it; 0, or EXIT_NOT_FOUND / EXIT_NOT_EXECUTABLE. */
static int resolve_program(const char *prog, char *out, size_t size)
{
    if (strchr(prog, '/')) {
        snprintf(out, size, "%s", prog);
        if (access(out, F_OK) != 0)
            return EXIT_NOT_FOUND;
        return access(out, X_OK) == 0 ? 0 : EXIT_NOT_EXECUTABLE;
    }
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/local/bin:/usr/bin:/bin";
    bool exists = false;
    for (const char *p = path; *p;) {
        size_t len = strcspn(p, ":");
        snprintf(out, size, "%.*s%s%s", (int)len, p, len ? "/" : "", prog);
        struct stat st;
        if (stat(out, &st) == 0 && S_ISREG(st.st_mode)) {
            if (access(out, X_OK) == 0)
                return 0;
            exists = true;
        }
        p += len;
        if (*p == ':')
            p++;
    }
    snprintf(out, size, "%s", prog);
    return exists ? EXIT_NOT_EXECUTABLE : EXIT_NOT_FOUND;
}

/* Why PROGRAM cannot be traced ("" when it can): LD_PRELOAD reaches only
 * dynamically linked programs, and the loader ignores it for setuid ones. */
static void untraceable(const char *path, char *why, size_t size)
{
    why[0] = 0;
    struct stat st;
    if (stat(path, &st) != 0)
        return;
    if (((st.st_mode & S_ISUID) && st.st_uid != geteuid()) ||
        ((st.st_mode & S_ISGID) && st.st_gid != getegid())) {
        snprintf(why, size, "it is set-user-ID or set-group-ID, and the dynamic loader ignores "
                            "LD_PRELOAD for such programs");
        return;
    }
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    Elf64_Ehdr eh;
    ssize_t n = read(fd, &eh, sizeof eh);
    if (n < 4 || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) {
        close(fd); /* a script: its interpreter is traced */
        return;
    }
    if (n < (ssize_t)sizeof eh || eh.e_ident[EI_CLASS] != ELFCLASS64) {
        snprintf(why, size, "it is a 32-bit program; the interposer is 64-bit");
        close(fd);
        return;
    }
    bool interp = false;
    for (unsigned i = 0; i < eh.e_phnum && !interp; i++) {
        Elf64_Phdr ph;
        if (pread(fd, &ph, sizeof ph, (off_t)(eh.e_phoff + (Elf64_Off)i * eh.e_phentsize)) !=
            (ssize_t)sizeof ph)
            break;
        interp = ph.p_type == PT_INTERP;
    }
    close(fd);
    if (!interp && eh.e_type == ET_EXEC)
        snprintf(why, size, "it is statically linked: no dynamic loader, so LD_PRELOAD cannot "
                            "place the interposer in it");
    else if (!interp && eh.e_type == ET_DYN)
        snprintf(why, size, "it has no program interpreter (a static-pie or a shared library), "
                            "so LD_PRELOAD cannot place the interposer in it");
}

/* ---- the record directory ---------------------------------------------------------------- */

/* Remove the *.rec files in dir (and dir itself when remove_dir). */
static void clean_dir(const char *dir, bool remove_dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            size_t l = strlen(e->d_name);
            if (l > 4 && strcmp(e->d_name + l - 4, ".rec") == 0) {
                char p[PATH_MAX];
                snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
                unlink(p);
            }
        }
        closedir(d);
    }
    if (remove_dir)
        rmdir(dir);
}

/* ---- running ------------------------------------------------------------------------------- */

static volatile sig_atomic_t child_pid;

static void forward_signal(int sig)
{
    if (child_pid > 0)
        kill((pid_t)child_pid, sig);
}

static int set_env(const char *lib, const char *dir, bool gpu_time)
{
    const char *old = getenv("LD_PRELOAD");
    size_t n = strlen(lib) + (old ? strlen(old) : 0) + 2;
    char *preload = malloc(n);
    if (!preload)
        return EXIT_INTERNAL;
    snprintf(preload, n, "%s%s%s", lib, old && *old ? ":" : "", old && *old ? old : "");
    int rc = setenv("LD_PRELOAD", preload, 1) || setenv("OCC_TRACE_DIR", dir, 1);
    free(preload);
#ifdef OCC_TRACE_HAVE_CUDA
    const char *inj = getenv("CUDA_INJECTION64_PATH");
    if (inj && *inj && strcmp(inj, lib) != 0)
        fprintf(stderr, "occcalc trace: replacing CUDA_INJECTION64_PATH=%s (one injection "
                        "library at a time)\n", inj);
    rc = rc || setenv("CUDA_INJECTION64_PATH", lib, 1);
#endif
    if (!gpu_time)
        rc = rc || setenv("OCC_TRACE_GPU_TIME", "0", 1);
    return rc ? EXIT_INTERNAL : EXIT_OK;
}

/* Fork and exec; waits.  Fills p; returns 0, or an exit code when PROGRAM
 * could not be started (message printed). */
static int run_program(char **argv, const char *path, tr_program *p)
{
    int pipefd[2];
    if (pipe2(pipefd, O_CLOEXEC) != 0) {
        fprintf(stderr, "occcalc trace: pipe: %s\n", strerror(errno));
        return EXIT_INTERNAL;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "occcalc trace: fork: %s\n", strerror(errno));
        close(pipefd[0]);
        close(pipefd[1]);
        return EXIT_INTERNAL;
    }
    if (pid == 0) {
        close(pipefd[0]);
        execv(path, argv);
        int e = errno;
        ssize_t ignored = write(pipefd[1], &e, sizeof e);
        (void)ignored;
        _exit(EXIT_NOT_EXECUTABLE);
    }
    close(pipefd[1]);
    /* like system(): the terminal's interrupt reaches the program, which decides */
    struct sigaction ign = {.sa_handler = SIG_IGN}, fwd = {.sa_handler = forward_signal};
    struct sigaction old_int, old_quit, old_term, old_hup;
    sigemptyset(&ign.sa_mask);
    sigemptyset(&fwd.sa_mask);
    child_pid = pid;
    sigaction(SIGINT, &ign, &old_int);
    sigaction(SIGQUIT, &ign, &old_quit);
    sigaction(SIGTERM, &fwd, &old_term);
    sigaction(SIGHUP, &fwd, &old_hup);
    int exec_errno = 0;
    ssize_t got;
    while ((got = read(pipefd[0], &exec_errno, sizeof exec_errno)) < 0 && errno == EINTR)
        ;
    close(pipefd[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGQUIT, &old_quit, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    sigaction(SIGHUP, &old_hup, NULL);
    child_pid = 0;
    if (got == (ssize_t)sizeof exec_errno) {
        fprintf(stderr, "occcalc trace: cannot run %s: %s\n", path, strerror(exec_errno));
        return exec_errno == ENOENT ? EXIT_NOT_FOUND : EXIT_NOT_EXECUTABLE;
    }
    p->signaled = WIFSIGNALED(status);
    p->exited = WIFEXITED(status);
    p->status = p->signaled ? WTERMSIG(status) : WEXITSTATUS(status);
    return 0;
}

/* End the way the program did: its exit status, or death by its signal. */
static int pass_status(const tr_program *p)
{
    if (!p->signaled)
        return p->status;
    fflush(NULL);
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core); /* the program already dumped its own, if any */
    signal(p->status, SIG_DFL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, p->status);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    raise(p->status);
    return 128 + p->status; /* a signal that does not kill */
}

/* ---- output -------------------------------------------------------------------------------- */

/* Read the records, predict, write to out (opened before the program ran;
 * NULL: stderr).  EXIT_OK or an exit code (message printed). */
static int report(const char *dir, const occ_device *dev, const tr_options *o, outfile *out,
                  const tr_program *p)
{
    occ_trace *t = NULL;
    char err[512];
    occ_status st = occ_trace_open(dir, dev, &t, err, sizeof err);
    int rc = EXIT_OK;
    if (st != OCC_OK) {
        fprintf(stderr, "occcalc trace: %s\n", err);
        rc = st == OCC_ERR_NO_MEMORY ? EXIT_INTERNAL : EXIT_INPUT;
        if (out)
            outfile_discard(out);
    } else if (out) {
        rc = outfile_close(out, tr_report_write(t, o, p, out->f) ? 0 : EIO);
    } else if (!tr_report_write(t, o, p, stderr)) {
        rc = EXIT_INTERNAL;
    }
    occ_trace_close(t);
    return rc;
}

/* Everything after the options: open the output, run the program (or
 * not, for --replay), report. */
static int trace_run(const occ_device *dev, const tr_options *o, const char *output,
                     const char *records, const char *replay, bool gpu_time, char **prog)
{
    /* the output is opened before anything runs: a bad path costs no run */
    outfile out = {0};
    if (output && outfile_open(&out, output) != EXIT_OK)
        return EXIT_OUTPUT;
    outfile *to = output ? &out : NULL;
    if (replay) {
        tr_program p = {.replay = replay};
        return report(replay, dev, o, to, &p);
    }
#ifdef OCC_FUZZ_OCCCALC_MAIN_H
    if (prog[0]) /* the fuzzer must not run what it generates */
        return outfile_discard(&out), usage_error("trace: running programs is disabled in the fuzzing build");
#endif
    char lib[PATH_MAX], path[PATH_MAX], why[256];
    if (!find_trace_lib(lib, sizeof lib)) {
        fprintf(stderr, "occcalc trace: the interposer %s is missing or unreadable; set "
                        "OCC_TRACE_LIB to libocc_trace.so\n", lib[0] ? lib : "libocc_trace.so");
        return outfile_discard(&out), EXIT_DEVICE;
    }
    if (strpbrk(lib, " :")) { /* LD_PRELOAD splits its list at blanks and colons */
        fprintf(stderr, "occcalc trace: the interposer's path %s contains a blank or a colon, which "
                        "LD_PRELOAD cannot carry; copy or link it elsewhere and set OCC_TRACE_LIB\n", lib);
        return outfile_discard(&out), EXIT_DEVICE;
    }
    int rc = resolve_program(prog[0], path, sizeof path);
    if (rc) {
        fprintf(stderr, "occcalc trace: %s: %s\n", prog[0],
                rc == EXIT_NOT_FOUND ? "command not found" : "not executable");
        return outfile_discard(&out), rc;
    }
    untraceable(path, why, sizeof why);
    if (why[0]) {
        fprintf(stderr, "occcalc trace: cannot trace %s: %s\n", path, why);
        return outfile_discard(&out), EXIT_DEVICE;
    }
    char dir[PATH_MAX];
    if (records) {
        if (mkdir(records, 0700) != 0 && errno != EEXIST) {
            fprintf(stderr, "occcalc trace: --records %s: %s\n", records, strerror(errno));
            return outfile_discard(&out), EXIT_INPUT;
        }
        struct stat st;
        if (stat(records, &st) != 0 || !S_ISDIR(st.st_mode)) {
            fprintf(stderr, "occcalc trace: --records %s: not a directory\n", records);
            return outfile_discard(&out), EXIT_INPUT;
        }
        if (!realpath(records, dir)) {
            fprintf(stderr, "occcalc trace: --records %s: %s\n", records, strerror(errno));
            return outfile_discard(&out), EXIT_INPUT;
        }
        clean_dir(dir, false); /* records of an earlier run would mix in */
    } else {
        const char *tmp = getenv("TMPDIR");
        snprintf(dir, sizeof dir, "%s/occ-trace-XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(dir)) {
            fprintf(stderr, "occcalc trace: cannot create a directory for the records (%s): %s\n",
                    dir, strerror(errno));
            return outfile_discard(&out), EXIT_INTERNAL;
        }
    }
    tr_program p = {.argv = prog};
    rc = set_env(lib, dir, gpu_time);
    if (rc == EXIT_OK)
        rc = run_program(prog, path, &p);
    else
        fprintf(stderr, "occcalc trace: cannot set the environment\n");
    if (rc) {
        outfile_discard(&out);
        if (!records)
            clean_dir(dir, true);
        return rc;
    }
    rc = report(dir, dev, o, to, &p);
    if (rc != EXIT_OK && !records) /* the run cannot be repeated: its records stay */
        fprintf(stderr, "occcalc trace: the records are kept in %s (occcalc trace --replay %s)\n",
                dir, dir);
    else if (!records)
        clean_dir(dir, true);
    if (rc != EXIT_OK && !p.signaled && p.status == 0)
        return rc;
    return pass_status(&p);
}

typedef struct trace_args {
    tr_options o;
    const char *output, *records, *replay;
    bool gpu_time;
} trace_args;

enum { OPT_LAUNCHES = OPT_FIRST_FREE, OPT_RECORDS, OPT_REPLAY, OPT_NO_TIME };

static int trace_option(void *ctx, int id, const char *arg)
{
    trace_args *a = ctx;
    switch (id) {
    case 'o': a->output = arg; return EXIT_OK;
    case OPT_LAUNCHES: a->o.launches = true; return EXIT_OK;
    case OPT_RECORDS: a->records = arg; return EXIT_OK;
    case OPT_REPLAY: a->replay = arg; return EXIT_OK;
    case OPT_NO_TIME: a->gpu_time = false; return EXIT_OK;
    default: return CLI_NOT_MINE; /* --device and the output formats: the shared table's */
    }
}

int cmd_trace(int argc, char **argv)
{
    static const struct option own[] = {
        {"output", required_argument, 0, 'o'},      {"launches", no_argument, 0, OPT_LAUNCHES},
        {"records", required_argument, 0, OPT_RECORDS}, {"replay", required_argument, 0, OPT_REPLAY},
        {"no-gpu-time", no_argument, 0, OPT_NO_TIME}, {0, 0, 0, 0},
    };
    trace_args a = {.o = {.format = TR_TEXT}, .gpu_time = true};
    char **prog = NULL;
    const cli_command cmd = {"trace", CLI_TRACE, own, "o:", trace_option, &a, trace_help, NULL, &prog};
    cli_kernel c;
    cli_kernel_init(&c);
    int parsed = cli_parse(&cmd, argc, argv, &c);
    if (parsed)
        return parsed == CLI_DONE ? EXIT_OK : parsed;
    /* JSON and JSON Lines are the report's document (trace_report.c); CSV is the
     * trace's own table, one row a configuration (or a launch) */
    a.o.format = c.format == OUT_JSON ? TR_JSON : c.format == OUT_JSONL ? TR_JSONL
               : c.format == OUT_CSV ? TR_CSV : TR_TEXT;
    const char *output = a.output, *records = a.records, *replay = a.replay, *device = c.device;
    bool gpu_time = a.gpu_time;
    tr_options o = a.o;
    if (output && !*output)
        return usage_error("trace: --output needs a file name");
    if (replay && (*prog || records))
        return usage_error("trace: --replay runs nothing: no PROGRAM%s", records ? " and no --records" : "");
    if (!replay && !*prog)
        return usage_error("trace: no PROGRAM to run (occcalc trace [OPTIONS] -- PROGRAM [ARGS...])");
    occ_device *dev = NULL;
    if (device) { /* a bad profile is reported before anything runs */
        int rc = cli_open_device(device, &dev);
        if (rc != EXIT_OK)
            return rc;
    }
    int rc = trace_run(dev, &o, output, records, replay, gpu_time, prog);
    occ_device_free(dev);
    return rc;
}
