// Command gen-claude writes a synthetic ~/.claude/projects folder of Claude Code transcripts, for
// benchmarks and for trying `cairn space import --from claude-code` on a realistic amount of history:
//
//	go run ./scripts/gen-claude -sessions 200 -out DIR
//
// It writes DIR/<project>/<session>.jsonl for -projects project folders (sessions spread over
// them), every fifth session with a subagent transcript (<session>/subagents/agent-<id>.jsonl and
// its .meta.json), in the record shapes Claude Code writes: file-history-snapshot, summary,
// queue-operation, attachment and system housekeeping; user prompts (some with images, some slash
// commands and local command output); assistant lines, one per content block (thinking, text,
// tool_use), and tool_result lines that carry most of the bytes, as real transcripts do; a
// compact_boundary with its isCompactSummary line in some sessions. Prompts and answers mix
// Japanese and English; about one session in 50 mentions the rare term "kumquat". Each session is
// about -kb kilobytes (default 210: 200 sessions and their subagents ≈ 50 MB). The output is the same for the same -seed.
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
)

var words = []string{
	"認証", "フロー", "画面", "変更", "テスト", "移行", "設計", "確認", "修正", "データ", "バックアップ", "レビュー", "ログイン",
	"the", "rate", "limiter", "deploy", "token", "bucket", "cache", "schema", "migration", "review", "latency",
	"error", "retry", "queue", "worker", "index", "search", "query", "build", "release", "config", "API",
}

var prompts = []string{
	"ログイン画面の改修をお願いします。既存の認証フローは変更しないでください。",
	"Add rate limiting to the shortener API; 10 requests per second per IP.",
	"データ移行のスクリプトを書いて、バックアップを先に取ってください。",
	"Fix the flaky test in the queue worker and explain the root cause.",
	"Refactor the cache layer so the schema migration can run online.",
	"レビューコメントに対応してください。特にエラー処理の部分。",
	"Why is the search query latency so high on the index page?",
	"設計ドキュメントを確認して、API の変更点をまとめてください。",
}

var tools = []string{"Read", "Bash", "Edit", "Grep", "Glob", "Write", "WebFetch", "TaskCreate", "TaskUpdate"}

// counter counts the bytes written through it.
type counter struct {
	w *bufio.Writer
	n *int
}

func (c counter) Write(p []byte) (int, error) {
	*c.n += len(p)
	return c.w.Write(p)
}

type gen struct {
	rng   *rand.Rand
	w     *bufio.Writer
	bytes int
	enc   *json.Encoder
	sess  string
	cwd   string
	at    time.Time
	prev  any
	side  bool
	n     int
}

func (g *gen) uuid() string {
	b := make([]byte, 16)
	g.rng.Read(b)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

func (g *gen) text(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 && g.rng.Intn(3) > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(words[g.rng.Intn(len(words))])
	}
	return b.String()
}

func (g *gen) tick() string {
	g.at = g.at.Add(time.Duration(1+g.rng.Intn(20000)) * time.Millisecond)
	return g.at.Format("2006-01-02T15:04:05.000Z")
}

// line writes one conversation line chained to the previous one.
func (g *gen) line(typ string, msg any, extra map[string]any) string {
	id := g.uuid()
	m := map[string]any{
		"parentUuid": g.prev, "isSidechain": g.side, "userType": "external", "cwd": g.cwd,
		"sessionId": g.sess, "version": "2.1.332", "gitBranch": "main", "type": typ,
		"message": msg, "uuid": id, "timestamp": g.tick(),
	}
	for k, v := range extra {
		m[k] = v
	}
	g.emit(m)
	g.prev = id
	return id
}

func (g *gen) emit(v any) {
	if err := g.enc.Encode(v); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	g.n++
}

func (g *gen) user(content any, extra map[string]any) string {
	return g.line("user", map[string]any{"role": "user", "content": content}, extra)
}

func (g *gen) assistant(block map[string]any) string {
	return g.line("assistant", map[string]any{
		"id": "msg_" + g.uuid()[:8], "type": "message", "role": "assistant", "model": "claude-opus-4-1",
		"content": []any{block}, "stop_reason": nil, "usage": map[string]int{"input_tokens": 1200, "output_tokens": 80},
	}, map[string]any{"requestId": "req_" + g.uuid()[:8]})
}

// toolResult is a file listing or command output of about n bytes.
func (g *gen) toolResult(n int) string {
	var b strings.Builder
	for i := 1; b.Len() < n; i++ {
		fmt.Fprintf(&b, "%6d\t%s\n", i, g.text(8+g.rng.Intn(8)))
	}
	return b.String()
}

