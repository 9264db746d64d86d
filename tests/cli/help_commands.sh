#!/bin/sh
# Every command registered in cli/meson.build (occcalc_commands) is listed on
# the command line of `occcalc --help`, and its own `--help` starts with
# "usage: occcalc NAME" and exits 0.  Usage: help_commands.sh OCCCALC SRCDIR
set -u
occcalc=$1
list=$(sed -n "s/^occcalc_commands *= *\[\(.*\)\].*/\1/p" "$2/cli/meson.build" | tr -d "' " | tr , ' ')
[ -n "$list" ] || { echo "FAIL: no occcalc_commands list in $2/cli/meson.build"; exit 1; }
line=$("$occcalc" --help | grep '(see COMMAND --help)')
[ -n "$line" ] || { echo "FAIL: occcalc --help has no line of commands"; exit 1; }
fail=0
for c in $list; do
    [ "$c" = calc ] && continue # the default command: --help is its own
    case " $(echo "$line" | tr -s ' |' ' ') " in
    *" $c "*) ;;
    *) echo "FAIL: occcalc --help does not list '$c': $line"; fail=1 ;;
    esac
    out=$("$occcalc" "$c" --help 2>&1)
    rc=$?
    [ $rc -eq 0 ] || { echo "FAIL: occcalc $c --help exits $rc"; fail=1; }
    case "$out" in
    "usage: occcalc $c"*) ;;
    *) echo "FAIL: occcalc $c --help does not start with 'usage: occcalc $c'"; fail=1 ;;
    esac
done
[ $fail -eq 0 ] && echo "ok: $list"
exit $fail
