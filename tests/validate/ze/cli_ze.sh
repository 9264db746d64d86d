#!/bin/sh
# occcalc probe / validate --backend ze against the real Intel Level Zero driver
# in hardware-less mode (no Intel GPU needed), and the error paths.
#   cli_ze.sh OCCCALC
# Exit 0 pass, 1 fail, 77 skip (backend not built, or the Intel driver is not
# installed, unless OCC_TEST_REQUIRE_ZE=1).
set -u
occcalc=$1
case $occcalc in /*) ;; *) occcalc=$(pwd)/$occcalc ;; esac
fails=0
tmp=$(mktemp -d /tmp/occ-ze-cli-XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1   # the driver writes capture (.aub) files here

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# run NAME PRODUCT|- "VAR=VALUE ..." ARGS...: occcalc with the driver in
# hardware-less mode for PRODUCT (or plain, for '-') and the extra variables;
# stdout in NAME.out, stderr in NAME.err, exit code in $rc.
run() {
    name=$1 product=$2 vars=$3
    shift 3
    if [ "$product" != - ]; then
        vars="NEOReadDebugKeys=1 SetCommandStreamReceiver=1 ProductFamilyOverride=$product $vars"
    fi
    # shellcheck disable=SC2086
    env $vars "$occcalc" "$@" >"$name.out" 2>"$name.err"
    rc=$?
}

# expect NAME RC TEXT: exit code and a text on stderr.
expect() {
    [ "$rc" = "$2" ] || fail "$1: exit $rc, expected $2 ($(head -c 300 "$1.err"))"
    grep -q -- "$3" "$1.err" || fail "$1: stderr lacks '$3': $(head -c 300 "$1.err")"
}

run first tgllp "" probe --backend ze
if [ "$rc" != 0 ]; then
    if grep -q "not built into" first.err; then
        echo "SKIP: the ze backend is not built"; exit 77
    fi
    if grep -q "zeInit failed" first.err && [ "${OCC_TEST_REQUIRE_ZE:-0}" != 1 ]; then
        echo "SKIP: the Intel Level Zero driver is not usable here: $(cat first.err)"; exit 77
    fi
    fail "probe --backend ze (tgllp): exit $rc: $(cat first.err)"
    exit 1
fi

# probe: a profile that loads and predicts exactly what the shipped one does.
for pair in tgllp:tgl dg1:dg1 rkl:rkl skl:gen9 icllp:gen11; do
    product=${pair%%:*} shipped=${pair#*:}
    run "probe-$product" "$product" "" probe --backend ze -o "$product.yaml"
    [ "$rc" = 0 ] || { fail "probe $product: exit $rc: $(cat "probe-$product.err")"; continue; }
    grep -q "^status: provisional" "$product.yaml" || fail "probe $product: not marked provisional"
    grep -q "not reported by the driver" "$product.yaml" ||
        fail "probe $product: fields not reported by the driver are not marked"
    probed_name=$(sed -n 's/^name: "*\([a-z0-9._-]*\)"*$/\1/p' "$product.yaml")
    for wg in 64 96 256; do
        for sg in 8 16 32; do
            for extra in "" "--barrier" "--slm 3000" "--barrier --slm 20K"; do
                # shellcheck disable=SC2086
                "$occcalc" --device "$product.yaml" --wg $wg --sg $sg --groups 50 $extra \
                    | sed -e 1d -e "s/$probed_name/$shipped/g" >probed.txt 2>&1
                # shellcheck disable=SC2086
                "$occcalc" --device "$shipped" --wg $wg --sg $sg --groups 50 $extra \
                    | sed 1d >shipped.txt 2>&1
                cmp -s probed.txt shipped.txt ||
                    fail "$product vs $shipped: --wg $wg --sg $sg $extra predicts differently"
            done
        done
    done
    echo "probe $product: profile $probed_name loads; predictions equal to '$shipped' on 36 kernels"
    # occcalc devices lists the device with the shipped profile it is
    run "devices-$product" "$product" "" devices --present
    [ "$rc" = 0 ] || fail "devices --present ($product): exit $rc: $(cat "devices-$product.err")"
    grep -q "^ze  *0 .* $shipped  *Intel" "devices-$product.out" ||
        fail "devices --present ($product): not listed as '$shipped': $(cat "devices-$product.out")"
done

# Without clang / llvm-spirv-14 at build time there are no kernels: say so.
if [ "${OCC_ZE_KERNELS_BUILT:-1}" = 0 ]; then
    run nokernels tgllp "" validate --backend ze --wg 320 --sg 8 --groups 8
    expect nokernels 4 "probe_ze_sg8.spv was not found"
    echo "validate without kernels: $(cat nokernels.err)"
    [ "$fails" = 0 ] && { echo PASS; exit 0; }
    echo "FAIL: $fails check(s)"; exit 1
fi

# validate: builds, asks the driver, launches; nothing runs, and it says so.
run validate tgllp "" validate --backend ze --wg 320 --sg 8 --groups 8
expect validate 4 "did not execute"
grep -q "zeKernelSuggestMaxCooperativeGroupCount: 16 work-groups on the device; the model: 12" \
    validate.err || fail "validate: driver answer beside the model missing: $(cat validate.err)"
[ -s validate.out ] && fail "validate: printed a measurement: $(cat validate.out)"
echo "validate tgllp: $(cat validate.err)"
run validate-slm skl "" validate --backend ze --wg 64 --sg 16 --barrier --slm 16K --groups 30
expect validate-slm 4 "did not execute"
grep -q "12 work-groups on the device; the model: 12" validate-slm.err ||
    fail "validate skl SLM: $(cat validate-slm.err)"
run validate-grf tgllp "" validate --backend ze --wg 64 --sg 32 --grf 256 --groups 4
expect validate-grf 4 "did not execute"
run validate-sg tgllp "" validate --backend ze --wg 64 --sg 4 --groups 4
[ "$rc" != 0 ] && [ "$rc" != 4 ] || fail "validate --sg 4: exit $rc"

# Error paths: exit 4 and a clear message, never a crash of occcalc.
run nodriver - ZE_ENABLE_ALT_DRIVERS=/nonexistent probe --backend ze
expect nodriver 4 "zeInit failed"
run nodriver-validate - ZE_ENABLE_ALT_DRIVERS=/nonexistent validate --backend ze --wg 64 --groups 1
expect nodriver-validate 4 "zeInit failed"
run nogpu - "" probe --backend ze
expect nogpu 4 "no usable Level Zero GPU driver"
# The loader is opened only when a command needs it: a missing one is the
# same "no usable driver" error, and a plain calculation does not notice.
run noloader - OCC_ZE_LOADER=/nonexistent/libze_loader.so.1 probe --backend ze
expect noloader 4 "no usable Level Zero GPU driver"
grep -q "cannot be opened" noloader.err || fail "noloader: $(cat noloader.err)"
run noloader-validate tgllp OCC_ZE_LOADER=/nonexistent/libze_loader.so.1 validate --backend ze --wg 64 --groups 1
expect noloader-validate 4 "the loader cannot be opened"
run noloader-calc - OCC_ZE_LOADER=/nonexistent/libze_loader.so.1 --wg 320 --sg 8 --groups 8
[ "$rc" = 0 ] || fail "calc with no loader: exit $rc: $(cat noloader-calc.err)"
run crash - OCC_ZE_FAULT=ze-after-failed-init probe --backend ze
expect crash 4 "died with signal 11"
run abort tgllp OCC_ZE_FAULT=slm-overflow validate --backend ze --wg 64 --slm 4K --groups 1
expect abort 4 "died with signal 6"
run hang tgllp OCC_ZE_FAULT=hang probe --backend ze --timeout 1
expect hang 4 "watchdog"
for n in nodriver noloader crash abort hang; do echo "$n: $(tail -n 1 "$n.err")"; done

if [ "$fails" = 0 ]; then echo PASS; exit 0; fi
echo "FAIL: $fails check(s)"
exit 1
