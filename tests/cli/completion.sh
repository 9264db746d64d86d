#!/bin/sh
# Shell completion (cli/completion) offers what the registry and --help say:
# every command of cli/meson.build's occcalc_commands, each command's options,
# the choices of an option written a|b|c, the built-in devices for --device.
# The same in zsh (the generated _occcalc through bashcompinit) when zsh is
# installed.  Usage: completion.sh OCCCALC SRCDIR ZSH_COMPLETION
set -u
occcalc=$1 src=$2 zshfile=$3
# Under the asan setup, LeakSanitizer's stop-the-world hangs an occcalc that
# zsh's completion runs (gcc 12's runtime, seen in CI); the other CLI tests
# check occcalc for leaks, this one checks the completion scripts.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
list=$(sed -n "s/^occcalc_commands *= *\[\(.*\)\].*/\1/p" "$src/cli/meson.build" | tr -d "' " | tr , ' ')
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
# The questions, one a line: the words typed (the last one being completed),
# then '=' and what TAB must offer among its answers.
{
    echo "'' = $(echo "$list" | sed 's/\bcalc\b//')"
    for c in $list; do
        [ "$c" = calc ] && continue
        echo "$c -- = $("$occcalc" "$c" --help | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u | tr '\n' ' ')"
    done
    echo "-- = --wg --kernel --json --jsonl --csv"
    echo "sweep --over '' = wg slm regs grf sg"
    echo "phases --order '' = pack spread"
    echo "probe --backend '' = cuda ze"
    echo "--device '' = tgl h100-sxm"
} >"$tmp/questions"
# One shell answers them all: q WORDS... prints what TAB offers.
sed "s/ = .*//; s/^/q /" "$tmp/questions" >"$tmp/ask"
run() {
    if [ "$1" = bash ]; then
        bash -c '. "$1"; q() { COMP_WORDS=("$OCC" "$@"); COMP_CWORD=$#; COMPREPLY=(); __occcalc_complete
            echo "${COMPREPLY[*]}"; }; . "$2"' sh "$src/cli/completion/occcalc.bash" "$tmp/ask"
    else
        zsh -fc 'autoload -U compinit && compinit -u -D; source "$1" 2>/dev/null; setopt ksharrays
            q() { COMP_WORDS=("$OCC" "$@"); COMP_CWORD=$#; COMPREPLY=(); __occcalc_complete
            echo "${COMPREPLY[*]}"; }; . "$2"' zsh "$zshfile" "$tmp/ask"
    fi
}
shells=bash
command -v zsh >/dev/null 2>&1 && shells="bash zsh" || echo "note: zsh is not installed; its completion is not tried"
for sh in $shells; do
    OCC=$occcalc; export OCC; run $sh >"$tmp/answers.$sh" 2>"$tmp/err.$sh"
    n=0
    while IFS= read -r question; do
        n=$((n + 1))
        got=" $(sed -n "${n}p" "$tmp/answers.$sh") "
        for w in ${question#* = }; do
            case "$got" in
            *" $w "*) ;;
            *) echo "FAIL: $sh: occcalc ${question%% = *}<TAB> offers '$got', not $w"; fail=1 ;;
            esac
        done
    done <"$tmp/questions"
done
[ $fail -eq 0 ] && echo "ok: $shells, $(wc -l <"$tmp/questions") questions each"
exit $fail
