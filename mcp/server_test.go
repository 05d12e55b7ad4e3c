package mcp

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cairn-dev/cairn/core/tools"
	"github.com/cairn-dev/cairn/core/workspace/workspacetest"
)

func newContext(t *testing.T) tools.Context {
	t.Helper()
	return tools.Context{Workspace: workspacetest.New(t)}
}

func readOnly(t *testing.T, name string) bool {
	t.Helper()
	tool, err := tools.New().Get(name)
	if err != nil {
		t.Fatal(err)
	}
	return tool.ReadOnly
}

func TestMCPRoundTrip(t *testing.T) {
	c := newContext(t)
	ctx := context.Background()
	serverT, clientT := sdk.NewInMemoryTransports()
	server := NewServer(tools.New(), "test", c)
	if _, err := server.Connect(ctx, serverT, nil); err != nil {
		t.Fatal(err)
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "test-client", Version: "1"}, nil)
	cs, err := client.Connect(ctx, clientT, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Tools) != len(tools.New().List()) {
		t.Fatalf("%d tools over MCP", len(list.Tools))
	}
	for _, tool := range list.Tools {
		ro := tool.Annotations != nil && tool.Annotations.ReadOnlyHint
		if want := readOnly(t, tool.Name); ro != want {
			t.Errorf("%s readOnlyHint = %v, want %v", tool.Name, ro, want)
		}
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "TaskCreate", Arguments: map[string]any{"subject": "from MCP"}})
	if err != nil || res.IsError {
		t.Fatalf("TaskCreate over MCP: %v %+v", err, res)
	}
	if text := res.Content[0].(*sdk.TextContent).Text; !strings.Contains(text, `"subject":"from MCP"`) {
		t.Fatalf("result text = %s", text)
	}
	bad, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "TaskUpdate", Arguments: map[string]any{"taskid": 1, "status": "done"}})
	if err != nil {
		t.Fatalf("a tool error became a protocol error: %v", err)
	}
	if !bad.IsError || !strings.Contains(bad.Content[0].(*sdk.TextContent).Text, `"code":"INVALID_INPUT"`) {
		t.Fatalf("bad input result = %+v", bad)
	}
	missing, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "TaskGet", Arguments: map[string]any{"taskid": 5}})
	if err != nil || !missing.IsError || !strings.Contains(missing.Content[0].(*sdk.TextContent).Text, "NOT_FOUND") {
		t.Fatalf("TaskGet 5 = %+v, %v", missing, err)
	}
	// the server lives on after errors
	ok, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "TaskList", Arguments: map[string]any{}})
	if err != nil || ok.IsError {
		t.Fatalf("TaskList after errors: %v %+v", err, ok)
	}
	if _, err := os.Stat(filepath.Join(c.Workspace.Root, "sessions", "default.jsonl")); err != nil {
		t.Fatal("MCP create did not reach the session log")
	}
}

// A server runs Go code on one thread between tool calls and on every core during one (while
// any of several overlapping calls runs), puts the default back after, and leaves a GOMAXPROCS
// set by the user as it is.
func TestServeRunsOnOneThread(t *testing.T) {
	t.Setenv("GOMAXPROCS", "")
	runtime.GOMAXPROCS(2)
	defer runtime.SetDefaultGOMAXPROCS()
	p := oneProc()
	if n := runtime.GOMAXPROCS(0); n != 1 {
		t.Fatalf("while serving GOMAXPROCS is %d, want 1", n)
	}
	done1 := p.call()
	done2 := p.call()
	if n := runtime.GOMAXPROCS(0); n != 2 {
		t.Fatalf("during a tool call GOMAXPROCS is %d, want 2", n)
	}
	done1()
	if n := runtime.GOMAXPROCS(0); n != 2 {
		t.Fatalf("while a second call runs GOMAXPROCS is %d, want 2", n)
	}
	done2()
	if n := runtime.GOMAXPROCS(0); n != 1 {
		t.Fatalf("after the calls GOMAXPROCS is %d, want 1", n)
	}
	p.restore()
	if n, want := runtime.GOMAXPROCS(0), defaultProcs(); n != want {
		t.Fatalf("after serving GOMAXPROCS is %d, want the default %d", n, want)
	}
	t.Setenv("GOMAXPROCS", "2")
	runtime.GOMAXPROCS(2)
	p = oneProc()
	p.call()()
	if n := runtime.GOMAXPROCS(0); n != 2 {
		t.Fatalf("with GOMAXPROCS=2 it is %d while serving", n)
	}
	p.restore()
}

