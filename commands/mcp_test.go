package commands_test

import (
	"bufio"
	"context"
	"io"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A scripted MCP client drives the real binary over stdio: initialize, tools/list, tools/call.
func TestMCPEndToEnd(t *testing.T) {
	t.Parallel()
	bin := buildCairn(t)
	ws := newWorkspace(t, bin)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "scripted", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: exec.Command(bin, "-C", ws, "mcp")}, nil)
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	defer cs.Close()
	if info := cs.InitializeResult(); info == nil || info.ServerInfo.Name != "cairn" {
		t.Fatalf("server info = %+v", info)
	}
	list, err := cs.ListTools(ctx, nil)
	if err != nil || len(list.Tools) != 11 {
		t.Fatalf("tools/list: %v (%d tools)", err, len(list.Tools))
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "TaskCreate", Arguments: map[string]any{"subject": "over stdio"}})
	if err != nil || res.IsError {
		t.Fatalf("tools/call: %v %+v", err, res)
	}
	bad, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "MemoryRead", Arguments: map[string]any{"kind": "decision", "slug": "../etc"}})
	if err != nil || !bad.IsError {
		t.Fatalf("bad slug: %v %+v", err, bad)
	}
	out, err := exec.Command(bin, "-C", ws, "task", "list").Output()
	if err != nil || !strings.Contains(string(out), "over stdio") {
		t.Fatalf("task made over MCP not in the log: %v %s", err, out)
	}
}

// A shell pipe into `cairn mcp` (all requests written, then the input closed) gets every answer
// before the server exits.
func TestMCPOneShotPipe(t *testing.T) {
	t.Parallel()
	bin := buildCairn(t)
	ws := newWorkspace(t, bin)
	cmd := exec.Command(bin, "-C", ws, "mcp")
	cmd.Stdin = strings.NewReader(strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"pipe","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"TaskCreate","arguments":{"subject":"piped"}}}`,
	}, "\n") + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("cairn mcp: %v", err)
	}
	for _, want := range []string{`"id":1,"result"`, `"id":2,"result"`, `piped`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("no %s in:\n%s", want, out)
		}
	}
}

// Messages that are not JSON-RPC 2.0, calls before initialize, bad params and ids the go-sdk
// would read alike: each gets its own JSON-RPC answer under its own id, without Go type names,
// and the session goes on to answer the last request and exit 0.
func TestMCPBadMessages(t *testing.T) {
	t.Parallel()
	bin := buildCairn(t)
	ws := newWorkspace(t, bin)
	cmd := exec.Command(bin, "-C", ws, "mcp")
	cmd.Stdin = strings.NewReader(strings.Join([]string{
		`{"jsonrpc":"2.0","id":"early","method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":"v","method":"initialize","params":{"protocolVersion":2025,"capabilities":{},"clientInfo":{"name":"pipe","version":"1"}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"pipe","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{}`,
		`{"id":"nover","method":"ping"}`,
		`{"jsonrpc":"1.0","id":"old","method":"ping"}`,
		`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1.0,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"name","method":"tools/call","params":{"name":5}}`,
		`{"jsonrpc":"2.0","id":"noparams","method":"tools/call"}`,
		`{"jsonrpc":"2.0","id":"again","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"pipe","version":"1"}}}`,
		`[{"jsonrpc":"2.0","id":"b1","method":"ping"},{"jsonrpc":"2.0","id":"b2","method":"ping"}]`,
		`{"jsonrpc":"2.0","id":"last","method":"tools/call","params":{"name":"TaskList","arguments":{}}}`,
	}, "\n") + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("cairn mcp: %v\n%s", err, out)
	}
	want := []string{
		`{"jsonrpc":"2.0","id":"early","error":{"code":-32600,"message":"Invalid Request: tools/list before initialize`,
		`{"jsonrpc":"2.0","id":"v","error":{"code":-32602,"message":"Invalid params: protocolVersion: a number given, a string is needed"}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: \"jsonrpc\" must be \"2.0\""}}`,
		`{"jsonrpc":"2.0","id":"nover","error":{"code":-32600,`,
		`{"jsonrpc":"2.0","id":"old","error":{"code":-32600,`,
		`{"jsonrpc":"2.0","id":1.5,"result":{}}`,
		`{"jsonrpc":"2.0","id":1.0,"result":{}}`,
		`{"jsonrpc":"2.0","id":"name","error":{"code":-32602,"message":"Invalid params: name: a number given, a string is needed"}}`,
		`{"jsonrpc":"2.0","id":"noparams","error":{"code":-32602,"message":"Invalid params: tools/call needs params: an object with the tool's name and its arguments"}}`,
		`{"jsonrpc":"2.0","id":"again","error":{"code":-32600,"message":"Invalid Request: the session is already initialized"}}`,
		`{"jsonrpc":"2.0","id":"b1","result":{}}`,
		`{"jsonrpc":"2.0","id":"b2","result":{}}`,
		`{"jsonrpc":"2.0","id":"last","result"`,
	}
	for _, w := range want {
		if !strings.Contains(string(out), w) {
			t.Errorf("no %s in:\n%s", w, out)
		}
	}
	if n := strings.Count(string(out), `"id":1,"result"`); n != 1 {
		t.Errorf("%d answers with id 1, want only the initialize one:\n%s", n, out)
	}
	for _, bad := range []string{`"code":0`, "Go struct", "mcp.", "unmarshal"} {
		if strings.Contains(string(out), bad) {
			t.Errorf("%s in the answers:\n%s", bad, out)
		}
	}
}

// A go-sdk client keeps its session through lines that are not JSON-RPC 2.0 written between its
// own requests: their answers come back to the writer, and the client's calls still work.
func TestMCPClientSurvivesBadLines(t *testing.T) {
	t.Parallel()
	bin := buildCairn(t)
	ws := newWorkspace(t, bin)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.Command(bin, "-C", ws, "mcp")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	w := &lockedWriter{w: stdin}
	// The client reads every line but the answers to the raw lines, which go to raw.
	pr, pw := io.Pipe()
	raw := make(chan string, 10)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			line := sc.Text()
			if strings.Contains(line, `"id":null`) || strings.Contains(line, `"id":"raw-`) {
				raw <- line
				continue
			}
			pw.Write([]byte(line + "\n"))
		}
		pw.Close()
	}()
	client := mcp.NewClient(&mcp.Implementation{Name: "scripted", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: pr, Writer: w}, nil)
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	defer cs.Close()
	for _, line := range []string{`{}`, `{"id":"raw-1","method":"ping"}`, `{"jsonrpc":"2.0","id":"raw-2","method":"tools/call","params":{"name":[]}}`} {
		w.Write([]byte(line + "\n"))
		select {
		case got := <-raw:
			if !strings.Contains(got, `"code":-326`) {
				t.Errorf("%s answered %s", line, got)
			}
		case <-ctx.Done():
			t.Fatalf("no answer to %s", line)
		}
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "TaskCreate", Arguments: map[string]any{"subject": "after bad lines"}})
	if err != nil || res.IsError {
		t.Fatalf("tools/call after bad lines: %v %+v", err, res)
	}
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.WriteCloser
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error { return l.w.Close() }
