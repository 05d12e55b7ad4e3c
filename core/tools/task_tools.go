package tools

import (
	"context"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/tasks"
)

func session(c Context) (*tasks.Session, error) {
	if c.Workspace == nil {
		return nil, errs.Invalidf("no workspace")
	}
	path, err := tasks.LogPath(c.Workspace, c.Session, c.ClaudeSession)
	if err != nil {
		return nil, err
	}
	s := tasks.NewSession(path, c.Workspace.Wait)
	if c.SessionFormat != "" {
		s.Format = c.SessionFormat
	}
	return s, nil
}

type taskCreateInput struct {
	Subject     string `json:"subject" jsonschema:"what the task is, one line of 1-200 characters"`
	Description string `json:"description,omitempty" jsonschema:"details, acceptance criteria, notes; may be empty, at most 64 KiB"`
}

type taskListInput struct{}

type taskGetInput struct {
	TaskID int `json:"taskid" jsonschema:"the task's id as returned by TaskCreate or TaskList"`
}

type taskUpdateInput struct {
	TaskID      int     `json:"taskid" jsonschema:"the task to change; the id itself cannot change"`
	Status      *string `json:"status,omitempty" jsonschema:"new status: pending, inprogress, completed, or deleted (to withdraw a task)"`
	Subject     *string `json:"subject,omitempty" jsonschema:"new one-line subject"`
	Description *string `json:"description,omitempty" jsonschema:"new description (replaces the old one)"`
}

func taskTools() []*Tool {
	return []*Tool{
		define("TaskCreate",
			"Add a task to this session's task list, in status pending, and get back its taskid and a summary of the whole list. "+
				"Use it to plan multi-step work before you start, one task per concrete step. The list is kept in the session log, "+
				"so it survives context compaction and resume. Never use it to record finished work you did not plan.",
			false, nil, func(ctx context.Context, c Context, in taskCreateInput) (any, error) {
				s, err := session(c)
				if err != nil {
					return nil, err
				}
				return s.Create(ctx, in.Subject, in.Description)
			}),
		define("TaskList",
			"Return every task of this session's task list by taskid, completed and deleted ones included, with counts by "+
				"status and the open (pending and in-progress) tasks. Use it to see where you are, especially after a "+
				"compaction or resume. Read-only.",
			true, nil, func(ctx context.Context, c Context, _ taskListInput) (any, error) {
				s, err := session(c)
				if err != nil {
					return nil, err
				}
				if c.Cache != nil {
					return c.Cache.taskList(ctx, s)
				}
				return s.List(ctx, tasks.Stop{}, nil)
			}),
		define("TaskGet",
			"Return one task of this session's task list with its full description. An unknown taskid is an error. Read-only.",
			true, bounds("taskid", 1, tasks.MaxID), func(ctx context.Context, c Context, in taskGetInput) (any, error) {
				s, err := session(c)
				if err != nil {
					return nil, err
				}
				t, err := s.Get(ctx, in.TaskID)
				if err != nil {
					return nil, err
				}
				return map[string]tasks.Task{"task": t}, nil
			}),
		define("TaskUpdate",
			"Change a task's status, subject or description (at least one). Mark a task inprogress when you start it and "+
				"completed as soon as it is done; set deleted to withdraw it (it stays listed). Returns the task and a summary "+
				"of the whole list. The taskid cannot change.",
			false, all(bounds("taskid", 1, tasks.MaxID), enum("status", tasks.Statuses...)), func(ctx context.Context, c Context, in taskUpdateInput) (any, error) {
				s, err := session(c)
				if err != nil {
					return nil, err
				}
				return s.Update(ctx, in.TaskID, tasks.UpdateFields{Status: in.Status, Subject: in.Subject, Description: in.Description})
			}),
	}
}
