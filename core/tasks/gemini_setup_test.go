package tasks

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// The cairn-setup recording (fixtures/gemini/cairn-setup/, Gemini CLI 0.61.0 with `cairn setup
// gemini --scope project` in place: `cairn mcp` and `cairn hook gemini` as setup registers them,
// the harness's logging hooks kept beside them in the same settings.json): cairn's tools and
// write_todos in run 1, `--resume` in run 2 whose first reply reports 900000 prompt tokens (an
// automatic compression before the next request), `--resume` again in run 3. The hooks replayed
// in order (runGemini) answer what cairn answered then; the mock's digest of every request
// (requests.jsonl) shows where Gemini CLI put it.

const geminiSetupSession = "c5709ada-189e-4a5d-bac5-ad2b0378b5e4"

// geminiRequest is the contents of the first recorded request whose answer has kind,
// conversation and reply.
func geminiRequest(t *testing.T, reqs []map[string]any, kind, conv string, reply int) []map[string]any {
	t.Helper()
	for _, r := range reqs {
		a, _ := r["answer"].(map[string]any)
		if a["kind"] != kind || conv != "" && (a["conversation"] != conv || a["reply"] != float64(reply)) {
			continue
		}
		var out []map[string]any
		for _, c := range r["contents"].([]any) {
			out = append(out, c.(map[string]any))
		}
		return out
	}
	t.Fatalf("no %s request %q#%d in the recording", kind, conv, reply)
	return nil
}

// partTexts are the text parts of a request content.
func partTexts(c map[string]any) []string {
	var out []string
	parts, _ := c["parts"].([]any)
	for _, p := range parts {
		if p, ok := p.(map[string]any); ok {
			if s, ok := p["text"].(string); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

// hookPart is where a content holds the text as BeforeAgent's additionalContext (Gemini CLI's
// "<hook_context>…</hook_context>" part): "content N part M", or "".
func hookPart(contents []map[string]any, text string) string {
	want := "<hook_context>" + text + "</hook_context>"
	for i, c := range contents {
		for j, s := range partTexts(c) {
			if s == want && c["role"] == "user" {
				return fmt.Sprintf("content %d part %d", i, j)
			}
		}
	}
	return ""
}

// TestRecordedGeminiSetup: with cairn's setup in place, the lists cairn's BeforeAgent answers
// after the resume (run 2) are the second text part of that prompt's user content in the request;
// the request after the compression (same run) still holds that part, in the prompt the
// compression kept after its summary; the resumed run 3, after the compression, gets the lists as
// they stand then (#1 completed) in its prompt. cairn mcp served the session's own list (its log
// is named by the session id, and holds what the replayed calls make).
func TestRecordedGeminiSetup(t *testing.T) {
	dir := filepath.Join(geminiFixtures, "cairn-setup")
	ws, ans := runGemini(t, "cairn-setup")
	got := contexts(ans)
	if len(got) != 3 || got[0] != "" {
		t.Fatalf("BeforeAgent answers: %q", got)
	}
	resume, third := got[1], got[2]
	for _, s := range []string{"cairn restored this session's task list on resume.", "mcp_cairn_TaskUpdate", "#1 [inprogress] Parse the config",
		"#3 [pending] Add the CLI", "Gemini CLI's todo list (write_todos): 3 tasks", "#2 [in_progress] Check the keys"} {
		if !strings.Contains(resume, s) {
			t.Errorf("run 2's answer lacks %q:\n%s", s, resume)
		}
	}
	if !strings.Contains(third, "#1 [completed] Parse the config") || !strings.Contains(third, "#2 [in_progress] Check the keys") {
		t.Errorf("run 3's answer:\n%s", third)
	}
	reqs := readJSONL(t, filepath.Join(dir, "requests.jsonl"))

	// run 2's first request: the prompt, then cairn's part
	c := geminiRequest(t, reqs, "script", "SCENARIO-CAIRN-RESUME", 0)
	if where := hookPart(c, resume); where != fmt.Sprintf("content %d part 1", len(c)-1) || partTexts(c[len(c)-1])[0] != "SCENARIO-CAIRN-RESUME go on" {
		t.Errorf("on resume: the lists at %q of %d contents", where, len(c))
	}
	// the request after the compression: summary, "Got it", the kept prompt with cairn's part
	geminiRequest(t, reqs, "compression", "", 0)
	c = geminiRequest(t, reqs, "script", "SCENARIO-CAIRN-RESUME", 1)
	if len(c) < 3 || !strings.Contains(strings.Join(partTexts(c[0]), ""), "SUMMARY-TEXT") || partTexts(c[1])[0] != "Got it. Thanks for the additional context!" {
		t.Fatalf("not the compressed history: %v", c)
	}
	if where := hookPart(c, resume); where != "content 2 part 1" {
		t.Errorf("after the compression: the lists at %q", where)
	}
	// run 3, resumed after the compression: the lists as they stand, after its prompt
	c = geminiRequest(t, reqs, "script", "SCENARIO-CAIRN-THIRD", 0)
	if where := hookPart(c, third); where != fmt.Sprintf("content %d part 1", len(c)-1) {
		t.Errorf("after the compression and resume: the lists at %q", where)
	}

	// cairn mcp bound every call to the session, and its recorded log is the replayed one
	for _, a := range ans {
		if strings.HasPrefix(a.event, "tools/call") && a.session != geminiSetupSession {
			t.Errorf("%s served session %q", a.event, a.session)
		}
	}
	recorded := readJSONL(t, filepath.Join(dir, "cairn-sessions_"+geminiSetupSession+".jsonl"))
	replayed := readJSONL(t, filepath.Join(ws.Root, "sessions", geminiSetupSession+".jsonl"))
	calls := func(log []map[string]any) string {
		var b strings.Builder
		for _, e := range log {
			if e["type"] == "tool_call" {
				args, _ := json.Marshal(e["arguments"])
				fmt.Fprintf(&b, "%s %s; ", e["name"], args)
			}
		}
		return b.String()
	}
	if r, p := calls(recorded), calls(replayed); r != p || strings.Count(r, "Task") != 5 {
		t.Errorf("cairn's log: recorded %s\n  replayed %s", r, p)
	}

	// the built-in list cairn reads is Gemini CLI's own: the last write_todos of the session file
	f := geminiFiles(t, "cairn-setup")[0]
	var want []string
	for _, s := range lastTodos(t, f) {
		want = append(want, s.Step+"="+s.Status)
	}
	r := replayGeminiFile(t, f, ListGemini)
	v := VoiceFor(ListGemini, "")
	var read []string
	for _, id := range r.plan.ids {
		task, _ := r.Store.Get(id)
		read = append(read, task.Subject+"="+v.status(task.Status))
	}
	if g, w := strings.Join(read, "; "), strings.Join(want, "; "); g != w || w != "Read the config file=completed; Check the keys=in_progress; Report errors=pending" {
		t.Errorf("write_todos read %q, the session's last %q", g, w)
	}
}
