package textmatch

import (
	"bytes"
	"slices"
	"strings"
	"unicode/utf8"
)

// windowPlan matches a needle over raw, unfolded text when every character of the needle has
// preimages under Fold that are known exactly: ASCII (asciiPreimages), CJK ideographs, hiragana
// and Hangul syllables (nothing but themselves) and katakana (themselves and their half-width
// forms), all checked over every rune in the tests. The runes whose fold holds a character of
// the needle then fall in two sorts:
//
//   - the character itself and, for an ASCII letter, its upper case: they take as many bytes as
//     the character and differ from it only in bit 0x20 of an ASCII letter ("plain" forms);
//   - every other one (full-width and half-width forms, U+3000, K, ſ, ß, ligatures, İ, ...), the
//     "odd" forms.
//
// A line holds the needle exactly when it holds a raw window of len(q) bytes equal to the folded
// needle up to ASCII case (every rune of a match is then a plain form: found by a byte scan), or
// when it holds an odd form and its fold holds the needle (such lines are folded and searched, as
// the general path does). A match on a line without an odd form is made of plain forms only, so
// it is such a window; a window is a match, because its runes are the needle's own, up to ASCII
// case, and start on rune boundaries (the needle's first byte is ASCII or a lead byte, which no
// decoding of the text can skip over).
type windowPlan struct {
	q    []byte // the folded needle
	mask []byte // 0x20 where q holds an ASCII lower-case letter, else 0: c|mask[i] == q[i] is a plain match
	// k and k2 are the offsets of the rarest bytes by rank, looked for together (indexPair); when
	// the one at k is rare enough and not a letter, it is looked for alone (sparse).
	k, k2  int
	sparse bool
	odd    []oddGroup
	// The odd forms are looked for in one pass (indexLeads): the lead bytes of those led by a
	// rare byte, in up to three ranges (lo, span), and the one led by a byte that leads most CJK
	// text (U+3000, for a space), by its last two bytes. pairForm is that form or nil; byLead
	// says which groups the ranges stand for (-1: none).
	ranges   [6]byte
	pairForm []byte
	byLead   [256]int8
}

// oddGroup is the odd forms that share a lead byte (hence a length), looked for in one pass.
type oddGroup struct {
	lead  byte
	forms [][]byte
	set   [64]uint64 // two-byte and three-byte forms by their continuation bytes' low six bits
}

// newWindowPlan returns the plan for a folded needle, or nil when one of its characters has
// preimages this plan does not know (then the general path matches it).
func newWindowPlan(q []byte) *windowPlan {
	if len(q) == 0 || !utf8.Valid(q) || bytes.IndexByte(q, '\n') >= 0 {
		return nil
	}
	p := &windowPlan{q: q, mask: make([]byte, len(q))}
	var odd [][]byte
	for i, r := range string(q) {
		var pre []string
		switch {
		case r < utf8.RuneSelf:
			pre = asciiPreimages(byte(r))
			if pre == nil {
				return nil // an upper-case letter in a folded needle: cannot happen
			}
			if 'a' <= r && r <= 'z' {
				p.mask[i] = 0x20
			}
		case r >= 0x3400 && r <= 0x4DBF, r >= 0x4E00 && r <= 0x9FFF, r >= 0xAC00 && r <= 0xD7A3, r >= 0x3041 && r <= 0x3096:
			pre = []string{string(r)}
		case isKatakanaAnchor(r):
			for _, a := range anchorsFor(string(r)) {
				pre = append(pre, string(a))
			}
		default:
			return nil
		}
		for _, s := range pre {
			if s == string(r) || len(s) == 1 && s[0]|0x20 == byte(r) {
				continue // a plain form
			}
			if !slices.ContainsFunc(odd, func(o []byte) bool { return string(o) == s }) {
				odd = append(odd, []byte(s))
			}
		}
	}
	for _, o := range odd {
		if len(o) < 2 || len(o) > 3 {
			return nil // no such preimage today; the bitmap below takes two and three bytes
		}
		gi := slices.IndexFunc(p.odd, func(g oddGroup) bool { return g.lead == o[0] })
		if gi < 0 {
			p.odd = append(p.odd, oddGroup{lead: o[0]})
			gi = len(p.odd) - 1
		}
		g := &p.odd[gi]
		g.forms = append(g.forms, o)
		idx := oddIndex(o)
		g.set[idx>>6] |= 1 << (idx & 63)
	}
	p.planOdd()
	// The byte to look for: the rarest by rank, then a second one, of another value
	// when there is one.
	p.k = 0
	for i := range q {
		if byteCost(q, i) < byteCost(q, p.k) {
			p.k = i
		}
	}
	p.k2 = -1
	for i := range q {
		if i == p.k {
			continue
		}
		if p.k2 < 0 || (q[i] != q[p.k]) && (q[p.k2] == q[p.k] || byteCost(q, i) < byteCost(q, p.k2)) {
			p.k2 = i
		}
	}
	if p.k2 < 0 {
		p.k2 = p.k
	}
	p.sparse = p.mask[p.k] == 0 && q[p.k] < utf8.RuneSelf && byteCost(q, p.k) < sparseCost
	return p
}

