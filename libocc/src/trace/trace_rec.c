/* The launch-record writer: one memory-mapped text file per process
 * (trace_rec.h says why). */
#define _GNU_SOURCE
#include "trace_rec.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

/* Address space reserved for the file: lines past it are counted, not kept. */
#define VIRT_SIZE ((size_t)1 << 30)
#define FIRST_SIZE ((size_t)1 << 20)

enum { OFF = -1, UNSET = 0, ON = 1 };

static struct {
    _Atomic int state;
    pthread_mutex_t lock;  /* opening and growing */
    int fd;
    char *base;
    _Atomic size_t used;      /* bytes reserved */
    _Atomic size_t file_size; /* bytes the file has (writable) */
    _Atomic unsigned long dropped;
} w = {.state = UNSET, .lock = PTHREAD_MUTEX_INITIALIZER, .fd = -1};

static _Thread_local long cached_tid;

long trace_tid(void)
{
    if (!cached_tid)
        cached_tid = (long)syscall(SYS_gettid);
    return cached_tid;
}

void trace_field(char *out, size_t size, const char *s)
{
    size_t n = 0;
    if (!size)
        return;
    for (; s && *s && n + 1 < size; s++) {
        unsigned char c = (unsigned char)*s;
        out[n++] = (c <= ' ' || c == '"' || c == 0x7f) ? '_' : (char)c;
    }
    out[n] = 0;
}

/* Make the file at least need bytes long; false when it cannot grow. */
static bool grow(size_t need)
{
    bool ok = true;
    pthread_mutex_lock(&w.lock);
    size_t have = atomic_load(&w.file_size);
    if (need > have) {
        size_t size = have ? have : FIRST_SIZE;
        while (size < need)
            size *= 2;
        if (size > VIRT_SIZE)
            size = VIRT_SIZE;
        if (size < need || ftruncate(w.fd, (off_t)size) != 0)
            ok = false;
        else
            atomic_store(&w.file_size, size);
    }
    pthread_mutex_unlock(&w.lock);
    return ok;
}

/* Copy a line into the file; where it went, or NULL when it was dropped. */
static char *put(const char *line, size_t n)
{
    size_t off = atomic_fetch_add(&w.used, n);
    if (off + n > atomic_load(&w.file_size) && !grow(off + n)) {
        atomic_fetch_add(&w.dropped, 1);
        return NULL;
    }
    memcpy(w.base + off, line, n);
    return w.base + off;
}

