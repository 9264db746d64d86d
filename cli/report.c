#include "report.h"

#include <string.h>

#include "args.h"

double pct(double fraction) { return fraction * 100.0; }

size_t text_escape(unsigned char c, char esc[5])
{
    if (c == '\n')
        return (size_t)snprintf(esc, 5, "\\n");
    if (c == '\t')
        return (size_t)snprintf(esc, 5, "\\t");
    if (c == '\\')
        return (size_t)snprintf(esc, 5, "\\\\");
    if (c < 0x20 || c == 0x7f)
        return (size_t)snprintf(esc, 5, "\\x%02x", c);
    esc[0] = (char)c, esc[1] = '\0';
    return 1;
}

const char *text_safe(const char *s)
{
    static char bufs[8][4096];
    static unsigned turn;
    char *buf = bufs[turn++ % 8];
    size_t n = 0, room = sizeof bufs[0] - 4; /* for "..." and the NUL */
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        char esc[5];
        size_t len = text_escape(*p, esc);
        if (n + len > room) {
            strcpy(buf + n, "...");
            return buf;
        }
        memcpy(buf + n, esc, len);
        n += len;
    }
    buf[n] = '\0';
    return buf;
}

const char *report_reason(const occ_device *dev, const occ_kernel *k)
{
    static char why[256];
    occ_residency_reason(dev, k, why, sizeof why);
    return why;
}

const char *vendor_word(const occ_device_desc *d)
{
    const occ_vendor_words *w = occ_vendor_words_of(d->vendor);
    return w ? w->word : "unknown";
}

/* The vendor's words for thread contexts and registers ("wave slots",
 * "VGPRs" for AMD). */
static const char *context_word(const occ_device_desc *d)
{
    const occ_vendor_words *w = occ_vendor_words_of(d->vendor);
    return w && w->context_word ? w->context_word : "thread context";
}

static const char *register_word(const occ_device_desc *d)
{
    const occ_vendor_words *w = occ_vendor_words_of(d->vendor);
    return w && w->register_word ? w->register_word : "registers";
}

void report_device_text(FILE *f, const occ_device *dev, uint32_t grf)
{
    const occ_device_desc *d = occ_device_describe(dev);
    const char *origin = occ_device_origin(dev);
    bool builtin = strncmp(origin, "<builtin:", 9) == 0;
    fprintf(f, "Device   %s [%s%s%s]%s\n", text_safe(d->product), text_safe(builtin ? d->name : origin),
            builtin ? ", built-in" : "", "", d->provisional ? "  (provisional profile)" : "");
    uint32_t per_core = occ_desc_contexts_per_core(d, grf ? grf : d->default_grf);
    uint32_t tpe = per_core / d->engines_per_core;
    fprintf(f, "         %u %ss x %u %s x %u = %llu %ss (%u per %s)\n", d->cores, d->core_name,
            d->engines_per_core, d->engine_name, tpe, (unsigned long long)d->cores * per_core,
            context_word(d), per_core, d->core_name);
}

void report_kernel_line(FILE *f, const occ_device *dev, const occ_kernel *k, const occ_residency *r)
{
    const occ_device_desc *d = occ_device_describe(dev);
    char slm[32];
    occ_format_bytes(slm, sizeof slm, k->slm_bytes, false);
    fprintf(f, "Kernel   work-group %u", k->wg[0]);
    if (k->wg[1] > 1 || k->wg[2] > 1)
        fprintf(f, "x%u", k->wg[1]);
    if (k->wg[2] > 1)
        fprintf(f, "x%u", k->wg[2]);
    if (k->wg[1] > 1 || k->wg[2] > 1)
        fprintf(f, " (%llu work-items)", (unsigned long long)r->wg_size);
    fprintf(f, ", sub-group %u, %s %s, %s", r->sub_group, d->local_memory_name,
            k->slm_bytes ? slm : "none", k->barrier ? "barrier" : "no barrier");
    if (occ_device_takes(d, OCC_INPUT_REGISTERS)) {
        if (k->regs_per_thread)
            fprintf(f, ", %u %s/thread", k->regs_per_thread, register_word(d));
        else
            fputs(", registers not given", f);
        if (k->sgprs) /* AMD's, from its code object */
            fprintf(f, ", %u SGPRs/wave", k->sgprs);
        if (k->cu_mode && strcmp(d->core_name, "WGP") == 0)
            fputs(", CU mode", f);
        if (occ_device_takes(d, OCC_INPUT_CARVEOUT))
            k->carveout_pct < 0 ? fputs(", carveout default", f)
                                : fprintf(f, ", carveout %d %%", (int)k->carveout_pct);
    } else {
        fprintf(f, ", GRF %u", r->grf);
    }
    fputc('\n', f);
    if (r->contexts_per_wg)
        fprintf(f, "         %u %s%s per work-group (ceil(%llu / %u))\n", r->contexts_per_wg,
                context_word(d), r->contexts_per_wg == 1 ? "" : "s", (unsigned long long)r->wg_size,
                r->sub_group);
}

