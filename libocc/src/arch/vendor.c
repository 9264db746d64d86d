/* The vendors libocc knows (occ_vendor_words in occ.h): the one place that
 * lists them; each vendor's facts are in its own file of this folder. */
#include "arch/arch.h"

static const occ_vendor_words *const vendors[] = {&occ__intel_words, &occ__nvidia_words};

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
