package textmatch

import (
	"bytes"
	"encoding/binary"
	"strings"
	"unicode"
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

// Byte classes for the folding fast path. A lead byte is "safe" when every rune it starts folds to
// itself (most of Hebrew and Arabic, U+0800-U+0FFF, CJK, kana except U+3000, Hangul, private use,
// planes 1+ above U+3FFFF); copying such a lead with its continuation bytes is exact even when
// the sequence is invalid, because Fold keeps invalid bytes as they are. Checked against Fold rune
// by rune in the tests.
const (
	clSlow  = 'o' // decode and fold the rune
	clASCII = 'a'
	clCont  = 'c' // a stray continuation byte: kept as it is
	clSafe2 = '2'
	clSafe3 = '3'
	clE3    = 'j' // safe except U+3000 IDEOGRAPHIC SPACE, which width-folds to ' '
	clSafe4 = '4'
)

// byteClass maps a byte to its class; a string constant so it cannot be changed.
const byteClass = "" +
	"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" + // 00-3F
	"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" + // 40-7F
	"cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc" + // 80-BF
	"ooooooooooooooooooooooo222222222" + // C0-D6 slow, D7-DF safe
	"3ooj333333o3333o" + // E0 safe, E1 E2 slow, E3 special, E4-E9 safe, EA slow, EB-EE safe, EF slow
	"o4444ooooooooooo" // F0 slow, F1-F4 safe, F5-FF invalid

// fold appends the fold of src to dst; same reports that the fold is src itself, in which case
// nothing was appended.
func (f *Folder) fold(dst, src []byte) ([]byte, bool) {
	n := len(src)
	start, i := 0, 0 // src[start:i] folds to itself and is not yet appended
	wrote := false
	for i < n {
		c := src[i]
		switch byteClass[c] {
		case clASCII:
			// Eight ASCII bytes at a time: the bytes are loaded as one uint64 x and treated as
			// eight independent one-byte lanes (SIMD within a register), so one addition does
			// the work of eight comparisons. The steps, for each lane b:
			//
			//  1. x & 0x8080808080808080 tests the top bit of every lane: it is 0 for all eight
			//     exactly when all eight bytes are ASCII (< 0x80). If any is not, the loop stops
			//     and the bytes from there on go through the per-byte and per-rune paths below.
			//  2. With every b <= 0x7f, b+0x3f <= 0xbe and b+0x25 <= 0xa4: neither sum passes
			//     0xff, so no lane carries into its neighbour and one 64-bit addition computes
			//     the eight one-byte sums exactly. This is why step 1 must come first.
			//  3. b+0x3f has its top bit set exactly when b >= 0x41 ('A'); b+0x25 exactly when
			//     b >= 0x5b (one past 'Z'). "Set in the first, clear in the second" is therefore
			//     'A' <= b <= 'Z', and (x+0x3f..) &^ (x+0x25..), masked to the top bits, leaves
			//     0x80 in the upper-case lanes and 0 in all others. For example 'A' (0x41) gives
			//     0x80 and 0x66, so 0x80; 'a' (0x61) gives 0xa0 and 0x86, so 0; '@' (0x40) gives
			//     0x7f, so 0; '[' (0x5b) gives 0x9a and 0x80, so 0.
			//  4. Shifted right by two, 0x80 becomes 0x20, the bit that separates an ASCII upper
			//     case letter from its lower case. x | upper>>2 lower-cases the letters and leaves
			//     every other lane as it was, which is all folding does to ASCII.
			//
			// Text that is already lower case (upper == 0) is not copied at all. Byte order does
			// not matter: the lanes never interact, so loading little-endian and storing
			// little-endian puts each byte back where it was. Fewer than eight bytes left, or a
			// non-ASCII byte, falls to the loop after this one, which does the same byte by byte
			// (c-'A' < 26 is 'A' <= c <= 'Z' in one unsigned comparison). The tests check this
			// path against Fold for every ASCII byte in every lane.
			for i+8 <= n {
				x := binary.LittleEndian.Uint64(src[i:])
				if x&0x8080808080808080 != 0 {
					break
				}
				upper := ((x + 0x3f3f3f3f3f3f3f3f) &^ (x + 0x2525252525252525)) & 0x8080808080808080
				if upper != 0 {
					dst = append(dst, src[start:i]...)
					dst = binary.LittleEndian.AppendUint64(dst, x|upper>>2)
					wrote = true
					start = i + 8
				}
				i += 8
			}
			for ; i < n && src[i] < utf8.RuneSelf; i++ {
				if c := src[i]; c-'A' < 26 {
					dst = append(dst, src[start:i]...)
					dst = append(dst, c+'a'-'A')
					wrote = true
					start = i + 1
				}
			}
			continue
		case clCont:
			i++
			continue
		case clSafe2:
			if i+1 < n && src[i+1]&0xC0 == 0x80 {
				i += 2
				continue
			}
		case clSafe3, clE3:
			// A run of kana, CJK ideographs or Hangul: stay in this loop while it lasts.
			j := i
			for j+2 < n {
				c, c1, c2 := src[j], src[j+1], src[j+2]
				if c-0xE3 > 0xEE-0xE3 || c == 0xEA || c1&0xC0 != 0x80 || c2&0xC0 != 0x80 || c == 0xE3 && c1 == 0x80 && c2 == 0x80 {
					break
				}
				j += 3
			}
			if j > i {
				i = j
				continue
			}
			if c == 0xE0 && i+2 < n && src[i+1]&0xC0 == 0x80 && src[i+2]&0xC0 == 0x80 {
				i += 3
				continue
			}
		case clSafe4:
			if i+3 < n && src[i+1]&0xC0 == 0x80 && src[i+2]&0xC0 == 0x80 && src[i+3]&0xC0 == 0x80 {
				i += 4
				continue
			}
		}
		r, size := utf8.DecodeRune(src[i:])
		if r == utf8.RuneError && size == 1 {
			i++ // invalid UTF-8 is kept as it is
			continue
		}
		out := f.foldRune(r, src[i:i+size])
		if out != string(src[i:i+size]) {
			dst = append(dst, src[start:i]...)
			dst = append(dst, out...)
			wrote = true
			start = i + size
		}
		i += size
	}
	if !wrote {
		return dst, true
	}
	return append(dst, src[start:]...), false
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
	switch {
	case isCherokee(r):
		out = string(unicode.ToUpper(r))
	case hasCase(r):
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

// Fold returns the fold of src: src itself when folding changes nothing, else the Folder's
// buffer, valid until the next call.
func (f *Folder) Fold(src []byte) []byte {
	out, same := f.fold(f.buf[:0], src)
	if same {
		return src
	}
	f.buf = out
	return out
}

// Needle is a query folded once, ready to be matched against many folded texts.
type Needle struct {
	folded []byte
	rare   int // offset in folded of the byte least likely to occur, where a search starts looking
	// anchors are byte strings of which a text must contain at least one to hold a match: the
	// forms, before folding, of one rare character of the query. nil means no prefilter.
	anchors [][]byte
	// kpos lists where the anchor character sits in folded when it is ASCII and the whole needle
	// is ASCII: a one-byte anchor occurrence can then be checked in place (see verifyASCII).
	kpos []int
	// plan matches over the raw text when every character's preimages are known; nil otherwise.
	plan *windowPlan
}

// NewNeedle folds query for matching; the query is taken literally (not split into words).
func NewNeedle(query string) Needle {
	n := Needle{folded: []byte(Fold(query))}
	n.anchors = anchorsFor(string(n.folded))
	n.plan = newWindowPlan(n.folded)
	ascii := true
	for _, b := range n.folded {
		ascii = ascii && b < utf8.RuneSelf
	}
	if ascii && len(n.anchors) > 0 && len(n.anchors[0]) == 1 {
		for i, b := range n.folded {
			if b == n.anchors[0][0] {
				n.kpos = append(n.kpos, i)
			}
		}
	}
	best := 1 << 30
	for i, b := range n.folded {
		score := 200 // lead bytes of multi-byte characters repeat a lot in CJK text
		switch {
		case b < utf8.RuneSelf:
			score = 100 + strings.IndexByte(anchorRank, b)
		case b < 0xC0:
			score = 150
		}
		if score < best {
			n.rare, best = i, score
		}
	}
	return n
}

// index is the first offset of the needle in folded text, or -1: it looks for the needle's rarest
// byte with IndexByte and checks the whole needle around it, which beats bytes.Index when the
// needle starts with a common letter.
func (n Needle) index(hay []byte) int {
	q, k := n.folded, n.rare
	for pos := 0; pos+len(q) <= len(hay); {
		i := bytes.IndexByte(hay[pos+k:len(hay)-len(q)+k+1], q[k])
		if i < 0 {
			return -1
		}
		start := pos + i
		if string(hay[start:start+len(q)]) == string(q) {
			return start
		}
		pos = start + 1
	}
	return -1
}

// anchorRank orders ASCII bytes from rarest to most common in prose and code; bytes not listed
// (control characters) count as rarest.
const anchorRank = "~^|\\{}[]<>@$%&!?+=*;#\"'`0987654321zqxjkvbpygfwmucldrhsnioate_-/:(),. "

// anchorsFor picks the character of a folded query whose unfolded forms are cheapest to look for
// and returns those forms. Only characters whose every preimage under Fold is known qualify:
// ASCII (see asciiPreimages), CJK ideographs, hiragana and Hangul syllables, which nothing but
// themselves folds to, and katakana, which only its half-width form folds to besides itself (all
// checked exhaustively in the tests).
func anchorsFor(q string) [][]byte {
	best, bestScore := "", 1<<30
	for _, r := range q {
		score := -1
		switch {
		case r < utf8.RuneSelf:
			score = 100 + strings.IndexByte(anchorRank, byte(r))
		case r >= 0x3400 && r <= 0x4DBF, r >= 0x4E00 && r <= 0x9FFF, r >= 0xAC00 && r <= 0xD7A3:
			score = 0
		case r >= 0x3041 && r <= 0x3096:
			score = 150
		case isKatakanaAnchor(r):
			score = 160
			if r == 'ー' || r == 'ッ' || r == 'ン' {
				score = 170 // in nearly every katakana word
			}
		}
		if score >= 0 && score < bestScore {
			best, bestScore = string(r), score
		}
	}
	if best == "" {
		return nil
	}
	if r, _ := utf8.DecodeRuneInString(best); isKatakanaAnchor(r) {
		// the katakana itself and its half-width form, the one other rune that folds to it
		out := [][]byte{[]byte(best)}
		if h := width.LookupRune(r).Narrow(); h != 0 {
			out = append(out, []byte(string(h)))
		}
		return out
	}
	if len(best) > 1 {
		return [][]byte{[]byte(best)}
	}
	var out [][]byte
	for _, p := range asciiPreimages(best[0]) {
		out = append(out, []byte(p))
	}
	return out
}

// isKatakanaAnchor says whether r is a full-width katakana an anchor can be made of: the letters
// and the long vowel mark, whose only preimages under Fold are themselves and their half-width
// forms (checked exhaustively in the tests).
func isKatakanaAnchor(r rune) bool { return r >= 0x30A1 && r <= 0x30FA || r == 0x30FC }

// asciiPreimages lists every string of one rune whose fold contains the ASCII byte b: b itself,
// its upper case, the full-width forms, and the few Unicode characters that fold to it.
func asciiPreimages(b byte) []string {
	if 'A' <= b && b <= 'Z' {
		return nil // folded text has no upper case
	}
	out := []string{string(rune(b))}
	if 'a' <= b && b <= 'z' {
		out = append(out, string(rune(b-'a'+'A')))
	}
	if b >= 0x21 && b <= 0x7E {
		out = append(out, string(rune(0xFF01+int(b)-0x21)))
		if 'a' <= b && b <= 'z' {
			out = append(out, string(rune(0xFF01+int(b-'a'+'A')-0x21)))
		}
	}
	var special string
	switch b {
	case ' ':
		special = "\u3000"
	case 'a':
		special = "\u1E9A"
	case 'f':
		special = "\uFB00\uFB01\uFB02\uFB03\uFB04"
	case 'h':
		special = "\u1E96"
	case 'i':
		special = "\u0130\uFB01\uFB03"
	case 'j':
		special = "\u01F0"
	case 'k':
		special = "\u212A"
	case 'l':
		special = "\uFB02\uFB04"
	case 'n':
		special = "\u0149"
	case 's':
		special = "\u00DF\u017F\u1E9E\uFB05\uFB06"
	case 't':
		special = "\u1E97\uFB05\uFB06"
	case 'w':
		special = "\u1E98"
	case 'y':
		special = "\u1E99"
	}
	for _, r := range special {
		out = append(out, string(r))
	}
	return out
}

// MayMatch is a cheap, exact-or-conservative test: false means text cannot contain the needle,
// so it need not be folded at all.
func (n Needle) MayMatch(text []byte) bool {
	if n.anchors == nil {
		return true
	}
	for _, a := range n.anchors {
		if len(a) == 1 {
			if bytes.IndexByte(text, a[0]) >= 0 {
				return true
			}
		} else if indexForm(text, a) >= 0 {
			return true
		}
	}
	return false
}

// MatchingLines appends to dst the 1-based numbers of the lines of text that contain the needle
// (each line once, ascending), folding with f. Lines end at '\n'; folding never creates or removes
// a '\n' and works rune by rune, so a line folds on its own to what it is within the whole text.
// With anchors, only the lines that hold one of them are folded and matched.
func (n Needle) MatchingLines(f *Folder, text []byte, dst []int) []int {
	if len(n.folded) == 0 || bytes.IndexByte(n.folded, '\n') >= 0 {
		return dst
	}
	if n.plan != nil {
		return n.plan.matchingLines(n, f, text, dst)
	}
	if n.anchors == nil {
		return n.matchFolded(f.Fold(text), dst)
	}
	switch occurrences := n.countAnchors(text); {
	case occurrences == 0:
		return dst
	case n.anchorsDense(text, occurrences):
		// The anchor is everywhere: folding the whole text at once is cheaper.
		return n.matchFolded(f.Fold(text), dst)
	}
	var groupBuf [8]anchorGroup
	return n.matchAnchoredLines(f, text, n.groupAnchors(groupBuf[:0]), dst)
}

// countAnchors counts the occurrences in text of the one-byte anchors; the multi-byte ones are
// rare, so for them only presence matters (1 when one occurs and no one-byte anchor does).
func (n Needle) countAnchors(text []byte) int {
	occurrences := 0
	for _, a := range n.anchors {
		if len(a) == 1 {
			occurrences += bytes.Count(text, a)
		}
	}
	if occurrences > 0 {
		return occurrences
	}
	for _, a := range n.anchors {
		if len(a) > 1 && indexForm(text, a) >= 0 {
			return 1
		}
	}
	return 0
}

// anchorsDense says whether the anchor occurs so often that folding the whole text beats folding
// the lines it occurs on: on more than one line in four, or (when an occurrence can be checked in
// place) more than once in 32 bytes.
func (n Needle) anchorsDense(text []byte, occurrences int) bool {
	if n.kpos == nil {
		return occurrences*4 > bytes.Count(text, []byte{'\n'})
	}
	return occurrences*32 > len(text)
}

// anchorGroup is anchors looked for in one pass: a one-byte anchor alone, or the multi-byte ones
// (the full-width forms) that share a lead byte, so the text is passed over once per group
// instead of once per anchor.
type anchorGroup struct {
	one   bool     // a single one-byte anchor
	lead  byte     // the byte every member starts with
	forms [][]byte // the members (one-byte groups: just the byte)
	next  int      // next occurrence at or after the scan position; -1 when none is left
}

// groupAnchors appends the needle's anchors to dst as groups, in anchor order.
func (n Needle) groupAnchors(dst []anchorGroup) []anchorGroup {
	for _, a := range n.anchors {
		if len(a) == 1 {
			dst = append(dst, anchorGroup{one: true, lead: a[0], forms: [][]byte{a}})
			continue
		}
		joined := false
		for i := range dst {
			if !dst[i].one && dst[i].lead == a[0] {
				dst[i].forms = append(dst[i].forms, a)
				joined = true
				break
			}
		}
		if !joined {
			dst = append(dst, anchorGroup{lead: a[0], forms: [][]byte{a}})
		}
	}
	return dst
}

// find returns the offset of the group's first occurrence in text at or after from, or -1.
func (g *anchorGroup) find(text []byte, from int) int {
	for from < len(text) {
		i := bytes.IndexByte(text[from:], g.lead)
		if i < 0 {
			return -1
		}
		at := from + i
		if g.one {
			return at
		}
		if len(g.forms) == 1 {
			// one multi-byte form (a CJK anchor): its lead byte leads most of the text around it
			if k := indexForm(text[at:], g.forms[0]); k >= 0 {
				return at + k
			}
			return -1
		}
		for _, f := range g.forms {
			if bytes.HasPrefix(text[at:], f) {
				return at
			}
		}
		from = at + 1
	}
	return -1
}

// indexForm is bytes.Index(text, form) for a multi-byte anchor form. For a kana, an ideograph
// or a Hangul syllable (lead bytes E3 to ED) it looks for the form's last byte, which in CJK text
// is far rarer than the lead byte (E3 leads every kana, E4 to E9 every ideograph); other forms
// (full-width and half-width ones, EF) have the rare lead byte.
func indexForm(text, form []byte) int {
	if form[0] < 0xE3 || form[0] > 0xED {
		return bytes.Index(text, form)
	}
	k := len(form) - 1
	last := form[k]
	for pos := k; pos < len(text); {
		i := bytes.IndexByte(text[pos:], last)
		if i < 0 {
			return -1
		}
		at := pos + i - k
		if string(text[at:at+k]) == string(form[:k]) {
			return at
		}
		pos += i + 1
	}
	return -1
}

// nextAnchor returns the first anchor occurrence at or after from and the group it is of, or -1;
// each group remembers its next occurrence, so a group is searched again only once passed.
func nextAnchor(groups []anchorGroup, text []byte, from int) (p, which int) {
	p = -1
	for i := range groups {
		x := groups[i].next
		if x >= 0 && x < from {
			x = groups[i].find(text, from)
			groups[i].next = x
		}
		if x >= 0 && (p < 0 || x < p) {
			p, which = x, i
		}
	}
	return p, which
}

// matchAnchoredLines appends the numbers of the lines that hold the needle, looking only at the
// lines where an anchor occurs: each occurrence is checked in place when it can be, else its line
// is folded and searched, and the scan goes on at the next line.
func (n Needle) matchAnchoredLines(f *Folder, text []byte, groups []anchorGroup, dst []int) []int {
	for i := range groups {
		groups[i].next = groups[i].find(text, 0)
	}
	// line is the number of the line that starts at at; from is where the next anchor is looked
	// for (at <= from: occurrences that fail the check in place do not move at).
	line, at, from := 1, 0, 0
	for {
		p, which := nextAnchor(groups, text, from)
		if p < 0 {
			return dst
		}
		var found bool
		if g := &groups[which]; g.one && n.kpos != nil {
			// The occurrences of a one-byte anchor, up to the next one of another group, are
			// checked in place in one tight loop: when the anchor is a common letter, this loop
			// is most of a search that finds nothing.
			limit := len(text)
			for j := range groups {
				if j != which && groups[j].next >= 0 {
					limit = min(limit, groups[j].next)
				}
			}
			var v int
			if p, v = n.firstSettled(text, p, limit, g.lead); v == 0 {
				from = limit
				continue
			}
			found = v == 1 || n.lineHolds(f, text, at, p)
		} else {
			found = n.lineHolds(f, text, at, p)
		}
		line += bytes.Count(text[at:p], []byte{'\n'})
		if found {
			dst = append(dst, line)
		}
		nl := bytes.IndexByte(text[p:], '\n')
		if nl < 0 {
			return dst
		}
		at, from, line = p+nl+1, p+nl+1, line+1
	}
}

// firstSettled checks in place the occurrences of the one-byte anchor b in text from p (where
// one is) up to limit, and returns the first that verifyASCII settles with its answer (1 a
// match, -1 the line must be folded), or limit and 0 when none does.
func (n Needle) firstSettled(text []byte, p, limit int, b byte) (int, int) {
	for {
		if v := n.verifyASCII(text, p); v != 0 {
			return p, v
		}
		i := bytes.IndexByte(text[p+1:limit], b)
		if i < 0 {
			return limit, 0
		}
		p += 1 + i
	}
}

// lineHolds folds the line of text that holds offset p (the line starts at or after at) and
// says whether it holds the needle.
func (n Needle) lineHolds(f *Folder, text []byte, at, p int) bool {
	return n.index(f.Fold(lineAround(text, at, p))) >= 0
}

// lineAround is the line of text (without its '\n') that holds offset p, given that it starts at
// or after at.
func lineAround(text []byte, at, p int) []byte {
	start := at + bytes.LastIndexByte(text[at:p], '\n') + 1
	end := len(text)
	if nl := bytes.IndexByte(text[p:], '\n'); nl >= 0 {
		end = p + nl
	}
	return text[start:end]
}

// verifyASCII decides in place whether an ASCII needle matches with the one-byte anchor
// occurrence at p: 1 yes, 0 no, -1 cannot tell (a non-ASCII byte lies in a window, so a rune
// that folds to ASCII may shift the alignment: the caller folds the line). A match through p
// whose other characters come from ASCII bytes is exactly the bytes around p at the anchor's
// offset; any non-ASCII rune in it would put a non-ASCII byte inside that window, because every
// rune takes at least as many bytes as the ASCII characters it folds to.
func (n Needle) verifyASCII(text []byte, p int) int {
	q := n.folded
	for _, k := range n.kpos {
		s := p - k
		if s < 0 || s+len(q) > len(text) {
			continue
		}
		w := text[s : s+len(q)]
		for _, c := range w {
			if c >= utf8.RuneSelf {
				return -1
			}
		}
		match := true
		for i, c := range w {
			if c-'A' < 26 {
				c += 'a' - 'A'
			}
			if c != q[i] {
				match = false
				break
			}
		}
		if match {
			return 1
		}
	}
	return 0
}

// matchFolded finds the needle's lines in an already folded text.
func (n Needle) matchFolded(folded []byte, dst []int) []int {
	line, at := 1, 0 // line number of folded[at]
	for pos := 0; pos < len(folded); {
		i := n.index(folded[pos:])
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
	return FoldMap(line).Occurrences([]string{string(n.folded)})
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
