package commands_test

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

// buildCairn compiles the real binary once per test run.
func buildCairn(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "cairn")
	cmd := exec.Command("go", "build", "-o", bin, "..")
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("go build: %v", err)
	}
	return bin
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
