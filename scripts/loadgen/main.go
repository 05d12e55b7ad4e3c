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
// It shares the machine with the daemon, so it costs little: each client holds one connection
// and writes prepared requests on it as they are, and reads each answer by its Content-Length
// (or its chunks) without decoding it (HTTP/1.1 keep-alive, nothing more).
//
// With -space, it searches a team space instead (scripts/bench.d/team.sh): POST /team/v1/search
// with the member's token (-token-file holds it) and {"space", "input": {"query"}}, the queries
// read from -terms (the lines of scripts/gen-terms: band, script, shape, matches, lengths,
// query), shuffled, each client starting at a different one. It then also prints a line per
// frequency band: band=B requests= p50_ms= p99_ms=.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand"
	"net"
	"os"
	"slices"
	"strconv"
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
	tokenFile := flag.String("token-file", "", "the daemon's .cairn/serve.token (with -space: a file holding the member's token)")
	clients := flag.Int("c", 200, "concurrent clients")
	dur := flag.Duration("d", 10*time.Second, "how long to send requests")
	rate := flag.Float64("rate", 0, "requests per second to send in all (0: each client sends back to back)")
	space := flag.String("space", "", "search this team space (POST /team/v1/search with a member's token) instead of the board")
	termsFile := flag.String("terms", "", "with -space: the queries, lines of scripts/gen-terms")
	seed := flag.Int64("seed", 1, "with -space: the seed the queries are shuffled with")
	flag.Parse()
	tok, err := os.ReadFile(*tokenFile)
	if err != nil {
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		os.Exit(2)
	}
	token := strings.TrimSpace(string(tok))
	addr, ok := strings.CutPrefix(*url, "http://")
	if !ok {
		fmt.Fprintln(os.Stderr, "loadgen: -url must be http://host:port")
		os.Exit(2)
	}
	addr = strings.TrimSuffix(addr, "/")
	// Each request is one prepared byte string: headers and body, written as is.
	var requests [][]byte
	var bandOf []int // with -space: the band of each request, an index into bands
	var bands []string
	if *space == "" {
		for _, q := range queries {
			body, _ := json.Marshal(map[string]any{"action": "search", "input": q})
			requests = append(requests, fmt.Appendf(nil, "POST /api HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", addr, token, len(body), body))
		}
	} else {
		terms, err := readTerms(*termsFile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "loadgen:", err)
			os.Exit(2)
		}
		index := map[string]int{} // the bands in the file's order (gen-terms writes them in order)
		for _, t := range terms {
			if _, ok := index[t.band]; !ok {
				index[t.band] = len(bands)
				bands = append(bands, t.band)
			}
		}
		rand.New(rand.NewSource(*seed)).Shuffle(len(terms), func(i, j int) { terms[i], terms[j] = terms[j], terms[i] })
		for _, t := range terms {
			body, _ := json.Marshal(map[string]any{"space": *space, "input": map[string]any{"query": t.query}})
			requests = append(requests, fmt.Appendf(nil, "POST /team/v1/search HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", addr, token, len(body), body))
			bandOf = append(bandOf, index[t.band])
		}
	}

	type tally struct {
		lat    []time.Duration
		req    []int32 // with -space: the request of each latency
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
			fail := func(err error) {
				t.errors++
				if t.first == "" {
					t.first = err.Error()
				}
			}
			var conn *keepAlive
			defer func() { conn.close() }()
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
				if conn == nil {
					var err error
					if conn, err = dial(addr); err != nil {
						fail(err)
						time.Sleep(10 * time.Millisecond)
						continue
					}
				}
				r := i % len(requests)
				status, err := conn.do(requests[r])
				if err != nil {
					fail(err)
					conn.close()
					conn = nil
					continue
				}
				t.lat = append(t.lat, time.Since(s))
				if bandOf != nil {
					t.req = append(t.req, int32(r))
				}
				if status != 200 {
					fail(fmt.Errorf("status %d", status))
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
	// with -space, the latencies of each band
	byBand := make([][]time.Duration, len(bands))
	for _, t := range tallies {
		for k, r := range t.req {
			byBand[bandOf[r]] = append(byBand[bandOf[r]], t.lat[k])
		}
	}
	slices.Sort(all)
	pct := func(p float64) float64 { return percentile(all, p) }
	n := len(all)
	offered := ""
	if *rate > 0 {
		offered = fmt.Sprintf(" offered_rps=%.0f", *rate)
	}
	fmt.Printf("requests=%d rps=%.0f errors=%d p50_ms=%.2f p90_ms=%.2f p99_ms=%.2f max_ms=%.2f clients=%d seconds=%.1f%s\n",
		n, float64(n)/elapsed.Seconds(), errs, pct(0.50), pct(0.90), pct(0.99), pct(1), *clients, elapsed.Seconds(), offered)
	for b, lat := range byBand {
		slices.Sort(lat)
		fmt.Printf("band=%s requests=%d p50_ms=%.2f p99_ms=%.2f\n", bands[b], len(lat), percentile(lat, 0.50), percentile(lat, 0.99))
	}
	if errs > 0 {
		fmt.Fprintln(os.Stderr, "loadgen: first error:", first)
		os.Exit(1)
	}
}

// percentile is the p-th of sorted latencies, in milliseconds (0 for none).
func percentile(sorted []time.Duration, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(float64(len(sorted)-1) * p)
	return float64(sorted[i].Microseconds()) / 1000
}

// term is one query of a gen-terms file and its frequency band.
type term struct{ band, query string }

// readTerms reads the queries of a gen-terms file: tab-separated band, script, shape, matches,
// lengths and the query.
func readTerms(path string) ([]term, error) {
	if path == "" {
		return nil, errors.New("-space needs -terms FILE (the lines of scripts/gen-terms)")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []term
	for n, line := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 6 || f[5] == "" {
			return nil, fmt.Errorf("%s:%d: not a gen-terms line (band, script, shape, matches, lengths, query)", path, n+1)
		}
		out = append(out, term{band: f[0], query: f[5]})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no queries", path)
	}
	return out, nil
}

// keepAlive is one HTTP/1.1 connection that sends requests one after another.
type keepAlive struct {
	conn net.Conn
	r    *bufio.Reader
}

func dial(addr string) (*keepAlive, error) {
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return nil, err
	}
	return &keepAlive{conn: conn, r: bufio.NewReaderSize(conn, 64<<10)}, nil
}

