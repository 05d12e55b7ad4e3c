package board

import (
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// A snippet cut from the text near its first occurrence is the one cut from the whole text, for
// long and short texts of every kind of character: CJK, emoji, line breaks, and invalid bytes
// (continuation bytes alone among them, which decode differently depending on what precedes).
func TestSnippetReachSameAsWholeText(t *testing.T) {
	pieces := []string{"a", "b", " ", "迁", "移", "ß", "😀", "\n", "\r\n", "\xff", "\xbf", "\x80\x80", "\xe8\xbf", "ｱ", "x"}
	rng := rand.New(rand.NewSource(3))
	cut := 0
	for i := range 3000 {
		var b strings.Builder
		n := rng.Intn(1200)
		if i%10 == 0 {
			n = rng.Intn(40)
		}
		for range n {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		text := b.String()
		var starts []int
		for k := 0; k < len(text); {
			starts = append(starts, k)
			_, size := utf8.DecodeRuneInString(text[k:])
			k += size
		}
		starts = append(starts, len(text))
		var occ []span
		for k := rng.Intn(len(starts)); k < len(starts)-1; {
			e := min(k+1+rng.Intn(4), len(starts)-1)
			if i%7 == 0 {
				e = min(k+1+rng.Intn(300), len(starts)-1) // longer than a snippet
			}
			occ = append(occ, span{starts[k], starts[e]})
			k = e + rng.Intn(400)
		}
		wantS, wantR := snippetOf(text, occ)
		gotS, gotR := makeSnippet(text, occ)
		if gotS != wantS || !reflect.DeepEqual(gotR, wantR) {
			t.Fatalf("text %q, occurrences %v:\n got %q %v\nwant %q %v", text, occ, gotS, gotR, wantS, wantR)
		}
		if len(occ) > 0 {
			if lo, hi := snippetReach(text, occ[0]); lo > 0 || hi < len(text) {
				cut++
			}
		}
	}
	if cut < 1000 {
		t.Errorf("only %d texts were cut: the comparison says little", cut)
	}
}
