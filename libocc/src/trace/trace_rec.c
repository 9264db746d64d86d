/* The launch-record writer: one memory-mapped text file per process
 * (trace_rec.h says why, and what it promises the traced program). */
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
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

/* Address space reserved for the file, and so the most one process records;
 * a test build may lower it. */
#ifndef TRACE_REC_CAP
#define TRACE_REC_CAP ((size_t)1 << 30)
#endif
#define FIRST_SIZE ((size_t)1 << 20)
#define MAX_STEP ((size_t)64 << 20)

/* How the file gets its disk space before a page of it is written; a test
 * build may substitute a function that fails. */
#ifdef TRACE_REC_ALLOCATE
int TRACE_REC_ALLOCATE(int fd, off_t offset, off_t len);
#else
#define TRACE_REC_ALLOCATE posix_fallocate
#endif

#define COUNT_DIGITS 10
#define COUNT_MAX 9999999999ull

enum { OFF = -1, UNSET = 0, ON = 1 };

static struct {
    _Atomic int state;
    _Atomic bool stopped;  /* a growth failed: no new line is written */
    pthread_mutex_t lock;  /* growing, and the X line */
    char *path;            /* the file, reopened for each growth */
    dev_t dev;             /* ... and recognised by these */
    ino_t ino;
    char *base;
    _Atomic size_t used;      /* bytes reserved */
    _Atomic size_t file_size; /* bytes the file has, allocated on disk */
    /* the X line's fields in the mapping, rewritten in place */
    char *x_launches, *x_other, *x_errno;
    _Atomic unsigned long long dropped_launches, dropped_other;
    int stop_errno;
} w = {.state = UNSET, .lock = PTHREAD_MUTEX_INITIALIZER};

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

static void write_digits(char *at, int digits, unsigned long long v)
{
    for (int i = digits - 1; i >= 0; i--, v /= 10)
        at[i] = (char)('0' + v % 10);
}

/* Bring the X line up to date (w.lock held). */
static void write_x_line(void)
{
    if (!w.x_launches)
        return;
    unsigned long long l = atomic_load(&w.dropped_launches), o = atomic_load(&w.dropped_other);
    write_digits(w.x_launches, COUNT_DIGITS, l < COUNT_MAX ? l : COUNT_MAX);
    write_digits(w.x_other, COUNT_DIGITS, o < COUNT_MAX ? o : COUNT_MAX);
    write_digits(w.x_errno, 3, w.stop_errno >= 0 && w.stop_errno < 1000 ? (unsigned)w.stop_errno : 999);
}

/* A line that was not written (launch: one launch, else another record). */
static void count_dropped(bool launch)
{
    atomic_fetch_add(launch ? &w.dropped_launches : &w.dropped_other, 1);
    pthread_mutex_lock(&w.lock);
    write_x_line();
    pthread_mutex_unlock(&w.lock);
}

/* Give the file need bytes of allocated space, through a descriptor opened
 * for this and closed at once (never one the program may have reused), on
 * the same file (device and inode); w.lock held.  0, or why not. */
