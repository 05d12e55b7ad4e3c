package board

import (
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/core/textmatch"
)

// Snippet sizes: about 40 characters each side of the first match, at most 160
// in all (the "…" marks included).
const (
	snippetSide = 40
	snippetMax  = 160
	ellipsis    = '…'
)

// Range is a highlighted [start, end) in UTF-16 code units of a snippet, the unit JavaScript
// strings are indexed by.
type Range [2]int

// span is a byte range of the original text.
type span struct{ start, end int }

// occurrences finds every occurrence of every (folded) term in the text and maps it back to the
// original: sorted, overlapping occurrences merged (textmatch.Folded.Occurrences).
func occurrences(f textmatch.Folded, terms []string) []span {
	var out []span
	for _, r := range f.Occurrences(terms) {
		out = append(out, span{r[0], r[1]})
	}
	return out
}

// HighlightTerms are the folded strings a highlight of this query marks, the same ones search
// snippets mark: the terms, or the tags when the query has only tags.
func (q Query) HighlightTerms() []string { return highlightTerms(q) }

// makeSnippet cuts the original text around the first occurrence, newlines as spaces, and
// returns the UTF-16 ranges of every occurrence wholly inside it (overlapping ones merged).
// Only the text near the first occurrence is read: a snippet of a long text costs no more than
// one of a short text.
func makeSnippet(orig string, occ []span) (string, []Range) {
	lo, hi := 0, len(orig)
	if len(occ) > 0 {
		lo, hi = snippetReach(orig, occ[0])
	}
	if lo == 0 && hi == len(orig) {
		return snippetOf(orig, occ)
	}
	local := make([]span, 0, len(occ))
	for _, o := range occ {
		if o.start >= lo && o.end <= hi {
			local = append(local, span{o.start - lo, o.end - lo})
		}
	}
	return snippetOf(orig[lo:hi], local)
}

// snippetReach is the part of orig a snippet around the occurrence o can take: more than
// snippetMax characters each side of it, cut at bytes that start a character however the text
// before them decodes (any byte but a UTF-8 continuation byte; each such byte starts one
// character, so counting them undercounts characters, never overcounts). With that much text on
// a side that has more, the window and its "…" marks are the same as with the whole text;
// occurrences outside it are outside the window too.
func snippetReach(orig string, o span) (int, int) {
	lo, n := o.start, 0
	for lo > 0 && n <= snippetMax {
		lo--
		if utf8.RuneStart(orig[lo]) {
			n++
		}
	}
	hi, n := o.end, 0
	for hi < len(orig) && n <= snippetMax+1 {
		if utf8.RuneStart(orig[hi]) {
			n++
		}
		hi++
	}
	for hi < len(orig) && !utf8.RuneStart(orig[hi]) {
		hi++
	}
	return lo, hi
}

// snippetOf is makeSnippet over the whole of orig.
func snippetOf(orig string, occ []span) (string, []Range) {
	// Rune boundaries of the original; invalid bytes count as one U+FFFD each.
	starts := make([]int, 0, len(orig)+1)
	for i := 0; i < len(orig); {
		starts = append(starts, i)
		_, size := utf8.DecodeRuneInString(orig[i:])
		i += size
	}
	n := len(starts)
	starts = append(starts, len(orig))
	runeAt := func(b int) int { return sort.SearchInts(starts, b) }
	rs, re := 0, 0
	if len(occ) > 0 {
		rs, re = runeAt(occ[0].start), runeAt(occ[0].end)
	}
	if re-rs > snippetMax-2 {
		re = rs + snippetMax - 2
	}
	start, end := rs-snippetSide, re+snippetSide
	if start < 0 {
		end -= start
		start = 0
	}
	if end > n {
		start -= end - n
		end = n
		if start < 0 {
			start = 0
		}
	}
	for {
		marks := 0
		if start > 0 {
			marks++
		}
		if end < n {
			marks++
		}
		over := end - start + marks - snippetMax
		if over <= 0 {
			break
		}
		// Cut the tail first, then the head, never into the first occurrence.
		if cut := min(over, end-re); cut > 0 {
			end -= cut
			continue
		}
		start += over
	}
	var b strings.Builder
	b.Grow(starts[end] - starts[start] + 8)
	unit := 0
	units := make([]int, end-start+1) // UTF-16 offset of each rune of the window
	if start > 0 {
		b.WriteRune(ellipsis)
		unit++
	}
	inBreak := false // the last rune written stands for a line break
	for k := start; k < end; k++ {
		units[k-start] = unit
		r, size := utf8.DecodeRuneInString(orig[starts[k]:])
		if r == utf8.RuneError && size <= 1 {
			r = utf8.RuneError
		}
		if r == '\n' || r == '\r' {
			// Line breaks are squashed into a space, so "\r\n" or a blank line
			// is one space; a run after the first writes nothing and takes no UTF-16 unit.
			if inBreak {
				continue
			}
			r, inBreak = ' ', true
		} else {
			inBreak = false
		}
		b.WriteRune(r)
		unit += textmatch.RuneUTF16Len(r)
	}
	units[end-start] = unit
	if end < n {
		b.WriteRune(ellipsis)
	}
	ranges := []Range{}
	for _, o := range occ {
		a, z := runeAt(o.start), runeAt(o.end)
		if a < start || z > end || a >= z {
			continue
		}
		r := Range{units[a-start], units[z-start]}
		if k := len(ranges) - 1; k >= 0 && r[0] < ranges[k][1] {
			ranges[k][1] = max(ranges[k][1], r[1])
			continue
		}
		ranges = append(ranges, r)
	}
	return b.String(), ranges
}
