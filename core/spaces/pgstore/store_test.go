package pgstore

import (
	"context"
	"fmt"
	"io"
	"net"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/spaces"
	"github.com/cairn-dev/cairn/core/workspace/workspacetest"
)

func TestRefusesCtypeC(t *testing.T) {
	dsn := newDatabase(t, "C")
	st, err := Open(context.Background(), dsn, Options{Wait: 5 * time.Second})
	if err == nil {
		st.Close()
		t.Fatal("a database with LC_CTYPE C was accepted")
	}
	if errs.CodeOf(err) != errs.Invalid || !strings.Contains(err.Error(), "LC_CTYPE C") || !strings.Contains(err.Error(), "CJK") {
		t.Fatalf("error %v (code %v), want INVALID_INPUT naming LC_CTYPE C and CJK", err, errs.CodeOf(err))
	}
	// and nothing was created in it
	c, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	var n int
	if err := c.QueryRow(context.Background(), `SELECT count(*) FROM pg_tables WHERE schemaname = 'public'`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d tables after the refusal (%v)", n, err)
	}
}

func TestSchemaVersionAndReopen(t *testing.T) {
	st, dsn := openTest(t)
	var v int
	if err := st.pool.QueryRow(context.Background(), `SELECT version FROM schema_version`).Scan(&v); err != nil || v != SchemaVersion() {
		t.Fatalf("schema_version %d (%v), want %d", v, err, SchemaVersion())
	}
	st2, err := Open(context.Background(), dsn, Options{})
	if err != nil {
		t.Fatal(err)
	}
	st2.Close()
	if _, err := st.pool.Exec(context.Background(), `UPDATE schema_version SET version = 99`); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(context.Background(), dsn, Options{}); errs.CodeOf(err) != errs.Invalid || !strings.Contains(err.Error(), "newer") {
		t.Fatalf("a newer schema: %v", err)
	}
}

// TestTwoProcessesWriteOnce: two stores (two pools, as two server processes) opened at once on a
// fresh database migrate it once, and importing the same records concurrently, several times,
// with add-comment of the same ids between, leaves each comment exactly once with its texts.
func TestTwoProcessesWriteOnce(t *testing.T) {
	dsn := newDatabase(t, "C.UTF-8")
	ctx := context.Background()
	corpus, _, commentIDs := genCorpus(3, 1500)
	stores := make([]*Store, 2)
	var wg sync.WaitGroup
	errc := make(chan error, 16)
	for i := range stores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, err := Open(ctx, dsn, Options{Wait: 20 * time.Second})
			stores[i] = st
			errc <- err
		}()
	}
	wg.Wait()
	for range stores {
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
	}
	for _, st := range stores {
		defer st.Close()
	}
	for round := 0; round < 3; round++ {
		for i, st := range stores {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := st.Import(ctx, strings.NewReader(corpus), 0, nil); err != nil {
					errc <- err
					return
				}
				_, err := st.AddComment(ctx, spaces.Comment{ID: spaces.ID(fmt.Sprintf("added-%d", round)), Task: "100", Kind: "result",
					Author: "agent", CreatedAt: "2026-03-01T00:00:00Z", Body: fmt.Sprintf("added by store %d", i)})
				errc <- err
			}()
		}
		wg.Wait()
		for range stores {
			if err := <-errc; err != nil {
				t.Fatal(err)
			}
		}
	}
	var n, distinct int
	if err := stores[0].pool.QueryRow(ctx, `SELECT count(*), count(DISTINCT id) FROM comments`).Scan(&n, &distinct); err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, id := range commentIDs {
		want[id] = true
	}
	if n != distinct || n != len(want)+3 {
		t.Fatalf("%d comments (%d distinct), want each of %d exactly once", n, distinct, len(want)+3)
	}
	var versions int
	if err := stores[0].pool.QueryRow(ctx, `SELECT count(*) FROM schema_version`).Scan(&versions); err != nil || versions != 1 {
		t.Fatalf("%d schema_version rows (%v)", versions, err)
	}
	// the search answers are spaces.db's for the same records
	ws := workspacetest.New(t)
	lite, err := spaces.Open(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lite.Import(ctx, strings.NewReader(corpus), 0, nil); err != nil {
		t.Fatal(err)
	}
	for round := 0; round < 3; round++ {
		lite.AddComment(ctx, spaces.Comment{ID: spaces.ID(fmt.Sprintf("added-%d", round)), Task: "100", Kind: "result",
			Author: "agent", CreatedAt: "2026-03-01T00:00:00Z", Body: "added by store 1"})
	}
	lite.Close()
	for _, q := range []string{"認証", "数", "ab", "rate limiter"} {
		c := spaces.Caller{User: "bob", Task: "101"}
		in := spaces.SearchInput{Query: q, Limit: 30}
		want, err := spaces.SearchWorkspaceTasks(ctx, ws, c, in)
		if err != nil {
			t.Fatal(err)
		}
		got, err := stores[1].Search(ctx, c, in)
		if err != nil || !reflect.DeepEqual(want, got) {
			t.Fatalf("%q after concurrent writes: %v\nsqlite %+v\npg     %+v", q, err, want.Search, got.Search)
		}
	}
}

