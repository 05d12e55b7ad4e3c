// Command gen-terms samples search terms from a space's own comments by how many comments hold
// them, for the query-distribution benchmark (scripts/bench.d/search-dist.sh):
//
//	go run ./scripts/gen-terms -db WS/spaces.db -space sp1 -exclude-task 0 -per-cell 50 -out terms.tsv
//
// It reads the index texts (folded, as a search matches them) of the comments a caller of the
// space searches, draws candidate terms from random places of random comments (a run of ASCII
// letters and digits or of CJK characters, 1 to 6 characters long), and pairs of them (both from
// one comment, or from two, which may then hold nothing), counts exactly how many comments hold
// each one (every term a substring of the index text, as cairn and the peer find them), and keeps
// up to -per-cell queries of each cell: frequency band (0, 1-10, 11-100, 101-1k, 1k-10k, 10k+
// matches) × script (ascii, cjk, mixed for pairs of both) × shape (single, multi). Output: one
// query a line, tab-separated: band, script, shape, matches, the characters of each term, query.
package main

import (
	"database/sql"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	_ "modernc.org/sqlite"
)

// bands are the upper bounds of the frequency bands (matches), the last open.
var bands = []struct {
	name string
	max  int
}{{"0", 0}, {"1-10", 10}, {"11-100", 100}, {"101-1k", 1000}, {"1k-10k", 10000}, {"10k+", 1 << 62}}

func bandOf(n int) string {
	for _, b := range bands {
		if n <= b.max {
			return b.name
		}
	}
	return bands[len(bands)-1].name
}

func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana) || r == 'ー'
}

func isASCIIWord(r rune) bool { return r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r)) }

