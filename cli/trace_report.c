/* occcalc trace: aggregation, prediction and output (docs/trace.md). */
#include "trace_report.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "advise_cli.h"
#include "args.h"
#include "json.h"
#include "report.h"
#include "trace_index.h"

#define TRACE_SCHEMA "occ-trace/1"

/* A device profile the predictions use, and how it was chosen. */
typedef struct profile {
    occ_device *dev;       /* NULL: none fits (the kernels get no prediction) */
    const tr_device *seen; /* the traced device it stands for; NULL for --device */
    char how[640];
} profile;

/* Kernels of the same name, resources and device across processes. */
typedef struct rkernel {
    const tr_kernel *k;    /* representative */
    size_t profile;        /* index in profiles; SIZE_MAX none */
    size_t launches, failed, n_configs, n_wg, n_grids;
    uint64_t gpu_ns;       /* all its timed executions */
    size_t timed;
    size_t first_config;   /* configs of one kernel are contiguous after sorting */
    size_t worst_config;   /* most launches (ties: lowest occupancy) */
} rkernel;

typedef struct config {
    size_t rk;
    uint32_t wg[3], cluster[3];
    uint64_t dyn, groups[3];
    bool groups_known;
    size_t launches;
    int drv;               /* driver's blocks per SM; -1 none */
    bool drv_mixed;
    bool predicted;
    occ_kernel k;
    occ_residency res;
    bool have_gpu;
    occ_gpu gpu;
    char next[256];
    char reason[256];
    uint64_t gpu_ns;
    size_t timed;
} config;

struct tr_report {
    const tr_data *d;
    tr_options o;
    profile *profiles;
    size_t n_profiles;
    rkernel *rks;
    size_t n_rks;
    config *cfgs;
    size_t n_cfgs;
    size_t *launch_cfg;    /* per launch: its config; SIZE_MAX for unknown kernels */
    size_t *order;         /* rkernels in report order */
    size_t *cfg_order;     /* configs grouped by rkernel (rks[i].first_config, n_configs) */
    size_t *process_launches; /* per process of d */
    size_t *device_profile; /* per traced device: its profile */
    size_t vendor_profile[3]; /* per tr_vendor: the first profile of a device of it */
    occ_device **builtins; /* every built-in profile, opened once to match devices */
    size_t n_builtins;
    size_t unknown_launches, threads;
    uint64_t unmatched_ns;
    size_t unmatched_times;
};

/* ---- device profiles ------------------------------------------------------------ */

static uint32_t default_threads(const occ_device_desc *d)
{
    for (uint32_t i = 0; i < d->n_grf_modes; i++)
        if (d->grf_modes[i].registers == d->default_grf)
            return d->grf_modes[i].threads_per_engine;
    return 0;
}

static bool name_mentions(const char *device_name, const char *profile_name)
{
    char stem[64], lower[256];
    size_t n = 0;
    for (; profile_name[n] && profile_name[n] != '-' && n + 1 < sizeof stem; n++)
        stem[n] = profile_name[n];
    stem[n] = 0;
    for (n = 0; device_name[n] && n + 1 < sizeof lower; n++)
        lower[n] = (char)tolower((unsigned char)device_name[n]);
    lower[n] = 0;
    return stem[0] && strstr(lower, stem);
}

/* The built-in profile whose shape equals the traced device's. */
static void match_profile(const tr_report *r, const tr_device *t, profile *p)
{
    const char *best = NULL, *others[8];
    size_t n_others = 0;
    bool best_named = false;
    for (size_t i = 0; i < r->n_builtins; i++) {
        const char *name = occ_builtin_name(i);
        if (!r->builtins[i])
            continue;
        const occ_device_desc *d = occ_device_describe(r->builtins[i]);
        bool fits;
        if (t->vendor == TR_CUDA) {
            char sm[16];
            snprintf(sm, sizeof sm, "sm_%d%d", t->cc_major, t->cc_minor);
            fits = d->vendor == OCC_VENDOR_NVIDIA && (int)d->cores == t->sms &&
                   strstr(d->architecture, sm) != NULL;
        } else {
            fits = d->vendor == OCC_VENDOR_INTEL && d->cores * d->engines_per_core == t->eus &&
                   d->simd_width == t->simd && default_threads(d) == t->threads_per_eu &&
                   (!t->max_wg || d->max_work_group_size == t->max_wg);
        }
        if (!fits)
            continue;
        bool named = name_mentions(t->name, name);
        if (!best || (named && !best_named)) {
            if (best && n_others < 8)
                others[n_others++] = best;
            best = name;
            best_named = named;
        } else if (n_others < 8) {
            others[n_others++] = name;
        }
    }
    char shape[160];
    if (t->vendor == TR_CUDA)
        snprintf(shape, sizeof shape, "compute capability %d.%d, %d SMs", t->cc_major, t->cc_minor,
                 t->sms);
    else
        snprintf(shape, sizeof shape, "%u EUs, SIMD %u, %u threads per EU, work-groups up to %u",
                 t->eus, t->simd, t->threads_per_eu, t->max_wg);
    if (!best) {
        if (snprintf(p->how, sizeof p->how, "no built-in profile fits %s (%s): give --device",
                     t->name, shape) < 0)
            p->how[0] = 0;
        return;
    }
    occ_device_builtin(best, &p->dev, NULL);
    int n = snprintf(p->how, sizeof p->how, "%s: built-in profile %s (fits %s)", t->name, best,
                     shape);
    size_t len = n > 0 ? (size_t)n : 0;
    for (size_t i = 0; i < n_others && len < sizeof p->how; i++)
        len += (size_t)snprintf(p->how + len, sizeof p->how - len, "%s%s", i ? ", " : "; so do ",
                                others[i]);
}

static bool same_device(const tr_device *a, const tr_device *b)
{
    return a->vendor == b->vendor && strcmp(a->name, b->name) == 0 && a->eus == b->eus &&
           a->simd == b->simd && a->threads_per_eu == b->threads_per_eu && a->sms == b->sms &&
           a->cc_major == b->cc_major && a->cc_minor == b->cc_minor;
}

static uint64_t device_hash(const tr_device *a)
{
    uint64_t h = tr_hash_bytes(TR_HASH_SEED, a->name, strlen(a->name));
    int v[] = {(int)a->vendor, (int)a->eus, (int)a->simd, (int)a->threads_per_eu, a->sms,
               a->cc_major, a->cc_minor};
    return tr_hash_bytes(h, v, sizeof v);
}

