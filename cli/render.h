/* The output formats a command's result (doc.h) can be written in, besides
 * the command's own text.  Each format is one renderer and one row of
 * render.c's table; the flags (--json, --jsonl, --csv) are made from that
 * table (args.c), so a new format is a new renderer and its row. */
#ifndef OCCCALC_RENDER_H
#define OCCCALC_RENDER_H

#include <stdio.h>

#include "doc.h"

typedef enum {
    OUT_TEXT = 0, /* the command's own text (no renderer) */
    OUT_JSON,     /* one JSON document */
    OUT_JSONL,    /* JSON Lines: one line per table row (or the document on one line) */
    OUT_CSV,      /* the table as CSV (or the document as one row) */
    OUT_COUNT
} out_format;

typedef struct out_format_info {
    const char *flag;  /* the option's long name: "json" */
    int short_flag;    /* its letter, or 0 */
    const char *help;  /* --help's line */
    /* writes d to f; false when a row of its table could not be built (out of
     * memory); write errors are stdout's, checked at exit */
    bool (*render)(const doc *d, FILE *f);
} out_format_info;

/* The row of format f (OUT_JSON..); NULL for OUT_TEXT. */
const out_format_info *out_format_get(out_format f);

/* Writes the command's result d to stdout in format f (not OUT_TEXT).
 * Returns EXIT_OK, or EXIT_INTERNAL after a message when the document
 * could not be built (out of memory): nothing is written then, or, when a
 * row of a long table could not be, the output stops there. */
int render(const doc *d, out_format f);
/* The same to another file (occcalc trace's report goes to stderr or -o FILE). */
int render_to(const doc *d, out_format f, FILE *out);

/* The renderers (render_json.c, render_csv.c). */
bool render_json(const doc *d, FILE *f);
bool render_jsonl(const doc *d, FILE *f);
bool render_csv(const doc *d, FILE *f);

#endif
