/* occcalc kernels FILE: every kernel of a compiled file with the resources
 * the compiler chose, and what they mean for occupancy on a device. */
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "commands.h"
#include "kernel_file.h"
#include "report.h"

/* Work-group sizes shown beside the best one. */
static const uint32_t common_sizes[] = {64, 128, 256, 512, 1024};
#define N_COMMON (sizeof common_sizes / sizeof common_sizes[0])

typedef struct sized {
    uint32_t wg;          /* work-items; 0 = not applicable */
    bool launchable;
    uint32_t resident;
    double occupancy;
} sized;

/* Whether every launch of the kernel is in clusters (its file states them). */
static bool compiled_clusters(const occ_kernel_info *ki)
{
    occ_kernel k;
    occ_kernel_init(&k);
    occ_kernel_apply_info(&k, ki, 0);
    return occ_kernel_cluster_size(&k) != 0;
}

/* A launch of k: its residency, or for a kernel compiled with clusters, the
 * residency under the cluster cap (none where the device takes no cluster
 * launch or no GPC holds a cluster). */
static sized launch_of(const occ_device *dev, const occ_kernel *k)
{
    occ_residency r;
    occ_residency_init(&r);
    occ_residency_compute(dev, k, &r);
    sized s = {(uint32_t)occ_kernel_wg_size(k), r.launchable, r.resident_wgs, r.occupancy};
    if (cli_is_cluster_launch(k)) {
        occ_clusters c;
        bool ok = occ_cluster_compute(dev, k, &c, NULL) == OCC_OK && c.max_active_clusters;
        s.launchable &= ok;
        s.resident = ok ? c.work_groups_per_core : 0;
        s.occupancy = ok ? c.occupancy : 0.0;
    }
    return s;
}

static sized evaluate(const occ_device *dev, const occ_kernel_info *ki, uint32_t wg)
{
    occ_kernel k;
    occ_kernel_init(&k);
    occ_kernel_apply_info(&k, ki, 0);
    k.wg[0] = wg;
    k.wg[1] = k.wg[2] = 1;
    return launch_of(dev, &k);
}

/* The largest work-group a kernel accepts on a device. */
static uint32_t max_size(const occ_device *dev, const occ_kernel_info *ki)
{
    uint32_t m = occ_device_describe(dev)->max_work_group_size;
    if (ki->known & OCC_KINFO_MAX_WG && ki->max_wg_size && ki->max_wg_size < m)
        m = ki->max_wg_size;
    return m;
}

/* The best 1-D work-group size: highest occupancy, the smallest size that
 * reaches it (more work-groups for the same occupancy balance better).  A
 * required work-group size is the only candidate. */
static sized best_size(const occ_device *dev, const occ_kernel_info *ki)
{
    if (ki->known & OCC_KINFO_REQD_WG && ki->reqd_wg[0]) {
        occ_kernel k;
        occ_kernel_init(&k);
        occ_kernel_apply_info(&k, ki, 0);
        return launch_of(dev, &k);
    }
    occ_kernel k;
    occ_kernel_init(&k);
    occ_kernel_apply_info(&k, ki, 0);
    uint32_t step = k.sub_group ? k.sub_group : occ_device_describe(dev)->sub_group_sizes[0];
    sized best = {0, false, 0, -1.0};
    for (uint32_t wg = step; wg <= max_size(dev, ki); wg += step) {
        sized s = evaluate(dev, ki, wg);
        if (s.launchable && s.occupancy > best.occupancy + 1e-12)
            best = s;
    }
    if (best.wg == 0)
        best = (sized){0, false, 0, 0.0};
    return best;
}

/* The vendor's words for a kernel (occ_vendor_words); a vendor libocc does
 * not know gets plain ones. */
static const occ_vendor_words *words(const occ_kernel_info *ki)
{
    static const occ_vendor_words plain = {
        .struct_size = sizeof plain, .word = "unknown", .name = "unknown vendor", .register_input = "regs",
        .register_input_text = "registers", .dispatch_evidence = "", .kernel_local_memory = "local",
        .kernel_private_memory = "private", .spill_note = "",
    };
    const occ_vendor_words *w = occ_vendor_words_of(ki->vendor);
    return w ? w : &plain;
}

