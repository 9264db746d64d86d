/* occcalc advise: the best launch configurations for a global size (or a
 * work-group count), ranked, each with the reason it wins or loses; or, with
 * --threshold, every configuration reaching an occupancy and the most local
 * memory it may use. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advise_cli.h"
#include "args.h"
#include "commands.h"
#include "report.h"

static void advise_help(void)
{
    puts("usage: occcalc advise [--device D] [--global X[,Y,Z] | --groups N] [--wg X|*[,Y|*[,Z|*]]]\n"
         "                      [--sg N[,N...]] [--slm BYTES] [--slm-per-item BYTES] [--barrier]\n"
         "                      [--grf N] [--regs N] [--carveout PCT] [--wg-multiple M]\n"
         "                      [--wg-min N] [--wg-max N] [--full-sub-groups] [--top N]\n"
         "                      [--threshold P [--by core|gpu]] [--order rank|size] [--shapes]\n"
         "                      [--json | --jsonl | --csv]\n"
         "\n"
         "Enumerates the work-group shapes that divide the global size (1-3 D; with --groups, the\n"
         "1-D sizes), the sub-group sizes and the GRF modes; scores each configuration (per-core\n"
         "occupancy, time-weighted GPU occupancy with the tail wave, waves, busy SIMD lanes) and\n"
         "prints the best N with the reason each wins or loses (docs/advisor.md).\n"
         "\n"
         "  -g, --global X[,Y,Z]    global size; shapes are per-dimension divisors\n"
         "  -n, --groups N          a fixed number of work-groups instead (1-D sizes)\n"
         "  -w, --wg X,*,Z          fix some work-group dimensions, '*' = free (the guide's 1,*,128)\n"
         "  -s, --sg N[,N...]       allowed sub-group sizes (default: every supported size)\n"
         "      --slm BYTES         local memory per work-group (K, M suffixes)\n"
         "      --slm-per-item B    ... plus B bytes per work-item\n"
         "  -b, --barrier           the kernel uses a work-group barrier\n"
         "      --grf N             Intel: registers per thread needed; every GRF mode >= N is tried\n"
         "      --regs N            NVIDIA: registers per thread\n"
         "      --carveout PCT      NVIDIA: shared-memory carveout preference\n"
         "      --wg-multiple M     work-group size must be a multiple of M\n"
         "      --wg-min N, --wg-max N  work-group size range\n"
         "      --full-sub-groups   only sizes that are multiples of the sub-group size\n"
         "      --top N             how many to print (default 10)\n"
         "      --threshold P       every configuration reaching P % (per core; --by gpu: over the\n"
         "                          run), with the most local memory per work-group it may use\n"
         "      --order rank|size   ranking (default) or by sub-group and size (default for --threshold)\n"
         "      --shapes            list every shape of each printed size\n"
         "  -j, --json, --jsonl, --csv  the result as JSON (schema \"occ/1\"), JSON Lines or CSV\n"
         "\n"
         "Exit codes: 0 ok; 1 nothing valid (the message names the constraint that rules everything\n"
         "out) or nothing reaches the threshold; 2 usage error or contradictory flags; 3 bad profile;\n"
         "6 stdout cannot be written.");
}

enum {
    OPT_TOP = OPT_FIRST_FREE, OPT_THRESHOLD, OPT_BY, OPT_ORDER, OPT_MULTIPLE, OPT_WG_MIN, OPT_WG_MAX,
    OPT_FULL, OPT_SLM_PER_ITEM, OPT_SHAPES
};

typedef struct advise_opts {
    cli_kernel c;
    occ_advise_request q;
    int pattern_dims;
    bool have_order, have_by, shapes;
    uint64_t top;
} advise_opts;

static int advise_option(void *ctx, int id, const char *arg)
{
    advise_opts *o = ctx;
    occ_advise_request *q = &o->q;
    uint64_t v, list[OCC_MAX_SUB_GROUP_SIZES];
    int n;
    switch (id) {
    case OPT_WG: /* a pattern here: numbers fix a dimension, '*' leaves it free */
        if ((n = parse_list(arg, 1, UINT32_MAX, true, list, 3)) < 0)
            return usage_error("--wg: '%s' is not a work-group pattern (X[,Y[,Z]], positive "
                               "integers or '*')", arg);
        for (int i = 0; i < 3; i++)
            q->wg_fixed[i] = i < n ? (uint32_t)list[i] : 0;
        o->pattern_dims = n;
        return EXIT_OK;
    case OPT_SG: /* a list of allowed sizes */
        if ((n = parse_list(arg, 1, UINT32_MAX, false, list, OCC_MAX_SUB_GROUP_SIZES)) < 0)
            return usage_error("--sg: '%s' is not a list of sub-group sizes (e.g. 8 or 8,16)", arg);
        for (int i = 0; i < n; i++)
            q->sub_groups[i] = (uint32_t)list[i];
        q->n_sub_groups = (uint32_t)n;
        return EXIT_OK;
    case OPT_TOP:
        if (!parse_u64(arg, 100000, &o->top) || o->top == 0)
            return usage_error("--top: '%s' is not a count from 1 to 100000", arg);
        return EXIT_OK;
    case OPT_THRESHOLD:
        if (!parse_percent(arg, &q->threshold))
            return usage_error("--threshold: '%s' is not a percentage above 0 and at most 100", arg);
        return EXIT_OK;
    case OPT_BY:
        if (strcmp(arg, "core") && strcmp(arg, "gpu"))
            return usage_error("--by: '%s' is not 'core' or 'gpu'", arg);
        q->threshold_on = arg[0] == 'g' ? OCC_THRESHOLD_GPU : OCC_THRESHOLD_CORE;
        o->have_by = true;
        return EXIT_OK;
    case OPT_ORDER:
        if (strcmp(arg, "rank") && strcmp(arg, "size"))
            return usage_error("--order: '%s' is not 'rank' or 'size'", arg);
        q->order = arg[0] == 's' ? OCC_ORDER_SIZE : OCC_ORDER_RANK;
        o->have_order = true;
        return EXIT_OK;
    case OPT_MULTIPLE:
    case OPT_WG_MIN:
    case OPT_WG_MAX:
        if (!parse_u64(arg, UINT32_MAX, &v) || v == 0)
            return usage_error("--%s: '%s' is not a positive work-group size",
                               id == OPT_MULTIPLE ? "wg-multiple" : id == OPT_WG_MIN ? "wg-min" : "wg-max", arg);
        *(id == OPT_MULTIPLE ? &q->wg_multiple : id == OPT_WG_MIN ? &q->wg_min : &q->wg_max) = (uint32_t)v;
        return EXIT_OK;
    case OPT_FULL:
        q->full_sub_groups = true;
        return EXIT_OK;
    case OPT_SLM_PER_ITEM:
        if (!parse_bytes(arg, &q->slm_per_item))
            return usage_error("--slm-per-item: '%s' is not a size in bytes", arg);
        return EXIT_OK;
    case OPT_SHAPES:
        o->shapes = true;
        return EXIT_OK;
    default:
        return CLI_NOT_MINE;
    }
}

