/* Pieces shared by occcalc advise, sweep and limits: their extra flags and
 * a few renderings. */
#ifndef OCCCALC_ADVISE_CLI_H
#define OCCCALC_ADVISE_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "doc.h"
#include "occ/advise.h"

/* (Lists such as --sg 8,16 and --wg 1,*,128: parse_list in args.h.) */
/* A percentage in (0, 100] as a fraction. */
bool parse_percent(const char *s, double *fraction);

/* "thread contexts, barriers" (or "-" when none) */
void format_limited_by(char *buf, size_t size, uint32_t mask);
/* The same in the words of d's vendor (d NULL: the words above). */
void format_limited_by_on(char *buf, size_t size, uint32_t mask, const occ_device_desc *d);
void doc_limited_by(doc *j, const char *key, uint32_t mask);



#endif
