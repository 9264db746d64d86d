/*
 * The Level Zero validation backend: every ze* call of libocc, each through
 * the loader that ze_loader.c opens when a command first needs it.
 *
 * backend.c runs these operations in its watchdog child process, so a driver
 * that crashes (the loader segfaults on a ze* call after a failed zeInit; the
 * Intel driver aborts on some bad arguments) or hangs ends that child, and
 * the caller gets OCC_ERR_DEVICE with a message.
 *
 * Rule kept here: no ze* call after a failed zeInit.
 *
 * Probe kernels: kernels/probe_ze.cl, compiled to SPIR-V at build time, one
 * module per sub-group size (probe_ze_sg8/16/32.spv), four kernels each (with
 * and without barrier and dynamic SLM).  The module is built here by the
 * driver's compiler (large GRF: -ze-opt-large-register-file) and the compiled
 * kernel's properties are read back.  Each hardware thread records its
 * location (intel_get_* built-ins) and cycle counter at start and end; the
 * kernel's Level Zero timestamps bracket the run and calibrate the counter.
 *
 * Test hooks (environment OCC_ZE_FAULT, docs/validation-level-zero.md):
 *   ze-after-failed-init  call zeDriverGet after a failed zeInit (what the rule forbids)
 *   slm-overflow          ask the driver about an SLM size over its maximum (it aborts)
 *   hang                  stop responding when opening (the watchdog ends it)
 */
#include "validate/backend_impl.h"
#include "validate/backends/ze/backend_ze.h"
#include "compile/ze_loader.h" /* every ze* call goes through the loader opened on use */
#include "compile/ze_module.h"
#include "common/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef enum ze_fault {
    FAULT_NONE = 0,
    FAULT_ZE_AFTER_FAILED_INIT,
    FAULT_SLM_OVERFLOW,
    FAULT_HANG,
} ze_fault;

#define N_MODULES 6 /* sub-groups 8/16/32 x default/large GRF */
#define N_KERNELS 4

static const char *const kernel_names[N_KERNELS] = {
    "occ_probe", "occ_probe_barrier", "occ_probe_slm", "occ_probe_barrier_slm",
};

typedef struct ze_module_slot {
    uint32_t sub_group;
    bool large_grf;
    ze_module_handle_t module;
    ze_kernel_handle_t kernels[N_KERNELS];
} ze_module_slot;

typedef struct ze_state {
    ze_driver_handle_t driver;
    ze_device_handle_t device;
    ze_context_handle_t context;
    occ_ze_props props;
    occ_ze_profile profile;
    occ_device *model;          /* the probed profile as a device; NULL if incomplete */
    uint32_t device_count;
    char kernel_dir[512];
    bool have_kernel_dir;
    ze_module_slot modules[N_MODULES];
    double cycle_hz;            /* intel_get_cycle_counter() rate; calibrated by runs */
    bool cycle_hz_measured;
    bool calibration_tried;
    double timeout_s;           /* the watchdog's; waits here end a little earlier */
    ze_fault fault;
} ze_state;

/* ---- errors ------------------------------------------------------------------ */

static occ_status ze_fail(ze_result_t r, occ_status s, occ_diag *diag, const char *what)
{
    return occ__diag(diag, s, NULL, 0, 0, NULL, "%s failed: %s (0x%08x)", what, occ__ze_result_name(r),
                     (unsigned)r);
}

#define ZE_TRY(call, status, what)                                                                 \
    do {                                                                                           \
        ze_result_t r_ = (call);                                                                   \
        if (r_ != ZE_RESULT_SUCCESS)                                                               \
            return ze_fail(r_, status, diag, what);                                                \
    } while (0)

/* ---- opening ------------------------------------------------------------------- */

static ze_fault fault_from_env(void)
{
    const char *f = getenv("OCC_ZE_FAULT");
    if (!f)
        return FAULT_NONE;
    if (strcmp(f, "ze-after-failed-init") == 0)
        return FAULT_ZE_AFTER_FAILED_INIT;
    if (strcmp(f, "slm-overflow") == 0)
        return FAULT_SLM_OVERFLOW;
    if (strcmp(f, "hang") == 0)
        return FAULT_HANG;
    return FAULT_NONE;
}

/* The request's GPU among the devices of every driver. */
static occ_status pick_device(ze_state *st, uint32_t index, occ_diag *diag)
{
    uint32_t n_drivers = 0;
    ZE_TRY(zeDriverGet(&n_drivers, NULL), OCC_ERR_DEVICE, "zeDriverGet");
    ze_driver_handle_t drivers[16];
    if (n_drivers > 16)
        n_drivers = 16;
    ZE_TRY(zeDriverGet(&n_drivers, drivers), OCC_ERR_DEVICE, "zeDriverGet");
    uint32_t seen = 0;
    for (uint32_t i = 0; i < n_drivers; i++) {
        uint32_t n = 0;
        ZE_TRY(zeDeviceGet(drivers[i], &n, NULL), OCC_ERR_DEVICE, "zeDeviceGet");
        ze_device_handle_t devs[64];
        if (n > 64)
            n = 64;
        ZE_TRY(zeDeviceGet(drivers[i], &n, devs), OCC_ERR_DEVICE, "zeDeviceGet");
        for (uint32_t j = 0; j < n; j++) {
            ze_device_properties_t p = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
            ZE_TRY(zeDeviceGetProperties(devs[j], &p), OCC_ERR_DEVICE, "zeDeviceGetProperties");
            if (p.type != ZE_DEVICE_TYPE_GPU)
                continue;
            if (seen == index) {
                st->driver = drivers[i];
                st->device = devs[j];
            }
            seen++;
        }
    }
    st->device_count = seen;
    if (!st->device && !seen)
        return occ__diag(diag, OCC_ERR_DEVICE, NULL, 0, 0, NULL,
                         "the Level Zero drivers report no GPU (GPU %u requested)", index);
    if (!st->device)
        return occ__diag(diag, OCC_ERR_DEVICE, NULL, 0, 0, NULL,
                         "no Level Zero GPU number %u: the drivers report %u GPU%s", index, seen,
                         seen == 1 ? "" : "s");
    return OCC_OK;
}

