/* occcalc batch [FILE]: many configurations of one device, as CSV (a header
 * names the fields) or JSON Lines, from a file or stdin; one compact answer
 * per configuration, evaluated by the library's batch (occ_evaluate_batch).
 * Every line is read and checked before anything is written: a bad line is
 * reported with its number and nothing goes to stdout. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advise_cli.h"
#include "args.h"
#include "commands.h"
#include "occ/advise.h"
#include "report.h"

#define MAX_FIELDS 16      /* a CSV header's columns (the fields are fewer) */
#define ERRORS_SHOWN 20    /* bad lines named one by one; the rest counted */

typedef enum { IN_CSV, IN_JSONL } in_format;

typedef struct batch {
    const char *path;        /* NULL: stdin */
    const char *name;        /* for messages: the path or "<stdin>" */
    cli_kernel base;         /* the flags: the device, a kernel file, defaults for every line */
    const occ_device *dev;
    in_format in;
    int header[MAX_FIELDS];  /* CSV: the field of each column */
    size_t columns;
    occ_kernel *ks;          /* one per configuration */
    size_t *lines;           /* its line number */
    size_t n, cap;
    occ_eval *evals;
    size_t bad;              /* bad lines */
    size_t grf_lowered;      /* lines whose grf ran in the device's one mode */
} batch;

static void batch_help(void)
{
    puts("usage: occcalc batch [--device D] [--kernel FILE[:NAME]] [kernel flags] [FILE | -]\n"
         "                     [--json | --jsonl | --csv]\n"
         "\n"
         "Evaluates many configurations of one device: CSV whose header names the fields, or JSON\n"
         "Lines (one object per line), from FILE or stdin. The fields are the kernel flags' names:\n"
         "wg, sg, slm, barrier, grf, regs, carveout, max_wg, reqd_wg, reqd_sg (wg as X[,Y,Z] or a\n"
         "JSON array; slm with K, M, G; barrier true/false). An empty cell or null is not given;\n"
         "the flags give the values every line starts from. One result per configuration, in\n"
         "order: JSON Lines for JSON Lines, CSV for CSV, or as --jsonl, --csv, --json ask.\n");
    cli_kernel_flags_help(stdout, CLI_BATCH);
    puts("  -h, --help              this help\n"
         "\n"
         "Exit codes: 0 ok (a configuration that cannot launch is an answer: launchable false);\n"
         "            2 usage error; 3 bad profile, kernel or input (every bad line is named, nothing\n"
         "            is written); 4 device unavailable; 5 out of memory; 6 the output cannot be written.");
}

static int batch_operand(void *ctx, const char *arg)
{
    batch *b = ctx;
    if (b->path)
        return usage_error("batch: one input at a time");
    b->path = arg;
    return EXIT_OK;
}

