/* Reading the trace interposer's record files (format: docs/trace.md). */
#include "trace_records.h"

#include "trace_index.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Grow *arr (of *n elements, capacity *cap) by one; NULL when out of memory. */
static void *push(void **arr, size_t *n, size_t *cap, size_t elem)
{
    if (*n == *cap) {
        size_t c = *cap ? *cap * 2 : 64;
        void *p = realloc(*arr, c * elem);
        if (!p)
            return NULL;
        *arr = p;
        *cap = c;
    }
    void *e = (char *)*arr + (*n)++ * elem;
    memset(e, 0, elem);
    return e;
}

/* The value after " key=" in line (to the next blank), or NULL. */
static const char *val(const char *line, const char *key, char *buf, size_t size)
{
    size_t kl = strlen(key);
    for (const char *p = strchr(line, ' '); p; p = strchr(p + 1, ' ')) {
        if (strncmp(p + 1, key, kl) == 0 && p[1 + kl] == '=') {
            const char *v = p + 2 + kl;
            size_t n = strcspn(v, " ");
            if (n >= size)
                n = size - 1;
            memcpy(buf, v, n);
            buf[n] = 0;
            return buf;
        }
    }
    return NULL;
}

/* name= is last and runs to the end of the line. */
static const char *name_of(const char *line)
{
    const char *p = strstr(line, " name=");
    return p ? p + 6 : "?";
}

static bool get_u(const char *line, const char *key, unsigned *out)
{
    char b[32];
    char *end;
    if (!val(line, key, b, sizeof b))
        return false;
    unsigned long v = strtoul(b, &end, 0);
    if (*end || end == b)
        return false;
    *out = (unsigned)v;
    return true;
}

static bool get_i(const char *line, const char *key, int *out)
{
    char b[32];
    char *end;
    if (!val(line, key, b, sizeof b))
        return false;
    long v = strtol(b, &end, 10);
    if (*end || end == b)
        return false;
    *out = (int)v;
    return true;
}

static bool get_u64(const char *line, const char *key, uint64_t *out)
{
    char b[32];
    char *end;
    if (!val(line, key, b, sizeof b))
        return false;
    errno = 0;
    unsigned long long v = strtoull(b, &end, 10);
    if (*end || end == b || errno)
        return false;
    *out = v;
    return true;
}

/* "X,Y,Z" */
static bool get_dims(const char *line, const char *key, uint64_t v[3])
{
    char b[96];
    if (!val(line, key, b, sizeof b))
        return false;
    unsigned long long x, y, z;
    char extra;
    if (sscanf(b, "%llu,%llu,%llu%c", &x, &y, &z, &extra) != 3)
        return false;
    v[0] = x, v[1] = y, v[2] = z;
    return true;
}

static bool get_dims32(const char *line, const char *key, uint32_t v[3])
{
    uint64_t w[3];
    if (!get_dims(line, key, w) || w[0] > UINT32_MAX || w[1] > UINT32_MAX || w[2] > UINT32_MAX)
        return false;
    v[0] = (uint32_t)w[0], v[1] = (uint32_t)w[1], v[2] = (uint32_t)w[2];
    return true;
}

/* One thread's launch lines in the file being read, for N lines. */
typedef struct thread_lines {
    long tid;
    size_t *launches; /* indices in tr_data.launches, in order */
    size_t n, cap;
} thread_lines;

static uint64_t add_sat(uint64_t a, uint64_t b)
{
    return b > UINT64_MAX - a ? UINT64_MAX : a + b;
}

typedef struct reader {
    tr_data *d;
    size_t cap_dev, cap_k, cap_l, cap_t, cap_p;
    long pid;
    size_t first_kernel; /* this file's kernels start here */
    size_t first_launch;
    size_t first_device;
    thread_lines *threads; /* this file's launching threads */
    size_t n_threads, cap_threads;
    tr_index by_tid;
} reader;

