/* occ/trace.h: the records of a trace aggregated per kernel and launch
 * configuration, each configuration predicted once.  Every step is linear in
 * the records (hash indexes, trace_index.h), whatever they hold. */
#include "occ/trace.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch/arch.h" /* a driver's generic GPU name, by vendor */
#include "trace_index.h"
#include "trace_records.h"

enum { CHOSEN_MAX = 640, TEXT_MAX = 256 };

struct occ_trace {
    tr_data d;
    const occ_device *given;       /* the caller's profile, or NULL */
    occ_device **builtins;         /* every built-in profile, opened once to match devices */
    size_t n_builtins;
    occ_trace_device *devices;     /* the profiles predictions use */
    const tr_device **seen;        /* per profile: the traced device it stands for */
    char (*chosen)[CHOSEN_MAX];
    char (*names)[TEXT_MAX];       /* per profile: the traced device's name in the user's words */
    size_t n_devices;
    size_t *device_profile;        /* per traced device: its profile */
    size_t vendor_profile[3];      /* per tr_vendor: the first profile of a device of it */
    occ_trace_kernel *kernels;
    const tr_kernel **rep;         /* per kernel: its first record */
    size_t n_kernels;
    occ_trace_config *configs;
    char (*next)[TEXT_MAX];        /* per configuration, before ordering */
    char (*reason)[TEXT_MAX];
    size_t n_configs;
    occ_trace_launch *launches;
    occ_trace_process *processes;
    occ_trace_totals totals;
};

static uint64_t add_sat(uint64_t a, uint64_t b)
{
    return b > UINT64_MAX - a ? UINT64_MAX : a + b;
}

/* ---- device profiles ---------------------------------------------------------------------- */

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

/* The traced device's name in the user's words (occ_trace_device.traced_name).
 * The recorder wrote its blanks as '_' (docs/trace.md) and GPU names have no
 * '_' of their own: they are blanks again.  A driver's generic name for a GPU
 * it has no marketing name for gives way to the product of the profile its
 * PCI id pins, else to the id's product line (arch/). */
static void user_name(const occ_trace *t, const tr_device *seen, char *out, size_t size)
{
    size_t n = 0;
    for (; seen->name[n] && n + 1 < size; n++)
        out[n] = seen->name[n] == '_' ? ' ' : seen->name[n];
    out[n] = 0;
    char words[TEXT_MAX];
    const char *profile = NULL;
    if (!occ__generic_device_name(out, seen->pci_id, words, sizeof words, &profile))
        return;
    for (size_t i = 0; profile && i < t->n_builtins; i++)
        if (t->builtins[i] && strcmp(occ_builtin_name(i), profile) == 0) {
            snprintf(out, size, "%s", occ_device_describe(t->builtins[i])->product);
            return;
        }
    snprintf(out, size, "%s", words);
}

/* The built-in profile whose shape equals the traced device's (one named
 * like the device first), and the words saying so in how, which name the
 * device as the user knows it (shown). */
