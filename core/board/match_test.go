package board

import (
	"reflect"
	"strings"
	"testing"
)

// stepIndex is a small board for the steps of matchCards: p1 has four cards, p2 one, and a
// summary, a note and an idea reach card a2, a3 and a4.
func stepIndex(t *testing.T) *Index {
	t.Helper()
	l := &loaded{
		projects: []Project{{ID: "p1", Title: "One", Memory: true}, {ID: "p2", Title: "Two", Memory: true}},
		cards: []Card{
			{ID: "a1", Project: "p1", Title: "alpha beta", Tags: []string{"x"}, Status: "Todo", UpdatedAt: "2026-01-01T00:00:00Z"},
			{ID: "a2", Project: "p1", Title: "alpha", Description: "beta", Tags: []string{"x", "y"}, Status: "Done", UpdatedAt: "2026-01-02T00:00:00Z"},
			{ID: "a3", Project: "p1", Title: "gamma", Tags: []string{"y"}, Status: "Todo", UpdatedAt: "2026-01-03T00:00:00Z"},
			{ID: "a4", Project: "p1", Title: "beta", Status: "Todo", UpdatedAt: "2026-01-04T00:00:00Z"},
			{ID: "b1", Project: "p2", Title: "alpha beta", Tags: []string{"x"}, Status: "Todo", UpdatedAt: "2026-01-05T00:00:00Z"},
		},
		events:    []Event{{ID: "e1", Card: "a3", Type: "progress_reported", Note: "alpha and beta in a note", At: "2026-02-01T00:00:00Z"}},
		ideas:     []Idea{{ID: "i1", Card: "a4", Title: "alpha idea", Status: "open", At: "2026-01-04T00:00:00Z"}},
		summaries: map[string][]Summary{"a2": {{State: "beta state", At: "2026-01-02T00:00:00Z"}}},
	}
	return build(l, Stamp{})
}

// ids names cards by their index.
func ids(ix *Index, cards []int32) []string {
	var out []string
	for _, ci := range cards {
		out = append(out, ix.cards[ci].id)
	}
	return out
}

func mustQuery(t *testing.T, s string) Query {
	t.Helper()
	q, err := ParseQuery(s)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

func allMask() sourceMask {
	m, _ := parseSources(nil, AllSources())
	return m
}

func TestMatcherCandidates(t *testing.T) {
	ix := stepIndex(t)
	p1, p2 := ix.projByID["p1"], ix.projByID["p2"]
	for _, c := range []struct {
		query   string
		scope   []int32
		exclude string
		want    []string
	}{
		{"#x", []int32{p1, p2}, "", []string{"a1", "a2", "b1"}},
		{"#x #y", []int32{p1, p2}, "", []string{"a2"}},
		{"#x", []int32{p1}, "a1", []string{"a2"}},
		{"alpha", []int32{p2}, "", []string{"b1"}},
	} {
		exclude := int32(-1)
		if c.exclude != "" {
			exclude = ix.cardByID[c.exclude]
		}
		m := ix.newMatcher(mustQuery(t, c.query), allMask(), exclude)
		if got := ids(ix, m.candidates(c.scope)); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q excluding %q: candidates %v, want %v", c.query, c.exclude, got, c.want)
		}
	}
}

func TestMatcherNarrow(t *testing.T) {
	ix := stepIndex(t)
	scope := []int32{ix.projByID["p1"], ix.projByID["p2"]}
	cardOnly, _ := parseSources([]Source{SourceCard}, AllSources())
	for _, c := range []struct {
		query string
		mask  sourceMask
		want  []string
	}{
		{"alpha beta", allMask(), []string{"a1", "a2", "a3", "a4", "b1"}},
		{"alpha beta", cardOnly, []string{"a1", "a2", "b1"}},
		{"alpha beta #y", allMask(), []string{"a2", "a3"}},
		{"gamma", allMask(), []string{"a3"}},
		{"gamma beta", cardOnly, nil},
		{"missing", allMask(), nil},
	} {
		m := ix.newMatcher(mustQuery(t, c.query), c.mask, -1)
		if got := ids(ix, m.narrow(scope)); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: narrow %v, want %v", c.query, got, c.want)
		}
	}
}

