package commands_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// mountTmpfs mounts a small tmpfs for fault tests; it skips where mounting is not allowed.
func mountTmpfs(t *testing.T, size string) string {
	t.Helper()
	if runtime.GOOS != "linux" || os.Geteuid() != 0 {
		t.Skip("needs root on Linux to mount a tmpfs")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount tmpfs: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", dir).Run() })
	return dir
}

func run(bin string, args ...string) (stdout, stderr string, code int) {
	cmd := exec.Command(bin, args...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		code = -1
	}
	return o.String(), e.String(), code
}

// A full disk gives a clear error and leaves no torn file: the log replays, the entry is intact.
func TestFullDisk(t *testing.T) {
	t.Parallel()
	bin := buildCairn(t)
	ws := mountTmpfs(t, "400k")
	if _, e, code := run(bin, "init", ws); code != 0 {
		t.Fatalf("init: %s", e)
	}
	os.WriteFile(filepath.Join(ws, "memory", "decisions", "keep.md"), []byte("old content\n"), 0o644)
	big := strings.Repeat("x", 60*1024)
	created := 0
	var lastErr string
	for i := 0; i < 40; i++ {
		_, e, code := run(bin, "-C", ws, "task", "create", "task", "--description", big)
		if code != 0 {
			// a full disk is the user's to fix: INVALID_INPUT (2), saying what to do
			if code != 2 || !strings.Contains(e, "no space left on device") || !strings.Contains(e, "free some space") || strings.Contains(e, "goroutine") {
				t.Fatalf("disk full: exit %d, %q", code, e)
			}
			lastErr = e
			break
		}
		created++
	}
	if lastErr == "" {
		t.Fatal("the disk never filled")
	}
	out, e, code := run(bin, "-C", ws, "session", "check", "--json")
	if code != 0 {
		t.Fatalf("check after a full disk: %s", e)
	}
	var chk struct {
		Tasks   struct{ Total int }
		Skipped []any
	}
	json.Unmarshal([]byte(out), &chk)
	if chk.Tasks.Total != created || len(chk.Skipped) != 0 {
		t.Fatalf("after disk full: %d tasks (want %d), skipped %v", chk.Tasks.Total, created, chk.Skipped)
	}

	// an atomic memory write that does not fit leaves the old entry and no temp file
	if _, e, code := run(bin, "-C", ws, "session", "compact", "--new-log", filepath.Join(ws, "x.jsonl")); code == 0 {
		t.Log("compact fitted") // may or may not fit; either way nothing may be torn
	} else if strings.Contains(e, "goroutine") {
		t.Fatalf("panic: %s", e)
	}
	src := filepath.Join(t.TempDir(), "big.md")
	os.WriteFile(src, bytes.Repeat([]byte("y"), 512*1024), 0o644)
	_, e, code = run(bin, "-C", ws, "memory", "write", "decision", "keep", "--file", src)
	if code != 2 || !strings.Contains(e, "free some space") || strings.Contains(e, "goroutine") {
		t.Fatalf("memory write on a full disk: exit %d %s", code, e)
	}
	if data, _ := os.ReadFile(filepath.Join(ws, "memory", "decisions", "keep.md")); string(data) != "old content\n" {
		t.Fatalf("entry torn: %q", data)
	}
	entries, _ := os.ReadDir(filepath.Join(ws, "memory", "decisions"))
	if len(entries) != 1 {
		t.Fatalf("temp files left: %v", entries)
	}
}

// A read-only workspace still answers every read, and refuses writes with a clear error.
func TestReadOnlyWorkspace(t *testing.T) {
	t.Parallel()
	bin := buildCairn(t)
	ws := mountTmpfs(t, "4m")
	run(bin, "init", ws)
	run(bin, "-C", ws, "task", "create", "written before")
	os.WriteFile(filepath.Join(ws, "memory", "decisions", "auth.md"), []byte("keep the auth flow\n"), 0o644)
	os.Remove(filepath.Join(ws, "sessions", "default.jsonl.lock"))
	_, file, _, _ := runtime.Caller(0)
	if _, e, code := run(bin, "-C", ws, "space", "import", filepath.Join(filepath.Dir(file), "..", "fixtures", "spaces", "space.jsonl")); code != 0 {
		t.Fatalf("space import: exit %d %s", code, e)
	}
	if out, err := exec.Command("mount", "-o", "remount,ro", ws).CombinedOutput(); err != nil {
		t.Skipf("cannot remount read-only: %v %s", err, out)
	}
	if out, e, code := run(bin, "-C", ws, "task", "list"); code != 0 || !strings.Contains(out, "written before") {
		t.Fatalf("task list on a read-only workspace: exit %d %s %s", code, out, e)
	}
	if out, e, code := run(bin, "-C", ws, "memory", "search", "AUTH"); code != 0 || !strings.Contains(out, "auth") {
		t.Fatalf("memory search on a read-only workspace: exit %d %s %s", code, out, e)
	}
	// spaces.db in WAL mode, with its -wal and -shm kept from the import
	if out, e, code := run(bin, "-C", ws, "--user", "bob", "--task", "16", "space", "search", "認証", "--json"); code != 0 || !strings.Contains(out, `"ref": "comment:301"`) {
		t.Fatalf("space search on a read-only workspace: exit %d %s %s", code, out, e)
	}
	// and without them (copied without its -shm, say): read as an immutable file
	exec.Command("mount", "-o", "remount,rw", ws).Run()
	os.Remove(filepath.Join(ws, "spaces.db-shm"))
	os.Remove(filepath.Join(ws, "spaces.db-wal"))
	exec.Command("mount", "-o", "remount,ro", ws).Run()
	if out, e, code := run(bin, "-C", ws, "--user", "bob", "--task", "16", "space", "search", "認証", "--json"); code != 0 || !strings.Contains(out, `"ref": "comment:301"`) {
		t.Fatalf("space search on a read-only workspace without spaces.db-shm: exit %d %s %s", code, out, e)
	}
	// Writes are refused as the environment's problem (exit 2), naming the path and what to do.
	_, e, code := run(bin, "-C", ws, "task", "create", "refused")
	if code != 2 || !strings.Contains(e, "read-only file system") || !strings.Contains(e, "remount it read-write") || !strings.Contains(e, ws) || strings.Contains(e, "goroutine") {
		t.Fatalf("task create on a read-only workspace: exit %d %q", code, e)
	}
	empty := filepath.Join(t.TempDir(), "empty.md")
	os.WriteFile(empty, nil, 0o644)
	_, e, code = run(bin, "-C", ws, "memory", "write", "decision", "new", "--file", empty)
	if code != 2 || !strings.Contains(e, "remount it read-write") || !strings.Contains(e, ws) || strings.Contains(e, "goroutine") {
		t.Fatalf("memory write on a read-only workspace: exit %d %q", code, e)
	}
	out, e, code := run(bin, "-C", ws, "--json", "memory", "edit", "decision", "auth", "--old", "keep", "--new", "drop")
	if code != 2 || !strings.Contains(out, "INVALID_INPUT") || !strings.Contains(out, "read-only") {
		t.Fatalf("memory edit on a read-only workspace: exit %d %s %s", code, out, e)
	}
	// imports too (they exited 1, INTERNAL): the documented 2, naming what to do
	fixtures := filepath.Join(filepath.Dir(file), "..", "fixtures")
	for _, args := range [][]string{
		{"space", "import", filepath.Join(fixtures, "spaces", "space.jsonl")},
		{"board", "import", filepath.Join(fixtures, "board", "board.json")},
	} {
		_, e, code := run(bin, append([]string{"-C", ws}, args...)...)
		if code != 2 || !strings.Contains(e, "read-only") || strings.Contains(e, "goroutine") {
			t.Errorf("%s on a read-only workspace: exit %d %q", strings.Join(args[:2], " "), code, e)
		}
	}
}

// spaceDoc is an Appendix A document of n comments over 100 tasks of space sp1, member bench.
func spaceDoc(n int) string {
	var b strings.Builder
	b.WriteString(`{"type":"space","id":"sp1","name":"Bench","owner":"owner"}` + "\n")
	b.WriteString(`{"type":"member","space":"sp1","user":"bench"}` + "\n")
	for t := 0; t <= 100; t++ {
		fmt.Fprintf(&b, `{"type":"task","id":%d,"space":"sp1","title":"task %d","status":"running","created_at":"2026-01-01T00:00:00Z"}`+"\n", t, t)
	}
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, `{"type":"comment","id":%d,"task":%d,"kind":"result","author":"agent","created_at":"2026-01-01T%02d:%02d:%02dZ","body":"ログイン 画面 の 改修 %s %d"}`+"\n",
			i, 1+i%100, i/3600%24, i/60%60, i%60, strings.Repeat("migration review cache ", 8), i)
	}
	return b.String()
}

