/* Command-line pieces shared by every occcalc command: exit codes, number
 * parsing, the kernel flags and device selection. */
#ifndef OCCCALC_ARGS_H
#define OCCCALC_ARGS_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>

#include "occ/occ.h"

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
/* "X[,Y[,Z]]" into v[0..2] (missing = 1); *dims set to the count given. */
bool parse_dims(const char *s, uint64_t max, uint64_t v[3], int *dims);
/* Positive decimal (durations etc.), no inf/nan. */
bool parse_positive_double(const char *s, double *out);

/* Kernel and launch flags common to calc, phases, advise and validate. */
typedef struct cli_kernel {
    const char *device;   /* --device NAME|PATH */
    occ_kernel k;
    int wg_dims;          /* 0 when --wg not given */
    bool have_sg, have_grf, have_regs, have_carveout, have_slm;
    uint64_t groups;      /* --groups N; 0 = not given */
    uint64_t global[3];   /* --global; global[0] == 0 when not given */
    int global_dims;
    bool json;
} cli_kernel;

/* Long option ids for the shared flags (> 255 so they never clash with short ones). */
enum {
    OPT_DEVICE = 'd', OPT_WG = 'w', OPT_SG = 's', OPT_BARRIER = 'b', OPT_GROUPS = 'n',
    OPT_GLOBAL = 'g', OPT_JSON = 'j',
    OPT_SLM = 256, OPT_GRF, OPT_REGS, OPT_CARVEOUT, OPT_FIRST_FREE = 300
};

/* Use inside a struct option[] initializer. */
#define CLI_KERNEL_LONG_OPTIONS                                                                    \
    {"device", required_argument, 0, OPT_DEVICE}, {"wg", required_argument, 0, OPT_WG},            \
        {"sg", required_argument, 0, OPT_SG}, {"slm", required_argument, 0, OPT_SLM},              \
        {"barrier", no_argument, 0, OPT_BARRIER}, {"grf", required_argument, 0, OPT_GRF},          \
        {"regs", required_argument, 0, OPT_REGS}, {"carveout", required_argument, 0, OPT_CARVEOUT}, \
        {"groups", required_argument, 0, OPT_GROUPS}, {"global", required_argument, 0, OPT_GLOBAL}, \
        {"json", no_argument, 0, OPT_JSON}
#define CLI_KERNEL_SHORT_OPTIONS "d:w:s:bn:g:j"

void cli_kernel_init(cli_kernel *c);
/* Handle one getopt result if it is a shared flag: returns 1 handled, 0 not
 * ours, or -1 after printing a usage error. */
int cli_kernel_option(cli_kernel *c, int opt, const char *arg);
/* After parsing: --wg required, --groups and --global exclusive. */
int cli_kernel_check(const cli_kernel *c, bool need_wg);

/* Open the device named by --device (default tgl); prints the diagnostic and
 * returns EXIT_INPUT / EXIT_USAGE on failure, EXIT_OK on success. */
int cli_open_device(const char *name, occ_device **out);

/* Work-groups from --groups or --global (0 if neither); prints errors. */
int cli_work_groups(const cli_kernel *c, uint64_t *work_groups);

/* "64 KB" / "1000 bytes" */
void fmt_bytes(char *buf, size_t size, uint64_t b);

#endif
