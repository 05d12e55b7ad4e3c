package tasks

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/opencode"
)

// FormatOpenCode is one session of OpenCode's database (opencode.db): its parts are read, the
// database is never written.
const FormatOpenCode = "opencode"

// OpenCodeSessionPrefix addresses an OpenCode session where a log is named (--session
// opencode:ses_…): the session in OpenCode's database (opencode.DefaultDB).
const OpenCodeSessionPrefix = "opencode:"

// SessionTag is the argument OpenCode's cairn plugin adds to every cairn tool call
// (tool.execute.before) to name the session the call comes from: OpenCode tells an MCP server
// no session, and one `opencode serve` serves all its sessions through one server.
const SessionTag = "cairn_session"

// ParseOpenCodeSession reads an --session value addressing an OpenCode session:
// "opencode:ses_…" (the session in the default database) or "opencode:ses_…@PATH" (in the
// database at PATH). ok is false for any other value (a log path).
func ParseOpenCodeSession(v string) (id, db string, ok bool, err error) {
	rest, ok := strings.CutPrefix(v, OpenCodeSessionPrefix)
	if !ok {
		return "", "", false, nil
	}
	id, db, _ = strings.Cut(rest, "@")
	if !opencode.ValidSessionID(id) {
		return "", "", true, errs.Invalidf("%q does not name an OpenCode session: give opencode:ses_… (an id `opencode session list` shows), optionally @PATH of its opencode.db", v)
	}
	if db == "" {
		db = opencode.DefaultDB()
	}
	return id, db, true, nil
}

// openCodeTool is the part data of a tool call as OpenCode stores it.
type openCodeTool struct {
	Type   string `json:"type"`
	Tool   string `json:"tool"`
	CallID string `json:"callID"`
	State  struct {
		Status string          `json:"status"`
		Input  json.RawMessage `json:"input"`
		Output json.RawMessage `json:"output"`
		Error  string          `json:"error"`
		Time   struct {
			Start int64 `json:"start"`
		} `json:"time"`
	} `json:"state"`
}

// todoItem is one item of todowrite's input.
type todoItem struct {
	Content  string `json:"content"`
	Status   string `json:"status"`
	Priority string `json:"priority"`
}

func msTime(ms int64) string {
	if ms <= 0 {
		return ""
	}
	return time.UnixMilli(ms).UTC().Format(TimeFormat)
}

