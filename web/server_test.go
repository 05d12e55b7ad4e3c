package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"
	"unicode/utf16"

	"github.com/cairn-dev/cairn/commands"
	"github.com/cairn-dev/cairn/core/board"
	"github.com/cairn-dev/cairn/core/tools"
	"github.com/cairn-dev/cairn/core/workspace"
	"github.com/cairn-dev/cairn/core/workspace/workspacetest"
	"github.com/cairn-dev/cairn/web"
)

const testToken = "0123456789abcdef0123456789abcdef"

// boardDoc is a small Appendix B board: two live projects and an archived one, cards in several
// lanes, every source, and a memory entry.
func boardDoc(revision int, extraTitle string) string {
	return fmt.Sprintf(`{
  "revision": %d,
  "projects": [
    {"id":"p1","title":"Tinylink","archived":false,"memory":true},
    {"id":"p2","title":"Pager","archived":false,"memory":true},
    {"id":"p3","title":"Old","archived":true,"memory":true}
  ],
  "cards": [
    {"id":"c1","project":"p1","title":"迁移到 SQLite","description":"把存储迁移到 SQLite","tags":["module/storage","perf"],"type":"feature","status":"In Progress","archived":false,"updated_at":"2026-10-20T08:00:00Z","workspace_id":"w1"},
    {"id":"c2","project":"p1","title":"Login page <b>","description":"migration of the auth flow","tags":["auth"],"type":"bug","status":"Done","archived":false,"updated_at":"2026-10-21T08:00:00Z","workspace_id":""},
    {"id":"c3","project":"p2","title":"Pager migration","description":"move pages","tags":[],"type":"chore","status":"Backlog","archived":true,"updated_at":"2026-10-22T08:00:00Z","workspace_id":"w2"},
    {"id":"c4","project":"p3","title":"Archived project migration","description":"","tags":[],"type":"","status":"Backlog","archived":false,"updated_at":"2026-10-22T08:00:00Z","workspace_id":""},
    {"id":"c5","project":"p2","title":%q,"description":"","tags":[],"type":"","status":"Todo","archived":false,"updated_at":"2026-10-23T08:00:00Z","workspace_id":""}
  ],
  "events": [
    {"id":"e1","card":"c1","type":"progress_reported","note":"迁移脚本写完了","actor":"agent","at":"2026-10-20T08:00:00Z"},
    {"id":"e2","card":"c1","type":"workspace_auto_archived","note":"迁移 system","actor":"system","at":"2026-10-20T09:00:00Z"}
  ],
  "workpads": [{"id":"wp1","card":"c1","kind":"check","description":"run tests","command":"go test ./...","evidence":"42 passed","at":"2026-10-20T08:00:00Z"}],
  "ideas": [{"id":"i1","card":"c2","title":"Cache the migration","detail":"d","rationale":"r","context":"c","status":"dismissed","at":"2026-10-20T08:00:00Z"}],
  "artifacts": [{"id":"a1","card":"c1","title":"PR #12","note":"migration PR","target":"https://github.com/o/r/pull/12","external_key":"TL-12","at":"2026-10-20T08:00:00Z"}],
  "summaries": {"c1": [
    {"state":"old","target":"","recap":"old migration recap","next":"","at":"2026-10-01T08:00:00Z"},
    {"state":"running","target":"SQLite","recap":"迁移 half done","next":"finish","at":"2026-10-20T08:00:00Z"}]},
  "memory": [{"id":"m1","project":"p1","kind":"decision","title":"Use SQLite migration tool","body":"b","keywords":["db"],"tags":["storage"],"status":"active","confirmed_at":"2026-10-01T00:00:00Z"}]
}`, revision, extraTitle)
}

// newWorkspace creates a workspace with the test board imported.
func newWorkspace(t *testing.T) *workspace.Workspace {
	t.Helper()
	ws := workspacetest.New(t)
	importBoard(t, ws, boardDoc(1, "Fresh card"))
	return ws
}

func importBoard(t *testing.T, ws *workspace.Workspace, doc string) {
	t.Helper()
	if _, err := board.Import(context.Background(), ws, strings.NewReader(doc)); err != nil {
		t.Fatalf("import: %v", err)
	}
}

