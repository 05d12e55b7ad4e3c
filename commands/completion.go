package commands

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/tasks"
)

const bashCompletion = `# bash completion for cairn; load with: source <(cairn completion bash)
_cairn_complete() {
  local cur opts n
  cur="${COMP_WORDS[COMP_CWORD]}"
  n=$((COMP_CWORD - 1))
  # a word that starts with a dash is passed on, so cairn offers the flags it could begin
  [[ "$cur" == -* ]] && n=$COMP_CWORD
  opts=$("${COMP_WORDS[0]}" "${COMP_WORDS[@]:1:$n}" --generate-bash-completion 2>/dev/null)
  COMPREPLY=($(compgen -W "${opts}" -- "${cur}"))
  return 0
}
complete -o default -F _cairn_complete cairn
`

const zshCompletion = `#compdef cairn
# zsh completion for cairn; load with: source <(cairn completion zsh)
_cairn() {
  local -a opts
  local n=$((CURRENT - 2))
  [[ "${words[CURRENT]}" == -* ]] && n=$((CURRENT - 1))
  opts=("${(@f)$(${words[1]} ${words[@]:1:$n} --generate-bash-completion 2>/dev/null)}")
  opts=(${opts:#})
  # cairn's words where it has some; file names where it has none (FILE arguments)
  if (( ${#opts} )); then
    _describe 'values' opts
  else
    _files
  fi
}
compdef _cairn cairn
`

const fishCompletion = `# fish completion for cairn; load with: cairn completion fish | source
function __cairn_complete
    set -l words (commandline -opc)
    set -l cur (commandline -ct)
    set -l opts
    if string match -q -- '-*' $cur
        set opts ($words[1] $words[2..-1] $cur --generate-bash-completion 2>/dev/null)
    else
        set opts ($words[1] $words[2..-1] --generate-bash-completion 2>/dev/null)
    end
    # cairn's words where it has some; file names where it has none (FILE arguments)
    if set -q opts[1]
        string join \n -- $opts
    else
        __fish_complete_path $cur
    end
end
complete -c cairn -f -a '(__cairn_complete)'
`

// shells are the shells cairn writes a completion script for, in the order help names them.
var shells = []string{"bash", "zsh", "fish"}

func completionCommand(env *Env) *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print a shell completion script (bash, zsh or fish)",
		ArgsUsage: "bash|zsh|fish",
		BashComplete: func(c *cli.Context) {
			if c.NArg() == 0 {
				fmt.Fprintln(env.Stdout, strings.Join(shells, "\n"))
			}
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 1 {
				return errs.Invalidf("completion takes one shell, bash, zsh or fish; got %d arguments", c.NArg())
			}
			switch sh := c.Args().First(); sh {
			case "bash":
				fmt.Fprint(env.Stdout, bashCompletion)
			case "zsh":
				fmt.Fprint(env.Stdout, zshCompletion)
			case "fish":
				fmt.Fprint(env.Stdout, fishCompletion)
			case "":
				return errs.Invalidf("completion needs a shell: bash, zsh or fish")
			default:
				return errs.Invalidf("no completion for %q: cairn writes it for bash, zsh and fish", sh)
			}
			return nil
		},
	}
}

// completeFlagValue prints the values a flag of cmd takes, for a TAB after it (the enum of its
// option in the registry); a flag with no fixed set prints nothing, so the shell falls back to
// completing file names.
func (e *Env) completeFlagValue(app *cli.App, cmd *cli.Command, name string) {
	var values []string
	if op := registry().Operation(commandPath(app.Commands, cmd)); op != nil {
		if o, ok := op.Option(name); ok {
			values = o.Enum
		}
	}
	if name == "session-format" {
		values = []string{tasks.FormatAuto, tasks.FormatCairn, tasks.FormatClaude}
	}
	for _, v := range values {
		fmt.Fprintln(e.Stdout, v)
	}
}

// completeFlagName prints the long flags of cmd (the app's when nil) and the global flags that
// start with prefix, for a TAB after a dash.
func (e *Env) completeFlagName(cmd *cli.Command, global []cli.Flag, prefix string) {
	var flags []cli.Flag
	if cmd != nil {
		flags = append(flags, cmd.Flags...)
	}
	flags = append(flags, global...)
	seen := map[string]bool{}
	for _, f := range flags {
		for _, n := range f.Names() {
			if len(n) < 2 || seen[n] {
				continue
			}
			seen[n] = true
			if d := "--" + n; strings.HasPrefix(d, prefix) {
				fmt.Fprintln(e.Stdout, d)
			}
		}
	}
	if strings.HasPrefix("--help", prefix) {
		fmt.Fprintln(e.Stdout, "--help")
	}
}