static int open_profiles(tr_report *r)
{
    const tr_data *d = r->d;
    r->profiles = calloc(d->n_devices + 1, sizeof *r->profiles);
    r->device_profile = malloc((d->n_devices + 1) * sizeof *r->device_profile);
    if (!r->profiles || !r->device_profile)
        return EXIT_INTERNAL;
    for (size_t v = 0; v < 3; v++)
        r->vendor_profile[v] = SIZE_MAX;
    if (r->o.device) {
        profile *p = &r->profiles[r->n_profiles++];
        int rc = cli_open_device(r->o.device, &p->dev);
        if (rc != EXIT_OK)
            return rc;
        snprintf(p->how, sizeof p->how, "%s (--device)", occ_device_describe(p->dev)->name);
        return EXIT_OK;
    }
    if (d->n_devices) {
        r->n_builtins = occ_builtin_count();
        r->builtins = calloc(r->n_builtins + 1, sizeof *r->builtins);
        if (!r->builtins)
            return EXIT_INTERNAL;
        for (size_t i = 0; i < r->n_builtins; i++)
            if (occ_device_builtin(occ_builtin_name(i), &r->builtins[i], NULL) != OCC_OK)
                r->builtins[i] = NULL;
    }
    tr_index seen = {0};
    int rc = EXIT_OK;
    for (size_t i = 0; i < d->n_devices && rc == EXIT_OK; i++) {
        if (!tr_index_room(&seen)) {
            rc = EXIT_INTERNAL;
            break;
        }
        uint64_t h = device_hash(&d->devices[i]);
        size_t q = tr_index_first(&seen, h);
        while (seen.slots[q].item != TR_NONE &&
               !(seen.slots[q].hash == h && same_device(r->profiles[seen.slots[q].item].seen, &d->devices[i])))
            q = tr_index_next(&seen, q);
        if (seen.slots[q].item != TR_NONE) {
            r->device_profile[i] = seen.slots[q].item;
            continue;
        }
        tr_index_put(&seen, q, h, r->n_profiles);
        r->device_profile[i] = r->n_profiles;
        if (d->devices[i].vendor < 3 && r->vendor_profile[d->devices[i].vendor] == SIZE_MAX)
            r->vendor_profile[d->devices[i].vendor] = r->n_profiles;
        profile *p = &r->profiles[r->n_profiles++];
        p->seen = &d->devices[i];
        match_profile(r, p->seen, p);
    }
    tr_index_free(&seen);
    return rc;
}

static size_t profile_of(const tr_report *r, const tr_kernel *k)
{
    if (r->o.device)
        return 0;
    const tr_device *t = tr_kernel_device(r->d, k);
    if (t)
        return r->device_profile[t - r->d->devices];
    return k->vendor < 3 ? r->vendor_profile[k->vendor] : SIZE_MAX;
}

/* ---- grouping ---------------------------------------------------------------------- */

static bool same_kernel(const tr_kernel *a, const tr_kernel *b)
{
    return a->vendor == b->vendor && strcmp(a->name, b->name) == 0 && a->sg == b->sg &&
           a->req_sg == b->req_sg && a->slm == b->slm && a->private_bytes == b->private_bytes &&
           a->spill == b->spill && strcmp(a->grf, b->grf) == 0 && a->regs == b->regs &&
           a->static_smem == b->static_smem && a->local == b->local &&
           a->carveout == b->carveout && a->max_threads == b->max_threads;
}

static uint64_t kernel_hash(const tr_kernel *k)
{
    uint64_t h = tr_hash_bytes(TR_HASH_SEED, k->name, strlen(k->name));
    h = tr_hash_bytes(h, k->grf, strnlen(k->grf, sizeof k->grf));
    int v[] = {(int)k->vendor, (int)k->sg, (int)k->req_sg, (int)k->slm, (int)k->private_bytes,
               (int)k->spill, k->regs, k->static_smem, k->local, k->carveout, k->max_threads};
    return tr_hash_bytes(h, v, sizeof v);
}

/* The model's kernel for a traced kernel, work-group size and dynamic memory. */
static void model_kernel(const occ_device *dev, const tr_kernel *t, const uint32_t wg[3],
                         uint64_t dyn, occ_kernel *k)
{
    occ_kernel_init(k);
    memcpy(k->wg, wg, sizeof k->wg);
    if (t->vendor == TR_ZE) {
        /* the compiled SIMD width; a required sub-group size is the same */
        k->sub_group = t->req_sg ? t->req_sg : t->sg;
        k->slm_bytes = (uint64_t)t->slm + dyn;
        const occ_device_desc *d = occ_device_describe(dev);
        if (strcmp(t->grf, "large") == 0 && d->n_grf_modes)
            k->grf = d->grf_modes[d->n_grf_modes - 1].registers;
        /* Level Zero does not say whether a kernel has a barrier: none assumed */
    } else {
        k->sub_group = 32;
        k->slm_bytes = (uint64_t)(t->static_smem > 0 ? t->static_smem : 0) + dyn;
        k->regs_per_thread = t->regs > 0 ? (uint32_t)t->regs : 0;
        k->carveout_pct = t->carveout >= 0 && t->carveout <= 100 ? t->carveout : -1;
    }
}

static void predict(const tr_report *r, config *c)
{
    const rkernel *rk = &r->rks[c->rk];
    if (rk->profile == SIZE_MAX || !r->profiles[rk->profile].dev)
        return;
    const occ_device *dev = r->profiles[rk->profile].dev;
    model_kernel(dev, rk->k, c->wg, c->dyn, &c->k);
    occ_residency_init(&c->res);
    if (occ_residency_compute(dev, &c->k, &c->res) != OCC_OK)
        return;
    c->predicted = true;
    if (!c->res.launchable) {
        occ_residency_reason(dev, &c->k, c->reason, sizeof c->reason);
    } else if (c->groups_known) {
        uint64_t wgs = c->groups[0] * c->groups[1] * c->groups[2];
        c->gpu.struct_size = sizeof c->gpu;
        c->have_gpu = wgs && occ_gpu_compute(dev, &c->res, wgs, &c->gpu) == OCC_OK;
    }
    occ_next_step step;
    if (occ_next_steps(dev, &c->k, &step, 1) >= 1) /* it returns how many it found */
        occ_next_step_format(dev, &step, c->next, sizeof c->next);
}

/* Configurations: hash of their key -> index. */
typedef struct cfg_table {
    size_t *slots; /* SIZE_MAX: empty */
    size_t cap;
} cfg_table;

static uint64_t cfg_hash(size_t rk, const tr_launch *l)
{
    uint64_t h = 1469598103934665603ull;
    uint64_t v[] = {rk, l->wg[0], l->wg[1], l->wg[2], l->dyn, l->groups_known,
                    l->groups_known ? l->groups[0] : 0, l->groups_known ? l->groups[1] : 0,
                    l->groups_known ? l->groups[2] : 0, l->cluster[0], l->cluster[1],
                    l->cluster[2]};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        h ^= v[i];
        h *= 1099511628211ull;
        h ^= h >> 29;
    }
    return h;
}

static bool cfg_equal(const config *c, size_t rk, const tr_launch *l)
{
    return c->rk == rk && memcmp(c->wg, l->wg, sizeof c->wg) == 0 && c->dyn == l->dyn &&
           c->groups_known == l->groups_known &&
           (!l->groups_known || memcmp(c->groups, l->groups, sizeof c->groups) == 0) &&
           memcmp(c->cluster, l->cluster, sizeof c->cluster) == 0;
}

