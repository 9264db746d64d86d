#!/bin/sh
# Round six of issue 16 (2026-11-25, helper dispatch6): the dispatch campaign
# with the probe's record fixed (no __threadfence(), end time after the fold;
# kernels/probe_cuda.cu), twice in one device call: $OUT/c (2026-11-25c, the
# data the timing values are measured and fitted on) and $OUT/d (2026-11-25d,
# left unopened until the values were chosen and committed: the check on data
# they were not fitted on).  Each as tests/hw/dispatch_campaign.sh writes it
# (machine.txt, probe.yaml, dispatch.log, list.tsv, dispatch-records.tar.xz),
# each by tests/hw/dispatch_campaign.sh on one build.  Also $OUT/sass.txt: the
# end of the fixed probe in SASS (sm_90), to check that no spill reload comes
# after the end time.
#   sh tests/hw/dispatch_campaign_cd.sh   (repository root, $OUT set, .carry/ debs)
# With arguments, the campaigns named so instead of c and d (2026-11-25e, the
# check in a call of its own after every value was fixed: `... e`).
NAMES=${*:-c d}
set -- # gpu_build.sh, sourced, reads $1 as its build directory
. tests/hw/gpu_build.sh || exit 1
for c in $NAMES; do
    DISPATCH_OUT=$OUT/$c DISPATCH_WORK=/tmp/dispatch-$c DISPATCH_BUILT=1 sh tests/hw/dispatch_campaign.sh
done
nvcc -cubin -arch=sm_90 -o /tmp/probe.cubin kernels/probe_cuda.cu &&
    for f in occ_probe_r128 occ_probe_r64 occ_probe_r128_sp; do
        echo "== $f"
        cuobjdump -sass -fun $f /tmp/probe.cubin | grep -E "GLOBALTIMER|LDL|STL|STG|MEMBAR|BAR|EXIT|NANOSLEEP" | tail -24
    done > $OUT/sass.txt 2>&1
ls -la $OUT
