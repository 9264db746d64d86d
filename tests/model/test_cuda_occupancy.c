/* The model against the driver's occupancy answers recorded on a lent H200
 * (tests/data/cuda/occupancy/h200-2026-11-28, made by
 * tests/hw/occupancy_campaign.cu; its README says what each file holds):
 *
 *  - occupancy.csv.gz: every cuOccupancyMaxActiveBlocksPerMultiprocessor
 *    answer (30 kernels of 12..255 registers, launch bounds, static shared
 *    memory; block sizes 32..1024; dynamic shared memory every KB to the
 *    opt-in maximum) equals the model's for the built-in h200 and h100-sxm;
 *  - potential.csv.gz: every cuOccupancyMaxPotentialBlockSize and
 *    cudaOccupancyMaxPotentialBlockSize[VariableSMem] answer equals
 *    occ_cuda_block_size;
 *  - cooperative.csv: the cooperative maximum is the model's residency x SMs,
 *    a launch of it succeeds, one block more is refused;
 *  - launches.csv (a fourth H200, h200-2026-11-28b): above a kernel's own
 *    maximum a launch is refused: over a declared launch bound with
 *    CUDA_ERROR_INVALID_VALUE, else (registers: the model says it cannot
 *    launch) with CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES;
 *  - clusters.csv.gz, cluster_size.csv.gz: every cuOccupancyMaxActiveClusters
 *    and cuOccupancyMaxPotentialClusterSize answer equals occ_cluster_compute's
 *    and occ_max_potential_cluster_size's on the built-in h200, refusals
 *    included; placement.csv.gz of the three chips: the SMs that ran blocks of
 *    one cluster together form exactly the profile's GPCs (core.gpc_sms);
 *    coresidency.csv.gz: a cluster launch held at most the profile's
 *    cluster_max_work_groups blocks on an SM at once.
 * The CSV files are read through `gzip -dc`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "occ/advise.h"
#include "test_common.h"

#ifndef CUDA_DATA_DIR
#define CUDA_DATA_DIR "tests/data/cuda"
#endif
#define RUN CUDA_DATA_DIR "/occupancy/h200-2026-11-28/"

/* CUDA_ERROR_INVALID_VALUE, CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE */
#define CU_INVALID_VALUE 1
#define CU_COOPERATIVE_TOO_LARGE 720

#define MAX_KERNELS 64
#define MAX_FIELDS 24

typedef struct kattr {
    char name[32];
    uint32_t regs, max_threads, static_smem;
    uint32_t launch_bounds; /* declared __launch_bounds__, 0 none */
    uint32_t cluster[3];    /* compiled cluster dimensions (__cluster_dims__); 0,0,0 none */
    bool barrier; /* the source uses __syncthreads (k_barrier, k_static*) */
} kattr;

static kattr kernels[MAX_KERNELS];
static size_t n_kernels;

/* Splits a CSV line in place; returns the number of fields. */
static int split(char *line, char **f)
{
    int n = 0;
    line[strcspn(line, "\r\n")] = 0;
    for (char *p = line; n < MAX_FIELDS;) {
        f[n++] = p;
        p = strchr(p, ',');
        if (!p)
            break;
        *p++ = 0;
    }
    return n;
}

/* The file, decompressed when it ends in .gz; every line that is not a '#'
 * comment nor the column header goes to row(). */
static size_t each_row(const char *path, void (*row)(char **f, int n, void *user), void *user)
{
    char cmd[1024];
    bool gz = strlen(path) > 3 && strcmp(path + strlen(path) - 3, ".gz") == 0;
    FILE *in;
    if (gz) {
        snprintf(cmd, sizeof cmd, "gzip -dc '%s'", path);
        in = popen(cmd, "r");
    } else {
        in = fopen(path, "r");
    }
    ck_assert_msg(in != NULL, "cannot read %s", path);
    char line[1024];
    bool header = true;
    size_t rows = 0;
    while (fgets(line, sizeof line, in)) {
        if (line[0] == '#')
            continue;
        if (header) { /* the column names */
            header = false;
            continue;
        }
        char *f[MAX_FIELDS];
        int n = split(line, f);
        row(f, n, user);
        rows++;
    }
    if (gz)
        ck_assert_int_eq(pclose(in), 0);
    else
        fclose(in);
    return rows;
}

static void kernel_row(char **f, int n, void *user)
{
    (void)user;
    ck_assert_int_ge(n, 4);
    ck_assert_uint_lt(n_kernels, MAX_KERNELS);
    kattr *k = &kernels[n_kernels++];
    snprintf(k->name, sizeof k->name, "%s", f[0]);
    k->regs = (uint32_t)atoi(f[1]);
    k->max_threads = (uint32_t)atoi(f[2]);
    k->static_smem = (uint32_t)atoi(f[3]);
    ck_assert_int_ge(n, 14);
    k->launch_bounds = (uint32_t)atoi(f[13]);
    if (atoi(f[9]))
        for (int i = 0; i < 3; i++)
            k->cluster[i] = (uint32_t)atoi(f[10 + i]);
    k->barrier = strcmp(f[0], "k_barrier") == 0 || strncmp(f[0], "k_static", 8) == 0;
}

static void load_kernels(void)
{
    n_kernels = 0;
    each_row(RUN "kernels.csv", kernel_row, NULL);
    ck_assert_uint_eq(n_kernels, 30);
}

static const kattr *kernel_named(const char *name)
{
    for (size_t i = 0; i < n_kernels; i++)
        if (strcmp(kernels[i].name, name) == 0)
            return &kernels[i];
    ck_abort_msg("kernel %s is not in kernels.csv", name);
    return NULL;
}

/* The kernel as occ describes it: its compiled registers and static shared
 * memory plus the dynamic bytes; launch bounds are not a model input. */
static occ_kernel kernel_of(const kattr *a, uint32_t block, uint64_t dyn)
{
    occ_kernel k;
    occ_kernel_init(&k);
    k.wg[0] = block;
    k.regs_per_thread = a->regs;
    k.slm_bytes = a->static_smem + dyn;
    k.barrier = a->barrier;
    return k;
}