// newServer starts the handler on a test listener; logs go to the returned buffer.
func newServer(t *testing.T, ws *workspace.Workspace) (*httptest.Server, *web.Handler, *workspacetest.Buffer) {
	t.Helper()
	ix, err := board.Load(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	logs := &workspacetest.Buffer{}
	h, err := web.New(web.Options{Workspace: ws, Index: ix, Token: testToken, Log: logs})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv, h, logs
}

// post sends body to /api with the given Authorization header ("" for none).
func post(t *testing.T, srv *httptest.Server, auth, body string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, srv.URL+"/api", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, data
}

func api(t *testing.T, srv *httptest.Server, body string) (int, []byte) {
	t.Helper()
	return post(t, srv, "Bearer "+testToken, body)
}

func errorCode(t *testing.T, data []byte) string {
	t.Helper()
	var e struct {
		Error struct{ Code, Message string }
	}
	if err := json.Unmarshal(data, &e); err != nil {
		t.Fatalf("not an error body: %s", data)
	}
	return e.Error.Code
}

func TestToken(t *testing.T) {
	srv, _, _ := newServer(t, newWorkspace(t))
	body := `{"action":"search","input":{"query":"migration","projectId":null}}`
	for _, auth := range []string{"", "Bearer", "Bearer ", "Bearer wrong", "Basic " + testToken, "Bearer " + testToken + "x", "Bearer " + testToken[:len(testToken)-1]} {
		status, data := post(t, srv, auth, body)
		if status != http.StatusUnauthorized || errorCode(t, data) != "UNAUTHORIZED" {
			t.Errorf("auth %q: %d %s, want 401 UNAUTHORIZED", auth, status, data)
		}
	}
	if status, data := post(t, srv, "Bearer "+testToken, body); status != http.StatusOK {
		t.Fatalf("right token: %d %s", status, data)
	}
	if status, data := post(t, srv, "bearer "+testToken, body); status != http.StatusOK {
		t.Fatalf("scheme is case-insensitive: %d %s", status, data)
	}
}

func TestCodes(t *testing.T) {
	ws := newWorkspace(t)
	srv, _, logs := newServer(t, ws)
	cases := []struct {
		name, body string
		status     int
		code       string
	}{
		{"not JSON", `{"action":`, 400, "INVALID_INPUT"},
		{"two documents", `{"action":"search"} {}`, 400, "INVALID_INPUT"},
		{"no action", `{"input":{}}`, 400, "INVALID_INPUT"},
		{"unknown envelope field", `{"action":"search","input":{},"x":1}`, 400, "INVALID_INPUT"},
		{"unknown input field", `{"action":"search","input":{"q":"x"}}`, 400, "INVALID_INPUT"},
		{"search without input", `{"action":"search"}`, 400, "INVALID_INPUT"},
		{"search without query", `{"action":"search","input":{"projectId":null}}`, 400, "INVALID_INPUT"},
		{"search with a null query", `{"action":"search","input":{"query":null}}`, 400, "INVALID_INPUT"},
		{"limit out of range", `{"action":"search","input":{"query":"x","limit":51}}`, 400, "INVALID_INPUT"},
		{"limit zero", `{"action":"search","input":{"query":"x","limit":0}}`, 400, "INVALID_INPUT"},
		{"unknown source", `{"action":"search","input":{"query":"x","sources":["receipts"]}}`, 400, "INVALID_INPUT"},
		{"query too long", `{"action":"search","input":{"query":"` + strings.Repeat("a", 201) + `"}}`, 400, "INVALID_INPUT"},
		{"unknown project", `{"action":"search","input":{"query":"x","projectId":"nope"}}`, 404, "NOT_FOUND"},
		{"archived project", `{"action":"search","input":{"query":"x","projectId":"p3"}}`, 404, "NOT_FOUND"},
		{"unknown action", `{"action":"Nope","input":{}}`, 404, "NOT_FOUND"},
		{"unknown card", `{"action":"card","input":{"taskId":"nope"}}`, 404, "NOT_FOUND"},
		{"card of archived project", `{"action":"card","input":{"taskId":"c4"}}`, 404, "NOT_FOUND"},
		{"card without id", `{"action":"card","input":{}}`, 400, "INVALID_INPUT"},
		{"tool with bad input", `{"action":"TaskGet","input":{"taskid":"x"}}`, 400, "INVALID_INPUT"},
		{"tool not found", `{"action":"MemoryRead","input":{"kind":"decision","slug":"nope"}}`, 404, "NOT_FOUND"},
		{"flowly_search without a card", `{"action":"flowly_search","input":{"query":"x"}}`, 400, "INVALID_INPUT"},
	}
	for _, c := range cases {
		status, data := api(t, srv, c.body)
		if status != c.status || errorCode(t, data) != c.code {
			t.Errorf("%s: %d %s, want %d %s", c.name, status, data, c.status, c.code)
		}
		if strings.Contains(string(data), "json: ") || strings.Contains(string(data), "Go ") {
			t.Errorf("%s: the message names Go's decoder: %s", c.name, data)
		}
	}

	// A body over 1 MiB is refused before it is decoded.
	big := `{"action":"search","input":{"query":"` + strings.Repeat("a", web.MaxBodyBytes) + `"}}`
	if status, data := api(t, srv, big); status != http.StatusRequestEntityTooLarge || errorCode(t, data) != "INVALID_INPUT" {
		t.Errorf("big body: %d %s", status, data)
	}

	// GET /api is not an API call.
	resp, err := srv.Client().Get(srv.URL + "/api")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "POST" {
		t.Errorf("GET /api: %d allow %q", resp.StatusCode, resp.Header.Get("Allow"))
	}

	// The log has durations and counts, never query text.
	if strings.Contains(logs.String(), `"x"`) || strings.Contains(logs.String(), "aaaa") || strings.Contains(logs.String(), "Nope") {
		t.Errorf("log leaks input:\n%s", logs)
	}
}

// TestBusy: a board locked by an import while the files changed answers 503 STORAGE_BUSY.
func TestBusy(t *testing.T) {
	ws := newWorkspace(t)
	srv, _, _ := newServer(t, ws)
	ws.Wait = 100 * time.Millisecond
	lock, err := ws.LockNamed(context.Background(), "board", true)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Unlock()
	touch(t, ws.Path(board.SummariesPath))
	status, data := api(t, srv, `{"action":"search","input":{"query":"migration"}}`)
	if status != http.StatusServiceUnavailable || errorCode(t, data) != "STORAGE_BUSY" {
		t.Fatalf("locked board: %d %s, want 503 STORAGE_BUSY", status, data)
	}
	// Concurrent requests on the locked board share the failed rebuild instead of queueing one
	// full wait each behind it.
	start := time.Now()
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if status, data := api(t, srv, `{"action":"search","input":{"query":"migration"}}`); status != http.StatusServiceUnavailable {
				t.Errorf("concurrent on a locked board: %d %s", status, data)
			}
		}()
	}
	wg.Wait()
	if d := time.Since(start); d > 5*ws.Wait {
		t.Errorf("8 concurrent requests on a locked board took %s: they waited in turn", d)
	}
	status, data = api(t, srv, `{"action":"card","input":{"taskId":"c1"}}`)
	if status != http.StatusServiceUnavailable {
		t.Fatalf("card on a locked board: %d %s, want 503", status, data)
	}
}

