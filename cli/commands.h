/* occcalc's commands.  Each takes argc/argv with argv[0] = the command name
 * and returns an exit code from args.h.  A new command is cli/cmd_NAME.c and
 * its name in cli/meson.build's occcalc_commands. */
#ifndef OCCCALC_COMMANDS_H
#define OCCCALC_COMMANDS_H

/* OCCCALC_COMMANDS(X): X(name) for every command, from cli/meson.build's list. */
#include "commands_list.h"

#define OCCCALC_DECLARE_COMMAND(name) int cmd_##name(int argc, char **argv);
OCCCALC_COMMANDS(OCCCALC_DECLARE_COMMAND)
#undef OCCCALC_DECLARE_COMMAND

#endif
