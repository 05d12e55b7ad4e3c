package textmatch

import (
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// naiveLines is the contract of MatchingLines: the lines whose fold holds the fold of query.
func naiveLines(text, query string) []int {
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

// checkPlan matches query in text, as it is and between filler that makes each path run (the
// rare byte's forms counted as dense in a short text, sparse after a long line without them, the
// eight-lane scan's word loop and its tail), against naiveLines.
func checkPlan(t *testing.T, f *Folder, query, text string) {
	t.Helper()
	n := NewNeedle(query)
	for _, tx := range []string{text, text + "\n" + strings.Repeat("_", 40*len(text)+64), "..." + text + ".........", strings.Repeat("_", 70) + "\n" + text} {
		if got, want := n.MatchingLines(f, []byte(tx), nil), naiveLines(tx, query); !reflect.DeepEqual(got, want) {
			t.Fatalf("MatchingLines(%q, %q) = %v, want %v (plan %t)", tx, query, got, want, n.plan != nil)
		}
	}
}

// TestWindowPlanEveryRune puts every rune whose fold holds a character a plan takes (ASCII, CJK,
// kana, Hangul) in texts, and matches needles made of that character and of the rune's whole fold
// around it: every odd form of every character is met this way, in every position.
func TestWindowPlanEveryRune(t *testing.T) {
	var f Folder
	checked := 0
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if r >= 0xD800 && r <= 0xDFFF || r == '\n' {
			continue
		}
		fr := Fold(string(r))
		if fr == string(r) && r >= 0x3041 && r%61 != 0 {
			// a CJK, kana or Hangul character folding to itself only meets plain windows:
			// one in 61 is enough (odd forms are the runes whose fold is another)
			if FoldsToItself(r) || r >= 0xAC00 && r <= 0xD7A3 {
				continue
			}
		}
		var needles []string
		for _, c := range fr {
			if newWindowPlan([]byte(string(c))) == nil {
				continue
			}
			cs := string(c)
			needles = append(needles, cs, "x"+cs, cs+"y", "b"+cs+"b", "2"+cs+" ")
		}
		if newWindowPlan([]byte(fr)) != nil {
			needles = append(needles, fr, "a"+fr, fr+"z")
		}
		if len(needles) == 0 {
			continue
		}
		checked++
		s := string(r)
		texts := []string{s, "x" + s + "y", "b" + s + "b\nb" + s + "b", "2" + s + " ", "a" + s + "z", s + s, "X" + strings.ToUpper(s) + "Y"}
		for _, q := range needles {
			for _, tx := range texts {
				checkPlan(t, &f, q, tx)
			}
		}
	}
	if checked < 900 {
		t.Fatalf("only %d runes checked", checked)
	}
}

// TestWindowPlanRandom matches random needles in random texts made of pieces from every fold
// class next to each other.
func TestWindowPlanRandom(t *testing.T) {
	pieces := []string{"a", "A", "ａ", "Ａ", "s", "S", "ß", "ẞ", "ss", "ſ", "f", "i", "ﬁ", "ﬃ", "İ", "I", "k", "K", "\u212a",
		"n", "ŉ", "t", "ﬅ", " ", "\u3000", "カ", "ｶ", "ﾞ", "ガ", "ー", "ｰ", "漢", "字", "あ", "한", "é", "É", "\xff", "\xe3\x81",
		"\xe3", "\n", "\r\n", "x", "X", "ｘ", "-", "_", "0", "０", ".", "。", "｡", "ｊ", "ǰ", "j"}
	rng := rand.New(rand.NewSource(27))
	var f Folder
	for range 20000 {
		var tb strings.Builder
		for range rng.Intn(30) {
			tb.WriteString(pieces[rng.Intn(len(pieces))])
		}
		var qb strings.Builder
		for range 1 + rng.Intn(4) {
			qb.WriteString(pieces[rng.Intn(len(pieces))])
		}
		q := strings.TrimSpace(qb.String())
		if q == "" {
			continue
		}
		tx := tb.String()
		if rng.Intn(3) == 0 { // plant the needle, in some case and width
			tx += pieces[rng.Intn(len(pieces))] + q + pieces[rng.Intn(len(pieces))]
		}
		checkPlan(t, &f, q, tx)
	}
}

func TestWindowPlanKinds(t *testing.T) {
	for q, want := range map[string]bool{
		"onin na": true, "失码限用 步解性認验布": true, "oncon プリワネヌ": true, "한국어": true, "ひらがな": true,
		"café": false, "Σ": false, "、": false, "a\xffb": false, "ｶﾀｶﾅ": true,
	} {
		if got := NewNeedle(q).plan != nil; got != want {
			t.Errorf("%q: plan %t, want %t", q, got, want)
		}
	}
}