/* The file's lines of thread tid; NULL when out of memory. */
static thread_lines *thread_of(reader *r, long tid)
{
    if (!tr_index_room(&r->by_tid))
        return NULL;
    uint64_t h = tr_hash_u64(TR_HASH_SEED, (uint64_t)tid);
    size_t p = tr_index_first(&r->by_tid, h);
    for (; r->by_tid.slots[p].item != TR_NONE; p = tr_index_next(&r->by_tid, p))
        if (r->threads[r->by_tid.slots[p].item].tid == tid)
            return &r->threads[r->by_tid.slots[p].item];
    thread_lines *t = push((void **)&r->threads, &r->n_threads, &r->cap_threads, sizeof *t);
    if (!t)
        return NULL;
    t->tid = tid;
    tr_index_put(&r->by_tid, p, h, r->n_threads - 1);
    return t;
}

static void forget_threads(reader *r)
{
    for (size_t i = 0; i < r->n_threads; i++)
        free(r->threads[i].launches);
    free(r->threads);
    r->threads = NULL;
    r->n_threads = r->cap_threads = 0;
    tr_index_free(&r->by_tid);
}

/* One line; false only when out of memory. */
static bool parse_line(reader *r, char *line)
{
    tr_data *d = r->d;
    char kind = line[0];
    if (strncmp(line, "occ-trace ", 10) == 0)
        return true;
    if (kind == 'P') {
        long pid, ppid;
        int at = 0;
        if (sscanf(line, "P %ld %ld %n", &pid, &ppid, &at) != 2 || !at) {
            d->bad_lines++;
            return true;
        }
        r->pid = pid;
        tr_process *p = push((void **)&d->processes, &d->n_processes, &r->cap_p, sizeof *p);
        if (!p)
            return false;
        p->pid = pid;
        p->ppid = ppid;
        snprintf(p->exe, sizeof p->exe, "%s", line + at);
        return true;
    }
    if (kind == 'D') {
        unsigned id;
        char vendor[8];
        if (sscanf(line, "D %u %7s", &id, vendor) != 2) {
            d->bad_lines++;
            return true;
        }
        tr_device *v = push((void **)&d->devices, &d->n_devices, &r->cap_dev, sizeof *v);
        if (!v)
            return false;
        v->pid = r->pid;
        v->id = id;
        snprintf(v->name, sizeof v->name, "%s", name_of(line));
        if (strcmp(vendor, "ze") == 0) {
            v->vendor = TR_ZE;
            get_u(line, "eus", &v->eus);
            get_u(line, "threads_per_eu", &v->threads_per_eu);
            get_u(line, "simd", &v->simd);
            get_u(line, "max_wg", &v->max_wg);
            get_u(line, "slm", &v->slm);
            get_u(line, "id", &v->pci_id);
        } else {
            v->vendor = TR_CUDA;
            char cc[16];
            if (val(line, "cc", cc, sizeof cc))
                sscanf(cc, "%d.%d", &v->cc_major, &v->cc_minor);
            get_i(line, "sms", &v->sms);
            get_i(line, "driver", &v->driver);
        }
        return true;
    }
    if (kind == 'K') {
        unsigned id;
        char vendor[8];
        if (sscanf(line, "K %u %7s", &id, vendor) != 2) {
            d->bad_lines++;
            return true;
        }
        tr_kernel *k = push((void **)&d->kernels, &d->n_kernels, &r->cap_k, sizeof *k);
        if (!k || !(k->name = strdup(name_of(line))))
            return false;
        k->pid = r->pid;
        k->id = id;
        get_u(line, "dev", &k->dev);
        if (strcmp(vendor, "ze") == 0) {
            k->vendor = TR_ZE;
            get_u(line, "sg", &k->sg);
            get_u(line, "req_sg", &k->req_sg);
            get_u(line, "slm", &k->slm);
            get_u(line, "private", &k->private_bytes);
            get_u(line, "spill", &k->spill);
            if (!val(line, "grf", k->grf, sizeof k->grf))
                snprintf(k->grf, sizeof k->grf, "unknown");
            uint64_t req[3] = {0, 0, 0};
            get_dims(line, "req_wg", req);
            for (int i = 0; i < 3; i++)
                k->req_wg[i] = (unsigned)req[i];
        } else {
            k->vendor = TR_CUDA;
            k->regs = k->static_smem = k->local = k->max_threads = k->carveout = k->max_dyn = -1;
            get_i(line, "regs", &k->regs);
            get_i(line, "static", &k->static_smem);
            get_i(line, "local", &k->local);
            get_i(line, "max_threads", &k->max_threads);
            get_i(line, "carveout", &k->carveout);
            get_i(line, "max_dyn", &k->max_dyn);
            k->nonportable = -1;
            get_dims32(line, "cluster", k->cluster);
            get_i(line, "nonportable", &k->nonportable);
        }
        return true;
    }
    if (kind == 'L') {
        unsigned id;
        long tid;
        char vendor[8], lkind[12];
        if (sscanf(line, "L %u %ld %7s %11s", &id, &tid, vendor, lkind) != 4) {
            d->bad_lines++;
            return true;
        }
        tr_launch *l = push((void **)&d->launches, &d->n_launches, &r->cap_l, sizeof *l);
        if (!l)
            return false;
        l->count = 1;
        l->kernel = id; /* resolved to an index at the end of the file */
        l->pid = r->pid;
        l->tid = tid;
        snprintf(l->kind, sizeof l->kind, "%s", lkind);
        l->drv = -1;
        l->cluster[0] = l->cluster[1] = l->cluster[2] = 1;
        bool ok = get_dims32(line, "wg", l->wg) && get_u64(line, "dyn", &l->dyn) &&
                  get_i(line, "rc", &l->rc);
        l->groups_known = get_dims(line, "groups", l->groups);
        get_i(line, "drv", &l->drv);
        get_dims32(line, "cluster", l->cluster);
        l->drv_clusters = -2;
        get_i(line, "drv_clusters", &l->drv_clusters);
        if (!ok) {
            d->n_launches--;
            d->bad_lines++;
            return true;
        }
        thread_lines *t = thread_of(r, tid);
        size_t *slot = t ? push((void **)&t->launches, &t->n, &t->cap, sizeof *slot) : NULL;
        if (!slot)
            return false;
        *slot = d->n_launches - 1;
        return true;
    }
    if (kind == 'T') {
        tr_time *t = push((void **)&d->times, &d->n_times, &r->cap_t, sizeof *t);
        if (!t)
            return false;
        uint64_t g[3], wg[3];
        if (sscanf(line, "T %" SCNu64, &t->ns) != 1 || !get_dims(line, "wg", wg) ||
            !get_dims(line, "groups", g) || !get_u64(line, "dyn", &t->dyn)) {
            d->n_times--;
            d->bad_lines++;
            return true;
        }
        for (int i = 0; i < 3; i++)
            t->wg[i] = (uint32_t)wg[i], t->groups[i] = g[i];
        t->count = 1; /* records before counts existed: one execution each */
        get_u64(line, "count", &t->count);
        return (t->name = strdup(name_of(line))) != NULL;
    }
    if (kind == 'N') { /* repeats of one of the thread's launch lines, 'back' lines ago */
        long tid;
        unsigned long long back;
        char digits[24], extra;
        if (sscanf(line, "N %ld %llu %23s %c", &tid, &back, digits, &extra) != 3 ||
            strspn(digits, "0123456789") != strlen(digits)) {
            d->bad_lines++;
            return true;
        }
        uint64_t n = strtoull(digits, NULL, 10);
        thread_lines *t = thread_of(r, tid);
        if (!t)
            return false;
        if (back >= t->n) {
            d->bad_lines++; /* no such launch of that thread before it */
        } else {
            tr_launch *l = &d->launches[t->launches[t->n - 1 - back]];
            l->count = add_sat(l->count, n);
        }
        return true;
    }
    if (kind == 'U') {
        d->unresolved++;
        return true;
    }
    if (kind == 'X') {
        unsigned long long launches, other;
        int err, at = 0;
        if (sscanf(line, "X dropped %llu other %llu errno %d%n", &launches, &other, &err, &at) == 3 &&
            !line[at]) {
            d->dropped = add_sat(d->dropped, launches);
            d->dropped_other = add_sat(d->dropped_other, other);
            if (err && !d->stop_errno)
                d->stop_errno = err;
        } else if (sscanf(line, "X dropped %llu%n", &launches, &at) == 1 && !line[at]) {
            d->dropped_other = add_sat(d->dropped_other, launches); /* older records: lines of any kind */
        } else {
            d->bad_lines++;
        }
        return true;
    }
    if (kind == 'W') {
        size_t len = strlen(d->warnings);
        snprintf(d->warnings + len, sizeof d->warnings - len, "%s%s", len ? "; " : "", line + 2);
        return true;
    }
    d->bad_lines++;
    return true;
}

