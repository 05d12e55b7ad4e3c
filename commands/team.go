package commands

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/redact"
	"github.com/cairn-dev/cairn/core/spaces"
	"github.com/cairn-dev/cairn/core/team"
	"github.com/cairn-dev/cairn/core/workspace"
)

// teamClient is the team server client [space] server asks for, nil when it is not set.
func (e *Env) teamClient(ws *workspace.Workspace) (*team.Client, error) {
	cfg := ws.Config.Space
	if strings.TrimSpace(cfg.Server) == "" {
		return nil, nil
	}
	token := os.Getenv("CAIRN_TOKEN")
	if token == "" {
		if path := os.Getenv("CAIRN_TOKEN_FILE"); path != "" {
			var err error
			if token, err = team.ReadTokenFile(path); err != nil {
				return nil, err
			}
		}
	}
	if strings.TrimSpace(token) == "" {
		return nil, errs.Invalidf("[space] server is set in %s but no token: set CAIRN_TOKEN, or CAIRN_TOKEN_FILE to a file of mode 0600 holding the token 'cairn serve member add' printed", workspace.ManifestName)
	}
	return team.NewClient(cfg.Server, cfg.Team, token)
}

// exclude is [space] exclude of the workspace.
func exclude(ws *workspace.Workspace) spaces.Exclude {
	home, _ := os.UserHomeDir()
	return spaces.NewExclude(ws.Config.Space.Exclude, home)
}

// openTeamStore opens the team store --store (or [serve] store) names.
func (e *Env) openTeamStore(c *cli.Context) (*team.Server, func(), error) {
	ws, err := e.Workspace()
	if err != nil {
		return nil, nil, err
	}
	url := c.String("store")
	if url == "" {
		url = ws.Config.Serve.Store
	}
	st, err := team.OpenStore(c.Context, ws, url)
	if err != nil {
		return nil, nil, err
	}
	return team.NewServer(st), func() { st.Close() }, nil
}

func serveMemberCommand(env *Env) *cli.Command {
	return family("member", "the members of this team server: each has a token (shown once) and the spaces it may search and push to",
		leaf("serve member add", "add a member and print its token, once: only a hash of it is kept", "USER", env.onTeamStore(oneUser, func(c *cli.Context, srv *team.Server) error {
			var sps []string
			for _, s := range c.StringSlice("space") {
				sps = append(sps, strings.Split(s, ",")...)
			}
			token, m, err := srv.AddMember(c.Context, c.Args().First(), sps)
			if err != nil {
				return err
			}
			return env.Render(map[string]any{"member": m, "token": token}, func(w io.Writer) error {
				fmt.Fprintf(w, "added %s (spaces: %s)\n", m.User, spaceList(m.Spaces))
				fmt.Fprintf(w, "token (shown once; give it to %s, who sets CAIRN_TOKEN or a 0600 CAIRN_TOKEN_FILE):\n%s\n", m.User, token)
				return nil
			})
		})),
		leaf("serve member list", "list the members and their spaces (never a token)", "", env.onTeamStore(noArgs, func(c *cli.Context, srv *team.Server) error {
			ms, err := srv.Store().Members(c.Context)
			if err != nil {
				return err
			}
			return env.Render(map[string]any{"members": ms}, func(w io.Writer) error {
				if len(ms) == 0 {
					fmt.Fprintln(w, "no members yet; add one with 'cairn serve member add USER --space ID'")
					return nil
				}
				tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
				for _, m := range ms {
					fmt.Fprintf(tw, "%s\t%s\tadded %s\n", m.User, spaceList(m.Spaces), m.Created)
				}
				return tw.Flush()
			})
		})),
		leaf("serve member remove", "remove a member: its token stops working at once", "USER", env.onTeamStore(oneUser, func(c *cli.Context, srv *team.Server) error {
			user := c.Args().First()
			removed, err := srv.Store().RemoveMember(c.Context, user)
			if err != nil {
				return err
			}
			if !removed {
				return errs.NotFoundf("user %q is not a member (see 'cairn serve member list')", user)
			}
			return env.Render(map[string]any{"removed": user}, func(w io.Writer) error {
				fmt.Fprintf(w, "removed %s; its token no longer works\n", user)
				return nil
			})
		})),
	)
}

