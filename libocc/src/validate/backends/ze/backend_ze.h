/*
 * Private to libocc: the Level Zero backend's pieces.
 *
 *  backend_ze_family.c   pure: which Intel family a device is, how many Xe-cores
 *                        it has, the profile it gives, the driver's
 *                        cooperative-group rule, record decoding (all testable
 *                        without a driver)
 *  backend_ze.c          the backend operations (backend_impl.h): every ze* call
 *
 * backend.c runs the operations in its watchdog child process, so a driver
 * crash or hang ends that child, not the caller.
 */
#ifndef OCC_BACKEND_ZE_H
#define OCC_BACKEND_ZE_H

#include "arch/arch.h"
#include "occ/backend.h"
#include "occ/occ.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- what the driver reports (child -> parent) ---------------------------- */

#define OCC_ZE_MAX_SG 8

typedef struct occ_ze_props {
    char name[256];                 /* ze_device_properties_t.name */
    uint32_t vendor_id, device_id;
    bool integrated;                /* ZE_DEVICE_PROPERTY_FLAG_INTEGRATED */
    uint32_t threads_per_eu;        /* numThreadsPerEU */
    uint32_t simd_width;            /* physicalEUSimdWidth */
    uint32_t eus_per_subslice;      /* numEUsPerSubslice */
    uint32_t subslices_per_slice;   /* numSubslicesPerSlice */
    uint32_t slices;                /* numSlices */
    uint32_t eu_count_ext;          /* ZE_extension_eu_count numTotalEUs; 0 = absent */
    bool has_eu_count_ext;
    uint64_t timer_resolution;      /* ns per tick (API 1.x: ns) */
    uint32_t kernel_ts_valid_bits;
    uint32_t core_clock_mhz;        /* coreClockRate; 0 when unknown */
    uint32_t max_total_group_size;  /* ze_device_compute_properties_t */
    uint32_t max_group_size[3];
    uint32_t max_slm;               /* maxSharedLocalMemory */
    uint32_t n_sub_group_sizes;
    uint32_t sub_group_sizes[OCC_ZE_MAX_SG];
    uint32_t driver_version;
    uint32_t api_version;
    /* Hardware-less mode of the Intel driver (NEOReadDebugKeys +
     * SetCommandStreamReceiver): the override product, "" when not set. */
    char product_override[32];
    bool hardware_less;
    char bus_id[32];                /* PCI "0000:03:00.0" (ZE_extension_pci_properties), or "" */
} occ_ze_props;

/* ---- families --------------------------------------------------------------- */

/* The families and their facts are Intel's architecture: arch/arch.h. */

/* How a device was identified. */
typedef struct occ_ze_ident {
    const occ_intel_family *family;   /* NULL: unknown family */
    const char *profile;           /* shipped profile the PCI id names, or NULL */
    bool by_pci_id;                /* false: by the property signature alone */
    bool signature_agrees;         /* the driver's numbers fit the family */
    char how[256];                 /* one line: why this family */
} occ_ze_ident;

void occ__ze_identify(const occ_ze_props *p, occ_ze_ident *out);

/* Total XVEs: the EU-count extension when present, else slices x sub-slices x EUs. */
uint32_t occ__ze_total_engines(const occ_ze_props *p);

/* Fields of a profile, for saying where each came from. */
typedef enum occ_ze_field {
    OCC_ZE_F_CORES = 0,        /* derived: total XVE / XVE per core */
    OCC_ZE_F_ENGINES,          /* family (checked against numEUsPerSubslice) */
    OCC_ZE_F_SIMD,             /* physicalEUSimdWidth */
    OCC_ZE_F_SUB_GROUPS,       /* subGroupSizes */
    OCC_ZE_F_THREADS,          /* numThreadsPerEU (default GRF mode) */
    OCC_ZE_F_MAX_WG,           /* maxTotalGroupSize */
    OCC_ZE_F_SLM_PER_WG,       /* maxSharedLocalMemory */
    OCC_ZE_F_GRF_MODES,        /* not reported: large-GRF modes */
    OCC_ZE_F_MAX_WGS_PER_CORE, /* not reported */
    OCC_ZE_F_BARRIERS,         /* not reported */
    OCC_ZE_F_SLM_PER_CORE,     /* not reported */
    OCC_ZE_F_SLM_STEPS,        /* not reported */
    OCC_ZE_F_DISPATCH,         /* not reported */
    OCC_ZE_F_COUNT
} occ_ze_field;