static void resources_text(char *buf, size_t size, const occ_kernel_info *ki)
{
    char slm[32], priv[32], spill[32];
    occ_format_bytes(slm, sizeof slm, ki->static_slm, false);
    occ_format_bytes(priv, sizeof priv, ki->private_bytes, false);
    occ_format_bytes(spill, sizeof spill, ki->spill_bytes, false);
    size_t n = 0;
#define ADD(...) n += (size_t)snprintf(buf + n, n < size ? size - n : 0, __VA_ARGS__)
    buf[0] = '\0';
    if (ki->known & OCC_KINFO_SIMD)
        ADD("SIMD%u", ki->simd);
    if (ki->known & OCC_KINFO_SUB_GROUP && ki->required_sub_group)
        ADD(" (required)");
    if (ki->known & OCC_KINFO_GRF)
        ADD(", GRF %u", ki->grf);
    if (ki->known & OCC_KINFO_REGS)
        ADD(", %u regs", ki->regs_per_thread);
    if (ki->known & OCC_KINFO_SLM)
        ADD(", %s %s", words(ki)->kernel_local_memory, slm);
    if (ki->known & OCC_KINFO_SLM_ARGS && ki->slm_args)
        ADD(" + %u SLM argument%s", ki->slm_args, ki->slm_args > 1 ? "s" : "");
    if (ki->known & OCC_KINFO_BARRIERS)
        ADD(", %s", ki->barriers ? "barrier" : "no barrier");
    if (ki->known & OCC_KINFO_REQD_WG && ki->reqd_wg[0])
        ADD(", required work-group %u,%u,%u", ki->reqd_wg[0], ki->reqd_wg[1], ki->reqd_wg[2]);
    if (ki->known & OCC_KINFO_MAX_WG && ki->max_wg_size)
        ADD(", at most %u work-items", ki->max_wg_size);
    if (ki->known & OCC_KINFO_CLUSTER)
        ADD(", clusters of %ux%ux%u", ki->cluster[0], ki->cluster[1], ki->cluster[2]);
    if (ki->known & OCC_KINFO_PRIVATE && ki->private_bytes)
        ADD(", %s %s", words(ki)->kernel_private_memory, priv);
    if (ki->known & OCC_KINFO_SPILL && ki->spill_bytes)
        ADD(", spill %s", spill);
#undef ADD
}

static void spill_warning(const char *path, const occ_kernel_info *ki)
{
    char b[32];
    if (ki->known & OCC_KINFO_SPILL && ki->spill_bytes) {
        occ_format_bytes(b, sizeof b, ki->spill_bytes, false);
        fprintf(stderr, "occcalc: warning: %s: kernel ", path);
        kernel_print_name(stderr, ki->name);
        fprintf(stderr, " spills %s per thread%s\n", b, words(ki)->spill_note);
    } else if (words(ki)->private_memory_warns && ki->known & OCC_KINFO_PRIVATE && ki->private_bytes) {
        occ_format_bytes(b, sizeof b, ki->private_bytes, false);
        fprintf(stderr, "occcalc: warning: %s: kernel ", path);
        kernel_print_name(stderr, ki->name);
        fprintf(stderr, " uses %s of local memory per thread (stack, local arrays or spills)\n",
                b);
    }
}

/* A resource the file may state: its value, or null. */
static void known_u64(doc *j, const occ_kernel_info *ki, uint32_t bit, const char *key, uint64_t v)
{
    doc_key(j, key);
    if (ki->known & bit)
        doc_u64(j, v);
    else
        doc_null(j);
}

/* name, vendor (null: no device model), format, target */
static void kernel_doc_head(doc *j, const occ_kernel_info *ki)
{
    const occ_vendor_words *w = occ_vendor_words_of(ki->vendor);
    doc_begin_object(j);
    doc_kstr(j, "name", ki->name);
    doc_kstr(j, "mangled", ki->mangled);
    doc_key(j, "vendor");
    if (w)
        doc_str(j, w->word);
    else
        doc_null(j);
    doc_kstr(j, "format", occ_kernel_format_name(ki->format));
    doc_kstr(j, "target", ki->target);
}

static void reqd_wg_doc(doc *j, const occ_kernel_info *ki)
{
    doc_key(j, "required_work_group_size");
    if (ki->known & OCC_KINFO_REQD_WG && ki->reqd_wg[0]) {
        doc_begin_array(j);
        for (int d = 0; d < 3; d++)
            doc_u64(j, ki->reqd_wg[d]);
        doc_end_array(j);
    } else
        doc_null(j);
}

/* Compiled cluster dimensions, only where the file states them. */
static void cluster_doc(doc *j, const occ_kernel_info *ki)
{
    if (!(ki->known & OCC_KINFO_CLUSTER))
        return;
    doc_key(j, "cluster");
    doc_begin_array(j);
    for (int d = 0; d < 3; d++)
        doc_u64(j, ki->cluster[d]);
    doc_end_array(j);
}

