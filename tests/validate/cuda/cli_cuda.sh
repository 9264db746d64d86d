#!/bin/sh
# occcalc probe/validate without a GPU:
#  - every recorded H100 run in tests/data/cuda/replay replays to its golden
#    report (tests/validate/cuda/golden/NAME.txt) and exit code (NAME.exit);
#    OCC_REGEN=1 rewrites the goldens;
#  - no driver: exit 4 and a message (skipped when this machine has libcuda);
#  - a fake libcuda.so.1 (FAKE_LIB_DIR) that fails cuInit, crashes or hangs:
#    exit 4, a clear message, no crash, the watchdog ends the hang;
#  - usage errors and bad record files;
#  - occcalc probe: the GPCs measured from the fake's cluster answers;
#  - occcalc validate: the ordinary probe on the fake H200;
#  - occcalc devices: the fake's GPUs listed with the profiles that fit them.
# usage: cli_cuda.sh OCCCALC SOURCE_ROOT FAKE_LIB_DIR
set -u
OCC=$1
case $OCC in /*) ;; *) OCC=$(pwd)/$OCC ;; esac
SRC=$2
FAKE=$3
DATA=$SRC/tests/data/cuda/replay
GOLD=$SRC/tests/validate/cuda/golden
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# --- replay goldens ----------------------------------------------------------------
cd "$DATA" || exit 1
for rec in *.rec; do
    name=${rec%.rec}
    "$OCC" validate --replay "$rec" >"$T/out" 2>"$T/err"
    echo $? >"$T/exit"
    if [ "${OCC_REGEN:-0}" = 1 ]; then
        cp "$T/out" "$GOLD/$name.txt"
        cp "$T/exit" "$GOLD/$name.exit"
        continue
    fi
    cmp -s "$T/out" "$GOLD/$name.txt" || { fail "replay $name: report differs"; diff "$GOLD/$name.txt" "$T/out" | head -20; }
    cmp -s "$T/exit" "$GOLD/$name.exit" || fail "replay $name: exit $(cat "$T/exit"), expected $(cat "$GOLD/$name.exit")"
done
# JSON and SVG of one run
"$OCC" validate --replay 206-wg320-rmin-s0-cdef.rec --json --svg "$T/t.svg" >"$T/j" || fail "replay --json exit $?"
grep -q '"schema": "occ/1"' "$T/j" || fail "--json lacks the schema"
grep -q '"pass": true' "$T/j" || fail "--json does not say pass"
head -c 4 "$T/t.svg" | grep -q '<svg' && tail -1 "$T/t.svg" | grep -q '</svg>' || fail "--svg is not an SVG document"
[ "$(ls "$T" | grep -c 't.svg.')" = 0 ] || fail "--svg left a temporary file"
cd "$T" || exit 1

# --- issue 16: the 60000 x 32-thread, 100 us launch of 2026-11-24, predicted with
# h100-sxm's dispatch timing: passes over time; the phase count differs and is
# reported, not a failure; unequal-duration records replay with their spread
D16=$SRC/tests/data/cuda/dispatch/replay
"$OCC" validate --replay "$D16/d058-wg32-rmin-s0-nobar-100us-g60000.rec" --device h100-sxm >"$T/i16"
[ $? = 0 ] || fail "issue 16 case must pass with h100-sxm (exit 0)"
grep -q "^phases .* differ (reported, not a check)" "$T/i16" || fail "issue 16: phase count not reported"
grep -q "^occupancy over time, distance .* ok" "$T/i16" || fail "issue 16: no distance line"
"$OCC" validate --replay "$D16/d058-wg32-rmin-s0-nobar-100us-g60000.rec" --device h100-sxm --json >"$T/i16j"
grep -q '"distance_ok": true' "$T/i16j" || fail "issue 16: --json lacks distance_ok"
"$OCC" validate --replay "$D16/d066-wg1024-rmin-s0-nobar-1000us-g2112-sp500.rec" --device h100-sxm >"$T/sp"
[ $? = 0 ] || fail "unequal durations (1024 threads, 1 ms + up to 0.5 ms) must pass"
# without --device, the record's own description has no timing: a note names the
# profile of that GPU (an H100 SXM: 132 SMs, sm_90, "H100" in its name)
"$OCC" validate --replay "$D16/d058-wg32-rmin-s0-nobar-100us-g60000.rec" >/dev/null 2>"$T/note"
grep -q "^has no ramp-up or refill dips; --device h100-sxm, the profile of this GPU" "$T/note" ||
    fail "issue 16: no note naming h100-sxm without --device"
"$OCC" validate --replay "$D16/d058-wg32-rmin-s0-nobar-100us-g60000.rec" --device h100-sxm >/dev/null 2>"$T/note"
[ ! -s "$T/note" ] || fail "issue 16: a note although --device h100-sxm was given"

# --- usage and bad input ---------------------------------------------------------------
"$OCC" validate --replay "$DATA/204-wg320-rmin-s0-cdef.rec" --wg 32 2>/dev/null; [ $? = 2 ] || fail "--replay with --wg must be a usage error"
"$OCC" validate --backend cuda --wg 32 2>/dev/null; [ $? = 2 ] || fail "missing --groups must be a usage error"
"$OCC" validate --backend nosuch --wg 32 --groups 1 2>"$T/err"; [ $? = 2 ] || fail "unknown backend must be a usage error"
grep -q "no backend named 'nosuch'" "$T/err" || fail "unknown backend message"
"$OCC" validate --replay "$T/missing.rec" 2>/dev/null; [ $? = 3 ] || fail "missing record file must exit 3"
printf 'occ-probe-records 1\nbackend cuda\nrecords 2 0\n0 - 1 1 - - 0 10\n' >"$T/short.rec"
"$OCC" validate --replay "$T/short.rec" 2>"$T/err"; [ $? = 3 ] || fail "truncated record file must exit 3"
grep -q "short.rec:[0-9]" "$T/err" || fail "truncated record file: message names file and line ($(cat "$T/err"))"
echo "garbage" >"$T/bad.rec"
"$OCC" validate --replay "$T/bad.rec" 2>"$T/err"; [ $? = 3 ] || fail "bad record file must exit 3"

# --- no driver -------------------------------------------------------------------------
if ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1'; then
    echo "note: this machine has libcuda.so.1; the no-driver check is skipped"
else
    LD_LIBRARY_PATH=/nonexistent "$OCC" validate --backend cuda --wg 320 --groups 8 >/dev/null 2>"$T/err"
    [ $? = 4 ] || fail "no driver: validate must exit 4"
    grep -q "libcuda.so.1" "$T/err" || fail "no driver: message must name libcuda.so.1"
    LD_LIBRARY_PATH=/nonexistent "$OCC" probe --backend cuda >/dev/null 2>&1; [ $? = 4 ] || fail "no driver: probe must exit 4"
fi

# --- a fake driver ------------------------------------------------------------------------
for mode in nodevice stub nodevices crash; do
    FAKE_CUDA_MODE=$mode LD_LIBRARY_PATH=$FAKE "$OCC" validate --backend cuda --wg 320 --groups 8 >/dev/null 2>"$T/err"
    rc=$?
    [ $rc = 4 ] || fail "fake driver ($mode): exit $rc, expected 4"
    case $mode in
        nodevice) grep -q "cuInit.*CUDA_ERROR_NO_DEVICE" "$T/err" || fail "nodevice message: $(cat "$T/err")" ;;
        stub) grep -q "CUDA_ERROR_STUB_LIBRARY" "$T/err" || fail "stub message: $(cat "$T/err")" ;;
        nodevices) grep -q "driver sees 0" "$T/err" || fail "nodevices message: $(cat "$T/err")" ;;
        crash) grep -qE "died with signal|ended unexpectedly" "$T/err" || fail "crash message: $(cat "$T/err")" ;;
    esac
done
FAKE_CUDA_MODE=nodevice LD_LIBRARY_PATH=$FAKE "$OCC" probe --backend cuda -o "$T/p.yaml" 2>/dev/null
[ $? = 4 ] || fail "fake driver: probe must exit 4"
[ -e "$T/p.yaml" ] && fail "probe wrote a file although it failed"
start=$(date +%s)
FAKE_CUDA_MODE=hang LD_LIBRARY_PATH=$FAKE "$OCC" validate --backend cuda --wg 32 --groups 1 --timeout 1 >/dev/null 2>"$T/err"
rc=$?
end=$(date +%s)
[ $rc = 4 ] || fail "hanging driver: exit $rc, expected 4"
grep -q "watchdog" "$T/err" || fail "hanging driver: message must mention the watchdog: $(cat "$T/err")"
[ $((end - start)) -le 5 ] || fail "hanging driver: took $((end - start)) s with --timeout 1"

# --- occcalc probe: the GPCs from the fake driver's cluster answers (its rule on
# $FAKE_CUDA_GPCS): the H200's recorded structure and a made-up one come back
mkdir "$T/kdir" && echo "fake PTX" >"$T/kdir/probe_cuda.ptx"
probe() { FAKE_CUDA_MODE=devices OCC_KERNEL_DIR=$T/kdir LD_LIBRARY_PATH=$FAKE "$OCC" probe --backend cuda "$@"; }
FAKE_CUDA_GPCS=18,18,16,16,16,16,16,8,2,2,2,2 probe -o "$T/h200.yaml" 2>"$T/err"
[ $? = 0 ] || fail "probe (fake H200 GPCs): exit $?: $(cat "$T/err")"
grep -q "^  gpc_sms: \[18, 18, 16, 16, 16, 16, 16, 8, 2, 2, 2, 2\]$" "$T/h200.yaml" || fail "probe: the H200's GPCs: $(grep gpc "$T/h200.yaml")"
grep -q "^  cluster_max_work_groups: 8$" "$T/h200.yaml" || fail "probe: the H200's cap"
grep -q "^  cluster_max_size: 8$" "$T/h200.yaml" || fail "probe: the portable maximum"
grep -q "^  cluster_max_size_non_portable: 16$" "$T/h200.yaml" || fail "probe: the non-portable maximum"
grep -q "GPCs not measured" "$T/err" && fail "probe: a GPC warning: $(cat "$T/err")"
# the probed profile answers cluster launches as the built-in h200 does
for c in "256 16 --cluster-non-portable" "32 4" "1024 2" "96 12 --cluster-non-portable"; do
    set -- $c
    a=$("$OCC" calc --device "$T/h200.yaml" --wg $1 --cluster $2 ${3:-} --json | grep '"max_active_clusters"')
    e=$("$OCC" calc --device h200 --wg $1 --cluster $2 ${3:-} --json | grep '"max_active_clusters"')
    [ -n "$a" ] && [ "$a" = "$e" ] || fail "probed h200, --wg $1 --cluster $2: '$a', built-in '$e'"
done
# what occcalc probe wrote on an H200 (tests/data/cuda/clusters/probe-h200-2026-11-28/): the
# cluster keys of devices/h200.yaml, the same cluster answers
for rec in "$SRC"/tests/data/cuda/clusters/probe-h200-2026-11-28/probe*.yaml; do
    for key in gpc_sms cluster_max_work_groups cluster_max_size cluster_max_size_non_portable; do
        [ "$(grep "^  $key:" "$rec")" = "$(grep "^  $key:" "$SRC/devices/h200.yaml")" ] ||
            fail "recorded probe $(basename "$rec"): $key differs from devices/h200.yaml"
    done
    a=$("$OCC" calc --device "$rec" --wg 128 --cluster 4,2,2 --cluster-non-portable --json | grep '"max_active_clusters"')
    e=$("$OCC" calc --device h200 --wg 128 --cluster 4,2,2 --cluster-non-portable --json | grep '"max_active_clusters"')
    [ -n "$a" ] && [ "$a" = "$e" ] || fail "recorded probe $(basename "$rec"): '$a', built-in '$e'"
done
FAKE_CUDA_GPCS=20,20,18,16,14,14,12,10,8 FAKE_CUDA_CLUSTER_CAP=6 probe >"$T/other.yaml" 2>/dev/null
grep -q "^  gpc_sms: \[20, 20, 18, 16, 14, 14, 12, 10, 8\]$" "$T/other.yaml" || fail "probe: made-up GPCs: $(grep gpc "$T/other.yaml")"
grep -q "^  cluster_max_work_groups: 6$" "$T/other.yaml" || fail "probe: made-up cap 6"
# GPCs that do not add up to the SMs: a warning, a profile without cluster data
FAKE_CUDA_GPCS=18,18,16 probe >"$T/bad.yaml" 2>"$T/err"
[ $? = 0 ] || fail "probe with inconsistent cluster answers must still write the profile"
grep -q "warning: GPCs not measured (answer set 0: .* not the cluster rule)" "$T/err" || fail "probe: inconsistent answers: $(cat "$T/err")"
grep -q "gpc_sms" "$T/bad.yaml" && fail "probe: GPC data from inconsistent answers"
# no cluster answers (a T4; a driver without the query): a note, no cluster data
probe --index 1 >"$T/t4.yaml" 2>"$T/err"
grep -q "note: the driver answers no cluster query" "$T/err" || fail "probe T4: no note: $(cat "$T/err")"
grep -q "gpc_sms" "$T/t4.yaml" && fail "probe T4: GPC data"

# --- occcalc validate on the fake H200: the ordinary probe, block i on SM i mod 132 in
# waves of 8 x 132 (256 threads): 2640 blocks run 2.5 waves, as the model says
FAKE_CUDA_MODE=devices OCC_KERNEL_DIR=$T/kdir LD_LIBRARY_PATH=$FAKE "$OCC" validate --backend cuda --wg 256 \
    --groups 2640 --records "$T/plain.rec" >"$T/out" 2>/dev/null
[ $? = 0 ] || fail "validate on the fake H200 (2640 blocks of 256): exit $?: $(cat "$T/out")"
grep -q "^work-groups per SM (most at once) *8 *8   ok$" "$T/out" || fail "fake validate: 8 blocks per SM"
grep -q "^  phase 2 work-groups *528 *528$" "$T/out" || fail "fake validate: the half wave"
"$OCC" validate --replay "$T/plain.rec" >/dev/null 2>&1 || fail "fake validate's records must replay to a pass"

# --- occcalc devices: the GPUs present, each with the built-in profile that fits it
# (the fake's H200 has the attributes its driver reported; Level Zero is hidden)
present() { ZE_ENABLE_ALT_DRIVERS=/nonexistent LD_LIBRARY_PATH=$FAKE FAKE_CUDA_MODE=$1 "$OCC" devices --present $2; }
present devices "" >"$T/dev" 2>"$T/err"
[ $? = 0 ] || fail "devices --present (3 GPUs): exit $?: $(cat "$T/err")"
grep -q "^cuda  *0 sm_90  *SM  *132 h200  *NVIDIA H200$" "$T/dev" || fail "devices: the H200 row: $(cat "$T/dev")"
grep -q "^cuda  *1 sm_75  *SM  *40 t4  *Tesla T4$" "$T/dev" || fail "devices: the T4 row: $(cat "$T/dev")"
grep -q "^cuda  *2 sm_87  *SM  *16 -  *Orin (nvgpu)$" "$T/dev" || fail "devices: no profile for sm_87: $(cat "$T/dev")"
present devices --json >"$T/devj" 2>/dev/null
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
got = [(p["index"], p["architecture"], p["cores"], p["profile"]) for p in d["present"]]
assert got == [(0, "sm_90", 132, "h200"), (1, "sm_75", 40, "t4"), (2, "sm_87", 16, None)], got
assert [b["name"] for b in d["backends"]] == ["ze"] and "devices" not in d, d
' "$T/devj" 2>"$T/err" || fail "devices --present --json: $(cat "$T/err")"
# none present: a line, each backend's reason on stderr; exit 4 with --present, 0 without
present nodevice "" >"$T/dev" 2>"$T/err"
[ $? = 4 ] || fail "devices --present with no GPU must exit 4"
grep -q "^none found$" "$T/dev" || fail "devices: no 'none found' line"
grep -q "note: cuda: .*CUDA_ERROR_NO_DEVICE" "$T/err" || fail "devices: the CUDA reason: $(cat "$T/err")"
ZE_ENABLE_ALT_DRIVERS=/nonexistent LD_LIBRARY_PATH=$FAKE FAKE_CUDA_MODE=nodevice "$OCC" devices >/dev/null 2>&1
[ $? = 0 ] || fail "devices with no GPU present must exit 0"
# a crashing driver is a reason, not a crash
present crash "" >/dev/null 2>"$T/err"
[ $? = 4 ] || fail "devices --present with a crashing driver must exit 4"

[ $fails = 0 ] && echo "all CUDA CLI checks passed"
exit $((fails != 0))