static bool has_extension(ze_driver_handle_t driver, const char *name)
{
    uint32_t n = 0;
    if (zeDriverGetExtensionProperties(driver, &n, NULL) != ZE_RESULT_SUCCESS || !n)
        return false;
    ze_driver_extension_properties_t *e = calloc(n, sizeof *e);
    if (!e)
        return false;
    bool found = false;
    if (zeDriverGetExtensionProperties(driver, &n, e) == ZE_RESULT_SUCCESS)
        for (uint32_t i = 0; i < n && !found; i++)
            found = strcmp(e[i].name, name) == 0;
    free(e);
    return found;
}

static occ_status read_props(ze_state *st, occ_diag *diag)
{
    occ_ze_props *o = &st->props;
    memset(o, 0, sizeof *o);
    ze_eu_count_ext_t eu = {.stype = ZE_STRUCTURE_TYPE_EU_COUNT_EXT};
    o->has_eu_count_ext = has_extension(st->driver, ZE_EU_COUNT_EXT_NAME);
    ze_device_properties_t p = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES,
                                .pNext = o->has_eu_count_ext ? &eu : NULL};
    ZE_TRY(zeDeviceGetProperties(st->device, &p), OCC_ERR_DEVICE, "zeDeviceGetProperties");
    snprintf(o->name, sizeof o->name, "%s", p.name);
    o->vendor_id = p.vendorId;
    o->device_id = p.deviceId;
    o->integrated = (p.flags & ZE_DEVICE_PROPERTY_FLAG_INTEGRATED) != 0;
    o->threads_per_eu = p.numThreadsPerEU;
    o->simd_width = p.physicalEUSimdWidth;
    o->eus_per_subslice = p.numEUsPerSubslice;
    o->subslices_per_slice = p.numSubslicesPerSlice;
    o->slices = p.numSlices;
    o->eu_count_ext = o->has_eu_count_ext ? eu.numTotalEUs : 0;
    o->timer_resolution = p.timerResolution;
    o->kernel_ts_valid_bits = p.kernelTimestampValidBits;
    o->core_clock_mhz = p.coreClockRate;

    ze_device_compute_properties_t cp = {.stype = ZE_STRUCTURE_TYPE_DEVICE_COMPUTE_PROPERTIES};
    ZE_TRY(zeDeviceGetComputeProperties(st->device, &cp), OCC_ERR_DEVICE,
           "zeDeviceGetComputeProperties");
    o->max_total_group_size = cp.maxTotalGroupSize;
    o->max_group_size[0] = cp.maxGroupSizeX;
    o->max_group_size[1] = cp.maxGroupSizeY;
    o->max_group_size[2] = cp.maxGroupSizeZ;
    o->max_slm = cp.maxSharedLocalMemory;
    for (uint32_t i = 0; i < cp.numSubGroupSizes && i < OCC_ZE_MAX_SG; i++)
        o->sub_group_sizes[o->n_sub_group_sizes++] = cp.subGroupSizes[i];

    ze_driver_properties_t dp = {.stype = ZE_STRUCTURE_TYPE_DRIVER_PROPERTIES};
    if (zeDriverGetProperties(st->driver, &dp) == ZE_RESULT_SUCCESS)
        o->driver_version = dp.driverVersion;
    ze_api_version_t av;
    if (zeDriverGetApiVersion(st->driver, &av) == ZE_RESULT_SUCCESS)
        o->api_version = (uint32_t)av;

    if (has_extension(st->driver, ZE_PCI_PROPERTIES_EXT_NAME)) {
        ze_pci_ext_properties_t pci = {.stype = ZE_STRUCTURE_TYPE_PCI_EXT_PROPERTIES};
        if (zeDevicePciGetPropertiesExt(st->device, &pci) == ZE_RESULT_SUCCESS)
            snprintf(o->bus_id, sizeof o->bus_id, "%04x:%02x:%02x.%x", pci.address.domain & 0xffff,
                     pci.address.bus & 0xff, pci.address.device & 0x1f, pci.address.function & 7);
    }

    /* The Intel driver's hardware-less mode (command stream receiver 1 = AUB
     * capture): launches succeed, nothing executes. */
    const char *keys = getenv("NEOReadDebugKeys");
    const char *csr = getenv("SetCommandStreamReceiver");
    const char *product = getenv("ProductFamilyOverride");
    o->hardware_less = keys && strcmp(keys, "1") == 0 && csr && strcmp(csr, "1") == 0;
    if (o->hardware_less && product)
        snprintf(o->product_override, sizeof o->product_override, "%s", product);
    return OCC_OK;
}