/* The first item of [first, n) whose id is id, through an index of them. */
static bool index_ids(tr_index *t, const unsigned *ids, size_t stride, size_t first, size_t n)
{
    for (size_t i = first; i < n; i++) {
        unsigned id = *(const unsigned *)((const char *)ids + i * stride);
        if (!tr_index_room(t))
            return false;
        uint64_t h = tr_hash_u64(TR_HASH_SEED, id);
        size_t p = tr_index_first(t, h);
        while (t->slots[p].item != TR_NONE &&
               *(const unsigned *)((const char *)ids + t->slots[p].item * stride) != id)
            p = tr_index_next(t, p);
        if (t->slots[p].item == TR_NONE)
            tr_index_put(t, p, h, i);
    }
    return true;
}

static size_t find_id(const tr_index *t, const unsigned *ids, size_t stride, unsigned id)
{
    if (!t->cap)
        return SIZE_MAX;
    uint64_t h = tr_hash_u64(TR_HASH_SEED, id);
    for (size_t p = tr_index_first(t, h); t->slots[p].item != TR_NONE; p = tr_index_next(t, p))
        if (*(const unsigned *)((const char *)ids + t->slots[p].item * stride) == id)
            return t->slots[p].item;
    return SIZE_MAX;
}

/* This file's launches name kernels, and its kernels devices, by their
 * per-process ids (the first of equal ids counts).  False when out of memory. */