static const occ_device *match_profile(const occ_trace *t, const tr_device *seen, const char *shown,
                                       char *how)
{
    const char *best = NULL, *others[8];
    const occ_device *best_dev = NULL;
    size_t n_others = 0;
    bool best_named = false;
    for (size_t i = 0; i < t->n_builtins; i++) {
        const char *name = occ_builtin_name(i);
        if (!t->builtins[i])
            continue;
        const occ_device_desc *d = occ_device_describe(t->builtins[i]);
        bool fits;
        if (seen->vendor == TR_CUDA) {
            char sm[32];
            snprintf(sm, sizeof sm, "sm_%d%d", seen->cc_major, seen->cc_minor);
            fits = strcmp(d->target, sm) == 0 && (int)d->cores == seen->sms; /* the target names the vendor */
        } else { /* Level Zero reports GRF-mode devices by their engines */
            fits = occ_device_takes(d, OCC_INPUT_GRF) && d->cores * d->engines_per_core == seen->eus &&
                   d->simd_width == seen->simd && default_threads(d) == seen->threads_per_eu &&
                   (!seen->max_wg || d->max_work_group_size == seen->max_wg);
        }
        if (!fits)
            continue;
        bool named = name_mentions(seen->name, name);
        if (!best || (named && !best_named)) {
            if (best && n_others < 8)
                others[n_others++] = best;
            best = name;
            best_dev = t->builtins[i];
            best_named = named;
        } else if (n_others < 8) {
            others[n_others++] = name;
        }
    }
    char shape[160];
    if (seen->vendor == TR_CUDA)
        snprintf(shape, sizeof shape, "compute capability %d.%d, %d SMs", seen->cc_major,
                 seen->cc_minor, seen->sms);
    else
        snprintf(shape, sizeof shape, "%u EUs, SIMD %u, %u threads per EU, work-groups up to %u",
                 seen->eus, seen->simd, seen->threads_per_eu, seen->max_wg);
    if (!best) {
        if (snprintf(how, CHOSEN_MAX, "no built-in profile fits %s (%s): give --device", shown,
                     shape) < 0)
            how[0] = 0;
        return NULL;
    }
    int n = snprintf(how, CHOSEN_MAX, "%s: built-in profile %s (fits %s)", shown, best, shape);
    size_t len = n > 0 ? (size_t)n : 0;
    for (size_t i = 0; i < n_others && len < CHOSEN_MAX; i++)
        len += (size_t)snprintf(how + len, CHOSEN_MAX - len, "%s%s", i ? ", " : "; so do ", others[i]);
    return best_dev;
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

static occ_status open_profiles(occ_trace *t)
{
    const tr_data *d = &t->d;
    t->devices = calloc(d->n_devices + 1, sizeof *t->devices);
    t->seen = calloc(d->n_devices + 1, sizeof *t->seen);
    t->chosen = calloc(d->n_devices + 1, sizeof *t->chosen);
    t->names = calloc(d->n_devices + 1, sizeof *t->names);
    t->device_profile = malloc((d->n_devices + 1) * sizeof *t->device_profile);
    if (!t->devices || !t->seen || !t->chosen || !t->names || !t->device_profile)
        return OCC_ERR_NO_MEMORY;
    for (size_t v = 0; v < 3; v++)
        t->vendor_profile[v] = OCC_TRACE_NONE;
    if (t->given) {
        occ_trace_device *p = &t->devices[t->n_devices];
        snprintf(t->chosen[t->n_devices++], CHOSEN_MAX, "%s (--device)",
                 occ_device_describe(t->given)->name);
        p->profile = t->given;
        p->chosen = t->chosen[0];
        return OCC_OK;
    }
    if (d->n_devices) {
        t->n_builtins = occ_builtin_count();
        t->builtins = calloc(t->n_builtins + 1, sizeof *t->builtins);
        if (!t->builtins)
            return OCC_ERR_NO_MEMORY;
        for (size_t i = 0; i < t->n_builtins; i++)
            if (occ_device_builtin(occ_builtin_name(i), &t->builtins[i], NULL) != OCC_OK)
                t->builtins[i] = NULL;
    }
    tr_index seen = {0};
    occ_status rc = OCC_OK;
    for (size_t i = 0; i < d->n_devices; i++) {
        if (!tr_index_room(&seen)) {
            rc = OCC_ERR_NO_MEMORY;
            break;
        }
        uint64_t h = device_hash(&d->devices[i]);
        size_t q = tr_index_first(&seen, h);
        while (seen.slots[q].item != TR_NONE &&
               !(seen.slots[q].hash == h && same_device(t->seen[seen.slots[q].item], &d->devices[i])))
            q = tr_index_next(&seen, q);
        if (seen.slots[q].item != TR_NONE) {
            t->device_profile[i] = seen.slots[q].item;
            continue;
        }
        size_t n = t->n_devices++;
        tr_index_put(&seen, q, h, n);
        t->device_profile[i] = n;
        if (t->vendor_profile[d->devices[i].vendor] == OCC_TRACE_NONE)
            t->vendor_profile[d->devices[i].vendor] = n;
        t->seen[n] = &d->devices[i];
        user_name(t, t->seen[n], t->names[n], sizeof t->names[n]);
        t->devices[n].profile = match_profile(t, t->seen[n], t->names[n], t->chosen[n]);
        t->devices[n].api = (occ_trace_api)d->devices[i].vendor;
        t->devices[n].traced_name = t->names[n];
    }
    tr_index_free(&seen);
    for (size_t i = 0; i < t->n_devices; i++)
        t->devices[i].chosen = t->chosen[i];
    return rc;
}

/* The profile of a kernel: its device's; without a device record, the
 * first of its API's. */
static size_t profile_of(const occ_trace *t, const tr_kernel *k)
{
    if (t->given)
        return 0;
    const tr_device *dev = tr_kernel_device(&t->d, k);
    if (dev)
        return t->device_profile[dev - t->d.devices];
    return t->vendor_profile[k->vendor];
}

/* ---- kernels and configurations ------------------------------------------------------------ */

static bool same_kernel(const tr_kernel *a, const tr_kernel *b)
{
    return a->vendor == b->vendor && strcmp(a->name, b->name) == 0 && a->sg == b->sg &&
           a->req_sg == b->req_sg && a->slm == b->slm && a->private_bytes == b->private_bytes &&
           a->spill == b->spill && strcmp(a->grf, b->grf) == 0 && a->regs == b->regs &&
           a->static_smem == b->static_smem && a->local == b->local &&
           a->carveout == b->carveout && a->max_threads == b->max_threads &&
           memcmp(a->cluster, b->cluster, sizeof a->cluster) == 0 && a->nonportable == b->nonportable;
}

static uint64_t kernel_hash(const tr_kernel *k)
{
    uint64_t h = tr_hash_bytes(TR_HASH_SEED, k->name, strlen(k->name));
    h = tr_hash_bytes(h, k->grf, strnlen(k->grf, sizeof k->grf));
    int v[] = {(int)k->vendor, (int)k->sg, (int)k->req_sg, (int)k->slm, (int)k->private_bytes,
               (int)k->spill, k->regs, k->static_smem, k->local, k->carveout, k->max_threads};
    return tr_hash_bytes(h, v, sizeof v);
}

static uint64_t config_hash(size_t kernel, const tr_launch *l)
{
    uint64_t h = tr_hash_u64(TR_HASH_SEED, kernel);
    h = tr_hash_bytes(h, l->wg, sizeof l->wg);
    h = tr_hash_u64(h, l->dyn);
    h = tr_hash_u64(h, l->groups_known);
    if (l->groups_known)
        h = tr_hash_bytes(h, l->groups, sizeof l->groups);
    return tr_hash_bytes(h, l->cluster, sizeof l->cluster);
}

static bool config_is(const occ_trace_config *c, size_t kernel, const tr_launch *l)
{
    return c->kernel == kernel && memcmp(c->work_group, l->wg, sizeof c->work_group) == 0 &&
           c->dynamic_local_bytes == l->dyn && c->grid_known == l->groups_known &&
           (!l->groups_known || memcmp(c->grid, l->groups, sizeof c->grid) == 0) &&
           memcmp(c->cluster, l->cluster, sizeof c->cluster) == 0;
}

static void fill_kernel(occ_trace_kernel *out, const tr_kernel *k, size_t device)
{
    out->name = k->name;
    out->api = (occ_trace_api)k->vendor;
    out->device = device;
    out->ze.simd = k->sg;
    out->ze.required_sub_group = k->req_sg;
    out->ze.slm_bytes = k->slm;
    out->ze.private_bytes = k->private_bytes;
    out->ze.spill_bytes = k->spill;
    out->ze.grf = k->grf;
    out->cuda.registers = k->regs;
    out->cuda.shared_static_bytes = k->static_smem;
    out->cuda.local_bytes_per_thread = k->local;
    out->cuda.max_threads_per_block = k->max_threads;
    out->cuda.carveout = k->carveout;
    memcpy(out->cuda.cluster, k->cluster, sizeof out->cuda.cluster);
    for (int i = 0; i < 3; i++)
        out->required_work_group[i] = k->req_wg[i];
    out->advised_config = OCC_TRACE_NONE;
}

/* Kernels: records of equal name, resources and profile are one.  Launches:
 * to their configurations; threads and unknown kernels counted. */
static occ_status group(occ_trace *t)
{
    const tr_data *d = &t->d;
    size_t *kernel_of = malloc((d->n_kernels + 1) * sizeof *kernel_of);
    t->kernels = calloc(d->n_kernels + 1, sizeof *t->kernels);
    t->rep = calloc(d->n_kernels + 1, sizeof *t->rep);
    t->configs = calloc(d->n_launches + 1, sizeof *t->configs);
    t->launches = calloc(d->n_launches + 1, sizeof *t->launches);
    tr_index kernels = {0}, threads = {0}, configs = {0};
    occ_status rc = OCC_OK;
    if (!kernel_of || !t->kernels || !t->rep || !t->configs || !t->launches) {
        rc = OCC_ERR_NO_MEMORY;
        goto out;
    }
    for (size_t i = 0; i < d->n_kernels; i++) {
        const tr_kernel *k = &d->kernels[i];
        size_t p = profile_of(t, k);
        if (!tr_index_room(&kernels)) {
            rc = OCC_ERR_NO_MEMORY;
            goto out;
        }
        uint64_t h = tr_hash_u64(kernel_hash(k), p);
        size_t q = tr_index_first(&kernels, h);
        while (kernels.slots[q].item != TR_NONE &&
               !(kernels.slots[q].hash == h && t->kernels[kernels.slots[q].item].device == p &&
                 same_kernel(t->rep[kernels.slots[q].item], k)))
            q = tr_index_next(&kernels, q);
        if (kernels.slots[q].item == TR_NONE) {
            tr_index_put(&kernels, q, h, t->n_kernels);
            t->rep[t->n_kernels] = k;
            fill_kernel(&t->kernels[t->n_kernels++], k, p);
        }
        kernel_of[i] = kernels.slots[q].item;
    }
    for (size_t i = 0; i < d->n_launches; i++) {
        const tr_launch *l = &d->launches[i];
        occ_trace_launch *out = &t->launches[i];
        out->pid = l->pid;
        out->tid = l->tid;
        out->config = OCC_TRACE_NONE;
        out->kind = l->kind;
        out->count = l->count;
        memcpy(out->work_group, l->wg, sizeof out->work_group);
        out->dynamic_local_bytes = l->dyn;
        out->grid_known = l->groups_known;
        memcpy(out->grid, l->groups, sizeof out->grid);
        out->result = l->rc;
        out->driver_resident_blocks = l->drv;
        out->driver_max_active_clusters = l->drv_clusters >= 0 ? l->drv_clusters : -1;
        t->totals.launches = add_sat(t->totals.launches, l->count);
        /* distinct (pid, tid): the threads that launched */
        if (!tr_index_room(&threads) || !tr_index_room(&configs)) {
            rc = OCC_ERR_NO_MEMORY;
            goto out;
        }
        uint64_t th = tr_hash_u64(tr_hash_u64(TR_HASH_SEED, (uint64_t)l->pid), (uint64_t)l->tid);
        size_t q = tr_index_first(&threads, th);
        while (threads.slots[q].item != TR_NONE && !(d->launches[threads.slots[q].item].pid == l->pid &&
                                                     d->launches[threads.slots[q].item].tid == l->tid))
            q = tr_index_next(&threads, q);
        if (threads.slots[q].item == TR_NONE)
            tr_index_put(&threads, q, th, i);
        if (l->kernel == SIZE_MAX) {
            t->totals.launches_of_unknown_kernels =
                add_sat(t->totals.launches_of_unknown_kernels, l->count);
            continue;
        }
        size_t kernel = kernel_of[l->kernel];
        occ_trace_kernel *k = &t->kernels[kernel];
        k->launches = add_sat(k->launches, l->count);
        if (l->rc != 0)
            k->refused_launches = add_sat(k->refused_launches, l->count);
        uint64_t h = config_hash(kernel, l);
        q = tr_index_first(&configs, h);
        while (configs.slots[q].item != TR_NONE &&
               !(configs.slots[q].hash == h && config_is(&t->configs[configs.slots[q].item], kernel, l)))
            q = tr_index_next(&configs, q);
        if (configs.slots[q].item == TR_NONE) {
            occ_trace_config *c = &t->configs[t->n_configs];
            c->kernel = kernel;
            memcpy(c->work_group, l->wg, sizeof c->work_group);
            memcpy(c->cluster, l->cluster, sizeof c->cluster);
            c->dynamic_local_bytes = l->dyn;
            c->grid_known = l->groups_known;
            memcpy(c->grid, l->groups, sizeof c->grid);
            c->driver_resident_blocks = l->drv;
            /* records older than the driver's cluster answer name the shape alone */
            c->in_clusters = l->drv_clusters != -2 || (uint64_t)l->cluster[0] * l->cluster[1] * l->cluster[2] > 1;
            c->driver_max_active_clusters = l->drv_clusters >= 0 ? l->drv_clusters : -1;
            tr_index_put(&configs, q, h, t->n_configs++);
        }
        occ_trace_config *c = &t->configs[configs.slots[q].item];
        c->launches = add_sat(c->launches, l->count);
        if (l->drv != c->driver_resident_blocks)
            c->driver_mixed = true;
        if ((l->drv_clusters >= 0 ? l->drv_clusters : -1) != c->driver_max_active_clusters)
            c->driver_clusters_mixed = true;
        out->config = configs.slots[q].item;
    }
    t->totals.threads = threads.n;
out:
    tr_index_free(&kernels);
    tr_index_free(&threads);
    tr_index_free(&configs);
    free(kernel_of);
    return rc;
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
        /* what the compiled kernel allows: its required sizes */
        k->reqd_sub_group = t->req_sg;
        for (int i = 0; i < 3; i++)
            k->reqd_wg[i] = t->req_wg[0] ? t->req_wg[i] : 0;
        /* Level Zero does not say whether a kernel has a barrier: none assumed */
    } else {
        k->sub_group = 32;
        k->slm_bytes = (uint64_t)(t->static_smem > 0 ? t->static_smem : 0) + dyn;
        k->regs_per_thread = t->regs > 0 ? (uint32_t)t->regs : 0;
        k->carveout_pct = t->carveout >= 0 && t->carveout <= 100 ? t->carveout : -1;
        /* the most threads a block of this function may have (its launch bound,
         * or fewer when its registers allow fewer): the driver refuses more */
        k->max_wg_size = t->max_threads > 0 ? (uint32_t)t->max_threads : 0;
    }
}

