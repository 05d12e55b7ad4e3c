package board

import (
	"bytes"
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
		want, werr := full.Search(cfg, in)
		got, gerr := narrowed.Search(cfg, in)
		if (werr == nil) != (gerr == nil) || !reflect.DeepEqual(got, want) {
			t.Fatalf("query %q: narrowed %v (%v), full scan %v (%v)", q, summary(got), gerr, summary(want), werr)
		}
		if want != nil && len(want.Cards) > 0 {
			matched++
		}
		card := full.cards[rng.Intn(len(full.cards))].id
		alim := MaxAgentLimit
		ain := AgentInput{Card: card, Query: q, Limit: &alim}
		awant, werr := full.AgentSearch(cfg, ain)
		agot, gerr := narrowed.AgentSearch(cfg, ain)
		if (werr == nil) != (gerr == nil) || !reflect.DeepEqual(agot, awant) {
			t.Fatalf("agent query %q on %s: narrowed %+v (%v), full scan %+v (%v)", q, card, agot, gerr, awant, werr)
		}
	}
	if matched < 200 {
		t.Errorf("only %d of the queries found cards: the comparison says little", matched)
	}
}

func summary(r *Result) []string {
	if r == nil {
		return nil
	}
	return cardIDs(r)
}
