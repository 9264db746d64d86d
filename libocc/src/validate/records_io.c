/* Record files: one probe launch, replayable without a GPU.
 *
 *   occ-probe-records 1
 *   backend cuda                      (key, one space, value to the end of the line)
 *   ...                               (the keys written below; unknown keys are errors)
 *   profile 1234                      (byte count, then that many bytes of YAML profile)
 *   records 1000 1731000000000000     (count, base tick)
 *   0 - 17 17 - - 12 300544           (work-group, thread, core at start, core at end,
 *   ...                                engine, slot, start - base, end - base; '-' = unknown;
 *                                      a launch in clusters adds the record's cluster id)
 *   end
 * A launch in thread-block clusters adds " cluster=X,Y,Z non_portable=0|1" to
 * requested and actual and a driver_clusters line; other files are as before.
 */
#include "common/internal.h"
#include "occ/backend.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define MAGIC "occ-probe-records 1"

static bool clustered(const occ_kernel *k)
{
    return occ_kernel_cluster_size(k) != 0;
}

static void put_kernel(FILE *f, const char *key, const occ_kernel *k)
{
    fprintf(f, "%s wg=%u,%u,%u sg=%u slm=%llu barrier=%d grf=%u regs=%u carveout=%d", key,
            k->wg[0], k->wg[1], k->wg[2], k->sub_group, (unsigned long long)k->slm_bytes,
            k->barrier ? 1 : 0, k->grf, k->regs_per_thread, (int)k->carveout_pct);
    if (clustered(k))
        fprintf(f, " cluster=%u,%u,%u non_portable=%d", k->cluster[0], k->cluster[1], k->cluster[2],
                k->cluster_non_portable ? 1 : 0);
    fputc('\n', f);
}

static void put_id(FILE *f, uint32_t v)
{
    if (v == UINT32_MAX)
        fputs(" -", f);
    else
        fprintf(f, " %u", v);
}

/* Text fields are one line each: newlines become spaces. */
static void put_text(FILE *f, const char *key, const char *s)
{
    fprintf(f, "%s ", key);
    for (; *s; s++)
        fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
    fputc('\n', f);
}

occ_status occ_probe_file_write(FILE *f, const occ_backend_info *info, const occ_device_desc *desc,
                                const occ_probe_result *res)
{
    if (!f || !info || !desc || !res)
        return OCC_ERR_INVALID_ARGUMENT;
    char *yaml = NULL;
    size_t ylen = 0;
    FILE *m = open_memstream(&yaml, &ylen);
    if (!m)
        return OCC_ERR_NO_MEMORY;
    occ_status s = occ_device_write_yaml(desc, NULL, 0, NULL, m);
    fclose(m);
    if (s != OCC_OK) {
        free(yaml);
        return s;
    }
    fprintf(f, "%s\n", MAGIC);
    put_text(f, "backend", info->backend);
    put_text(f, "device", info->device);
    put_text(f, "driver", info->driver);
    put_text(f, "architecture", info->architecture);
    put_text(f, "bus_id", info->bus_id);
    put_text(f, "driver_query", info->driver_query);
    fprintf(f, "driver_per_device %d\n", info->driver_per_device ? 1 : 0);
    put_text(f, "kernel_name", res->kernel_name);
    put_kernel(f, "requested", &res->requested);
    put_kernel(f, "actual", &res->actual);
    put_text(f, "differences", res->differences);
    fprintf(f, "static_slm %u\ndynamic_slm %u\nlocal_bytes %u\ndriver_resident %d\n",
            res->static_slm, res->dynamic_slm, res->local_bytes, (int)res->driver_resident);
    bool in_clusters = clustered(&res->actual);
    if (in_clusters)
        fprintf(f, "driver_clusters %d\n", (int)res->driver_clusters);
    put_text(f, "driver_note", res->driver_note);
    fprintf(f, "work_groups %llu\n", (unsigned long long)res->work_groups);
    occ_c_numbers c = occ__c_numbers_begin();
    fprintf(f, "duration_s %.9g\ntick_seconds %.9g\ntimer_resolution_s %.9g\nwall_s %.9g\n",
            res->duration_s, res->tick_seconds, res->timer_resolution_s, res->wall_s);
    if (res->duration_spread_s > 0) /* only then: older files stay byte for byte */
        fprintf(f, "duration_spread_s %.9g\nseed %u\n", res->duration_spread_s, res->seed);
    occ__c_numbers_end(c);
    fprintf(f, "records_missing %u\nrecords_invalid %u\n", res->records_missing,
            res->records_invalid);
    fprintf(f, "profile %zu\n", ylen);
    fwrite(yaml, 1, ylen, f);
    free(yaml);
    uint64_t base = UINT64_MAX;
    for (size_t i = 0; i < res->n_records; i++)
        if (res->records[i].t_start < base)
            base = res->records[i].t_start;
    if (!res->n_records)
        base = 0;
    fprintf(f, "records %zu %llu\n", res->n_records, (unsigned long long)base);
    for (size_t i = 0; i < res->n_records; i++) {
        const occ_record *r = &res->records[i];
        fprintf(f, "%llu", (unsigned long long)r->work_group);
        put_id(f, r->thread);
        fprintf(f, " %u %u", r->core_start, r->core_end);
        put_id(f, r->engine);
        put_id(f, r->slot);
        fprintf(f, " %llu %llu", (unsigned long long)(r->t_start - base),
                (unsigned long long)(r->t_end - base));
        if (in_clusters)
            fprintf(f, " %u", r->cluster);
        fputc('\n', f);
    }
    fputs("end\n", f);
    return ferror(f) ? OCC_ERR_IO : OCC_OK;
}

