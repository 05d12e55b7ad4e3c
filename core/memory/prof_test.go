package memory

import (
	"context"
	"os"
	"testing"

	"github.com/cairn-dev/cairn/core/workspace"
)

// BenchmarkKnowledgeSearchFullScan searches the workspace named by CAIRN_BENCH_KNOWLEDGE (made by
// scripts/bench.sh memory or memory-dist) for a query with no hits, so every byte is scanned:
// CAIRN_BENCH_QUERY, or "tenant onboarding".
func BenchmarkKnowledgeSearchFullScan(b *testing.B) {
	dir := os.Getenv("CAIRN_BENCH_KNOWLEDGE")
	if dir == "" {
		b.Skip("set CAIRN_BENCH_KNOWLEDGE to a workspace made by scripts/bench.sh memory")
	}
	ws, err := workspace.Open(dir, dir)
	if err != nil {
		b.Fatal(err)
	}
	q := os.Getenv("CAIRN_BENCH_QUERY")
	if q == "" {
		q = "tenant onboarding"
	}
	for i := 0; i < b.N; i++ {
		if _, err := KnowledgeSearch(context.Background(), ws, KnowledgeSearchInput{Query: q}); err != nil {
			b.Fatal(err)
		}
	}
}
