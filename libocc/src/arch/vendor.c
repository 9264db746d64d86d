/* The vendors libocc knows (occ_vendor_words in occ.h), from the list in
 * arch/meson.build; each vendor's facts are in its own file of this folder. */
#include "arch/arch.h"
#include "arch/vendors_list.h" /* OCC_VENDORS(X): X(name, OCC_VENDOR_NAME) */

#include <stdio.h>

#define DECLARE_WORDS(name, id)                                                                    \
    extern const occ_vendor_words occ__##name##_words;                                             \
    extern const occ__vendor_rules occ__##name##_rules;
OCC_VENDORS(DECLARE_WORDS)

#define RULES_ENTRY(name, id) &occ__##name##_rules,
static const occ__vendor_rules *const rules[] = {OCC_VENDORS(RULES_ENTRY)};

const occ__vendor_rules *occ__vendor_rules_of(occ_vendor v)
{
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
        if (rules[i]->vendor == v)
            return rules[i];
    return NULL;
}

bool occ__generic_device_name(const char *driver_name, unsigned pci_id, char *out, size_t size,
                              const char **profile)
{
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
        if (rules[i]->generic_device_name &&
            rules[i]->generic_device_name(driver_name, pci_id, out, size, profile))
            return true;
    return false;
}

void occ__target_base(occ_vendor v, const char *target, char *out, size_t size)
{
    const occ__vendor_rules *r = occ__vendor_rules_of(v);
    if (r && r->target_base)
        r->target_base(target, out, size);
    else
        snprintf(out, size, "%s", target);
}

#define WORDS_ENTRY(name, id) &occ__##name##_words,
static const occ_vendor_words *const vendors[] = {OCC_VENDORS(WORDS_ENTRY)};

#define WORD_ENTRY(name, id) #name,
const char *const occ__vendor_profile_words[] = {OCC_VENDORS(WORD_ENTRY) NULL};
#define ID_ENTRY(name, id) id,
const int occ__vendor_ids[] = {OCC_VENDORS(ID_ENTRY)};

const occ_vendor_words *occ_vendor_words_of(occ_vendor v)
{
    for (size_t i = 0; i < sizeof vendors / sizeof vendors[0]; i++)
        if (vendors[i]->vendor == v)
            return vendors[i];
    return NULL;
}

bool occ_device_takes(const occ_device_desc *d, occ_input in)
{
    if (!d)
        return false;
    switch (in) {
    case OCC_INPUT_REGISTERS: return d->has_register_file;
    case OCC_INPUT_GRF: return !d->has_register_file;
    case OCC_INPUT_CARVEOUT: return d->n_carveouts != 0;
    default: return in < OCC_INPUT_COUNT; /* work-group, sub-group, local memory, barrier */
    }
}

uint32_t occ_grf_as_driver(const occ_device_desc *d, uint32_t grf)
{
    if (d && !d->has_register_file && d->n_grf_modes == 1 && grf > d->grf_modes[0].registers)
        return d->grf_modes[0].registers;
    return grf;
}