/* ---- reading ------------------------------------------------------------------ */

typedef struct reader {
    FILE *f;
    const char *origin;
    unsigned line;
    char *buf;
    size_t cap;
    occ_diag *diag;
} reader;

static occ_status bad(reader *r, occ_status s, const char *key, const char *msg)
{
    return occ__diag(r->diag, s, r->origin, r->line, 0, key, "%s", msg);
}

/* Next line without its newline; NULL at end of file. */
static char *next_line(reader *r)
{
    ssize_t n = getline(&r->buf, &r->cap, r->f);
    if (n < 0)
        return NULL;
    r->line++;
    if (n && r->buf[n - 1] == '\n')
        r->buf[--n] = 0;
    return r->buf;
}

static bool parse_u64_field(const char *s, uint64_t *v)
{
    if (*s < '0' || *s > '9')
        return false;
    errno = 0;
    char *e;
    unsigned long long x = strtoull(s, &e, 10);
    if (errno || *e)
        return false;
    *v = x;
    return true;
}

static bool parse_kernel(const char *s, occ_kernel *k)
{
    unsigned w0, w1, w2, sg, bar, grf, regs, c0 = 0, c1 = 0, c2 = 0, np = 0;
    unsigned long long slm;
    int carve, used = 0, more = 0;
    if (sscanf(s, "wg=%u,%u,%u sg=%u slm=%llu barrier=%u grf=%u regs=%u carveout=%d%n", &w0, &w1,
               &w2, &sg, &slm, &bar, &grf, &regs, &carve, &used) != 9 || bar > 1)
        return false;
    if (s[used] && (sscanf(s + used, " cluster=%u,%u,%u non_portable=%u%n", &c0, &c1, &c2, &np, &more) != 4 ||
                    s[used + more] || !c0 || c0 > 1024 || c1 > 1024 || c2 > 1024 || np > 1))
        return false;
    occ_kernel_init(k);
    k->wg[0] = w0, k->wg[1] = w1, k->wg[2] = w2;
    k->sub_group = sg;
    k->slm_bytes = slm;
    k->barrier = bar;
    k->grf = grf;
    k->regs_per_thread = regs;
    k->carveout_pct = carve;
    k->cluster[0] = c0, k->cluster[1] = c1, k->cluster[2] = c2;
    k->cluster_non_portable = np;
    return true;
}

static void copy_text(char *dst, size_t size, const char *v)
{
    snprintf(dst, size, "%s", v);
}

static bool parse_id(const char *tok, uint32_t *v)
{
    if (strcmp(tok, "-") == 0) {
        *v = UINT32_MAX;
        return true;
    }
    uint64_t x;
    if (!parse_u64_field(tok, &x) || x >= UINT32_MAX)
        return false;
    *v = (uint32_t)x;
    return true;
}

