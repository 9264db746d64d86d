/* Every launch of a dispatch campaign, replayed without a GPU (issue 16).
 *
 *   test_dispatch_campaign RECORDS_DIR KNOWN_FAILURES [PROFILE]
 *
 * RECORDS_DIR holds the campaign's record files (meson extracts the committed
 * tarball into the build directory); each is validated as `occcalc validate
 * --replay FILE --device PROFILE` does (occ_validation_replay: the profile's
 * dispatch timing, the measured durations).  PROFILE is h100-sxm unless given:
 * the campaigns recorded with the fenced probe (before 2026-11-25c) are
 * replayed against a frozen profile of the values fitted to that probe
 * (tests/data/cuda/dispatch/h100-sxm-fenced-probe.yaml, docs/phases.md).
 * KNOWN_FAILURES lists, one name a line ('#' comments), the launches that do not pass yet (docs/phases.md
 * "Dispatch timing" says why).  The test fails when a launch outside the list
 * fails, and also when a listed one passes, so the list stays true.  It prints
 * every verdict. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "occ/backend.h"

#define MAX_RUNS 1024

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The known failures: names without ".rec". */
static size_t read_list(const char *path, char names[][128], size_t cap)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "%s: cannot open\n", path);
        exit(1);
    }
    char line[256];
    size_t n = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "#\r\n")] = '\0';
        char *s = line + strspn(line, " \t");
        s[strcspn(s, " \t")] = '\0';
        if (*s && n < cap)
            snprintf(names[n++], 128, "%s", s);
    }
    fclose(f);
    return n;
}

static bool listed(const char *name, char names[][128], size_t n, bool *seen)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0) {
            seen[i] = true;
            return true;
        }
    return false;
}

int main(int argc, char **argv)
{
    if (argc != 3 && argc != 4) {
        fprintf(stderr, "usage: %s RECORDS_DIR KNOWN_FAILURES [PROFILE]\n", argv[0]);
        return 2;
    }
    static char known[MAX_RUNS][128];
    static bool seen[MAX_RUNS];
    size_t n_known = read_list(argv[2], known, MAX_RUNS);
    DIR *dir = opendir(argv[1]);
    if (!dir) {
        fprintf(stderr, "%s: cannot open\n", argv[1]);
        return 1;
    }
    static char *files[MAX_RUNS];
    size_t n = 0;
    for (struct dirent *e; (e = readdir(dir)) && n < MAX_RUNS;) {
        size_t len = strlen(e->d_name);
        if (len > 4 && strcmp(e->d_name + len - 4, ".rec") == 0)
            files[n++] = strdup(e->d_name);
    }
    closedir(dir);
    qsort(files, n, sizeof *files, by_name);

    occ_device *h100 = NULL;
    occ_diag diag;
    const char *profile = argc == 4 ? argv[3] : "h100-sxm";
    if (occ_device_open(profile, &h100, &diag) != OCC_OK) {
        fprintf(stderr, "%s: %s\n", profile, diag.message);
        return 1;
    }
    int bad = 0;
    size_t pass = 0;
    for (size_t i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", argv[1], files[i]);
        files[i][strlen(files[i]) - 4] = '\0';
        FILE *f = fopen(path, "r");
        occ_validation v;
        occ_validation_init(&v);
        occ_status s = f ? occ_validation_replay(f, path, h100, 0.05, &v, &diag) : OCC_ERR_IO;
        if (f)
            fclose(f);
        if (s != OCC_OK) {
            printf("%s: ERROR %s\n", files[i], f ? diag.message : "cannot open");
            bad = 1;
            occ_validation_free(&v);
            continue;
        }
        bool expected_fail = listed(files[i], known, n_known, seen);
        pass += v.pass;
        printf("%-48s %s  average %.2f pp  distance %.2f pp%s\n", files[i],
               v.pass ? "pass" : "FAIL", v.cmp.average_diff_pp, v.cmp.distance_pp,
               v.pass == expected_fail ? (v.pass ? "  (listed as failing: take it off the list)"
                                                 : "  (not in the list of known failures)")
                                       : "");
        if (v.pass == expected_fail)
            bad = 1;
        occ_validation_free(&v);
    }
    for (size_t i = 0; i < n_known; i++)
        if (!seen[i]) {
            printf("%s: listed as failing but not in the campaign\n", known[i]);
            bad = 1;
        }
    printf("%zu of %zu pass; %zu known failures\n", pass, n, n_known);
    if (n == 0) {
        printf("no record files in %s\n", argv[1]);
        bad = 1;
    }
    for (size_t i = 0; i < n; i++)
        free(files[i]);
    occ_device_free(h100);
    return bad;
}