static int parse(int argc, char **argv, advise_opts *o)
{
    static const struct option own[] = {
        {"top", required_argument, 0, OPT_TOP},
        {"threshold", required_argument, 0, OPT_THRESHOLD},
        {"by", required_argument, 0, OPT_BY},
        {"order", required_argument, 0, OPT_ORDER},
        {"wg-multiple", required_argument, 0, OPT_MULTIPLE},
        {"wg-min", required_argument, 0, OPT_WG_MIN},
        {"wg-max", required_argument, 0, OPT_WG_MAX},
        {"full-sub-groups", no_argument, 0, OPT_FULL},
        {"slm-per-item", required_argument, 0, OPT_SLM_PER_ITEM},
        {"shapes", no_argument, 0, OPT_SHAPES},
        {0, 0, 0, 0},
    };
    const cli_command cmd = {"advise", CLI_ADVISE, own, "", advise_option, o, advise_help, NULL, NULL};
    return cli_parse(&cmd, argc, argv, &o->c);
}

/* Flags that contradict each other; the library names the rest. */
/* The kernel's constraints (typed in or read from its file): the advisor
 * proposes nothing outside them; and AMD's SGPRs and CU mode, from its file. */
static void copy_constraints(const occ_kernel *k, occ_advise_request *q)
{
    q->max_wg_size = k->max_wg_size;
    memcpy(q->reqd_wg, k->reqd_wg, sizeof q->reqd_wg);
    q->reqd_sub_group = k->reqd_sub_group;
    q->sgprs = k->sgprs;
    q->cu_mode = k->cu_mode;
    memcpy(q->cluster, k->cluster, sizeof q->cluster);
    q->cluster_non_portable = k->cluster_non_portable;
}

