package tasks

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/core/workspace"
)

// The recordings of real Claude Code 2.1.332 sessions (fixtures/claude-code/<flow>/, made by
// scripts/claude-harness) are replayed against today's cairn: every hook the runtime ran, every
// call cairn's MCP server received (bound as that server was: its CLAUDE_CODE_SESSION_ID) and
// every cairn command the model ran through the Bash tool (the shell's session id), in the order
// they happened, on a fresh workspace. Each hook reads the transcript as it was at that moment.
// The answers the model would get now are checked against what the conversation needs.

type recEvent struct {
	at float64
	// a hook's input and its CLAUDE_PID
	hook    map[string]any
	process string
	// a tool call: the session the caller is bound to, the tool, its arguments
	session, tool string
	args          json.RawMessage
}

type recAnswer struct {
	ev   recEvent
	text string // a hook's additionalContext or plain output
	res  any
	err  error
}

func readJSONL(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) == nil {
			out = append(out, m)
		}
	}
	return out
}

var reQuoted = regexp.MustCompile(`cairn task (create|list)(?: '([^']*)')?`)

func recordedEvents(t *testing.T, dir string) []recEvent {
	var evs []recEvent
	for _, h := range readJSONL(t, filepath.Join(dir, "hooks.jsonl")) {
		in, _ := h["input"].(map[string]any)
		env, _ := h["env"].(map[string]any)
		at, _ := h["time"].(float64)
		if in == nil {
			continue
		}
		pid, _ := env["CLAUDE_PID"].(string)
		evs = append(evs, recEvent{at: at, hook: in, process: pid})
		// cairn run through the Bash tool, in the shell's session
		if in["hook_event_name"] == "PreToolUse" && in["tool_name"] == "Bash" {
			ti, _ := in["tool_input"].(map[string]any)
			cmd, _ := ti["command"].(string)
			for _, m := range reQuoted.FindAllStringSubmatch(cmd, -1) {
				sid, _ := env["CLAUDE_CODE_SESSION_ID"].(string)
				tool := map[string]string{"create": "TaskCreate", "list": "TaskList"}[m[1]]
				args, _ := json.Marshal(map[string]string{"subject": m[2]})
				if tool == "TaskList" {
					args = json.RawMessage(`{}`)
				}
				evs = append(evs, recEvent{at: at + 1e-4, session: sid, tool: tool, args: args})
			}
		}
	}
	servers := map[float64]string{}
	for _, m := range readJSONL(t, filepath.Join(dir, "mcp-log.jsonl")) {
		pid, _ := m["pid"].(float64)
		if m["event"] == "start" {
			env, _ := m["env"].(map[string]any)
			servers[pid], _ = env["CLAUDE_CODE_SESSION_ID"].(string)
			continue
		}
		msg, _ := m["msg"].(map[string]any)
		if msg["method"] != "tools/call" || m["dir"] != "in" {
			continue
		}
		p, _ := msg["params"].(map[string]any)
		name, _ := p["name"].(string)
		args, _ := json.Marshal(p["arguments"])
		at, _ := m["time"].(float64)
		evs = append(evs, recEvent{at: at, session: servers[pid], tool: name, args: args})
	}
	sort.SliceStable(evs, func(i, j int) bool { return evs[i].at < evs[j].at })
	return evs
}

// transcriptAt copies the records of a transcript written up to at (a Unix time), as the hook
// would have found the file then.
func transcriptAt(t *testing.T, src, dst string, at float64) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		if os.IsNotExist(err) {
			return
		}
		t.Fatal(err)
	}
	cut := time.Unix(int64(at), int64((at-math.Floor(at))*1e9))
	var b strings.Builder
	for _, line := range strings.SplitAfter(string(data), "\n") {
		var r struct {
			Timestamp string `json:"timestamp"`
		}
		json.Unmarshal([]byte(line), &r)
		if ts, err := time.Parse(time.RFC3339Nano, r.Timestamp); err == nil && ts.After(cut) {
			break
		}
		b.WriteString(line)
	}
	os.MkdirAll(filepath.Dir(dst), 0o755)
	os.WriteFile(dst, []byte(b.String()), 0o644)
}

