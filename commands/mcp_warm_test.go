package commands_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// `cairn mcp` keeps spaces.db open, the board in memory and the task list replayed between calls;
// a write by another process in between (a comment, a task, a memory file, a board import, a
// replaced spaces.db) is seen by the very next call.
func TestMCPWarmSeesOtherProcessWrites(t *testing.T) {
	t.Parallel()
	bin := buildCairn(t)
	ws := t.TempDir()
	if out, err := exec.Command("cp", "-r", "../fixtures/demo/.", ws).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	run := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(bin, append([]string{"-C", ws}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("cairn %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	run("space", "import", filepath.Join(ws, "space.jsonl"))
	run("board", "import", filepath.Join(ws, "board.json"))
	log := filepath.Join(ws, "warm.jsonl")
	run("--session", log, "task", "create", "first task")

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "warm", Version: "1"}, nil)
	cmd := exec.Command(bin, "-C", ws, "--user", "bob", "--task", "30", "--card", "tl-18", "--session", log, "mcp")
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	defer cs.Close()
	call := func(tool string, args map[string]any) string {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		text := res.Content[0].(*mcp.TextContent).Text
		if res.IsError {
			t.Fatalf("%s answered an error: %s", tool, text)
		}
		return text
	}
	// Each face answers twice first, so the second answer comes from what the server kept.
	for range 2 {
		if out := call("SearchWorkspaceTasks", map[string]any{"query": "zebrafinch"}); strings.Contains(out, "zebrafinch plan") {
			t.Fatalf("found before it was written: %s", out)
		}
		if out := call("TaskList", map[string]any{}); strings.Contains(out, "second task") || !strings.Contains(out, "first task") {
			t.Fatalf("task list: %s", out)
		}
		if out := call("MemorySearch", map[string]any{"query": "okapi"}); strings.Contains(out, "okapi") {
			t.Fatalf("memory found before it was written: %s", out)
		}
		if out := call("flowly_search", map[string]any{"query": "platypus"}); strings.Contains(out, "platypus") {
			t.Fatalf("board found before it was imported: %s", out)
		}
	}

	run("--user", "bob", "--task", "31", "space", "add-comment", "--kind", "result", "the zebrafinch plan")
	if out := call("SearchWorkspaceTasks", map[string]any{"query": "zebrafinch"}); !strings.Contains(out, "zebrafinch plan") {
		t.Errorf("a comment added by another process is not seen: %s", out)
	}
	run("--session", log, "task", "create", "second task")
	if out := call("TaskList", map[string]any{}); !strings.Contains(out, "second task") {
		t.Errorf("a task created by another process is not listed: %s", out)
	}
	if err := os.WriteFile(filepath.Join(ws, "memory", "decisions", "okapi.md"), []byte("# Okapi\n\nWe keep the okapi cache.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out := call("MemorySearch", map[string]any{"query": "okapi"}); !strings.Contains(out, "okapi cache") {
		t.Errorf("a memory file written by another process is not found: %s", out)
	}
	doc, err := os.ReadFile(filepath.Join(ws, "board.json"))
	if err != nil {
		t.Fatal(err)
	}
	var board map[string]any
	if err := json.Unmarshal(doc, &board); err != nil {
		t.Fatal(err)
	}
	board["revision"] = board["revision"].(float64) + 1
	for _, c := range board["cards"].([]any) {
		if card := c.(map[string]any); card["id"] == "tl-12" {
			card["title"] = card["title"].(string) + " platypus"
		}
	}
	doc, _ = json.Marshal(board)
	if err := os.WriteFile(filepath.Join(ws, "board2.json"), doc, 0o644); err != nil {
		t.Fatal(err)
	}
	run("board", "import", filepath.Join(ws, "board2.json"))
	if out := call("flowly_search", map[string]any{"query": "platypus"}); !strings.Contains(out, "platypus") {
		t.Errorf("a board imported by another process is not searched: %s", out)
	}

	// spaces.db replaced by a new file: the next call reads the new one.
	if err := os.Rename(filepath.Join(ws, "spaces.db"), filepath.Join(ws, "old.db")); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"spaces.db-wal", "spaces.db-shm"} {
		os.Remove(filepath.Join(ws, f))
	}
	run("space", "import", filepath.Join(ws, "space.jsonl"))
	if out := call("SearchWorkspaceTasks", map[string]any{"query": "zebrafinch"}); strings.Contains(out, "zebrafinch plan") {
		t.Errorf("answered from the replaced spaces.db: %s", out)
	}
}
