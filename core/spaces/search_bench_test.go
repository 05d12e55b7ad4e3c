package spaces

import (
	"context"
	"os"
	"testing"

	"github.com/cairn-dev/cairn/core/workspace"
)

// benchWorkspace is the workspace named by CAIRN_SPACE_BENCH_WS (one imported from
// scripts/gen-space, as scripts/bench.d/space.sh builds), or a skip: a space large enough to
// measure takes seconds to import, too long for every test run.
func benchWorkspace(b *testing.B) *workspace.Workspace {
	dir := os.Getenv("CAIRN_SPACE_BENCH_WS")
	if dir == "" {
		b.Skip("set CAIRN_SPACE_BENCH_WS to a workspace holding a generated space (scripts/gen-space)")
	}
	ws, err := workspace.Open(dir, "")
	if err != nil {
		b.Fatal(err)
	}
	return ws
}

// benchQuery is CAIRN_SPACE_BENCH_QUERY, or a rare term of the generated space.
func benchQuery() string {
	if q := os.Getenv("CAIRN_SPACE_BENCH_QUERY"); q != "" {
		return q
	}
	return "kumquat"
}

// benchCaller searches the generated space as scripts/bench.d/space.sh does.
var benchCaller = Caller{User: "bench", Task: "0"}

// BenchmarkSearchRareFresh is a rare term's search (or CAIRN_SPACE_BENCH_QUERY's) with spaces.db opened for each search, as a
// CLI process does.
func BenchmarkSearchRareFresh(b *testing.B) {
	ws := benchWorkspace(b)
	in := SearchInput{Query: benchQuery()}
	for b.Loop() {
		a, err := SearchWorkspaceTasks(context.Background(), ws, benchCaller, in)
		if err != nil || a.Search == nil || len(a.Search.Hits) == 0 {
			b.Fatalf("%v %+v", err, a)
		}
	}
}

// BenchmarkSearchRareWarm is a rare term's search (or CAIRN_SPACE_BENCH_QUERY's) through a store kept open (Readers), as
// `cairn mcp` does.
func BenchmarkSearchRareWarm(b *testing.B) {
	ws := benchWorkspace(b)
	in := SearchInput{Query: benchQuery()}
	var r Readers
	defer r.Close()
	for b.Loop() {
		a, err := r.SearchWorkspaceTasks(context.Background(), ws, benchCaller, in)
		if err != nil || a.Search == nil || len(a.Search.Hits) == 0 {
			b.Fatalf("%v %+v", err, a)
		}
	}
}
