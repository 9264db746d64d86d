/* occcalc trace: rendering a trace (docs/trace.md). */
#include "trace_report.h"

#include <inttypes.h>
#include <stdint.h>
#include <string.h>

#include "advise_cli.h"
#include "args.h"
#include "doc.h"
#include "render.h"
#include "report.h"

#define TRACE_SCHEMA "occ-trace/1"

static const char *api_name(occ_trace_api a) { return a == OCC_TRACE_LEVEL_ZERO ? "Level Zero" : "CUDA"; }

static const occ_device *profile_of(const occ_trace *t, const occ_trace_kernel *k)
{
    const occ_trace_device *d = occ_trace_device_at(t, k->device);
    return d ? d->profile : NULL;
}

static const occ_trace_config *config_of(const occ_trace *t, const occ_trace_kernel *k, size_t i)
{
    return occ_trace_config_at(t, k->first_config + i);
}

/* ---- text ---------------------------------------------------------------------------- */

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

static void fmt_time(char *buf, size_t size, uint64_t ns, uint64_t timed)
{
    if (!timed)
        snprintf(buf, size, "-");
    else if (ns >= 10000000)
        snprintf(buf, size, "%.1f ms", (double)ns / 1e6);
    else
        snprintf(buf, size, "%.1f us", (double)ns / 1e3);
}

static void text_resources(FILE *f, const occ_trace_kernel *k)
{
    char a[32], b[32];
    if (k->api == OCC_TRACE_LEVEL_ZERO) {
        occ_format_bytes(a, sizeof a, k->ze.slm_bytes, false);
        fprintf(f, "  [Level Zero: SIMD %u%s, SLM %s static", k->ze.simd,
                k->ze.required_sub_group ? " (required)" : "", a);
        occ_format_bytes(a, sizeof a, k->ze.private_bytes, false);
        occ_format_bytes(b, sizeof b, k->ze.spill_bytes, false);
        fprintf(f, ", private %s, spill %s, GRF %s]\n", a, b, k->ze.grf);
    } else {
        int shared = k->cuda.shared_static_bytes, local = k->cuda.local_bytes_per_thread;
        occ_format_bytes(a, sizeof a, (uint64_t)(shared > 0 ? shared : 0), false);
        occ_format_bytes(b, sizeof b, (uint64_t)(local > 0 ? local : 0), false);
        fprintf(f, "  [CUDA: %d registers, shared %s static, local %s per thread%s",
                k->cuda.registers, a, b, local > 0 ? " (spills or stack)" : "");
        if (k->cuda.carveout >= 0)
            fprintf(f, ", carveout %d %%", k->cuda.carveout);
        fputs("]\n", f);
    }
}

/* A launch in clusters: the model's clusters at once beside the driver's. */
static void text_clusters(FILE *f, const occ_trace_config *c)
{
    const uint32_t *s = c->model_kernel.cluster;
    fprintf(f, "      clusters of %ux%ux%u: ", s[0] ? s[0] : 1, s[1] ? s[1] : 1, s[2] ? s[2] : 1);
    if (c->have_clusters)
        fprintf(f, "%" PRIu64 " at once", c->clusters.max_active_clusters);
    else
        fputs("- (the profile has no GPC data)", f);
    if (c->driver_max_active_clusters >= 0 && !c->driver_clusters_mixed)
        fprintf(f, ", driver %d%s", c->driver_max_active_clusters,
                c->have_clusters && (uint64_t)c->driver_max_active_clusters == c->clusters.max_active_clusters
                    ? " (equal)"
                    : c->have_clusters ? " (differs)" : "");
    else
        fprintf(f, ", driver %s", c->driver_clusters_mixed ? "answered differently across launches" : "-");
    /* the cluster cap, where it holds fewer blocks than fit */
    if (c->have_clusters && c->residency.launchable && c->clusters.work_groups_per_core < c->residency.resident_wgs)
        fprintf(f, "; %u blocks per SM in clusters, %.1f %%", c->clusters.work_groups_per_core,
                100.0 * c->clusters.occupancy);
    fputc('\n', f);
}

