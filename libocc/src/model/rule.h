/* The per-core rule: the one place that says how many work-groups of a
 * kernel one core holds, which resource limits it and why a kernel cannot
 * launch (rule.c).  Every answer of libocc comes from it: the residency and
 * its reason in words directly; the advisor, next steps, sweeps and limits
 * through occ_residency_compute; the fast paths (eval_fast.h, the column
 * lanes, the prepared kernel) from tables that the rule's steps below fill
 * per device (or per prepared kernel), with the rule itself answering
 * whatever a table does not cover.
 *
 * Adding a limit or a check is one row in rule.c's table.  The fast paths
 * know the rows that exist when they were written (OCC__RULE_FAST_ROWS):
 * a rule with a row they do not know, or a kernel that sets a
 * field past the ones they read, is answered by the rule. */
#ifndef OCC_RULE_H
#define OCC_RULE_H

#include "common/internal.h"

/* The rule in full for a validated description: every field of r, and the
 * reason in words into detail (when not NULL) if the kernel cannot launch. */
void occ__rule_eval(const occ_device_desc *d, const occ_kernel *k, occ_residency *r, char *detail,
                    size_t detail_size);

/* ---- the rule's steps over the device alone (the fast paths' tables) ---- */

/* Whether a sub-group size is one the device supports. */
bool occ__rule_sub_group_ok(const occ_device_desc *d, uint32_t sg);

/* The GRF mode a request of grf registers gets (0: the default mode): the
 * smallest mode with at least that many; NULL when none has. */
const occ_grf_mode *occ__rule_grf_mode(const occ_device_desc *d, uint32_t grf);

/* Thread contexts a core has in a GRF mode. */
uint32_t occ__rule_contexts_per_core(const occ_device_desc *d, const occ_grf_mode *mode);

/* The local memory one work-group of slm_bytes is charged (the runtime's
 * reserved part added, rounded to the granule or the next legal step);
 * 0 for none; 0 also when no step holds it (only past the core's size). */
uint64_t occ__rule_slm_alloc(const occ_device_desc *d, uint64_t slm_bytes);

/* The core's local-memory size for a carveout preference (-1: none, the
 * whole) when one work-group is charged per_wg: the smallest legal size at
 * least the preference and per_wg, else the whole. */
uint64_t occ__rule_slm_config(const occ_device_desc *d, int32_t carveout_pct, uint64_t per_wg);

/* Register-file devices: what regs registers per thread (1..maximum) cost
 * in warps (waves) of sg work-items. */
typedef struct occ__rule_regs {
    uint32_t per_warp;      /* registers one warp (sub-group) is allocated */
    uint32_t warps_by_regs; /* warps a core holds by registers */
    uint64_t max_warps;     /* most warps one work-group may have before the per-work-group
                               maximum refuses it (granularity applied) */
} occ__rule_regs;
occ__rule_regs occ__rule_registers(const occ_device_desc *d, uint32_t regs, uint32_t sg);
/* The warps a core holds when each is allocated per_warp registers. */
uint32_t occ__rule_warps_by_regs(const occ_device_desc *d, uint32_t per_warp);

/* The limits of a work-group of t sub-groups (t >= 1) by work-group slots,
 * and by barriers (barrier: it uses one): the rows slots and barriers.  The
 * device's counts, or none where the vendor's slots are barriers that only
 * work-groups of more than one sub-group take
 * (occ__vendor_rules.slots_are_barriers). */
uint32_t occ__rule_wg_slots(const occ_device_desc *d, uint32_t t);
uint32_t occ__rule_barriers(const occ_device_desc *d, bool barrier);

/* The reasons a kernel can be refused for, in the order the rows check them
 * (the first that fails is the answer): for a fast path that finds several
 * failures at once.  OCC__RULE_N_CHECKS entries. */
#define OCC__RULE_N_CHECKS 12
extern const uint8_t occ__rule_check_order[OCC__RULE_N_CHECKS];
/* The first checks of that order, those of the rows before the first row
 * that sets a limit or an allocation (shape, kernel, request): a kernel one
 * of them refuses has a report of the shape alone (the sub-group size, the
 * GRF mode, the work-items, the contexts known by then), every limit none. */
#define OCC__RULE_CHECKS_BEFORE_LIMITS 10

/* The rows of the rule.  The fast paths were derived from them;
 * occ__fast_init compares this count with the one they know.  (The kernel
 * row checks only fields past OCC__FAST_KERNEL_BYTES, and the vendor row's
 * own part reads only the kernel's vendor fields: the fast paths know them
 * by declining every kernel that sets one.) */
size_t occ__rule_rows(void);
#define OCC__RULE_FAST_ROWS 9

#endif
