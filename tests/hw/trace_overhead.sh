#!/bin/sh
# Where the CUDA tracing overhead goes (docs/performance.md, "Tracing
# overhead"), on the lent GPU machine after tests/hw/gpu_build.sh and
# tests/hw/trace_gpu.sh (which builds the interposer and the loop):
#   sh tests/hw/trace_overhead.sh [ROUNDS] [OLD_TRACE_SRC_DIR]
# Runs tests/trace/cuda_launch_loop.cu alone and with injection libraries,
# alternately, ROUNDS times (default 5):
#   floor-*     tests/trace/cupti_floor.c: CUPTI alone (callbacks that return at
#               once, kernel activity, both, KIND_KERNEL, pinned buffers)
#   occ-*       libocc_trace.so as occcalc trace runs it (with and without GPU time)
#   old-*       the tracer built from OLD_TRACE_SRC_DIR (an earlier libocc/src/trace)
# and the same with "vary" (64 grid sizes: no launch repeats a recent one).
# Prints every run, then per variant the median over rounds of its median ns
# per launch and of (variant - plain of the same round).  Output on stdout.
set -u
ROUNDS=${1:-5}
OLD=${2:-}
B=build-gpu
T=/tmp/trace-gpu
inc=/usr/local/cuda/include
cupti=${OCC_TRACE_CUPTI:-$(find / -name 'libcupti.so*' -not -path '/proc/*' 2>/dev/null | head -1)}
export OCC_TRACE_CUPTI="$cupti"
loop=$T/cuda_launch_loop
[ -x $loop ] || nvcc -O2 -arch=sm_90 -o $loop tests/trace/cuda_launch_loop.cu || exit 1
gcc -O2 -shared -fPIC -I$inc -o $T/floor.so tests/trace/cupti_floor.c -ldl || exit 1
libs="occ=$B/libocc/src/trace/libocc_trace.so"
if [ -n "$OLD" ]; then
    gcc -O2 -shared -fPIC -DOCC_TRACE_CUDA -isystem $inc -I"$OLD" -o $T/old.so \
        "$OLD"/trace_rec.c "$OLD"/trace_map.c "$OLD"/trace_time.c "$OLD"/trace_cuda.c -ldl -lpthread &&
        libs="$libs old=$T/old.so"
fi
lscpu | grep -E 'Model name|^CPU\(s\)' ; uptime
variants="plain floor-callback floor-activity floor-both floor-kernel floor-pinned"
for l in $libs; do variants="$variants ${l%%=*}-full ${l%%=*}-notime"; done
run() { # VARIANT [vary]
    v=$1; shift
    rm -rf $T/ovr && mkdir -p $T/ovr
    case $v in
    plain) $loop 200 "$@" ;;
    floor-*) CUDA_INJECTION64_PATH=$T/floor.so OCC_FLOOR=${v#floor-} $loop 200 "$@" ;;
    *)  lib=$(for l in $libs; do [ "${l%%=*}" = "${v%-*}" ] && echo "${l#*=}"; done)
        time=1; [ "${v#*-}" = notime ] && time=0
        CUDA_INJECTION64_PATH=$lib OCC_TRACE_DIR=$T/ovr OCC_TRACE_GPU_TIME=$time $loop 200 "$@" ;;
    esac
}
for r in $(seq "$ROUNDS"); do
    for v in $variants; do echo "round $r $v $(run $v)"; done
    for v in plain occ-full occ-notime $( [ -n "$OLD" ] && echo old-full old-notime); do
        echo "round $r $v-vary $(run $v vary)"
    done
done | tee $T/overhead-runs.txt
echo
awk -v rounds="$ROUNDS" -v variants="$(echo $variants)" -f tests/hw/trace_overhead.awk $T/overhead-runs.txt
