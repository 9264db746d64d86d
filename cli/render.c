#include "render.h"

#include "args.h"

/* THE list of output formats; the flags and --help lines come from it. */
static const out_format_info formats[OUT_COUNT] = {
    [OUT_JSON] = {"json", 'j', "one JSON document (schema \"occ/1\"; docs/cli.md)", render_json},
    [OUT_JSONL] = {"jsonl", 0, "JSON Lines: one line per table row", render_jsonl},
    [OUT_CSV] = {"csv", 0, "CSV: the table, with a header row", render_csv},
};

const out_format_info *out_format_get(out_format f)
{
    return f > OUT_TEXT && f < OUT_COUNT ? &formats[f] : NULL;
}

int render(const doc *d, out_format f) { return render_to(d, f, stdout); }

int render_to(const doc *d, out_format f, FILE *out)
{
    const out_format_info *info = out_format_get(f);
    if (d->failed || !d->root || d->depth || !info || !info->render(d, out)) {
        fprintf(stderr, "occcalc: out of memory building the report\n");
        return EXIT_INTERNAL;
    }
    return EXIT_OK; /* a failed write to stdout is reported at exit (occcalc.c) */
}