static bool table_grow(cfg_table *t, const config *cfgs, size_t n, const tr_data *d,
                       const size_t *first_launch)
{
    size_t cap = t->cap ? t->cap * 2 : 1024;
    size_t *s = malloc(cap * sizeof *s);
    if (!s)
        return false;
    for (size_t i = 0; i < cap; i++)
        s[i] = SIZE_MAX;
    for (size_t i = 0; i < n; i++) {
        size_t h = (size_t)cfg_hash(cfgs[i].rk, &d->launches[first_launch[i]]) & (cap - 1);
        while (s[h] != SIZE_MAX)
            h = (h + 1) & (cap - 1);
        s[h] = i;
    }
    free(t->slots);
    t->slots = s;
    t->cap = cap;
    return true;
}

static int group(tr_report *r)
{
    const tr_data *d = r->d;
    size_t *rk_of = malloc((d->n_kernels + 1) * sizeof *rk_of);
    r->rks = calloc(d->n_kernels + 1, sizeof *r->rks);
    r->launch_cfg = malloc((d->n_launches + 1) * sizeof *r->launch_cfg);
    size_t *first_launch = malloc((d->n_launches + 1) * sizeof *first_launch);
    r->cfgs = calloc(d->n_launches + 1, sizeof *r->cfgs);
    cfg_table t = {0};
    int rc = EXIT_OK;
    if (!rk_of || !r->rks || !r->launch_cfg || !first_launch || !r->cfgs) {
        rc = EXIT_INTERNAL;
        goto out;
    }
    tr_index kernels = {0}, threads = {0};
    for (size_t i = 0; i < d->n_kernels && rc == EXIT_OK; i++) {
        const tr_kernel *k = &d->kernels[i];
        size_t p = profile_of(r, k);
        if (!tr_index_room(&kernels)) {
            rc = EXIT_INTERNAL;
            break;
        }
        uint64_t h = tr_hash_u64(kernel_hash(k), p);
        size_t q = tr_index_first(&kernels, h);
        while (kernels.slots[q].item != TR_NONE &&
               !(kernels.slots[q].hash == h && r->rks[kernels.slots[q].item].profile == p &&
                 same_kernel(r->rks[kernels.slots[q].item].k, k)))
            q = tr_index_next(&kernels, q);
        if (kernels.slots[q].item == TR_NONE) {
            tr_index_put(&kernels, q, h, r->n_rks);
            r->rks[r->n_rks].k = k;
            r->rks[r->n_rks++].profile = p;
        }
        rk_of[i] = kernels.slots[q].item;
    }
    for (size_t i = 0; i < d->n_launches && rc == EXIT_OK; i++) {
        const tr_launch *l = &d->launches[i];
        r->launch_cfg[i] = SIZE_MAX;
        /* distinct (pid, tid): the threads that launched */
        if (!tr_index_room(&threads)) {
            rc = EXIT_INTERNAL;
            break;
        }
        uint64_t th = tr_hash_u64(tr_hash_u64(TR_HASH_SEED, (uint64_t)l->pid), (uint64_t)l->tid);
        size_t q = tr_index_first(&threads, th);
        while (threads.slots[q].item != TR_NONE &&
               !(d->launches[threads.slots[q].item].pid == l->pid &&
                 d->launches[threads.slots[q].item].tid == l->tid))
            q = tr_index_next(&threads, q);
        if (threads.slots[q].item == TR_NONE)
            tr_index_put(&threads, q, th, i);
        if (l->kernel == SIZE_MAX) {
            r->unknown_launches += l->count;
            continue;
        }
        size_t rk = rk_of[l->kernel];
        r->rks[rk].launches += l->count;
        if (l->rc != 0)
            r->rks[rk].failed += l->count;
        if ((r->n_cfgs + 1) * 2 > t.cap && !table_grow(&t, r->cfgs, r->n_cfgs, d, first_launch)) {
            rc = EXIT_INTERNAL;
            break;
        }
        size_t h = (size_t)cfg_hash(rk, l) & (t.cap - 1);
        while (t.slots[h] != SIZE_MAX && !cfg_equal(&r->cfgs[t.slots[h]], rk, l))
            h = (h + 1) & (t.cap - 1);
        if (t.slots[h] == SIZE_MAX) {
            config *c = &r->cfgs[r->n_cfgs];
            c->rk = rk;
            memcpy(c->wg, l->wg, sizeof c->wg);
            memcpy(c->cluster, l->cluster, sizeof c->cluster);
            c->dyn = l->dyn;
            c->groups_known = l->groups_known;
            memcpy(c->groups, l->groups, sizeof c->groups);
            c->drv = l->drv;
            first_launch[r->n_cfgs] = i;
            t.slots[h] = r->n_cfgs++;
        }
        config *c = &r->cfgs[t.slots[h]];
        c->launches += l->count;
        if (l->drv != c->drv)
            c->drv_mixed = true;
        r->launch_cfg[i] = t.slots[h];
    }
    r->threads = threads.n;
    tr_index_free(&kernels);
    tr_index_free(&threads);
out:
    free(rk_of);
    free(first_launch);
    free(t.slots);
    return rc;
}

/* GPU time records (CUDA): to the configuration with the same name, block,
 * grid and dynamic shared memory (the first such); else to the first
 * configured kernel of that name. */
static uint64_t time_key_hash(const char *name, const uint32_t wg[3], uint64_t dyn,
                              const uint64_t groups[3])
{
    uint64_t h = tr_hash_bytes(TR_HASH_SEED, name, strlen(name) + 1);
    h = tr_hash_bytes(h, wg, 3 * sizeof *wg);
    h = tr_hash_u64(h, dyn);
    return tr_hash_bytes(h, groups, 3 * sizeof *groups);
}