// spaces.db rewritten in place under running searches (another program's cp) never kills a
// search with a signal: each one answers, or fails with an error of its own.
func TestSpacesDBRewrittenUnderSearches(t *testing.T) {
	if testing.Short() {
		t.Skip("runs hundreds of processes")
	}
	t.Parallel()
	bin := buildCairn(t)
	src, dst := newWorkspace(t, bin), newWorkspace(t, bin)
	doc := filepath.Join(t.TempDir(), "space.jsonl")
	os.WriteFile(doc, []byte(spaceDoc(20000)), 0o644)
	for _, ws := range []string{src, dst} {
		if _, e, code := run(bin, "-C", ws, "space", "import", doc); code != 0 {
			t.Fatalf("import: exit %d %s", code, e)
		}
	}
	data, err := os.ReadFile(filepath.Join(src, "spaces.db"))
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() { // truncate and rewrite, as cp does
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
			}
			os.WriteFile(filepath.Join(dst, "spaces.db"), data, 0o644)
		}
	}()
	var failures []string
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 40; i++ {
				_, e, code := run(bin, "-C", dst, "--user", "bench", "--task", "0", "space", "search", "ログイン", "--json")
				if code < 0 || code == 1 && strings.Contains(e, "goroutine") || strings.Contains(e, "SIGBUS") || strings.Contains(e, "fatal error") {
					mu.Lock()
					failures = append(failures, fmt.Sprintf("exit %d: %.300s", code, e))
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	<-done
	if len(failures) > 0 {
		t.Fatalf("%d of 160 searches crashed; first: %s", len(failures), failures[0])
	}
}