static occ_status read_records(reader *r, const char *v, occ_probe_result *res)
{
    int fields = clustered(&res->actual) ? 9 : 8;
    unsigned long long n, base;
    int used = 0;
    if (sscanf(v, "%llu %llu%n", &n, &base, &used) != 2 || v[used])
        return bad(r, OCC_ERR_SCHEMA, "records", "expected 'records COUNT BASE'");
    if (n > (1ull << 31))
        return bad(r, OCC_ERR_VALUE, "records", "more than 2^31 records");
    res->records = malloc((n ? n : 1) * sizeof *res->records);
    if (!res->records)
        return bad(r, OCC_ERR_NO_MEMORY, "records", "out of memory");
    for (size_t i = 0; i < n; i++) {
        char *line = next_line(r);
        if (!line)
            return bad(r, OCC_ERR_PARSE, "records", "file ends inside the records");
        char *tok[10];
        int nt = 0;
        for (char *save = NULL, *t = strtok_r(line, " ", &save); t && nt < 10;
             t = strtok_r(NULL, " ", &save))
            tok[nt++] = t;
        occ_record *o = &res->records[i];
        memset(o, 0, sizeof *o);
        uint64_t wg, cs, ce, ts, te, cl = 0;
        if (nt != fields || (fields == 9 && (!parse_u64_field(tok[8], &cl) || cl >= UINT32_MAX)) ||
            !parse_u64_field(tok[0], &wg) || !parse_id(tok[1], &o->thread) ||
            !parse_u64_field(tok[2], &cs) || !parse_u64_field(tok[3], &ce) || cs >= UINT32_MAX ||
            ce >= UINT32_MAX || !parse_id(tok[4], &o->engine) || !parse_id(tok[5], &o->slot) ||
            !parse_u64_field(tok[6], &ts) || !parse_u64_field(tok[7], &te))
            return bad(r, OCC_ERR_PARSE, "records",
                       fields == 9 ? "a record of a launch in clusters is 'WG THREAD CORE_START "
                                     "CORE_END ENGINE SLOT START END CLUSTER'"
                                   : "a record is 'WG THREAD CORE_START CORE_END ENGINE SLOT START END'");
        if (te < ts)
            return bad(r, OCC_ERR_VALUE, "records", "record ends before it starts");
        o->work_group = wg;
        o->core_start = (uint32_t)cs;
        o->core_end = (uint32_t)ce;
        o->t_start = base + ts;
        o->t_end = base + te;
        o->cluster = (uint32_t)cl;
        res->n_records = i + 1;
    }
    char *line = next_line(r);
    if (!line || strcmp(line, "end") != 0)
        return bad(r, OCC_ERR_PARSE, NULL, "expected 'end' after the records");
    return OCC_OK;
}