static void header(void)
{
    char exe[PATH_MAX], field[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = 0;
    trace_field(field, sizeof field, exe);
    char line[TRACE_LINE_MAX];
    int len = snprintf(line, sizeof line, "occ-trace 1\nP %ld %ld %s\n", (long)getpid(),
                       (long)getppid(), field[0] ? field : "?");
    if (len > 0)
        put(line, (size_t)len < sizeof line ? (size_t)len : sizeof line - 1);
}

static void open_file(void)
{
    const char *dir = getenv("OCC_TRACE_DIR");
    if (!dir || !*dir) {
        atomic_store(&w.state, OFF);
        return;
    }
    /* PID.rec, or PID.N.rec when an earlier image of this process (before an
     * exec) already wrote PID.rec: never overwrite another image's records */
    char path[PATH_MAX];
    int fd = -1;
    for (int i = 0; i < 100 && fd < 0; i++) {
        int n = i ? snprintf(path, sizeof path, "%s/%ld.%d.rec", dir, (long)getpid(), i)
                  : snprintf(path, sizeof path, "%s/%ld.rec", dir, (long)getpid());
        if (n <= 0 || (size_t)n >= sizeof path)
            break;
        fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    void *base = fd >= 0 ? mmap(NULL, VIRT_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
                         : MAP_FAILED;
    if (base == MAP_FAILED) {
        if (fd >= 0)
            close(fd);
        /* say it once, in the program's stderr: the report will lack this process */
        static const char msg[] = "occcalc trace: cannot write the launch records of a process\n";
        ssize_t ignored = write(2, msg, sizeof msg - 1);
        (void)ignored;
        atomic_store(&w.state, OFF);
        return;
    }
    w.fd = fd;
    w.base = base;
    atomic_store(&w.used, 0);
    atomic_store(&w.file_size, 0);
    if (!grow(FIRST_SIZE)) {
        munmap(base, VIRT_SIZE);
        close(fd);
        w.fd = -1;
        w.base = NULL;
        atomic_store(&w.state, OFF);
        return;
    }
    atomic_store(&w.state, ON);
    header();
}

static pthread_mutex_t opening = PTHREAD_MUTEX_INITIALIZER;

bool trace_enabled(void)
{
    int s = atomic_load_explicit(&w.state, memory_order_acquire);
    if (s != UNSET)
        return s == ON;
    pthread_mutex_lock(&opening);
    if (atomic_load(&w.state) == UNSET)
        open_file();
    pthread_mutex_unlock(&opening);
    return atomic_load(&w.state) == ON;
}

/* Format into line (TRACE_LINE_MAX bytes) with its newline; the length, 0 on error. */
static size_t format_line(char *line, const char *fmt, va_list ap)
{
    int n = vsnprintf(line, TRACE_LINE_MAX - 1, fmt, ap);
    if (n < 0)
        return 0;
    size_t len = (size_t)n < TRACE_LINE_MAX - 1 ? (size_t)n : TRACE_LINE_MAX - 2;
    line[len++] = '\n';
    return len;
}

void trace_line(const char *fmt, ...)
{
    if (!trace_enabled())
        return;
    char line[TRACE_LINE_MAX];
    va_list ap;
    va_start(ap, fmt);
    size_t len = format_line(line, fmt, ap);
    va_end(ap);
    if (len)
        put(line, len);
}

/* Repeats: a launch line equal to one of the calling thread's last few
 * distinct launch lines is not written again; it is counted in an
 * "N <tid> <back> <count>" line (back: how many of the thread's launch lines
 * came after the one repeated), whose ten count digits are rewritten in
 * place in the mapped file at each further repeat.  A loop over a few
 * launch configurations costs a few lines, and the count in the file is
 * always current (a crash loses nothing).  Only the owning thread touches
 * its N lines. */
#define COUNT_DIGITS 10
#define COUNT_MAX 9999999999ull
#define RECENT 8

static _Atomic unsigned generation; /* changes in a forked child: old pointers are the parent's */

typedef struct recent_line {
    size_t len;                /* of key; 0: unused */
    unsigned long long seq;    /* the thread's launch-line number of this line */
    char *digits;              /* its N line's count in the mapped file; NULL: none yet */
    unsigned long long count;
    char key[TRACE_LINE_MAX];  /* the line itself, or the caller's binary key */
} recent_line;

static _Thread_local struct {
    unsigned generation;
    unsigned long long seq;    /* launch lines this thread wrote */
    unsigned next;             /* the slot the next new line replaces */
    recent_line recent[RECENT];
} repeats;

static void write_count(char *digits, unsigned long long v)
{
    for (int i = COUNT_DIGITS - 1; i >= 0; i--, v /= 10)
        digits[i] = (char)('0' + v % 10);
}

/* The calling thread's recent line with this key, or NULL. */
static recent_line *recent_of(const void *key, size_t len)
{
    unsigned gen = atomic_load_explicit(&generation, memory_order_relaxed);
    if (repeats.generation != gen) {
        repeats.generation = gen;
        repeats.seq = 0;
        for (int i = 0; i < RECENT; i++)
            repeats.recent[i].len = 0;
    }
    for (int i = 0; i < RECENT; i++)
        if (repeats.recent[i].len == len && memcmp(repeats.recent[i].key, key, len) == 0)
            return &repeats.recent[i];
    return NULL;
}

/* One more repeat of r: the count digits rewritten in place, or its N line
 * written at the first repeat. */
static void count_repeat(recent_line *r)
{
    if (r->digits && r->count < COUNT_MAX) {
        write_count(r->digits, ++r->count);
        return;
    }
    char n[96];
    int k = snprintf(n, sizeof n, "N %ld %llu %0*d\n", trace_tid(), repeats.seq - r->seq,
                     COUNT_DIGITS, 1);
    char *at = k > 0 && (size_t)k < sizeof n ? put(n, (size_t)k) : NULL;
    r->digits = at ? at + k - 1 - COUNT_DIGITS : NULL;
    r->count = 1;
}

/* A new launch line: written, and remembered under key in the oldest slot. */
static void remember(const void *key, size_t key_len, const char *line, size_t len)
{
    recent_line *r = &repeats.recent[repeats.next];
    repeats.next = (repeats.next + 1) % RECENT;
    memcpy(r->key, key, key_len);
    r->len = key_len;
    r->seq = ++repeats.seq;
    r->digits = NULL;
    put(line, len);
}

void trace_launch(const char *fmt, ...)
{
    if (!trace_enabled())
        return;
    char line[TRACE_LINE_MAX];
    va_list ap;
    va_start(ap, fmt);
    size_t len = format_line(line, fmt, ap);
    va_end(ap);
    /* the line is its own key */
    if (len && !trace_launch_counted(line, len))
        trace_launch_new(line, len, line, len);
}

bool trace_launch_counted(const void *key, size_t key_len)
{
    if (!trace_enabled() || !key_len || key_len > TRACE_LINE_MAX)
        return true; /* nothing to write */
    recent_line *r = recent_of(key, key_len);
    if (r)
        count_repeat(r); /* the common case of a launch loop: nothing formatted */
    return r != NULL;
}

void trace_launch_new(const void *key, size_t key_len, const char *line, size_t len)
{
    if (len && len < TRACE_LINE_MAX && line[len - 1] == '\n' && key_len &&
        key_len <= TRACE_LINE_MAX && trace_enabled())
        remember(key, key_len, line, len);
}

void trace_launch_keyed(const void *key, size_t key_len, const char *fmt, ...)
{
    if (trace_launch_counted(key, key_len))
        return;
    char line[TRACE_LINE_MAX];
    va_list ap;
    va_start(ap, fmt);
    size_t len = format_line(line, fmt, ap);
    va_end(ap);
    trace_launch_new(key, key_len, line, len);
}

/* A forked child writes its own file: drop the parent's mapping (the child's
 * copy of it; the parent keeps writing through its own). */
static void after_fork_child(void)
{
    if (w.base)
        munmap(w.base, VIRT_SIZE);
    if (w.fd >= 0)
        close(w.fd);
    w.base = NULL;
    w.fd = -1;
    pthread_mutex_init(&w.lock, NULL);
    pthread_mutex_init(&opening, NULL);
    atomic_fetch_add(&generation, 1);
    atomic_store(&w.dropped, 0);
    atomic_store(&w.state, UNSET);
}

/* At exit: how many lines did not fit (rare: over 1 GiB of records). */
static void at_exit(void)
{
    unsigned long d = atomic_load(&w.dropped);
    if (d && atomic_load(&w.state) == ON) {
        atomic_store(&w.dropped, 0);
        trace_line("X dropped %lu", d);
    }
}

/* Every process the interposer is loaded into writes its header at once, so
 * the report lists the processes traced, launches or not. */
__attribute__((constructor)) static void trace_rec_init(void)
{
    pthread_atfork(NULL, NULL, after_fork_child);
    atexit(at_exit);
    trace_enabled();
}
