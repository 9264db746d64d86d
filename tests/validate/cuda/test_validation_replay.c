/* Every recorded H100 run in tests/data/cuda/replay/ validated through the
 * library call alone (occ_validation_replay) gives the verdict that
 * `occcalc validate --replay` gives: the same exit status (run here, and as
 * committed in tests/validate/cuda/golden/NAME.exit), the same "Result" line and the
 * same model and peak figures as the golden report.
 * Usage: test_validation_replay OCCCALC REPLAY_DIR GOLDEN_DIR */
#define _GNU_SOURCE /* popen */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "occ/backend.h"

static int failures;
#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

/* The golden report's line that starts with prefix (without the newline), or "". */
static void golden_line(const char *path, const char *prefix, char *out, size_t size)
{
    out[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f))
        if (strncmp(line, prefix, strlen(prefix)) == 0) {
            line[strcspn(line, "\n")] = '\0';
            snprintf(out, size, "%s", line);
            break;
        }
    fclose(f);
}

static int golden_exit(const char *path)
{
    FILE *f = fopen(path, "r");
    int code = -1;
    if (f) {
        if (fscanf(f, "%d", &code) != 1)
            code = -1;
        fclose(f);
    }
    return code;
}

static int occcalc_exit(const char *occcalc, const char *rec)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "'%s' validate --replay '%s' >/dev/null 2>&1", occcalc, rec);
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void check_run(const char *occcalc, const char *dir, const char *golden, const char *file)
{
    char rec[1024], gold[1024], name[256];
    snprintf(rec, sizeof rec, "%s/%s", dir, file);
    snprintf(name, sizeof name, "%.*s", (int)(strlen(file) - 4), file);

    occ_validation v;
    occ_validation_init(&v);
    occ_diag diag;
    memset(&diag, 0, sizeof diag);
    FILE *f = fopen(rec, "r");
    CHECK(f != NULL, "%s: cannot open", rec);
    if (!f)
        return;
    occ_status s = occ_validation_replay(f, rec, NULL, 0, &v, &diag);
    fclose(f);
    CHECK(s == OCC_OK, "%s: %s", rec, diag.message);
    if (s == OCC_OK) {
        int want = v.verdict == OCC_VALIDATION_PASS ? 0 : 1;
        CHECK(v.pass == (v.verdict == OCC_VALIDATION_PASS), "%s: pass and verdict disagree", file);
        int cli = occcalc_exit(occcalc, rec);
        CHECK(cli == want, "%s: library verdict %d, occcalc validate --replay exits %d", file,
              (int)v.verdict, cli);
        snprintf(gold, sizeof gold, "%s/%s.exit", golden, name);
        CHECK(golden_exit(gold) == want, "%s: library verdict %d, golden exit %d", file,
              (int)v.verdict, golden_exit(gold));

        char line[512], expect[512];
        snprintf(gold, sizeof gold, "%s/%s.txt", golden, name);
        golden_line(gold, "Result ", line, sizeof line);
        if (v.pass)
            snprintf(expect, sizeof expect, "Result   pass");
        else
            snprintf(expect, sizeof expect, "Result   FAIL: %s", v.cmp.summary);
        if (!v.pass && v.cmp.pass) /* records or driver: the report words it */
            snprintf(expect, sizeof expect, "%s", line);
        CHECK(strcmp(line, expect) == 0, "%s: golden '%s', library '%s'", file, line, expect);

        golden_line(gold, "Per SM   model ", line, sizeof line);
        snprintf(expect, sizeof expect, "Per SM   model %u work-group%s", v.model.resident_wgs,
                 v.model.resident_wgs == 1 ? "" : "s");
        CHECK(strncmp(line, expect, strlen(expect)) == 0, "%s: golden '%s', library '%s'", file,
              line, expect);
        golden_line(gold, "work-groups per SM (most at once)", line, sizeof line);
        unsigned pred = 0, meas = 0;
        CHECK(sscanf(line, "work-groups per SM (most at once) %u %u", &pred, &meas) == 2 &&
                  pred == v.cmp.predicted_peak_per_core && meas == v.cmp.measured_peak_per_core,
              "%s: golden '%s', library %u %u", file, line, v.cmp.predicted_peak_per_core,
              v.cmp.measured_peak_per_core);
    }
    occ_validation_free(&v);
}

/* The verdicts and errors that no recorded run reaches, on copies of one. */
static void load(const char *dir, const char *file, occ_validation *v)
{
    char rec[1024];
    snprintf(rec, sizeof rec, "%s/%s", dir, file);
    FILE *f = fopen(rec, "r");
    occ_diag diag;
    occ_validation_init(v);
    CHECK(f && occ_probe_file_read(f, rec, &v->info, &v->desc, &v->res, &diag) == OCC_OK,
          "%s: cannot read", rec);
    if (f)
        fclose(f);
}

