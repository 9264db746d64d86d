/*
 * The tracer's contract (docs/trace.md, "What the tracer promises"): the
 * record writer (libocc/src/trace/trace_rec.c, compiled in with a 2 MiB cap
 * and a disk-space hook) against programs that do what could hurt it.  Each
 * scenario runs in a forked child twice, traced and untraced, and both runs
 * must end the same (exit status, the program's own file, its open
 * descriptors); the traced run's record file must hold every launch it
 * recorded plus a count of those it could not, exactly:
 *  - a daemon that closes every descriptor, opens its own file (it gets a
 *    number the tracer could have held) and launches past a growth;
 *  - a full disk (the hook refuses space after the first MiB: ENOSPC);
 *  - RLIMIT_FSIZE below the record file's next size (the kernel would send
 *    SIGXFSZ to a process growing past it);
 *  - 40 000 distinct launches against the cap, then repeats of a recorded
 *    and of a dropped launch;
 *  - a thread with a 20 KiB stack that uses 10 KiB of it and launches.
 * Prints FAIL lines; exit 0 pass, 1 fail.
 */
#define _GNU_SOURCE
#include "trace_check.h"
#include "trace_rec.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define LAUNCHES 40000

/* The disk-space hook (TRACE_REC_ALLOCATE): posix_fallocate, or ENOSPC once
 * allowed_allocations are used up. */
static int allowed_allocations = -1; /* -1: no limit */

int test_allocate(int fd, off_t off, off_t len);

int test_allocate(int fd, off_t off, off_t len)
{
    if (allowed_allocations == 0)
        return ENOSPC;
    if (allowed_allocations > 0)
        allowed_allocations--;
    return posix_fallocate(fd, off, len);
}

static const char *dir;

/* What a scenario's program leaves: its own file and its descriptors. */
static void describe_descriptors(FILE *out)
{
    DIR *d = opendir("/proc/self/fd");
    int mine = d ? dirfd(d) : -1;
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (e->d_name[0] != '.' && atoi(e->d_name) != mine) {
            char link[300], target[512];
            snprintf(link, sizeof link, "/proc/self/fd/%s", e->d_name);
            ssize_t n = readlink(link, target, sizeof target - 1);
            target[n > 0 ? n : 0] = 0;
            fprintf(out, "fd %s -> %s\n", e->d_name, strstr(target, "occ-contract") ? "(own)" : target);
        }
    if (d)
        closedir(d);
}

/* The program's own file: text, then its descriptors; the exit status. */
static int write_own_file(const char *own_file, const char *text)
{
    FILE *f = fopen(own_file, "w");
    if (!f)
        return 12;
    fputs(text, f);
    describe_descriptors(f);
    return fclose(f) == 0 ? 0 : 13;
}

static void launch(long i)
{
    trace_launch("L 1 %ld ze normal wg=%ld,1,1 groups=1,1,1 dyn=0 rc=0", trace_tid(), i + 1);
}

/* Scenarios: what the child does; its exit status is compared. */
typedef int scenario(const char *own_file);

static int daemon_like(const char *own_file)
{
    launch(-1); /* the record file exists before the program closes everything */
    for (int fd = 0; fd < 1024; fd++)
        close(fd);
    for (int i = 0; i < 3; i++) /* stdin, stdout and stderr to /dev/null, as daemon(3) */
        if (open("/dev/null", O_RDWR) != i)
            return 10;
    /* the lowest free number: the one a tracer holding its file would have had */
    int fd = open(own_file, O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (fd != 3)
        return 10;
    static const char hello[] = "the program's 20 B\n";
    if (write(fd, hello, sizeof hello - 1) != (ssize_t)sizeof hello - 1)
        return 11;
    for (long i = 0; i < LAUNCHES; i++)
        launch(i);
    FILE *f = fdopen(fd, "a");
    if (!f)
        return 12;
    describe_descriptors(f);
    return fclose(f) == 0 ? 0 : 13;
}

static int many_launches(const char *own_file)
{
    for (long i = 0; i < LAUNCHES; i++)
        launch(i);
    launch(LAUNCHES - 1); /* a repeat of the last: dropped too */
    launch(LAUNCHES - 1);
    launch(0);            /* of the first, recorded: counted in place */
    return write_own_file(own_file, "");
}

static int full_disk(const char *own_file)
{
    allowed_allocations = 1; /* the first MiB only */
    return many_launches(own_file);
}

static int file_size_limit(const char *own_file)
{
    struct rlimit lim = {.rlim_cur = 1536 << 10, .rlim_max = RLIM_INFINITY};
    if (setrlimit(RLIMIT_FSIZE, &lim) != 0)
        return 14;
    return many_launches(own_file);
}

static void *small_stack_thread(void *arg)
{
    volatile char use[10 << 10];
    memset((char *)use, 1, sizeof use);
    for (long i = 0; i < 20; i++)
        launch(i % 3);
    *(int *)arg = use[sizeof use - 1];
    return NULL;
}

static int small_stack(const char *own_file)
{
    pthread_attr_t a;
    pthread_t t;
    int out = 0;
    pthread_attr_init(&a);
    if (pthread_attr_setstacksize(&a, 20 << 10) != 0 ||
        pthread_create(&t, &a, small_stack_thread, &out) != 0)
        return 15;
    pthread_join(t, NULL);
    char text[64];
    snprintf(text, sizeof text, "thread read %d\n", out);
    return write_own_file(own_file, text);
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t cap = 0, n = 0, got;
    do {
        if (cap - n < 65536) {
            char *p = realloc(buf, cap = cap * 2 + 65536);
            if (!p)
                break;
            buf = p;
        }
        got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
    } while (got);
    fclose(f);
    if (buf)
        buf[n] = 0;
    *len = n;
    return buf;
}

/* Run a scenario in a child; its wait status, and what its file holds. */
static int run(scenario *s, bool traced, const char *own_file, char **own, size_t *own_len,
               pid_t *pid)
{
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
        if (!traced)
            unsetenv("OCC_TRACE_DIR");
        _exit(s(own_file));
    }
    int status = -1;
    waitpid(child, &status, 0);
    *own = slurp(own_file, own_len);
    *pid = child;
    return status;
}

