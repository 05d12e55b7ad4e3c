package commands

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/tasks"
	"github.com/cairn-dev/cairn/core/workspace"
)

// session opens the workspace and binds the caller's session log (tasks.OpenSession). A log
// named outright (--session, CAIRN_SESSION) needs no workspace.
func (e *Env) session(ctx context.Context) (*tasks.Session, error) {
	ws, err := e.Workspace()
	if err != nil {
		if !errors.Is(err, workspace.ErrNoWorkspace) || e.Caller.Session == "" {
			return nil, err
		}
		ws = nil
	}
	return tasks.OpenSession(ctx, ws, e.wait, e.Caller)
}

func taskCommand(env *Env) *cli.Command {
	return family("task", "the session task list (TaskCreate, TaskList, TaskGet, TaskUpdate), replayed from the session log",
		leaf("task create", "add a pending task (TaskCreate)", "SUBJECT", func(c *cli.Context) error {
			if c.NArg() == 0 {
				return errs.Invalidf("task create needs a SUBJECT")
			}
			in := tasks.CreateInput{Subject: strings.Join(c.Args().Slice(), " ")}
			bind(c, "task create", &in)
			desc, set, err := env.description(c)
			if err != nil {
				return err
			}
			if set {
				in.Description = desc
			}
			s, err := env.session(c.Context)
			if err != nil {
				return err
			}
			res, err := s.CreateFrom(c.Context, in)
			if err != nil {
				return err
			}
			return env.Render(res, func(w io.Writer) error { return env.writeResult(w, "created", res) })
		}),
		leaf("task list", "every task by id, deleted and completed included (TaskList)", "", func(c *cli.Context) error {
			if c.NArg() > 0 {
				return errs.Invalidf("task list takes no arguments, got %q", c.Args().First())
			}
			var statuses map[string]bool
			if c.IsSet("status") {
				var err error
				if statuses, err = tasks.ParseStatuses(strings.Join(c.StringSlice("status"), ",")); err != nil {
					return err
				}
			}
			stop, err := parseAsOf(c.String("as-of"), c.IsSet("as-of"))
			if err != nil {
				return err
			}
			s, err := env.session(c.Context)
			if err != nil {
				return err
			}
			res, err := s.List(c.Context, stop, statuses)
			if err != nil {
				return err
			}
			return env.Render(res, func(w io.Writer) error {
				env.writeTaskTable(w, res.Tasks)
				if len(res.OtherLists) > 0 {
					writeListNote(w, res) // another list is in the transcript: never left unsaid
				} else if env.StderrTTY {
					writeListNote(env.Stderr, res)
				}
				if env.StderrTTY {
					fmt.Fprintln(env.Stderr, countsLine(res.Summary))
				}
				return nil
			})
		}),
		leaf("task get", "one task with its description (TaskGet)", "ID", func(c *cli.Context) error {
			id, s, err := env.taskAndSession(c)
			if err != nil {
				return err
			}
			t, err := s.Get(c.Context, id)
			if err != nil {
				return err
			}
			return env.Render(map[string]tasks.Task{"task": t}, func(w io.Writer) error {
				fmt.Fprintf(w, "%s %s %s\n", env.Bold("#"+strconv.Itoa(t.TaskID)), statusLabel(t.Status), t.Subject)
				if t.Description != "" {
					fmt.Fprintf(w, "\n%s\n", strings.TrimRight(t.Description, "\n"))
				}
				return nil
			})
		},
			completes(env.completeTaskIDs)),
		leaf("task update", "change a task's status, subject or description (TaskUpdate)", "ID", func(c *cli.Context) error {
			id, err := taskID(c)
			if err != nil {
				return err
			}
			in := tasks.UpdateInput{TaskID: id}
			bind(c, "task update", &in)
			desc, set, err := env.description(c)
			if err != nil {
				return err
			}
			if set {
				in.Description = &desc
			}
			s, err := env.session(c.Context)
			if err != nil {
				return err
			}
			res, err := s.Update(c.Context, in.TaskID, in.UpdateFields)
			if err != nil {
				return err
			}
			return env.Render(res, func(w io.Writer) error { return env.writeResult(w, "updated", res) })
		},
			completes(env.completeTaskIDs)),
		leaf("task history", "every change of one task: log line, time, call id, fields changed", "ID", func(c *cli.Context) error {
			id, s, err := env.taskAndSession(c)
			if err != nil {
				return err
			}
			res, err := s.History(c.Context, id)
			if err != nil {
				return err
			}
			return env.Render(res, func(w io.Writer) error {
				tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
				for _, ch := range res.Changes {
					fmt.Fprintf(tw, "line %d\t%s\t%s\t%s\t%s\n", ch.Line, ch.At, ch.CallID, ch.Op, describeChanges(ch.Changes))
				}
				return tw.Flush()
			})
		},
			completes(env.completeTaskIDs)),
	)
}

