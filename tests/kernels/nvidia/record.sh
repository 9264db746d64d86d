#!/bin/sh
# On the lent GPU machine (device tool; repository root, $OUT set): record what
# the CUDA driver says about every test kernel file (record_driver.c).
# Writes $OUT/driver-h100.tsv; tests/data/kernels/nvidia/driver-h100.tsv is
# that file, committed.
set -u
d=tests/data/kernels/nvidia
gcc -O2 -Wall -o /tmp/record_driver tests/kernels/nvidia/record_driver.c -ldl || exit 1
{
    echo "# $(nvidia-smi --query-gpu=name,driver_version,pci.bus_id --format=csv,noheader)"
    echo "# $(uname -srm)"
    export CUDA_MODULE_LOADING=EAGER
    /tmp/record_driver --occupancy $d/kernels_sm90.cubin $d/directives_sm90.cubin \
        $d/kernels_compute80.ptx $d/kernels_compute90.ptx $d/directives.ptx
    /tmp/record_driver $d/kernels_sm80.cubin $d/directives_sm80.cubin $d/kernels.fatbin \
        $d/kernels_compressed.fatbin $d/kernels_plain.fatbin $d/kernels_ptxonly.fatbin \
        $d/kernels_sm80only.fatbin | grep -v '^# [rc][ue]'
} > "$OUT/driver-h100.tsv" 2> "$OUT/record.err"
echo "rc $?"; grep -c . "$OUT/driver-h100.tsv"; grep -E '^(#|load)' "$OUT/driver-h100.tsv"; cat "$OUT/record.err"
