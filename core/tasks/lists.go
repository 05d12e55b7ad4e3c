package tasks

import (
	"strings"

	"github.com/cairn-dev/cairn/core/errs"
)

// The task lists a session can hold. Lists never merge: cairn's own list (its tools under any MCP
// server name, and its CLI) lives in cairn's log; each runtime's built-in task tools keep a list
// of their own, read from the runtime's transcript, with their own ids.
const (
	// ListAuto picks the list a transcript used: cairn's when its tools were called, else the runtime's.
	ListAuto = "auto"
	// ListCairn is cairn's list: `cairn task`, and TaskCreate/TaskUpdate through `cairn mcp`.
	ListCairn = "cairn"
	// ListTasks is Claude Code's built-in TaskCreate/TaskUpdate list.
	ListTasks = "tasks"
	// ListTodos is Claude Code's TodoWrite list (the whole list each call).
	ListTodos = "todos"
	// ListPlan is Codex's update_plan plan (the whole plan each call).
	ListPlan = "plan"
	// ListTodowrite is OpenCode's todowrite list (the whole list each call).
	ListTodowrite = "todowrite"
	// ListGemini is Gemini CLI's write_todos list (the whole list each call).
	ListGemini = "gemini-todos"
)

// Lists names every list, for validation and completion.
var Lists = []string{ListAuto, ListCairn, ListTasks, ListTodos, ListPlan, ListTodowrite, ListGemini}

// CheckList accepts a list name ("" is auto).
func CheckList(l string) error {
	if l == "" {
		return nil
	}
	for _, v := range Lists {
		if l == v {
			return nil
		}
	}
	return errs.Invalidf("unknown task list %q; valid: %s", l, strings.Join(Lists, ", "))
}

// ListTitle says in words whose list it is, for text output and the injected context.
func ListTitle(l string) string {
	switch l {
	case ListTasks:
		return "Claude Code's own task list (TaskCreate/TaskUpdate)"
	case ListTodos:
		return "Claude Code's todo list (TodoWrite)"
	case ListPlan:
		return "Codex's plan (update_plan)"
	case ListTodowrite:
		return "OpenCode's todo list (todowrite)"
	case ListGemini:
		return "Gemini CLI's todo list (write_todos)"
	}
	return "cairn's task list"
}
