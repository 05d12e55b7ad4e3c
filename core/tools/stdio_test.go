package tools

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/core/workspace/workspacetest"
)

// A client that writes its requests and closes its input at once still gets every answer.
func TestStdioAnswersBeforeTheInputEnds(t *testing.T) {
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"pipe","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":"two","method":"tools/call","params":{"name":"TaskCreate","arguments":{"subject":"from a pipe"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`,
	}, "\n") + "\n"
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var out workspacetest.Buffer
	server := NewMCPServer(New(), "test", newContext(t))
	if err := server.Run(ctx, NewStdioTransport(ctx, strings.NewReader(in), &out)); err != nil && ctx.Err() != nil {
		t.Fatalf("run: %v", err)
	}
	got := out.String()
	for _, want := range []string{`"id":1,"result"`, `"id":"two","result"`, `from a pipe`, `"id":3,"result"`} {
		if !strings.Contains(got, want) {
			t.Errorf("no %s in the output:\n%s", want, got)
		}
	}
}

// The wait at the end of the input counts requests by id (as the go-sdk will answer them: a
// number as int64), forgets cancelled ones (MCP sends no answer to those), and ignores
// notifications and the client's own responses.
func TestDrainPending(t *testing.T) {
	d := &drain{ctx: context.Background()}
	d.cond = sync.NewCond(&d.mu)
	note := func(line string, in bool) {
		heads, ok := messages([]byte(line))
		if ok {
			d.note(heads, in)
		}
	}
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`,
		`{"jsonrpc":"2.0","id":"a","method":"tools/list"}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":9,"result":{}}`,
		`not json`,
		`{"jsonrpc":"2.0","id":2.5,"method":"ping"}`,
	} {
		note(line, true)
	}
	if len(d.pending) != 3 {
		t.Fatalf("pending %v, want the three requests", d.pending)
	}
	note(`[{"jsonrpc":"2.0","id":7,"method":"tools/list"},{"jsonrpc":"2.0","method":"notifications/initialized"}]`, true)
	if !d.pending["7"] || len(d.pending) != 4 {
		t.Fatalf("pending %v after a batch", d.pending)
	}
	note(`[{"jsonrpc":"2.0","id":7,"result":{}}]`, false)
	note(`{"jsonrpc":"2.0","id":1.0,"result":{}}`, false)
	note(`{"jsonrpc":"2.0","id":2,"result":{}}`, false) // the go-sdk answers id 2.5 as 2
	note(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"a"}}`, true)
	if len(d.pending) != 0 {
		t.Fatalf("pending %v after the answers and a cancellation", d.pending)
	}
}

// Ids the go-sdk rewrites, a line that is not JSON and one that is not JSON-RPC: every request
// still gets its answer, the bad lines get JSON-RPC errors, and the server ends at end of input.
func TestStdioOddInput(t *testing.T) {
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"pipe","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`oops`,
		`42`,
		`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1e300,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":-0,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"last","method":"tools/call","params":{"name":"TaskList","arguments":{}}}`,
	}, "\n") + "\n"
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var out workspacetest.Buffer
	server := NewMCPServer(New(), "test", newContext(t))
	start := time.Now()
	server.Run(ctx, NewStdioTransport(ctx, strings.NewReader(in), &out))
	if ctx.Err() != nil || time.Since(start) > 10*time.Second {
		t.Fatalf("the server did not end with its input (%v)", time.Since(start))
	}
	got := out.String()
	for _, want := range []string{`"code":-32700`, `"code":-32600`, `"id":"last","result"`, `"total":0`} {
		if !strings.Contains(got, want) {
			t.Errorf("no %s in the output:\n%s", want, got)
		}
	}
}
