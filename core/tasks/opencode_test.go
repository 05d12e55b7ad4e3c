package tasks

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/opencode"
	"github.com/cairn-dev/cairn/core/opencode/opencodetest"
	"github.com/cairn-dev/cairn/core/workspace"
	"github.com/cairn-dev/cairn/core/workspace/workspacetest"
)

// openCodeDB builds the database of a recording in a temporary folder.
func openCodeDB(t *testing.T, scenario string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "opencode.db")
	opencodetest.Build(t, scenario, path, nil)
	return path
}

func openCodeSession(db, id, list string) *Session {
	s := NewSession(db, 0)
	s.Format, s.Runtime, s.Which = FormatOpenCode, id, list
	return s
}

// the list as todowrite's todo rows spell it: content and status, by position
func todoRowsOf(t *testing.T, db, session string) []string {
	t.Helper()
	d, err := opencode.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	rows, err := d.Todos(context.Background(), session)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range rows {
		out = append(out, r.Content+"="+r.Status)
	}
	return out
}

// the replayed list in the last todowrite's order, spelt as the todo rows are
func todowriteOf(r *Replayer) []string {
	var out []string
	if r.plan == nil {
		return nil
	}
	v := VoiceFor(ListTodowrite, "")
	for _, id := range r.plan.ids {
		t, _ := r.Store.Get(id)
		out = append(out, t.Subject+"="+v.status(t.Status))
	}
	return out
}

// The recorded todowrite sessions (OpenCode 1.18.33): the list cairn replays from the parts is
// the database's own todo rows, and each item keeps its id across the three writes.
func TestRecordedOpenCodeTodowrite(t *testing.T) {
	db := openCodeDB(t, "todowrite")
	ctx := context.Background()
	origin, fork := "ses_dcb6a13d3ffe00000000000001", "ses_dcb69e8beffe00000000000002"
	for _, id := range []string{origin, fork} {
		r, err := openCodeSession(db, id, ListAuto).Replay(ctx, Stop{})
		if err != nil {
			t.Fatal(err)
		}
		if r.List != ListTodowrite {
			t.Errorf("%s: list %q, want todowrite", id, r.List)
		}
		if got, want := strings.Join(todowriteOf(r), "; "), strings.Join(todoRowsOf(t, db, id), "; "); got != want {
			t.Errorf("%s: replayed %s\n  todo rows %s", id, got, want)
		}
	}
	r, _ := openCodeSession(db, origin, ListTodowrite).Replay(ctx, Stop{})
	got := map[string]int{}
	for _, tk := range r.Store.Tasks() {
		got[tk.Subject+"="+tk.Status] = tk.TaskID
	}
	// "Add CLI" (3) was replaced at its position by "Write docs": the rule of Codex's plan
	// takes it as reworded, so the item keeps id 3
	want := map[string]int{"Parse config=completed": 1, "Write store=inprogress": 2, "Write docs=pending": 3}
	if len(got) != len(want) {
		t.Fatalf("origin's list %v, want %v", got, want)
	}
	for k, id := range want {
		if got[k] != id {
			t.Errorf("origin: %s has id %d, want %d (%v)", k, got[k], id, got)
		}
	}
	// the fork copied the origin's calls, then wrote its own list: Write docs was dropped
	r, _ = openCodeSession(db, fork, ListTodowrite).Replay(ctx, Stop{})
	var lines []string
	for _, tk := range r.Store.Tasks() {
		lines = append(lines, tk.Subject+"="+tk.Status)
	}
	if s := strings.Join(lines, ", "); s != "Parse config=completed, Fork only step=inprogress, Write docs=deleted" {
		t.Errorf("fork's list: %s", s)
	}
	// the fork point: the origin's two messages' copies
	d, _ := opencode.Open(ctx, db)
	defer d.Close()
	fs, _ := d.Session(ctx, fork)
	if p, n, err := d.ForkParent(ctx, fs); p != origin || n < 2 || err != nil {
		t.Errorf("fork parent %q after %d messages, %v; want %s", p, n, err, origin)
	}
	os_, _ := d.Session(ctx, origin)
	if p, _, _ := d.ForkParent(ctx, os_); p != "" {
		t.Errorf("the origin has a parent: %s", p)
	}
}