static occ_status ze_open(const occ_backend_options *opts, void **state, occ_diag *diag)
{
    ze_fault fault = fault_from_env();
    if (fault == FAULT_HANG)
        for (;;)
            pause();
    OCC__TRY(occ__ze_load(diag));
    /* zeInit first; after a failure no other ze* function may be called. */
    ze_result_t r = zeInit(ZE_INIT_FLAG_GPU_ONLY);
    if (r != ZE_RESULT_SUCCESS) {
        if (fault == FAULT_ZE_AFTER_FAILED_INIT) {
            uint32_t n = 0;
            zeDriverGet(&n, NULL); /* the loader segfaults here when the Intel driver has no GPU */
        }
        return occ__diag(diag, OCC_ERR_DEVICE, NULL, 0, 0, NULL,
                         "Level Zero: zeInit failed (%s, 0x%08x): no usable Level Zero GPU driver. "
                         "Either none is installed, or the Intel driver (intel-opencl-icd / "
                         "intel-level-zero-gpu) is installed but found no Intel GPU it supports",
                         occ__ze_result_name(r), (unsigned)r);
    }
    ze_state *st = calloc(1, sizeof *st);
    if (!st)
        return occ__diag(diag, OCC_ERR_NO_MEMORY, NULL, 0, 0, NULL, "out of memory");
    st->fault = fault;
    st->timeout_s = opts->timeout_s;
    occ_status s = pick_device(st, opts->device_index, diag);
    if (s == OCC_OK)
        s = read_props(st, diag);
    if (s == OCC_OK)
        s = occ__ze_profile(&st->props, &st->profile, diag);
    if (s == OCC_OK && st->props.vendor_id != 0x8086)
        s = occ__diag(diag, OCC_ERR_DEVICE, NULL, 0, 0, NULL,
                      "Level Zero GPU '%s' is not an Intel GPU (vendor 0x%04x): the probe kernels "
                      "use Intel built-ins",
                      st->props.name, st->props.vendor_id);
    if (s != OCC_OK) {
        free(st);
        return s;
    }
    if (st->profile.complete)
        occ_device_create(&st->profile.desc, &st->model, NULL);
    if (opts->kernel_dir && *opts->kernel_dir) {
        snprintf(st->kernel_dir, sizeof st->kernel_dir, "%s", opts->kernel_dir);
        st->have_kernel_dir = true;
    }
    st->cycle_hz = st->props.core_clock_mhz ? st->props.core_clock_mhz * 1e6 : 1e9;
    *state = st;
    return OCC_OK;
}

static void ze_close(void *state)
{
    ze_state *st = state;
    if (!st)
        return;
    for (int i = 0; i < N_MODULES; i++) {
        for (int k = 0; k < N_KERNELS; k++)
            if (st->modules[i].kernels[k])
                zeKernelDestroy(st->modules[i].kernels[k]);
        if (st->modules[i].module)
            zeModuleDestroy(st->modules[i].module);
    }
    if (st->context)
        zeContextDestroy(st->context);
    occ_device_free(st->model);
    free(st);
}

/* ---- describe ------------------------------------------------------------------- */

/* Provenance lines for the profile's sources list. */
static void write_sources(const ze_state *st, occ_backend_info *info)
{
    const occ_ze_profile *pr = &st->profile;
    const occ_ze_props *p = &st->props;
    uint32_t n = 0;
#define LINE(...) snprintf(info->sources[n++], sizeof info->sources[0], __VA_ARGS__)
    LINE("Level Zero driver %u.%u.%u (API %u.%u), device '%.100s' [0x%04x]", p->driver_version >> 24,
         (p->driver_version >> 16) & 0xff, p->driver_version & 0xffff, p->api_version >> 16,
         p->api_version & 0xffff, p->name, p->device_id);
    if (p->hardware_less)
        LINE("hardware-less mode of the Intel driver (ProductFamilyOverride=%.31s): kernels do not "
             "execute", p->product_override);
    LINE("driver reports: %u slice%s x %u sub-slice%s x %u EU%s%s, %u threads/EU, SIMD %u, sub-groups "
         "%u..%u, max work-group %u, max SLM per work-group %u",
         p->slices, p->slices == 1 ? "" : "s", p->subslices_per_slice,
         p->subslices_per_slice == 1 ? "" : "s", p->eus_per_subslice,
         p->eus_per_subslice == 1 ? "" : "s",
         p->has_eu_count_ext ? " (EU-count extension present)" : " (no EU-count extension)",
         p->threads_per_eu, p->simd_width, p->n_sub_group_sizes ? p->sub_group_sizes[0] : 0,
         p->n_sub_group_sizes ? p->sub_group_sizes[p->n_sub_group_sizes - 1] : 0,
         p->max_total_group_size, p->max_slm);
    LINE("family: %.240s", pr->ident.how);
    for (uint32_t i = 0; i < pr->n_notes && n < 6; i++)
        LINE("derived: %.240s", pr->notes[i]);
    if (pr->matches[0])
        LINE("equal on every field the driver reports to the shipped profile '%s'", pr->matches);
    /* The fields the driver does not report, in one line. */
    char rest[256] = "";
    for (int f = 0; f < OCC_ZE_F_COUNT; f++) {
        if (pr->origin[f] == OCC_ZE_FROM_DRIVER || pr->origin[f] == OCC_ZE_FROM_DERIVED)
            continue;
        size_t len = strlen(rest);
        snprintf(rest + len, sizeof rest - len, "%s%s", len ? ", " : "",
                 occ__ze_field_name((occ_ze_field)f));
    }
    if (pr->ident.family)
        LINE("not reported by the driver, from the %s family's shipped profile '%s': %.160s",
             pr->ident.family->name, pr->ident.family->reference_profile, rest);
    else
        LINE("UNKNOWN (not reported by the driver, no family to take them from): %.160s", rest);
#undef LINE
    info->n_sources = n;
}

static occ_status ze_describe(void *state, occ_device_desc *desc, occ_backend_info *info,
                              occ_diag *diag)
{
    ze_state *st = state;
    const occ_ze_props *p = &st->props;
    if (desc)
        *desc = st->profile.desc;
    if (info) {
        snprintf(info->backend, sizeof info->backend, "ze");
        snprintf(info->device, sizeof info->device, "%.120s", p->name);
        snprintf(info->driver, sizeof info->driver, "Level Zero %u.%u, Intel driver %u.%u.%u",
                 p->api_version >> 16, p->api_version & 0xffff, p->driver_version >> 24,
                 (p->driver_version >> 16) & 0xff, p->driver_version & 0xffff);
        snprintf(info->architecture, sizeof info->architecture, "%s",
                 st->profile.ident.family ? st->profile.ident.family->name : "unknown");
        snprintf(info->profile, sizeof info->profile, "%s", st->profile.matches);
        info->device_count = st->device_count;
        snprintf(info->bus_id, sizeof info->bus_id, "%s", p->bus_id);
        snprintf(info->driver_query, sizeof info->driver_query,
                 "zeKernelSuggestMaxCooperativeGroupCount");
        info->driver_per_device = true;
        info->no_execution = p->hardware_less;
        write_sources(st, info);
    }
    if (!st->profile.complete)
        return occ__diag(diag, OCC_ERR_UNSUPPORTED, NULL, 0, 0, NULL,
                         "cannot make a profile of '%s': %s", p->name, st->profile.ident.how);
    return OCC_OK;
}

