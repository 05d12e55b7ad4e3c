package textmatch

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestFolderEveryRune checks the fast paths of Folder against Fold for every rune, alone and
// between ASCII neighbours (so the eight-byte path and the rune paths meet).
func TestFolderEveryRune(t *testing.T) {
	var f Folder
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue
		}
		s := string(r)
		if got := string(f.Fold([]byte(s))); got != Fold(s) {
			t.Fatalf("rune %U: Folder %q, Fold %q", r, got, Fold(s))
		}
		s = "ABCDEFGHIJ" + s + "KLMNOPQRSTUVWXYZ"
		if got := string(f.Fold([]byte(s))); got != Fold(s) {
			t.Fatalf("rune %U in ASCII: Folder %q, Fold %q", r, got, Fold(s))
		}
	}
}

func TestFolderInvalidUTF8(t *testing.T) {
	var f Folder
	for _, s := range []string{"\xe4\x41\x42", "\xe3\x80", "\xd7", "\xd7A", "a\xffB", "\xed\xa0\x80X", "\xe3\x80\x80Ａ", strings.Repeat("Ab\xe4", 9)} {
		if got := string(f.Fold([]byte(s))); got != Fold(s) {
			t.Errorf("Folder(%q) = %q, Fold = %q", s, got, Fold(s))
		}
	}
}

func TestMatchingLines(t *testing.T) {
	var f Folder
	text := []byte("first line\nＯＡｕｔｈ device flow\nnothing\noauth again, OAuth twice\n\nStraße\nlast OAUTH")
	cases := map[string][]int{
		"oauth":    {2, 4, 7},
		"OAUTH":    {2, 4, 7},
		"strasse":  {6},
		"STRASSE":  {6},
		"line\nfi": nil,
		"missing":  nil,
		"device f": {2},
	}
	for q, want := range cases {
		got := NewNeedle(q).MatchingLines(&f, text, nil)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q: lines %v, want %v", q, got, want)
		}
	}
	// Checked in place around a one-byte anchor, unless a rune that folds to ASCII shifts it.
	// Each text is matched as it is (a short text is folded whole: anchorsDense) and with a long
	// line of no anchor after it, so that each anchor occurrence is looked at where it is.
	sparse := "\n" + strings.Repeat(".", 1000)
	for _, c := range []struct {
		q, text string
		want    []int
	}{
		{"abcxy", "zzz\nabcｘy\n", []int{2}},
		{"abcxy", "abcxY and ABCXY", []int{1}},
		{"xssy", "xßy", []int{1}},
		{"office y", "Oﬃce y\noffice Y", []int{1, 2}},
		{"by", "b\ny", nil},
		{"bb", "b", nil},
		{"kb", "\u212ab", []int{1}},
		{"a b", "a\u3000b", []int{1}},
		// occurrences of the lower-case anchor on both sides of the upper-case and full-width
		// ones, which bound each tight loop of in-place checks (firstSettled)
		{"onboarding", "b onBoarding", []int{1}},
		{"onboarding", "bb b\nx onBoarding b\nb b ｏｎｂｏａｒｄｉｎｇ\nb ONBOARDING b", []int{2, 3, 4}},
		{"onboarding", "b b B b ｂ b onboardin\nonboardinb", nil},
	} {
		for _, text := range []string{c.text, c.text + sparse} {
			if got := NewNeedle(c.q).MatchingLines(&f, []byte(text), nil); !reflect.DeepEqual(got, c.want) {
				t.Errorf("%q in %q (a long line after it: %v): lines %v, want %v", c.q, c.text, text != c.text, got, c.want)
			}
		}
	}
	// Japanese and Chinese: no case, but width folding of embedded Latin letters.
	jp := []byte("ログイン画面の改修\n迁移到ＳＱＬｉｔｅ\n検索")
	if got := NewNeedle("sqlite").MatchingLines(&f, jp, nil); !reflect.DeepEqual(got, []int{2}) {
		t.Errorf("sqlite in CJK text: %v", got)
	}
	if got := NewNeedle("画面の").MatchingLines(&f, jp, nil); !reflect.DeepEqual(got, []int{1}) {
		t.Errorf("画面の: %v", got)
	}
}

