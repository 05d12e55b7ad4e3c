package tasks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/cairn-dev/cairn/core/sessionlog"
	"github.com/cairn-dev/cairn/core/workspace"
)

// FormatGemini is a Gemini CLI session file (~/.gemini/tmp/<project>/chats/session-<time>-<id8>.jsonl,
// Gemini CLI 0.61.0; scripts/gemini-harness/README.md): a header line {"sessionId",
// "projectHash", "startTime", "lastUpdated", "kind"}, then one message a line ({"id",
// "timestamp", "type": user|gemini|info|error|warning, ...}; a line whose id was seen before
// replaces that message), {"$set": {...}} metadata updates ({"$set": {"messages": [...]}} a
// checkpoint replacing every message: at start, on resume and after a compression) and
// {"$rewindTo": id}.
const FormatGemini = "gemini"

// geminiLine is the part of a session file's line replay reads.
type geminiLine struct {
	SessionID   string           `json:"sessionId"`
	ProjectHash string           `json:"projectHash"`
	ID          string           `json:"id"`
	Timestamp   string           `json:"timestamp"`
	Type        string           `json:"type"`
	ToolCalls   []geminiToolCall `json:"toolCalls"`
	RewindTo    *string          `json:"$rewindTo"`
}

// geminiToolCall is one entry of a gemini message's toolCalls: the call, its status (success,
// error, cancelled) and what the tool answered.
type geminiToolCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Args      json.RawMessage `json:"args"`
	Status    string          `json:"status"`
	Timestamp string          `json:"timestamp"`
	Result    []struct {
		FunctionResponse struct {
			Response json.RawMessage `json:"response"`
		} `json:"functionResponse"`
	} `json:"result"`
}

// geminiCall is one task call of a session file, at the line and in the message it was first
// written in (the message order a $rewindTo cuts).
type geminiCall struct {
	list, name, callID, at string
	line, msg              int
	status                 string
	args                   json.RawMessage
	output                 string
}

// Markers a line replay reads must hold; other lines (most of a session) are skipped undecoded.
var (
	markToolCalls   = []byte(`"toolCalls"`)
	markRewind      = []byte(`"$rewindTo"`)
	markProjectHash = []byte(`"projectHash"`)
)

// isGeminiKey is a top-level key only a Gemini CLI session line has.
func isGeminiKey(k string) bool {
	return k == "projectHash" || k == "$set" || k == "$rewindTo"
}

// geminiOutput is the text a tool answered ({"output": ...} or {"error": ...}).
func (c *geminiToolCall) output() string {
	for _, r := range c.Result {
		var resp struct {
			Output string `json:"output"`
			Error  string `json:"error"`
		}
		if json.Unmarshal(r.FunctionResponse.Response, &resp) == nil {
			if resp.Output != "" {
				return resp.Output
			}
			return resp.Error
		}
	}
	return ""
}

// geminiCairnTool is cairn's tool a Gemini CLI call name stands for (mcp_<server>_TaskCreate),
// and the prefix Gemini CLI gave it, or "" when it is none of cairn's task tools.
func geminiCairnTool(name string) (tool, prefix string) {
	if !strings.HasPrefix(name, "mcp_") {
		return "", ""
	}
	for _, t := range []string{"TaskCreate", "TaskUpdate"} {
		if p, ok := strings.CutSuffix(name, "_"+t); ok && len(p) > len("mcp_") {
			return t, p + "_"
		}
	}
	return "", ""
}

