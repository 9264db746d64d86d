#!/bin/sh
# docs/occcalc.1 against the one command registry and each command's --help:
# every command of cli/meson.build's occcalc_commands has its entry under
# COMMANDS (".B NAME"), and every long option any `occcalc [COMMAND] --help`
# prints is in the page (written \-\-name, as man pages spell it).
# Usage: man_page.sh OCCCALC SRCDIR
set -u
occcalc=$1
page=$2/docs/occcalc.1
list=$(sed -n "s/^occcalc_commands *= *\[\(.*\)\].*/\1/p" "$2/cli/meson.build" | tr -d "' " | tr , ' ')
[ -n "$list" ] || { echo "FAIL: no occcalc_commands list in $2/cli/meson.build"; exit 1; }
commands=$(sed -n '/^\.SH COMMANDS/,/^\.SH /p' "$page")
fail=0 options=0
for c in $list; do
    printf '%s\n' "$commands" | grep -q "^\.B $c\( \|$\)" ||
        { echo "FAIL: occcalc(1) has no entry for the command '$c' under COMMANDS"; fail=1; }
    if [ "$c" = calc ]; then help=$("$occcalc" --help); else help=$("$occcalc" "$c" --help); fi
    for opt in $(printf '%s\n' "$help" | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u); do
        options=$((options + 1))
        roff=$(printf '%s' "$opt" | sed 's/-/\\-/g')
        grep -qF -- "$roff" "$page" || { echo "FAIL: occcalc $c --help has $opt; occcalc(1) does not"; fail=1; }
    done
done
[ $fail -eq 0 ] && echo "ok: $list; $options options"
exit $fail
