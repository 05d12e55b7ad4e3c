package tools

import (
	"context"
	"strings"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/tasks"
)

// onSession opens the caller's session log (through the call's stores) before fn runs.
func onSession[In, Out any](fn func(context.Context, Context, *tasks.Session, In) (Out, error)) func(context.Context, Context, In) (Out, error) {
	return func(ctx context.Context, c Context, in In) (Out, error) {
		var zero Out
		if c.Workspace == nil {
			return zero, errs.Invalidf("no workspace")
		}
		s, err := c.stores().Session(ctx, c.Caller)
		if err != nil {
			return zero, err
		}
		return fn(ctx, c, s, in)
	}
}

// descriptionOptions are the two ways the command line gives a task's description.
func descriptionOptions(usage, fileUsage string) []Option {
	return []Option{
		{Flag: "description", Aliases: []string{"d"}, Field: "description", Usage: usage},
		{Flag: "description-file", Usage: fileUsage},
	}
}

func workspaceOperations() []*Operation {
	return []*Operation{
		command[struct{}, map[string]any]("init", false, ex("cairn init", "cairn init ~/work/demo")),
	}
}

func taskOperations() []*Operation {
	statusOption := Option{Flag: "status", Aliases: []string{"s"}, Field: "status", Usage: strings.Join(tasks.Statuses[:len(tasks.Statuses)-1], ", ") + " or " + tasks.Statuses[len(tasks.Statuses)-1], Enum: tasks.Statuses}
	return []*Operation{
		tool(define("TaskCreate", "task create",
			"Add a task to this session's task list, in status pending, and get back its taskid and a summary of the whole list. "+
				"Use it to plan multi-step work before you start, one task per concrete step. The list is kept in the session log, "+
				"so it survives context compaction and resume. Never use it to record finished work you did not plan.",
			false, nil, onSession(func(ctx context.Context, _ Context, s *tasks.Session, in tasks.CreateInput) (tasks.Result, error) {
				return s.CreateFrom(ctx, in)
			})),
			ex("cairn task create 'Write the migration' -d 'users table first'", "cairn --json task create 'Review the PR'"),
			descriptionOptions("details of the task", "read the description from a file (- for standard input)")...),
		tool(define("TaskList", "task list",
			"Return every task of this session's task list by taskid, completed and deleted ones included, with counts by "+
				"status and the open (pending and in-progress) tasks. Use it to see where you are, especially after a "+
				"compaction or resume. Read-only.",
			true, nil, onSession(func(ctx context.Context, c Context, s *tasks.Session, _ struct{}) (any, error) {
				return c.stores().TaskList(ctx, s)
			})),
			ex("cairn task list", "cairn task list --status pending,inprogress", "cairn task list --as-of 120"),
			Option{Flag: "status", Kind: Strings, Usage: "only these statuses, comma-separated or repeated (" + strings.Join(tasks.Statuses, ",") + ")", Enum: tasks.Statuses},
			Option{Flag: "as-of", Usage: "the list as it was after log line N, or at an RFC 3339 time"}),
		tool(define("TaskGet", "task get",
			"Return one task of this session's task list with its full description. An unknown taskid is an error. Read-only.",
			true, bounds("taskid", 1, tasks.MaxID), onSession(func(ctx context.Context, _ Context, s *tasks.Session, in tasks.GetInput) (map[string]tasks.Task, error) {
				t, err := s.Get(ctx, in.TaskID)
				if err != nil {
					return nil, err
				}
				return map[string]tasks.Task{"task": t}, nil
			})),
			ex("cairn task get 3", "cairn --json task get 3")),
		tool(define("TaskUpdate", "task update",
			"Change a task's status, subject or description (at least one). Mark a task inprogress when you start it and "+
				"completed as soon as it is done; set deleted to withdraw it (it stays listed). Returns the task and a summary "+
				"of the whole list. The taskid cannot change.",
			false, all(bounds("taskid", 1, tasks.MaxID), enum("status", tasks.Statuses...)), onSession(func(ctx context.Context, _ Context, s *tasks.Session, in tasks.UpdateInput) (tasks.Result, error) {
				return s.Update(ctx, in.TaskID, in.UpdateFields)
			})),
			ex("cairn task update 3 --status inprogress", "cairn task update 3 -s completed"),
			append([]Option{statusOption, {Flag: "subject", Field: "subject", Usage: "new one-line subject"}},
				descriptionOptions("new description", "read the new description from a file (- for standard input)")...)...),
		command[tasks.GetInput, tasks.HistoryResult]("task history", true, ex("cairn task history 3")),
	}
}

func sessionOperations() []*Operation {
	return []*Operation{
		command[struct{}, tasks.CompactResult]("session compact", false, ex("cairn session compact --summary 'schema done; migration next'"),
			Option{Flag: "summary", Usage: "the compaction summary"},
			Option{Flag: "summary-file", Usage: "read the summary from a file (- for standard input)"},
			Option{Flag: "new-log", Usage: "also start this new log (never overwritten) with the compaction"}),
		command[struct{}, tasks.ListResult]("session compact-context", true, ex("cairn session compact-context")),
		command[struct{}, tasks.Brief]("session brief", true, ex("cairn session brief")),
		command[struct{}, tasks.CheckResult]("session check", true, ex("cairn session check", "cairn --json session check")),
	}
}
