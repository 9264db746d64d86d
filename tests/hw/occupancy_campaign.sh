#!/bin/sh
# The CUDA occupancy campaign (tests/hw/occupancy_campaign.cu) on every GPU of
# the machine, in one call of the device tool ($OUT set):
#   sh tests/hw/occupancy_campaign.sh [BINARY]
# BINARY: the program built beforehand (nvcc -O2 -arch=sm_90 ... -lcuda, see
# the .cu file); built here with nvcc when absent or when it does not start.
# Writes under $OUT: machine.txt (date, GPUs, driver, toolkit), campaign.log,
# and occupancy-gpuN.tar.gz (the CSV files of GPU N).  tests/data/cuda/README.md
# says where the committed copies live.
D=$(dirname "$0")
BIN=${1:-$D/occupancy_campaign}
"$BIN" >/dev/null 2>&1
if [ $? -ne 2 ]; then
    echo "building $BIN there"
    BIN=/tmp/occupancy_campaign
    nvcc -O2 -arch=sm_90 -o $BIN $D/occupancy_campaign.cu -lcuda || exit 1
fi
{
    date -u '+date: %Y-%m-%dT%H:%M:%SZ'
    uname -srm
    cat /proc/driver/nvidia/version
    nvidia-smi -L
    nvidia-smi --query-gpu=index,name,uuid,serial,driver_version,vbios_version,pci.bus_id,memory.total,clocks.max.sm,compute_mode,mig.mode.current --format=csv
    nvidia-smi topo -m
    nvcc --version | tail -2
} > $OUT/machine.txt 2>&1
N=$(nvidia-smi -L | grep -c '^GPU')
W=/tmp/occupancy
rm -rf $W && mkdir -p $W
i=0
while [ $i -lt "$N" ]; do
    mkdir -p $W/gpu$i
    echo "== GPU $i"
    timeout 500 "$BIN" $W/gpu$i $i
    echo "exit $?"
    tar -C $W -czf $OUT/occupancy-gpu$i.tar.gz gpu$i
    i=$((i + 1))
done > $OUT/campaign.log 2>&1
cat $OUT/campaign.log
ls -l $OUT