static int attribute_times(tr_report *r)
{
    const tr_data *d = r->d;
    tr_index by_key = {0}, by_name = {0};
    int rc = EXIT_OK;
    for (size_t c = 0; c < r->n_cfgs && rc == EXIT_OK; c++) {
        const config *x = &r->cfgs[c];
        const char *name = r->rks[x->rk].k->name;
        if (!tr_index_room(&by_key) || !tr_index_room(&by_name)) {
            rc = EXIT_INTERNAL;
            break;
        }
        uint64_t h = tr_hash_bytes(TR_HASH_SEED, name, strlen(name) + 1);
        size_t q = tr_index_first(&by_name, h);
        while (by_name.slots[q].item != TR_NONE &&
               strcmp(r->rks[r->cfgs[by_name.slots[q].item].rk].k->name, name) != 0)
            q = tr_index_next(&by_name, q);
        if (by_name.slots[q].item == TR_NONE)
            tr_index_put(&by_name, q, h, c);
        if (!x->groups_known)
            continue;
        h = time_key_hash(name, x->wg, x->dyn, x->groups);
        for (q = tr_index_first(&by_key, h); by_key.slots[q].item != TR_NONE;
             q = tr_index_next(&by_key, q)) {
            const config *y = &r->cfgs[by_key.slots[q].item];
            if (strcmp(r->rks[y->rk].k->name, name) == 0 && memcmp(y->wg, x->wg, sizeof x->wg) == 0 &&
                y->dyn == x->dyn && memcmp(y->groups, x->groups, sizeof x->groups) == 0)
                break;
        }
        if (by_key.slots[q].item == TR_NONE)
            tr_index_put(&by_key, q, h, c);
    }
    for (size_t i = 0; i < d->n_times && rc == EXIT_OK; i++) {
        const tr_time *t = &d->times[i];
        config *best = NULL;
        rkernel *rk = NULL;
        if (by_key.cap) {
            uint64_t h = time_key_hash(t->name, t->wg, t->dyn, t->groups);
            for (size_t q = tr_index_first(&by_key, h); by_key.slots[q].item != TR_NONE && !best;
                 q = tr_index_next(&by_key, q)) {
                config *x = &r->cfgs[by_key.slots[q].item];
                if (strcmp(r->rks[x->rk].k->name, t->name) == 0 &&
                    memcmp(x->wg, t->wg, sizeof x->wg) == 0 && x->dyn == t->dyn &&
                    memcmp(x->groups, t->groups, sizeof x->groups) == 0)
                    best = x;
            }
        }
        if (!best && by_name.cap) {
            uint64_t h = tr_hash_bytes(TR_HASH_SEED, t->name, strlen(t->name) + 1);
            for (size_t q = tr_index_first(&by_name, h); by_name.slots[q].item != TR_NONE && !rk;
                 q = tr_index_next(&by_name, q))
                if (strcmp(r->rks[r->cfgs[by_name.slots[q].item].rk].k->name, t->name) == 0)
                    rk = &r->rks[r->cfgs[by_name.slots[q].item].rk];
        }
        if (best) {
            best->gpu_ns += t->ns;
            best->timed += t->count;
            rk = &r->rks[best->rk];
        }
        if (rk) {
            rk->gpu_ns += t->ns;
            rk->timed += t->count;
        } else {
            r->unmatched_ns += t->ns;
            r->unmatched_times += t->count;
        }
    }
    tr_index_free(&by_key);
    tr_index_free(&by_name);
    return rc;
}

static const tr_report *sort_ctx;

static int by_time_then_launches(const void *a, const void *b)
{
    const rkernel *x = &sort_ctx->rks[*(const size_t *)a], *y = &sort_ctx->rks[*(const size_t *)b];
    if (x->gpu_ns != y->gpu_ns)
        return x->gpu_ns > y->gpu_ns ? -1 : 1;
    if (x->launches != y->launches)
        return x->launches > y->launches ? -1 : 1;
    int c = strcmp(x->k->name, y->k->name);
    return c ? c : (*(const size_t *)a > *(const size_t *)b) - (*(const size_t *)a < *(const size_t *)b);
}

/* Whether config c is the first of its kernel with this work-group size
 * (grid: false) or grid (true); seen indexes those met so far. */
static bool first_of_kind(tr_report *r, tr_index *seen, size_t c, bool grid, bool *oom)
{
    const config *x = &r->cfgs[c];
    if (!tr_index_room(seen)) {
        *oom = true;
        return false;
    }
    uint64_t h = tr_hash_u64(TR_HASH_SEED, x->rk);
    h = grid ? tr_hash_bytes(tr_hash_u64(h, x->groups_known), x->groups, sizeof x->groups)
             : tr_hash_bytes(h, x->wg, sizeof x->wg);
    size_t q = tr_index_first(seen, h);
    for (; seen->slots[q].item != TR_NONE; q = tr_index_next(seen, q)) {
        const config *y = &r->cfgs[seen->slots[q].item];
        if (y->rk == x->rk &&
            (grid ? y->groups_known == x->groups_known &&
                        memcmp(y->groups, x->groups, sizeof x->groups) == 0
                  : memcmp(y->wg, x->wg, sizeof x->wg) == 0))
            return false;
    }
    tr_index_put(seen, q, h, c);
    return true;
}

/* Per kernel: its configurations (contiguous in cfg_order, in the order met),
 * distinct work-group sizes and grids, the configuration to advise on; per
 * process: its launches. */
static int summarize(tr_report *r)
{
    const tr_data *d = r->d;
    r->cfg_order = malloc((r->n_cfgs + 1) * sizeof *r->cfg_order);
    r->process_launches = calloc(d->n_processes + 1, sizeof *r->process_launches);
    if (!r->cfg_order || !r->process_launches)
        return EXIT_INTERNAL;
    for (size_t i = 0; i < r->n_rks; i++)
        r->rks[i].worst_config = SIZE_MAX;
    for (size_t c = 0; c < r->n_cfgs; c++)
        r->rks[r->cfgs[c].rk].n_configs++;
    for (size_t i = 0, at = 0; i < r->n_rks; i++) {
        r->rks[i].first_config = at;
        at += r->rks[i].n_configs;
        r->rks[i].n_configs = 0;
    }
    tr_index wgs = {0}, grids = {0};
    bool oom = false;
    for (size_t c = 0; c < r->n_cfgs && !oom; c++) {
        config *x = &r->cfgs[c];
        rkernel *rk = &r->rks[x->rk];
        r->cfg_order[rk->first_config + rk->n_configs++] = c;
        rk->n_wg += first_of_kind(r, &wgs, c, false, &oom);
        rk->n_grids += first_of_kind(r, &grids, c, true, &oom);
        if (rk->worst_config == SIZE_MAX)
            rk->worst_config = c;
        else {
            const config *w = &r->cfgs[rk->worst_config];
            if (x->launches > w->launches ||
                (x->launches == w->launches && x->res.occupancy < w->res.occupancy))
                rk->worst_config = c;
        }
    }
    tr_index_free(&wgs);
    tr_index_free(&grids);
    /* launches per process: processes by pid (the first of equal pids counts) */
    tr_index pids = {0};
    for (size_t i = 0; i < d->n_processes && !oom; i++) {
        if (!tr_index_room(&pids)) {
            oom = true;
            break;
        }
        uint64_t h = tr_hash_u64(TR_HASH_SEED, (uint64_t)d->processes[i].pid);
        size_t q = tr_index_first(&pids, h);
        while (pids.slots[q].item != TR_NONE && d->processes[pids.slots[q].item].pid != d->processes[i].pid)
            q = tr_index_next(&pids, q);
        if (pids.slots[q].item == TR_NONE)
            tr_index_put(&pids, q, h, i);
    }
    for (size_t i = 0; i < d->n_launches && !oom && pids.cap; i++) {
        uint64_t h = tr_hash_u64(TR_HASH_SEED, (uint64_t)d->launches[i].pid);
        for (size_t q = tr_index_first(&pids, h); pids.slots[q].item != TR_NONE; q = tr_index_next(&pids, q))
            if (d->processes[pids.slots[q].item].pid == d->launches[i].pid) {
                size_t *n = &r->process_launches[pids.slots[q].item];
                *n = d->launches[i].count > SIZE_MAX - *n ? SIZE_MAX : *n + (size_t)d->launches[i].count;
                break;
            }
    }
    tr_index_free(&pids);
    return oom ? EXIT_INTERNAL : EXIT_OK;
}