func main() {
	dbPath := flag.String("db", "", "spaces.db")
	space := flag.String("space", "sp1", "the space searched")
	exclude := flag.String("exclude-task", "0", "the caller's own task, left out as a search leaves it out")
	perCell := flag.Int("per-cell", 50, "queries kept per band × script × shape")
	pool := flag.Int("pool", 600, "candidate terms drawn per script and length")
	seed := flag.Int64("seed", 1, "random seed")
	out := flag.String("out", "", "output file (default: standard output)")
	flag.Parse()
	db, err := sql.Open("sqlite", "file:"+*dbPath+"?mode=ro")
	check(err)
	rows, err := db.Query(`SELECT itext FROM comments WHERE space = ? AND task <> ? AND itext IS NOT NULL`, *space, *exclude)
	check(err)
	var docs []string
	for rows.Next() {
		var s string
		check(rows.Scan(&s))
		docs = append(docs, s)
	}
	check(rows.Err())
	db.Close()
	rng := rand.New(rand.NewSource(*seed))

	// candidates: by script and length, from random places of random comments
	idx := map[string]int32{}
	var terms []string
	var termDoc []int // the comment a term was drawn from
	scriptOf := map[string]string{}
	draw := func(script string, length int) (string, int, bool) {
		d := rng.Intn(len(docs))
		doc := docs[d]
		if doc == "" {
			return "", 0, false
		}
		rs := []rune(doc)
		i := rng.Intn(len(rs))
		in := isASCIIWord
		if script == "cjk" {
			in = isCJK
		}
		if !in(rs[i]) {
			return "", 0, false
		}
		j := i
		for j < len(rs) && j-i < length && in(rs[j]) {
			j++
		}
		if j-i < length {
			return "", 0, false
		}
		return string(rs[i:j]), d, true
	}
	for _, script := range []string{"ascii", "cjk"} {
		for length := 1; length <= 6; length++ {
			got := 0
			for tries := 0; got < *pool && tries < *pool*200; tries++ {
				t, d, ok := draw(script, length)
				if !ok {
					continue
				}
				if _, dup := idx[t]; dup {
					continue
				}
				idx[t] = int32(len(terms))
				terms = append(terms, t)
				termDoc = append(termDoc, d)
				scriptOf[t] = script
				got++
			}
		}
	}
	// pairs: both terms drawn from one comment (three in four) or from any two
	type pair struct{ a, b int32 }
	var pairs []pair
	seenPair := map[pair]bool{}
	byDoc := map[int][]int32{}
	for i, d := range termDoc {
		byDoc[d] = append(byDoc[d], int32(i))
	}
	for tries := 0; len(pairs) < 6*len(terms)/4 && tries < 20*len(terms); tries++ {
		a := int32(rng.Intn(len(terms)))
		var b int32
		if rng.Intn(4) != 0 {
			// another term found in a's comment: enumerate it for a known candidate
			d := termDoc[a]
			cands := byDoc[d]
			if len(cands) < 2 {
				// draw a fresh term from the same comment
				rs := []rune(docs[d])
				i := rng.Intn(len(rs))
				l := 1 + rng.Intn(6)
				if i+l > len(rs) {
					continue
				}
				t := string(rs[i : i+l])
				if strings.IndexFunc(t, func(r rune) bool { return !(isASCIIWord(r) || isCJK(r)) }) >= 0 {
					continue
				}
				k, ok := idx[t]
				if !ok {
					k = int32(len(terms))
					idx[t] = k
					terms = append(terms, t)
					termDoc = append(termDoc, d)
					if isASCIIWord([]rune(t)[0]) {
						scriptOf[t] = "ascii"
					} else {
						scriptOf[t] = "cjk"
					}
				}
				b = k
			} else {
				b = cands[rng.Intn(len(cands))]
			}
		} else {
			b = int32(rng.Intn(len(terms)))
		}
		if a == b || strings.Contains(terms[a], terms[b]) || strings.Contains(terms[b], terms[a]) {
			continue
		}
		p := pair{min(a, b), max(a, b)}
		if seenPair[p] {
			continue
		}
		seenPair[p] = true
		pairs = append(pairs, p)
	}

	// exact counts: every substring of 1..6 characters of each run without white space
	counts := make([]int64, len(terms))
	pairCounts := make([]int64, len(pairs))
	workers := runtime.NumCPU()
	var wg sync.WaitGroup
	var mu sync.Mutex
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			c := make([]int64, len(terms))
			pc := make([]int64, len(pairs))
			stamp := make([]int32, len(terms))
			for i := range stamp {
				stamp[i] = -1
			}
			var starts []int
			for d := w; d < len(docs); d += workers {
				doc := docs[d]
				starts = starts[:0]
				for i := range doc {
					starts = append(starts, i)
				}
				starts = append(starts, len(doc))
				for si := 0; si+1 < len(starts); si++ {
					r, _ := utf8.DecodeRuneInString(doc[starts[si]:])
					if unicode.IsSpace(r) {
						continue
					}
					for l := 1; l <= 6 && si+l < len(starts); l++ {
						r, _ := utf8.DecodeRuneInString(doc[starts[si+l-1]:])
						if unicode.IsSpace(r) {
							break
						}
						if k, ok := idx[doc[starts[si]:starts[si+l]]]; ok && stamp[k] != int32(d) {
							stamp[k] = int32(d)
							c[k]++
						}
					}
				}
				for i, p := range pairs {
					if stamp[p.a] == int32(d) && stamp[p.b] == int32(d) {
						pc[i]++
					}
				}
			}
			mu.Lock()
			for i := range c {
				counts[i] += c[i]
			}
			for i := range pc {
				pairCounts[i] += pc[i]
			}
			mu.Unlock()
		}(w)
	}
	wg.Wait()

	type query struct {
		band, script, shape, lens, q string
		n                            int64
	}
	cells := map[string][]query{}
	for i, t := range terms {
		q := query{bandOf(int(counts[i])), scriptOf[t], "single", fmt.Sprint(utf8.RuneCountInString(t)), t, counts[i]}
		if q.n == 0 {
			continue // a drawn term is in its comment unless the comment's own task is left out
		}
		k := q.band + "/" + q.script + "/" + q.shape
		cells[k] = append(cells[k], q)
	}
	for i, p := range pairs {
		a, b := terms[p.a], terms[p.b]
		script := scriptOf[a]
		if scriptOf[b] != script {
			script = "mixed"
		}
		q := query{bandOf(int(pairCounts[i])), script, "multi",
			fmt.Sprintf("%d+%d", utf8.RuneCountInString(a), utf8.RuneCountInString(b)), a + " " + b, pairCounts[i]}
		k := q.band + "/" + q.script + "/" + q.shape
		cells[k] = append(cells[k], q)
	}
	keys := make([]string, 0, len(cells))
	for k := range cells {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	w := os.Stdout
	if *out != "" {
		f, err := os.Create(*out)
		check(err)
		defer f.Close()
		w = f
	}
	total := 0
	for _, k := range keys {
		qs := cells[k]
		// a spread of lengths: shuffle, then keep the first per-cell
		rng.Shuffle(len(qs), func(i, j int) { qs[i], qs[j] = qs[j], qs[i] })
		if len(qs) > *perCell {
			qs = qs[:*perCell]
		}
		for _, q := range qs {
			fmt.Fprintf(w, "%s\t%s\t%s\t%d\t%s\t%s\n", q.band, q.script, q.shape, q.n, q.lens, q.q)
		}
		total += len(qs)
		fmt.Fprintf(os.Stderr, "  %-22s %4d queries (of %d)\n", k, len(qs), len(cells[k]))
	}
	fmt.Fprintf(os.Stderr, "gen-terms: %d queries from %d comments\n", total, len(docs))
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen-terms:", err)
		os.Exit(1)
	}
}