// description reads --description or --description-file (not both); set is false when neither
// is given.
func (e *Env) description(c *cli.Context) (desc string, set bool, err error) {
	if !c.IsSet("description-file") {
		return c.String("description"), c.IsSet("description"), nil
	}
	if c.IsSet("description") {
		return "", false, errs.Invalidf("give --description or --description-file, not both")
	}
	data, err := e.readInputLimited(c.Context, c.String("description-file"), maxInput, "--description-file")
	return string(data), err == nil, err
}

// completeTaskIDs offers the ids of the session's tasks (open ones first) for shell completion, or
// the statuses after --status.
func (e *Env) completeTaskIDs(c *cli.Context) {
	s, err := e.session(c.Context)
	if err != nil {
		return
	}
	res, err := s.CompactContext(c.Context)
	if err != nil {
		return
	}
	for _, t := range res.Tasks {
		fmt.Fprintf(e.Stdout, "%d\n", t.TaskID)
	}
}

// taskAndSession reads the single ID argument and opens the session log, the first two steps
// of every command that addresses one task.
func (e *Env) taskAndSession(c *cli.Context) (int, *tasks.Session, error) {
	id, err := taskID(c)
	if err != nil {
		return 0, nil, err
	}
	s, err := e.session(c.Context)
	return id, s, err
}

// taskID reads the single ID argument.
func taskID(c *cli.Context) (int, error) {
	if c.NArg() != 1 {
		return 0, errs.Invalidf("%s needs exactly one task ID, got %d arguments", c.Command.Name, c.NArg())
	}
	arg := strings.TrimPrefix(c.Args().First(), "#")
	id, err := strconv.Atoi(arg)
	if err != nil || id < 1 || id > tasks.MaxID {
		return 0, errs.Invalidf("task ID must be an integer from 1 to %d, got %q", tasks.MaxID, c.Args().First())
	}
	return id, nil
}

// parseAsOf reads --as-of: a log line number or an RFC 3339 time.
func parseAsOf(v string, set bool) (tasks.Stop, error) {
	if !set {
		return tasks.Stop{}, nil
	}
	if n, err := strconv.Atoi(v); err == nil {
		if n < 1 {
			return tasks.Stop{}, errs.Invalidf("--as-of line %d is out of range; lines start at 1", n)
		}
		return tasks.Stop{Line: n}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return tasks.Stop{}, errs.Invalidf("--as-of %q is neither a line number nor an RFC 3339 time (2026-11-29T10:00:00Z)", v)
	}
	return tasks.Stop{Time: t}, nil
}

func statusLabel(s string) string { return "[" + s + "]" }

