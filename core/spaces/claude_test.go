package spaces

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/core/claudecode"
	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/workspace"
)

const (
	ccProject = "-home-me-src-tinylink"
	ccSession = "5d0c1a2e-7f3b-4c55-9a10-2b1e8c4d9f01"
	ccOther   = "9e8f7a6b-1111-4222-8333-444455556666"
	ccSpace   = "claude-code/" + ccProject
)

// claudeCopy copies fixtures/claude-projects into a temporary folder and returns the project folder.
func claudeCopy(t *testing.T) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "projects")
	if err := os.CopyFS(dst, os.DirFS(filepath.Join("..", "..", "fixtures", "claude-projects"))); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dst, ccProject)
}

func importClaude(t *testing.T, ws *workspace.Workspace, paths ...string) ClaudeReport {
	t.Helper()
	st, err := Open(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rep, err := st.ImportClaude(context.Background(), paths, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.IntegrityCheck(); err != nil {
		t.Fatalf("integrity-check after import: %v", err)
	}
	return rep
}

// dump is every comment row (id, task, space, kind, index text), ordered, to compare stores.
func claudeDump(t *testing.T, ws *workspace.Workspace) []string {
	t.Helper()
	st, err := OpenRead(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rows, err := st.db.Query(`SELECT id || '|' || task || '|' || space || '|' || kind || '|' || progress_type || '|' || tool_name || '|' || author || '|' || created_at || '|' || body || '|' || attachments || '|' || COALESCE(itext, '-') FROM comments ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	rows.Close()
	trows, err := st.db.Query(`SELECT id || '|' || space || '|' || title || '|' || COALESCE(parent, '-') || '|' || created_at FROM tasks ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer trows.Close()
	for trows.Next() {
		var s string
		if err := trows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, "task "+s)
	}
	return out
}

func TestImportClaudeAndReimport(t *testing.T) {
	dir := claudeCopy(t)
	ws := newWorkspace(t)
	rep := importClaude(t, ws, dir)
	if rep.Files != 3 || rep.Read != 3 || rep.Unchanged != 0 || rep.Spaces != 1 || rep.Tasks != 3 || rep.Comments != 14 || len(rep.BadLines) != 0 {
		t.Fatalf("first import: %+v", rep)
	}
	before := claudeDump(t, ws)
	rep = importClaude(t, ws, dir)
	if rep.Files != 3 || rep.Unchanged != 3 || rep.Read+rep.Resumed != 0 || rep.Comments != 0 || rep.Lines != 0 || rep.Bytes != 0 {
		t.Fatalf("second import should read nothing: %+v", rep)
	}
	if after := claudeDump(t, ws); !reflect.DeepEqual(before, after) {
		t.Fatalf("second import changed the store")
	}
	joined := strings.Join(before, "\n")
	for _, want := range []string{
		"task " + ccSession + "|" + ccSpace + "|ログイン画面の改修をお願いします。|-|2026-06-20T10:00:00Z",
		"task " + ccSession + "/agent-a1b2c3d4|" + ccSpace + "|subagent: List the files of the login screen|" + ccSession + "|",
		"task " + ccOther + "|" + ccSpace + "|Add rate limiting to the shortener API|-|",
		"[]|tool: read\n", // the tool name only
		"[redacted] です",   // the key in the prompt is redacted in the index text
	} {
		if !strings.Contains(joined, want) {
			t.Errorf("store lacks %q:\n%s", want, joined)
		}
	}
	if strings.Contains(joined, "hunter2") {
		t.Errorf("a tool result was stored:\n%s", joined)
	}
	st, err := OpenRead(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var name, owner, source string
	if err := st.db.QueryRow(`SELECT name, owner, source FROM spaces WHERE id = ?`, ccSpace).Scan(&name, &owner, &source); err != nil {
		t.Fatal(err)
	}
	if name != "/home/me/src/tinylink" || owner != LocalAccount || source != SourceClaudeCode {
		t.Errorf("space %q %q %q", name, owner, source)
	}
}

// TestImportClaudeAppended: a transcript that grew is read from where the last import stopped,
// and the store ends as a fresh import of the whole file would leave it.
func TestImportClaudeAppended(t *testing.T) {
	dir := claudeCopy(t)
	path := filepath.Join(dir, ccSession+".jsonl")
	full, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(full), "\n")
	cut := 8 // metadata and noise, the first prompt, thinking and a tool call
	head := strings.Join(lines[:cut], "")
	// the first import sees the head and half of the next line, still being written
	if err := os.WriteFile(path, []byte(head+lines[cut][:30]), 0o644); err != nil {
		t.Fatal(err)
	}
	ws := newWorkspace(t)
	rep := importClaude(t, ws, path)
	if rep.Lines != cut || rep.Comments != 3 || rep.Bytes != int64(len(head)) || len(rep.BadLines) != 0 {
		t.Fatalf("first part: %+v", rep)
	}
	if err := os.WriteFile(path, full, 0o644); err != nil {
		t.Fatal(err)
	}
	rep = importClaude(t, ws, path)
	newLines := strings.Count(string(full), "\n") - cut
	if rep.Resumed != 1 || rep.Read != 0 || rep.Lines != newLines || rep.Bytes != int64(len(full)-len(head)) || rep.Comments != 6 {
		t.Fatalf("appended part: %+v (want %d lines)", rep, newLines)
	}
	fresh := newWorkspace(t)
	importClaude(t, fresh, path)
	if got, want := claudeDump(t, ws), claudeDump(t, fresh); !reflect.DeepEqual(got, want) {
		t.Fatalf("resumed import differs from a fresh one:\n%s\n---\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// nothing new: nothing read
	if rep := importClaude(t, ws, path); rep.Unchanged != 1 || rep.Comments != 0 {
		t.Fatalf("third import: %+v", rep)
	}
}

// TestImportClaudeRewritten: a transcript replaced by other content is read again from the start.
func TestImportClaudeRewritten(t *testing.T) {
	dir := claudeCopy(t)
	path := filepath.Join(dir, ccOther+".jsonl")
	ws := newWorkspace(t)
	importClaude(t, ws, path)
	other := `{"type":"user","uuid":"66666666-0000-4000-8000-000000000001","timestamp":"2026-06-22T08:00:00Z","sessionId":"` + ccOther + `","message":{"role":"user","content":"Rewrite the whole README in a playful tone, then add badges"}}` + "\n"
	if err := os.WriteFile(path, []byte(other), 0o644); err != nil {
		t.Fatal(err)
	}
	rep := importClaude(t, ws, path)
	if rep.Read != 1 || rep.Resumed != 0 || rep.Comments != 1 || rep.Lines != 1 {
		t.Fatalf("rewritten file: %+v", rep)
	}
	a := search(t, ws, Caller{}, SearchInput{Query: "playful"})
	if got := refs(a); !reflect.DeepEqual(got, []string{"comment:66666666-0000-4000-8000-000000000001"}) {
		t.Fatalf("hits %v", got)
	}
}

// TestClaudeLocalSearch: a space imported from Claude Code is searched by the local account with
// no user; --task or the Claude Code session leaves that session out; other spaces keep the rules.
func TestClaudeLocalSearch(t *testing.T) {
	ws := fixtureWorkspace(t)
	importClaude(t, ws, claudeCopy(t))
	sessionHits := []string{"comment:22222222-0000-4000-8000-000000000005", "comment:11111111-0000-4000-8000-000000000004"}
	cases := []struct {
		name   string
		caller Caller
		query  string
		want   []string
	}{
		{"no user, no task: every Claude Code space, nothing excluded", Caller{}, "認証", sessionHits},
		{"the current task is left out", Caller{Task: ccSession}, "認証", []string{}},
		{"another session of the project", Caller{Task: "task:" + ccOther}, "認証", sessionHits},
		{"the Claude Code session is left out", Caller{ClaudeSession: ccSession}, "認証", []string{}},
		{"a session not imported excludes nothing", Caller{ClaudeSession: "0000aaaa-0000-4000-8000-000000000000"}, "認証", sessionHits},
		{"--task wins over the session", Caller{Task: ccOther, ClaudeSession: ccSession}, "認証", sessionHits},
		{"English term, a subagent's comments too", Caller{}, "web/login.tsx",
			[]string{"comment:44444444-0000-4000-8000-000000000003"}},
		{"tool names only", Caller{}, "glob", []string{"comment:44444444-0000-4000-8000-000000000002"}},
		{"tool arguments never hit", Caller{}, "zebrafish", []string{}},
		{"tool results never hit", Caller{}, "secretword", []string{}},
		{"the local account named as user", Caller{User: LocalAccount, Task: ccOther}, "認証", sessionHits},
	}
	for _, c := range cases {
		a := search(t, ws, c.caller, SearchInput{Query: c.query})
		if a.Search == nil {
			t.Errorf("%s: not a search answer: %+v", c.name, a.Unavailable)
			continue
		}
		if got := refs(a); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
	// around_ref drills into a past session, raw
	a := search(t, ws, Caller{}, SearchInput{Around: "comment:22222222-0000-4000-8000-000000000005", Context: 1})
	if a.Around == nil || a.Around.Task != "task:"+ccSession || len(a.Around.Comments) != 3 || !a.Around.Comments[1].Target {
		t.Fatalf("around: %+v", a.Around)
	}
	if b := a.Around.Comments[0].Body; !strings.Contains(b, "summarized below") {
		t.Errorf("around neighbour body %q", b)
	}
	if _, err := SearchWorkspaceTasks(context.Background(), ws, Caller{ClaudeSession: ccSession}, SearchInput{Around: "comment:22222222-0000-4000-8000-000000000005"}); errs.CodeOf(err) != errs.NotFound {
		t.Errorf("around into the current session: %v", err)
	}
	if _, err := SearchWorkspaceTasks(context.Background(), ws, Caller{}, SearchInput{Around: "comment:88"}); errs.CodeOf(err) != errs.NotFound {
		t.Errorf("around into a space not from Claude Code, no user: %v", err)
	}
	// the other spaces keep their rules
	for _, c := range []Caller{{Task: "16"}, {Task: ccSession + "/agent-a1b2c3d4"}, {Subtask: true}, {Task: "777"}} {
		if a := search(t, ws, c, SearchInput{Query: "認証"}); a.Unavailable == nil {
			t.Errorf("caller %+v: want not available, got %v", c, refs(a))
		}
	}
	if _, err := SearchWorkspaceTasks(context.Background(), ws, Caller{User: "mallory", Task: ccOther}, SearchInput{Query: "認証"}); errs.CodeOf(err) != errs.Forbidden {
		t.Errorf("another user in the local account's space: %v", err)
	}
}

// TestClaudeLocalSearchNoSpace: with no user and no Claude Code space, search is not available.
func TestClaudeLocalSearchNoSpace(t *testing.T) {
	for _, ws := range []*workspace.Workspace{newWorkspace(t), fixtureWorkspace(t)} {
		if a := search(t, ws, Caller{}, SearchInput{Query: "認証"}); a.Unavailable == nil {
			t.Errorf("want not available, got %v", refs(a))
		}
	}
}

// TestClaudeLocalSearchMerges: hits of several Claude Code spaces come newest first, limited.
func TestClaudeLocalSearchMerges(t *testing.T) {
	root := filepath.Dir(claudeCopy(t))
	second := filepath.Join(root, "-home-me-src-other")
	if err := os.MkdirAll(second, 0o755); err != nil {
		t.Fatal(err)
	}
	line := `{"type":"user","uuid":"77777777-0000-4000-8000-000000000001","timestamp":"2026-06-20T10:10:00Z","cwd":"/home/me/src/other","sessionId":"77777777-aaaa-4000-8000-000000000000","message":{"role":"user","content":"認証 の仕組みを説明して"}}` + "\n"
	if err := os.WriteFile(filepath.Join(second, "77777777-aaaa-4000-8000-000000000000.jsonl"), []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	ws := newWorkspace(t)
	if rep := importClaude(t, ws, root); rep.Spaces != 2 {
		t.Fatalf("%+v", rep)
	}
	a := search(t, ws, Caller{}, SearchInput{Query: "認証"})
	want := []string{"comment:22222222-0000-4000-8000-000000000005", "comment:77777777-0000-4000-8000-000000000001", "comment:11111111-0000-4000-8000-000000000004"}
	if got := refs(a); !reflect.DeepEqual(got, want) || a.Search.Truncated {
		t.Fatalf("got %v truncated %v, want %v", got, a.Search.Truncated, want)
	}
	a = search(t, ws, Caller{}, SearchInput{Query: "認証", Limit: 2})
	if got := refs(a); !reflect.DeepEqual(got, want[:2]) || !a.Search.Truncated {
		t.Fatalf("limit 2: got %v truncated %v", got, a.Search.Truncated)
	}
	// with the session of one project, only that project's other sessions
	a = search(t, ws, Caller{Task: ccOther}, SearchInput{Query: "認証"})
	if got := refs(a); !reflect.DeepEqual(got, []string{want[0], want[2]}) {
		t.Fatalf("one project: %v", got)
	}
}

func TestImportClaudeBadInput(t *testing.T) {
	ws := newWorkspace(t)
	st, err := Open(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	txt := filepath.Join(t.TempDir(), "notes.txt")
	os.WriteFile(txt, []byte("hello"), 0o644)
	for _, p := range []string{filepath.Join(t.TempDir(), "missing"), txt} {
		if _, err := st.ImportClaude(context.Background(), []string{p}, nil); errs.CodeOf(err) != errs.Invalid {
			t.Errorf("%s: %v", p, err)
		}
	}
	// a transcript with a bad line: reported by file and number, the rest loads
	dir := filepath.Join(t.TempDir(), "-p")
	os.MkdirAll(dir, 0o755)
	bad := "{not json\n" + `{"type":"user","uuid":"88888888-0000-4000-8000-000000000001","timestamp":"yesterday","message":{"content":"x"}}` + "\n" +
		`{"type":"user","uuid":"88888888-0000-4000-8000-000000000002","timestamp":"2026-06-20T10:00:00Z","message":{"content":"kept prompt"}}` + "\n"
	f := filepath.Join(dir, "s1.jsonl")
	os.WriteFile(f, []byte(bad), 0o644)
	rep, err := st.ImportClaude(context.Background(), []string{dir}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Comments != 1 || len(rep.BadLines) != 2 || rep.BadLines[0].Line != 1 || rep.BadLines[1].Line != 2 || rep.BadLines[0].File != f {
		t.Fatalf("%+v", rep)
	}
}

func TestClaudeIDsLongProject(t *testing.T) {
	long := "-home-me-" + strings.Repeat("ディレクトリ-", 30)
	a, _, _ := ClaudeIDs(claudecode.File{Project: long, Session: "s"})
	b, _, _ := ClaudeIDs(claudecode.File{Project: long + "x", Session: "s"})
	if err := checkID("space", a); err != nil || a == b || !strings.HasPrefix(string(a), claudeSpacePrefix+"-home-me-") {
		t.Fatalf("%q %q %v", a, b, err)
	}
	if s, task, parent := ClaudeIDs(claudecode.File{Project: "-p", Session: "s1", Agent: "a9"}); s != "claude-code/-p" || task != "s1/agent-a9" || parent != "s1" {
		t.Fatalf("%q %q %q", s, task, parent)
	}
}

// TestImportClaudeResumedSession: Claude Code appends a resumed session (claude --resume) to the
// same transcript; a transcript recorded from the real program, cut before the resumed prompt, is
// imported, then the whole: the second import reads only the resumed part and the store ends as a
// fresh import of the whole transcript leaves it.
func TestImportClaudeResumedSession(t *testing.T) {
	const session = "94cead10-cdbb-4574-b3cd-d9ce040db738"
	full, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "claude-code-real", "-home-user-project", session+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(full), "\n")
	cut := -1
	for i, l := range lines {
		if strings.Contains(l, `"type":"queue-operation"`) && strings.Contains(l, "SCENARIO-D resume the job") {
			cut = i
		}
	}
	if cut < 1 {
		t.Fatal("the fixture has no resumed prompt")
	}
	dir := filepath.Join(t.TempDir(), "-home-user-project")
	os.MkdirAll(dir, 0o755)
	path := filepath.Join(dir, session+".jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines[:cut], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	ws := newWorkspace(t)
	first := importClaude(t, ws, dir)
	if first.Read != 1 || first.Lines != cut || first.Comments == 0 {
		t.Fatalf("first run: %+v", first)
	}
	if a := search(t, ws, Caller{}, SearchInput{Query: "resume the job"}); len(refs(a)) != 0 {
		t.Fatalf("the resumed prompt is not there yet: %v", refs(a))
	}
	if err := os.WriteFile(path, full, 0o644); err != nil {
		t.Fatal(err)
	}
	second := importClaude(t, ws, dir)
	if second.Resumed != 1 || second.Lines != strings.Count(string(full), "\n")-cut || second.Bytes != int64(len(full)-len(strings.Join(lines[:cut], ""))) || second.Comments == 0 {
		t.Fatalf("resumed run: %+v", second)
	}
	a := search(t, ws, Caller{}, SearchInput{Query: "resume the job"})
	if len(refs(a)) != 1 || a.Search.Hits[0].TaskTitle != "SCENARIO-D start the job" {
		t.Fatalf("resumed prompt: %+v", a.Search)
	}
	fresh := newWorkspace(t)
	whole := importClaude(t, fresh, dir)
	if whole.Comments != first.Comments+second.Comments {
		t.Errorf("comments %d + %d, fresh %d", first.Comments, second.Comments, whole.Comments)
	}
	if got, want := claudeDump(t, ws), claudeDump(t, fresh); !reflect.DeepEqual(got, want) {
		t.Fatalf("resumed import differs from a fresh one:\n%s\n---\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A session title is cut to claudecode.TitleRunes after redaction: a secret that straddles the cut
// is still recognised, so no fragment of it reaches the title shown or kept.
func TestClaudeTitleRedactedBeforeCut(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "-home-me-src-keys")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	prompt := strings.Repeat("deploy ", 9) + "with AKIAIOSFODNN7EXAMPLE and ghp_abcdefghijklmnopqrstuvwxyz0123456789 today"
	line := `{"parentUuid":null,"isSidechain":false,"type":"user","uuid":"aaaaaaaa-0000-4000-8000-000000000001","sessionId":"aaaaaaaa-1111-4000-8000-000000000001","cwd":"/home/me/src/keys","timestamp":"2026-11-01T10:00:00Z","message":{"role":"user","content":"` + prompt + `"}}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, "aaaaaaaa-1111-4000-8000-000000000001.jsonl"), []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	ws := newWorkspace(t)
	importClaude(t, ws, dir)
	st, err := OpenRead(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var title, dtitle string
	if err := st.db.QueryRow(`SELECT title, COALESCE(dtitle, '') FROM tasks`).Scan(&title, &dtitle); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{title, dtitle} {
		if strings.Contains(s, "AKIA") || strings.Contains(s, "ghp_") || !strings.Contains(s, "[REDACTED]") ||
			!strings.HasPrefix(s, "deploy deploy") {
			t.Errorf("title %q", s)
		}
	}
}
