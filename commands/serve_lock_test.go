package commands_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
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

// daemon is a cairn serve started by startServe.
type daemon struct {
	cmd  *exec.Cmd
	url  string
	mu   sync.Mutex
	log  bytes.Buffer
	done chan struct{}
}

func (d *daemon) logText() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.log.String()
}

// stop sends SIGTERM and waits for a clean exit.
func (d *daemon) stop(t *testing.T) {
	t.Helper()
	if err := d.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-d.done
	if err := d.cmd.Wait(); err != nil {
		t.Errorf("exit after SIGTERM: %v\n%s", err, d.logText())
	}
}

// startServe starts cairn serve on a free port and waits until it prints its URL, by which time
// its token file is written.
func startServe(t *testing.T, bin, ws string) *daemon {
	t.Helper()
	d := &daemon{cmd: exec.Command(bin, "-C", ws, "serve", "--addr", "127.0.0.1:0"), done: make(chan struct{})}
	stderr, err := d.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := d.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.cmd.Process.Kill() })
	urlc := make(chan string, 1)
	go func() {
		defer close(d.done)
		re := regexp.MustCompile(`http://127\.0\.0\.1:\d+/\?token=[0-9a-f]{64}`)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			d.mu.Lock()
			d.log.WriteString(sc.Text() + "\n")
			d.mu.Unlock()
			if m := re.FindString(sc.Text()); m != "" {
				urlc <- m
			}
		}
	}()
	select {
	case d.url = <-urlc:
	case <-d.done:
		t.Fatalf("cairn serve exited before printing its URL:\n%s", d.logText())
	case <-time.After(20 * time.Second):
		t.Fatalf("no URL on stderr:\n%s", d.logText())
	}
	return d
}

// TestServeOnePerWorkspace: a second cairn serve in the same workspace exits at once with
// STORAGE_BUSY (exit 4) and a one-line error naming .cairn/serve.lock, leaves the first daemon's
// token file as it was, and the lock is free again once the first daemon stops.
func TestServeOnePerWorkspace(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the daemon")
	}
	t.Parallel()
	bin, ws := boardWorkspace(t)

	first := startServe(t, bin, ws)
	_, token, _ := strings.Cut(first.url, "/?token=")
	tokenPath := filepath.Join(ws, ".cairn", "serve.token")
	before, err := os.Stat(tokenPath)
	if err != nil {
		t.Fatal(err)
	}

	for _, json := range []bool{false, true} {
		args := []string{"-C", ws, "serve", "--addr", "127.0.0.1:0"}
		if json {
			args = append([]string{"--json"}, args...)
		}
		// Without the lock the second daemon would serve until killed: give it far less time
		// than the default 5 s lock wait.
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		second := exec.CommandContext(ctx, bin, args...)
		var stdout, stderr bytes.Buffer
		second.Stdout, second.Stderr = &stdout, &stderr
		start := time.Now()
		err = second.Run()
		cancel()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 4 {
			t.Fatalf("second cairn serve (json=%v): %v after %s, want exit 4\nstdout: %s\nstderr: %s", json, err, time.Since(start).Round(time.Millisecond), stdout.String(), stderr.String())
		}
		const msg = "another cairn serve is already running in this workspace (.cairn/serve.lock); stop it or use its URL"
		if json {
			if !strings.Contains(stdout.String(), `"code": "STORAGE_BUSY"`) || !strings.Contains(stdout.String(), msg) {
				t.Errorf("--json error: %s", stdout.String())
			}
		} else if got := stderr.String(); got != "cairn: "+msg+"\n" {
			t.Errorf("stderr %q, want the one-line error %q", got, msg)
		}
	}

	after, err := os.Stat(tokenPath)
	if err != nil {
		t.Fatalf("first daemon's token file: %v", err)
	}
	if data, _ := os.ReadFile(tokenPath); strings.TrimSpace(string(data)) != token {
		t.Errorf("token file %q no longer holds the first daemon's token", data)
	}
	if !os.SameFile(before, after) || !after.ModTime().Equal(before.ModTime()) {
		t.Errorf("token file was replaced or rewritten by the second daemon")
	}

	first.stop(t)
	if _, err := os.Stat(tokenPath); !os.IsNotExist(err) {
		t.Errorf("token file left after shutdown: %v", err)
	}
	// The lock went with the first daemon: a new one starts.
	third := startServe(t, bin, ws)
	third.stop(t)
}