// ReplayGemini replays a Gemini CLI session file. Two lists are in it: Gemini CLI's write_todos
// list (ListGemini: the whole list each call, its items given ids that stay across calls as
// update_plan's steps are, planIDs) and cairn's tools called through MCP (mcp_<server>_TaskCreate,
// answered with cairn's JSON). Only the toolCalls of message lines are read, each call once (by
// its id, as its latest line records it; the checkpoints repeat older calls in another shape), in
// the order they were first written: so a compression, whose checkpoint drops the older calls
// from Gemini CLI's own history, drops nothing here. A call whose status is not success (error,
// cancelled) was refused and is not replayed; a $rewindTo drops the calls of the message it names
// and of every later one. It never writes to the file.
func ReplayGemini(log io.Reader, r *Replayer, stop Stop, counts *Counts) error {
	calls := map[string]*geminiCall{}
	var order []*geminiCall
	msgs := map[string]int{} // message id → its place in the conversation
	next := 0
	var scanErr error
	for ln := range r.usedLines(log, stop, counts, &scanErr) {
		data := bytes.TrimSpace(ln.Data)
		if counts == nil && data[0] == '{' && data[len(data)-1] == '}' &&
			!bytes.Contains(data, markToolCalls) && !bytes.Contains(data, markRewind) && !bytes.Contains(data, markProjectHash) {
			// a message without tool calls, or a $set: nothing of a task list but the message's
			// place, which a later $rewindTo may name
			if id := geminiMsgID(data); id != "" {
				if _, seen := msgs[id]; !seen {
					msgs[id] = next
					next++
				}
			}
			continue
		}
		var l geminiLine
		if err := json.Unmarshal(data, &l); err != nil {
			r.skip(ln.No, "not valid JSON: %v", err)
			continue
		}
		if counts != nil {
			counts.ByType[geminiLineType(data, &l)]++
		}
		if stop.afterTime(l.Timestamp) {
			break
		}
		switch {
		case l.ProjectHash != "":
			if counts != nil && counts.SessionID == "" {
				counts.SessionID = l.SessionID
			}
			continue
		case l.RewindTo != nil:
			at, ok := msgs[*l.RewindTo]
			if !ok {
				r.note(ln.No, "$rewindTo names message %q, which is not in the file: nothing dropped", firstLine(*l.RewindTo))
				continue
			}
			kept := order[:0]
			for _, c := range order {
				if c.msg >= at {
					delete(calls, c.callID)
					continue
				}
				kept = append(kept, c)
			}
			order = kept
			for id, n := range msgs {
				if n >= at {
					delete(msgs, id)
				}
			}
			continue
		}
		if l.ID == "" {
			continue
		}
		msg, seen := msgs[l.ID]
		if !seen {
			msg = next
			msgs[l.ID] = next
			next++
		}
		if l.Type != "gemini" {
			continue
		}
		for i := range l.ToolCalls {
			tc := &l.ToolCalls[i]
			c := geminiCall{name: tc.Name, callID: tc.ID, at: tc.Timestamp, line: ln.No, msg: msg, status: tc.Status, args: tc.Args, output: tc.output()}
			if c.at == "" {
				c.at = l.Timestamp
			}
			if tc.Name == "write_todos" {
				c.list = ListGemini
			} else if tool, prefix := geminiCairnTool(tc.Name); tool != "" {
				c.list, c.name = ListCairn, tool
				r.MCPPrefix = prefix
			} else {
				continue
			}
			if c.callID == "" {
				c.callID = fmt.Sprintf("line-%d-%d", ln.No, i)
			}
			if old := calls[c.callID]; old != nil {
				c.line, c.msg = old.line, old.msg // a message written again: the latest state, the first place
				*old = c
				continue
			}
			p := &c
			calls[c.callID] = p
			order = append(order, p)
		}
	}
	if scanErr != nil {
		return scanErr
	}
	targets := route(r, order, func(c *geminiCall) string { return c.list })
	for _, c := range order {
		t := targets[c.list]
		if t == nil {
			continue
		}
		if c.status != "success" && c.status != "" {
			t.skip(c.line, "call %s: %s was refused (status %s: %q)", c.callID, c.nameOr(), c.status, firstLine(c.output))
			continue
		}
		args, err := unwrapArgs(c.args)
		if err != nil {
			t.skip(c.line, "%s arguments: %v", c.nameOr(), err)
			continue
		}
		switch c.list {
		case ListGemini:
			todos, err := decodeTodos(args)
			if err != nil {
				t.skip(c.line, "write_todos arguments: %v", err)
				continue
			}
			for i := range todos {
				todos[i].Status, todos[i].desc = geminiStatus(todos[i])
				todos[i].subject, _ = CheckSubject(todos[i].Step)
			}
			t.applySteps(c.line, c.at, c.callID, todos)
		case ListCairn:
			t.applyCairnCall(Event{Line: c.line, At: c.at, CallID: c.callID, Args: args}, c.name, untrusted(c.output), c.output != "")
		}
	}
	sortSkips(targets)
	return nil
}

func (c *geminiCall) nameOr() string {
	if c.list == ListGemini {
		return "write_todos"
	}
	return c.name
}

// untrusted is an MCP answer without the <untrusted_context> wrapper Gemini CLI puts around it.
func untrusted(out string) string {
	out = strings.TrimSpace(out)
	if rest, ok := strings.CutPrefix(out, "<untrusted_context>"); ok {
		out, _, _ = strings.Cut(rest, "</untrusted_context>")
	}
	return strings.TrimSpace(out)
}

