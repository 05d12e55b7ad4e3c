// Command gen-space writes a synthetic space for benchmarks, as `cairn space import` lines:
// go run ./scripts/gen-space -comments 200000 -out FILE
// Two spaces (90% of the comments in sp1, whose member is "bench"), tasks of 100 comments, every
// comment kind, Japanese and English text; a fraction -rare of the comments (0.1%) carries the rare
// term "kumquat", and about one in five the common four-character term "ログイン". With -words 40
// every body has 40 words (about 470 bytes) and the rare comments also carry "稀有".
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"strings"
	"time"
)

var words = []string{
	"認証", "フロー", "画面", "変更", "テスト", "移行", "設計", "確認", "修正", "データ", "バックアップ", "レビュー",
	"the", "rate", "limiter", "deploy", "token", "bucket", "cache", "schema", "migration", "review", "latency",
	"error", "retry", "queue", "worker", "index", "search", "query", "build", "release", "config", "API",
	"迁移", "数据", "脚本", "校验", "接口", "性能", "日志", "部署",
}

var kinds = []struct {
	kind, progress string
	weight         int
}{
	{"request", "", 8}, {"comment", "", 12}, {"interjection", "", 4}, {"interjection_ack", "", 4},
	{"result", "", 10}, {"ask", "", 4}, {"handoff", "", 2},
	{"progress", "thinking", 26}, {"progress", "summary", 8}, {"progress", "tool", 20}, {"progress", "debug", 2},
}

var tools = []string{"Bash", "Read", "Edit", "WebFetch", "Grep"}

func main() {
	n := flag.Int("comments", 200000, "number of comments")
	rare := flag.Float64("rare", 0.001, "fraction of comments carrying the rare term")
	out := flag.String("out", "", "output file (default: standard output)")
	seed := flag.Int64("seed", 1, "random seed")
	nwords := flag.Int("words", 0, "words in every comment body (0: 8 to 37, tool calls a short command); with it the rare comments also carry the two-character term 稀有")
	flag.Parse()
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer f.Close()
		w = bufio.NewWriterSize(f, 1<<20)
	}
	defer w.Flush()
	rng := rand.New(rand.NewSource(*seed))
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	emit := func(v any) {
		if err := enc.Encode(v); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	emit(map[string]any{"type": "space", "id": "sp1", "name": "Bench", "owner": "owner"})
	emit(map[string]any{"type": "member", "space": "sp1", "user": "bench"})
	emit(map[string]any{"type": "space", "id": "sp2", "name": "Other", "owner": "other"})
	total := 0
	for _, k := range kinds {
		total += k.weight
	}
	rareEvery := int(1 / *rare)
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	// the current task of the benchmark caller: task 0, in sp1, with no comments
	emit(map[string]any{"type": "task", "id": 0, "space": "sp1", "title": "current", "status": "running", "created_at": start.Format(time.RFC3339)})
	for i := 0; i < *n; i++ {
		task := i/100 + 1
		if i%100 == 0 {
			space := "sp1"
			if task%10 == 0 {
				space = "sp2"
			}
			emit(map[string]any{"type": "task", "id": task, "space": space, "title": fmt.Sprintf("task %d: %s %s", task, words[rng.Intn(len(words))], words[rng.Intn(len(words))]),
				"status": []string{"running", "completed", "interrupted"}[rng.Intn(3)], "created_at": start.Add(time.Duration(i) * time.Minute).Format(time.RFC3339)})
		}
		r := rng.Intn(total)
		k := kinds[0]
		for _, c := range kinds {
			if r < c.weight {
				k = c
				break
			}
			r -= c.weight
		}
		var b strings.Builder
		m := 8 + rng.Intn(30)
		if *nwords > 0 {
			m = *nwords
		}
		for j := 0; j < m; j++ {
			if j > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(words[rng.Intn(len(words))])
		}
		if rng.Intn(5) == 0 {
			b.WriteString(" ログイン")
		}
		if i%rareEvery == rareEvery/2 {
			b.WriteString(" kumquat")
			if *nwords > 0 {
				b.WriteString(" 稀有")
			}
		}
		c := map[string]any{"type": "comment", "id": i + 1, "task": task, "kind": k.kind, "author": []string{"user", "agent"}[rng.Intn(2)],
			"created_at": start.Add(time.Duration(i)*time.Minute + time.Duration(rng.Intn(50))*time.Second).Format(time.RFC3339), "body": b.String()}
		if k.progress != "" {
			c["progress_type"] = k.progress
		}
		if k.progress == "tool" && *nwords == 0 {
			c["tool_name"] = tools[rng.Intn(len(tools))]
			c["body"] = fmt.Sprintf(`{"command":"grep -r %s ."}`, words[rng.Intn(len(words))])
		}
		if rng.Intn(50) == 0 {
			c["attachments"] = []string{fmt.Sprintf("file-%d.png", i)}
		}
		emit(c)
	}
}