/* A launch in clusters: its shape (compiled dimensions win, as the driver
 * counts them) and the model's clusters, where the profile has GPCs. */
static void in_clusters(const occ_device *dev, const tr_kernel *t, occ_trace_config *c)
{
    const uint32_t *shape = t->cluster[0] ? t->cluster : c->cluster;
    memcpy(c->model_kernel.cluster, shape, sizeof c->model_kernel.cluster);
    c->model_kernel.cluster_non_portable = t->nonportable > 0;
    c->have_clusters = occ_cluster_compute(dev, &c->model_kernel, &c->clusters, NULL) == OCC_OK;
}

/* The model refused a launch for the kernel's own bound (the rule's kernel
 * row), not for what the device can hold. */
static bool refused_by_bound(const occ_residency *r)
{
    return !r->launchable && (r->reason == OCC_REASON_KERNEL_MAX_WG || r->reason == OCC_REASON_REQD_WG ||
                              r->reason == OCC_REASON_REQD_SUB_GROUP);
}

static void predict(occ_trace *t, size_t i)
{
    occ_trace_config *c = &t->configs[i];
    const occ_trace_kernel *k = &t->kernels[c->kernel];
    const occ_device *dev = k->device == OCC_TRACE_NONE ? NULL : t->devices[k->device].profile;
    if (!dev)
        return;
    model_kernel(dev, t->rep[c->kernel], c->work_group, c->dynamic_local_bytes, &c->model_kernel);
    occ_residency_init(&c->residency);
    if (occ_residency_compute(dev, &c->model_kernel, &c->residency) != OCC_OK)
        return;
    c->predicted = true;
    if (c->in_clusters)
        in_clusters(dev, t->rep[c->kernel], c);
    c->outside_bound = refused_by_bound(&c->residency);
    if (!c->residency.launchable) {
        occ_residency_reason(dev, &c->model_kernel, t->reason[i], TEXT_MAX);
    } else if (c->grid_known) {
        /* work-groups of the grid; a product past 64 bits is not a grid */
        uint64_t wgs = c->grid[0];
        bool overflow = __builtin_mul_overflow(wgs, c->grid[1], &wgs) ||
                        __builtin_mul_overflow(wgs, c->grid[2], &wgs);
        c->gpu.struct_size = sizeof c->gpu;
        /* a launch in clusters without the profile's GPCs: no GPU figure, not a wrong one */
        c->have_gpu = !overflow && wgs && (!c->in_clusters || c->have_clusters) &&
                      (c->have_clusters ? occ_gpu_compute_clusters(dev, &c->residency, &c->clusters, wgs, &c->gpu)
                                        : occ_gpu_compute(dev, &c->residency, wgs, &c->gpu)) == OCC_OK;
    }
    occ_next_step step;
    if (occ_next_steps(dev, &c->model_kernel, &step, 1) >= 1) /* it returns how many it found */
        occ_next_step_format(dev, &step, t->next[i], TEXT_MAX);
}

