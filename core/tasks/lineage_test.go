package tasks

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/core/workspace"
	"github.com/cairn-dev/cairn/core/workspace/workspacetest"
)

const (
	parentID = "11111111-aaaa-4aaa-8aaa-000000000001"
	forkID   = "22222222-bbbb-4bbb-8bbb-000000000002"
	clearID  = "33333333-cccc-4ccc-8ccc-000000000003"
)

func lineageWorkspace(t *testing.T) *workspace.Workspace { return workspacetest.New(t) }

// bound is the session a process bound to runtime session id writes to, as the CLI and the MCP
// server open it.
func bound(t *testing.T, ws *workspace.Workspace, id string) *Session {
	t.Helper()
	s, err := OpenSession(context.Background(), ws, time.Second, workspace.Caller{ClaudeSession: id})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func create(t *testing.T, s *Session, subjects ...string) {
	t.Helper()
	for _, sub := range subjects {
		if _, err := s.Create(context.Background(), sub, ""); err != nil {
			t.Fatal(err)
		}
	}
}

func list(t *testing.T, s *Session) map[int]string {
	t.Helper()
	res, err := s.List(context.Background(), Stop{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return subjects(res.Tasks)
}

func TestForkInheritsThenDiverges(t *testing.T) {
	ctx := context.Background()
	ws := lineageWorkspace(t)
	p := bound(t, ws, parentID)
	create(t, p, "one", "two", "three")
	if _, err := p.Update(ctx, 1, UpdateFields{Status: ptr(InProgress)}); err != nil {
		t.Fatal(err)
	}
	ok, err := StartFork(ctx, ws, "claude-code", parentID, forkID, "2026-12-01T10:00:00.000Z")
	if err != nil || !ok {
		t.Fatalf("StartFork = %v, %v", ok, err)
	}
	// a second start never rewrites the fork's log
	if ok, err := StartFork(ctx, ws, "claude-code", parentID, forkID, "2026-12-01T10:00:01.000Z"); err != nil || ok {
		t.Fatalf("second StartFork = %v, %v", ok, err)
	}
	f := bound(t, ws, forkID)
	want := map[int]string{1: "inprogress one", 2: "pending two", 3: "pending three"}
	if got := list(t, f); !reflect.DeepEqual(got, want) {
		t.Fatalf("fork at the start = %v, want %v", got, want)
	}
	// the fork updates an inherited task and numbers after the highest inherited id
	if _, err := f.Update(ctx, 2, UpdateFields{Status: ptr(Completed)}); err != nil {
		t.Fatalf("update of an inherited task: %v", err)
	}
	res, err := f.Create(ctx, "fork's own", "")
	if err != nil || res.Task.TaskID != 4 {
		t.Fatalf("fork's first create = %+v, %v", res.Task, err)
	}
	// the parent goes on alone: neither list sees the other's later changes
	create(t, p, "parent's fourth")
	if got := list(t, f); !reflect.DeepEqual(got, map[int]string{1: "inprogress one", 2: "completed two", 3: "pending three", 4: "pending fork's own"}) {
		t.Fatalf("fork after diverging = %v", got)
	}
	if got := list(t, p); !reflect.DeepEqual(got, map[int]string{1: "inprogress one", 2: "pending two", 3: "pending three", 4: "pending parent's fourth"}) {
		t.Fatalf("parent after diverging = %v", got)
	}
	// history of an inherited task names the parent log for what happened there
	h, err := f.History(ctx, 2)
	if err != nil || len(h.Changes) != 2 || h.Changes[0].Log != parentID+".jsonl" || h.Changes[1].Log != "" {
		t.Fatalf("history = %+v, %v", h, err)
	}
	// check counts the fork entry and replay says nothing was skipped
	chk, err := f.Check(ctx)
	if err != nil || chk.Entries[TypeFork] != 1 || len(chk.Skipped) != 0 || chk.Tasks.Total != 4 {
		t.Fatalf("check = %+v, %v", chk, err)
	}
	// the parent log's file is never written by the fork
	data, _ := os.ReadFile(ws.Path("sessions/" + parentID + ".jsonl"))
	if strings.Contains(string(data), "fork's own") {
		t.Fatal("the fork wrote to its parent's log")
	}
}

func TestForkEntryRefusals(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(content), 0o644)
		return p
	}
	write("a.jsonl", call("c1", "TaskCreate", `{"subject":"from a"}`))
	for name, tc := range map[string]struct {
		log  string
		want map[int]string
		skip string
	}{
		"traversal":    {`{"type":"fork","parent":"../a.jsonl","parent_lines":1}` + "\n", map[int]string{}, "not a session log of this folder"},
		"missing":      {`{"type":"fork","parent":"gone.jsonl","parent_lines":1}` + "\n", map[int]string{}, "missing"},
		"not first":    {call("c2", "TaskCreate", `{"subject":"own"}`) + `{"type":"fork","parent":"a.jsonl","parent_lines":1}` + "\n", map[int]string{1: "pending own"}, "not the log's first entry"},
		"ok":           {`{"type":"fork","parent":"a.jsonl","parent_lines":1}` + "\n", map[int]string{1: "pending from a"}, ""},
		"cut at point": {`{"type":"fork","parent":"a.jsonl","parent_lines":0}` + "\n", map[int]string{}, ""},
	} {
		s := NewSession(write("f-"+strings.ReplaceAll(name, " ", "-")+".jsonl", tc.log), time.Second)
		chk, err := s.Check(context.Background())
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got := subjects(listOf(t, s.Log.Path))
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: tasks %v, want %v", name, got, tc.want)
		}
		if tc.skip == "" && len(chk.Skipped) != 0 || tc.skip != "" && (len(chk.Skipped) != 1 || !strings.Contains(chk.Skipped[0].Reason, tc.skip)) {
			t.Errorf("%s: skipped %+v, want %q", name, chk.Skipped, tc.skip)
		}
	}
	// a cycle of forks is cut at maxLineage, not followed for ever
	write("x.jsonl", `{"type":"fork","parent":"y.jsonl","parent_lines":1}`+"\n")
	write("y.jsonl", `{"type":"fork","parent":"x.jsonl","parent_lines":1}`+"\n")
	chk, err := NewSession(filepath.Join(dir, "x.jsonl"), time.Second).Check(context.Background())
	if err != nil || len(chk.Skipped) != 1 || !strings.Contains(chk.Skipped[0].Reason, "a cycle?") {
		t.Fatalf("cycle: %+v, %v", chk.Skipped, err)
	}
}

