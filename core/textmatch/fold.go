// Package textmatch holds the matching rules every search shares: folding, query terms, snippets.
package textmatch

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/width"
)

// Fold returns s folded for matching: full-width ASCII to half-width (and half-width kana to
// full-width), then Unicode full case folding. Invalid UTF-8 bytes are kept as they are.
func Fold(s string) string {
	return fold(s, false).Text
}

// Folded is a text folded once, with a map from folded byte offsets back to the original, because
// folding can change lengths (ß → ss, İ → i̇, full-width letters are 3 bytes, half-width 1).
type Folded struct {
	// Text is the folded text that queries are matched against.
	Text string
	src  string
	orig []int32 // orig[i]: start in src of the rune that produced folded byte i; nil = identity
}

// FoldMap folds s and remembers where each folded byte came from.
func FoldMap(s string) Folded { return fold(s, true) }

// fold is FoldMap; without keepMap it leaves out the map from folded bytes back to s (four bytes
// for each byte of s), which Fold never reads.
func fold(s string, keepMap bool) Folded {
	if lowered, ok := lowerOnly(s); ok {
		return Folded{Text: lowered, src: s} // as long as s: the map is the identity
	}
	return foldRunes(s, keepMap)
}

// foldRunes is fold rune by rune, for any text.
func foldRunes(s string, keepMap bool) Folded {
	var caser cases.Caser
	haveCaser := false
	var b strings.Builder
	b.Grow(len(s))
	var orig []int32
	if keepMap {
		orig = make([]int32, 0, len(s)+1)
	}
	shifted := false
	var buf [utf8.UTFMax]byte
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			b.WriteByte(c)
			if keepMap {
				orig = append(orig, int32(i))
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteByte(s[i])
			if keepMap {
				orig = append(orig, int32(i))
			}
			i++
			continue
		}
		out := s[i : i+size]
		if f := width.LookupRune(r).Folded(); f != 0 {
			r = f
			n := utf8.EncodeRune(buf[:], r)
			out = string(buf[:n])
		}
		switch {
		case isCherokee(r):
			out = string(unicode.ToUpper(r))
		case hasCase(r):
			if !haveCaser {
				caser = cases.Fold()
				haveCaser = true
			}
			out = caser.String(out)
		}
		if len(out) != size {
			shifted = true
		}
		b.WriteString(out)
		for k := 0; keepMap && k < len(out); k++ {
			orig = append(orig, int32(i))
		}
		i += size
	}
	f := Folded{Text: b.String(), src: s}
	if shifted && keepMap {
		f.orig = append(orig, int32(len(s)))
	}
	return f
}

// Source is the original text.
func (f Folded) Source() string { return f.src }

// Orig maps a folded byte offset to the start of the original rune that produced it.
func (f Folded) Orig(i int) int {
	if f.orig == nil {
		start, _ := runeAt(f.src, i)
		return start
	}
	return int(f.orig[i])
}

// Span maps a folded range [start, end) to the smallest original range covering it, always on
// rune boundaries of the original.
func (f Folded) Span(start, end int) (int, int) {
	if f.orig == nil {
		// Every rune folded to as many bytes as it had, so folded byte i came from the original
		// rune that holds byte i; that need not be one rune per rune (ß → ss keeps two bytes),
		// so the ends are widened to the runes that hold them.
		os, _ := runeAt(f.src, start)
		if end <= start {
			return os, os
		}
		_, oe := runeAt(f.src, end-1)
		return os, oe
	}
	os := int(f.orig[start])
	if end <= start {
		return os, os
	}
	last := int(f.orig[end-1])
	_, size := utf8.DecodeRuneInString(f.src[last:])
	return os, last + size
}

// runeAt returns the bounds of the rune of s that holds byte i, as FoldMap decodes s from its
// start: an invalid byte is a rune of its own. At len(s) it returns len(s), len(s).
func runeAt(s string, i int) (int, int) {
	if i >= len(s) {
		return len(s), len(s)
	}
	p := i
	for p > 0 && i-p < utf8.UTFMax-1 && !utf8.RuneStart(s[p]) {
		p--
	}
	if _, size := utf8.DecodeRuneInString(s[p:]); p+size > i {
		return p, p + size
	}
	return i, i + 1
}

// FoldsToItself reports whether r is one of the runes that neither width nor case folding
// changes, and that are common enough in text to check for: CJK punctuation, kana and ideographs
// (U+3001 to U+9FFF; not U+3000, the ideographic space, which folds to a space) and Hangul
// syllables. A text of ASCII and such runes folds by lowering its ASCII letters alone.
func FoldsToItself(r rune) bool {
	return r >= 0x3001 && r <= 0x9FFF || r >= 0xAC00 && r <= 0xD7A3
}

// SelfFoldingLen is the length in bytes of the rune s starts with when that rune folds to itself
// (FoldsToItself), read from its three bytes without decoding it in full; 0 for any other start.
func SelfFoldingLen(s string) int {
	if len(s) < 3 || s[1]&0xC0 != 0x80 || s[2]&0xC0 != 0x80 {
		return 0
	}
	c := s[0]
	if c < 0xE3 || c > 0xED {
		return 0 // lead bytes E3 to ED start U+3000 to U+DFFF, with no overlong forms
	}
	r := rune(c&0x0F)<<12 | rune(s[1]&0x3F)<<6 | rune(s[2]&0x3F)
	if !FoldsToItself(r) {
		return 0
	}
	return 3
}

// lowerOnly is the fold of s when s holds only ASCII and runes that fold to themselves
// (FoldsToItself): s with its ASCII letters lowered, s itself when it has none in upper case.
// ok is false for any other text.
func lowerOnly(s string) (folded string, ok bool) {
	upper := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < utf8.RuneSelf {
			upper = upper || 'A' <= c && c <= 'Z'
			continue
		}
		size := SelfFoldingLen(s[i:])
		if size == 0 {
			return "", false
		}
		i += size - 1
	}
	if !upper {
		return s, true
	}
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for i := 0; i < len(s); i++ {
		if c := s[i]; 'A' <= c && c <= 'Z' {
			b.WriteString(s[last:i])
			b.WriteByte(c + 'a' - 'A')
			last = i + 1
		}
	}
	b.WriteString(s[last:])
	return b.String(), true
}

// isCherokee reports Cherokee letters, whose Unicode case folding goes to the capital form; the
// x/text caser lowers them instead, which would make folding flip back and forth.
func isCherokee(r rune) bool {
	return r >= 0x13A0 && r <= 0x13FD || r >= 0xAB70 && r <= 0xABBF
}

// hasCase is a cheap pre-check that skips the caser for scripts without case (CJK, kana, Hangul).
func hasCase(r rune) bool {
	switch {
	case r >= 0x3000 && r <= 0x9FFF, r >= 0xAC00 && r <= 0xD7AF, r >= 0xF900 && r <= 0xFAFF, r >= 0x20000:
		return false
	}
	return unicode.SimpleFold(r) != r || r >= 0xDF && (unicode.IsLetter(r) || unicode.Is(unicode.Mn, r))
}
