# bash completion for elk (Elk Workbench). Installed to
# share/bash-completion/completions/elk; zsh loads it through bashcompinit
# (app/completions/_elk). Commands come from `elk --help`, options from
# `elk COMMAND --help`, preset names from the data folder (`elk --datadir`),
# so the completion never falls behind the binary.
_elk()
{
    local cur prev cmd words
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD - 1]}
    cmd=${COMP_WORDS[1]:-}
    local elk=${COMP_WORDS[0]}
    if [ "$COMP_CWORD" -eq 1 ]; then
        words=$("$elk" --help 2>/dev/null | awk '/^commands:/ {on = 1; next} on && !NF {exit} on {print $1}')
        COMPREPLY=($(compgen -W "$words --help --version --datadir" -- "$cur"))
        return
    fi
    local data
    data=$("$elk" --datadir 2>/dev/null)
    case $prev in
        --chip)
            COMPREPLY=($(compgen -W "$(cd "$data/presets/chips" 2>/dev/null && ls *.cfg 2>/dev/null | sed 's/\.cfg$//')" -- "$cur") $(compgen -f -- "$cur"))
            return ;;
        --model)
            COMPREPLY=($(compgen -W "$(cd "$data/presets/models" 2>/dev/null && ls *.cfg 2>/dev/null | sed 's/\.cfg$//')" -- "$cur") $(compgen -f -- "$cur"))
            return ;;
        --topology) COMPREPLY=($(compgen -W "all-to-all mesh ring torus" -- "$cur")); return ;;
        --workload) COMPREPLY=($(compgen -W "decode prefill train-fwd" -- "$cur")); return ;;
        --policy) COMPREPLY=($(compgen -W "basic static elk-dyn elk-full ideal" -- "$cur")); return ;;
        --profile) COMPREPLY=($(compgen -W "paper physical" -- "$cur")); return ;;
        --format) COMPREPLY=($(compgen -W "table csv json" -- "$cur")); return ;;
        -o|--output|--point|--plot|--log) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    esac
    if [[ $cur == -* ]]; then
        words=$("$elk" "$cmd" --help 2>/dev/null | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u)
        COMPREPLY=($(compgen -W "$words" -- "$cur"))
        return
    fi
    case $cmd in
        sweep|validate) COMPREPLY=($(compgen -f -X '!*.cfg' -- "$cur") $(compgen -d -- "$cur")) ;;
        merge|plot) COMPREPLY=($(compgen -f -X '!*.csv' -- "$cur") $(compgen -d -- "$cur")) ;;
        *) COMPREPLY=($(compgen -f -- "$cur")) ;;
    esac
}
complete -F _elk elk