func TestMatcherKeepDropsDisallowedAndRepeats(t *testing.T) {
	ix := stepIndex(t)
	a1, a2 := ix.cardByID["a1"], ix.cardByID["a2"]
	m := ix.newMatcher(mustQuery(t, "alpha"), allMask(), a1)
	var found []int32
	for _, ci := range []int32{a1, a2} {
		for fi := ix.cards[ci].fieldLo; fi < ix.cards[ci].fieldHi; fi++ {
			found = append(found, fi)
		}
	}
	seen := make([]int32, len(ix.cards))
	if got := ids(ix, m.keep(found, 1, seen)); !reflect.DeepEqual(got, []string{"a2"}) {
		t.Errorf("first term: kept %v, want [a2] (a1 is excluded, a2 once)", got)
	}
	// A later term keeps what it is given: its scan only covered allowed cards.
	if got := ids(ix, m.keep(found, 2, seen)); !reflect.DeepEqual(got, []string{"a1", "a2"}) {
		t.Errorf("second term: kept %v, want [a1 a2]", got)
	}
}

func TestMatcherRankAndHits(t *testing.T) {
	ix := stepIndex(t)
	scope := []int32{ix.projByID["p1"], ix.projByID["p2"]}
	m := ix.newMatcher(mustQuery(t, "alpha"), allMask(), -1)
	cands := m.narrow(scope)
	// Title hits (weight 6) first, open before Done, newer first; then the idea title (4), the note (2).
	want := []string{"b1", "a1", "a2", "a4", "a3"}
	top := m.rank(cands, 10)
	var got []int32
	for _, cm := range top {
		got = append(got, cm.card)
	}
	if !reflect.DeepEqual(ids(ix, got), want) {
		t.Fatalf("rank %v, want %v", ids(ix, got), want)
	}
	if top2 := m.rank(cands, 2); len(top2) != 2 || top2[0].card != top[0].card || top2[1].card != top[1].card {
		t.Errorf("rank with limit 2 = %v, want the first two of %v", top2, want)
	}
	m.attachHits(top)
	for _, cm := range top {
		if len(cm.hits) == 0 {
			t.Errorf("card %s has no hits", ix.cards[cm.card].id)
		}
		for i, fi := range cm.hits {
			f := &ix.fields[fi]
			if f.owner != cm.card || i > 0 && fi <= cm.hits[i-1] {
				t.Errorf("card %s: hits %v are not its own fields in order", ix.cards[cm.card].id, cm.hits)
			}
			if text := ix.text(f); !strings.Contains(text, "alpha") {
				t.Errorf("card %s: hit field %q does not hold the term", ix.cards[cm.card].id, text)
			}
		}
	}
}

func TestMatcherMarkTags(t *testing.T) {
	ix := stepIndex(t)
	for _, c := range []struct {
		mask sourceMask
		want int
	}{{allMask(), 1}, {1 << sourceIndex(SourceNote), 0}} {
		m := ix.newMatcher(mustQuery(t, "#x"), c.mask, -1)
		top := m.rank(m.candidates([]int32{ix.projByID["p1"]}), 10)
		m.markTags([]int32{top[0].card})
		m.attachHits(top)
		if n := len(top[0].hits); n != c.want {
			t.Fatalf("mask %b: %d hits, want %d", c.mask, n, c.want)
		}
		if c.want == 1 && ix.fields[top[0].hits[0]].name != nameTags {
			t.Errorf("the hit is field %s, want tags", fieldName(ix.fields[top[0].hits[0]].name))
		}
	}
}
