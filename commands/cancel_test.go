package commands_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/core/workspace"
)

// Ctrl-C (SIGINT) or SIGTERM during a board import stops it: exit 130 with CANCELLED, and the
// board is as it was (here: there is none yet).
func TestInterruptedImportExits130(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and imports a big board")
	}
	bin := buildCairn(t)
	ws := newWorkspace(t, bin)
	var b bytes.Buffer
	b.WriteString(`{"revision": 1, "projects": [{"id": "p1", "title": "Project"}], "cards": [`)
	for i := range 150000 { // an import of seconds: the signals below land well inside it
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id": "c%d", "project": "p1", "title": "card %d with a title", "status": "Todo", "updated_at": "2026-10-20T08:00:00Z"}`, i, i)
	}
	b.WriteString(`]}`)
	doc := filepath.Join(t.TempDir(), "board.json")
	if err := os.WriteFile(doc, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	before, _ := filepath.Glob(filepath.Join(ws, "*"))
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		cmd := exec.Command(bin, "-C", ws, "--json", "board", "import", doc)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(300 * time.Millisecond)
		cmd.Process.Signal(sig)
		cmd.Wait()
		if code := cmd.ProcessState.ExitCode(); code != 130 {
			t.Fatalf("%s: exit %d, want 130; stdout %s stderr %s", sig, code, out.String(), errOut.String())
		}
		var answer struct {
			Error struct{ Code, Message string }
		}
		if err := json.Unmarshal(out.Bytes(), &answer); err != nil || answer.Error.Code != "CANCELLED" || !strings.Contains(answer.Error.Message, "cancelled: stopped before it finished") || strings.Contains(answer.Error.Message, "context") {
			t.Fatalf("%s: answer %s (%v), want a CANCELLED error", sig, out.String(), err)
		}
		if _, e, code := run(bin, "-C", ws, "board", "search", "card"); code != 3 {
			t.Fatalf("%s: after the cancelled import, board search exits %d (%s), want 3: no board", sig, code, e)
		}
		if left, _ := filepath.Glob(filepath.Join(ws, "*")); !slices.Equal(left, before) {
			t.Errorf("%s: the workspace holds %v after the cancelled import, %v before", sig, left, before)
		}
	}
}

// Ctrl-C while another process holds the session log's lock ends the wait at once: exit 130 with
// CANCELLED, long before --wait runs out, and nothing is appended.
func TestInterruptedLockWaitExits130(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildCairn(t)
	ws := newWorkspace(t, bin)
	log := filepath.Join(ws, "held.jsonl")
	held, err := workspace.LockFile(context.Background(), log+".lock", true, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Unlock()
	for _, args := range [][]string{{"task", "create", "never written"}, {"task", "list"}} {
		cmd := exec.Command(bin, append([]string{"-C", ws, "--json", "--wait", "1m", "--session", log}, args...)...)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(300 * time.Millisecond)
		at := time.Now()
		cmd.Process.Signal(syscall.SIGINT)
		cmd.Wait()
		took := time.Since(at)
		if code := cmd.ProcessState.ExitCode(); code != 130 {
			t.Fatalf("%v: exit %d, want 130; stdout %s stderr %s", args, code, out.String(), errOut.String())
		}
		var answer struct {
			Error struct{ Code, Message string }
		}
		if err := json.Unmarshal(out.Bytes(), &answer); err != nil || answer.Error.Code != "CANCELLED" {
			t.Fatalf("%v: answer %s (%v), want a CANCELLED error", args, out.String(), err)
		}
		if took > 5*time.Second {
			t.Errorf("%v: exited %v after Ctrl-C, with --wait 1m", args, took)
		}
	}
	if _, err := os.Stat(log); !os.IsNotExist(err) {
		t.Errorf("the log was written without its lock: %v", err)
	}
}