/* ---- cuOccupancyMaxActiveBlocksPerMultiprocessor ------------------------- */

typedef struct occ_check {
    occ_device *dev;
    size_t rows, bad, no_optin_refused, over_bound_resident;
} occ_check;

static void occupancy_row(char **f, int n, void *user)
{
    occ_check *c = user;
    ck_assert_int_eq(n, 7); /* kernel,block,dyn_smem,optin,flags,err,blocks_per_sm */
    const kattr *a = kernel_named(f[0]);
    uint32_t block = (uint32_t)atoi(f[1]);
    uint64_t dyn = strtoull(f[2], NULL, 10);
    bool optin = atoi(f[3]) != 0;
    int err = atoi(f[5]), driver = atoi(f[6]);
    ck_assert_int_eq(err, 0); /* the driver answers every query, refusals as 0 */
    occ_kernel k = kernel_of(a, block, dyn);
    uint32_t model = tc_resident(c->dev, &k);
    /* without the opt-in a block gets at most 48 KB of shared memory in all */
    if (!optin && a->static_smem + dyn > 48 * 1024) {
        ck_assert_int_eq(driver, 0);
        c->no_optin_refused++;
        model = 0;
    }
    if (block > a->max_threads && driver > 0)
        c->over_bound_resident++;
    c->rows++;
    if ((int)model != driver) {
        if (c->bad < 20)
            fprintf(stderr, "%s block %u dynamic %llu opt-in %d: model %u, driver %d\n", f[0],
                    block, (unsigned long long)dyn, optin, model, driver);
        c->bad++;
    }
}

static void occupancy_equal(const char *device)
{
    load_kernels();
    occ_check c = {.dev = tc_builtin(device)};
    each_row(RUN "occupancy.csv.gz", occupancy_row, &c);
    fprintf(stderr, "%s: %zu of %zu answers differ\n", device, c.bad, c.rows);
    ck_assert_uint_eq(c.rows, 245648);
    ck_assert_uint_eq(c.bad, 0);
    /* the recording covers what it claims */
    ck_assert_uint_gt(c.no_optin_refused, 0);
    /* above a kernel's launch bound the driver still answers by its resources
     * (k_lb128 at 256 threads: 1 block), although such a launch is refused
     * (cooperative.csv: error 1) */
    ck_assert_uint_gt(c.over_bound_resident, 0);
    occ_device_free(c.dev);
}

START_TEST(occupancy_h200)
{
    occupancy_equal("h200");
}
END_TEST

START_TEST(occupancy_h100_sxm)
{
    occupancy_equal("h100-sxm");
}
END_TEST

/* ---- the potential block size -------------------------------------------- */

/* The campaign's blockSizeToDynamicSMemSize functions, by id
 * (occupancy_campaign.cu, smem_bytes). */
static uint64_t smem_fn(void *user, uint32_t block)
{
    switch (*(const int *)user) {
    case 0: return 4 * (uint64_t)block;
    case 1: return 8 * (uint64_t)block + 1024;
    case 2: return 64 * (uint64_t)block;
    case 3: return 200 * (uint64_t)block;
    default: return block >= 512 ? 65536 : 16384;
    }
}

typedef struct potential_check {
    occ_device *dev;
    size_t rows, bad, driver_rows, fn_rows, none;
} potential_check;

static void potential_row(char **f, int n, void *user)
{
    potential_check *c = user;
    ck_assert_int_eq(n, 8); /* api,kernel,dyn_smem,smem_fn,block_limit,err,min_grid,block */
    const kattr *a = kernel_named(f[1]);
    long long dyn = atoll(f[2]);
    int fn = atoi(f[3]);
    occ_cuda_choice_request q;
    occ_cuda_choice_request_init(&q);
    if (fn >= 0) {
        q.slm_for_wg = smem_fn;
        q.user = &fn;
        c->fn_rows++;
    } else {
        q.dyn_slm_bytes = (uint64_t)dyn;
    }
    q.wg_limit = (uint32_t)atoi(f[4]);
    q.kernel_max_wg = a->max_threads;
    ck_assert_int_eq(atoi(f[5]), 0);
    occ_kernel k = kernel_of(a, 1, 0);
    occ_cuda_choice r = {.struct_size = sizeof r};
    ck_assert_int_eq(occ_cuda_block_size(c->dev, &k, &q, &r), OCC_OK);
    uint32_t block = (uint32_t)atoi(f[7]);
    uint64_t grid = strtoull(f[6], NULL, 10);
    c->rows++;
    c->driver_rows += strcmp(f[0], "driver") == 0;
    c->none += block == 0;
    if (r.wg_size != block || r.min_work_groups != grid) {
        if (c->bad < 20)
            fprintf(stderr, "%s %s dynamic %s fn %d limit %s: occ %u (grid %llu), CUDA %u (grid %llu)\n",
                    f[0], f[1], f[2], fn, f[4], r.wg_size, (unsigned long long)r.min_work_groups,
                    block, (unsigned long long)grid);
        c->bad++;
    }
}

START_TEST(potential_block_size)
{
    load_kernels();
    potential_check c = {.dev = tc_builtin("h200")};
    each_row(RUN "potential.csv.gz", potential_row, &c);
    fprintf(stderr, "potential block size: %zu of %zu answers differ\n", c.bad, c.rows);
    ck_assert_uint_eq(c.rows, 13260);      /* 6,630 configurations, driver and runtime */
    ck_assert_uint_eq(c.driver_rows, 6630);
    ck_assert_uint_gt(c.fn_rows, 0);       /* per-block shared-memory functions */
    ck_assert_uint_gt(c.none, 0);          /* and sizes where nothing launches */
    ck_assert_uint_eq(c.bad, 0);
    occ_device_free(c.dev);
}
END_TEST

/* The rule's own cases, by hand on h200 (64 warps, 32 blocks, 65536
 * registers, 228 KB): occ's ranking and CUDA's differ only among equals. */
