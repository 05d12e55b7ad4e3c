package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/core/board"
	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/tasks"
	"github.com/cairn-dev/cairn/core/workspace"
	"github.com/cairn-dev/cairn/core/workspace/workspacetest"
)

// A cached task list is the replay's answer and its JSON, kept (not encoded again) while the log
// is unchanged and replayed again as soon as another writer appends to it.
func TestKeptTaskListFollowsTheLog(t *testing.T) {
	c := newContext(t)
	kept := Keep(c.Workspace, KeepOptions{})
	c.Stores = kept
	defer kept.Close()
	var lastJSON []byte
	list := func() tasks.ListResult {
		t.Helper()
		tool, _ := New().Get("TaskList")
		out, err := tool.Call(context.Background(), c, json.RawMessage(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		e, ok := out.(Encoded)
		if !ok {
			t.Fatalf("a cached task list is %T, not Encoded", out)
		}
		got := e.Value.(tasks.ListResult)
		if want, _ := json.Marshal(got); !bytes.Equal(e.JSON, want) {
			t.Fatalf("kept JSON\n%s\nis not the list's\n%s", e.JSON, want)
		}
		if marshalled, _ := json.Marshal(out); !bytes.Equal(marshalled, e.JSON) {
			t.Fatalf("encoding the answer gives\n%s\nnot\n%s", marshalled, e.JSON)
		}
		lastJSON = e.JSON
		return got
	}
	s, err := tasks.OpenSession(context.Background(), c.Workspace, c.Workspace.Wait, c.Caller)
	if err != nil {
		t.Fatal(err)
	}
	for i, subject := range []string{"one", "two", "three"} {
		if _, err := s.Create(context.Background(), subject, ""); err != nil {
			t.Fatal(err)
		}
		got := list()
		want, err := s.List(context.Background(), tasks.Stop{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) || len(got.Tasks) != i+1 {
			t.Fatalf("after %d creates: cached %+v, replayed %+v", i+1, got, want)
		}
		entry, keptJSON := kept.tasks, lastJSON
		if list(); kept.tasks != entry || &lastJSON[0] != &keptJSON[0] {
			t.Fatal("the log did not change, yet it was replayed or encoded again")
		}
	}
	done := "completed"
	if _, err := s.Update(context.Background(), 2, tasks.UpdateFields{Status: &done}); err != nil {
		t.Fatal(err)
	}
	if got := list(); got.Tasks[1].Status != done || !bytes.Contains(lastJSON, []byte(`"status":"completed"`)) {
		t.Errorf("update by another writer not seen: %+v in %s", got.Tasks[1], lastJSON)
	}
}

// callCreate calls TaskCreate through the registry and returns the id it answered.
func callCreate(t *testing.T, c Context, subject string) (int, error) {
	tool, _ := New().Get("TaskCreate")
	in, _ := json.Marshal(map[string]string{"subject": subject})
	out, err := tool.Call(context.Background(), c, in)
	if err != nil {
		return 0, err
	}
	return out.(tasks.Result).Task.TaskID, nil
}

// A burst of concurrent creates on one log through one Kept (one `cairn mcp`) all succeed, with
// ids 1..n each once, even with a lock wait far shorter than the burst: the process's own calls
// take turns instead of contending for the log's lock (before, each opened the lock on its own
// descriptor and flock made them wait for one another as for another process: STORAGE_BUSY).
func TestKeptCreateBurstOnOneLog(t *testing.T) {
	c := newContext(t)
	c.Workspace.Wait = 20 * time.Millisecond
	kept := Keep(c.Workspace, KeepOptions{})
	c.Stores = kept
	defer kept.Close()
	const n = 300
	ids := make([]int, n)
	errors := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { ids[i], errors[i] = callCreate(t, c, fmt.Sprintf("burst %d", i)) })
	}
	wg.Wait()
	seen := map[int]bool{}
	for i := range n {
		if errors[i] != nil {
			t.Fatalf("call %d: %v", i, errors[i])
		}
		if ids[i] < 1 || ids[i] > n || seen[ids[i]] {
			t.Fatalf("call %d answered id %d (ids must be 1..%d, each once)", i, ids[i], n)
		}
		seen[ids[i]] = true
	}
	s, err := tasks.OpenSession(context.Background(), c.Workspace, c.Workspace.Wait, c.Caller)
	if err != nil {
		t.Fatal(err)
	}
	list, err := s.List(context.Background(), tasks.Stop{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Tasks) != n || list.Tasks[n-1].TaskID != n {
		t.Fatalf("the log replays to %d tasks, the last %+v", len(list.Tasks), list.Tasks[len(list.Tasks)-1])
	}
}

// Between two calls of the server, a write by another process (a session of its own, with its
// own lock descriptor) is seen by the next call; and while another process holds the log's lock,
// a call still waits for it and fails STORAGE_BUSY when the wait runs out.
func TestKeptCreateSeesOtherWriters(t *testing.T) {
	c := newContext(t)
	c.Workspace.Wait = 100 * time.Millisecond
	kept := Keep(c.Workspace, KeepOptions{})
	c.Stores = kept
	defer kept.Close()
	for want := 1; want <= 2; want++ {
		if id, err := callCreate(t, c, "server"); err != nil || id != want {
			t.Fatalf("create %d: id %d, %v", want, id, err)
		}
	}
	other, err := tasks.OpenSession(context.Background(), c.Workspace, c.Workspace.Wait, c.Caller)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := other.Create(context.Background(), "other process", ""); err != nil || res.Task.TaskID != 3 {
		t.Fatalf("the other writer's create: %+v, %v", res, err)
	}
	if id, err := callCreate(t, c, "server again"); err != nil || id != 4 {
		t.Fatalf("after another writer's create, the server answered id %d, %v (want 4)", id, err)
	}
	held, err := workspace.LockFile(context.Background(), other.Log.LockPath(), true, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	_, err = callCreate(t, c, "while locked")
	held.Unlock()
	if errs.CodeOf(err) != errs.Busy {
		t.Fatalf("a create while another process holds the lock: %v, want STORAGE_BUSY", err)
	}
	if id, err := callCreate(t, c, "after the lock"); err != nil || id != 5 {
		t.Fatalf("after the lock was released: id %d, %v (want 5: the busy call appended nothing)", id, err)
	}
}

// A kept board is loaded on first use (NOT_FOUND while there is none, and again on the next
// call), answered from memory while its files are unchanged, and loaded again once after an
// import; OpenEach loads the snapshot each time and answers alike.
func TestKeptBoardReloadsWhenStale(t *testing.T) {
	ws := workspacetest.New(t)
	ctx := context.Background()
	k := Keep(ws, KeepOptions{})
	defer k.Close()
	if _, err := k.Board(ctx); errs.CodeOf(err) != errs.NotFound {
		t.Fatalf("before any board: %v, want NOT_FOUND", err)
	}
	doc := func(rev int, title string) *strings.Reader {
		return strings.NewReader(fmt.Sprintf(`{"revision":%d,"projects":[{"id":"p1","title":"P","archived":false,"memory":true}],
"cards":[{"id":"c1","project":"p1","title":%q,"description":"","tags":[],"type":"","status":"Todo","archived":false,"updated_at":"2026-10-20T08:00:00Z","workspace_id":""}]}`, rev, title))
	}
	if _, err := board.Import(ctx, ws, doc(1, "first")); err != nil {
		t.Fatal(err)
	}
	ix, err := k.Board(ctx)
	if err != nil || k.Reloads() != 1 {
		t.Fatalf("first load: %v, %d loads", err, k.Reloads())
	}
	if again, _ := k.Board(ctx); again != ix || k.Reloads() != 1 {
		t.Fatalf("unchanged files, yet loaded again (%d loads)", k.Reloads())
	}
	if _, err := board.Import(ctx, ws, doc(2, "second")); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	got := make([]*board.Index, 8)
	for i := range got {
		wg.Go(func() { got[i], _ = k.Board(ctx) })
	}
	wg.Wait()
	for _, g := range got {
		if g == nil || g == ix || g != got[0] {
			t.Fatalf("after an import, concurrent calls answered %v (old %p): one rebuild must serve them all", got, ix)
		}
	}
	if k.Reloads() != 2 {
		t.Errorf("%d loads, want 2", k.Reloads())
	}
	in := board.SearchInput{Query: "second"}
	kept, err := got[0].Search(ctx, ws.Config.Board, in)
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := OpenEach(ws).Board(ctx)
	if err != nil {
		t.Fatal(err)
	}
	once, err := fresh.Search(ctx, ws.Config.Board, in)
	if err != nil || !reflect.DeepEqual(kept, once) || len(once.Cards) != 1 {
		t.Errorf("kept board answered %+v, OpenEach %+v (%v)", kept, once, err)
	}
}