// geminiMsgID is the id of a message line, read without decoding the line: Gemini CLI writes
// the id first ({"id":"...",...}); a line written otherwise is walked for its top-level id.
func geminiMsgID(data []byte) string {
	if rest, ok := bytes.CutPrefix(data, []byte(`{"id":"`)); ok {
		if i := bytes.IndexByte(rest, '"'); i > 0 && bytes.IndexByte(rest[:i], '\\') < 0 {
			return string(rest[:i])
		}
	}
	id := ""
	scanTop(data, func(k, v []byte) bool {
		if string(k) == "id" {
			id = rawString(v)
			return false
		}
		return true
	})
	return id
}

// geminiLineType names a line for `session check`: header, $set, $rewindTo, or the message type.
func geminiLineType(data []byte, l *geminiLine) string {
	switch {
	case l.ProjectHash != "":
		return "header"
	case l.RewindTo != nil:
		return "$rewindTo"
	case l.Type != "":
		return l.Type
	case bytes.Contains(data, []byte(`"$set"`)):
		return "$set"
	}
	return "(no type)"
}

// geminiStatuses are write_todos' statuses (0.61.0).
var geminiStatuses = []string{"pending", "in_progress", "completed", "cancelled", "blocked"}

// decodeTodos reads write_todos' {todos: [{description, status}]} as steps.
func decodeTodos(args json.RawMessage) ([]planStep, error) {
	var in struct {
		Todos []struct {
			Description string `json:"description"`
			Status      string `json:"status"`
		} `json:"todos"`
	}
	if err := json.Unmarshal(args, &in); err != nil {
		return nil, err
	}
	if in.Todos == nil {
		return nil, stringError("no todos list")
	}
	steps := make([]planStep, len(in.Todos))
	for i, t := range in.Todos {
		if _, err := CheckSubject(t.Description); err != nil {
			return nil, fmt.Errorf("todo %d: %v", i+1, err)
		}
		known := false
		for _, s := range geminiStatuses {
			known = known || t.Status == s
		}
		if !known {
			return nil, fmt.Errorf("todo %d: unknown status %q; valid: %s", i+1, t.Status, strings.Join(geminiStatuses, ", "))
		}
		steps[i] = planStep{Step: t.Description, Status: t.Status}
	}
	return steps, nil
}

// geminiBlocked is the description a blocked todo is given: cairn has no blocked status, so the
// item is pending and says why.
const geminiBlocked = "write_todos status: blocked"

// geminiStatus is a todo's status in cairn's terms: in_progress is inprogress, cancelled is
// deleted (withdrawn), blocked is pending with geminiBlocked as its description.
func geminiStatus(s planStep) (string, string) {
	switch s.Status {
	case "in_progress":
		return InProgress, ""
	case "cancelled":
		return Deleted, ""
	case "blocked":
		return Pending, geminiBlocked
	}
	return s.Status, ""
}

// GeminiSessionFiles are the session files of session id in the chats folder of path (a resumed
// session can leave a stub of two lines beside its real file: the same session, a later name),
// path first and then by name.
func GeminiSessionFiles(path, id8 string) []string {
	out := []string{path}
	if id8 == "" {
		return out
	}
	m, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "session-*-"+id8+".jsonl"))
	sort.Strings(m)
	for _, p := range m {
		if p != path {
			out = append(out, p)
		}
	}
	return out
}

// geminiRealFile is the session file holding session path's conversation: path itself when it
// holds more than a header and a checkpoint, else the largest file of the same session beside
// it (a resume in a later minute leaves such a stub, and goes on in the first file).
func geminiRealFile(path string) string {
	base := filepath.Base(path)
	stem, ok := strings.CutSuffix(base, ".jsonl")
	if !ok || !strings.HasPrefix(stem, "session-") || len(stem) < 8 {
		return path
	}
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() {
		return path
	}
	best, size := path, st.Size()
	for _, p := range GeminiSessionFiles(path, stem[len(stem)-8:])[1:] {
		if s, err := os.Stat(p); err == nil && s.Mode().IsRegular() && s.Size() > size && sameGeminiSession(path, p) {
			best, size = p, s.Size()
		}
	}
	return best
}

// sameGeminiSession reports whether two session files open with the same sessionId.
func sameGeminiSession(a, b string) bool {
	ia, ib := geminiHeaderID(a), geminiHeaderID(b)
	return ia != "" && ia == ib
}

// geminiHeaderID is the sessionId of a session file's header line, "" when it has none.
func geminiHeaderID(path string) string {
	f, err := workspace.OpenRegular(path, "transcript")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := sessionlog.NewScanner(io.LimitReader(f, 64<<10))
	if !sc.Next() {
		return ""
	}
	var h geminiLine
	if json.Unmarshal(sc.Line().Data, &h) != nil || h.ProjectHash == "" {
		return ""
	}
	return h.SessionID
}