static int allocate(size_t have, size_t size)
{
    struct rlimit lim;
    if (getrlimit(RLIMIT_FSIZE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY && size > lim.rlim_cur)
        return EFBIG; /* growing past it would send the program SIGXFSZ */
    int fd = open(w.path, O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);
    if (fd < 0)
        return errno;
    struct stat st;
    int err = 0;
    if (fstat(fd, &st) != 0)
        err = errno;
    else if (st.st_dev != w.dev || st.st_ino != w.ino || (size_t)st.st_size != have)
        err = ESTALE; /* replaced or truncated by someone else: leave it alone */
    else
        err = TRACE_REC_ALLOCATE(fd, (off_t)have, (off_t)(size - have));
    close(fd);
    return err;
}

/* Make the file at least need bytes long; false when it cannot grow, and
 * then recording stops for good. */
static bool grow(size_t need)
{
    pthread_mutex_lock(&w.lock);
    size_t have = atomic_load(&w.file_size);
    bool ok = true;
    if (atomic_load(&w.stopped)) {
        ok = false;
    } else if (need > have) {
        size_t size = have ? have : FIRST_SIZE;
        while (size < need)
            size += size < MAX_STEP ? size : MAX_STEP;
        if (size > TRACE_REC_CAP)
            size = TRACE_REC_CAP;
        int err = size < need ? 0 /* the cap */ : allocate(have, size);
        if (size < need || err) {
            w.stop_errno = err;
            atomic_store(&w.stopped, true);
            write_x_line();
            ok = false;
        } else {
            atomic_store(&w.file_size, size);
        }
    }
    pthread_mutex_unlock(&w.lock);
    return ok;
}

/* Copy a line into the file; where it went, or NULL when it was dropped (and
 * counted). */
static char *put(const char *line, size_t n, bool launch)
{
    if (atomic_load_explicit(&w.stopped, memory_order_relaxed)) {
        count_dropped(launch);
        return NULL;
    }
    size_t off = atomic_fetch_add(&w.used, n);
    if (off + n > atomic_load(&w.file_size) && !grow(off + n)) {
        count_dropped(launch);
        return NULL;
    }
    memcpy(w.base + off, line, n);
    return w.base + off;
}

/* The header: the format line, the X line (its counts kept current in place,
 * so that losses are known even when nothing more can be written) and the
 * P line. */
static void header(void)
{
    static const char x_line[] = "occ-trace 1\nX dropped 0000000000 other 0000000000 errno 000\n";
    char *x = put(x_line, sizeof x_line - 1, false);
    if (x) {
        pthread_mutex_lock(&w.lock);
        w.x_launches = x + 22;
        w.x_other = x + 22 + COUNT_DIGITS + 7;
        w.x_errno = w.x_other + COUNT_DIGITS + 7;
        pthread_mutex_unlock(&w.lock);
    }
    char *exe = malloc(PATH_MAX), *field = malloc(PATH_MAX);
    char line[TRACE_LINE_MAX];
    ssize_t n = exe ? readlink("/proc/self/exe", exe, PATH_MAX - 1) : -1;
    if (exe)
        exe[n > 0 ? n : 0] = 0;
    if (field)
        trace_field(field, PATH_MAX, exe);
    int len = snprintf(line, sizeof line, "P %ld %ld %s\n", (long)getpid(), (long)getppid(),
                       field && field[0] ? field : "?");
    if (len > 0)
        put(line, (size_t)len < sizeof line ? (size_t)len : sizeof line - 1, false);
    free(exe);
    free(field);
}

static void close_file(void)
{
    if (w.base)
        munmap(w.base, TRACE_REC_CAP);
    free(w.path);
    w.base = NULL;
    w.path = NULL;
    w.x_launches = w.x_other = w.x_errno = NULL;
}

/* Nothing here may touch the program's descriptors or its output: when the
 * file cannot be made, this process is not traced (occcalc says which
 * processes it has records of). */
static void open_file(void)
{
    const char *dir = getenv("OCC_TRACE_DIR");
    atomic_store(&w.state, OFF);
    if (!dir || !*dir)
        return;
    /* PID.rec, or PID.N.rec when an earlier image of this process (before an
     * exec) already wrote PID.rec: never overwrite another image's records */
    size_t cap = strlen(dir) + 64;
    char *path = malloc(cap);
    int fd = -1;
    for (int i = 0; path && i < 100 && fd < 0; i++) {
        if (i)
            snprintf(path, cap, "%s/%ld.%d.rec", dir, (long)getpid(), i);
        else
            snprintf(path, cap, "%s/%ld.rec", dir, (long)getpid());
        fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0600);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    struct stat st;
    void *base = MAP_FAILED;
    if (fd >= 0 && fstat(fd, &st) == 0)
        base = mmap(NULL, TRACE_REC_CAP, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    /* the mapping keeps the file: no descriptor is held past this point */
    if (fd >= 0)
        close(fd);
    if (base == MAP_FAILED) {
        free(path);
        return;
    }
    w.path = path;
    w.dev = st.st_dev;
    w.ino = st.st_ino;
    w.base = base;
    w.stop_errno = 0;
    atomic_store(&w.stopped, false);
    atomic_store(&w.used, 0);
    atomic_store(&w.file_size, 0);
    atomic_store(&w.dropped_launches, 0);
    atomic_store(&w.dropped_other, 0);
    if (!grow(FIRST_SIZE)) {
        close_file();
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
        put(line, len, false);
}

/* Repeats: a launch line equal to one of the calling thread's last few
 * distinct launch lines is not written again; it is counted in an
 * "N <tid> <back> <count>" line (back: how many of the thread's launch lines
 * came after the one repeated), whose ten count digits are rewritten in
 * place in the mapped file at each further repeat.  A loop over a few
 * launch configurations costs a few lines, and the count in the file is
 * always current (a crash loses nothing).  Only the owning thread touches
 * its N lines.  The table is allocated for each launching thread (a static
 * thread-local one would come out of every thread's stack, launching or
 * not). */
#define RECENT 8

static _Atomic unsigned generation; /* changes in a forked child: old pointers are the parent's */

typedef struct recent_line {
    size_t len;                /* of key; 0: unused */
    unsigned long long seq;    /* the thread's launch-line number of this line */
    char *digits;              /* its N line's count in the mapped file; NULL: none yet */
    unsigned long long count;
    char key[TRACE_LINE_MAX];  /* the line itself, or the caller's binary key */
} recent_line;

typedef struct repeats {
    unsigned generation;
    unsigned long long seq;    /* launch lines this thread wrote */
    unsigned next;             /* the slot the next new line replaces */
    recent_line recent[RECENT];
} repeats;

static _Thread_local repeats *mine;
static pthread_key_t repeats_key; /* frees a thread's table when it exits */
static bool have_repeats_key;

static void free_repeats(void *p)
{
    free(p);
}

/* The calling thread's table (NULL when it cannot be allocated: every
 * launch is then written as a new line). */
static repeats *my_repeats(void)
{
    if (!mine) {
        mine = calloc(1, sizeof *mine);
        if (mine && have_repeats_key)
            pthread_setspecific(repeats_key, mine);
    }
    if (mine) {
        unsigned gen = atomic_load_explicit(&generation, memory_order_relaxed);
        if (mine->generation != gen) {
            mine->generation = gen;
            mine->seq = 0;
            for (int i = 0; i < RECENT; i++)
                mine->recent[i].len = 0;
        }
    }
    return mine;
}

/* The calling thread's recent line with this key, or NULL. */
static recent_line *recent_of(repeats *t, const void *key, size_t len)
{
    for (int i = 0; t && i < RECENT; i++)
        if (t->recent[i].len == len && memcmp(t->recent[i].key, key, len) == 0)
            return &t->recent[i];
    return NULL;
}

/* One more repeat of r: the count digits rewritten in place, or its N line
 * written at the first repeat (a dropped N line is one dropped launch, and
 * the next repeat tries again). */
static void count_repeat(repeats *t, recent_line *r)
{
    if (r->digits && r->count < COUNT_MAX) {
        write_digits(r->digits, COUNT_DIGITS, ++r->count);
        return;
    }
    char n[96];
    int k = snprintf(n, sizeof n, "N %ld %llu %0*d\n", trace_tid(), t->seq - r->seq,
                     COUNT_DIGITS, 1);
    char *at = k > 0 && (size_t)k < sizeof n ? put(n, (size_t)k, true) : NULL;
    r->digits = at ? at + k - 1 - COUNT_DIGITS : NULL;
    r->count = 1;
}

/* A new launch line: written, and remembered under key in the oldest slot
 * (a line that was dropped is not remembered: N lines count back over the
 * lines in the file only). */
static void remember(const void *key, size_t key_len, const char *line, size_t len)
{
    repeats *t = my_repeats();
    if (!put(line, len, true) || !t)
        return;
    recent_line *r = &t->recent[t->next];
    t->next = (t->next + 1) % RECENT;
    memcpy(r->key, key, key_len);
    r->len = key_len;
    r->seq = ++t->seq;
    r->digits = NULL;
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
    repeats *t = my_repeats();
    recent_line *r = recent_of(t, key, key_len);
    if (r)
        count_repeat(t, r); /* the common case of a launch loop: nothing formatted */
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
    close_file();
    pthread_mutex_init(&w.lock, NULL);
    pthread_mutex_init(&opening, NULL);
    atomic_fetch_add(&generation, 1);
    atomic_store(&w.state, UNSET);
}

/* Every process the interposer is loaded into writes its header at once, so
 * the report lists the processes traced, launches or not. */
__attribute__((constructor)) static void trace_rec_init(void)
{
    have_repeats_key = pthread_key_create(&repeats_key, free_repeats) == 0;
    pthread_atfork(NULL, NULL, after_fork_child);
    trace_enabled();
}
