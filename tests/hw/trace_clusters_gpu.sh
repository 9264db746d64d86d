#!/bin/sh
# `occcalc trace` of a program that launches in thread-block clusters, on the
# lent GPU machine (docs/clusters.md, "Evidence"):
#   . tests/hw/gpu_build.sh && sh tests/hw/trace_clusters_gpu.sh
# Builds the CUDA part of the interposer, traces tests/trace/cuda_cluster_app.cu
# (cudaLaunchKernelEx with cluster attributes, compiled __cluster_dims__) and
# checks, launch by launch, occ's active clusters against the driver's
# cuOccupancyMaxActiveClusters that the tracer asked during the run.  Writes
# under $OUT: machine.txt, log.txt, trace.json, report.txt, records/ (NULs
# of the mapped files removed).
set -u
B=${B:-build-gpu}
OUT=${OUT:-/tmp/trace-clusters-out}
mkdir -p "$OUT"
inc=/usr/local/cuda/include
[ -f $inc/cupti.h ] || inc=$(dirname "$(find / -name cupti.h 2>/dev/null | head -1)")
meson configure $B -Dtrace_cuda=enabled -Dtrace_cuda_include="$inc" >/dev/null &&
    ninja -C $B >/tmp/ninja-trace.log 2>&1 || { tail -30 /tmp/ninja-trace.log; echo "BUILD FAILED"; exit 1; }
cupti=$(find / -name 'libcupti.so*' -not -path '/proc/*' 2>/dev/null | head -1)
[ -n "$cupti" ] && export OCC_TRACE_CUPTI="$cupti"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
{
    date -u '+date %Y-%m-%d %H:%M:%S UTC'
    nvidia-smi --query-gpu=name,driver_version,pci.bus_id,compute_cap,uuid --format=csv,noheader
    nvcc --version | tail -2
    echo "libcupti $cupti"
} >"$OUT/machine.txt" 2>&1
cat "$OUT/machine.txt"
T=/tmp/trace-clusters
rm -rf $T && mkdir -p $T
nvcc -O2 -arch=sm_90 -o $T/cuda_cluster_app tests/trace/cuda_cluster_app.cu || { echo "nvcc failed"; exit 1; }
$T/cuda_cluster_app; echo "untraced rc=$?"
$B/cli/occcalc trace --records $T/recs --json --launches -o "$OUT/trace.json" -- $T/cuda_cluster_app
echo "traced rc=$?"
$B/cli/occcalc trace --replay $T/recs -o "$OUT/report.txt"; echo "replay rc=$?"
mkdir -p "$OUT/records"
for f in $T/recs/*.rec; do tr -d '\0' <"$f" >"$OUT/records/$(basename "$f")"; done
python3 tests/trace/test_trace.py check-clusters "$OUT/trace.json" 250
echo "check rc=$?"
