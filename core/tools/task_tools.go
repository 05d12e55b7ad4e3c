package tools

import (
	"context"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/tasks"
)

// onSession opens the caller's session log, as the CLI does, before fn runs.
func onSession[In any](fn func(context.Context, Context, *tasks.Session, In) (any, error)) func(context.Context, Context, In) (any, error) {
	return func(ctx context.Context, c Context, in In) (any, error) {
		if c.Workspace == nil {
			return nil, errs.Invalidf("no workspace")
		}
		s, err := tasks.OpenSession(ctx, c.Workspace, c.Workspace.Wait, c.Caller)
		if err != nil {
			return nil, err
		}
		if c.Cache != nil {
			s.Memo = c.Cache.taskMemo(s.Log.Path) // this process's calls on the log take turns
		}
		return fn(ctx, c, s, in)
	}
}

func taskTools() []*Tool {
	return []*Tool{
		define("TaskCreate", "task create",
			"Add a task to this session's task list, in status pending, and get back its taskid and a summary of the whole list. "+
				"Use it to plan multi-step work before you start, one task per concrete step. The list is kept in the session log, "+
				"so it survives context compaction and resume. Never use it to record finished work you did not plan.",
			false, nil, onSession(func(ctx context.Context, _ Context, s *tasks.Session, in tasks.CreateInput) (any, error) {
				return s.Create(ctx, in.Subject, in.Description)
			})),
		define("TaskList", "task list",
			"Return every task of this session's task list by taskid, completed and deleted ones included, with counts by "+
				"status and the open (pending and in-progress) tasks. Use it to see where you are, especially after a "+
				"compaction or resume. Read-only.",
			true, nil, onSession(func(ctx context.Context, c Context, s *tasks.Session, _ struct{}) (any, error) {
				if c.Cache != nil {
					return c.Cache.taskList(ctx, s)
				}
				return s.List(ctx, tasks.Stop{}, nil)
			})),
		define("TaskGet", "task get",
			"Return one task of this session's task list with its full description. An unknown taskid is an error. Read-only.",
			true, bounds("taskid", 1, tasks.MaxID), onSession(func(ctx context.Context, _ Context, s *tasks.Session, in tasks.GetInput) (any, error) {
				t, err := s.Get(ctx, in.TaskID)
				if err != nil {
					return nil, err
				}
				return map[string]tasks.Task{"task": t}, nil
			})),
		define("TaskUpdate", "task update",
			"Change a task's status, subject or description (at least one). Mark a task inprogress when you start it and "+
				"completed as soon as it is done; set deleted to withdraw it (it stays listed). Returns the task and a summary "+
				"of the whole list. The taskid cannot change.",
			false, all(bounds("taskid", 1, tasks.MaxID), enum("status", tasks.Statuses...)), onSession(func(ctx context.Context, _ Context, s *tasks.Session, in tasks.UpdateInput) (any, error) {
				return s.Update(ctx, in.TaskID, in.UpdateFields)
			})),
	}
}