/* The document's head (schema, file, format, note) and the text's. */
static void file_doc_head(doc *j, const char *path, const occ_kernel_set *set)
{
    doc_init(j);
    doc_begin_object(j);
    doc_kstr(j, "schema", OCC_JSON_SCHEMA);
    doc_kstr(j, "file", path);
    doc_kstr(j, "format", occ_kernel_format_name(occ_kernel_set_format(set)));
    doc_kstr(j, "note", occ_kernel_set_note(set));
}

static void file_text_head(const char *path, const occ_kernel_set *set)
{
    size_t n = occ_kernel_set_count(set);
    printf("File     %s: %s, %zu kernel%s\n", path,
           occ_kernel_format_name(occ_kernel_set_format(set)), n, n == 1 ? "" : "s");
    if (*occ_kernel_set_note(set))
        printf("         %s\n", occ_kernel_set_note(set));
}

static void kernel_doc(doc *j, const occ_device *dev, const occ_kernel_info *ki)
{
    kernel_doc_head(j, ki);
    doc_key(j, "resources");
    doc_begin_object(j);
#define KU(bit, key, val) known_u64(j, ki, bit, key, val)
    KU(OCC_KINFO_SIMD, "simd", ki->simd);
    KU(OCC_KINFO_SUB_GROUP, "required_sub_group", ki->required_sub_group);
    KU(OCC_KINFO_GRF, "grf", ki->grf);
    KU(OCC_KINFO_REGS, "registers_per_thread", ki->regs_per_thread);
    KU(OCC_KINFO_SLM, "static_slm_bytes", ki->static_slm);
    KU(OCC_KINFO_SLM_ARGS, "slm_arguments", ki->slm_args);
    KU(OCC_KINFO_BARRIERS, "barriers", ki->barriers);
    KU(OCC_KINFO_MAX_WG, "max_work_group_size", ki->max_wg_size);
    KU(OCC_KINFO_PRIVATE, "private_bytes_per_thread", ki->private_bytes);
    KU(OCC_KINFO_SPILL, "spill_bytes_per_thread", ki->spill_bytes);
#undef KU
    reqd_wg_doc(j, ki);
    cluster_doc(j, ki);
    doc_end_object(j);
    sized best = best_size(dev, ki);
    doc_key(j, "best");
    if (best.wg) {
        doc_begin_object(j);
        doc_ku64(j, "work_group_size", best.wg);
        doc_ku64(j, "resident_work_groups", best.resident);
        doc_knum(j, "occupancy", best.occupancy);
        doc_end_object(j);
    } else
        doc_null(j);
    doc_key(j, "sizes");
    doc_begin_array(j);
    uint32_t top = max_size(dev, ki);
    for (size_t i = 0; i < N_COMMON && !(ki->known & OCC_KINFO_REQD_WG && ki->reqd_wg[0]); i++) {
        if (common_sizes[i] > top)
            break;
        sized s = evaluate(dev, ki, common_sizes[i]);
        doc_begin_object(j);
        doc_ku64(j, "work_group_size", s.wg);
        doc_kbool(j, "launchable", s.launchable);
        doc_ku64(j, "resident_work_groups", s.resident);
        doc_knum(j, "occupancy", s.occupancy);
        doc_end_object(j);
    }
    doc_end_array(j);
    doc_end_object(j);
}

static void kernel_row(const occ_device *dev, const occ_kernel_info *ki)
{
    sized best = best_size(dev, ki);
    if (best.wg)
        printf("%5u %6.1f %%", best.wg, pct(best.occupancy));
    else
        printf("%5s %8s", "-", "cannot");
    uint32_t top = max_size(dev, ki);
    bool fixed = ki->known & OCC_KINFO_REQD_WG && ki->reqd_wg[0];
    for (size_t i = 0; i < N_COMMON; i++) {
        if (fixed || common_sizes[i] > top) {
            printf(" %7s", "-");
            continue;
        }
        sized s = evaluate(dev, ki, common_sizes[i]);
        if (s.launchable)
            printf(" %5.1f %%", pct(s.occupancy));
        else
            printf(" %7s", "no");
    }
    char res[512];
    resources_text(res, sizeof res, ki);
    fputs("  ", stdout);
    kernel_print_name(stdout, ki->name);
    printf("\n      %s\n", res);
}

/* Kernels of a target libocc has no device model for (AMD code objects
 * today, vendor 0): what the file states, with no occupancy.  Field by
 * field from the known bits, so that nothing here names a vendor. */
static bool modelled(const occ_kernel_set *set)
{
    return occ_vendor_words_of(occ_kernel_set_get(set, 0)->vendor) != NULL;
}

