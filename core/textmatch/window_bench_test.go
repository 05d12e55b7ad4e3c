package textmatch

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// cpuLoop runs body b.N times and reports the process's CPU time per op and CPU-time MB/s: on a
// shared machine wall time is mostly waiting for a core.
func cpuLoop(b *testing.B, bytes int, body func()) {
	cpu := func() int64 {
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return ru.Utime.Nano() + ru.Stime.Nano()
	}
	c0 := cpu()
	for b.Loop() {
		body()
	}
	ns := float64(cpu()-c0) / float64(b.N)
	b.ReportMetric(ns/1e6, "cpu-ms/op")
	b.ReportMetric(float64(bytes)/ns*1e3, "cpu-MB/s")
}

// BenchmarkWindowScan times the plan's scans over the files of CAIRN_BENCH_DIR (a knowledge folder).
func BenchmarkWindowScan(b *testing.B) {
	dir := os.Getenv("CAIRN_BENCH_DIR")
	if dir == "" {
		b.Skip("set CAIRN_BENCH_DIR")
	}
	names, _ := filepath.Glob(filepath.Join(dir, "*.md"))
	var texts [][]byte
	total := 0
	for _, n := range names[:2000] {
		t, _ := os.ReadFile(n)
		texts = append(texts, t)
		total += len(t)
	}
	for _, q := range []string{"onin na", "aingra mas", "g nfi", "失码限用 步解性認验布", "oncon プリワネヌ", "~~~~~", "\u3000"} {
		p := newWindowPlan([]byte(Fold(q)))
		b.Run(q+"/dense", func(b *testing.B) {
			cpuLoop(b, total, func() {
				for _, t := range texts {
					p.scanLines(t, nil, p.nextDense)
				}
			})
		})
		b.Run(q+"/sparse", func(b *testing.B) {
			cpuLoop(b, total, func() {
				for _, t := range texts {
					p.scanLines(t, nil, p.nextSparse)
				}
			})
		})
		b.Run(q+"/odd", func(b *testing.B) {
			cpuLoop(b, total, func() {
				for _, t := range texts {
					p.oddLines(t, nil)
				}
			})
		})
		b.Run(q+"/all", func(b *testing.B) {
			var f Folder
			n := NewNeedle(q)
			cpuLoop(b, total, func() {
				for _, t := range texts {
					n.MatchingLines(&f, t, nil)
				}
			})
		})
	}
}