static void limit_row(FILE *f, const char *name, uint32_t v, bool binding, const char *note)
{
    if (v == OCC_NO_LIMIT)
        fprintf(f, "  %-22s %8s   %s\n", name, "-", note);
    else
        fprintf(f, "  %-22s %8u%s%s%s\n", name, v, binding || *note ? "   " : "",
                binding ? "<- binding" : "", note);
}

void report_core_text(FILE *f, const occ_device *dev, const occ_kernel *k, const occ_residency *r)
{
    const occ_device_desc *d = occ_device_describe(dev);
    if (!r->launchable) {
        fprintf(f, "\nCannot launch: %s.\n", report_reason(dev, k));
        return;
    }
    fprintf(f, "\nPer %s\n", d->core_name);
    fprintf(f, "  %-22s %8u\n", "resident work-groups", r->resident_wgs);
    char contexts[40];
    snprintf(contexts, sizeof contexts, "%ss", context_word(d));
    fprintf(f, "  %-22s %8u   used, %u idle of %u\n", contexts, r->contexts_used, r->contexts_idle,
            r->contexts_per_core);
    fprintf(f, "  %-22s %7.1f %%\n", "occupancy", pct(r->occupancy));
    uint32_t compiler;
    double resident;
    if (occ_waves_per_simd(dev, k, &compiler, &resident) == OCC_OK) {
        if (resident == (double)compiler)
            fprintf(f, "  %-22s %8u   as the compiler (LLVM) counts them\n", "waves per SIMD", compiler);
        else
            fprintf(f, "  %-22s %8.2f   of whole work-groups of %u waves; LLVM counts %u: it counts single "
                       "waves, not whole work-groups\n",
                    "waves per SIMD", resident, r->contexts_per_wg, compiler);
    }
    fprintf(f, "\n  %-22s %8s\n", "limit", "WGs/core");
    char note[128];
    bool b;
    b = r->limited_by & (1u << OCC_RES_THREADS);
    snprintf(note, sizeof note, "%s%u / %u contexts", b ? ", " : "", r->contexts_per_core,
             r->contexts_per_wg);
    limit_row(f, contexts, r->limits[OCC_RES_THREADS], b, note);
    b = r->limited_by & (1u << OCC_RES_SLM);
    if (r->slm_per_wg_alloc) {
        char a[32], c[32];
        occ_format_bytes(a, sizeof a, r->slm_per_wg_alloc, false);
        occ_format_bytes(c, sizeof c, r->slm_core_config, false);
        snprintf(note, sizeof note, "%s%s / %s allocated per work-group", b ? ", " : "", c, a);
    } else {
        snprintf(note, sizeof note, "(no %s)", d->local_memory_name);
    }
    char name[40];
    snprintf(name, sizeof name, "%s", d->local_memory_name);
    limit_row(f, name, r->limits[OCC_RES_SLM], b, note);
    if (occ_device_takes(d, OCC_INPUT_REGISTERS)) {
        b = r->limited_by & (1u << OCC_RES_REGISTERS);
        if (k->regs_per_thread)
            snprintf(note, sizeof note, "%s%u %s per work-group", b ? ", " : "", r->regs_per_wg_alloc,
                     register_word(d));
        else
            snprintf(note, sizeof note, "(%s per thread not given: --regs)", register_word(d));
        /* AMD's SGPRs count in this limit (GFX9): say so where they lower it */
        occ_kernel no_sgprs = *k;
        no_sgprs.sgprs = 0;
        occ_residency without;
        if (k->sgprs && occ_residency_compute(dev, &no_sgprs, &without) == OCC_OK &&
            without.limits[OCC_RES_REGISTERS] > r->limits[OCC_RES_REGISTERS]) {
            size_t used = strlen(note);
            snprintf(note + used, sizeof note - used, "; its %u SGPRs allow %u (the VGPRs %u)", k->sgprs,
                     r->limits[OCC_RES_REGISTERS], without.limits[OCC_RES_REGISTERS]);
        }
        limit_row(f, register_word(d), r->limits[OCC_RES_REGISTERS], b, note);
    }
    b = r->limited_by & (1u << OCC_RES_WG_SLOTS);
    limit_row(f, "work-group slots", r->limits[OCC_RES_WG_SLOTS], b, "");
    b = r->limited_by & (1u << OCC_RES_BARRIERS);
    if (k->barrier) {
        if (d->barriers_per_core_driver != d->barriers_per_core &&
            d->barriers_per_core_driver != OCC_NO_LIMIT)
            /* the driver's figure sizes cooperative launches only (docs/model.md) */
            snprintf(note, sizeof note, "%s(cooperative launches: %u)", b ? " " : "",
                     d->barriers_per_core_driver);
        else
            note[0] = '\0';
    } else {
        snprintf(note, sizeof note, "(no barrier)");
    }
    limit_row(f, "barriers", r->limits[OCC_RES_BARRIERS], b, note);
}