static void text_config(FILE *f, const occ_trace *t, const occ_trace_config *c)
{
    char wg[48], mem[32], groups[64], occ[16] = "-", res[16] = "-", waves[24] = "-", avg[16] = "-";
    char lim[96] = "-", drv[16] = "", tm[24];
    fmt_wg(wg, sizeof wg, c->work_group);
    occ_format_bytes(mem, sizeof mem,
                     c->model_kernel.slm_bytes ? c->model_kernel.slm_bytes : c->dynamic_local_bytes,
                     false);
    if (c->grid_known)
        fmt_dims(groups, sizeof groups, c->grid);
    else
        snprintf(groups, sizeof groups, "indirect");
    if (c->predicted && c->residency.launchable) {
        snprintf(res, sizeof res, "%u", c->residency.resident_wgs);
        snprintf(occ, sizeof occ, "%.1f %%", pct(c->residency.occupancy));
        format_limited_by(lim, sizeof lim, c->residency.limited_by);
    } else if (c->predicted) {
        snprintf(res, sizeof res, "0");
        snprintf(lim, sizeof lim, "cannot launch");
    }
    if (c->have_gpu) {
        snprintf(waves, sizeof waves, "%" PRIu64, c->gpu.waves);
        snprintf(avg, sizeof avg, "%.1f %%", pct(c->gpu.average_occupancy));
    }
    if (occ_trace_kernel_at(t, c->kernel)->api == OCC_TRACE_CUDA) {
        if (c->driver_resident_blocks >= 0)
            snprintf(drv, sizeof drv, "%d%s", c->driver_resident_blocks, c->driver_mixed ? "*" : "");
        else
            snprintf(drv, sizeof drv, "-");
    }
    fmt_time(tm, sizeof tm, c->gpu_time_ns, c->gpu_executions);
    fprintf(f, "  %-11s %-13s %-12s %8" PRIu64 " %6s %9s %6s %9s  %-*s", wg, mem, groups, c->launches,
            res, occ, waves, avg, *drv ? 34 : 0, lim);
    if (*drv)
        fprintf(f, " %6s %10s", drv, tm);
    fputc('\n', f);
    if (c->outside_bound)
        fprintf(f, "      outside the kernel's bound: %s\n", c->cannot_launch);
    else if (c->predicted && !c->residency.launchable)
        fprintf(f, "      cannot launch: %s\n", c->cannot_launch);
    if (c->in_clusters)
        text_clusters(f, c);
}

/* The next step of each configuration that has one, most launched first
 * (at most 4 lines; JSON has all). */
static void text_next_steps(FILE *f, const occ_trace *t, const occ_trace_kernel *k)
{
    enum { SHOWN = 4 };
    const occ_trace_config *shown[SHOWN];
    size_t n = 0, more = 0;
    for (size_t q = 0; q < k->n_configs; q++) {
        const occ_trace_config *x = config_of(t, k, q);
        if (!x->next_step[0])
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
        fmt_wg(wg, sizeof wg, shown[i]->work_group);
        occ_format_bytes(mem, sizeof mem, shown[i]->model_kernel.slm_bytes, false);
        fprintf(f, "  next step (%s, %s): %s\n", wg, mem, shown[i]->next_step);
    }
    if (more)
        fprintf(f, "  (%zu more configuration%s with a next step: --json)\n", more, plural(more));
}

