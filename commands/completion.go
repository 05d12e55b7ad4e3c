package commands

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/cairn-dev/cairn/core/board"
	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/tasks"
)

const bashCompletion = `# bash completion for cairn; load with: source <(cairn completion bash)
_cairn_complete() {
  local cur opts
  cur="${COMP_WORDS[COMP_CWORD]}"
  opts=$("${COMP_WORDS[0]}" "${COMP_WORDS[@]:1:$COMP_CWORD-1}" --generate-bash-completion 2>/dev/null)
  COMPREPLY=($(compgen -W "${opts}" -- "${cur}"))
  return 0
}
complete -o default -F _cairn_complete cairn
`

const zshCompletion = `#compdef cairn
# zsh completion for cairn; load with: source <(cairn completion zsh)
_cairn() {
  local -a opts
  opts=("${(@f)$(${words[1]} ${words[@]:1:$CURRENT-2} --generate-bash-completion 2>/dev/null)}")
  _describe 'values' opts
}
compdef _cairn cairn
`

func completionCommand(env *Env) *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print a shell completion script (bash or zsh)",
		ArgsUsage: "bash|zsh",
		Action: func(c *cli.Context) error {
			if c.NArg() > 1 {
				return errs.Invalidf("completion takes one shell, bash or zsh; got %d arguments", c.NArg())
			}
			switch sh := c.Args().First(); sh {
			case "bash":
				fmt.Fprint(env.Stdout, bashCompletion)
			case "zsh":
				fmt.Fprint(env.Stdout, zshCompletion)
			case "":
				return errs.Invalidf("completion needs a shell: bash or zsh")
			default:
				return errs.Invalidf("no completion for %q: cairn writes it for bash and zsh", sh)
			}
			return nil
		},
	}
}

// completeFlagValue prints the values a flag takes, for a TAB after it; a flag with no fixed set
// prints nothing, so the shell falls back to completing file names.
func (e *Env) completeFlagValue(name string) {
	var values []string
	switch name {
	case "status", "s":
		values = tasks.Statuses
	case "session-format":
		values = []string{tasks.FormatAuto, tasks.FormatCairn, tasks.FormatClaude}
	case "sources":
		for _, s := range board.AllSources() {
			values = append(values, string(s))
		}
	}
	for _, v := range values {
		fmt.Fprintln(e.Stdout, v)
	}
}