// replayOpenCode replays one session of OpenCode's database. Two lists are in it: todowrite's
// (ListTodowrite, the whole list each call; its items get ids that stay across calls by the rule
// of Codex's plan, planIDs) and cairn's tools called through MCP (<server>_TaskCreate and
// _TaskUpdate, answered with cairn's JSON). A call OpenCode recorded as failed (state error) or
// not finished is not replayed. A fork (`--fork`) holds copies of its parent's parts, so its
// lists start as the parent's at the fork without reading the parent; the parent is named in
// r.Origin when a copied cairn call carries another session's SessionTag. "Lines" are the
// parts' ordinals.
func replayOpenCode(ctx context.Context, dbPath, session string, r *Replayer, stop Stop, counts *Counts) error {
	if !opencode.ValidSessionID(session) {
		return errs.Invalidf("%q is not an OpenCode session id (ses_…)", session)
	}
	db, err := opencode.Open(ctx, dbPath)
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.Session(ctx, session); err != nil {
		return err
	}
	if counts != nil {
		counts.SessionID = session
	}
	type call struct {
		list, name, callID, at string
		line                   int
		args                   json.RawMessage
		todos                  []todoItem
		answer                 *Task
	}
	var calls []call
	n := 0
	err = db.Parts(ctx, session, opencode.ToolParts, func(p opencode.Part) error {
		n++
		if stop.afterLine(n) {
			return errStopRead
		}
		if counts != nil {
			counts.Lines = n
			counts.ByType["tool"]++
		}
		var t openCodeTool
		if err := json.Unmarshal(p.Data, &t); err != nil {
			r.skip(n, "part %s is not valid JSON: %v", p.ID, err)
			return nil
		}
		at := msTime(t.State.Time.Start)
		if at == "" {
			at = msTime(p.Created)
		}
		if stop.afterTime(at) {
			return errStopRead
		}
		c := call{name: t.Tool, callID: t.CallID, at: at, line: n}
		switch {
		case t.Tool == "todowrite":
			c.list = ListTodowrite
		case strings.HasSuffix(t.Tool, "_TaskCreate"), strings.HasSuffix(t.Tool, "_TaskUpdate"):
			c.list = ListCairn
			i := strings.LastIndexByte(t.Tool, '_')
			c.name = t.Tool[i+1:]
			r.MCPPrefix = t.Tool[:i+1]
		default:
			return nil
		}
		if t.State.Status != "completed" {
			reason := "OpenCode recorded it as " + t.State.Status
			if t.State.Status == "error" {
				reason = fmt.Sprintf("it failed (%q)", firstLine(t.State.Error))
			}
			r.skip(n, "call %s: %s not replayed: %s", t.CallID, t.Tool, reason)
			return nil
		}
		switch c.list {
		case ListTodowrite:
			var in struct {
				Todos []todoItem `json:"todos"`
			}
			if err := json.Unmarshal(t.State.Input, &in); err != nil || in.Todos == nil {
				r.skip(n, "call %s: todowrite input has no todos list", t.CallID)
				return nil
			}
			c.todos = in.Todos
		case ListCairn:
			var in map[string]json.RawMessage
			if err := json.Unmarshal(t.State.Input, &in); err != nil {
				r.skip(n, "call %s: %s input: %v", t.CallID, t.Tool, err)
				return nil
			}
			if raw, ok := in[SessionTag]; ok {
				var tag string
				json.Unmarshal(raw, &tag)
				if tag != session && opencode.ValidSessionID(tag) && r.Origin == nil {
					r.Origin = &ForkOrigin{Session: tag} // a copy of the parent's call
				}
				delete(in, SessionTag)
			}
			c.args, _ = json.Marshal(in)
			var out string
			if json.Unmarshal(t.State.Output, &out) != nil {
				out = string(t.State.Output)
			}
			if c.answer = cairnAnswerOf(out); c.answer == nil {
				r.skip(n, "call %s: %s answered no task (%q): it failed", t.CallID, t.Tool, firstLine(out))
				return nil
			}
		}
		calls = append(calls, c)
		return nil
	})
	if err != nil && err != errStopRead {
		return err
	}
	targets := route(r, calls, func(c call) string { return c.list })
	for _, c := range calls {
		t := targets[c.list]
		if t == nil {
			continue
		}
		switch c.list {
		case ListTodowrite:
			steps, err := todoSteps(c.todos)
			if err != nil {
				t.skip(c.line, "call %s: todowrite input: %v", c.callID, err)
				continue
			}
			t.applySteps(c.line, c.at, c.callID, steps)
		case ListCairn:
			ev := Event{Line: c.line, At: c.at, CallID: c.callID, Kind: Update, Args: c.args}
			if c.name == "TaskCreate" {
				ev.Kind, ev.TaskID = Create, c.answer.TaskID
			}
			t.Apply(ev)
		}
	}
	sortSkips(targets)
	return nil
}

// errStopRead ends a read of the parts early (--as-of).
var errStopRead = stringError("stop")

// todoSteps turns todowrite's items into steps with cairn's statuses: in_progress is inprogress,
// cancelled is deleted (spelt cancelled again to the model, VoiceFor). A content is the step's
// subject; one longer than a subject may be, or of several lines, is cut to its first line of
// MaxSubjectRunes and kept whole as the description. Priority has no place in cairn's task.
func todoSteps(items []todoItem) ([]planStep, error) {
	steps := make([]planStep, len(items))
	for i, it := range items {
		st := it.Status
		switch st {
		case "pending", "completed":
		case "in_progress":
			st = InProgress
		case "cancelled":
			st = Deleted
		default:
			return nil, fmt.Errorf("item %d: unknown status %q; valid: pending, in_progress, completed, cancelled", i+1, it.Status)
		}
		content := strings.TrimSpace(it.Content)
		subject, desc := content, ""
		if line, _, more := strings.Cut(subject, "\n"); more || utf8.RuneCountInString(subject) > MaxSubjectRunes {
			subject = strings.TrimSpace(line)
			if utf8.RuneCountInString(subject) > MaxSubjectRunes {
				subject = string([]rune(subject)[:MaxSubjectRunes-1]) + "…"
			}
			desc = content
		}
		if _, err := CheckSubject(subject); err != nil {
			return nil, fmt.Errorf("item %d: %v", i+1, err)
		}
		steps[i] = planStep{Step: content, Status: st, subject: subject, desc: desc}
	}
	return steps, nil
}
