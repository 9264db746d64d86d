#!/bin/sh
# `occcalc trace` of launches outside a kernel's launch bound, on the lent GPU machine:
#   . tests/hw/gpu_build.sh && sh tests/hw/trace_bounds.sh
# Builds the CUDA part of the interposer, traces tests/trace/cuda_bound_app.cu
# (kernels with __launch_bounds__ launched within and outside them) and writes under $OUT:
# machine.txt, expect.txt (the program's own account: kernel, block, the driver's
# MAX_THREADS_PER_BLOCK, the launch's CUDA error), records.tar.xz, report.txt, trace.json, log.txt.
set -u
B=build-gpu
OUT=${OUT:-/tmp/trace-bounds}
mkdir -p "$OUT"
exec 3>&1 >"$OUT/log.txt" 2>&1
inc=/usr/local/cuda/include
[ -f $inc/cupti.h ] || inc=$(dirname "$(find / -name cupti.h 2>/dev/null | head -1)")
meson configure $B -Dtrace_cuda=enabled -Dtrace_cuda_include="$inc" && ninja -C $B >/tmp/ninja-trace.log 2>&1 ||
    { tail -30 /tmp/ninja-trace.log; echo "BUILD FAILED" >&3; exit 1; }
cupti=$(find / -name 'libcupti.so*' -not -path '/proc/*' 2>/dev/null | head -1)
[ -n "$cupti" ] && export OCC_TRACE_CUPTI="$cupti"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
{
    date -u '+date %Y-%m-%d %H:%M:%S UTC'
    nvidia-smi --query-gpu=name,driver_version,pci.bus_id,compute_cap --format=csv,noheader
    nvcc --version | tail -2
    uname -srm
} >"$OUT/machine.txt" 2>&1
T=/tmp/trace-bounds-run
rm -rf $T && mkdir -p $T
nvcc -O2 -arch=sm_90 -o $T/cuda_bound_app tests/trace/cuda_bound_app.cu || { echo "nvcc failed" >&3; exit 1; }
$B/cli/occcalc trace --records $T/records --json --launches -o "$OUT/trace.json" -- $T/cuda_bound_app "$OUT/expect.txt" >&3
echo "trace rc=$?" >&3
$B/cli/occcalc trace --replay $T/records -o "$OUT/report.txt"
echo "replay rc=$?" >&3
for f in $T/records/*.rec; do tr -d '\0' <"$f" >"$f.tmp" && mv "$f.tmp" "$f"; done
tar cJf "$OUT/records.tar.xz" -C $T records
cat "$OUT/expect.txt" >&3
