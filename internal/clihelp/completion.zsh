#compdef {{.Name}}
compdef _{{.Name}} {{.Name}}

# zsh completion for {{.Name}}, made from its command definitions by
# `{{.Name}} completion zsh`. Load it into this shell with
#     source <({{.Name}} completion zsh)
# or into every one: {{.Name}} completion zsh > "${fpath[1]}/_{{.Name}}"

_{{.Name}}() {
    local cmd="" word i
    local -a subs flags
    # The command typed so far: a command, then a subcommand of it.
    for ((i = 2; i < CURRENT; i++)); do
        word=${words[i]}
        case "$cmd $word" in
{{- range .Commands}}
        "{{.Key}}") cmd="{{.Key}}" ;;
{{- end}}
        esac
    done
    case "$cmd" in
    "") subs=({{.Described}}) flags=({{.Flags}}) ;;
{{- range .Commands}}
    "{{.Key}}") subs=({{.Described}}) flags=({{.Flags}}) ;;
{{- end}}
    esac
    if [[ ${words[CURRENT]} == -* ]]; then
        compadd -- $flags
    elif (( ${#subs} )); then
        _describe command subs
    else
        _files
    fi
}

# Autoloaded from $fpath, the file is the function's body: complete now.
if [[ ${funcstack[1]} == _{{.Name}} ]]; then
    _{{.Name}} "$@"
fi