static int check(advise_opts *o)
{
    cli_kernel *c = &o->c;
    occ_advise_request *q = &o->q;
    int rc = cli_kernel_check(c, false);
    if (rc)
        return rc;
    if (o->have_by && q->threshold <= 0)
        return usage_error("--by applies to --threshold");
    if (q->threshold > 0 && o->top)
        return usage_error("--top and --threshold are exclusive: --threshold lists every configuration "
                           "reaching it");
    if (o->pattern_dims && c->global_dims && o->pattern_dims != c->global_dims)
        return usage_error("--wg has %d dimension%s but --global has %d", o->pattern_dims,
                           o->pattern_dims == 1 ? "" : "s", c->global_dims);
    q->dims = (uint32_t)(c->global_dims ? c->global_dims : o->pattern_dims ? o->pattern_dims : 1);
    if (c->global_dims)
        for (int i = 0; i < 3; i++)
            q->global[i] = c->global[i];
    q->work_groups = c->groups;
    q->slm_bytes = c->k.slm_bytes;
    q->barrier = c->k.barrier;
    q->grf = c->k.grf;
    q->regs_per_thread = c->k.regs_per_thread;
    q->carveout_pct = c->k.carveout_pct;
    copy_constraints(&c->k, q);
    if (!o->have_order && q->threshold > 0)
        q->order = OCC_ORDER_SIZE;
    if (!o->top)
        o->top = 10;
    return EXIT_OK;
}

static const char *stage_name(occ_advise_stage s)
{
    static const char *const names[OCC_STAGE_COUNT] = {
        [OCC_STAGE_OK] = "ok", [OCC_STAGE_SHAPE] = "shape", [OCC_STAGE_SIZE] = "size",
        [OCC_STAGE_SUB_GROUP] = "sub_group", [OCC_STAGE_GRF] = "grf",
        [OCC_STAGE_FULL_SUB_GROUPS] = "full_sub_groups", [OCC_STAGE_LAUNCH] = "launch",
        [OCC_STAGE_THRESHOLD] = "threshold",
    };
    return (unsigned)s < OCC_STAGE_COUNT ? names[s] : "unknown";
}

static void shape_text(char *buf, size_t size, const uint32_t *wg, uint32_t dims)
{
    int n = snprintf(buf, size, "%u", wg[0]);
    for (uint32_t i = 1; i < dims && n > 0 && (size_t)n < size; i++)
        n += snprintf(buf + n, size - (size_t)n, ",%u", wg[i]);
}

/* ---- text ------------------------------------------------------------------ */

static void print_problem(const advise_opts *o, const occ_device_desc *d)
{
    const occ_advise_request *q = &o->q;
    if (q->global[0]) {
        uint64_t items = 1;
        printf("Problem  global %llu", (unsigned long long)q->global[0]);
        for (uint32_t i = 1; i < q->dims; i++)
            printf(" x %llu", (unsigned long long)q->global[i]);
        for (uint32_t i = 0; i < q->dims; i++)
            items *= q->global[i];
        printf(" = %llu work-items\n", (unsigned long long)items);
    } else if (q->work_groups) {
        printf("Problem  %llu work-group%s\n", (unsigned long long)q->work_groups, plural(q->work_groups));
    } else {
        printf("Problem  not given: ranked per %s (--global or --groups adds waves and the tail)\n",
               d->core_name);
    }
    printf("Kernel  ");
    if (o->pattern_dims) {
        printf(" work-group (");
        for (int i = 0; i < o->pattern_dims; i++)
            q->wg_fixed[i] ? printf("%s%u", i ? "," : "", q->wg_fixed[i]) : printf("%s*", i ? "," : "");
        printf("),");
    }
    if (q->wg_multiple > 1)
        printf(" size multiple of %u,", q->wg_multiple);
    if (q->wg_min || q->wg_max)
        printf(" size %u..%u,", q->wg_min ? q->wg_min : 1, q->wg_max ? q->wg_max : d->max_work_group_size);
    if (q->n_sub_groups) {
        printf(" sub-group");
        for (uint32_t i = 0; i < q->n_sub_groups; i++)
            printf("%s%u", i ? "/" : " ", q->sub_groups[i]);
        printf(",");
    }
    char b[32];
    occ_format_bytes(b, sizeof b, q->slm_bytes, false);
    if (q->slm_per_item) {
        char p[32];
        occ_format_bytes(p, sizeof p, q->slm_per_item, false);
        printf(" %s %s + %s per work-item,", d->local_memory_name, b, p);
    } else {
        printf(" %s %s,", d->local_memory_name, q->slm_bytes ? b : "none");
    }
    printf(" %s", q->barrier ? "barrier" : "no barrier");
    if (q->grf)
        printf(", needs %u GRF registers", q->grf);
    if (q->regs_per_thread)
        printf(", %u registers/thread", q->regs_per_thread);
    if (q->full_sub_groups)
        printf(", full sub-groups only");
    putchar('\n');
}

