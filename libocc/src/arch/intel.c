/* Intel: the GPU families, their PCI ids and the vendor's words (arch.h).
 *
 * Per-family facts: Intel's GPU Occupancy Calculator and the shipped profiles
 * (docs/profiles.md).  The reference profile holds the numbers no driver
 * property reports (SLM per core and its steps, work-group slots, barriers,
 * GRF modes). */
#include "arch/arch.h"

#include <stdio.h>
#include <string.h>

static const occ_intel_family families[] = {
    {OCC_INTEL_FAMILY_GEN9, "Gen9", "Gen9", 8, false, "sub-slice", "EU", "gen9", 8, 7, 256},
    {OCC_INTEL_FAMILY_GEN11, "Gen11", "Gen11", 8, false, "sub-slice", "EU", "gen11", 8, 7, 256},
    {OCC_INTEL_FAMILY_GEN9_OR_GEN11, "Gen9 or Gen11", "Gen9 or Gen11 (same occupancy parameters)", 8,
     false, "sub-slice", "EU", "gen9", 8, 7, 256},
    {OCC_INTEL_FAMILY_XE_LP, "Xe-LP", "Xe-LP (Gen12LP)", 16, true, "Xe-core", "XVE", "tgl", 8, 7, 512},
    {OCC_INTEL_FAMILY_XE_HPG, "Xe-HPG", "Xe-HPG (DG2)", 16, true, "Xe-core", "XVE", "arc-a770", 8, 8,
     1024},
    {OCC_INTEL_FAMILY_XE_LPG, "Xe-LPG", "Xe-LPG (Meteor Lake)", 16, true, "Xe-core", "XVE", "mtl", 8,
     8, 1024},
    {OCC_INTEL_FAMILY_XE_HPC, "Xe-HPC", "Xe-HPC (Ponte Vecchio)", 8, false, "Xe-core", "XVE",
     "max-1100", 16, 8, 1024},
    {OCC_INTEL_FAMILY_XE2, "Xe2", "Xe2", 8, false, "Xe-core", "XVE", "lnl", 16, 8, 1024},
    {OCC_INTEL_FAMILY_XE3, "Xe3", "Xe3 (provisional)", 8, false, "Xe-core", "XVE", "ptl", 16, 10,
     1024},
};

const occ_intel_family *occ__intel_family(occ_intel_family_id id)
{
    for (size_t i = 0; i < sizeof families / sizeof families[0]; i++)
        if (families[i].id == id)
            return &families[i];
    return NULL;
}

/* PCI device ids by family (the Linux i915/xe drivers' id lists).  `profile`
 * names a shipped profile when the id pins the product's configuration;
 * hardware-less ids are the placeholders compute-runtime 22.43 reports for
 * ProductFamilyOverride=tgllp/icllp (measured with the Debian driver). */
static const struct pci_range {
    uint16_t first, last;
    occ_intel_family_id family;
    const char *profile;
    const char *what;
} pci_ids[] = {
    {0x1900, 0x193f, OCC_INTEL_FAMILY_GEN9, NULL, "Skylake"},
    {0x5900, 0x593f, OCC_INTEL_FAMILY_GEN9, NULL, "Kaby Lake"},
    {0x3e90, 0x3ebf, OCC_INTEL_FAMILY_GEN9, NULL, "Coffee Lake"},
    {0x9b40, 0x9bff, OCC_INTEL_FAMILY_GEN9, NULL, "Comet Lake"},
    {0x8a50, 0x8a5d, OCC_INTEL_FAMILY_GEN11, NULL, "Ice Lake"},
    {0xff05, 0xff05, OCC_INTEL_FAMILY_GEN11, NULL, "Ice Lake (hardware-less placeholder id)"},
    {0x9a40, 0x9aff, OCC_INTEL_FAMILY_XE_LP, NULL, "Tiger Lake"},
    {0xff20, 0xff20, OCC_INTEL_FAMILY_XE_LP, NULL, "Tiger Lake (hardware-less placeholder id)"},
    {0x4c80, 0x4c9f, OCC_INTEL_FAMILY_XE_LP, NULL, "Rocket Lake"},
    {0x4905, 0x4909, OCC_INTEL_FAMILY_XE_LP, "dg1", "DG1"},
    {0x4680, 0x46df, OCC_INTEL_FAMILY_XE_LP, NULL, "Alder Lake"},
    {0xa780, 0xa7ff, OCC_INTEL_FAMILY_XE_LP, NULL, "Raptor Lake"},
    {0x5690, 0x56cf, OCC_INTEL_FAMILY_XE_HPG, NULL, "DG2 (Arc A-series, Flex)"},
    {0x7d40, 0x7dff, OCC_INTEL_FAMILY_XE_LPG, NULL, "Meteor Lake / Arrow Lake"},
    {0x0bd0, 0x0bdf, OCC_INTEL_FAMILY_XE_HPC, NULL, "Ponte Vecchio"},
    {0x6420, 0x64bf, OCC_INTEL_FAMILY_XE2, "lnl", "Lunar Lake"},
    {0xe200, 0xe2ff, OCC_INTEL_FAMILY_XE2, NULL, "Battlemage"},
    {0xb080, 0xb0bf, OCC_INTEL_FAMILY_XE3, NULL, "Panther Lake"},
};

