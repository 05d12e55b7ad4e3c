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

// The wait at the end of the input counts requests by id, forgets cancelled ones (MCP sends no
// answer to those), and ignores notifications and the client's own responses.
func TestDrainPending(t *testing.T) {
	d := &drain{ctx: context.Background()}
	d.cond = sync.NewCond(&d.mu)
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`,
		`{"jsonrpc":"2.0","id":"a","method":"tools/list"}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":9,"result":{}}`,
		`not json`,
	} {
		d.note([]byte(line), true)
	}
	if len(d.pending) != 2 {
		t.Fatalf("pending %v, want the two requests", d.pending)
	}
	d.note([]byte(`[{"jsonrpc":"2.0","id":7,"method":"tools/list"},{"jsonrpc":"2.0","method":"notifications/initialized"}]`), true)
	if !d.pending["7"] || len(d.pending) != 3 {
		t.Fatalf("pending %v after a batch", d.pending)
	}
	d.note([]byte(`[{"jsonrpc":"2.0","id":7,"result":{}}]`), false)
	d.note([]byte(`{"jsonrpc":"2.0","id":1.0,"result":{}}`), false)
	d.note([]byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"a"}}`), true)
	if len(d.pending) != 0 {
		t.Fatalf("pending %v after an answer and a cancellation", d.pending)
	}
}
