#!/bin/sh
# Output files and standard output (meson: test 'cli-outfiles', suite 'cli';
# the rules are cli/outfile.h's and docs/cli.md's "Output files"):
#  - a FIFO is written directly: a reader gets the whole SVG, the FIFO stays;
#  - a symlink is followed: the link stays, its target gets the content and
#    keeps its mode; a dangling link creates its target;
#  - a character device (made here with mknod, or a symlink to /dev/full made
#    here) is written directly and never replaced; its "device full" error is
#    reported, exit 6;
#  - a read-only directory, a missing directory, a directory as the path: a
#    clear message and exit 6 BEFORE any report (stdout empty), nothing left;
#  - a write that fails half-way (file size limit): exit 6, the old file kept,
#    no temporary file left;
#  - standard output full (>/dev/full as a redirection) or closed (>&-): every
#    command reports "occcalc: <stdout>: ..." and exits 6; with stdout closed,
#    no file occcalc writes receives the report instead;
#  - "-" and /dev/fd/1 mean standard output (no file of that name appears);
#  - SIGTERM while the temporary file exists removes it.
# /dev/null and /dev/full are never passed as an output path: a broken
# occcalc could replace them.  Run as root this is the normal case: the
# device-node checks are what protect the machine.
#   outfiles.sh OCCCALC SOURCE_DIR
set -u
occcalc=$1
src=$2
case $occcalc in /*) ;; *) occcalc=$(pwd)/$occcalc ;; esac
cd "$src" || exit 2
LC_ALL=C
export LC_ALL
tmp=$(mktemp -d "${TMPDIR:-/tmp}/occ-outfiles-XXXXXX") || exit 2
trap 'chmod -R u+rwx "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
pass=0
fails=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
fail() { fails=$((fails + 1)); echo "FAIL $1: $2"; }
rec=$(ls tests/data/cuda/replay/*.rec 2>/dev/null | head -n 1)

# the writers of --svg: NAME|ARGS (ARGS split on spaces)
writers="phases|phases --wg 320 --sg 8 --groups 100
sweep|sweep --wg 64 --sg 8"
[ -n "$rec" ] && writers="$writers
validate|validate --replay $rec"

# leftovers DIR EXPECTED NAME: DIR holds exactly the names in EXPECTED
leftovers() {
    got=$(cd "$1" && ls -A | sort | tr '\n' ' ')
    [ "$got" = "$2" ] || { fail "$3" "directory holds '$got', expected '$2'"; return 1; }
}
ends_svg() { tail -c 8 "$1" | grep -q '</svg>'; }

while IFS='|' read -r name args; do
    d=$tmp/$name
    mkdir "$d"
    # shellcheck disable=SC2086
    set -- $args

    # ---- FIFO: written directly, stays a FIFO
    mkfifo "$d/fifo"
    timeout 20 cat "$d/fifo" >"$d/fifo.got" &
    reader=$!
    timeout 20 "$occcalc" "$@" --svg "$d/fifo" </dev/null >/dev/null 2>"$d/err"
    rc=$?
    wait $reader
    if [ $rc = 0 ] && [ -p "$d/fifo" ] && ends_svg "$d/fifo.got" && head -c 5 "$d/fifo.got" | grep -q '<'; then
        ok "$name: FIFO gets the SVG and stays a FIFO"
    else
        fail "$name: FIFO" "exit $rc, FIFO $( [ -p "$d/fifo" ] && echo kept || echo replaced), reader got $(wc -c <"$d/fifo.got") bytes: $(cat "$d/err")"
    fi
    rm -f "$d/fifo" "$d/fifo.got" "$d/err"

    # ---- symlink: the link stays, the target is replaced whole, mode kept
    echo "old content" >"$d/target.svg"
    chmod 640 "$d/target.svg"
    ln -s target.svg "$d/link.svg"
    inode=$(stat -c %i "$d/target.svg")
    "$occcalc" "$@" --svg "$d/link.svg" </dev/null >/dev/null 2>"$d/err"
    rc=$?
    if [ $rc = 0 ] && [ -L "$d/link.svg" ] && [ "$(readlink "$d/link.svg")" = target.svg ] &&
        ends_svg "$d/target.svg" && ! grep -q "old content" "$d/target.svg" &&
        [ "$(stat -c %a "$d/target.svg")" = 640 ] && [ "$(stat -c %i "$d/target.svg")" != "$inode" ]; then
        ok "$name: symlink kept, its target replaced whole with its mode (640)"
    else
        fail "$name: symlink" "exit $rc; link: $(ls -l "$d/link.svg"); target: $(ls -l "$d/target.svg"); $(cat "$d/err")"
    fi
    # a dangling link: its target is created, the link stays
    ln -s new.svg "$d/dangling.svg"
    "$occcalc" "$@" --svg "$d/dangling.svg" </dev/null >/dev/null 2>"$d/err"
    rc=$?
    if [ $rc = 0 ] && [ -L "$d/dangling.svg" ] && [ -f "$d/new.svg" ] && ends_svg "$d/new.svg"; then
        ok "$name: dangling symlink: target created, link kept"
    else
        fail "$name: dangling symlink" "exit $rc; $(ls -l "$d"); $(cat "$d/err")"
    fi
    rm -f "$d/err"
    leftovers "$d" "dangling.svg link.svg new.svg target.svg " "$name: symlinks leave nothing behind"
    rm -f "$d"/*

    # ---- character devices: written directly, never replaced; ENOSPC reported
    made_node=0
    # (usable only where device nodes work: not on a nodev file system)
    if mknod "$d/full" c 1 7 2>/dev/null && head -c 1 "$d/full" >/dev/null 2>&1; then
        made_node=1
        "$occcalc" "$@" --svg "$d/full" </dev/null >"$d/out" 2>"$d/err"
        rc=$?
        if [ $rc = 6 ] && [ -c "$d/full" ] && [ "$(stat -c %t:%T "$d/full")" = 1:7 ] &&
            [ "$(cat "$d/err")" = "occcalc: $d/full: No space left on device" ]; then
            ok "$name: a full character device: reported (exit 6), the node kept"
        else
            fail "$name: character device" "exit $rc; $(ls -l "$d/full"); $(cat "$d/err")"
        fi
        rm -f "$d/full" "$d/out" "$d/err"
    fi
    ln -s /dev/full "$d/full-link"
    "$occcalc" "$@" --svg "$d/full-link" </dev/null >"$d/out" 2>"$d/err"
    rc=$?
    if [ $rc = 6 ] && [ -L "$d/full-link" ] && [ "$(readlink "$d/full-link")" = /dev/full ] && [ -c /dev/full ] &&
        [ "$(cat "$d/err")" = "occcalc: $d/full-link: No space left on device" ]; then
        ok "$name: a symlink to /dev/full: reported (exit 6), link and device kept"
    else
        fail "$name: symlink to /dev/full" "exit $rc; $(ls -l "$d/full-link"); $(cat "$d/err")"
    fi
    rm -f "$d/full-link" "$d/out" "$d/err" "$d/full"
    [ $made_node = 1 ] || echo "note $name: mknod not permitted here; the device case ran through a symlink only"

    # ---- paths that cannot be written: found before any report
    mkdir "$d/dir"
    for bad in "$d/missing/x.svg|No such file or directory" "$d/dir|Is a directory" \
        "$d/plain/x.svg|Not a directory"; do
        path=${bad%%|*}
        why=${bad#*|}
        echo "a file" >"$d/plain"
        "$occcalc" "$@" --svg "$path" </dev/null >"$d/out" 2>"$d/err"
        rc=$?
        if [ $rc = 6 ] && [ ! -s "$d/out" ] && [ "$(cat "$d/err")" = "occcalc: $path: $why" ]; then
            ok "$name: '$why' before any report (exit 6, stdout empty)"
        else
            fail "$name: $why" "exit $rc, stdout $(wc -c <"$d/out") bytes; stderr: $(cat "$d/err")"
        fi
        rm -f "$d/out" "$d/err"
    done
    leftovers "$d" "dir plain " "$name: bad paths leave nothing behind"
    rm -rf "$d"/*

    # ---- read-only directory (root writes anywhere: run as user nobody)
    mkdir "$d/ro"
    chmod 555 "$d/ro"
    chmod 755 "$d"
    as=""
    if [ "$(id -u)" = 0 ]; then
        if command -v setpriv >/dev/null 2>&1 &&
            setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$occcalc" 2>/dev/null; then
            as="setpriv --reuid=65534 --regid=65534 --clear-groups"
        else
            as=skip
        fi
    fi
    if [ "$as" = skip ]; then
        echo "skip $name: read-only directory: root, and user nobody cannot run $occcalc (or no setpriv)"
    else
        $as "$occcalc" "$@" --svg "$d/ro/x.svg" </dev/null >"$d/out" 2>"$d/err"
        rc=$?
        if [ $rc = 6 ] && [ ! -s "$d/out" ] && [ "$(cat "$d/err")" = "occcalc: $d/ro/x.svg: Permission denied" ] &&
            [ -z "$(ls -A "$d/ro")" ]; then
            ok "$name: read-only directory: exit 6 before any report, nothing left${as:+ (as nobody)}"
        else
            fail "$name: read-only directory" "exit $rc, stdout $(wc -c <"$d/out") bytes, left: $(ls -A "$d/ro"); $(cat "$d/err")"
        fi
    fi
    chmod 755 "$d/ro"
    rm -rf "$d"/*

    # ---- a write that fails half-way: the old file kept, no temporary left
    # (a file size limit of 1 KB; SIGXFSZ ignored, so write() fails with EFBIG)
    echo "old content" >"$d/x.svg"
    (
        trap '' XFSZ
        ulimit -f 2
        exec "$occcalc" "$@" --svg "$d/x.svg" </dev/null >/dev/null 2>"$d/err"
    )
    rc=$?
    if [ "$rc" = 6 ] && [ "$(cat "$d/x.svg")" = "old content" ] &&
        [ "$(cat "$d/err")" = "occcalc: $d/x.svg: File too large" ]; then
        ok "$name: a write failing half-way: exit 6, the old file kept"
    else
        fail "$name: write failing half-way" "exit $rc, file: $(head -c 40 "$d/x.svg"); $(cat "$d/err")"
    fi
    rm -f "$d/err"
    leftovers "$d" "x.svg " "$name: no temporary file after a failed write"
    rm -rf "$d"
done <<EOF
$writers
EOF

# ---- standard output full or closed: every command reports it
stdout_cases="calc|--wg 64 --json
calc text|--wg 64 --groups 1000
advise|advise --global 1024 --json
sweep|sweep --wg 64 --sg 8
limits|limits --wg 64
phases|phases --wg 64 --groups 100
devices|devices --builtin
help|--help"
[ -n "$rec" ] && stdout_cases="$stdout_cases
validate|validate --replay $rec"
while IFS='|' read -r name args; do
    # shellcheck disable=SC2086
    "$occcalc" $args </dev/null >/dev/full 2>"$tmp/err"
    rc=$?
    if [ $rc = 6 ] && [ "$(cat "$tmp/err")" = "occcalc: <stdout>: No space left on device" ]; then
        ok "$name: stdout full: reported, exit 6"
    else
        fail "$name: stdout full" "exit $rc; stderr: $(cat "$tmp/err")"
    fi
    # shellcheck disable=SC2086
    "$occcalc" $args </dev/null >&- 2>"$tmp/err"
    rc=$?
    if [ $rc = 6 ] && [ "$(cat "$tmp/err")" = "occcalc: <stdout>: Bad file descriptor" ]; then
        ok "$name: stdout closed: reported, exit 6"
    else
        fail "$name: stdout closed" "exit $rc; stderr: $(cat "$tmp/err")"
    fi
done <<EOF
$stdout_cases
EOF
# a refused command line stays a usage error (2) even with stdout full
"$occcalc" --wg 0 </dev/null >/dev/full 2>"$tmp/err"
rc=$?
[ $rc = 2 ] && ok "usage error with stdout full: still exit 2" || fail "usage error with stdout full" "exit $rc"

# stdout closed: the SVG file must not receive the report (descriptor 1 reused)
"$occcalc" phases --wg 320 --sg 8 --groups 8 --svg "$tmp/closed.svg" </dev/null >&- 2>"$tmp/err"
rc=$?
if [ $rc = 6 ] && head -c 5 "$tmp/closed.svg" | grep -q '<?xml' && ! grep -q "Dispatch" "$tmp/closed.svg" &&
    ends_svg "$tmp/closed.svg"; then
    ok "stdout closed: the SVG is whole and holds no report"
else
    fail "stdout closed with --svg" "exit $rc; $(head -c 60 "$tmp/closed.svg" 2>&1); $(cat "$tmp/err")"
fi
rm -f "$tmp/closed.svg"

# ---- a signal while the temporary file exists: it is removed, the target never appears
mkdir "$tmp/sig"
mkfifo "$tmp/sig.pipe"
sleep 30 <"$tmp/sig.pipe" &
reader=$!
# 370 KB of report into a pipe nobody reads: occcalc blocks after opening the SVG
"$occcalc" phases --device h100-sxm --wg 320 --groups 20000 --distribution uniform:0.5:1.5 --lanes \
    --max-phases 100000000 --svg "$tmp/sig/x.svg" </dev/null >"$tmp/sig.pipe" 2>/dev/null &
writer=$!
i=0
while [ -z "$(ls -A "$tmp/sig")" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
seen=$(ls -A "$tmp/sig")
kill -TERM $writer 2>/dev/null
wait $writer
rc=$?
kill $reader 2>/dev/null
wait $reader 2>/dev/null
case $seen in x.svg.tmp*) ;; *) seen="" ;; esac
if [ -n "$seen" ] && [ $rc = 143 ] && [ -z "$(ls -A "$tmp/sig")" ]; then
    ok "SIGTERM while writing: the temporary file ($seen) removed, no x.svg"
else
    fail "SIGTERM while writing" "exit $rc; temporary seen: '$seen'; left: $(ls -A "$tmp/sig")"
fi
rm -f "$tmp/sig.pipe"

# ---- "-" and /dev/fd/1: standard output, no file of that name
mkdir "$tmp/dash"
(cd "$tmp/dash" && "$occcalc" sweep --wg 64 --sg 8 --format csv --svg - </dev/null >"$tmp/both" 2>"$tmp/err")
rc=$?
if [ $rc = 0 ] && [ -z "$(ls -A "$tmp/dash")" ] && head -n 1 "$tmp/both" | grep -q '^x,' && ends_svg "$tmp/both"; then
    ok "--svg -: CSV then the SVG on stdout, no file named '-'"
else
    fail "--svg -" "exit $rc; files: $(ls -A "$tmp/dash"); $(cat "$tmp/err")"
fi
: >"$tmp/fd1"
inode=$(stat -c %i "$tmp/fd1")
"$occcalc" phases --wg 320 --sg 8 --groups 8 --svg /dev/fd/1 </dev/null >"$tmp/fd1" 2>"$tmp/err"
rc=$?
if [ $rc = 0 ] && [ "$(stat -c %i "$tmp/fd1")" = "$inode" ] && head -n 1 "$tmp/fd1" | grep -q '^Device' &&
    ends_svg "$tmp/fd1"; then
    ok "--svg /dev/fd/1: report then SVG in the shell's file (same inode)"
else
    fail "--svg /dev/fd/1" "exit $rc; $(head -c 60 "$tmp/fd1"); $(cat "$tmp/err")"
fi

# ---- outputs of the live commands are checked before the driver is loaded
LD_LIBRARY_PATH=/nonexistent "$occcalc" probe --backend cuda -o "$tmp/missing/p.yaml" </dev/null >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc = 6 ] && [ "$(cat "$tmp/err")" = "occcalc: $tmp/missing/p.yaml: No such file or directory" ]; then
    ok "probe -o into a missing directory: exit 6 before the driver"
else
    fail "probe -o missing directory" "exit $rc; $(cat "$tmp/err")"
fi
LD_LIBRARY_PATH=/nonexistent "$occcalc" validate --backend cuda --wg 32 --groups 1 --records "$tmp/missing/r.rec" \
    </dev/null >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc = 6 ] && [ "$(cat "$tmp/err")" = "occcalc: $tmp/missing/r.rec: No such file or directory" ]; then
    ok "validate --records into a missing directory: exit 6 before the driver"
else
    fail "validate --records missing directory" "exit $rc; $(cat "$tmp/err")"
fi

echo "$pass passed, $fails failed"
[ "$pass" -gt 0 ] && [ "$fails" -eq 0 ]