// touch changes a file's size and time so the index is stale.
func touch(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(data, ' '), 0o644); err != nil {
		t.Fatal(err)
	}
	future := time.Now().Add(time.Minute)
	if err := os.Chtimes(path, future, future); err != nil {
		t.Fatal(err)
	}
}

// normalise re-indents a JSON document so two answers compare regardless of whitespace.
func normalise(t *testing.T, data []byte) string {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Compact(&buf, data); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, data)
	}
	return buf.String()
}

// TestSameJSONAsCLI: POST /api search answers byte for byte what cairn board search --json prints.
func TestSameJSONAsCLI(t *testing.T) {
	ws := newWorkspace(t)
	srv, _, _ := newServer(t, ws)
	cases := []struct {
		input string
		args  []string
	}{
		{`{"query":"migration","projectId":null}`, []string{"migration"}},
		{`{"query":"迁移","projectId":"p1"}`, []string{"迁移", "--project", "p1"}},
		{`{"query":"migration","projectId":null,"sources":["card","idea"],"limit":1}`, []string{"migration", "--sources", "card,idea", "--limit", "1"}},
		{`{"query":"#storage sqlite"}`, []string{"#storage sqlite"}},
		{`{"query":"\"auth flow\"","projectId":"p1","sources":["memory","card"]}`, []string{`"auth flow"`, "--project", "p1", "--sources", "memory,card"}},
		{`{"query":"   "}`, []string{"   "}},
		{`{"query":"nothing-matches-this"}`, []string{"nothing-matches-this"}},
	}
	for _, c := range cases {
		status, got := api(t, srv, `{"action":"search","input":`+c.input+`}`)
		if status != http.StatusOK {
			t.Fatalf("%s: %d %s", c.input, status, got)
		}
		var stdout, stderr bytes.Buffer
		args := append([]string{"cairn", "--workspace", ws.Root, "--json", "board", "search"}, c.args...)
		if code := commands.Run(args, strings.NewReader(""), &stdout, &stderr); code != 0 {
			t.Fatalf("cairn %v: exit %d %s %s", c.args, code, stdout.String(), stderr.String())
		}
		if normalise(t, got) != normalise(t, stdout.Bytes()) {
			t.Errorf("%s:\nHTTP %s\nCLI  %s", c.input, got, stdout.Bytes())
		}
		if !bytes.Equal(got, stdout.Bytes()) {
			t.Errorf("%s: same document but different bytes", c.input)
		}
	}
}