static void check_edges(const char *dir)
{
    const char *file = "061-wg256-r72-s0-cdef.rec";
    occ_validation v;
    occ_diag diag;

    load(dir, file, &v); /* analysed twice: the second analysis replaces the first */
    CHECK(occ_validation_analyse(&v, NULL, 0, &diag) == OCC_OK && v.pass, "061: not a pass");
    CHECK(occ_validation_analyse(&v, NULL, 0.2, &diag) == OCC_OK && v.pass, "061 again: not a pass");
    occ_validation_free(&v);

    load(dir, file, &v); /* no records */
    v.res.n_records = 0;
    CHECK(occ_validation_analyse(&v, NULL, 0, &diag) == OCC_OK &&
              v.verdict == OCC_VALIDATION_NO_RECORDS && !v.pass &&
              strstr(v.problem, "returned no records"),
          "no records: verdict %d '%s'", (int)v.verdict, v.problem);
    v.res.n_records = 1; /* so that free releases the array it still owns */
    occ_validation_free(&v);

    load(dir, file, &v); /* the model says the kernel that ran cannot launch */
    v.res.actual.wg[0] = 4096;
    CHECK(occ_validation_analyse(&v, NULL, 0, &diag) == OCC_OK &&
              v.verdict == OCC_VALIDATION_NOT_LAUNCHABLE && strstr(v.problem, "cannot launch"),
          "not launchable: verdict %d '%s'", (int)v.verdict, v.problem);
    occ_validation_free(&v);

    load(dir, file, &v); /* the driver's answer is not the model's */
    v.res.driver_resident += 1;
    CHECK(occ_validation_analyse(&v, NULL, 0, &diag) == OCC_OK &&
              v.verdict == OCC_VALIDATION_MISMATCH && !v.driver_ok && v.cmp.pass,
          "driver disagrees: verdict %d", (int)v.verdict);
    occ_validation_free(&v);

    load(dir, file, &v); /* a description that is not a device */
    v.desc.cores = 0;
    memset(&diag, 0, sizeof diag);
    CHECK(occ_validation_analyse(&v, NULL, 0, &diag) == OCC_ERR_VALUE &&
              strstr(diag.message, "device description is invalid"),
          "bad description: '%s'", diag.message);
    occ_validation_free(&v);

    load(dir, file, &v); /* the driver refused a launch: the model agrees, or not */
    char words[320];
    bool agrees = false;
    occ_kernel k = v.res.actual;
    k.wg[0] = 4096;
    CHECK(occ_validation_refused(&v.desc, &k, &agrees, words, sizeof words, &diag) == OCC_OK &&
              agrees && strncmp(words, "the model agrees it cannot launch: ", 35) == 0 && words[35],
          "refused, model agrees: '%s'", words);
    CHECK(occ_validation_refused(&v.desc, &v.res.actual, &agrees, words, sizeof words, &diag) ==
                  OCC_OK &&
              !agrees && strcmp(words, "the model says it can launch (disagreement): ") == 0,
          "refused, model disagrees: '%s'", words);
    v.desc.cores = 0;
    CHECK(occ_validation_refused(&v.desc, &k, &agrees, words, sizeof words, &diag) == OCC_ERR_VALUE,
          "refused with a bad description");
    occ_validation_free(&v);

    load(dir, file, &v); /* a record that ends before it starts */
    v.res.records[0].t_end = v.res.records[0].t_start - 1;
    memset(&diag, 0, sizeof diag);
    CHECK(occ_validation_analyse(&v, NULL, 0, &diag) == OCC_ERR_VALUE &&
              strncmp(diag.message, "records: ", 9) == 0,
          "bad record: '%s'", diag.message);
    occ_validation_free(&v);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s OCCCALC REPLAY_DIR GOLDEN_DIR\n", argv[0]);
        return 2;
    }
    DIR *d = opendir(argv[2]);
    if (!d) {
        fprintf(stderr, "cannot open %s\n", argv[2]);
        return 1;
    }
    struct dirent *e;
    int runs = 0;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n > 4 && strcmp(e->d_name + n - 4, ".rec") == 0) {
            check_run(argv[1], argv[2], argv[3], e->d_name);
            runs++;
        }
    }
    closedir(d);
    check_edges(argv[2]);
    CHECK(runs >= 19, "only %d record files in %s", runs, argv[2]);
    printf("%d recorded runs: library verdict = occcalc's; %d failures\n", runs, failures);
    return failures ? 1 : 0;
}