int tr_report_build(const tr_data *d, const tr_options *o, tr_report **out)
{
    *out = NULL;
    tr_report *r = calloc(1, sizeof *r);
    if (!r)
        return EXIT_INTERNAL;
    r->d = d;
    r->o = *o;
    int rc = open_profiles(r);
    if (rc == EXIT_OK)
        rc = group(r);
    if (rc != EXIT_OK) {
        tr_report_free(r);
        return rc;
    }
    for (size_t c = 0; c < r->n_cfgs; c++)
        predict(r, &r->cfgs[c]);
    r->order = malloc((r->n_rks + 1) * sizeof *r->order);
    if (!r->order || attribute_times(r) != EXIT_OK || summarize(r) != EXIT_OK) {
        tr_report_free(r);
        return EXIT_INTERNAL;
    }
    for (size_t i = 0; i < r->n_rks; i++)
        r->order[i] = i;
    sort_ctx = r;
    if (r->n_rks)
        qsort(r->order, r->n_rks, sizeof *r->order, by_time_then_launches);
    *out = r;
    return EXIT_OK;
}

void tr_report_free(tr_report *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n_profiles; i++)
        occ_device_free(r->profiles[i].dev);
    for (size_t i = 0; i < r->n_builtins; i++)
        occ_device_free(r->builtins[i]);
    free(r->builtins);
    free(r->device_profile);
    free(r->cfg_order);
    free(r->process_launches);
    free(r->profiles);
    free(r->rks);
    free(r->cfgs);
    free(r->launch_cfg);
    free(r->order);
    free(r);
}

/* ---- text ---------------------------------------------------------------------------- */

static const char *vendor_name(tr_vendor v) { return v == TR_ZE ? "Level Zero" : "CUDA"; }

static void fmt_dims(char *buf, size_t size, const uint64_t v[3])
{
    if (v[2] > 1)
        snprintf(buf, size, "%" PRIu64 "x%" PRIu64 "x%" PRIu64, v[0], v[1], v[2]);
    else if (v[1] > 1)
        snprintf(buf, size, "%" PRIu64 "x%" PRIu64, v[0], v[1]);
    else
        snprintf(buf, size, "%" PRIu64, v[0]);
}

static void fmt_wg(char *buf, size_t size, const uint32_t wg[3])
{
    uint64_t v[3] = {wg[0], wg[1], wg[2]};
    fmt_dims(buf, size, v);
}

static void fmt_time(char *buf, size_t size, uint64_t ns, size_t timed)
{
    if (!timed)
        snprintf(buf, size, "-");
    else if (ns >= 10000000)
        snprintf(buf, size, "%.1f ms", (double)ns / 1e6);
    else
        snprintf(buf, size, "%.1f us", (double)ns / 1e3);
}

static void text_resources(FILE *f, const rkernel *rk)
{
    const tr_kernel *k = rk->k;
    char a[32], b[32];
    if (k->vendor == TR_ZE) {
        occ_format_bytes(a, sizeof a, k->slm, false);
        fprintf(f, "  [Level Zero: SIMD %u%s, SLM %s static", k->sg, k->req_sg ? " (required)" : "",
                a);
        occ_format_bytes(a, sizeof a, k->private_bytes, false);
        occ_format_bytes(b, sizeof b, k->spill, false);
        fprintf(f, ", private %s, spill %s, GRF %s]\n", a, b, k->grf);
    } else {
        occ_format_bytes(a, sizeof a, (uint64_t)(k->static_smem > 0 ? k->static_smem : 0), false);
        occ_format_bytes(b, sizeof b, (uint64_t)(k->local > 0 ? k->local : 0), false);
        fprintf(f, "  [CUDA: %d registers, shared %s static, local %s per thread%s", k->regs, a, b,
                k->local > 0 ? " (spills or stack)" : "");
        if (k->carveout >= 0)
            fprintf(f, ", carveout %d %%", k->carveout);
        fputs("]\n", f);
    }
}

static void text_config(FILE *f, const tr_report *r, const config *c)
{
    char wg[48], mem[32], groups[64], occ[16] = "-", res[16] = "-", waves[24] = "-", avg[16] = "-";
    char lim[96] = "-", drv[16] = "", t[24];
    fmt_wg(wg, sizeof wg, c->wg);
    occ_format_bytes(mem, sizeof mem, c->k.slm_bytes ? c->k.slm_bytes : c->dyn, false);
    if (c->groups_known)
        fmt_dims(groups, sizeof groups, c->groups);
    else
        snprintf(groups, sizeof groups, "indirect");
    if (c->predicted && c->res.launchable) {
        snprintf(res, sizeof res, "%u", c->res.resident_wgs);
        snprintf(occ, sizeof occ, "%.1f %%", pct(c->res.occupancy));
        format_limited_by(lim, sizeof lim, c->res.limited_by);
    } else if (c->predicted) {
        snprintf(res, sizeof res, "0");
        snprintf(lim, sizeof lim, "cannot launch");
    }
    if (c->have_gpu) {
        snprintf(waves, sizeof waves, "%" PRIu64, c->gpu.waves);
        snprintf(avg, sizeof avg, "%.1f %%", pct(c->gpu.average_occupancy));
    }
    if (r->rks[c->rk].k->vendor == TR_CUDA) {
        if (c->drv >= 0)
            snprintf(drv, sizeof drv, "%d%s", c->drv, c->drv_mixed ? "*" : "");
        else
            snprintf(drv, sizeof drv, "-");
    }
    fmt_time(t, sizeof t, c->gpu_ns, c->timed);
    fprintf(f, "  %-11s %-13s %-12s %8zu %6s %9s %6s %9s  %-*s", wg, mem, groups, c->launches, res,
            occ, waves, avg, *drv ? 34 : 0, lim);
    if (*drv)
        fprintf(f, " %6s %10s", drv, t);
    fputc('\n', f);
    if (c->predicted && !c->res.launchable)
        fprintf(f, "      cannot launch: %s\n", c->reason);
}

/* The next step of each configuration that has one, most launched first
 * (at most 4 lines; JSON has all). */
