package board

import (
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/core/workspace"
	"github.com/cairn-dev/cairn/scripts/gen-board/boardgen"
)

// The narrowed search answers exactly as the full scan on many random queries: words and pieces
// cut from the board's own texts (so most queries hit), pairs of them, and random short strings.
func TestNarrowedSearchEqualsFullScan(t *testing.T) {
	var doc bytes.Buffer
	if err := boardgen.Write(&doc, 1, 7); err != nil {
		t.Fatal(err)
	}
	ws := newBoard(t, doc.Bytes())
	full := load(t, ws)
	narrowed := load(t, ws)
	if err := narrowed.EnableNarrowing(); err != nil {
		t.Fatal(err)
	}
	if narrowed.narrow.Load() == nil {
		t.Fatal("no narrowing index built")
	}
	if full.narrow.Load() != nil {
		t.Fatal("the full-scan index has a narrowing index")
	}
	rng := rand.New(rand.NewSource(1))
	piece := func() string {
		f := &full.fields[rng.Intn(len(full.fields))]
		text := full.original(f)
		if text == "" {
			return "x"
		}
		i := rng.Intn(len(text))
		for i > 0 && !utf8.RuneStart(text[i]) {
			i--
		}
		n := 1 + rng.Intn(12)
		j := i
		for k := 0; k < n && j < len(text); k++ {
			_, size := utf8.DecodeRuneInString(text[j:])
			j += size
		}
		return strings.NewReplacer(`"`, "", "#", "", "\x00", "").Replace(text[i:j])
	}
	short := []string{"a", "e", "迁", "ab", "in", "TL", "-4", "ion", "ログ"}
	cfg := workspace.BoardConfig{}
	matched := 0
	for i := range 600 {
		var q string
		switch i % 4 {
		case 0:
			q = piece()
		case 1:
			q = piece() + " " + piece()
		case 2:
			q = `"` + piece() + `"`
		default:
			q = short[rng.Intn(len(short))] + " " + piece()
		}
		if strings.TrimSpace(q) == "" || utf8.RuneCountInString(q) > MaxQueryChars {
			continue
		}
		lim := MaxCardLimit
		in := SearchInput{Query: q, Limit: &lim}
		want, werr := full.Search(context.Background(), cfg, in)
		got, gerr := narrowed.Search(context.Background(), cfg, in)
		if (werr == nil) != (gerr == nil) || !reflect.DeepEqual(got, want) {
			t.Fatalf("query %q: narrowed %v (%v), full scan %v (%v)", q, summary(got), gerr, summary(want), werr)
		}
		if want != nil && len(want.Cards) > 0 {
			matched++
		}
		card := full.cards[rng.Intn(len(full.cards))].id
		alim := MaxAgentLimit
		ain := AgentInput{Card: card, Query: q, Limit: &alim}
		awant, werr := full.AgentSearch(context.Background(), cfg, ain)
		agot, gerr := narrowed.AgentSearch(context.Background(), cfg, ain)
		if (werr == nil) != (gerr == nil) || !reflect.DeepEqual(agot, awant) {
			t.Fatalf("agent query %q on %s: narrowed %+v (%v), full scan %+v (%v)", q, card, agot, gerr, awant, werr)
		}
	}
	if matched < 200 {
		t.Errorf("only %d of the queries found cards: the comparison says little", matched)
	}
}

