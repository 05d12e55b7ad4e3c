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
