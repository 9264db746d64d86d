/* Command-line pieces shared by every occcalc command: exit codes, number
 * parsing, the kernel flags and device selection. */
#ifndef OCCCALC_ARGS_H
#define OCCCALC_ARGS_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "occ/occ.h"
#include "render.h"

/* Exit codes (documented in --help, docs/cli.md and occcalc(1)). */
enum {
    EXIT_OK = 0,
    EXIT_NEGATIVE = 1,     /* the answer is "no": cannot launch, threshold missed, mismatch */
    EXIT_USAGE = 2,        /* bad command line */
    EXIT_INPUT = 3,        /* bad profile or input file */
    EXIT_DEVICE = 4,       /* device, driver or backend unavailable */
    EXIT_INTERNAL = 5,     /* out of memory, a bug */
    EXIT_OUTPUT = 6        /* an output (file or stdout) cannot be opened or written */
};

/* Report a usage error on stderr ("occcalc: --wg: ...") and return EXIT_USAGE. */
int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* After getopt_long returned '?' or ':' (opterr = 0): name the problem,
 * "unknown option '--foo'" or "option '--sg' needs a value", prefixed with
 * "CMD: " when cmd is not NULL.  Returns EXIT_USAGE. */
int option_error(const char *cmd, char **argv, const char *shortopts, const struct option *longopts);

/* Strict unsigned parse: digits only, no sign, no overflow.  max inclusive. */
bool parse_u64(const char *s, uint64_t max, uint64_t *out);
/* Bytes with optional K/M/G suffix (x1024). */
bool parse_bytes(const char *s, uint64_t *out);
/* The one "A,B,C" parser: up to max_n comma-separated fields, each a number
 * in [min, max] or, when star, a '*' (stored as 0).  Returns the number of
 * fields, or -1 when s is not such a list. */
int parse_list(const char *s, uint64_t min, uint64_t max, bool star, uint64_t *v, int max_n);
/* "X[,Y[,Z]]" into v[0..2] (missing = 1); *dims set to the count given. */
bool parse_dims(const char *s, uint64_t max, uint64_t v[3], int *dims);
/* Positive decimal (durations etc.), no inf/nan. */
bool parse_positive_double(const char *s, double *out);

/* ---- the flags that describe a kernel, a device and a launch ------------------------------
 * One table in args.c (kernel_flags[]) lists them: name, short letter, value,
 * the commands that take them, the function that applies them and the help
 * line (occcalc --help prints it).  Every command parses its command line with
 * cli_parse, which adds these flags to the command's own; adding a kernel flag
 * means adding one row there (and its field in cli_kernel below). */

typedef struct cli_kernel {
    const char *device;   /* --device NAME|PATH */
    occ_kernel k;
    int wg_dims;          /* 0 when --wg not given */
    bool have_sg, have_grf, have_regs, have_carveout, have_slm;
    uint64_t groups;      /* --groups N; 0 = not given */
    uint64_t global[3];   /* --global; global[0] == 0 when not given */
    int global_dims;
    out_format format;    /* --json, --jsonl, --csv (render.h); OUT_TEXT when none */
    bool kernel_given;    /* a flag describing the kernel or launch was given (not --device, --json) */
    bool have_barrier;
    bool have_max_wg, have_reqd_wg, have_reqd_sg; /* the kernel's constraints, typed in */
    bool have_cluster;    /* --cluster X[,Y,Z] (in k.cluster; --cluster-non-portable sets
                             k.cluster_non_portable) */
    const char *kernel_file; /* --kernel FILE[:NAME]: resources from a compiled kernel */
} cli_kernel;

/* Option ids of the shared flags (the short letter where there is one; the
 * rest from 256).  Commands number their own options from OPT_FIRST_FREE. */
enum {
    OPT_DEVICE = 'd', OPT_WG = 'w', OPT_SG = 's', OPT_BARRIER = 'b', OPT_GROUPS = 'n',
    OPT_GLOBAL = 'g',
    OPT_SLM = 256, OPT_GRF, OPT_REGS, OPT_CARVEOUT, OPT_KERNEL, OPT_MAX_WG, OPT_REQD_WG, OPT_REQD_SG,
    OPT_CLUSTER, OPT_CLUSTER_NON_PORTABLE,
    OPT_FORMAT_FIRST = 280, /* + out_format: the output-format flags (render.c's table) */
    OPT_FIRST_FREE = 300
};

/* The commands, for the table's "which commands take this flag". */
enum {
    CLI_CALC = 1 << 0, CLI_PHASES = 1 << 1, CLI_ADVISE = 1 << 2, CLI_SWEEP = 1 << 3,
    CLI_LIMITS = 1 << 4, CLI_VALIDATE = 1 << 5, CLI_EVERY = (1 << 6) - 1,
    /* commands that take none of the kernel flags, only the output formats */
    CLI_DEVICES = 1 << 6, CLI_KERNELS = 1 << 7, CLI_TRACE = 1 << 8,
    CLI_BATCH = 1 << 9,      /* occcalc batch: the device and kernel flags, for every line */
    CLI_BATCH_LINE = 1 << 10 /* a field a batch line may give (cli_kernel_field) */
};

