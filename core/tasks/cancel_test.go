package tasks

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/workspace"
	"github.com/cairn-dev/cairn/core/workspace/workspacetest"
)

// A replay or an update under an ended context is CANCELLED, and the update appends nothing.
func TestSessionCancelled(t *testing.T) {
	s := NewSession(filepath.Join(t.TempDir(), "log.jsonl"), time.Second)
	bg := context.Background()
	for i := range 3 {
		if _, err := s.Create(bg, fmt.Sprintf("task %d", i), ""); err != nil {
			t.Fatal(err)
		}
	}
	before, err := os.ReadFile(s.Log.Path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(bg)
	cancel()
	status := Completed
	for name, call := range map[string]func() error{
		"list":    func() error { _, err := s.List(ctx, Stop{}, nil); return err },
		"get":     func() error { _, err := s.Get(ctx, 1); return err },
		"history": func() error { _, err := s.History(ctx, 1); return err },
		"check":   func() error { _, err := s.Check(ctx); return err },
		"create":  func() error { _, err := s.Create(ctx, "one more", ""); return err },
		"update":  func() error { _, err := s.Update(ctx, 1, UpdateFields{Status: &status}); return err },
		"compact": func() error { _, err := s.Compact(ctx, "summary", ""); return err },
	} {
		if err := call(); errs.CodeOf(err) != errs.Cancelled {
			t.Errorf("%s under an ended context: %v, want CANCELLED", name, err)
		}
	}
	if after, _ := os.ReadFile(s.Log.Path); !bytes.Equal(after, before) {
		t.Errorf("cancelled updates changed the log:\n%s", after)
	}
	if res, err := s.List(bg, Stop{}, nil); err != nil || len(res.Tasks) != 3 || res.Tasks[0].Status != Pending {
		t.Errorf("after the cancelled calls: %+v, %v", res, err)
	}
}

// A cancel while another process holds the log's lock ends the wait at once (CANCELLED) instead
// of waiting out the lock wait, for reads and writes, with and without a Memo (cairn mcp's calls).
func TestLockWaitCancelled(t *testing.T) {
	s := NewSession(filepath.Join(t.TempDir(), "log.jsonl"), time.Minute)
	if _, err := s.Create(context.Background(), "one", ""); err != nil {
		t.Fatal(err)
	}
	held, err := workspace.LockFile(context.Background(), s.Log.LockPath(), true, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Unlock()
	for _, memo := range []*Memo{nil, NewMemo()} {
		s.Memo = memo
		for name, call := range map[string]func(context.Context) error{
			"list":   func(ctx context.Context) error { _, err := s.List(ctx, Stop{}, nil); return err },
			"create": func(ctx context.Context) error { _, err := s.Create(ctx, "two", ""); return err },
		} {
			took, err := workspacetest.CancelAfter(50*time.Millisecond, call)
			if took < 0 {
				t.Fatalf("%s (memo %v) returned before its cancel: %v", name, memo != nil, err)
			}
			if errs.CodeOf(err) != errs.Cancelled {
				t.Errorf("%s (memo %v) cancelled in the lock wait: %v, want CANCELLED", name, memo != nil, err)
			}
			if took > time.Second {
				t.Errorf("%s (memo %v) returned %v after its cancel", name, memo != nil, took)
			}
		}
	}
}