static void print_search(const occ_advise_summary *s)
{
    printf("Search   %llu shape%s (%llu size%s) x %u sub-group size%s x %u GRF mode%s = %llu "
           "configurations, %llu launchable\n", (unsigned long long)s->shapes, s->shapes == 1 ? "" : "s",
           (unsigned long long)s->sizes, s->sizes == 1 ? "" : "s", s->sub_groups,
           s->sub_groups == 1 ? "" : "s", s->grf_modes, s->grf_modes == 1 ? "" : "s",
           (unsigned long long)s->configurations, (unsigned long long)s->launchable);
}

typedef struct columns {
    bool grf, gpu;
} columns;

static void table_head(columns k)
{
    printf("\n #  %-14s %6s %6s %3s", "work-group", "shapes", "size", "SG");
    if (k.grf)
        printf(" %4s", "GRF");
    printf(" %8s %9s %8s", "WGs/core", "contexts", "per core");
    if (k.gpu)
        printf(" %6s %8s", "waves", "over run");
    printf(" %9s\n", "SLM limit");
}

static void table_row(const occ_advice *a, uint32_t dims, columns k, const char *size_text)
{
    char shape[48], ctx[24], lim[32], num[16];
    shape_text(shape, sizeof shape, a->wg, dims);
    snprintf(ctx, sizeof ctx, "%u/%u", a->contexts_used, a->contexts_per_core);
    occ_format_bytes(lim, sizeof lim, a->slm_limit, false);
    if (a->rank)
        snprintf(num, sizeof num, "%2u", a->rank);
    else
        snprintf(num, sizeof num, " -");
    printf("%s  %-14s %6llu %6s %3u", num, shape, (unsigned long long)a->shapes, size_text, a->sub_group);
    if (k.grf)
        printf(" %4u", a->grf);
    printf(" %8u %9s %6.1f %%", a->resident_wgs, ctx, a->occupancy * 100.0);
    if (k.gpu)
        printf(" %6llu %6.1f %%", (unsigned long long)a->waves, a->gpu_occupancy * 100.0);
    printf(" %9s\n", lim);
}

static void print_shapes(const occ_device *dev, const occ_advise_request *q, const occ_advice *a)
{
    uint32_t shapes[24][3];
    uint64_t n = occ_advise_shapes(dev, q, a->wg_size, shapes, 24);
    printf("    shapes:");
    for (uint64_t i = 0; i < n && i < 24; i++) {
        char s[48];
        shape_text(s, sizeof s, shapes[i], q->dims);
        printf(" (%s)", s);
    }
    if (n > 24)
        printf(" and %llu more", (unsigned long long)(n - 24));
    putchar('\n');
}

static const occ_advice *find_best(const occ_advice *a, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (a[i].is_best)
            return &a[i];
    return NULL;
}

/* ---- CUDA's own choice, beside occ's ranking ------------------------------- */

static uint64_t slm_per_item_of(void *user, uint32_t wg)
{
    uint64_t per_item = *(const uint64_t *)user;
    return wg && per_item > UINT64_MAX / wg ? UINT64_MAX : per_item * wg;
}

/* What cudaOccupancyMaxPotentialBlockSize answers for the request's kernel, on
 * a device whose vendor has such a choice (occ_vendor_words.cuda_choice). */
static bool cuda_choice(const occ_device *dev, const advise_opts *o, occ_cuda_choice *c)
{
    const occ_vendor_words *w = occ_vendor_words_of(occ_device_describe(dev)->vendor);
    if (!w || !w->cuda_choice)
        return false;
    occ_kernel k = o->c.k;
    k.slm_bytes = o->q.slm_bytes;
    k.regs_per_thread = o->q.regs_per_thread;
    k.barrier = o->q.barrier;
    occ_cuda_choice_request r;
    occ_cuda_choice_request_init(&r);
    if (o->q.slm_per_item) {
        r.slm_for_wg = slm_per_item_of;
        r.user = (void *)&o->q.slm_per_item;
    }
    r.wg_limit = o->q.wg_max;
    c->struct_size = sizeof *c;
    return occ_cuda_block_size(dev, &k, &r, c) == OCC_OK;
}