// A server on one thread gives the cores to the tools that split a scan over them (memory and
// knowledge search) and to no other.
func TestServerGivesCoresToParallelTools(t *testing.T) {
	ctx := context.Background()
	p := &procs{n: 2}
	defer runtime.SetDefaultGOMAXPROCS()
	serverT, clientT := sdk.NewInMemoryTransports()
	if _, err := newServer(tools.New(), "test", newContext(t), nil, p, nil).Connect(ctx, serverT, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test-client", Version: "1"}, nil).Connect(ctx, clientT, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for _, call := range []struct {
		name  string
		args  map[string]any
		calls int
	}{
		{"TaskList", map[string]any{}, 0},
		{"MemorySearch", map[string]any{"query": "x"}, 1},
		{"KnowledgeSearch", map[string]any{"query": "x"}, 2},
		{"TaskCreate", map[string]any{"subject": "s"}, 2},
	} {
		if res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: call.name, Arguments: call.args}); err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", call.name, err, res)
		}
		p.mu.Lock()
		calls := p.calls
		p.mu.Unlock()
		if calls != call.calls {
			t.Errorf("after %s, %d calls were given the cores, want %d", call.name, calls, call.calls)
		}
	}
}

// defaultProcs is the GOMAXPROCS the runtime picks by itself.
func defaultProcs() int {
	old := runtime.GOMAXPROCS(0)
	runtime.SetDefaultGOMAXPROCS()
	n := runtime.GOMAXPROCS(0)
	runtime.GOMAXPROCS(old)
	return n
}

// A server raises the garbage collector's target while it runs, and leaves a GOGC set by the
// user as it is.
func TestServeRaisesTheGCTarget(t *testing.T) {
	gcPercent := func() int {
		p := debug.SetGCPercent(100)
		debug.SetGCPercent(p)
		return p
	}
	t.Setenv("GOGC", "")
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	restore := raiseGC()
	if p := gcPercent(); p != servingGC {
		t.Fatalf("while serving the GC target is %d, want %d", p, servingGC)
	}
	restore()
	if p := gcPercent(); p != 100 {
		t.Fatalf("after serving the GC target is %d, want 100 back", p)
	}
	t.Setenv("GOGC", "50")
	debug.SetGCPercent(50)
	restore = raiseGC()
	if p := gcPercent(); p != 50 {
		t.Fatalf("with GOGC=50 the GC target is %d", p)
	}
	restore()
}

// Answers and errors are written without HTML escaping: <, > and & as they are, not \u003c.
func TestAnswersKeepAngleBrackets(t *testing.T) {
	ctx := context.Background()
	serverT, clientT := sdk.NewInMemoryTransports()
	if _, err := NewServer(tools.New(), "test", newContext(t)).Connect(ctx, serverT, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test-client", Version: "1"}, nil).Connect(ctx, clientT, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for _, tc := range []struct {
		tool      string
		args      map[string]any
		want      string
		wantError bool
	}{
		{"TaskCreate", map[string]any{"subject": "<b> & </b>"}, `"subject":"<b> & </b>"`, false},
		{"TaskUpdate", map[string]any{"taskid": 1, "status": "<done>"}, `\"<done>\"`, true},
	} {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tc.tool, Arguments: tc.args})
		if err != nil || res.IsError != tc.wantError {
			t.Fatalf("%s: %v %+v", tc.tool, err, res)
		}
		if text := res.Content[0].(*sdk.TextContent).Text; !strings.Contains(text, tc.want) || strings.Contains(text, `\u003c`) {
			t.Errorf("%s answer = %s, want %s in it as it is", tc.tool, text, tc.want)
		}
	}
}