void report_gpu_text(FILE *f, const occ_device *dev, const occ_residency *r, const occ_gpu *g,
                     uint64_t cooperative_max)
{
    (void)r;
    const occ_device_desc *d = occ_device_describe(dev);
    fprintf(f, "\nGPU, %llu work-group%s (waves: whole work-groups on every %s at once, as in the guide's tables)\n",
            (unsigned long long)g->work_groups, g->work_groups == 1 ? "" : "s", d->core_name);
    fprintf(f, "  %-22s %llu needed, %llu on the device\n", "thread contexts",
            (unsigned long long)g->contexts_needed, (unsigned long long)g->contexts_total);
    if (g->cluster_size)
        fprintf(f, "  %-22s %llu (up to %llu work-group%s each: %llu cluster%s of %u)\n", "waves",
                (unsigned long long)g->waves, (unsigned long long)g->wave_capacity, plural(g->wave_capacity),
                (unsigned long long)g->max_active_clusters, plural(g->max_active_clusters), g->cluster_size);
    else
        fprintf(f, "  %-22s %llu (up to %llu work-group%s each: %u %ss x %u)\n", "waves",
                (unsigned long long)g->waves, (unsigned long long)g->wave_capacity, plural(g->wave_capacity),
                d->cores, d->core_name, r->resident_wgs);
    if (g->waves > 1 && g->full_waves)
        fprintf(f, "  %-22s %llu x %llu work-group%s, %llu contexts, %.1f %%\n",
                g->full_waves == g->waves ? "each wave" : "full waves",
                (unsigned long long)g->full_waves, (unsigned long long)g->wave_capacity, plural(g->wave_capacity),
                (unsigned long long)(g->wave_capacity * r->contexts_per_wg),
                pct(g->full_wave_occupancy));
    if (g->full_waves != g->waves || g->waves == 1)
        fprintf(f, "  %-22s %llu work-group%s, %llu contexts busy of %llu, %.1f %%\n",
                g->waves == 1 ? "the wave" : "last wave", (unsigned long long)g->last_wave_work_groups,
                plural(g->last_wave_work_groups),
                (unsigned long long)(g->last_wave_work_groups * r->contexts_per_wg),
                (unsigned long long)g->contexts_total, pct(g->last_wave_occupancy));
    fprintf(f, "  %-22s %.1f %%  (time-weighted over the waves, equal work-group durations)\n",
            "waves average", pct(g->average_occupancy));
    if (g->intel_calculator_occupancy + 1e-12 < g->average_occupancy)
        fprintf(f, "  %-22s %.1f %%  (what Intel's calculator says: it gives a partial last wave no weight)\n",
                "", pct(g->intel_calculator_occupancy));
    /* the driver's count, which pools contexts and caps barriers its own way: not the wave */
    fprintf(f, "  %-22s %llu work-group%s at most in one cooperative launch (the driver's count)\n",
            "cooperative max", (unsigned long long)cooperative_max, plural(cooperative_max));
}

