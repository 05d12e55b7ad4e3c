package tasks

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/core/workspace"
)

// The recordings of real Gemini CLI 0.61.0 runs (fixtures/gemini/<flow>/, made by
// scripts/gemini-harness) replayed against today's cairn: the session files read as cairn reads
// them, and every hook Gemini CLI ran (each reading the session file as it was then, bound to the
// Gemini CLI process it ran under: its ppid) with every call cairn's MCP server received, in the
// order they happened (a tools/call comes right after the BeforeTool hook of its call).

const geminiFixtures = "../../fixtures/gemini"

// geminiFiles are the session files of a flow, by name.
func geminiFiles(t *testing.T, flow string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(geminiFixtures, flow, "gemini-home", "tmp", "project", "chats", "session-*.jsonl"))
	if err != nil || len(m) == 0 {
		t.Fatalf("no session files in %s: %v", flow, err)
	}
	sort.Strings(m)
	return m
}

// lastTodos are the arguments of the last write_todos call Gemini CLI answered success, in file order.
func lastTodos(t *testing.T, path string) []planStep {
	t.Helper()
	var last []planStep
	for _, m := range readJSONL(t, path) {
		calls, _ := m["toolCalls"].([]any)
		for _, c := range calls {
			c, _ := c.(map[string]any)
			if c["name"] != "write_todos" || c["status"] != "success" {
				continue
			}
			args, _ := json.Marshal(c["args"])
			steps, err := decodeTodos(args)
			if err != nil {
				t.Fatal(err)
			}
			last = steps
		}
	}
	return last
}

// TestRecordedGeminiTodos: the write_todos list cairn reads from each recorded session is the
// last write_todos call's list, item by item, in cairn's statuses; a resume's stub beside the real
// file reads the same list.
func TestRecordedGeminiTodos(t *testing.T) {
	for _, flow := range []string{"todos", "resume", "compress", "compress-slash", "cairn-setup"} {
		files := geminiFiles(t, flow)
		want := lastTodos(t, files[0])
		if len(want) == 0 {
			t.Fatalf("%s: no write_todos call", flow)
		}
		for _, f := range files {
			r := replayGeminiFile(t, f, ListGemini)
			if len(r.Skips) > 0 {
				t.Errorf("%s %s: skips %+v", flow, filepath.Base(f), r.Skips)
			}
			got := map[string]Task{}
			for _, task := range r.Store.Tasks() {
				got[task.Subject] = task
			}
			if len(got) != len(want) {
				t.Errorf("%s %s: %d tasks, want %d: %s", flow, filepath.Base(f), len(got), len(want), geminiList(r))
			}
			for i, s := range want {
				st, desc := geminiStatus(s)
				if task, ok := got[s.Step]; !ok || task.Status != st || task.Description != desc {
					t.Errorf("%s %s: todo %d %q %s: got %+v", flow, filepath.Base(f), i+1, s.Step, s.Status, task)
				}
			}
		}
	}
	// the ids stay across the four calls of the todos flow: item 2 reworded keeps #2
	r := replayGeminiFile(t, geminiFiles(t, "todos")[0], ListAuto)
	if r.List != ListGemini || geminiList(r) != "1 completed Parse config; 2 inprogress Write the task store; 3 deleted Add CLI; " {
		t.Errorf("todos: %s %s", r.List, geminiList(r))
	}
	// cairn's tools as Gemini CLI recorded them (mcp_cairn_*), in the real file and through the stub
	for _, f := range geminiFiles(t, "mcp") {
		r := replayGeminiFile(t, f, ListAuto)
		if r.List != ListCairn || r.MCPPrefix != "mcp_cairn_" || geminiList(r) != "1 inprogress From MCP (Created through cairn mcp); 2 pending Second; " {
			t.Errorf("mcp %s: %s %q %s", filepath.Base(f), r.List, r.MCPPrefix, geminiList(r))
		}
	}
}

