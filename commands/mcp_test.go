package commands_test

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A scripted MCP client drives the real binary over stdio: initialize, tools/list, tools/call.
func TestMCPEndToEnd(t *testing.T) {
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