static void text_losses(FILE *f, const occ_trace_totals *s)
{
    if (s->dropped_launches || s->dropped_records) {
        fprintf(f, "records: %" PRIu64 " launch%s and %" PRIu64 " other record%s not recorded: ",
                s->dropped_launches, s->dropped_launches == 1 ? "" : "es", s->dropped_records,
                s->dropped_records == 1 ? "" : "s");
        if (s->stop_errno)
            fprintf(f, "a process stopped recording (%s)\n", strerror(s->stop_errno));
        else
            fputs("a process reached the 1 GiB of records it may write\n", f);
    }
    if (s->unreadable_lines)
        fprintf(f, "records: %" PRIu64 " unreadable line%s (a process killed while writing one)\n",
                s->unreadable_lines, plural(s->unreadable_lines));
}

static void text_launches(FILE *f, const occ_trace *t)
{
    fputs("\nlaunches (process, thread, kernel, kind, work-group, local memory, grid, "
          "resident, occupancy, driver)\n",
          f);
    for (size_t i = 0; i < occ_trace_launch_count(t); i++) {
        const occ_trace_launch *l = occ_trace_launch_at(t, i);
        const occ_trace_config *c = occ_trace_config_at(t, l->config);
        char wg[48], g[64];
        fmt_wg(wg, sizeof wg, l->work_group);
        if (l->grid_known)
            fmt_dims(g, sizeof g, l->grid);
        else
            snprintf(g, sizeof g, "indirect");
        fprintf(f, "  %ld %ld %s %s %s %" PRIu64 " %s", l->pid, l->tid,
                c ? occ_trace_kernel_at(t, c->kernel)->name : "?", l->kind, wg,
                c ? c->model_kernel.slm_bytes : l->dynamic_local_bytes, g);
        if (c && c->predicted)
            fprintf(f, " %u %.1f%%", c->residency.launchable ? c->residency.resident_wgs : 0,
                    pct(c->residency.occupancy));
        else
            fputs(" - -", f);
        if (l->driver_resident_blocks >= 0)
            fprintf(f, " %d", l->driver_resident_blocks);
        if (c && c->in_clusters) {
            fputs(" clusters ", f);
            c->have_clusters ? fprintf(f, "%" PRIu64, c->clusters.max_active_clusters) : fputs("-", f);
            l->driver_max_active_clusters >= 0 ? fprintf(f, "/%d", l->driver_max_active_clusters) : fputs("/-", f);
        }
        if (l->count > 1)
            fprintf(f, "  x%" PRIu64, l->count);
        fputc('\n', f);
    }
}