/* ---- GPU time -------------------------------------------------------------------------------- */

/* GPU time records (CUDA): to the configuration with the same name, block,
 * grid and dynamic shared memory (the first such); else to the first
 * configured kernel of that name. */
static uint64_t time_key_hash(const char *name, const uint32_t wg[3], uint64_t dyn,
                              const uint64_t grid[3])
{
    uint64_t h = tr_hash_bytes(TR_HASH_SEED, name, strlen(name) + 1);
    h = tr_hash_bytes(h, wg, 3 * sizeof *wg);
    h = tr_hash_u64(h, dyn);
    return tr_hash_bytes(h, grid, 3 * sizeof *grid);
}

static bool time_of(const occ_trace *t, const occ_trace_config *c, const char *name,
                    const uint32_t wg[3], uint64_t dyn, const uint64_t grid[3])
{
    return c->grid_known && strcmp(t->kernels[c->kernel].name, name) == 0 &&
           memcmp(c->work_group, wg, sizeof c->work_group) == 0 && c->dynamic_local_bytes == dyn &&
           memcmp(c->grid, grid, sizeof c->grid) == 0;
}

static occ_status attribute_times(occ_trace *t)
{
    tr_index by_key = {0}, by_name = {0};
    occ_status rc = OCC_OK;
    for (size_t c = 0; c < t->n_configs; c++) {
        const occ_trace_config *x = &t->configs[c];
        const char *name = t->kernels[x->kernel].name;
        if (!tr_index_room(&by_key) || !tr_index_room(&by_name)) {
            rc = OCC_ERR_NO_MEMORY;
            goto out;
        }
        uint64_t h = tr_hash_bytes(TR_HASH_SEED, name, strlen(name) + 1);
        size_t q = tr_index_first(&by_name, h);
        while (by_name.slots[q].item != TR_NONE &&
               strcmp(t->kernels[t->configs[by_name.slots[q].item].kernel].name, name) != 0)
            q = tr_index_next(&by_name, q);
        if (by_name.slots[q].item == TR_NONE)
            tr_index_put(&by_name, q, h, c);
        if (!x->grid_known)
            continue;
        h = time_key_hash(name, x->work_group, x->dynamic_local_bytes, x->grid);
        q = tr_index_first(&by_key, h);
        while (by_key.slots[q].item != TR_NONE &&
               !time_of(t, &t->configs[by_key.slots[q].item], name, x->work_group,
                        x->dynamic_local_bytes, x->grid))
            q = tr_index_next(&by_key, q);
        if (by_key.slots[q].item == TR_NONE)
            tr_index_put(&by_key, q, h, c);
    }
    for (size_t i = 0; i < t->d.n_times; i++) {
        const tr_time *tm = &t->d.times[i];
        occ_trace_config *best = NULL;
        occ_trace_kernel *k = NULL;
        if (by_key.cap) {
            uint64_t h = time_key_hash(tm->name, tm->wg, tm->dyn, tm->groups);
            for (size_t q = tr_index_first(&by_key, h); by_key.slots[q].item != TR_NONE && !best;
                 q = tr_index_next(&by_key, q))
                if (time_of(t, &t->configs[by_key.slots[q].item], tm->name, tm->wg, tm->dyn, tm->groups))
                    best = &t->configs[by_key.slots[q].item];
        }
        if (best) {
            best->gpu_time_ns = add_sat(best->gpu_time_ns, tm->ns);
            best->gpu_executions = add_sat(best->gpu_executions, tm->count);
            k = &t->kernels[best->kernel];
        } else if (by_name.cap) {
            uint64_t h = tr_hash_bytes(TR_HASH_SEED, tm->name, strlen(tm->name) + 1);
            for (size_t q = tr_index_first(&by_name, h); by_name.slots[q].item != TR_NONE && !k;
                 q = tr_index_next(&by_name, q))
                if (strcmp(t->kernels[t->configs[by_name.slots[q].item].kernel].name, tm->name) == 0)
                    k = &t->kernels[t->configs[by_name.slots[q].item].kernel];
        }
        if (k) {
            k->gpu_time_ns = add_sat(k->gpu_time_ns, tm->ns);
            k->gpu_executions = add_sat(k->gpu_executions, tm->count);
            t->totals.gpu_time_ns = add_sat(t->totals.gpu_time_ns, tm->ns);
            t->totals.gpu_executions = add_sat(t->totals.gpu_executions, tm->count);
        } else {
            t->totals.unmatched_gpu_time_ns = add_sat(t->totals.unmatched_gpu_time_ns, tm->ns);
            t->totals.unmatched_gpu_executions = add_sat(t->totals.unmatched_gpu_executions, tm->count);
        }
    }
out:
    tr_index_free(&by_key);
    tr_index_free(&by_name);
    return rc;
}

