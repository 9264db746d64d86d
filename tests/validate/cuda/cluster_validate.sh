#!/bin/sh
# occcalc validate --cluster without a GPU (docs/clusters.md, "validate --cluster"):
#  - the 66 launches recorded on an H200 (tests/data/cuda/clusters/validate-h200-2026-11-28/)
#    replay to their recorded verdict, pass, with their own description and with h200;
#    a profile of other GPCs makes them fail; a profile without GPC data is refused;
#  - the fake libcuda.so.1 places clusters as a GPU of GPCs would: the H200's
#    structure passes, a placement of other GPCs fails, a GPU without clusters
#    and the ze backend are refused, usage errors.
# usage: cluster_validate.sh OCCCALC SOURCE_ROOT FAKE_LIB_DIR
set -u
OCC=$1
case $OCC in /*) ;; *) OCC=$(pwd)/$OCC ;; esac
SRC=$2
FAKE=$3
DATA=$SRC/tests/data/cuda/clusters/validate-h200-2026-11-28
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# a profile of the H200 with other GPCs of the same 132 SMs
sed 's/^  gpc_sms: .*/  gpc_sms: [20, 20, 18, 16, 14, 14, 12, 10, 8]/; s/^name: h200$/name: other-gpcs/' \
    "$SRC/devices/h200.yaml" >"$T/other.yaml"
grep -q "gpc_sms: \[20, 20" "$T/other.yaml" || fail "could not write the made-up profile"

