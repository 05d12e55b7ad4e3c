package tasks

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/core/opencode/opencodetest"
	"github.com/cairn-dev/cairn/core/workspace"
)

// The cairn-setup recording (fixtures/opencode/cairn-setup/, OpenCode 1.18.33 with `cairn setup
// opencode --scope project` in place: cairn's plugin and `cairn mcp` as setup writes them, the
// harness's logging plugin beside them): cairn's tools and todowrite, an auto-compaction, then
// `opencode run --session ID`. The mock's digest of every model request (requests.jsonl) is what
// OpenCode sent; the text cairn's hook answers, rebuilt here from the recorded database and cairn
// log as they stood at each moment, must be in those requests where the plugin puts it.

const openCodeSetupSession = "ses_dcb1607c8ffe00000000000001"

// messageText is an OpenCode request message's content as text (a string, or text parts).
func messageText(m map[string]any) string {
	switch c := m["content"].(type) {
	case string:
		return c
	case []any:
		var b strings.Builder
		for _, p := range c {
			if p, ok := p.(map[string]any); ok {
				s, _ := p["text"].(string)
				b.WriteString(s)
			}
		}
		return b.String()
	}
	return ""
}

// openCodeRequest is the first recorded request whose answer has kind, conversation and reply.
func openCodeRequest(t *testing.T, reqs []map[string]any, kind, conv string, reply int) []map[string]any {
	t.Helper()
	for _, r := range reqs {
		a, _ := r["answer"].(map[string]any)
		if a["kind"] != kind || conv != "" && (a["conversation"] != conv || a["reply"] != float64(reply)) {
			continue
		}
		var msgs []map[string]any
		for _, m := range r["messages"].([]any) {
			msgs = append(msgs, m.(map[string]any))
		}
		return msgs
	}
	t.Fatalf("no %s request %q#%d in the recording", kind, conv, reply)
	return nil
}

