package commands_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// startTeamServer runs cairn serve on addr for the workspace srv (with the extra flags: --store,
// --wait) and waits until it listens with its team store open (it listens before it opens it).
func startTeamServer(t *testing.T, bin, srv, addr string, extra ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"-C", srv, "serve", "--addr", addr}, extra...)...)
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		log := stderr.String()
		if strings.Contains(log, "cairn serve: team API at") {
			if c, err := net.DialTimeout("tcp", addr, 100*time.Millisecond); err == nil {
				c.Close()
				return cmd
			}
		}
		if strings.HasPrefix(log, "cairn: ") || strings.Contains(log, "\ncairn: ") {
			cmd.Wait()
			t.Fatalf("cairn serve failed before it served on %s: %s", addr, log)
		}
		time.Sleep(20 * time.Millisecond)
	}
	cmd.Process.Kill()
	t.Fatalf("cairn serve did not listen on %s: %s", addr, stderr)
	return nil
}

// lockedBuffer is a buffer a process writes while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// addMember adds user to space team1 of srv and returns its token.
func addMember(t *testing.T, bin, srv, user string) string {
	t.Helper()
	out, err := exec.Command(bin, "-C", srv, "serve", "member", "add", user, "--space", "team1").CombinedOutput()
	if err != nil {
		t.Fatalf("member add %s: %v %s", user, err, out)
	}
	tok := regexp.MustCompile(`cairn_[0-9a-f]{16}_[0-9a-f]{64}`).Find(out)
	if tok == nil {
		t.Fatalf("no token in %s", out)
	}
	return string(tok)
}

// Several clients push at once; the server is SIGKILLed mid-push and started again; the clients
// retry (within the push, and by running it again): every comment is on the server exactly once,
// and a push after that sends nothing.
func TestTeamPushServerKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("process test")
	}
	bin := buildCairn(t)
	srv := newWorkspace(t, bin)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	const clients, tasks, perTask = 4, 3, 300
	type client struct{ dir, token string }
	var cs []client
	for i := range clients {
		dir := newWorkspace(t, bin)
		cfg := fmt.Sprintf("[space]\nserver = \"http://%s\"\nteam = \"team1\"\n", addr)
		if err := os.WriteFile(filepath.Join(dir, "cairn.toml"), []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		fmt.Fprintf(&b, `{"type":"space","id":"local%d","name":"c%d","owner":"u%d"}`+"\n", i, i, i)
		for k := range tasks {
			fmt.Fprintf(&b, `{"type":"task","id":"c%d-t%d","space":"local%d","title":"task %d of %d","status":"completed"}`+"\n", i, k, i, k, i)
			for j := range perTask {
				fmt.Fprintf(&b, `{"type":"comment","id":"c%d-t%d-%d","task":"c%d-t%d","kind":"request","author":"user","created_at":"2026-06-20T10:%02d:%02dZ","body":"client %d note %d token=s3cr3tValue%dXYZ"}`+"\n",
					i, k, j, i, k, j/60, j%60, i, j, j)
			}
		}
		in := filepath.Join(dir, "in.jsonl")
		if err := os.WriteFile(in, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(bin, "-C", dir, "space", "import", in).CombinedOutput(); err != nil {
			t.Fatalf("import: %v %s", err, out)
		}
		cs = append(cs, client{dir, addMember(t, bin, srv, fmt.Sprintf("u%d", i))})
	}
	push := func(c client) (string, error) {
		cmd := exec.Command(bin, "-C", c.dir, "space", "push")
		cmd.Env = append(os.Environ(), "CAIRN_TOKEN="+c.token)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	server := startTeamServer(t, bin, srv, addr)
	var wg sync.WaitGroup
	results := make([]error, clients)
	outs := make([]string, clients)
	for i, c := range cs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i], results[i] = push(c)
		}()
	}
	// kill the server while the batches arrive (after the first one), then bring it back
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(server.Stderr.(*lockedBuffer).String(), "team import 200"); {
		if time.Now().After(deadline) {
			t.Fatalf("no batch arrived: %s", server.Stderr)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := server.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	server.Wait()
	time.Sleep(300 * time.Millisecond)
	server = startTeamServer(t, bin, srv, addr)
	defer func() {
		server.Process.Signal(syscall.SIGTERM)
		server.Wait()
	}()
	wg.Wait()
	interrupted, retried := 0, 0
	for i := range cs {
		if strings.Contains(outs[i], "sent again") {
			retried++
		}
	}
	for i, c := range cs {
		if results[i] != nil {
			interrupted++
			t.Logf("client %d gave up (%v): %s", i, results[i], outs[i])
			if out, err := push(c); err != nil {
				t.Fatalf("client %d push again: %v %s", i, err, out)
			}
		}
	}
	// every client again: nothing new to send
	for i, c := range cs {
		out, err := push(c)
		if err != nil || !strings.Contains(out, "sent 0 tasks and 0 comments") {
			t.Fatalf("client %d re-push: %v %s", i, err, out)
		}
	}
	// the server's store: every comment once, none lost, none twice, no secret
	out, err := exec.Command(bin, "-C", srv, "space", "export").Output()
	if err != nil {
		t.Fatalf("export: %v", err)
	}
	seen := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var rec struct{ Type, ID, Body string }
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		if rec.Type == "comment" {
			seen[rec.ID]++
			if strings.Contains(rec.Body, "s3cr3t") {
				t.Fatalf("comment %s reached the server unredacted: %s", rec.ID, rec.Body)
			}
		}
	}
	lost, dup := 0, 0
	for i := range clients {
		for k := range tasks {
			for j := range perTask {
				switch seen[fmt.Sprintf("c%d-t%d-%d", i, k, j)] {
				case 0:
					lost++
				case 1:
				default:
					dup++
				}
			}
		}
	}
	t.Logf("%d clients × %d comments, server killed once mid-push: %d pushes retried batches, %d gave up and were run again; lost %d, duplicated %d",
		clients, tasks*perTask, retried, interrupted, lost, dup)
	t.Logf("trials=1 lost=%d duplicated=%d (SQLite store)", lost, dup) // scripts/team-trials.sh sums these
	if retried+interrupted == 0 {
		t.Error("no push noticed the kill: it came after every batch had arrived")
	}
	if lost != 0 || dup != 0 || len(seen) != clients*tasks*perTask {
		t.Fatalf("lost %d, duplicated %d, %d comments on the server (want %d)", lost, dup, len(seen), clients*tasks*perTask)
	}
}
