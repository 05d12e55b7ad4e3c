package tools

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/cairn-dev/cairn/core/tasks"
)

// A cached task list is the replay's answer, kept while the log is unchanged and replayed again
// as soon as another writer appends to it.
func TestCacheTaskListFollowsTheLog(t *testing.T) {
	c := newContext(t)
	c.Cache = NewCache()
	defer c.Cache.Close()
	list := func() tasks.ListResult {
		t.Helper()
		tool, _ := New().Get("TaskList")
		out, err := tool.Call(context.Background(), c, json.RawMessage(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		return out.(tasks.ListResult)
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
		kept := c.Cache.tasks
		if list(); c.Cache.tasks != kept {
			t.Fatal("the log did not change, yet it was replayed again")
		}
	}
	done := "completed"
	if _, err := s.Update(context.Background(), 2, tasks.UpdateFields{Status: &done}); err != nil {
		t.Fatal(err)
	}
	if got := list(); got.Tasks[1].Status != done {
		t.Errorf("update by another writer not seen: %+v", got.Tasks[1])
	}
}
