// Command gen-sessions writes synthetic past sessions of Codex, Gemini CLI and OpenCode under a
// home folder, where each runtime keeps them, for benchmarks of `cairn space import --all`:
//
//	go run ./scripts/gen-sessions -home DIR -mb 256
//
// It writes about -mb megabytes per runtime: Codex rollouts in DIR/.codex/sessions/2026/12/01/
// (a session_meta line, then user and assistant messages), Gemini CLI session files in
// DIR/.gemini/tmp/<project>/chats/ (a header, then messages; .project_root names the project) and
// one OpenCode database DIR/.local/share/opencode/opencode.db (the recorded schema; sessions,
// messages and text parts). Sessions are spread over -projects projects; about one session in 50
// mentions the rare term "kumquat". Claude Code's transcripts come from scripts/gen-claude
// (-out DIR/.claude/projects). The output is the same for the same -seed.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/core/opencode/opencodetest"
)

var words = []string{
	"認証", "フロー", "画面", "変更", "テスト", "移行", "設計", "確認", "修正", "データ",
	"the", "rate", "limiter", "deploy", "token", "bucket", "cache", "schema", "migration", "review",
	"latency", "error", "retry", "queue", "worker", "index", "search", "query", "build", "release",
}

type gen struct {
	r        *rand.Rand
	projects int
	start    time.Time
}

func (g *gen) text(n int, rare bool) string {
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(words[g.r.Intn(len(words))])
		b.WriteByte(' ')
	}
	if rare {
		b.WriteString("kumquat")
	}
	return b.String()
}

func (g *gen) uuid() string {
	b := make([]byte, 16)
	g.r.Read(b)
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

type fatal struct{}

func (fatal) Fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
	os.Exit(1)
}

func must(err error) {
	if err != nil {
		fatal{}.Fatalf("%v", err)
	}
}

const msgBytes = 2000
const perSession = 250 // messages: about 500 KB a session

func (g *gen) codex(home string, sessions int) {
	dir := filepath.Join(home, ".codex", "sessions", "2026", "12", "01")
	must(os.MkdirAll(dir, 0o755))
	for i := 0; i < sessions; i++ {
		id := g.uuid()
		at := g.start.Add(time.Duration(i) * time.Minute)
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("rollout-%s-%s.jsonl", at.Format("2006-01-02T15-04-05"), id)))
		must(err)
		w := bufio.NewWriter(f)
		line := func(v any) { b, _ := json.Marshal(v); w.Write(b); w.WriteByte('\n') }
		ts := func(k int) string { return at.Add(time.Duration(k) * time.Second).UTC().Format(time.RFC3339Nano) }
		line(map[string]any{"timestamp": ts(0), "type": "session_meta", "payload": map[string]any{"id": id, "timestamp": ts(0),
			"cwd": fmt.Sprintf("/home/user/src/project-%d", i%g.projects), "originator": "codex_cli_rs", "cli_version": "0.171.0"}})
		for k := 0; k < perSession; k++ {
			role, typ := "user", "input_text"
			if k%2 == 1 {
				role, typ = "assistant", "output_text"
			}
			line(map[string]any{"timestamp": ts(k + 1), "type": "response_item", "payload": map[string]any{"type": "message", "role": role,
				"content": []any{map[string]any{"type": typ, "text": g.text(msgBytes, i%50 == 0 && k == 0)}}}})
		}
		must(w.Flush())
		must(f.Close())
	}
}

func (g *gen) gemini(home string, sessions int) {
	for i := 0; i < sessions; i++ {
		project := fmt.Sprintf("project-%d", i%g.projects)
		dir := filepath.Join(home, ".gemini", "tmp", project, "chats")
		must(os.MkdirAll(dir, 0o755))
		must(os.WriteFile(filepath.Join(home, ".gemini", "tmp", project, ".project_root"), []byte("/home/user/src/"+project+"\n"), 0o644))
		id := g.uuid()
		at := g.start.Add(time.Duration(i) * time.Minute)
		ts := func(k int) string { return at.Add(time.Duration(k) * time.Second).UTC().Format(time.RFC3339Nano) }
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("session-%s-%s.jsonl", at.Format("2006-01-02T15-04"), id[:8])))
		must(err)
		w := bufio.NewWriter(f)
		line := func(v any) { b, _ := json.Marshal(v); w.Write(b); w.WriteByte('\n') }
		line(map[string]any{"sessionId": id, "projectHash": fmt.Sprintf("%064x", i%g.projects), "startTime": ts(0), "lastUpdated": ts(0), "kind": "main"})
		for k := 0; k < perSession; k++ {
			typ := "user"
			if k%2 == 1 {
				typ = "gemini"
			}
			line(map[string]any{"id": g.uuid(), "timestamp": ts(k + 1), "type": typ,
				"content": []any{map[string]any{"text": g.text(msgBytes, i%50 == 0 && k == 0)}}})
		}
		must(w.Flush())
		must(f.Close())
	}
}

func (g *gen) opencode(home string, sessions int) {
	dir := filepath.Join(home, ".local", "share", "opencode")
	must(os.MkdirAll(dir, 0o755))
	path := filepath.Join(dir, "opencode.db")
	os.Remove(path)
	db := opencodetest.Create(fatal{}, path)
	defer db.Close()
	tx, err := db.Begin()
	must(err)
	n := 0
	for i := 0; i < sessions; i++ {
		ses := fmt.Sprintf("ses_%012x%014d", 0xdcb6a13d3ffe+i, i)
		at := g.start.Add(time.Duration(i) * time.Minute).UnixMilli()
		dirName := fmt.Sprintf("/home/user/src/project-%d", i%g.projects)
		_, err := tx.Exec("INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated) VALUES (?, 'global', ?, ?, ?, '1.18.33', ?, ?)",
			ses, fmt.Sprintf("s-%d", i), dirName, "session", at, at+perSession*1000)
		must(err)
		for k := 0; k < perSession; k++ {
			n++
			role := "user"
			if k%2 == 1 {
				role = "assistant"
			}
			msg, part := fmt.Sprintf("msg_%026d", n), fmt.Sprintf("prt_%026d", n)
			t := at + int64(k)*1000
			data, _ := json.Marshal(map[string]any{"role": role, "time": map[string]any{"created": t}})
			_, err := tx.Exec("INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)", msg, ses, t, t, string(data))
			must(err)
			pdata, _ := json.Marshal(map[string]any{"type": "text", "text": g.text(msgBytes, i%50 == 0 && k == 0)})
			_, err = tx.Exec("INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)", part, msg, ses, t, t, string(pdata))
			must(err)
		}
	}
	must(tx.Commit())
	_, err = db.Exec("PRAGMA wal_checkpoint(TRUNCATE)")
	must(err)
}

func main() {
	home := flag.String("home", "", "the home folder to write under (required)")
	mb := flag.Int("mb", 256, "megabytes per runtime, about")
	projects := flag.Int("projects", 20, "projects the sessions are spread over")
	seed := flag.Int64("seed", 1, "random seed")
	flag.Parse()
	if *home == "" {
		fatal{}.Fatalf("usage: gen-sessions -home DIR [-mb N]")
	}
	g := &gen{r: rand.New(rand.NewSource(*seed)), projects: *projects, start: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)}
	sessions := max(1, *mb*1000/(perSession*msgBytes/1000))
	g.codex(*home, sessions)
	g.gemini(*home, sessions)
	g.opencode(*home, sessions)
}
