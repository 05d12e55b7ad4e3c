package spaces

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/core/redact"
	"github.com/cairn-dev/cairn/core/textmatch"
	"github.com/cairn-dev/cairn/core/workspace"
)

// The rollouts of fixtures/spaces/codex (README.txt there): real Codex 0.171.0 recordings and one
// generated with planted secrets.
const (
	cxParent = "01a233be-931b-76b1-b29b-da5a06f3cbbe" // fork: the session forked from
	cxFork   = "01a233be-9862-7ca0-bec1-58e7a23d2014" // fork: the fork
	cxResume = "01a233be-87a7-7540-a6f2-9679cc16d744"
	cxSecret = "01a233be-5ec2-7e70-8000-000000000001"
	cxHooks  = "01a233be-ba83-70a3-a73b-982dc6732918"
	cxSpace  = "codex/-home-user-project"
	cxFiles  = 8
)

// codexCopy copies fixtures/spaces/codex/sessions into a temporary folder and returns it.
func codexCopy(t *testing.T) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "sessions")
	if err := os.CopyFS(dst, os.DirFS(filepath.Join("..", "..", "fixtures", "spaces", "codex", "sessions"))); err != nil {
		t.Fatal(err)
	}
	return dst
}

// codexPath is the rollout of a session under a copy.
func codexPath(t *testing.T, dir, session string) string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dir, "*", "*", "*", "rollout-*-"+session+".jsonl"))
	if len(m) != 1 {
		t.Fatalf("rollout of %s: %v", session, m)
	}
	return m[0]
}

