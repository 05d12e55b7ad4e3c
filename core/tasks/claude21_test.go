package tasks

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/core/errs"
)

// Transcripts in the shape Claude Code 2.1 writes: housekeeping preamble, one assistant record
// per content block, structured toolUseResult, a compact_boundary with parentUuid null and a
// logicalParentUuid naming no record, a rewound branch, subagent records last.
const (
	session21   = "../../fixtures/claude/session-2.1.jsonl"
	compacted21 = "../../fixtures/claude/compacted-2.1.jsonl"
)

func subjects(ts []Task) map[int]string {
	out := map[int]string{}
	for _, t := range ts {
		out[t.TaskID] = t.Status + " " + t.Subject
	}
	return out
}

func listOf(t *testing.T, path string) []Task {
	t.Helper()
	res, err := NewSession(path, time.Second).List(context.Background(), Stop{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res.Tasks
}

func TestTranscriptWithHousekeepingPreamble(t *testing.T) {
	f, err := os.Open(compacted21)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got := DetectFormat(f); got != FormatClaude {
		t.Fatalf("a transcript opening with file-history-snapshot is detected as %s", got)
	}
	for _, first := range []string{
		`{"type":"file-history-snapshot","messageId":"m","snapshot":{"messageId":"m","trackedFileBackups":{},"timestamp":"2026-11-30T09:00:00.000Z"},"isSnapshotUpdate":false}`,
		`{"type":"queue-operation","operation":"dequeue","timestamp":"2026-11-30T09:00:00.000Z","sessionId":"s"}`,
		`{"type":"permission-mode","permissionMode":"default","sessionId":"s"}`,
		`{"type":"summary","summary":"x","leafUuid":"u1"}`,
	} {
		if got := DetectFormat(strings.NewReader(strings.Repeat(first+"\n", 40) + `{"parentUuid":null,"type":"user","uuid":"u1","sessionId":"s","message":{"role":"user","content":"hi"}}` + "\n")); got != FormatClaude {
			t.Errorf("opening with %.40s...: detected as %s", first, got)
		}
	}
	// lines neither format claims (blank, torn, a record type of a newer version) are passed over
	odd := "\n" + `{"type":"some-newer-housekeeping","value":1}` + "\n" + `{"type":"user","mess` + "\n"
	if got := DetectFormat(strings.NewReader(strings.Repeat(odd, 40) + `{"parentUuid":null,"type":"user","uuid":"u1","sessionId":"s","message":{"role":"user","content":"hi"}}` + "\n")); got != FormatClaude {
		t.Errorf("opening with lines of no known format: detected as %s", got)
	}
}

func TestNeverWritesToAFileHoldingATranscriptRecord(t *testing.T) {
	dir := t.TempDir()
	data, _ := os.ReadFile(compacted21)
	cases := map[string]string{
		"preamble":   string(data),
		"cairn-head": call("c1", "TaskCreate", `{"subject":"x"}`) + string(data),
		"late":       strings.Repeat(call("c1", "TaskCreate", `{"subject":"x"}`), 50) + `{"parentUuid":null,"isSidechain":false,"type":"user","uuid":"u","sessionId":"s","message":{"role":"user","content":"hi"}}` + "\n",
	}
	for name, content := range cases {
		path := filepath.Join(dir, name+".jsonl")
		os.WriteFile(path, []byte(content), 0o644)
		for _, format := range []string{FormatAuto, FormatCairn} {
			s := NewSession(path, time.Second)
			s.Format = format
			if _, err := s.Create(context.Background(), "never written", ""); errs.CodeOf(err) != errs.Invalid || !strings.Contains(err.Error(), "never writes") {
				t.Errorf("%s (%s): create = %v, want the transcript refusal", name, format, err)
			}
			if _, err := s.Compact(context.Background(), "x", ""); errs.CodeOf(err) != errs.Invalid {
				t.Errorf("%s (%s): compact = %v", name, format, err)
			}
		}
		after, _ := os.ReadFile(path)
		if string(after) != content {
			t.Errorf("%s: the file was modified", name)
		}
		if _, err := os.Stat(path + ".lock"); err == nil {
			t.Errorf("%s: a lock file was left beside it", name)
		}
	}
}

func TestRealCompactionKeepsTheTasksBeforeIt(t *testing.T) {
	want := map[int]string{1: "completed Audit the login form", 2: "pending Keep the auth flow unchanged",
		3: "inprogress Write the SQLite migration", 4: "pending Restyle the form"}
	if got := subjects(listOf(t, compacted21)); !reflect.DeepEqual(got, want) {
		t.Fatalf("tasks = %v, want %v", got, want)
	}
}

func TestLiveBranchIgnoresSidechainsAndSideLeaves(t *testing.T) {
	got := subjects(listOf(t, session21))
	if len(got) != 12 || got[12] != "inprogress Add a logout button" || got[6] != "completed Show the password rules" || got[5] != "pending Add the remember-me checkbox" || got[11] != "" || got[4] != "deleted Restyle the form" {
		t.Fatalf("tasks = %v", got)
	}
	// cut right after the first tool_result of a two-tool_use reply: that result (a side leaf)
	// is the newest record, and the second call must still count
	data, _ := os.ReadFile(compacted21)
	lines := strings.SplitAfter(string(data), "\n")
	var cut strings.Builder
	for _, l := range lines {
		cut.WriteString(l)
		if strings.Contains(l, `"uuid":"0b6f-r004"`) {
			break
		}
	}
	r := NewReplayer()
	if err := ReplayClaude(strings.NewReader(cut.String()), r, Stop{}, nil); err != nil {
		t.Fatal(err)
	}
	if got := subjects(r.Store.Tasks()); len(got) != 2 || got[2] != "pending Keep the auth flow unchanged" {
		t.Fatalf("after a side-leaf tool_result: %v (skips %v)", got, r.Skips)
	}
	// sidechain records after the main conversation's last record
	side := string(data) + `{"parentUuid":null,"isSidechain":true,"agentId":"a1","type":"user","uuid":"s1","sessionId":"s","message":{"role":"user","content":"explore"}}` + "\n" +
		`{"parentUuid":"s1","isSidechain":true,"agentId":"a1","type":"assistant","uuid":"s2","sessionId":"s","message":{"role":"assistant","content":[{"type":"text","text":"done"}]}}` + "\n"
	r = NewReplayer()
	ReplayClaude(strings.NewReader(side), r, Stop{}, nil)
	if len(r.Store.Tasks()) != 4 {
		t.Fatalf("with sidechain records last: %v", subjects(r.Store.Tasks()))
	}
}

// rec builds one transcript record.
func rec(typ, uuid, parent string, content any, extra map[string]any) string {
	o := map[string]any{"parentUuid": nil, "isSidechain": false, "sessionId": "s", "type": typ, "uuid": uuid,
		"timestamp": "2026-11-30T09:00:00.000Z", "message": map[string]any{"role": typ, "content": content}}
	if parent != "" {
		o["parentUuid"] = parent
	}
	for k, v := range extra {
		o[k] = v
	}
	b, _ := json.Marshal(o)
	return string(b) + "\n"
}

func use(id, name, input string) []any {
	return []any{map[string]any{"type": "tool_use", "id": id, "name": name, "input": json.RawMessage(input)}}
}

func answer(id string, content any) []any {
	return []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": content}}
}

func TestTaskIDsFromClaudeAnswers(t *testing.T) {
	log := rec("assistant", "a1", "", use("t1", "TaskCreate", `{"subject":"one","description":"","activeForm":"x"}`), nil) +
		rec("user", "r1", "a1", answer("t1", "Task #7 created successfully: one"), nil) +
		rec("assistant", "a2", "r1", use("t2", "TaskCreate", `{"subject":"two","description":""}`), nil) +
		rec("user", "r2", "a2", answer("t2", "created"), map[string]any{"toolUseResult": map[string]any{"task": map[string]any{"id": "9", "subject": "two"}}}) +
		rec("assistant", "a3", "r2", use("t3", "TaskCreate", `{"subject":"three","description":""}`), nil) +
		rec("user", "r3", "a3", answer("t3", []any{map[string]any{"type": "text", "text": "done"}}), nil) +
		rec("assistant", "a4", "r3", use("t4", "TaskUpdate", `{"taskId":"7","status":"in_progress"}`), nil)
	r := NewReplayer()
	ReplayClaude(strings.NewReader(log), r, Stop{}, nil)
	want := map[int]string{7: "inprogress one", 9: "pending two", 10: "pending three"}
	if got := subjects(r.Store.Tasks()); !reflect.DeepEqual(got, want) {
		t.Fatalf("tasks = %v, want %v", got, want)
	}
	if len(r.Notes) != 1 || r.Notes[0].Line != 5 || !strings.Contains(r.Notes[0].Reason, "numbered by replay") {
		t.Fatalf("notes = %+v", r.Notes)
	}
	// a store cleared mid-session: Claude Code numbers from 1 again, and replay follows it
	cleared := log + rec("assistant", "a5", "a4", use("t5", "TaskCreate", `{"subject":"after the clear"}`), nil) +
		rec("user", "r5", "a5", answer("t5", "Task #7 created successfully: after the clear"), nil)
	r = NewReplayer()
	ReplayClaude(strings.NewReader(cleared), r, Stop{}, nil)
	if got := subjects(r.Store.Tasks()); got[7] != "pending after the clear" || len(r.Notes) != 2 || !strings.Contains(r.Notes[1].Reason, `task 7 ("one") replaced`) {
		t.Fatalf("after a clear: %v, notes %+v", got, r.Notes)
	}
}

func TestMCPAndTodoWriteCalls(t *testing.T) {
	cairnAnswer := `{"task":{"taskid":4,"status":"pending","subject":"via mcp","description":""},"summary":{}}`
	log := rec("assistant", "a1", "", use("t1", "mcp__cairn__TaskCreate", `{"subject":"via mcp"}`), nil) +
		rec("user", "r1", "a1", answer("t1", []any{map[string]any{"type": "text", "text": cairnAnswer}}), map[string]any{"mcpMeta": map[string]any{"structuredContent": json.RawMessage(cairnAnswer)}}) +
		rec("assistant", "a2", "r1", use("t2", "mcp__my-tools__TaskUpdate", `{"taskid":4,"status":"inprogress"}`), nil) +
		rec("assistant", "a3", "a2", use("t3", "mcp__x__TaskCreate", `{"subject":"answered in structuredContent only"}`), nil) +
		rec("user", "r3", "a3", answer("t3", "ok"), map[string]any{"mcpMeta": map[string]any{"structuredContent": map[string]any{"task": map[string]any{"taskid": 8}}}})
	r := NewReplayer()
	ReplayClaude(strings.NewReader(log), r, Stop{}, nil)
	want := map[int]string{4: "inprogress via mcp", 8: "pending answered in structuredContent only"}
	if got := subjects(r.Store.Tasks()); !reflect.DeepEqual(got, want) {
		t.Fatalf("mcp: tasks = %v, want %v (skips %v)", got, want, r.Skips)
	}
	todo := log + rec("assistant", "a4", "r3", use("t4", "TodoWrite", `{"todos":[{"content":"first","status":"completed","activeForm":"x"},{"content":"second","status":"in_progress","activeForm":"y"}]}`), nil)
	// lists never merge across tool families: the TodoWrite list is a list of its own
	r = NewReplayer()
	ReplayClaude(strings.NewReader(todo), r, Stop{}, nil)
	if got := subjects(r.Store.Tasks()); r.List != ListCairn || !reflect.DeepEqual(got, want) {
		t.Fatalf("cairn's list beside TodoWrite: %s %v, want %v", r.List, got, want)
	}
	if !reflect.DeepEqual(r.Lists, map[string]int{ListCairn: 3, ListTodos: 1}) {
		t.Fatalf("lists = %v", r.Lists)
	}
	r = NewReplayer()
	r.Want = ListTodos
	ReplayClaude(strings.NewReader(todo), r, Stop{}, nil)
	want = map[int]string{1: "completed first", 2: "inprogress second"}
	if got := subjects(r.Store.Tasks()); !reflect.DeepEqual(got, want) {
		t.Fatalf("TodoWrite: tasks = %v, want %v", got, want)
	}
}

func TestReplayKeysAreExactCase(t *testing.T) {
	log := call("c1", "TaskCreate", `{"subject":"one"}`) +
		call("c2", "TaskCreate", `{"Subject":"two"}`) +
		call("c3", "TaskUpdate", `{"taskId":1,"status":"completed"}`) +
		call("c4", "TaskUpdate", `{"TASKID":1,"status":"deleted"}`) +
		call("c5", "TaskUpdate", `{"taskid":1,"Status":"deleted"}`)
	r := NewReplayer()
	ReplayCairn(context.Background(), strings.NewReader(log), r, Stop{}, nil)
	if got := subjects(r.Store.Tasks()); !reflect.DeepEqual(got, map[int]string{1: "pending one"}) || len(r.Skips) != 4 {
		t.Fatalf("cairn log: tasks = %v, skips %+v", got, r.Skips)
	}
	claude := rec("assistant", "a1", "", use("t1", "TaskCreate", `{"subject":"one"}`), nil) +
		rec("assistant", "a2", "a1", use("t2", "TaskUpdate", `{"TaskId":"1","status":"completed"}`), nil) +
		rec("assistant", "a3", "a2", use("t3", "TaskUpdate", `{"taskId":"1","Status":"completed"}`), nil)
	r = NewReplayer()
	ReplayClaude(strings.NewReader(claude), r, Stop{}, nil)
	if got := subjects(r.Store.Tasks()); !reflect.DeepEqual(got, map[int]string{1: "pending one"}) || len(r.Skips) != 2 {
		t.Fatalf("transcript: tasks = %v, skips %+v", got, r.Skips)
	}
}

func FuzzReplayClaude(f *testing.F) {
	data, _ := os.ReadFile(compacted21)
	f.Add(string(data))
	f.Add(rec("assistant", "a1", "", use("t1", "TaskCreate", `{"subject":"one"}`), nil) + rec("user", "r1", "a1", answer("t1", "Task #3 created successfully: one"), nil))
	f.Add(`{"a":[{"b":"\"}"},{}],"c":"\\"}` + "\n" + `{"type":"user","uuid":"x","message":{"content":[{"type":"tool_use","name":"TodoWrite","input":{"todos":[]}}]}}`)
	f.Fuzz(func(t *testing.T, log string) {
		for _, line := range strings.Split(log, "\n") {
			var obj map[string]json.RawMessage
			var lf lineFields
			if json.Unmarshal([]byte(line), &obj) == nil && obj != nil && !readFields([]byte(line), &lf) {
				t.Fatalf("a valid JSON object was not read: %q", line)
			}
		}
		r := NewReplayer()
		ReplayClaude(strings.NewReader(log), r, Stop{}, &Counts{ByType: map[string]int{}})
		prev := 0
		for _, tk := range r.Store.Tasks() {
			if tk.TaskID <= prev || CheckStatus(tk.Status) != nil {
				t.Fatalf("bad store: %+v", r.Store.Tasks())
			}
			prev = tk.TaskID
		}
	})
}

func TestSubagentCallsFollowTheirAgentCall(t *testing.T) {
	dir := t.TempDir()
	main := filepath.Join(dir, "s.jsonl")
	agent := func(uuid, parent, id string) string {
		return rec("assistant", uuid, parent, use(id, "Agent", `{"description":"d","prompt":"p","subagent_type":"general-purpose"}`), nil)
	}
	// the first Agent call was rewound away; the second is live
	os.WriteFile(main, []byte(rec("assistant", "a1", "", use("t1", "TaskCreate", `{"subject":"one"}`), nil)+
		rec("user", "r1", "a1", answer("t1", "Task #1 created successfully: one"), nil)+
		agent("g1", "r1", "toolu_gone")+
		rec("user", "u2", "r1", "try again", nil)+
		agent("g2", "u2", "toolu_live")), 0o644)
	sub := filepath.Join(dir, "s", "subagents")
	os.MkdirAll(sub, 0o755)
	side := map[string]any{"isSidechain": true, "agentId": "x"}
	for name, body := range map[string]string{
		"agent-gone": rec("assistant", "x1", "", use("t2", "TaskUpdate", `{"taskId":"1","status":"deleted"}`), side),
		"agent-live": rec("assistant", "y1", "", use("t3", "TaskUpdate", `{"taskId":"1","status":"completed"}`), side) +
			rec("assistant", "y2", "y1", use("t4", "TaskCreate", `{"subject":"from the subagent"}`), side) +
			rec("user", "y3", "y2", answer("t4", "Task #2 created successfully: from the subagent"), side),
	} {
		os.WriteFile(filepath.Join(sub, name+".jsonl"), []byte(body), 0o644)
		os.WriteFile(filepath.Join(sub, name+".meta.json"), []byte(`{"toolUseId":"toolu_`+strings.TrimPrefix(name, "agent-")+`"}`), 0o644)
	}
	s := NewSession(main, time.Second)
	res, err := s.List(context.Background(), Stop{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := subjects(res.Tasks); !reflect.DeepEqual(got, map[int]string{1: "completed one", 2: "pending from the subagent"}) {
		t.Fatalf("tasks = %v", got)
	}
	chk, _ := s.Check(context.Background())
	if len(chk.Skipped) != 1 || !strings.Contains(chk.Skipped[0].Reason, "(subagent agent-gone.jsonl line 1) is on an abandoned branch") {
		t.Fatalf("skipped = %+v", chk.Skipped)
	}
}

func TestCompactionFollowsPreservedTail(t *testing.T) {
	// rewound to b (no record written since), then compacted: the boundary's preservedSegment
	// names b as the last record before it, while the newest record is on the abandoned branch
	boundary := map[string]any{"subtype": "compact_boundary", "logicalParentUuid": "gone",
		"compactMetadata": map[string]any{"trigger": "manual", "preservedSegment": map[string]any{"headUuid": "b", "anchorUuid": "s1", "tailUuid": "b"}}}
	log := rec("assistant", "a", "", use("t1", "TaskCreate", `{"subject":"kept"}`), nil) +
		rec("user", "b", "a", "text on the branch the user went back to", nil) +
		rec("assistant", "c", "a", use("t2", "TaskCreate", `{"subject":"abandoned"}`), nil) +
		rec("system", "cb", "", "Conversation compacted", boundary) +
		rec("user", "s1", "cb", "This session is being continued", map[string]any{"isCompactSummary": true})
	r := NewReplayer()
	ReplayClaude(strings.NewReader(log), r, Stop{}, nil)
	if got := subjects(r.Store.Tasks()); !reflect.DeepEqual(got, map[int]string{1: "pending kept"}) {
		t.Fatalf("tasks = %v (skips %+v)", got, r.Skips)
	}
}

// A subagent's call that replay refuses (an unknown task, no subject) is named with its subagent
// file and line, as every other skip of a subagent call is.
func TestSubagentSkipNamesItsFile(t *testing.T) {
	dir := t.TempDir()
	main := filepath.Join(dir, "s.jsonl")
	os.WriteFile(main, []byte(rec("assistant", "g1", "", use("toolu_a", "Agent", `{"description":"d","prompt":"p"}`), nil)), 0o644)
	sub := filepath.Join(dir, "s", "subagents")
	os.MkdirAll(sub, 0o755)
	side := map[string]any{"isSidechain": true, "agentId": "x"}
	os.WriteFile(filepath.Join(sub, "agent-x.jsonl"), []byte(rec("assistant", "y1", "", use("t1", "TaskUpdate", `{"taskId":"9","status":"completed"}`), side)+
		rec("assistant", "y2", "y1", use("t2", "TaskCreate", `{"description":"no subject"}`), side)), 0o644)
	os.WriteFile(filepath.Join(sub, "agent-x.meta.json"), []byte(`{"toolUseId":"toolu_a"}`), 0o644)
	chk, err := NewSession(main, time.Second).Check(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(chk.Skipped) != 2 {
		t.Fatalf("skipped = %+v", chk.Skipped)
	}
	for i, want := range []string{"(subagent agent-x.jsonl line 1)", "(subagent agent-x.jsonl line 2)"} {
		if !strings.Contains(chk.Skipped[i].Reason, want) {
			t.Errorf("skip %d = %q, want %s in it", i, chk.Skipped[i].Reason, want)
		}
	}
}

// A skipped call says what its field holds and what it needs in JSON's words, never a Go type.
func TestReplaySkipNamesJSONTypes(t *testing.T) {
	log := call("c1", "TaskCreate", `{"subject":"one"}`) +
		call("c2", "TaskUpdate", `{"taskid":"1","status":"completed"}`) +
		call("c3", "TaskCreate", `{"subject":["x"]}`)
	r := NewReplayer()
	ReplayCairn(context.Background(), strings.NewReader(log), r, Stop{}, nil)
	want := []string{`taskid: a string given, an integer is needed`, `subject: an array given, a string is needed`}
	if len(r.Skips) != len(want) {
		t.Fatalf("skips %+v", r.Skips)
	}
	for i, s := range r.Skips {
		if !strings.HasSuffix(s.Reason, want[i]) || strings.Contains(s.Reason, "Go struct") {
			t.Errorf("skip %d: %q, want it to end in %q", i, s.Reason, want[i])
		}
	}
}
