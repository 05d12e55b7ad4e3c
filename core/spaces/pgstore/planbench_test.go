package pgstore

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/core/spaces"
)

// TestPlanBench measures the search plans on a loaded team space, one search at a time: with
// CAIRN_PLAN_BENCH set to a terms file of scripts/gen-terms and CAIRN_PLAN_BENCH_DSN to the
// database a team server was pushed to (docs/benchmarks.md, "Search, PostgreSQL plans"), it
// searches space CAIRN_PLAN_BENCH_SPACE (team) for every query CAIRN_PLAN_BENCH_REPS times (3)
// and writes, to CAIRN_PLAN_BENCH_OUT (or the log), one line a query: band, matches, the
// fastest search's ms, its shared buffers (pg_stat_statements, when the server preloads it),
// the plans it took, a hash of its answer and the query; then p50, p90, p99 and max per band.
// Skipped without CAIRN_PLAN_BENCH.
func TestPlanBench(t *testing.T) {
	terms, dsn := os.Getenv("CAIRN_PLAN_BENCH"), os.Getenv("CAIRN_PLAN_BENCH_DSN")
	if terms == "" || dsn == "" {
		t.Skip("CAIRN_PLAN_BENCH and CAIRN_PLAN_BENCH_DSN not set")
	}
	space := orDefault(os.Getenv("CAIRN_PLAN_BENCH_SPACE"), "team")
	reps, _ := strconv.Atoi(orDefault(os.Getenv("CAIRN_PLAN_BENCH_REPS"), "3"))
	ctx := context.Background()
	st, err := Open(ctx, dsn, Options{Wait: 5 * time.Second, MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	st.plans = map[string]int{}
	stats := true
	if _, err := st.pool.Exec(ctx, `CREATE EXTENSION IF NOT EXISTS pg_stat_statements`); err != nil {
		stats = false
	} else if _, err := st.pool.Exec(ctx, `SELECT pg_stat_statements_reset()`); err != nil {
		stats = false
	}
	// the CPU time of the one connection's backend over each search (when the server runs
	// here; a search that ran out of its budget closes its connection and is not counted)
	var cpu float64
	f, err := os.Open(terms)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type row struct {
		band, matches, query, plan, hash string
		ms                               float64
		bufs                             int64
	}
	var rows []row
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Split(sc.Text(), "\t")
		if len(fs) < 6 {
			continue
		}
		r := row{band: fs[0], matches: fs[3], query: fs[len(fs)-1], ms: -1}
		for i := 0; i < reps; i++ {
			var pid int
			st.pool.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&pid)
			c0 := backendCPU(pid)
			before := maps.Clone(st.plans)
			if stats {
				st.pool.Exec(ctx, `SELECT pg_stat_statements_reset()`)
			}
			t0 := time.Now()
			a, err := st.SearchSpace(ctx, spaces.ID(space), "", spaces.SearchInput{Query: r.query})
			ms := float64(time.Since(t0).Microseconds()) / 1000
			var plan []string
			for k, v := range st.plans {
				if v > before[k] {
					plan = append(plan, k)
				}
			}
			slices.Sort(plan)
			h := sha256.New()
			if err != nil {
				fmt.Fprintf(h, "error %s", err)
			} else if a.Search != nil {
				for _, hit := range a.Search.Hits {
					fmt.Fprintf(h, "%s %s\n", hit.Ref, hit.Excerpt)
				}
				fmt.Fprintf(h, "%v", a.Search.Truncated)
			}
			var bufs int64
			if stats {
				st.pool.QueryRow(ctx, `SELECT coalesce(sum(shared_blks_hit + shared_blks_read), 0)::bigint FROM pg_stat_statements
					WHERE query NOT LIKE '%pg_stat_statements%'`).Scan(&bufs)
			}
			if c1 := backendCPU(pid); c1 >= c0 {
				cpu += c1 - c0
			}
			if r.ms < 0 || ms < r.ms {
				r.ms, r.bufs = ms, bufs
			}
			r.plan, r.hash = strings.Join(plan, "+"), hex.EncodeToString(h.Sum(nil))[:12]
			if err != nil {
				r.plan += "!" + err.Error()
			}
		}
		rows = append(rows, r)
	}
	out := os.Stdout
	if p := os.Getenv("CAIRN_PLAN_BENCH_OUT"); p != "" {
		if out, err = os.Create(p); err != nil {
			t.Fatal(err)
		}
		defer out.Close()
	}
	bands := map[string][]float64{}
	var order []string
	for _, r := range rows {
		fmt.Fprintf(out, "%s\t%s\t%.2f\t%d\t%s\t%s\t%s\n", r.band, r.matches, r.ms, r.bufs, r.plan, r.hash, r.query)
		if _, ok := bands[r.band]; !ok {
			order = append(order, r.band)
		}
		bands[r.band] = append(bands[r.band], r.ms)
	}
	t.Logf("%d queries x %d, PostgreSQL backend CPU %.2f s (%.2f ms a search)", len(rows), reps, cpu, 1000*cpu/float64(max(1, len(rows)*reps)))
	q := func(v []float64, p float64) float64 { return v[min(len(v)-1, int(p*float64(len(v))))] }
	for _, b := range order {
		v := bands[b]
		sort.Float64s(v)
		t.Logf("band %-7s n=%3d p50 %7.2f p90 %7.2f p99 %7.2f max %7.2f ms", b, len(v), q(v, 0.5), q(v, 0.9), q(v, 0.99), v[len(v)-1])
	}
}

// orDefault is v, or def when v is empty.
func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// backendCPU is the CPU seconds (user and system) process pid has used, 0 when it cannot be read.
func backendCPU(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// the fields after the command's closing parenthesis: utime and stime are the 12th and 13th
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return (u + st) / 100 // clock ticks of 10 ms (getconf CLK_TCK)
}