typedef struct record {
    long launches;              /* L lines, plus the counts of N lines */
    unsigned long long dropped, other;
    int err;
    bool x_line;
} record;

static record read_record(pid_t pid)
{
    record r = {0};
    char path[512];
    snprintf(path, sizeof path, "%s/%ld.rec", dir, (long)pid);
    size_t len;
    char *buf = slurp(path, &len);
    CHECK(buf, "no record file %s", path);
    for (char *p = buf; p && p < buf + len;) {
        while (p < buf + len && !*p)
            p++;
        char *nl = memchr(p, '\n', (size_t)(buf + len - p));
        if (!nl)
            break;
        *nl = 0;
        unsigned long long count;
        long tid, back;
        if (p[0] == 'L')
            r.launches++;
        else if (sscanf(p, "N %ld %ld %llu", &tid, &back, &count) == 3)
            r.launches += (long)count;
        else if (sscanf(p, "X dropped %llu other %llu errno %d", &r.dropped, &r.other, &r.err) == 3)
            r.x_line = true;
        p = nl + 1;
    }
    free(buf);
    return r;
}

/* Both runs end alike; the record adds up to expect_launches. */
static void check_scenario(const char *name, scenario *s, long expect_launches, int expect_err,
                           bool expect_drops)
{
    char own_file[512];
    snprintf(own_file, sizeof own_file, "%s/own-%s.txt", dir, name);
    char *plain, *traced;
    size_t plain_len, traced_len;
    pid_t pid;
    int untraced_status = run(s, false, own_file, &plain, &plain_len, &pid);
    int traced_status = run(s, true, own_file, &traced, &traced_len, &pid);
    CHECK(WIFEXITED(untraced_status) && WEXITSTATUS(untraced_status) == 0,
          "%s untraced: status 0x%x", name, untraced_status);
    CHECK(traced_status == untraced_status, "%s: status 0x%x traced, 0x%x untraced", name,
          traced_status, untraced_status);
    CHECK(plain && traced && plain_len == traced_len && memcmp(plain, traced, plain_len) == 0,
          "%s: the program's file differs:\n--- untraced\n%s--- traced\n%s", name,
          plain ? plain : "(none)\n", traced ? traced : "(none)\n");
    free(plain);
    free(traced);
    if (!WIFEXITED(traced_status))
        return;
    record r = read_record(pid);
    CHECK(r.x_line, "%s: no X line", name);
    CHECK(r.launches + (long)r.dropped == expect_launches,
          "%s: %ld launches recorded + %llu dropped, expected %ld in all", name, r.launches,
          r.dropped, expect_launches);
    CHECK(expect_drops ? r.dropped > 0 : r.dropped == 0, "%s: %llu dropped", name, r.dropped);
    CHECK(r.err == expect_err, "%s: errno %d recorded, expected %d", name, r.err, expect_err);
    CHECK(r.other == 0, "%s: %llu other records dropped", name, r.other);
}

int main(int argc, char **argv)
{
    dir = trace_test_dir(argv, "occ-contract");
    if (!dir)
        return 1;
    (void)argc;
    /* 40 000 lines of 54-58 bytes: past the first MiB, and past the 2 MiB cap */
    check_scenario("daemon", daemon_like, LAUNCHES + 1, 0, true);
    check_scenario("cap", many_launches, LAUNCHES + 3, 0, true);
    check_scenario("full-disk", full_disk, LAUNCHES + 3, ENOSPC, true);
    check_scenario("fsize", file_size_limit, LAUNCHES + 3, EFBIG, true);
    check_scenario("small-stack", small_stack, 20, 0, false);
    return trace_test_end(dir, "trace-contract");
}
