package tasks

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/core/errs"
)

const geminiHeader = `{"sessionId":"11111111-2222-3333-4444-555555555555","projectHash":"ab","startTime":"2026-12-02T01:50:15.733Z","lastUpdated":"2026-12-02T01:50:15.733Z","kind":"main"}`

// geminiTodos is a gemini message line with one write_todos call.
func geminiTodos(msg, call, status, todos string) string {
	return `{"id":"` + msg + `","timestamp":"2026-12-02T01:50:17.373Z","type":"gemini","content":"","toolCalls":[{"id":"` + call +
		`","name":"write_todos","args":{"todos":` + todos + `},"result":[{"functionResponse":{"id":"` + call +
		`","name":"write_todos","response":{"output":"Successfully updated the todo list."}}}],"status":"` + status + `","timestamp":"2026-12-02T01:50:18.041Z"}]}`
}

func writeGemini(t *testing.T, lines ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "session-2026-12-02T01-50-11111111.jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func replayGeminiFile(t *testing.T, path, list string) *Replayer {
	t.Helper()
	s := NewSession(path, 0)
	s.Which = list
	r, err := s.Replay(context.Background(), Stop{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func geminiList(r *Replayer) string {
	var b strings.Builder
	for _, t := range r.Store.Tasks() {
		b.WriteString(strings.Join([]string{itoa(t.TaskID), t.Status, t.Subject}, " "))
		if t.Description != "" {
			b.WriteString(" (" + t.Description + ")")
		}
		b.WriteString("; ")
	}
	return b.String()
}

func TestGeminiDetect(t *testing.T) {
	p := writeGemini(t, geminiHeader, `{"$set":{"lastUpdated":"x"}}`, "")
	f, _ := os.Open(p)
	defer f.Close()
	if got := DetectFormat(f); got != FormatGemini {
		t.Fatalf("DetectFormat = %q, want gemini", got)
	}
	for _, line := range []string{`{"$set":{"lastUpdated":"x"}}`, `{"$rewindTo":"m1"}`, `{"id":"m","timestamp":"t","type":"gemini","content":"hi"}`} {
		if classify([]byte(line)) != lineGemini {
			t.Errorf("classify(%s) is not a Gemini line", line)
		}
	}
	// a Claude Code record keeps its format, with or without sessionId first
	for _, line := range []string{`{"sessionId":"s","type":"user","uuid":"u"}`, `{"sessionId":"s","type":"x"}`} {
		if classify([]byte(line)) != lineClaude {
			t.Errorf("classify(%s) is not a Claude Code record", line)
		}
	}
}

func TestGeminiTodosStableIDs(t *testing.T) {
	p := writeGemini(t, geminiHeader,
		geminiTodos("m1", "c1", "success", `[{"description":"Parse config","status":"pending"},{"description":"Write store","status":"pending"},{"description":"Add CLI","status":"pending"}]`),
		// written again by Gemini CLI (same message id, same call): applied once
		geminiTodos("m1", "c1", "success", `[{"description":"Parse config","status":"pending"},{"description":"Write store","status":"pending"},{"description":"Add CLI","status":"pending"}]`),
		// item 2 reworded, item 3 moved first and blocked, a new item
		geminiTodos("m2", "c2", "success", `[{"description":"Add CLI","status":"blocked"},{"description":"Write the store","status":"in_progress"},{"description":"Parse config","status":"completed"},{"description":"Docs","status":"pending"}]`),
		// refused by Gemini CLI: not applied
		geminiTodos("m3", "c3", "error", `[]`),
		// parse config dropped, docs cancelled
		geminiTodos("m4", "c4", "success", `[{"description":"Add CLI","status":"pending"},{"description":"Write the store","status":"completed"},{"description":"Docs","status":"cancelled"}]`),
		"")
	r := replayGeminiFile(t, p, ListAuto)
	if r.List != ListGemini || r.Lists[ListGemini] != 4 {
		t.Fatalf("list %q, lists %v", r.List, r.Lists)
	}
	want := "1 deleted Parse config; 2 completed Write the store; 3 pending Add CLI; 4 deleted Docs; "
	if got := geminiList(r); got != want {
		t.Errorf("list\n got %s\nwant %s", got, want)
	}
	if len(r.Skips) != 1 || !strings.Contains(r.Skips[0].Reason, "refused (status error") {
		t.Errorf("skips %+v, want the refused call", r.Skips)
	}
	if _, err := NewSession(p, 0).Create(context.Background(), "x", ""); errs.CodeOf(err) != errs.Invalid || !strings.Contains(err.Error(), "Gemini CLI session file") {
		t.Errorf("a write to a Gemini session file: %v", err)
	}
	s := NewSession(p, 0)
	r2, err := s.Replay(context.Background(), Stop{Line: 3})
	if err != nil {
		t.Fatal(err)
	}
	if got := geminiList(r2); got != "1 pending Parse config; 2 pending Write store; 3 pending Add CLI; " {
		t.Errorf("as of line 3: %s", got)
	}
	r3, _ := NewSession(p, 0).Replay(context.Background(), Stop{Line: 4})
	if got := geminiList(r3); got != "1 completed Parse config; 2 inprogress Write the store; 3 pending Add CLI ("+geminiBlocked+"); 4 pending Docs; " {
		t.Errorf("as of line 4: %s", got)
	}
}

func TestGeminiTornAndCorrupt(t *testing.T) {
	good := geminiTodos("m1", "c1", "success", `[{"description":"One","status":"in_progress"}]`)
	p := writeGemini(t, geminiHeader, good, `{"id":"m2","type":"gemini","toolCalls":[{`, `not json at all`,
		geminiTodos("m3", "c3", "success", `[{"description":"Two","status":"pending"}]`)) // no newline: torn
	r := replayGeminiFile(t, p, ListGemini)
	if got := geminiList(r); got != "1 inprogress One; " {
		t.Errorf("list %s", got)
	}
	var reasons []string
	for _, s := range r.Skips {
		reasons = append(reasons, itoa(s.Line)+": "+s.Reason)
	}
	all := strings.Join(reasons, "\n")
	for _, want := range []string{"3: not valid JSON", "4: not valid JSON", "5: torn final line"} {
		if !strings.Contains(all, want) {
			t.Errorf("skips lack %q:\n%s", want, all)
		}
	}
	// bad arguments are named
	p = writeGemini(t, geminiHeader, geminiTodos("m1", "c1", "success", `[{"description":"","status":"pending"}]`),
		geminiTodos("m2", "c2", "success", `[{"description":"x","status":"later"}]`), "")
	r = replayGeminiFile(t, p, ListGemini)
	if len(r.Skips) != 2 || !strings.Contains(r.Skips[0].Reason, "todo 1") || !strings.Contains(r.Skips[1].Reason, `unknown status "later"`) {
		t.Errorf("skips %+v", r.Skips)
	}
}

func TestGeminiRewindAndCairnTools(t *testing.T) {
	create := `{"id":"m5","timestamp":"2026-12-02T01:51:41.124Z","type":"gemini","content":"","toolCalls":[{"id":"k1","name":"mcp_tasks_TaskCreate","args":{"subject":"From MCP"},"result":[{"functionResponse":{"response":{"output":"<untrusted_context>\n{\"task\":{\"taskid\":7,\"status\":\"pending\",\"subject\":\"From MCP\",\"description\":\"\"}}\n</untrusted_context>"}}}],"status":"success"}]}`
	failed := `{"id":"m6","timestamp":"2026-12-02T01:51:41.124Z","type":"gemini","content":"","toolCalls":[{"id":"k2","name":"mcp_tasks_TaskUpdate","args":{"taskid":9,"status":"completed"},"result":[{"functionResponse":{"response":{"output":"<untrusted_context>\n{\"error\":{\"code\":\"NOT_FOUND\"}}\n</untrusted_context>"}}}],"status":"success"}]}`
	p := writeGemini(t, geminiHeader,
		geminiTodos("m1", "c1", "success", `[{"description":"One","status":"pending"}]`),
		`{"id":"u2","timestamp":"t","type":"user","content":[{"text":"go on"}]}`,
		geminiTodos("m2", "c2", "success", `[{"description":"One","status":"completed"}]`),
		`{"$rewindTo":"u2"}`,
		create, failed, "")
	r := replayGeminiFile(t, p, ListGemini)
	if got := geminiList(r); got != "1 pending One; " {
		t.Errorf("after the rewind: %s", got)
	}
	c := replayGeminiFile(t, p, ListAuto)
	if c.List != ListCairn || c.MCPPrefix != "mcp_tasks_" || geminiList(c) != "7 pending From MCP; " {
		t.Errorf("cairn's list %q prefix %q: %s", c.List, c.MCPPrefix, geminiList(c))
	}
	if len(c.Skips) != 1 || !strings.Contains(c.Skips[0].Reason, "answered no task") {
		t.Errorf("skips %+v", c.Skips)
	}
}

func TestGeminiStubFindsRealFile(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "session-2026-12-02T01-51-11111111.jsonl")
	stub := filepath.Join(dir, "session-2026-12-02T01-52-11111111.jsonl")
	other := filepath.Join(dir, "session-2026-12-02T01-53-11111111.jsonl")
	os.WriteFile(real, []byte(geminiHeader+"\n"+geminiTodos("m1", "c1", "success", `[{"description":"One","status":"pending"}]`)+"\n"), 0o644)
	os.WriteFile(stub, []byte(geminiHeader+"\n"+`{"$set":{"messages":[]}}`+"\n"), 0o644)
	// same 8 characters, another session: never taken for it
	os.WriteFile(other, []byte(strings.Replace(geminiHeader, "5555", "6666", 1)+"\n"+geminiTodos("m1", "c1", "success", `[{"description":"Other","status":"pending"},{"description":"Bigger","status":"pending"}]`)+"\n"), 0o644)
	if got := geminiList(replayGeminiFile(t, stub, ListGemini)); got != "1 pending One; " {
		t.Errorf("read through the stub: %s", got)
	}
}