/* What an option handler returns besides EXIT_OK and an exit code. */
enum {
    CLI_DONE = -1,     /* it printed what was asked (--help, --version): exit 0 */
    CLI_NOT_MINE = -2  /* a command's handler leaves a shared flag to the table */
};

/* A command's command line: its own options, handled by option() (which
 * sees every option first, so it may also take over a shared flag, as
 * advise does with --wg patterns), and the shared flags of the table. */
typedef struct cli_command {
    const char *name;              /* "phases"; NULL for the calculator */
    unsigned id;                   /* CLI_PHASES...: picks the table's rows */
    const struct option *options;  /* its own long options, {0}-terminated; or NULL */
    const char *short_options;     /* its own short ones, getopt syntax ("o:"); or "" */
    /* EXIT_OK, CLI_DONE, CLI_NOT_MINE, or an exit code after printing the error */
    int (*option)(void *ctx, int id, const char *arg);
    void *ctx;
    void (*help)(void);            /* -h, --help */
    /* the arguments that are not options (a file); NULL: none taken */
    int (*operand)(void *ctx, const char *arg);
    /* options end at the first operand (occcalc trace: PROGRAM's own options
     * are its); *rest is set to the operands left, for the command */
    char ***rest;
} cli_command;

void cli_kernel_init(cli_kernel *c);

/* Parses argv (argv[0] = the command name) into c and through cmd->option.
 * Returns EXIT_OK, CLI_DONE after --help or --version, or the exit code of
 * a usage error already printed (unknown option, missing value, a stray
 * argument, a bad value). */
int cli_parse(const cli_command *cmd, int argc, char **argv, cli_kernel *c);

/* --help's lines for the shared flags a command takes, in the table's order,
 * then the output formats'. */
void cli_kernel_flags_help(FILE *f, unsigned command);
/* --help's lines for the output formats alone. */
void cli_format_flags_help(FILE *f);
/* Sets the output format once: a second, different one is a usage error
 * ("--json and --csv are exclusive").  Returns EXIT_OK or EXIT_USAGE. */
int cli_set_format(cli_kernel *c, out_format f);

/* After parsing: --wg required (unless --kernel may give it), --groups and
 * --global exclusive. */
int cli_kernel_check(const cli_kernel *c, bool need_wg);

/* Opens the device of --device and, with --kernel, fills c->k from the
 * kernel file: the flags given explicitly win, and a note on stderr says
 * which of the kernel's values they override.  Without --device an NVIDIA
 * kernel is shown on the built-in profile of its architecture.  need_wg:
 * the command needs a work-group size (given, or the kernel's required one).
 * Returns EXIT_OK or the exit code after printing the problem. */
int cli_open_kernel_device(cli_kernel *c, bool need_wg, occ_device **out);

/* Open the device named by --device (default tgl); prints the diagnostic and
 * returns EXIT_INPUT / EXIT_USAGE on failure, EXIT_OK on success. */
int cli_open_device(const char *name, occ_device **out);

/* A batch line's fields are the kernel flags marked CLI_BATCH_LINE, named as
 * the flag with '_' for '-' (max_wg).  cli_kernel_field_find: the field of
 * that name (len bytes), or -1; cli_kernel_field_apply: value (NULL: a yes/no
 * field given bare) applied to c as the flag would be, or false with why in
 * msg; cli_kernel_field_name: the name in a field's own spelling. */
int cli_kernel_field_find(const char *name, size_t len);
bool cli_kernel_field_apply(cli_kernel *c, int field, const char *value, char *msg, size_t size);
const char *cli_kernel_field_name(int field, char *buf, size_t size);
/* The fields' names, comma-separated (for a message). */
void cli_kernel_field_list(char *buf, size_t size);

/* --grf as the driver treats it on d: NULL when d takes it (*grf lowered to
 * the one mode of a device with a single GRF mode, as its driver does with
 * the large-GRF option), or why not (d has no GRF modes: registers instead). */
const char *cli_grf_as_driver(const occ_device_desc *d, uint32_t *grf);

/* Work-groups from --groups or --global (0 if neither); prints errors. */
int cli_work_groups(const cli_kernel *c, uint64_t *work_groups);

/* A cluster launch (--cluster or compiled dimensions): whether k is one, and
 * its clusters on dev into *cl.  EXIT_INPUT when the profile has no GPC data,
 * EXIT_USAGE when the size is over the device's maximum or work_groups (0:
 * none) is not a whole number of clusters; the message printed. */
bool cli_is_cluster_launch(const occ_kernel *k);
int cli_clusters(const occ_device *dev, const occ_kernel *k, uint64_t work_groups, occ_clusters *cl);


#endif