// turn writes one prompt and the agent's work on it.
func (g *gen) turn(prompt string, budget int) {
	if g.rng.Intn(6) == 0 {
		g.user([]any{
			map[string]any{"type": "text", "text": prompt},
			map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": "image/png", "data": strings.Repeat("iVBORw0KGgo", 200)}},
		}, nil)
	} else {
		g.user(prompt, nil)
	}
	g.emit(map[string]any{"type": "attachment", "attachment": map[string]any{"type": "date", "date": g.at.Format("2006-01-02")},
		"uuid": g.uuid(), "timestamp": g.tick(), "sessionId": g.sess, "parentUuid": g.prev})
	g.assistant(map[string]any{"type": "thinking", "thinking": "I should " + g.text(20+g.rng.Intn(40)), "signature": "Eq" + g.uuid()})
	for start := g.bytes; g.bytes-start < budget; {
		tool := tools[g.rng.Intn(len(tools))]
		useID := "toolu_" + g.uuid()[:12]
		g.assistant(map[string]any{"type": "tool_use", "id": useID, "name": tool,
			"input": map[string]any{"file_path": "/home/me/src/app/" + g.text(1) + ".go", "command": "go test ./... -run " + g.text(1)}})
		size := 500 + g.rng.Intn(6000)
		g.user([]any{map[string]any{"tool_use_id": useID, "type": "tool_result", "content": g.toolResult(size), "is_error": g.rng.Intn(20) == 0}},
			map[string]any{"toolUseResult": map[string]any{"stdout": g.toolResult(size / 2), "stderr": "", "interrupted": false}})
		if g.rng.Intn(4) == 0 {
			g.assistant(map[string]any{"type": "text", "text": g.text(15 + g.rng.Intn(30))})
		}
	}
	g.assistant(map[string]any{"type": "text", "text": "完了しました: " + g.text(30)})
	g.emit(map[string]any{"type": "system", "subtype": "stop_hook_summary", "hookCount": 0, "level": "suggestion",
		"uuid": g.uuid(), "timestamp": g.tick(), "sessionId": g.sess, "parentUuid": g.prev})
}

func create(path string) (*os.File, *bufio.Writer) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	f, err := os.Create(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	return f, bufio.NewWriterSize(f, 1<<20)
}

func main() {
	sessions := flag.Int("sessions", 200, "number of sessions")
	projects := flag.Int("projects", 4, "number of project folders")
	kb := flag.Int("kb", 210, "approximate size of one session transcript in kilobytes")
	out := flag.String("out", "", "output folder (like ~/.claude/projects)")
	seed := flag.Int64("seed", 1, "random seed")
	flag.Parse()
	if *out == "" || *sessions < 1 || *projects < 1 || *kb < 1 {
		fmt.Fprintln(os.Stderr, "usage: gen-claude -sessions N -projects N -kb N -out DIR")
		os.Exit(2)
	}
	rng := rand.New(rand.NewSource(*seed))
	start := time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)
	total, lines := 0, 0
	for s := 0; s < *sessions; s++ {
		p := s % *projects
		project := fmt.Sprintf("-home-me-src-app%d", p)
		cwd := fmt.Sprintf("/home/me/src/app%d", p)
		g := &gen{rng: rng, cwd: cwd, at: start.Add(time.Duration(s) * 3 * time.Hour)}
		g.sess = g.uuid()
		path := filepath.Join(*out, project, g.sess+".jsonl")
		f, w := create(path)
		g.w = w
		g.enc = json.NewEncoder(counter{w, &g.bytes})
		g.enc.SetEscapeHTML(false)
		if s%3 == 0 {
			g.emit(map[string]any{"type": "summary", "summary": prompts[rng.Intn(len(prompts))], "leafUuid": g.uuid()})
		}
		g.emit(map[string]any{"type": "file-history-snapshot", "messageId": g.uuid(), "isSnapshotUpdate": false,
			"snapshot": map[string]any{"trackedFileBackups": map[string]any{}, "timestamp": g.tick()}})
		g.emit(map[string]any{"type": "queue-operation", "operation": "enqueue", "timestamp": g.tick(), "sessionId": g.sess, "content": "start"})
		g.user("<command-name>/model</command-name>\n<command-message>model</command-message>\n<command-args></command-args>", nil)
		g.user("<local-command-stdout>Set model to opus</local-command-stdout>", nil)
		turns := 3 + rng.Intn(4)
		for t := 0; t < turns; t++ {
			prompt := prompts[rng.Intn(len(prompts))] + " " + g.text(5+rng.Intn(10))
			if t == 0 && s%50 == 7 {
				prompt += " kumquat"
			}
			if t == turns/2 && s%4 == 1 {
				g.emit(map[string]any{"parentUuid": nil, "logicalParentUuid": g.prev, "isSidechain": false, "type": "system",
					"subtype": "compact_boundary", "content": "Conversation compacted", "isMeta": false, "timestamp": g.tick(),
					"uuid": g.uuid(), "level": "info", "sessionId": g.sess, "compactMetadata": map[string]any{"trigger": "auto", "preTokens": 155000}})
				g.prev = nil
				g.user("This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:\n"+g.text(60),
					map[string]any{"isCompactSummary": true, "isVisibleInTranscriptOnly": true})
			}
			g.turn(prompt, *kb*1024/turns)
		}
		if err := w.Flush(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		total += g.bytes
		f.Close()
		lines += g.n
		if s%5 == 0 {
			agent := fmt.Sprintf("%016x", rng.Uint64())
			apath := filepath.Join(*out, project, g.sess, "subagents", "agent-"+agent+".jsonl")
			af, aw := create(apath)
			a := &gen{rng: rng, cwd: cwd, at: g.at, sess: g.sess, side: true, w: aw}
			a.enc = json.NewEncoder(counter{aw, &a.bytes})
			a.enc.SetEscapeHTML(false)
			a.turn("Survey the "+g.text(2)+" code and report", *kb*1024/8)
			if err := aw.Flush(); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			total += a.bytes
			af.Close()
			lines += a.n
			meta, _ := json.Marshal(map[string]any{"agentType": "general-purpose", "description": "Survey " + g.text(2)})
			if err := os.WriteFile(strings.TrimSuffix(apath, ".jsonl")+".meta.json", meta, 0o644); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
		}
	}
	fmt.Fprintf(os.Stderr, "wrote %d sessions in %d projects to %s: %d lines, %.1f MB\n", *sessions, *projects, *out, lines, float64(total)/1e6)
}
