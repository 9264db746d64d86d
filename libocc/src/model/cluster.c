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

#include <stdlib.h>
#include <string.h>

uint32_t occ_kernel_cluster_size(const occ_kernel *k)
{
    if (!k || !(k->cluster[0] | k->cluster[1] | k->cluster[2]))
        return 0;
    uint64_t n = 1;
    for (int i = 0; i < 3 && n <= UINT32_MAX; i++)
        n *= k->cluster[i] ? k->cluster[i] : 1;
    return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

/* The size of k's cluster for the rule: 0,0,0 is a cluster of one. */
static uint32_t cluster_size_of(const occ_kernel *k)
{
    uint32_t n = occ_kernel_cluster_size(k);
    return n ? n : 1;
}

/* The rule: clusters of `size` resident at once in GPCs gpc[0..n). */
static uint64_t rule(const uint32_t *gpc, uint32_t n_gpcs, uint32_t per_core, uint32_t size,
                     uint32_t *cores_used, uint32_t *gpcs_used)
{
    uint64_t n = 0;
    uint32_t cores = 0, gpcs = 0;
    for (uint32_t i = 0; i < n_gpcs; i++) {
        if (gpc[i] < size)
            continue;
        n += (uint64_t)gpc[i] * per_core / size;
        cores += gpc[i];
        gpcs++;
    }
    if (cores_used)
        *cores_used = cores;
    if (gpcs_used)
        *gpcs_used = gpcs;
    return n;
}

static uint64_t clusters_in_gpcs(const occ_device_desc *d, uint32_t per_core, uint32_t size,
                                 uint32_t *cores_used, uint32_t *gpcs_used)
{
    return rule(d->gpc_sms, d->n_gpcs, per_core, size, cores_used, gpcs_used);
}

static uint32_t capped(const occ_device_desc *d, uint32_t resident_wgs)
{
    return resident_wgs < d->cluster_max_work_groups ? resident_wgs : d->cluster_max_work_groups;
}

uint32_t occ_cluster_work_groups_of(const occ_device *dev, uint32_t resident_wgs)
{
    return dev && dev->desc.n_gpcs ? capped(&dev->desc, resident_wgs) : 0;
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
    c->contexts_used = c->work_groups_per_core * r.contexts_per_wg;
    c->occupancy = r.contexts_per_core ? (double)c->contexts_used / r.contexts_per_core : 0;
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

/* ---- the rule inverted (occcalc probe) ---------------------------------------------- */

/* The search for GPCs: A(C) = sum over GPCs of G >= C of floor(G * w / C)
 * for C = 1..m.  GPCs of fewer than m cores follow from A by peeling C = m-1
 * down to 1 (A(C) less the larger GPCs' share is w per GPC of exactly C);
 * GPCs of m cores or more share A(m) and are enumerated, largest first,
 * until their floor(G * w / m) add up to A(m).  Every candidate is checked
 * against every set; a second one that passes makes the answers ambiguous. */
typedef struct gpc_search {
    uint32_t cores;
    const occ_cluster_answers *sets;
    const uint32_t *per_core; /* each set's w */
    size_t n;
    size_t primary;           /* the set peeled: most sizes, then largest w */
    uint32_t g[OCC_MAX_GPCS], n_g;
    uint32_t found[2][OCC_MAX_GPCS], n_found[2], n_solutions;
    uint64_t steps;
} gpc_search;

#define GPC_SEARCH_STEPS (1u << 22) /* a few ms of work on any input */

static bool fits_every_set(const gpc_search *s, const uint32_t *g, uint32_t n_g)
{
    for (size_t i = 0; i < s->n; i++)
        for (uint32_t c = 1; c <= s->sets[i].n_sizes; c++)
            if (s->per_core[i] && rule(g, n_g, s->per_core[i], c, NULL, NULL) != s->sets[i].clusters[c - 1])
                return false;
    return true;
}

/* The large GPCs are s->g[0..n_g): add the small ones and test. */
static void complete(gpc_search *s)
{
    const occ_cluster_answers *a = &s->sets[s->primary];
    uint32_t w = s->per_core[s->primary], m = a->n_sizes;
    uint32_t g[OCC_MAX_GPCS], n_g = s->n_g;
    memcpy(g, s->g, n_g * sizeof *g);
    for (uint32_t c = m - 1; c >= 1; c--) {
        uint64_t larger = rule(g, n_g, w, c, NULL, NULL);
        if (a->clusters[c - 1] < larger || (a->clusters[c - 1] - larger) % w)
            return;
        for (uint64_t k = (a->clusters[c - 1] - larger) / w; k; k--) {
            if (n_g == OCC_MAX_GPCS)
                return;
            g[n_g++] = c;
        }
    }
    uint64_t sum = 0;
    for (uint32_t i = 0; i < n_g; i++)
        sum += g[i];
    if (sum != s->cores || !fits_every_set(s, g, n_g))
        return;
    if (s->n_solutions < 2) {
        memcpy(s->found[s->n_solutions], g, n_g * sizeof *g);
        s->n_found[s->n_solutions] = n_g;
    }
    s->n_solutions++;
}

/* Large GPCs, each at most `largest` cores, from `left` cores; `share` of A(m) so far. */
static void large_gpcs(gpc_search *s, uint32_t largest, uint32_t left, uint64_t share)
{
    const occ_cluster_answers *a = &s->sets[s->primary];
    uint32_t w = s->per_core[s->primary], m = a->n_sizes;
    if (++s->steps > GPC_SEARCH_STEPS || s->n_solutions > 1)
        return;
    if (share == a->clusters[m - 1]) {
        complete(s);
        return;
    }
    if (s->n_g == OCC_MAX_GPCS)
        return;
    /* the largest GPC whose floor(g * w / m) still fits what is left of A(m) */
    uint64_t rest = a->clusters[m - 1] - share;
    uint64_t fit = rest < UINT32_MAX ? ((rest + 1) * m - 1) / w : UINT32_MAX;
    uint32_t top = largest < left ? largest : left;
    if (fit < top)
        top = (uint32_t)fit;
    for (uint32_t g = top; g >= m && g >= 1; g--) {
        uint64_t more = share + (uint64_t)g * w / m;
        if (++s->steps > GPC_SEARCH_STEPS)
            return;
        s->g[s->n_g++] = g;
        large_gpcs(s, g, left - g, more);
        s->n_g--;
        if (s->steps > GPC_SEARCH_STEPS || s->n_solutions > 1)
            return;
    }
}

static void list_gpcs(char *out, size_t size, const uint32_t *g, uint32_t n)
{
    size_t o = 0;
    out[0] = '\0';
    for (uint32_t i = 0; i < n && o + 1 < size; i++) {
        int k = snprintf(out + o, size - o, "%s%u", i ? ", " : "", g[i]);
        if (k < 0)
            break;
        o += (size_t)k;
    }
}

occ_status occ_gpcs_from_clusters(uint32_t cores, const occ_cluster_answers *sets, size_t n,
                                  occ_gpc_structure *out, occ_diag *diag)
{
    if (!sets || !out || !n)
        return OCC_ERR_INVALID_ARGUMENT;
    memset(out, 0, sizeof *out);
    if (!cores)
        OCC__FAIL(diag, "cluster", "a device of 0 cores has no GPCs");
    uint32_t *w = calloc(n, sizeof *w);
    if (!w)
        return occ__diag(diag, OCC_ERR_NO_MEMORY, NULL, 0, 0, NULL, "out of memory");
    /* each set's w: A(1) is w on every core; a cap shows as w below the residency */
    uint32_t cap = 0, widest = 0;
    size_t used = 0, primary = 0;
    occ_status st = OCC_OK;
    for (size_t i = 0; i < n && !st; i++) {
        const occ_cluster_answers *a = &sets[i];
        if (a->n_sizes < 1 || a->n_sizes > OCC_CLUSTER_ANSWERS_MAX)
            st = occ__diag(diag, OCC_ERR_VALUE, NULL, 0, 0, "cluster",
                           "answer set %zu: %u sizes (1..%u)", i, a->n_sizes, OCC_CLUSTER_ANSWERS_MAX);
        else if (a->clusters[0] % cores || a->clusters[0] / cores > a->work_groups_per_core)
            st = occ__diag(diag, OCC_ERR_VALUE, NULL, 0, 0, "cluster",
                           "answer set %zu: %llu clusters of one work-group is not w x %u cores with w "
                           "at most the %u work-groups per core: not the cluster rule",
                           i, (unsigned long long)a->clusters[0], cores, a->work_groups_per_core);
        for (uint32_t c = 2; c <= a->n_sizes && !st; c++)
            if (a->clusters[c - 1] > a->clusters[0])
                st = occ__diag(diag, OCC_ERR_VALUE, NULL, 0, 0, "cluster",
                               "answer set %zu: more clusters of %u work-groups than of one: not "
                               "the cluster rule",
                               i, c);
        if (st)
            break;
        w[i] = (uint32_t)(a->clusters[0] / cores);
        if (!w[i])
            continue;
        if (w[i] < a->work_groups_per_core) {
            if (cap && cap != w[i])
                st = occ__diag(diag, OCC_ERR_VALUE, NULL, 0, 0, "cluster",
                               "answer sets cap a core at %u and at %u work-groups: not the cluster rule",
                               cap, w[i]);
            cap = w[i];
        }
        widest = a->work_groups_per_core > widest ? a->work_groups_per_core : widest;
        if (!used++ || a->n_sizes > sets[primary].n_sizes ||
            (a->n_sizes == sets[primary].n_sizes && w[i] > w[primary]))
            primary = i;
    }
    for (size_t i = 0; i < n && !st; i++) /* a set under the cap must not stop below it */
        if (w[i] && cap && w[i] != (sets[i].work_groups_per_core < cap ? sets[i].work_groups_per_core : cap))
            st = occ__diag(diag, OCC_ERR_VALUE, NULL, 0, 0, "cluster",
                           "answer set %zu holds %u work-groups per core of %u, another is capped at %u: "
                           "not the cluster rule",
                           i, w[i], sets[i].work_groups_per_core, cap);
    if (!st && !used)
        st = occ__diag(diag, OCC_ERR_VALUE, NULL, 0, 0, "cluster",
                       "no answer set holds a work-group: nothing to measure the GPCs with");
    if (st) {
        free(w);
        return st;
    }
    gpc_search s = {.cores = cores, .sets = sets, .per_core = w, .n = n, .primary = primary};
    large_gpcs(&s, cores, cores, 0);
    free(w);
    char one[160], two[160];
    if (s.steps > GPC_SEARCH_STEPS)
        OCC__FAIL(diag, "cluster", "the GPCs of %u cores were not found within %u candidates", cores,
                  GPC_SEARCH_STEPS);
    if (!s.n_solutions)
        OCC__FAIL(diag, "cluster", "no GPCs of %u cores give these answers under the cluster rule", cores);
    if (s.n_solutions > 1) {
        list_gpcs(one, sizeof one, s.found[0], s.n_found[0]);
        list_gpcs(two, sizeof two, s.found[1], s.n_found[1]);
        OCC__FAIL(diag, "cluster",
                  "the answers fit GPCs of [%s] and of [%s]: answers at another residency per core "
                  "tell them apart",
                  one, two);
    }
    out->n_gpcs = s.n_found[0];
    memcpy(out->gpc_sms, s.found[0], s.n_found[0] * sizeof *out->gpc_sms);
    out->cluster_max_work_groups = cap ? cap : widest;
    return OCC_OK;
}
