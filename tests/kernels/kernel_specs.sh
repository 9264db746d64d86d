#!/bin/sh
# --kernel FILE:NAME where the path holds ':' too: FILE is the longest part
# before a ':' that is an existing file.  A copy of the sm_90 cubin named
# "a:b.cubin" (k_simple: 64 threads, 100 % on h100-sxm in kernels-cubin).
#   kernel_specs.sh OCCCALC SOURCE_DIR
set -u
occcalc=$1
src=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/occ-kernel-specs-XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
cp "$src/tests/data/kernels/nvidia/kernels_sm90.cubin" "$tmp/a:b.cubin"
failures=0
# expect RC NEEDLE -- ARGS: exit code, and a line of stdout+stderr holding NEEDLE
expect() {
    rc=$1 needle=$2
    shift 3
    "$occcalc" "$@" > "$tmp/out" 2>&1
    got=$?
    if [ "$got" != "$rc" ] || ! grep -qF -- "$needle" "$tmp/out"; then
        echo "FAIL occcalc $*: exit $got (expected $rc), output:"
        head -5 "$tmp/out"
        failures=$((failures + 1))
    else
        echo "ok   occcalc $*"
    fi
}
expect 0 "occupancy                100.0 %" -- calc --kernel "$tmp/a:b.cubin:k_simple" --wg 64
expect 0 "24 registers/thread" -- calc --kernel "$tmp/a:b.cubin:k_tmpl<8, double>" --wg 256
expect 2 "holds 17 kernels" -- calc --kernel "$tmp/a:b.cubin" --wg 64
expect 2 "no kernel named 'k_nope:x'" -- calc --kernel "$tmp/a:b.cubin:k_nope:x" --wg 64
expect 3 "cannot open" -- calc --kernel "$tmp/missing:k_simple" --wg 64
[ "$failures" = 0 ]
