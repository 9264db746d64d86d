#!/bin/sh
# Experiment prepared in round five (issue 16, 2026-11-25, helper dispatch5a)
# for the next round, run on the lent H100 at 12:11 UTC (data:
# tests/data/cuda/dispatch/2026-11-25/exp/regend2*; regend2.cu: the campaign probe's record with
# and without its __threadfence()).  One device call, repository root, $OUT set:
#   sh tests/hw/exp/regend2.sh
# $OUT/regend2.log (registers, and per launch the time warp 0 takes for the
# record, t3 - t2), $OUT/regend2-raw.tar.xz (one line a warp, with t3),
# $OUT/regend2-machine.txt.  tests/hw/dispatch_refill.py regend reads it.
D=/tmp/regend2
rm -rf $D && mkdir -p $D/raw
nvcc -O3 -arch=sm_90 -Xptxas -v -o $D/regend2 tests/hw/exp/regend2.cu > $D/ptxas.txt 2>&1 || { cat $D/ptxas.txt; exit 1; }
{
    date -u '+date: %Y-%m-%dT%H:%M:%SZ'
    nvidia-smi --query-gpu=name,driver_version,pci.bus_id,clocks.max.sm,pstate,persistence_mode --format=csv
    nvcc --version | tail -2
} > $OUT/regend2-machine.txt 2>&1
$D/regend2 $D/raw > $OUT/regend2.log 2>&1
echo "exit $?" >> $OUT/regend2.log
(cd $D/raw && tar -cf - *.txt | xz -T0 -9 > $OUT/regend2-raw.tar.xz)
ls -la $OUT
cat $OUT/regend2.log
