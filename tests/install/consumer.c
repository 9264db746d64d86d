/* A program outside the project, built against the installed headers and
 * occ.pc only (tests/install/install_consumer.sh): every public header
 * compiles on its own terms, and the seed example (README: tgl, a
 * work-group of 320 at SIMD8) gives its answer, 2 work-groups per Xe-core,
 * limited by threads.  Prints "2 threads", exits 0; 1 otherwise. */
#include <occ/advise.h>
#include <occ/backend.h>
#include <occ/kernels.h>
#include <occ/occ.h>
#include <occ/timeline.h>
#include <occ/trace.h>

#include <stdio.h>

int main(void)
{
    occ_device *dev = NULL;
    occ_diag diag;
    if (occ_device_builtin("tgl", &dev, &diag) != OCC_OK) {
        fprintf(stderr, "consumer: %s\n", diag.message);
        return 1;
    }
    occ_kernel k;
    occ_kernel_init(&k);
    k.wg[0] = 320;
    k.sub_group = 8;
    occ_residency r;
    occ_residency_init(&r);
    occ_status s = occ_residency_compute(dev, &k, &r);
    occ_device_free(dev);
    if (s != OCC_OK || !r.launchable)
        return 1;
    printf("%u %s\n", r.resident_wgs,
           r.limited_by == 1u << OCC_RES_THREADS ? occ_resource_name(OCC_RES_THREADS) : "other");
    return 0;
}
