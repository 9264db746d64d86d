/* Pieces shared by occcalc advise, sweep and limits: their extra flags and
 * a few renderings. */
#ifndef OCCCALC_ADVISE_CLI_H
#define OCCCALC_ADVISE_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "json.h"
#include "occ/advise.h"

/* "8,16,32" into v (at most max_n positive values). */
bool parse_u32_list(const char *s, uint32_t *v, uint32_t max_n, uint32_t *n);
/* "1,*,128": numbers fix a dimension, '*' leaves it free (0 in fixed). */
bool parse_wg_pattern(const char *s, uint32_t fixed[3], int *dims);
/* A percentage in (0, 100] as a fraction. */
bool parse_percent(const char *s, double *fraction);

/* "thread contexts, barriers" (or "-" when none) */
void format_limited_by(char *buf, size_t size, uint32_t mask);
void json_limited_by(json *j, const char *key, uint32_t mask);


#endif