// TestAddCommentEquivalence adds the same comments to both stores, with and without ids, and
// compares what add-comment answers and what searches find.
func TestAddCommentEquivalence(t *testing.T) {
	st, _ := openTest(t)
	ctx := context.Background()
	corpus, _, _ := genCorpus(4, 200)
	ws := workspacetest.New(t)
	lite, err := spaces.Open(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	defer lite.Close()
	for _, imp := range []func() error{
		func() error { _, err := lite.Import(ctx, strings.NewReader(corpus), 0, nil); return err },
		func() error { _, err := st.Import(ctx, strings.NewReader(corpus), 0, nil); return err },
	} {
		if err := imp(); err != nil {
			t.Fatal(err)
		}
	}
	for i, c := range []spaces.Comment{
		{Task: "100", Kind: "result", Author: "agent", CreatedAt: "2026-12-31T00:00:00Z", Body: "新しい 認証 result password=hunter2hunter2"},
		{Task: "101", Kind: "request", Author: "user", CreatedAt: "2026-12-31T00:00:01+09:00", Body: "second 認証 ask", Attachments: []string{"a.png"}},
		{ID: "1005", Task: "102", Kind: "progress", ProgressType: "tool", ToolName: "Bash", CreatedAt: "2026-12-30T00:00:00Z", Body: "ls 認証"},
		{ID: "c-x", Task: "100", Kind: "interjection_ack", CreatedAt: "2026-12-30T00:00:00Z", Body: "認証 never indexed"},
		{Task: "nope", Kind: "result", CreatedAt: "2026-12-30T00:00:00Z", Body: "no task"},
		{Task: "100", Kind: "bogus", CreatedAt: "2026-12-30T00:00:00Z", Body: "bad kind"},
	} {
		want, werr := lite.AddComment(ctx, c)
		got, gerr := st.AddComment(ctx, c)
		if errs.CodeOf(werr) != errs.CodeOf(gerr) || (werr == nil) != (gerr == nil) || !reflect.DeepEqual(want, got) {
			t.Fatalf("comment %d: sqlite %+v %v, pg %+v %v", i, want, werr, got, gerr)
		}
	}
	for _, q := range []string{"認証", "hunter2hunter2", "新", "a.png", "bash"} {
		c := spaces.Caller{User: "bob", Task: "task:t-10"}
		in := spaces.SearchInput{Query: q, Context: 1}
		want, werr := spaces.SearchWorkspaceTasks(ctx, ws, c, in)
		got, gerr := st.Search(ctx, c, in)
		if werr != nil || gerr != nil || !reflect.DeepEqual(want, got) {
			t.Fatalf("%q: %v %v\nsqlite %+v\npg     %+v", q, werr, gerr, want.Search, got.Search)
		}
	}
}

// proxy forwards TCP connections to the test server until it is closed, which also cuts every
// connection it carries: a database that goes away under a running store.
type proxy struct {
	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

func startProxy(t *testing.T, network, addr string) *proxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial(network, addr)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, s)
			p.mu.Unlock()
			go func() { io.Copy(s, c); s.Close() }()
			go func() { io.Copy(c, s); c.Close() }()
		}
	}()
	t.Cleanup(p.close)
	return p
}

func (p *proxy) close() {
	p.ln.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
}

// TestDatabaseDown: a server that cannot be reached at start-up, or that goes away under a
// running store, is STORAGE_BUSY within the store's wait, never a hang.
func TestDatabaseDown(t *testing.T) {
	dsn := newDatabase(t, "C.UTF-8")
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	network, addr := "tcp", net.JoinHostPort(cfg.Host, fmt.Sprint(cfg.Port))
	if strings.HasPrefix(cfg.Host, "/") {
		network, addr = "unix", fmt.Sprintf("%s/.s.PGSQL.%d", cfg.Host, cfg.Port)
	}
	p := startProxy(t, network, addr)
	host, port, _ := net.SplitHostPort(p.ln.Addr().String())
	viaProxy := fmt.Sprintf("host=%s port=%s user=%s dbname=%s sslmode=disable", host, port, cfg.User, cfg.Database)
	if cfg.Password != "" {
		viaProxy += " password=" + cfg.Password
	}
	ctx := context.Background()
	wait := 700 * time.Millisecond
	st, err := Open(ctx, viaProxy, Options{Wait: wait})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	corpus, _, _ := genCorpus(5, 50)
	if _, err := st.Import(ctx, strings.NewReader(corpus), 0, nil); err != nil {
		t.Fatal(err)
	}
	caller, in := spaces.Caller{User: "alice", Task: "100"}, spaces.SearchInput{Query: "認証"}
	if _, err := st.Search(ctx, caller, in); err != nil {
		t.Fatal(err)
	}
	p.close()
	for _, op := range []struct {
		name string
		call func() error
	}{
		{"search", func() error { _, err := st.Search(ctx, caller, in); return err }},
		{"add-comment", func() error {
			_, err := st.AddComment(ctx, spaces.Comment{Task: "100", Kind: "result", CreatedAt: "2026-01-01T00:00:00Z", Body: "x"})
			return err
		}},
		{"open", func() error {
			s, err := Open(ctx, viaProxy, Options{Wait: wait})
			if err == nil {
				s.Close()
			}
			return err
		}},
	} {
		t0 := time.Now()
		err := op.call()
		d := time.Since(t0)
		if errs.CodeOf(err) != errs.Busy {
			t.Errorf("%s with the database gone: %v (code %v), want STORAGE_BUSY", op.name, err, errs.CodeOf(err))
		}
		if d > 3*wait+time.Second {
			t.Errorf("%s took %s to fail, more than its wait of %s allows", op.name, d, wait)
		}
		t.Logf("%s: %s after %s", op.name, err, d.Round(time.Millisecond))
	}
}