static void text_next_steps(FILE *f, const tr_report *r, size_t rk)
{
    enum { SHOWN = 4 };
    const config *shown[SHOWN];
    size_t n = 0, more = 0;
    const rkernel *k = &r->rks[rk];
    for (size_t q = 0; q < k->n_configs; q++) {
        const config *x = &r->cfgs[r->cfg_order[k->first_config + q]];
        if (!x->next[0])
            continue;
        if (n < SHOWN) {
            size_t i = n++;
            for (; i > 0 && shown[i - 1]->launches < x->launches; i--)
                shown[i] = shown[i - 1];
            shown[i] = x;
        } else {
            more++;
        }
    }
    if (!n) {
        fputs("  next step: none; no single change raises residency\n", f);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        char wg[48], mem[32];
        fmt_wg(wg, sizeof wg, shown[i]->wg);
        occ_format_bytes(mem, sizeof mem, shown[i]->k.slm_bytes, false);
        fprintf(f, "  next step (%s, %s): %s\n", wg, mem, shown[i]->next);
    }
    if (more)
        fprintf(f, "  (%zu more configurations with a next step: --json)\n", more);
}

static void text_report(FILE *f, const tr_report *r, const tr_program *p)
{
    const tr_data *d = r->d;
    size_t launches = 0;
    for (size_t i = 0; i < r->n_rks; i++)
        launches += r->rks[i].launches;
    if (p->replay)
        fprintf(f, "occcalc trace: records of %s\n", p->replay);
    else {
        fprintf(f, "occcalc trace: %s", p->argv[0]);
        for (char *const *a = p->argv + 1; *a; a++)
            fprintf(f, " %s", *a);
        if (p->signaled)
            fprintf(f, "  (killed by signal %d)\n", p->status);
        else
            fprintf(f, "  (exit status %d)\n", p->status);
    }
    fprintf(f, "%zu kernel%s, %zu launch%s, %zu process%s, %zu thread%s\n", r->n_rks,
            r->n_rks == 1 ? "" : "s", launches + r->unknown_launches,
            launches + r->unknown_launches == 1 ? "" : "es", d->n_processes,
            d->n_processes == 1 ? "" : "es", r->threads, r->threads == 1 ? "" : "s");
    if (d->n_processes > 1)
        for (size_t i = 0; i < d->n_processes; i++) {
            const tr_process *pp = &d->processes[i];
            size_t n = r->process_launches[i];
            fprintf(f, "  process %ld %s: %zu launch%s", pp->pid, pp->exe, n, n == 1 ? "" : "es");
            for (size_t k = 0; k < d->n_processes; k++)
                if (d->processes[k].pid == pp->ppid) {
                    fprintf(f, " (child of %ld)", pp->ppid);
                    break;
                }
            fputc('\n', f);
        }
    for (size_t i = 0; i < r->n_profiles; i++)
        fprintf(f, "device: %s\n", r->profiles[i].how);
    if (!r->n_rks) {
        if (d->n_processes)
            fprintf(f, "no kernel launches were seen in the %zu traced process%s\n", d->n_processes,
                    d->n_processes == 1 ? "" : "es");
        else
            fputs("no kernel launches were seen: no process loaded the interposer\n", f);
    }
    for (size_t n = 0; n < r->n_rks; n++) {
        const rkernel *rk = &r->rks[r->order[n]];
        const profile *pr = rk->profile == SIZE_MAX ? NULL : &r->profiles[rk->profile];
        char t[24];
        fmt_time(t, sizeof t, rk->gpu_ns, rk->timed);
        fprintf(f, "\nkernel %s\n", rk->k->name);
        text_resources(f, rk);
        fprintf(f, "  %zu launch%s", rk->launches, rk->launches == 1 ? "" : "es");
        if (rk->failed)
            fprintf(f, " (%zu refused by the driver)", rk->failed);
        fprintf(f, ", %zu work-group size%s, %zu grid%s", rk->n_wg, rk->n_wg == 1 ? "" : "s",
                rk->n_grids, rk->n_grids == 1 ? "" : "s");
        if (rk->timed)
            fprintf(f, ", GPU time %s", t);
        fputc('\n', f);
        if (!pr || !pr->dev) {
            fputs("  no prediction: no device profile (give --device)\n", f);
            continue;
        }
        const occ_device_desc *dd = occ_device_describe(pr->dev);
        fprintf(f, "  %-11s %-13s %-12s %8s %6s %9s %6s %9s  %-*s", "work-group", dd->local_memory_name,
                "grid", "launches", dd->has_register_file ? "blk/SM" : "WG/core", "occupancy",
                "waves", "GPU avg", rk->k->vendor == TR_CUDA ? 34 : 0, "limited by");
        if (rk->k->vendor == TR_CUDA)
            fprintf(f, " %6s %10s", "driver", "GPU time");
        fputc('\n', f);
        for (size_t q = 0; q < rk->n_configs; q++)
            text_config(f, r, &r->cfgs[r->cfg_order[rk->first_config + q]]);
        text_next_steps(f, r, r->order[n]);
    }
    fputs("\n", f);
    fprintf(f, "totals: %zu kernels, %zu launches", r->n_rks, launches + r->unknown_launches);
    if (r->unknown_launches)
        fprintf(f, " (%zu of kernels not seen created)", r->unknown_launches);
    if (d->unresolved)
        fprintf(f, ", %zu multi-kernel indirect launches not resolved", d->unresolved);
    uint64_t ns = 0;
    size_t timed = 0;
    for (size_t i = 0; i < r->n_rks; i++)
        ns += r->rks[i].gpu_ns, timed += r->rks[i].timed;
    if (timed) {
        char t[24];
        fmt_time(t, sizeof t, ns, timed);
        fprintf(f, ", GPU time %s", t);
    } else {
        fputs(", GPU time not measured", f);
    }
    fputs("\n", f);
    if (d->dropped || d->dropped_other) {
        fprintf(f, "records: %" PRIu64 " launch%s and %" PRIu64 " other record%s not recorded: ",
                d->dropped, d->dropped == 1 ? "" : "es", d->dropped_other,
                d->dropped_other == 1 ? "" : "s");
        if (d->stop_errno)
            fprintf(f, "a process stopped recording (%s)\n", strerror(d->stop_errno));
        else
            fputs("a process reached the 1 GiB of records it may write\n", f);
    }
    if (d->bad_lines)
        fprintf(f, "records: %zu unreadable lines (a process killed while writing one)\n",
                d->bad_lines);
    if (d->warnings[0])
        fprintf(f, "warnings: %s\n", d->warnings);
    if (r->o.launches) {
        fputs("\nlaunches (process, thread, kernel, kind, work-group, local memory, grid, "
              "resident, occupancy, driver)\n",
              f);
        for (size_t i = 0; i < d->n_launches; i++) {
            const tr_launch *l = &d->launches[i];
            size_t ci = r->launch_cfg[i];
            const config *c = ci == SIZE_MAX ? NULL : &r->cfgs[ci];
            char wg[48], g[64];
            fmt_wg(wg, sizeof wg, l->wg);
            if (l->groups_known)
                fmt_dims(g, sizeof g, l->groups);
            else
                snprintf(g, sizeof g, "indirect");
            fprintf(f, "  %ld %ld %s %s %s %" PRIu64 " %s", l->pid, l->tid,
                    c ? r->rks[c->rk].k->name : "?", l->kind, wg, c ? c->k.slm_bytes : l->dyn, g);
            if (c && c->predicted)
                fprintf(f, " %u %.1f%%", c->res.launchable ? c->res.resident_wgs : 0,
                        pct(c->res.occupancy));
            else
                fputs(" - -", f);
            if (l->drv >= 0)
                fprintf(f, " %d", l->drv);
            if (l->count > 1)
                fprintf(f, "  x%" PRIu64, l->count);
            fputc('\n', f);
        }
    }
}

