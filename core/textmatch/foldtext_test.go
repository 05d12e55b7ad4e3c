package textmatch

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// Fold, which keeps no offset map, gives the text FoldMap gives, for every rune (after an
// upper-case ASCII letter, so no text is plain lower case) and for bytes that are not UTF-8.
func TestFoldWithoutMap(t *testing.T) {
	var b strings.Builder
	for r := rune(0); r <= utf8.MaxRune; r++ {
		b.WriteString("A")
		b.WriteRune(r)
		if r%4096 == 4095 {
			s := b.String()
			if Fold(s) != FoldMap(s).Text {
				t.Fatalf("Fold and FoldMap differ on the runes up to %U", r)
			}
			b.Reset()
		}
	}
	for _, s := range []string{"", "abc", "A\xffB", "ß\xe3\x83Ａ", "İstanbul ＡＢＣ ꭰ"} {
		if got, want := Fold(s), FoldMap(s).Text; got != want {
			t.Errorf("Fold(%q) = %q, FoldMap gives %q", s, got, want)
		}
	}
}
