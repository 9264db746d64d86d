#!/bin/sh
# Everything about thread-block clusters that needs the GPU, in one call of
# the device tool (docs/clusters.md, "Evidence"):
#   OCC_GPU_TESTS=auto . tests/hw/gpu_build.sh build-gpu && sh tests/hw/clusters_gpu.sh
# 1. tests/hw/trace_clusters_gpu.sh: a program launching in clusters, traced,
#    occ against the driver launch by launch (trace.json, report.txt, records/);
# 2. tests/hw/cluster_probe.cu: cluster probes (probe.csv.gz) and
#    tests/hw/cluster_validate.py's verdict against occ (validate.txt).
# Writes under $OUT (default /tmp/clusters-out).
set -u
OUT=${OUT:-/tmp/clusters-out}
mkdir -p "$OUT"
OUT=$OUT sh tests/hw/trace_clusters_gpu.sh >"$OUT/trace-log.txt" 2>&1
tail -5 "$OUT/trace-log.txt"
nvcc -O2 -arch=sm_90 -o /tmp/cluster_probe tests/hw/cluster_probe.cu || { echo "nvcc probe failed"; exit 1; }
/tmp/cluster_probe >/tmp/cluster_probe.csv || { echo "probe failed"; exit 1; }
gzip -9 -c /tmp/cluster_probe.csv >"$OUT/probe.csv.gz"
python3 tests/hw/cluster_validate.py build-gpu/cli/occcalc h200 /tmp/cluster_probe.csv >"$OUT/validate.txt" 2>&1
echo "validate rc=$?"
tail -8 "$OUT/validate.txt"