# --- the recorded launches ------------------------------------------------------------
tar -xJf "$DATA/records.tar.xz" -C "$T" || exit 1
n=0
for rec in "$T"/records/*.rec; do
    name=$(basename "$rec" .rec)
    n=$((n + 1))
    "$OCC" validate --replay "$rec" >"$T/out" 2>/dev/null
    rc=$?
    line=$(grep "^$name " "$DATA/summary.txt")
    [ "$line" = "$name $rc $(grep '^Result' "$T/out")" ] || fail "$name: '$rc $(grep '^Result' "$T/out")', recorded '$line'"
    "$OCC" validate --replay "$rec" --device h200 >/dev/null 2>&1 || fail "$name with h200: exit $?"
done
[ $n = 66 ] || fail "66 recorded launches expected, $n found"
# JSON: the measured clusters at once equal the rule's and the driver's
"$OCC" validate --replay "$T/records/wg256-slm0-c4x2x2.rec" --json >"$T/j" 2>/dev/null
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
c, k = d["clusters"], d["cluster_check"]
assert d["pass"] and k["ok"], k
assert c["dims"] == [4, 2, 2] and c["size"] == 16 and c["max_active_clusters"] == 58, c
assert k["driver_clusters"] == 58 and k["at_once"] == 58 and k["first_wave"] == 58 and k["launched"] == 116, k
assert k["cores_used"] == 116 == c["cores_used"] and k["peak_per_core"] == 8, k
' "$T/j" 2>"$T/err" || fail "--json of a recorded launch: $(cat "$T/err")"
"$OCC" validate --replay "$T/records/wg256-slm0-c4x2x2.rec" --csv >"$T/csv" 2>/dev/null
grep -q "cluster_check" "$T/csv" || fail "--csv lacks the cluster check"
# other GPCs: the rule then gives other clusters at once than the GPU ran
for name in wg32-slm0-c3 wg256-slm0-c8 wg1024-slm102400-c16 wg256-slm0-c2x2x2; do
    "$OCC" validate --replay "$T/records/$name.rec" --device "$T/other.yaml" >"$T/out" 2>/dev/null
    [ $? = 1 ] || fail "$name with other GPCs must fail (exit 1)"
    grep -q "^clusters at once (most) .* MISMATCH" "$T/out" || fail "$name with other GPCs: no mismatch of the clusters at once"
    grep -q "^Result   FAIL: the clusters differ from the cluster rule" "$T/out" || fail "$name with other GPCs: result line"
done
# a profile without GPC data cannot predict clusters
"$OCC" validate --replay "$T/records/wg32-slm0-c3.rec" --device h100-sxm >/dev/null 2>"$T/err"
[ $? = 3 ] || fail "records in clusters with h100-sxm (no GPC data) must exit 3"
grep -q "no GPC data" "$T/err" || fail "h100-sxm: message: $(cat "$T/err")"
# a record file in clusters without the records' cluster column
awk '/^records /{r=1; print; next} /^end$/{r=0} r && NF==9 {print $1,$2,$3,$4,$5,$6,$7,$8; next} {print}' \
    "$T/records/wg32-slm0-c3.rec" >"$T/short.rec"
"$OCC" validate --replay "$T/short.rec" >/dev/null 2>"$T/err"
[ $? = 3 ] || fail "records in clusters without their cluster column must exit 3"
grep -q "CLUSTER'" "$T/err" || fail "missing cluster column: message: $(cat "$T/err")"

# --- the fake driver ------------------------------------------------------------------------
mkdir "$T/kdir" && echo "fake PTX" >"$T/kdir/probe_cuda.ptx" && echo "fake PTX" >"$T/kdir/probe_cuda_clusters.ptx"
H200=18,18,16,16,16,16,16,8,2,2,2,2
OTHER=20,20,18,16,14,14,12,10,8
v() { FAKE_CUDA_MODE=devices OCC_KERNEL_DIR=$T/kdir LD_LIBRARY_PATH=$FAKE "$OCC" validate --backend cuda "$@"; }
# 256 threads: 8 blocks per SM; clusters of 4: 248 at once on the H200 (a GPC of 2 SMs holds none)
FAKE_CUDA_GPCS=$H200 v --wg 256 --cluster 4 --groups 1984 --records "$T/f.rec" >"$T/out" 2>/dev/null
[ $? = 0 ] || fail "fake H200, clusters of 4: exit $?: $(cat "$T/out")"
grep -q "^Clusters 4x1x1 (4 work-groups), 496 launched; model 248 at once, .* driver 248 (cuOccupancyMaxActiveClusters) ok$" "$T/out" ||
    fail "fake H200: the clusters line: $(grep ^Clusters "$T/out")"
grep -q "^clusters at once (most) *248 *248   ok$" "$T/out" || fail "fake H200: 248 clusters at once"
grep -q "^SMs used *124 *124   ok$" "$T/out" || fail "fake H200: 124 SMs used"
"$OCC" validate --replay "$T/f.rec" >"$T/out2" 2>/dev/null
[ $? = 0 ] || fail "fake H200's records must replay to a pass"
grep -q "gpc_sms: \[18, 18, 16, 16, 16, 16, 16, 8, 2, 2, 2, 2\]" "$T/f.rec" || fail "the record's profile lacks the GPCs the driver's answers give"
# 2x2x2 clusters of 1024 threads (2 per SM): 30 at once; 16 needs --cluster-non-portable
FAKE_CUDA_GPCS=$H200 v --wg 1024 --cluster 2,2,2 --groups 480 >"$T/out" 2>/dev/null
[ $? = 0 ] || fail "fake H200, clusters of 2x2x2: exit $?"
grep -q "^clusters at once (most) *30 *30   ok$" "$T/out" || fail "fake H200, 2x2x2: 30 clusters at once"
FAKE_CUDA_GPCS=$H200 v --wg 128 --cluster 16 --cluster-non-portable --groups 1856 >"$T/out" 2>/dev/null
[ $? = 0 ] || fail "fake H200, clusters of 16 (non-portable): exit $?"
# a GPU that places clusters in other GPCs than its answers say: the comparison fails
FAKE_CUDA_GPCS=$H200 FAKE_CUDA_PLACE_GPCS=$OTHER v --wg 128 --cluster 8 --groups 2560 >"$T/out" 2>/dev/null
[ $? = 1 ] || fail "fake placement in other GPCs must fail (exit 1)"
grep -q "^clusters at once (most) *124 *132   MISMATCH$" "$T/out" || fail "other placement: $(grep '^clusters at once' "$T/out")"
grep -q "^SMs sharing clusters: .*: MISMATCH$" "$T/out" || fail "other placement: the SM groups must not fit the GPCs"
# predicted with a profile of other GPCs than the GPU's: the driver and the placement differ
FAKE_CUDA_GPCS=$H200 v --wg 128 --cluster 8 --groups 1984 --device "$T/other.yaml" >"$T/out" 2>/dev/null
[ $? = 1 ] || fail "fake H200 predicted with other GPCs must fail (exit 1)"
grep -q "driver 124 (cuOccupancyMaxActiveClusters) MISMATCH" "$T/out" || fail "other profile: the driver's clusters must differ"
# refusals: no GPC data, usage
FAKE_CUDA_GPCS=$H200 v --index 1 --wg 256 --cluster 2 --groups 64 >/dev/null 2>"$T/err"
[ $? = 3 ] || fail "a T4 (no clusters) must refuse --cluster with exit 3"
grep -q "Tesla T4 (sm_75) takes no launch in thread-block clusters" "$T/err" || fail "T4 message: $(cat "$T/err")"
FAKE_CUDA_GPCS=$H200 v --index 1 --wg 256 --cluster 2 --groups 64 --device h200 >/dev/null 2>&1
[ $? = 3 ] || fail "a T4 predicted with h200 must still refuse --cluster with exit 3"
v --wg 256 --cluster 2 --groups 64 >/dev/null 2>"$T/err"
[ $? = 3 ] || fail "an H200 whose driver answers no cluster query must refuse --cluster with exit 3"
FAKE_CUDA_GPCS=$H200 v --wg 256 --cluster 2 --groups 64 --device h100-sxm >/dev/null 2>"$T/err"
[ $? = 3 ] || fail "--device h100-sxm (no GPC data) must refuse --cluster with exit 3"
FAKE_CUDA_GPCS=$H200 v --wg 256 --cluster 4 --groups 66 >/dev/null 2>"$T/err"
[ $? = 2 ] || fail "66 work-groups in clusters of 4 must be a usage error"
FAKE_CUDA_GPCS=$H200 v --wg 256 --cluster 12 --groups 120 >/dev/null 2>"$T/err"
[ $? = 2 ] || fail "a cluster of 12 without --cluster-non-portable must be a usage error"
"$OCC" validate --backend ze --wg 256 --cluster 2 --groups 64 >/dev/null 2>"$T/err"
[ $? = 2 ] || fail "--cluster with the ze backend must be a usage error"
grep -q "the ze backend has none" "$T/err" || fail "ze --cluster message: $(cat "$T/err")"
"$OCC" validate --replay "$T/f.rec" --cluster 4 >/dev/null 2>&1
[ $? = 2 ] || fail "--replay with --cluster must be a usage error"
v --wg 256 --cluster-non-portable --groups 64 >/dev/null 2>&1
[ $? = 2 ] || fail "--cluster-non-portable without --cluster must be a usage error"

[ $fails = 0 ] && echo "all validate --cluster checks passed"
exit $((fails != 0))
