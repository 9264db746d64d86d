/*
 * Level Zero backend, pure part: which Intel family a device belongs to, how
 * many Xe-cores (sub-slices) it has, and the profile that follows.
 *
 * Level Zero's "sub-slice" is not always an Xe-core: compute-runtime reports
 * Xe-LP's dual sub-slices as sub-slices (16 EU each) but other drivers report
 * DG2 as 2 x 8 x 8.  So the core count is derived from the total number of
 * XVEs and the family's XVEs per core, never read from numSubslicesPerSlice;
 * the driver's sub-slice figure is only cross-checked.
 */
#include "validate/backends/ze/backend_ze.h"
#include "arch/arch.h"
#include "common/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool signature_fits(const occ_intel_family *f, const occ_ze_props *p)
{
    return p->simd_width == f->simd_width && p->threads_per_eu == f->threads_per_eu &&
           p->max_total_group_size == f->max_work_group_size;
}

void occ__ze_identify(const occ_ze_props *p, occ_ze_ident *out)
{
    memset(out, 0, sizeof *out);
    if (p->vendor_id != 0x8086) {
        snprintf(out->how, sizeof out->how, "vendor 0x%04x is not Intel", p->vendor_id);
        return;
    }
    const char *profile, *what;
    occ_intel_family_id by_id = occ__intel_pci_family(p->device_id, &profile, &what);
    if (by_id != OCC_INTEL_FAMILY_UNKNOWN) {
        out->family = occ__intel_family(by_id);
        out->profile = profile;
        out->by_pci_id = true;
        out->signature_agrees = signature_fits(out->family, p);
        snprintf(out->how, sizeof out->how, "PCI id 0x%04x: %s, %s%s", p->device_id, what,
                 out->family->name,
                 out->signature_agrees ? "" : " (but the driver's SIMD/threads/max work-group do not fit)");
        return;
    }
    /* Unknown id: the property signature. */
    size_t n;
    const occ_intel_family_id *by_signature = occ__intel_signature_families(&n);
    for (size_t i = 0; i < n; i++) {
        const occ_intel_family *f = occ__intel_family(by_signature[i]);
        if (signature_fits(f, p)) {
            out->family = f;
            out->signature_agrees = true;
            snprintf(out->how, sizeof out->how,
                     "unknown PCI id 0x%04x; SIMD %u, %u threads/EU, max work-group %u fit %s",
                     p->device_id, p->simd_width, p->threads_per_eu, p->max_total_group_size, f->name);
            return;
        }
    }
    snprintf(out->how, sizeof out->how,
             "unknown PCI id 0x%04x and SIMD %u, %u threads/EU, max work-group %u fit no known family",
             p->device_id, p->simd_width, p->threads_per_eu, p->max_total_group_size);
}

uint32_t occ__ze_total_engines(const occ_ze_props *p)
{
    if (p->has_eu_count_ext && p->eu_count_ext)
        return p->eu_count_ext;
    uint64_t n = (uint64_t)p->slices * p->subslices_per_slice * p->eus_per_subslice;
    return n > UINT32_MAX ? 0 : (uint32_t)n;
}

static const char *const field_names[OCC_ZE_F_COUNT] = {
    "core.count", "core.vector_engines", "core.simd_width", "core.sub_group_sizes",
    "core.grf_modes (threads_per_engine, default mode)", "core.max_work_group_size",
    "local_memory.max_per_work_group", "core.grf_modes (other modes)", "core.max_work_groups",
    "core.barriers", "local_memory.per_core", "local_memory.steps", "dispatch",
};

const char *occ__ze_field_name(occ_ze_field f)
{
    return f < OCC_ZE_F_COUNT ? field_names[f] : "?";
}