void report_next_steps_text(FILE *f, const occ_device *dev, const occ_kernel *k)
{
    occ_next_step steps[OCC_INPUT_COUNT];
    size_t n = occ_next_steps(dev, k, steps, OCC_INPUT_COUNT);
    char line[256];
    if (n == 0) {
        occ_residency r;
        occ_residency_compute(dev, k, &r);
        occ_clusters cl; /* a launch in clusters is judged under the cluster cap, as the steps are */
        if (cli_is_cluster_launch(k) && occ_cluster_compute(dev, k, &cl, NULL) == OCC_OK)
            r.occupancy = cl.occupancy;
        fprintf(f, "\nNext step: %s\n", r.launchable && r.occupancy >= 1.0
                                            ? "none needed: every thread context of a core is busy"
                                            : "no single change of one input raises residency");
        return;
    }
    occ_next_step_format(dev, &steps[0], line, sizeof line);
    fprintf(f, "\nNext step: %s\n", line);
    for (size_t i = 1; i < n && i < OCC_INPUT_COUNT; i++) {
        occ_next_step_format(dev, &steps[i], line, sizeof line);
        fprintf(f, "     or:   %s\n", line);
    }
}

void report_device_doc(doc *j, const occ_device *dev)
{
    const occ_device_desc *d = occ_device_describe(dev);
    doc_key(j, "device");
    doc_begin_object(j);
    doc_kstr(j, "name", d->name);
    doc_kstr(j, "product", d->product);
    doc_kstr(j, "origin", occ_device_origin(dev));
    doc_kstr(j, "vendor", vendor_word(d));
    doc_kbool(j, "provisional", d->provisional);
    doc_kstr(j, "core_name", d->core_name);
    doc_ku64(j, "cores", d->cores);
    doc_ku64(j, "vector_engines_per_core", d->engines_per_core);
    doc_end_object(j);
}

void report_kernel_doc(doc *j, const occ_kernel *k, const occ_residency *r)
{
    doc_key(j, "kernel");
    doc_begin_object(j);
    doc_key(j, "work_group");
    doc_begin_array(j);
    for (int i = 0; i < 3; i++)
        doc_u64(j, k->wg[i]);
    doc_end_array(j);
    doc_ku64(j, "work_group_size", r->wg_size);
    doc_ku64(j, "sub_group", r->sub_group);
    doc_ku64(j, "slm_bytes", k->slm_bytes);
    doc_kbool(j, "barrier", k->barrier);
    doc_ku64(j, "grf", r->grf);
    doc_ku64(j, "registers_per_thread", k->regs_per_thread);
    doc_key(j, "carveout_pct");
    if (k->carveout_pct < 0)
        doc_null(j);
    else
        doc_u64(j, (uint64_t)k->carveout_pct);
    doc_end_object(j);
}

