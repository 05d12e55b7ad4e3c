package commands

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/workspace"
)

func initCommand(env *Env) *cli.Command {
	return leaf("init", "create a workspace (cairn.toml and its directories) and keep its local state out of git; never overwrites", "[DIR]", func(c *cli.Context) error {
		if c.NArg() > 1 {
			return errs.Invalidf("init takes at most one directory, got %d arguments", c.NArg())
		}
		dir := "."
		if c.NArg() == 1 {
			dir = c.Args().First()
		}
		created, err := workspace.Init(dir)
		if err != nil {
			return err
		}
		if created == nil {
			created = []string{}
		}
		status, added, err := workspace.EnsureIgnored(dir, workspace.GitignoreHeader, workspace.IgnorePatterns(workspace.WorkspaceIgnores))
		if err != nil {
			return err
		}
		if added == nil {
			added = []string{}
		}
		gi := map[string]any{"path": filepath.Join(dir, workspace.GitignoreName), "status": status, "added": added}
		return env.Render(map[string]any{"dir": dir, "created": created, "gitignore": gi}, func(w io.Writer) error {
			if len(created) == 0 {
				fmt.Fprintf(w, "%s is already a cairn workspace; nothing created\n", termName(dir))
			} else {
				fmt.Fprintf(w, "initialised cairn workspace in %s\n", termName(dir))
				for _, p := range created {
					fmt.Fprintf(w, "  created %s\n", termName(p))
				}
			}
			writeIgnored(w, workspace.GitignoreName, status, added)
			return nil
		})
	},
		described("Creates cairn.toml, sessions/, memory/, knowledge/, board/ and .cairn/ where missing, and adds to\n"+
			"DIR/.gitignore (created when missing; every line already there stays) what a team should not commit:\n"+
			gitignoreHelp(workspace.WorkspaceIgnores)+
			"cairn.toml, memory/ and knowledge/ are the team's: commit them."))
}

// writeIgnored says what init added to a .gitignore (nothing when it was all there).
func writeIgnored(w io.Writer, path, status string, added []string) {
	if status == "unchanged" || len(added) == 0 {
		return
	}
	fmt.Fprintf(w, "  %s %s (kept out of git: %s)\n", status, termName(path), strings.Join(added, " "))
}

// gitignoreHelp lists ignores for a command's help, a line each.
func gitignoreHelp(ignores []workspace.Ignore) string {
	var b strings.Builder
	for _, ig := range ignores {
		fmt.Fprintf(&b, "  %-14s %s\n", ig.Pattern, ig.Why)
	}
	return b.String()
}
