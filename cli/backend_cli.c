/* Live-device plumbing shared by occcalc probe and occcalc validate. */
#include "backend_cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "args.h"

void cli_backend_init(cli_backend *b)
{
    b->name = "cuda";
    b->index = 0;
    b->timeout_s = 30.0;
}

int cli_backend_option(cli_backend *b, const char *opt, const char *arg)
{
    uint64_t v;
    if (strcmp(opt, "backend") == 0) {
        b->name = arg;
        return 1;
    }
    if (strcmp(opt, "index") == 0) {
        if (!parse_u64(arg, 1024, &v))
            return usage_error("--index: '%s' is not a device index (0, 1, ...)", arg), -1;
        b->index = (unsigned)v;
        return 1;
    }
    if (strcmp(opt, "timeout") == 0) {
        if (!parse_positive_double(arg, &b->timeout_s) || b->timeout_s > 3600)
            return usage_error("--timeout: '%s' is not a number of seconds in (0, 3600]", arg), -1;
        return 1;
    }
    return 0;
}

int cli_backend_error(const occ_diag *diag, occ_status s)
{
    fprintf(stderr, "occcalc: %s\n", diag->message[0] ? diag->message : occ_status_text(s));
    switch (s) {
    case OCC_ERR_NOT_FOUND:
    case OCC_ERR_INVALID_ARGUMENT: return EXIT_USAGE;
    case OCC_ERR_DEVICE:
    case OCC_ERR_UNSUPPORTED: return EXIT_DEVICE;
    case OCC_ERR_VALUE: return EXIT_NEGATIVE;
    default: return EXIT_INTERNAL;
    }
}

int cli_backend_open(const cli_backend *b, occ_backend **out, occ_device_desc *desc,
                     occ_backend_info *info)
{
    occ_backend_options o;
    occ_backend_options_init(&o);
    o.device_index = b->index;
    o.timeout_s = b->timeout_s;
    occ_diag diag;
    memset(&diag, 0, sizeof diag);
    occ_status s = occ_backend_open(b->name, &o, out, &diag);
    if (s == OCC_OK)
        s = occ_backend_describe(*out, desc, info, &diag);
    if (s == OCC_OK)
        return EXIT_OK;
    if (*out) {
        occ_backend_close(*out);
        *out = NULL;
    }
    return cli_backend_error(&diag, s);
}

/* CUDA: the GPCs and the cluster caps from the driver's cluster answers for
 * the probe kernel (docs/clusters.md, the rule inverted): blocks of several
 * sizes, so that one residency's ambiguity is settled by another's, each
 * asked its blocks per SM and its clusters of 1..16 blocks (non-portable
 * allowed); blocks of 32 also without the attribute, for the portable maximum.
 * Fills desc's four cluster keys and the sentence for the profile's sources;
 * a warning when the answers give no structure. */
static const uint32_t gpc_probe_blocks[] = {32, 1024, 512, 384, 320, 288, 256, 128, 64};
#define GPC_BLOCKS (sizeof gpc_probe_blocks / sizeof gpc_probe_blocks[0])
#define GPC_ASKED (OCC_CLUSTER_ANSWERS_MAX + 1)

void cli_measure_gpcs(occ_backend *b, occ_device_desc *desc, char *source, size_t size)
{
    enum { N = GPC_BLOCKS * GPC_ASKED + OCC_CLUSTER_ANSWERS_MAX };
    occ_kernel req[N], act[N];
    int32_t ans[N];
    for (size_t i = 0; i < N; i++) {
        occ_kernel_init(&req[i]);
        size_t blk = i / GPC_ASKED, c = i % GPC_ASKED; /* c 0: no clusters */
        if (blk >= GPC_BLOCKS) /* the portable sizes, blocks of 32 */
            blk = 0, c = i - GPC_BLOCKS * GPC_ASKED + 1;
        req[i].wg[0] = gpc_probe_blocks[blk];
        req[i].cluster[0] = (uint32_t)c;
        req[i].cluster_non_portable = c && i < GPC_BLOCKS * GPC_ASKED;
    }
    occ_diag diag;
    memset(&diag, 0, sizeof diag);
    occ_status s = occ_backend_driver_residency(b, req, act, ans, N, &diag);
    if (s != OCC_OK) {
        fprintf(stderr, "occcalc: warning: GPCs not measured (%s); the profile has no cluster data\n",
                diag.message[0] ? diag.message : occ_status_text(s));
        return;
    }
    occ_cluster_answers sets[GPC_BLOCKS];
    size_t n_sets = 0;
    uint32_t largest = 0, portable = 0;
    for (size_t blk = 0; blk < GPC_BLOCKS; blk++) {
        const int32_t *a = &ans[blk * GPC_ASKED];
        occ_cluster_answers *set = &sets[n_sets];
        memset(set, 0, sizeof *set);
        while (set->n_sizes < OCC_CLUSTER_ANSWERS_MAX && a[set->n_sizes + 1] >= 0) {
            set->clusters[set->n_sizes] = (uint64_t)a[set->n_sizes + 1];
            set->n_sizes++;
        }
        if (a[0] < 0 || !set->n_sizes)
            continue;
        set->work_groups_per_core = (uint32_t)a[0];
        largest = set->n_sizes > largest ? set->n_sizes : largest;
        n_sets++;
    }
    while (portable < OCC_CLUSTER_ANSWERS_MAX && ans[GPC_BLOCKS * GPC_ASKED + portable] >= 0)
        portable++;
    if (!n_sets) {
        fprintf(stderr, "occcalc: note: the driver answers no cluster query (compute capability "
                        "below 9.0?): the profile has no cluster data\n");
        return;
    }
    occ_gpc_structure g;
    s = occ_gpcs_from_clusters(desc->cores, sets, n_sets, &g, &diag);
    if (s != OCC_OK || !portable) {
        fprintf(stderr, "occcalc: warning: GPCs not measured (%s); the profile has no cluster data\n",
                s != OCC_OK ? diag.message : "no portable cluster size answered");
        return;
    }
    desc->n_gpcs = g.n_gpcs;
    memcpy(desc->gpc_sms, g.gpc_sms, sizeof desc->gpc_sms);
    desc->cluster_max_work_groups = g.cluster_max_work_groups;
    desc->cluster_max_size = portable;
    desc->cluster_max_size_non_portable = largest;
    snprintf(source, size,
             "Thread-block clusters (docs/clusters.md): GPCs and caps from cuOccupancyMaxActiveClusters "
             "for the probe kernel's blocks of 32..1024 threads in clusters of 1..%u (the rule inverted)",
             largest);
}