void report_core_doc(doc *j, const occ_device *dev, const occ_kernel *k, const occ_residency *r)
{
    doc_kbool(j, "launchable", r->launchable);
    doc_key(j, "reason");
    if (r->launchable)
        doc_null(j);
    else
        doc_str(j, report_reason(dev, k));
    doc_key(j, "core");
    doc_begin_object(j);
    doc_ku64(j, "thread_contexts_per_work_group", r->contexts_per_wg);
    doc_ku64(j, "thread_contexts", r->contexts_per_core);
    doc_ku64(j, "resident_work_groups", r->launchable ? r->resident_wgs : 0);
    doc_ku64(j, "thread_contexts_used", r->contexts_used);
    doc_ku64(j, "thread_contexts_idle", r->launchable ? r->contexts_idle : r->contexts_per_core);
    doc_knum(j, "occupancy", r->launchable ? r->occupancy : 0.0);
    doc_key(j, "limits");
    doc_begin_object(j);
    for (int i = 0; i < OCC_RES_COUNT; i++) {
        doc_key(j, occ_resource_name((occ_resource)i));
        if (r->limits[i] == OCC_NO_LIMIT || !r->launchable)
            doc_null(j);
        else
            doc_u64(j, r->limits[i]);
    }
    doc_end_object(j);
    doc_key(j, "limited_by");
    doc_begin_array(j);
    for (int i = 0; i < OCC_RES_COUNT; i++)
        if (r->launchable && (r->limited_by & (1u << i)))
            doc_str(j, occ_resource_name((occ_resource)i));
    doc_end_array(j);
    doc_ku64(j, "slm_per_work_group_allocated", r->slm_per_wg_alloc);
    doc_ku64(j, "slm_per_core", r->slm_core_config);
    uint32_t compiler;
    double resident;
    if (occ_waves_per_simd(dev, k, &compiler, &resident) == OCC_OK) {
        doc_ku64(j, "waves_per_simd", compiler);
        doc_knum(j, "waves_per_simd_resident", resident);
    }
    doc_end_object(j);
}

void report_gpu_doc(doc *j, const occ_gpu *g, uint64_t cooperative_max)
{
    doc_key(j, "gpu");
    doc_begin_object(j);
    doc_ku64(j, "work_groups", g->work_groups);
    doc_ku64(j, "thread_contexts_needed", g->contexts_needed);
    doc_ku64(j, "thread_contexts", g->contexts_total);
    doc_ku64(j, "wave_capacity", g->wave_capacity);
    doc_ku64(j, "waves", g->waves);
    doc_key(j, "wave_occupancy");
    doc_begin_array(j);
    /* full waves are identical: list at most the first and the last */
    if (g->full_waves && g->full_waves < g->waves)
        doc_num(j, g->full_wave_occupancy);
    else if (g->full_waves > 1)
        doc_num(j, g->full_wave_occupancy);
    doc_num(j, g->last_wave_occupancy);
    doc_end_array(j);
    doc_ku64(j, "full_waves", g->full_waves);
    doc_knum(j, "full_wave_occupancy", g->full_wave_occupancy);
    doc_ku64(j, "last_wave_work_groups", g->last_wave_work_groups);
    doc_knum(j, "last_wave_occupancy", g->last_wave_occupancy);
    doc_knum(j, "waves_average_occupancy", g->average_occupancy);
    doc_knum(j, "intel_calculator_occupancy", g->intel_calculator_occupancy);
    doc_ku64(j, "cooperative_max", cooperative_max);
    if (g->cluster_size) {
        doc_ku64(j, "cluster_size", g->cluster_size);
        doc_ku64(j, "max_active_clusters", g->max_active_clusters);
    }
    doc_end_object(j);
}

/* The largest cluster size that has a cluster resident (the driver's
 * cuOccupancyMaxPotentialClusterSize); 0 when none. */
static uint32_t potential_cluster_size(const occ_device *dev, const occ_kernel *k)
{
    uint32_t size = 0;
    occ_max_potential_cluster_size(dev, k, &size);
    return size;
}