func TestGroupLines(t *testing.T) {
	cases := []struct {
		matches        []int
		context, total int
		want           []LineGroup
	}{
		{[]int{5}, 3, 20, []LineGroup{{2, 8, []int{5}}}},
		{[]int{1}, 3, 2, []LineGroup{{1, 2, []int{1}}}},
		{[]int{5, 12}, 3, 20, []LineGroup{{2, 15, []int{5, 12}}}},                 // windows touch (8, 9)
		{[]int{5, 13}, 3, 20, []LineGroup{{2, 8, []int{5}}, {10, 16, []int{13}}}}, // one line between
		{[]int{1, 2, 3}, 0, 3, []LineGroup{{1, 3, []int{1, 2, 3}}}},               // adjacent lines touch, as grep -C0
		{[]int{1, 3}, 0, 3, []LineGroup{{1, 1, []int{1}}, {3, 3, []int{3}}}},
		{[]int{1, 2}, 1, 3, []LineGroup{{1, 3, []int{1, 2}}}},
	}
	for _, c := range cases {
		if got := GroupLines(c.matches, c.context, c.total); !reflect.DeepEqual(got, c.want) {
			t.Errorf("GroupLines(%v, %d, %d) = %v, want %v", c.matches, c.context, c.total, got, c.want)
		}
	}
}

func TestLinesAndCount(t *testing.T) {
	text := []byte("one\r\ntwo\nthree\n")
	if n := CountLines(text); n != 3 {
		t.Errorf("CountLines = %d", n)
	}
	if n := CountLines([]byte("a\nb")); n != 2 {
		t.Errorf("CountLines without final newline = %d", n)
	}
	if n := CountLines(nil); n != 0 {
		t.Errorf("CountLines(nil) = %d", n)
	}
	if got := Lines(text, 1, 2); !reflect.DeepEqual(got, []string{"one", "two"}) {
		t.Errorf("Lines 1..2 = %q", got)
	}
	if got := Lines(text, 3, 9); !reflect.DeepEqual(got, []string{"three"}) {
		t.Errorf("Lines 3..9 = %q", got)
	}
	if got := Lines([]byte("a\nb"), 2, 2); !reflect.DeepEqual(got, []string{"b"}) {
		t.Errorf("last line without newline = %q", got)
	}
}

func TestSpans(t *testing.T) {
	line := "ＯＡｕｔｈ and oauth and Straße"
	n := NewNeedle("OAuth")
	spans := n.Spans(line)
	if len(spans) != 2 || line[spans[0][0]:spans[0][1]] != "ＯＡｕｔｈ" || line[spans[1][0]:spans[1][1]] != "oauth" {
		t.Errorf("spans %v", spans)
	}
	spans = NewNeedle("ss").Spans(line)
	if len(spans) != 1 || line[spans[0][0]:spans[0][1]] != "ß" {
		t.Errorf("ss spans %v", spans)
	}
}

// FuzzFoldMatch holds the fast folder to Fold and the line matcher to a naive per-line search.
func FuzzFoldMatch(f *testing.F) {
	f.Add("ＯＡｕｔｈ device\nStraße\nlast", "oauth")
	f.Add("ログイン画面\n迁移到ＳＱＬｉｔｅ", "sqlite")
	f.Add("a\xffB\n\xe3\x80\x80x", "b")
	f.Add("İstanbul\nK\u212a", "k")
	f.Add("maßstab\nﬁle", "s")
	f.Fuzz(func(t *testing.T, text, query string) {
		var fo Folder
		if got := string(fo.Fold([]byte(text))); got != Fold(text) {
			t.Fatalf("Folder(%q) = %q, Fold = %q", text, got, Fold(text))
		}
		n := NewNeedle(query)
		lines := func(text string) []int {
			var want []int
			if q := Fold(query); q != "" && !strings.Contains(q, "\n") {
				for i, l := range strings.Split(text, "\n") {
					if strings.Contains(Fold(l), q) {
						want = append(want, i+1)
					}
				}
			}
			return want
		}
		// the text as it is (short texts are folded whole: anchorsDense), then with a long line
		// of no anchor after it, so each anchor occurrence is looked at where it is
		for _, text := range []string{text, text + "\n" + strings.Repeat("_", 32*len(text)+64)} {
			if got, want := n.MatchingLines(&fo, []byte(text), nil), lines(text); !reflect.DeepEqual(got, want) {
				t.Fatalf("MatchingLines(%q, %q) = %v, want %v", text, query, got, want)
			}
		}
		for _, l := range strings.Split(text, "\n") {
			last := 0
			for _, s := range n.Spans(l) {
				if s[0] < last || s[1] < s[0] || s[1] > len(l) {
					t.Fatalf("bad span %v in %q", s, l)
				}
				if utf8.ValidString(l) && !utf8.ValidString(l[s[0]:s[1]]) {
					t.Fatalf("span %v splits a character of %q", s, l)
				}
				last = s[1]
			}
		}
	})
}

