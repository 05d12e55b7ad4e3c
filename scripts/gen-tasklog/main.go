// Command gen-tasklog writes a synthetic session log for benchmarks:
// go run ./scripts/gen-tasklog -lines 1000000 -out FILE
// 0.5% TaskCreate, 0.5% TaskUpdate; the rest are messages, other tool calls and their results.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"time"
)

type call struct {
	Type      string `json:"type"`
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments any    `json:"arguments"`
	At        string `json:"at"`
}

type result struct {
	Type    string `json:"type"`
	CallID  string `json:"call_id"`
	Content string `json:"content"`
	IsError bool   `json:"is_error"`
	At      string `json:"at"`
}

type message struct {
	Type    string `json:"type"`
	Role    string `json:"role"`
	Content string `json:"content"`
	At      string `json:"at"`
}

func main() {
	lines := flag.Int("lines", 1_000_000, "number of log lines")
	out := flag.String("out", "session.jsonl", "output file")
	seed := flag.Int64("seed", 1, "random seed")
	flag.Parse()
	f, err := os.Create(*out)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	rng := rand.New(rand.NewSource(*seed))
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	at := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	created := 0
	words := []string{"refactor", "the", "login", "screen", "ログイン画面", "迁移", "SQLite", "migration", "tests", "review", "deploy", "認証フロー", "cache", "index"}
	sentence := func(n int) string {
		s := ""
		for i := 0; i < n; i++ {
			if i > 0 {
				s += " "
			}
			s += words[rng.Intn(len(words))]
		}
		return s
	}
	for i := 0; i < *lines; i++ {
		at = at.Add(time.Duration(rng.Intn(3000)) * time.Millisecond)
		ts := at.Format(time.RFC3339Nano)
		id := fmt.Sprintf("call_%d", i)
		// entries are structs so "type" comes first, as cairn and most runtimes write it
		var e any
		switch p := rng.Intn(1000); {
		case p < 5:
			created++
			e = call{"tool_call", id, "TaskCreate", map[string]string{"subject": sentence(5), "description": sentence(20)}, ts}
		case p < 10 && created > 0:
			e = call{"tool_call", id, "TaskUpdate", map[string]any{"taskid": 1 + rng.Intn(created), "status": []string{"inprogress", "completed", "pending"}[rng.Intn(3)]}, ts}
		case p < 400:
			e = call{"tool_call", id, []string{"Read", "Edit", "Bash", "Grep"}[rng.Intn(4)], map[string]string{"path": "src/" + sentence(1) + ".go", "pattern": sentence(3)}, ts}
		case p < 700:
			e = result{"tool_result", fmt.Sprintf("call_%d", i-1), sentence(30), rng.Intn(50) == 0, ts}
		default:
			e = message{"message", []string{"user", "assistant"}[rng.Intn(2)], sentence(25), ts}
		}
		if err := enc.Encode(e); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	f.Close()
}