void report_clusters_text(FILE *f, const occ_device *dev, const occ_kernel *k, const occ_residency *r,
                          const occ_clusters *cl)
{
    const occ_device_desc *d = occ_device_describe(dev);
    fprintf(f, "\nClusters of %u work-group%s (%ux%ux%u%s; each on distinct %ss of one GPC)\n", cl->size,
            plural(cl->size), k->cluster[0] ? k->cluster[0] : 1, k->cluster[1] ? k->cluster[1] : 1,
            k->cluster[2] ? k->cluster[2] : 1, k->cluster_non_portable ? ", non-portable allowed" : "",
            d->core_name);
    fprintf(f, "  %-22s %llu at once (%llu work-groups) on %u %ss of %u of %u GPCs\n", "active clusters",
            (unsigned long long)cl->max_active_clusters,
            (unsigned long long)(cl->max_active_clusters * cl->size), cl->cores_used, d->core_name,
            cl->gpcs_used, d->n_gpcs);
    if (r->launchable && r->resident_wgs > cl->work_groups_per_core) {
        fprintf(f, "  %-22s %u per %s in a cluster launch, though %u fit\n", "work-groups", cl->work_groups_per_core,
                d->core_name, r->resident_wgs);
        fprintf(f, "  %-22s %.1f %%  (%u of %u thread contexts per %s busy in the cluster launch)\n", "occupancy",
                pct(cl->occupancy), cl->contexts_used, r->contexts_per_core, d->core_name);
    }
    if (cl->cores_used < d->cores)
        fprintf(f, "  %-22s %u %ss in GPCs smaller than %u take no cluster\n", "idle", d->cores - cl->cores_used,
                d->core_name, cl->size);
    uint64_t slots = (uint64_t)cl->cores_used * cl->work_groups_per_core;
    if (slots > cl->max_active_clusters * cl->size)
        fprintf(f, "  %-22s %llu work-group slot%s of those GPCs left over (a GPC's slots are not a "
                   "multiple of %u)\n", "rounding", (unsigned long long)(slots - cl->max_active_clusters * cl->size),
                plural(slots - cl->max_active_clusters * cl->size), cl->size);
    fprintf(f, "  %-22s %u (the largest with a cluster resident, up to %u)\n", "largest size",
            potential_cluster_size(dev, k),
            k->cluster_non_portable ? d->cluster_max_size_non_portable : d->cluster_max_size);
}

void report_clusters_doc(doc *j, const occ_device *dev, const occ_kernel *k, const occ_clusters *cl)
{
    doc_key(j, "clusters");
    doc_begin_object(j);
    doc_key(j, "dims");
    doc_begin_array(j);
    for (int i = 0; i < 3; i++)
        doc_u64(j, k->cluster[i] ? k->cluster[i] : 1);
    doc_end_array(j);
    doc_ku64(j, "size", cl->size);
    doc_kbool(j, "non_portable", k->cluster_non_portable);
    doc_ku64(j, "work_groups_per_core", cl->work_groups_per_core);
    doc_ku64(j, "max_active_clusters", cl->max_active_clusters);
    doc_ku64(j, "cores_used", cl->cores_used);
    doc_ku64(j, "gpcs_used", cl->gpcs_used);
    doc_ku64(j, "contexts_used", cl->contexts_used);
    doc_knum(j, "occupancy", cl->occupancy);
    doc_ku64(j, "max_potential_size", potential_cluster_size(dev, k));
    doc_end_object(j);
}

void report_next_steps_doc(doc *j, const occ_device *dev, const occ_kernel *k)
{
    static const char *const names[OCC_INPUT_COUNT] = {"work_group_size", "sub_group", "slm",
                                                       "grf", "registers", "carveout", "barrier"};
    occ_next_step steps[OCC_INPUT_COUNT];
    size_t n = occ_next_steps(dev, k, steps, OCC_INPUT_COUNT);
    doc_key(j, "next_steps");
    doc_begin_array(j);
    for (size_t i = 0; i < n && i < OCC_INPUT_COUNT; i++) {
        char line[256];
        occ_next_step_format(dev, &steps[i], line, sizeof line);
        doc_begin_object(j);
        doc_kstr(j, "input", names[steps[i].input]);
        doc_ku64(j, "value", steps[i].value);
        doc_kbool(j, "at_most", steps[i].at_most);
        doc_ku64(j, "resident_work_groups", steps[i].resident_wgs);
        doc_knum(j, "occupancy", steps[i].occupancy);
        doc_kstr(j, "text", line);
        doc_end_object(j);
    }
    doc_end_array(j);
}
