package board

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Examples returns up to two queries that find cards of the live project id ("" = every live
// project), so an empty search page can show what a search looks like with words from the user's
// own board: the word most frequent across the titles of the project's open cards (all its cards
// when none is open), then its most used tag as "#tag" (or the second word without tags). Words
// are Latin runs of 4 or more letters or digits, lowercased, and pairs of Han characters; ties
// go to the alphabetically first. Unknown or archived projects have none.
func (ix *Index) Examples(id string) []string {
	words := map[string]int{}
	tags := map[string]int{}
	count := func(open bool) {
		for pi := range ix.projects {
			p := &ix.projects[pi]
			if p.archived || (id != "" && p.id != id) {
				continue
			}
			for ci := p.cardLo; ci < p.cardHi; ci++ {
				c := &ix.cards[ci]
				if open && (c.archived || c.class != 0) {
					continue
				}
				for w := range titleWords(c.title) {
					words[w]++
				}
				for _, t := range c.tags {
					if t = strings.TrimSpace(t); t != "" && !strings.ContainsAny(t, " \t\"") {
						tags[t]++
					}
				}
			}
		}
	}
	count(true)
	if len(words) == 0 && len(tags) == 0 {
		count(false)
	}
	top := func(m map[string]int, skip string) string {
		best, n := "", 0
		for k, v := range m {
			if k != skip && (v > n || (v == n && k < best)) {
				best, n = k, v
			}
		}
		return best
	}
	var out []string
	word := top(words, "")
	if word != "" {
		out = append(out, word)
	}
	if tag := top(tags, ""); tag != "" {
		out = append(out, "#"+tag)
	} else if second := top(words, word); second != "" {
		out = append(out, second)
	}
	return out
}

// exampleStopWords are frequent English title words that find too much to teach anything.
var exampleStopWords = []string{"about", "after", "also", "from", "have", "into", "more", "only", "over", "some", "than", "that", "their", "them", "then", "there", "this", "when", "will", "with", "without"}

// titleWords yields each distinct example word of a title once.
func titleWords(title string) func(func(string) bool) {
	return func(yield func(string) bool) {
		seen := map[string]bool{}
		emit := func(w string) bool {
			if seen[w] {
				return true
			}
			seen[w] = true
			return yield(w)
		}
		var latin []rune
		flush := func() bool {
			w := strings.ToLower(string(latin))
			latin = latin[:0]
			if utf8.RuneCountInString(w) < 4 || utf8.RuneCountInString(w) > 24 {
				return true
			}
			if slices.Contains(exampleStopWords, w) {
				return true
			}
			return emit(w)
		}
		var prevHan rune
		for _, r := range title {
			switch {
			case unicode.Is(unicode.Han, r):
				if !flush() {
					return
				}
				if prevHan != 0 && !emit(string([]rune{prevHan, r})) {
					return
				}
				prevHan = r
				continue
			case r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)):
				latin = append(latin, r)
			case unicode.IsLetter(r) && !unicode.Is(unicode.Hiragana, r) && !unicode.Is(unicode.Katakana, r):
				latin = append(latin, r)
			default:
				if !flush() {
					return
				}
			}
			prevHan = 0
		}
		flush()
	}
}