// The narrowed search answers as the full scan also with what changes which cards a term's list
// is filtered by: #tag filters (the first term looks only inside the tagged cards), one project,
// a subset of sources, three terms, and two-byte terms (answered from their list unchecked).
func TestNarrowedSearchEqualsFullScanFiltered(t *testing.T) {
	var doc bytes.Buffer
	if err := boardgen.Write(&doc, 1, 11); err != nil {
		t.Fatal(err)
	}
	ws := newBoard(t, doc.Bytes())
	full := load(t, ws)
	narrowed := load(t, ws)
	if err := narrowed.EnableNarrowing(); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(2))
	words := []string{"迁移", "sqlite", "timeout", "登录", "ログイン", "crash", "migrate", "in", "te", "の", "e", "tl-4", "card search", "ss", "失败"}
	word := func() string {
		w := words[rng.Intn(len(words))]
		if strings.Contains(w, " ") {
			return `"` + w + `"`
		}
		return w
	}
	var tags []string
	for _, c := range full.cards {
		tags = append(tags, c.tags...)
	}
	if len(tags) == 0 {
		t.Fatal("the generated board has no tags")
	}
	var projects []string
	for _, p := range full.projects {
		if !p.archived {
			projects = append(projects, p.id)
		}
	}
	sourceSets := [][]Source{nil, {SourceCard}, {SourceSummary, SourceNote}, {SourceWorkpad, SourceArtifact, SourceIdea}}
	cfg := workspace.BoardConfig{Ideas: true, Artifacts: true, Memory: true}
	matched, tagged := 0, 0
	for i := range 400 {
		terms := []string{word()}
		for range rng.Intn(3) {
			terms = append(terms, word())
		}
		if i%3 == 0 {
			terms = append(terms, "#"+tags[rng.Intn(len(tags))])
		}
		lim := 1 + rng.Intn(MaxCardLimit)
		in := SearchInput{Query: strings.Join(terms, " "), Limit: &lim, Sources: sourceSets[rng.Intn(len(sourceSets))]}
		if i%2 == 1 {
			in.ProjectID = &projects[rng.Intn(len(projects))]
		}
		want, werr := full.Search(context.Background(), cfg, in)
		got, gerr := narrowed.Search(context.Background(), cfg, in)
		if (werr == nil) != (gerr == nil) || !reflect.DeepEqual(got, want) {
			t.Fatalf("query %q in %v, sources %v: narrowed %v (%v), full scan %v (%v)", in.Query, in.ProjectID, in.Sources, summary(got), gerr, summary(want), werr)
		}
		if want != nil && len(want.Cards) > 0 {
			matched++
			if i%3 == 0 {
				tagged++
			}
		}
	}
	if matched < 100 || tagged < 20 {
		t.Errorf("only %d of the queries found cards (%d with a tag filter): the comparison says little", matched, tagged)
	}
}

func summary(r *Result) []string {
	if r == nil {
		return nil
	}
	return cardIDs(r)
}

// Concurrent searches of one index (as a daemon runs them) each get their own scratch memory and
// answer as the same searches run one at a time, while the narrowing index is built under them.
func TestNarrowedSearchConcurrent(t *testing.T) {
	var doc bytes.Buffer
	if err := boardgen.Write(&doc, 1, 13); err != nil {
		t.Fatal(err)
	}
	ws := newBoard(t, doc.Bytes())
	seq := load(t, ws)
	if err := seq.EnableNarrowing(); err != nil {
		t.Fatal(err)
	}
	ix := load(t, ws)
	cfg := workspace.BoardConfig{Ideas: true, Artifacts: true, Memory: true}
	queries := []string{"迁移", "sqlite timeout", "a", "ログイン", "crash fix", "e 登录", "tl-4", "#perf timeout"}
	want := make([]*Result, len(queries))
	for i, q := range queries {
		r, err := seq.Search(context.Background(), cfg, SearchInput{Query: q})
		if err != nil {
			t.Fatal(err)
		}
		want[i] = r
	}
	done := make(chan error, 8)
	for g := range 8 {
		go func() {
			for k := range 40 {
				i := (g + k) % len(queries)
				got, err := ix.Search(context.Background(), cfg, SearchInput{Query: queries[i]})
				if err != nil || !reflect.DeepEqual(got, want[i]) {
					done <- fmt.Errorf("query %q: got %v (%v), want %v", queries[i], summary(got), err, summary(want[i]))
					return
				}
			}
			done <- nil
		}()
	}
	if err := ix.EnableNarrowing(); err != nil {
		t.Fatal(err)
	}
	for range 8 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}
