package board

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/cairn-dev/cairn/core/workspace"
	"github.com/cairn-dev/cairn/scripts/gen-board/boardgen"
)

// benchWorkspace imports a synthetic board of scale $CAIRN_BENCH_SCALE (default 10) once.
func benchWorkspace(b *testing.B) *workspace.Workspace {
	b.Helper()
	scale := 10
	if s := os.Getenv("CAIRN_BENCH_SCALE"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			b.Fatalf("CAIRN_BENCH_SCALE=%q is not a positive number", s)
		}
		scale = n
	}
	dir := b.TempDir()
	if _, err := workspace.Init(dir); err != nil {
		b.Fatal(err)
	}
	ws, err := workspace.Open(dir, dir)
	if err != nil {
		b.Fatal(err)
	}
	doc := filepath.Join(dir, "board.json")
	f, err := os.Create(doc)
	if err != nil {
		b.Fatal(err)
	}
	if err := boardgen.Write(f, scale, 1); err != nil {
		b.Fatal(err)
	}
	f.Close()
	in, err := os.Open(doc)
	if err != nil {
		b.Fatal(err)
	}
	defer in.Close()
	if _, err := Import(context.Background(), ws, in); err != nil {
		b.Fatal(err)
	}
	return ws
}

// BenchmarkSearch measures one in-memory search over a loaded board (target: ≤ 5 ms at scale 10),
// for a two-character Chinese word, an English word, and two terms across all projects.
func BenchmarkSearch(b *testing.B) {
	ws := benchWorkspace(b)
	ix, err := Load(context.Background(), ws)
	if err != nil {
		b.Fatal(err)
	}
	st := ix.Stats()
	b.Logf("board: %d projects, %d cards, %d memory entries, %d fields, %d bytes of folded text; origs %d, shifts %d", st.Projects, st.Cards, st.Memory, st.Fields, st.TextBytes, len(ix.origs), len(ix.shifts))
	for _, tc := range benchQueries() {
		b.Run(tc.name, func(b *testing.B) {
			cpu := processCPU()
			for b.Loop() {
				if _, err := ix.Search(context.Background(), ws.Config.Board, tc.in); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, cpu)
		})
	}
}

// reportCPU adds the process CPU time per operation since start (every thread, so a scan split
// across the cores counts each core's share), which other load on the machine does not inflate.
func reportCPU(b *testing.B, start int64) {
	if b.N > 0 {
		b.ReportMetric(float64(processCPU()-start)/float64(b.N), "cpu-ns/op")
	}
}

// benchQueries are the searches both benchmarks run.
func benchQueries() []struct {
	name string
	in   SearchInput
} {
	p1 := "p1"
	return []struct {
		name string
		in   SearchInput
	}{
		{"all/迁移", SearchInput{Query: "迁移"}},
		{"all/sqlite", SearchInput{Query: "sqlite"}},
		{"all/two-terms", SearchInput{Query: "迁移 timeout"}},
		{"all/rare", SearchInput{Query: "TL-417"}},
		{"project/迁移", SearchInput{Query: "迁移", ProjectID: &p1}},
	}
}

// BenchmarkSearchNarrowed runs BenchmarkSearch's queries on an index with the narrowing index
// of a daemon; each query alternates between the full scan and the narrowed one, so both are
// measured in the same conditions.
func BenchmarkSearchNarrowed(b *testing.B) {
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
	nx := narrowed.narrow.Load()
	b.Logf("narrowing index: %d bytes of lists", len(nx.data)+4*len(nx.off)+4*len(nx.count))
	for _, tc := range benchQueries() {
		for _, v := range []struct {
			name string
			ix   *Index
		}{{"scan", full}, {"narrowed", narrowed}} {
			b.Run(tc.name+"/"+v.name, func(b *testing.B) {
				cpu := processCPU()
				for b.Loop() {
					if _, err := v.ix.Search(context.Background(), ws.Config.Board, tc.in); err != nil {
						b.Fatal(err)
					}
				}
				reportCPU(b, cpu)
			})
		}
	}
}

// BenchmarkLoad compares building the index from the files with reading the snapshot.
func BenchmarkLoad(b *testing.B) {
	ws := benchWorkspace(b)
	if _, err := Load(context.Background(), ws); err != nil {
		b.Fatal(err)
	}
	b.Run("fresh", func(b *testing.B) {
		for b.Loop() {
			if _, err := LoadFresh(context.Background(), ws); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("snapshot", func(b *testing.B) {
		for b.Loop() {
			if _, err := Load(context.Background(), ws); err != nil {
				b.Fatal(err)
			}
		}
	})
}
