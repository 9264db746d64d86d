/* Thread-block clusters (docs/clusters.md): how many clusters of a launch are
 * resident at once, the largest cluster size that fits, and the waves of a
 * cluster launch.
 *
 * A cluster's work-groups run on distinct cores of one GPC (core.gpc_sms),
 * and a cluster launch holds at most core.cluster_max_work_groups per core
 * however many fit.  So a GPC of G cores holds floor(G * w / C) clusters of C
 * work-groups (w: the per-core residency under that cap) when C <= G, none
 * otherwise: k clusters of C distinct cores fit G cores of w slots as soon as
 * k * C <= G * w (deal them round the cores).  This reproduces every
 * cuOccupancyMaxActiveClusters answer recorded on H200s (test
 * cuda-occupancy). */
#include "common/internal.h"

#include <string.h>

static uint32_t cluster_size_of(const occ_kernel *k)
{
    uint64_t n = 1;
    for (int i = 0; i < 3; i++)
        n *= k->cluster[i] ? k->cluster[i] : 1;
    return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

static uint64_t clusters_in_gpcs(const occ_device_desc *d, uint32_t per_core, uint32_t size,
                                 uint32_t *cores_used, uint32_t *gpcs_used)
{
    uint64_t n = 0;
    uint32_t cores = 0, gpcs = 0;
    for (uint32_t i = 0; i < d->n_gpcs; i++) {
        if (d->gpc_sms[i] < size)
            continue;
        n += (uint64_t)d->gpc_sms[i] * per_core / size;
        cores += d->gpc_sms[i];
        gpcs++;
    }
    if (cores_used)
        *cores_used = cores;
    if (gpcs_used)
        *gpcs_used = gpcs;
    return n;
}

static uint32_t capped(const occ_device_desc *d, uint32_t resident_wgs)
{
    return resident_wgs < d->cluster_max_work_groups ? resident_wgs : d->cluster_max_work_groups;
}

uint64_t occ_max_active_clusters_of(const occ_device *dev, uint32_t resident_wgs, uint32_t size)
{
    if (!dev || !size || !dev->desc.n_gpcs)
        return 0;
    return clusters_in_gpcs(&dev->desc, capped(&dev->desc, resident_wgs), size, NULL, NULL);
}

/* Whether the device takes cluster launches; the refusal in words. */
static occ_status check_device(const occ_device *dev, occ_diag *diag)
{
    if (dev->desc.n_gpcs)
        return OCC_OK;
    return occ__diag(diag, OCC_ERR_UNSUPPORTED, NULL, 0, 0, "cluster",
                     "%s takes no cluster launches: its profile has no GPC data (core.gpc_sms, "
                     "docs/clusters.md)",
                     dev->desc.name);
}

occ_status occ_cluster_compute(const occ_device *dev, const occ_kernel *k, occ_clusters *c,
                               occ_diag *diag)
{
    if (!dev || !k || !c || k->struct_size < sizeof *k)
        return OCC_ERR_INVALID_ARGUMENT;
    memset(c, 0, sizeof *c);
    c->struct_size = sizeof *c;
    OCC__TRY(check_device(dev, diag));
    const occ_device_desc *d = &dev->desc;
    uint32_t size = cluster_size_of(k);
    uint32_t top = k->cluster_non_portable ? d->cluster_max_size_non_portable : d->cluster_max_size;
    if (size > top)
        return occ__diag(diag, OCC_ERR_VALUE, NULL, 0, 0, "cluster",
                         "a cluster of %u work-groups (%ux%ux%u) is more than %s's %s maximum of %u%s",
                         size, k->cluster[0] ? k->cluster[0] : 1, k->cluster[1] ? k->cluster[1] : 1,
                         k->cluster[2] ? k->cluster[2] : 1, d->name,
                         k->cluster_non_portable ? "non-portable" : "portable", top,
                         k->cluster_non_portable || d->cluster_max_size_non_portable <= top
                             ? ""
                             : " (a kernel that allows non-portable sizes may have more)");
    occ_residency r;
    OCC__TRY(occ_residency_compute(dev, k, &r));
    c->size = size;
    c->work_groups_per_core = r.launchable ? capped(d, r.resident_wgs) : 0;
    c->max_active_clusters = clusters_in_gpcs(d, c->work_groups_per_core, size, &c->cores_used, &c->gpcs_used);
    return OCC_OK;
}

occ_status occ_max_active_clusters(const occ_device *dev, const occ_kernel *k, uint64_t *clusters)
{
    if (!clusters)
        return OCC_ERR_INVALID_ARGUMENT;
    *clusters = 0;
    occ_clusters c;
    occ_status st = occ_cluster_compute(dev, k, &c, NULL);
    if (!st)
        *clusters = c.max_active_clusters;
    return st;
}

occ_status occ_max_potential_cluster_size(const occ_device *dev, const occ_kernel *k, uint32_t *size)
{
    if (!size)
        return OCC_ERR_INVALID_ARGUMENT;
    *size = 0;
    if (!dev || !k || k->struct_size < sizeof *k)
        return OCC_ERR_INVALID_ARGUMENT;
    OCC__TRY(check_device(dev, NULL));
    const occ_device_desc *d = &dev->desc;
    occ_residency r;
    OCC__TRY(occ_residency_compute(dev, k, &r));
    if (!r.launchable)
        return OCC_OK;
    uint32_t per_core = capped(d, r.resident_wgs);
    uint32_t top = k->cluster_non_portable ? d->cluster_max_size_non_portable : d->cluster_max_size;
    for (uint32_t c = top; c >= 1; c--)
        if (clusters_in_gpcs(d, per_core, c, NULL, NULL)) {
            *size = c;
            break;
        }
    return OCC_OK;
}

occ_status occ_gpu_compute_clusters(const occ_device *dev, const occ_residency *r, const occ_clusters *c,
                                    uint64_t work_groups, occ_gpu *g)
{
    if (!dev || !r || !c || !g || !c->size || work_groups == 0)
        return OCC_ERR_INVALID_ARGUMENT;
    memset(g, 0, sizeof *g);
    g->struct_size = sizeof *g;
    g->work_groups = work_groups;
    g->cluster_size = c->size;
    g->max_active_clusters = c->max_active_clusters;
    if (work_groups % c->size)
        return OCC_ERR_VALUE;
    if (!r->launchable || !c->max_active_clusters || !r->contexts_per_wg)
        return OCC_ERR_UNSUPPORTED;
    /* the waves of clusters: each holds max_active_clusters clusters */
    const occ_device_desc *d = &dev->desc;
    g->contexts_needed = work_groups > UINT64_MAX / r->contexts_per_wg ? UINT64_MAX
                                                                         : work_groups * r->contexts_per_wg;
    g->contexts_total = (uint64_t)d->cores * r->contexts_per_core;
    g->wave_capacity = c->max_active_clusters * c->size;
    g->full_waves = work_groups / g->wave_capacity;
    g->last_wave_work_groups = work_groups % g->wave_capacity;
    g->waves = g->full_waves + (g->last_wave_work_groups ? 1 : 0);
    g->full_wave_occupancy = (double)(g->wave_capacity * r->contexts_per_wg) / (double)g->contexts_total;
    if (!g->last_wave_work_groups)
        g->last_wave_work_groups = g->wave_capacity;
    g->last_wave_occupancy = (double)(g->last_wave_work_groups * r->contexts_per_wg) / (double)g->contexts_total;
    g->average_occupancy =
        ((double)(g->waves - 1) * g->full_wave_occupancy + g->last_wave_occupancy) / (double)g->waves;
    /* Intel's calculator has no clusters: the plain time-weighted figure */
    g->intel_calculator_occupancy = g->average_occupancy;
    return OCC_OK;
}