static void text_report(FILE *f, const occ_trace *t, const tr_options *o, const tr_program *p)
{
    const occ_trace_totals *s = occ_trace_totals_get(t);
    size_t nk = occ_trace_kernel_count(t), np = occ_trace_process_count(t);
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
    fprintf(f, "%zu kernel%s, %" PRIu64 " launch%s, %zu process%s, %zu thread%s\n", nk,
            nk == 1 ? "" : "s", s->launches, s->launches == 1 ? "" : "es", np,
            np == 1 ? "" : "es", s->threads, s->threads == 1 ? "" : "s");
    if (np > 1)
        for (size_t i = 0; i < np; i++) {
            const occ_trace_process *pp = occ_trace_process_at(t, i);
            fprintf(f, "  process %ld %s: %" PRIu64 " launch%s", pp->pid, pp->executable,
                    pp->launches, pp->launches == 1 ? "" : "es");
            if (pp->parent_traced)
                fprintf(f, " (child of %ld)", pp->ppid);
            fputc('\n', f);
        }
    for (size_t i = 0; i < occ_trace_device_count(t); i++)
        fprintf(f, "device: %s\n", occ_trace_device_at(t, i)->chosen);
    if (!nk) {
        if (np)
            fprintf(f, "no kernel launches were seen in the %zu traced process%s\n", np,
                    np == 1 ? "" : "es");
        else
            fputs("no kernel launches were seen: no process loaded the interposer\n", f);
    }
    for (size_t n = 0; n < nk; n++) {
        const occ_trace_kernel *k = occ_trace_kernel_at(t, n);
        const occ_device *dev = profile_of(t, k);
        char tm[24];
        fmt_time(tm, sizeof tm, k->gpu_time_ns, k->gpu_executions);
        fprintf(f, "\nkernel %s\n", k->name);
        text_resources(f, k);
        fprintf(f, "  %" PRIu64 " launch%s", k->launches, k->launches == 1 ? "" : "es");
        if (k->refused_launches)
            fprintf(f, " (%" PRIu64 " refused by the driver)", k->refused_launches);
        if (k->launches_outside_bound)
            fprintf(f, ", %" PRIu64 " outside the kernel's bound", k->launches_outside_bound);
        fprintf(f, ", %zu work-group size%s, %zu grid%s", k->work_group_sizes,
                k->work_group_sizes == 1 ? "" : "s", k->grids, k->grids == 1 ? "" : "s");
        if (k->gpu_executions)
            fprintf(f, ", GPU time %s", tm);
        fputc('\n', f);
        if (!dev) {
            fputs("  no prediction: no device profile (give --device)\n", f);
            continue;
        }
        const occ_device_desc *dd = occ_device_describe(dev);
        fprintf(f, "  %-11s %-13s %-12s %8s %6s %9s %6s %9s  %-*s", "work-group", dd->local_memory_name,
                "grid", "launches", dd->has_register_file ? "blk/SM" : "WG/core", "occupancy",
                "waves", "GPU avg", k->api == OCC_TRACE_CUDA ? 34 : 0, "limited by");
        if (k->api == OCC_TRACE_CUDA)
            fprintf(f, " %6s %10s", "driver", "GPU time");
        fputc('\n', f);
        for (size_t q = 0; q < k->n_configs; q++)
            text_config(f, t, config_of(t, k, q));
        text_next_steps(f, t, k);
    }
    fputs("\n", f);
    fprintf(f, "totals: %zu kernel%s, %" PRIu64 " launch%s", nk, plural(nk), s->launches,
            s->launches == 1 ? "" : "es");
    if (s->launches_of_unknown_kernels)
        fprintf(f, " (%" PRIu64 " of kernels not seen created)", s->launches_of_unknown_kernels);
    if (s->unresolved_indirect_launches)
        fprintf(f, ", %" PRIu64 " multi-kernel indirect launch%s not resolved",
                s->unresolved_indirect_launches, s->unresolved_indirect_launches == 1 ? "" : "es");
    if (s->launches_outside_bound)
        fprintf(f, ", %" PRIu64 " outside their kernel's bound", s->launches_outside_bound);
    if (s->gpu_executions) {
        char tm[24];
        fmt_time(tm, sizeof tm, s->gpu_time_ns, s->gpu_executions);
        fprintf(f, ", GPU time %s", tm);
    } else {
        fputs(", GPU time not measured", f);
    }
    fputs("\n", f);
    text_losses(f, s);
    if (s->warnings[0])
        fprintf(f, "warnings: %s\n", s->warnings);
    if (o->launches)
        text_launches(f, t);
}

/* ---- the result document (doc.h; JSON) ------------------------------------------------------------------------------ */

static void trace_dims_doc(doc *j, const char *key, const uint64_t v[3])
{
    doc_key(j, key);
    doc_begin_array(j);
    for (int i = 0; i < 3; i++)
        doc_u64(j, v[i]);
    doc_end_array(j);
}

static void trace_wg_doc(doc *j, const char *key, const uint32_t wg[3])
{
    uint64_t v[3] = {wg[0], wg[1], wg[2]};
    trace_dims_doc(j, key, v);
}

/* GPU time measured over some executions (null: none measured). */
static void trace_gpu_time_doc(doc *j, uint64_t ns, uint64_t executions)
{
    doc_key(j, "gpu_time_ns");
    executions ? doc_u64(j, ns) : doc_null(j);
    doc_ku64(j, "gpu_executions", executions);
}

