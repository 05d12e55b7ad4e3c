// Package workspacetest gives tests of every package the same fresh workspace, so none of them
// re-implements init-and-open.
package workspacetest

import (
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
