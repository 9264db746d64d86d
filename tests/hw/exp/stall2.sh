#!/bin/sh
# Experiment 1 of 2026-11-25 (issue 16): the launch stall of the unequal-
# duration probe.  One device call, repository root, $OUT set:
#   sh tests/hw/exp/stall2.sh
# Needs only nvcc.  Writes $OUT/machine.txt, $OUT/stall2.log (one line per
# launch) and $OUT/stall2-raw.tar.xz (per-warp records, see stall2.cu).
D=/tmp/stall2
rm -rf $D && mkdir -p $D/raw
nvcc -O3 -arch=sm_90 -o $D/stall2 tests/hw/exp/stall2.cu || exit 1
{
    date -u '+date: %Y-%m-%dT%H:%M:%SZ'
    nvidia-smi --query-gpu=name,driver_version,pci.bus_id,clocks.sm,clocks.max.sm,pstate,power.draw,temperature.gpu,persistence_mode --format=csv
    nvcc --version | tail -2
} > $OUT/machine.txt 2>&1
$D/stall2 $D/raw 1.98 > $OUT/stall2.log 2>&1
echo "exit $?" >> $OUT/stall2.log
nvidia-smi --query-gpu=clocks.sm,pstate,power.draw --format=csv >> $OUT/machine.txt 2>&1
tar -C $D -cf - raw | xz -T0 -9 > $OUT/stall2-raw.tar.xz
ls -la $OUT
cat $OUT/stall2.log
