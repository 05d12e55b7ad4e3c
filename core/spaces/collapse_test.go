package spaces

import (
	"math/rand"
	"strings"
	"testing"
)

var collapseSeeds = []string{"", " ", "a", "a b", " a", "a ", "a  b", "a\tb", "a\nb", "a\u00a0b", "a\u0085b", "a\u3000b", "a\u2028b",
	"ログ イン", "a\xffb", "\xe3\x83", "a\x1fb", "a\u200bb", "\u00a0"}

func TestCollapseSpaceShortcut(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	alphabet := []string{"a", " ", "  ", "\t", "\n", "\r", "\v", "\f", "\u0085", "\u00a0", "\u3000", "é", "ロ", "\xff", "\xe3", "\x00", "\x1f", "\U0001F600"}
	inputs := append([]string(nil), collapseSeeds...)
	for i := 0; i < 20000; i++ {
		var b strings.Builder
		for n := r.Intn(8); n > 0; n-- {
			b.WriteString(alphabet[r.Intn(len(alphabet))])
		}
		inputs = append(inputs, b.String())
	}
	shortcut := 0
	for _, s := range inputs {
		if got, want := collapseSpace(s), collapseSpaceCopy(s); got != want {
			t.Fatalf("collapseSpace(%q) = %q, want %q", s, got, want)
		}
		if collapsed(s) {
			shortcut++
		}
	}
	if shortcut < 100 {
		t.Errorf("the shortcut took only %d texts", shortcut)
	}
}

func FuzzCollapseSpace(f *testing.F) {
	for _, s := range collapseSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := collapseSpace(s), collapseSpaceCopy(s); got != want {
			t.Fatalf("collapseSpace(%q) = %q, want %q", s, got, want)
		}
	})
}

// Every run of white space becomes one space, and none is left at either end.
func TestCollapseSpace(t *testing.T) {
	for in, want := range map[string]string{
		"": "", " ": "", "a": "a", "a  b": "a b", " a": "a", "a ": "a", "a\tb\n c": "a b c",
		"a\u3000b": "a b", "a\u00a0b": "a b", "a\u2028b": "a b", "ログ イン": "ログ イン", "a\u200bb": "a\u200bb",
	} {
		if got := collapseSpaceCopy(in); got != want {
			t.Errorf("collapseSpaceCopy(%q) = %q, want %q", in, got, want)
		}
	}
}