/* ---- per kernel ---------------------------------------------------------------------------- */

/* Whether configuration c is the first of its kernel with its work-group
 * size (grid: false) or grid (true); seen indexes those met so far. */
static bool first_of_kind(const occ_trace *t, tr_index *seen, size_t c, bool grid, bool *oom)
{
    const occ_trace_config *x = &t->configs[c];
    if (!tr_index_room(seen)) {
        *oom = true;
        return false;
    }
    uint64_t h = tr_hash_u64(TR_HASH_SEED, x->kernel);
    h = grid ? tr_hash_bytes(tr_hash_u64(h, x->grid_known), x->grid, sizeof x->grid)
             : tr_hash_bytes(h, x->work_group, sizeof x->work_group);
    size_t q = tr_index_first(seen, h);
    for (; seen->slots[q].item != TR_NONE; q = tr_index_next(seen, q)) {
        const occ_trace_config *y = &t->configs[seen->slots[q].item];
        if (y->kernel == x->kernel &&
            (grid ? y->grid_known == x->grid_known && memcmp(y->grid, x->grid, sizeof x->grid) == 0
                  : memcmp(y->work_group, x->work_group, sizeof x->work_group) == 0))
            return false;
    }
    tr_index_put(seen, q, h, c);
    return true;
}

/* Distinct work-group sizes and grids per kernel, and the configuration to
 * advise on. */