static void trace_prediction_doc(doc *j, const occ_trace_config *c)
{
    doc_key(j, "prediction");
    if (!c->predicted) {
        doc_null(j);
        return;
    }
    const occ_residency *r = &c->residency;
    doc_begin_object(j);
    doc_kbool(j, "launchable", r->launchable);
    if (!r->launchable)
        doc_kstr(j, "reason", c->cannot_launch);
    doc_ku64(j, "sub_group", r->sub_group);
    doc_ku64(j, "local_memory_bytes", c->model_kernel.slm_bytes);
    doc_ku64(j, "resident_work_groups", r->launchable ? r->resident_wgs : 0);
    doc_knum(j, "occupancy", r->launchable ? r->occupancy : 0.0);
    doc_limited_by(j, "limited_by", r->launchable ? r->limited_by : 0);
    if (c->have_gpu) {
        doc_ku64(j, "work_groups", c->gpu.work_groups);
        doc_ku64(j, "waves", c->gpu.waves);
        doc_knum(j, "waves_average_occupancy", c->gpu.average_occupancy);
        doc_knum(j, "last_wave_occupancy", c->gpu.last_wave_occupancy);
    }
    doc_key(j, "next_step");
    c->next_step[0] ? doc_str(j, c->next_step) : doc_null(j);
    doc_end_object(j);
}

static void trace_program_doc(doc *j, const tr_program *p)
{
    doc_key(j, "program");
    doc_begin_object(j);
    if (p->replay) {
        doc_kstr(j, "replay", p->replay);
    } else {
        doc_key(j, "argv");
        doc_begin_array(j);
        for (char *const *a = p->argv; *a; a++)
            doc_str(j, *a);
        doc_end_array(j);
        doc_key(j, "exit_status");
        p->signaled ? doc_null(j) : doc_u64(j, (uint64_t)p->status);
        doc_key(j, "signal");
        p->signaled ? doc_u64(j, (uint64_t)p->status) : doc_null(j);
    }
    doc_end_object(j);
}

static void trace_totals_doc(doc *j, const occ_trace *t)
{
    const occ_trace_totals *s = occ_trace_totals_get(t);
    doc_key(j, "totals");
    doc_begin_object(j);
    doc_ku64(j, "kernels", s->kernels);
    doc_ku64(j, "launches", s->launches);
    doc_ku64(j, "launches_of_unknown_kernels", s->launches_of_unknown_kernels);
    doc_ku64(j, "unresolved_indirect_launches", s->unresolved_indirect_launches);
    doc_ku64(j, "launches_outside_bound", s->launches_outside_bound);
    doc_ku64(j, "processes", s->processes);
    doc_ku64(j, "threads", s->threads);
    doc_key(j, "gpu_time_ns");
    s->gpu_executions ? doc_u64(j, s->gpu_time_ns) : doc_null(j);
    doc_ku64(j, "unreadable_record_lines", s->unreadable_lines);
    doc_ku64(j, "dropped", s->dropped_launches);
    doc_ku64(j, "dropped_records", s->dropped_records);
    doc_key(j, "dropped_reason");
    if (s->dropped_launches || s->dropped_records)
        doc_str(j, s->stop_errno ? strerror(s->stop_errno) : "record cap");
    else
        doc_null(j);
    doc_kstr(j, "warnings", s->warnings);
    doc_end_object(j);
}

/* A launch in clusters: its shape, the model's clusters at once and the
 * driver's answer asked during the run (null: none, or it differed). */
