/* Write a device description back out as a profile (docs/profiles.md). */
#include "common/internal.h"

#include <string.h>

/* Decode one UTF-8 sequence at s, its length in *len.  A byte that starts
 * no valid sequence decodes as itself (the loader accepts only valid UTF-8,
 * so that happens only for text from elsewhere). */
static uint32_t utf8_decode(const unsigned char *s, int *len)
{
    if (s[0] >= 0xC0 && s[0] < 0xE0 && (s[1] & 0xC0) == 0x80) {
        *len = 2;
        return ((uint32_t)(s[0] & 0x1F) << 6) | (s[1] & 0x3F);
    }
    if (s[0] >= 0xE0 && s[0] < 0xF0 && (s[1] & 0xC0) == 0x80 && (s[2] & 0xC0) == 0x80) {
        *len = 3;
        return ((uint32_t)(s[0] & 0x0F) << 12) | ((uint32_t)(s[1] & 0x3F) << 6) | (s[2] & 0x3F);
    }
    if (s[0] >= 0xF0 && s[0] < 0xF8 && (s[1] & 0xC0) == 0x80 && (s[2] & 0xC0) == 0x80 &&
        (s[3] & 0xC0) == 0x80) {
        *len = 4;
        return ((uint32_t)(s[0] & 0x07) << 18) | ((uint32_t)(s[1] & 0x3F) << 12) |
               ((uint32_t)(s[2] & 0x3F) << 6) | (s[3] & 0x3F);
    }
    *len = 1;
    return s[0] < 0x80 ? s[0] : 0xFFFD; /* stray byte: never one of the escaped ones */
}

/* A YAML double-quoted scalar that reads back to exactly the same text:
 * escape quotes, backslashes, C0 and C1 controls, DEL, the line and
 * paragraph separators (which libyaml would fold) and the non-characters. */
static void put_text(FILE *f, const char *text)
{
    const unsigned char *s = (const unsigned char *)text;
    fputc('"', f);
    while (*s) {
        int len;
        uint32_t c = utf8_decode(s, &len);
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", (int)c);
        else if (c < 0x20 || c == 0x7F || (c >= 0x80 && c <= 0x9F) || c == 0x2028 || c == 0x2029 ||
                 c == 0xFFFE || c == 0xFFFF)
            fprintf(f, "\\u%04X", (unsigned)c);
        else
            fwrite(s, 1, (size_t)len, f);
        s += len;
    }
    fputc('"', f);
}

static void put_bytes(FILE *f, uint64_t b)
{
    if (b && b % 1024 == 0)
        fprintf(f, "%lluK", (unsigned long long)(b / 1024));
    else
        fprintf(f, "%llu", (unsigned long long)b);
}

static void put_limit(FILE *f, uint32_t v)
{
    if (v == OCC_NO_LIMIT)
        fputs("none", f);
    else
        fprintf(f, "%u", v);
}

occ_status occ_device_write_yaml(const occ_device_desc *d, const char *const *sources,
                                 size_t n_sources, const char *evidence, FILE *f)
{
    if (!d || !f)
        return OCC_ERR_INVALID_ARGUMENT;
    fputs("schema: 1\nname: ", f);
    put_text(f, d->name);
    fprintf(f, "\nvendor: %s\nproduct: ", d->vendor == OCC_VENDOR_NVIDIA ? "nvidia" : "intel");
    put_text(f, d->product);
    fputs("\narchitecture: ", f);
    put_text(f, d->architecture);
    fprintf(f, "\nstatus: %s\nsources:\n", d->provisional ? "provisional" : "verified");
    if (n_sources == 0)
        fputs("  - \"written by libocc\"\n", f);
    for (size_t i = 0; i < n_sources; i++) {
        fputs("  - ", f);
        put_text(f, sources[i]);
        fputc('\n', f);
    }
    fputs("core:\n  name: ", f);
    put_text(f, d->core_name);
    fprintf(f, "\n  count: %u\n  vector_engines: %u\n  vector_engine_name: ", d->cores,
            d->engines_per_core);
    put_text(f, d->engine_name);
    fprintf(f, "\n  simd_width: %u\n  sub_group_sizes: [", d->simd_width);
    for (uint32_t i = 0; i < d->n_sub_group_sizes; i++)
        fprintf(f, "%s%u", i ? ", " : "", d->sub_group_sizes[i]);
    fputs("]\n  grf_modes:\n", f);
    for (uint32_t i = 0; i < d->n_grf_modes; i++)
        fprintf(f, "    - {registers: %u, threads_per_engine: %u}\n", d->grf_modes[i].registers,
                d->grf_modes[i].threads_per_engine);
    fprintf(f, "  default_grf: %u\n  max_work_group_size: %u\n  max_work_groups: %u\n  barriers: ",
            d->default_grf, d->max_work_group_size, d->max_work_groups_per_core);
    put_limit(f, d->barriers_per_core);
    fputs("\n  barriers_driver: ", f);
    put_limit(f, d->barriers_per_core_driver);
    fputs("\nlocal_memory:\n  name: ", f);
    put_text(f, d->local_memory_name);
    fputs("\n  per_core: ", f);
    put_bytes(f, d->slm_per_core);
    fputs("\n  max_per_work_group: ", f);
    put_bytes(f, d->slm_max_per_work_group);
    fputs("\n  reserved_per_work_group: ", f);
    put_bytes(f, d->slm_reserved_per_work_group);
    if (d->slm_granule) {
        fputs("\n  granule: ", f);
        put_bytes(f, d->slm_granule);
    } else {
        fputs("\n  steps: [", f);
        for (uint32_t i = 0; i < d->n_slm_steps; i++) {
            if (i)
                fputs(", ", f);
            put_bytes(f, d->slm_steps[i]);
        }
        fputc(']', f);
    }
    fputs("\n  carveouts: ", f);
    if (!d->n_carveouts)
        fputs("none", f);
    else {
        fputc('[', f);
        for (uint32_t i = 0; i < d->n_carveouts; i++) {
            if (i)
                fputs(", ", f);
            put_bytes(f, d->carveouts[i]);
        }
        fputc(']', f);
    }
    if (d->has_register_file)
        fprintf(f,
                "\nregisters:\n  per_core: %u\n  allocation_unit: %u\n  warp_allocation_granularity: %u\n"
                "  max_per_thread: %u\n  max_per_work_group: %u\n  partitions: %u\n",
                d->regs_per_core, d->reg_alloc_unit, d->reg_warp_granularity, d->reg_max_per_thread,
                d->reg_max_per_work_group, d->reg_partitions);
    else
        fputs("\nregisters: none\n", f);
    fprintf(f, "dispatch:\n  order: %s\n  partial_work_groups: %s\n  evidence: ",
            d->dispatch_order == OCC_DISPATCH_SPREAD ? "spread" : "pack",
            d->partial_dispatch ? "true" : "false");
    put_text(f, evidence && *evidence ? evidence : "not stated");
    fputc('\n', f);
    if (occ_device_has_timing(d)) {
        fprintf(f, "  refill_gap_ns: %.6g\n  core_interval_ns: %.6g\n"
                   "  core_interval_per_context_ns: %.6g\n  gpu_interval_ns: %.6g\n"
                   "  timing_evidence: ",
                d->refill_gap_s * 1e9, d->core_interval_s * 1e9, d->core_interval_per_context_s * 1e9,
                d->gpu_interval_s * 1e9);
        put_text(f, d->timing_evidence);
        fputc('\n', f);
    }
    return ferror(f) ? OCC_ERR_IO : OCC_OK;
}
