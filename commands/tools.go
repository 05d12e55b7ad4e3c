package commands

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/spaces"
	"github.com/cairn-dev/cairn/core/tools"
	"github.com/cairn-dev/cairn/mcp"
)

// toolContext is the caller with the opened workspace, for the tool registry.
func (e *Env) toolContext() (tools.Context, error) {
	ws, err := e.Workspace()
	if err != nil {
		return tools.Context{}, err
	}
	tc := tools.Context{Workspace: ws, Caller: e.Caller}
	client, err := e.teamClient(ws)
	switch {
	case err != nil:
		tc.SpaceServer = unusableServer{err} // said by the one tool that needs it, not by every tool
	case client != nil:
		tc.SpaceServer = client // [space] server: SearchWorkspaceTasks asks the team server
	}
	return tc, nil
}

func toolsCommand(env *Env) *cli.Command {
	return family("tools", "every tool by its agent name, with a JSON Schema of its input; call one with JSON",
		&cli.Command{
			Name:  "list",
			Usage: "list the tools (with --json: name, description, read_only, input_schema, ready to register)",
			Action: func(c *cli.Context) error {
				if err := noArgs(c); err != nil {
					return err
				}
				reg := tools.New()
				defs := make([]tools.Definition, 0, len(reg.List()))
				for _, t := range reg.List() {
					defs = append(defs, t.Definition())
				}
				return env.Render(map[string]any{"tools": defs}, func(w io.Writer) error {
					tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
					for _, d := range defs {
						mode := "writes"
						if d.ReadOnly {
							mode = "read-only"
						}
						first, _, _ := strings.Cut(d.Description, ". ")
						fmt.Fprintf(tw, "%s\t%s\t%s\n", env.Bold(d.Name), mode, first)
					}
					return tw.Flush()
				})
			},
		},
		&cli.Command{
			Name:      "call",
			Usage:     "run one tool with JSON input and print its JSON result (errors as {\"error\": {code, message}})",
			ArgsUsage: "NAME [JSON | -]",
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "input", Aliases: []string{"i"}, Usage: "the tool's input as JSON, or - to read it from standard input (default {})"},
			},
			Action: func(c *cli.Context) error {
				env.JSON = true // a tool's answer is always JSON, errors too
				env.Color = false
				if c.NArg() < 1 || c.NArg() > 2 {
					return errs.Invalidf("tools call needs one tool NAME (see cairn tools list), then optionally its input: JSON, or - for standard input")
				}
				t, err := tools.New().Get(c.Args().First())
				if err != nil {
					return err
				}
				in := c.String("input")
				if c.NArg() == 2 {
					if c.IsSet("input") {
						return errs.Invalidf("give the input once: either --input or a second argument, not both")
					}
					in = c.Args().Get(1)
				}
				input := []byte(in)
				if in == "-" {
					if input, err = env.readInput(c.Context, "-"); err != nil {
						return err
					}
				}
				tc, err := env.toolContext()
				if err != nil {
					return err
				}
				out, err := t.Call(c.Context, tc, json.RawMessage(input))
				if err != nil {
					return err
				}
				return env.writeJSON(env.Stdout, out)
			},
		},
	)
}

func mcpCommand(env *Env) *cli.Command {
	return &cli.Command{
		Name:  "mcp",
		Usage: "serve every tool over the Model Context Protocol on standard input and output",
		Description: "Register with Claude Code:  claude mcp add cairn -- cairn --workspace /path/to/ws mcp\n" +
			"The identity flags (--session, --user, --task, --subtask, --card) given here apply to every call.",
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			tc, err := env.toolContext()
			if err != nil {
				return err
			}
			kept := tools.Keep(tc.Workspace, tools.KeepOptions{}) // one long-lived process: keep stores open between calls
			defer kept.Close()
			tc.Stores = kept
			ctx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
			defer stop()
			return mcp.Serve(ctx, tools.New(), version(), tc, env.Stdin, env.Stdout)
		},
	}
}

// unusableServer is a [space] server that cannot be asked (no token, a bad URL): the search
// says why.
type unusableServer struct{ err error }

func (u unusableServer) Search(context.Context, string, spaces.SearchInput) (spaces.Answer, error) {
	return spaces.Answer{}, u.err
}