START_TEST(potential_hand_computed)
{
    occ_device *dev = tc_builtin("h200");
    occ_cuda_choice_request q;
    occ_cuda_choice_request_init(&q);
    occ_cuda_choice r = {.struct_size = sizeof r};
    /* saxpy-like, 16 registers, nothing shared: 1024 threads x 2 blocks = 2048
     * (full) is reached first, from the top: 1024 (occ's smallest of equals is 64) */
    occ_kernel k;
    occ_kernel_init(&k);
    k.regs_per_thread = 16;
    ck_assert_int_eq(occ_cuda_block_size(dev, &k, &q, &r), OCC_OK);
    ck_assert_uint_eq(r.wg_size, 1024);
    ck_assert_uint_eq(r.resident_wgs, 2);
    ck_assert_uint_eq(r.min_work_groups, 264);
    /* 72 registers: rw = round_up(2304, 256) = 2304; 16384 / 2304 = 7 warps per
     * sub-partition = 28 per SM.  1024 (32 warps x 2304 = 73728 > 65536) cannot
     * launch, nor 992..928; 896 = 28 warps: 1 block, 896 threads = the most */
    k.regs_per_thread = 72;
    ck_assert_int_eq(occ_cuda_block_size(dev, &k, &q, &r), OCC_OK);
    ck_assert_uint_eq(r.wg_size, 896);
    ck_assert_uint_eq(r.min_work_groups, 132);
    /* a limit of 1000: candidates 1000 (32 warps, 2 blocks: 2000 threads), 992
     * (31 warps, 2: 1984), ..., 672 (21 warps, 3: 2016), ..., 512 (16 warps, 4:
     * 2048, full): 512, as the driver answered for k_light */
    k.regs_per_thread = 16;
    q.wg_limit = 1000;
    ck_assert_int_eq(occ_cuda_block_size(dev, &k, &q, &r), OCC_OK);
    ck_assert_uint_eq(r.wg_size, 512);
    ck_assert_uint_eq(r.resident_wgs, 4);
    /* a limit of 48, not a multiple of 32, is itself the first candidate: 2
     * warps, 32 blocks (the slots), 1536 threads; then 32: 32 blocks, 1024 */
    q.wg_limit = 48;
    ck_assert_int_eq(occ_cuda_block_size(dev, &k, &q, &r), OCC_OK);
    ck_assert_uint_eq(r.wg_size, 48);
    ck_assert_uint_eq(r.min_work_groups, 32 * 132);
    /* too much shared memory for any size: 0, grid 0 */
    q.wg_limit = 0;
    q.dyn_slm_bytes = 300 * 1024;
    ck_assert_int_eq(occ_cuda_block_size(dev, &k, &q, &r), OCC_OK);
    ck_assert_uint_eq(r.wg_size, 0);
    ck_assert_uint_eq(r.min_work_groups, 0);
    /* bad arguments */
    ck_assert_int_eq(occ_cuda_block_size(dev, &k, NULL, &r), OCC_ERR_INVALID_ARGUMENT);
    r.struct_size = 0;
    ck_assert_int_eq(occ_cuda_block_size(dev, &k, &q, &r), OCC_ERR_INVALID_ARGUMENT);
    occ_device_free(dev);
}
END_TEST

/* ---- cooperative launches ------------------------------------------------- */

typedef struct coop_check {
    occ_device *dev;
    uint32_t cores;
    size_t launched, refused_over, bound_refused;
} coop_check;

static void coop_row(char **f, int n, void *user)
{
    coop_check *c = user;
    ck_assert_int_eq(n, 7); /* kernel,block,dyn_smem,blocks_per_sm,coop_max,err_at_max,err_over_max */
    const kattr *a = kernel_named(f[0]);
    uint32_t block = (uint32_t)atoi(f[1]);
    occ_kernel k = kernel_of(a, block, strtoull(f[2], NULL, 10));
    int per_sm = atoi(f[3]), max = atoi(f[4]), at = atoi(f[5]), over = atoi(f[6]);
    ck_assert_int_eq((int)tc_resident(c->dev, &k), per_sm < 0 ? 0 : per_sm);
    if (per_sm <= 0)
        return; /* not launched */
    ck_assert_int_eq(max, per_sm * (int)c->cores);
    /* the public figure: the driver's cooperative maximum for the kernel as the
     * occupancy API sees it (no launch bound) */
    uint64_t coop = 0;
    ck_assert_int_eq(occ_cooperative_max(c->dev, &k, &coop), OCC_OK);
    ck_assert_uint_eq(coop, (uint64_t)max);
    if (block > a->max_threads) { /* over the launch bound: refused at any size */
        ck_assert_int_eq(at, CU_INVALID_VALUE);
        ck_assert_int_eq(over, CU_INVALID_VALUE);
        /* so is it with the kernel's bound in its description: no cooperative launch */
        k.max_wg_size = a->max_threads;
        ck_assert_int_eq(tc_residency(c->dev, &k).reason, OCC_REASON_KERNEL_MAX_WG);
        ck_assert_int_eq(occ_cooperative_max(c->dev, &k, &coop), OCC_OK);
        ck_assert_uint_eq(coop, 0);
        c->bound_refused++;
        return;
    }
    ck_assert_int_eq(at, 0);
    ck_assert_int_eq(over, CU_COOPERATIVE_TOO_LARGE);
    c->launched++;
}

START_TEST(cooperative_maximum)
{
    load_kernels();
    coop_check c = {.dev = tc_builtin("h200")};
    c.cores = occ_device_describe(c.dev)->cores;
    each_row(RUN "cooperative.csv", coop_row, &c);
    ck_assert_uint_eq(c.launched, 1085);
    ck_assert_uint_eq(c.bound_refused, 60);
    occ_device_free(c.dev);
}
END_TEST

/* ---- launches above a kernel's own maximum ---------------------------------- */

#define CU_LAUNCH_OUT_OF_RESOURCES 701

typedef struct launch_check {
    occ_device *dev;
    size_t ok, bound, resources;
} launch_check;