/* ---- kernels -------------------------------------------------------------------- */

static occ_status load_spirv(ze_state *st, uint32_t sg, unsigned char **data, size_t *size,
                             occ_diag *diag)
{
    const char *dirs[8];
    occ__kernel_dirs(st->have_kernel_dir ? st->kernel_dir : NULL, dirs, 8);
    char tried[512] = "";
    for (size_t i = 0; dirs[i]; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/probe_ze_sg%u.spv", dirs[i], sg);
        if ((*data = (unsigned char *)occ__read_kernel_file(path, size)))
            return OCC_OK;
        size_t len = strlen(tried);
        snprintf(tried + len, sizeof tried - len, "%s%s", len ? ", " : "", dirs[i]);
    }
    return occ__diag(diag, OCC_ERR_DEVICE, NULL, 0, 0, NULL,
                     "the Level Zero probe kernel probe_ze_sg%u.spv was not found (searched: %s). "
                     "The SPIR-V kernels are built only when clang and llvm-spirv-14 are found at "
                     "build time; set OCC_KERNEL_DIR to a directory that holds them",
                     sg, tried[0] ? tried : "no directory");
}

static occ_status get_module(ze_state *st, uint32_t sg, bool large_grf, ze_module_slot **out,
                             occ_diag *diag)
{
    ze_module_slot *free_slot = NULL;
    for (int i = 0; i < N_MODULES; i++) {
        ze_module_slot *m = &st->modules[i];
        if (m->module && m->sub_group == sg && m->large_grf == large_grf) {
            *out = m;
            return OCC_OK;
        }
        if (!m->module && !free_slot)
            free_slot = m;
    }
    if (!free_slot)
        return occ__diag(diag, OCC_ERR_DEVICE, NULL, 0, 0, NULL, "too many probe modules");
    if (!st->context) {
        ze_context_desc_t cd = {.stype = ZE_STRUCTURE_TYPE_CONTEXT_DESC};
        ZE_TRY(zeContextCreate(st->driver, &cd, &st->context), OCC_ERR_DEVICE, "zeContextCreate");
    }
    unsigned char *il = NULL;
    size_t il_size = 0;
    occ_status s = load_spirv(st, sg, &il, &il_size, diag);
    if (s != OCC_OK)
        return s;
    const char *flags = large_grf ? "-ze-opt-large-register-file" : "";
    ze_module_desc_t md = {.stype = ZE_STRUCTURE_TYPE_MODULE_DESC,
                           .format = ZE_MODULE_FORMAT_IL_SPIRV,
                           .inputSize = il_size,
                           .pInputModule = il,
                           .pBuildFlags = flags};
    ze_module_build_log_handle_t log = NULL;
    ze_module_handle_t module = NULL;
    ze_result_t r = zeModuleCreate(st->context, st->device, &md, &module, &log);
    free(il);
    if (r != ZE_RESULT_SUCCESS) {
        char text[320] = "no build log";
        size_t size = 0;
        if (log && zeModuleBuildLogGetString(log, &size, NULL) == ZE_RESULT_SUCCESS && size > 1) {
            char *b = malloc(size);
            if (b && zeModuleBuildLogGetString(log, &size, b) == ZE_RESULT_SUCCESS)
                snprintf(text, sizeof text, "%s", b);
            free(b);
        }
        if (log)
            zeModuleBuildLogDestroy(log);
        return occ__diag(diag, OCC_ERR_VALUE, NULL, 0, 0, NULL,
                         "the driver could not build the sub-group %u probe module%s: %s (0x%08x): %s",
                         sg, large_grf ? " with -ze-opt-large-register-file" : "",
                         occ__ze_result_name(r), (unsigned)r, text);
    }
    if (log)
        zeModuleBuildLogDestroy(log);
    free_slot->module = module;
    free_slot->sub_group = sg;
    free_slot->large_grf = large_grf;
    *out = free_slot;
    return OCC_OK;
}

/* What one configuration maps to. */
typedef struct ze_variant {
    uint32_t sub_group;
    bool large_grf;
    int kernel;               /* index into kernel_names */
    uint64_t dynamic_slm;     /* bytes of the local-memory argument */
    ze_kernel_handle_t handle;
    ze_kernel_properties_t props;
} ze_variant;

static bool device_has_sub_group(const occ_ze_props *p, uint32_t sg)
{
    for (uint32_t i = 0; i < p->n_sub_group_sizes; i++)
        if (p->sub_group_sizes[i] == sg)
            return true;
    return false;
}

/* Pick, build and configure the probe variant of a requested kernel.
 * OCC_ERR_VALUE when the request cannot be expressed or the driver refuses it. */