static void trace_clusters_doc(doc *j, const occ_trace_config *x)
{
    uint32_t shape[3];
    for (int i = 0; i < 3; i++)
        shape[i] = x->model_kernel.cluster[i] ? x->model_kernel.cluster[i] : 1;
    trace_wg_doc(j, "cluster_shape", shape);
    doc_key(j, "max_active_clusters");
    x->have_clusters ? doc_u64(j, x->clusters.max_active_clusters) : doc_null(j);
    doc_key(j, "cluster_occupancy");
    x->have_clusters ? doc_num(j, x->clusters.occupancy) : doc_null(j);
    doc_key(j, "driver_max_active_clusters");
    x->driver_max_active_clusters >= 0 && !x->driver_clusters_mixed ? doc_i64(j, x->driver_max_active_clusters)
                                                                    : doc_null(j);
}

static void trace_kernel_doc(doc *j, const occ_trace *t, const occ_trace_kernel *k)
{
    const occ_device *dev = profile_of(t, k);
    doc_begin_object(j);
    doc_kstr(j, "name", k->name);
    doc_kstr(j, "api", api_name(k->api));
    doc_key(j, "profile");
    dev ? doc_str(j, occ_device_describe(dev)->name) : doc_null(j);
    doc_key(j, "resources");
    doc_begin_object(j);
    if (k->api == OCC_TRACE_LEVEL_ZERO) {
        doc_ku64(j, "simd", k->ze.simd);
        doc_ku64(j, "required_sub_group", k->ze.required_sub_group);
        doc_ku64(j, "slm_static_bytes", k->ze.slm_bytes);
        doc_ku64(j, "private_bytes", k->ze.private_bytes);
        doc_ku64(j, "spill_bytes", k->ze.spill_bytes);
        doc_kstr(j, "grf", k->ze.grf);
        trace_wg_doc(j, "required_work_group", k->required_work_group);
    } else {
        doc_key(j, "registers");
        doc_i64(j, k->cuda.registers);
        doc_key(j, "shared_static_bytes");
        doc_i64(j, k->cuda.shared_static_bytes);
        doc_key(j, "local_bytes_per_thread");
        doc_i64(j, k->cuda.local_bytes_per_thread);
        doc_key(j, "max_threads_per_block");
        doc_i64(j, k->cuda.max_threads_per_block);
        doc_key(j, "carveout_preference");
        doc_i64(j, k->cuda.carveout);
        if (k->cuda.cluster[0])
            trace_wg_doc(j, "cluster", k->cuda.cluster);
    }
    doc_end_object(j);
    doc_ku64(j, "launches", k->launches);
    doc_ku64(j, "refused_launches", k->refused_launches);
    doc_ku64(j, "launches_outside_bound", k->launches_outside_bound);
    doc_ku64(j, "work_group_sizes", k->work_group_sizes);
    doc_ku64(j, "grids", k->grids);
    trace_gpu_time_doc(j, k->gpu_time_ns, k->gpu_executions);
    doc_key(j, "configurations");
    doc_begin_array(j);
    for (size_t q = 0; q < k->n_configs; q++) {
        const occ_trace_config *x = config_of(t, k, q);
        doc_begin_object(j);
        trace_wg_doc(j, "work_group", x->work_group);
        doc_ku64(j, "dynamic_local_bytes", x->dynamic_local_bytes);
        if (x->grid_known)
            trace_dims_doc(j, "grid", x->grid);
        else
            doc_key(j, "grid"), doc_null(j);
        if ((uint64_t)x->cluster[0] * x->cluster[1] * x->cluster[2] > 1)
            trace_wg_doc(j, "cluster", x->cluster);
        doc_ku64(j, "launches", x->launches);
        doc_kbool(j, "outside_bound", x->outside_bound);
        trace_prediction_doc(j, x);
        if (k->api == OCC_TRACE_CUDA) {
            doc_key(j, "driver_resident_blocks");
            x->driver_resident_blocks >= 0 && !x->driver_mixed ? doc_i64(j, x->driver_resident_blocks)
                                                               : doc_null(j);
            if (x->in_clusters)
                trace_clusters_doc(j, x);
        }
        trace_gpu_time_doc(j, x->gpu_time_ns, x->gpu_executions);
        doc_end_object(j);
    }
    doc_end_array(j);
    /* a kernel created and never launched has no configuration to advise on */
    const occ_trace_config *w = occ_trace_config_at(t, k->advised_config);
    doc_key(j, "next_step");
    w && w->next_step[0] ? doc_str(j, w->next_step) : doc_null(j);
    doc_end_object(j);
}

