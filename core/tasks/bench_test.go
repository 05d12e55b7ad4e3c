package tasks

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// BenchmarkReplayLog replays the log named by CAIRN_BENCH_LOG (see scripts/bench.sh).
func BenchmarkReplayLog(b *testing.B) {
	path := os.Getenv("CAIRN_BENCH_LOG")
	if path == "" {
		b.Skip("set CAIRN_BENCH_LOG to a session log (scripts/gen-tasklog makes one)")
	}
	s := NewSession(path, time.Second)
	for i := 0; i < b.N; i++ {
		if _, err := s.List(context.Background(), Stop{}, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReplayTranscript replays a 100 MB transcript shaped like Claude Code's: the real
// compaction fixture, then 2,000 Read calls whose results (code, with escaped quotes) are written
// twice, in message.content and in toolUseResult, and a TaskUpdate every 500 calls. The hook's
// budget on such a file is 200 ms.
func BenchmarkReplayTranscript(b *testing.B) {
	head, err := os.ReadFile(compacted21)
	if err != nil {
		b.Fatal(err)
	}
	var code strings.Builder
	for i := 0; code.Len() < 24*1024; i++ {
		fmt.Fprintf(&code, "func f%d(x int) string {\n\treturn fmt.Sprintf(\"%%d \\\"quoted\\\" value\", x)\n}\n", i)
	}
	body, _ := json.Marshal(code.String())
	var log bytes.Buffer
	log.Write(head)
	parent := "0b6f-u013"
	for n := 1; log.Len() < 100<<20; n++ {
		a, r, id := fmt.Sprintf("big-a%d", n), fmt.Sprintf("big-r%d", n), fmt.Sprintf("toolu_big%d", n)
		fmt.Fprintf(&log, `{"parentUuid":%q,"isSidechain":false,"userType":"external","cwd":"/home/dev/p","sessionId":"s","version":"2.1.332","type":"assistant","message":{"id":"msg_%d","type":"message","role":"assistant","content":[{"type":"tool_use","id":%q,"name":"Read","input":{"file_path":"/home/dev/p/f%d.go"}}]},"uuid":%q,"timestamp":"2026-11-30T10:00:00.000Z"}`+"\n", parent, n, id, n, a)
		fmt.Fprintf(&log, `{"parentUuid":%q,"isSidechain":false,"userType":"external","cwd":"/home/dev/p","sessionId":"s","version":"2.1.332","type":"user","message":{"role":"user","content":[{"tool_use_id":%q,"type":"tool_result","content":%s}]},"uuid":%q,"timestamp":"2026-11-30T10:00:01.000Z","toolUseResult":{"type":"text","file":{"filePath":"/home/dev/p/f%d.go","content":%s,"numLines":900}},"sourceToolAssistantUUID":%q}`+"\n", a, id, body, r, n, body, a)
		parent = r
		if n%500 == 0 {
			fmt.Fprintf(&log, `{"parentUuid":%q,"isSidechain":false,"sessionId":"s","type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_up%d","name":"TaskUpdate","input":{"taskId":"2","status":"in_progress"}}]},"uuid":"up%d","timestamp":"2026-11-30T10:00:02.000Z"}`+"\n", parent, n, n)
			parent = fmt.Sprintf("up%d", n)
		}
	}
	data := log.Bytes()
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := NewReplayer()
		if err := ReplayClaude(bytes.NewReader(data), r, Stop{}, nil); err != nil {
			b.Fatal(err)
		}
		if len(r.Store.Tasks()) != 4 {
			b.Fatalf("tasks = %+v", r.Store.Tasks())
		}
	}
}

// BenchmarkReplayTaskCalls replays a cairn log of task calls only (20,000 creates, each followed
// by two updates), so the cost measured is the arguments' decode, validation and apply.
func BenchmarkReplayTaskCalls(b *testing.B) {
	var log bytes.Buffer
	for n := 1; n <= 20000; n++ {
		fmt.Fprintf(&log, `{"type":"tool_call","id":"call_c%d","name":"TaskCreate","arguments":{"subject":"step %d of the migration","description":"users table first, then the index; keep the old column until the deploy"},"at":"2026-11-01T09:04:44.704Z"}`+"\n", n, n)
		fmt.Fprintf(&log, `{"type":"tool_call","id":"call_u%d","name":"TaskUpdate","arguments":{"taskid":%d,"status":"inprogress"},"at":"2026-11-01T09:04:45.704Z"}`+"\n", n, n)
		fmt.Fprintf(&log, `{"type":"tool_call","id":"call_v%d","name":"TaskUpdate","arguments":{"taskid":%d,"status":"completed","subject":"step %d, done"},"at":"2026-11-01T09:04:46.704Z"}`+"\n", n, n, n)
	}
	data := log.Bytes()
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := NewReplayer()
		if err := ReplayCairn(context.Background(), bytes.NewReader(data), r, Stop{}, nil); err != nil {
			b.Fatal(err)
		}
		if len(r.Store.tasks) != 20000 || len(r.Skips) != 0 {
			b.Fatalf("tasks = %d, skips = %v", len(r.Store.tasks), r.Skips[:1])
		}
	}
}
