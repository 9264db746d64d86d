#!/bin/sh
# occcalc phases --svg: the picture of <8, 320, 8> with a barrier is a well-formed
# SVG with the seed's two phases (45.2 %, 11.9 %) and one lane per Xe-core; it
# is written to a temporary name and renamed (no temporary file is left, an
# existing file is replaced whole); an impossible path is exit 6 with nothing
# written.  Usage: svg.sh OCCCALC
set -u
occ=$1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/occ-svg-XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

echo "old content" >"$tmp/p.svg"
umask 022
"$occ" phases --wg 320 --sg 8 --groups 8 --barrier --svg "$tmp/p.svg" >"$tmp/out" 2>"$tmp/err" ||
    fail "exit $? ($(cat "$tmp/err"))"
[ -s "$tmp/p.svg" ] || fail "no SVG written"
grep -q "old content" "$tmp/p.svg" && fail "the old file was not replaced"
ls "$tmp" | grep -q 'tmp' && fail "a temporary file was left: $(ls "$tmp")"
head -c 5 "$tmp/p.svg" | grep -q '<?xml' || fail "not an XML document"
tail -n 1 "$tmp/p.svg" | grep -q '</svg>' || fail "the document is not closed"
for want in '45.2 %' '11.9 %' '>XC0<' '>XC5<' 'time (work-group durations)' '112 ctx, 3 WG'; do
    grep -qF "$want" "$tmp/p.svg" || fail "'$want' missing from the SVG"
done
mode=$(stat -c %a "$tmp/p.svg")
[ "$mode" = 644 ] || fail "mode $mode, expected 644 under umask 022"
if command -v python3 >/dev/null 2>&1; then
    python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' "$tmp/p.svg" ||
        fail "the SVG is not well-formed XML"
fi

"$occ" phases --wg 320 --sg 8 --groups 8 --svg "$tmp/none/p.svg" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc = 6 ] || fail "an impossible path gave exit $rc, expected 6"
[ "$(cat "$tmp/err")" = "occcalc: $tmp/none/p.svg: No such file or directory" ] ||
    fail "no clear message: $(cat "$tmp/err")"
[ -e "$tmp/none" ] && fail "something was written"

# many cores: H100, random durations, 132 lanes
"$occ" phases --device h100-sxm --wg 320 --groups 1000 --distribution uniform:0.5:1.5 \
    --svg "$tmp/h.svg" >/dev/null 2>"$tmp/err" || fail "h100 picture: $(cat "$tmp/err")"
grep -qF '>SM130<' "$tmp/h.svg" || fail "h100 lanes missing"
echo "ok"
