package textmatch

import (
	"strings"
	"testing"
)

func TestFold(t *testing.T) {
	cases := map[string]string{
		"Hello":     "hello",
		"ＧＯＯＧＬＥ":    "google",
		"Ｇｏ１２３":     "go123",
		"Straße":    "strasse",
		"\u212a":    "k", // Kelvin sign
		"ΣΊΣΥΦΟΣ":   "σίσυφοσ",
		"ログイン画面":    "ログイン画面",
		"ｶﾀｶﾅ":      "カタカナ",
		"迁移到SQLite": "迁移到sqlite",
		"a\xffB":    "a\xffb",
	}
	for in, want := range cases {
		if got := Fold(in); got != want {
			t.Errorf("Fold(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFoldMapSpan(t *testing.T) {
	src := "xİSTANBUL ＧＯ Straße end"
	f := FoldMap(src)
	for _, term := range []string{"istanbul", "i̇stanbul", "go", "strasse", "ss", "end"} {
		i := strings.Index(f.Text, Fold(term))
		if i < 0 {
			continue
		}
		s, e := f.Span(i, i+len(Fold(term)))
		got := src[s:e]
		if Fold(got) != Fold(term) && !strings.Contains(Fold(got), Fold(term)) {
			t.Errorf("term %q mapped to %q", term, got)
		}
	}
	i := strings.Index(f.Text, "go")
	s, e := f.Span(i, i+2)
	if src[s:e] != "ＧＯ" {
		t.Errorf("span of go = %q", src[s:e])
	}
	i = strings.Index(f.Text, "ss")
	s, e = f.Span(i, i+2)
	if src[s:e] != "ß" {
		t.Errorf("span of ss = %q", src[s:e])
	}
	plain := FoldMap("already lower")
	if a, b := plain.Span(2, 5); a != 2 || b != 5 {
		t.Errorf("identity span = %d,%d", a, b)
	}
}

// Folding twice must change nothing: searches fold the text and the query separately.
func TestFoldIsIdempotent(t *testing.T) {
	for r := rune(0); r <= 0x10FFFF; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue
		}
		once := Fold(string(r))
		if twice := Fold(once); twice != once {
			t.Fatalf("%U: Fold gives %q, folding again %q", r, once, twice)
		}
	}
	if Fold("ꭰ") != Fold("Ꭰ") {
		t.Fatal("Cherokee small and capital letters do not fold together")
	}
}

// ß folds to "ss" in as many bytes, so the fold keeps no offset map; a range that ends or starts
// inside that "ss" still maps to the whole ß, never to half of its bytes.
func TestSpanSameLengthFold(t *testing.T) {
	s := "Straße!"
	f := FoldMap(s)
	if f.Text != "strasse!" {
		t.Fatalf("fold %q", f.Text)
	}
	for _, tc := range []struct{ start, end, ws, we int }{
		{4, 5, 4, 6}, {5, 6, 4, 6}, {0, 5, 0, 6}, {5, 7, 4, 7}, {6, 8, 6, 8}, {5, 5, 4, 4}, {8, 8, 8, 8},
	} {
		if a, b := f.Span(tc.start, tc.end); a != tc.ws || b != tc.we {
			t.Errorf("Span(%d, %d) = %d, %d, want %d, %d", tc.start, tc.end, a, b, tc.ws, tc.we)
		}
	}
	if o := f.Orig(5); o != 4 {
		t.Errorf("Orig(5) = %d, want 4 (the start of ß)", o)
	}
	if a, b := FoldMap("a\x9f\x9fb").Span(1, 2); a != 1 || b != 2 {
		t.Errorf("stray continuation byte: %d, %d", a, b)
	}
}

// TestFoldsToItself: every rune FoldsToItself names folds to itself, so a text of them and ASCII
// folds by lowering its ASCII letters; the fast path gives what folding rune by rune gives.
func TestFoldsToItself(t *testing.T) {
	for r := rune(0); r <= 0x10FFFF; r++ {
		if FoldsToItself(r) && (r < 0x80 || Fold(string(r)) != string(r) || foldRunes(string(r), false).Text != string(r)) {
			t.Fatalf("%U is said to fold to itself", r)
		}
	}
	if FoldsToItself('\u3000') || FoldsToItself('Ａ') || FoldsToItself('ſ') {
		t.Fatal("a rune that folding changes is said to fold to itself")
	}
	for _, s := range []string{"", "abc", "ABC def", "認証 API フロー Token", "データ", "x\u3000y", "ＡＢＣ", "Straße", "a\xffB", "稀有 KUMQUAT", "한국어 Text"} {
		fast, slow := FoldMap(s), foldRunes(s, true)
		if fast.Text != slow.Text || (fast.orig == nil) != (slow.orig == nil) {
			t.Errorf("%q: fast fold %q (map %v), rune by rune %q (map %v)", s, fast.Text, fast.orig != nil, slow.Text, slow.orig != nil)
		}
		if _, ok := lowerOnly(s); ok && fast.Text != strings.ToLower(s) {
			t.Errorf("%q: fast fold %q is not its lower case", s, fast.Text)
		}
	}
}

// TestSelfFoldingLen: reading three bytes gives what decoding the rune and FoldsToItself give.
func TestSelfFoldingLen(t *testing.T) {
	for r := rune(0); r <= 0x10FFFF; r++ {
		s := string(r) + "x"
		want := 0
		if FoldsToItself(r) {
			want = 3
		}
		if got := SelfFoldingLen(s); got != want {
			t.Fatalf("%U: %d, want %d", r, got, want)
		}
	}
	for _, s := range []string{"", "\xe3", "\xe3\x81", "\xe3\x81x", "\xe3x\x81", "\xe0\x83\x81", "\xed\xa0\x80", "\xee\x80\x80"} {
		if got := SelfFoldingLen(s); got != 0 {
			t.Errorf("%q: %d, want 0", s, got)
		}
	}
}