static occ_status summarize(occ_trace *t)
{
    tr_index wgs = {0}, grids = {0};
    bool oom = false;
    for (size_t c = 0; c < t->n_configs && !oom; c++) {
        const occ_trace_config *x = &t->configs[c];
        occ_trace_kernel *k = &t->kernels[x->kernel];
        k->n_configs++;
        if (x->outside_bound) {
            k->launches_outside_bound = add_sat(k->launches_outside_bound, x->launches);
            t->totals.launches_outside_bound = add_sat(t->totals.launches_outside_bound, x->launches);
        }
        k->work_group_sizes += first_of_kind(t, &wgs, c, false, &oom);
        k->grids += first_of_kind(t, &grids, c, true, &oom);
        const occ_trace_config *w = k->advised_config == OCC_TRACE_NONE ? NULL : &t->configs[k->advised_config];
        if (!w || x->launches > w->launches ||
            (x->launches == w->launches && x->residency.occupancy < w->residency.occupancy))
            k->advised_config = c;
    }
    tr_index_free(&wgs);
    tr_index_free(&grids);
    return oom ? OCC_ERR_NO_MEMORY : OCC_OK;
}

/* ---- order ------------------------------------------------------------------------------------ */

static const occ_trace *sort_trace;

static int by_time_then_launches(const void *a, const void *b)
{
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    const occ_trace_kernel *x = &sort_trace->kernels[i], *y = &sort_trace->kernels[j];
    if (x->gpu_time_ns != y->gpu_time_ns)
        return x->gpu_time_ns > y->gpu_time_ns ? -1 : 1;
    if (x->launches != y->launches)
        return x->launches > y->launches ? -1 : 1;
    int c = strcmp(x->name, y->name);
    return c ? c : (i > j) - (i < j);
}