static occ_status prepare(ze_state *st, const occ_kernel *k, ze_variant *v, occ_diag *diag)
{
    memset(v, 0, sizeof *v);
    const occ_device_desc *d = &st->profile.desc;
    v->sub_group = k->sub_group ? k->sub_group
                                : (st->props.n_sub_group_sizes ? st->props.sub_group_sizes[0] : 8);
    if (v->sub_group != 8 && v->sub_group != 16 && v->sub_group != 32)
        return occ__diag(diag, OCC_ERR_VALUE, NULL, 0, 0, "sub_group",
                         "the Level Zero probe kernels exist for sub-groups 8, 16 and 32, not %u",
                         v->sub_group);
    if (!device_has_sub_group(&st->props, v->sub_group))
        return occ__diag(diag, OCC_ERR_VALUE, NULL, 0, 0, "sub_group",
                         "the device does not support sub-group size %u", v->sub_group);
    v->large_grf = k->grf && d->n_grf_modes && k->grf > d->default_grf;
    v->dynamic_slm = k->slm_bytes;
    v->kernel = (k->barrier ? 1 : 0) + (k->slm_bytes ? 2 : 0);
    ze_module_slot *m;
    occ_status s = get_module(st, v->sub_group, v->large_grf, &m, diag);
    if (s != OCC_OK)
        return s;
    if (!m->kernels[v->kernel]) {
        ze_kernel_desc_t kd = {.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC,
                               .pKernelName = kernel_names[v->kernel]};
        ZE_TRY(zeKernelCreate(m->module, &kd, &m->kernels[v->kernel]), OCC_ERR_DEVICE,
               "zeKernelCreate");
    }
    v->handle = m->kernels[v->kernel];
    v->props.stype = ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES;
    ZE_TRY(zeKernelGetProperties(v->handle, &v->props), OCC_ERR_DEVICE, "zeKernelGetProperties");
    ze_result_t r = zeKernelSetGroupSize(v->handle, k->wg[0], k->wg[1], k->wg[2]);
    if (r != ZE_RESULT_SUCCESS)
        return occ__diag(diag, OCC_ERR_VALUE, NULL, 0, 0, "wg",
                         "the driver refuses work-group %ux%ux%u (%s)", k->wg[0], k->wg[1],
                         k->wg[2], occ__ze_result_name(r));
    if (v->dynamic_slm) {
        uint64_t bytes = v->dynamic_slm;
        if (st->fault == FAULT_SLM_OVERFLOW)
            bytes = (uint64_t)st->props.max_slm + 1; /* the driver aborts on this */
        else if (bytes + v->props.localMemSize > st->props.max_slm)
            return occ__diag(diag, OCC_ERR_VALUE, NULL, 0, 0, "slm",
                             "%llu bytes of SLM (+%u static) is over the device's maximum of %u "
                             "per work-group",
                             (unsigned long long)bytes, v->props.localMemSize, st->props.max_slm);
        uint32_t words = (uint32_t)(bytes / 4);
        ZE_TRY(zeKernelSetArgumentValue(v->handle, 2, (size_t)bytes, NULL), OCC_ERR_VALUE,
               "setting the SLM argument (zeKernelSetArgumentValue)");
        ZE_TRY(zeKernelSetArgumentValue(v->handle, 3, sizeof words, &words), OCC_ERR_VALUE,
               "zeKernelSetArgumentValue");
    }
    return OCC_OK;
}

/* The compiled kernel's real resources. */
static void actual_kernel(const ze_state *st, const occ_kernel *req, const ze_variant *v,
                          occ_kernel *act)
{
    *act = *req;
    act->sub_group = v->props.maxSubgroupSize ? v->props.maxSubgroupSize : v->sub_group;
    act->slm_bytes = v->props.localMemSize + v->dynamic_slm;
    /* Level Zero does not report the GRF size: the build flag decides the mode. */
    const occ_device_desc *d = &st->profile.desc;
    act->grf = 0;
    if (v->large_grf)
        act->grf = d->grf_modes[d->n_grf_modes - 1].registers;
}

/* What ran differs from the request: the list occ_probe_result.differences. */
static void describe_differences(const occ_kernel *req, const occ_kernel *act, const ze_variant *v,
                                 char *buf, size_t size)
{
    buf[0] = '\0';
    if (req->sub_group && act->sub_group != req->sub_group)
        occ__add_difference(buf, size, "sub-group %u requested, compiled SIMD %u", req->sub_group,
                            act->sub_group);
    if (act->slm_bytes != req->slm_bytes)
        occ__add_difference(buf, size, "SLM %llu requested, %llu with the compiler's static SLM",
                            (unsigned long long)req->slm_bytes, (unsigned long long)act->slm_bytes);
    if (v->large_grf && act->grf < req->grf)
        occ__add_difference(buf, size,
                            "large GRF (-ze-opt-large-register-file) requested; the device has no "
                            "such mode, its largest is %u registers", act->grf);
    if (v->props.spillMemSize)
        occ__add_difference(buf, size, "the compiler spills %u bytes per thread",
                            v->props.spillMemSize);
}

static occ_status ze_driver_residency(void *state, const occ_kernel *req, occ_kernel *act,
                                      int32_t *ans, size_t n, occ_diag *diag)
{
    ze_state *st = state;
    for (size_t i = 0; i < n; i++) {
        ans[i] = -1;
        act[i] = req[i];
        ze_variant v;
        occ_diag ignored;
        occ_status s = prepare(st, &req[i], &v, &ignored);
        if (s == OCC_ERR_DEVICE) {
            if (diag)
                *diag = ignored;
            return s;
        }
        if (s != OCC_OK)
            continue;
        actual_kernel(st, &req[i], &v, &act[i]);
        uint32_t count = 0;
        if (zeKernelSuggestMaxCooperativeGroupCount(v.handle, &count) == ZE_RESULT_SUCCESS &&
            count <= INT32_MAX)
            ans[i] = (int32_t)count;
    }
    return OCC_OK;
}

/* ---- launch ----------------------------------------------------------------------- */

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

typedef struct run_out {
    uint64_t *raw;            /* malloc'd copy of the record buffer */
    size_t slots;
    bool event_done;          /* the completion event was signalled */
    bool timestamps_valid;
    double kernel_s;          /* from the kernel timestamps */
    double wall_s;
} run_out;

