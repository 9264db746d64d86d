/* Build-only check: the pure part of libocc (common, model, arch, timeline, advise)
 * links into a program on its own, without libyaml, the backends or libdl.
 * It touches one entry point of each pure folder so that the linker has to
 * resolve their objects; it is built, not run. */
#include "occ/advise.h"
#include "occ/occ.h"
#include "occ/timeline.h"

int main(void)
{
    occ_device_desc d;
    occ_device_desc_init(&d);
    occ_device *dev = NULL;
    if (occ_device_create(&d, &dev, NULL) != OCC_OK)
        return 1;
    occ_kernel k;
    occ_kernel_init(&k);
    occ_residency r;
    occ_residency_init(&r);
    occ_residency_compute(dev, &k, &r);
    occ_next_step steps[4];
    occ_next_steps(dev, &k, steps, 4);
    occ_timeline t;
    occ_timeline_init(&t);
    occ_sim_options o;
    occ_sim_options_init(&o);
    occ_timeline_simulate(dev, &k, 1, &o, &t, NULL);
    occ_timeline_free(&t);
    occ_advise_request q;
    occ_advise_request_init(&q);
    size_t n = 0;
    occ_advise(dev, &q, NULL, 0, &n, NULL);
    if (!occ_vendor_words_of(OCC_VENDOR_INTEL) || occ_device_takes(&d, OCC_INPUT_CARVEOUT))
        return 1;
    occ_device_free(dev);
    return 0;
}
