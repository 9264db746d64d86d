#!/bin/sh
# The speed targets measured on the GPU machine's host in one call (device
# tool; docs/performance.md): builds build-gpu (benchmarks) and build-py (the
# Python package), then writes under $OUT (or ./bench-out) the host, the
# random mix against the tgl sweep (bench_residency, RUNS runs), occ against
# CUDA's driver and runtime API (bench_cuda_reference) and the NumPy batch
# (python/bench/bench_occ.py).  Usage: sh tests/hw/bench_host.sh [RUNS]
RUNS=${1:-3}
O=${OUT:-bench-out}
mkdir -p "$O"
{
    echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, load: $(cut -d' ' -f1-3 /proc/loadavg)"
    nvidia-smi --query-gpu=name,driver_version,uuid --format=csv,noheader 2>/dev/null
    git log -1 --format='main at %h %s' 2>/dev/null
} >"$O/machine.txt"
set -- build-gpu # a sourced script sees the caller's arguments in some shells (dash)
OCC_GPU_TESTS=auto . tests/hw/gpu_build.sh build-gpu || exit 1
meson setup build-py -Dtests=disabled -Dpython=enabled -Dcuda=disabled -Dlevel_zero=disabled -Dman=disabled \
    >/tmp/meson-py.log 2>&1 && ninja -C build-py >/tmp/ninja-py.log 2>&1 || { tail -30 /tmp/ninja-py.log; exit 1; }
for i in $(seq 1 "$RUNS"); do
    echo "## build-gpu/tests/bench/bench_residency, run $i"
    build-gpu/tests/bench/bench_residency
done >"$O/bench_residency.txt" 2>&1
for i in 1 2 3; do
    echo "## build-gpu/tests/bench/bench_cuda_reference, run $i"
    build-gpu/tests/bench/bench_cuda_reference
done >"$O/bench_cuda_reference.txt" 2>&1
for i in 1 2 3; do
    echo "## python/bench/bench_occ.py, run $i"
    python3 python/bench/bench_occ.py --pythonpath build-py/python --libocc build-py/libocc/libocc.so \
        --devices tgl,arc-a770,h100-sxm,mi300x
done >"$O/bench_occ.txt" 2>&1
for mode in --kept --constraints; do
    echo "## python/bench/bench_occ.py $mode"
    python3 python/bench/bench_occ.py --pythonpath build-py/python $mode --devices tgl,arc-a770,h100-sxm,mi300x
done >"$O/bench_occ_modes.txt" 2>&1
