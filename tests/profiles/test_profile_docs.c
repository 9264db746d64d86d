/* The key lists of docs/profiles.md and docs/occ-profile.5 equal the schema
 * table (libocc/src/model/profile_schema.c): the Markdown table row by row
 * (key, type, meaning), the man page's ".TP .B key" entries key by key, both
 * in the table's order.  Usage: test_profile_docs profiles.md occ-profile.5 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/profile_schema.h"

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        exit(1);
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *buf = malloc((size_t)n + 1);
    if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(1);
    }
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static bool documented(int k) { return occ__profile_keys[k].doc_type != NULL; }

/* The rows of the table after "## Keys" (header and rule skipped). */
static int check_markdown(const char *path)
{
    char *text = slurp(path), *p = strstr(text, "\n## Keys\n");
    int bad = 0, k = 0;
    if (!p) {
        fprintf(stderr, "%s: no '## Keys' section\n", path);
        return 1;
    }
    p = strstr(p, "\n| ---");
    p = p ? strchr(p + 1, '\n') : NULL;
    for (char *line = p ? p + 1 : NULL; line && line[0] == '|';) {
        char *end = strchr(line, '\n');
        if (end)
            *end = '\0';
        while (k < OCC_PK_COUNT && !documented(k))
            k++;
        char want[1024] = "(no more keys in the table)";
        if (k < OCC_PK_COUNT) {
            const occ_profile_key *e = &occ__profile_keys[k++];
            snprintf(want, sizeof want, "| `%s` | %s | %s |", e->key, e->doc_type, e->doc);
        }
        if (strcmp(line, want) != 0) {
            fprintf(stderr, "%s: row\n  %s\nbut the schema table says\n  %s\n", path, line, want);
            bad = 1;
        }
        line = end ? end + 1 : NULL;
    }
    while (k < OCC_PK_COUNT && !documented(k))
        k++;
    if (k < OCC_PK_COUNT) {
        fprintf(stderr, "%s: key '%s' of the schema table is not in the table\n", path,
                occ__profile_keys[k].key);
        bad = 1;
    }
    free(text);
    return bad;
}

/* ".TP" then ".B key" between ".SH KEYS" and the next ".SH". */
static int check_man(const char *path)
{
    char *text = slurp(path), *p = strstr(text, "\n.SH KEYS\n");
    int bad = 0, k = 0;
    char *stop = p ? strstr(p + 1, "\n.SH ") : NULL;
    if (!p || !stop) {
        fprintf(stderr, "%s: no KEYS section\n", path);
        return 1;
    }
    *stop = '\0';
    for (p = strstr(p, "\n.TP\n.B "); p; p = strstr(p, "\n.TP\n.B ")) {
        p += strlen("\n.TP\n.B ");
        size_t len = strcspn(p, "\n");
        while (k < OCC_PK_COUNT && !documented(k))
            k++;
        const char *want = k < OCC_PK_COUNT ? occ__profile_keys[k++].key : "(no more keys)";
        if (strlen(want) != len || strncmp(p, want, len) != 0) {
            fprintf(stderr, "%s: entry '%.*s' where the schema table has '%s'\n", path, (int)len, p,
                    want);
            bad = 1;
        }
    }
    while (k < OCC_PK_COUNT && !documented(k))
        k++;
    if (k < OCC_PK_COUNT) {
        fprintf(stderr, "%s: key '%s' of the schema table has no entry\n", path,
                occ__profile_keys[k].key);
        bad = 1;
    }
    free(text);
    return bad;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s profiles.md occ-profile.5\n", argv[0]);
        return 2;
    }
    int bad = check_markdown(argv[1]) | check_man(argv[2]);
    if (!bad)
        printf("docs list the %d keys of the schema table\n", OCC_PK_COUNT);
    return bad;
}