// openCodeSetupAt is the recording as it stood at ms (Unix milliseconds): the database's rows
// written by then and a workspace whose cairn log for the session holds the calls made by then.
func openCodeSetupAt(t *testing.T, ms float64) (*workspace.Workspace, string) {
	t.Helper()
	dir := filepath.Join(opencodetest.Fixtures(), "cairn-setup")
	db := filepath.Join(t.TempDir(), "opencode.db")
	opencodetest.Build(t, "cairn-setup", db, func(table string, row map[string]any) bool {
		at, _ := row["time_created"].(float64)
		return table == "session" || at <= ms
	})
	ws := lineageWorkspace(t)
	data, err := os.ReadFile(filepath.Join(dir, "cairn-sessions_"+openCodeSetupSession+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var kept strings.Builder
	for _, line := range strings.SplitAfter(string(data), "\n") {
		var e struct {
			At string `json:"at"`
		}
		if json.Unmarshal([]byte(line), &e) != nil {
			continue
		}
		at, err := time.Parse(time.RFC3339Nano, e.At)
		if err != nil {
			t.Fatalf("cairn log line without a time: %s", line)
		}
		if float64(at.UnixMilli()) <= ms {
			kept.WriteString(line)
		}
	}
	if err := os.WriteFile(filepath.Join(ws.Root, "sessions", openCodeSetupSession+".jsonl"), []byte(kept.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return ws, db
}

// pluginTimes are the times (Unix ms) of the logging plugin's records of hook, in order.
func pluginTimes(t *testing.T, hook string) []float64 {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(opencodetest.Fixtures(), "cairn-setup", "plugin-log.json"))
	if err != nil {
		t.Fatal(err)
	}
	var plog []map[string]any
	if err := json.Unmarshal(data, &plog); err != nil {
		t.Fatal(err)
	}
	var out []float64
	for _, e := range plog {
		if e["hook"] == hook {
			out = append(out, e["time"].(float64))
		}
	}
	return out
}

// TestRecordedOpenCodeSetupCompaction: with cairn's setup in place, the compaction request ends
// with the session's lists (experimental.session.compacting, output.context: the end of the one
// user message), the auto-continue request after session.compacted has them as its second system
// message ("after a compaction"), the first request of the resumed run too ("on resume"), and the
// request after the model's next task call has no such message (the plugin stops).
func TestRecordedOpenCodeSetupCompaction(t *testing.T) {
	reqs := readJSONL(t, filepath.Join(opencodetest.Fixtures(), "cairn-setup", "requests.jsonl"))
	compacting := pluginTimes(t, "experimental.session.compacting")
	inits := pluginTimes(t, "init") // one per OpenCode process: run 1, run 2, export, session list
	if len(compacting) != 1 || len(inits) < 2 {
		t.Fatalf("compacting at %v, processes at %v", compacting, inits)
	}

	// the compaction prompt: OpenCode's template, then what the plugin pushed
	ws, db := openCodeSetupAt(t, compacting[0])
	want := openCodeHookText(t, ws, db, OpenCodeHookInput{Event: OpenCodeCompacting, SessionID: openCodeSetupSession})
	for _, s := range []string{"#1 [inprogress] Parse the config", "#3 [pending] Add the CLI", "OpenCode's todo list (todowrite)", "#2 [in_progress] Check the keys"} {
		if !strings.Contains(want, s) {
			t.Errorf("the compacting answer lacks %q:\n%s", s, want)
		}
	}
	msgs := openCodeRequest(t, reqs, "compaction", "", 0)
	last := messageText(msgs[len(msgs)-1])
	if msgs[len(msgs)-1]["role"] != "user" || !strings.HasPrefix(last, "Here is the conversation so far") || !strings.HasSuffix(last, strings.TrimRight(want, "\n")) {
		t.Errorf("the compaction request does not end with cairn's answer %q:\n…%s", want, last[max(0, len(last)-len(want)-200):])
	}

	// the auto-continue turn, after session.compacted: the lists as the second system message
	want = openCodeHookText(t, ws, db, OpenCodeHookInput{Event: OpenCodeSystem, SessionID: openCodeSetupSession, Compacted: true})
	if !strings.HasPrefix(want, "cairn restored this session's task list after a compaction.") {
		t.Errorf("after the compaction: %s", want)
	}
	msgs = openCodeRequest(t, reqs, "script", "Continue if you have next steps", 0)
	if len(msgs) < 3 || msgs[1]["role"] != "system" || messageText(msgs[1]) != strings.TrimRight(want, "\n") {
		t.Errorf("the request after the compaction: messages[1] = %q, want %q", messageText(msgs[1]), want)
	}
	if !strings.Contains(messageText(msgs[2]), "What did we do so far?") && !strings.Contains(messageText(msgs[len(msgs)-2]), "SUMMARY-TEXT") {
		t.Errorf("not the compacted history: %v", msgs)
	}

	// run 2, `opencode run --session ID`: the session's first request in that process
	ws, db = openCodeSetupAt(t, inits[1])
	want = openCodeHookText(t, ws, db, OpenCodeHookInput{Event: OpenCodeSystem, SessionID: openCodeSetupSession})
	if !strings.HasPrefix(want, "cairn restored this session's task list on resume.") || !strings.Contains(want, "#1 [inprogress] Parse the config") {
		t.Errorf("on resume: %s", want)
	}
	msgs = openCodeRequest(t, reqs, "script", "SCENARIO-CAIRN resume", 0)
	if msgs[1]["role"] != "system" || messageText(msgs[1]) != strings.TrimRight(want, "\n") {
		t.Errorf("the resumed request: messages[1] = %q, want %q", messageText(msgs[1]), want)
	}
	// after cairn_TaskUpdate the list is in the conversation again: no more system text
	msgs = openCodeRequest(t, reqs, "script", "SCENARIO-CAIRN resume", 1)
	if msgs[1]["role"] == "system" {
		t.Errorf("the plugin went on after a task tool: %q", messageText(msgs[1]))
	}
}

// TestRecordedOpenCodeSetupLists: the built-in list cairn reads from the recorded database
// (todowrite parts) is OpenCode's own store, the session's todo rows; cairn's own list for the
// session is the log `cairn mcp` kept under the session's id (the plugin's cairn_session tag
// arrived: no call went to the default log).
func TestRecordedOpenCodeSetupLists(t *testing.T) {
	db := openCodeDB(t, "cairn-setup")
	r, err := openCodeSession(db, openCodeSetupSession, ListTodowrite).Replay(t.Context(), Stop{})
	if err != nil {
		t.Fatal(err)
	}
	got, want := strings.Join(todowriteOf(r), "; "), strings.Join(todoRowsOf(t, db, openCodeSetupSession), "; ")
	if got != want || want != "Read the config file=completed; Check the keys=in_progress; Report errors=pending" {
		t.Errorf("todowrite replayed %q, todo rows %q", got, want)
	}
	dir := filepath.Join(opencodetest.Fixtures(), "cairn-setup")
	logs, _ := filepath.Glob(filepath.Join(dir, "cairn-sessions_*.jsonl"))
	if len(logs) != 1 || filepath.Base(logs[0]) != "cairn-sessions_"+openCodeSetupSession+".jsonl" {
		t.Fatalf("cairn's logs: %v", logs)
	}
	ws, _ := openCodeSetupAt(t, float64(time.Now().UnixMilli()))
	l, err := bound(t, ws, openCodeSetupSession).List(t.Context(), Stop{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, task := range l.Tasks {
		lines = append(lines, task.Subject+"="+task.Status)
	}
	if s := strings.Join(lines, "; "); s != "Parse the config=completed; Write the store=pending; Add the CLI=pending" {
		t.Errorf("cairn's list of the session: %s", s)
	}
	// OpenCode stores the arguments as the plugin tagged them (cairn_session among them): its
	// record of cairn's calls replays to the same list, nothing skipped
	r, err = openCodeSession(db, openCodeSetupSession, ListCairn).Replay(t.Context(), Stop{})
	if err != nil {
		t.Fatal(err)
	}
	lines = nil
	for _, task := range r.Store.Tasks() {
		lines = append(lines, task.Subject+"="+task.Status)
	}
	if s := strings.Join(lines, "; "); s != "Parse the config=completed; Write the store=pending; Add the CLI=pending" || len(r.Skips) > 0 {
		t.Errorf("cairn's calls as OpenCode recorded them: %s, skips %v", s, r.Skips)
	}
}