func TestClearHandsTheBindingOver(t *testing.T) {
	ctx := context.Background()
	ws := lineageWorkspace(t)
	old := bound(t, ws, parentID) // an MCP server started before the clear
	create(t, old, "before the clear")
	if ok, err := HandOff(ctx, ws, parentID, clearID, "clear", "2026-12-01T10:00:00.000Z"); err != nil || !ok {
		t.Fatalf("HandOff = %v, %v", ok, err)
	}
	// the same handoff again writes nothing
	if ok, _ := HandOff(ctx, ws, parentID, clearID, "clear", "2026-12-01T10:00:01.000Z"); ok {
		t.Fatal("a repeated handoff was written twice")
	}
	// what was bound to the old id now reads and writes the cleared conversation's new list
	stale := bound(t, ws, parentID)
	if got := list(t, stale); len(got) != 0 {
		t.Fatalf("after the clear, the old binding lists %v", got)
	}
	res, err := stale.Create(ctx, "after the clear", "")
	if err != nil || res.Task.TaskID != 1 {
		t.Fatalf("create after the clear = %+v, %v", res.Task, err)
	}
	if got := list(t, bound(t, ws, clearID)); !reflect.DeepEqual(got, map[int]string{1: "pending after the clear"}) {
		t.Fatalf("new session's list = %v", got)
	}
	// the old log itself still holds its list, read by name
	if got := subjects(listOf(t, ws.Path("sessions/"+parentID+".jsonl"))); !reflect.DeepEqual(got, map[int]string{1: "pending before the clear"}) {
		t.Fatalf("old log = %v", got)
	}
	// resuming the old conversation takes its own list back
	if ok, err := HandOff(ctx, ws, parentID, "", "resume", "2026-12-01T10:05:00.000Z"); err != nil || !ok {
		t.Fatalf("HandOff back = %v, %v", ok, err)
	}
	if got := list(t, bound(t, ws, parentID)); !reflect.DeepEqual(got, map[int]string{1: "pending before the clear"}) {
		t.Fatalf("after resuming the old session: %v", got)
	}
	// a handoff naming a path outside the folder is ignored
	p := ws.Path("sessions/" + clearID + ".jsonl")
	f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"type":"handoff","to":"../cairn.toml","reason":"clear"}` + "\n")
	f.Close()
	if got, err := LogPath(context.Background(), ws, "", clearID); err != nil || got != p {
		t.Fatalf("hostile handoff followed: %s, %v", got, err)
	}
}

func hookJSON(t *testing.T, in HookInput) []byte {
	t.Helper()
	data, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func context_(t *testing.T, out string) string {
	t.Helper()
	if out == "" {
		return ""
	}
	var o hookOutput
	if err := json.Unmarshal([]byte(out), &o); err != nil {
		t.Fatalf("hook output %q: %v", out, err)
	}
	return o.HookSpecificOutput.AdditionalContext
}

// A forked transcript starts with its parent's records (their sessionId is the parent's): the
// fork's SessionStart starts its log as a fork of the parent's and says so.
func TestHookForkAndClear(t *testing.T) {
	ctx := context.Background()
	ws := lineageWorkspace(t)
	create(t, bound(t, ws, parentID), "inherited one", "inherited two")
	// as Claude Code 2.1.332 writes a fork: the parent's records copied with the fork's sessionId,
	// the copied assistant records naming the parent in requestSessionId
	forked := func(self string) []byte {
		return []byte(rec("user", "u1", "", "hi", map[string]any{"sessionId": self}) +
			rec("assistant", "a1", "u1", "hello", map[string]any{"sessionId": self, "requestSessionId": parentID}) +
			rec("user", "u2", "a1", "go on", map[string]any{"sessionId": self}))
	}
	fork := filepath.Join(ws.Root, "fork.jsonl")
	os.WriteFile(fork, forked(forkID), 0o644)
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	out, err := Hook(ctx, ClaudeCode, hookJSON(t, HookInput{Event: "SessionStart", Source: "fork", SessionID: forkID, TranscriptPath: fork, Cwd: ws.Root}), "", time.Second, HookEnv{Now: now})
	text := context_(t, out)
	if err != nil || !strings.Contains(text, "fork of session "+parentID) || !strings.Contains(text, "new tasks continue from #3") ||
		!strings.Contains(text, "- #1 [pending] inherited one") {
		t.Fatalf("fork: %q, %v", text, err)
	}
	if got := list(t, bound(t, ws, forkID)); len(got) != 2 {
		t.Fatalf("fork's list = %v", got)
	}
	// a fork reported as a resume (as some versions do) is found the same way
	fork2 := "44444444-dddd-4ddd-8ddd-000000000004"
	os.WriteFile(fork, forked(fork2), 0o644)
	out, err = Hook(ctx, ClaudeCode, hookJSON(t, HookInput{Event: "SessionStart", Source: "resume", SessionID: fork2, TranscriptPath: fork, Cwd: ws.Root}), "", time.Second, HookEnv{Now: now})
	if text := context_(t, out); err != nil || !strings.Contains(text, "fork of session "+parentID) {
		t.Fatalf("fork as resume: %q, %v", text, err)
	}

	// /clear: SessionEnd (reason clear) of the old session, then SessionStart (source clear) of
	// the new one in the same project folder; the old binding follows, nothing is injected
	tdir := filepath.Join(ws.Root, "projects")
	os.MkdirAll(tdir, 0o755)
	end := HookInput{Event: "SessionEnd", Reason: "clear", SessionID: parentID, TranscriptPath: filepath.Join(tdir, parentID+".jsonl"), Cwd: ws.Root}
	if out, err := Hook(ctx, ClaudeCode, hookJSON(t, end), "", time.Second, HookEnv{Now: now}); err != nil || out != "" {
		t.Fatalf("SessionEnd: %q, %v", out, err)
	}
	start := HookInput{Event: "SessionStart", Source: "clear", SessionID: clearID, TranscriptPath: filepath.Join(tdir, clearID+".jsonl"), Cwd: ws.Root}
	if out, err := Hook(ctx, ClaudeCode, hookJSON(t, start), "", time.Second, HookEnv{Now: now.Add(time.Second)}); err != nil || out != "" {
		t.Fatalf("SessionStart clear: %q, %v", out, err)
	}
	stale := bound(t, ws, parentID)
	if got := list(t, stale); len(got) != 0 {
		t.Fatalf("the old binding after /clear lists %v", got)
	}
	if res, err := stale.Create(ctx, "new conversation", ""); err != nil || res.Task.TaskID != 1 {
		t.Fatalf("create after /clear = %+v, %v", res, err)
	}
	// a mark from another project folder, or one too old, is never claimed
	end.SessionID, start.SessionID = forkID, "55555555-eeee-4eee-8eee-000000000005"
	Hook(ctx, ClaudeCode, hookJSON(t, end), "", time.Second, HookEnv{Now: now})
	start.TranscriptPath = filepath.Join(ws.Root, "elsewhere", "x.jsonl")
	Hook(ctx, ClaudeCode, hookJSON(t, start), "", time.Second, HookEnv{Now: now.Add(time.Second)})
	start.TranscriptPath = filepath.Join(tdir, "x.jsonl")
	Hook(ctx, ClaudeCode, hookJSON(t, start), "", time.Second, HookEnv{Now: now.Add(time.Hour)})
	if got := list(t, bound(t, ws, forkID)); len(got) != 2 {
		t.Fatalf("a foreign or stale clear mark was claimed: fork lists %v", got)
	}
}

func TestRefusedBuiltinCallIsNotReplayed(t *testing.T) {
	log := rec("assistant", "a1", "", use("t1", "TaskCreate", `{"subject":"one","description":""}`), nil) +
		rec("user", "r1", "a1", answer("t1", "Task #1 created successfully: one"), nil) +
		rec("assistant", "a2", "r1", use("t2", "TaskUpdate", `{"taskId":"1","status":"completed"}`), nil) +
		rec("user", "r2", "a2", answer("t2", "Task not found"), map[string]any{"toolUseResult": map[string]any{"success": false, "taskId": "1"}}) +
		rec("assistant", "a3", "r2", use("t3", "TaskUpdate", `{"taskId":"1","status":"deleted"}`), nil) +
		rec("user", "r3", "a3", answer("t3", "<tool_use_error>Error: no such task</tool_use_error>"), nil)
	r := NewReplayer()
	ReplayClaude(strings.NewReader(log), r, Stop{}, nil)
	if got := subjects(r.Store.Tasks()); !reflect.DeepEqual(got, map[int]string{1: "pending one"}) {
		t.Fatalf("refused calls were replayed: %v", got)
	}
	if len(r.Skips) != 2 {
		t.Fatalf("skips = %+v", r.Skips)
	}
}

func TestInjectedListIsBounded(t *testing.T) {
	ws := lineageWorkspace(t)
	s := bound(t, ws, parentID)
	var subs []string
	for i := range 200 {
		subs = append(subs, strings.Repeat("x", 150)+" "+string(rune('a'+i%26)))
	}
	create(t, s, subs...)
	for id := 1; id <= 195; id++ {
		s.Update(context.Background(), id, UpdateFields{Status: ptr(Completed)})
	}
	out, err := Hook(context.Background(), ClaudeCode, hookJSON(t, HookInput{Event: "SessionStart", Source: "compact", SessionID: parentID, Cwd: ws.Root}), "", time.Second, HookEnv{Now: time.Now()})
	text := context_(t, out)
	if err != nil || len(text) > maxInjectBytes+600 {
		t.Fatalf("%d bytes, %v", len(text), err)
	}
	// every open task is shown, before any finished one; the rest is counted with the call that lists it
	for id := 196; id <= 200; id++ {
		if !strings.Contains(text, "- #"+itoa(id)+" [pending]") {
			t.Fatalf("open task %d missing", id)
		}
	}
	if !strings.Contains(text, "more not shown (0 of them open): call mcp__cairn__TaskList to see every task.") {
		t.Fatalf("no tail line: %q", text[len(text)-300:])
	}
}

func ptr[T any](v T) *T { return &v }

func itoa(n int) string { return strconv.Itoa(n) }

// The hook's text is shown text: a secret written into a task is not put in front of the model.
func TestHookTextIsRedacted(t *testing.T) {
	ws := lineageWorkspace(t)
	s := bound(t, ws, parentID)
	if _, err := s.Create(context.Background(), "Rotate the deploy key", "old token ghp_"+strings.Repeat("Ab3De5Fg7H", 4)+" is revoked"); err != nil {
		t.Fatal(err)
	}
	out, err := Hook(context.Background(), ClaudeCode, hookJSON(t, HookInput{Event: "SessionStart", Source: "compact", SessionID: parentID, Cwd: ws.Root}), "", time.Second, HookEnv{Now: time.Now()})
	text := context_(t, out)
	if err != nil || !strings.Contains(text, "Rotate the deploy key") || strings.Contains(text, "Ab3De5Fg") || !strings.Contains(text, "[REDACTED]") {
		t.Fatalf("%q, %v", text, err)
	}
}

// A handoff binds only while it is the log's last entry: something written to the old log by
// name after it makes the log its session's own again.
func TestHandoffHoldsWhileLast(t *testing.T) {
	ctx := context.Background()
	ws := lineageWorkspace(t)
	create(t, bound(t, ws, parentID), "old")
	HandOff(ctx, ws, parentID, clearID, "clear", "2026-12-01T10:00:00.000Z")
	if got, _ := LogPath(context.Background(), ws, "", parentID); filepath.Base(got) != clearID+".jsonl" {
		t.Fatalf("bound to %s", got)
	}
	byName := NewSession(ws.Path("sessions/"+parentID+".jsonl"), time.Second)
	if _, err := byName.Create(ctx, "written by name", ""); err != nil {
		t.Fatal(err)
	}
	if got, _ := LogPath(context.Background(), ws, "", parentID); filepath.Base(got) != parentID+".jsonl" {
		t.Fatalf("after a write by name, bound to %s", got)
	}
}

// successor reads the handoff a log ends with, however its type is spelt, and nothing else.
func TestSuccessorTail(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ last, want string }{
		{`{"type":"handoff","to":"b.jsonl","reason":"clear","at":"2026-01-01T00:00:00.000Z"}`, "b.jsonl"},
		{`{"type":"\u0068andoff","to":"c.jsonl","reason":"clear","at":"2026-01-01T00:00:00.000Z"}`, "c.jsonl"},
		{`{"Type":"handoff","To":"d.jsonl"}`, "d.jsonl"},
		{`{"type":"handoff","to":"","reason":"resume","at":"2026-01-01T00:00:00.000Z"}`, ""},
		{`{"type":"tool_call","id":"call_1","name":"TaskCreate","arguments":{"subject":"handoff"}}`, ""},
		{`{"type":"tool_call","id":"call_1","name":"TaskCreate","arguments":{"subject":"a \u00e9 \"handoff\""}}`, ""},
	} {
		p := filepath.Join(dir, "a.jsonl")
		if err := os.WriteFile(p, []byte(`{"type":"tool_call","id":"call_0","name":"TaskList","arguments":{}}`+"\n"+c.last+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if got, err := successor(p); err != nil || got != c.want {
			t.Errorf("last line %s: successor %q, %v; want %q", c.last, got, err, c.want)
		}
	}
}
