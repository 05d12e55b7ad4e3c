package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cairn-dev/cairn/core/tools"
)

// One `opencode serve` starts one cairn mcp for all its sessions and names none (OpenCode
// 1.18.33, fixtures/opencode/mcp-serve/mcp-log.jsonl); cairn's plugin tags each cairn call with
// its session (cairn_session). The recorded calls, sent again as OpenCode sent them, keep one
// list per session: A's task is not in B's list.
func TestOpenCodeServeSessionsKeepTheirLists(t *testing.T) {
	c := newContext(t)
	ctx := context.Background()
	serverT, clientT := sdk.NewInMemoryTransports()
	if _, err := NewServer(tools.New(), "test", c).Connect(ctx, serverT, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "opencode", Version: "1.18.33"}, nil).Connect(ctx, clientT, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	f, err := os.Open(filepath.Join("..", "fixtures", "opencode", "mcp-serve", "mcp-log.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type answer struct{ session, tool, text string }
	var answers []answer
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m struct {
			Dir string `json:"dir"`
			Msg struct {
				Method string `json:"method"`
				Params struct {
					Name      string         `json:"name"`
					Arguments map[string]any `json:"arguments"`
					Meta      map[string]any `json:"_meta"`
				} `json:"params"`
			} `json:"msg"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil || m.Dir != "client->server" || m.Msg.Method != "tools/call" {
			continue
		}
		p := m.Msg.Params
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: p.Name, Arguments: p.Arguments, Meta: p.Meta})
		if err != nil || res.IsError {
			t.Fatalf("%s %v: %v %+v", p.Name, p.Arguments, err, res)
		}
		sid, _ := p.Arguments["cairn_session"].(string)
		answers = append(answers, answer{sid, p.Name, res.Content[0].(*sdk.TextContent).Text})
	}
	if len(answers) != 3 {
		t.Fatalf("%d calls replayed, want 3 (create in A, list in B, list in A)", len(answers))
	}
	if a := answers[0]; a.tool != "TaskCreate" || !strings.Contains(a.text, `"taskid":1`) {
		t.Fatalf("A's create: %+v", a)
	}
	if b := answers[1]; b.session == answers[0].session || strings.Contains(b.text, "Made in session A") || !strings.Contains(b.text, `"total":0`) {
		t.Errorf("B's list holds A's task or is not empty: %+v", b)
	}
	if a := answers[2]; a.session != answers[0].session || !strings.Contains(a.text, "Made in session A") {
		t.Errorf("A's list lost its task: %+v", a)
	}
	for _, a := range answers {
		if _, err := os.Stat(c.Workspace.Path("sessions/" + a.session + ".jsonl")); a.tool == "TaskCreate" && err != nil {
			t.Errorf("no log for session %s: %v", a.session, err)
		}
	}
	// a tag that is no OpenCode session id is refused, never used as a path; the model's own
	// arguments are decoded as strictly as ever
	for _, bad := range []any{"../../etc/passwd", 7, "ses_"} {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "TaskList", Arguments: map[string]any{"cairn_session": bad}})
		if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*sdk.TextContent).Text, "cairn_session") {
			t.Errorf("tag %v: %v %+v", bad, err, res)
		}
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "TaskList", Arguments: map[string]any{"cairn_session": "ses_dcb67afd4ffe00000000000001", "other": 1}})
	if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*sdk.TextContent).Text, "unknown field other") {
		t.Errorf("unknown field beside the tag: %v %+v", err, res)
	}
}
