package spaces

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
	"modernc.org/sqlite"
)

// TestDistCPU runs the queries of a gen-terms file (CAIRN_SPACE_DIST_TERMS, as
// scripts/bench.d/search-dist.sh samples them) through a store kept open (Readers, as `cairn
// mcp` reads), on the workspace of CAIRN_SPACE_BENCH_WS, and writes one line per query to
// CAIRN_SPACE_DIST_OUT: band, matches, the median process CPU time of CAIRN_SPACE_DIST_RUNS
// calls (µs; CPU time, which the load of a shared machine distorts far less than wall time),
// the SQL statements one call ran, the database pages it read (page cache hits and misses: the
// work of its statements, whatever the load), and a hash of the answer's JSON, so
// two builds can be compared term by term and answer by answer, the steps of its plan, and the
// CPU time of the query's first call (the store warm from the queries before it, as a server
// that answers many). Skipped unless set.
func TestDistCPU(t *testing.T) {
	terms, out := os.Getenv("CAIRN_SPACE_DIST_TERMS"), os.Getenv("CAIRN_SPACE_DIST_OUT")
	if terms == "" || out == "" {
		t.Skip("set CAIRN_SPACE_BENCH_WS, CAIRN_SPACE_DIST_TERMS and CAIRN_SPACE_DIST_OUT")
	}
	ws := benchWorkspace(&testing.B{})
	runs := 5
	if n, err := strconv.Atoi(os.Getenv("CAIRN_SPACE_DIST_RUNS")); err == nil && n > 0 {
		runs = n
	}
	f, err := os.Open(terms)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var r Readers
	defer r.Close()
	ctx := context.Background()
	w, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	cpu := func() int64 {
		var ts unix.Timespec
		unix.ClockGettime(unix.CLOCK_PROCESS_CPUTIME_ID, &ts)
		return ts.Nano()
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "\t")
		band, matches, q := cols[0], cols[3], cols[5]
		in := SearchInput{Query: q}
		first := cpu()
		a, err := r.SearchWorkspaceTasks(ctx, ws, benchCaller, in)
		first = cpu() - first
		if err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		doc, _ := json.Marshal(a.Value())
		sum := sha256.Sum256(doc)
		st, release, err := r.Open(ctx, ws)
		if err != nil {
			t.Fatal(err)
		}
		release()
		if v, err := strconv.Atoi(os.Getenv("CAIRN_SPACE_DIST_ANCHOR")); err == nil {
			st.anchorMax = v // A/B of rareAnchor in one build: 0 turns it off
		}
		var steps []string
		st.trace = func(step string) { steps = append(steps, step) }
		if _, err := r.SearchWorkspaceTasks(ctx, ws, benchCaller, in); err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		st.trace = nil
		stmts0, pages0 := connCounts(t, st)
		times := make([]int64, runs)
		for i := range times {
			start := cpu()
			if _, err := r.SearchWorkspaceTasks(ctx, ws, benchCaller, in); err != nil {
				t.Fatalf("%q: %v", q, err)
			}
			times[i] = cpu() - start
		}
		stmts1, pages1 := connCounts(t, st)
		slices.Sort(times)
		hits := 0
		if a.Search != nil {
			hits = len(a.Search.Hits)
		}
		fmt.Fprintf(w, "%s\t%s\t%.1f\t%d\t%d\t%d\t%s\t%s\t%s\t%.1f\n", band, matches, float64(times[runs/2])/1e3,
			(stmts1-stmts0)/runs, (pages1-pages0)/runs, hits, hex.EncodeToString(sum[:8]), q, strings.Join(steps, "; "), float64(first)/1e3)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}

// connCounts is how many statements the store's connection ran (stmtCache) and how many pages
// it read, so far.
func connCounts(t *testing.T, st *Store) (stmts, pages int) {
	conn, err := st.db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	err = conn.Raw(func(dc any) error {
		c := dc.(*stmtCache)
		stmts = c.ran
		hit, _, err := c.Conn.(sqlite.DBStatus).Status(sqlite.DBStatusCacheHit, false)
		if err != nil {
			return err
		}
		miss, _, err := c.Conn.(sqlite.DBStatus).Status(sqlite.DBStatusCacheMiss, false)
		pages = hit + miss
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return stmts, pages
}
