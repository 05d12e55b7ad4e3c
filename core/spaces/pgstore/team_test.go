package pgstore

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/spaces"
	"github.com/cairn-dev/cairn/core/team"
	"github.com/cairn-dev/cairn/core/workspace/workspacetest"
)

// teamPair is the same team server over the SQLite store and over PostgreSQL.
type teamPair struct {
	lite, pg *team.Server
	// members by user, as each server authenticated its token
	liteM, pgM map[string]team.Member
}

func newTeamPair(t *testing.T) *teamPair {
	t.Helper()
	ctx := context.Background()
	st, _ := openTest(t)
	pg := NewTeam(st)
	ws := workspacetest.New(t)
	lite, err := team.OpenSQLite(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lite.Close() })
	p := &teamPair{lite: team.NewServer(lite), pg: team.NewServer(pg), liteM: map[string]team.Member{}, pgM: map[string]team.Member{}}
	for _, m := range []struct {
		user   string
		spaces []string
	}{{"alice", []string{"a", "b"}}, {"bob", []string{"a"}}, {"carol", []string{"b"}}} {
		for _, side := range []struct {
			s  *team.Server
			ms map[string]team.Member
		}{{p.lite, p.liteM}, {p.pg, p.pgM}} {
			tok, _, err := side.s.AddMember(ctx, m.user, m.spaces)
			if err != nil {
				t.Fatal(err)
			}
			got, err := side.s.Authenticate(ctx, tok)
			if err != nil {
				t.Fatal(err)
			}
			got.Created = ""
			side.ms[m.user] = got
		}
		if !reflect.DeepEqual(p.liteM[m.user], p.pgM[m.user]) {
			t.Fatalf("member %s: sqlite %+v, pg %+v", m.user, p.liteM[m.user], p.pgM[m.user])
		}
	}
	return p
}

