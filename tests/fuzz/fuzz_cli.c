/* Fuzz target: occcalc's command line.
 *
 * The input is split at newlines into arguments (argv[0] = "occcalc"), and
 * occcalc's own main() (cli/occcalc.c compiled with -Dmain=occcalc_main) runs
 * on them.  Properties checked besides "does not crash": the exit code is one
 * of the documented ones (cli/args.h, 0..6).
 *
 * Guards, so that fuzzing stays inside its sandbox:
 *  - the process works in a fresh temporary directory holding a few profiles
 *    (tgl.yaml, bad.yaml, empty.yaml, a directory dir.yaml, durations d.txt), so relative paths
 *    given to --device or to output options land there;
 *  - an argument with a '/' is refused unless it starts with "./" or
 *    "dir.yaml/", and ".." is refused, so no command can write outside that
 *    directory; after each input the directory is put back as it was;
 *  - commands that talk to a GPU driver are skipped (probe, and validate
 *    unless it replays a record file): slow, and not command-line parsing;
 *  - stdin reads /dev/null (phases reads "-"); stdout goes to /dev/null;
 *    stderr too when the fuzzer runs with -close_fd_mask=3 (tests/fuzz/run.sh),
 *    and in the replay driver. */
#define _XOPEN_SOURCE 700 /* nftw */
#include <dirent.h>
#include <ftw.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz_fail.h"
#include "occ/occ.h"
#include "occcalc_main.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define MAX_ARGS 48
#define MAX_INPUT 4096

static char sandbox[256];

static void write_file(const char *name, const char *text)
{
    FILE *f = fopen(name, "w");
    if (!f) {
        perror(name);
        abort();
    }
    fputs(text, f);
    fclose(f);
}

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    chmod(path, 0700);
    return remove(path);
}

static void remove_sandbox(void)
{
    if (sandbox[0] && chdir("/") == 0)
        nftw(sandbox, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Put the fixtures back and remove whatever the last command wrote, so every
 * input starts from the same directory. */
static void restore_sandbox(void)
{
    DIR *dir = opendir(".");
    if (dir) {
        struct dirent *e;
        while ((e = readdir(dir)))
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
                nftw(e->d_name, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
        closedir(dir);
    }
    const char *tgl = occ_builtin_yaml(OCC_DEFAULT_DEVICE);
    write_file("tgl.yaml", tgl ? tgl : "");
    write_file("bad.yaml", "schema: 1\nname: [unclosed\n");
    write_file("empty.yaml", "");
    write_file("d.txt", "# durations\n1\n2.5\n0.25\n");
    mkdir("dir.yaml", 0700);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    const char *tmp = getenv("TMPDIR");
    snprintf(sandbox, sizeof sandbox, "%s/occ-fuzz-cli-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(sandbox) || chdir(sandbox) != 0) {
        perror("fuzz_cli: sandbox");
        abort();
    }
    atexit(remove_sandbox);
    restore_sandbox();
    if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "r", stdin))
        abort();
    return 0;
}

/* Only relative paths that stay inside the sandbox: "dir.yaml/..." or "./...". */
static int refused(const char *arg)
{
    if (strstr(arg, ".."))
        return 1;
    if (!strchr(arg, '/'))
        return 0;
    return strncmp(arg, "./", 2) != 0 && strncmp(arg, "dir.yaml/", 9) != 0;
}

/* glibc's getopt keeps a pointer into the previous argv between calls unless
 * optind is 0; reset it fully so one input cannot reach into the last one. */
static void reset_getopt(void)
{
    static char arg0[] = "occcalc";
    static char *none[] = {arg0, NULL};
    optind = 0;
    opterr = 0;
    while (getopt(1, none, "") != -1)
        ;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!sandbox[0])
        LLVMFuzzerInitialize(NULL, NULL);
    if (size > MAX_INPUT)
        return 0;
    char *buf = malloc(size + 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    buf[size] = '\0';

    static char arg0[] = "occcalc";
    char *argv[MAX_ARGS + 2];
    int argc = 0;
    argv[argc++] = arg0;
    char *p = buf;
    while (p && argc <= MAX_ARGS) {
        char *nl = memchr(p, '\n', (size_t)(buf + size - p));
        if (nl)
            *nl = '\0';
        if (p < buf + size || nl)
            argv[argc++] = p;
        p = nl ? nl + 1 : NULL;
    }
    argv[argc] = NULL;

    int skip = argc > MAX_ARGS;
    for (int i = 1; i < argc && !skip; i++)
        skip = refused(argv[i]);
    if (!skip && argc > 1 && strcmp(argv[1], "probe") == 0)
        skip = 1;
    if (!skip && argc > 1 && strcmp(argv[1], "validate") == 0) { /* only --replay FILE */
        skip = 1;
        for (int i = 2; i < argc; i++)
            if (strncmp(argv[i], "--rep", 5) == 0)
                skip = 0;
    }
    if (!skip) {
        reset_getopt();
        int rc = occcalc_main(argc, argv);
        fflush(stdout);
        fflush(stderr);
        restore_sandbox();
        if (rc < 0 || rc > 6)
            fuzz_fail("fuzz_cli: exit code %d is not one of the documented 0..6", rc);
    }
    free(buf);
    return 0;
}