// sparseCost is the rank (byteCost) under which a byte is looked for alone: the symbols of
// anchorRank, before the digits.
const sparseCost = 20

// oddIndex is the bit of a two-byte or three-byte form in its group's set.
func oddIndex(o []byte) int {
	if len(o) == 2 {
		return int(o[1] & 0x3F)
	}
	return int(o[1]&0x3F)<<6 | int(o[2]&0x3F)
}

// byteCost ranks byte i of the folded needle q by how often it is expected in text, lower being
// rarer: ASCII by anchorRank; of a multi-byte character, the last byte is the rarest, then a
// middle byte, then the lead byte, which leads most CJK text (E3 every kana, E4 to E9 every
// common ideograph); kana share their middle bytes too.
func byteCost(q []byte, i int) int {
	b := q[i]
	if b < utf8.RuneSelf {
		if r := strings.IndexByte(anchorRank, b); r >= 0 {
			return r
		}
		return 0
	}
	start := i
	for start > 0 && !utf8.RuneStart(q[start]) {
		start--
	}
	_, size := utf8.DecodeRune(q[start:])
	switch {
	case i == start && b == 0xE3:
		return 66
	case i == start && b >= 0xE4 && b <= 0xE9:
		return 56
	case i == start:
		return 35
	case i == start+size-1:
		return 38
	case q[start] == 0xE3:
		return 60
	}
	return 45
}

// matchingLines is MatchingLines for a needle with a plan.
func (p *windowPlan) matchingLines(n Needle, f *Folder, text []byte, dst []int) []int {
	base := len(dst)
	dst = p.windowLines(text, dst)
	if len(p.odd) == 0 {
		return dst
	}
	// Lines with an odd form that no window matched are folded and searched.
	var oddBuf [16]oddHit
	odd := p.oddLines(text, oddBuf[:0])
	if len(odd) == 0 {
		return dst
	}
	found := dst[base:]
	var extra [16]int
	more := extra[:0]
	for _, o := range odd {
		if _, ok := slices.BinarySearch(found, o.line); ok {
			continue
		}
		if n.index(f.Fold(lineAround(text, 0, o.start))) >= 0 {
			more = append(more, o.line)
		}
	}
	if len(more) == 0 {
		return dst
	}
	merged := mergeLines(found, more)
	return append(dst[:base], merged...)
}