typedef enum occ_ze_origin {
    OCC_ZE_FROM_DRIVER = 1,    /* read from the driver's properties */
    OCC_ZE_FROM_DERIVED,       /* computed from driver properties and the family */
    OCC_ZE_FROM_FAMILY,        /* not reported: the family's reference profile */
    OCC_ZE_UNKNOWN,            /* not reported and no family to take it from */
} occ_ze_origin;

const char *occ__ze_field_name(occ_ze_field f);   /* "core.count" */

/* The profile of a live device: driver fields, derived cores, the family's
 * reference profile for the rest.  origin[f] says where field f came from;
 * when any field is OCC_ZE_UNKNOWN the description is incomplete and
 * *complete is false (the numbers there are 0 and must not be used). */
typedef struct occ_ze_profile {
    occ_device_desc desc;
    occ_ze_origin origin[OCC_ZE_F_COUNT];
    bool complete;
    occ_ze_ident ident;
    char matches[64];           /* shipped profile equal on every driver field, or "" */
    char notes[4][256];         /* derivation notes (cores, mismatches) */
    uint32_t n_notes;
} occ_ze_profile;

/* Pure.  OCC_ERR_DEVICE when the properties are unusable (zero EUs, ...). */
occ_status occ__ze_profile(const occ_ze_props *p, occ_ze_profile *out, occ_diag *diag);

/* Fields the driver reports, compared between a probed and a shipped
 * description: writes a bitmask of (1u << occ_ze_field) that differ. */
uint32_t occ__ze_compare_driver_fields(const occ_device_desc *probed, const occ_device_desc *shipped);

/* ---- the driver's zeKernelSuggestMaxCooperativeGroupCount (22.43) -------- */

/* occ__intel_driver_coop_rule (arch/arch.h): the rule is the library's
 * (occ_cooperative_max), not the backend's. */

/* ---- probe kernel records --------------------------------------------------- */

/* Must match kernels/probe_ze.cl. */
#define OCC_ZE_RECORD_MAGIC 0x4f43435aULL
#define OCC_ZE_RECORD_WORDS 8

typedef struct occ_ze_record {
    uint32_t group, sub_group;
    uint32_t hw_thread, slice, dss, subslice, eu, eu_thread;
    uint64_t t_start, t_end;      /* intel_get_cycle_counter() */
    uint32_t sub_group_size;
} occ_ze_record;

/* Decode record i of the raw buffer; false when its magic word is not set
 * (the hardware thread never wrote it). */
bool occ__ze_record_decode(const uint64_t *raw, size_t i, occ_ze_record *r);

/* Decoded records -> occ_record (backend.h).  Slot i belongs to work-group
 * i / threads_per_group, sub-group i % threads_per_group.  The core of a
 * record is the dense rank of its (slice, dual sub-slice) pair, or (slice,
 * sub-slice) when !core_is_dss: IDs are physical and may have gaps.  Times are
 * cycles from the earliest start.  Writes at most `slots` records. */
typedef struct occ_ze_records_info {
    size_t written;               /* records kept */
    uint32_t missing;             /* magic word never set: the thread did not run */
    uint32_t invalid;             /* wrong ids, end < start, more cores than the device has */
    uint32_t cores_seen;
    uint64_t t_min, t_max;        /* raw counter span of the kept records */
} occ_ze_records_info;

void occ__ze_records_convert(const uint64_t *raw, size_t slots, uint32_t threads_per_group,
                             bool core_is_dss, uint32_t cores, occ_record *out,
                             occ_ze_records_info *info);

/* The driver's cooperative-group answer beside the model for a device:
 * one or two sentences, "" when coop < 0 or the kernel cannot launch. */
void occ__ze_driver_note(const occ_device *dev, uint32_t threads_per_eu, const occ_kernel *actual,
                         int32_t coop, char *buf, size_t size);

#endif