func runRecorded(t *testing.T, flow string) (*workspace.Workspace, []recAnswer) {
	t.Helper()
	dir := filepath.Join(realDir, flow)
	ws := lineageWorkspace(t)
	tdir := filepath.Join(t.TempDir(), "projects", "-home-user-project")
	ctx := context.Background()
	var out []recAnswer
	for i, ev := range recordedEvents(t, dir) {
		a := recAnswer{ev: ev}
		if ev.hook != nil {
			in := map[string]any{}
			for k, v := range ev.hook {
				in[k] = v
			}
			in["cwd"] = ws.Root
			if p, ok := in["transcript_path"].(string); ok && p != "" {
				dst := filepath.Join(tdir, filepath.Base(p))
				transcriptAt(t, filepath.Join(dir, "projects", "-home-user-project", filepath.Base(p)), dst, ev.at)
				in["transcript_path"] = dst
			}
			data, _ := json.Marshal(in)
			now := time.Unix(int64(ev.at), 0)
			raw, err := Hook(ctx, ClaudeCode, data, "", time.Second, HookEnv{Now: now, Process: ev.process})
			a.err, a.text = err, raw
			if strings.HasPrefix(raw, "{") {
				a.text = context_(t, raw)
			}
			if id, _ := in["session_id"].(string); id != "" {
				a.res = list(t, bound(t, ws, id)) // the session's list as the hook left it
			}
			out = append(out, a)
			continue
		}
		s, err := OpenSession(context.Background(), ws, time.Second, workspace.Caller{ClaudeSession: ev.session})
		if err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
		switch ev.tool {
		case "TaskCreate":
			var in CreateInput
			json.Unmarshal(ev.args, &in)
			a.res, a.err = s.Create(ctx, in.Subject, in.Description)
		case "TaskUpdate":
			var in UpdateInput
			json.Unmarshal(ev.args, &in)
			a.res, a.err = s.Update(ctx, in.TaskID, in.UpdateFields)
		case "TaskList":
			a.res, a.err = s.List(ctx, Stop{}, nil)
		default:
			continue
		}
		out = append(out, a)
	}
	return ws, out
}

var reInjected = regexp.MustCompile(`(?m)^- #(\d+) \[([a-z_]+)\] (.*)$`)

// cairnSection is the task lines of the first (cairn's) section of an injected text.
func cairnSection(text string) map[int]string {
	first, _, _ := strings.Cut(text, "A separate list with its own ids")
	if !strings.Contains(first, "Cairn's task list") {
		return nil
	}
	got := map[int]string{}
	for _, m := range reInjected.FindAllStringSubmatch(first, -1) {
		var id int
		fmt.Sscan(m[1], &id)
		got[id] = m[2] + " " + m[3]
	}
	return got
}

// checkInjected: whatever a SessionStart put in front of the model as cairn's list is exactly
// the list of the session it landed in, as cairn's tools answer it at that moment.
func checkInjected(t *testing.T, answers []recAnswer) {
	t.Helper()
	for _, a := range answers {
		if a.ev.hook == nil || a.ev.hook["hook_event_name"] != "SessionStart" || a.text == "" {
			continue
		}
		got := cairnSection(a.text)
		if got == nil {
			continue
		}
		id, _ := a.ev.hook["session_id"].(string)
		want := a.res.(map[int]string)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("SessionStart %v of %s injected %v, the session's list is %v", a.ev.hook["source"], id, got, want)
		}
	}
}

func answersOf(answers []recAnswer, tool string) []recAnswer {
	var out []recAnswer
	for _, a := range answers {
		if a.ev.tool == tool {
			out = append(out, a)
		}
	}
	return out
}

func hookText(answers []recAnswer, event, source string) string {
	for _, a := range answers {
		if a.ev.hook != nil && a.ev.hook["hook_event_name"] == event && (source == "" || a.ev.hook["source"] == source) {
			return a.text
		}
	}
	return ""
}

func TestRecordedFork(t *testing.T) {
	ws, ans := runRecorded(t, "fork")
	checkInjected(t, ans)
	up := answersOf(ans, "TaskUpdate")
	cr := answersOf(ans, "TaskCreate")
	if len(up) != 2 || len(cr) != 5 {
		t.Fatalf("%d updates, %d creates replayed", len(up), len(cr))
	}
	// in the fork, TaskUpdate 2 finds the inherited task and the first create continues at #4
	if up[1].err != nil {
		t.Errorf("fork's TaskUpdate 2: %v", up[1].err)
	}
	if r, _ := cr[3].res.(Result); cr[3].err != nil || r.Task.TaskID != 4 || r.Task.Subject != "Forked four" {
		t.Errorf("fork's TaskCreate = %+v, %v", cr[3].res, cr[3].err)
	}
	// resuming the parent afterwards: its own list, untouched by the fork
	if r, _ := cr[4].res.(Result); cr[4].err != nil || r.Task.TaskID != 4 || r.Summary.Completed != 0 {
		t.Errorf("parent's TaskCreate after the fork = %+v, %v", cr[4].res, cr[4].err)
	}
	// at the fork's SessionStart Claude Code has not written the forked transcript yet: nothing is
	// injected (the model has the parent's conversation), and the fork's first call finds the
	// parent there and starts the fork's log from it
	if text := hookText(ans, "SessionStart", "fork"); text != "" {
		t.Errorf("fork's SessionStart context: %q", text)
	}
	fork, _ := filepath.Glob(ws.Path("sessions/572f5b53-*.jsonl"))
	chk, err := NewSession(fork[0], time.Second).Check(context.Background())
	if err != nil || chk.Entries[TypeFork] != 1 || chk.Tasks.Total != 4 || chk.Tasks.Completed != 1 {
		t.Errorf("fork's log: %+v, %v", chk, err)
	}
	// the resumed parent is told its own list, without the fork's task
	if text := hookText(ans, "SessionStart", "resume"); !strings.Contains(text, "on resume") || strings.Contains(text, "Forked four") || !strings.Contains(text, "- #2 [pending] Two") {
		t.Errorf("parent's resume context: %q", text)
	}
}

