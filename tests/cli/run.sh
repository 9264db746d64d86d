#!/bin/sh
# CLI golden tests: run occcalc with each case's arguments and compare its
# stdout, stderr and exit code with the golden files.
#
#   run.sh OCCCALC SOURCE_DIR [CASE...]        (meson: suite 'cli')
#   OCC_REGEN=1 run.sh OCCCALC SOURCE_DIR [CASE...]   rewrite the goldens
#
# Layout (tests/cli/README.md says more):
#   cases/NAME.args     occcalc's arguments, one per line; '#' lines are
#                       comments, blank lines are skipped, a line '@EMPTY@' is
#                       an empty argument
#   golden/NAME.out     expected stdout, exactly
#   golden/NAME.out.grep  instead of NAME.out: lines that must each appear in
#                       stdout (fixed strings), for output that changes often
#   golden/NAME.err     expected stderr, exactly
#   golden/NAME.rc      expected exit code
# occcalc runs in SOURCE_DIR (so paths in cases and messages are relative to
# the repository), with LC_ALL=C and stdin from /dev/null.  In the goldens,
# @VERSION@ stands for $OCC_VERSION (meson passes the project version;
# without it, the version in SOURCE_DIR/meson.build).
# A regenerated golden must still be checked by eye against the seeds.
set -u
if [ $# -lt 2 ]; then
    echo "usage: run.sh OCCCALC SOURCE_DIR [CASE...]" >&2
    exit 2
fi
occcalc=$1
src=$2
shift 2
case $occcalc in /*) ;; *) occcalc=$(pwd)/$occcalc ;; esac
cd "$src" || exit 2
dir=tests/cli
[ -x "$occcalc" ] || { echo "run.sh: $occcalc is not an executable" >&2; exit 2; }
version=${OCC_VERSION:-$(sed -n "s/^ *version *: *'\([^']*\)'.*/\1/p" meson.build | head -n 1)}
regen=${OCC_REGEN:-0}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/occ-cli-XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
LC_ALL=C
export LC_ALL

# Replace the package version by @VERSION@ so the goldens do not change with it.
unversion() {
    if [ -n "$version" ]; then
        sed "s/$(printf '%s' "$version" | sed 's/[.[\*^$/]/\\&/g')/@VERSION@/g"
    else
        cat
    fi
}

# run_case NAME: occcalc with cases/NAME.args; output in $tmp/NAME.{out,err,rc}
run_case() {
    set --
    while IFS= read -r line || [ -n "$line" ]; do
        case $line in
            '#'* | '') continue ;;
            @EMPTY@) line= ;;
        esac
        set -- "$@" "$line"
    done <"$dir/cases/$name.args"
    "$occcalc" "$@" </dev/null >"$tmp/$name.raw.out" 2>"$tmp/$name.raw.err"
    echo $? >"$tmp/$name.rc"
    unversion <"$tmp/$name.raw.out" >"$tmp/$name.out"
    unversion <"$tmp/$name.raw.err" >"$tmp/$name.err"
}

# Cases to run: the arguments, or every cases/*.args.
if [ $# -eq 0 ]; then
    for f in "$dir"/cases/*.args; do
        [ -e "$f" ] || continue
        n=${f##*/}
        set -- "$@" "${n%.args}"
    done
    # A golden without its case is stale: say so.
    for f in "$dir"/golden/*.rc "$dir"/golden/*.out "$dir"/golden/*.out.grep "$dir"/golden/*.err; do
        [ -e "$f" ] || continue
        n=${f##*/}
        n=${n%.grep}
        n=${n%.*}
        [ -e "$dir/cases/$n.args" ] || { echo "FAIL $n: golden ${f##*/} has no case file"; stale=1; }
    done
fi
[ $# -gt 0 ] || { echo "run.sh: no cases in $src/$dir/cases" >&2; exit 2; }

pass=0
fails=0
for name in "$@"; do
    if [ ! -f "$dir/cases/$name.args" ]; then
        echo "FAIL $name: no file $dir/cases/$name.args"
        fails=$((fails + 1))
        continue
    fi
    run_case
    g=$dir/golden/$name
    if [ "$regen" = 1 ]; then
        [ -f "$g.out.grep" ] || cp "$tmp/$name.out" "$g.out"
        cp "$tmp/$name.err" "$g.err"
        cp "$tmp/$name.rc" "$g.rc"
        echo "wrote $g.* (exit $(cat "$tmp/$name.rc")): check it by eye"
        continue
    fi
    bad=
    if [ ! -f "$g.rc" ]; then
        bad="$bad no golden $g.rc;"
    elif [ "$(cat "$g.rc")" != "$(cat "$tmp/$name.rc")" ]; then
        bad="$bad exit $(cat "$tmp/$name.rc"), expected $(cat "$g.rc");"
    fi
    if [ -f "$g.out.grep" ]; then
        while IFS= read -r want || [ -n "$want" ]; do
            [ -n "$want" ] || continue
            grep -F -q -e "$want" "$tmp/$name.out" || bad="$bad stdout lacks '$want';"
        done <"$g.out.grep"
    elif [ -f "$g.out" ]; then
        diff -u "$g.out" "$tmp/$name.out" >"$tmp/$name.out.diff" || bad="$bad stdout differs;"
    else
        bad="$bad no golden $g.out;"
    fi
    if [ -f "$g.err" ]; then
        diff -u "$g.err" "$tmp/$name.err" >"$tmp/$name.err.diff" || bad="$bad stderr differs;"
    else
        bad="$bad no golden $g.err;"
    fi
    if [ -z "$bad" ]; then
        pass=$((pass + 1))
        echo "ok   $name"
        continue
    fi
    fails=$((fails + 1))
    echo "FAIL $name:$bad"
    echo "     occcalc$(sed -e '/^#/d' -e '/^$/d' -e 's/^/ /' "$dir/cases/$name.args" | tr -d '\n')"
    for d in "$tmp/$name.out.diff" "$tmp/$name.err.diff"; do
        [ -s "$d" ] && sed 's/^/     /' "$d"
    done
done
[ "$regen" = 1 ] && exit 0
echo "$pass passed, $fails failed"
[ "$fails" -eq 0 ] && [ -z "${stale:-}" ]
