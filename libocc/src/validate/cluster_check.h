/* Private to libocc: a launch in thread-block clusters checked against the
 * cluster rule (occ_validation_analyse's part for clusters). */
#ifndef OCC_CLUSTER_CHECK_H
#define OCC_CLUSTER_CHECK_H

#include "occ/backend.h"

/* Fill *out for the records of res (a launch in clusters: res->actual.cluster
 * set; core ids below the device's core count) predicted on dev.  Errors with
 * diag: OCC_ERR_UNSUPPORTED (dev has no GPC data), OCC_ERR_VALUE (a size over
 * the maximum, a grid not a whole number of clusters, a record's cluster out
 * of range), OCC_ERR_NO_MEMORY. */
occ_status occ__cluster_check(const occ_device *dev, const occ_probe_result *res, occ_cluster_check *out,
                              occ_diag *diag);

#endif
