package team

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/spaces"
	"github.com/cairn-dev/cairn/core/workspace/workspacetest"
)

func TestTokens(t *testing.T) {
	tok, id, err := NewToken()
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := TokenID(tok); !ok || got != id {
		t.Fatalf("TokenID(%s) = %s, %v", tok, got, ok)
	}
	for _, bad := range []string{"", "cairn_", tok + "0", tok[:len(tok)-1], strings.ToUpper(tok), "x" + tok[1:]} {
		if _, ok := TokenID(bad); ok {
			t.Errorf("TokenID(%q) ok", bad)
		}
	}
	if string(TokenMAC([]byte("k1"), tok)) == string(TokenMAC([]byte("k2"), tok)) {
		t.Error("the MAC ignores its key")
	}
}

func TestServerMembers(t *testing.T) {
	ctx := context.Background()
	ws := workspacetest.New(t)
	st, err := OpenSQLite(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s := NewServer(st)
	tok, m, err := s.AddMember(ctx, "alice", []string{"b", "a", "a"})
	if err != nil || strings.Join(m.Spaces, ",") != "a,b" {
		t.Fatalf("AddMember: %v %v", m, err)
	}
	if _, _, err := s.AddMember(ctx, "alice", nil); errs.CodeOf(err) != errs.Invalid {
		t.Errorf("twice: %v", err)
	}
	if _, _, err := s.AddMember(ctx, "bad user", nil); errs.CodeOf(err) != errs.Invalid {
		t.Errorf("bad name: %v", err)
	}
	got, err := s.Authenticate(ctx, tok)
	if err != nil || got.User != "alice" {
		t.Fatalf("Authenticate: %v %v", got, err)
	}
	// the store keeps neither the token nor its secret part
	ms, _ := st.Members(ctx)
	if len(ms) != 1 || ms[0].User != "alice" {
		t.Fatalf("Members: %v", ms)
	}
	if _, err := got.space(""); errs.CodeOf(err) != errs.Invalid {
		t.Errorf("two spaces, none named: %v", err)
	}
	if _, err := got.space("c"); errs.CodeOf(err) != errs.Forbidden {
		t.Errorf("another space: %v", err)
	}
	if _, err := s.Search(ctx, got, SearchRequest{Space: "a", Input: spaces.SearchInput{Query: "x"}}); err != nil {
		t.Errorf("search of an empty store: %v", err)
	}
	if ok, err := st.RemoveMember(ctx, "alice"); !ok || err != nil {
		t.Fatal(ok, err)
	}
	if _, err := s.Authenticate(ctx, tok); err != ErrUnauthorized {
		t.Errorf("revoked: %v", err)
	}
}

func TestOpenStore(t *testing.T) {
	ws := workspacetest.New(t)
	_, err := OpenStore(context.Background(), ws, "postgres://u:secretpw@db/cairn")
	if errs.CodeOf(err) != errs.Invalid || !strings.Contains(err.Error(), "not built in this build") || strings.Contains(err.Error(), "secretpw") {
		t.Errorf("postgres: %v", err)
	}
	if _, err := OpenStore(context.Background(), ws, "mysql://x"); errs.CodeOf(err) != errs.Invalid {
		t.Errorf("mysql: %v", err)
	}
}

// TestSQLiteSearchTurns: the SQLite store runs SearchesAtOnce searches at once, each on its own
// connection; one that waits longer than the workspace's wait for its turn is STORAGE_BUSY
// without having run, and one whose context ends while it waits is CANCELLED.
func TestSQLiteSearchTurns(t *testing.T) {
	ctx := context.Background()
	ws := workspacetest.New(t)
	st, err := OpenSQLite(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	b := spaces.Batch{Tasks: []spaces.BatchTask{{ID: "t1", Title: "one", Status: "completed"}, {ID: "t2", Title: "two", Status: "completed"}}}
	for i := range 50 {
		b.Comments = append(b.Comments, spaces.Comment{ID: spaces.ID(fmt.Sprintf("c%d", i)), Task: spaces.ID([]string{"t1", "t2"}[i%2]),
			Kind: "request", Author: "u", CreatedAt: fmt.Sprintf("2024-01-01T00:00:%02dZ", i), Body: fmt.Sprintf("deploy step %d of the rollout", i), Attachments: []string{}})
	}
	if _, err := st.Import(ctx, "a", b); err != nil {
		t.Fatal(err)
	}
	n := SearchesAtOnce()
	if cap(st.running) != n || st.readers.Conns != n || n < 2 {
		t.Fatalf("%d turns, %d connections, want %d", cap(st.running), st.readers.Conns, n)
	}
	// many at once: every one answered, the same
	var wg sync.WaitGroup
	errc := make(chan error, 4*n)
	for range 4 * n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a, err := st.Search(ctx, "a", "t1", spaces.SearchInput{Query: "rollout", Limit: 30})
			if err == nil && (a.Search == nil || len(a.Search.Hits) != 25) {
				err = fmt.Errorf("answer %+v %v", a.Search, a.Unavailable)
			}
			errc <- err
		}()
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		if err != nil {
			t.Fatal(err)
		}
	}
	// every turn taken: a search waits the workspace's wait, then is STORAGE_BUSY
	for range n {
		st.running <- struct{}{}
	}
	ws.Wait = 100 * time.Millisecond
	t0 := time.Now()
	_, err = st.Search(ctx, "a", "", spaces.SearchInput{Query: "rollout"})
	if errs.CodeOf(err) != errs.Busy || !strings.Contains(err.Error(), "waited 100ms for its turn") || time.Since(t0) > 2*time.Second {
		t.Errorf("no turn: %v after %s", err, time.Since(t0))
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := st.Search(cctx, "a", "", spaces.SearchInput{Query: "rollout"}); errs.CodeOf(err) != errs.Cancelled {
		t.Errorf("cancelled while waiting: %v", err)
	}
	// a turn given back while one waits: it runs
	ws.Wait = 10 * time.Second
	go func() {
		time.Sleep(50 * time.Millisecond)
		<-st.running
	}()
	if a, err := st.Search(ctx, "a", "", spaces.SearchInput{Query: "rollout"}); err != nil || a.Search == nil || len(a.Search.Hits) != 10 {
		t.Errorf("after a turn came free: %+v %v", a, err)
	}
}
