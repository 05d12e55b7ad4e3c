// Command gen-terms samples search terms from a corpus by how many documents hold them, for the
// query-distribution benchmarks (scripts/bench.d/search-dist.sh, board-dist.sh, memory-dist.sh):
//
//	go run ./scripts/gen-terms -db WS/spaces.db -space sp1 -exclude-task 0 -per-cell 50 -out terms.tsv
//	go run ./scripts/gen-terms -board BOARD.json -peer-out PEER.jsonl -per-cell 40 -out terms.tsv
//	go run ./scripts/gen-terms -md WS/knowledge -per-cell 40 -out terms.tsv
//
// It reads the documents (folded, as a search matches them): with -db the index texts of the
// comments a caller of the space searches (a document is a comment); with -board the searched
// fields of every card of a live project of a board document (docs/formats.md), folded as
// `cairn board search` folds them (a document is a card: a term matches where any of its fields
// holds it, and a pair where the card holds both); with -md the lines of the Markdown files of
// the folders given, comma-separated (a document is a line, as memory and knowledge search and
// grep match). It draws candidate terms from random places of random documents (a run of ASCII
// letters and digits or of CJK characters, 1 to 6 characters long), and multi-term queries: with
// -db and -board pairs of them (both from one document, or from two, which may then hold
// nothing), with -md two-word phrases as they stand in a line ("rate limit": memory search takes
// one literal string), counts exactly how many documents hold each one (every term a substring of
// the folded text, as cairn and the peer find them), and keeps up to -per-cell queries of each
// cell: frequency band (0, 1-10, 11-100, 101-1k, 1k-10k, 10k+ matches) × script (ascii, cjk,
// mixed for pairs of both) × shape (single, multi). Output: one query a line, tab-separated:
// band, script, shape, matches, the characters of each term, query.
//
// With -board, -peer-out also writes the naive peer's copy of the board (scripts/bench.d/
// board_dist.py): one JSON line per live card (its id, project, rank class, update time and its
// fields as weight, time and folded text), then one per searched memory entry.
package main

