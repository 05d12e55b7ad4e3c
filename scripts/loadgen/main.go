// Command loadgen puts a running `cairn serve` under load for the benchmark (scripts/bench.d/serve.sh):
// -c clients, each with its own keep-alive connection, send board searches back to back for -d,
// cycling through a fixed mix of queries, scopes and sources. It prints requests/s, errors and
// latency percentiles; any non-200 answer or transport failure counts as an error.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
)

// queries is the mix every client cycles through, starting at a different place.
var queries = []map[string]any{
	{"query": "迁移", "projectId": nil},
	{"query": "migrate", "projectId": "p1"},
	{"query": "SQLite 迁移", "projectId": nil},
	{"query": "#perf timeout", "projectId": nil},
	{"query": `"card search"`, "projectId": "p2"},
	{"query": "登录", "projectId": nil, "sources": []string{"summary", "note"}},
	{"query": "ログイン", "projectId": nil, "limit": 50},
	{"query": "crash", "projectId": "p1", "sources": []string{"card", "workpad", "artifact"}},
	{"query": "kumquat-not-there", "projectId": nil},
	{"query": "a", "projectId": nil},
}

func main() {
	url := flag.String("url", "http://127.0.0.1:7777", "daemon base URL")
	tokenFile := flag.String("token-file", "", "the daemon's .cairn/serve.token")
	clients := flag.Int("c", 200, "concurrent clients")
	dur := flag.Duration("d", 10*time.Second, "how long to send requests")
	flag.Parse()
	tok, err := os.ReadFile(*tokenFile)
	if err != nil {
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		os.Exit(2)
	}
	token := strings.TrimSpace(string(tok))
	bodies := make([][]byte, len(queries))
	for i, q := range queries {
		bodies[i], _ = json.Marshal(map[string]any{"action": "search", "input": q})
	}
	transport := &http.Transport{MaxIdleConns: *clients, MaxIdleConnsPerHost: *clients, MaxConnsPerHost: *clients, IdleConnTimeout: time.Minute}
	client := &http.Client{Transport: transport, Timeout: 30 * time.Second}

	type tally struct {
		lat    []time.Duration
		errors int
		first  string
	}
	tallies := make([]tally, *clients)
	deadline := time.Now().Add(*dur)
	start := time.Now()
	var wg sync.WaitGroup
	for c := 0; c < *clients; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			t := &tallies[c]
			for i := c; time.Now().Before(deadline); i++ {
				req, _ := http.NewRequest(http.MethodPost, *url+"/api", bytes.NewReader(bodies[i%len(bodies)]))
				req.Header.Set("Authorization", "Bearer "+token)
				req.Header.Set("Content-Type", "application/json")
				s := time.Now()
				resp, err := client.Do(req)
				if err != nil {
					t.errors++
					if t.first == "" {
						t.first = err.Error()
					}
					continue
				}
				_, err = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				t.lat = append(t.lat, time.Since(s))
				if err != nil || resp.StatusCode != http.StatusOK {
					t.errors++
					if t.first == "" {
						t.first = fmt.Sprintf("status %d %v", resp.StatusCode, err)
					}
				}
			}
		}(c)
	}
	wg.Wait()
	elapsed := time.Since(start)
	var all []time.Duration
	errs := 0
	first := ""
	for _, t := range tallies {
		all = append(all, t.lat...)
		errs += t.errors
		if first == "" {
			first = t.first
		}
	}
	slices.Sort(all)
	pct := func(p float64) float64 {
		if len(all) == 0 {
			return 0
		}
		i := int(float64(len(all)-1) * p)
		return float64(all[i].Microseconds()) / 1000
	}
	n := len(all)
	fmt.Printf("requests=%d rps=%.0f errors=%d p50_ms=%.2f p90_ms=%.2f p99_ms=%.2f max_ms=%.2f clients=%d seconds=%.1f\n",
		n, float64(n)/elapsed.Seconds(), errs, pct(0.50), pct(0.90), pct(0.99), pct(1), *clients, elapsed.Seconds())
	if errs > 0 {
		fmt.Fprintln(os.Stderr, "loadgen: first error:", first)
		os.Exit(1)
	}
}