static void trace_launch_doc(doc *j, const occ_trace *t, const occ_trace_launch *l)
{
    const occ_trace_config *c = occ_trace_config_at(t, l->config);
    doc_begin_object(j);
    doc_ku64(j, "pid", (uint64_t)l->pid);
    doc_ku64(j, "tid", (uint64_t)l->tid);
    doc_key(j, "kernel");
    c ? doc_str(j, occ_trace_kernel_at(t, c->kernel)->name) : doc_null(j);
    doc_kstr(j, "kind", l->kind);
    doc_ku64(j, "count", l->count);
    trace_wg_doc(j, "work_group", l->work_group);
    doc_ku64(j, "dynamic_local_bytes", l->dynamic_local_bytes);
    if (l->grid_known)
        trace_dims_doc(j, "grid", l->grid);
    else
        doc_key(j, "grid"), doc_null(j);
    doc_key(j, "result");
    doc_i64(j, l->result);
    doc_kbool(j, "outside_bound", c && c->outside_bound);
    if (c)
        trace_prediction_doc(j, c);
    if (l->driver_resident_blocks >= 0) {
        doc_key(j, "driver_resident_blocks");
        doc_i64(j, l->driver_resident_blocks);
    }
    if (c && c->in_clusters && c->have_clusters)
        doc_ku64(j, "max_active_clusters", c->clusters.max_active_clusters);
    if (l->driver_max_active_clusters >= 0) {
        doc_key(j, "driver_max_active_clusters");
        doc_i64(j, l->driver_max_active_clusters);
    }
    doc_end_object(j);
}

/* Launch i of the trace (with --launches), a row built when rendered. */
static void launch_row(doc *j, size_t i, const void *ctx)
{
    const occ_trace *t = ctx;
    trace_launch_doc(j, t, occ_trace_launch_at(t, i));
}