// count writes n with its noun, singular for 1 ("1 card", "2 cards"), so a summary line reads
// as English for any count.
func count[T ~int | ~int64](n T, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func countsLine(s tasks.Summary) string {
	return fmt.Sprintf("%s: %d pending, %d inprogress, %d completed, %d deleted", tasks.Count(s.Total), s.Pending, s.InProgress, s.Completed, s.Deleted)
}

func (e *Env) writeTaskTable(w io.Writer, ts []tasks.Task) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, t := range ts {
		fmt.Fprintf(tw, "#%d\t%s\t%s\n", t.TaskID, t.Status, t.Subject)
	}
	tw.Flush()
}

// writeTaskSnapshot is writeTaskTable with each description under its task, indented: what a
// compact worker must see of every task (it gets the full snapshot). The columns are
// padded by hand, since description lines would cut a tabwriter's column blocks apart.
func writeTaskSnapshot(w io.Writer, ts []tasks.Task) {
	idWidth, statusWidth := 0, 0
	for _, t := range ts {
		idWidth = max(idWidth, len(strconv.Itoa(t.TaskID))+1)
		statusWidth = max(statusWidth, len(t.Status))
	}
	for _, t := range ts {
		fmt.Fprintf(w, "%-*s  %-*s  %s\n", idWidth, "#"+strconv.Itoa(t.TaskID), statusWidth, t.Status, t.Subject)
		if d := strings.TrimSpace(t.Description); d != "" {
			for _, line := range strings.Split(d, "\n") {
				fmt.Fprintf(w, "    %s\n", strings.TrimRight(line, " \t\r"))
			}
		}
	}
}

// writeResult is the text form of create/update: the task, then the compact list of open tasks.
func (e *Env) writeResult(w io.Writer, verb string, res tasks.Result) error {
	fmt.Fprintf(w, "%s %s %s %s\n", verb, e.Bold("#"+strconv.Itoa(res.Task.TaskID)), statusLabel(res.Task.Status), res.Task.Subject)
	fmt.Fprintln(w, countsLine(res.Summary))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, t := range res.Summary.Open {
		fmt.Fprintf(tw, "  #%d\t%s\t%s\n", t.TaskID, t.Status, t.Subject)
	}
	if n := res.Summary.OpenMore; n > 0 {
		fmt.Fprintf(tw, "  … %d more open (cairn task list --status pending,inprogress)\n", n)
	}
	return tw.Flush()
}

func describeChanges(ch map[string]tasks.FieldChange) string {
	var parts []string
	for _, k := range append(tasks.FieldNames(), "removed") {
		c, ok := ch[k]
		if !ok {
			continue
		}
		switch {
		case k == "removed":
			parts = append(parts, "removed by the snapshot")
		case c.From == nil:
			parts = append(parts, fmt.Sprintf("%s=%s", k, short(c.To)))
		default:
			parts = append(parts, fmt.Sprintf("%s: %s → %s", k, short(c.From), short(c.To)))
		}
	}
	return strings.Join(parts, "; ")
}

func short(v any) string {
	s := fmt.Sprint(v)
	s = strings.ReplaceAll(s, "\n", " ")
	if r := []rune(s); len(r) > 60 {
		s = string(r[:59]) + "…"
	}
	return strconv.Quote(s)
}

// writeListNote says, for a runtime transcript, which of its lists the table shows and which
// others it holds, so lists of different tool families are never mistaken for one.
func writeListNote(w io.Writer, res tasks.ListResult) {
	if res.List == "" {
		return
	}
	fmt.Fprintf(w, "note: %s, as the transcript records it", tasks.ListTitle(res.List))
	others := make([]string, 0, len(res.OtherLists))
	for l := range res.OtherLists {
		others = append(others, l)
	}
	sort.Strings(others)
	for i, l := range others {
		sep := "; also "
		if i > 0 {
			sep = ", "
		}
		calls := "calls"
		if res.OtherLists[l] == 1 {
			calls = "call"
		}
		fmt.Fprintf(w, "%s%s (%d %s: --list %s)", sep, tasks.ListTitle(l), res.OtherLists[l], calls, l)
	}
	fmt.Fprintln(w)
}
