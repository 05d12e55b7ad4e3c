package commands_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Issue 25's "done when", as a test: two workspaces playing two members import their agents'
// sessions (a Claude Code project with a password planted in a prompt, and a Codex rollout), push
// them to one server on PostgreSQL, and each finds the other's words through `space search` and
// through `cairn mcp` (the MCP SDK's client) with its own token; a member of another space finds
// nothing and cannot read a ref; the planted password is in no answer and in no column of the
// database.
func TestTeamAgentSessionsPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("process test")
	}
	store := pgTeamURL(t)
	bin := buildCairn(t)
	srv := newWorkspace(t, bin)
	addr := freeAddr(t)
	member := func(user, space string) string {
		t.Helper()
		out, err := cairnRun(bin, "", "-C", srv, "serve", "member", "add", user, "--space", space, "--store", store)
		i := strings.Index(out, "cairn_")
		if err != nil || i < 0 || len(out) < i+6+16+1+64 {
			t.Fatalf("member add %s: %v %s", user, err, out)
		}
		return out[i : i+6+16+1+64]
	}
	alice, bob, eve := member("alice", "proj"), member("bob", "proj"), member("eve", "other")

	cmd := startTeamServer(t, bin, srv, addr, "--store", store)
	stderr := cmd.Stderr.(*lockedBuffer)
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	}()

	const secret = "wR4Kqw9#3NeZGg0x"
	machine := func(team string) string {
		t.Helper()
		dir := newWorkspace(t, bin)
		cfg := fmt.Sprintf("[space]\nserver = \"http://%s\"\nteam = %q\n", addr, team)
		if err := os.WriteFile(filepath.Join(dir, "cairn.toml"), []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	// alice: a Claude Code project, a password and a word of her own planted in its first prompt
	aliceDir := machine("proj")
	project := filepath.Join(t.TempDir(), "-home-user-project")
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	real := "../fixtures/claude-code-real/-home-user-project"
	names, err := filepath.Glob(filepath.Join(real, "*.jsonl"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no Claude Code fixture: %v", err)
	}
	planted := false
	for _, name := range names {
		raw, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, line := range strings.Split(strings.TrimRight(string(raw), "\n"), "\n") {
			var rec map[string]any
			if !planted && json.Unmarshal([]byte(line), &rec) == nil && rec["type"] == "user" {
				if msg, ok := rec["message"].(map[string]any); ok {
					if s, ok := msg["content"].(string); ok {
						msg["content"] = s + " — the staging DB password is " + secret + " and we settled on flamingo rollout"
						b, _ := json.Marshal(rec)
						line, planted = string(b), true
					}
				}
			}
			out = append(out, line)
		}
		if err := os.WriteFile(filepath.Join(project, filepath.Base(name)), []byte(strings.Join(out, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if !planted {
		t.Fatal("no user prompt to plant the password in")
	}
	// bob: a Codex rollout
	bobDir := machine("proj")
	eveDir := machine("other")
	for _, c := range []struct{ dir, token, from, path string }{
		{aliceDir, alice, "claude-code", project},
		{bobDir, bob, "codex", "../fixtures/codex/resume/sessions"},
	} {
		if out, err := cairnRun(bin, "", "-C", c.dir, "space", "import", "--from", c.from, c.path); err != nil {
			t.Fatalf("import --from %s: %v %s", c.from, err, out)
		}
		if out, err := cairnRun(bin, c.token, "-C", c.dir, "space", "push"); err != nil || !strings.Contains(out, "sent ") {
			t.Fatalf("push: %v %s\nserver: %s", err, out, stderr)
		}
	}

	for _, c := range []struct{ who, dir, token, query, want string }{
		{"bob", bobDir, bob, "flamingo", "1 hit"},
		{"alice", aliceDir, alice, "SCENARIO-RESUME", "hit"},
		{"eve", eveDir, eve, "flamingo", "0 hit"},
		{"eve", eveDir, eve, "SCENARIO-RESUME", "0 hit"},
		{"bob", bobDir, bob, "wR4Kqw9", "0 hit"},
		{"bob", bobDir, bob, "3NeZGg0", "0 hit"},
	} {
		out, err := cairnRun(bin, c.token, "-C", c.dir, "space", "search", c.query)
		answer := strings.ReplaceAll(out, `"`+c.query+`"`, "") // the header repeats the query
		if err != nil || !strings.Contains(out, c.want) || strings.Contains(answer, "wR4Kqw9") || strings.Contains(answer, "3NeZGg0") {
			t.Errorf("%s space search %q: want %q: %v\n%s", c.who, c.query, c.want, err, out)
		}
		if c.want == "0 hit" {
			continue
		}
		if strings.Contains(out, " 0 hit") {
			t.Errorf("%s space search %q found nothing:\n%s", c.who, c.query, out)
		}
	}

	// through cairn mcp, with the member's own token
	mcpSearch := func(dir, token string, args map[string]any) (string, bool) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c := exec.Command(bin, "-C", dir, "mcp")
		c.Env = append(os.Environ(), "CAIRN_TOKEN="+token)
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "team-test", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: c}, nil)
		if err != nil {
			t.Fatalf("mcp initialize: %v", err)
		}
		defer cs.Close()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "SearchWorkspaceTasks", Arguments: args})
		if err != nil {
			t.Fatalf("SearchWorkspaceTasks %v: %v", args, err)
		}
		var b strings.Builder
		for _, part := range res.Content {
			if tc, ok := part.(*mcp.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		return b.String(), res.IsError
	}
	hits := func(text string) int {
		var a struct {
			Hits []json.RawMessage `json:"hits"`
		}
		if err := json.Unmarshal([]byte(text), &a); err != nil {
			t.Fatalf("answer is not JSON: %v %s", err, text)
		}
		return len(a.Hits)
	}
	out, isErr := mcpSearch(bobDir, bob, map[string]any{"query": "flamingo"})
	if isErr || hits(out) != 1 || strings.Contains(out, "wR4Kqw9") || !strings.Contains(out, "[REDACTED]") {
		t.Errorf("bob over MCP, flamingo: %v %s", isErr, out)
	}
	var ref string
	var first struct {
		Hits []struct {
			Ref string `json:"ref"`
		} `json:"hits"`
	}
	if json.Unmarshal([]byte(out), &first) == nil && len(first.Hits) == 1 {
		ref = first.Hits[0].Ref
	}
	out, isErr = mcpSearch(aliceDir, alice, map[string]any{"query": "SCENARIO-RESUME"})
	if isErr || hits(out) == 0 {
		t.Errorf("alice over MCP, bob's words: %v %s", isErr, out)
	}
	out, isErr = mcpSearch(eveDir, eve, map[string]any{"query": "flamingo"})
	if isErr || hits(out) != 0 {
		t.Errorf("eve over MCP found proj's words: %v %s", isErr, out)
	}
	if ref != "" {
		if out, isErr = mcpSearch(eveDir, eve, map[string]any{"around_ref": ref}); !isErr || !strings.Contains(out, "NOT_FOUND") {
			t.Errorf("eve read %s over MCP: %v %s", ref, isErr, out)
		}
	} else {
		t.Error("no ref in bob's answer")
	}

	// the password is in no column of the database
	ctx := context.Background()
	db, err := pgx.Connect(ctx, store)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(ctx)
	var n, leaks int
	if err := db.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE position($1 in convert_from(body, 'UTF8') || convert_from(dtext, 'UTF8') || convert_from(author, 'UTF8') || coalesce(itext, '') || attachments) > 0) FROM comments`, "wR4Kqw9").Scan(&n, &leaks); err != nil {
		t.Fatal(err)
	}
	var taskLeaks int
	if err := db.QueryRow(ctx, `SELECT count(*) FROM tasks WHERE position($1 in title || convert_from(dtitle, 'UTF8')) > 0`, "wR4Kqw9").Scan(&taskLeaks); err != nil {
		t.Fatal(err)
	}
	if n == 0 || leaks != 0 || taskLeaks != 0 {
		t.Errorf("PostgreSQL: %d comments, %d holding the password, %d tasks holding it", n, leaks, taskLeaks)
	}
}