static void print_cuda_choice(const occ_device *dev, const advise_opts *o)
{
    occ_cuda_choice c;
    if (!cuda_choice(dev, o, &c))
        return;
    const occ_device_desc *d = occ_device_describe(dev);
    const char *label = occ_vendor_words_of(d->vendor)->cuda_choice;
    if (!c.wg_size) {
        printf("\n%s: none (no block size launches)\n", label);
        return;
    }
    printf("\n%s: %u work-items, %u work-group%s per %s, %.1f %%, at least %llu work-group%s to fill "
           "the GPU (the largest size of the highest occupancy; the ranking above is occ's own)\n",
           label, c.wg_size, c.resident_wgs, plural(c.resident_wgs), d->core_name,
           c.occupancy * 100.0, (unsigned long long)c.min_work_groups, plural(c.min_work_groups));
}

static void cuda_choice_doc(doc *j, const occ_device *dev, const advise_opts *o)
{
    occ_cuda_choice c;
    doc_key(j, "cuda_choice");
    if (!cuda_choice(dev, o, &c)) {
        doc_null(j);
        return;
    }
    doc_begin_object(j);
    doc_ku64(j, "work_group_size", c.wg_size);
    doc_ku64(j, "resident_work_groups", c.resident_wgs);
    doc_ku64(j, "min_work_groups", c.min_work_groups);
    doc_knum(j, "occupancy", c.occupancy);
    doc_end_object(j);
}

/* ---- --cluster: the cluster sizes of the best configuration, ranked ---------- */

/* The best configuration as a kernel, in clusters as --cluster asks. */
static occ_kernel best_kernel(const advise_opts *o, const occ_advice *best)
{
    occ_kernel k = o->c.k;
    memcpy(k.wg, best->wg, sizeof k.wg);
    k.sub_group = best->sub_group;
    k.grf = best->grf;
    k.slm_bytes = best->slm_bytes;
    k.barrier = o->q.barrier;
    k.regs_per_thread = o->q.regs_per_thread;
    return k;
}

/* Why a size keeps fewer work-groups at once than every core's slots. */
static void cluster_why(char *buf, size_t size, const occ_device_desc *d, const occ_cluster_choice *c)
{
    int n = 0;
    buf[0] = 0;
#define ADD(...) n += snprintf(buf + n, size > (size_t)n ? size - (size_t)n : 0, __VA_ARGS__)
    if (c->capped_slots)
        ADD("%s%u fewer per %s (a cluster launch holds %u)", n ? "; " : "", c->capped_slots, d->core_name,
            d->cluster_max_work_groups);
    if (c->idle_cores)
        ADD("%s%u %ss idle (GPCs smaller than %u)", n ? "; " : "", c->idle_cores, d->core_name, c->size);
    if (c->rounding_slots)
        ADD("%s%llu slot%s left over (GPCs not a multiple of %u)", n ? "; " : "",
            (unsigned long long)c->rounding_slots, plural(c->rounding_slots), c->size);
    if (!n)
        ADD("every slot of every %s used", d->core_name);
#undef ADD
}

/* The sizes of the best configuration (0 without --cluster or a best one). */
static size_t cluster_sizes(const occ_device *dev, const advise_opts *o, const occ_advice *best,
                            occ_cluster_choice *out, size_t cap)
{
    size_t n = 0;
    if (!best || !cli_is_cluster_launch(&o->c.k))
        return 0;
    occ_kernel k = best_kernel(o, best);
    occ_cluster_sizes(dev, &k, out, cap, &n);
    return n < cap ? n : cap;
}

static void print_cluster_sizes(const occ_device *dev, const advise_opts *o, const occ_advice *best)
{
    occ_cluster_choice c[32];
    size_t n = cluster_sizes(dev, o, best, c, 32);
    if (!n)
        return;
    const occ_device_desc *d = occ_device_describe(dev);
    uint32_t asked = occ_kernel_cluster_size(&o->c.k);
    printf("\nCluster sizes for %llu work-items (the best above), most work-groups at once first\n"
           "  size  clusters  at once       GPU  why fewer\n",
           (unsigned long long)best->wg_size);
    for (size_t i = 0; i < n; i++) {
        char why[256];
        cluster_why(why, sizeof why, d, &c[i]);
        printf("  %4u  %8llu  %7llu  %6.1f %%  %s%s\n", c[i].size, (unsigned long long)c[i].max_active_clusters,
               (unsigned long long)c[i].work_groups, 100.0 * c[i].gpu_occupancy, why,
               c[i].size == asked ? "  <- --cluster" : "");
    }
}

