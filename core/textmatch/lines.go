package textmatch

import (
	"bytes"
	"encoding/binary"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/width"
)

// Folder folds whole texts into a reused buffer, byte-for-byte the same as Fold but fast enough
// to run over every file of a workspace on each search. It caches the fold of each non-trivial
// rune, so it is not safe for concurrent use: give each goroutine its own.
type Folder struct {
	buf   []byte
	cache map[rune]string
	caser cases.Caser
	ok    bool // caser initialised
}

// AppendFold appends the fold of src to dst (the same bytes as Fold(string(src))) and returns it.
func (f *Folder) AppendFold(dst, src []byte) []byte {
	n := len(src)
	for i := 0; i < n; {
		// Eight ASCII bytes at a time: lower-case them with one add-and-mask.
		if i+8 <= n {
			x := binary.LittleEndian.Uint64(src[i:])
			if x&0x8080808080808080 == 0 {
				upper := ((x + 0x3f3f3f3f3f3f3f3f) &^ (x + 0x2525252525252525)) & 0x8080808080808080
				dst = binary.LittleEndian.AppendUint64(dst, x|upper>>2)
				i += 8
				continue
			}
		}
		c := src[i]
		if c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			dst = append(dst, c)
			i++
			continue
		}
		// Runes that neither width nor case folding changes: most of Hebrew and Arabic, CJK,
		// kana (except U+3000), Hangul syllables. Checked against Fold rune by rune in the tests.
		if c >= 0xD7 && c <= 0xDF && i+1 < n && src[i+1]&0xC0 == 0x80 {
			dst = append(dst, c, src[i+1])
			i += 2
			continue
		}
		if i+2 < n && src[i+1]&0xC0 == 0x80 && src[i+2]&0xC0 == 0x80 &&
			((c >= 0xE4 && c <= 0xE9) || c == 0xEB || c == 0xEC || (c == 0xE3 && (src[i+1] != 0x80 || src[i+2] != 0x80))) {
			dst = append(dst, c, src[i+1], src[i+2])
			i += 3
			continue
		}
		r, size := utf8.DecodeRune(src[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, c)
			i++
			continue
		}
		dst = append(dst, f.foldRune(r, src[i:i+size])...)
		i += size
	}
	return dst
}

// foldRune folds one valid rune exactly as FoldMap does, remembering the answer.
func (f *Folder) foldRune(r rune, raw []byte) string {
	if out, ok := f.cache[r]; ok {
		return out
	}
	key, out := r, string(raw)
	if w := width.LookupRune(r).Folded(); w != 0 {
		r = w
		out = string(w)
	}
	if hasCase(r) {
		if !f.ok {
			f.caser = cases.Fold()
			f.ok = true
		}
		out = f.caser.String(out)
	}
	if f.cache == nil {
		f.cache = make(map[rune]string)
	}
	f.cache[key] = out
	return out
}

// Fold folds src into the Folder's buffer; the result is valid until the next call.
func (f *Folder) Fold(src []byte) []byte {
	f.buf = f.AppendFold(f.buf[:0], src)
	return f.buf
}

// Needle is a query folded once, ready to be matched against many folded texts.
type Needle struct {
	folded []byte
}

// NewNeedle folds query for matching; the query is taken literally (not split into words).
func NewNeedle(query string) Needle {
	return Needle{folded: []byte(Fold(query))}
}

// Len is the length of the folded query in bytes; zero matches nothing.
func (n Needle) Len() int { return len(n.folded) }

// MatchingLines appends to dst the 1-based numbers of the lines of text that contain the needle
// (each line once, ascending), folding text with f. Lines end at '\n'; folding never creates or
// removes a '\n', so line numbers in the folded text are those of the original.
func (n Needle) MatchingLines(f *Folder, text []byte, dst []int) []int {
	if len(n.folded) == 0 || bytes.IndexByte(n.folded, '\n') >= 0 {
		return dst
	}
	folded := f.Fold(text)
	line, at := 1, 0 // line number of folded[at]
	for pos := 0; pos < len(folded); {
		i := bytes.Index(folded[pos:], n.folded)
		if i < 0 {
			break
		}
		i += pos
		line += bytes.Count(folded[at:i], []byte{'\n'})
		at = i
		dst = append(dst, line)
		nl := bytes.IndexByte(folded[i:], '\n')
		if nl < 0 {
			break
		}
		line++
		at = i + nl + 1
		pos = at
	}
	return dst
}

// Spans returns the byte ranges of line (in the original, on rune boundaries) where the needle
// matches, for highlighting; ranges do not overlap and are in order.
func (n Needle) Spans(line string) [][2]int {
	if len(n.folded) == 0 {
		return nil
	}
	fm := FoldMap(line)
	q := string(n.folded)
	var out [][2]int
	for pos := 0; pos <= len(fm.Text); {
		i := strings.Index(fm.Text[pos:], q)
		if i < 0 {
			break
		}
		i += pos
		s, e := fm.Span(i, i+len(q))
		if len(out) > 0 && s < out[len(out)-1][1] {
			out[len(out)-1][1] = max(out[len(out)-1][1], e)
		} else {
			out = append(out, [2]int{s, e})
		}
		pos = i + len(q)
	}
	return out
}

// LineGroup is a run of matching lines whose context windows overlap or touch, as grep -C groups
// them: From..To is the excerpt (clipped to the text), Matches the matching lines in it.
type LineGroup struct {
	From, To int
	Matches  []int
}

// GroupLines groups ascending matching line numbers with context lines on each side, in a text of
// total lines; two matches join one group when their windows overlap or touch.
func GroupLines(matches []int, context, total int) []LineGroup {
	var groups []LineGroup
	for k, m := range matches {
		if k > 0 && m-matches[k-1] <= 2*context+1 {
			g := &groups[len(groups)-1]
			g.Matches = append(g.Matches, m)
			g.To = min(m+context, total)
			continue
		}
		groups = append(groups, LineGroup{From: max(m-context, 1), To: min(m+context, total), Matches: []int{m}})
	}
	return groups
}

// CountLines is the number of lines in text as grep counts them: a final line without '\n' counts,
// an empty text has none.
func CountLines(text []byte) int {
	n := bytes.Count(text, []byte{'\n'})
	if len(text) > 0 && text[len(text)-1] != '\n' {
		n++
	}
	return n
}

// Lines returns lines from..to (1-based, inclusive) of text without their line ends ("\n" or
// "\r\n"). Lines past the end are not returned.
func Lines(text []byte, from, to int) []string {
	var out []string
	line, pos := 1, 0
	for line < from && pos < len(text) {
		nl := bytes.IndexByte(text[pos:], '\n')
		if nl < 0 {
			return out
		}
		pos += nl + 1
		line++
	}
	for ; line <= to && pos < len(text); line++ {
		end := len(text)
		next := len(text)
		if nl := bytes.IndexByte(text[pos:], '\n'); nl >= 0 {
			end, next = pos+nl, pos+nl+1
		}
		s := text[pos:end]
		s = bytes.TrimSuffix(s, []byte{'\r'})
		out = append(out, string(s))
		pos = next
	}
	return out
}
