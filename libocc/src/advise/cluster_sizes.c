/* Cluster sizes of a kernel ranked by the work-groups they keep at once, with
 * what each loses: the cores of GPCs too small for it, the slots of a GPC no
 * whole cluster fills, the cluster launch's per-core cap (docs/clusters.md;
 * the counts are model/cluster.c's). */
#include "common/internal.h"
#include "occ/advise.h"

#include <stdlib.h>

static int better_first(const void *a, const void *b)
{
    const occ_cluster_choice *x = a, *y = b;
    if (x->work_groups != y->work_groups)
        return x->work_groups > y->work_groups ? -1 : 1;
    return x->size > y->size ? -1 : x->size < y->size ? 1 : 0;
}

occ_status occ_cluster_sizes(const occ_device *dev, const occ_kernel *k, occ_cluster_choice *out, size_t cap,
                             size_t *n)
{
    if (!dev || !k || !n || (cap && !out) || k->struct_size < sizeof *k)
        return OCC_ERR_INVALID_ARGUMENT;
    *n = 0;
    const occ_device_desc *d = &dev->desc;
    if (!d->n_gpcs)
        return OCC_ERR_UNSUPPORTED;
    occ_residency r;
    OCC__TRY(occ_residency_compute(dev, k, &r));
    if (!r.launchable)
        return OCC_OK;
    uint32_t top = k->cluster_non_portable ? d->cluster_max_size_non_portable : d->cluster_max_size;
    occ_cluster_choice all[64];
    size_t m = 0;
    for (uint32_t c = 1; c <= top && m < sizeof all / sizeof *all; c++) {
        occ_kernel one = *k;
        one.cluster[0] = c, one.cluster[1] = one.cluster[2] = 1;
        occ_clusters cl;
        OCC__TRY(occ_cluster_compute(dev, &one, &cl, NULL));
        occ_cluster_choice *x = &all[m++];
        x->size = c;
        x->max_active_clusters = cl.max_active_clusters;
        x->work_groups = cl.max_active_clusters * c;
        x->gpu_occupancy = (double)(x->work_groups * r.contexts_per_wg) /
                           ((double)d->cores * r.contexts_per_core);
        x->idle_cores = d->cores - cl.cores_used;
        x->rounding_slots = (uint64_t)cl.cores_used * cl.work_groups_per_core - x->work_groups;
        x->capped_slots = r.resident_wgs - cl.work_groups_per_core;
    }
    qsort(all, m, sizeof *all, better_first);
    for (size_t i = 0; i < m && i < cap; i++)
        out[i] = all[i];
    *n = m;
    return OCC_OK;
}