func (k *keepAlive) close() {
	if k != nil {
		k.conn.Close()
	}
}

// do writes a request and reads its answer: the status line, the headers (Content-Length or
// chunks; "Connection: close" is an error, so every request runs on a kept connection) and the
// body, discarded.
func (k *keepAlive) do(req []byte) (int, error) {
	if err := k.conn.SetDeadline(time.Now().Add(30 * time.Second)); err != nil {
		return 0, err
	}
	if _, err := k.conn.Write(req); err != nil {
		return 0, err
	}
	line, err := k.r.ReadSlice('\n')
	if err != nil {
		return 0, err
	}
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.1 ")) {
		return 0, fmt.Errorf("bad status line %q", line)
	}
	status, err := strconv.Atoi(string(line[9:12]))
	if err != nil {
		return 0, fmt.Errorf("bad status line %q", line)
	}
	length, chunked := -1, false
	for {
		line, err := k.r.ReadSlice('\n')
		if err != nil {
			return 0, err
		}
		h := bytes.TrimRight(line, "\r\n")
		if len(h) == 0 {
			break
		}
		name, value, _ := bytes.Cut(h, []byte(":"))
		value = bytes.TrimSpace(value)
		switch {
		case bytes.EqualFold(name, []byte("Content-Length")):
			if length, err = strconv.Atoi(string(value)); err != nil {
				return 0, fmt.Errorf("bad Content-Length %q", value)
			}
		case bytes.EqualFold(name, []byte("Transfer-Encoding")) && bytes.EqualFold(value, []byte("chunked")):
			chunked = true
		case bytes.EqualFold(name, []byte("Connection")) && bytes.EqualFold(value, []byte("close")):
			return 0, errors.New("the daemon closed the connection")
		}
	}
	if chunked {
		return status, k.discardChunks()
	}
	if length < 0 {
		return 0, errors.New("answer without Content-Length or chunks")
	}
	if _, err := k.r.Discard(length); err != nil {
		return 0, err
	}
	return status, nil
}

// discardChunks reads a chunked body (an answer without Content-Length, as older daemons send
// large ones): chunks up to the empty one, then the empty trailer.
func (k *keepAlive) discardChunks() error {
	for {
		line, err := k.r.ReadSlice('\n')
		if err != nil {
			return err
		}
		hexSize, _, _ := bytes.Cut(bytes.TrimRight(line, "\r\n"), []byte(";"))
		size, err := strconv.ParseInt(string(hexSize), 16, 64)
		if err != nil {
			return fmt.Errorf("bad chunk size %q", line)
		}
		if size == 0 {
			_, err := k.r.ReadSlice('\n') // no trailers
			return err
		}
		if _, err := k.r.Discard(int(size) + 2); err != nil { // the chunk and its CRLF
			return err
		}
	}
}