// onTeamStore is the action of a member command: its arguments checked, then fn with the team
// store open.
func (e *Env) onTeamStore(args func(*cli.Context) error, fn func(*cli.Context, *team.Server) error) cli.ActionFunc {
	return func(c *cli.Context) error {
		if err := args(c); err != nil {
			return err
		}
		srv, closeStore, err := e.openTeamStore(c)
		if err != nil {
			return err
		}
		defer closeStore()
		return fn(c, srv)
	}
}

// noArgsWorkspace is the workspace of a command that takes no arguments.
func (e *Env) noArgsWorkspace(c *cli.Context) (*workspace.Workspace, error) {
	if err := noArgs(c); err != nil {
		return nil, err
	}
	return e.Workspace()
}

// oneUser checks that a member command has its one USER.
func oneUser(c *cli.Context) error {
	if c.NArg() != 1 {
		return errs.Invalidf("serve member %s needs exactly one USER, got %d arguments", c.Command.Name, c.NArg())
	}
	return nil
}

func spaceList(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

func spacePushCommand(env *Env) *cli.Command {
	return leaf("space push", "send this machine's spaces, redacted, to the team space of [space] server (only what was not sent yet; resumable)", "", func(c *cli.Context) error {
		ws, err := env.noArgsWorkspace(c)
		if err != nil {
			return err
		}
		client, err := env.teamClient(ws)
		if err != nil {
			return err
		}
		dry := c.Bool("dry-run")
		if client == nil && !dry {
			return errs.Invalidf("space push needs a team server: set server in [space] of %s (see docs/team.md)", workspace.ManifestName)
		}
		target := c.String("space")
		if target == "" {
			target = ws.Config.Space.Team
		}
		if client == nil {
			// a dry run shows what would leave before any server is set up
			client = &team.Client{URL: "(no [space] server set)"}
			if target == "" {
				target = "(your team space)"
			}
		}
		if target == "" {
			m, err := client.Whoami(c.Context)
			if err != nil && dry {
				m.Spaces = []string{"(your team space)"} // a dry run needs no server
			} else if err != nil {
				return err
			}
			if len(m.Spaces) != 1 {
				return errs.Invalidf("you are a member of %d spaces (%s): name one with --space ID or [space] team", len(m.Spaces), spaceList(m.Spaces))
			}
			target = m.Spaces[0]
		}
		st, err := spaces.OpenRead(c.Context, ws)
		if errors.Is(err, os.ErrNotExist) {
			return errs.NotFoundf("nothing to push: %s does not exist yet (import sessions with 'cairn space import --from claude-code')", spaces.FileName)
		}
		if err != nil {
			return err
		}
		defer st.Close()
		spool, err := ws.StateDir()
		if err != nil {
			return err
		}
		plan, err := team.NewPlan(c.Context, st, exclude(ws), redact.New(), target, spool)
		if err != nil {
			return err
		}
		defer plan.Close()
		plan.Exclude = append([]string{}, ws.Config.Space.Exclude...)
		opt := team.PushOptions{DryRun: dry}
		progress, finish := env.spaceProgress(0, false, "pushing")
		opt.Progress = progress
		rep, err := team.Push(c.Context, ws, client, target, plan, opt)
		finish()
		if err != nil {
			return err
		}
		return env.Render(rep, func(w io.Writer) error { return writePushReport(w, rep) })
	})
}

func writePushReport(w io.Writer, rep *team.PushReport) error {
	verb := "sent"
	if rep.DryRun {
		verb = "would send"
	}
	fmt.Fprintf(w, "%s %d tasks and %d comments to space %s on %s (%d unchanged since the last push)\n",
		verb, rep.Tasks, rep.Comments, rep.Space, rep.Server, rep.Unchanged)
	if !rep.DryRun {
		if rep.Retries > 0 {
			fmt.Fprintf(w, "%d batches, %d sent again after a dropped connection or a busy server\n", rep.Batches, rep.Retries)
		}
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "space\ttasks\tcomments\texcluded")
	for _, sp := range rep.Plan.Spaces {
		ex := "-"
		switch sp.Excluded {
		case "space":
			ex = fmt.Sprintf("the whole space ([space] exclude), %d tasks", sp.ExcludedTasks)
		case "sessions":
			ex = fmt.Sprintf("%d sessions ([space] exclude)", sp.ExcludedTasks)
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\n", sp.Space, sp.Tasks, sp.Comments, ex)
	}
	tw.Flush()
	if len(rep.Plan.Redactions) == 0 {
		fmt.Fprintln(w, "redactions: none")
	} else {
		fmt.Fprintln(w, "redactions (hidden before anything leaves; 'cairn space redactions' says where):")
		for _, r := range rep.Plan.Redactions {
			fmt.Fprintf(w, "  %s: %d\n", ruleLabel(r.Rule, r.Layer), r.Count)
		}
	}
	if len(rep.Plan.Exclude) > 0 {
		fmt.Fprintf(w, "excluded by [space] exclude (never imported, never pushed): %s\n", strings.Join(rep.Plan.Exclude, ", "))
	}
	if rep.Plan.PrivateRegions > 0 {
		fmt.Fprintf(w, "private regions dropped: %d\n", rep.Plan.PrivateRegions)
	}
	fmt.Fprintln(w, "never sent: tool call arguments, raw (unredacted) text, <private> regions, excluded spaces and sessions; nothing was sent")
	return nil
}

func spaceRedactionsCommand(env *Env) *cli.Command {
	return leaf("space redactions", "what redaction hides in this workspace's spaces (what a push would never send), by rule and where; never the secret", "", func(c *cli.Context) error {
		ws, err := env.noArgsWorkspace(c)
		if err != nil {
			return err
		}
		st, err := spaces.OpenRead(c.Context, ws)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return env.Render(map[string]any{"rules": []team.RuleCount{}, "redactions": []team.Redaction{}, "private_regions": 0}, func(w io.Writer) error {
					fmt.Fprintln(w, "no spaces yet: nothing is hidden")
					return nil
				})
			}
			return err
		}
		defer st.Close()
		list, private, err := team.Redactions(c.Context, st, exclude(ws), redact.New())
		if err != nil {
			return err
		}
		rules := team.CountRules(list)
		return env.Render(map[string]any{"rules": rules, "redactions": list, "private_regions": private}, func(w io.Writer) error {
			if len(list) == 0 {
				fmt.Fprintln(w, "nothing is hidden: no secret was recognised")
			} else {
				fmt.Fprintf(w, "%d secrets hidden:\n", len(list))
				for _, r := range rules {
					fmt.Fprintf(w, "  %s: %d\n", ruleLabel(r.Rule, r.Layer), r.Count)
				}
				tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "space\ttask\twhere\trule")
				for _, r := range list {
					where := r.Field
					if r.Comment != "" {
						where = r.Comment + " " + r.Field
					}
					fmt.Fprintf(tw, "%s\ttask:%s\t%s\t%s\n", termText(r.Space), termText(r.Task), termText(where), r.Rule)
				}
				tw.Flush()
			}
			if private > 0 {
				fmt.Fprintf(w, "%d <private> regions are kept out\n", private)
			}
			return nil
		})
	})
}

// ruleLabel names a redaction rule with its layer, once when the two are one word ("context").
func ruleLabel(rule, layer string) string {
	if rule == layer || layer == "" {
		return rule
	}
	return rule + " (" + layer + ")"
}
