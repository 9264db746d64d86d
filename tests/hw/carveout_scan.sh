#!/bin/sh
# The real per-SM limit against shared memory per block at a few carveout
# preferences (enough work-groups that the limit shows as phases), to find the
# rule behind tests/hw/carveout_experiment.sh's surprises.  Writes
# $OUT/scan.log and $OUT/scan-records.tar.xz.
. tests/hw/gpu_build.sh || exit 1
O=build-gpu/cli/occcalc
W=/tmp/scan
rm -rf $W && mkdir -p $W
{
for c in 25 10 50 0; do
    for s in 1 512 1000 2000 3000 4000 4096 4500 4600 4700 4800 4900 5000 5120 5500 6000 6500 7000 7500 8000 9000 10240 12000; do
        $O validate --backend cuda --duration-us 100 --wg 64 --slm $s --carveout $c --groups 4224 \
            --json --records $W/c$c-s$s.rec > $W/out.json
        python3 -c "import json,sys; d=json.load(open('$W/out.json')); c=d['comparison']; print('carveout $c slm $s: model %s driver %s measured %s phases %s/%s %s' % (d['core']['resident_work_groups'] if 'core' in d else '?', d['driver_resident'], c['measured_peak_per_core'], c['predicted_phases'], c['measured_phases'], 'pass' if d['pass'] else 'FAIL'))" 2>&1 || head -c 300 $W/out.json
    done
done
} > $OUT/scan.log 2>&1
rm -f $W/out.json
tar -C $W -cf - . | xz -T0 -9 > $OUT/scan-records.tar.xz
cat $OUT/scan.log
