/* occcalc's commands.  Each takes argc/argv with argv[0] = the command name
 * and returns an exit code from args.h. */
#ifndef OCCCALC_COMMANDS_H
#define OCCCALC_COMMANDS_H

int cmd_calc(int argc, char **argv);
int cmd_devices(int argc, char **argv);
int cmd_phases(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_advise(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_limits(int argc, char **argv);
int cmd_trace(int argc, char **argv);

#endif