static void launch_row(char **f, int n, void *user)
{
    launch_check *c = user;
    ck_assert_int_eq(n, 6); /* kernel,block,max_threads_per_block,blocks_per_sm,err_launch,err_cluster_launch */
    const kattr *a = kernel_named(f[0]);
    uint32_t block = (uint32_t)atoi(f[1]);
    int per_sm = atoi(f[3]), plain = atoi(f[4]), cluster = atoi(f[5]);
    ck_assert_uint_eq((uint32_t)atoi(f[2]), a->max_threads);
    occ_kernel k = kernel_of(a, block, 0);
    occ_residency r = tc_residency(c->dev, &k);
    ck_assert_int_eq((int)(r.launchable ? r.resident_wgs : 0), per_sm);
    ck_assert_int_eq(plain, cluster); /* a cluster launch is refused alike */
    if (block <= a->max_threads) {
        ck_assert_int_eq(plain, 0);
        c->ok++;
    } else if (a->launch_bounds && block > a->launch_bounds) {
        /* over the declared bound: refused as an invalid value, whatever the
         * resources say (k_lb256 at 288 threads does not fit either) */
        ck_assert_int_eq(plain, CU_INVALID_VALUE);
        /* the kernel described with its bound: occ refuses it too, naming it */
        k.max_wg_size = a->launch_bounds;
        ck_assert_int_eq(tc_residency(c->dev, &k).reason, OCC_REASON_KERNEL_MAX_WG);
        c->bound++;
    } else { /* no bound declared: over what the registers allow */
        ck_assert(!r.launchable);
        ck_assert_int_eq(r.reason, OCC_REASON_REGS_PER_WG);
        ck_assert_int_eq(plain, CU_LAUNCH_OUT_OF_RESOURCES);
        c->resources++;
    }
}

START_TEST(launches_above_the_maximum)
{
    load_kernels();
    launch_check c = {.dev = tc_builtin("h200")};
    each_row(CUDA_DATA_DIR "/occupancy/h200-2026-11-28b/launches.csv", launch_row, &c);
    ck_assert_uint_eq(c.ok, 56);
    ck_assert_uint_eq(c.bound, 12);
    ck_assert_uint_eq(c.resources, 22);
    occ_device_free(c.dev);
}
END_TEST

/* ---- cuOccupancyMaxActiveClusters, cuOccupancyMaxPotentialClusterSize --- */

#define CU_CLUSTER_SIZE_REFUSED 912 /* CUDA_ERROR_CLUSTER_SIZE_NOT_SUPPORTED */

typedef struct cluster_check {
    occ_device *dev;
    size_t rows, bad, refused, compiled, zero, non_portable;
} cluster_check;

static void report(cluster_check *c, const char *what, const char *row, uint64_t model, long driver)
{
    if (c->bad++ < 20)
        fprintf(stderr, "%s %s: model %llu, driver %ld\n", what, row, (unsigned long long)model, driver);
}

static void clusters_row(char **f, int n, void *user)
{
    cluster_check *c = user;
    ck_assert_int_eq(n, 9); /* kernel,block,dyn_smem,cx,cy,cz,nonportable,err,max_clusters */
    const kattr *a = kernel_named(f[0]);
    occ_kernel k = kernel_of(a, (uint32_t)atoi(f[1]), strtoull(f[2], NULL, 10));
    for (int i = 0; i < 3; i++) /* compiled dimensions are the launch's */
        k.cluster[i] = a->cluster[0] ? a->cluster[i] : (uint32_t)atoi(f[3 + i]);
    k.cluster_non_portable = atoi(f[6]) != 0;
    int err = atoi(f[7]);
    long driver = atol(f[8]);
    occ_clusters cl;
    occ_diag diag = {0};
    occ_status st = occ_cluster_compute(c->dev, &k, &cl, &diag);
    c->rows++;
    c->compiled += a->cluster[0] != 0;
    c->non_portable += k.cluster_non_portable && cl.size > 8;
    if (err) {
        ck_assert_int_eq(err, CU_CLUSTER_SIZE_REFUSED);
        c->refused++;
        if (st != OCC_ERR_VALUE || !strstr(diag.message, "portable maximum of 8"))
            report(c, "refusal", f[0], st, err);
        return;
    }
    c->zero += driver == 0;
    if (st != OCC_OK || (long)cl.max_active_clusters != driver)
        report(c, "clusters", f[0], st ? 999999 : cl.max_active_clusters, driver);
    uint64_t plain = 0;
    ck_assert_int_eq(occ_max_active_clusters(c->dev, &k, &plain), OCC_OK);
    ck_assert_uint_eq(plain, cl.max_active_clusters);
}

/* Every row of a recorded file through row() on the built-in h200. */
static cluster_check cluster_replay(const char *file, void (*row)(char **, int, void *), const char *what)
{
    load_kernels();
    cluster_check c = {.dev = tc_builtin("h200")};
    each_row(file, row, &c);
    fprintf(stderr, "%s: %zu of %zu answers differ\n", what, c.bad, c.rows);
    occ_device_free(c.dev);
    c.dev = NULL;
    return c;
}

START_TEST(active_clusters)
{
    cluster_check c = cluster_replay(RUN "clusters.csv.gz", clusters_row, "clusters");
    ck_assert_uint_eq(c.rows, 85376);
    ck_assert_uint_eq(c.refused, 24552);
    ck_assert_uint_eq(c.bad, 0);
    /* the recording covers what it claims: compiled dimensions, sizes over 8
     * allowed, launches with no cluster resident */
    ck_assert_uint_gt(c.compiled, 0);
    ck_assert_uint_gt(c.non_portable, 0);
    ck_assert_uint_gt(c.zero, 0);
}
END_TEST

static void cluster_size_row(char **f, int n, void *user)
{
    cluster_check *c = user;
    ck_assert_int_eq(n, 7); /* kernel,block,dyn_smem,nonportable,grid,err,cluster_size */
    const kattr *a = kernel_named(f[0]);
    occ_kernel k = kernel_of(a, (uint32_t)atoi(f[1]), strtoull(f[2], NULL, 10));
    memcpy(k.cluster, a->cluster, sizeof k.cluster);
    k.cluster_non_portable = atoi(f[3]) != 0;
    ck_assert_int_eq(atoi(f[5]), 0);
    uint32_t size = 99;
    ck_assert_int_eq(occ_max_potential_cluster_size(c->dev, &k, &size), OCC_OK);
    c->rows++;
    c->zero += atoi(f[6]) == 0;
    c->compiled += a->cluster[0] != 0;
    if ((long)size != atol(f[6]))
        report(c, "potential size", f[0], size, atol(f[6]));
}