static bool trace_report_doc(FILE *f, const occ_trace *t, const tr_options *o, const tr_program *p,
                             out_format format)
{
    doc j;
    doc_init(&j);
    doc_begin_object(&j);
    doc_kstr(&j, "schema", TRACE_SCHEMA);
    trace_program_doc(&j, p);
    doc_key(&j, "processes");
    doc_begin_array(&j);
    for (size_t i = 0; i < occ_trace_process_count(t); i++) {
        const occ_trace_process *pp = occ_trace_process_at(t, i);
        doc_begin_object(&j);
        doc_ku64(&j, "pid", (uint64_t)pp->pid);
        doc_ku64(&j, "ppid", (uint64_t)pp->ppid);
        doc_kstr(&j, "executable", pp->executable);
        doc_ku64(&j, "launches", pp->launches);
        doc_end_object(&j);
    }
    doc_end_array(&j);
    doc_key(&j, "devices");
    doc_begin_array(&j);
    for (size_t i = 0; i < occ_trace_device_count(t); i++) {
        const occ_trace_device *d = occ_trace_device_at(t, i);
        doc_begin_object(&j);
        doc_key(&j, "profile");
        d->profile ? doc_str(&j, occ_device_describe(d->profile)->name) : doc_null(&j);
        doc_kstr(&j, "chosen", d->chosen);
        if (d->traced_name) {
            doc_kstr(&j, "api", api_name(d->api));
            doc_kstr(&j, "name", d->traced_name);
        }
        doc_end_object(&j);
    }
    doc_end_array(&j);
    trace_totals_doc(&j, t);
    doc_key(&j, "kernels");
    doc_begin_array(&j);
    for (size_t n = 0; n < occ_trace_kernel_count(t); n++)
        trace_kernel_doc(&j, t, occ_trace_kernel_at(t, n));
    doc_end_array(&j);
    if (o->launches) /* one row a launch, however many: built as written */
        doc_table_rows(&j, "launches", occ_trace_launch_count(t), launch_row, t);
    doc_end_object(&j);
    bool ok = render_to(&j, format, f) == EXIT_OK;
    doc_free(&j);
    return ok;
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

static void csv_row(FILE *f, const occ_trace *t, const occ_trace_config *c, const occ_trace_launch *l)
{
    const occ_trace_kernel *k = occ_trace_kernel_at(t, c->kernel);
    const occ_residency *r = &c->residency;
    char lim[96] = "";
    if (c->predicted && r->launchable)
        format_limited_by(lim, sizeof lim, r->limited_by);
    if (l)
        fprintf(f, "%ld,%ld,", l->pid, l->tid);
    csv_str(f, k->name);
    fprintf(f, ",%s,%u,%u,%u,%" PRIu64 ",", api_name(k->api), c->work_group[0], c->work_group[1],
            c->work_group[2], c->dynamic_local_bytes);
    if (c->grid_known)
        fprintf(f, "%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",", c->grid[0], c->grid[1], c->grid[2]);
    else
        fputs(",,,", f);
    fprintf(f, "%" PRIu64 ",", l ? l->count : c->launches);
    if (c->predicted)
        fprintf(f, "%" PRIu64 ",%u,%.6f,", c->model_kernel.slm_bytes,
                r->launchable ? r->resident_wgs : 0, r->launchable ? r->occupancy : 0.0);
    else
        fputs(",,,", f);
    if (c->have_gpu)
        fprintf(f, "%" PRIu64 ",%.6f,", c->gpu.waves, c->gpu.average_occupancy);
    else
        fputs(",,", f);
    csv_str(f, c->predicted && !r->launchable ? "cannot launch" : lim);
    fputc(',', f);
    csv_str(f, c->next_step);
    fputc(',', f);
    int drv = l ? l->driver_resident_blocks : (c->driver_mixed ? -1 : c->driver_resident_blocks);
    if (drv >= 0)
        fprintf(f, "%d", drv);
    fputc(',', f);
    if (!l && c->gpu_executions)
        fprintf(f, "%" PRIu64, c->gpu_time_ns);
    fprintf(f, ",%s\n", c->outside_bound ? "true" : "false");
}

static void csv_report(FILE *f, const occ_trace *t, const tr_options *o)
{
    if (o->launches)
        fputs("pid,tid,", f);
    fputs("kernel,api,wg_x,wg_y,wg_z,dynamic_local_bytes,grid_x,grid_y,grid_z,launches,"
          "local_bytes,resident_work_groups,occupancy,waves,waves_average_occupancy,limited_by,"
          "next_step,driver_resident_blocks,gpu_time_ns,outside_bound\n",
          f);
    if (o->launches) {
        for (size_t i = 0; i < occ_trace_launch_count(t); i++) {
            const occ_trace_launch *l = occ_trace_launch_at(t, i);
            const occ_trace_config *c = occ_trace_config_at(t, l->config);
            if (c)
                csv_row(f, t, c, l);
        }
        return;
    }
    for (size_t i = 0; i < occ_trace_config_count(t); i++)
        csv_row(f, t, occ_trace_config_at(t, i), NULL);
}

bool tr_report_write(const occ_trace *t, const tr_options *o, const tr_program *p, FILE *f)
{
    switch (o->format) {
    case TR_JSON:
    case TR_JSONL:
        if (!trace_report_doc(f, t, o, p, o->format == TR_JSON ? OUT_JSON : OUT_JSONL))
            return false;
        break;
    case TR_CSV: csv_report(f, t, o); break;
    default: text_report(f, t, o, p); break;
    }
    return fflush(f) == 0 && !ferror(f);
}
