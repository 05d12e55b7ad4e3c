// Package workspacetest gives tests of every package the same fresh workspace, so none of them
// re-implements init-and-open, the same capture of a server's concurrent output, and the same
// measure of how soon cancelled work returns.
package workspacetest

import (
	"bytes"
	"context"
	"sync"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/core/workspace"
)

// New initialises a workspace in a temporary directory and opens it.
func New(t testing.TB) *workspace.Workspace {
	t.Helper()
	dir := t.TempDir()
	if _, err := workspace.Init(dir); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.Open(dir, dir)
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

// Buffer collects what a server's goroutines write (a log, a transport's output) while the test
// reads it: a bytes.Buffer behind a mutex.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String is everything written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// CancelAfter runs fn with a context cancelled after delay, and returns how long fn took to return
// once the context was cancelled (-1: it returned before) and fn's error.
func CancelAfter(delay time.Duration, fn func(context.Context) error) (time.Duration, error) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- fn(ctx) }()
	select {
	case err := <-done:
		cancel()
		return -1, err
	case <-time.After(delay):
	}
	at := time.Now()
	cancel()
	err := <-done
	return time.Since(at), err
}

// CancelBudget is how soon cancelled work must return. The machine is shared, so scheduling
// noise can delay one return by much more: each case is cancelled a few times and the quickest
// return is held to the budget (noise only ever slows a return down, and work that ignored the
// cancel would take the rest of its second or more every time).
const CancelBudget = 100 * time.Millisecond
