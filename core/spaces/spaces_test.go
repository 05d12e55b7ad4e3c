package spaces

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/redact"
	"github.com/cairn-dev/cairn/core/workspace"
	"github.com/cairn-dev/cairn/core/workspace/workspacetest"
)

func fixturePath(t *testing.T) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "fixtures", "spaces", "space.jsonl")
}

// newWorkspace makes an empty workspace with a short lock wait.
func newWorkspace(t *testing.T) *workspace.Workspace {
	t.Helper()
	ws := workspacetest.New(t)
	ws.Wait = 300 * time.Millisecond
	return ws
}

// writeAtVersion writes spaces.db as a build at schema version v left it: that schema, then
// stmt (with args) run on it; the next open migrates it.
func writeAtVersion(t *testing.T, ws *workspace.Workspace, v int, stmt string, args ...any) {
	t.Helper()
	old, err := openPath(context.Background(), Path(ws), time.Second, migrations[:v], true)
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	if _, err := old.db.Exec(stmt, args...); err != nil {
		t.Fatal(err)
	}
}

func importText(t *testing.T, ws *workspace.Workspace, text string) ImportReport {
	t.Helper()
	st, err := Open(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rep, err := st.Import(context.Background(), strings.NewReader(text), int64(len(text)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.IntegrityCheck(); err != nil {
		t.Fatalf("integrity-check after import: %v", err)
	}
	return rep
}

// fixtureWorkspace is a workspace with fixtures/spaces/space.jsonl imported.
func fixtureWorkspace(t *testing.T) *workspace.Workspace {
	t.Helper()
	data, err := os.ReadFile(fixturePath(t))
	if err != nil {
		t.Fatal(err)
	}
	ws := newWorkspace(t)
	rep := importText(t, ws, string(data))
	if len(rep.BadLines) != 0 {
		t.Fatalf("fixture has bad lines: %+v", rep.BadLines)
	}
	return ws
}

var bob = Caller{User: "bob", Task: "16"}

func search(t *testing.T, ws *workspace.Workspace, c Caller, in SearchInput) Answer {
	t.Helper()
	a, err := SearchWorkspaceTasks(context.Background(), ws, c, in)
	if err != nil {
		t.Fatalf("search %v: %v", in, err)
	}
	return a
}

func refs(a Answer) []string {
	out := []string{}
	if a.Search != nil {
		for _, h := range a.Search.Hits {
			out = append(out, h.Ref)
		}
	}
	if a.Around != nil {
		for _, e := range a.Around.Comments {
			out = append(out, e.Ref)
		}
	}
	return out
}

func TestSearchRules(t *testing.T) {
	ws := fixtureWorkspace(t)
	cases := []struct {
		name  string
		query string
		want  []string
	}{
		{"two-character Japanese term, newest first, current task and other space excluded", "認証",
			[]string{"comment:301", "comment:96", "comment:95", "comment:91", "comment:88"}},
		{"one-character term", "鍵", []string{"comment:204"}},
		{"implicit AND, order free", "フロー 認証", []string{"comment:96", "comment:88"}},
		{"AND of a short and a long term", "ui 差し替え", []string{"comment:96", "comment:95", "comment:88"}},
		{"comment and interjection_ack are never indexed", "了解", []string{}},
		{"tool progress is indexed by name only", "webfetch", []string{"comment:90"}},
		{"tool arguments never hit", "oauth", []string{}},
		{"tool arguments never hit (secret URL)", "cache.internal", []string{"comment:104"}},
		{"unknown progress types never hit", "limiter_key", []string{}},
		{"attachment names are indexed", "mock.png", []string{"comment:88"}},
		{"full-width folds to half-width", "google", []string{"comment:92"}},
		{"half-width query finds full-width text folded", "ＧＯＯＧＬＥ", []string{"comment:92"}},
		{"case folded", "REDIS", []string{"comment:104", "comment:102", "comment:101"}},
		{"percent is literal", "100%", []string{"comment:105"}},
		{"short percent is literal", "%", []string{"comment:105"}},
		{"underscore is literal", "_", []string{"comment:107", "comment:104"}},
		{"backslash is literal", `\data`, []string{"comment:203"}},
		{"short backslash", `\`, []string{"comment:203"}},
		{"FTS operators are literal text", "NEAR", []string{"comment:109"}},
		{"OR is literal", "OR burst", []string{"comment:109"}},
		{"quote and star are literal", `"burst" *`, []string{"comment:109"}},
		{"parenthesis is literal", "(limit", []string{"comment:109"}},
		{"AWS key is redacted", "AKIAIOSFODNN7EXAMPLE", []string{}},
		{"GitHub token is redacted", "ghp_abcdefghij", []string{}},
		{"URL password is redacted", "hunter2redis", []string{}},
		{"PEM body is redacted", "b3BlbnNzaC1rZXkt", []string{}},
		{"placeholder is searchable", "[redacted]", []string{"comment:204", "comment:202", "comment:108", "comment:104"}},
		{"Chinese terms", "迁移 脚本", []string{"comment:203", "comment:202"}},
		{"ideographic space splits terms", "迁移\u3000校验", []string{"comment:203", "comment:202"}},
		{"no hit", "存在しない語句", []string{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := search(t, ws, bob, SearchInput{Query: c.query})
			if got := refs(a); !reflect.DeepEqual(got, c.want) {
				t.Errorf("query %q = %v, want %v", c.query, got, c.want)
			}
			for _, h := range a.Search.Hits {
				for _, secret := range []string{"akiaiosfodnn7example", "ghp_abcdef", "hunter2redis", "b3blbnnzac1rzxkt", "sup3rs3cret"} {
					if strings.Contains(strings.ToLower(h.Excerpt), secret) {
						t.Errorf("excerpt of %s shows a secret: %q", h.Ref, h.Excerpt)
					}
				}
			}
		})
	}
}

func TestSearchFilters(t *testing.T) {
	ws := fixtureWorkspace(t)
	check := func(in SearchInput, want ...string) {
		t.Helper()
		if want == nil {
			want = []string{}
		}
		if got := refs(search(t, ws, bob, in)); !reflect.DeepEqual(got, want) {
			t.Errorf("%+v = %v, want %v", in, got, want)
		}
	}
	check(SearchInput{Query: "認証", Kind: "result"}, "comment:301", "comment:95")
	check(SearchInput{Query: "認証", Author: "user"}, "comment:88")
	check(SearchInput{Query: "認証", TaskID: "task:12"}, "comment:96", "comment:95", "comment:91", "comment:88")
	check(SearchInput{Query: "認証", TaskID: "12", Limit: 2}, "comment:96", "comment:95")
	check(SearchInput{Query: "認証", TaskID: "task:20"})  // another space: nothing, as if it did not exist
	check(SearchInput{Query: "認証", TaskID: "task:999"}) // does not exist
	check(SearchInput{Query: "認証", TaskID: "task:16"})  // the current task is out of scope
	a := search(t, ws, bob, SearchInput{Query: "認証", Limit: 2})
	if !a.Search.Truncated || len(a.Search.Hits) != 2 {
		t.Errorf("limit 2: truncated=%v hits=%d", a.Search.Truncated, len(a.Search.Hits))
	}
}

func TestContextAndAround(t *testing.T) {
	ws := fixtureWorkspace(t)
	a := search(t, ws, bob, SearchInput{Query: "差し替えのみ", Context: 2})
	if len(a.Search.Hits) != 1 {
		t.Fatalf("hits = %v", refs(a))
	}
	h := a.Search.Hits[0]
	var before, after []string
	for _, e := range *h.Before {
		before = append(before, e.Ref)
	}
	for _, e := range *h.After {
		after = append(after, e.Ref)
	}
	if !reflect.DeepEqual(before, []string{"comment:86"}) || !reflect.DeepEqual(after, []string{"comment:89", "comment:90"}) {
		t.Errorf("before %v after %v", before, after)
	}
	if (*h.After)[1].Body != `{"url": "https://example.com/oauth/authorize?client_id=tinylink"}` {
		t.Errorf("neighbour body not raw: %q", (*h.After)[1].Body)
	}
	if h.TaskTitle != "ログイン画面の改修" || h.Task != "task:12" || h.Kind != "request" || h.Author != "user" || h.CreatedAt != "2026-06-20T10:00:00Z" {
		t.Errorf("hit = %+v", h)
	}

	ar := search(t, ws, bob, SearchInput{Around: "comment:104", Context: 1})
	if got := refs(ar); !reflect.DeepEqual(got, []string{"comment:103", "comment:104", "comment:105"}) {
		t.Errorf("around = %v", got)
	}
	if !ar.Around.Comments[1].Target || ar.Around.Comments[0].Target {
		t.Errorf("target marks wrong: %+v", ar.Around.Comments)
	}
	if !strings.Contains(ar.Around.Comments[1].Body, "hunter2redis") {
		t.Errorf("around must return the raw body, got %q", ar.Around.Comments[1].Body)
	}
	// refs out of scope are answered exactly like refs that do not exist
	var msgs []string
	for _, ref := range []string{"comment:501", "comment:99999", "comment:401"} {
		_, err := SearchWorkspaceTasks(context.Background(), ws, bob, SearchInput{Around: ref})
		if errs.CodeOf(err) != errs.NotFound {
			t.Fatalf("around %s: %v, want NOT_FOUND", ref, err)
		}
		msgs = append(msgs, strings.ReplaceAll(err.Error(), strings.TrimPrefix(ref, "comment:"), "N"))
	}
	if msgs[0] != msgs[1] || msgs[1] != msgs[2] {
		t.Errorf("out-of-space and missing refs answered differently: %q", msgs)
	}
}

func TestExcerptCut(t *testing.T) {
	text := strings.Repeat("あ", 100) + "認証" + strings.Repeat("い", 100)
	got := Excerpt(text, []string{"認証"})
	want := "…" + strings.Repeat("あ", excerptBefore) + "認証" + strings.Repeat("い", excerptAfter) + "…"
	if got != want {
		t.Errorf("Excerpt = %q", got)
	}
	if got := Excerpt("short 認証 text", []string{"認証"}); got != "short 認証 text" {
		t.Errorf("uncut excerpt = %q", got)
	}
	if got := Excerpt("x [REDACTED] y", []string{"redacted"}); got != "x [REDACTED] y" {
		t.Errorf("placeholder excerpt = %q", got)
	}
}

func TestContexts(t *testing.T) {
	ws := fixtureWorkspace(t)
	for _, c := range []Caller{
		{Task: "16"},                             // no-auth
		{User: "bob", Task: "16", Subtask: true}, // --subtask
		{User: "alice", Task: "15"},              // a task with a parent is a subtask
	} {
		a := search(t, ws, c, SearchInput{Query: "認証"})
		if a.Unavailable == nil || a.Unavailable.Message != UnavailableMessage || a.Unavailable.Available {
			t.Errorf("%+v: %+v, want unavailable", c, a)
		}
	}
	_, err := SearchWorkspaceTasks(context.Background(), ws, Caller{User: "mallory", Task: "16"}, SearchInput{Query: "認証"})
	if errs.CodeOf(err) != errs.Forbidden {
		t.Errorf("non-member: %v, want FORBIDDEN", err)
	}
	_, err = SearchWorkspaceTasks(context.Background(), ws, Caller{User: "erin", Task: "16"}, SearchInput{Query: "認証"})
	if errs.CodeOf(err) != errs.Forbidden {
		t.Errorf("member of another space: %v, want FORBIDDEN", err)
	}
	// the owner may search; dave's space sees only its own tasks
	if got := refs(search(t, ws, Caller{User: "alice", Task: "16"}, SearchInput{Query: "tinylink"})); len(got) != 0 {
		t.Errorf("owner search tinylink = %v", got)
	}
	if got := refs(search(t, ws, Caller{User: "dave", Task: "21"}, SearchInput{Query: "認証"})); !reflect.DeepEqual(got, []string{"comment:501"}) {
		t.Errorf("sp2 search = %v", got)
	}
	_, err = SearchWorkspaceTasks(context.Background(), ws, Caller{User: "bob", Task: "777"}, SearchInput{Query: "x"})
	if errs.CodeOf(err) != errs.NotFound {
		t.Errorf("unknown current task: %v", err)
	}
	_, err = SearchWorkspaceTasks(context.Background(), ws, Caller{User: "bob"}, SearchInput{Query: "x"})
	if errs.CodeOf(err) != errs.Invalid {
		t.Errorf("no current task: %v", err)
	}
	for _, in := range []SearchInput{
		{}, {Query: "  "}, {Query: "a", Around: "comment:1"}, {Query: "a", Context: 6}, {Query: "a", Limit: 31},
		{Query: "a", Limit: -1}, {Query: "a", Kind: "note"}, {Around: "comment:1", Limit: 3}, {Around: "comment: 1"},
		{Around: "task:12"}, {Query: "a", TaskID: "task:"},
	} {
		if _, err := SearchWorkspaceTasks(context.Background(), ws, bob, in); errs.CodeOf(err) != errs.Invalid {
			t.Errorf("%+v: %v, want INVALID_INPUT", in, err)
		}
	}
}

func TestReimportIdempotent(t *testing.T) {
	data, err := os.ReadFile(fixturePath(t))
	if err != nil {
		t.Fatal(err)
	}
	ws := newWorkspace(t)
	importText(t, ws, string(data))
	first := dump(t, ws)
	ans1 := search(t, ws, bob, SearchInput{Query: "認証", Context: 1})
	// again, and again in reverse order
	importText(t, ws, string(data))
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	for i, j := 0, len(lines)-1; i < j; i, j = i+1, j-1 {
		lines[i], lines[j] = lines[j], lines[i]
	}
	importText(t, ws, strings.Join(lines, "\n"))
	if second := dump(t, ws); second != first {
		t.Errorf("re-import changed the store:\n%s\n---\n%s", first, second)
	}
	ans2 := search(t, ws, bob, SearchInput{Query: "認証", Context: 1})
	if !reflect.DeepEqual(ans1, ans2) {
		t.Errorf("re-import changed the answer")
	}
	// the reverse-order file alone gives the same store
	ws2 := newWorkspace(t)
	importText(t, ws2, strings.Join(lines, "\n"))
	if got := refs(search(t, ws2, bob, SearchInput{Query: "認証"})); !reflect.DeepEqual(got, refs(ans1)) {
		t.Errorf("reverse order import: %v", got)
	}
}

// dump renders the whole store (without rowids) for comparisons.
func dump(t *testing.T, ws *workspace.Workspace) string {
	t.Helper()
	st, err := Open(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var b strings.Builder
	for _, q := range []string{
		`SELECT id, name, owner FROM spaces ORDER BY id`,
		`SELECT space, user FROM members ORDER BY space, user`,
		`SELECT id, space, title, status, COALESCE(parent, '-'), created_at FROM tasks ORDER BY id`,
		`SELECT id, idkey, task, space, kind, progress_type, tool_name, author, created_at, at_ns, body, attachments, COALESCE(itext, '-') FROM comments ORDER BY id`,
	} {
		rows, err := st.db.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintln(&b, vals...)
		}
		rows.Close()
	}
	return b.String()
}

func TestImportBadLines(t *testing.T) {
	ws := newWorkspace(t)
	text := "\ufeff" + strings.Join([]string{
		`{"type":"space","id":"s","name":"S","owner":"o"}`,
		`not json`,
		`{"type":"task","id":1,"space":"s","title":"T"}`,
		``,
		`{"type":"comment","id":1,"task":1,"kind":"note","author":"a","created_at":"2026-01-01T00:00:00Z","body":"x"}`,
		`{"type":"comment","id":2,"task":1,"kind":"request","author":"a","created_at":"yesterday","body":"x"}`,
		`{"type":"comment","id":1.5,"task":1,"kind":"request","author":"a","created_at":"2026-01-01T00:00:00Z","body":"x"}`,
		`{"type":"board","id":1}`,
		`{"id":1}`,
		`{"type":"task","id":2}`,
		`{"type":"comment","id":3,"task":1,"kind":"request","author":"a","created_at":"2026-01-01T00:00:00Z","body":"loaded despite the rest"}`,
		`{"type":"comment","id":4,"task":9,"kind":"request","author":"a","created_at":"2026-01-01T00:00:00Z","body":"orphan"}`,
	}, "\n")
	rep := importText(t, ws, text)
	var lines []int
	for _, b := range rep.BadLines {
		lines = append(lines, b.Line)
	}
	if !reflect.DeepEqual(lines, []int{2, 5, 6, 7, 8, 9, 10}) {
		t.Errorf("bad lines = %+v", rep.BadLines)
	}
	if rep.Comments != 2 || rep.Tasks != 1 || rep.Spaces != 1 || rep.OrphanComments != 1 {
		t.Errorf("report = %+v", rep)
	}
	for _, want := range []string{"not a JSON object", `kind "note" is not one of request`, "RFC 3339", "string or an integer", `unknown type "board"`, `no "type"`, "space is required"} {
		found := false
		for _, b := range rep.BadLines {
			found = found || strings.Contains(b.Message, want)
		}
		if !found {
			t.Errorf("no bad line says %q: %+v", want, rep.BadLines)
		}
	}
}

func TestIndexText(t *testing.T) {
	r := redact.New()
	cases := []struct {
		kind, pt, tool, body string
		att                  []string
		want                 string
		ok                   bool
	}{
		{"request", "", "", "  Hello\n\tＷＯＲＬＤ  ", []string{"a.png", "B.PDF"}, "hello world a.png b.pdf", true},
		{"progress", "tool", "WebFetch", `{"url":"https://u:p@x"}`, nil, "tool: webfetch", true},
		{"progress", "thinking", "", "Think", nil, "think", true},
		{"progress", "summary", "", "Sum", nil, "sum", true},
		{"progress", "debug", "", "x", nil, "", false},
		{"comment", "", "", "x", nil, "", false},
		{"interjection_ack", "", "", "x", nil, "", false},
		{"handoff", "", "", "password=hunter2", nil, "password=[redacted]", true},
		{"ask", "", "", "Straße", nil, "strasse", true},
	}
	for _, c := range cases {
		got, ok := IndexText(r, c.kind, c.pt, c.tool, c.body, c.att)
		if got != c.want || ok != c.ok {
			t.Errorf("IndexText(%s/%s %q) = %q %v, want %q %v", c.kind, c.pt, c.body, got, ok, c.want, c.ok)
		}
	}
}

// TestMatchEqualsLike checks, on random texts and queries, that the trigram MATCH path and an
// all-LIKE scan return identical hits: an index may only change the speed.
func TestMatchEqualsLike(t *testing.T) {
	ws := newWorkspace(t)
	rng := rand.New(rand.NewSource(1))
	alphabet := []string{"a", "b", "A", "Ａ", "ab", "認", "証", "認証", "ー", "%", "_", `\`, `"`, "*", "(", "OR", "NEAR", " ", " ", "\u3000", "ß", "ss", "é", "İ", "ı", "k", "K"}
	word := func(n int) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			b.WriteString(alphabet[rng.Intn(len(alphabet))])
		}
		return b.String()
	}
	var lines []string
	lines = append(lines, `{"type":"space","id":"s","owner":"o"}`, `{"type":"task","id":1,"space":"s","title":"cur"}`, `{"type":"task","id":2,"space":"s","title":"other"}`)
	kinds := []string{"request", "result", "comment", "ask"}
	for i := 0; i < 400; i++ {
		b, _ := json.Marshal(word(1 + rng.Intn(12)))
		lines = append(lines, fmt.Sprintf(`{"type":"comment","id":%d,"task":2,"kind":%q,"author":"a","created_at":"2026-01-01T00:%02d:%02dZ","body":%s}`,
			i, kinds[rng.Intn(len(kinds))], rng.Intn(60), rng.Intn(60), b))
	}
	importText(t, ws, strings.Join(lines, "\n"))
	st, err := OpenRead(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for i := 0; i < 500; i++ {
		q := word(1 + rng.Intn(4))
		if strings.TrimSpace(q) == "" {
			continue
		}
		in := SearchInput{Query: q, Limit: MaxLimit}
		if err := in.validate(); err != nil {
			t.Fatal(err)
		}
		got, err := st.search(context.Background(), asker{user: "o", task: "1"}, in, false)
		if err != nil {
			t.Fatalf("query %q: %v", q, err)
		}
		want, err := st.search(context.Background(), asker{user: "o", task: "1"}, in, true)
		if err != nil {
			t.Fatalf("query %q (LIKE): %v", q, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("query %q: MATCH %v != LIKE %v", q, refs(got), refs(want))
		}
		// the index's matches read newest rowid first until none left can be newer (the
		// comments' dates are in no relation to their rowids here), or given up after a few
		small := in
		small.Limit = 1 + rng.Intn(3)
		st.streamMax = 1 + rng.Intn(30)
		streamed, _ := searchBoth(t, st, in)
		streamedSmall, wantSmall := searchBoth(t, st, small)
		if !reflect.DeepEqual(streamed, want) || !reflect.DeepEqual(streamedSmall, wantSmall) {
			t.Fatalf("query %q (stream of %d): %v / %v != LIKE %v / %v", q, st.streamMax, refs(streamed), refs(streamedSmall), refs(want), refs(wantSmall))
		}
		// the other plans, with no stream first
		st.streamMax = 0
		// walk the space newest first, checking index membership
		st.ftsDriveMax = 0
		walked, err := st.search(context.Background(), asker{user: "o", task: "1"}, in, false)
		st.ftsDriveMax = defaultFTSDriveMax
		if err != nil {
			t.Fatalf("query %q (walk): %v", q, err)
		}
		if !reflect.DeepEqual(walked, want) {
			t.Fatalf("query %q: walk %v != LIKE %v", q, refs(walked), refs(want))
		}
		// a walk that tries only the newest few comments first gives the same hits, whether
		// that window held enough of them (small limits) or the whole space was read after
		st.walkWindow = 1 + rng.Intn(8)
		windowed, err := st.search(context.Background(), asker{user: "o", task: "1"}, small, true)
		st.walkWindow = defaultWalkWindow
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(windowed, wantSmall) {
			t.Fatalf("query %q limit %d: window %v != whole walk %v", q, small.Limit, refs(windowed), refs(wantSmall))
		}
		// a query that first tests only the newest few comments (the probe) gives the same hits,
		// whether the probe held enough of them or a plan ran after it
		st.probeWindow = 1 + rng.Intn(40)
		probedSmall, err := st.search(context.Background(), asker{user: "o", task: "1"}, small, false)
		if err != nil {
			t.Fatal(err)
		}
		probed, err := st.search(context.Background(), asker{user: "o", task: "1"}, in, false)
		st.probeWindow, st.streamMax = defaultProbeWindow, defaultStreamMax
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(probedSmall, wantSmall) || !reflect.DeepEqual(probed, want) {
			t.Fatalf("query %q: probed %v / %v != LIKE %v / %v", q, refs(probedSmall), refs(probed), refs(wantSmall), refs(want))
		}
	}
}

func TestSchemaVersions(t *testing.T) {
	ws := newWorkspace(t)
	// a file at schema version 1 (before the index existed) is migrated and indexed on open
	writeAtVersion(t, ws, 1, `INSERT INTO spaces VALUES ('s', '', 'o'); INSERT INTO tasks(id, space) VALUES ('1', 's'), ('2', 's');
		INSERT INTO comments(id, idkey, task, space, kind, created_at, at_ns, body, itext) VALUES ('7', 'n7', '2', 's', 'request', '2026-01-01T00:00:00Z', 0, 'Old text', 'old text')`)
	got := refs(search(t, ws, Caller{User: "o", Task: "1"}, SearchInput{Query: "old text"}))
	if !reflect.DeepEqual(got, []string{"comment:7"}) {
		t.Errorf("after migration: %v", got)
	}
	st, err := Open(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.IntegrityCheck(); err != nil {
		t.Error(err)
	}
	var v int
	st.db.QueryRow("PRAGMA user_version").Scan(&v)
	if v != SchemaVersion() {
		t.Errorf("user_version = %d", v)
	}
	// a newer file is refused with a clear message
	if _, err := st.db.Exec("PRAGMA user_version = 99"); err != nil {
		t.Fatal(err)
	}
	st.Close()
	_, err = Open(context.Background(), ws)
	if errs.CodeOf(err) != errs.Invalid || !strings.Contains(err.Error(), "newer than this cairn understands") {
		t.Errorf("newer schema: %v", err)
	}
	_, err = SearchWorkspaceTasks(context.Background(), ws, Caller{User: "o", Task: "1"}, SearchInput{Query: "x"})
	if errs.CodeOf(err) != errs.Invalid {
		t.Errorf("newer schema on search: %v", err)
	}
	// not a database at all
	ws2 := newWorkspace(t)
	os.WriteFile(Path(ws2), []byte(strings.Repeat("not sqlite ", 200)), 0o644)
	if _, err := Open(context.Background(), ws2); errs.CodeOf(err) != errs.Invalid || !strings.Contains(err.Error(), "not an SQLite database") {
		t.Errorf("garbage file: %v", err)
	}
	// someone else's database
	ws3 := newWorkspace(t)
	db, _ := sql.Open("sqlite", Path(ws3))
	db.Exec("CREATE TABLE x(y)")
	db.Close()
	if _, err := Open(context.Background(), ws3); errs.CodeOf(err) != errs.Invalid || !strings.Contains(err.Error(), "not a cairn space store") {
		t.Errorf("foreign database: %v", err)
	}
}

func TestBusy(t *testing.T) {
	ws := fixtureWorkspace(t)
	// another process holds the SQLite write lock (not our flock): the write waits, then STORAGE_BUSY
	holder, err := sql.Open("sqlite", "file:"+Path(ws)+"?_pragma=busy_timeout(0)")
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	conn, err := holder.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	st, err := Open(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = st.AddComment(context.Background(), Comment{Task: "12", Kind: "request", Author: "x", CreatedAt: "2026-01-01T00:00:00Z", Body: "b"})
	st.Close()
	if errs.CodeOf(err) != errs.Busy {
		t.Fatalf("write under a held lock: %v, want STORAGE_BUSY", err)
	}
	if time.Since(start) < 250*time.Millisecond {
		t.Errorf("did not wait for the lock (%s)", time.Since(start))
	}
	// readers are not blocked by a writer in WAL mode
	search(t, ws, bob, SearchInput{Query: "認証"})
	conn.ExecContext(context.Background(), "ROLLBACK")

	// our own writer lock: a second writer waits, then STORAGE_BUSY
	first, err := Open(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Open(context.Background(), ws)
	first.Close()
	if errs.CodeOf(err) != errs.Busy {
		t.Errorf("second writer: %v, want STORAGE_BUSY", err)
	}
}

func TestAddCommentAndReindex(t *testing.T) {
	ws := fixtureWorkspace(t)
	st, err := Open(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	added, err := st.AddComment(context.Background(), Comment{Task: "13", Kind: "result", Author: "agent", CreatedAt: "2026-07-03T00:00:00+09:00", Body: "Sliding window adopted after all; api_key=abcd1234 moved to vault.", Attachments: []string{"design.md"}})
	if err != nil {
		t.Fatal(err)
	}
	if added.Ref != "comment:502" && added.Ref != "comment:503" {
		t.Errorf("assigned %s", added.Ref)
	}
	if added.CreatedAt != "2026-07-02T15:00:00Z" || !added.Indexed {
		t.Errorf("added = %+v", added)
	}
	if _, err := st.AddComment(context.Background(), Comment{Task: "999", Kind: "result", CreatedAt: "2026-07-03T00:00:00Z"}); errs.CodeOf(err) != errs.NotFound {
		t.Errorf("unknown task: %v", err)
	}
	if _, err := st.AddComment(context.Background(), Comment{Task: "13", Kind: "nope", CreatedAt: "2026-07-03T00:00:00Z"}); errs.CodeOf(err) != errs.Invalid {
		t.Errorf("bad kind: %v", err)
	}
	// damage one index text, then reindex repairs it
	if _, err := st.db.Exec(`UPDATE comments SET itext = 'garbage' WHERE id = '88'`); err != nil {
		t.Fatal(err)
	}
	var calls int
	rep, err := st.Reindex(context.Background(), func(done, total int64) { calls++ })
	if err != nil {
		t.Fatal(err)
	}
	if rep.Changed != 1 || calls == 0 || rep.Comments != 31 {
		t.Errorf("reindex = %+v (progress calls %d)", rep, calls)
	}
	if err := st.IntegrityCheck(); err != nil {
		t.Error(err)
	}
	st.Close()
	got := refs(search(t, ws, bob, SearchInput{Query: "design.md"}))
	if !reflect.DeepEqual(got, []string{added.Ref}) {
		t.Errorf("added comment search = %v", got)
	}
	if got := refs(search(t, ws, bob, SearchInput{Query: "abcd1234"})); len(got) != 0 {
		t.Errorf("api_key value findable: %v", got)
	}
	if got := refs(search(t, ws, bob, SearchInput{Query: "差し替えのみ"})); !reflect.DeepEqual(got, []string{"comment:88"}) {
		t.Errorf("after reindex: %v", got)
	}
}

func TestNoDatabase(t *testing.T) {
	ws := newWorkspace(t)
	_, err := SearchWorkspaceTasks(context.Background(), ws, bob, SearchInput{Query: "x"})
	if errs.CodeOf(err) != errs.NotFound {
		t.Errorf("missing spaces.db: %v", err)
	}
	if _, err := os.Stat(Path(ws)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("search created spaces.db")
	}
}

func FuzzSplitQuery(f *testing.F) {
	for _, s := range []string{"認証 ログイン", `"a" OR b*`, "\u3000x\u3000", "ＡＢＣ", "%_\\", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		terms := SplitQuery(q)
		for _, term := range terms {
			if term == "" || strings.ContainsAny(term, " \t\n\u3000") {
				t.Fatalf("bad term %q from %q", term, q)
			}
			if Normalize(term) != term {
				t.Fatalf("term %q not normalised", term)
			}
			p := ftsPhrase(term)
			if !strings.HasPrefix(p, `"`) || !strings.HasSuffix(p, `"`) || strings.Count(p, `"`)%2 != 0 {
				t.Fatalf("bad phrase %q", p)
			}
		}
	})
}

// FuzzSearchQuery sends arbitrary queries through the real SQL: quoting must keep every FTS5
// operator literal (no syntax error ever reaches the user) and MATCH must agree with LIKE.
func FuzzSearchQuery(f *testing.F) {
	for _, s := range []string{"認証", `"`, `a"b" OR c`, "NEAR(a b)", "*", "^x", "x:y", "-x", "+", "'", `\%_`, "ＡＮＤ", "a\x00b"} {
		f.Add(s)
	}
	data, err := os.ReadFile(fixturePath(&testing.T{}))
	if err != nil {
		f.Fatal(err)
	}
	dir := f.TempDir()
	if _, err := workspace.Init(dir); err != nil {
		f.Fatal(err)
	}
	ws, err := workspace.Open(dir, dir)
	if err != nil {
		f.Fatal(err)
	}
	w, err := Open(context.Background(), ws)
	if err != nil {
		f.Fatal(err)
	}
	if _, err := w.Import(context.Background(), strings.NewReader(string(data)), 0, nil); err != nil {
		f.Fatal(err)
	}
	w.Close()
	st, err := OpenRead(context.Background(), ws)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { st.Close() })
	f.Fuzz(func(t *testing.T, q string) {
		in := SearchInput{Query: q, Limit: MaxLimit}
		if in.validate() != nil {
			return
		}
		got, err := st.search(context.Background(), asker{user: "bob", task: "16"}, in, false)
		if err != nil {
			t.Fatalf("query %q: %v", q, err)
		}
		want, err := st.search(context.Background(), asker{user: "bob", task: "16"}, in, true)
		if err != nil {
			t.Fatalf("query %q (LIKE): %v", q, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("query %q: MATCH %v != LIKE %v", q, refs(got), refs(want))
		}
	})
}

func TestImportProgressAndBatches(t *testing.T) {
	ws := newWorkspace(t)
	var b strings.Builder
	b.WriteString(`{"type":"space","id":"s","owner":"o"}` + "\n" + `{"type":"task","id":1,"space":"s"}` + "\n" + `{"type":"task","id":2,"space":"s"}` + "\n")
	n := BatchSize*2 + 7
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `{"type":"comment","id":%d,"task":2,"kind":"result","author":"a","created_at":"2026-01-01T00:00:00Z","body":"row %d"}`+"\n", i, i)
	}
	text := b.String()
	st, err := Open(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	var calls []int64
	rep, err := st.Import(context.Background(), strings.NewReader(text), int64(len(text)), func(done, total int64) {
		if total != int64(len(text)) {
			t.Errorf("total %d", total)
		}
		calls = append(calls, done)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.IntegrityCheck(); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if rep.Comments != n || len(calls) < 3 || calls[len(calls)-1] != int64(len(text)) {
		t.Errorf("report %+v, progress %v", rep, calls)
	}
	for i := 1; i < len(calls); i++ {
		if calls[i] < calls[i-1] {
			t.Errorf("progress went back: %v", calls)
		}
	}
	// the same ids ordered by time then id: the tie on created_at is broken by id, integers by value
	a := search(t, ws, Caller{User: "o", Task: "1"}, SearchInput{Query: "row", Limit: 3})
	if got := refs(a); !reflect.DeepEqual(got, []string{fmt.Sprintf("comment:%d", n-1), fmt.Sprintf("comment:%d", n-2), fmt.Sprintf("comment:%d", n-3)}) {
		t.Errorf("tie order = %v", got)
	}
}

// A fresh-process search must find spaces.db-wal and -shm in place rather than create and unlink
// them, and a closed store leaves an empty write-ahead log, not one the size of the last import.
func TestWriteAheadLogPersistsEmpty(t *testing.T) {
	ws := fixtureWorkspace(t)
	p := Path(ws)
	for _, suffix := range []string{"-wal", "-shm"} {
		if _, err := os.Stat(p + suffix); err != nil {
			t.Fatalf("after import and close: %v", err)
		}
	}
	if fi, _ := os.Stat(p + "-wal"); fi.Size() != 0 {
		t.Errorf("spaces.db-wal is %d bytes after the last close, want 0", fi.Size())
	}
	shm, _ := os.Stat(p + "-shm")
	search(t, ws, bob, SearchInput{Query: "認証"})
	after, err := os.Stat(p + "-shm")
	if err != nil {
		t.Fatalf("after a search: %v", err)
	}
	if !os.SameFile(shm, after) {
		t.Errorf("a search recreated spaces.db-shm")
	}
}

// hostileWorkspace holds n comments of size bytes of base64 of zeros ("AAAA..."), each with
// "AAAB" at its start, so that every trigram and every run of four of "AAA...AB" is in each of
// them but not the term.
func hostileWorkspace(t *testing.T, n, size int) *workspace.Workspace {
	t.Helper()
	ws := newWorkspace(t)
	body := "AAAB" + strings.Repeat("A", size)
	lines := []string{
		`{"type":"space","id":"s","owner":"o"}`,
		`{"type":"task","id":1,"space":"s","title":"cur"}`,
		`{"type":"task","id":2,"space":"s","title":"other"}`,
	}
	for i := 1; i <= n; i++ {
		lines = append(lines, fmt.Sprintf(`{"type":"comment","id":%d,"task":2,"kind":"result","author":"a","created_at":"2026-01-01T00:%02d:%02dZ","body":%q}`, i, i/60, i%60, body))
	}
	importText(t, ws, strings.Join(lines, "\n"))
	return ws
}

// A long query over one comment of 1 MB of "AAAA..." took seconds (FTS5 checked every position
// of every trigram of the phrase, where SQLite cannot interrupt it); it answers at once now.
func TestSearchLongTermOnRepetitiveComment(t *testing.T) {
	ws := hostileWorkspace(t, 1, 1<<20)
	caller := Caller{User: "o", Task: "1"}
	for _, q := range []string{strings.Repeat("A", MaxQueryChars), strings.Repeat("A", 150) + " " + strings.Repeat("A", 40), "AAB" + strings.Repeat("A", 190)} {
		start := time.Now()
		a := search(t, ws, caller, SearchInput{Query: q})
		if took := time.Since(start); took > time.Second {
			t.Errorf("query of %d characters on a repetitive comment took %v", len(q), took)
		}
		if got := refs(a); len(got) != 1 || got[0] != "comment:1" {
			t.Errorf("query of %d characters: %v, want comment:1", len(q), got)
		}
	}
	if got := refs(search(t, ws, caller, SearchInput{Query: strings.Repeat("A", 190) + "B"})); len(got) != 0 {
		t.Errorf("a term that is not in the comment, though each of its trigrams is: %v", got)
	}
}

// One search has a time budget of its own: when it runs out, SQLite is interrupted and the search
// fails with STORAGE_BUSY naming the budget, instead of running on; with time enough it answers.
// The local account's search (no user: the agent path over the Claude Code and Codex spaces) runs
// in the same budget, with a current task and without one.
func TestSearchTimeBudget(t *testing.T) {
	ws := hostileWorkspace(t, 48, 256<<10)
	checkTimeBudget(t, ws, Caller{User: "o", Task: "1"})
	asLocalSpace(t, ws, "s") // the same space, now the local account's
	checkTimeBudget(t, ws, Caller{})
	checkTimeBudget(t, ws, Caller{Task: "1"})
}

// asLocalSpace makes space a Claude Code space of the local account, as an import would.
func asLocalSpace(t *testing.T, ws *workspace.Workspace, space string) {
	t.Helper()
	st, err := Open(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.db.Exec(`UPDATE spaces SET source = ?, owner = ? WHERE id = ?`, SourceClaudeCode, LocalAccount, space); err != nil {
		t.Fatal(err)
	}
}

// checkTimeBudget runs a hostile search as caller with time enough, then with a tenth of that as
// its budget, which must stop it with STORAGE_BUSY naming the budget.
func checkTimeBudget(t *testing.T, ws *workspace.Workspace, caller Caller) {
	t.Helper()
	defer func(b time.Duration) { searchBudget = b }(searchBudget)
	query := strings.Repeat("A", 150) + "B" // every trigram in every comment, the term in none
	searchBudget = time.Minute
	// the quickest of three whole searches: noise only slows one down, and a budget taken from a
	// slowed one could let the next search finish within it
	whole := time.Hour
	for range 3 {
		start := time.Now()
		a := search(t, ws, caller, SearchInput{Query: query})
		if a.Search == nil {
			t.Fatalf("caller %+v: not a search answer: %+v", caller, a.Unavailable)
		}
		if got := refs(a); len(got) != 0 {
			t.Fatalf("hostile search found %v", got)
		}
		whole = min(whole, time.Since(start))
	}
	searchBudget = whole / 10
	start := time.Now()
	_, err := SearchWorkspaceTasks(context.Background(), ws, caller, SearchInput{Query: query})
	took := time.Since(start)
	t.Logf("caller %+v: the whole search took %v; with a budget of %v it stopped after %v", caller, whole, searchBudget, took)
	if errs.CodeOf(err) != errs.Busy || !strings.Contains(err.Error(), "time budget of "+searchBudget.String()) {
		t.Fatalf("caller %+v: hostile search with a budget of %v: %v (after %v), want STORAGE_BUSY naming the budget", caller, searchBudget, err, took)
	}
	if took > whole/2 {
		t.Errorf("caller %+v: hostile search stopped after %v, budget %v, the whole search %v", caller, took, searchBudget, whole)
	}
}

// A query is at most MaxQueryChars characters after trimming (counted in characters, not bytes).
func TestQueryCap(t *testing.T) {
	ws := fixtureWorkspace(t)
	ok := strings.Repeat("認", MaxQueryChars)
	if _, err := SearchWorkspaceTasks(context.Background(), ws, bob, SearchInput{Query: "  " + ok + "  "}); err != nil {
		t.Fatalf("a query of %d characters: %v", MaxQueryChars, err)
	}
	_, err := SearchWorkspaceTasks(context.Background(), ws, bob, SearchInput{Query: ok + "x"})
	if errs.CodeOf(err) != errs.Invalid || err.Error() != "query is 201 characters; at most 200 are allowed" {
		t.Fatalf("a query of 201 characters: %v", err)
	}
}
