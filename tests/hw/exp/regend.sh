#!/bin/sh
# Experiment of round five (issue 16, 2026-11-25, helper dispatch5a): when
# does a register-limited block really end (regend.cu)?  One device call,
# repository root, $OUT set:
#   sh tests/hw/exp/regend.sh
# $OUT/regend.log (registers, and per launch the block's last warp after its
# epilogue against warp 0's recorded end), $OUT/regend-raw.tar.xz (one line
# a warp), $OUT/machine.txt.  Run on 2026-11-25 at 11:59 UTC from a copy in
# .carry/ (the device gets /work/main's tree): regend.cu copied to tests/hw/exp/ first.
D=/tmp/regend
rm -rf $D && mkdir -p $D/raw
nvcc -O3 -arch=sm_90 -Xptxas -v -o $D/regend tests/hw/exp/regend.cu > $D/ptxas.txt 2>&1 || { cat $D/ptxas.txt; exit 1; }
{
    date -u '+date: %Y-%m-%dT%H:%M:%SZ'
    nvidia-smi --query-gpu=name,driver_version,pci.bus_id,clocks.max.sm,pstate,persistence_mode --format=csv
    nvcc --version | tail -2
} > $OUT/machine.txt 2>&1
$D/regend $D/raw > $OUT/regend.log 2>&1
echo "exit $?" >> $OUT/regend.log
(cd $D/raw && tar -cf - *.txt | xz -T0 -9 > $OUT/regend-raw.tar.xz)
ls -la $OUT
cat $OUT/regend.log
