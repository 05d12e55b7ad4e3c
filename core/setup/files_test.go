//go:build unix

package setup

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/core/errs"
)

// A target that cannot be written fails Apply before any file changed: with .claude/ unusable,
// .mcp.json is not written either, and no temp file or backup is left.
func TestApplyAllOrNone(t *testing.T) {
	o := opts(t, "project")
	write(t, filepath.Join(o.ProjectDir, ".mcp.json"), "{}\n")
	changes, err := Plan(o)
	if err != nil {
		t.Fatal(err)
	}
	// .claude becomes a file between the plan and the write: its settings.json cannot be made
	write(t, filepath.Join(o.ProjectDir, ".claude"), "not a folder")
	if err := Apply(changes, time.Now()); err == nil {
		t.Fatal("Apply succeeded with .claude a file")
	}
	if got := read(t, filepath.Join(o.ProjectDir, ".mcp.json")); got != "{}\n" {
		t.Fatalf(".mcp.json was written: %q", got)
	}
	names, _ := os.ReadDir(o.ProjectDir)
	if len(names) != 2 {
		var list []string
		for _, n := range names {
			list = append(list, n.Name())
		}
		t.Fatalf("left behind: %v", list)
	}
}

// A FIFO, a device or a dangling symlink as a file setup edits is refused by Plan (so --dry-run
// too), and stays what it was.
func TestPlanRefusesSpecialFiles(t *testing.T) {
	for name, mk := range map[string]func(string) error{
		"fifo":     func(p string) error { return syscall.Mkfifo(p, 0o644) },
		"device":   func(p string) error { return os.Symlink("/dev/zero", p) },
		"dangling": func(p string) error { return os.Symlink(filepath.Join(filepath.Dir(p), "nowhere"), p) },
	} {
		t.Run(name, func(t *testing.T) {
			o := opts(t, "user")
			if err := os.MkdirAll(o.Home, 0o755); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(o.Home, ".claude.json")
			if err := mk(p); err != nil {
				t.Fatal(err)
			}
			before, _ := os.Lstat(p)
			done := make(chan error, 1)
			go func() { _, err := Plan(o); done <- err }()
			select {
			case err := <-done:
				if errs.CodeOf(err) != errs.Invalid || !strings.Contains(err.Error(), ".claude.json") {
					t.Fatalf("Plan: %v", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("Plan blocked on the special file")
			}
			after, _ := os.Lstat(p)
			if after.Mode() != before.Mode() {
				t.Fatalf("mode changed: %v -> %v", before.Mode(), after.Mode())
			}
		})
	}
}