// TestTools: every tool is reachable by its name with its own input and answers as tools call does.
func TestTools(t *testing.T) {
	ws := newWorkspace(t)
	srv, _, _ := newServer(t, ws)
	status, data := api(t, srv, `{"action":"TaskCreate","input":{"subject":"write the daemon"}}`)
	if status != http.StatusOK || !strings.Contains(string(data), `"subject": "write the daemon"`) {
		t.Fatalf("TaskCreate: %d %s", status, data)
	}
	status, data = api(t, srv, `{"action":"TaskList"}`)
	if status != http.StatusOK || !strings.Contains(string(data), `"total": 1`) {
		t.Fatalf("TaskList without input: %d %s", status, data)
	}
	var stdout bytes.Buffer
	commands.Run([]string{"cairn", "--workspace", ws.Root, "tools", "call", "TaskList"}, strings.NewReader(""), &stdout, io.Discard)
	if !bytes.Equal(data, stdout.Bytes()) {
		t.Errorf("TaskList over HTTP differs from tools call:\n%s\n%s", data, stdout.Bytes())
	}
}

func TestProjectsAndCard(t *testing.T) {
	ws := newWorkspace(t)
	srv, _, _ := newServer(t, ws)
	status, data := api(t, srv, `{"action":"projects","input":{}}`)
	if status != http.StatusOK {
		t.Fatalf("projects: %d %s", status, data)
	}
	var p struct {
		Projects []struct {
			ID, Title string
			Cards     int
		}
		Current *string
	}
	if err := json.Unmarshal(data, &p); err != nil {
		t.Fatal(err)
	}
	if len(p.Projects) != 2 || p.Projects[0].ID != "p2" || p.Projects[1].ID != "p1" || p.Projects[1].Cards != 2 || p.Current == nil || *p.Current != "p2" {
		t.Errorf("projects (by title, archived left out, latest activity current): %s", data)
	}
	status, data = api(t, srv, `{"action":"card","input":{"taskId":"c1"}}`)
	if status != http.StatusOK {
		t.Fatalf("card: %d %s", status, data)
	}
	var c struct {
		Card struct {
			Title string
			Tags  []string
		}
		Summary                    *struct{ Recap string }
		Notes                      []struct{ ID string }
		Workpads, Ideas, Artifacts []json.RawMessage
	}
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	if c.Card.Title != "迁移到 SQLite" || len(c.Card.Tags) != 2 || c.Summary == nil || c.Summary.Recap != "迁移 half done" ||
		len(c.Notes) != 1 || c.Notes[0].ID != "e1" || len(c.Workpads) != 1 || len(c.Artifacts) != 1 || len(c.Ideas) != 0 {
		t.Errorf("card c1 (latest summary, searched events only): %s", data)
	}
}

