package tasks

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Bounds of the text a hook puts in front of the model. A compacted context should spend little
// on the list: 8,000 bytes is about 2,000 tokens, under the 10,000 characters Claude Code shows of
// a hook's context before it cuts it, and 60 tasks is more open work than a session holds at once.
// Open tasks come first, so what the cap leaves out is finished work, which the list tool answers.
const (
	maxInjectBytes = 8000
	maxInjectTasks = 60
	// a description is shown for open tasks only, cut to its first lines and runes
	maxDescLines = 3
	maxDescRunes = 200
)

// Voice is how a list is spoken of in the session it lands in: the tools the model has there for
// it, and that tool's status spelling.
type Voice struct {
	List string
	// Update and ListTool are the tool names the model calls; ListTool "" when the list has none
	// (TodoWrite and update_plan replace the whole list).
	Update, ListTool string
	// CLI is set when cairn's tools may not be offered to the model: the shell command is named too.
	CLI bool
	// InProgress is the tool's spelling of cairn's inprogress.
	InProgress string
	// Deleted tells whether the tool has the deleted status; DeletedAs is its spelling ("" for deleted).
	Deleted   bool
	DeletedAs string
	// More are the tool's statuses beyond cairn's (Gemini CLI's write_todos: blocked).
	More []string
}

// VoiceFor is the voice of a list in a runtime session. For cairn's list, prefix is how the
// runtime names cairn's MCP tools (mcp__cairn__ in Claude Code); "" means no call through MCP
// was seen, so the tools are named as cairn registers them and the CLI beside them.
func VoiceFor(list, prefix string) Voice {
	switch list {
	case ListTasks:
		return Voice{List: list, Update: "TaskUpdate", ListTool: "TaskList", InProgress: "in_progress", Deleted: true}
	case ListTodos:
		return Voice{List: list, Update: "TodoWrite", InProgress: "in_progress"}
	case ListPlan:
		return Voice{List: list, Update: "update_plan", InProgress: "in_progress"}
	case ListTodowrite:
		return Voice{List: list, Update: "todowrite", InProgress: "in_progress", Deleted: true, DeletedAs: "cancelled"}
	case ListGemini:
		return Voice{List: list, Update: "write_todos", InProgress: "in_progress", DeletedAs: "cancelled", More: []string{"blocked"}}
	}
	v := Voice{List: ListCairn, Update: prefix + "TaskUpdate", ListTool: prefix + "TaskList", InProgress: InProgress, Deleted: true}
	if prefix == "" {
		v.Update, v.ListTool, v.CLI = "mcp__cairn__TaskUpdate", "mcp__cairn__TaskList", true
	}
	return v
}

func (v Voice) status(s string) string {
	if s == InProgress {
		return v.InProgress
	}
	if s == Deleted && v.DeletedAs != "" {
		return v.DeletedAs
	}
	return s
}

// statuses is the tool's status vocabulary, for the instruction line.
func (v Voice) statuses() string {
	s := []string{Pending, v.InProgress, Completed}
	if v.Deleted || v.DeletedAs != "" {
		s = append(s, v.status(Deleted))
	}
	s = append(s, v.More...)
	return strings.Join(s, ", ")
}

// Instruction is what the model is asked to do with the list, in the tools it has.
func (v Voice) Instruction() string {
	switch {
	case v.ListTool == "":
		return fmt.Sprintf("Keep it current with %s, which takes the whole list each call (status %s): carry these items over, do not start a new list.", v.Update, v.statuses())
	case v.CLI:
		return fmt.Sprintf("Reconcile each task's status with what was actually done (%s, or `cairn task update ID --status S` in the shell; status %s), then call %s (or `cairn task list`) before you continue; do not recreate these tasks.", v.Update, v.statuses(), v.ListTool)
	}
	return fmt.Sprintf("Reconcile each task's status with what was actually done (%s; status %s), then call %s before you continue; do not recreate these tasks.", v.Update, v.statuses(), v.ListTool)
}

// RenderList writes a list as the model reads it in a hook's context: the counts, then open tasks
// first with their descriptions cut short, then the rest by subject, within budget bytes and
// maxInjectTasks tasks; what does not fit is counted in a last line that names the call listing it.
func RenderList(tasks []Task, sum Summary, v Voice, budget int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s — %d %s, %d %s, %d %s", capital(ListTitle(v.List)), Count(sum.Total), sum.Pending, Pending, sum.InProgress, v.InProgress, sum.Completed, Completed)
	if v.Deleted || sum.Deleted > 0 {
		fmt.Fprintf(&b, ", %d %s", sum.Deleted, v.status(Deleted))
	}
	b.WriteString(".\n")
	shown, open := 0, 0
	ordered := OpenFirst(tasks)
	for i, t := range ordered {
		isOpen := t.Status == Pending || t.Status == InProgress
		line := fmt.Sprintf("- #%d [%s] %s\n", t.TaskID, v.status(t.Status), t.Subject)
		if isOpen {
			line += descLines(t.Description)
		}
		if shown >= maxInjectTasks || b.Len()+len(line) > budget {
			for _, t := range ordered[i:] {
				if t.Status == Pending || t.Status == InProgress {
					open++
				}
			}
			more := len(ordered) - shown
			how := "call " + v.ListTool + " to see every task"
			if v.ListTool == "" {
				how = "they are still in the list " + v.Update + " replaces"
			}
			fmt.Fprintf(&b, "… %s more not shown (%d of them open): %s.\n", Count(more), open, how)
			break
		}
		b.WriteString(line)
		shown++
	}
	return b.String()
}

// descLines is a description as indented lines, cut to maxDescLines of maxDescRunes each.
func descLines(d string) string {
	d = strings.TrimSpace(d)
	if d == "" {
		return ""
	}
	var b strings.Builder
	lines := strings.Split(d, "\n")
	for i, line := range lines {
		if i == maxDescLines {
			fmt.Fprintf(&b, "    (%d more lines)\n", len(lines)-i)
			break
		}
		line = strings.TrimRight(line, "\r")
		if utf8.RuneCountInString(line) > maxDescRunes {
			line = string([]rune(line)[:maxDescRunes]) + "…"
		}
		fmt.Fprintf(&b, "    %s\n", line)
	}
	return b.String()
}

func capital(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
