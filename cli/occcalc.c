/* occcalc: GPU occupancy calculator.  Dispatches to a command; with no
 * command name (first argument an option) it runs the calculator. */
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "commands.h"

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
} commands[] = {
    {"calc", cmd_calc},
    {"devices", cmd_devices},
    {"phases", cmd_phases},
    {"probe", cmd_probe},
    {"validate", cmd_validate},
    {"advise", cmd_advise},
    {"sweep", cmd_sweep},
    {"limits", cmd_limits},
    {"trace", cmd_trace},
};

int main(int argc, char **argv)
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
