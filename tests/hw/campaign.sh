#!/bin/sh
# The CUDA validation campaign, in one call of the device tool (repository root,
# $OUT set; .carry/ carried, see tests/hw/gpu_build.sh):
#   tests/hw/campaign.sh
# Writes under $OUT: machine.txt (GPU, driver, date), probe-h100.yaml (occcalc
# probe), campaign.log, summary.tsv, sweep.txt, campaign-records.tar.xz (one
# record file per launch).  docs/validation/README.md says how the results
# were turned into the committed report and tests.
. tests/hw/gpu_build.sh || exit 1
O=build-gpu/cli/occcalc
W=/tmp/campaign
rm -rf $W && mkdir -p $W
{
    date -u '+date: %Y-%m-%dT%H:%M:%SZ'
    uname -srm
    cat /proc/driver/nvidia/version
    nvidia-smi --query-gpu=name,driver_version,pci.bus_id,memory.total,clocks.max.sm,compute_mode,persistence_mode,mig.mode.current --format=csv
    nvcc --version | tail -2
} > $OUT/machine.txt 2>&1
$O probe --backend cuda -o $OUT/probe-h100.yaml || echo "probe failed: $?"
# the probed profile must load as it was written (a zero interval once made it fail)
$O --device $OUT/probe-h100.yaml --wg 256 --groups 1000 >/dev/null || echo "the probed profile does not load: $?"
{
    build-gpu/tests/hw/cuda_campaign $W
    echo "== seed configuration through the CLI (320 threads, 8 groups)"
    $O validate --backend cuda --wg 320 --groups 8 --json
    echo "exit $?"
    echo "== watchdog: 3 waves of 0.9 s under --timeout 1 (expect exit 4)"
    $O validate --backend cuda --wg 1024 --groups 792 --duration-us 900000 --timeout 1
    echo "exit $?"
} > $OUT/campaign.log 2>&1
cp $W/summary.tsv $W/sweep.txt $OUT/ 2>/dev/null
tar -C $W -cf - records | xz -T0 -9 > $OUT/campaign-records.tar.xz
grep -E "^launches|^sweep|exit" $OUT/campaign.log
grep -c pass $OUT/summary.tsv
grep -v -E "\tpass$" $OUT/summary.tsv | cut -f1,2,6-14 | head -40