START_TEST(potential_cluster_size)
{
    cluster_check c = cluster_replay(RUN "cluster_size.csv.gz", cluster_size_row, "potential cluster size");
    ck_assert_uint_eq(c.rows, 9696);
    ck_assert_uint_eq(c.bad, 0);
    ck_assert_uint_gt(c.zero, 0);
    ck_assert_uint_gt(c.compiled, 0);
}
END_TEST

/* Hand-computed on h200's GPCs [18,18,16,16,16,16,16,8,2,2,2,2]. */
START_TEST(clusters_hand_computed)
{
    /* a launch's cluster size: 0 dimensions count as 1, none at all is no cluster launch */
    {
        occ_kernel c;
        occ_kernel_init(&c);
        ck_assert_uint_eq(occ_kernel_cluster_size(&c), 0);
        c.cluster[1] = 3;
        ck_assert_uint_eq(occ_kernel_cluster_size(&c), 3);
        c.cluster[0] = 2, c.cluster[2] = 2;
        ck_assert_uint_eq(occ_kernel_cluster_size(&c), 12);
        c.cluster[0] = c.cluster[1] = c.cluster[2] = 1u << 20;
        ck_assert_uint_eq(occ_kernel_cluster_size(&c), UINT32_MAX);
        ck_assert_uint_eq(occ_kernel_cluster_size(NULL), 0);
    }
    occ_device *dev = tc_builtin("h200");
    occ_kernel k;
    occ_kernel_init(&k);
    k.wg[0] = 1024; /* 2 blocks per SM by the warp slots */
    k.regs_per_thread = 32;
    k.cluster[0] = 16;
    k.cluster_non_portable = true;
    occ_clusters c;
    ck_assert_int_eq(occ_cluster_compute(dev, &k, &c, NULL), OCC_OK);
    /* floor(18*2/16) twice = 4; the GPCs of 16 and fewer cannot hold 16?  16 >= 16: 5 x 2 */
    ck_assert_uint_eq(c.work_groups_per_core, 2);
    ck_assert_uint_eq(c.max_active_clusters, 2 * 2 + 5 * 2);
    ck_assert_uint_eq(c.cores_used, 18 * 2 + 16 * 5);
    ck_assert_uint_eq(c.gpcs_used, 7);
    /* small blocks: 32 fit an SM, a cluster launch keeps 8 */
    k.wg[0] = 32;
    k.cluster[0] = 2, k.cluster[1] = 2; /* 4 blocks: every GPC but the pairs */
    ck_assert_int_eq(occ_cluster_compute(dev, &k, &c, NULL), OCC_OK);
    ck_assert_uint_eq(c.size, 4);
    ck_assert_uint_eq(c.work_groups_per_core, 8);
    ck_assert_uint_eq(c.max_active_clusters, (18 * 8 / 4) * 2 + (16 * 8 / 4) * 5 + 8 * 8 / 4);
    /* waves: 3 full waves of 248 clusters and 10 more */
    occ_residency r;
    ck_assert_int_eq(occ_residency_compute(dev, &k, &r), OCC_OK);
    occ_gpu g;
    ck_assert_int_eq(occ_gpu_compute_clusters(dev, &r, &c, (3 * 248 + 10) * 4, &g), OCC_OK);
    ck_assert_uint_eq(g.wave_capacity, 248 * 4);
    ck_assert_uint_eq(g.waves, 4);
    ck_assert_uint_eq(g.last_wave_work_groups, 40);
    ck_assert_uint_eq(g.max_active_clusters, 248);
    ck_assert_int_eq(occ_gpu_compute_clusters(dev, &r, &c, 4 * 248 + 2, &g), OCC_ERR_VALUE);
    /* over the portable maximum; the refusal says how to allow more */
    k.cluster[0] = 3, k.cluster[1] = 3, k.cluster_non_portable = false;
    occ_diag d = {0};
    ck_assert_int_eq(occ_cluster_compute(dev, &k, &c, &d), OCC_ERR_VALUE);
    ck_assert_ptr_nonnull(strstr(d.message, "non-portable"));
    k.cluster_non_portable = true;
    k.cluster[0] = 17, k.cluster[1] = 1;
    ck_assert_int_eq(occ_cluster_compute(dev, &k, &c, &d), OCC_ERR_VALUE);
    uint32_t size = 0;
    ck_assert_int_eq(occ_max_potential_cluster_size(dev, &k, &size), OCC_OK);
    ck_assert_uint_eq(size, 16);
    occ_device_free(dev);
    /* a profile without GPC data refuses in words */
    dev = tc_builtin("h100-sxm");
    k.cluster[0] = 2;
    ck_assert_int_eq(occ_cluster_compute(dev, &k, &c, &d), OCC_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(d.message, "gpc_sms"));
    ck_assert_int_eq(occ_max_potential_cluster_size(dev, &k, &size), OCC_ERR_UNSUPPORTED);
    ck_assert_uint_eq(occ_max_active_clusters_of(dev, 8, 2), 0);
    occ_device_free(dev);
}
END_TEST

/* ---- where clusters ran ---------------------------------------------------- */

#define SMS 132

#define MAX_CLUSTERS 4096

typedef struct placement {
    int parent[SMS];
    int first_sm[MAX_CLUSTERS]; /* of each cluster of the current launch; -1 none yet */
    long launch;
    size_t rows;
} placement;

static int root(placement *p, int x)
{
    while (p->parent[x] != x)
        x = p->parent[x] = p->parent[p->parent[x]];
    return x;
}

/* Join each block's SM with the first SM of its cluster in its launch. */
static void placement_row(char **f, int n, void *user)
{
    placement *p = user;
    ck_assert_int_ge(n, 11);
    long launch = atol(f[0]), cluster = atol(f[10]);
    int sm = atoi(f[7]);
    ck_assert(sm >= 0 && sm < SMS && cluster >= 0 && cluster < MAX_CLUSTERS);
    if (launch != p->launch)
        memset(p->first_sm, -1, sizeof p->first_sm);
    p->launch = launch;
    if (p->first_sm[cluster] < 0)
        p->first_sm[cluster] = sm;
    p->parent[root(p, sm)] = root(p, p->first_sm[cluster]);
    p->rows++;
}

