#!/bin/sh
# ptxas never outlives occcalc, and leaves no files behind: occcalc reads a
# PTX file with a stand-in ptxas (first in PATH) that hangs and records its
# process id.
#  1. OCC_COMPILE_TIMEOUT=1: exit 4 within a few seconds, "did not finish
#     within 1 s", the stand-in killed, no occ-ptx-* directory left.
#  2. SIGTERM to occcalc while ptxas runs: occcalc ends by SIGTERM, the
#     stand-in killed, nothing left in TMPDIR (the PTX copy included).
#  3. The same with SIGINT.
#   ptxas_signals.sh OCCCALC SOURCE_DIR
set -u
occcalc=$1
src=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/occ-ptxas-signals-XXXXXX") || exit 2
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

# The stand-in is gone (or a zombie waiting for its new parent to reap it).
gone() {
    pid=$(cat "$tmp/pid" 2>/dev/null) || return 0
    state=$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$pid/status" 2>/dev/null)
    [ -z "$state" ] || [ "$state" = Z ]
}

# 1. timeout
rm -f "$tmp/pid"
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
[ "$failures" = 0 ] && echo "ok   ptxas killed after OCC_COMPILE_TIMEOUT, nothing left"

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
