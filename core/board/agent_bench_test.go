package board

import (
	"context"
	"testing"
)

// BenchmarkAgentSearchNarrowed runs flowly_search (the caller's project only, as cairn mcp runs it
// with its narrowing index) for terms of the query-distribution benchmark (board-dist) that are
// rare in the caller's project; each query alternates between the full scan and the narrowed one.
func BenchmarkAgentSearchNarrowed(b *testing.B) {
	ws := benchWorkspace(b)
	full, err := Load(context.Background(), ws)
	if err != nil {
		b.Fatal(err)
	}
	narrowed, err := Load(context.Background(), ws)
	if err != nil {
		b.Fatal(err)
	}
	if err := narrowed.EnableNarrowing(); err != nil {
		b.Fatal(err)
	}
	for _, q := range []string{"435 731", "误分页", "タベース監視", "666 efresh", "imeou", "迁移", "配 知バッ", "inati esearc", "限 画面", "sesq"} {
		for _, v := range []struct {
			name string
			ix   *Index
		}{{"scan", full}, {"narrowed", narrowed}} {
			b.Run(q+"/"+v.name, func(b *testing.B) {
				cpu := processCPU()
				for b.Loop() {
					if _, err := v.ix.AgentSearch(context.Background(), ws.Config.Board, AgentInput{Card: "c1", Query: q}); err != nil {
						b.Fatal(err)
					}
				}
				reportCPU(b, cpu)
			})
		}
	}
}
