package pgstore

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// gramBuffer computes the short-term index's tokens of comments, reusing its memory from one
// comment to the next.
type gramBuffer struct {
	toks []string
	b    strings.Builder
}

// tokens are the short-term index's tokens of an index text written at atNS (the grams column),
// as cairn_grams (schema.go) computes them in SQL: every character of itext and every pair of
// neighbouring characters, those holding a space left out, each prefixed with the comment's
// time bucket in hex and a colon; distinct, in byte order, joined by spaces (no token holds
// one). A character is a code point, as string_to_array(itext, NULL) splits it.
func (g *gramBuffer) tokens(itext string, atNS int64) string {
	prefix := strconv.FormatUint(uint64(atNS>>gramBucketShift), 16) + ":"
	g.toks = g.toks[:0]
	for i, c := range itext {
		if c == ' ' {
			continue
		}
		n := i + utf8.RuneLen(c)
		if c == utf8.RuneError {
			_, n0 := utf8.DecodeRuneInString(itext[i:])
			n = i + n0
		}
		g.toks = append(g.toks, itext[i:n])
		if n < len(itext) {
			next, w := utf8.DecodeRuneInString(itext[n:])
			if next != ' ' {
				g.toks = append(g.toks, itext[i:n+w])
			}
		}
	}
	slices.Sort(g.toks)
	g.toks = slices.Compact(g.toks)
	g.b.Reset()
	g.b.Grow(len(g.toks) * (len(prefix) + 5))
	for k, t := range g.toks {
		if k > 0 {
			g.b.WriteByte(' ')
		}
		g.b.WriteString(prefix)
		g.b.WriteString(t)
	}
	return g.b.String()
}