static void cluster_sizes_doc(doc *j, const occ_device *dev, const advise_opts *o, const occ_advice *best)
{
    occ_cluster_choice c[32];
    size_t n = cluster_sizes(dev, o, best, c, 32);
    if (!n)
        return;
    const occ_device_desc *d = occ_device_describe(dev);
    doc_key(j, "cluster_sizes");
    doc_begin_object(j);
    doc_key(j, "cluster");
    doc_begin_array(j);
    for (int i = 0; i < 3; i++)
        doc_u64(j, o->c.k.cluster[i] ? o->c.k.cluster[i] : 1);
    doc_end_array(j);
    doc_ku64(j, "work_group_size", best->wg_size);
    doc_key(j, "sizes");
    doc_begin_array(j);
    for (size_t i = 0; i < n; i++) {
        char why[256];
        cluster_why(why, sizeof why, d, &c[i]);
        doc_begin_object(j);
        doc_ku64(j, "size", c[i].size);
        doc_ku64(j, "max_active_clusters", c[i].max_active_clusters);
        doc_ku64(j, "work_groups", c[i].work_groups);
        doc_knum(j, "occupancy_at_once", c[i].gpu_occupancy);
        doc_ku64(j, "idle_cores", c[i].idle_cores);
        doc_ku64(j, "rounding_slots", c[i].rounding_slots);
        doc_ku64(j, "capped_slots", c[i].capped_slots);
        doc_kstr(j, "why", why);
        doc_end_object(j);
    }
    doc_end_array(j);
    doc_end_object(j);
}

static void print_ranked(const occ_device *dev, const advise_opts *o, const occ_advice *a, size_t n)
{
    const occ_device_desc *d = occ_device_describe(dev);
    columns k = {d->n_grf_modes > 1, o->q.global[0] || o->q.work_groups};
    const occ_advice *best = find_best(a, n);
    table_head(k);
    for (size_t i = 0; i < n; i++) {
        char size_text[24], why[512];
        snprintf(size_text, sizeof size_text, "%llu", (unsigned long long)a[i].wg_size);
        table_row(&a[i], o->q.dims, k, size_text);
        occ_advice_explain(dev, &a[i], best, why, sizeof why);
        printf("    %s\n", why);
        if (o->shapes)
            print_shapes(dev, &o->q, &a[i]);
    }
}

/* Threshold listing in size order: consecutive 1-D sizes with the same
 * figures collapse into one row "lo-hi". */
static void print_threshold(const occ_device *dev, const advise_opts *o, const occ_advice *a, size_t n,
                            const occ_advise_summary *s)
{
    const occ_device_desc *d = occ_device_describe(dev);
    const occ_advise_request *q = &o->q;
    printf("\n%llu configuration%s reach %.1f %% %s occupancy, each with the most %s per work-group "
           "it may use:\n", (unsigned long long)s->matching, s->matching == 1 ? "" : "s",
           q->threshold * 100.0, q->threshold_on == OCC_THRESHOLD_GPU ? "time-weighted GPU" : "per-core",
           d->local_memory_name);
    if (q->order == OCC_ORDER_RANK || q->global[0]) {
        print_ranked(dev, o, a, n);
        return;
    }
    bool grf = d->n_grf_modes > 1, gpu = q->work_groups != 0;
    printf("\n %3s", "SG");
    if (grf)
        printf(" %4s", "GRF");
    printf("  %-17s %8s %9s %8s", "work-group sizes", "WGs/core", "contexts", "per core");
    if (gpu)
        printf(" %6s %8s", "waves", "over run");
    printf(" %9s\n", "SLM limit");
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (!gpu && j + 1 < n && a[j + 1].sub_group == a[i].sub_group && a[j + 1].grf == a[i].grf &&
               a[j + 1].wg_size + 1 == a[j].wg_size && a[j + 1].resident_wgs == a[i].resident_wgs &&
               a[j + 1].contexts_per_wg == a[i].contexts_per_wg && a[j + 1].slm_limit == a[i].slm_limit)
            j++;
        char sizes[40], ctx[24], lim[32];
        if (j > i)
            snprintf(sizes, sizeof sizes, "%llu-%llu", (unsigned long long)a[j].wg_size,
                     (unsigned long long)a[i].wg_size);
        else
            snprintf(sizes, sizeof sizes, "%llu", (unsigned long long)a[i].wg_size);
        snprintf(ctx, sizeof ctx, "%u/%u", a[i].contexts_used, a[i].contexts_per_core);
        occ_format_bytes(lim, sizeof lim, a[i].slm_limit, false);
        printf(" %3u", a[i].sub_group);
        if (grf)
            printf(" %4u", a[i].grf);
        printf("  %-17s %8u %9s %6.1f %%", sizes, a[i].resident_wgs, ctx, a[i].occupancy * 100.0);
        if (gpu)
            printf(" %6llu %6.1f %%", (unsigned long long)a[i].waves, a[i].gpu_occupancy * 100.0);
        printf(" %9s\n", lim);
        i = j + 1;
    }
}

