package tasks

import (
	"os"
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
		if _, err := s.List(Stop{}, nil); err != nil {
			b.Fatal(err)
		}
	}
}