/* Kernels into report order, configurations grouped after them (each
 * kernel's in the order first launched), every index renumbered. */
static occ_status put_in_order(occ_trace *t)
{
    size_t nk = t->n_kernels, nc = t->n_configs;
    size_t *order = malloc((nk + 1) * sizeof *order), *rank = malloc((nk + 1) * sizeof *rank);
    size_t *cfg_new = malloc((nc + 1) * sizeof *cfg_new);
    occ_trace_kernel *kernels = malloc((nk + 1) * sizeof *kernels);
    const tr_kernel **rep = malloc((nk + 1) * sizeof *rep);
    occ_trace_config *configs = malloc((nc + 1) * sizeof *configs);
    occ_status rc = OCC_ERR_NO_MEMORY;
    if (!order || !rank || !cfg_new || !kernels || !rep || !configs)
        goto out;
    for (size_t i = 0; i < nk; i++)
        order[i] = i;
    sort_trace = t;
    if (nk)
        qsort(order, nk, sizeof *order, by_time_then_launches);
    size_t at = 0;
    for (size_t n = 0; n < nk; n++) {
        rank[order[n]] = n;
        kernels[n] = t->kernels[order[n]];
        rep[n] = t->rep[order[n]];
        kernels[n].first_config = at;
        at += kernels[n].n_configs;
        kernels[n].n_configs = 0;
    }
    for (size_t c = 0; c < nc; c++) { /* stable: each kernel's keep their order */
        occ_trace_kernel *k = &kernels[rank[t->configs[c].kernel]];
        cfg_new[c] = k->first_config + k->n_configs++;
        configs[cfg_new[c]] = t->configs[c];
        configs[cfg_new[c]].kernel = rank[t->configs[c].kernel];
        configs[cfg_new[c]].next_step = t->next[c];
        configs[cfg_new[c]].cannot_launch = t->reason[c];
    }
    for (size_t n = 0; n < nk; n++)
        if (kernels[n].advised_config != OCC_TRACE_NONE)
            kernels[n].advised_config = cfg_new[kernels[n].advised_config];
    for (size_t i = 0; i < t->d.n_launches; i++)
        if (t->launches[i].config != OCC_TRACE_NONE)
            t->launches[i].config = cfg_new[t->launches[i].config];
    free(t->kernels);
    free(t->rep);
    free(t->configs);
    t->kernels = kernels, kernels = NULL;
    t->rep = rep, rep = NULL;
    t->configs = configs, configs = NULL;
    rc = OCC_OK;
out:
    free(order);
    free(rank);
    free(cfg_new);
    free(kernels);
    free(rep);
    free(configs);
    return rc;
}

/* Processes and their launches (the first of equal pids gets them). */
static occ_status count_processes(occ_trace *t)
{
    const tr_data *d = &t->d;
    t->processes = calloc(d->n_processes + 1, sizeof *t->processes);
    if (!t->processes)
        return OCC_ERR_NO_MEMORY;
    tr_index pids = {0};
    for (size_t i = 0; i < d->n_processes; i++) {
        t->processes[i].pid = d->processes[i].pid;
        t->processes[i].ppid = d->processes[i].ppid;
        t->processes[i].executable = d->processes[i].exe;
        if (!tr_index_room(&pids)) {
            tr_index_free(&pids);
            return OCC_ERR_NO_MEMORY;
        }
        uint64_t h = tr_hash_u64(TR_HASH_SEED, (uint64_t)d->processes[i].pid);
        size_t q = tr_index_first(&pids, h);
        while (pids.slots[q].item != TR_NONE && d->processes[pids.slots[q].item].pid != d->processes[i].pid)
            q = tr_index_next(&pids, q);
        if (pids.slots[q].item == TR_NONE)
            tr_index_put(&pids, q, h, i);
    }
    for (size_t i = 0; i < d->n_processes; i++) {
        uint64_t h = tr_hash_u64(TR_HASH_SEED, (uint64_t)d->processes[i].ppid);
        for (size_t q = tr_index_first(&pids, h); pids.slots[q].item != TR_NONE && !t->processes[i].parent_traced;
             q = tr_index_next(&pids, q))
            t->processes[i].parent_traced = d->processes[pids.slots[q].item].pid == d->processes[i].ppid;
    }
    for (size_t i = 0; i < d->n_launches && pids.cap; i++) {
        uint64_t h = tr_hash_u64(TR_HASH_SEED, (uint64_t)d->launches[i].pid);
        for (size_t q = tr_index_first(&pids, h); pids.slots[q].item != TR_NONE; q = tr_index_next(&pids, q))
            if (d->processes[pids.slots[q].item].pid == d->launches[i].pid) {
                uint64_t *n = &t->processes[pids.slots[q].item].launches;
                *n = add_sat(*n, d->launches[i].count);
                break;
            }
    }
    tr_index_free(&pids);
    return OCC_OK;
}

