/* occcalc: GPU occupancy calculator.  Dispatches to a command; with no
 * command name (first argument an option) it runs the calculator. */
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "commands.h"
#include "outfile.h"

/* The fuzz harness calls main() many times in one process: stdout stays open. */
#ifdef OCCCALC_KEEP_STDOUT
#define CLOSE_STDOUT false
#else
#define CLOSE_STDOUT true
#endif

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
} commands[] = {
#define OCCCALC_COMMAND_ENTRY(name) {#name, cmd_##name},
    OCCCALC_COMMANDS(OCCCALC_COMMAND_ENTRY)
#undef OCCCALC_COMMAND_ENTRY
};

static int run(int argc, char **argv)
{
    if (argc > 1 && argv[1][0] != '-') {
        for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
            if (strcmp(argv[1], commands[i].name) == 0)
                return commands[i].run(argc - 1, argv + 1);
        return usage_error("unknown command '%s'", argv[1]);
    }
    if (argc > 1 && strcmp(argv[1], "--list-devices") == 0) {
        char *args[] = {"devices", NULL};
        return cmd_devices(1, args);
    }
    return cmd_calc(argc, argv);
}

int main(int argc, char **argv)
{
    outfile_guard_std_fds();
    int rc = run(argc, argv);
    /* output that was lost is an error, reported like any other file's */
    return outfile_finish_stdout(rc, CLOSE_STDOUT);
}
