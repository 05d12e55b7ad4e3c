package board

import (
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/core/textmatch"
)

// foldParts is FoldMap split into its parts, for tests of the offset compression.
type foldParts struct {
	text string
	omap []int32
}

// FoldMapParts folds s and returns the folded text and byte map.
func FoldMapParts(s string) foldParts {
	t, m := textmatch.FoldMap(s).Parts()
	return foldParts{t, m}
}

var lineBreaks = regexp.MustCompile(`[\r\n]+`)

// FuzzQuerySnippet checks the query parser and the snippet builder on any input: no panic, the
// snippet is valid UTF-8 of at most 160 characters, every range lies inside it on character
// boundaries, ranges are ordered and disjoint and each one holds a query term; and the offset
// map survives compression.
func FuzzQuerySnippet(f *testing.F) {
	f.Add("迁移 #module/storage \"quoted phrase\"", "把存储从 JSON 文件迁移到 SQLite。\nquoted phrase")
	f.Add("launch", "😀😀 rocket 🚀 launch day notes")
	f.Add("login ss", "ＦＵＬＬ ｗｉｄｔｈ Ｌｏｇｉｎ Straße İstanbul \u212aelvin")
	f.Add("a", strings.Repeat("ab", 200))
	f.Add("\"", "\xff\xfe a")
	f.Fuzz(func(t *testing.T, query, text string) {
		q, err := ParseQuery(query)
		if err != nil {
			return
		}
		for _, term := range append(append([]string{}, q.Terms...), q.Tags...) {
			if term == "" || strings.ContainsRune(term, 0) || !utf8.ValidString(term) {
				t.Fatalf("bad term %q from %q", term, query)
			}
		}
		// Indexed text is valid UTF-8 without NUL (import validates it, loading cleans it).
		text = strings.ReplaceAll(strings.ToValidUTF8(text, "\uFFFD"), "\x00", " ")
		fm := textmatch.FoldMap(text)
		if folded, omap := fm.Parts(); omap != nil {
			if back := expandOffsets(text, len(folded), compressOffsets(text, omap)); !reflect.DeepEqual(back, omap) {
				t.Fatalf("offset map of %q does not survive compression", text)
			}
		}
		terms := highlightTerms(q)
		snip, ranges := makeSnippet(text, occurrences(fm, terms))
		if !utf8.ValidString(snip) {
			t.Fatalf("snippet %q is not valid UTF-8", snip)
		}
		if n := utf8.RuneCountInString(snip); n > snippetMax {
			t.Fatalf("snippet of %d characters", n)
		}
		bounds := map[int]bool{0: true}
		u := 0
		for _, r := range snip {
			u += textmatch.RuneUTF16Len(r)
			bounds[u] = true
		}
		if !sort.SliceIsSorted(ranges, func(i, j int) bool { return ranges[i][0] < ranges[j][0] }) {
			t.Fatalf("ranges out of order: %v", ranges)
		}
		prevEnd := -1
		for _, r := range ranges {
			if r[0] < 0 || r[0] >= r[1] || r[1] > u || !bounds[r[0]] || !bounds[r[1]] || r[0] < prevEnd {
				t.Fatalf("bad range %v in %q (%d units): %v", r, snip, u, ranges)
			}
			prevEnd = r[1]
			piece := textmatch.Fold(utf16Slice(snip, r[0], r[1]))
			ok := false
			for _, term := range terms {
				term = lineBreaks.ReplaceAllString(term, " ") // as the snippet squashes them
				if strings.Contains(piece, term) {
					ok = true
				}
			}
			if !ok {
				t.Fatalf("range %v = %q holds no term of %q", r, piece, terms)
			}
		}
	})
}

// Line breaks in a snippet are squashed: a run of them is one space, and the ranges after it
// still point at the terms.
func TestSnippetSquashesLineBreaks(t *testing.T) {
	text := "aaa\r\nbbb\n\n\nccc 迁移\r\n\r\nend"
	snip, ranges := makeSnippet(text, occurrences(textmatch.FoldMap(text), []string{"ccc", "迁移"}))
	if want := "aaa bbb ccc 迁移 end"; snip != want {
		t.Fatalf("snippet %q, want %q", snip, want)
	}
	if want := []Range{{8, 11}, {12, 14}}; !reflect.DeepEqual(ranges, want) {
		t.Fatalf("ranges %v, want %v", ranges, want)
	}
}
