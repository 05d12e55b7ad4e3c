package mcp

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cairn-dev/cairn/core/tasks"
	"github.com/cairn-dev/cairn/core/tools"
)

// Codex starts one MCP server and names the session in every tools/call's _meta (as Codex CLI
// 0.171.0 sends it, fixtures/codex/mcp/mcp-log.jsonl): each session gets its own list, a /clear
// (a new session id) a new one, and an explicit --session still wins.
func TestCallNamesItsSession(t *testing.T) {
	c := newContext(t)
	c.ClaudeSession = "started-in-this-one" // the environment the server was started with
	ctx := context.Background()
	serverT, clientT := sdk.NewInMemoryTransports()
	if _, err := NewServer(tools.New(), "test", c).Connect(ctx, serverT, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "codex-mcp-client", Version: "0.171.0"}, nil).Connect(ctx, clientT, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	call := func(meta map[string]any, subject string) string {
		t.Helper()
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Meta: meta, Name: "TaskCreate", Arguments: map[string]any{"subject": subject}})
		if err != nil || res.IsError {
			t.Fatalf("TaskCreate %s: %v %+v", subject, err, res)
		}
		return res.Content[0].(*sdk.TextContent).Text
	}
	a := map[string]any{"sessionId": "01a233be-9f87-7881-b01b-ab8823443852", "threadId": "01a233be-9f87-7881-b01b-ab8823443852"}
	b := map[string]any{"x-codex-turn-metadata": map[string]any{"session_id": "01a233bd-e3d5-7f10-8e2a-2bcbd43d7326"}}
	call(a, "one in A")
	if got := call(b, "one in B"); !strings.Contains(got, `"taskid":1`) {
		t.Fatalf("B's first task: %s", got)
	}
	if got := call(a, "two in A"); !strings.Contains(got, `"taskid":2`) {
		t.Fatalf("A's second task: %s", got)
	}
	call(nil, "no session named")
	for id, want := range map[string]int{"01a233be-9f87-7881-b01b-ab8823443852": 2, "01a233bd-e3d5-7f10-8e2a-2bcbd43d7326": 1, "started-in-this-one": 1} {
		data, err := os.ReadFile(c.Workspace.Path("sessions/" + id + ".jsonl"))
		if err != nil || strings.Count(string(data), `"name":"TaskCreate"`) != want {
			t.Errorf("sessions/%s.jsonl: %d creates, want %d (%v)", id, strings.Count(string(data), `"name":"TaskCreate"`), want, err)
		}
	}
	// a session id that is no safe file name is refused, not used as a path
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Meta: map[string]any{"sessionId": "../../etc/passwd"}, Name: "TaskList", Arguments: map[string]any{}})
	if err != nil || !res.IsError {
		t.Fatalf("hostile session id: %v %+v", err, res)
	}
}

// Gemini CLI names no session to its MCP server (0.61.0, fixtures/gemini/mcp): the server asks
// which session its Gemini CLI process runs, as `cairn hook gemini` recorded it, on every call.
func TestGeminiServerFindsItsSession(t *testing.T) {
	t.Setenv("GEMINI_CLI", "1")
	c := newContext(t)
	ctx := context.Background()
	serverT, clientT := sdk.NewInMemoryTransports()
	if _, err := NewServer(tools.New(), "test", c).Connect(ctx, serverT, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "gemini-cli-mcp-client", Version: "0.61.0"}, nil).Connect(ctx, clientT, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	bind := func(event, source, session string) {
		in, _ := json.Marshal(tasks.HookInput{Event: event, Source: source, SessionID: session, Cwd: c.Workspace.Root})
		// the hook runs under the same Gemini CLI process as the server: here, the test's parent
		if _, err := tasks.Hook(ctx, tasks.Gemini, in, "", time.Second, tasks.HookEnv{Now: time.Now(), Process: tasks.ProcessAncestors()[0]}); err != nil {
			t.Fatal(err)
		}
	}
	create := func(subject string) {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Meta: map[string]any{"progressToken": "p"}, Name: "TaskCreate", Arguments: map[string]any{"subject": subject}})
		if err != nil || res.IsError {
			t.Fatalf("TaskCreate %s: %v %+v", subject, err, res)
		}
	}
	create("before any hook") // no session recorded: the manifest's log
	bind("SessionStart", "startup", "gem-a")
	create("in A")
	bind("SessionStart", "clear", "gem-b") // /clear: a new session in the same process
	create("in B")
	bind("BeforeAgent", "", "gem-a") // a switch back without a SessionStart
	create("in A again")
	for id, want := range map[string]int{"gem-a": 2, "gem-b": 1} {
		data, err := os.ReadFile(c.Workspace.Path("sessions/" + id + ".jsonl"))
		if err != nil || strings.Count(string(data), `"name":"TaskCreate"`) != want {
			t.Errorf("sessions/%s.jsonl: %d creates, want %d (%v)", id, strings.Count(string(data), `"name":"TaskCreate"`), want, err)
		}
	}
}