func TestRecordedClear(t *testing.T) {
	ws, ans := runRecorded(t, "clear-live")
	checkInjected(t, ans)
	lists := answersOf(ans, "TaskList")
	cr := answersOf(ans, "TaskCreate")
	// the MCP server started before /clear: after it, the cleared conversation's new list
	if len(lists) < 2 || len(cr) != 3 {
		t.Fatalf("%d lists, %d creates", len(lists), len(cr))
	}
	if l, _ := lists[0].res.(ListResult); lists[0].err != nil || len(l.Tasks) != 0 {
		t.Errorf("TaskList after /clear = %+v, %v", lists[0].res, lists[0].err)
	}
	if r, _ := cr[2].res.(Result); cr[2].err != nil || r.Task.TaskID != 1 || r.Summary.Total != 1 {
		t.Errorf("TaskCreate after /clear = %+v, %v", cr[2].res, cr[2].err)
	}
	// the shell (new session id) and the old server now share one list
	if l, _ := lists[len(lists)-1].res.(ListResult); len(l.Tasks) != 1 || l.Tasks[0].Subject != "After clear" {
		t.Errorf("the shell's cairn task list after /clear = %+v", lists[len(lists)-1].res)
	}
	// the conversation before the clear keeps its own list
	old, _ := filepath.Glob(ws.Path("sessions/03b952*.jsonl"))
	if len(old) != 1 {
		t.Fatalf("old log: %v", old)
	}
	if got := subjects(listOf(t, old[0])); !reflect.DeepEqual(got, map[int]string{1: "pending Before clear 1", 2: "pending Before clear 2"}) {
		t.Errorf("the cleared conversation's own list: %v", got)
	}
}

func TestRecordedCompactShellAndMixed(t *testing.T) {
	for flow, want := range map[string][]string{
		"compact-live": {"- #1 [inprogress] Kept 1", "- #2 [pending] Kept 2"},
		// a task written with the CLI through the Bash tool is in the list next to the MCP one
		"shell-cli": {"- #1 [pending] from the shell", "- #2 [pending] from MCP"},
		// cairn's list and Claude Code's own list, each in its section; the refused TaskUpdate
		// of task 7 is not applied
		"mixed-tools": {"- #1 [pending] Cairn task", "A separate list with its own ids", "Claude Code's own task list (TaskCreate/TaskUpdate): 1 task", "- #1 [pending] Builtin task"},
	} {
		t.Run(flow, func(t *testing.T) {
			_, ans := runRecorded(t, flow)
			checkInjected(t, ans)
			text := hookText(ans, "SessionStart", "compact")
			for _, w := range want {
				if !strings.Contains(text, w) {
					t.Errorf("SessionStart compact context lacks %q:\n%s", w, text)
				}
			}
			if pre := hookText(ans, "PreCompact", ""); !strings.Contains(pre, want[0]) {
				t.Errorf("PreCompact: %q", pre)
			}
		})
	}
}

func TestRecordedTwoSessions(t *testing.T) {
	_, ans := runRecorded(t, "two-sessions")
	checkInjected(t, ans)
	seen := map[string][]string{}
	for _, a := range answersOf(ans, "TaskList") {
		l, _ := a.res.(ListResult)
		for _, task := range l.Tasks {
			seen[a.ev.session] = append(seen[a.ev.session], task.Subject)
		}
	}
	if len(seen) != 2 {
		t.Fatalf("lists: %v", seen)
	}
	for _, subs := range seen {
		if len(subs) != 2 || subs[0][0] != subs[1][0] {
			t.Errorf("one session's list holds another's tasks: %v", seen)
		}
	}
}

