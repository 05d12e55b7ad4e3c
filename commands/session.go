package commands

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/tasks"
)

func sessionCommand(env *Env) *cli.Command {
	return family("session", "compaction, resume and health of the session log",
		leaf("session compact", "record a compaction in the log (the task list as it stands) and print what the agent is shown after it", "[-]", func(c *cli.Context) error {
			if nl := c.String("new-log"); c.IsSet("new-log") && (strings.TrimSpace(nl) == "" || nl == "-") {
				return errs.Invalidf("--new-log needs the path of a new file, got %q", nl)
			}
			summary, err := compactSummary(env, c)
			if err != nil {
				return err
			}
			s, err := env.session(c.Context)
			if err != nil {
				return err
			}
			res, err := s.Compact(c.Context, summary, c.String("new-log"))
			if err != nil {
				return err
			}
			return env.Render(res, func(w io.Writer) error {
				fmt.Fprintln(w, env.Bold("compaction recorded; the agent is shown, and must read:"))
				for _, l := range strings.Split(strings.TrimRight(res.System.Content, "\n"), "\n") {
					fmt.Fprintf(w, "  %s\n", l)
				}
				if res.NewLog != "" && env.StderrTTY {
					fmt.Fprintf(env.Stderr, "started %s\n", termName(res.NewLog))
				}
				return nil
			})
		},
			described("Appends to the session log, under one lock: the task list as it stands, the reminder the\n"+
				"agent must read next (\"Task list (kept across compaction) ...\") and a task list call made on\n"+
				"the agent's behalf with its answer, so the next session starts from the same tasks. It prints\n"+
				"the reminder and the list; --json prints the log's entries as recorded.")),
		leaf("session compact-context", "every task, open ones first, with its description: what a summary of the session is written from (reads only)", "", func(c *cli.Context) error {
			return sessionQuery(env, c, (*tasks.Session).CompactContext, func(w io.Writer, res tasks.ListResult) error {
				fmt.Fprintln(w, countsLine(res.Summary))
				writeTaskSnapshot(w, res.Tasks)
				return nil
			})
		}),
		leaf("session brief", "the task-list reminder an agent reads when its session resumes", "", func(c *cli.Context) error {
			return sessionQuery(env, c, (*tasks.Session).Brief, func(w io.Writer, res tasks.Brief) error {
				_, err := io.WriteString(w, res.Content)
				return err
			})
		}),
		leaf("session check", "replay the log and report entries by type, tasks by status and skipped lines", "", func(c *cli.Context) error {
			return sessionQuery(env, c, (*tasks.Session).Check, func(w io.Writer, res tasks.CheckResult) error {
				types := make([]string, 0, len(res.Entries))
				for k := range res.Entries {
					types = append(types, k)
				}
				sort.Strings(types)
				parts := make([]string, len(types))
				for i, k := range types {
					parts[i] = fmt.Sprintf("%s %d", k, res.Entries[k])
				}
				fmt.Fprintf(w, "log      %s\nlines    %d\nentries  %s\ntasks    %s\nskipped  %d\n",
					termName(res.Log), res.Lines, strings.Join(parts, ", "), countsLine(res.Tasks), len(res.Skipped))
				for _, sk := range res.Skipped {
					fmt.Fprintf(w, "  line %d: %s\n", sk.Line, sk.Reason)
				}
				if f := res.Fork; f != nil {
					fmt.Fprintf(w, "fork of  %s, its first %d lines\n", f.Parent, f.ParentLines)
				}
				if res.HandedOffTo != "" {
					fmt.Fprintf(w, "cleared  the session's binding moved to %s\n", res.HandedOffTo)
				}
				if len(res.Notes) > 0 {
					fmt.Fprintf(w, "notes    %d\n", len(res.Notes))
					for _, n := range res.Notes {
						fmt.Fprintf(w, "  line %d: %s\n", n.Line, n.Reason)
					}
				}
				if st := res.ClaudeStore; st != nil {
					verdict := "same tasks as the replay"
					if !st.Matches {
						verdict = fmt.Sprintf("%d differences from the replay", len(st.Differences))
					}
					fmt.Fprintf(w, "claude   %s: %d tasks, %s\n", st.Dir, st.Tasks, verdict)
					for _, d := range st.Differences {
						fmt.Fprintf(w, "  %s\n", d)
					}
				}
				return nil
			})
		}),
	)
}

// sessionQuery is the frame of the read-only session commands: no arguments, one call on the
// session, the result as JSON or as text.
func sessionQuery[T any](env *Env, c *cli.Context, query func(*tasks.Session, context.Context) (T, error), text func(io.Writer, T) error) error {
	if err := noArgs(c); err != nil {
		return err
	}
	s, err := env.session(c.Context)
	if err != nil {
		return err
	}
	res, err := query(s, c.Context)
	if err != nil {
		return err
	}
	return env.Render(res, func(w io.Writer) error { return text(w, res) })
}

func noArgs(c *cli.Context) error {
	if c.NArg() > 0 {
		return errs.Invalidf("%s takes no arguments, got %q", c.Command.Name, c.Args().First())
	}
	return nil
}

// compactSummary takes the summary from --summary, --summary-file, or "-" (standard input).
func compactSummary(env *Env, c *cli.Context) (string, error) {
	sources := 0
	for _, f := range []string{"summary", "summary-file"} {
		if c.IsSet(f) {
			sources++
		}
	}
	stdin := false
	switch {
	case c.NArg() == 1 && c.Args().First() == "-":
		stdin = true
		sources++
	case c.NArg() > 0:
		return "", errs.Invalidf("compact takes no arguments except - (summary from standard input), got %q", c.Args().First())
	}
	if sources > 1 {
		return "", errs.Invalidf("give one of --summary, --summary-file or -")
	}
	switch {
	case c.IsSet("summary"):
		return c.String("summary"), nil
	case c.IsSet("summary-file"):
		data, err := env.readInputLimited(c.Context, c.String("summary-file"), maxInput, "--summary-file")
		return string(data), err
	case stdin:
		data, err := env.readInput(c.Context, "-")
		return string(data), err
	}
	return "", nil
}