/* ---- JSON ------------------------------------------------------------------------------ */

static void json_dims(json *j, const char *key, const uint64_t v[3])
{
    json_key(j, key);
    json_begin_array(j);
    for (int i = 0; i < 3; i++)
        json_u64(j, v[i]);
    json_end_array(j);
}

static void json_wg(json *j, const char *key, const uint32_t wg[3])
{
    uint64_t v[3] = {wg[0], wg[1], wg[2]};
    json_dims(j, key, v);
}

static void json_prediction(json *j, const config *c)
{
    json_key(j, "prediction");
    if (!c->predicted) {
        json_null(j);
        return;
    }
    json_begin_object(j);
    json_kbool(j, "launchable", c->res.launchable);
    if (!c->res.launchable)
        json_kstr(j, "reason", c->reason);
    json_ku64(j, "sub_group", c->res.sub_group);
    json_ku64(j, "local_memory_bytes", c->k.slm_bytes);
    json_ku64(j, "resident_work_groups", c->res.launchable ? c->res.resident_wgs : 0);
    json_knum(j, "occupancy", c->res.launchable ? c->res.occupancy : 0.0);
    json_limited_by(j, "limited_by", c->res.launchable ? c->res.limited_by : 0);
    if (c->have_gpu) {
        json_ku64(j, "work_groups", c->gpu.work_groups);
        json_ku64(j, "waves", c->gpu.waves);
        json_knum(j, "gpu_average_occupancy", c->gpu.average_occupancy);
        json_knum(j, "last_wave_occupancy", c->gpu.last_wave_occupancy);
    }
    json_key(j, "next_step");
    c->next[0] ? json_str(j, c->next) : json_null(j);
    json_end_object(j);
}

static void json_report(FILE *f, const tr_report *r, const tr_program *p)
{
    const tr_data *d = r->d;
    json j;
    json_init(&j, f, true);
    json_begin_object(&j);
    json_kstr(&j, "schema", TRACE_SCHEMA);
    json_key(&j, "program");
    json_begin_object(&j);
    if (p->replay) {
        json_kstr(&j, "replay", p->replay);
    } else {
        json_key(&j, "argv");
        json_begin_array(&j);
        for (char *const *a = p->argv; *a; a++)
            json_str(&j, *a);
        json_end_array(&j);
        json_key(&j, "exit_status");
        p->signaled ? json_null(&j) : json_u64(&j, (uint64_t)p->status);
        json_key(&j, "signal");
        p->signaled ? json_u64(&j, (uint64_t)p->status) : json_null(&j);
    }
    json_end_object(&j);
    json_key(&j, "processes");
    json_begin_array(&j);
    for (size_t i = 0; i < d->n_processes; i++) {
        json_begin_object(&j);
        json_ku64(&j, "pid", (uint64_t)d->processes[i].pid);
        json_ku64(&j, "ppid", (uint64_t)d->processes[i].ppid);
        json_kstr(&j, "executable", d->processes[i].exe);
        json_ku64(&j, "launches", r->process_launches[i]);
        json_end_object(&j);
    }
    json_end_array(&j);
    json_key(&j, "devices");
    json_begin_array(&j);
    for (size_t i = 0; i < r->n_profiles; i++) {
        const profile *pr = &r->profiles[i];
        json_begin_object(&j);
        json_key(&j, "profile");
        pr->dev ? json_str(&j, occ_device_describe(pr->dev)->name) : json_null(&j);
        json_kstr(&j, "chosen", pr->how);
        if (pr->seen) {
            json_kstr(&j, "api", vendor_name(pr->seen->vendor));
            json_kstr(&j, "name", pr->seen->name);
        }
        json_end_object(&j);
    }
    json_end_array(&j);
    size_t launches = r->unknown_launches;
    uint64_t ns = 0;
    size_t timed = 0;
    for (size_t i = 0; i < r->n_rks; i++)
        launches += r->rks[i].launches, ns += r->rks[i].gpu_ns, timed += r->rks[i].timed;
    json_key(&j, "totals");
    json_begin_object(&j);
    json_ku64(&j, "kernels", r->n_rks);
    json_ku64(&j, "launches", launches);
    json_ku64(&j, "launches_of_unknown_kernels", r->unknown_launches);
    json_ku64(&j, "unresolved_indirect_launches", d->unresolved);
    json_ku64(&j, "processes", d->n_processes);
    json_ku64(&j, "threads", r->threads);
    json_key(&j, "gpu_time_ns");
    timed ? json_u64(&j, ns) : json_null(&j);
    json_ku64(&j, "unreadable_record_lines", d->bad_lines);
    json_ku64(&j, "dropped", d->dropped);
    json_ku64(&j, "dropped_records", d->dropped_other);
    json_key(&j, "dropped_reason");
    if (d->dropped || d->dropped_other)
        json_str(&j, d->stop_errno ? strerror(d->stop_errno) : "record cap");
    else
        json_null(&j);
    json_kstr(&j, "warnings", d->warnings);
    json_end_object(&j);
    json_key(&j, "kernels");
    json_begin_array(&j);
    for (size_t n = 0; n < r->n_rks; n++) {
        const rkernel *rk = &r->rks[r->order[n]];
        const tr_kernel *k = rk->k;
        json_begin_object(&j);
        json_kstr(&j, "name", k->name);
        json_kstr(&j, "api", vendor_name(k->vendor));
        json_key(&j, "profile");
        rk->profile != SIZE_MAX && r->profiles[rk->profile].dev
            ? json_str(&j, occ_device_describe(r->profiles[rk->profile].dev)->name)
            : json_null(&j);
        json_key(&j, "resources");
        json_begin_object(&j);
        if (k->vendor == TR_ZE) {
            json_ku64(&j, "simd", k->sg);
            json_ku64(&j, "required_sub_group", k->req_sg);
            json_ku64(&j, "slm_static_bytes", k->slm);
            json_ku64(&j, "private_bytes", k->private_bytes);
            json_ku64(&j, "spill_bytes", k->spill);
            json_kstr(&j, "grf", k->grf);
        } else {
            json_key(&j, "registers");
            json_i64(&j, k->regs);
            json_key(&j, "shared_static_bytes");
            json_i64(&j, k->static_smem);
            json_key(&j, "local_bytes_per_thread");
            json_i64(&j, k->local);
            json_key(&j, "max_threads_per_block");
            json_i64(&j, k->max_threads);
            json_key(&j, "carveout_preference");
            json_i64(&j, k->carveout);
        }
        json_end_object(&j);
        json_ku64(&j, "launches", rk->launches);
        json_ku64(&j, "refused_launches", rk->failed);
        json_ku64(&j, "work_group_sizes", rk->n_wg);
        json_ku64(&j, "grids", rk->n_grids);
        json_key(&j, "gpu_time_ns");
        rk->timed ? json_u64(&j, rk->gpu_ns) : json_null(&j);
        json_ku64(&j, "gpu_executions", rk->timed);
        json_key(&j, "configurations");
        json_begin_array(&j);
        for (size_t q = 0; q < rk->n_configs; q++) {
            const config *x = &r->cfgs[r->cfg_order[rk->first_config + q]];
            json_begin_object(&j);
            json_wg(&j, "work_group", x->wg);
            json_ku64(&j, "dynamic_local_bytes", x->dyn);
            if (x->groups_known)
                json_dims(&j, "grid", x->groups);
            else
                json_key(&j, "grid"), json_null(&j);
            if (x->cluster[0] * x->cluster[1] * x->cluster[2] > 1)
                json_wg(&j, "cluster", x->cluster);
            json_ku64(&j, "launches", x->launches);
            json_prediction(&j, x);
            if (k->vendor == TR_CUDA) {
                json_key(&j, "driver_resident_blocks");
                x->drv >= 0 && !x->drv_mixed ? json_i64(&j, x->drv) : json_null(&j);
            }
            json_key(&j, "gpu_time_ns");
            x->timed ? json_u64(&j, x->gpu_ns) : json_null(&j);
            json_ku64(&j, "gpu_executions", x->timed);
            json_end_object(&j);
        }
        json_end_array(&j);
        /* a kernel created but never launched has no configuration */
        const config *w = rk->worst_config == SIZE_MAX ? NULL : &r->cfgs[rk->worst_config];
        json_key(&j, "next_step");
        w && w->next[0] ? json_str(&j, w->next) : json_null(&j);
        json_end_object(&j);
    }
    json_end_array(&j);
    if (r->o.launches) {
        json_key(&j, "launches");
        json_begin_array(&j);
        for (size_t i = 0; i < d->n_launches; i++) {
            const tr_launch *l = &d->launches[i];
            size_t ci = r->launch_cfg[i];
            const config *c = ci == SIZE_MAX ? NULL : &r->cfgs[ci];
            json_begin_object(&j);
            json_ku64(&j, "pid", (uint64_t)l->pid);
            json_ku64(&j, "tid", (uint64_t)l->tid);
            json_key(&j, "kernel");
            c ? json_str(&j, r->rks[c->rk].k->name) : json_null(&j);
            json_kstr(&j, "kind", l->kind);
            json_ku64(&j, "count", l->count);
            json_wg(&j, "work_group", l->wg);
            json_ku64(&j, "dynamic_local_bytes", l->dyn);
            if (l->groups_known)
                json_dims(&j, "grid", l->groups);
            else
                json_key(&j, "grid"), json_null(&j);
            json_key(&j, "result");
            json_i64(&j, l->rc);
            if (c)
                json_prediction(&j, c);
            if (l->drv >= 0) {
                json_key(&j, "driver_resident_blocks");
                json_i64(&j, l->drv);
            }
            json_end_object(&j);
        }
        json_end_array(&j);
    }
    json_end_object(&j);
    json_end(&j);
}

