package tasks

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/core/workspace"
)

// Transcripts recorded with the real Claude Code 2.1.332 (fixtures/claude-code/README.txt), each
// with Claude Code's own task store after the run.
const realDir = "../../fixtures/claude-code"

func realTranscript(t *testing.T, scenario string) string {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(realDir, scenario, "projects", "*", "*.jsonl"))
	if len(paths) != 1 {
		t.Fatalf("%s: transcripts %v", scenario, paths)
	}
	return paths[0]
}

func TestRealTranscriptsEqualClaudeStore(t *testing.T) {
	want := map[string]map[int]string{
		"compact":  {1: "completed Parse config", 2: "completed Write store", 3: "pending Add CLI", 4: "pending Document"},
		"parallel": {1: "completed Lint", 2: "inprogress Test", 3: "pending Release"},
		"resume":   {1: "completed Alpha", 2: "pending Beta", 3: "pending Gamma"},
		"subagent": {1: "completed Investigate", 2: "completed Sub: scan files"},
	}
	for scenario, tasks := range want {
		s := NewSession(realTranscript(t, scenario), time.Second)
		s.ClaudeConfig = filepath.Join(realDir, scenario)
		chk, err := s.Check(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		res, _ := s.List(context.Background(), Stop{}, nil)
		if got := subjects(res.Tasks); !reflect.DeepEqual(got, tasks) {
			t.Errorf("%s: tasks = %v, want %v", scenario, got, tasks)
		}
		if chk.ClaudeStore == nil || !chk.ClaudeStore.Matches || chk.ClaudeStore.Tasks != len(tasks) {
			t.Errorf("%s: store comparison = %+v", scenario, chk.ClaudeStore)
		}
		if len(chk.Skipped) != 0 {
			t.Errorf("%s: skipped %+v", scenario, chk.Skipped)
		}
	}
	// an update of blocks only is noted, not skipped
	s := NewSession(realTranscript(t, "resume"), time.Second)
	chk, _ := s.Check(context.Background())
	if len(chk.Notes) != 1 || !strings.Contains(chk.Notes[0].Reason, "does not have (addBlockedBy)") {
		t.Errorf("resume notes = %+v", chk.Notes)
	}
	// TodoWrite: the last live list, numbered 1..n
	res, err := NewSession(realTranscript(t, "todowrite"), time.Second).List(context.Background(), Stop{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := subjects(res.Tasks); !reflect.DeepEqual(got, map[int]string{1: "completed Read spec", 2: "inprogress Write code", 3: "pending Ship"}) {
		t.Errorf("todowrite: %v", got)
	}
}

func TestStoreDifferencesAreNamed(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "tasks", "afa62be7-b7c6-4f70-830b-094a4471f128")
	os.MkdirAll(store, 0o755)
	src := filepath.Join(realDir, "compact", "tasks", "afa62be7-b7c6-4f70-830b-094a4471f128")
	for _, n := range []string{"1", "2", "3"} {
		data, _ := os.ReadFile(filepath.Join(src, n+".json"))
		if n == "2" {
			data = []byte(strings.Replace(string(data), `"completed"`, `"in_progress"`, 1))
		}
		os.WriteFile(filepath.Join(store, n+".json"), data, 0o644)
	}
	os.WriteFile(filepath.Join(store, "9.json"), []byte(`{"id":"9","subject":"Only in the store","description":"","status":"pending","blocks":[],"blockedBy":[]}`), 0o644)
	s := NewSession(realTranscript(t, "compact"), time.Second)
	s.ClaudeConfig = dir
	chk, err := s.Check(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"task 2: status inprogress in the store, completed in the replay",
		`task 4 (pending, "Document") is in the replay but not in Claude Code's store`,
		`task 9 (pending, "Only in the store") is in Claude Code's store but not in the replay`,
	}
	if chk.ClaudeStore == nil || chk.ClaudeStore.Matches || !reflect.DeepEqual(chk.ClaudeStore.Differences, want) {
		t.Fatalf("store comparison = %+v", chk.ClaudeStore)
	}
}

// realHookInput is the hook input Claude Code really sent, pointed at the fixture's files.
func realHookInput(t *testing.T, scenario, event, source, cwd string) []byte {
	t.Helper()
	f, err := os.Open(filepath.Join(realDir, scenario, "hooks.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var in map[string]any
		json.Unmarshal(sc.Bytes(), &in)
		if in["hook_event_name"] == event && (source == "" || in["source"] == source) {
			abs, _ := filepath.Abs(realTranscript(t, scenario))
			in["transcript_path"], in["cwd"] = abs, cwd
			data, _ := json.Marshal(in)
			return data
		}
	}
	t.Fatalf("%s: no %s %s hook input", scenario, event, source)
	return nil
}

func TestHookOnRealInput(t *testing.T) {
	cwd := t.TempDir() // no workspace: the transcript is the source
	out, err := ClaudeHook(context.Background(), realHookInput(t, "compact", "SessionStart", "compact", cwd), "", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var got hookOutput
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("output %q: %v", out, err)
	}
	ctx := got.HookSpecificOutput.AdditionalContext
	if got.HookSpecificOutput.HookEventName != "SessionStart" || !strings.Contains(ctx, "call TaskList") ||
		!strings.Contains(ctx, "- #3 [pending] Add CLI") || !strings.Contains(ctx, "- #1 [completed] Parse config") ||
		strings.Index(ctx, "#3 [pending]") > strings.Index(ctx, "#1 [completed]") {
		t.Fatalf("additionalContext = %q", ctx)
	}
	out, err = ClaudeHook(context.Background(), realHookInput(t, "compact", "PreCompact", "", cwd), "", time.Second)
	if err != nil || !strings.Contains(out, "- #4 [pending] Document") {
		t.Fatalf("PreCompact: %q, %v", out, err)
	}
	out, err = ClaudeHook(context.Background(), realHookInput(t, "compact", "SessionStart", "startup", cwd), "", time.Second)
	if err != nil || out != "" {
		t.Fatalf("SessionStart startup: %q, %v", out, err)
	}
}

func TestHookSourceOfTasks(t *testing.T) {
	dir := t.TempDir()
	if _, err := workspace.Init(dir); err != nil {
		t.Fatal(err)
	}
	ws, _ := workspace.Open(dir, dir)
	const id = "94cead10-cdbb-4574-b3cd-d9ce040db738"
	logPath, _ := ClaudeSessionLog(ws, id)
	s := NewSession(logPath, time.Second)
	if _, err := s.Create(context.Background(), "Kept in cairn's log", ""); err != nil {
		t.Fatal(err)
	}
	input := func(transcript string) []byte {
		data, _ := json.Marshal(HookInput{Event: "SessionStart", Source: "compact", SessionID: id, TranscriptPath: transcript, Cwd: dir})
		return data
	}
	// cairn's own log is cairn's list; Claude Code's own task tools are a second list, in a
	// section of its own with their own ids and status spelling
	out, err := ClaudeHook(context.Background(), input(realTranscript(t, "resume")), "", time.Second)
	mine, builtin, two := strings.Cut(out, "A separate list with its own ids")
	if err != nil || !two || !strings.Contains(mine, "Kept in cairn's log") || strings.Contains(mine, "Alpha") ||
		!strings.Contains(builtin, "Claude Code's own task list (TaskCreate/TaskUpdate): 3 tasks") || !strings.Contains(builtin, "Alpha") ||
		!strings.Contains(builtin, "0 in_progress") || strings.Contains(builtin, "Kept in cairn's log") {
		t.Fatalf("with cairn's log: %q, %v", out, err)
	}
	// cairn's log is the one authority for what cairn's tools wrote: a transcript's record of
	// them does not hide tasks the CLI wrote to the same log
	cairnAnswer := `{"task":{"taskid":1,"status":"pending","subject":"Written through MCP","description":""},"summary":{}}`
	mcp := filepath.Join(dir, "mcp.jsonl")
	os.WriteFile(mcp, []byte(rec("assistant", "a1", "", use("t1", "mcp__cairn__TaskCreate", `{"subject":"Written through MCP"}`), nil)+
		rec("user", "r1", "a1", answer("t1", []any{map[string]any{"type": "text", "text": cairnAnswer}}), nil)), 0o644)
	out, err = ClaudeHook(context.Background(), input(mcp), "", time.Second)
	if err != nil || !strings.Contains(out, "Kept in cairn's log") || strings.Contains(out, "Written through MCP") || !strings.Contains(out, "mcp__cairn__TaskUpdate") {
		t.Fatalf("with MCP calls in the transcript: %q, %v", out, err)
	}
	// without cairn's log the transcript's record of cairn's tools stands in
	os.Remove(logPath)
	out, err = ClaudeHook(context.Background(), input(mcp), "", time.Second)
	if err != nil || !strings.Contains(out, "#1 [pending] Written through MCP") {
		t.Fatalf("without cairn's log: %q, %v", out, err)
	}
}

func TestRealMCPTranscriptEqualsCairnLog(t *testing.T) {
	// cairn registered as an MCP server (mcp__cairn__TaskCreate) and as a plugin
	// (mcp__plugin_cairn_cairn__TaskCreate)
	for scenario, want := range map[string]int{"mcp": 2, "plugin": 1} {
		fromTranscript, err := NewSession(realTranscript(t, scenario), time.Second).List(context.Background(), Stop{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		logs, _ := filepath.Glob(filepath.Join(realDir, scenario, "cairn-*.jsonl"))
		if len(logs) != 1 {
			t.Fatalf("%s: cairn logs %v", scenario, logs)
		}
		fromLog, err := NewSession(logs[0], time.Second).List(context.Background(), Stop{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(fromLog.Tasks) != want || !reflect.DeepEqual(fromTranscript.Tasks, fromLog.Tasks) {
			t.Fatalf("%s: transcript %+v\ncairn log %+v", scenario, fromTranscript.Tasks, fromLog.Tasks)
		}
	}
}

// One real session through everything at once (fixtures/claude-code/README.txt, mixed/): three
// TaskCreate blocks in one reply, a subagent's task, a deletion, two compactions and a rewind
// (--resume-session-at) that takes back task 7 and the start of task 4. Claude Code's store keeps
// what the rewound branch did; the replay shows the branch the session is on and check names the
// two differences.
func TestRealMixedSession(t *testing.T) {
	s := NewSession(realTranscript(t, "mixed"), time.Second)
	s.ClaudeConfig = filepath.Join(realDir, "mixed")
	res, err := s.List(context.Background(), Stop{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]string{1: "completed Bump version", 2: "completed Update deps", 3: "deleted Drop old flag",
		4: "pending Write changelog", 5: "completed Sub: audit deps", 6: "completed Tag release", 8: "pending Announce"}
	if got := subjects(res.Tasks); !reflect.DeepEqual(got, want) {
		t.Errorf("tasks = %v, want %v", got, want)
	}
	chk, err := s.Check(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	diffs := []string{
		"task 4: status inprogress in the store, pending in the replay",
		`task 7 (pending, "Mistake") is in Claude Code's store but not in the replay`,
	}
	if chk.ClaudeStore == nil || chk.ClaudeStore.Tasks != 7 || !reflect.DeepEqual(chk.ClaudeStore.Differences, diffs) {
		t.Errorf("store comparison = %+v", chk.ClaudeStore)
	}
	if len(chk.Skipped) != 2 || !strings.Contains(chk.Skipped[0].Reason, "abandoned branch") || !strings.Contains(chk.Skipped[1].Reason, "abandoned branch") {
		t.Errorf("skipped = %+v", chk.Skipped)
	}
	cwd := t.TempDir()
	out, err := ClaudeHook(context.Background(), realHookInput(t, "mixed", "PreCompact", "", cwd), "", time.Second)
	if err != nil || !strings.Contains(out, "7 tasks — 2 pending, 0 in_progress, 4 completed, 1 deleted") ||
		!strings.Contains(out, "- #8 [pending] Announce") || strings.Contains(out, "Mistake") {
		t.Errorf("PreCompact: %q, %v", out, err)
	}
	out, err = ClaudeHook(context.Background(), realHookInput(t, "mixed", "SessionStart", "compact", cwd), "", time.Second)
	if err != nil || !strings.Contains(out, `- #4 [pending] Write changelog\n`) ||
		strings.Index(out, "#8 [pending]") > strings.Index(out, "#1 [completed]") || strings.Contains(out, "Mistake") {
		t.Errorf("SessionStart compact: %q, %v", out, err)
	}
}