static int by_size_down(const void *a, const void *b)
{
    return (int)*(const uint32_t *)b - (int)*(const uint32_t *)a;
}

START_TEST(gpcs_from_placement)
{
    occ_device *dev = tc_builtin("h200");
    const occ_device_desc *d = occ_device_describe(dev);
    const char *files[] = {RUN "placement.csv.gz",
                           CUDA_DATA_DIR "/occupancy/h200x2-2026-11-28/gpu0-placement.csv.gz",
                           CUDA_DATA_DIR "/occupancy/h200x2-2026-11-28/gpu1-placement.csv.gz"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        placement p = {.launch = -1};
        for (int s = 0; s < SMS; s++)
            p.parent[s] = s;
        each_row(files[i], placement_row, &p);
        ck_assert_uint_gt(p.rows, 20000);
        uint32_t sizes[SMS] = {0}, groups[SMS], n = 0;
        for (int s = 0; s < SMS; s++)
            sizes[root(&p, s)]++;
        for (int s = 0; s < SMS; s++)
            if (sizes[s])
                groups[n++] = sizes[s];
        qsort(groups, n, sizeof *groups, by_size_down);
        ck_assert_uint_eq(n, d->n_gpcs);
        for (uint32_t g = 0; g < n; g++)
            ck_assert_uint_eq(groups[g], d->gpc_sms[g]);
    }
    occ_device_free(dev);
}
END_TEST

/* The peak number of blocks at once on one SM during each launch of the
 * co-residency probe: events sorted by time, ends before starts. */
typedef struct event {
    long long t;
    int sm, delta; /* +1 a start, -1 an end */
} event;

typedef struct coresidency {
    long launch;
    int cluster_size;
    size_t n, cap;
    event *ev;
    uint32_t peak_cluster, peak_plain;
} coresidency;

static int by_time(const void *a, const void *b)
{
    const event *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return x->delta - y->delta; /* an end before a start at the same time */
}

static void coresidency_flush(coresidency *c)
{
    int on[SMS] = {0};
    uint32_t peak = 0;
    qsort(c->ev, c->n, sizeof *c->ev, by_time);
    for (size_t i = 0; i < c->n; i++) {
        on[c->ev[i].sm] += c->ev[i].delta;
        if ((uint32_t)on[c->ev[i].sm] > peak)
            peak = (uint32_t)on[c->ev[i].sm];
    }
    uint32_t *into = c->cluster_size ? &c->peak_cluster : &c->peak_plain;
    if (peak > *into)
        *into = peak;
    c->n = 0;
}

static void coresidency_row(char **f, int n, void *user)
{
    coresidency *c = user;
    ck_assert_int_eq(n, 12); /* launch,cluster_size,block_size,blocks_per_sm,max_clusters,clusters,block,smid,... */
    long launch = atol(f[0]);
    if (launch != c->launch && c->n)
        coresidency_flush(c);
    c->launch = launch;
    c->cluster_size = atoi(f[1]);
    if (c->n + 2 > c->cap) {
        c->cap = c->cap ? 2 * c->cap : 4096;
        c->ev = realloc(c->ev, c->cap * sizeof *c->ev);
        ck_assert_ptr_nonnull(c->ev);
    }
    int sm = atoi(f[7]);
    ck_assert(sm >= 0 && sm < SMS);
    c->ev[c->n].t = atoll(f[10]), c->ev[c->n].sm = sm, c->ev[c->n++].delta = 1;
    c->ev[c->n].t = atoll(f[11]), c->ev[c->n].sm = sm, c->ev[c->n++].delta = -1;
}

START_TEST(cluster_coresidency)
{
    occ_device *dev = tc_builtin("h200");
    coresidency c = {.launch = -1};
    each_row(CUDA_DATA_DIR "/occupancy/h200-2026-11-28b/coresidency.csv.gz", coresidency_row, &c);
    coresidency_flush(&c);
    free(c.ev);
    /* 32 blocks of 32 threads at once in an ordinary launch, the cap in a cluster launch */
    ck_assert_uint_eq(c.peak_plain, 32);
    ck_assert_uint_eq(c.peak_cluster, occ_device_describe(dev)->cluster_max_work_groups);
    occ_device_free(dev);
}
END_TEST

/* ---- the rule inverted: GPCs from the driver's cluster answers ----------------- */

/* The answers of sizes 1..16 that dev gives a kernel of `per_core` work-groups per core. */
static occ_cluster_answers answers_of(const occ_device *dev, uint32_t per_core)
{
    occ_cluster_answers a = {.work_groups_per_core = per_core, .n_sizes = 16};
    for (uint32_t c = 1; c <= 16; c++)
        a.clusters[c - 1] = occ_max_active_clusters_of(dev, per_core, c);
    return a;
}

static void assert_gpcs(const occ_gpc_structure *g, const uint32_t *want, uint32_t n, uint32_t cap)
{
    ck_assert_uint_eq(g->n_gpcs, n);
    for (uint32_t i = 0; i < n; i++)
        ck_assert_uint_eq(g->gpc_sms[i], want[i]);
    ck_assert_uint_eq(g->cluster_max_work_groups, cap);
}