static occ_status run_once(ze_state *st, ze_variant *v, uint64_t groups, uint32_t threads_per_group,
                           uint64_t spin_cycles, double timeout_s, run_out *out, occ_diag *diag)
{
    memset(out, 0, sizeof *out);
    out->slots = (size_t)(groups * threads_per_group);
    size_t bytes = out->slots * OCC_ZE_RECORD_WORDS * sizeof(uint64_t);
    void *records = NULL;
    ze_host_mem_alloc_desc_t hd = {.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC};
    ZE_TRY(zeMemAllocHost(st->context, &hd, bytes, 64, &records), OCC_ERR_DEVICE,
           "allocating the record buffer (zeMemAllocHost)");
    memset(records, 0, bytes); /* a zero magic word: that thread never ran */
    ze_command_queue_handle_t queue = NULL;
    ze_command_list_handle_t list = NULL;
    ze_event_pool_handle_t pool = NULL;
    ze_event_handle_t event = NULL;
    occ_status s = OCC_OK;
    ze_result_t r;
#define STEP(call, what)                                                                           \
    if (s == OCC_OK && (r = (call)) != ZE_RESULT_SUCCESS)                                          \
    s = ze_fail(r, OCC_ERR_DEVICE, diag, what)
    STEP(zeKernelSetArgumentValue(v->handle, 0, sizeof records, &records), "zeKernelSetArgumentValue");
    STEP(zeKernelSetArgumentValue(v->handle, 1, sizeof spin_cycles, &spin_cycles),
         "zeKernelSetArgumentValue");
    ze_command_queue_desc_t qd = {.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC,
                                  .mode = ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS};
    STEP(zeCommandQueueCreate(st->context, st->device, &qd, &queue), "zeCommandQueueCreate");
    ze_command_list_desc_t ld = {.stype = ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC};
    STEP(zeCommandListCreate(st->context, st->device, &ld, &list), "zeCommandListCreate");
    ze_event_pool_desc_t pd = {.stype = ZE_STRUCTURE_TYPE_EVENT_POOL_DESC,
                               .flags = ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP |
                                        ZE_EVENT_POOL_FLAG_HOST_VISIBLE,
                               .count = 1};
    STEP(zeEventPoolCreate(st->context, &pd, 1, &st->device, &pool), "zeEventPoolCreate");
    ze_event_desc_t ed = {.stype = ZE_STRUCTURE_TYPE_EVENT_DESC,
                          .index = 0,
                          .signal = ZE_EVENT_SCOPE_FLAG_HOST,
                          .wait = ZE_EVENT_SCOPE_FLAG_HOST};
    STEP(zeEventCreate(pool, &ed, &event), "zeEventCreate");
    ze_group_count_t gc = {(uint32_t)groups, 1, 1};
    STEP(zeCommandListAppendLaunchKernel(list, v->handle, &gc, event, 0, NULL),
         "the launch (zeCommandListAppendLaunchKernel)");
    STEP(zeCommandListClose(list), "zeCommandListClose");
    uint64_t t0 = mono_ns();
    STEP(zeCommandQueueExecuteCommandLists(queue, 1, &list, NULL),
         "zeCommandQueueExecuteCommandLists");
    /* Wait a little less than the watchdog so a slow GPU is reported here. */
    uint64_t wait_ns = timeout_s > 0 ? (uint64_t)(timeout_s * 0.9e9) : UINT64_MAX;
    STEP(zeEventHostSynchronize(event, wait_ns), "waiting for the probe (zeEventHostSynchronize)");
    STEP(zeCommandQueueSynchronize(queue, wait_ns), "zeCommandQueueSynchronize");
#undef STEP
    out->wall_s = (double)(mono_ns() - t0) * 1e-9;
    if (s == OCC_OK) {
        /* The wait returns success in hardware-less mode; the event says whether
         * anything really completed. */
        out->event_done = zeEventQueryStatus(event) == ZE_RESULT_SUCCESS;
        ze_kernel_timestamp_result_t ts;
        memset(&ts, 0, sizeof ts);
        if (out->event_done && zeEventQueryKernelTimestamp(event, &ts) == ZE_RESULT_SUCCESS) {
            uint32_t bits = st->props.kernel_ts_valid_bits;
            uint64_t mask = bits && bits < 64 ? (1ull << bits) - 1 : UINT64_MAX;
            uint64_t a = ts.global.kernelStart & mask, b = ts.global.kernelEnd & mask;
            uint64_t ticks = b >= a ? b - a : b + (mask - a) + 1; /* wrapped once */
            out->kernel_s = (double)ticks * (double)st->props.timer_resolution * 1e-9;
            out->timestamps_valid = ticks > 0;
        }
        out->raw = malloc(bytes ? bytes : 1);
        if (!out->raw)
            s = occ__diag(diag, OCC_ERR_NO_MEMORY, NULL, 0, 0, NULL, "out of memory for records");
        else
            memcpy(out->raw, records, bytes);
    }
    if (event)
        zeEventDestroy(event);
    if (pool)
        zeEventPoolDestroy(pool);
    if (list)
        zeCommandListDestroy(list);
    if (queue)
        zeCommandQueueDestroy(queue);
    zeMemFree(st->context, records);
    return s;
}

/* The cycle counter's rate, once per open: one thread spins a fixed number of
 * cycles inside the kernel's own timestamps.  Nothing is learnt when nothing
 * executes (hardware-less mode); the driver's core clock then stands in. */
static void calibrate(ze_state *st)
{
    if (st->calibration_tried)
        return;
    st->calibration_tried = true;
    occ_kernel k;
    occ_kernel_init(&k);
    k.sub_group = st->props.n_sub_group_sizes ? st->props.sub_group_sizes[0] : 8;
    k.wg[0] = k.sub_group; /* one hardware thread */
    ze_variant v;
    occ_diag ignored;
    run_out out;
    if (prepare(st, &k, &v, &ignored) != OCC_OK ||
        run_once(st, &v, 1, 1, 2000000, st->timeout_s, &out, &ignored) != OCC_OK)
        return;
    occ_ze_record r;
    if (out.timestamps_valid && occ__ze_record_decode(out.raw, 0, &r) && r.t_end > r.t_start) {
        double hz = (double)(r.t_end - r.t_start) / out.kernel_s;
        if (hz > 1e7 && hz < 1e10) {
            st->cycle_hz = hz;
            st->cycle_hz_measured = true;
        }
    }
    free(out.raw);
}