// TestProjectExamples: the projects answer carries example queries for the empty Search page,
// per project and for all projects, and each one finds cards in its scope.
// The card answer carries the query's highlights, found by the search's folding rules (ß is
// "ss", ﬁ is "fi", full-width letters are ASCII) and counted in UTF-16 units for the page.
func TestCardHighlights(t *testing.T) {
	ws := workspacetest.New(t)
	importBoard(t, ws, `{
  "revision": 1,
  "projects": [{"id":"p1","title":"Fold","archived":false,"memory":true}],
  "cards": [{"id":"c1","project":"p1","title":"😀 Straße ﬁle","description":"no match here","tags":["strasse","x"],"type":"","status":"Todo","archived":false,"updated_at":"2026-10-20T08:00:00Z","workspace_id":""}],
  "events": [{"id":"e1","card":"c1","type":"progress_reported","note":"ＦＩＬＥ and STRASSE","actor":"agent","at":"2026-10-20T08:00:00Z"}],
  "workpads": [], "ideas": [],
  "artifacts": [{"id":"a1","card":"c1","title":"the profile","note":"","target":"","external_key":"","at":"2026-10-20T08:00:00Z"}],
  "summaries": {}, "memory": []
}`)
	srv, _, _ := newServer(t, ws)
	status, data := api(t, srv, `{"action":"card","input":{"taskId":"c1","query":"strasse file"}}`)
	if status != http.StatusOK {
		t.Fatalf("card: %d %s", status, data)
	}
	var ans struct {
		Card       struct{ Title string }
		Highlights []map[string]any
	}
	if err := json.Unmarshal(data, &ans); err != nil {
		t.Fatal(err)
	}
	got, err := json.Marshal(ans.Highlights)
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"field":"title","ranges":[[3,9],[10,13]],"source":"card"},` +
		`{"field":"tags","index":0,"ranges":[[0,7]],"source":"card"},` +
		`{"field":"note","ranges":[[0,4],[9,16]],"refId":"e1","source":"note"},` +
		`{"field":"title","ranges":[[7,11]],"refId":"a1","source":"artifact"}]`
	if string(got) != want {
		t.Errorf("highlights\n got %s\nwant %s", got, want)
	}
	// In JavaScript terms: the title's ranges cut out exactly "Straße" and "ﬁle".
	units := utf16.Encode([]rune(ans.Card.Title))
	if a, b := string(utf16.Decode(units[3:9])), string(utf16.Decode(units[10:13])); a != "Straße" || b != "ﬁle" {
		t.Errorf("title ranges cut %q and %q", a, b)
	}

	// A query of tags only marks the tags' text wherever it occurs, as snippets do.
	status, data = api(t, srv, `{"action":"card","input":{"taskId":"c1","query":"#strasse"}}`)
	ans.Highlights = nil
	if err := json.Unmarshal(data, &ans); status != http.StatusOK || err != nil {
		t.Fatalf("tag query: %d %v %s", status, err, data)
	}
	if got, err = json.Marshal(ans.Highlights); err != nil {
		t.Fatal(err)
	}
	want = `[{"field":"title","ranges":[[3,9]],"source":"card"},` +
		`{"field":"tags","index":0,"ranges":[[0,7]],"source":"card"},` +
		`{"field":"note","ranges":[[9,16]],"refId":"e1","source":"note"}]`
	if string(got) != want {
		t.Errorf("tag query highlights\n got %s\nwant %s", got, want)
	}
	// Without a query (or with one of blanks) there is nothing to mark.
	for _, input := range []string{`{"taskId":"c1"}`, `{"taskId":"c1","query":"  "}`} {
		status, data = api(t, srv, `{"action":"card","input":`+input+`}`)
		if status != http.StatusOK || !strings.Contains(string(data), `"highlights": []`) {
			t.Errorf("card %s: %d %s", input, status, data)
		}
	}
	// A query the search refuses is refused here too.
	status, data = api(t, srv, `{"action":"card","input":{"taskId":"c1","query":"`+strings.Repeat("x", board.MaxQueryChars+1)+`"}}`)
	if status != http.StatusBadRequest || errorCode(t, data) != "INVALID_INPUT" || !strings.Contains(string(data), "query") {
		t.Errorf("long query: %d %s", status, data)
	}
}

func TestProjectExamples(t *testing.T) {
	srv, _, _ := newServer(t, newWorkspace(t))
	status, data := api(t, srv, `{"action":"projects","input":{}}`)
	if status != http.StatusOK {
		t.Fatalf("projects: %d %s", status, data)
	}
	var p struct {
		Examples map[string][]string
	}
	if err := json.Unmarshal(data, &p); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"", "p1", "p2"} {
		ex := p.Examples[id]
		if len(ex) == 0 {
			t.Errorf("no examples for project %q: %s", id, data)
		}
		scope := "null"
		if id != "" {
			scope = fmt.Sprintf("%q", id)
		}
		for _, q := range ex {
			input, _ := json.Marshal(q)
			status, res := api(t, srv, fmt.Sprintf(`{"action":"search","input":{"query":%s,"projectId":%s}}`, input, scope))
			var r struct{ Cards []json.RawMessage }
			if status != http.StatusOK || json.Unmarshal(res, &r) != nil || len(r.Cards) == 0 {
				t.Errorf("example %q of project %q finds nothing: %d %s", q, id, status, res)
			}
		}
	}
	if _, ok := p.Examples["p3"]; ok {
		t.Errorf("examples for the archived project: %s", data)
	}
}

// TestReload: a new import is picked up by the next request, once.
func TestReload(t *testing.T) {
	ws := newWorkspace(t)
	srv, h, _ := newServer(t, ws)
	search := `{"action":"search","input":{"query":"kumquat"}}`
	if _, data := api(t, srv, search); strings.Contains(string(data), "kumquat") {
		t.Fatalf("kumquat before the change: %s", data)
	}
	if _, _ = api(t, srv, search); h.Reloads() != 0 {
		t.Fatalf("reloaded without a change: %d", h.Reloads())
	}
	importBoard(t, ws, boardDoc(2, "Kumquat card"))
	status, data := api(t, srv, search)
	if status != http.StatusOK || !strings.Contains(string(data), `"title": "Kumquat card"`) {
		t.Fatalf("after re-import: %d %s", status, data)
	}
	api(t, srv, search)
	if h.Reloads() != 1 {
		t.Errorf("reloads = %d, want 1", h.Reloads())
	}
	// A change to a JSON file alone (same revision) is seen too.
	touch(t, ws.Path(board.MemoryPath))
	api(t, srv, search)
	if h.Reloads() != 2 {
		t.Errorf("reloads after touching memory.json = %d, want 2", h.Reloads())
	}
}

// TestConcurrent: 50 concurrent searches, with the board re-imported while they run, all succeed
// and share rebuilds (run with -race).
func TestConcurrent(t *testing.T) {
	ws := newWorkspace(t)
	srv, h, _ := newServer(t, ws)
	const n = 50
	var wg sync.WaitGroup
	errc := make(chan error, n)
	start := make(chan struct{})
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			<-start
			body := `{"action":"search","input":{"query":"migration","projectId":null}}`
			if i%5 == 0 {
				body = `{"action":"search","input":{"query":"迁移","projectId":"p1","sources":["summary","note"]}}`
			}
			req, _ := http.NewRequest(http.MethodPost, srv.URL+"/api", strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+testToken)
			resp, err := srv.Client().Do(req)
			if err != nil {
				errc <- err
				return
			}
			data, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || !bytes.Contains(data, []byte(`"cards"`)) {
				errc <- fmt.Errorf("request %d: %d %s", i, resp.StatusCode, data)
			}
		}(i)
	}
	close(start)
	importBoard(t, ws, boardDoc(3, "Mid-flight card"))
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Error(err)
	}
	if _, data := api(t, srv, `{"action":"search","input":{"query":"mid-flight"}}`); !strings.Contains(string(data), "Mid-flight card") {
		t.Errorf("after the concurrent import: %s", data)
	}
	if h.Reloads() > 1 {
		t.Errorf("one change, %d rebuilds: concurrent requests must share one", h.Reloads())
	}
}

func TestPage(t *testing.T) {
	srv, _, _ := newServer(t, newWorkspace(t))
	for _, path := range []string{"/", "/?token=abc", "/static/app.js", "/static/app.css", "/static/i18n/en.json"} {
		resp, err := srv.Client().Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || len(data) == 0 {
			t.Errorf("GET %s: %d", path, resp.StatusCode)
		}
		if resp.Header.Get("Referrer-Policy") != "no-referrer" || !strings.Contains(resp.Header.Get("Content-Security-Policy"), "script-src 'self'") {
			t.Errorf("GET %s: missing security headers %v", path, resp.Header)
		}
	}
	// The icon: the page links it, and the address browsers ask for by default answers too.
	for _, path := range []string{"/favicon.ico", "/static/favicon.svg"} {
		resp, err := srv.Client().Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "image/svg+xml" || !bytes.Contains(data, []byte("<svg")) {
			t.Errorf("GET %s: %d %q", path, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
	}
	resp, err := srv.Client().Get(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !bytes.Contains(page, []byte(`rel="icon" href="/static/favicon.svg"`)) {
		t.Errorf("the page does not link its icon")
	}
	resp, err = srv.Client().Get(srv.URL + "/nope")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET /nope: %d", resp.StatusCode)
	}
}

// TestCatalogs: the three string catalogs have exactly the same keys and no empty string.
func TestCatalogs(t *testing.T) {
	load := func(lang string) map[string]string {
		data, err := os.ReadFile(filepath.Join("static", "i18n", lang+".json"))
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]string
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatalf("%s.json: %v", lang, err)
		}
		return m
	}
	en := load("en")
	for _, lang := range []string{"zh", "ja"} {
		m := load(lang)
		for k := range en {
			if m[k] == "" {
				t.Errorf("%s.json lacks %q", lang, k)
			}
		}
		for k, v := range m {
			if _, ok := en[k]; !ok {
				t.Errorf("%s.json has %q, which en.json lacks", lang, k)
			}
			// Every string is translated: it holds Chinese or Japanese script, not English left over.
			if !strings.ContainsFunc(v, func(r rune) bool { return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana) }) {
				t.Errorf("%s.json %q = %q is not translated", lang, k, v)
			}
		}
	}
}

func TestCheckAddr(t *testing.T) {
	for addr, ok := range map[string]bool{
		"127.0.0.1:7777": true, "localhost:7777": true, "[::1]:7777": true, "127.1.2.3:0": true,
		":7777": false, "0.0.0.0:7777": false, "192.168.1.2:7777": false, "[::]:7777": false, "example.com:80": false,
	} {
		err := web.CheckAddr(addr, false)
		if (err == nil) != ok {
			t.Errorf("CheckAddr(%q) = %v", addr, err)
		}
		if err := web.CheckAddr(addr, true); err != nil {
			t.Errorf("CheckAddr(%q, allow) = %v", addr, err)
		}
	}
	if web.CheckAddr("7777", true) == nil {
		t.Error("an address without a host:port must be refused")
	}
}

func TestTokenFile(t *testing.T) {
	ws := newWorkspace(t)
	tok, err := web.NewToken()
	if err != nil || len(tok) != 64 {
		t.Fatalf("token %q %v", tok, err)
	}
	path, err := web.WriteToken(ws, tok)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("token file mode %v, want 0600", fi.Mode().Perm())
	}
	if err := web.RemoveToken(path, "another"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Errorf("a token file holding another daemon's token must stay: %v", err)
	}
	if err := web.RemoveToken(path, tok); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("token file still there: %v", err)
	}
}

// flowly_search over HTTP answers from the daemon's index in memory: it neither reads nor
// rewrites the snapshot, and gives what the CLI's agent view gives.
func TestFlowlySearchUsesTheIndexInMemory(t *testing.T) {
	ws := newWorkspace(t)
	ix, err := board.Load(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	h, err := web.New(web.Options{Workspace: ws, Index: ix, Token: testToken, Tools: tools.Context{Caller: workspace.Caller{Card: "c2"}}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	snap := filepath.Join(ws.Root, ".cairn", "board.snapshot")
	if err := os.Remove(snap); err != nil {
		t.Fatal(err)
	}
	status, data := api(t, srv, `{"action":"flowly_search","input":{"query":"迁移"}}`)
	if status != http.StatusOK || !strings.Contains(string(data), `"taskId": "c1"`) {
		t.Fatalf("flowly_search: %d %s", status, data)
	}
	if _, err := os.Stat(snap); !os.IsNotExist(err) {
		t.Fatal("flowly_search over HTTP loaded the board from disk (the snapshot was rewritten)")
	}
	var stdout bytes.Buffer
	commands.Run([]string{"cairn", "--workspace", ws.Root, "--card", "c2", "tools", "call", "flowly_search", "--input", `{"query":"迁移"}`}, strings.NewReader(""), &stdout, io.Discard)
	if !bytes.Equal(data, stdout.Bytes()) {
		t.Errorf("flowly_search over HTTP differs from tools call:\n%s\n%s", data, stdout.Bytes())
	}
}

// Every API answer states its length, so a client reads it on a kept connection without chunked
// decoding: a search answer, a failure, and a refused token.
func TestAnswerContentLength(t *testing.T) {
	srv, _, _ := newServer(t, newWorkspace(t))
	for _, c := range []struct{ auth, body string }{
		{"Bearer " + testToken, `{"action":"search","input":{"query":"a","limit":50}}`},
		{"Bearer " + testToken, `{"action":"search","input":{"query":1}}`},
		{"", `{"action":"search","input":{"query":"a"}}`},
	} {
		req, err := http.NewRequest(http.MethodPost, srv.URL+"/api", strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		if c.auth != "" {
			req.Header.Set("Authorization", c.auth)
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if resp.ContentLength != int64(len(data)) || len(resp.TransferEncoding) > 0 {
			t.Errorf("%s: Content-Length %d, Transfer-Encoding %v, body %d bytes", c.body, resp.ContentLength, resp.TransferEncoding, len(data))
		}
	}
}

// The daemon keeps the task list between calls (tools.Keep) and still answers it byte for byte
// as `cairn tools call` does, HTML characters unescaped, before and after another writer.
func TestTaskListKeptAnswersAsCLI(t *testing.T) {
	ws := newWorkspace(t)
	log := filepath.Join(ws.Root, "s.jsonl")
	h, err := web.New(web.Options{Workspace: ws, Token: testToken, Tools: tools.Context{Caller: workspace.Caller{Session: log}}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	cli := func(args ...string) []byte {
		var stdout bytes.Buffer
		commands.Run(append([]string{"cairn", "--workspace", ws.Root, "--session", log}, args...), strings.NewReader(""), &stdout, io.Discard)
		return stdout.Bytes()
	}
	for i, subject := range []string{"<b>&</b>", "second <i>"} {
		if status, data := api(t, srv, fmt.Sprintf(`{"action":"TaskCreate","input":{"subject":%q}}`, subject)); status != http.StatusOK {
			t.Fatalf("TaskCreate: %d %s", status, data)
		}
		cli("task", "create", fmt.Sprintf("other writer %d", i))
		want := cli("tools", "call", "TaskList")
		for range 2 { // the second answer comes from the kept list
			status, data := api(t, srv, `{"action":"TaskList"}`)
			if status != http.StatusOK || !bytes.Equal(data, want) {
				t.Fatalf("TaskList over HTTP: %d\n%s\nwant (tools call)\n%s", status, data, want)
			}
		}
	}
}