// A fork that wrote no list of its own: OpenCode gives it no todo rows, but its copied history
// holds the origin's todowrite calls, which the model reads; cairn's list is that one.
func TestRecordedOpenCodeForkNoTodo(t *testing.T) {
	db := openCodeDB(t, "fork-notodo")
	r, err := openCodeSession(db, "ses_dcb693a5effe00000000000002", ListAuto).Replay(context.Background(), Stop{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(todowriteOf(r), "; "); got != "Origin step one=in_progress; Origin step two=pending" {
		t.Errorf("fork's list: %s", got)
	}
	if rows := todoRowsOf(t, db, "ses_dcb693a5effe00000000000002"); len(rows) != 0 {
		t.Errorf("the fork has todo rows: %v", rows)
	}
}

// cairn's tools as OpenCode recorded them (mcp: TaskCreate ×2, TaskUpdate, TaskList): the
// database holds the calls and cairn's answers; --list cairn replays them.
func TestRecordedOpenCodeCairnCalls(t *testing.T) {
	db := openCodeDB(t, "mcp")
	d, err := opencode.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	ss, _ := d.Sessions(context.Background())
	d.Close()
	if len(ss) == 0 {
		t.Fatal("no sessions")
	}
	r, err := openCodeSession(db, ss[0].ID, ListAuto).Replay(context.Background(), Stop{})
	if err != nil {
		t.Fatal(err)
	}
	if r.List != ListCairn || r.MCPPrefix != "cairn_" || r.Store.Summary().Total != 2 {
		t.Errorf("list %q prefix %q: %+v skips %v", r.List, r.MCPPrefix, r.Store.Tasks(), r.Skips)
	}
}

func TestOpenCodeDatabaseIsOnlyRead(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "opencode.db")
	opencodetest.Build(t, "todowrite", path, nil)
	entries := func() []string {
		es, _ := os.ReadDir(dir)
		var out []string
		for _, e := range es {
			out = append(out, e.Name())
		}
		sort.Strings(out)
		return out
	}
	id := "ses_dcb6a13d3ffe00000000000001"
	before, _ := os.ReadFile(path)
	// closed cleanly: no -wal, no -shm; cairn makes none
	if _, err := openCodeSession(path, id, ListAuto).Replay(ctx, Stop{}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(entries(), " "); got != "opencode.db" {
		t.Errorf("files beside the database after a read: %s", got)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Error("the database changed")
	}
	// OpenCode running: its writer holds the WAL; cairn reads through it, changes neither the
	// database nor the -wal, and a write while cairn reads goes through
	writer := opencodetest.Writer(t, path)
	defer writer.Close()
	if _, err := writer.Exec("PRAGMA wal_autocheckpoint=0"); err != nil {
		t.Fatal(err)
	}
	if _, err := writer.Exec("UPDATE todo SET status='completed' WHERE session_id=? AND position=1", id); err != nil {
		t.Fatal(err)
	}
	wal0, _ := os.ReadFile(path + "-wal")
	main0, _ := os.ReadFile(path)
	d, err := opencode.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := d.Todos(ctx, id)
	if err != nil || len(rows) != 3 || rows[1].Status != "completed" {
		t.Fatalf("read through the WAL: %+v %v", rows, err)
	}
	d.Close()
	if _, err := openCodeSession(path, id, ListAuto).Replay(ctx, Stop{}); err != nil {
		t.Fatal(err)
	}
	wal1, _ := os.ReadFile(path + "-wal")
	if main1, _ := os.ReadFile(path); string(main1) != string(main0) {
		t.Error("cairn's read changed the database")
	}
	if len(wal1) < len(wal0) || string(wal1[:len(wal0)]) != string(wal0) {
		t.Error("cairn's read changed the -wal")
	}
	if got := strings.Join(entries(), " "); got != "opencode.db opencode.db-shm opencode.db-wal" {
		t.Errorf("files beside the database: %s", got)
	}
}

func TestOpenCodeDatabaseErrors(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	torn := filepath.Join(dir, "torn.db")
	full := filepath.Join(dir, "full.db")
	opencodetest.Build(t, "todowrite", full, nil)
	data, _ := os.ReadFile(full)
	os.WriteFile(torn, data[:len(data)/3], 0o644)
	os.WriteFile(filepath.Join(dir, "text.db"), []byte("not a database at all, just text\n"), 0o644)
	for _, c := range []struct {
		path string
		code errs.Code
		want string
	}{
		{torn, errs.Invalid, "damaged"},
		{filepath.Join(dir, "text.db"), errs.Invalid, "not an SQLite database"},
		{filepath.Join(dir, "none.db"), errs.NotFound, "no OpenCode database"},
		{dir, errs.Invalid, "not a database file"},
	} {
		_, err := openCodeSession(c.path, "ses_dcb6a13d3ffe00000000000001", ListAuto).Replay(ctx, Stop{})
		if errs.CodeOf(err) != c.code || err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v (%s), want %s with %q", filepath.Base(c.path), err, errs.CodeOf(err).Name(), c.code.Name(), c.want)
		}
	}
	if _, err := openCodeSession(full, "ses_nothere0000000000000000", ListAuto).Replay(ctx, Stop{}); errs.CodeOf(err) != errs.NotFound {
		t.Errorf("unknown session: %v", err)
	}
	if err := openCodeSession(full, "ses_dcb6a13d3ffe00000000000001", ListAuto).update(ctx, nil); errs.CodeOf(err) != errs.Invalid || !strings.Contains(err.Error(), "never writes") {
		t.Errorf("a write: %v", err)
	}
}

func openCodeHookText(t *testing.T, ws *workspace.Workspace, db string, in OpenCodeHookInput) string {
	t.Helper()
	in.Database = db
	if ws != nil && in.Directory == "" {
		in.Directory = ws.Root
	}
	data, _ := json.Marshal(in)
	out, err := Hook(context.Background(), OpenCode, data, "", time.Second, HookEnv{Now: time.Now()})
	if err != nil {
		t.Fatalf("hook %s: %v", in.Event, err)
	}
	return out
}

// The recorded auto-compaction (compact): at experimental.session.compacting the database held
// the first todowrite; the hook's answer, which the plugin pushes into output.context (the end
// of the compaction prompt, compact/requests.jsonl), holds that list. After session.compacted
// the system prompt gets it back; on the resumed run 2 too.
func TestRecordedOpenCodeCompaction(t *testing.T) {
	const session = "ses_dcb681e5dffe00000000000001"
	var compactingAt float64
	data, _ := os.ReadFile(filepath.Join(opencodetest.Fixtures(), "compact", "plugin-log.json"))
	var plog []map[string]any
	if err := json.Unmarshal(data, &plog); err != nil {
		t.Fatal(err)
	}
	for _, e := range plog {
		if e["hook"] == "experimental.session.compacting" {
			compactingAt = e["time"].(float64)
			break
		}
	}
	if compactingAt == 0 {
		t.Fatal("no compacting hook in the recording")
	}
	db := filepath.Join(t.TempDir(), "opencode.db")
	opencodetest.Build(t, "compact", db, func(table string, row map[string]any) bool {
		at, _ := row["time_created"].(float64)
		return table == "session" || table == "todo" || at <= compactingAt
	})
	text := openCodeHookText(t, nil, db, OpenCodeHookInput{Event: OpenCodeCompacting, SessionID: session})
	for _, want := range []string{"carry the open tasks and their ids into the summary", "OpenCode's todo list (todowrite)", "#2 [in_progress] Summarise", "#1 [completed] Collect data", "0 cancelled"} {
		if !strings.Contains(text, want) {
			t.Errorf("compacting answer lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "mcp__cairn__") {
		t.Errorf("Claude Code's tool names in OpenCode:\n%s", text)
	}
	text = openCodeHookText(t, nil, db, OpenCodeHookInput{Event: OpenCodeSystem, SessionID: session, Compacted: true})
	if !strings.HasPrefix(text, "cairn restored this session's task list after a compaction.") || !strings.Contains(text, "Collect data") {
		t.Errorf("after the compaction:\n%s", text)
	}
	// the whole recording: run 2 resumed the session, whose list was all done by then
	full := openCodeDB(t, "compact")
	text = openCodeHookText(t, nil, full, OpenCodeHookInput{Event: OpenCodeSystem, SessionID: session})
	if !strings.HasPrefix(text, "cairn restored this session's task list on resume.") || !strings.Contains(text, "#2 [completed] Summarise") {
		t.Errorf("on resume:\n%s", text)
	}
}

// cairn's own list for an OpenCode session is its log, sessions/ses_….jsonl (what cairn mcp
// writes for a tagged call); a fork's first request starts the fork's log from its parent's.
func TestOpenCodeHookCairnListAndFork(t *testing.T) {
	ws := workspacetest.New(t)
	db := openCodeDB(t, "todowrite")
	origin, fork := "ses_dcb6a13d3ffe00000000000001", "ses_dcb69e8beffe00000000000002"
	ctx := context.Background()
	path, _ := SessionLogFor(ws, origin)
	s := NewSession(path, time.Second)
	if _, err := s.Create(ctx, "Ship the adapter", ""); err != nil {
		t.Fatal(err)
	}
	text := openCodeHookText(t, ws, db, OpenCodeHookInput{Event: OpenCodeSystem, SessionID: origin})
	for _, want := range []string{"Cairn's task list: 1 task", "#1 [pending] Ship the adapter", "cairn_TaskUpdate", "A separate list with its own ids", "OpenCode's todo list (todowrite)", "#3 [pending] Write docs"} {
		if !strings.Contains(text, want) {
			t.Errorf("origin's answer lacks %q:\n%s", want, text)
		}
	}
	text = openCodeHookText(t, ws, db, OpenCodeHookInput{Event: OpenCodeSystem, SessionID: fork})
	if !strings.HasPrefix(text, "This session is a fork of OpenCode session "+origin) || !strings.Contains(text, "Ship the adapter") || !strings.Contains(text, "Fork only step") {
		t.Errorf("fork's answer:\n%s", text)
	}
	fp, _ := SessionLogFor(ws, fork)
	r, err := NewSession(fp, time.Second).Replay(ctx, Stop{})
	if err != nil || r.Fork == nil || r.Store.NextID() != 2 {
		t.Errorf("the fork's log: %+v %v", r, err)
	}
	// a new session with nothing: no answer; a bad id or input: an error the command reports
	if got := openCodeHookText(t, ws, db, OpenCodeHookInput{Event: OpenCodeSystem, SessionID: "ses_unknown00000000000000001"}); got != "" {
		t.Errorf("new session: %q", got)
	}
	for _, in := range []string{`{"event":"experimental.chat.system.transform","session_id":"../x"}`, `not json`, `{}`} {
		if _, err := Hook(ctx, OpenCode, []byte(in), "", time.Second, HookEnv{Now: time.Now()}); err == nil {
			t.Errorf("%s: no error", in)
		}
	}
}
