package commands

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/workspace"
)

func initCommand(env *Env) *cli.Command {
	return &cli.Command{
		Name:      "init",
		Usage:     "create a workspace (cairn.toml and its directories); never overwrites",
		ArgsUsage: "[DIR]",
		Action: func(c *cli.Context) error {
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
			return env.Render(map[string]any{"dir": dir, "created": created}, func(w io.Writer) error {
				if len(created) == 0 {
					fmt.Fprintf(w, "%s is already a cairn workspace; nothing created\n", termName(dir))
					return nil
				}
				fmt.Fprintf(w, "initialised cairn workspace in %s\n", termName(dir))
				for _, p := range created {
					fmt.Fprintf(w, "  created %s\n", termName(p))
				}
				return nil
			})
		},
	}
}
