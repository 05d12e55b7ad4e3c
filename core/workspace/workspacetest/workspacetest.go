// Package workspacetest gives tests of every package the same fresh workspace, so none of them
// re-implements init-and-open, and the same capture of a server's concurrent output.
package workspacetest

import (
	"bytes"
	"sync"
	"testing"

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