/* ---- CSV -------------------------------------------------------------------------------- */

static void csv_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void csv_row(FILE *f, const tr_report *r, const config *c, const tr_launch *l)
{
    const rkernel *rk = &r->rks[c->rk];
    char lim[96] = "";
    if (c->predicted && c->res.launchable)
        format_limited_by(lim, sizeof lim, c->res.limited_by);
    if (l)
        fprintf(f, "%ld,%ld,", l->pid, l->tid);
    csv_str(f, rk->k->name);
    fprintf(f, ",%s,%u,%u,%u,%" PRIu64 ",", vendor_name(rk->k->vendor), c->wg[0], c->wg[1],
            c->wg[2], c->dyn);
    if (c->groups_known)
        fprintf(f, "%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",", c->groups[0], c->groups[1],
                c->groups[2]);
    else
        fputs(",,,", f);
    fprintf(f, "%" PRIu64 ",", l ? l->count : (uint64_t)c->launches);
    if (c->predicted)
        fprintf(f, "%" PRIu64 ",%u,%.6f,", c->k.slm_bytes,
                c->res.launchable ? c->res.resident_wgs : 0,
                c->res.launchable ? c->res.occupancy : 0.0);
    else
        fputs(",,,", f);
    if (c->have_gpu)
        fprintf(f, "%" PRIu64 ",%.6f,", c->gpu.waves, c->gpu.average_occupancy);
    else
        fputs(",,", f);
    csv_str(f, c->predicted && !c->res.launchable ? "cannot launch" : lim);
    fputc(',', f);
    csv_str(f, c->next);
    fputc(',', f);
    int drv = l ? l->drv : (c->drv_mixed ? -1 : c->drv);
    if (drv >= 0)
        fprintf(f, "%d", drv);
    fputc(',', f);
    if (!l && c->timed)
        fprintf(f, "%" PRIu64, c->gpu_ns);
    fputc('\n', f);
}

static void csv_report(FILE *f, const tr_report *r)
{
    if (r->o.launches)
        fputs("pid,tid,", f);
    fputs("kernel,api,wg_x,wg_y,wg_z,dynamic_local_bytes,grid_x,grid_y,grid_z,launches,"
          "local_bytes,resident_work_groups,occupancy,waves,gpu_average_occupancy,limited_by,"
          "next_step,driver_resident_blocks,gpu_time_ns\n",
          f);
    if (r->o.launches) {
        for (size_t i = 0; i < r->d->n_launches; i++)
            if (r->launch_cfg[i] != SIZE_MAX)
                csv_row(f, r, &r->cfgs[r->launch_cfg[i]], &r->d->launches[i]);
        return;
    }
    for (size_t n = 0; n < r->n_rks; n++) {
        const rkernel *rk = &r->rks[r->order[n]];
        for (size_t q = 0; q < rk->n_configs; q++)
            csv_row(f, r, &r->cfgs[r->cfg_order[rk->first_config + q]], NULL);
    }
}

bool tr_report_write(const tr_report *r, const tr_program *p, FILE *f)
{
    switch (r->o.format) {
    case TR_JSON: json_report(f, r, p); break;
    case TR_CSV: csv_report(f, r); break;
    default: text_report(f, r, p); break;
    }
    return fflush(f) == 0 && !ferror(f);
}