static occ_status ze_launch(void *state, const occ_probe_config *cfg, occ_probe_result *res,
                            occ_diag *diag)
{
    ze_state *st = state;
    const occ_kernel *k = &cfg->kernel;
    if (cfg->work_groups > UINT32_MAX)
        return occ__diag(diag, OCC_ERR_VALUE, NULL, 0, 0, NULL,
                         "%llu work-groups: one Level Zero launch dimension holds at most 2^32-1",
                         (unsigned long long)cfg->work_groups);
    calibrate(st); /* first: it reconfigures a probe kernel */
    ze_variant v;
    occ_status s = prepare(st, k, &v, diag);
    if (s != OCC_OK)
        return s;
    res->requested = *k;
    actual_kernel(st, k, &v, &res->actual);
    describe_differences(k, &res->actual, &v, res->differences, sizeof res->differences);
    /* The compiled kernel as the driver reports it (private and spill memory
     * only when there is some: the probes use none). */
    int len = snprintf(res->kernel_name, sizeof res->kernel_name, "%s (SIMD %u%s",
                       kernel_names[v.kernel], res->actual.sub_group,
                       v.large_grf ? ", large GRF" : "");
    if (len > 0 && (size_t)len < sizeof res->kernel_name && v.props.privateMemSize)
        len += snprintf(res->kernel_name + len, sizeof res->kernel_name - (size_t)len,
                        ", private %u B", v.props.privateMemSize);
    if (len > 0 && (size_t)len < sizeof res->kernel_name && v.props.spillMemSize)
        len += snprintf(res->kernel_name + len, sizeof res->kernel_name - (size_t)len,
                        ", spill %u B", v.props.spillMemSize);
    if (len > 0 && (size_t)len < sizeof res->kernel_name - 1)
        snprintf(res->kernel_name + len, sizeof res->kernel_name - (size_t)len, ")");
    res->static_slm = v.props.localMemSize;
    res->dynamic_slm = (uint32_t)v.dynamic_slm;
    res->local_bytes = v.props.privateMemSize + v.props.spillMemSize;
    uint32_t coop = 0;
    ze_result_t r = zeKernelSuggestMaxCooperativeGroupCount(v.handle, &coop);
    res->driver_resident = r == ZE_RESULT_SUCCESS && coop <= INT32_MAX ? (int32_t)coop : -1;
    occ__ze_driver_note(st->model, st->props.threads_per_eu, &res->actual, res->driver_resident,
                        res->driver_note, sizeof res->driver_note);
    res->work_groups = cfg->work_groups;
    res->duration_s = cfg->duration_s;

    uint64_t wg = occ_kernel_wg_size(k);
    uint32_t simd = res->actual.sub_group;
    uint32_t threads_per_group = (uint32_t)((wg + simd - 1) / simd);
    if (cfg->work_groups * threads_per_group > (16u << 20))
        return occ__diag(diag, OCC_ERR_VALUE, NULL, 0, 0, NULL,
                         "%llu work-groups x %u threads is more records than one probe keeps (16 M)",
                         (unsigned long long)cfg->work_groups, threads_per_group);
    /* Spin in cycles of the counter: the rate measured by an earlier run, the
     * driver's core clock, or 1 GHz until a run calibrates it. */
    uint64_t spin = (uint64_t)(cfg->duration_s * st->cycle_hz + 0.5);
    run_out out;
    s = run_once(st, &v, cfg->work_groups, threads_per_group, spin, st->timeout_s, &out, diag);
    if (s != OCC_OK)
        return s;
    res->wall_s = out.wall_s;

    occ_record *recs = malloc((out.slots ? out.slots : 1) * sizeof *recs);
    if (!recs) {
        free(out.raw);
        return occ__diag(diag, OCC_ERR_NO_MEMORY, NULL, 0, 0, NULL, "out of memory for records");
    }
    occ_ze_records_info ri;
    occ__ze_records_convert(out.raw, out.slots, threads_per_group,
                            st->profile.ident.family ? st->profile.ident.family->core_is_dss : true,
                            st->profile.desc.cores, recs, &ri);
    free(out.raw);
    res->records = recs;
    res->n_records = ri.written;
    res->records_missing = ri.missing;
    res->records_invalid = ri.invalid;
    /* Ticks are counter cycles.  The kernel timestamps bracket the run: their
     * span over the records' cycle span is the counter's period.  It should
     * agree with the calibration; if not, the counters of different cores are
     * probably not aligned, and the timeline is suspect. */
    if (ri.written && out.timestamps_valid && ri.t_max > ri.t_min) {
        double hz = (double)(ri.t_max - ri.t_min) / out.kernel_s;
        if (st->cycle_hz_measured && (hz > 1.1 * st->cycle_hz || hz < 0.9 * st->cycle_hz)) {
            occ__add_difference(res->differences, sizeof res->differences,
                                "the records span %.0f%% of the kernel's timestamps at the "
                                "calibrated counter rate: cycle counters may not be aligned "
                                "across %ss",
                                100.0 * hz / st->cycle_hz, st->profile.desc.core_name);
        } else if (!st->cycle_hz_measured && hz > 1e7 && hz < 1e10) {
            st->cycle_hz = hz;
            st->cycle_hz_measured = true;
        }
    }
    res->tick_seconds = 1.0 / st->cycle_hz;
    res->timer_resolution_s = res->tick_seconds;
    if (ri.written || ri.invalid)
        return OCC_OK;
    /* Not one hardware thread wrote its record: there is nothing to measure.
     * Say so (and why, when known) instead of handing back an empty run. */
    occ_probe_result_free(res);
    char why[160];
    if (st->props.hardware_less)
        snprintf(why, sizeof why,
                 "the Intel driver runs in hardware-less mode, ProductFamilyOverride=%.31s, and "
                 "only writes the commands to a capture file",
                 st->props.product_override);
    else
        snprintf(why, sizeof why, "%s", out.event_done ? "the completion event signalled, yet no "
                                                         "record was written"
                                                       : "the completion event never signalled");
    uint64_t model = 0;
    occ_residency rr;
    occ_residency_init(&rr);
    if (st->model && occ_residency_compute(st->model, &res->actual, &rr) == OCC_OK && rr.launchable)
        model = (uint64_t)rr.resident_wgs * st->profile.desc.cores;
    return occ__diag(diag, OCC_ERR_DEVICE, NULL, 0, 0, NULL,
                     "the probe kernel did not execute: none of its %zu hardware threads wrote a "
                     "record (%s). No measurement. zeKernelSuggestMaxCooperativeGroupCount: %d "
                     "work-groups on the device; the model: %llu",
                     out.slots, why, res->driver_resident, (unsigned long long)model);
}