// push sends one batch (space import lines) as user to both servers and wants the same report,
// or the same error code.
func (p *teamPair) push(t *testing.T, user, space, jsonl string) (spaces.BatchReport, error) {
	t.Helper()
	ctx := context.Background()
	b1, err := spaces.ReadBatch(strings.NewReader(jsonl), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	b2, _ := spaces.ReadBatch(strings.NewReader(jsonl), 1<<20)
	want, werr := p.lite.Import(ctx, p.liteM[user], space, b1)
	got, gerr := p.pg.Import(ctx, p.pgM[user], space, b2)
	if errs.CodeOf(werr) != errs.CodeOf(gerr) || (werr == nil) != (gerr == nil) {
		t.Fatalf("push by %s to %s: sqlite error %v, pg error %v", user, space, werr, gerr)
	}
	if want != got {
		t.Fatalf("push by %s to %s: sqlite %+v, pg %+v", user, space, want, got)
	}
	return want, werr
}

// teamBatches are the pushes of two members: tasks and comments of space a (bob) and b (carol)
// in batches, with duplicates, CJK running text, secrets, shared timestamps and later edits.
func teamBatches(rng *rand.Rand) (batches []struct{ user, space, jsonl string }, taskIDs map[string][]string, commentIDs []string) {
	taskIDs = map[string][]string{}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	authors := []string{"user", "agent", "Alice", "bob"}
	kinds := []struct{ kind, pt string }{{"request", ""}, {"comment", ""}, {"result", ""}, {"handoff", ""}, {"progress", "thinking"}, {"progress", "tool"}}
	n := 0
	for _, sp := range []struct{ user, space string }{{"bob", "a"}, {"carol", "b"}, {"bob", "a"}, {"carol", "b"}} {
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		for i := 0; i < 6; i++ {
			id := fmt.Sprintf("%s-t%d", sp.space, len(taskIDs[sp.space]))
			taskIDs[sp.space] = append(taskIDs[sp.space], id)
			enc.Encode(map[string]any{"type": "task", "id": id, "space": sp.space, "title": corpusWords[rng.Intn(len(corpusWords))] + " task " + id,
				"status": "completed", "created_at": "2026-01-01T00:00:00Z"})
		}
		for i := 0; i < 400; i++ {
			k := kinds[rng.Intn(len(kinds))]
			words := make([]string, 1+rng.Intn(25))
			for j := range words {
				words[j] = corpusWords[rng.Intn(len(corpusWords))]
			}
			sep := " "
			if rng.Intn(4) == 0 {
				sep = ""
			}
			at := start.Add(time.Duration(rng.Int63n(int64(200 * 24 * time.Hour)))).Truncate(time.Second)
			if rng.Intn(10) == 0 {
				at = start.Add(time.Duration(i%7) * time.Hour)
			}
			id := any(5000 + n)
			if n%9 == 2 {
				id = fmt.Sprintf("c-%d", n)
			}
			n++
			commentIDs = append(commentIDs, fmt.Sprint(id))
			ts := taskIDs[sp.space]
			rec := map[string]any{"type": "comment", "id": id, "task": ts[rng.Intn(len(ts))], "kind": k.kind, "author": authors[rng.Intn(len(authors))],
				"created_at": at.Format(time.RFC3339), "body": strings.Join(words, sep)}
			if k.pt != "" {
				rec["progress_type"] = k.pt
			}
			if k.pt == "tool" {
				rec["tool_name"] = "Bash"
			}
			enc.Encode(rec)
			if rng.Intn(30) == 0 { // the same comment again in the batch, changed: the last wins
				rec["body"] = rec["body"].(string) + " revised 稀有"
				enc.Encode(rec)
			}
		}
		batches = append(batches, struct{ user, space, jsonl string }{sp.user, sp.space, b.String()})
	}
	return batches, taskIDs, commentIDs
}

// TestTeamPostgresEquivalence pushes the same batches through team.OpenSQLite's server and the
// PostgreSQL one and asks both the same member searches: every report, answer and error code is
// the same, and the space bounds hold in both.
func TestTeamPostgresEquivalence(t *testing.T) {
	p := newTeamPair(t)
	ctx := context.Background()
	rng := rand.New(rand.NewSource(7))
	batches, taskIDs, commentIDs := teamBatches(rng)
	for _, b := range batches {
		p.push(t, b.user, b.space, b.jsonl)
		// a retried push changes nothing
		if rep, err := p.push(t, b.user, b.space, b.jsonl); err != nil || rep.Existing == 0 {
			t.Fatalf("re-push: %+v %v", rep, err)
		}
	}
	// the bounds: a task or comment of b pushed to a, a comment of a task outside the space
	task := func(id, space string) string {
		return fmt.Sprintf(`{"type":"task","id":%q,"space":%q,"title":"x","status":"completed","created_at":"2026-01-01T00:00:00Z"}`+"\n", id, space)
	}
	comment := func(id, task string) string {
		return fmt.Sprintf(`{"type":"comment","id":%q,"task":%q,"kind":"comment","author":"u","created_at":"2026-03-01T00:00:00Z","body":"hijack 認証"}`+"\n", id, task)
	}
	for _, c := range []struct {
		name, space, jsonl string
		code               errs.Code
	}{
		{"task of b into a", "a", task(taskIDs["b"][0], "a"), errs.Forbidden},
		{"task naming b pushed to a", "a", task("new-task", "b"), errs.Forbidden},
		{"comment of b into a", "a", task("a-new", "a") + comment(commentIDs[len(commentIDs)-1], "a-new"), errs.Forbidden},
		{"comment on a task of b", "a", comment("brand-new", taskIDs["b"][0]), errs.NotFound},
		{"comment on no task", "a", comment("brand-new", "nowhere"), errs.NotFound},
	} {
		if _, err := p.push(t, "alice", c.space, c.jsonl); errs.CodeOf(err) != c.code {
			t.Errorf("%s: %v, want %v", c.name, err, c.code)
		}
	}
	// add-comment: in the space, a new id assigned alike, outside the space NOT_FOUND
	for _, c := range []struct {
		user, space string
		cm          spaces.Comment
		code        errs.Code
	}{
		{"bob", "a", spaces.Comment{Task: spaces.ID(taskIDs["a"][1]), Body: "added 認証フロー by bob", CreatedAt: "2026-12-01T00:00:00Z"}, errs.Internal},
		{"bob", "a", spaces.Comment{ID: "named-1", Task: spaces.ID(taskIDs["a"][2]), Body: "named ログイン", CreatedAt: "2026-12-02T00:00:00Z"}, errs.Internal},
		{"bob", "a", spaces.Comment{Task: spaces.ID(taskIDs["b"][0]), Body: "into b", CreatedAt: "2026-12-01T00:00:00Z"}, errs.NotFound},
		{"alice", "a", spaces.Comment{ID: spaces.ID(commentIDs[len(commentIDs)-1]), Task: spaces.ID(taskIDs["a"][0]), Body: "steal", CreatedAt: "2026-12-01T00:00:00Z"}, errs.Forbidden},
		{"carol", "a", spaces.Comment{Task: spaces.ID(taskIDs["a"][0]), Body: "not a member", CreatedAt: "2026-12-01T00:00:00Z"}, errs.Forbidden},
	} {
		want, werr := p.lite.AddComment(ctx, p.liteM[c.user], team.CommentRequest{Space: c.space, Comment: c.cm})
		got, gerr := p.pg.AddComment(ctx, p.pgM[c.user], team.CommentRequest{Space: c.space, Comment: c.cm})
		if errs.CodeOf(werr) != errs.CodeOf(gerr) || (werr == nil) != (gerr == nil) || !reflect.DeepEqual(want, got) {
			t.Fatalf("add-comment %+v: sqlite %+v %v, pg %+v %v", c.cm, want, werr, got, gerr)
		}
		if c.code != errs.Internal && errs.CodeOf(werr) != c.code {
			t.Errorf("add-comment %+v: %v, want %v", c.cm, werr, c.code)
		}
		if c.code == errs.Internal && werr != nil {
			t.Errorf("add-comment %+v: %v", c.cm, werr)
		}
	}

	// the searches: every query term alone by bob, then random ones by every member, with
	// filters, limits, context, an excluded current task, a task_id of another space and
	// around_ref (of its space and of another)
	type req struct {
		user string
		r    team.SearchRequest
	}
	var cases []req
	for _, q := range corpusQueries {
		cases = append(cases, req{"bob", team.SearchRequest{Input: spaces.SearchInput{Query: q}}})
	}
	users := []struct{ user, space string }{{"bob", ""}, {"alice", "a"}, {"alice", "b"}, {"carol", ""}, {"bob", "b"}, {"alice", ""}}
	for len(cases) < 400 {
		u := users[rng.Intn(len(users))]
		r := team.SearchRequest{Space: u.space}
		sp := u.space
		if sp == "" {
			sp = map[string]string{"bob": "a", "carol": "b", "alice": "a"}[u.user]
		}
		if rng.Intn(3) == 0 {
			r.Task = "task:" + taskIDs[sp][rng.Intn(len(taskIDs[sp]))]
		}
		in := &r.Input
		if rng.Intn(7) == 0 {
			in.Around = "comment:" + commentIDs[rng.Intn(len(commentIDs))]
			in.Context = rng.Intn(3)
		} else {
			terms := make([]string, 1+rng.Intn(3))
			for i := range terms {
				terms[i] = corpusQueries[rng.Intn(len(corpusQueries))]
			}
			in.Query = strings.Join(terms, " ")
			if rng.Intn(3) == 0 {
				in.Limit = 1 + rng.Intn(30)
			}
			if rng.Intn(5) == 0 {
				in.Kind = spaces.FilterKinds[rng.Intn(len(spaces.FilterKinds))]
			}
			if rng.Intn(6) == 0 {
				in.Author = []string{"user", "agent", "Alice", "nobody"}[rng.Intn(4)]
			}
			if rng.Intn(6) == 0 {
				other := []string{"a", "b"}[rng.Intn(2)]
				in.TaskID = taskIDs[other][rng.Intn(len(taskIDs[other]))]
			}
			if rng.Intn(6) == 0 {
				in.Context = 1 + rng.Intn(2)
			}
		}
		cases = append(cases, req{u.user, r})
	}
	cases = append(cases,
		req{"alice", team.SearchRequest{Input: spaces.SearchInput{Query: "認証"}}},                      // two spaces, none named
		req{"bob", team.SearchRequest{Space: "a", Input: spaces.SearchInput{Query: ""}}},              // no query
		req{"bob", team.SearchRequest{Space: "a", Input: spaces.SearchInput{Around: "comment:nope"}}}, // no such comment
	)
	hits, truncated, arounds, cjkShort := 0, 0, 0, 0
	for i, c := range cases {
		want, werr := p.lite.Search(ctx, p.liteM[c.user], c.r)
		got, gerr := p.pg.Search(ctx, p.pgM[c.user], c.r)
		if errs.CodeOf(werr) != errs.CodeOf(gerr) || (werr == nil) != (gerr == nil) {
			t.Errorf("case %d %s %+v: sqlite error %v, pg error %v", i, c.user, c.r, werr, gerr)
			continue
		}
		if !reflect.DeepEqual(want, got) {
			wj, _ := json.MarshalIndent(want.Value(), "", " ")
			gj, _ := json.MarshalIndent(got.Value(), "", " ")
			t.Errorf("case %d %s %+v differ:\nsqlite %s\npg     %s", i, c.user, c.r, wj, gj)
			continue
		}
		if want.Search != nil {
			hits += len(want.Search.Hits)
			if want.Search.Truncated {
				truncated++
			}
			if q := []rune(strings.TrimSpace(c.r.Input.Query)); len(q) <= 2 && len(q) > 0 && q[0] > 0x3000 && len(want.Search.Hits) > 0 {
				cjkShort++
			}
		}
		if want.Around != nil {
			arounds++
		}
		// the bound: no hit or neighbour is of another space's task, nor of the excluded task
		space := c.r.Space
		if space == "" {
			space = map[string]string{"bob": "a", "carol": "b"}[c.user]
		}
		if want.Search != nil {
			for _, h := range want.Search.Hits {
				if !strings.HasPrefix(h.Task, "task:"+space+"-") || (c.r.Task != "" && h.Task == c.r.Task) {
					t.Errorf("case %d: hit %s of %s out of bounds (space %s, task %s)", i, h.Ref, h.Task, space, c.r.Task)
				}
			}
		}
	}
	t.Logf("%d searches, %d hits, %d truncated, %d around_ref, %d short CJK with hits: identical", len(cases), hits, truncated, arounds, cjkShort)
	if len(cases) < 50 || hits < 300 || truncated < 10 || arounds < 10 || cjkShort < 5 {
		t.Errorf("the pushes test too little: %d searches, %d hits, %d truncated, %d around_ref, %d short CJK", len(cases), hits, truncated, arounds, cjkShort)
	}

	// members: the same list; a removed member's token fails at once
	lm, _ := p.lite.Store().Members(ctx)
	pm, err := p.pg.Store().Members(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i := range lm {
		lm[i].Created = ""
	}
	for i := range pm {
		pm[i].Created = ""
	}
	if !reflect.DeepEqual(lm, pm) {
		t.Errorf("members: sqlite %+v, pg %+v", lm, pm)
	}
}

// TestTeamPostgresMembers is the store's side of members and the key: one key for every
// server over the database, a member twice INVALID_INPUT, a removed member's token NOT_FOUND.
func TestTeamPostgresMembers(t *testing.T) {
	ctx := context.Background()
	st, dsn := openTest(t)
	a := NewTeam(st)
	other, err := team.Postgres(ctx, dsn, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	k1, err := a.Key(ctx)
	if err != nil {
		t.Fatal(err)
	}
	k2, err := other.Key(ctx)
	if err != nil || string(k1) != string(k2) || len(k1) != 32 {
		t.Fatalf("keys differ or are short: %x %x %v", k1, k2, err)
	}
	s1, s2 := team.NewServer(a), team.NewServer(other)
	tok, _, err := s1.AddMember(ctx, "dana", []string{"z", "y"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s2.AddMember(ctx, "dana", nil); errs.CodeOf(err) != errs.Invalid {
		t.Errorf("twice: %v", err)
	}
	m, err := s2.Authenticate(ctx, tok)
	if err != nil || m.User != "dana" || strings.Join(m.Spaces, ",") != "y,z" {
		t.Fatalf("the other server: %+v %v", m, err)
	}
	if _, err := s2.Authenticate(ctx, tok+"x"); err != team.ErrUnauthorized {
		t.Errorf("a wrong token: %v", err)
	}
	if ok, err := a.RemoveMember(ctx, "dana"); !ok || err != nil {
		t.Fatal(ok, err)
	}
	if ok, _ := a.RemoveMember(ctx, "dana"); ok {
		t.Error("removed twice")
	}
	if _, err := s2.Authenticate(ctx, tok); err != team.ErrUnauthorized {
		t.Errorf("revoked, through the other server: %v", err)
	}
	if ms, err := other.Members(ctx); err != nil || len(ms) != 0 {
		t.Errorf("members after removal: %+v %v", ms, err)
	}
}

// TestTeamPostgresMigrateFromV1: a database of schema version 1 (before the team tables) is
// brought to the current version when a server opens it, its records kept: the short-term
// index's tokens of its comments filled (version 3) and searched, its texts redacted again
// (version 4).
func TestTeamPostgresMigrateFromV1(t *testing.T) {
	ctx := context.Background()
	st, dsn := openTest(t)
	if _, err := st.Import(ctx, strings.NewReader(`{"type":"space","id":"a","name":"a","owner":"o"}
{"type":"task","id":"t1","space":"a","title":"x","status":"completed","created_at":"2026-01-01T00:00:00Z"}
{"type":"task","id":"t2","space":"a","title":"y","status":"completed","created_at":"2026-01-01T00:00:00Z"}
{"type":"comment","id":"c1","task":"t1","kind":"request","author":"o","created_at":"2026-01-01T00:00:00Z","body":"認証 flow ok"}
{"type":"comment","id":"c2","task":"t1","kind":"comment","author":"o","created_at":"2026-02-01T00:00:00Z","body":"認 not indexed"}
`), 0, nil); err != nil {
		t.Fatal(err)
	}
	// schema version 1: no team tables, the short-term index an expression of cairn_grams
	if _, err := st.pool.Exec(ctx, `DROP TABLE team_key, team_members, redaction; ALTER TABLE comments DROP COLUMN grams;
		CREATE INDEX comments_grams ON comments USING gin (cairn_grams(itext, at_ns)); UPDATE schema_version SET version = 1`); err != nil {
		t.Fatal(err)
	}
	st.Close()
	ts, err := team.Postgres(ctx, dsn, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer ts.Close()
	pg := ts.(*Team).st
	var v, tasks, filled, differ int
	if err := pg.pool.QueryRow(ctx, `SELECT (SELECT version FROM schema_version), (SELECT count(*) FROM tasks),
		(SELECT count(*) FROM comments WHERE cardinality(grams) > 0),
		(SELECT count(*) FROM comments WHERE grams IS DISTINCT FROM cairn_grams(itext, at_ns))`).Scan(&v, &tasks, &filled, &differ); err != nil || v != SchemaVersion() || tasks != 2 || filled != 1 || differ != 0 {
		t.Fatalf("after migrating: version %d, %d tasks, %d comments with grams, %d not cairn_grams' (%v)", v, tasks, filled, differ, err)
	}
	pg.probeWindow = 0 // the short-term index, not the newest comments
	ans, err := ts.Search(ctx, "a", "t2", spaces.SearchInput{Query: "認"})
	if err != nil || ans.Search == nil || len(ans.Search.Hits) != 1 || ans.Search.Hits[0].Ref != "comment:c1" {
		t.Fatalf("search after migrating: %+v %v", ans, err)
	}
	if k, err := ts.Key(ctx); err != nil || len(k) != 32 {
		t.Fatalf("key: %x %v", k, err)
	}
}

// TestTeamPostgresOneConnection: the key is read once per process; a request held with Hold
// authenticates and searches on one connection of the pool, acquired once; a held connection
// that breaks (its backend terminated) is replaced by the next call; the pool is the DSN's
// pool_max_conns, else DefaultMaxConns.
func TestTeamPostgresOneConnection(t *testing.T) {
	ctx := context.Background()
	st, dsn := openTest(t)
	if got := st.MaxConns(); got != DefaultMaxConns() || got < 8 {
		t.Errorf("pool of %d connections, want DefaultMaxConns %d", got, DefaultMaxConns())
	}
	sep := " "
	if strings.HasPrefix(dsn, "postgres") {
		sep = "?"
		if strings.Contains(dsn, "?") {
			sep = "&"
		}
	}
	three, err := Open(ctx, dsn+sep+"pool_max_conns=3", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if three.MaxConns() != 3 {
		t.Errorf("pool_max_conns=3: %d connections", three.MaxConns())
	}
	three.Close()

	tm := NewTeam(st)
	srv := team.NewServer(tm)
	tok, _, err := srv.AddMember(ctx, "dana", []string{"s"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tm.Import(ctx, "s", spaces.Batch{Tasks: []spaces.BatchTask{{ID: "t1", Title: "one", Status: "completed"}},
		Comments: []spaces.Comment{{ID: "c1", Task: "t1", Kind: "request", Author: "u", CreatedAt: "2026-01-02T03:04:05Z", Body: "pelican rollout", Attachments: []string{}}}}); err != nil {
		t.Fatal(err)
	}
	acquires := func() int64 { return st.pool.Stat().AcquireCount() }
	// the key: read once
	a0 := acquires()
	for range 3 {
		if _, err := tm.Key(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if n := acquires() - a0; n != 0 {
		t.Errorf("the key read again: %d acquires", n)
	}
	search := func(ctx context.Context) {
		t.Helper()
		m, err := srv.Authenticate(ctx, tok)
		if err != nil {
			t.Fatal(err)
		}
		a, err := srv.Search(ctx, m, team.SearchRequest{Input: spaces.SearchInput{Query: "pelican"}})
		if err != nil || a.Search == nil || len(a.Search.Hits) != 1 {
			t.Fatalf("search: %+v %v", a, err)
		}
	}
	// without Hold: one connection for the member, one for the search
	a0 = acquires()
	search(ctx)
	if n := acquires() - a0; n != 2 {
		t.Errorf("without Hold: %d acquires, want 2", n)
	}
	// held: one
	a0 = acquires()
	hctx, release := srv.Hold(ctx)
	search(hctx)
	pid := func(ctx context.Context) (p int32) {
		t.Helper()
		if err := st.withConn(ctx, "pid", func(ctx context.Context, c *pgxpool.Conn) error {
			return c.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&p)
		}); err != nil {
			t.Fatal(err)
		}
		return p
	}
	p1 := pid(hctx)
	if p2 := pid(hctx); p1 != p2 {
		t.Errorf("held calls on backends %d and %d", p1, p2)
	}
	if n := acquires() - a0; n != 1 {
		t.Errorf("held: %d acquires, want 1", n)
	}
	if got := st.pool.Stat().AcquiredConns(); got != 1 {
		t.Errorf("%d connections acquired while held", got)
	}
	// its backend terminated: the next call (tried again) takes another connection
	if _, err := st.pool.Exec(ctx, `SELECT pg_terminate_backend($1)`, p1); err != nil {
		t.Fatal(err)
	}
	search(hctx)
	if p3 := pid(hctx); p3 == p1 {
		t.Errorf("still on the terminated backend %d", p1)
	}
	release()
	if got := st.pool.Stat().AcquiredConns(); got != 0 {
		t.Errorf("%d connections acquired after release", got)
	}
}
