package textmatch

import (
	"reflect"
	"testing"
)

func TestOccurrences(t *testing.T) {
	cases := []struct {
		name, text string
		terms      []string
		want       []string // the original text of each range, in order
	}{
		{"ß folds to ss", "Die Straße und die STRASSE", []string{"strasse"}, []string{"Straße", "STRASSE"}},
		{"ligature ﬁ folds to fi", "a ﬁle, a file", []string{"file"}, []string{"ﬁle", "file"}},
		{"full-width letters", "ＡＢＣ and abc", []string{"abc"}, []string{"ＡＢＣ", "abc"}},
		{"full-width query side", "ＡＢＣ", []string{Fold("ａｂｃ")}, []string{"ＡＢＣ"}},
		{"Japanese", "ログイン画面とログアウト", []string{"ログ"}, []string{"ログ", "ログ"}},
		{"half-width kana", "ﾛｸﾞｲﾝ", []string{Fold("ﾛｸﾞ")}, []string{"ﾛｸﾞ"}},
		{"İ folds to two runes", "İstanbul", []string{"i"}, []string{"İ"}},
		{"overlapping terms merge", "abcd", []string{"abc", "bcd"}, []string{"abcd"}},
		{"overlapping occurrences of one term", "aaa", []string{"aa"}, []string{"aaa"}},
		{"touching ranges stay apart", "abab", []string{"ab"}, []string{"ab", "ab"}},
		{"contained term", "migration", []string{"migration", "grat"}, []string{"migration"}},
		{"partial match ends inside ß", "Straße", []string{"stras"}, []string{"Straß"}},
		{"partial match starts inside ß", "Straße", []string{"se"}, []string{"ße"}},
		{"match across a ß boundary", "maßstab", []string{"sst"}, []string{"ßst"}},
		{"both halves of ß", "aßb", []string{"s"}, []string{"ß"}},
		{"empty term skipped", "abc", []string{"", "b"}, []string{"b"}},
		{"no match", "abc", []string{"x"}, nil},
		{"invalid UTF-8 kept", "a\xffB", []string{"b"}, []string{"B"}},
	}
	for _, tc := range cases {
		f := FoldMap(tc.text)
		var got []string
		last := -1
		for _, r := range f.Occurrences(tc.terms) {
			if r[0] <= last && last >= 0 && r[0] < last || r[0] >= r[1] {
				t.Errorf("%s: bad or overlapping range %v", tc.name, r)
			}
			last = r[1]
			got = append(got, tc.text[r[0]:r[1]])
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: Occurrences(%q, %q) = %q, want %q", tc.name, tc.text, tc.terms, got, tc.want)
		}
	}
}

func TestUTF16Ranges(t *testing.T) {
	s := "😀 Straße ﬁle"
	f := FoldMap(s)
	got := UTF16Ranges(s, f.Occurrences([]string{"strasse", "file"}))
	// 😀 is two UTF-16 units; ß and ﬁ are one each.
	want := [][2]int{{3, 9}, {10, 13}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("UTF16Ranges = %v, want %v", got, want)
	}
	if got := UTF16Ranges("a\xff\xffb", [][2]int{{3, 4}}); !reflect.DeepEqual(got, [][2]int{{3, 4}}) {
		t.Errorf("invalid bytes count one unit each: %v", got)
	}
	if got := UTF16Ranges("abc", nil); len(got) != 0 {
		t.Errorf("no ranges: %v", got)
	}
}