static bool resolve(reader *r)
{
    tr_data *d = r->d;
    tr_index kernels = {0}, devices = {0};
    bool ok = index_ids(&kernels, d->n_kernels ? &d->kernels[0].id : NULL, sizeof *d->kernels,
                        r->first_kernel, d->n_kernels) &&
              index_ids(&devices, d->n_devices ? &d->devices[0].id : NULL, sizeof *d->devices,
                        r->first_device, d->n_devices);
    for (size_t i = r->first_launch; ok && i < d->n_launches; i++) {
        size_t id = d->launches[i].kernel;
        d->launches[i].kernel = id > UINT_MAX || !d->n_kernels
                                    ? SIZE_MAX
                                    : find_id(&kernels, &d->kernels[0].id, sizeof *d->kernels,
                                              (unsigned)id);
    }
    for (size_t i = r->first_kernel; ok && i < d->n_kernels; i++)
        d->kernels[i].device = find_id(&devices, d->n_devices ? &d->devices[0].id : NULL,
                                       sizeof *d->devices, d->kernels[i].dev);
    tr_index_free(&kernels);
    tr_index_free(&devices);
    return ok;
}

/* Whole file in memory; lines split at '\n'.  NUL bytes before a line are
 * space never written (skipped); NULs inside a line or a last line without
 * its newline make it unreadable. */
