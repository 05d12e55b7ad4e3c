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
