package spaces

import "strings"

// The markers of a private region: text a person or an agent marks as never to be kept. A region
// runs from an opening marker to the next closing one; an opening marker never closed hides the
// rest of the text. The markers are matched in any ASCII case.
const (
	privateOpen  = "<private>"
	privateClose = "</private>"
)

// DropPrivate removes every <private>…</private> region, markers included, from s (SPEC §5.3):
// it runs before anything of a comment or a title is stored, indexed or pushed, so nothing of
// such a region reaches spaces.db, the search index or a team server. A stray closing marker is
// removed too. Text without a marker is returned as it is, without allocating.
func DropPrivate(s string) string {
	if indexFold(s, "<private>", 0) < 0 && indexFold(s, privateClose, 0) < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	i := 0
	for i < len(s) {
		open := indexFold(s, privateOpen, i)
		closeAt := indexFold(s, privateClose, i)
		if closeAt >= 0 && (open < 0 || closeAt < open) {
			// a closing marker with no opening one: its region started before what we were given
			b.WriteString(s[i:closeAt])
			i = closeAt + len(privateClose)
			continue
		}
		if open < 0 {
			b.WriteString(s[i:])
			break
		}
		b.WriteString(s[i:open])
		end := indexFold(s, privateClose, open+len(privateOpen))
		if end < 0 {
			break // never closed: the rest is private
		}
		i = end + len(privateClose)
	}
	return b.String()
}

// PrivateRegions counts the <private> regions of s, for reports.
func PrivateRegions(s string) int {
	n := 0
	for i := indexFold(s, privateOpen, 0); i >= 0; i = indexFold(s, privateOpen, i+len(privateOpen)) {
		n++
	}
	return n
}

// indexFold is the first index at or after from of marker (lower-case ASCII) in s, in any ASCII
// case, or -1. Linear in len(s): each '<' is tested once against a marker of fixed length.
func indexFold(s, marker string, from int) int {
	for i := from; i < len(s); {
		j := strings.IndexByte(s[i:], '<')
		if j < 0 {
			return -1
		}
		i += j
		if len(s)-i >= len(marker) && strings.EqualFold(s[i:i+len(marker)], marker) {
			return i
		}
		i++
	}
	return -1
}
