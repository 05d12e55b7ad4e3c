//go:build unix

package mcp

import (
	"context"
	"os"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/sys/unix"

	"github.com/cairn-dev/cairn/core/tools"
)

// On a pipe (as a client spawning `cairn mcp` gives it), the input is read through the
// runtime's poller: calls are answered, a cancelled context ends the server while the client
// still holds the input open, and the pipe is left blocking, as it was given.
func TestServeOnAPipe(t *testing.T) {
	sr, cw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer sr.Close()
	defer cw.Close()
	cr, sw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer cr.Close()
	defer sw.Close()
	if p, owned, release := pollable(sr); !owned || p == sr {
		release()
		t.Fatalf("a pipe is not read through the poller (owned %v)", owned)
	} else {
		release()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	serveCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- Serve(serveCtx, tools.New(), "test", newContext(t), sr, sw) }()
	client := sdk.NewClient(&sdk.Implementation{Name: "test-client", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &sdk.IOTransport{Reader: cr, Writer: cw}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "TaskList", Arguments: map[string]any{}}); err != nil || res.IsError {
			t.Fatalf("TaskList: %v %+v", err, res)
		}
	}
	stop()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not end with its context while its input was open")
	}
	if nonblocking(t, sr) {
		t.Fatal("the input pipe was left non-blocking")
	}
}

// A file that is no pipe (a terminal a shell shares, a regular file) is read as it is.
func TestPollableLeavesFilesAlone(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "in")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if r, owned, release := pollable(f); owned || r != f {
		t.Fatalf("a regular file was taken over (owned %v)", owned)
	} else {
		release()
	}
	if nonblocking(t, f) {
		t.Fatal("the file was made non-blocking")
	}
}

func nonblocking(t *testing.T, f *os.File) bool {
	t.Helper()
	raw, err := f.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var flags int
	var ferr error
	raw.Control(func(fd uintptr) { flags, ferr = unix.FcntlInt(fd, unix.F_GETFL, 0) })
	if ferr != nil {
		t.Fatal(ferr)
	}
	return flags&unix.O_NONBLOCK != 0
}