/* ---- the result document (doc.h) -------------------------------------------------------------------- */

static void advice_doc(doc *j, const occ_device *dev, const advise_opts *o, const occ_advice *a,
                        const occ_advice *best)
{
    char why[512];
    occ_advice_explain(dev, a, best, why, sizeof why);
    doc_begin_object(j);
    if (a->rank)
        doc_ku64(j, "rank", a->rank);
    else
        doc_key(j, "rank"), doc_null(j);
    doc_key(j, "work_group");
    doc_begin_array(j);
    for (uint32_t i = 0; i < o->q.dims; i++)
        doc_u64(j, a->wg[i]);
    doc_end_array(j);
    doc_ku64(j, "shapes", a->shapes);
    doc_ku64(j, "work_group_size", a->wg_size);
    doc_ku64(j, "sub_group", a->sub_group);
    doc_ku64(j, "grf", a->grf);
    doc_ku64(j, "slm_bytes", a->slm_bytes);
    doc_ku64(j, "slm_limit", a->slm_limit);
    doc_ku64(j, "resident_work_groups", a->resident_wgs);
    doc_ku64(j, "thread_contexts_per_work_group", a->contexts_per_wg);
    doc_ku64(j, "thread_contexts_per_core", a->contexts_per_core);
    doc_ku64(j, "thread_contexts_used", a->contexts_used);
    doc_limited_by(j, "limited_by", a->limited_by);
    doc_kbool(j, "cluster_capped", a->cluster_capped);
    doc_knum(j, "occupancy", a->occupancy);
    doc_knum(j, "lane_utilization", a->lane_utilization);
    if (a->waves) {
        doc_ku64(j, "work_groups", a->work_groups);
        doc_ku64(j, "waves", a->waves);
        doc_knum(j, "last_wave_occupancy", a->last_wave_occupancy);
        doc_knum(j, "waves_average_occupancy", a->gpu_occupancy);
        doc_knum(j, "intel_calculator_occupancy", a->intel_gpu_occupancy);
    }
    doc_knum(j, "score", a->score);
    doc_kbool(j, "best", a->is_best);
    doc_kstr(j, "why", occ_why_name(a->why));
    doc_kstr(j, "reason", why);
    doc_end_object(j);
}

static int print_doc(const occ_device *dev, const advise_opts *o, const occ_advice *a, size_t n,
                     const occ_advise_summary *s)
{
    const occ_advise_request *q = &o->q;
    doc j;
    doc_init(&j);
    doc_begin_object(&j);
    doc_kstr(&j, "schema", OCC_JSON_SCHEMA);
    report_device_doc(&j, dev);
    doc_key(&j, "request");
    doc_begin_object(&j);
    doc_key(&j, "global");
    if (q->global[0]) {
        doc_begin_array(&j);
        for (uint32_t i = 0; i < q->dims; i++)
            doc_u64(&j, q->global[i]);
        doc_end_array(&j);
    } else {
        doc_null(&j);
    }
    doc_key(&j, "work_groups");
    q->work_groups ? doc_u64(&j, q->work_groups) : doc_null(&j);
    doc_key(&j, "work_group_pattern");
    doc_begin_array(&j);
    for (uint32_t i = 0; i < q->dims; i++)
        q->wg_fixed[i] ? doc_u64(&j, q->wg_fixed[i]) : doc_null(&j);
    doc_end_array(&j);
    doc_key(&j, "sub_groups");
    doc_begin_array(&j);
    for (uint32_t i = 0; i < q->n_sub_groups; i++)
        doc_u64(&j, q->sub_groups[i]);
    doc_end_array(&j);
    doc_ku64(&j, "slm_bytes", q->slm_bytes);
    doc_ku64(&j, "slm_per_item", q->slm_per_item);
    doc_kbool(&j, "barrier", q->barrier);
    doc_key(&j, "threshold");
    q->threshold > 0 ? doc_num(&j, q->threshold) : doc_null(&j);
    doc_kstr(&j, "threshold_on", q->threshold_on == OCC_THRESHOLD_GPU ? "gpu" : "core");
    doc_end_object(&j);
    doc_key(&j, "summary");
    doc_begin_object(&j);
    doc_ku64(&j, "shapes", s->shapes);
    doc_ku64(&j, "sizes", s->sizes);
    doc_ku64(&j, "configurations", s->configurations);
    doc_ku64(&j, "launchable", s->launchable);
    doc_ku64(&j, "matching", s->matching);
    doc_key(&j, "failed");
    s->failed ? doc_str(&j, stage_name(s->failed)) : doc_null(&j);
    doc_key(&j, "message");
    s->message[0] ? doc_str(&j, s->message) : doc_null(&j);
    doc_end_object(&j);
    cuda_choice_doc(&j, dev, o);
    const occ_advice *best = find_best(a, n);
    cluster_sizes_doc(&j, dev, o, best);
    doc_begin_table(&j, "configurations");
    for (size_t i = 0; i < n; i++)
        advice_doc(&j, dev, o, &a[i], best);
    doc_end_array(&j);
    doc_end_object(&j);
    int rc = render(&j, o->c.format);
    doc_free(&j);
    return rc;
}

