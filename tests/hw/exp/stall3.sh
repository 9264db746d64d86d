#!/bin/sh
# Experiment 2 of 2026-11-25 (issue 16).  One device call, repository root,
# $OUT set, .carry/ with the .debs (tests/hw/gpu_build.sh):
#   sh tests/hw/exp/stall3.sh
# 1. stall3.cu: busy spin against sleeping spins (32, 100, 200 ns), equal and
#    unequal durations ($OUT/stall3.log, per-warp records in
#    stall3-raw-{a,b}.tar.xz).
# 2. the fixed _sp probe through libocc: the campaign's unequal-duration
#    configurations ($OUT/sp.log, sp-records.tar.xz).
# On 2026-11-25 part 2 did not run (gpu_build.sh did not yet compile the
# campaign program); the campaign of that day ran those configurations.
D=/tmp/stall3
rm -rf $D && mkdir -p $D/raw
nvcc -O3 -arch=sm_90 -o $D/stall3 tests/hw/exp/stall3.cu || exit 1
{
    date -u '+date: %Y-%m-%dT%H:%M:%SZ'
    nvidia-smi --query-gpu=name,driver_version,pci.bus_id,clocks.max.sm,pstate,persistence_mode --format=csv
    nvcc --version | tail -2
} > $OUT/machine.txt 2>&1
$D/stall3 $D/raw > $OUT/stall3.log 2>&1
echo "exit $?" >> $OUT/stall3.log
(cd $D/raw && tar -cf - busy-* sleep32-* | xz -T0 -9 > $OUT/stall3-raw-a.tar.xz)
(cd $D/raw && tar -cf - sleep100-* sleep200-* | xz -T0 -9 > $OUT/stall3-raw-b.tar.xz)
. tests/hw/gpu_build.sh || exit 1
rm -rf /tmp/spcamp
build-gpu/tests/hw/dispatch_campaign /tmp/spcamp -sp > $OUT/sp.log 2>&1
echo "campaign exit $?" >> $OUT/sp.log
tar -C /tmp/spcamp -cf - records list.tsv | xz -T0 -6 > $OUT/sp-records.tar.xz
ls -la $OUT
cat $OUT/stall3.log $OUT/sp.log
