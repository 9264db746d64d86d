/* Corpus replay driver: runs a fuzz target's LLVMFuzzerTestOneInput on every
 * file given (directories are walked, in name order), without libFuzzer, so
 * any compiler builds it.  CI runs it over tests/fuzz/corpus/<target> and
 * tests/fuzz/crashers/<target> (meson test --suite fuzz): every input the
 * fuzzer ever found interesting, and every input that once crashed, must
 * pass.
 *
 * The target's own output (a CLI prints a lot) goes to /dev/null; this
 * driver's messages and sanitizer reports go to the original stderr.  When an
 * input crashes, its path is printed (from a signal handler, or the
 * sanitizers' death callback).  OCC_REPLAY_VERBOSE=1 lists every input;
 * OCC_REPLAY_TIMEOUT=S makes an input that runs longer than S seconds abort
 * (a hang found by the fuzzer is then a failure like a crash). */
#define _XOPEN_SOURCE 700 /* realpath */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));
void __sanitizer_set_report_fd(void *fd) __attribute__((weak));
void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

static FILE *report;
static int report_fd = 2;
static int verbose;
static unsigned timeout_s;
static unsigned long count;
static const char *volatile current; /* the input being run */

static void say_current(void)
{
    const char *p = current;
    if (!p)
        return;
    static const char head[] = "\nreplay: FAILED on ";
    ssize_t w = write(report_fd, head, sizeof head - 1);
    w = write(report_fd, p, strlen(p));
    w = write(report_fd, "\n", 1);
    (void)w;
}

static void on_alarm(int sig)
{
    (void)sig;
    static const char msg[] = "\nreplay: timed out";
    ssize_t w = write(report_fd, msg, sizeof msg - 1);
    (void)w;
    say_current();
    signal(SIGABRT, SIG_DFL);
    abort();
}

static void on_fatal_signal(int sig)
{
    say_current();
    signal(sig, SIG_DFL);
    raise(sig);
}

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(report, "replay: cannot open %s\n", path);
        return 1;
    }
    size_t cap = 1 << 16, len = 0;
    uint8_t *buf = malloc(cap);
    size_t n;
    while (buf && (n = fread(buf + len, 1, cap - len, f)) > 0) {
        len += n;
        if (len == cap) {
            uint8_t *bigger = realloc(buf, cap *= 2);
            if (!bigger)
                free(buf);
            buf = bigger;
        }
    }
    fclose(f);
    if (!buf) {
        fprintf(report, "replay: out of memory reading %s\n", path);
        return 1;
    }
    if (verbose) {
        fprintf(report, "replay: %s (%zu bytes)\n", path, len);
        fflush(report);
    }
    /* An exact-size copy so that a read past the end is caught by ASan. */
    uint8_t *exact = malloc(len ? len : 1);
    if (exact)
        memcpy(exact, buf, len);
    free(buf);
    if (!exact)
        return 1;
    current = path;
    alarm(timeout_s);
    LLVMFuzzerTestOneInput(exact, len);
    alarm(0);
    current = NULL;
    free(exact);
    count++;
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_path(const char *path)
{
    struct stat sb;
    if (stat(path, &sb) != 0) {
        fprintf(report, "replay: %s: no such file or directory\n", path);
        return 1;
    }
    if (!S_ISDIR(sb.st_mode))
        return run_file(path);
    DIR *d = opendir(path);
    if (!d) {
        fprintf(report, "replay: cannot read directory %s\n", path);
        return 1;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    int bad = 0;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue; /* ".", "..", and hidden files such as .gitkeep */
        if (n == cap) {
            char **more = realloc(names, (cap = cap ? cap * 2 : 64) * sizeof *names);
            if (!more) {
                bad = 1;
                break;
            }
            names = more;
        }
        size_t len = strlen(path) + strlen(e->d_name) + 2;
        if (!(names[n] = malloc(len))) {
            bad = 1;
            break;
        }
        snprintf(names[n++], len, "%s/%s", path, e->d_name);
    }
    closedir(d);
    if (n)
        qsort(names, n, sizeof *names, by_name);
    for (size_t i = 0; i < n; i++) {
        bad |= run_path(names[i]);
        free(names[i]);
    }
    free(names);
    return bad;
}

int main(int argc, char **argv)
{
    /* Keep our own stderr; silence the target's stdout and stderr. */
    int err_fd = dup(2);
    report = err_fd >= 0 ? fdopen(err_fd, "w") : stderr;
    if (!report)
        report = stderr;
    if (err_fd >= 0) {
        report_fd = err_fd;
        char fd_text[16];
        snprintf(fd_text, sizeof fd_text, "%d", err_fd);
        setenv("OCC_FUZZ_REPORT_FD", fd_text, 1);
    }
    if (__sanitizer_set_report_fd && err_fd >= 0)
        __sanitizer_set_report_fd((void *)(intptr_t)err_fd);
    if (__sanitizer_set_death_callback)
        __sanitizer_set_death_callback(say_current);
    static const int fatal[] = {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL};
    for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++)
        signal(fatal[i], on_fatal_signal);
    int null_fd = open("/dev/null", O_WRONLY);
    if (null_fd >= 0 && !getenv("OCC_REPLAY_SHOW_OUTPUT")) {
        dup2(null_fd, 1);
        dup2(null_fd, 2);
    }
    verbose = getenv("OCC_REPLAY_VERBOSE") != NULL;
    if (getenv("OCC_REPLAY_TIMEOUT")) {
        timeout_s = (unsigned)atoi(getenv("OCC_REPLAY_TIMEOUT"));
        signal(SIGALRM, on_alarm);
    }
    if (argc < 2) {
        fprintf(report, "usage: %s FILE|DIR...  (replays every input through the fuzz target)\n",
                argv[0]);
        return 2;
    }
    /* Absolute paths first: a target's initializer may change directory. */
    char **paths = calloc((size_t)argc, sizeof *paths);
    int bad = !paths;
    for (int i = 1; i < argc && paths; i++)
        if (!(paths[i] = realpath(argv[i], NULL))) {
            fprintf(report, "replay: %s: no such file or directory\n", argv[i]);
            bad = 1;
        }
    if (LLVMFuzzerInitialize)
        LLVMFuzzerInitialize(&argc, &argv);
    for (int i = 1; i < argc && paths; i++) {
        if (paths[i])
            bad |= run_path(paths[i]);
        free(paths[i]);
    }
    free(paths);
    fprintf(report, "replay: %lu inputs, %s\n", count, bad ? "some could not be read" : "all passed");
    return bad;
}