static int read_file(reader *r, const char *path, char *err, size_t err_size)
{
    /* not blocking on a FIFO, nor reading a device */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    struct stat st;
    int e = fd < 0 ? errno : fstat(fd, &st) != 0 ? errno : !S_ISREG(st.st_mode) ? EINVAL : 0;
    FILE *f = e ? NULL : fdopen(fd, "rb");
    if (!f) {
        if (!e)
            e = errno;
        if (fd >= 0)
            close(fd);
        snprintf(err, err_size, "cannot read %s: %s", path,
                 e == EINVAL ? "not a regular file" : strerror(e));
        return e;
    }
    r->pid = 0;
    r->first_kernel = r->d->n_kernels;
    r->first_launch = r->d->n_launches;
    r->first_device = r->d->n_devices;
    char *buf = NULL;
    size_t len = 0, cap = 0;
    int rc = 0;
    for (;;) {
        if (cap - len < 65536) {
            size_t nc = cap ? cap * 2 : 1 << 20;
            char *p = realloc(buf, nc + 1);
            if (!p) {
                rc = ENOMEM;
                break;
            }
            buf = p;
            cap = nc;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0)
            break;
    }
    if (rc == 0 && ferror(f))
        rc = EIO;
    fclose(f);
    for (size_t at = 0; rc == 0 && at < len;) {
        while (at < len && buf[at] == 0)
            at++;
        if (at == len)
            break;
        char *line = buf + at;
        char *nl = memchr(line, '\n', len - at);
        size_t n = nl ? (size_t)(nl - line) : len - at;
        at += n + 1;
        if (!nl || memchr(line, 0, n)) {
            r->d->bad_lines++;
            continue;
        }
        line[n] = 0;
        if (n && !parse_line(r, line))
            rc = ENOMEM;
    }
    free(buf);
    forget_threads(r);
    if (rc == 0 && !resolve(r))
        rc = ENOMEM;
    if (rc)
        snprintf(err, err_size, "cannot read %s: %s", path, strerror(rc));
    return rc;
}

static int by_pid(const void *a, const void *b)
{
    long x = atol(*(char *const *)a), y = atol(*(char *const *)b);
    return (x > y) - (x < y);
}

int tr_read_path(const char *dir, tr_data *d, char *err, size_t err_size)
{
    memset(d, 0, sizeof *d);
    struct stat st;
    if (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode)) { /* one record file */
        reader r = {.d = d};
        int rc = read_file(&r, dir, err, err_size);
        if (rc == ENOMEM)
            snprintf(err, err_size, "out of memory reading the records");
        return rc;
    }
    DIR *dp = opendir(dir);
    if (!dp) {
        int e = errno;
        snprintf(err, err_size, "cannot open the record directory %s: %s", dir, strerror(e));
        return e;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    struct dirent *e;
    while ((e = readdir(dp))) {
        size_t l = strlen(e->d_name);
        if (l < 5 || strcmp(e->d_name + l - 4, ".rec") != 0)
            continue;
        char **slot = push((void **)&names, &n, &cap, sizeof *names);
        if (!slot || !(*slot = strdup(e->d_name))) {
            rc = ENOMEM;
            break;
        }
    }
    closedir(dp);
    if (n)
        qsort(names, n, sizeof *names, by_pid);
    reader r = {.d = d};
    for (size_t i = 0; i < n && rc == 0; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        rc = read_file(&r, path, err, err_size);
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    if (rc == ENOMEM)
        snprintf(err, err_size, "out of memory reading the records");
    return rc;
}

void tr_free(tr_data *d)
{
    for (size_t i = 0; i < d->n_kernels; i++)
        free(d->kernels[i].name);
    for (size_t i = 0; i < d->n_times; i++)
        free(d->times[i].name);
    free(d->processes);
    free(d->devices);
    free(d->kernels);
    free(d->launches);
    free(d->times);
    memset(d, 0, sizeof *d);
}

const tr_device *tr_kernel_device(const tr_data *d, const tr_kernel *k)
{
    return k->device < d->n_devices ? &d->devices[k->device] : NULL;
}
