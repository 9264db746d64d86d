#!/bin/sh
# `occcalc trace` on the lent GPU machine (docs/trace.md, "Verification"):
#   cd .carry/trace && . tests/hw/gpu_build.sh && sh tests/hw/trace_gpu.sh
# Builds the CUDA part of the interposer, traces tests/trace/cuda_trace_app.cu
# (cuBLAS sgemm/dgemm + a kernel of its own) and tests/trace/cuda_bound_app.cu
# (launches within and outside kernels' launch bounds), checks occ against the driver's
# cuOccupancyMaxActiveBlocksPerMultiprocessor for every launch, and measures
# the per-launch overhead with tests/trace/cuda_launch_loop.cu ($ROUNDS rounds of
# plain, traced and --no-gpu-time runs, alternately; the added cost per round).  Writes under
# $OUT: machine.txt, log.txt, trace.json, report.txt, more.json, more-report.txt,
# records.tar.xz, bench.txt.
set -u
B=build-gpu
ROUNDS=${ROUNDS:-15} # alternating rounds of the overhead measurement
OUT=${OUT:-/tmp/trace-out}
mkdir -p "$OUT"
LOG=$OUT/log.txt
exec 3>&1 >"$LOG" 2>&1
inc=/usr/local/cuda/include
[ -f $inc/cupti.h ] || inc=$(dirname "$(find / -name cupti.h 2>/dev/null | head -1)")
echo "cupti.h in $inc"
meson configure $B -Dtrace_cuda=enabled -Dtrace_cuda_include="$inc" && ninja -C $B >/tmp/ninja-trace.log 2>&1 ||
    { tail -30 /tmp/ninja-trace.log; echo "BUILD FAILED" >&3; exit 1; }
nm -D $B/libocc/src/trace/libocc_trace.so | grep InitializeInjection
cupti=$(find / -name 'libcupti.so*' -not -path '/proc/*' 2>/dev/null | head -1)
echo "libcupti: $cupti"
[ -n "$cupti" ] && export OCC_TRACE_CUPTI="$cupti"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
{
    date -u '+date %Y-%m-%d %H:%M:%S UTC'
    nvidia-smi --query-gpu=name,driver_version,pci.bus_id,compute_cap --format=csv,noheader
    nvcc --version | tail -2
    uname -srm
    nproc
    echo "libcupti $cupti"
} >"$OUT/machine.txt" 2>&1
cat "$OUT/machine.txt"

T=/tmp/trace-gpu
rm -rf $T && mkdir -p $T
nvcc -O2 -std=c++17 -arch=sm_90 -Xlinker -rpath=/usr/local/cuda/lib64 -o $T/cuda_trace_app \
    tests/trace/cuda_trace_app.cu -lcublas || { echo "nvcc app failed" >&3; }
nvcc -O2 -arch=sm_90 -o $T/cuda_launch_loop tests/trace/cuda_launch_loop.cu || echo "nvcc loop failed" >&3

echo "== untraced run"
$T/cuda_trace_app; echo "rc=$?"
echo "== traced run"
$B/cli/occcalc trace --records $T/recs --json --launches -o "$OUT/trace.json" -- $T/cuda_trace_app
echo "rc=$?"
$B/cli/occcalc trace --replay $T/recs -o "$OUT/report.txt"; echo "replay rc=$?"
python3 tests/trace/test_trace.py check-cuda "$OUT/trace.json" >&3 2>&1
echo "check rc=$?" >&3

echo "== more: child process, tensor-core and batched GEMMs, threads, cooperative, graph" >&3
$B/cli/occcalc trace --records $T/recs-more --json --launches -o "$OUT/more.json" -- $T/cuda_trace_app more
echo "more rc=$?" >&3
$B/cli/occcalc trace --replay $T/recs-more -o "$OUT/more-report.txt"
python3 tests/trace/test_trace.py check-cuda "$OUT/more.json" 28-31 >&3 2>&1
echo "check more rc=$?" >&3
echo "== more crash (SIGSEGV after the launches)" >&3
$B/cli/occcalc trace --records $T/recs-crash -o $T/crash.txt -- $T/cuda_trace_app more crash
echo "crash rc=$? (139 = SIGSEGV passed through)" >&3
head -3 $T/crash.txt >&3
grep -c "^L" $T/recs-crash/*.rec >&3
grep -c "^T" $T/recs-crash/*.rec >&3
echo "== launch bounds: kernels launched within and outside their __launch_bounds__" >&3
nvcc -O2 -arch=sm_90 -o $T/cuda_bound_app tests/trace/cuda_bound_app.cu || echo "nvcc bounds app failed" >&3
$B/cli/occcalc trace --records $T/recs-bounds -o $T/bounds-report.txt -- $T/cuda_bound_app $T/bounds-expect.txt >&3
echo "bounds rc=$? (records and the program's expect.txt in records.tar.xz)" >&3
tar cJf "$OUT/records.tar.xz" -C $T recs recs-more recs-crash recs-bounds bounds-expect.txt

echo "== overhead" 
{
    for i in $(seq "$ROUNDS"); do
        echo "round $i plain $($T/cuda_launch_loop 200)"
        echo "round $i traced $($B/cli/occcalc trace -o $T/loop.txt -- $T/cuda_launch_loop 200)"
        echo "round $i no-time $($B/cli/occcalc trace --no-gpu-time -o $T/loop2.txt -- $T/cuda_launch_loop 200)"
    done >$T/rounds.txt
    cat $T/rounds.txt
    awk -v rounds="$ROUNDS" -v variants="plain traced no-time" -f tests/hw/trace_overhead.awk $T/rounds.txt
    head -12 $T/loop.txt
    $B/cli/occcalc trace --records $T/looprecs -o "$T/null.txt" -- $T/cuda_launch_loop 200 >/dev/null
    python3 -c 'import subprocess,sys,time
t=[]
for i in range(3):
    t0=time.perf_counter(); subprocess.run([sys.argv[1],"trace","--replay",sys.argv[2],"-o","/tmp/trace-gpu/null.txt"],check=True); t.append(time.perf_counter()-t0)
print("replay of 51201 launches + their GPU times, best of 3: %.3f s" % min(t))' $B/cli/occcalc $T/looprecs
    du -sh $T/looprecs
} >"$OUT/bench.txt" 2>&1
cat "$OUT/bench.txt" >&3
tail -40 "$LOG" >&3
