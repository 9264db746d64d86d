#!/bin/sh
# The dispatch-timing campaign (issue 16), in one call of the device tool
# (repository root, $OUT set; .carry/ carried, see tests/hw/gpu_build.sh):
#   sh tests/hw/dispatch_campaign.sh
# Writes under $OUT: machine.txt (GPU, driver, date), probe.yaml (occcalc probe,
# with the measured dispatch timing), dispatch.log, list.tsv and
# dispatch-records.tar.xz (one record file per launch).
# DISPATCH_OUT (default $OUT) and DISPATCH_WORK (default /tmp/dispatch) name
# other folders; DISPATCH_BUILT=1 uses the build already made
# (tests/hw/dispatch_campaign_cd.sh records several campaigns so).
if [ -z "$DISPATCH_BUILT" ]; then
    . tests/hw/gpu_build.sh || exit 1
fi
O=build-gpu/cli/occcalc
W=${DISPATCH_WORK:-/tmp/dispatch}
OUT=${DISPATCH_OUT:-$OUT}
mkdir -p "$OUT"
rm -rf $W && mkdir -p $W
{
    date -u '+date: %Y-%m-%dT%H:%M:%SZ'
    uname -srm
    cat /proc/driver/nvidia/version
    nvidia-smi --query-gpu=name,driver_version,pci.bus_id,memory.total,clocks.max.sm,compute_mode,persistence_mode,mig.mode.current --format=csv
    nvcc --version | tail -2
} > $OUT/machine.txt 2>&1
$O probe --backend cuda -o $OUT/probe.yaml || echo "probe failed: $?"
# the probed profile must load as it was written (a zero interval once made it fail)
$O --device $OUT/probe.yaml --wg 256 --groups 1000 >/dev/null || echo "the probed profile does not load: $?"
mkdir -p $W/records
# The experiments behind the _sp kernels (tests/hw/exp/stall*.sh) are separate
# device calls; they are not repeated here.
build-gpu/tests/hw/dispatch_campaign $W > $OUT/dispatch.log 2>&1
echo "campaign exit $?" >> $OUT/dispatch.log
{
    echo "== the issue's case through the CLI"
    $O validate --backend cuda --wg 32 --groups 60000 --duration-us 100 --device h100-sxm
    echo "exit $?"
} >> $OUT/dispatch.log 2>&1
cp $W/list.tsv $OUT/ 2>/dev/null
tar -C $W -cf - records | xz -T0 -9 > $OUT/dispatch-records.tar.xz
tail -3 $OUT/dispatch.log
ls -la $OUT
