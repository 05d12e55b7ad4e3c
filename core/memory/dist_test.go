package memory

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/cairn-dev/cairn/core/workspace"
)

// TestSearchDistribution runs the queries of a scripts/gen-terms -md file (CAIRN_DIST_TERMS)
// against the workspace CAIRN_DIST_WS in process, CAIRN_DIST_RUNS times each (3), with
// KnowledgeSearch or, with CAIRN_DIST_TOOL=memory, MemorySearch. It writes to CAIRN_DIST_OUT a
// line per query: band, script, shape, the median process CPU time per call in ms, the query and
// the answer as JSON, so two builds can be compared answer for answer and band by band.
func TestSearchDistribution(t *testing.T) {
	terms, dir, outPath := os.Getenv("CAIRN_DIST_TERMS"), os.Getenv("CAIRN_DIST_WS"), os.Getenv("CAIRN_DIST_OUT")
	if terms == "" || dir == "" || outPath == "" {
		t.Skip("set CAIRN_DIST_TERMS, CAIRN_DIST_WS and CAIRN_DIST_OUT")
	}
	runs := 3
	if r, err := strconv.Atoi(os.Getenv("CAIRN_DIST_RUNS")); err == nil && r > 0 {
		runs = r
	}
	ws, err := workspace.Open(dir, dir)
	if err != nil {
		t.Fatal(err)
	}
	search := func(q string) any {
		if os.Getenv("CAIRN_DIST_TOOL") == "memory" {
			r, err := MemorySearch(context.Background(), ws, SearchInput{Query: q})
			if err != nil {
				t.Fatal(err)
			}
			return r
		}
		r, err := KnowledgeSearch(context.Background(), ws, KnowledgeSearchInput{Query: q})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	cpu := func() float64 {
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e6
	}
	f, err := os.Open(terms)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out, err := os.Create(outPath)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	w := bufio.NewWriter(out)
	defer w.Flush()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Split(sc.Text(), "\t")
		q := fields[5]
		var times []float64
		var answer []byte
		for range runs {
			c0 := cpu()
			r := search(q)
			times = append(times, cpu()-c0)
			answer, _ = json.Marshal(r)
		}
		slices.Sort(times)
		fmt.Fprintf(w, "%s\t%s\t%s\t%.2f\t%s\t%s\n", fields[0], fields[1], fields[2], times[len(times)/2], q, answer)
	}
}
