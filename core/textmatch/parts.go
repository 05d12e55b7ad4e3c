package textmatch

import "unicode/utf8"

// Parts returns the folded text and its offset map (nil when folding kept every offset), so a
// derived snapshot can store a folded field and restore it later without folding again.
func (f Folded) Parts() (text string, orig []int32) { return f.Text, f.orig }

// FromParts rebuilds a Folded from what Parts returned and the original text, the inverse of
// Parts; orig must be nil or hold len(text)+1 offsets into src.
func FromParts(text, src string, orig []int32) Folded {
	return Folded{Text: text, src: src, orig: orig}
}

// RuneUTF16Len is 2 for a character outside the Basic Multilingual Plane, else 1.
func RuneUTF16Len(r rune) int {
	if r >= 0x10000 && r <= utf8.MaxRune {
		return 2
	}
	return 1
}