static void register_text(char *buf, size_t size, const occ_kernel_info *ki)
{
    char lds[32], scratch[32];
    occ_format_bytes(lds, sizeof lds, ki->static_slm, false);
    occ_format_bytes(scratch, sizeof scratch, ki->private_bytes, false);
    size_t n = 0;
#define ADD(...) n += (size_t)snprintf(buf + n, n < size ? size - n : 0, __VA_ARGS__)
    buf[0] = '\0';
    ADD("%s", ki->target);
    if (ki->known & OCC_KINFO_SIMD)
        ADD(", wave%u", ki->simd);
    if (ki->known & OCC_KINFO_WGP_MODE)
        ADD(", %s mode", ki->wgp_mode ? "WGP" : "CU");
    if (ki->known & OCC_KINFO_AMD_REGS) {
        ADD(", %u VGPRs", ki->vgprs);
        if (ki->agprs)
            ADD(", %u AGPRs", ki->agprs);
        ADD(", %u SGPRs", ki->sgprs);
    }
    if (ki->known & OCC_KINFO_SLM)
        ADD(", LDS %s", lds);
    if (ki->known & OCC_KINFO_PRIVATE && ki->private_bytes)
        ADD(", scratch %s", scratch);
    if (ki->known & OCC_KINFO_DYNAMIC_STACK && ki->dynamic_stack)
        ADD(" (dynamic stack)");
    if (ki->known & OCC_KINFO_REG_SPILLS && (ki->vgpr_spills || ki->sgpr_spills))
        ADD(", spills %u VGPRs %u SGPRs", ki->vgpr_spills, ki->sgpr_spills);
    if (ki->known & OCC_KINFO_REQD_WG && ki->reqd_wg[0])
        ADD(", required work-group %u,%u,%u", ki->reqd_wg[0], ki->reqd_wg[1], ki->reqd_wg[2]);
    if (ki->known & OCC_KINFO_MAX_WG && ki->max_wg_size)
        ADD(", at most %u work-items", ki->max_wg_size);
    if (ki->known & OCC_KINFO_CLUSTER)
        ADD(", clusters of %ux%ux%u", ki->cluster[0], ki->cluster[1], ki->cluster[2]);
#undef ADD
}

static void register_doc(doc *j, const occ_kernel_info *ki)
{
    kernel_doc_head(j, ki);
    doc_key(j, "resources");
    doc_begin_object(j);
#define KU(bit, key, val) known_u64(j, ki, bit, key, val)
    KU(OCC_KINFO_SIMD, "wave_size", ki->simd);
    KU(OCC_KINFO_AMD_REGS, "vgprs", ki->vgprs);
    KU(OCC_KINFO_AMD_REGS, "agprs", ki->agprs);
    KU(OCC_KINFO_AMD_REGS, "sgprs", ki->sgprs);
    KU(OCC_KINFO_REG_SPILLS, "vgpr_spills", ki->vgpr_spills);
    KU(OCC_KINFO_REG_SPILLS, "sgpr_spills", ki->sgpr_spills);
    KU(OCC_KINFO_SLM, "lds_bytes", ki->static_slm);
    KU(OCC_KINFO_PRIVATE, "scratch_bytes_per_work_item", ki->private_bytes);
    KU(OCC_KINFO_MAX_WG, "max_flat_work_group_size", ki->max_wg_size);
#undef KU
    doc_key(j, "dynamic_stack");
    if (ki->known & OCC_KINFO_DYNAMIC_STACK)
        doc_bool(j, ki->dynamic_stack != 0);
    else
        doc_null(j);
    doc_key(j, "wgp_mode");
    if (ki->known & OCC_KINFO_WGP_MODE)
        doc_bool(j, ki->wgp_mode != 0);
    else
        doc_null(j);
    reqd_wg_doc(j, ki);
    doc_end_object(j);
    doc_end_object(j);
}

static int list_unmodelled(const char *path, const occ_kernel_set *set, out_format format)
{
    size_t n = occ_kernel_set_count(set);
    if (format != OUT_TEXT) {
        doc j;
        file_doc_head(&j, path, set);
        doc_key(&j, "device");
        doc_null(&j);
        doc_begin_table(&j, "kernels");
        for (size_t i = 0; i < n; i++)
            register_doc(&j, occ_kernel_set_get(set, i));
        doc_end_array(&j);
        doc_end_object(&j);
        int rc = render(&j, format);
        doc_free(&j);
        return rc;
    }
    file_text_head(path, set);
    printf("Device   none: no device model for %s yet, resources only\n\n",
           occ_kernel_set_get(set, 0)->target);
    for (size_t i = 0; i < n; i++) {
        const occ_kernel_info *ki = occ_kernel_set_get(set, i);
        char res[512];
        register_text(res, sizeof res, ki);
        printf("%s\n      %s\n", ki->name, res);
    }
    return EXIT_OK;
}

