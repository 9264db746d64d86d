/* Private to libocc: the NVIDIA kernel readers (cubin.c, fatbin.c, ptx.c)
 * and what they share: the device's SM version and SASS compatibility.
 * docs/kernels.md says what is read from where. */
#ifndef OCC_KERNELS_NVIDIA_H
#define OCC_KERNELS_NVIDIA_H

#include "kernels/kernel_set.h"

/* The SM version (90 for sm_90) of a device profile's target; false when
 * the device is not NVIDIA's or its profile names no target. */
bool occ__nv_device_sm(const occ_device *dev, unsigned *sm);

/* SASS compiled for sm_code runs unchanged on sm_dev: same major version,
 * same or newer minor (CUDA C Programming Guide, "Binary Compatibility"). */
bool occ__nv_sass_runs_on(unsigned sm_code, unsigned sm_dev);

/* The SM version a cubin's ELF header states; false (diag filled,
 * OCC_ERR_PARSE) when the buffer is no CUDA ELF. */
occ_status occ__cubin_sm(const uint8_t *data, size_t size, const char *origin, unsigned *sm,
                         occ_diag *diag);

/* Append every kernel of a cubin to s, without checking its architecture
 * against a device (fatbin and PTX readers chose it already). */
occ_status occ__cubin_collect(occ_kernel_set *s, const uint8_t *data, size_t size,
                              occ_diag *diag);

/* The readers of readers.c. */
occ_status occ__cubin_read(occ_kernel_set *s, const uint8_t *data, size_t size,
                           const occ_kernel_read_options *o, occ_diag *diag);
occ_status occ__fatbin_read(occ_kernel_set *s, const uint8_t *data, size_t size,
                            const occ_kernel_read_options *o, occ_diag *diag);
occ_status occ__ptx_read(occ_kernel_set *s, const uint8_t *data, size_t size,
                         const occ_kernel_read_options *o, occ_diag *diag);

#endif
