# bash completion for occcalc.  The commands and each command's options are
# read from occcalc's own --help when TAB is pressed (one short run), so they
# follow the command registry (cli/meson.build) with nothing to regenerate.
# Values: choices written a|b|c in the usage lines, built-in device names for
# --device, file names where the help says FILE, PATH or DIR.

_occcalc_commands()
{
    "$1" --help 2>/dev/null | sed -n 's/(see COMMAND --help)//p' | sed 's/occcalc//; s/|/ /g'
}

__occcalc_complete()
{
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
    local occ=${COMP_WORDS[0]} cmd="" i w
    local commands
    commands=$(_occcalc_commands "$occ")
    for ((i = 1; i < COMP_CWORD; i++)); do
        w=${COMP_WORDS[i]}
        [ "$w" = -- ] && { COMPREPLY=($(compgen -c -- "$cur")); return; }
        case " $commands " in *" $w "*) cmd=$w; break ;; esac
        [ "${w#-}" = "$w" ] && break # a value or a file: the calculator
    done
    local help
    if [ -n "$cmd" ]; then help=$("$occ" "$cmd" --help 2>/dev/null); else help=$("$occ" --help 2>/dev/null); fi

    # the value of an option: "--opt a|b|c" offers the choices
    if [ "${prev#--}" != "$prev" ]; then
        local value
        value=$(printf '%s\n' "$help" | grep -oE -- "$prev[ =][^] ]+" | head -n 1 | cut -c $((${#prev} + 2))-)
        if [ -n "$value" ]; then
            case $prev in
            --device) COMPREPLY=($(compgen -W "$("$occ" devices --builtin --csv 2>/dev/null | sed '1d; s/,.*//')" -- "$cur")
                                 $(compgen -f -- "$cur")) ;;
            *)
                case $value in
                *FILE*|*PATH*|*DIR*|*F) COMPREPLY=($(compgen -f -- "$cur")) ;;
                [a-z]*'|'*) COMPREPLY=($(compgen -W "$(printf '%s' "$value" | tr '|' ' ')" -- "$cur")) ;;
                *) COMPREPLY=() ;; # a number or a list: nothing to offer
                esac ;;
            esac
            return
        fi
    fi
    if [ "${cur#-}" != "$cur" ] || { [ -n "$cmd" ] && [ "$cmd" != kernels ]; }; then
        COMPREPLY=($(compgen -W "$(printf '%s\n' "$help" | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u)" -- "$cur"))
    elif [ "$cmd" = kernels ]; then # its FILE
        COMPREPLY=($(compgen -f -- "$cur"))
    else
        COMPREPLY=($(compgen -W "$commands" -- "$cur"))
    fi
}
complete -F __occcalc_complete occcalc
