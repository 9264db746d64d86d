/* A launch in thread-block clusters measured against the cluster rule
 * (occ_cluster_check, occ/backend.h; docs/clusters.md): where the clusters
 * ran (the cores, the most work-groups on one core, the cores that shared a
 * cluster) and when (the most clusters running at once, the first wave). */
#include "common/internal.h"
#include "validate/cluster_check.h"

#include <stdlib.h>
#include <string.h>

/* An event of an interval: its time, +1 at a start, -1 at an end; `key`
 * groups the events (a core), 0 when there is one group. */
typedef struct event {
    uint64_t key, t;
    int d;
} event;

static int cmp_event(const void *a, const void *b)
{
    const event *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return x->d - y->d; /* an end before a start at the same time */
}

/* The most intervals open at once within one key, over sorted events. */
static uint64_t peak(const event *ev, size_t n)
{
    uint64_t best = 0;
    int64_t open = 0;
    for (size_t i = 0; i < n; i++) {
        if (i && ev[i].key != ev[i - 1].key)
            open = 0;
        open += ev[i].d;
        if (open > 0 && (uint64_t)open > best)
            best = (uint64_t)open;
    }
    return best;
}

static uint32_t find(uint32_t *parent, uint32_t x)
{
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
}

static int cmp_desc(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* The groups (largest first) fit the profile's GPCs: each into the GPC with
 * the least room that holds it (best fit; cores of one GPC may form several
 * groups). */
static bool groups_fit(const occ_device_desc *d, const uint32_t *groups, size_t n)
{
    uint32_t room[OCC_MAX_GPCS];
    memcpy(room, d->gpc_sms, sizeof room);
    for (size_t g = 0; g < n; g++) {
        size_t best = SIZE_MAX;
        for (size_t i = 0; i < d->n_gpcs; i++)
            if (room[i] >= groups[g] && (best == SIZE_MAX || room[i] < room[best]))
                best = i;
        if (best == SIZE_MAX)
            return false;
        room[best] -= groups[g];
    }
    return true;
}

/* A record as the checks need it, the records sorted by cluster. */
typedef struct member {
    uint32_t cluster, core;
    uint64_t t_start, t_end;
} member;

static int cmp_member(const void *a, const void *b)
{
    const member *x = a, *y = b;
    return x->cluster < y->cluster ? -1 : x->cluster > y->cluster;
}

/* The cores that shared a cluster (members sorted by cluster), joined: each
 * group must lie in one GPC.  out's n_groups and largest groups; false when
 * they do not fit the GPCs of d (or out of memory). */
static bool core_groups(const member *mb, size_t n, uint32_t max_core, const occ_device_desc *d,
                        occ_cluster_check *out)
{
    uint32_t *parent = malloc(((size_t)max_core + 1) * sizeof *parent);
    uint32_t *size = calloc((size_t)max_core + 1, sizeof *size);
    bool *seen = calloc((size_t)max_core + 1, sizeof *seen);
    bool ok = parent && size && seen;
    if (ok) {
        for (uint32_t i = 0; i <= max_core; i++)
            parent[i] = i;
        for (size_t i = 0; i < n; i++) {
            seen[mb[i].core] = true;
            if (i && mb[i].cluster == mb[i - 1].cluster) {
                uint32_t x = find(parent, mb[i].core), y = find(parent, mb[i - 1].core);
                if (x != y)
                    parent[x] = y;
            }
        }
        for (uint32_t i = 0; i <= max_core; i++)
            if (seen[i])
                size[find(parent, i)]++;
        uint32_t groups = 0; /* the sizes, packed at the front of size[] */
        for (uint32_t i = 0; i <= max_core; i++)
            if (size[i])
                size[groups++] = size[i];
        qsort(size, groups, sizeof *size, cmp_desc);
        out->n_groups = groups;
        memcpy(out->group_cores, size, (groups < OCC_MAX_GPCS ? groups : OCC_MAX_GPCS) * sizeof *size);
        ok = groups_fit(d, size, groups);
    }
    free(parent);
    free(size);
    free(seen);
    return ok;
}

occ_status occ__cluster_check(const occ_device *dev, const occ_probe_result *res, occ_cluster_check *out,
                              occ_diag *diag)
{
    memset(out, 0, sizeof *out);
    out->predicted.struct_size = sizeof out->predicted;
    occ_status s = occ_cluster_compute(dev, &res->actual, &out->predicted, diag);
    if (s != OCC_OK)
        return s;
    out->clustered = true;
    const occ_clusters *p = &out->predicted;
    out->launched = res->work_groups / p->size;
    out->expected = p->max_active_clusters < out->launched ? p->max_active_clusters : out->launched;
    if (res->work_groups % p->size)
        return occ__diag(diag, OCC_ERR_VALUE, NULL, 0, 0, NULL,
                         "%llu work-groups are not a whole number of clusters of %u",
                         (unsigned long long)res->work_groups, p->size);
    /* the records by cluster: time and memory linear in the records, whatever
     * the file says the launch was */
    size_t n = res->n_records;
    member *mb = malloc((n ? n : 1) * sizeof *mb);
    event *ev = malloc((2 * n + 1) * sizeof *ev);
    if (!mb || !ev) {
        free(mb), free(ev);
        return occ__diag(diag, OCC_ERR_NO_MEMORY, NULL, 0, 0, NULL, "out of memory for %zu records", n);
    }
    uint32_t max_core = 0;
    for (size_t i = 0; i < n; i++) {
        const occ_record *r = &res->records[i];
        if (r->cluster >= out->launched) {
            free(mb), free(ev);
            return occ__diag(diag, OCC_ERR_VALUE, NULL, 0, 0, NULL,
                             "record of work-group %llu: cluster %u of a launch of %llu clusters",
                             (unsigned long long)r->work_group, r->cluster, (unsigned long long)out->launched);
        }
        mb[i] = (member){r->cluster, r->core_start, r->t_start, r->t_end};
        if (r->core_start > max_core)
            max_core = r->core_start;
    }
    qsort(mb, n, sizeof *mb, cmp_member);
    /* when: each cluster from its first start to its last end; the most at
     * once, and those that started before the first ended */
    size_t m = 0;
    uint64_t first_end = UINT64_MAX;
    for (size_t i = 0, j; i < n; i = j) {
        uint64_t lo = mb[i].t_start, hi = mb[i].t_end;
        for (j = i + 1; j < n && mb[j].cluster == mb[i].cluster; j++) {
            lo = mb[j].t_start < lo ? mb[j].t_start : lo;
            hi = mb[j].t_end > hi ? mb[j].t_end : hi;
        }
        ev[m++] = (event){0, lo, 1};
        ev[m++] = (event){0, hi, -1};
        first_end = hi < first_end ? hi : first_end;
    }
    for (size_t i = 0; i < m; i += 2)
        out->first_wave += ev[i].t < first_end;
    qsort(ev, m, sizeof *ev, cmp_event);
    out->at_once = peak(ev, m);
    /* where: the cores used, the most work-groups on one at once */
    m = 0;
    for (size_t i = 0; i < n; i++) {
        ev[m++] = (event){mb[i].core, mb[i].t_start, 1};
        ev[m++] = (event){mb[i].core, mb[i].t_end, -1};
    }
    qsort(ev, m, sizeof *ev, cmp_event);
    out->peak_per_core = (uint32_t)peak(ev, m);
    for (size_t i = 0; i < m; i++)
        out->cores_used += !i || ev[i].key != ev[i - 1].key;
    bool grouped = !n || core_groups(mb, n, max_core, occ_device_describe(dev), out);
    free(mb), free(ev);

    out->driver_ok = res->driver_clusters < 0 || (uint64_t)res->driver_clusters == p->max_active_clusters;
    out->at_once_ok = out->at_once == out->expected;
    out->first_wave_ok = out->first_wave == out->expected;
    out->per_core_ok = out->peak_per_core <= p->work_groups_per_core;
    out->cores_ok = out->launched < p->max_active_clusters || out->cores_used == p->cores_used;
    out->groups_ok = grouped;
    out->ok = out->driver_ok && out->at_once_ok && out->first_wave_ok && out->per_core_ok &&
              out->cores_ok && out->groups_ok;
    return OCC_OK;
}