int cmd_advise(int argc, char **argv)
{
    advise_opts o;
    memset(&o, 0, sizeof o);
    cli_kernel_init(&o.c);
    occ_advise_request_init(&o.q);
    int rc = parse(argc, argv, &o);
    if (rc)
        return rc == CLI_DONE ? EXIT_OK : rc;
    if ((rc = check(&o)))
        return rc;
    occ_device *dev;
    if ((rc = cli_open_kernel_device(&o.c, false, &dev)))
        return rc;
    if (o.c.kernel_file) { /* the kernel's resources, as check() copied the flags */
        o.q.slm_bytes = o.c.k.slm_bytes;
        o.q.barrier = o.c.k.barrier;
        o.q.grf = o.c.k.grf;
        o.q.regs_per_thread = o.c.k.regs_per_thread;
        copy_constraints(&o.c.k, &o.q);
        if (!o.q.n_sub_groups && o.c.k.sub_group) { /* the compiled SIMD width */
            o.q.sub_groups[0] = o.c.k.sub_group;
            o.q.n_sub_groups = 1;
        }
    }
    const occ_device_desc *d = occ_device_describe(dev);
    occ_clusters cl; /* --cluster on a device without GPCs, or a size over its maximum: refused */
    if (cli_is_cluster_launch(&o.c.k) && (rc = cli_clusters(dev, &o.c.k, 0, &cl))) {
        occ_device_free(dev);
        return rc;
    }
    if (o.c.have_regs && !occ_device_takes(d, OCC_INPUT_REGISTERS))
        fprintf(stderr, "occcalc: note: --regs applies to register-file devices; %s uses GRF modes (--grf)\n",
                d->name);

    size_t cap = o.q.threshold > 0
                     ? ((size_t)d->max_work_group_size + 1) * d->n_sub_group_sizes * d->n_grf_modes
                     : (size_t)o.top;
    occ_advice *a = calloc(cap, sizeof *a);
    if (!a) {
        occ_device_free(dev);
        fprintf(stderr, "occcalc: out of memory\n");
        return EXIT_INTERNAL;
    }
    size_t n = 0;
    occ_advise_summary s;
    occ_status st = occ_advise(dev, &o.q, a, cap, &n, &s);
    if (st == OCC_ERR_INVALID_ARGUMENT) {
        rc = usage_error("advise: %s", s.message);
    } else if (st != OCC_OK) {
        fprintf(stderr, "occcalc: advise: %s%s%s\n", occ_status_text(st), s.message[0] ? ": " : "",
                s.message);
        rc = EXIT_INTERNAL;
    } else if (o.c.format != OUT_TEXT) {
        rc = print_doc(dev, &o, a, n, &s);
    } else {
        report_device_text(stdout, dev, 0);
        print_problem(&o, d);
        if (s.configurations)
            print_search(&s);
        if (!s.failed) {
            if (o.q.threshold > 0)
                print_threshold(dev, &o, a, n, &s);
            else
                print_ranked(dev, &o, a, n);
            if (s.matching > n && o.q.threshold <= 0)
                printf("\n(%llu more; --top N shows more)\n", (unsigned long long)(s.matching - n));
            if (o.q.threshold <= 0) {
                print_cuda_choice(dev, &o);
                print_cluster_sizes(dev, &o, find_best(a, n));
            }
        }
        rc = EXIT_OK;
    }
    if (st == OCC_OK && s.failed) {
        fprintf(stderr, "occcalc: advise: %s: %s\n",
                s.failed == OCC_STAGE_THRESHOLD ? "threshold not reached" : "nothing valid", s.message);
        if (rc == EXIT_OK)
            rc = EXIT_NEGATIVE;
    }
    free(a);
    occ_device_free(dev);
    return rc;
}