// cutGeminiAt copies the lines of a session file written up to at, as a hook would have found the
// file then: lines are kept until the first one stamped later (timestamp, $set.lastUpdated or the
// header's startTime).
func cutGeminiAt(t *testing.T, src, dst string, at time.Time) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, line := range strings.SplitAfter(string(data), "\n") {
		var r struct {
			Timestamp string `json:"timestamp"`
			StartTime string `json:"startTime"`
			Set       struct {
				LastUpdated string `json:"lastUpdated"`
			} `json:"$set"`
		}
		json.Unmarshal([]byte(line), &r)
		stamp := r.Timestamp + r.StartTime + r.Set.LastUpdated
		if ts, err := time.Parse(time.RFC3339Nano, stamp); err == nil && ts.After(at) {
			break
		}
		b.WriteString(line)
	}
	os.MkdirAll(filepath.Dir(dst), 0o755)
	if err := os.WriteFile(dst, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

type geminiAnswer struct {
	event, source, session string
	text                   string // BeforeAgent's additionalContext
	res                    any
}

// runGemini replays a flow's hooks and MCP calls on a fresh workspace.
func runGemini(t *testing.T, flow string) (*workspace.Workspace, []geminiAnswer) {
	t.Helper()
	dir := filepath.Join(geminiFixtures, flow)
	ws := lineageWorkspace(t)
	chats := filepath.Join(t.TempDir(), "chats")
	ctx := context.Background()
	// each MCP server's tools/call, by the Gemini CLI process that started it (the shim's ppid)
	calls := map[string][]map[string]any{}
	server := ""
	if _, err := os.Stat(filepath.Join(dir, "mcp-log.jsonl")); err == nil {
		for _, m := range readJSONL(t, filepath.Join(dir, "mcp-log.jsonl")) {
			if sh, ok := m["shim"].(map[string]any); ok {
				server = fmt.Sprint(sh["ppid"])
				continue
			}
			msg, _ := m["msg"].(map[string]any)
			if m["dir"] == "client->server" && msg["method"] == "tools/call" {
				p, _ := msg["params"].(map[string]any)
				calls[server] = append(calls[server], p)
			}
		}
	}
	var out []geminiAnswer
	for _, h := range readJSONL(t, filepath.Join(dir, "hooks.jsonl")) {
		in, _ := h["input"].(map[string]any)
		process := fmt.Sprint(h["ppid"])
		event, _ := in["hook_event_name"].(string)
		at, err := time.Parse(time.RFC3339Nano, in["timestamp"].(string))
		if err != nil {
			t.Fatal(err)
		}
		hook := map[string]any{}
		for k, v := range in {
			hook[k] = v
		}
		hook["cwd"] = ws.Root
		if p, _ := in["transcript_path"].(string); p != "" {
			dst := filepath.Join(chats, filepath.Base(p))
			cutGeminiAt(t, filepath.Join(dir, "gemini-home", "tmp", "project", "chats", filepath.Base(p)), dst, at)
			hook["transcript_path"] = dst
		}
		data, _ := json.Marshal(hook)
		raw, err := Hook(ctx, Gemini, data, "", time.Second, HookEnv{Now: at, Process: process})
		if err != nil {
			t.Fatalf("%s: %v", event, err)
		}
		a := geminiAnswer{event: event, session: fmt.Sprint(in["session_id"])}
		a.source, _ = in["source"].(string)
		if raw != "" {
			var o hookOutput
			if err := json.Unmarshal([]byte(raw), &o); err != nil || o.HookSpecificOutput.HookEventName != "BeforeAgent" || event != "BeforeAgent" {
				t.Fatalf("%s answered %q (%v)", event, raw, err)
			}
			a.text = o.HookSpecificOutput.AdditionalContext
		}
		out = append(out, a)
		// the MCP call this BeforeTool announces, bound as `cairn mcp` binds it: by its process
		tool, _ := in["tool_name"].(string)
		if event != "BeforeTool" || !strings.HasPrefix(tool, "mcp_cairn_") {
			continue
		}
		var p map[string]any
		if queue := calls[process]; len(queue) > 0 {
			p = queue[0]
			calls[process] = queue[1:]
		} else if server == "" {
			// no MCP log (cairn-setup registers cairn mcp itself, without the logging shim): the
			// call is the one BeforeTool announces, its arguments the tool_input
			p = map[string]any{"name": strings.TrimPrefix(tool, "mcp_cairn_"), "arguments": in["tool_input"]}
		} else {
			t.Fatalf("BeforeTool %s without its tools/call", tool)
		}
		session := GeminiProcessSession(ws, []string{"1", process})
		s, err := OpenSession(ctx, ws, time.Second, workspace.Caller{ClaudeSession: session})
		if err != nil {
			t.Fatal(err)
		}
		args, _ := json.Marshal(p["arguments"])
		ans := geminiAnswer{event: "tools/call " + fmt.Sprint(p["name"]), session: session}
		switch p["name"] {
		case "TaskCreate":
			var in CreateInput
			json.Unmarshal(args, &in)
			ans.res, err = s.Create(ctx, in.Subject, in.Description)
		case "TaskUpdate":
			var in UpdateInput
			json.Unmarshal(args, &in)
			ans.res, err = s.Update(ctx, in.TaskID, in.UpdateFields)
		case "TaskList":
			ans.res, err = s.List(ctx, Stop{}, nil)
		}
		if err != nil {
			t.Fatalf("%s: %v", ans.event, err)
		}
		out = append(out, ans)
	}
	return ws, out
}

// contexts are the BeforeAgent answers of a replay, in order.
func contexts(answers []geminiAnswer) []string {
	var out []string
	for _, a := range answers {
		if a.event == "BeforeAgent" {
			out = append(out, a.text)
		}
	}
	return out
}

// TestRecordedGeminiHooks: after a resume, and after a compression, the first prompt's BeforeAgent
// answers the session's lists once; a fresh start, and the prompts after, answer nothing.
func TestRecordedGeminiHooks(t *testing.T) {
	// resume: run 1 nothing; run 2 (--resume) the list as run 1 left it
	_, ans := runGemini(t, "resume")
	got := contexts(ans)
	if len(got) != 2 || got[0] != "" || !strings.HasPrefix(got[1], "cairn restored this session's task list on resume.") ||
		!strings.Contains(got[1], "Gemini CLI's todo list (write_todos): 3 tasks") || !strings.Contains(got[1], "- #1 [in_progress] Alpha") ||
		!strings.Contains(got[1], "Keep it current with write_todos") {
		t.Errorf("resume: %q", got)
	}
	// compress: run 2 compresses after its write_todos; run 3 (a resume too) gets the list as run 2 left it
	_, ans = runGemini(t, "compress")
	got = contexts(ans)
	if len(got) != 3 || got[0] != "" || !strings.Contains(got[1], "on resume") || !strings.Contains(got[2], "- #2 [in_progress] Summarise") ||
		!strings.Contains(got[2], "- #1 [completed] Collect data") {
		t.Errorf("compress: %q", got)
	}
	// compress-slash: run 2 is `-p /compress`; run 3's prompt comes after that compression
	_, ans = runGemini(t, "compress-slash")
	got = contexts(ans)
	if len(got) != 3 || !strings.Contains(got[2], "- #1 [in_progress] Only step") {
		t.Errorf("compress-slash: %q", got)
	}
	// todos: one run, one prompt: nothing is owed
	_, ans = runGemini(t, "todos")
	if got := contexts(ans); len(got) != 1 || got[0] != "" {
		t.Errorf("todos: %q", got)
	}
}

// TestRecordedGeminiCompressionMark: a compression inside a run (no resume after it) is found by
// the next prompt's BeforeAgent through PreCompress's mark, and answered once.
func TestRecordedGeminiCompressionMark(t *testing.T) {
	ws := lineageWorkspace(t)
	src := geminiFiles(t, "compress")[0]
	data, _ := os.ReadFile(src)
	lines := strings.SplitAfter(string(data), "\n")
	at := 0 // the compression's checkpoint
	for i, l := range lines {
		if strings.Contains(l, "<state_snapshot>") && at == 0 {
			at = i
		}
	}
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	os.WriteFile(dst, []byte(strings.Join(lines[:at], "")), 0o644)
	id := "87d07046-0000-0000-0000-000000000000"
	hook := func(event string) string {
		in, _ := json.Marshal(HookInput{Event: event, SessionID: id, TranscriptPath: dst, Cwd: ws.Root, Trigger: "auto", Source: "startup"})
		out, err := Hook(context.Background(), Gemini, in, "", time.Second, HookEnv{Now: time.Now(), Process: "4242"})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	hook("SessionStart")
	if out := hook("BeforeAgent") + hook("PreCompress") + hook("PreCompress"); out != "" {
		t.Fatalf("answered %q before any compression", out)
	}
	os.WriteFile(dst, []byte(strings.Join(lines, "")), 0o644) // the compression's checkpoint lands
	out := hook("BeforeAgent")
	if !strings.Contains(out, `"hookEventName":"BeforeAgent"`) || !strings.Contains(out, "after a compression") || !strings.Contains(out, "Summarise") {
		t.Errorf("after the compression: %q", out)
	}
	if out := hook("PreCompress") + hook("BeforeAgent"); out != "" {
		t.Errorf("answered twice: %q", out)
	}
	// cairn's own list of the session is shown beside it, in the names Gemini CLI gives cairn's tools
	create(t, bound(t, ws, id), "Mine")
	hook("PreCompress")
	os.WriteFile(dst, []byte(strings.Join(lines, "")+strings.Join(lines[at:at+1], "")), 0o644)
	out = hook("BeforeAgent")
	if !strings.Contains(out, "mcp_cairn_TaskUpdate") || !strings.Contains(out, "#1 [pending] Mine") || !strings.Contains(out, "do not merge it") {
		t.Errorf("both lists: %q", out)
	}
}

// TestRecordedGeminiMCP: cairn's MCP server, which Gemini CLI tells no session, serves the
// session its process runs (as the hooks recorded it): one list per session, found again by the
// server of the resumed run.
func TestRecordedGeminiMCP(t *testing.T) {
	ws, ans := runGemini(t, "mcp")
	id := "4e0f07a5-5a03-4a57-a081-a0bca08432ee"
	var lists []ListResult
	for _, a := range ans {
		if strings.HasPrefix(a.event, "tools/call") && a.session != id {
			t.Errorf("%s served session %q, want %s", a.event, a.session, id)
		}
		if l, ok := a.res.(ListResult); ok {
			lists = append(lists, l)
		}
	}
	if len(lists) != 2 {
		t.Fatalf("%d TaskList answers", len(lists))
	}
	for i, l := range lists {
		if l.Summary.Total != 2 || l.Tasks[0].Subject != "From MCP" || l.Tasks[0].Status != InProgress || l.Tasks[1].Subject != "Second" {
			t.Errorf("TaskList %d: %+v", i+1, l)
		}
	}
	if _, err := os.Stat(filepath.Join(ws.Root, "sessions", id+".jsonl")); err != nil {
		t.Errorf("the session's own log: %v", err)
	}
	// another process, another session: its own, empty list
	in, _ := json.Marshal(HookInput{Event: "SessionStart", Source: "startup", SessionID: "other-session", Cwd: ws.Root})
	Hook(context.Background(), Gemini, in, "", time.Second, HookEnv{Now: time.Now(), Process: "99"})
	if s := GeminiProcessSession(ws, []string{"99"}); s != "other-session" {
		t.Errorf("process 99 serves %q", s)
	}
	// a /clear in the same process: SessionStart (clear) moves the process to the new session
	in, _ = json.Marshal(HookInput{Event: "SessionStart", Source: "clear", SessionID: "after-clear", Cwd: ws.Root})
	Hook(context.Background(), Gemini, in, "", time.Second, HookEnv{Now: time.Now(), Process: "99"})
	if s := GeminiProcessSession(ws, []string{"5", "99"}); s != "after-clear" {
		t.Errorf("after /clear process 99 serves %q", s)
	}
	// a process name with another start time is another process: its record is not taken
	in, _ = json.Marshal(HookInput{Event: "BeforeAgent", SessionID: "s3", Cwd: ws.Root})
	Hook(context.Background(), Gemini, in, "", time.Second, HookEnv{Now: time.Now(), Process: "77:100"})
	if s := GeminiProcessSession(ws, []string{"77:200"}); s != "" {
		t.Errorf("a reused pid served %q", s)
	}
}