START_TEST(gpcs_inverted_hand_computed)
{
    /* GPCs of 3 and 2 cores, one work-group per core: A = 5, 1 + 1, 1; but
     * one GPC of 5 (5, 2, 1) or GPCs of 4 and 1 (5, 2, 1) answer alike */
    occ_cluster_answers one = {.work_groups_per_core = 1, .n_sizes = 3, .clusters = {5, 2, 1}};
    occ_gpc_structure g;
    occ_diag diag;
    ck_assert_int_eq(occ_gpcs_from_clusters(5, &one, 1, &g, &diag), OCC_ERR_VALUE);
    ck_assert_ptr_nonnull(strstr(diag.message, "fit GPCs of [5] and of [4, 1]"));
    /* two per core: A = 10, 3 + 2, 2 + 0; [5] gives 10, 5, 3 and [4, 1] 10, 4, 2 */
    occ_cluster_answers small = {.work_groups_per_core = 2, .n_sizes = 3, .clusters = {10, 5, 2}};
    ck_assert_int_eq(occ_gpcs_from_clusters(5, &small, 1, &g, &diag), OCC_OK);
    assert_gpcs(&g, (const uint32_t[]){3, 2}, 2, 2);
    /* both sets together: still one structure */
    occ_cluster_answers both[2] = {one, small};
    ck_assert_int_eq(occ_gpcs_from_clusters(5, both, 2, &g, &diag), OCC_OK);
    assert_gpcs(&g, (const uint32_t[]){3, 2}, 2, 2);
    /* the same answers with 4 work-groups fitting a core: capped at 2 */
    small.work_groups_per_core = 4;
    ck_assert_int_eq(occ_gpcs_from_clusters(5, &small, 1, &g, &diag), OCC_OK);
    assert_gpcs(&g, (const uint32_t[]){3, 2}, 2, 2);
    /* bad answers: size 1 not a multiple of the cores, more than the residency,
     * more clusters of 2 than of 1, no structure, two caps */
    occ_cluster_answers bad = small;
    bad.clusters[0] = 11;
    ck_assert_int_eq(occ_gpcs_from_clusters(5, &bad, 1, &g, &diag), OCC_ERR_VALUE);
    ck_assert_ptr_nonnull(strstr(diag.message, "not the cluster rule"));
    bad = small, bad.work_groups_per_core = 0;
    ck_assert_int_eq(occ_gpcs_from_clusters(5, &bad, 1, &g, &diag), OCC_ERR_VALUE);
    bad = small, bad.clusters[1] = 11;
    ck_assert_int_eq(occ_gpcs_from_clusters(5, &bad, 1, &g, &diag), OCC_ERR_VALUE);
    bad = small, bad.clusters[2] = 4; /* 4 clusters of 3 in 5 cores of two */
    ck_assert_int_eq(occ_gpcs_from_clusters(5, &bad, 1, &g, &diag), OCC_ERR_VALUE);
    ck_assert_ptr_nonnull(strstr(diag.message, "no GPCs of 5 cores"));
    occ_cluster_answers two[2] = {small, {.work_groups_per_core = 8, .n_sizes = 1, .clusters = {15}}};
    ck_assert_int_eq(occ_gpcs_from_clusters(5, two, 2, &g, &diag), OCC_ERR_VALUE);
    ck_assert_int_eq(occ_gpcs_from_clusters(0, &small, 1, &g, &diag), OCC_ERR_VALUE);
    ck_assert_int_eq(occ_gpcs_from_clusters(5, &small, 0, &g, &diag), OCC_ERR_INVALID_ARGUMENT);
    /* a kernel that holds nothing says nothing */
    occ_cluster_answers none = {.work_groups_per_core = 0, .n_sizes = 16};
    ck_assert_int_eq(occ_gpcs_from_clusters(5, &none, 1, &g, &diag), OCC_ERR_VALUE);
    ck_assert_ptr_nonnull(strstr(diag.message, "no answer set holds"));
}
END_TEST

/* The H200's GPCs and a made-up structure come back from the answers the rule
 * gives them; with 2 work-groups per core alone the H200's answers also fit
 * GPCs of [19, 19, ...] (ambiguous), another residency tells them apart. */
START_TEST(gpcs_inverted_round_trip)
{
    static const uint32_t h200[] = {18, 18, 16, 16, 16, 16, 16, 8, 2, 2, 2, 2};
    static const uint32_t other[] = {20, 20, 18, 16, 14, 14, 12, 10, 8}; /* 132 too, cap 6 */
    occ_device *dev = tc_builtin("h200");
    occ_gpc_structure g;
    occ_diag diag;
    for (uint32_t b = 1; b <= 32; b++) {
        occ_cluster_answers a = answers_of(dev, b);
        occ_status st = occ_gpcs_from_clusters(132, &a, 1, &g, &diag);
        if (b == 2) {
            ck_assert_int_eq(st, OCC_ERR_VALUE);
            ck_assert_ptr_nonnull(strstr(diag.message, "[19, 19, 16, 16, 16, 16, 16, 8, 2, 2, 2]"));
            continue;
        }
        ck_assert_int_eq(st, OCC_OK);
        /* the cap shows only above 8 work-groups per core */
        assert_gpcs(&g, h200, 12, b > 8 ? 8 : b);
    }
    occ_cluster_answers pair[2] = {answers_of(dev, 2), answers_of(dev, 32)};
    ck_assert_int_eq(occ_gpcs_from_clusters(132, pair, 2, &g, &diag), OCC_OK);
    assert_gpcs(&g, h200, 12, 8);

    occ_device_desc d = *occ_device_describe(dev);
    occ_device_free(dev);
    d.n_gpcs = 9;
    memcpy(d.gpc_sms, other, sizeof other);
    d.cluster_max_work_groups = 6;
    ck_assert_int_eq(occ_device_create(&d, &dev, &diag), OCC_OK);
    occ_cluster_answers sets[3] = {answers_of(dev, 32), answers_of(dev, 4), answers_of(dev, 1)};
    ck_assert_int_eq(occ_gpcs_from_clusters(132, sets, 3, &g, &diag), OCC_OK);
    assert_gpcs(&g, other, 9, 6);
    /* the wrong core count fits nothing */
    ck_assert_int_eq(occ_gpcs_from_clusters(131, sets, 3, &g, &diag), OCC_ERR_VALUE);
    occ_device_free(dev);
}
END_TEST

/* What an H200's driver answered (clusters.csv.gz: 1-D sizes 1..16, non-portable
 * allowed; occupancy.csv.gz: the same configuration's blocks per SM, opted in),
 * inverted: every configuration alone gives the profile's GPCs or says it is
 * ambiguous, all of them together give the profile's GPCs and cap (dynamic
 * sizes that occupancy.csv.gz does not hold are left out). */
