package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/cairn-dev/cairn/core/tasks"
)

// A cached task list is the replay's answer and its JSON, kept (not encoded again) while the log
// is unchanged and replayed again as soon as another writer appends to it.
func TestCacheTaskListFollowsTheLog(t *testing.T) {
	c := newContext(t)
	c.Cache = NewCache()
	defer c.Cache.Close()
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
	s, err := tasks.OpenSession(c.Workspace, c.Workspace.Wait, c.Caller)
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
		kept, keptJSON := c.Cache.tasks, lastJSON
		if list(); c.Cache.tasks != kept || &lastJSON[0] != &keptJSON[0] {
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