func importCodex(t *testing.T, ws *workspace.Workspace, paths ...string) CodexReport {
	t.Helper()
	st, err := Open(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rep, err := st.ImportCodex(context.Background(), paths, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.IntegrityCheck(); err != nil {
		t.Fatalf("integrity-check after import: %v", err)
	}
	return rep
}

// taskComments are the comments of a task as "kind/progress_type/tool_name: body", in order.
func taskComments(t *testing.T, ws *workspace.Workspace, task string) []string {
	t.Helper()
	st, err := OpenRead(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rows, err := st.db.Query(`SELECT kind || '/' || progress_type || '/' || tool_name || ': ' || body FROM comments WHERE task = ? ORDER BY at_ns, idkey`, task)
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
	return out
}

// TestImportCodex imports the fixtures: one space for the working directory, one task per
// session, the prompts, answers, tool calls and compaction summaries as comments, nothing Codex
// injected; a second import opens nothing.
func TestImportCodex(t *testing.T) {
	dir := codexCopy(t)
	ws := newWorkspace(t)
	rep := importCodex(t, ws, dir)
	if rep.Files != cxFiles || rep.Read != cxFiles || rep.Tasks != cxFiles || rep.Spaces != 1 || rep.Comments == 0 ||
		len(rep.BadLines) != 0 || len(rep.Unknown) != 0 {
		t.Fatalf("first import: %+v", rep)
	}
	again := importCodex(t, ws, dir)
	if again.Unchanged != cxFiles || again.Read+again.Resumed != 0 || again.Comments != 0 || again.Lines != 0 || again.Tasks != 0 {
		t.Fatalf("second import: %+v", again)
	}

	// a resumed session (same file, appended) is one task with both runs
	want := []string{
		"request//: SCENARIO-RESUME start the job",
		`progress/tool/update_plan: {"plan": [{"step": "Alpha", "status": "in_progress"}, {"step": "Beta", "status": "pending"}, {"step": "Gamma", "status": "pending"}]}`,
		"result//: Started Alpha.",
		"request//: SCENARIO-RESUME continue the job",
		`progress/tool/update_plan: {"plan": [{"step": "Alpha", "status": "completed"}, {"step": "Beta", "status": "in_progress"}, {"step": "Gamma", "status": "pending"}]}`,
		"result//: Alpha done, Beta under way.",
	}
	if got := taskComments(t, ws, cxResume); !reflect.DeepEqual(got, want) {
		t.Errorf("resumed session:\n%s", strings.Join(got, "\n"))
	}

	// injected text (developer messages, environment context, hook context, the compaction
	// prompt and preamble) is not stored; the summary is, once
	st, err := OpenRead(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, s := range []string{"<environment_context>", "skills_instructions", "permissions instructions", "HOOK-", "Another language model", "CONTEXT CHECKPOINT", "collaboration_mode"} {
		var n int
		if err := st.db.QueryRow(`SELECT count(*) FROM comments WHERE instr(body, ?) > 0`, s).Scan(&n); err != nil || n != 0 {
			t.Errorf("%d comments hold %q (%v)", n, s, err)
		}
	}
	hooks := taskComments(t, ws, cxHooks)
	summaries := 0
	for _, c := range hooks {
		if strings.HasPrefix(c, "progress/summary/: SUMMARY-TEXT: hooks scenario.") {
			summaries++
		}
		if strings.Contains(c, "result//: SUMMARY-TEXT") {
			t.Errorf("the compaction's answer is kept as a result too: %q", c)
		}
	}
	if summaries != 1 {
		t.Errorf("hooks session: %d summaries\n%s", summaries, strings.Join(hooks, "\n"))
	}
	var title, name, source, owner string
	if err := st.db.QueryRow(`SELECT title FROM tasks WHERE id = ?`, cxResume).Scan(&title); err != nil || title != "SCENARIO-RESUME start the job" {
		t.Errorf("title %q (%v)", title, err)
	}
	if err := st.db.QueryRow(`SELECT name, source, owner FROM spaces WHERE id = ?`, cxSpace).Scan(&name, &source, &owner); err != nil ||
		name != "/home/user/project" || source != SourceCodex || owner != LocalAccount {
		t.Errorf("space %q %q %q (%v)", name, source, owner, err)
	}

	// MCP tools by namespace and name, as Claude Code names them
	a := search(t, ws, Caller{}, SearchInput{Query: "mcp__cairn__TaskCreate", Limit: 30})
	if len(a.Search.Hits) != 2 || a.Search.Hits[0].Excerpt != "tool: mcp__cairn__TaskCreate" {
		t.Errorf("MCP tool calls: %+v", a.Search.Hits)
	}
}

// A fork's rollout holds only its own records (history_base points into the parent's): the fork's
// task has its own prompt, tool call and answer, the parent's keeps its own, nothing twice.
func TestImportCodexFork(t *testing.T) {
	ws := newWorkspace(t)
	importCodex(t, ws, codexCopy(t))
	fork := taskComments(t, ws, cxFork)
	want := []string{
		"request//: SCENARIO-FORK branch off",
		`progress/tool/update_plan: {"plan": [{"step": "One", "status": "completed"}, {"step": "Two", "status": "in_progress"}, {"step": "Branch only", "status": "pending"}]}`,
		"result//: Forked and moved on.",
	}
	if !reflect.DeepEqual(fork, want) {
		t.Errorf("fork:\n%s", strings.Join(fork, "\n"))
	}
	parent := taskComments(t, ws, cxParent)
	if len(parent) != 3 || parent[0] != "request//: SCENARIO-FORK start" || parent[2] != "result//: Started One." {
		t.Errorf("parent:\n%s", strings.Join(parent, "\n"))
	}
	// the current session (the fork, by its id in Caller.ClaudeSession) is left out of a search:
	// its own prompt is not found, its parent's is, with the runtime, session and resume command
	a := search(t, ws, Caller{ClaudeSession: cxFork}, SearchInput{Query: "SCENARIO-FORK"})
	if len(a.Search.Hits) != 1 {
		t.Fatalf("hits %v", refs(a))
	}
	h := a.Search.Hits[0]
	if h.Task != "task:"+cxParent || h.Session != (Session{Runtime: "codex", Project: "/home/user/project", SessionID: cxParent, Resume: "codex resume " + cxParent}) {
		t.Errorf("hit %+v", h)
	}
	if got := refs(search(t, ws, Caller{}, SearchInput{Query: "SCENARIO-FORK"})); len(got) != 2 {
		t.Errorf("no current session: %v", got)
	}
	ar := search(t, ws, Caller{}, SearchInput{Around: h.Ref})
	if ar.Around.Session.Resume != "codex resume "+cxParent {
		t.Errorf("around %+v", ar.Around)
	}
}

// The planted secrets of a rollout's prompt: no fragment of 8 or more characters finds anything,
// and the excerpt and title show them redacted.
func TestImportCodexRedacts(t *testing.T) {
	ws := newWorkspace(t)
	importCodex(t, ws, codexCopy(t))
	caller := Caller{}
	for _, secret := range []string{"a1b2c3d4e5f60718293a", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"} {
		var frags []string
		for j := 0; j+8 <= len(secret); j++ {
			frags = append(frags, secret[j:j+8])
		}
		for _, frag := range frags {
			if got := refs(search(t, ws, caller, SearchInput{Query: frag})); len(got) > 0 {
				t.Errorf("%q: fragment %q finds %v", secret, frag, got)
			}
		}
		a := search(t, ws, caller, SearchInput{Query: "SCENARIO-SECRET"})
		if len(a.Search.Hits) != 1 {
			t.Fatalf("hits %v", refs(a))
		}
		h := a.Search.Hits[0]
		if !strings.Contains(h.Excerpt, redact.Placeholder) || !strings.Contains(h.TaskTitle, redact.Placeholder) {
			t.Errorf("excerpt %q, title %q", h.Excerpt, h.TaskTitle)
		}
		for _, frag := range frags {
			for _, shown := range []string{h.Excerpt, h.TaskTitle} {
				if strings.Contains(textmatch.Fold(shown), textmatch.Fold(frag)) {
					t.Errorf("%q: fragment %q shown in %q", secret, frag, shown)
				}
			}
		}
	}
}

// A torn last line (Codex still writing it) is left for the next import, which reads from there;
// the store ends as a fresh import of the whole file leaves it.
func TestImportCodexTornLine(t *testing.T) {
	dir := codexCopy(t)
	path := codexPath(t, dir, cxResume)
	full, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	at := strings.Index(string(full), "SCENARIO-RESUME continue the job")
	cut := at + 10
	if err := os.WriteFile(path, full[:cut], 0o644); err != nil {
		t.Fatal(err)
	}
	ws := newWorkspace(t)
	first := importCodex(t, ws, path)
	if len(first.BadLines) != 0 || first.Bytes != int64(strings.LastIndexByte(string(full[:cut]), '\n')+1) {
		t.Fatalf("torn: %+v", first)
	}
	if got := refs(search(t, ws, Caller{}, SearchInput{Query: "continue the job"})); len(got) != 0 {
		t.Fatalf("half a line imported: %v", got)
	}
	if err := os.WriteFile(path, full, 0o644); err != nil {
		t.Fatal(err)
	}
	second := importCodex(t, ws, path)
	if second.Resumed != 1 || second.Comments != 3 || len(second.BadLines) != 0 {
		t.Fatalf("resumed: %+v", second)
	}
	if got := refs(search(t, ws, Caller{}, SearchInput{Query: "continue the job"})); len(got) != 1 {
		t.Fatalf("after the rest: %v", got)
	}
	fresh := newWorkspace(t)
	importCodex(t, fresh, path)
	if got, want := claudeDump(t, ws), claudeDump(t, fresh); !reflect.DeepEqual(got, want) {
		t.Fatalf("resumed import differs from a fresh one:\n%s\n---\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Records of a newer Codex (unknown types, unknown response items) are skipped and counted; a line
// that is not JSON is a bad line named by its number; a rollout without session_meta is named
// after its file; the rest loads.
func TestImportCodexUnknownAndBad(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sessions", "2027", "01", "02")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	const id = "01a2ffff-0000-7000-8000-000000000002"
	lines := []string{
		`{"timestamp":"2027-01-02T10:00:00Z","ordinal":0,"type":"hologram","payload":{"x":1}}`,
		`{"timestamp":"2027-01-02T10:00:01Z","ordinal":1,"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"NEWER-CODEX prompt"}]}}`,
		`{"timestamp":"2027-01-02T10:00:02Z","ordinal":2,"type":"response_item","payload":{"type":"telepathy","content":"?"}}`,
		`not json at all`,
		`{"timestamp":"2027-01-02T10:00:03Z","ordinal":3,"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>\n<cwd>/x</cwd>\n</environment_context>"}]}}`,
		`{"timestamp":"yesterday","ordinal":4,"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"NEWER-CODEX lost"}]}}`,
		`{"timestamp":"2027-01-02T10:00:05Z","ordinal":5,"type":"response_item","payload":{"type":"reasoning","summary":[{"type":"summary_text","text":"NEWER-CODEX thought"}],"encrypted_content":"xyz"}}`,
		`{"timestamp":"2027-01-02T10:00:06Z","ordinal":6,"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"NEWER-CODEX answer"}]}}`,
	}
	path := filepath.Join(dir, "rollout-2027-01-02T10-00-00-"+id+".jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ws := newWorkspace(t)
	rep := importCodex(t, ws, filepath.Dir(filepath.Dir(filepath.Dir(dir))))
	if rep.Files != 1 || rep.Comments != 3 || rep.Lines != len(lines) ||
		!reflect.DeepEqual(rep.Unknown, map[string]int{"hologram": 1, "response_item/telepathy": 1}) {
		t.Fatalf("report %+v", rep)
	}
	if len(rep.BadLines) != 2 || rep.BadLines[0].Line != 4 || !strings.HasPrefix(rep.BadLines[0].Message, "not a JSON object") ||
		rep.BadLines[1].Line != 6 || !strings.Contains(rep.BadLines[1].Message, "RFC 3339") {
		t.Fatalf("bad lines %+v", rep.BadLines)
	}
	want := []string{"request//: NEWER-CODEX prompt", "progress/thinking/: NEWER-CODEX thought", "result//: NEWER-CODEX answer"}
	if got := taskComments(t, ws, id); !reflect.DeepEqual(got, want) {
		t.Errorf("comments:\n%s", strings.Join(got, "\n"))
	}
	a := search(t, ws, Caller{}, SearchInput{Query: "NEWER-CODEX"})
	if len(a.Search.Hits) != 3 || a.Search.Hits[0].SessionID != id || a.Search.Hits[0].TaskTitle != "NEWER-CODEX prompt" {
		t.Errorf("hits %+v", a.Search.Hits)
	}
}

// A file given outright must be a .jsonl; a folder is walked for rollout-*.jsonl only (history.jsonl
// beside sessions/ is not a rollout).
func TestImportCodexPaths(t *testing.T) {
	home := t.TempDir()
	if err := os.CopyFS(filepath.Join(home, "sessions"), os.DirFS(filepath.Join("..", "..", "fixtures", "spaces", "codex", "sessions"))); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "history.jsonl"), []byte(`{"session_id":"x","text":"HISTORY-LINE"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ws := newWorkspace(t)
	if rep := importCodex(t, ws, home); rep.Files != cxFiles || len(rep.BadLines) != 0 {
		t.Fatalf("report %+v", rep)
	}
	st, err := Open(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	txt := filepath.Join(home, "notes.txt")
	os.WriteFile(txt, []byte("x"), 0o644)
	if _, err := st.ImportCodex(context.Background(), []string{txt}, nil); err == nil || !strings.Contains(err.Error(), "not a Codex rollout") {
		t.Errorf("a .txt file: %v", err)
	}
	if _, err := st.ImportCodex(context.Background(), []string{filepath.Join(home, "missing")}, nil); err == nil {
		t.Errorf("a missing path imported")
	}
}

// Claude Code hits name their runtime, session (a subagent's: its session's) and resume command.
func TestSessionOf(t *testing.T) {
	cases := []struct {
		source, task string
		want         Session
	}{
		{SourceClaudeCode, ccSession, Session{"claude-code", "", ccSession, "claude --resume " + ccSession}},
		{SourceClaudeCode, ccSession + "/agent-a1b2", Session{"claude-code", "", ccSession, "claude --resume " + ccSession}},
		{SourceCodex, cxFork, Session{"codex", "", cxFork, "codex resume " + cxFork}},
		{SourceCodex, "x;rm -rf ~", Session{"codex", "", "x;rm -rf ~", "codex resume 'x;rm -rf ~'"}},
		{SourceCodex, "it's", Session{"codex", "", "it's", `codex resume 'it'\''s'`}},
		{"", "18", Session{}},
	}
	for _, c := range cases {
		if got := SessionOf(c.source, c.task); got != c.want {
			t.Errorf("SessionOf(%q, %q) = %+v, want %+v", c.source, c.task, got, c.want)
		}
	}
	ws := newWorkspace(t)
	importClaude(t, ws, claudeCopy(t))
	a := search(t, ws, Caller{}, SearchInput{Query: "rate limiting"})
	if len(a.Search.Hits) == 0 || a.Search.Hits[0].Resume != "claude --resume "+ccOther {
		t.Errorf("Claude Code hit %+v", a.Search.Hits)
	}
}