/* The whole input in memory (every line is checked before anything is written). */
static int read_all(batch *b, char **out, size_t *len)
{
    FILE *f = b->path ? fopen(b->path, "rb") : stdin;
    if (!f) {
        fprintf(stderr, "occcalc: batch: cannot open %s: %s\n", b->name, strerror(errno));
        return EXIT_INPUT;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    int rc = buf ? EXIT_OK : EXIT_INTERNAL;
    while (rc == EXIT_OK) {
        if (n == cap) {
            char *more = cap <= SIZE_MAX / 2 - 1 ? realloc(buf, cap * 2 + 1) : NULL;
            if (!more) {
                rc = EXIT_INTERNAL;
                break;
            }
            buf = more, cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    if (rc == EXIT_OK && ferror(f)) {
        fprintf(stderr, "occcalc: batch: cannot read %s: %s\n", b->name, strerror(errno));
        rc = EXIT_INPUT;
    } else if (rc == EXIT_INTERNAL) {
        fprintf(stderr, "occcalc: batch: out of memory reading %s\n", b->name);
    }
    if (f != stdin)
        fclose(f);
    if (rc != EXIT_OK) {
        free(buf);
        return rc;
    }
    buf[n] = '\0';
    *out = buf, *len = n;
    return EXIT_OK;
}

static void bad_line(batch *b, size_t line, const char *msg)
{
    if (b->bad++ < ERRORS_SHOWN)
        fprintf(stderr, "occcalc: %s:%zu: %s\n", b->name, line, msg);
}

static bool blank(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t')
            return false;
    return true;
}

/* ---- one field's value, from either format ------------------------------------------------------ */

/* Applies field f = value (NUL-terminated) to c; a line error on a bad value. */
static bool apply_field(cli_kernel *c, int f, const char *value, char *msg, size_t size)
{
    char name[32], why[320];
    if (cli_kernel_field_apply(c, f, value, why, sizeof why))
        return true;
    snprintf(msg, size, "%s: %s", cli_kernel_field_name(f, name, sizeof name), why);
    return false;
}

/* The field named s[0..n), or a line error naming the fields there are. */
static int field_of(const char *s, size_t n, char *msg, size_t size)
{
    int f = cli_kernel_field_find(s, n);
    if (f < 0) {
        char list[256];
        cli_kernel_field_list(list, sizeof list);
        snprintf(msg, size, "unknown field '%.*s' (the fields: %s)", (int)(n > 64 ? 64 : n), s, list);
    }
    return f;
}

/* ---- CSV ------------------------------------------------------------------------------------------ */

/* Splits one CSV line (RFC 4180, no line breaks inside quotes) into cells,
 * unquoted into out (at least n + 1 bytes).  Returns the cell count, or -1
 * with msg set. */
static int csv_cells(const char *s, size_t n, char *out, char *cell[MAX_FIELDS], char *msg, size_t size)
{
    size_t i = 0, o = 0;
    int count = 0;
    for (;;) {
        if (count == MAX_FIELDS) {
            snprintf(msg, size, "more than %d fields", MAX_FIELDS);
            return -1;
        }
        cell[count++] = out + o;
        while (i < n && s[i] == ' ')
            i++;
        if (i < n && s[i] == '"') {
            for (i++;; i++) {
                if (i == n) {
                    snprintf(msg, size, "a quoted field does not end on its line");
                    return -1;
                }
                if (s[i] == '"') {
                    if (i + 1 < n && s[i + 1] == '"')
                        out[o++] = s[i++];
                    else
                        break;
                } else {
                    out[o++] = s[i];
                }
            }
            i++;
            while (i < n && s[i] == ' ')
                i++;
            if (i < n && s[i] != ',') {
                snprintf(msg, size, "text after a quoted field (column %d)", count);
                return -1;
            }
        } else {
            size_t start = o;
            for (; i < n && s[i] != ','; i++) {
                if (s[i] == '"') {
                    snprintf(msg, size, "a quote inside an unquoted field (column %d)", count);
                    return -1;
                }
                out[o++] = s[i];
            }
            while (o > start && out[o - 1] == ' ')
                o--;
        }
        out[o++] = '\0';
        if (i >= n)
            return count;
        i++; /* the comma */
    }
}

static bool csv_header(batch *b, const char *s, size_t n, char *scratch, char *msg, size_t size)
{
    char *cell[MAX_FIELDS];
    int count = csv_cells(s, n, scratch, cell, msg, size);
    if (count < 0)
        return false;
    for (int i = 0; i < count; i++) {
        int f = field_of(cell[i], strlen(cell[i]), msg, size);
        if (f < 0)
            return false;
        for (int j = 0; j < i; j++)
            if (b->header[j] == f) {
                snprintf(msg, size, "field '%s' twice in the header", cell[i]);
                return false;
            }
        b->header[i] = f;
    }
    b->columns = (size_t)count;
    return true;
}

static bool csv_line(batch *b, cli_kernel *c, const char *s, size_t n, char *scratch, char *msg, size_t size)
{
    char *cell[MAX_FIELDS];
    int count = csv_cells(s, n, scratch, cell, msg, size);
    if (count < 0)
        return false;
    if ((size_t)count != b->columns) {
        snprintf(msg, size, "%d fields where the header has %zu", count, b->columns);
        return false;
    }
    for (int i = 0; i < count; i++)
        if (cell[i][0] && !apply_field(c, b->header[i], cell[i], msg, size))
            return false;
    return true;
}

/* ---- JSON Lines: one flat object per line ------------------------------------------------------- */

typedef struct jcur {
    const char *s, *end;
} jcur;

static void jws(jcur *j)
{
    while (j->s < j->end && (*j->s == ' ' || *j->s == '\t'))
        j->s++;
}

/* A string (no escapes but \" \\ \/) into out; false at a bad one. */
static bool jstring(jcur *j, char *out, size_t *len, char *msg, size_t size)
{
    size_t o = 0;
    for (j->s++; j->s < j->end && *j->s != '"'; j->s++) {
        char ch = *j->s;
        if (ch == '\\') {
            if (j->s + 1 >= j->end || !strchr("\"\\/", j->s[1])) {
                snprintf(msg, size, "a string escape other than \\\" \\\\ \\/");
                return false;
            }
            ch = *++j->s;
        } else if ((unsigned char)ch < 0x20) {
            snprintf(msg, size, "a control character inside a string");
            return false;
        }
        out[o++] = ch;
    }
    if (j->s == j->end) {
        snprintf(msg, size, "a string does not end on its line");
        return false;
    }
    j->s++;
    out[o] = '\0';
    *len = o;
    return true;
}

/* A scalar's text as written (a number, true, false, null). */
static size_t jscalar(jcur *j)
{
    const char *start = j->s;
    while (j->s < j->end && !strchr(",]} \t", *j->s))
        j->s++;
    return (size_t)(j->s - start);
}

/* One value as text for the field's parser: a string's content, a scalar as
 * written, an array of scalars joined by commas ("16,16,1").  *absent: null. */
static bool jvalue(jcur *j, char *out, bool *absent, char *msg, size_t size)
{
    size_t len;
    *absent = false;
    if (j->s < j->end && *j->s == '"')
        return jstring(j, out, &len, msg, size);
    if (j->s < j->end && *j->s == '[') {
        size_t o = 0;
        j->s++;
        jws(j);
        while (j->s < j->end && *j->s != ']') {
            const char *start = j->s;
            len = jscalar(j);
            if (len == 0) {
                snprintf(msg, size, "an array may hold numbers only");
                return false;
            }
            if (o)
                out[o++] = ',';
            memcpy(out + o, start, len);
            o += len;
            jws(j);
            if (j->s < j->end && *j->s == ',') {
                j->s++;
                jws(j);
            }
        }
        if (j->s == j->end) {
            snprintf(msg, size, "an array does not end on its line");
            return false;
        }
        j->s++;
        out[o] = '\0';
        return true;
    }
    if (j->s < j->end && *j->s == '{') {
        snprintf(msg, size, "a field's value may not be an object");
        return false;
    }
    const char *start = j->s;
    len = jscalar(j);
    if (len == 0) {
        snprintf(msg, size, "a value is missing");
        return false;
    }
    memcpy(out, start, len);
    out[len] = '\0';
    *absent = len == 4 && !memcmp(out, "null", 4);
    return true;
}

static bool jsonl_line(cli_kernel *c, const char *s, size_t n, char *scratch, char *msg, size_t size)
{
    jcur j = {s, s + n};
    bool seen[64] = {false};
    jws(&j);
    if (j.s == j.end || *j.s != '{') {
        snprintf(msg, size, "not a JSON object: a line of JSON Lines input is one {...}");
        return false;
    }
    j.s++;
    jws(&j);
    while (j.s < j.end && *j.s != '}') {
        size_t klen;
        if (*j.s != '"') {
            snprintf(msg, size, "a field name (a string) expected");
            return false;
        }
        if (!jstring(&j, scratch, &klen, msg, size))
            return false;
        int f = field_of(scratch, klen, msg, size);
        if (f < 0)
            return false;
        if (seen[f]) {
            snprintf(msg, size, "field '%s' twice", scratch);
            return false;
        }
        seen[f] = true;
        jws(&j);
        if (j.s == j.end || *j.s != ':') {
            snprintf(msg, size, "':' expected after \"%s\"", scratch);
            return false;
        }
        j.s++;
        jws(&j);
        bool absent;
        if (!jvalue(&j, scratch, &absent, msg, size))
            return false;
        if (!absent && !apply_field(c, f, scratch, msg, size))
            return false;
        jws(&j);
        if (j.s < j.end && *j.s == ',') {
            j.s++;
            jws(&j);
            if (j.s < j.end && *j.s == '}') {
                snprintf(msg, size, "a comma before '}'");
                return false;
            }
        } else if (j.s < j.end && *j.s != '}') {
            snprintf(msg, size, "',' or '}' expected");
            return false;
        }
    }
    if (j.s == j.end) {
        snprintf(msg, size, "the object does not end on its line");
        return false;
    }
    j.s++;
    jws(&j);
    if (j.s != j.end) {
        snprintf(msg, size, "text after the object");
        return false;
    }
    return true;
}

/* ---- the configurations ------------------------------------------------------------------------- */

static bool push(batch *b, const occ_kernel *k, size_t line)
{
    if (b->n == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 1024;
        occ_kernel *ks = realloc(b->ks, cap * sizeof *ks);
        if (!ks)
            return false;
        b->ks = ks;
        size_t *lines = realloc(b->lines, cap * sizeof *lines);
        if (!lines)
            return false;
        b->lines = lines, b->cap = cap;
    }
    b->ks[b->n] = *k;
    b->lines[b->n++] = line;
    return true;
}

/* A configuration line: the flags' kernel, then the line's fields; checked as the flags are. */
static bool config_line(batch *b, const char *s, size_t n, char *scratch, occ_kernel *out, char *msg,
                        size_t size)
{
    cli_kernel c = b->base;
    c.have_grf = false; /* --grf is the driver's already; a line's own is checked here */
    if (b->in == IN_CSV ? !csv_line(b, &c, s, n, scratch, msg, size) : !jsonl_line(&c, s, n, scratch, msg, size))
        return false;
    if (!c.wg_dims) {
        snprintf(msg, size, "no work-group size: give wg (or --wg, or a kernel that requires one)");
        return false;
    }
    if (c.have_grf) {
        uint32_t asked = c.k.grf;
        const occ_device_desc *d = occ_device_describe(b->dev);
        const char *why = cli_grf_as_driver(d, &c.k.grf);
        if (why) {
            snprintf(msg, size, "grf: %s %s (regs)", d->name, why);
            return false;
        }
        b->grf_lowered += c.k.grf != asked;
    }
    *out = c.k;
    return true;
}

/* Every line of buf: the header (CSV), then one configuration per non-blank line. */
static int read_lines(batch *b, char *buf, size_t len)
{
    char *scratch = malloc(len + 2);
    if (!scratch) {
        fprintf(stderr, "occcalc: batch: out of memory\n");
        return EXIT_INTERNAL;
    }
    char msg[512];
    bool started = false;
    size_t line = 0;
    for (size_t at = 0; at < len;) {
        char *s = buf + at;
        char *nl = memchr(s, '\n', len - at);
        size_t n = nl ? (size_t)(nl - s) : len - at;
        at += n + 1;
        line++;
        if (n && s[n - 1] == '\r')
            n--;
        if (memchr(s, '\0', n)) {
            bad_line(b, line, "a NUL byte: not a text line");
            continue;
        }
        if (blank(s, n))
            continue;
        if (!started) {
            started = true;
            if (n >= 3 && !memcmp(s, "\xef\xbb\xbf", 3)) /* a UTF-8 byte-order mark (spreadsheets write one) */
                s += 3, n -= 3;
            size_t i = 0;
            while (i < n && (s[i] == ' ' || s[i] == '\t'))
                i++;
            b->in = s[i] == '{' ? IN_JSONL : IN_CSV;
            if (b->in == IN_CSV) {
                if (!csv_header(b, s, n, scratch, msg, sizeof msg)) {
                    bad_line(b, line, msg);
                    break; /* no header, no lines */
                }
                continue;
            }
        }
        occ_kernel k;
        if (!config_line(b, s, n, scratch, &k, msg, sizeof msg)) {
            bad_line(b, line, msg);
        } else if (!b->bad && !push(b, &k, line)) {
            free(scratch);
            fprintf(stderr, "occcalc: batch: out of memory\n");
            return EXIT_INTERNAL;
        }
    }
    free(scratch);
    return EXIT_OK;
}

/* ---- the answers -------------------------------------------------------------------------------- */

/* Configuration i as a row of the result's table (built when rendered). */
static void result_row(doc *j, size_t i, const void *ctx)
{
    const batch *b = ctx;
    const occ_kernel *k = &b->ks[i];
    const occ_eval *e = &b->evals[i];
    bool launchable = e->reason == OCC_REASON_NONE;
    doc_begin_object(j);
    doc_ku64(j, "line", b->lines[i]);
    doc_key(j, "work_group");
    doc_begin_array(j);
    for (int d = 0; d < 3; d++)
        doc_u64(j, k->wg[d]);
    doc_end_array(j);
    doc_kbool(j, "launchable", launchable);
    doc_key(j, "reason");
    if (launchable) {
        doc_null(j);
    } else {
        char why[256];
        occ_residency_reason(b->dev, k, why, sizeof why);
        doc_str(j, why);
    }
    doc_ku64(j, "thread_contexts_per_work_group", e->contexts_per_wg);
    doc_ku64(j, "thread_contexts", e->contexts_per_core);
    doc_ku64(j, "resident_work_groups", e->resident_wgs);
    doc_knum(j, "occupancy", e->occupancy);
    doc_limited_by(j, "limited_by", e->limited_by);
    doc_end_object(j);
}

static int print_results(const batch *b)
{
    out_format format = b->base.format != OUT_TEXT ? b->base.format : b->in == IN_CSV ? OUT_CSV : OUT_JSONL;
    if (b->n == 0 && format != OUT_JSON)
        return EXIT_OK; /* no configuration, no line (a header alone names no columns of ours) */
    doc j;
    doc_init(&j);
    doc_begin_object(&j);
    doc_kstr(&j, "schema", OCC_JSON_SCHEMA);
    report_device_doc(&j, b->dev);
    doc_table_rows(&j, "results", b->n, result_row, b);
    doc_end_object(&j);
    int rc = render(&j, format);
    doc_free(&j);
    return rc;
}

int cmd_batch(int argc, char **argv)
{
    batch b;
    memset(&b, 0, sizeof b);
    const cli_command cmd = {"batch", CLI_BATCH, NULL, "", NULL, &b, batch_help, batch_operand, NULL};
    cli_kernel_init(&b.base);
    int rc = cli_parse(&cmd, argc, argv, &b.base);
    if (rc)
        return rc == CLI_DONE ? EXIT_OK : rc;
    if (b.path && !strcmp(b.path, "-"))
        b.path = NULL;
    b.name = b.path ? b.path : "<stdin>";
    occ_device *dev;
    if ((rc = cli_open_kernel_device(&b.base, false, &dev)))
        return rc;
    b.dev = dev;
    char *buf = NULL;
    size_t len = 0;
    if ((rc = read_all(&b, &buf, &len)) == EXIT_OK)
        rc = read_lines(&b, buf, len);
    free(buf);
    if (rc == EXIT_OK && b.bad) {
        if (b.bad > ERRORS_SHOWN)
            fprintf(stderr, "occcalc: %s: %zu bad lines in all (the first %d shown)\n", b.name, b.bad,
                    ERRORS_SHOWN);
        fprintf(stderr, "occcalc: batch: nothing written: correct the line%s above\n", b.bad == 1 ? "" : "s");
        rc = EXIT_INPUT;
    }
    if (rc == EXIT_OK && b.n && !(b.evals = malloc(b.n * sizeof *b.evals))) {
        fprintf(stderr, "occcalc: batch: out of memory\n");
        rc = EXIT_INTERNAL;
    }
    if (rc == EXIT_OK && b.n && occ_evaluate_batch(dev, b.ks, b.evals, b.n) != OCC_OK) {
        fprintf(stderr, "occcalc: batch: the evaluation failed\n");
        rc = EXIT_INTERNAL;
    }
    if (rc == EXIT_OK && b.grf_lowered)
        fprintf(stderr,
                "occcalc: note: %s has no large-GRF mode: %zu configuration%s asking for one run in the "
                "%u-register mode, as its driver does with the large-GRF option\n",
                occ_device_describe(dev)->name, b.grf_lowered, b.grf_lowered == 1 ? "" : "s",
                occ_device_describe(dev)->grf_modes[0].registers);
    if (rc == EXIT_OK)
        rc = print_results(&b);
    free(b.ks);
    free(b.lines);
    free(b.evals);
    occ_device_free(dev);
    return rc;
}
