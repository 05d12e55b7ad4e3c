package workspace

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/core/errs"
)

// Waiting for a held lock ends with the caller's context (CANCELLED) as well as with the wait
// (STORAGE_BUSY), whichever comes first.
func TestLockWaitEndsWithContext(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.lock")
	held, err := LockFile(context.Background(), p, true, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Unlock()
	if _, err := LockFile(context.Background(), p, true, 50*time.Millisecond); errs.CodeOf(err) != errs.Busy {
		t.Fatalf("a held lock after the wait: %v, want STORAGE_BUSY", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = LockFile(ctx, p, false, time.Minute)
	if errs.CodeOf(err) != errs.Cancelled {
		t.Fatalf("a held lock when the context ends: %v, want CANCELLED", err)
	}
	if took := time.Since(start); took > 30*time.Second {
		t.Errorf("the wait went on %s after its context ended (wait 1m)", took)
	}
}