occ_status occ_probe_file_read(FILE *f, const char *origin, occ_backend_info *info,
                               occ_device_desc *desc, occ_probe_result *res, occ_diag *diag)
{
    if (!f || !res)
        return OCC_ERR_INVALID_ARGUMENT;
    reader r = {f, origin ? origin : "<records>", 0, NULL, 0, diag};
    occ_backend_info in;
    memset(&in, 0, sizeof in);
    in.struct_size = sizeof in;
    occ_device_desc d;
    occ_device_desc_init(&d);
    occ_probe_result_init(res);
    occ_status s = OCC_OK;
    bool have_profile = false, have_records = false;
    char *line = next_line(&r);
    if (!line || strcmp(line, MAGIC) != 0) {
        s = bad(&r, OCC_ERR_PARSE, NULL, "not an occ record file (first line must be '" MAGIC "')");
        goto out;
    }
    while (!have_records && (line = next_line(&r))) {
        char *sp = strchr(line, ' ');
        const char *v = sp ? sp + 1 : "";
        if (sp)
            *sp = 0;
        const char *key = line;
        uint64_t u = 0;
        bool num = parse_u64_field(v, &u);
        double dv = occ__strtod_c(v, NULL);
        if (!strcmp(key, "backend"))
            copy_text(in.backend, sizeof in.backend, v);
        else if (!strcmp(key, "device"))
            copy_text(in.device, sizeof in.device, v);
        else if (!strcmp(key, "driver"))
            copy_text(in.driver, sizeof in.driver, v);
        else if (!strcmp(key, "architecture"))
            copy_text(in.architecture, sizeof in.architecture, v);
        else if (!strcmp(key, "bus_id"))
            copy_text(in.bus_id, sizeof in.bus_id, v);
        else if (!strcmp(key, "driver_query"))
            copy_text(in.driver_query, sizeof in.driver_query, v);
        else if (!strcmp(key, "driver_per_device") && num && u <= 1)
            in.driver_per_device = u;
        else if (!strcmp(key, "kernel_name"))
            copy_text(res->kernel_name, sizeof res->kernel_name, v);
        else if (!strcmp(key, "differences"))
            copy_text(res->differences, sizeof res->differences, v);
        else if (!strcmp(key, "driver_note"))
            copy_text(res->driver_note, sizeof res->driver_note, v);
        else if (!strcmp(key, "requested") || !strcmp(key, "actual")) {
            if (!parse_kernel(v, !strcmp(key, "requested") ? &res->requested : &res->actual)) {
                s = bad(&r, OCC_ERR_PARSE, key,
                        "expected 'wg=X,Y,Z sg=N slm=N barrier=0|1 grf=N regs=N carveout=N"
                        "[ cluster=X,Y,Z non_portable=0|1]'");
                goto out;
            }
        } else if (!strcmp(key, "static_slm") && num && u <= UINT32_MAX)
            res->static_slm = (uint32_t)u;
        else if (!strcmp(key, "dynamic_slm") && num && u <= UINT32_MAX)
            res->dynamic_slm = (uint32_t)u;
        else if (!strcmp(key, "local_bytes") && num && u <= UINT32_MAX)
            res->local_bytes = (uint32_t)u;
        else if (!strcmp(key, "driver_resident") && (num || !strcmp(v, "-1")) && u <= INT32_MAX)
            res->driver_resident = num ? (int32_t)u : -1;
        else if (!strcmp(key, "driver_clusters") && (num || !strcmp(v, "-1")) && u <= INT32_MAX)
            res->driver_clusters = num ? (int32_t)u : -1;
        else if (!strcmp(key, "work_groups") && num)
            res->work_groups = u;
        else if (!strcmp(key, "duration_s") && dv > 0)
            res->duration_s = dv;
        else if (!strcmp(key, "duration_spread_s") && dv >= 0 && dv <= 10)
            res->duration_spread_s = dv;
        else if (!strcmp(key, "seed") && num && u <= UINT32_MAX)
            res->seed = (uint32_t)u;
        else if (!strcmp(key, "tick_seconds") && dv > 0)
            res->tick_seconds = dv;
        else if (!strcmp(key, "timer_resolution_s") && dv >= 0)
            res->timer_resolution_s = dv;
        else if (!strcmp(key, "wall_s") && dv >= 0)
            res->wall_s = dv;
        else if (!strcmp(key, "records_missing") && num && u <= UINT32_MAX)
            res->records_missing = (uint32_t)u;
        else if (!strcmp(key, "records_invalid") && num && u <= UINT32_MAX)
            res->records_invalid = (uint32_t)u;
        else if (!strcmp(key, "profile") && num && u < (64u << 20)) {
            char *yaml = malloc(u + 1);
            if (!yaml || fread(yaml, 1, u, f) != u) {
                free(yaml);
                s = bad(&r, OCC_ERR_PARSE, "profile", "the profile is shorter than its byte count");
                goto out;
            }
            yaml[u] = 0;
            unsigned start_line = r.line;
            for (uint64_t i = 0; i < u; i++)
                r.line += yaml[i] == '\n';
            occ_device *dev = NULL;
            occ_diag yd;
            occ_status ys = occ_device_load_yaml(yaml, u, r.origin, &dev, &yd);
            free(yaml);
            if (ys != OCC_OK) {
                if (diag) {
                    *diag = yd;
                    if (yd.line)
                        diag->line = yd.line + start_line;
                }
                s = ys;
                goto out;
            }
            d = *occ_device_describe(dev);
            occ_device_free(dev);
            have_profile = true;
        } else if (!strcmp(key, "records")) {
            if ((s = read_records(&r, v, res)) != OCC_OK)
                goto out;
            have_records = true;
        } else {
            s = bad(&r, OCC_ERR_SCHEMA, key, "unknown key or bad value");
            goto out;
        }
    }
    if (!have_profile || !have_records)
        s = bad(&r, OCC_ERR_SCHEMA, have_profile ? "records" : "profile",
                "missing (a record file needs a profile and records)");
out:
    free(r.buf);
    if (s != OCC_OK) {
        occ_probe_result_free(res);
        return s;
    }
    if (info)
        *info = in;
    if (desc)
        *desc = d;
    return OCC_OK;
}