static void kernels_help(void)
{
    puts("usage: occcalc kernels FILE [--device D] [--json | --jsonl | --csv]\n\n"
         "Lists the kernels of a compiled file (cubin, fatbin, PTX, zebin, Intel patch-token\n"
         "binary, SPIR-V, OpenCL C, AMDGPU code object, offload bundle) with the resources\n"
         "the compiler chose, and their occupancy on the device: at the best 1-D\n"
         "work-group size and at 64..1024 (AMD: resources only, no device model yet).\n"
         "Without --device an NVIDIA file is shown on the built-in profile of its\n"
         "architecture, any other file on the default device (tgl).  docs/kernels.md\n");
    cli_kernel_flags_help(stdout, CLI_KERNELS);
}

/* FILE: the one argument */
static int kernels_operand(void *ctx, const char *arg)
{
    const char **path = ctx;
    if (*path)
        return usage_error("kernels: one file at a time");
    *path = arg;
    return EXIT_OK;
}

int cmd_kernels(int argc, char **argv)
{
    const char *path = NULL;
    const cli_command cmd = {"kernels", CLI_KERNELS, NULL, "", NULL, &path, kernels_help, kernels_operand, NULL};
    cli_kernel c;
    cli_kernel_init(&c);
    int parsed = cli_parse(&cmd, argc, argv, &c);
    if (parsed)
        return parsed == CLI_DONE ? EXIT_OK : parsed;
    if (!path)
        return usage_error("kernels: name a kernel file");
    const char *device = c.device;

    occ_device *dev = NULL;
    int rc;
    if (device && (rc = cli_open_device(device, &dev)) != EXIT_OK)
        return rc;
    occ_kernel_set *set = NULL;
    rc = kernel_file_read(path, dev, &set);
    if (rc != EXIT_OK) {
        occ_device_free(dev);
        return rc;
    }
    if (!modelled(set)) {
        if (dev)
            fprintf(stderr, "occcalc: note: %s: no device model for %s kernels yet; --device is "
                            "not used\n", path, occ_kernel_set_get(set, 0)->target);
        rc = list_unmodelled(path, set, c.format);
        occ_kernel_set_free(set);
        occ_device_free(dev);
        return rc;
    }
    if (!dev) { /* the first kernel's device, or the first cluster kernel's: one that runs it */
        size_t first = 0;
        while (first + 1 < occ_kernel_set_count(set) && !compiled_clusters(occ_kernel_set_get(set, first)))
            first++;
        if (!compiled_clusters(occ_kernel_set_get(set, first)))
            first = 0;
        const char *name = occ_builtin_for_kernel(occ_kernel_set_get(set, first));
        if ((rc = cli_open_device(name ? name : OCC_DEFAULT_DEVICE, &dev)) != EXIT_OK) {
            occ_kernel_set_free(set);
            return rc;
        }
    }
    size_t n = occ_kernel_set_count(set);
    for (size_t i = 0; i < n; i++)
        spill_warning(path, occ_kernel_set_get(set, i));
    for (size_t i = 0; i < n && !occ_device_describe(dev)->n_gpcs; i++) {
        if (compiled_clusters(occ_kernel_set_get(set, i))) {
            fprintf(stderr, "occcalc: note: %s takes no cluster launches (its profile has no GPC data): "
                            "kernels compiled with clusters cannot launch on it (docs/clusters.md)\n",
                    occ_device_describe(dev)->name);
            break;
        }
    }
    if (c.format != OUT_TEXT) {
        doc j;
        file_doc_head(&j, path, set);
        report_device_doc(&j, dev);
        doc_begin_table(&j, "kernels");
        for (size_t i = 0; i < n; i++)
            kernel_doc(&j, dev, occ_kernel_set_get(set, i));
        doc_end_array(&j);
        doc_end_object(&j);
        rc = render(&j, c.format);
        doc_free(&j);
    } else {
        file_text_head(path, set);
        report_device_text(stdout, dev, occ_device_describe(dev)->default_grf);
        printf("\n%5s %8s", "BEST", "OCC");
        for (size_t i = 0; i < N_COMMON; i++)
            printf(" %7u", common_sizes[i]);
        printf("  KERNEL\n");
        for (size_t i = 0; i < n; i++)
            kernel_row(dev, occ_kernel_set_get(set, i));
    }
    occ_kernel_set_free(set);
    occ_device_free(dev);
    return rc;
}