static void add_note(occ_ze_profile *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_note(occ_ze_profile *o, const char *fmt, ...)
{
    if (o->n_notes >= sizeof o->notes / sizeof o->notes[0])
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(o->notes[o->n_notes++], sizeof o->notes[0], fmt, ap);
    va_end(ap);
}

/* The driver's fields written into d (threads go into the default mode). */
static void apply_driver_fields(const occ_ze_props *p, occ_device_desc *d)
{
    d->simd_width = p->simd_width;
    d->n_sub_group_sizes = 0;
    for (uint32_t i = 0; i < p->n_sub_group_sizes && i < OCC_MAX_SUB_GROUP_SIZES; i++)
        d->sub_group_sizes[d->n_sub_group_sizes++] = p->sub_group_sizes[i];
    d->max_work_group_size = p->max_total_group_size;
    d->slm_max_per_work_group = p->max_slm;
}

static uint32_t default_threads(const occ_device_desc *d)
{
    for (uint32_t i = 0; i < d->n_grf_modes; i++)
        if (d->grf_modes[i].registers == d->default_grf)
            return d->grf_modes[i].threads_per_engine;
    return 0;
}

occ_status occ__ze_profile(const occ_ze_props *p, occ_ze_profile *o, occ_diag *diag)
{
    memset(o, 0, sizeof *o);
    occ_device_desc *d = &o->desc;
    occ_device_desc_init(d);
    occ__ze_identify(p, &o->ident);
    uint32_t engines = occ__ze_total_engines(p);
    if (!engines || !p->threads_per_eu || !p->simd_width || !p->max_total_group_size ||
        !p->n_sub_group_sizes)
        return occ__diag(diag, OCC_ERR_DEVICE, NULL, 0, 0, NULL,
                         "the driver reports an incomplete device (%u EUs, %u threads/EU, SIMD %u, "
                         "max work-group %u, %u sub-group sizes)",
                         engines, p->threads_per_eu, p->simd_width, p->max_total_group_size,
                         p->n_sub_group_sizes);

    const occ_intel_family *fam = o->ident.family;
    occ_device *ref = NULL;
    if (fam && occ_device_builtin(fam->reference_profile, &ref, NULL) == OCC_OK)
        *d = *occ_device_describe(ref);
    occ_device_free(ref);

    /* Identity: the driver's name, never a shipped product name. */
    snprintf(d->name, sizeof d->name, "ze-%04x", p->device_id);
    snprintf(d->product, sizeof d->product, "%.120s", p->name);
    snprintf(d->architecture, sizeof d->architecture, "%s", fam ? fam->architecture : "unknown");
    d->vendor = OCC_VENDOR_INTEL;
    d->provisional = true;

    for (int f = 0; f < OCC_ZE_F_COUNT; f++)
        o->origin[f] = fam ? OCC_ZE_FROM_FAMILY : OCC_ZE_UNKNOWN;
    o->origin[OCC_ZE_F_SIMD] = OCC_ZE_FROM_DRIVER;
    o->origin[OCC_ZE_F_SUB_GROUPS] = OCC_ZE_FROM_DRIVER;
    o->origin[OCC_ZE_F_THREADS] = OCC_ZE_FROM_DRIVER;
    o->origin[OCC_ZE_F_MAX_WG] = OCC_ZE_FROM_DRIVER;
    o->origin[OCC_ZE_F_SLM_PER_WG] = OCC_ZE_FROM_DRIVER;
    apply_driver_fields(p, d);

    if (!fam) {
        /* Without a family there is no XVE-per-core figure to trust. */
        o->origin[OCC_ZE_F_CORES] = OCC_ZE_UNKNOWN;
        o->origin[OCC_ZE_F_ENGINES] = OCC_ZE_UNKNOWN;
        d->cores = 0;
        d->engines_per_core = 0;
        d->n_grf_modes = 1;
        d->grf_modes[0].registers = 128;
        d->grf_modes[0].threads_per_engine = p->threads_per_eu;
        d->default_grf = 128;
        add_note(o, "family unknown (%s): Xe-cores cannot be derived", o->ident.how);
        o->complete = false;
        return OCC_OK;
    }

    snprintf(d->core_name, sizeof d->core_name, "%s", fam->core_name);
    snprintf(d->engine_name, sizeof d->engine_name, "%s", fam->engine_name);
    d->engines_per_core = fam->engines_per_core;
    o->origin[OCC_ZE_F_ENGINES] = OCC_ZE_FROM_FAMILY;
    o->origin[OCC_ZE_F_CORES] = OCC_ZE_FROM_DERIVED;
    if (engines % fam->engines_per_core)
        add_note(o, "%u EUs is not a multiple of %u per %s: %u partial %s counted as whole",
                 engines, fam->engines_per_core, fam->core_name, engines % fam->engines_per_core,
                 "EUs");
    d->cores = (uint32_t)occ__ceil_div(engines, fam->engines_per_core);
    add_note(o, "%u %ss = %u EUs (%s) / %u EUs per %s (%s)", d->cores, fam->core_name, engines,
             p->has_eu_count_ext && p->eu_count_ext ? "EU-count extension"
                                                    : "slices x sub-slices x EUs per sub-slice",
             fam->engines_per_core, fam->core_name, fam->name);
    if (p->eus_per_subslice != fam->engines_per_core)
        add_note(o, "the driver's sub-slice has %u EUs, a %s %s has %u: its %u sub-slices are not %ss",
                 p->eus_per_subslice, fam->name, fam->core_name, fam->engines_per_core,
                 p->slices * p->subslices_per_slice, fam->core_name);

    /* Threads per XVE in the default mode come from the driver; the other
     * GRF modes keep the family's ratio to it. */
    uint32_t family_threads = default_threads(d);
    for (uint32_t i = 0; i < d->n_grf_modes; i++) {
        if (d->grf_modes[i].registers == d->default_grf)
            d->grf_modes[i].threads_per_engine = p->threads_per_eu;
        else if (family_threads && family_threads != p->threads_per_eu)
            d->grf_modes[i].threads_per_engine = (uint32_t)occ__ceil_div(
                (uint64_t)d->grf_modes[i].threads_per_engine * p->threads_per_eu, family_threads);
    }
    if (family_threads != p->threads_per_eu)
        add_note(o, "the driver reports %u threads per EU, the %s family %u", p->threads_per_eu,
                 fam->name, family_threads);
    if (d->slm_per_core < d->slm_max_per_work_group) {
        d->slm_per_core = d->slm_max_per_work_group;
        add_note(o, "SLM per core raised to the driver's per-work-group maximum");
    }
    if (d->max_work_groups_per_core == 0)
        d->max_work_groups_per_core = 1;
    o->complete = true;

    /* A shipped profile equal on every field the driver reports. */
    if (o->ident.profile) {
        snprintf(o->matches, sizeof o->matches, "%s", o->ident.profile);
        occ_device *s = NULL;
        if (occ_device_builtin(o->ident.profile, &s, NULL) != OCC_OK ||
            occ__ze_compare_driver_fields(d, occ_device_describe(s)))
            o->matches[0] = '\0';
        occ_device_free(s);
    }
    for (size_t i = 0; !o->matches[0] && i < occ_builtin_count(); i++) {
        occ_device *s = NULL;
        if (occ_device_builtin(occ_builtin_name(i), &s, NULL) != OCC_OK)
            continue;
        const occ_device_desc *sd = occ_device_describe(s);
        if (sd->vendor == OCC_VENDOR_INTEL && !occ__ze_compare_driver_fields(d, sd) &&
            strstr(sd->architecture, fam->id == OCC_INTEL_FAMILY_GEN9_OR_GEN11 ? "Gen" : fam->name))
            snprintf(o->matches, sizeof o->matches, "%s", sd->name);
        occ_device_free(s);
    }
    return OCC_OK;
}

uint32_t occ__ze_compare_driver_fields(const occ_device_desc *a, const occ_device_desc *b)
{
    uint32_t diff = 0;
    if (a->cores != b->cores)
        diff |= 1u << OCC_ZE_F_CORES;
    if (a->engines_per_core != b->engines_per_core)
        diff |= 1u << OCC_ZE_F_ENGINES;
    if (a->simd_width != b->simd_width)
        diff |= 1u << OCC_ZE_F_SIMD;
    if (a->n_sub_group_sizes != b->n_sub_group_sizes ||
        memcmp(a->sub_group_sizes, b->sub_group_sizes, a->n_sub_group_sizes * sizeof(uint32_t)))
        diff |= 1u << OCC_ZE_F_SUB_GROUPS;
    if (default_threads(a) != default_threads(b))
        diff |= 1u << OCC_ZE_F_THREADS;
    if (a->max_work_group_size != b->max_work_group_size)
        diff |= 1u << OCC_ZE_F_MAX_WG;
    if (a->slm_max_per_work_group != b->slm_max_per_work_group)
        diff |= 1u << OCC_ZE_F_SLM_PER_WG;
    return diff;
}

/* ---- the driver's answer beside the model ------------------------------------------ */

void occ__ze_driver_note(const occ_device *dev, uint32_t threads_per_eu, const occ_kernel *act,
                         int32_t coop, char *buf, size_t size)
{
    buf[0] = '\0';
    if (!dev || coop < 0)
        return;
    const occ_device_desc *d = occ_device_describe(dev);
    occ_residency r;
    occ_residency_init(&r);
    if (occ_residency_compute(dev, act, &r) != OCC_OK || !r.launchable)
        return;
    uint64_t model = (uint64_t)r.resident_wgs * d->cores;
    uint64_t pooled = (uint64_t)d->cores * r.contexts_per_core / r.contexts_per_wg;
    uint32_t rule = occ__intel_driver_coop_rule(d->cores, d->engines_per_core, threads_per_eu,
                                             r.sub_group, r.wg_size, act->barrier, act->slm_bytes,
                                             d->slm_per_core);
    int n = snprintf(buf, size,
                     "zeKernelSuggestMaxCooperativeGroupCount: %d work-groups on the device at once; "
                     "the model: %u per %s x %u = %llu.",
                     coop, r.resident_wgs, d->core_name, d->cores, (unsigned long long)model);
    if (n < 0 || (size_t)n >= size)
        return;
    size_t len = (size_t)n;
    if ((uint64_t)coop == model)
        snprintf(buf + len, size - len, " They agree.");
    else if ((uint64_t)coop > model && (uint64_t)coop <= pooled)
        snprintf(buf + len, size - len,
                 " The driver pools the thread contexts of all %ss (%llu / %u per work-group = "
                 "%llu) as if a work-group could span %ss; a work-group's threads all run on one "
                 "%s, so %u of each %s's %u contexts stay idle.",
                 d->core_name, (unsigned long long)d->cores * r.contexts_per_core,
                 r.contexts_per_wg, (unsigned long long)pooled, d->core_name, d->core_name,
                 r.contexts_per_core - r.resident_wgs * r.contexts_per_wg, d->core_name,
                 r.contexts_per_core);
    else if ((uint64_t)coop == rule)
        snprintf(buf + len, size - len,
                 " The driver's rule (pooled threads, %s32 barrier-using and 64 KB SLM per %s in "
                 "power-of-two steps) gives %u.",
                 act->barrier ? "" : "no barrier cap, ", d->core_name, rule);
    else
        snprintf(buf + len, size - len,
                 " The difference is not the driver rule this backend knows (which gives %u).",
                 rule);
}

bool occ__ze_record_decode(const uint64_t *raw, size_t i, occ_ze_record *r)
{
    const uint64_t *w = raw + i * OCC_ZE_RECORD_WORDS;
    if (w[0] != OCC_ZE_RECORD_MAGIC)
        return false;
    r->group = (uint32_t)w[1];
    r->sub_group = (uint32_t)(w[1] >> 32);
    r->hw_thread = (uint32_t)w[2];
    r->slice = (uint32_t)(w[2] >> 32);
    r->dss = (uint32_t)w[3];
    r->subslice = (uint32_t)(w[3] >> 32);
    r->eu = (uint32_t)w[4];
    r->eu_thread = (uint32_t)(w[4] >> 32);
    r->t_start = w[5];
    r->t_end = w[6];
    r->sub_group_size = (uint32_t)w[7];
    return true;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

#define MAX_CORE_KEYS 1024

void occ__ze_records_convert(const uint64_t *raw, size_t slots, uint32_t threads_per_group,
                             bool core_is_dss, uint32_t cores, occ_record *out,
                             occ_ze_records_info *info)
{
    memset(info, 0, sizeof *info);
    info->t_min = UINT64_MAX;
    if (!threads_per_group)
        return;
    /* Pass 1: the distinct cores and the time span of good records. */
    uint64_t keys[MAX_CORE_KEYS];
    size_t n_keys = 0;
    for (size_t i = 0; i < slots; i++) {
        occ_ze_record r;
        if (!occ__ze_record_decode(raw, i, &r) || r.group != i / threads_per_group ||
            r.sub_group != i % threads_per_group || r.t_end < r.t_start)
            continue;
        uint64_t key = (uint64_t)r.slice << 32 | (core_is_dss ? r.dss : r.subslice);
        bool known = false;
        for (size_t j = 0; j < n_keys && !known; j++)
            known = keys[j] == key;
        if (!known && n_keys < MAX_CORE_KEYS)
            keys[n_keys++] = key;
        if (r.t_start < info->t_min)
            info->t_min = r.t_start;
        if (r.t_end > info->t_max)
            info->t_max = r.t_end;
    }
    qsort(keys, n_keys, sizeof keys[0], cmp_u64);
    info->cores_seen = (uint32_t)n_keys;
    /* Pass 2: the records, cores as dense ranks. */
    for (size_t i = 0; i < slots; i++) {
        occ_ze_record r;
        if (!occ__ze_record_decode(raw, i, &r)) {
            info->missing++;
            continue;
        }
        uint64_t key = (uint64_t)r.slice << 32 | (core_is_dss ? r.dss : r.subslice);
        const uint64_t *hit = bsearch(&key, keys, n_keys, sizeof keys[0], cmp_u64);
        uint32_t core = hit ? (uint32_t)(hit - keys) : UINT32_MAX;
        if (r.group != i / threads_per_group || r.sub_group != i % threads_per_group ||
            r.t_end < r.t_start || core >= cores) {
            info->invalid++;
            continue;
        }
        occ_record *o = &out[info->written++];
        memset(o, 0, sizeof *o);
        o->work_group = r.group;
        o->thread = r.sub_group;
        o->core_start = core;
        o->core_end = core; /* the location is read once, at the start */
        o->engine = r.eu;
        o->slot = r.eu_thread;
        o->t_start = r.t_start - info->t_min;
        o->t_end = r.t_end - info->t_min;
    }
    if (!info->written)
        info->t_min = info->t_max = 0;
}
