#!/bin/sh
# The kernel readers through occcalc, where a golden case cannot go.
#
# --kernel FILE:NAME where the path holds ':' too: FILE is the longest part
# before a ':' that is an existing file.  A copy of the sm_90 cubin named
# "a:b.cubin" (k_simple: 64 threads, 100 % on h100-sxm in kernels-cubin).
#
# ptxas never outlives occcalc, and leaves no files behind: occcalc reads a
# PTX file with a stand-in ptxas (first in PATH) that hangs and records its
# process id.
#  1. OCC_COMPILE_TIMEOUT=1: exit 4 within a few seconds, "did not finish
#     within 1 s", the stand-in killed, no occ-ptx-* directory left.
#  2. SIGTERM to occcalc while ptxas runs: occcalc ends by SIGTERM, the
#     stand-in killed, nothing left in TMPDIR (the PTX copy included).
#  3. The same with SIGINT.
#   kernels_cli.sh OCCCALC SOURCE_DIR
set -u
occcalc=$1
src=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/occ-kernels-cli-XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/bin" "$tmp/t"
cat > "$tmp/bin/ptxas" <<EOS
#!/bin/sh
echo \$\$ > "$tmp/pid.tmp" && mv "$tmp/pid.tmp" "$tmp/pid"
exec sleep 60
EOS
chmod +x "$tmp/bin/ptxas"
ptx=$src/tests/data/kernels/nvidia/directives.ptx
failures=0
fail() { echo "FAIL $1"; failures=$((failures + 1)); }

# --kernel FILE:NAME.  expect RC NEEDLE -- ARGS: exit code, and a line of
# stdout+stderr holding NEEDLE.
cp "$src/tests/data/kernels/nvidia/kernels_sm90.cubin" "$tmp/a:b.cubin"
expect() {
    rc=$1 needle=$2
    shift 3
    "$occcalc" "$@" > "$tmp/out" 2>&1
    got=$?
    if [ "$got" != "$rc" ] || ! grep -qF -- "$needle" "$tmp/out"; then
        fail "occcalc $*: exit $got (expected $rc): $(head -3 "$tmp/out")"
    else
        echo "ok   occcalc $*"
    fi
}
expect 0 "occupancy                100.0 %" -- calc --kernel "$tmp/a:b.cubin:k_simple" --wg 64
expect 0 "24 registers/thread" -- calc --kernel "$tmp/a:b.cubin:k_tmpl<8, double>" --wg 256
expect 2 "holds 17 kernels" -- calc --kernel "$tmp/a:b.cubin" --wg 64
expect 2 "no kernel named 'k_nope:x'" -- calc --kernel "$tmp/a:b.cubin:k_nope:x" --wg 64
expect 3 "cannot open" -- calc --kernel "$tmp/missing:k_simple" --wg 64

# The stand-in is gone (or a zombie waiting for its new parent to reap it).
gone() {
    pid=$(cat "$tmp/pid" 2>/dev/null) || return 0
    state=$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$pid/status" 2>/dev/null)
    [ -z "$state" ] || [ "$state" = Z ]
}

# 1. timeout
rm -f "$tmp/pid"
before=$failures
start=$(date +%s)
TMPDIR=$tmp/t PATH=$tmp/bin:$PATH OCC_COMPILE_TIMEOUT=1 \
    "$occcalc" kernels "$ptx" --device h100-sxm > "$tmp/out" 2> "$tmp/err"
rc=$?
took=$(($(date +%s) - start))
[ "$rc" = 4 ] || fail "timeout: exit $rc, expected 4: $(cat "$tmp/err")"
grep -q "did not finish within 1 s" "$tmp/err" || fail "timeout: message: $(cat "$tmp/err")"
[ "$took" -lt 10 ] || fail "timeout: took $took s"
gone || fail "timeout: ptxas $(cat "$tmp/pid") still runs"
[ -z "$(ls -A "$tmp/t")" ] || fail "timeout: left in TMPDIR: $(ls -A "$tmp/t")"
[ "$failures" = "$before" ] && echo "ok   ptxas killed after OCC_COMPILE_TIMEOUT, nothing left"

# 2, 3. signals while ptxas runs
for sig in TERM INT; do
    rm -f "$tmp/pid"
    before=$failures
    # A background job starts with SIGINT ignored; occcalc gets the default.
    TMPDIR=$tmp/t PATH=$tmp/bin:$PATH env --default-signal=INT "$occcalc" kernels "$ptx" \
        --device h100-sxm > "$tmp/out" 2> "$tmp/err" &
    occ=$!
    i=0
    while [ ! -f "$tmp/pid" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
    [ -f "$tmp/pid" ] || fail "SIG$sig: ptxas never started: $(cat "$tmp/err")"
    kill -s "$sig" "$occ"
    wait "$occ"
    rc=$?
    case $sig in TERM) want=143 ;; INT) want=130 ;; esac
    [ "$rc" = "$want" ] || fail "SIG$sig: occcalc exit $rc, expected $want"
    i=0
    while ! gone && [ $i -lt 20 ]; do sleep 0.1; i=$((i + 1)); done
    gone || fail "SIG$sig: ptxas $(cat "$tmp/pid") still runs"
    [ -z "$(ls -A "$tmp/t")" ] || fail "SIG$sig: left in TMPDIR: $(ls -A "$tmp/t")"
    [ "$failures" = "$before" ] && echo "ok   SIG$sig: ptxas killed, nothing left"
done
[ "$failures" = 0 ] || exit 1