/* ---- compile (the Intel kernel readers: SPIR-V and OpenCL C) ---------------------- */

/* One kernel as the driver reports it; the cooperative-group count at each
 * requested work-group size (or at the kernel's required size). */
static occ_status kernel_facts(ze_module_handle_t module, const char *name,
                               const occ__compile_request *req, occ__compiled_kernel *out,
                               occ_diag *diag)
{
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s", name);
    ze_kernel_desc_t kd = {.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC, .pKernelName = name};
    ze_kernel_handle_t k = NULL;
    ZE_TRY(zeKernelCreate(module, &kd, &k), OCC_ERR_DEVICE, "zeKernelCreate");
    ze_kernel_properties_t p = {.stype = ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES};
    ze_result_t r = zeKernelGetProperties(k, &p);
    if (r != ZE_RESULT_SUCCESS) {
        zeKernelDestroy(k);
        return ze_fail(r, OCC_ERR_DEVICE, diag, "zeKernelGetProperties");
    }
    out->required_sub_group = p.requiredSubgroupSize;
    out->max_sub_group = p.maxSubgroupSize;
    out->max_num_sub_groups = p.maxNumSubgroups;
    out->slm = p.localMemSize;
    out->private_mem = p.privateMemSize;
    out->spill = p.spillMemSize;
    out->reqd_wg[0] = p.requiredGroupSizeX;
    out->reqd_wg[1] = p.requiredGroupSizeY;
    out->reqd_wg[2] = p.requiredGroupSizeZ;
    for (int i = 0; i < OCC__COMPILE_MAX_WG; i++) {
        out->coop[i] = -1;
        uint32_t x = req->wg[i], y = 1, z = 1;
        if (!x)
            continue;
        if (p.requiredGroupSizeX)
            x = p.requiredGroupSizeX, y = p.requiredGroupSizeY, z = p.requiredGroupSizeZ;
        uint32_t count = 0;
        if (zeKernelSetGroupSize(k, x, y, z) == ZE_RESULT_SUCCESS &&
            zeKernelSuggestMaxCooperativeGroupCount(k, &count) == ZE_RESULT_SUCCESS &&
            count <= INT32_MAX)
            out->coop[i] = (int32_t)count;
    }
    zeKernelDestroy(k);
    return OCC_OK;
}

static occ_status ze_compile(void *state, const occ__compile_request *req, occ__compile_result *res,
                             occ_diag *diag)
{
    ze_state *st = state;
    memset(res, 0, sizeof *res);
    if (!st->context) {
        ze_context_desc_t cd = {.stype = ZE_STRUCTURE_TYPE_CONTEXT_DESC};
        ZE_TRY(zeContextCreate(st->driver, &cd, &st->context), OCC_ERR_DEVICE, "zeContextCreate");
    }
    ze_module_handle_t module = NULL;
    OCC__TRY(occ__ze_module_build(st->context, st->device, req->il, req->il_size, req->native,
                                  req->flags, &module, diag));
    occ_status s = occ__ze_module_native(module, &res->native, &res->native_size, diag);
    uint32_t count = 0;
    const char **names = NULL;
    ze_result_t r;
    if (s == OCC_OK && (r = zeModuleGetKernelNames(module, &count, NULL)) != ZE_RESULT_SUCCESS)
        s = ze_fail(r, OCC_ERR_DEVICE, diag, "zeModuleGetKernelNames");
    if (s == OCC_OK && count) {
        names = calloc(count, sizeof *names);
        res->kernels = calloc(count, sizeof *res->kernels);
        if (!names || !res->kernels)
            s = occ__diag(diag, OCC_ERR_NO_MEMORY, NULL, 0, 0, NULL, "out of memory");
        else if ((r = zeModuleGetKernelNames(module, &count, names)) != ZE_RESULT_SUCCESS)
            s = ze_fail(r, OCC_ERR_DEVICE, diag, "zeModuleGetKernelNames");
        for (uint32_t i = 0; s == OCC_OK && i < count; i++) {
            s = kernel_facts(module, names[i], req, &res->kernels[i], diag);
            if (s == OCC_OK)
                res->n_kernels++;
        }
    }
    free(names);
    zeModuleDestroy(module);
    if (s != OCC_OK) { /* freed here: backend.c's helper would make the files call each other */
        free(res->native);
        free(res->kernels);
        memset(res, 0, sizeof *res);
    }
    return s;
}

const occ__backend_ops occ__backend_ze = {
    .name = "ze",
    .open = ze_open,
    .describe = ze_describe,
    .launch = ze_launch,
    .driver_residency = ze_driver_residency,
    .close = ze_close,
    .compile = ze_compile,
};
