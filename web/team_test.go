package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/cairn-dev/cairn/core/spaces"
	"github.com/cairn-dev/cairn/core/spaces/pgstore"
	"github.com/cairn-dev/cairn/core/team"
	"github.com/cairn-dev/cairn/core/workspace/workspacetest"
	"github.com/cairn-dev/cairn/web"
)

// teamFixture is a team server on a test listener with members alice and bob (space team1) and
// eve (space other), and alice's batch pushed.
type teamFixture struct {
	srv             *httptest.Server
	st              team.Store
	alice, bob, eve string
	log             *workspacetest.Buffer
}

// eachTeamStore runs a test of the team API on each store: the embedded SQLite store, and
// PostgreSQL when CAIRN_TEST_POSTGRES names a server (scripts/pg-test.sh starts one; without it
// that subtest skips, on CI it fails).
func eachTeamStore(t *testing.T, test func(t *testing.T, f *teamFixture)) {
	for _, kind := range []string{"sqlite", "postgres"} {
		t.Run(kind, func(t *testing.T) { test(t, newTeam(t, kind)) })
	}
}

// openTeamStore opens a store of kind on an empty workspace or database.
func openTeamStore(t *testing.T, kind string) team.Store {
	t.Helper()
	ctx := context.Background()
	if kind == "sqlite" {
		st, err := team.OpenSQLite(ctx, workspacetest.New(t))
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	base := os.Getenv("CAIRN_TEST_POSTGRES")
	if base == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("CAIRN_TEST_POSTGRES is not set; CI runs the PostgreSQL tests (scripts/pg-test.sh)")
		}
		t.Skip("no PostgreSQL (CAIRN_TEST_POSTGRES; scripts/pg-test.sh starts a server)")
	}
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("connect to CAIRN_TEST_POSTGRES: %v", err)
	}
	defer admin.Close(ctx)
	name := fmt.Sprintf("cairn_web_test_%d_%d", os.Getpid(), pgSeq.Add(1))
	if _, err := admin.Exec(ctx, `CREATE DATABASE `+name+` TEMPLATE template0 ENCODING 'UTF8' LC_CTYPE 'C.UTF-8' LC_COLLATE 'C.UTF-8'`); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if c, err := pgx.Connect(ctx, base); err == nil {
			c.Exec(ctx, `DROP DATABASE IF EXISTS `+name+` WITH (FORCE)`)
			c.Close(ctx)
		}
	})
	dsn := base + " dbname=" + name
	if strings.HasPrefix(base, "postgres://") || strings.HasPrefix(base, "postgresql://") {
		u, err := url.Parse(base)
		if err != nil {
			t.Fatal(err)
		}
		u.Path = "/" + name
		dsn = u.String()
	}
	st, err := pgstore.Open(ctx, dsn, pgstore.Options{Wait: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return pgstore.NewTeam(st)
}

var pgSeq atomic.Int64

func newTeam(t *testing.T, kind string) *teamFixture {
	t.Helper()
	ctx := context.Background()
	st := openTeamStore(t, kind)
	t.Cleanup(func() { st.Close() })
	var err error
	s := team.NewServer(st)
	f := &teamFixture{st: st, log: &workspacetest.Buffer{}}
	for _, m := range []struct {
		user, space string
		tok         *string
	}{{"alice", "team1", &f.alice}, {"bob", "team1", &f.bob}, {"eve", "other", &f.eve}} {
		if *m.tok, _, err = s.AddMember(ctx, m.user, []string{m.space}); err != nil {
			t.Fatal(err)
		}
	}
	f.srv = httptest.NewServer(web.NewTeam(s, f.log))
	t.Cleanup(f.srv.Close)
	if code, body := f.do(t, f.alice, "POST", web.TeamImport+"?space=team1", batch("t1", "c1", "pelican plan password=hunter2hunter2")); code != 200 {
		t.Fatalf("import: %d %s", code, body)
	}
	return f
}

func batch(task, comment, body string) string {
	return fmt.Sprintf(`{"type":"task","id":%q,"space":"team1","title":"a task","status":"completed"}
{"type":"comment","id":%q,"task":%q,"kind":"request","author":"user","created_at":"2026-06-20T10:00:00Z","body":%q}
`, task, comment, task, body)
}

func (f *teamFixture) do(t *testing.T, token, method, path, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, f.srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(data)
}

func (f *teamFixture) search(t *testing.T, token, query string) (int, string) {
	t.Helper()
	b, _ := json.Marshal(team.SearchRequest{Input: spaces.SearchInput{Query: query}})
	return f.do(t, token, "POST", web.TeamSearch, string(b))
}

// A wrong, malformed, missing or revoked token is 401 on every route, and no token reaches the log.
func TestTeamTokens(t *testing.T) { eachTeamStore(t, testTeamTokens) }

func testTeamTokens(t *testing.T, f *teamFixture) {
	if code, body := f.search(t, f.alice, "pelican"); code != 200 || !strings.Contains(body, `"ref": "comment:c1"`) || strings.Contains(body, "hunter2") {
		t.Fatalf("alice: %d %s", code, body)
	}
	wrong := f.alice[:len(f.alice)-1] + "0"
	if wrong == f.alice {
		wrong = f.alice[:len(f.alice)-1] + "1"
	}
	for _, tok := range []string{"", "nonsense", wrong, strings.ToUpper(f.alice)} {
		for _, path := range []string{web.TeamSearch, web.TeamImport, web.TeamComment, web.TeamWhoami, web.TeamPrefix + "nope"} {
			if code, body := f.do(t, tok, "POST", path, `{}`); code != http.StatusUnauthorized || !strings.Contains(body, "UNAUTHORIZED") {
				t.Errorf("token %q on %s: %d %s", tok, path, code, body)
			}
		}
	}
	if removed, err := f.st.RemoveMember(context.Background(), "bob"); err != nil || !removed {
		t.Fatal(removed, err)
	}
	if code, _ := f.search(t, f.bob, "pelican"); code != http.StatusUnauthorized {
		t.Errorf("revoked token: %d", code)
	}
	if code, body := f.do(t, "", "GET", web.TeamWhoami+"?token="+f.alice, ""); code != http.StatusBadRequest {
		t.Errorf("token in the URL: %d %s", code, body)
	}
	if strings.Contains(f.log.String(), "cairn_") || strings.Contains(f.log.String(), "pelican") {
		t.Errorf("the log holds a token or a query:\n%s", f.log)
	}
}

// A member of another space sees nothing of team1 and cannot write into it: FORBIDDEN for the
// space, NOT_FOUND for its refs, FORBIDDEN for its ids.
func TestTeamSpaceBoundary(t *testing.T) { eachTeamStore(t, testTeamSpaceBoundary) }

func testTeamSpaceBoundary(t *testing.T, f *teamFixture) {
	if code, body := f.search(t, f.eve, "pelican"); code != 200 || !strings.Contains(body, `"hits": []`) {
		t.Errorf("eve in her own space: %d %s", code, body)
	}
	b, _ := json.Marshal(team.SearchRequest{Space: "team1", Input: spaces.SearchInput{Query: "pelican"}})
	if code, body := f.do(t, f.eve, "POST", web.TeamSearch, string(b)); code != http.StatusForbidden {
		t.Errorf("eve naming team1: %d %s", code, body)
	}
	b, _ = json.Marshal(team.SearchRequest{Input: spaces.SearchInput{Around: "comment:c1"}})
	if code, body := f.do(t, f.eve, "POST", web.TeamSearch, string(b)); code != http.StatusNotFound {
		t.Errorf("eve around team1's comment: %d %s", code, body)
	}
	// eve's push of team1's ids into her space is refused whole
	if code, body := f.do(t, f.eve, "POST", web.TeamImport, strings.ReplaceAll(batch("t1", "c1", "overwritten"), `"team1"`, `"other"`)); code != http.StatusForbidden {
		t.Errorf("eve overwriting team1's task: %d %s", code, body)
	}
	if code, body := f.do(t, f.eve, "POST", web.TeamImport, strings.ReplaceAll(batch("t9", "c1", "overwritten"), `"team1"`, `"other"`)); code != http.StatusForbidden {
		t.Errorf("eve overwriting team1's comment: %d %s", code, body)
	}
	cm, _ := json.Marshal(team.CommentRequest{Comment: spaces.Comment{Task: "t1", Body: "x"}})
	if code, body := f.do(t, f.eve, "POST", web.TeamComment, string(cm)); code != http.StatusNotFound {
		t.Errorf("eve commenting on team1's task: %d %s", code, body)
	}
	// a space or member record is never taken from a client
	if code, body := f.do(t, f.alice, "POST", web.TeamImport, `{"type":"member","space":"other","user":"alice"}`+"\n"); code != http.StatusForbidden {
		t.Errorf("alice adding herself to other: %d %s", code, body)
	}
	if code, body := f.search(t, f.alice, "overwritten"); code != 200 || !strings.Contains(body, `"hits": []`) {
		t.Errorf("something of eve's pushes was kept: %s", body)
	}
	// alice's own comment, as the member, with a private region dropped
	cm, _ = json.Marshal(team.CommentRequest{Comment: spaces.Comment{Task: "t1", Kind: "result", Author: "mallory", Body: "done <private>pelican diary</private> heron"}})
	if code, body := f.do(t, f.alice, "POST", web.TeamComment, string(cm)); code != 200 || !strings.Contains(body, `"author": "alice"`) {
		t.Errorf("alice's comment: %d %s", code, body)
	}
	if _, body := f.search(t, f.bob, "heron"); !strings.Contains(body, "done heron") || strings.Contains(body, "diary") {
		t.Errorf("bob's search of alice's comment: %s", body)
	}
}

// Oversized and malformed bodies are refused and change nothing.
func TestTeamBadBodies(t *testing.T) { eachTeamStore(t, testTeamBadBodies) }

func testTeamBadBodies(t *testing.T, f *teamFixture) {
	huge := strings.Repeat(batch("t2", "c2", "x"), 1)
	huge += `{"type":"comment","id":"c3","task":"t2","kind":"request","author":"u","created_at":"2026-06-20T10:00:00Z","body":"` + strings.Repeat("heron ", web.MaxImportBody/6+10) + `"}` + "\n"
	for name, c := range map[string]struct {
		path, body string
		want       int
	}{
		"oversized batch": {web.TeamImport, huge, http.StatusRequestEntityTooLarge},
		// one record over the line limit, in a batch under the body limit: refused whole, never
		// read past and dropped (the client would count it as sent)
		"oversized record": {web.TeamImport, batch("t2", "c2", "heron") + `{"type":"comment","id":"c3","task":"t2","kind":"request","author":"u","created_at":"2026-06-20T10:00:00Z","body":"` + strings.Repeat("heron ", 5<<20/6) + `"}` + "\n", http.StatusBadRequest},
		"too many records": {web.TeamImport, batch("t2", "c2", "heron") + strings.Repeat(`{"type":"task","id":"t3","space":"team1","title":"heron","status":"completed"}`+"\n", spaces.MaxBatchRecords), http.StatusBadRequest},
		"comment not JSON": {web.TeamComment, `{"comment": {"task": "t1", "body": "heron"`, http.StatusBadRequest},
		"comment field":    {web.TeamComment, `{"comment": {"task": "t1", "body": "heron", "space": "other"}}`, http.StatusBadRequest},
		"not JSON":         {web.TeamImport, batch("t2", "c2", "heron") + "{oops\n", http.StatusBadRequest},
		"unknown type":     {web.TeamImport, batch("t2", "c2", "heron") + `{"type":"nope"}` + "\n", http.StatusBadRequest},
		"bad time":         {web.TeamImport, strings.Replace(batch("t2", "c2", "heron"), "2026-06-20T10:00:00Z", "yesterday", 1), http.StatusBadRequest},
		"orphan comment":   {web.TeamImport, `{"type":"comment","id":"c9","task":"nope","kind":"request","author":"u","created_at":"2026-06-20T10:00:00Z","body":"heron"}` + "\n", http.StatusNotFound},
		"oversized search": {web.TeamSearch, `{"input":{"query":"` + strings.Repeat("a", web.MaxTeamJSON) + `"}}`, http.StatusRequestEntityTooLarge},
		"unknown field":    {web.TeamSearch, `{"input":{"query":"heron"},"user":"bob"}`, http.StatusBadRequest},
		"trailing data":    {web.TeamSearch, `{"input":{"query":"heron"}} {}`, http.StatusBadRequest},
		"no query":         {web.TeamSearch, `{"input":{}}`, http.StatusBadRequest},
		"search by GET":    {web.TeamSearch, ``, http.StatusMethodNotAllowed},
	} {
		method := "POST"
		if c.want == http.StatusMethodNotAllowed {
			method = "GET"
		}
		if code, body := f.do(t, f.alice, method, c.path, c.body); code != c.want {
			t.Errorf("%s: %d, want %d: %.200s", name, code, c.want, body)
		}
	}
	if _, body := f.search(t, f.alice, "heron"); !strings.Contains(body, `"hits": []`) {
		t.Errorf("a refused batch left something behind: %.300s", body)
	}
	for _, ref := range []string{"comment:c2", "comment:c3"} {
		b, _ := json.Marshal(team.SearchRequest{Input: spaces.SearchInput{Around: ref}})
		if code, body := f.do(t, f.alice, "POST", web.TeamSearch, string(b)); code != http.StatusNotFound {
			t.Errorf("%s of a refused batch: %d %.300s", ref, code, body)
		}
	}
	// and the server still answers
	if code, body := f.search(t, f.alice, "pelican"); code != 200 || !bytes.Contains([]byte(body), []byte("comment:c1")) {
		t.Errorf("after the bad bodies: %d %s", code, body)
	}
}
