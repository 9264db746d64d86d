#!/bin/sh
# Experiment (issue 16): do blocks of 64..512 threads start late (25-33 us)
# with the old probe (2026-11-21, probe_old.cu), the probe with a fourth
# parameter and a 64-bit division (probe_div.cu), and the one with a fourth
# parameter and a floating-point draw ("cur" at the time)?  Same machine, same
# configurations.  Ran once, on 2026-11-24 19:35 UTC, with the backend of commit
# "Dispatch timing: profile keys, the timed dispatch layer, ..." (it passed four
# kernel parameters); today's backend also loads the _sp kernels, which
# probe_old.cu and probe_div.cu lack, so rerunning it needs that backend.
# Results: tests/data/cuda/dispatch/stall.log, stall-experiment.tar.xz;
# docs/validation/cuda-h100-2026-11-24.md.
O=build-gpu/cli/occcalc
for k in old div; do
    mkdir -p /tmp/k$k
    nvcc -ptx -arch=compute_75 -o /tmp/k$k/probe_cuda.ptx tests/hw/exp/probe_$k.cu
done
mkdir -p /tmp/kcur && cp build-gpu/kernels/probe_cuda.ptx /tmp/kcur/
for rep in 1 2; do
for k in old div cur; do
    for cfg in "256 1056 100" "128 2112 100" "512 1584 100" "64 4224 20"; do
        set -- $cfg
        OCC_KERNEL_DIR=/tmp/k$k $O validate --backend cuda --wg $1 --groups $2 --duration-us $3 \
            --records $W/exp-$k-wg$1-g$2-$3us-rep$rep.rec > /dev/null 2>&1
        echo "$k wg$1 g$2 $3us rep$rep: exit $?"
    done
done
done
