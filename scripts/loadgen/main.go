// Command loadgen puts a running `cairn serve` under load for the benchmark (scripts/bench.d/serve.sh):
// -c clients, each with its own keep-alive connection, send board searches back to back for -d,
// cycling through a fixed mix of queries, scopes and sources. It prints requests/s, errors and
// latency percentiles; any non-200 answer or transport failure counts as an error.
//
// Back to back, N clients always have N requests in flight, so the mean latency is N divided by
// the throughput (Little's law) whatever the server does. With -rate, requests are instead sent
// at a fixed rate (spread over the clients) and each latency counts from when its request was
// due, so time spent waiting for a free client counts too: the latency at that offered load.
//
// It sends the same prepared requests again (only the body reader is new), so its own CPU stays
// small next to the daemon's on a shared machine.
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
	rate := flag.Float64("rate", 0, "requests per second to send in all (0: each client sends back to back)")
	flag.Parse()
	tok, err := os.ReadFile(*tokenFile)
	if err != nil {
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		os.Exit(2)
	}
	token := strings.TrimSpace(string(tok))
	bodies := make([][]byte, len(queries))
	prepared := make([]*http.Request, len(queries))
	for i, q := range queries {
		bodies[i], _ = json.Marshal(map[string]any{"action": "search", "input": q})
		req, err := http.NewRequest(http.MethodPost, *url+"/api", nil)
		if err != nil {
			fmt.Fprintln(os.Stderr, "loadgen:", err)
			os.Exit(2)
		}
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		req.ContentLength = int64(len(bodies[i]))
		prepared[i] = req
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
	// due hands out the send times of -rate; closed when the run is over.
	var due chan time.Time
	if *rate > 0 {
		due = make(chan time.Time, *clients)
		go func() {
			defer close(due)
			gap := time.Duration(float64(time.Second) / *rate)
			for at := start; at.Before(deadline); at = at.Add(gap) {
				time.Sleep(time.Until(at))
				due <- at
			}
		}()
	}
	var wg sync.WaitGroup
	for c := 0; c < *clients; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			t := &tallies[c]
			for i := c; ; i++ {
				s := time.Now()
				if due != nil {
					// Every request that fell due is sent, late ones too.
					at, ok := <-due
					if !ok {
						break
					}
					s = at
				} else if !s.Before(deadline) {
					break
				}
				req := new(http.Request)
				*req = *prepared[i%len(prepared)]
				req.Body = io.NopCloser(bytes.NewReader(bodies[i%len(bodies)]))
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
	offered := ""
	if *rate > 0 {
		offered = fmt.Sprintf(" offered_rps=%.0f", *rate)
	}
	fmt.Printf("requests=%d rps=%.0f errors=%d p50_ms=%.2f p90_ms=%.2f p99_ms=%.2f max_ms=%.2f clients=%d seconds=%.1f%s\n",
		n, float64(n)/elapsed.Seconds(), errs, pct(0.50), pct(0.90), pct(0.99), pct(1), *clients, elapsed.Seconds(), offered)
	if errs > 0 {
		fmt.Fprintln(os.Stderr, "loadgen: first error:", first)
		os.Exit(1)
	}
}
