#!/bin/sh
# Bad input files that a golden case cannot set up, and the output files occ
# writes (meson: test 'cli-bad-files', suite 'cli'):
#  - every broken profile of tests/profiles/bad through occcalc: exit 3, one
#    line on stderr naming the file, nothing on stdout (the exact message of
#    each is checked by test_profiles);
#  - an unreadable profile (as root: read as user nobody through setpriv, or
#    skipped with a note), a FIFO, a profile over 1 MiB, deeply nested YAML, a
#    symlink loop, a dangling symlink, a path through a regular file;
#  - SVG outputs: written whole under a temporary name and renamed (the target
#    gets a new inode), nothing left behind when writing fails, an existing
#    directory never replaced.
#   bad_files.sh OCCCALC SOURCE_DIR
set -u
occcalc=$1
src=$2
case $occcalc in /*) ;; *) occcalc=$(pwd)/$occcalc ;; esac
cd "$src" || exit 2
LC_ALL=C
export LC_ALL
tmp=$(mktemp -d "${TMPDIR:-/tmp}/occ-bad-files-XXXXXX") || exit 2
trap 'chmod -R u+rwx "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
pass=0
fails=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
fail() { fails=$((fails + 1)); echo "FAIL $1: $2"; }

# expect NAME RC STDERR -- ARGS...: exact exit code and stderr, empty stdout.
expect() {
    name=$1 rc=$2 err=$3
    shift 4
    timeout 60 "$occcalc" "$@" </dev/null >"$tmp/out" 2>"$tmp/err"
    got=$?
    if [ "$got" != "$rc" ]; then
        fail "$name" "exit $got, expected $rc; stderr: $(head -c 300 "$tmp/err")"
    elif [ "$(cat "$tmp/err")" != "$err" ]; then
        fail "$name" "stderr '$(cat "$tmp/err")', expected '$err'"
    elif [ -s "$tmp/out" ]; then
        fail "$name" "unexpected stdout: $(head -c 200 "$tmp/out")"
    else
        ok "$name"
    fi
}

# ---- the broken-profile catalogue through the CLI ---------------------------
n=0
for f in tests/profiles/bad/*.yaml; do
    [ -e "$f" ] || continue
    n=$((n + 1))
    name="profile $(basename "$f")"
    timeout 60 "$occcalc" --device "$f" --wg 64 </dev/null >"$tmp/out" 2>"$tmp/err"
    got=$?
    lines=$(wc -l <"$tmp/err")
    if [ "$got" != 3 ]; then
        fail "$name" "exit $got, expected 3: $(head -c 300 "$tmp/err")"
    elif [ "$lines" != 1 ] || ! grep -q "^occcalc: $f: \|^occcalc: $f:[0-9]*:[0-9]*: " "$tmp/err"; then
        fail "$name" "stderr is not one line naming the file: $(head -c 300 "$tmp/err")"
    elif [ -s "$tmp/out" ]; then
        fail "$name" "unexpected stdout"
    else
        ok "$name"
    fi
done
[ "$n" -ge 30 ] || fail "catalogue" "only $n broken profiles in tests/profiles/bad (at least 30)"

# ---- files a case file cannot make -----------------------------------------
good=tests/profiles/good/intel.yaml
mkdir "$tmp/p"
chmod 755 "$tmp" "$tmp/p"

cp "$good" "$tmp/p/unreadable.yaml"
chmod 000 "$tmp/p/unreadable.yaml"
msg="occcalc: $tmp/p/unreadable.yaml: cannot open: Permission denied"
if [ "$(id -u)" != 0 ]; then
    expect "unreadable profile" 3 "$msg" -- --device "$tmp/p/unreadable.yaml" --wg 64
elif command -v setpriv >/dev/null 2>&1 &&
    setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$occcalc" 2>/dev/null; then
    # root reads anything: ask as user nobody instead
    timeout 60 setpriv --reuid=65534 --regid=65534 --clear-groups "$occcalc" \
        --device "$tmp/p/unreadable.yaml" --wg 64 </dev/null >"$tmp/out" 2>"$tmp/err"
    got=$?
    if [ "$got" = 3 ] && [ "$(cat "$tmp/err")" = "$msg" ] && [ ! -s "$tmp/out" ]; then
        ok "unreadable profile (as nobody)"
    else
        fail "unreadable profile (as nobody)" "exit $got: $(cat "$tmp/err")"
    fi
else
    echo "skip unreadable profile: running as root, and user nobody cannot run $occcalc (or no setpriv)"
fi

mkfifo "$tmp/p/fifo.yaml"
expect "FIFO as profile" 3 "occcalc: $tmp/p/fifo.yaml: not a regular file" -- --device "$tmp/p/fifo.yaml" --wg 64

{ cat "$good"; head -c 1048576 /dev/zero | tr '\0' '#'; } >"$tmp/p/huge.yaml"
size=$(wc -c <"$tmp/p/huge.yaml" | tr -d ' ')
expect "profile over 1 MiB" 3 "occcalc: $tmp/p/huge.yaml: too large for a profile ($size bytes, at most 1048576)" \
    -- --device "$tmp/p/huge.yaml" --wg 64

# 200000 nested lists: refused at once (libyaml alone takes minutes on them)
{ printf 'core: '; head -c 200000 /dev/zero | tr '\0' '['; } >"$tmp/p/deep.yaml"
expect "deeply nested YAML" 3 \
    "occcalc: $tmp/p/deep.yaml:1:39: YAML nested more than 32 levels deep ('[' and '{'): not a profile" \
    -- --device "$tmp/p/deep.yaml" --wg 64

ln -s loop.yaml "$tmp/p/loop.yaml"
expect "symlink loop" 3 "occcalc: $tmp/p/loop.yaml: cannot open: Too many levels of symbolic links" \
    -- --device "$tmp/p/loop.yaml" --wg 64
ln -s nowhere.yaml "$tmp/p/dangling.yaml"
expect "dangling symlink" 3 "occcalc: $tmp/p/dangling.yaml: cannot open: No such file or directory" \
    -- --device "$tmp/p/dangling.yaml" --wg 64
expect "path through a file" 3 "occcalc: $good/x.yaml: cannot open: Not a directory" -- --device "$good/x.yaml" --wg 64

# ---- output files: temporary name, then rename --------------------------------
out=$tmp/o
mkdir "$out"
# leftovers: anything in the directory but what we expect
only() {
    extra=$(cd "$out" && ls -A | grep -v -x -F "$1")
    [ -z "$extra" ] || fail "$2" "left behind in the output directory: $extra"
}

# writer NAME ARGS...: an SVG written by a command; the second write replaces
# the file by rename (new inode), never in place.
svg_writer() {
    name=$1
    shift
    rm -rf "$out" && mkdir "$out"
    if ! "$occcalc" "$@" --svg "$out/x.svg" </dev/null >/dev/null 2>"$tmp/err"; then
        fail "$name writes an SVG" "$(cat "$tmp/err")"
        return
    fi
    if [ "$(tail -c 7 "$out/x.svg")" != "</svg>" ] && [ "$(tail -c 8 "$out/x.svg")" != "</svg>
" ]; then
        fail "$name writes an SVG" "the file does not end with </svg>"
        return
    fi
    inode=$(ls -i "$out/x.svg" | awk '{print $1}')
    "$occcalc" "$@" --svg "$out/x.svg" </dev/null >/dev/null 2>&1
    inode2=$(ls -i "$out/x.svg" | awk '{print $1}')
    if [ "$inode" = "$inode2" ]; then
        fail "$name replaces by rename" "same inode $inode: written in place"
    else
        ok "$name writes whole files and replaces by rename"
    fi
    only x.svg "$name"
    # a directory in the way: refused, kept, nothing left behind
    mkdir "$out/d"
    "$occcalc" "$@" --svg "$out/d" </dev/null >/dev/null 2>"$tmp/err"
    got=$?
    if [ "$got" = 6 ] && [ -d "$out/d" ] && [ "$(cat "$tmp/err")" = "occcalc: $out/d: Is a directory" ]; then
        ok "$name refuses a directory as output"
    else
        fail "$name refuses a directory as output" "exit $got: $(cat "$tmp/err")"
    fi
    only "x.svg
d" "$name"
    # a missing directory: refused, nothing created
    "$occcalc" "$@" --svg "$out/missing/x.svg" </dev/null >/dev/null 2>"$tmp/err"
    got=$?
    if [ "$got" = 6 ] && [ ! -e "$out/missing" ] &&
        [ "$(cat "$tmp/err")" = "occcalc: $out/missing/x.svg: No such file or directory" ]; then
        ok "$name: output in a missing directory"
    else
        fail "$name: output in a missing directory" "exit $got: $(cat "$tmp/err")"
    fi
}
svg_writer "phases --svg" phases --wg 320 --sg 8 --groups 100
svg_writer "sweep --svg" sweep --wg 64 --sg 8
rec=$(ls tests/data/cuda/replay/*.rec 2>/dev/null | head -n 1)
if [ -n "$rec" ]; then
    svg_writer "validate --replay --svg" validate --replay "$rec"
else
    echo "skip validate --replay --svg: no recorded file under tests/data/cuda/replay"
fi

echo "$pass passed, $fails failed"
[ "$fails" -eq 0 ]
