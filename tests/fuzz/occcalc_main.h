/* Force-included when cli/occcalc.c is compiled for the CLI fuzz target and
 * its replay driver: with -Dmain=occcalc_main, occcalc's main() becomes an
 * ordinary function the harness can call many times in one process. */
#ifndef OCC_FUZZ_OCCCALC_MAIN_H
#define OCC_FUZZ_OCCCALC_MAIN_H
int occcalc_main(int argc, char **argv);
/* ... and it must not close the harness's stdout at its end. */
#define OCCCALC_KEEP_STDOUT 1
#endif
