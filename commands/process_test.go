package commands_test

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// buildCairn returns the real binary, as the README installs it, built once per test run.
func buildCairn(t *testing.T) string {
	t.Helper()
	return cairnStd.path(t)
}

func newWorkspace(t *testing.T, bin string) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command(bin, "init", dir).CombinedOutput(); err != nil {
		t.Fatalf("init: %v %s", err, out)
	}
	return dir
}

type createAnswer struct {
	Task struct {
		TaskID  int    `json:"taskid"`
		Subject string `json:"subject"`
	} `json:"task"`
}

// 8 processes × 25 creates on one log: ids 1..200, each answer naming its caller's own task.
func TestConcurrentCreates(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns 200 processes")
	}
	t.Parallel()
	bin := buildCairn(t)
	ws := newWorkspace(t, bin)
	const procs, each = 8, 25
	var mu sync.Mutex
	ids := map[int]string{}
	var wg sync.WaitGroup
	errc := make(chan error, procs*each)
	for p := 0; p < procs; p++ {
		wg.Add(1)
		go func(p int) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				subject := fmt.Sprintf("worker %d task %d", p, i)
				out, err := exec.Command(bin, "-C", ws, "--wait", "30s", "task", "create", subject, "--json").Output()
				if err != nil {
					errc <- fmt.Errorf("%s: %v", subject, err)
					return
				}
				var a createAnswer
				if err := json.Unmarshal(out, &a); err != nil {
					errc <- fmt.Errorf("%s: %v: %s", subject, err, out)
					return
				}
				if a.Task.Subject != subject {
					errc <- fmt.Errorf("caller %q got task %+v", subject, a.Task)
				}
				mu.Lock()
				if prev, dup := ids[a.Task.TaskID]; dup {
					errc <- fmt.Errorf("id %d given to %q and %q", a.Task.TaskID, prev, subject)
				}
				ids[a.Task.TaskID] = subject
				mu.Unlock()
			}
		}(p)
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Error(err)
	}
	for id := 1; id <= procs*each; id++ {
		if _, ok := ids[id]; !ok {
			t.Errorf("id %d missing", id)
		}
	}
	out, err := exec.Command(bin, "-C", ws, "task", "list", "--json").Output()
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Tasks []struct {
			TaskID  int    `json:"taskid"`
			Subject string `json:"subject"`
		} `json:"tasks"`
	}
	json.Unmarshal(out, &list)
	if len(list.Tasks) != procs*each {
		t.Fatalf("replay has %d tasks", len(list.Tasks))
	}
	for _, tk := range list.Tasks {
		if ids[tk.TaskID] != tk.Subject {
			t.Errorf("replay task %d = %q, answered %q", tk.TaskID, tk.Subject, ids[tk.TaskID])
		}
	}
}

// Writers killed with SIGKILL at random moments never make the log unreadable, and every create
// that was answered is still there with the id it was given.
func TestKilledWritersLoseNothingAnswered(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns many processes")
	}
	t.Parallel()
	bin := buildCairn(t)
	ws := newWorkspace(t, bin)
	rng := rand.New(rand.NewSource(1))
	answered := map[int]string{}
	for round := 0; round < 12; round++ {
		type run struct {
			cmd     *exec.Cmd
			subject string
			out     *safeBuffer
		}
		var runs []run
		for i := 0; i < 6; i++ {
			subject := fmt.Sprintf("round %d writer %d", round, i)
			desc := fmt.Sprintf("%0*d", rng.Intn(60000), 0) // large lines widen the window for a kill mid-write
			cmd := exec.Command(bin, "-C", ws, "--wait", "30s", "task", "create", subject, "--description", desc, "--json")
			buf := &safeBuffer{}
			cmd.Stdout = buf
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			runs = append(runs, run{cmd, subject, buf})
		}
		time.Sleep(time.Duration(rng.Intn(15)) * time.Millisecond)
		for i, r := range runs {
			if i%2 == 0 {
				r.cmd.Process.Signal(syscall.SIGKILL)
			}
		}
		for _, r := range runs {
			if err := r.cmd.Wait(); err != nil {
				continue // killed: its answer never came, so it promised nothing
			}
			var a createAnswer
			if err := json.Unmarshal(r.out.Bytes(), &a); err != nil {
				t.Fatalf("answered with bad JSON: %v", err)
			}
			answered[a.Task.TaskID] = r.subject
		}
	}
	out, err := exec.Command(bin, "-C", ws, "task", "list", "--json").Output()
	if err != nil {
		t.Fatalf("log unreadable after kills: %v", err)
	}
	var list struct {
		Tasks []struct {
			TaskID  int    `json:"taskid"`
			Subject string `json:"subject"`
		} `json:"tasks"`
	}
	if err := json.Unmarshal(out, &list); err != nil {
		t.Fatal(err)
	}
	got := map[int]string{}
	for _, tk := range list.Tasks {
		got[tk.TaskID] = tk.Subject
	}
	if len(answered) == 0 {
		t.Fatal("no writer survived; the test proved nothing")
	}
	for id, subject := range answered {
		if got[id] != subject {
			t.Errorf("answered task %d %q; replay has %q", id, subject, got[id])
		}
	}
	// and the log still takes writes
	if out, err := exec.Command(bin, "-C", ws, "task", "create", "after the storm").CombinedOutput(); err != nil {
		t.Fatalf("create after kills: %v %s", err, out)
	}
}

type safeBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (b *safeBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	return len(p), nil
}

func (b *safeBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]byte(nil), b.buf...)
}

// Memory writers and editors killed with SIGKILL never leave a torn entry, and every write or edit
// that was answered is in the file.
func TestKilledMemoryWritersLoseNothingAnswered(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns many processes")
	}
	t.Parallel()
	bin := buildCairn(t)
	ws := newWorkspace(t, bin)
	rng := rand.New(rand.NewSource(2))
	dir := t.TempDir()
	answered := map[string]string{}
	for round := 0; round < 10; round++ {
		type run struct {
			cmd     *exec.Cmd
			slug    string
			content string
		}
		var runs []run
		prev := map[string]string{}
		for i := 0; i < 6; i++ {
			slug := fmt.Sprintf("decision-%d", i)
			if data, err := os.ReadFile(filepath.Join(ws, "memory", "decisions", slug+".md")); err == nil {
				prev[slug] = string(data)
			}
			content := fmt.Sprintf("# round %d writer %d\n%s\n", round, i, strings.Repeat("決定 ", rng.Intn(200000)))
			src := filepath.Join(dir, fmt.Sprintf("%d-%d.md", round, i))
			os.WriteFile(src, []byte(content), 0o644)
			cmd := exec.Command(bin, "-C", ws, "--wait", "30s", "memory", "write", "decision", slug, "--file", src)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			runs = append(runs, run{cmd, slug, content})
		}
		time.Sleep(time.Duration(rng.Intn(20)) * time.Millisecond)
		for i, r := range runs {
			if i%2 == 1 {
				r.cmd.Process.Signal(syscall.SIGKILL)
			}
		}
		for _, r := range runs {
			// one writer per slug per round: an answered write must be exactly what the file holds;
			// a killed one left either its whole content or the previous whole version
			ok := r.cmd.Wait() == nil
			data, err := os.ReadFile(filepath.Join(ws, "memory", "decisions", r.slug+".md"))
			switch {
			case ok && string(data) != r.content:
				t.Fatalf("answered write of %s not in the file (%d bytes, err %v)", r.slug, len(data), err)
			case ok:
				answered[r.slug] = r.content
			case err == nil && string(data) != r.content && string(data) != prev[r.slug]:
				t.Fatalf("%s is neither the killed write nor the previous version: %d bytes", r.slug, len(data))
			}
		}
	}
	if len(answered) == 0 {
		t.Fatal("no writer survived; the test proved nothing")
	}
	for slug := range answered {
		out, err := exec.Command(bin, "-C", ws, "memory", "read", "decision", slug, "--json").Output()
		if err != nil {
			t.Fatalf("read %s: %v", slug, err)
		}
		if !strings.Contains(string(out), `"content": "# round `) {
			t.Fatalf("read %s: %s", slug, out[:min(len(out), 200)])
		}
	}
}

// Space imports killed mid-way leave a database that opens and searches, and an import that
// finished has every record.
func TestKilledSpaceImportsKeepTheStoreReadable(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns many processes")
	}
	t.Parallel()
	bin := buildCairn(t)
	ws := newWorkspace(t, bin)
	src := filepath.Join(t.TempDir(), "space.jsonl")
	var b strings.Builder
	b.WriteString(`{"type":"space","id":"sp1","name":"Tinylink","owner":"alice"}` + "\n")
	b.WriteString(`{"type":"task","id":1,"space":"sp1","title":"current","status":"running","parent":null,"created_at":"2026-06-20T09:00:00Z"}` + "\n")
	for task := 2; task <= 40; task++ {
		fmt.Fprintf(&b, `{"type":"task","id":%d,"space":"sp1","title":"task %d","status":"completed","parent":null,"created_at":"2026-06-20T09:00:00Z"}`+"\n", task, task)
		for c := 0; c < 500; c++ {
			fmt.Fprintf(&b, `{"type":"comment","id":%d,"task":%d,"kind":"request","author":"alice","created_at":"2026-06-20T10:%02d:%02dZ","body":"ログイン画面の改修 %d migration step %d"}`+"\n", task*1000+c, task, c/60, c%60, task, c)
		}
	}
	os.WriteFile(src, []byte(b.String()), 0o644)
	rng := rand.New(rand.NewSource(3))
	for trial := 0; trial < 8; trial++ {
		cmd := exec.Command(bin, "-C", ws, "space", "import", src)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(50+rng.Intn(400)) * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		// a kill before the first batch committed leaves no current task yet: NOT_FOUND is a clean
		// answer; anything but 0 or 3 (a broken store) is not
		out, e, code := run(bin, "-C", ws, "--user", "alice", "--task", "1", "space", "search", "migration", "--json")
		if code != 0 && !(code == 3 && strings.Contains(out, `"code": "NOT_FOUND"`)) {
			t.Fatalf("trial %d: search after a killed import: exit %d %s %s", trial, code, out, e)
		}
	}
	if _, e, code := run(bin, "-C", ws, "space", "import", src); code != 0 {
		t.Fatalf("import after the kills: %s", e)
	}
	out, e, code := run(bin, "-C", ws, "--user", "alice", "--task", "1", "space", "search", "step 499", "--task-id", "40", "--json")
	if code != 0 || !strings.Contains(out, `"ref": "comment:40499"`) {
		t.Fatalf("the finished import lacks its last record: exit %d %s %s", code, out, e)
	}
}
