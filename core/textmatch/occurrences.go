package textmatch

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// Occurrences returns where any of terms occurs in the original text, as byte ranges [start, end)
// of Source(), sorted and merged where they overlap (ranges that only touch stay apart), so every
// highlighter marks the same characters. Terms must already be folded (as Fold returns them);
// empty terms are skipped. Every occurrence counts, overlapping ones of the same term included.
// A match that starts or ends inside what one original character folded to (the first "s" of
// the "ss" that ß becomes, the "f" of ﬁ) covers that whole original character: a range never
// splits a character of the original.
func (f Folded) Occurrences(terms []string) [][2]int {
	var out [][2]int
	for _, t := range terms {
		if t == "" {
			continue
		}
		for pos := 0; pos+len(t) <= len(f.Text); {
			i := strings.Index(f.Text[pos:], t)
			if i < 0 {
				break
			}
			i += pos
			s, e := f.Span(i, i+len(t))
			out = append(out, [2]int{s, e})
			pos = i + 1
		}
	}
	if len(out) == 0 {
		return nil
	}
	slices.SortFunc(out, func(a, b [2]int) int {
		if a[0] != b[0] {
			return a[0] - b[0]
		}
		return b[1] - a[1]
	})
	merged := out[:1]
	for _, r := range out[1:] {
		last := &merged[len(merged)-1]
		if r[0] < last[1] {
			last[1] = max(last[1], r[1])
			continue
		}
		merged = append(merged, r)
	}
	return merged
}

// UTF16Ranges converts sorted byte ranges of s (on rune boundaries, as Occurrences returns them)
// to [start, end) offsets in UTF-16 code units, the unit JavaScript strings are indexed by. An
// invalid byte counts as one unit, as the U+FFFD that JSON encoding writes in its place.
func UTF16Ranges(s string, ranges [][2]int) [][2]int {
	out := make([][2]int, 0, len(ranges))
	unit, at := 0, 0 // unit is the UTF-16 offset of byte at
	advance := func(to int) int {
		for at < to && at < len(s) {
			r, size := utf8.DecodeRuneInString(s[at:])
			if r == utf8.RuneError && size <= 1 {
				size = 1
			}
			unit += RuneUTF16Len(r)
			at += size
		}
		return unit
	}
	for _, r := range ranges {
		a := advance(r[0])
		out = append(out, [2]int{a, advance(r[1])})
	}
	return out
}