import (
	"bufio"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/core/board"
	"github.com/cairn-dev/cairn/core/textmatch"
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
	dbPath := flag.String("db", "", "spaces.db: sample from a space's comments")
	space := flag.String("space", "sp1", "with -db: the space searched")
	exclude := flag.String("exclude-task", "0", "with -db: the caller's own task, left out as a search leaves it out")
	boardPath := flag.String("board", "", "a board document (cairn board import's input): sample from its cards")
	peerOut := flag.String("peer-out", "", "with -board: write the naive peer's folded copy of the board here")
	mdDirs := flag.String("md", "", "folders of Markdown files, comma-separated: sample from their lines")
	perCell := flag.Int("per-cell", 50, "queries kept per band × script × shape")
	pool := flag.Int("pool", 600, "candidate terms drawn per script and length")
	seed := flag.Int64("seed", 1, "random seed")
	out := flag.String("out", "", "output file (default: standard output)")
	flag.Parse()
	var docs []string
	phrases := false // multi-term queries are phrases of one line (-md), not pairs
	switch {
	case *boardPath != "":
		docs = boardDocs(*boardPath, *peerOut)
	case *mdDirs != "":
		docs = mdDocs(strings.Split(*mdDirs, ","))
		phrases = true
	default:
		db, err := sql.Open("sqlite", "file:"+*dbPath+"?mode=ro")
		check(err)
		rows, err := db.Query(`SELECT itext FROM comments WHERE space = ? AND task <> ? AND itext IS NOT NULL`, *space, *exclude)
		check(err)
		for rows.Next() {
			var s string
			check(rows.Scan(&s))
			docs = append(docs, s)
		}
		check(rows.Err())
		db.Close()
	}
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
	var phraseList []int32 // with -md: the phrases, indices into terms
	if phrases {
		// a phrase: the end of one word, one space, the start of the next, 1 to 6 characters
		// each; one in four is two terms drawn anywhere, joined by a space, which most often no
		// line holds
		want := 6 * len(terms) / 4
		singles := len(terms)
		for tries := 0; len(phraseList) < want && tries < 50*want; tries++ {
			if rng.Intn(4) == 0 {
				a, b := terms[rng.Intn(singles)], terms[rng.Intn(singles)]
				t := a + " " + b
				if _, dup := idx[t]; dup || a == b {
					continue
				}
				idx[t] = int32(len(terms))
				phraseList = append(phraseList, int32(len(terms)))
				terms = append(terms, t)
				termDoc = append(termDoc, -1)
				switch sa, sb := scriptOf[a], scriptOf[b]; {
				case sa == sb:
					scriptOf[t] = sa
				default:
					scriptOf[t] = "mixed"
				}
				continue
			}
			d := rng.Intn(len(docs))
			rs := []rune(docs[d])
			if len(rs) < 3 {
				continue
			}
			sp := 1 + rng.Intn(len(rs)-2)
			if rs[sp] != ' ' {
				continue
			}
			la, lb := 1+rng.Intn(6), 1+rng.Intn(6)
			if sp-la < 0 || sp+1+lb > len(rs) {
				continue
			}
			ok := true
			for _, r := range append(append([]rune{}, rs[sp-la:sp]...), rs[sp+1:sp+1+lb]...) {
				if !isASCIIWord(r) && !isCJK(r) {
					ok = false
				}
			}
			if !ok {
				continue
			}
			t := string(rs[sp-la : sp+1+lb])
			if _, dup := idx[t]; dup {
				continue
			}
			idx[t] = int32(len(terms))
			phraseList = append(phraseList, int32(len(terms)))
			terms = append(terms, t)
			termDoc = append(termDoc, d)
			a, b := rs[sp-1], rs[sp+1]
			switch {
			case isASCIIWord(a) && isASCIIWord(b):
				scriptOf[t] = "ascii"
			case isCJK(a) && isCJK(b):
				scriptOf[t] = "cjk"
			default:
				scriptOf[t] = "mixed"
			}
		}
	}
	for tries := 0; !phrases && len(pairs) < 6*len(terms)/4 && tries < 20*len(terms); tries++ {
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
					maxLen := 6
					if phrases {
						maxLen = 13 // six characters, a space, six characters
					}
					space := -1 // where the phrase's space is, in characters from si
					for l := 1; l <= maxLen && si+l < len(starts); l++ {
						r, _ := utf8.DecodeRuneInString(doc[starts[si+l-1]:])
						if unicode.IsSpace(r) {
							if !phrases || r != ' ' || space >= 0 || l > 7 {
								break
							}
							space = l - 1
							continue
						}
						if space < 0 && l > 6 || space >= 0 && l-space-1 > 6 {
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
	isPhrase := map[int32]bool{}
	for _, k := range phraseList {
		isPhrase[k] = true
	}
	for i, t := range terms {
		q := query{bandOf(int(counts[i])), scriptOf[t], "single", fmt.Sprint(utf8.RuneCountInString(t)), t, counts[i]}
		if isPhrase[int32(i)] {
			a, b, _ := strings.Cut(t, " ")
			q.shape, q.lens = "multi", fmt.Sprintf("%d+%d", utf8.RuneCountInString(a), utf8.RuneCountInString(b))
		}
		if q.n == 0 && !isPhrase[int32(i)] {
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
	fmt.Fprintf(os.Stderr, "gen-terms: %d queries from %d documents\n", total, len(docs))
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen-terms:", err)
		os.Exit(1)
	}
}

// mdDocs reads the lines of the .md files of the folders (not their subfolders), folded as memory
// and knowledge search fold them, in path order.
func mdDocs(dirs []string) []string {
	var docs []string
	for _, dir := range dirs {
		names, err := filepath.Glob(filepath.Join(dir, "*.md"))
		check(err)
		sort.Strings(names)
		for _, name := range names {
			b, err := os.ReadFile(name)
			check(err)
			for _, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
				docs = append(docs, textmatch.Fold(strings.TrimSuffix(line, "\r")))
			}
		}
	}
	return docs
}

// peerField is one searched field as the naive peer holds it: weight, time (Unix ns, or the
// smallest int64 when unknown) and folded text.
type peerField struct {
	Weight int    `json:"w"`
	At     int64  `json:"at"`
	Text   string `json:"t"`
}

// peerCard is one card, or one memory entry (Memory set), as the naive peer holds it.
type peerCard struct {
	ID      string      `json:"id"`
	Project string      `json:"project"`
	Order   int         `json:"order"` // the card's place in the index: project order, then id
	Class   int         `json:"class,omitempty"`
	Updated int64       `json:"updated"`
	Memory  bool        `json:"memory,omitempty"`
	Fields  []peerField `json:"fields"`
}

const noTime = math.MinInt64

func parseTime(s string) int64 {
	if s == "" {
		return noTime
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil || t.Year() < 1700 || t.Year() > 2200 {
		return noTime
	}
	return t.UnixNano()
}

// boardDocs reads a board document and returns one document per card of a live project: the
// folded texts of the fields `cairn board search` searches (core/board's field table: the card's
// title, tags, description and type; its latest summary; the notes of status_changed and
// progress_reported events; workpad items, checks with their command and evidence; ideas;
// artifacts), joined by NUL, which no term holds. With peerOut it also writes the peer's copy.
func boardDocs(path, peerOut string) []string {
	raw, err := os.ReadFile(path)
	check(err)
	var doc board.Document
	check(json.Unmarshal(raw, &doc))
	each := func(list []json.RawMessage, v func(json.RawMessage)) {
		for _, r := range list {
			v(r)
		}
	}
	var projects []board.Project
	each(doc.Projects, func(r json.RawMessage) {
		var p board.Project
		check(json.Unmarshal(r, &p))
		projects = append(projects, p)
	})
	sort.Slice(projects, func(i, j int) bool { return projects[i].ID < projects[j].ID })
	place := map[string]int{}
	live := map[string]bool{}
	memOn := map[string]bool{}
	for i, p := range projects {
		place[p.ID] = i
		live[p.ID] = !p.Archived
		memOn[p.ID] = p.Memory
	}
	var cards []board.Card
	each(doc.Cards, func(r json.RawMessage) {
		var c board.Card
		check(json.Unmarshal(r, &c))
		if live[c.Project] {
			cards = append(cards, c)
		}
	})
	sort.SliceStable(cards, func(i, j int) bool {
		if a, b := place[cards[i].Project], place[cards[j].Project]; a != b {
			return a < b
		}
		return cards[i].ID < cards[j].ID
	})
	events := map[string][]board.Event{}
	each(doc.Events, func(r json.RawMessage) {
		var e board.Event
		check(json.Unmarshal(r, &e))
		if (e.Type == "status_changed" || e.Type == "progress_reported") && strings.TrimSpace(e.Note) != "" {
			events[e.Card] = append(events[e.Card], e)
		}
	})
	workpads := map[string][]board.Workpad{}
	each(doc.Workpads, func(r json.RawMessage) {
		var w board.Workpad
		check(json.Unmarshal(r, &w))
		workpads[w.Card] = append(workpads[w.Card], w)
	})
	ideas := map[string][]board.Idea{}
	each(doc.Ideas, func(r json.RawMessage) {
		var d board.Idea
		check(json.Unmarshal(r, &d))
		ideas[d.Card] = append(ideas[d.Card], d)
	})
	artifacts := map[string][]board.Artifact{}
	each(doc.Artifacts, func(r json.RawMessage) {
		var a board.Artifact
		check(json.Unmarshal(r, &a))
		artifacts[a.Card] = append(artifacts[a.Card], a)
	})
	summaries := map[string][]board.Summary{}
	if len(doc.Summaries) > 0 {
		check(json.Unmarshal(doc.Summaries, &summaries))
	}
	var memory []board.MemoryEntry
	if len(doc.Memory) > 0 {
		check(json.Unmarshal(doc.Memory, &memory))
	}

	var peer []peerCard
	var docs []string
	add := func(pc *peerCard, weight int, at int64, text string) {
		if strings.TrimSpace(text) == "" {
			return
		}
		text = strings.ReplaceAll(strings.ToValidUTF8(text, "\uFFFD"), "\x00", " ")
		pc.Fields = append(pc.Fields, peerField{weight, at, textmatch.Fold(text)})
	}
	for i := range cards {
		c := &cards[i]
		updated := parseTime(c.UpdatedAt)
		class := 0
		switch {
		case c.Archived:
			class = 2
		case strings.EqualFold(c.Status, "Done"), strings.EqualFold(c.Status, "Cancelled"), strings.EqualFold(c.Status, "Canceled"):
			class = 1
		}
		pc := peerCard{ID: c.ID, Project: c.Project, Order: i, Class: class, Updated: updated}
		add(&pc, 6, updated, c.Title)
		add(&pc, 5, updated, strings.Join(c.Tags, " "))
		add(&pc, 3, updated, c.Description)
		add(&pc, 1, updated, c.Type)
		if vs := summaries[c.ID]; len(vs) > 0 {
			best, bestAt := 0, parseTime(vs[0].At)
			for k := 1; k < len(vs); k++ {
				if at := parseTime(vs[k].At); at >= bestAt {
					best, bestAt = k, at
				}
			}
			s := vs[best]
			for _, t := range []string{s.State, s.Target, s.Recap, s.Next} {
				add(&pc, 4, bestAt, t)
			}
		}
		evs := events[c.ID]
		sort.SliceStable(evs, func(a, b int) bool { return evs[a].ID < evs[b].ID })
		for _, e := range evs {
			add(&pc, 2, parseTime(e.At), e.Note)
		}
		wps := workpads[c.ID]
		sort.SliceStable(wps, func(a, b int) bool { return wps[a].ID < wps[b].ID })
		for _, w := range wps {
			at := parseTime(w.At)
			add(&pc, 2, at, w.Description)
			if w.Kind == "check" {
				add(&pc, 2, at, w.Command)
				add(&pc, 2, at, w.Evidence)
			}
		}
		ids := ideas[c.ID]
		sort.SliceStable(ids, func(a, b int) bool { return ids[a].ID < ids[b].ID })
		for _, d := range ids {
			at := parseTime(d.At)
			add(&pc, 4, at, d.Title)
			for _, t := range []string{d.Detail, d.Rationale, d.Context} {
				add(&pc, 2, at, t)
			}
		}
		arts := artifacts[c.ID]
		sort.SliceStable(arts, func(a, b int) bool { return arts[a].ID < arts[b].ID })
		for _, a := range arts {
			at := parseTime(a.At)
			for _, t := range []string{a.Title, a.Note, a.Target, a.ExternalKey} {
				add(&pc, 3, at, t)
			}
		}
		texts := make([]string, len(pc.Fields))
		for k, f := range pc.Fields {
			texts[k] = f.Text
		}
		docs = append(docs, strings.Join(texts, "\x00"))
		peer = append(peer, pc)
	}
	if peerOut == "" {
		return docs
	}
	var mems []board.MemoryEntry
	for _, m := range memory {
		if live[m.Project] && memOn[m.Project] && m.Status == "active" {
			mems = append(mems, m)
		}
	}
	sort.SliceStable(mems, func(i, j int) bool {
		if a, b := place[mems[i].Project], place[mems[j].Project]; a != b {
			return a < b
		}
		return mems[i].ID < mems[j].ID
	})
	for i, m := range mems {
		at := parseTime(m.ConfirmedAt)
		pc := peerCard{ID: m.ID, Project: m.Project, Order: i, Updated: at, Memory: true}
		for _, t := range []string{m.Title, m.Body, strings.Join(m.Keywords, " "), strings.Join(m.Tags, " ")} {
			add(&pc, 4, at, t)
		}
		peer = append(peer, pc)
	}
	f, err := os.Create(peerOut)
	check(err)
	w := bufio.NewWriterSize(f, 1<<20)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for i := range peer {
		check(enc.Encode(&peer[i]))
	}
	check(w.Flush())
	check(f.Close())
	return docs
}