// TestAnchorsAreComplete proves the prefilter sound: for every ASCII byte, the runes whose fold
// contains it are exactly asciiPreimages; and no rune but itself folds to a string containing a
// CJK ideograph, a hiragana letter or a Hangul syllable.
func TestAnchorsAreComplete(t *testing.T) {
	want := map[byte]map[string]bool{}
	for b := 0; b < utf8.RuneSelf; b++ {
		want[byte(b)] = map[string]bool{}
	}
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue
		}
		f := Fold(string(r))
		for i := 0; i < len(f); i++ {
			if f[i] < utf8.RuneSelf {
				want[f[i]][string(r)] = true
			}
		}
		for _, c := range f {
			if c != r && isAnchorRune(c) {
				t.Errorf("%U folds to %q, which contains the anchor %U", r, f, c)
			}
		}
	}
	for b := 0; b < utf8.RuneSelf; b++ {
		got := map[string]bool{}
		for _, p := range asciiPreimages(byte(b)) {
			got[p] = true
		}
		if !reflect.DeepEqual(got, want[byte(b)]) {
			t.Errorf("asciiPreimages(%q) = %v, want %v", byte(b), got, want[byte(b)])
		}
	}
	if len(byteClass) != 256 {
		t.Fatalf("byteClass has %d entries", len(byteClass))
	}
}

// TestKatakanaAnchorsAreComplete checks, over every rune, that the anchors of a katakana are
// exactly the runes whose fold holds it, so a line without one of them cannot hold the katakana.
func TestKatakanaAnchorsAreComplete(t *testing.T) {
	want := map[rune]map[string]bool{}
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue
		}
		for _, c := range Fold(string(r)) {
			if isKatakanaAnchor(c) {
				if want[c] == nil {
					want[c] = map[string]bool{}
				}
				want[c][string(r)] = true
			}
		}
	}
	n := 0
	for r := rune(0x3000); r <= 0x30FF; r++ {
		if !isKatakanaAnchor(r) {
			continue
		}
		n++
		got := map[string]bool{}
		for _, a := range anchorsFor(string(r)) {
			got[string(a)] = true
		}
		if !reflect.DeepEqual(got, want[r]) {
			t.Errorf("anchorsFor(%q) = %v, want %v", r, got, want[r])
		}
	}
	if n != 91 {
		t.Errorf("%d katakana anchors, want 91", n)
	}
	// a katakana query has anchors, and finds its half-width spelling
	nd := NewNeedle("カタカナ")
	if nd.anchors == nil {
		t.Fatal("no anchors for a katakana query")
	}
	if got := nd.MatchingLines(&Folder{}, []byte("ひらがな\nｶﾀｶﾅ です\n漢字\nカタカナ\n"), nil); !reflect.DeepEqual(got, []int{2, 4}) {
		t.Errorf("MatchingLines = %v, want [2 4]", got)
	}
}

func isAnchorRune(r rune) bool {
	a := anchorsFor(string(r))
	return r >= utf8.RuneSelf && len(a) == 1 && string(a[0]) == string(r)
}

func TestMayMatch(t *testing.T) {
	for _, c := range []struct {
		q, text string
		want    bool
	}{
		{"zzqqxx", "nothing here", false},
		{"zzqqxx", "a ｚ somewhere", true},
		{"kelvin", "\u212a only", true},
		{"認証", "ログイン", false},
		{"認証", "認", true},
		{"ログイン", "ﾛｸﾞｲﾝ", true}, // no anchor among katakana: never pruned
	} {
		if got := NewNeedle(c.q).MayMatch([]byte(c.text)); got != c.want {
			t.Errorf("MayMatch(%q, %q) = %t", c.q, c.text, got)
		}
	}
}

func TestIndexForm(t *testing.T) {
	text := []byte("ｶﾀｶﾅ アイウ 漢字かな ＡＢ ア")
	for _, form := range []string{"ア", "イ", "漢", "字", "か", "ｶ", "ﾅ", "Ａ", "Ｂ", "ウ", "エ", "語", "ﾆ", "Ｃ"} {
		if got, want := indexForm(text, []byte(form)), bytes.Index(text, []byte(form)); got != want {
			t.Errorf("indexForm(%q) = %d, want %d", form, got, want)
		}
	}
	// a last byte that occurs first in another character
	if got := indexForm([]byte("ガア"), []byte("ア")); got != 3 {
		t.Errorf("indexForm = %d, want 3", got)
	}
}