// Codex CLI 0.171.0 rollouts (fixtures/codex/<flow>/, made by scripts/codex-harness).
const codexDir = "../../fixtures/codex"

func rollouts(t *testing.T, flow string) []string {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(codexDir, flow, "sessions", "*", "*", "*", "rollout-*.jsonl"))
	sort.Strings(paths)
	if len(paths) == 0 {
		t.Fatalf("no rollouts in %s", flow)
	}
	return paths
}

func TestRecordedCodexLists(t *testing.T) {
	for _, tc := range []struct {
		flow string
		i    int
		list string
		want map[int]string
		skip string
	}{
		// three plans, a step reworded, one dropped and one moved: ids stay with the steps
		{"plan", 0, ListPlan, map[int]string{1: "deleted Parse config", 2: "inprogress Write the task store", 3: "pending Add CLI"}, ""},
		{"auto-compact", 0, ListPlan, map[int]string{1: "completed Collect data", 2: "completed Summarise", 3: "inprogress Publish"}, ""},
		{"resume", 0, ListPlan, map[int]string{1: "completed Alpha", 2: "inprogress Beta", 3: "pending Gamma"}, ""},
		// the fork's own plan; before its first update_plan it had the parent's
		{"fork", 1, ListPlan, map[int]string{1: "completed One", 2: "inprogress Two", 3: "pending Branch only"}, ""},
		// cairn's tools through MCP, as Codex records them (namespace mcp__cairn)
		{"mcp", 0, ListCairn, map[int]string{1: "inprogress From MCP", 2: "pending Second"}, ""},
		// a model Codex does not offer update_plan to: the call is refused, nothing is replayed
		{"update-plan-offered", 0, ListPlan, map[int]string{}, "unsupported call"},
	} {
		path := rollouts(t, tc.flow)[tc.i]
		s := NewSession(path, time.Second)
		res, err := s.List(context.Background(), Stop{}, nil)
		if err != nil || res.List != tc.list || !reflect.DeepEqual(subjects(res.Tasks), tc.want) {
			t.Errorf("%s: %s %v, want %s %v (%v)", tc.flow, res.List, subjects(res.Tasks), tc.list, tc.want, err)
		}
		chk, err := s.Check(context.Background())
		if err != nil || chk.Lines == 0 || chk.Entries["session_meta"] != 1 {
			t.Errorf("%s: check %+v, %v", tc.flow, chk, err)
		}
		if tc.skip != "" && (len(chk.Skipped) != 1 || !strings.Contains(chk.Skipped[0].Reason, tc.skip)) {
			t.Errorf("%s: skipped %+v", tc.flow, chk.Skipped)
		}
		// a rollout is read, never written
		if _, err := s.Create(context.Background(), "x", ""); err == nil || !strings.Contains(err.Error(), "Codex rollout") {
			t.Errorf("%s: a write to the rollout was not refused: %v", tc.flow, err)
		}
	}
}

// cutRollout copies a rollout's first n lines beside its siblings, as Codex had written it then.
func cutRollout(t *testing.T, src string, n int) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "sessions", "2026", "12", "01")
	os.MkdirAll(dir, 0o755)
	for _, p := range append(rolloutsBeside(src), src) {
		data, _ := os.ReadFile(p)
		if p == src {
			lines := strings.SplitAfter(string(data), "\n")
			data = []byte(strings.Join(lines[:min(n, len(lines))], ""))
		}
		os.WriteFile(filepath.Join(dir, filepath.Base(p)), data, 0o644)
	}
	return filepath.Join(dir, filepath.Base(src))
}

func rolloutsBeside(p string) []string {
	all, _ := filepath.Glob(filepath.Join(filepath.Dir(p), "rollout-*.jsonl"))
	var out []string
	for _, q := range all {
		if q != p {
			out = append(out, q)
		}
	}
	return out
}

func codexHook(t *testing.T, ws *workspace.Workspace, event, source, session, rollout string) string {
	t.Helper()
	in, _ := json.Marshal(HookInput{Event: event, Source: source, Trigger: "auto", SessionID: session, TranscriptPath: rollout, Cwd: ws.Root})
	out, err := Hook(context.Background(), Codex, in, "", time.Second, HookEnv{Now: time.Now()})
	if err != nil {
		t.Fatalf("codex %s %s: %v", event, source, err)
	}
	return context_(t, out)
}

