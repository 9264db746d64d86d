#!/bin/sh
# Second carveout scan: does the launch-time carveout choice of
# tests/hw/carveout_scan.sh depend on the block size, and where exactly are the
# thresholds?  Writes $OUT/scan2.log and $OUT/scan2-records.tar.xz.
. tests/hw/gpu_build.sh || exit 1
O=build-gpu/cli/occcalc
W=/tmp/scan2
rm -rf $W && mkdir -p $W
one() { # wg carveout slm
    g=$((132 * 32))
    $O validate --backend cuda --duration-us 100 --wg $1 --slm $3 --carveout $2 --groups $g \
        --json --records $W/w$1-c$2-s$3.rec > $W/out.json
    python3 -c "import json; d=json.load(open('$W/out.json')); c=d['comparison']; print('wg $1 carveout $2 slm $3: model %s driver %s measured %s' % (d['core']['resident_work_groups'], d['driver_resident'], c['measured_peak_per_core']))" 2>&1
}
{
for s in 5120 5248 5376 5504; do one 64 25 $s; done
for s in 5000 5120 5248 5376 5500 5632 5760 6000 6500; do one 64 50 $s; done
for s in 1000 2000 3000 4000 5000 5500 6000 7000; do one 128 25 $s; done
for s in 1000 2000 3000 4000 5000 5500 6000 7000; do one 32 25 $s; done
for s in 2000 2500 3000 3500; do one 64 10 $s; done
for s in 1000 2000 3000 4000; do one 256 10 $s; done
for s in 3000 6000 9000 12000 15000 20000; do one 64 75 $s; done
} > $OUT/scan2.log 2>&1
rm -f $W/out.json
tar -C $W -cf - . | xz -T0 -9 > $OUT/scan2-records.tar.xz
cat $OUT/scan2.log