// mergeLines merges two ascending lists of distinct line numbers that share none.
func mergeLines(a, b []int) []int {
	out := make([]int, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if a[i] < b[j] {
			out = append(out, a[i])
			i++
		} else {
			out = append(out, b[j])
			j++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}

// windowLines appends the numbers of the lines that hold a plain window. A byte that is rare by
// rank and has one raw form (not a letter) is looked for with IndexByte, which skips long
// stretches fastest; otherwise indexPair scans for the two bytes at k and k2 at once.
func (p *windowPlan) windowLines(text []byte, dst []int) []int {
	if len(text) < len(p.q) {
		return dst
	}
	if p.sparse {
		return p.scanLines(text, dst, p.nextSparse)
	}
	return p.scanLines(text, dst, p.nextDense)
}

// scanLines appends the numbers of the lines where next finds a window, going on at the next line
// after each.
func (p *windowPlan) scanLines(text []byte, dst []int, next func(text []byte, s int) int) []int {
	line, at := 1, 0 // the line that starts at at
	for s := 0; ; {
		w := next(text, s)
		if w < 0 {
			return dst
		}
		line += bytes.Count(text[at:w], []byte{'\n'})
		dst = append(dst, line)
		nl := bytes.IndexByte(text[w+len(p.q):], '\n') // a window holds no '\n'
		if nl < 0 {
			return dst
		}
		at = w + len(p.q) + nl + 1
		line++
		s = at
	}
}

// verify says whether the raw window at s equals the needle up to ASCII case.
func (p *windowPlan) verify(text []byte, s int) bool {
	w := text[s : s+len(p.q)]
	q, m := p.q, p.mask[:len(w)]
	for i, c := range w {
		if c|m[i] != q[i] {
			return false
		}
	}
	return true
}

// nextSparse is the first window at or after s, found by looking for the byte at k, or -1.
func (p *windowPlan) nextSparse(text []byte, s int) int {
	k, q := p.k, p.q
	b := q[k]
	last := len(text) - len(q) // the last offset a window can start at
	for from := s + k; from <= last+k; {
		i := bytes.IndexByte(text[from:last+k+1], b)
		if i < 0 {
			return -1
		}
		w := from + i - k
		if text[w+p.k2]|p.mask[p.k2] == q[p.k2] && p.verify(text, w) {
			return w
		}
		from += i + 1
	}
	return -1
}

// nextDense is the first window at or after s, found with indexPair: sixteen offsets at a time,
// the two bytes at k and k2 (up to ASCII case) select the offsets whose window is checked.
func (p *windowPlan) nextDense(text []byte, s int) int {
	last := len(text) - len(p.q) // the last offset a window can start at
	for s <= last {
		// every byte indexPair reads lies before len(text): s+(n-16)+k+15 <= last+len(q)-1
		n := last - s + 1
		i := indexPair(&text[s], n, p.k, p.k2, p.q[p.k], p.mask[p.k], p.q[p.k2], p.mask[p.k2])
		if i < 0 {
			s += n &^ 15
			break
		}
		if w := s + i; p.verify(text, w) {
			return w
		}
		s += i + 1
	}
	for ; s <= last; s++ {
		if p.verify(text, s) {
			return s
		}
	}
	return -1
}

// oddHit is an odd form's occurrence: its offset and the number of its line.
type oddHit struct {
	start, line int
}

// planOdd sets the ranges, pairForm and byLead from the odd groups.
func (p *windowPlan) planOdd() {
	for i := range p.byLead {
		p.byLead[i] = -1
	}
	var leads []byte
	for gi, g := range p.odd {
		if len(g.forms) == 1 && g.lead >= 0xE3 && g.lead <= 0xED && len(g.forms[0]) == 3 && p.pairForm == nil {
			p.pairForm = g.forms[0]
			continue
		}
		p.byLead[g.lead] = int8(gi)
		leads = append(leads, g.lead)
	}
	slices.Sort(leads)
	type span struct{ lo, hi byte }
	var rs []span
	for _, l := range leads {
		rs = append(rs, span{l, l})
	}
	for len(rs) > 3 { // merge the two closest neighbours
		best := 0
		for i := 1; i+1 < len(rs); i++ {
			if rs[i+1].lo-rs[i].hi < rs[best+1].lo-rs[best].hi {
				best = i
			}
		}
		rs[best].hi = rs[best+1].hi
		rs = append(rs[:best+1], rs[best+2:]...)
	}
	if len(rs) == 0 {
		rs = append(rs, span{0xFF, 0xFF}) // no lead: a byte valid UTF-8 never holds
	}
	for len(rs) < 3 {
		rs = append(rs, rs[0])
	}
	for j, r := range rs {
		p.ranges[2*j], p.ranges[2*j+1] = r.lo, r.hi-r.lo
	}
}

// oddAt says whether an odd form starts at text[i].
func (p *windowPlan) oddAt(text []byte, i int) bool {
	if f := p.pairForm; f != nil && len(text)-i >= len(f) && string(text[i:i+len(f)]) == string(f) {
		return true
	}
	gi := p.byLead[text[i]]
	if gi < 0 {
		return false
	}
	g := &p.odd[gi]
	size := len(g.forms[0])
	if len(text)-i < size || text[i+1]&0xC0 != 0x80 {
		return false
	}
	var idx int
	if size == 2 {
		idx = int(text[i+1] & 0x3F)
	} else {
		if text[i+2]&0xC0 != 0x80 {
			return false
		}
		idx = int(text[i+1]&0x3F)<<6 | int(text[i+2]&0x3F)
	}
	return g.set[idx>>6]&(1<<(idx&63)) != 0 && g.has(text[i:i+size])
}

// oddLines appends one occurrence of an odd form for each line that holds one, in line order:
// indexLeads stops at every byte in the lead ranges and at every place the pair form's last two
// bytes occur; oddAt tells the odd forms among them.
func (p *windowPlan) oddLines(text []byte, dst []oddHit) []oddHit {
	k, b1, b2 := 0, p.ranges[0], p.ranges[0] // no pair form: a pair that only a lead can start
	if f := p.pairForm; f != nil {
		k, b1, b2 = len(f)-2, f[len(f)-2], f[len(f)-1]
	}
	line, at := 1, 0
	add := func(o int) {
		line += bytes.Count(text[at:o], []byte{'\n'})
		at = o
		if len(dst) == 0 || dst[len(dst)-1].line != line {
			dst = append(dst, oddHit{start: o, line: line})
		}
	}
	s := 0
	for n := len(text) - k - 16; s < n; {
		i := indexLeads(&text[s], n-s, &p.ranges, k, b1, b2)
		if i < 0 {
			s += (n - s) &^ 15
			break
		}
		if p.oddAt(text, s+i) {
			add(s + i)
		}
		s += i + 1
	}
	for ; s < len(text); s++ {
		if p.oddAt(text, s) {
			add(s)
		}
	}
	return dst
}

// has says whether form is one of the group's (the set's bit only says the low bits agree).
func (g *oddGroup) has(form []byte) bool {
	for _, f := range g.forms {
		if string(f) == string(form) {
			return true
		}
	}
	return false
}
