# bash completion for {{.Name}}, made from its command definitions by
# `{{.Name}} completion bash`. Load it into this shell with
#     source <({{.Name}} completion bash)
# or into every one: {{.Name}} completion bash > /etc/bash_completion.d/{{.Name}}

_{{.Name}}() {
    local cur=${COMP_WORDS[COMP_CWORD]} cmd="" word i
    # The command typed so far: a command, then a subcommand of it.
    for ((i = 1; i < COMP_CWORD; i++)); do
        word=${COMP_WORDS[i]}
        case "$cmd $word" in
{{- range .Commands}}
        "{{.Key}}") cmd="{{.Key}}" ;;
{{- end}}
        esac
    done
    local subs flags
    case "$cmd" in
    "") subs="{{.Subs}}" flags="{{.Flags}}" ;;
{{- range .Commands}}
    "{{.Key}}") subs="{{.Subs}}" flags="{{.Flags}}" ;;
{{- end}}
    esac
    COMPREPLY=()
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$flags" -- "$cur"))
    elif [[ -n $subs ]]; then
        COMPREPLY=($(compgen -W "$subs" -- "$cur"))
    fi
    # Nothing to offer: bash completes file names (-o default).
}

complete -o default -F _{{.Name}} {{.Name}}