occ_intel_family_id occ__intel_pci_family(uint16_t device_id, const char **profile,
                                          const char **what)
{
    for (size_t i = 0; i < sizeof pci_ids / sizeof pci_ids[0]; i++)
        if (device_id >= pci_ids[i].first && device_id <= pci_ids[i].last) {
            *profile = pci_ids[i].profile;
            *what = pci_ids[i].what;
            return pci_ids[i].family;
        }
    *profile = *what = NULL;
    return OCC_INTEL_FAMILY_UNKNOWN;
}

/* Gen9 and Gen11 look alike (and have the same occupancy parameters);
 * Xe-HPG and Xe-LPG too: the first of each pair stands for both. */
const occ_intel_family_id *occ__intel_signature_families(size_t *count)
{
    static const occ_intel_family_id by_signature[] = {
        OCC_INTEL_FAMILY_GEN9_OR_GEN11, OCC_INTEL_FAMILY_XE_LP, OCC_INTEL_FAMILY_XE_HPG,
    };
    *count = sizeof by_signature / sizeof by_signature[0];
    return by_signature;
}

/* ---- the cooperative maximum ---------------------------------------------------- */

/* The SLM size the 22.43 driver charges a work-group: a power of two, at
 * least 1 KB (measured: 1 B and 1024 B count as 1 KB, 1025 B as 2 KB). */
static uint64_t driver_slm_round(uint64_t bytes)
{
    uint64_t r = 1024;
    while (r < bytes && r < (1ull << 63))
        r <<= 1;
    return r;
}

/* The rule over thread contexts: those of the whole GPU over one work-group's. */
static uint64_t coop_by_contexts(uint64_t cores, uint64_t contexts, uint64_t per_wg, bool barrier,
                                 uint64_t slm_bytes, uint64_t slm_per_core)
{
    uint64_t n = contexts / per_wg;
    if (barrier && cores * 32 < n)
        n = cores * 32;
    if (slm_bytes) {
        uint64_t by_slm = cores * slm_per_core / driver_slm_round(slm_bytes);
        if (by_slm < n)
            n = by_slm;
    }
    return n;
}

uint32_t occ__intel_driver_coop_rule(uint32_t cores, uint32_t engines_per_core, uint32_t threads_per_eu,
                                     uint32_t simd, uint64_t wg_size, bool barrier, uint64_t slm_bytes,
                                     uint64_t slm_per_core)
{
    if (!cores || !engines_per_core || !threads_per_eu || !simd || !wg_size)
        return 0;
    uint64_t n = coop_by_contexts(cores, (uint64_t)cores * engines_per_core * threads_per_eu,
                                  occ__ceil_div(wg_size, simd), barrier, slm_bytes, slm_per_core);
    return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

/* The driver's rule in the GRF mode the kernel runs in: its contexts per
 * core are the mode's threads per EU x EUs, its contexts per work-group
 * ceil(W / SIMD). */
static uint64_t intel_cooperative_max(const occ_device_desc *d, uint32_t resident, uint32_t per_wg,
                                      uint32_t per_core, bool barrier, uint64_t slm_bytes)
{
    (void)resident;
    return coop_by_contexts(d->cores, (uint64_t)d->cores * per_core, per_wg, barrier, slm_bytes, d->slm_per_core);
}

/* compute-runtime names a GPU whose device id it has no marketing name for
 * "Intel(R) Graphics [0xNNNN]" (measured: 0xff20, the hardware-less Tiger
 * Lake); then the PCI id's product line says more. */
static bool intel_generic_device_name(const char *driver_name, unsigned pci_id, char *out,
                                      size_t size, const char **profile)
{
    static const char generic[] = "Intel(R) Graphics [0x";
    if (strncmp(driver_name, generic, sizeof generic - 1) != 0)
        return false;
    const char *hex = driver_name + sizeof generic - 1;
    size_t digits = strspn(hex, "0123456789abcdefABCDEF");
    if (!digits || strcmp(hex + digits, "]") != 0)
        return false;
    const char *what;
    if (pci_id > 0xffff ||
        occ__intel_pci_family((uint16_t)pci_id, profile, &what) == OCC_INTEL_FAMILY_UNKNOWN)
        return false; /* an id this table lacks: the driver's name has it at least */
    snprintf(out, size, "Intel %s, PCI id 0x%04x", what, pci_id);
    return true;
}

const occ__vendor_rules occ__intel_rules = {
    .vendor = OCC_VENDOR_INTEL,
    .target_base = NULL, /* the driver's product names, as they are */
    .simd_is_sub_group = true,
    .cooperative_max = intel_cooperative_max,
    .generic_device_name = intel_generic_device_name,
};

const occ_vendor_words occ__intel_words = {
    .struct_size = sizeof(occ_vendor_words),
    .vendor = OCC_VENDOR_INTEL,
    .word = "intel",
    .name = "Intel",
    .register_file = false,
    .register_input = "grf",
    .register_input_text = "GRF modes (--grf)",
    .dispatch_evidence = "The driver does not report dispatch order; taken from the architecture family",
    .kernel_local_memory = "SLM",
    .kernel_private_memory = "private",
    .spill_note = " (spill memory)",
    .private_memory_warns = false,
    .context_word = "thread context",
    .register_word = "registers",
    .local_memory_word = "local memory",
    .waves_per_simd = false,
};