#define MAX_CONFIGS 4096
typedef struct recorded {
    struct {
        char kernel[32];
        uint32_t block;
        uint64_t dyn;
        occ_cluster_answers a;
        uint32_t answered; /* bit c-1: size c answered */
        bool resident;     /* occupancy.csv.gz has the configuration */
    } cfg[MAX_CONFIGS];
    size_t n;
} recorded;

static size_t config_of(recorded *r, const char *kernel, uint32_t block, uint64_t dyn, bool add)
{
    for (size_t i = 0; i < r->n; i++) /* the files list one configuration's rows together */
        if (r->cfg[r->n - 1 - i].block == block && r->cfg[r->n - 1 - i].dyn == dyn &&
            !strcmp(r->cfg[r->n - 1 - i].kernel, kernel))
            return r->n - 1 - i;
    if (!add || r->n == MAX_CONFIGS)
        return SIZE_MAX;
    snprintf(r->cfg[r->n].kernel, sizeof r->cfg[r->n].kernel, "%s", kernel);
    r->cfg[r->n].block = block;
    r->cfg[r->n].dyn = dyn;
    r->cfg[r->n].a.n_sizes = 16;
    return r->n++;
}

static void recorded_cluster_row(char **f, int n, void *user)
{
    ck_assert_int_eq(n, 9); /* kernel,block,dyn_smem,cx,cy,cz,nonportable,err,max_clusters */
    const kattr *k = kernel_named(f[0]);
    int cx = atoi(f[3]);
    if (k->cluster[0] || atoi(f[4]) != 1 || atoi(f[5]) != 1 || atoi(f[6]) != 1 || atoi(f[7]) != 0 ||
        cx < 1 || cx > 16)
        return;
    recorded *r = user;
    size_t i = config_of(r, f[0], (uint32_t)atoi(f[1]), strtoull(f[2], NULL, 10), true);
    ck_assert_uint_ne(i, SIZE_MAX);
    r->cfg[i].a.clusters[cx - 1] = strtoull(f[8], NULL, 10);
    r->cfg[i].answered |= 1u << (cx - 1);
}

static void recorded_occupancy_row(char **f, int n, void *user)
{
    ck_assert_int_eq(n, 7); /* kernel,block,dyn_smem,optin,flags,err,blocks_per_sm */
    if (atoi(f[3]) != 1)
        return;
    recorded *r = user;
    size_t i = config_of(r, f[0], (uint32_t)atoi(f[1]), strtoull(f[2], NULL, 10), false);
    if (i != SIZE_MAX)
        r->cfg[i].a.work_groups_per_core = (uint32_t)atoi(f[6]), r->cfg[i].resident = true;
}

START_TEST(gpcs_from_recorded_answers)
{
    load_kernels();
    recorded *r = calloc(1, sizeof *r);
    ck_assert_ptr_nonnull(r);
    each_row(RUN "clusters.csv.gz", recorded_cluster_row, r);
    each_row(RUN "occupancy.csv.gz", recorded_occupancy_row, r);
    occ_device *dev = tc_builtin("h200");
    const occ_device_desc *d = occ_device_describe(dev);
    occ_cluster_answers *all = calloc(r->n, sizeof *all);
    ck_assert_ptr_nonnull(all);
    size_t n_all = 0, unique = 0, ambiguous = 0, capped = 0;
    for (size_t i = 0; i < r->n; i++) {
        if (r->cfg[i].answered != 0xffffu || !r->cfg[i].resident || !r->cfg[i].a.clusters[0])
            continue;
        occ_gpc_structure g;
        occ_diag diag;
        occ_status st = occ_gpcs_from_clusters(d->cores, &r->cfg[i].a, 1, &g, &diag);
        if (st == OCC_OK) {
            assert_gpcs(&g, d->gpc_sms, d->n_gpcs,
                        r->cfg[i].a.work_groups_per_core > d->cluster_max_work_groups
                            ? d->cluster_max_work_groups
                            : r->cfg[i].a.work_groups_per_core);
            unique++;
            capped += r->cfg[i].a.work_groups_per_core > d->cluster_max_work_groups;
        } else {
            ck_assert_int_eq(st, OCC_ERR_VALUE);
            if (!strstr(diag.message, "the answers fit GPCs of"))
                ck_abort_msg("%s block %u dynamic %llu: %s", r->cfg[i].kernel, r->cfg[i].block,
                             (unsigned long long)r->cfg[i].dyn, diag.message);
            ambiguous++;
        }
        all[n_all++] = r->cfg[i].a;
    }
    fprintf(stderr, "GPCs from %zu recorded configurations: %zu alone (%zu capped), %zu ambiguous alone\n",
            n_all, unique, capped, ambiguous);
    ck_assert_uint_gt(unique, 0);
    ck_assert_uint_gt(capped, 0);
    occ_gpc_structure g;
    occ_diag diag;
    ck_assert_int_eq(occ_gpcs_from_clusters(d->cores, all, n_all, &g, &diag), OCC_OK);
    assert_gpcs(&g, d->gpc_sms, d->n_gpcs, d->cluster_max_work_groups);
    free(all);
    free(r);
    occ_device_free(dev);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cuda-occupancy");
    TCase *tc = tcase_create("h200");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, occupancy_h200);
    tcase_add_test(tc, occupancy_h100_sxm);
    tcase_add_test(tc, potential_block_size);
    tcase_add_test(tc, potential_hand_computed);
    tcase_add_test(tc, cooperative_maximum);
    tcase_add_test(tc, launches_above_the_maximum);
    tcase_add_test(tc, active_clusters);
    tcase_add_test(tc, potential_cluster_size);
    tcase_add_test(tc, clusters_hand_computed);
    tcase_add_test(tc, gpcs_from_placement);
    tcase_add_test(tc, cluster_coresidency);
    tcase_add_test(tc, gpcs_inverted_hand_computed);
    tcase_add_test(tc, gpcs_inverted_round_trip);
    tcase_add_test(tc, gpcs_from_recorded_answers);
    suite_add_tcase(s, tc);
    return tc_run(s);
}