/* ---- the API ---------------------------------------------------------------------------------- */

occ_status occ_trace_open(const char *path, const occ_device *device, occ_trace **out, char *err,
                          size_t err_size)
{
    char scratch[512];
    if (!err || !err_size) {
        err = scratch;
        err_size = sizeof scratch;
    }
    err[0] = 0;
    if (!out)
        return OCC_ERR_INVALID_ARGUMENT;
    *out = NULL;
    if (!path) {
        snprintf(err, err_size, "no trace path");
        return OCC_ERR_INVALID_ARGUMENT;
    }
    occ_trace *t = calloc(1, sizeof *t);
    if (!t) {
        snprintf(err, err_size, "out of memory");
        return OCC_ERR_NO_MEMORY;
    }
    t->given = device;
    int e = tr_read_path(path, &t->d, err, err_size);
    if (e) {
        occ_trace_close(t);
        return e == ENOMEM ? OCC_ERR_NO_MEMORY : OCC_ERR_IO;
    }
    occ_status rc = open_profiles(t);
    if (rc == OCC_OK)
        rc = group(t);
    if (rc == OCC_OK) {
        t->next = calloc(t->n_configs + 1, sizeof *t->next);
        t->reason = calloc(t->n_configs + 1, sizeof *t->reason);
        if (!t->next || !t->reason)
            rc = OCC_ERR_NO_MEMORY;
    }
    for (size_t c = 0; rc == OCC_OK && c < t->n_configs; c++)
        predict(t, c);
    if (rc == OCC_OK)
        rc = attribute_times(t);
    if (rc == OCC_OK)
        rc = summarize(t);
    if (rc == OCC_OK)
        rc = put_in_order(t);
    if (rc == OCC_OK)
        rc = count_processes(t);
    if (rc != OCC_OK) {
        snprintf(err, err_size, "out of memory reading the records");
        occ_trace_close(t);
        return rc;
    }
    occ_trace_totals *s = &t->totals;
    s->processes = t->d.n_processes;
    s->kernels = t->n_kernels;
    s->configurations = t->n_configs;
    s->unresolved_indirect_launches = t->d.unresolved;
    s->unreadable_lines = t->d.bad_lines;
    s->dropped_launches = t->d.dropped;
    s->dropped_records = t->d.dropped_other;
    s->stop_errno = t->d.stop_errno;
    s->warnings = t->d.warnings;
    *out = t;
    return OCC_OK;
}

void occ_trace_close(occ_trace *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->n_builtins; i++)
        occ_device_free(t->builtins[i]);
    free(t->builtins);
    free(t->devices);
    free(t->seen);
    free(t->chosen);
    free(t->names);
    free(t->device_profile);
    free(t->kernels);
    free(t->rep);
    free(t->configs);
    free(t->next);
    free(t->reason);
    free(t->launches);
    free(t->processes);
    tr_free(&t->d);
    free(t);
}

const occ_trace_totals *occ_trace_totals_get(const occ_trace *t)
{
    return t ? &t->totals : NULL;
}

size_t occ_trace_process_count(const occ_trace *t)
{
    return t ? t->d.n_processes : 0;
}

const occ_trace_process *occ_trace_process_at(const occ_trace *t, size_t i)
{
    return t && i < t->d.n_processes ? &t->processes[i] : NULL;
}

size_t occ_trace_device_count(const occ_trace *t)
{
    return t ? t->n_devices : 0;
}

const occ_trace_device *occ_trace_device_at(const occ_trace *t, size_t i)
{
    return t && i < t->n_devices ? &t->devices[i] : NULL;
}

size_t occ_trace_kernel_count(const occ_trace *t)
{
    return t ? t->n_kernels : 0;
}

const occ_trace_kernel *occ_trace_kernel_at(const occ_trace *t, size_t i)
{
    return t && i < t->n_kernels ? &t->kernels[i] : NULL;
}

size_t occ_trace_config_count(const occ_trace *t)
{
    return t ? t->n_configs : 0;
}

const occ_trace_config *occ_trace_config_at(const occ_trace *t, size_t i)
{
    return t && i < t->n_configs ? &t->configs[i] : NULL;
}

size_t occ_trace_launch_count(const occ_trace *t)
{
    return t ? t->d.n_launches : 0;
}

const occ_trace_launch *occ_trace_launch_at(const occ_trace *t, size_t i)
{
    return t && i < t->d.n_launches ? &t->launches[i] : NULL;
}
