#!/bin/sh
# Does the hardware hold what cuOccupancyMaxActiveBlocksPerMultiprocessor says
# when the carveout preference is below what the blocks could use?  The first
# campaign (2026-11-21) ran more blocks per SM than the driver's answer with no
# shared memory at carveouts 0-5 % and once with 5000 B at 25 %.  Each line is a
# separate process (a fresh context), in this order, with enough work-groups
# that the limit shows.  Run after tests/hw/gpu_build.sh; writes
# $OUT/carveout.log and $OUT/carveout-records.tar.xz.
. tests/hw/gpu_build.sh || exit 1
O=build-gpu/cli/occcalc
W=/tmp/carveout
rm -rf $W && mkdir -p $W
n=0
run() {
    n=$((n + 1))
    name=$(printf 'x%02d-%s' $n "$1"); shift
    echo "== $name: $*"
    $O validate --backend cuda --duration-us 200 --records $W/$name.rec "$@" |
        grep -E "^Per|most at once|phases  |Result"
}
{
run s0-c0-wg32        --wg 32 --carveout 0 --groups 8448
run s1-c0-wg32        --wg 32 --slm 1 --carveout 0 --groups 8448
run s1024-c0-wg32     --wg 32 --slm 1024 --carveout 0 --groups 8448
run s0-c0-wg32-again  --wg 32 --carveout 0 --groups 8448
run s5000-c25         --wg 64 --slm 5000 --carveout 25 --groups 1584
run s5000-cdef        --wg 64 --slm 5000 --groups 1584
run s5000-c25-after-default --wg 64 --slm 5000 --carveout 25 --groups 1584
run s5000-c25-again   --wg 64 --slm 5000 --carveout 25 --groups 1584
run s10240-c25        --wg 64 --slm 10240 --carveout 25 --groups 924
run s5000-c25-after-10240 --wg 64 --slm 5000 --carveout 25 --groups 1584
run s0-cdef-wg32      --wg 32 --groups 8448
run s0-c100-wg32      --wg 32 --carveout 100 --groups 8448
run s0-c0-wg32-after-max --wg 32 --carveout 0 --groups 8448
run s2048-c0-wg32     --wg 32 --slm 2048 --carveout 0 --groups 8448
run s0-c0-wg256       --wg 256 --carveout 0 --groups 2112
run s0-c0-wg32-r64    --wg 32 --regs 64 --carveout 0 --groups 8448
run s0-c0-wg32-bar    --wg 32 --barrier --carveout 0 --groups 8448
run s3000-c10         --wg 64 --slm 3000 --carveout 10 --groups 2112
run s7000-c10         --wg 64 --slm 7000 --carveout 10 --groups 1056
run s20000-c40        --wg 128 --slm 20000 --carveout 40 --groups 1320
} > $OUT/carveout.log 2>&1
tar -C $W -cf - . | xz -T0 -9 > $OUT/carveout-records.tar.xz
cat $OUT/carveout.log