func TestRecordedCodexHooks(t *testing.T) {
	ws := lineageWorkspace(t)
	// the fork's SessionStart: its rollout holds only its session_meta, which names the parent;
	// the plan shown is the parent's at the fork, in update_plan's words
	fork := rollouts(t, "fork")[1]
	text := codexHook(t, ws, "SessionStart", "fork", "01a233be-9862-7ca0-bec1-58e7a23d2014", cutRollout(t, fork, 1))
	if !strings.Contains(text, "This session is a fork of session 01a233be-931b-76b1-b29b-da5a06f3cbbe") ||
		!strings.Contains(text, "update_plan, which takes the whole list each call") || !strings.Contains(text, "- #1 [in_progress] One") ||
		!strings.Contains(text, "- #2 [pending] Two") || strings.Contains(text, "Branch only") {
		t.Errorf("fork: %q", text)
	}
	// after an auto-compaction the plan as it stood is put back; PreCompact answers nothing (Codex
	// shows none of a PreCompact hook's output to the model or the compaction)
	ac := rollouts(t, "auto-compact")[0]
	data, _ := os.ReadFile(ac)
	lines := strings.SplitAfter(string(data), "\n")
	at := 0
	for i, l := range lines {
		if strings.Contains(l, `"type": "compacted"`) || strings.Contains(l, `"type":"compacted"`) {
			at = i + 1
		}
	}
	if at == 0 {
		t.Fatal("no compacted record")
	}
	cut := cutRollout(t, ac, at)
	id := "01a233be-7760-7c32-b636-281ae3176076"
	text = codexHook(t, ws, "SessionStart", "compact", id, cut)
	if !strings.Contains(text, "cairn restored this session's task list after a compaction.") || !strings.Contains(text, "Codex's plan (update_plan): 2 tasks") {
		t.Errorf("compact: %q", text)
	}
	if out := codexHook(t, ws, "PreCompact", "", id, cut); out != "" {
		t.Errorf("PreCompact answered %q", out)
	}
	// cairn's own list in a Codex session: the MCP server wrote sessions/<id>.jsonl (the id each
	// call names); after a compaction it is shown with the names Codex gives cairn's tools
	mcp := rollouts(t, "mcp")[0]
	sid := "01a233be-9f87-7881-b01b-ab8823443852"
	create(t, bound(t, ws, sid), "From MCP", "Second")
	text = codexHook(t, ws, "SessionStart", "compact", sid, mcp)
	if !strings.Contains(text, "mcp__cairn__TaskUpdate; status pending, inprogress, completed, deleted") || !strings.Contains(text, "- #2 [pending] Second") {
		t.Errorf("cairn's list under Codex: %q", text)
	}
}

// FuzzReplayCodex: any rollout replays into stores whose ids are positive and unique and whose
// statuses are valid, in both lists, and a fork's parent is read only from beside the rollout.
func FuzzReplayCodex(f *testing.F) {
	for _, flow := range []string{"plan", "mcp", "update-plan-offered"} {
		paths, _ := filepath.Glob(filepath.Join(codexDir, flow, "sessions", "*", "*", "*", "rollout-*.jsonl"))
		for _, p := range paths {
			data, _ := os.ReadFile(p)
			f.Add(string(data))
		}
	}
	plan := func(steps string) string {
		return `{"type":"response_item","payload":{"type":"function_call","name":"update_plan","arguments":"{\"plan\":[` + steps + `]}","call_id":"c"}}` + "\n"
	}
	f.Add(plan(`{\"step\":\"a\",\"status\":\"pending\"},{\"step\":\"a\",\"status\":\"completed\"}`) + plan(`{\"step\":\"b\",\"status\":\"in_progress\"}`) + plan(`{\"step\":\"a\",\"status\":\"pending\"}`))
	f.Add(`{"type":"session_meta","payload":{"id":"x","forked_from_id":"../../etc"}}` + "\n")
	path := filepath.Join(f.TempDir(), "sessions", "2026", "12", "01", "rollout-x.jsonl")
	f.Fuzz(func(t *testing.T, log string) {
		r := NewReplayer()
		r.Want = ListCairn
		r.Also = map[string]*Replayer{ListPlan: NewReplayer()}
		if err := replayCodex(strings.NewReader(log), path, r, Stop{}, &Counts{ByType: map[string]int{}}); err != nil {
			return
		}
		for _, rr := range []*Replayer{r, r.Also[ListPlan]} {
			prev := 0
			for _, tk := range rr.Store.Tasks() {
				if tk.TaskID <= prev || CheckStatus(tk.Status) != nil {
					t.Fatalf("bad %s store: %+v", rr.List, rr.Store.Tasks())
				}
				prev = tk.TaskID
			}
		}
	})
}
