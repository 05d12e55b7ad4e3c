package board

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/textmatch"
)

// MaxQueryChars is the longest query accepted, in characters, after trimming.
const MaxQueryChars = 200

// Query is a parsed search query: free-text terms and #tag filters, both folded for matching.
type Query struct {
	// Terms are the words and "quoted phrases", folded, without duplicates, in query order.
	Terms []string
	// Tags are the #tag filters, folded, without the '#'.
	Tags []string
}

// Empty reports a query that asks for nothing, which returns an empty result.
func (q Query) Empty() bool { return len(q.Terms) == 0 && len(q.Tags) == 0 }

// isSpace is the query's white space: Unicode spaces (U+3000 included) and NUL, which never
// occurs in searchable text.
func isSpace(r rune) bool { return unicode.IsSpace(r) || r == 0 }

// tagPrefix spells a tag filter that needs no quoting in a shell: tag:backend is #backend.
const tagPrefix = "tag:"

// ParseQuery reads a query: trimmed, at most 200 characters, `#tag` (or `tag:tag`, which a
// shell leaves alone) filters, `"quoted phrases"` as one term, other words split on white space
// (U+3000 included). A lone `#` or `tag:` is a word; an unclosed quote runs to the end; empty
// quotes are ignored; a quoted "tag:x" is a phrase, not a filter.
func ParseQuery(s string) (Query, error) {
	s = strings.TrimFunc(strings.ToValidUTF8(s, "\uFFFD"), isSpace)
	if n := utf8.RuneCountInString(s); n > MaxQueryChars {
		return Query{}, errs.Invalidf("query is %d characters; at most %d are allowed", n, MaxQueryChars)
	}
	var q Query
	seenTerm, seenTag := map[string]bool{}, map[string]bool{}
	addTerm := func(t string) {
		t = strings.TrimFunc(t, isSpace)
		if t == "" {
			return
		}
		f := textmatch.Fold(strings.ReplaceAll(t, "\x00", " "))
		if !seenTerm[f] {
			seenTerm[f] = true
			q.Terms = append(q.Terms, f)
		}
	}
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case isSpace(r):
			i += size
		case r == '"':
			end := strings.IndexByte(s[i+1:], '"')
			if end < 0 {
				addTerm(s[i+1:])
				i = len(s)
			} else {
				addTerm(s[i+1 : i+1+end])
				i += end + 2
			}
		default:
			j := i
			for j < len(s) {
				r, size := utf8.DecodeRuneInString(s[j:])
				if isSpace(r) || r == '"' && j > i {
					break
				}
				j += size
			}
			word := s[i:j]
			i = j
			name, isTag := "", false
			switch {
			case len(word) > 1 && word[0] == '#':
				name, isTag = word[1:], true
			case len(word) > len(tagPrefix) && strings.HasPrefix(word, tagPrefix):
				name, isTag = word[len(tagPrefix):], true
			}
			if isTag {
				tag := textmatch.Fold(name)
				if !seenTag[tag] {
					seenTag[tag] = true
					q.Tags = append(q.Tags, tag)
				}
				continue
			}
			addTerm(word)
		}
	}
	return q, nil
}

// tagMatches is the board's tag rule: a card tag equal to the filter or starting with filter + "/",
// both folded (so #module and #module/ match module/storage, but not modules).
func tagMatches(filter string, folded []string) bool {
	for _, t := range folded {
		if t == filter || strings.HasPrefix(t, strings.TrimSuffix(filter, "/")+"/") {
			return true
		}
	}
	return false
}
