package redact

import (
	"bytes"
	"compress/gzip"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
)

// More of the structure layer's decoders: encodings people reach for to get a secret past a
// grep (Ascii85, base32, letters spaced out), decoded and looked at again like base64.

// ascii85Hints open an Adobe Ascii85 block (<~ … ~>, as Python's a85encode(adobe=True),
// PostScript and PDF write it).
var ascii85Hints = []string{"<~"}

// scanAscii85 decodes every <~ … ~> block and hides the whole block when the decoded bytes are
// key material or text the Redactor finds a secret in: a part left beside a hidden part would
// still be findable.
func scanAscii85(s string, add func(start, end int), depth int) int {
	work := len(s)
	for i := 0; ; {
		open := strings.Index(s[i:], "<~")
		if open < 0 {
			return work
		}
		open += i
		end := strings.Index(s[open+2:], "~>")
		if end < 0 {
			return work
		}
		end += open + 2
		i = end + 2
		body := s[open+2 : end]
		work += len(body)
		dec, ok := decodeAscii85(body)
		if !ok || len(dec) < minDecodeRun/2 {
			continue
		}
		switch {
		case keyMaterial(dec) || randomBytes(dec):
			add(open, i) // a key's or a token's bytes: nothing else in a <~ … ~> block is random
		case printableText(dec):
			hide, w := encodedSecret(dec, s, open, depth)
			work += w
			if hide {
				add(open, i)
			}
		}
	}
}

// decodeAscii85 decodes an Ascii85 body (blanks ignored, z for four zero bytes).
func decodeAscii85(body string) ([]byte, bool) {
	var out []byte
	var group [5]byte
	n := 0
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case c == ' ' || c == '\n' || c == '\r' || c == '\t':
			continue
		case c == 'z' && n == 0:
			out = append(out, 0, 0, 0, 0)
			continue
		case c < '!' || c > 'u':
			return nil, false
		}
		group[n] = c - '!'
		if n++; n == 5 {
			v := uint64(0)
			for _, d := range group {
				v = v*85 + uint64(d)
			}
			if v > 0xffffffff {
				return nil, false
			}
			out = append(out, byte(v>>24), byte(v>>16), byte(v>>8), byte(v))
			n = 0
		}
	}
	if n == 1 {
		return nil, false
	}
	if n > 0 { // a short last group: padded with u, then cut
		for k := n; k < 5; k++ {
			group[k] = 'u' - '!'
		}
		v := uint64(0)
		for _, d := range group {
			v = v*85 + uint64(d)
		}
		if v > 0xffffffff {
			return nil, false
		}
		out = append(out, []byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}[:n-1]...)
	}
	return out, true
}

// decodeBase32Text decodes t as RFC 4648 base32 (upper case, = padding) when it is a whole
// number of groups and decodes to printable text: a password or a token written as base32. A
// run of capitals and digits 2 to 7 that is not text (a TOTP seed) is the shape layer's.
func decodeBase32Text(t string) ([]byte, bool) {
	body := strings.TrimRight(t, "=")
	// padded to whole groups, or unpadded (as TOTP tools and base64.b32encode(...).rstrip("=")
	// write it): then its length leaves a whole number of bytes
	if len(t) < minDecodeRun || len(t)-len(body) > 6 {
		return nil, false
	}
	switch len(t) % 8 {
	case 0:
	case 2, 4, 5, 7:
		if len(body) != len(t) {
			return nil, false
		}
	default:
		return nil, false
	}
	out := make([]byte, 0, len(body)*5/8)
	var acc uint64
	bits := 0
	for i := 0; i < len(body); i++ {
		c := body[i]
		var v byte
		switch {
		case c >= 'A' && c <= 'Z':
			v = c - 'A'
		case c >= '2' && c <= '7':
			v = c - '2' + 26
		default:
			return nil, false
		}
		acc = acc<<5 | uint64(v)
		if bits += 5; bits >= 8 {
			bits -= 8
			out = append(out, byte(acc>>bits))
		}
	}
	if !printableText(out) {
		return nil, false
	}
	return out, true
}

// spacedHints are key words written with a blank between their letters, as people space a
// secret out so that no search finds it whole; and od's character dumps (od -c, od -a), which
// print a file one character a column, a secret file's too.
var spacedHints = []string{"p a s s", "s e c r e t", "t o k e n", "k e y", "p i n", "c o d e", "p w d", "od -c", "od -a", "od -an -c", "od -an -a", "od -bc", "od -tc"}

// maxSpacedLead is how many bytes before a spaced-out run are read with it.
const maxSpacedLead = 48

// minSpaced is the fewest spaced-out characters a run must hold to be read joined.
const minSpaced = 6

// scanSpaced joins every run of single characters between single blanks ("p a s s w o r d :
// h 7 K q …") and hides, mapped back to s, what the Redactor finds in the joined text.
func scanSpaced(s string, add func(start, end int), depth int) int {
	work := len(s)
	for i := 0; i < len(s); {
		if !spacedAt(s, i) {
			i++
			continue
		}
		var joined []byte
		var at []int
		j := i
		for j < len(s) {
			_, size := utf8.DecodeRuneInString(s[j:])
			for k := range size {
				joined = append(joined, s[j+k])
				at = append(at, j)
			}
			j += size
			if j+1 < len(s) && s[j] == ' ' && s[j+1] != ' ' {
				if _, next := utf8.DecodeRuneInString(s[j+1:]); j+1+next == len(s) || s[j+1+next] == ' ' {
					j++
					continue
				}
			}
			break
		}
		if utf8.RuneCount(joined) >= minSpaced {
			// the words before the run go first, unjoined, so a key word before a spaced-out
			// value ("password: h 7 K q …") still names it
			from := max(0, i-maxSpacedLead)
			for from < i && !utf8.RuneStart(s[from]) {
				from++
			}
			lead := len(s[from:i])
			text := s[from:i] + string(joined)
			spans, w := lookInside(text, depth)
			work += w
			at = append(at, j)
			if charDump(s[from:i]) && (decodedSecret(string(joined)) || dumpedLetters(string(joined))) {
				add(i, j) // a dumped file that is one token: a key file's content
			}
			for _, sp := range spans {
				if sp.end <= lead {
					continue // the lead's own secrets are the outer pass's
				}
				start := from + sp.start
				if sp.start >= lead {
					start = at[sp.start-lead]
				}
				add(start, at[sp.end-lead])
			}
		}
		i = j + 1
	}
	return work
}

// charDump reports whether lead, the words before a spaced-out run, open od's character dump
// (od -c FILE, od -An -c, and its offsets).
func charDump(lead string) bool {
	lower := strings.ToLower(lead)
	return strings.Contains(lower, "od -") && (strings.Contains(lower, "c") || strings.Contains(lower, "a"))
}

// dumpedLetters reports whether t, a dumped file's characters joined, is ten to 64 letters of
// both cases that change case as random letters do and read as few words: a token without
// digits (uFLMmgqZCxXyuL), not a name or a sentence (HelloWorld, ThisisaREADME).
func dumpedLetters(t string) bool {
	st := statsOf(t)
	if len(t) < 10 || len(t) > 64 || st.lower+st.upper != len(t) || st.lower < 3 || st.upper < 3 {
		return false
	}
	return wordiness(t) <= 0.5 && switchRate(t) >= 0.3 && !camelHumps(t)
}

// spacedAt reports whether a character that stands alone starts at i: at the text's start or
// after a blank, followed by a blank and another lone character.
func spacedAt(s string, i int) bool {
	if i > 0 && s[i-1] != ' ' || s[i] == ' ' {
		return false
	}
	_, size := utf8.DecodeRuneInString(s[i:])
	j := i + size
	if j+1 >= len(s) || s[j] != ' ' || s[j+1] == ' ' {
		return false
	}
	_, next := utf8.DecodeRuneInString(s[j+1:])
	k := j + 1 + next
	return k == len(s) || s[k] == ' '
}

func isUpperHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'A' && c <= 'F' }

// htmlEntities are the named character references that stand for a value's quotes and
// separators in HTML and XML.
var htmlEntities = map[string]rune{"quot": '"', "apos": '\'', "amp": '&', "lt": '<', "gt": '>', "colon": ':', "equals": '=', "sol": '/'}

// htmlEntity decodes the character reference at the start of s (&#103; &#x67; &quot;) and
// returns the character and the reference's length, or 0.
func htmlEntity(s string) (rune, int) {
	end := strings.IndexByte(s, ';')
	if end < 3 || end > 10 {
		return 0, 0
	}
	name := s[1:end]
	if name[0] != '#' {
		if r, ok := htmlEntities[name]; ok {
			return r, end + 1
		}
		return 0, 0
	}
	digits, base := name[1:], 10
	if len(digits) > 0 && digits[0]|0x20 == 'x' {
		digits, base = digits[1:], 16
	}
	if digits == "" {
		return 0, 0
	}
	v := 0
	for i := 0; i < len(digits); i++ {
		d := hexDigit(digits[i])
		if d < 0 || d >= base {
			return 0, 0
		}
		v = v*base + d
	}
	if v == 0 || v > utf8.MaxRune {
		return 0, 0
	}
	return rune(v), end + 1
}

// joinOperators join two string literals in the languages people paste: SQL and PL/SQL (||),
// C-like languages (+), PHP and Perl (.), Lua (..), VB and Excel (&).
var joinOperators = []string{"||", "..", "+", ".", "&"}

// joinedHead is where a secret that starts at start, just after the opening quote of a literal,
// really starts when literals are joined before it ("sk_live_4rmni" + "Y1vN…"): the start of
// the first of them (after its opening quote), or start.
func joinedHead(s string, start int) int {
	for range 8 {
		if start < 1 || s[start-1] != '\'' && s[start-1] != '"' && s[start-1] != '`' {
			return start
		}
		q := s[start-1]
		p := start - 1 // the opening quote
		for p > 0 && (s[p-1] == ' ' || s[p-1] == '\t') {
			p--
		}
		op := ""
		for _, o := range joinOperators {
			if p >= len(o) && s[p-len(o):p] == o {
				op = o
				break
			}
		}
		if op == "" {
			return start
		}
		p -= len(op)
		for p > 0 && (s[p-1] == ' ' || s[p-1] == '\t') {
			p--
		}
		if p < 2 || s[p-1] != q {
			return start
		}
		open := strings.LastIndexByte(s[:p-1], q)
		if open < 0 || p-1-open > 256 || strings.IndexByte(s[open:p], '\n') >= 0 {
			return start
		}
		start = open + 1
	}
	return start
}

// builderJoins are the calls that append a literal to a string being built: Java's and C#'s
// StringBuilder, Go's strings.Builder and bytes.Buffer, JavaScript's arrays and strings.
var builderJoins = []string{".append(", ".Append(", ".WriteString(", ".write(", ".push(", ".concat("}

// builderJoin reads, at p just after a literal's closing quote, the end of one append call and
// the start of the next on the same builder ("); sb.append("), or an appending assignment
// (; s += "), and returns where the next literal's quote should be, or -1.
func builderJoin(s string, p int) int {
	if p < len(s) && s[p] == ')' {
		p = skipBlanks(s, p+1)
	}
	if p >= len(s) || s[p] != ';' {
		return -1
	}
	p = skipBlanks(s, p+1)
	n := p
	for n < len(s) && n-p < 64 && (isWordByte(s[n]) || s[n] == '.' && n+1 < len(s) && isWordByte(s[n+1]) && !hasAnyPrefix(s[n:], builderJoins)) {
		n++
	}
	if n == p {
		return -1
	}
	for _, b := range builderJoins {
		if strings.HasPrefix(s[n:], b) {
			return skipBlanks(s, n+len(b))
		}
	}
	if a := skipBlanks(s, n); strings.HasPrefix(s[a:], "+=") || strings.HasPrefix(s[a:], ".=") {
		return skipBlanks(s, a+2)
	}
	return -1
}

// joinedTail is where a secret that ends at end, at the closing quote of a literal, really
// ends when the literal is joined to more literals: the end of the last of them (before its
// closing quote), or end.
func joinedTail(s string, end int) int {
	for range 8 {
		if end >= len(s) || s[end] != '\'' && s[end] != '"' && s[end] != '`' {
			return end
		}
		q := s[end]
		p := skipBlanks(s, end+1)
		op := ""
		for _, o := range joinOperators {
			if strings.HasPrefix(s[p:], o) {
				op = o
				break
			}
		}
		if op != "" {
			p = skipBlanks(s, p+len(op))
		} else if p = builderJoin(s, p); p < 0 {
			return end
		}
		if p >= len(s) || s[p] != q {
			return end
		}
		close := strings.IndexByte(s[p+1:], q)
		if close < 1 || close > 256 || strings.IndexByte(s[p+1:p+1+close], '\n') >= 0 {
			return end
		}
		end = p + 1 + close
	}
	return end
}

// charListHints are the commas between one-character literals ('T', 'o', 'f', …).
var charListHints = []string{"', '", "','", `", "`, `","`}

// scanCharLists joins every list of six or more one-character literals (a Java char[], a
// Python list of letters) and hides the list when the Redactor finds a secret in the words
// before it and the joined text.
func scanCharLists(s string, add func(start, end int), depth int) int {
	work := len(s)
	for i := 0; i+2 < len(s); i++ {
		q := s[i]
		if q != '\'' && q != '"' || i > 0 && s[i-1] != ' ' && s[i-1] != '{' && s[i-1] != '[' && s[i-1] != '(' && s[i-1] != ',' {
			continue
		}
		var joined []byte
		j := i
		last := i
		for j < len(s) && s[j] == q {
			_, size := utf8.DecodeRuneInString(s[j+1:])
			if size == 0 || j+1+size >= len(s) || s[j+1+size] != q {
				break
			}
			joined = append(joined, s[j+1:j+1+size]...)
			last = j + 2 + size
			k := skipBlanks(s, last)
			if k >= len(s) || s[k] != ',' {
				break
			}
			j = skipBlanks(s, k+1)
		}
		if utf8.RuneCount(joined) < minSpaced {
			continue
		}
		from := max(0, i-maxSpacedLead)
		for from < i && !utf8.RuneStart(s[from]) {
			from++
		}
		spans, w := lookInside(s[from:i]+string(joined), depth)
		work += w + (last - i)
		if decodedSecret(string(joined)) {
			add(i, last)
		}
		for _, sp := range spans {
			if sp.end > i-from {
				add(i, last)
				break
			}
		}
		i = last
	}
	return work
}

// spokenHints are words of the NATO alphabet rarely written for anything else, and the words
// of a password read out letter by letter.
var spokenHints = []string{"three", "seven", "eight", "nine", "alfa", "bravo", "charlie", "golf", "hotel", "india", "mike", "papa", "romeo", "victor", "foxtrot", "juliet", "kilo", "lima", "november", "oscar", "quebec", "sierra", "tango", "uniform", "whiskey", "x-ray", "xray", "yankee", "zulu", "capital", "uppercase", "upper case", "spelled", "spelt", "spell"}

// spokenWords are what a spoken character is written as: the NATO alphabet, digits, and the
// symbols' names.
var spokenWords = func() map[string]string {
	m := map[string]string{}
	for _, w := range strings.Fields("alfa alpha bravo charlie delta echo foxtrot golf hotel india juliett juliet kilo lima mike november oscar papa quebec romeo sierra tango uniform victor whiskey xray x-ray yankee zulu") {
		m[w] = w[:1]
	}
	for i, w := range strings.Fields("zero one two three four five six seven eight nine") {
		m[w] = string(rune('0' + i))
	}
	// the ICAO radiotelephony digits, said so that they are not misheard
	m["niner"], m["fower"], m["fife"] = "9", "4", "5"
	for w, c := range map[string]string{"dash": "-", "hyphen": "-", "minus": "-", "underscore": "_", "dot": ".", "period": ".", "at": "@", "hash": "#", "pound": "#", "bang": "!", "exclamation": "!", "dollar": "$", "star": "*", "asterisk": "*", "plus": "+", "slash": "/", "percent": "%", "ampersand": "&", "caret": "^", "equals": "=", "tilde": "~", "question": "?"} {
		m[w] = c
	}
	return m
}()

// scanSpoken reads runs of spoken characters (echo victor six three …, capital O r c h i d
// seven) and hides a run that is six or more NATO words and digits, or whose joined text the
// Redactor finds a secret in, read after the words before it.
func scanSpoken(s string, add func(start, end int), depth int) int {
	work := len(s)
	type tok struct{ start, end int }
	for i := 0; i < len(s); {
		if i > 0 && (isWordByte(s[i-1]) || s[i-1] == '\'') || !isLetter(s[i]) {
			i++
			continue
		}
		var joined strings.Builder
		start, end, n, nato, upper := i, i, 0, 0, false
		capitals, letters, others := 0, 0, 0 // capitals said, letters spelled, digits and symbols said
		j := i
		for j < len(s) {
			k := j
			for k < len(s) && isLetter(s[k]) {
				k++
			}
			if k+1 < len(s) && s[k] == '-' && isLetter(s[k+1]) {
				m := k + 1
				for m < len(s) && isLetter(s[m]) {
					m++
				}
				if _, ok := spokenWords[strings.ToLower(s[j:m])]; ok {
					k = m // x-ray; other dashes join spoken words (Kilo-Delta-Eight)
				}
			}
			if k == j && loneSymbol(s, j) {
				k = j + 1 // a symbol written as itself between spoken words (… niner ! delta …)
			}
			w := strings.ToLower(s[j:k])
			if k > j && k < len(s) && isWordByte(s[k]) {
				break
			}
			switch c, ok := spokenWords[w]; {
			case w == "capital" || w == "uppercase" || w == "upper":
				upper = true
				capitals++
			case w == "lowercase" || w == "small" || w == "mark" || w == "sign" || w == "case":
			case ok:
				if upper {
					c = strings.ToUpper(c)
				}
				joined.WriteString(c)
				upper = false
				n++
				if len(c) == 1 && isLetter(c[0]) {
					letters++
				} else {
					others++
				}
				if len(w) > 1 && (w[0] < '0' || w[0] > '9') && c != w {
					if _, digit := map[string]bool{"zero": true, "one": true, "two": true, "three": true, "four": true, "five": true, "six": true, "seven": true, "eight": true, "nine": true}[w]; !digit && len(c) == 1 && isLetter(c[0]) {
						nato++
					}
				}
			case len(w) == 1:
				if upper {
					w = strings.ToUpper(w)
				} else {
					w = s[j:k]
				}
				joined.WriteString(w)
				upper = false
				n++
				if isLetter(w[0]) {
					letters++
				} else {
					others++
				}
			default:
				goto done
			}
			end = k
			j = k
			if j+1 < len(s) && s[j] == '-' && isLetter(s[j+1]) {
				j++ // words joined by dashes
			}
			for j < len(s) && (s[j] == ' ' || s[j] == ',' || s[j] == '/') {
				j++
			}
			if j == k {
				break
			}
		}
	done:
		if n >= minSpaced {
			work += end - start
			if nato >= 4 || digitsOnly(joined.String()) || capitals > 0 && letters >= 3 && others > 0 {
				// a code read out (nine one eight five one one zero eight); letters spelled one by
				// one with a capital said and a digit or a symbol: nobody spells a word so but to
				// give a password (capital W a l r u s nine three hash)
				add(start, end)
			} else {
				from := max(0, start-maxSpacedLead)
				for from < start && !utf8.RuneStart(s[from]) {
					from++
				}
				spans, w := lookInside(s[from:start]+joined.String(), depth)
				work += w
				for _, sp := range spans {
					if sp.end > start-from {
						add(start, end)
						break
					}
				}
			}
		}
		i = max(end, i+1)
		for i < len(s) && isWordByte(s[i]) {
			i++
		}
	}
	return work
}

// loneSymbol reports whether a password's symbol stands alone at i, a blank or the text's end
// after it, as a spelled-out password writes one between its spoken words.
func loneSymbol(s string, i int) bool {
	return i < len(s) && i > 0 && s[i-1] == ' ' && strings.IndexByte("!#$%&*+-=?@^_~", s[i]) >= 0 && (i+1 == len(s) || s[i+1] == ' ')
}

// invisibleHints are the characters that show nothing: a zero-width space, joiners, a word
// joiner, a byte order mark and a soft hyphen put between a secret's letters.
var invisibleHints = []string{"\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad"}

func invisible(r rune) bool {
	return r == 0x200B || r == 0x200C || r == 0x200D || r == 0x2060 || r == 0xFEFF || r == 0xAD
}

// scanInvisible drops the invisible characters of s and hides, mapped back to s, what the
// Redactor finds in what is left.
func scanInvisible(s string, add func(start, end int), depth int) int {
	var b strings.Builder
	at := make([]int, 0, len(s)+1)
	dropped := false
	for i, r := range s {
		if invisible(r) {
			dropped = true
			continue
		}
		size := utf8.RuneLen(r)
		if r == utf8.RuneError {
			size = 1
		}
		for k := range size {
			b.WriteByte(s[i+k])
			at = append(at, i)
		}
	}
	if !dropped {
		return len(s)
	}
	at = append(at, len(s))
	spans, work := lookInside(b.String(), depth)
	for _, sp := range spans {
		add(at[sp.start], at[sp.end])
	}
	return 2*len(s) + work
}

// scanByteGroups decodes runs of six or more bytes written one a group between blanks, as bits,
// as hex pairs (hexdump of the pw: 4d 6f 73 …; 4D-6F-73, as .NET's BitConverter writes them) or
// as decimal numbers (112 97 115 …), and hides a run whose text the Redactor finds a secret in,
// read after the words before it. Decimal numbers are more often a table's than a text's, so
// they count only when that text, read with the words before it, holds a secret, or when a
// word naming a key stands before ten or more of them that read as a password or a token.
func scanByteGroups(s string, add func(start, end int), depth int) int {
	work := len(s)
	// group reads one byte at i in a run of kind (0 at its start): its value, its kind (8 bits,
	// 2 a hex pair, 3 a decimal number) and its length. Two digits are a hex pair unless the run
	// is of decimal numbers.
	group := func(i, kind int) (byte, int, int) {
		j := i
		for j < len(s) && (s[j] == '0' || s[j] == '1') && j-i < 8 {
			j++
		}
		if j-i == 8 && (j == len(s) || !isWordByte(s[j])) {
			v := byte(0)
			for k := i; k < j; k++ {
				v = v<<1 | (s[k] - '0')
			}
			return v, 8, 8
		}
		j, v := i, 0
		for j < len(s) && j-i < 4 && '0' <= s[j] && s[j] <= '9' {
			v = v*10 + int(s[j]-'0')
			j++
		}
		if (j-i == 3 || j-i == 2 && kind == 3) && v >= ' ' && v <= '~' && (j == len(s) || !isWordByte(s[j])) {
			return byte(v), 3, j - i
		}
		if i+2 <= len(s) && isHexString(s[i:i+2]) && (i+2 == len(s) || !isWordByte(s[i+2]) && (s[i+2] != ':' && s[i+2] != '-' || i+3 < len(s) && isHexString(s[i+3:min(i+5, len(s))]))) {
			return unhex(s[i])<<4 | unhex(s[i+1]), 2, 2
		}
		return 0, 0, 0
	}
	for i := 0; i < len(s); i++ {
		if i > 0 && isWordByte(s[i-1]) {
			continue
		}
		var dec []byte
		j, kind, end := i, 0, i
		if decimalAhead(s, i) {
			kind = 3 // 80 74 77 115 …: its two-digit numbers are decimal too, not hex pairs
		}
		sep := byte(0)
		for j < len(s) {
			v, k, n := group(j, kind)
			if k == 0 || kind != 0 && k != kind {
				break
			}
			kind = k
			dec = append(dec, v)
			j += n
			end = j
			if j+1 >= len(s) || s[j] != ' ' && !((s[j] == ':' || s[j] == '-') && kind == 2) || sep != 0 && s[j] != sep {
				break
			}
			sep = s[j]
			j++
		}
		if len(dec) < minSpaced || !printableText(append([]byte("            "), dec...)) {
			continue
		}
		from := max(0, i-maxSpacedLead)
		for from < i && !utf8.RuneStart(s[from]) {
			from++
		}
		spans, w := lookInside(s[from:i]+string(dec), depth)
		work += w + end - i
		named := keyWordWithin(s, i, maxKeyWordReach)
		if kind != 3 && (decodedSecret(string(dec)) || namedToken(dec) || named && encodedValue(dec)) ||
			kind == 3 && named && len(dec) >= 10 && (decodedSecret(string(dec)) || namedToken(dec)) {
			add(decodeCall(s, i, end))
		}
		for _, sp := range spans {
			if sp.end > i-from {
				add(decodeCall(s, i, end))
				break
			}
		}
		i = end
	}
	return work
}

// decimalAhead reports whether the numbers between single blanks from i, the first 16 of them,
// are decimal: numbers of one to three digits, one of them of three.
func decimalAhead(s string, i int) bool {
	for g := 0; g < 16 && i < len(s); g++ {
		j := i
		for j < len(s) && j-i < 4 && '0' <= s[j] && s[j] <= '9' {
			j++
		}
		switch {
		case j == i || j-i > 3 || j < len(s) && isWordByte(s[j]):
			return false
		case j-i == 3:
			return true
		case j+1 >= len(s) || s[j] != ' ':
			return false
		}
		i = j + 1
	}
	return false
}

// scanDigitGroups reports recovery keys written as six or more groups of five or six digits
// between single blanks or dashes, all of one length (Signal's backup passphrase, 30 digits in
// six groups of five; a BitLocker recovery key, eight groups of six).
func scanDigitGroups(s string, add func(start, end int)) int {
	digitsAt := func(i int) int {
		j := i
		for j < len(s) && '0' <= s[j] && s[j] <= '9' {
			j++
		}
		return j - i
	}
	for i := 0; i < len(s); i++ {
		if i > 0 && isWordByte(s[i-1]) {
			continue
		}
		width := digitsAt(i)
		if width != 5 && width != 6 {
			continue
		}
		j, n := i+width, 1
		var sep byte
		for j+1 < len(s) && (s[j] == ' ' || s[j] == '-') && (sep == 0 || s[j] == sep) && digitsAt(j+1) == width {
			sep = s[j]
			j += 1 + width
			n++
		}
		if n >= 6 && (j == len(s) || !isWordByte(s[j])) {
			add(i, j)
		}
		i = j
	}
	return len(s)
}

// seedWords name a wallet's recovery phrase, in the languages whose BIP39 lists are not Latin.
var seedWords = []string{"助记词", "助記詞", "恢复短语", "恢復短語", "恢复词", "种子短语", "復元フレーズ", "シードフレーズ", "シード", "ニーモニック", "니모닉", "복구 구문", "시드 구문", "mnemonic", "seed phrase", "seed(zh)", "seed(ja)", "recovery phrase", "seed"}

// scanForeignSeedPhrases reports twelve or more short words of one script other than Latin
// between blanks (ideographic spaces too) after a word for a recovery phrase: a BIP39 phrase
// of the Chinese, Japanese or Korean lists, which the English list does not know.
func scanForeignSeedPhrases(s string, add func(start, end int)) int {
	work := len(s)
	lower := strings.ToLower(s)
	for _, w := range seedWords {
		for from := 0; ; {
			k := strings.Index(lower[from:], w)
			if k < 0 {
				break
			}
			p := from + k + len(w)
			from = p
			// the separator and a few words before the phrase (是, は, _ja:, (zh):)
			for q := 0; q < 24 && p < len(s); q++ {
				r, size := utf8.DecodeRuneInString(s[p:])
				if r >= utf8.RuneSelf && !isCJK(r) || r == ' ' || r == 0x3000 || strings.ContainsRune(":：=是は、,_()jazhko-", r) {
					p += size
					continue
				}
				break
			}
			start, end, words := -1, p, 0
			for i := p; i < len(s) && words < 24; {
				j, letters := i, 0
				for j < len(s) {
					r, size := utf8.DecodeRuneInString(s[j:])
					if r < utf8.RuneSelf || r == 0x3000 || !unicode.IsLetter(r) {
						break
					}
					j += size
					letters++
				}
				if letters == 0 || letters > 8 {
					break
				}
				if start < 0 {
					start = i
				}
				words++
				end = j
				i = j
				for i < len(s) && (s[i] == ' ' || strings.HasPrefix(s[i:], "\u3000")) {
					if s[i] == ' ' {
						i++
					} else {
						i += len("\u3000")
					}
				}
				if i == j {
					break
				}
			}
			work += end - p
			if words >= 12 {
				add(start, end)
			}
		}
	}
	return work
}

// uuHints open a uuencoded file: begin, its mode, its name.
var uuHints = []string{"begin 6", "begin 7", "begin 4", "begin 5"}

// scanUuencoded decodes every uuencoded body (begin MODE NAME … end), its lines as written or
// joined by blanks, and hides the body when the Redactor finds a secret in the decoded text.
func scanUuencoded(s string, add func(start, end int), depth int) int {
	work := len(s)
	for from := 0; ; {
		k := strings.Index(s[from:], "begin ")
		if k < 0 {
			return work
		}
		p := from + k + len("begin ")
		from = p
		if p+4 > len(s) || !isOctal(s[p]) || !isOctal(s[p+1]) || !isOctal(s[p+2]) || s[p+3] != ' ' {
			continue
		}
		name := strings.IndexAny(s[p+4:], " \n")
		if name < 0 {
			continue
		}
		body := p + 4 + name + 1
		end := strings.Index(s[body:], "end")
		if end < 0 {
			end = len(s) - body
		}
		text := s[body : body+end]
		var dec []byte
		for _, line := range strings.FieldsFunc(text, func(r rune) bool { return r == '\n' || r == '\r' || r == ' ' }) {
			n := int(line[0]-' ') & 63
			var acc uint32
			bits := 0
			var out []byte
			for i := 1; i < len(line) && len(out) < n; i++ {
				acc = acc<<6 | uint32(line[i]-' ')&63
				if bits += 6; bits >= 8 {
					bits -= 8
					out = append(out, byte(acc>>bits))
				}
			}
			dec = append(dec, out...)
		}
		work += len(text)
		if !printableText(dec) {
			continue
		}
		spans, w := lookInside(string(dec), depth)
		work += w
		if len(spans) > 0 {
			add(body, body+len(strings.TrimRight(text, " \n`")))
		}
		from = body + end
	}
}

func isOctal(c byte) bool { return '0' <= c && c <= '7' }

// widenToToken extends a secret's range [start, end) over the parts of its token glued to it
// that would still give something away: a run of letters, digits and : % . - _ + of 8 bytes or
// more with a digit in it (the id before a key's secret, 319b…2691:[REDACTED]; the user and
// expiry of a cookie, editor%7C1716000000%[REDACTED]), or such a run with a dash before a slash
// (a key's prefix, configcat-sdk-1/[REDACTED]). Words and names glued to it stay.
func widenToToken(s string, start, end int) (int, int) {
	glued := func(c byte) bool { return isWordByte(c) || strings.IndexByte(":%.-_+", c) >= 0 }
	giveaway := func(part string) bool {
		return len(part) >= 8 && strings.ContainsAny(part, "0123456789") && !allLetters(strings.Trim(part, ":%.-_+"))
	}
	a := start
	for a > 0 && glued(s[a-1]) {
		a--
	}
	if a < start && giveaway(s[a:start]) {
		start = a
	} else if a+8 <= start && s[start-1] == ':' && labelHead(s, a, start) {
		start = a // a key file's label glued to its key (privkey:…, token-fnpfy:…): eight bytes of it are a fragment
	} else if a == start && a > 1 && s[a-1] == '/' {
		// a key's prefix before a slash (vendor-sdk-1/…), as a key of several slashed parts
		// starts; a path's directory comes after another slash or a host's dot
		for a--; a > 0 && glued(s[a-1]); a-- {
		}
		if p := s[a : start-1]; giveaway(p) && strings.Contains(p, "-") && !strings.Contains(p, ".") && (a == 0 || s[a-1] != '/' && s[a-1] != '.') {
			start = a
		}
	}
	b := end
	for b < len(s) && glued(s[b]) {
		b++
	}
	if b > end && giveaway(s[end:b]) {
		end = b
	}
	return start, end
}

// labelHead reports whether s[a:start] is one label glued to the secret at start, a key file's
// or a key pair's first part: letters, digits and dashes then the colon, after a blank, a quote
// or an equals sign (not a URL's user, not a path's or a host's part).
func labelHead(s string, a, start int) bool {
	if a > 0 && strings.IndexByte(" \t\n\"'`=(", s[a-1]) < 0 {
		return false
	}
	for i := a; i < start-1; i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	// a field's name stays (password:X, db_secret:X, api-key:X): it says what was hidden
	label := strings.ToLower(s[a : start-1])
	for _, w := range []string{"password", "passwd", "pass", "pwd", "secret", "token", "_key", "-key", "apikey", "credentials", "creds"} {
		if strings.HasSuffix(label, w) {
			return false
		}
	}
	return true
}

// decodedSecret reports whether decoded text, one piece without blanks, reads as a password on
// its own: what a key word would have named had it been written out (base64 of
// wombat-nautilus-paprika-819, Ascii85 of EN.!vkC%gT+aqLo). Prose and code decode to blanks.
func decodedSecret(t string) bool {
	t = strings.TrimSpace(t)
	if len(t) < 8 || len(t) > 128 || strings.ContainsAny(t, " \t\n") {
		return false
	}
	if len(t) < 10 {
		return false
	}
	return passwordPiece(t, true) || dicewarePiece(t) || wordsPassphrase(t) || wordsAndNumber(t) ||
		strongValue(t) && strings.IndexFunc(t, func(r rune) bool { return r < utf8.RuneSelf && pwSymbol[r] }) >= 0 ||
		decodedCredential(t) || decodedToken(t)
}

// decodedCredential reports whether decoded text t is a name, a colon and a value with a digit
// or a symbol: what HTTP Basic and every tool that takes user:password encode (base64, hex or
// base32 of admin:uetliz5fwe5o63lv). Nobody encodes a name and a word that way for show.
func decodedCredential(t string) bool {
	k := strings.IndexByte(t, ':')
	if k < 1 || k > 64 {
		return false
	}
	name, v := t[:k], t[k+1:]
	if len(v) < 6 || strings.ContainsAny(v, ":/") || allDigits(name) {
		return false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !isWordByte(c) && strings.IndexByte(".@+-", c) < 0 {
			return false
		}
	}
	st := statsOf(v)
	return st.lower+st.upper > 0 && (st.digit > 0 || st.sym > 0)
}

// decodedToken reports whether decoded text t is one random-looking token of ten characters or
// more: letters and digits, its letters not in words, its classes changing often. Text encoded
// on purpose that decodes to that (fYLTT3FYk1mj6K, xmfffbsn754qps82) is a key or a password;
// a name or a word decodes to letters in words, a number to digits, a digest to hex.
func decodedToken(t string) bool {
	if len(t) < 10 || len(t) > 128 {
		return false
	}
	st := statsOf(t)
	if st.digit == 0 || st.lower+st.upper < 4 || st.digit*2 > len(t) || st.sym > 2 || (st.lowerHex || st.upperHex) && len(t) < shapeMinHex {
		return false
	}
	for i := 0; i < len(t); i++ {
		if c := t[i]; c < '!' || c > '~' {
			return false
		}
	}
	return wordiness(t) <= 0.5 && switchRate(t) >= shapeMinSwitch*expectedSwitchRate(st) && entropyRatio(t, st) >= shapeMinEntropy
}

// gunzipText inflates a gzip stream of at most 64 KiB of text.
func gunzipText(b []byte) (string, bool) {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return "", false
	}
	out, err := io.ReadAll(io.LimitReader(zr, 64<<10))
	if err != nil && len(out) == 0 || !printableText(out) {
		return "", false
	}
	return string(out), true
}

// rotHints name the letter rotations people hide a secret with.
var rotHints = []string{"rot13", "rot-13", "rot 13", "rot47", "rot-47", "rot 47"}

// scanRotated reads the words after a rotation's name (rot13 for letters, rot47 for every
// printable ASCII character) turned back, and hides what the Redactor finds there or a token
// that reads as a password once turned back ("rot47: {:496?heR}2FE:=FDe`"). Each character stays
// where it was, so the spans map one to one; only a window after the name is turned, as the rest
// of a text that names a rotation is ordinary prose.
func scanRotated(s string, add func(start, end int), depth int) int {
	lower := strings.ToLower(s)
	work := len(s)
	for _, rot := range []struct {
		names []string
		fn    func(byte) byte
	}{
		{[]string{"rot13", "rot-13", "rot 13"}, rot13},
		{[]string{"rot47", "rot-47", "rot 47"}, rot47},
	} {
		for _, n := range rot.names {
			for from := 0; ; {
				k := strings.Index(lower[from:], n)
				if k < 0 {
					break
				}
				after := from + k + len(n)
				from = after
				window := min(len(s), after+maxRotWindow)
				for window < len(s) && !utf8.RuneStart(s[window]) {
					window++
				}
				b := []byte(s[after:window])
				for i, c := range b {
					if c < utf8.RuneSelf {
						b[i] = rot.fn(c)
					}
				}
				turned := string(b)
				spans, w := lookInside(turned, depth)
				work += w + len(b)
				for _, sp := range spans {
					add(after+sp.start, after+sp.end)
				}
				eachField(turned, func(i, j int) {
					if plainWords(strings.Trim(s[after+i:after+j], ".,;:!?'\"`()")) {
						return // "ROT47, HTML entities, double percent-encoding": prose, not rotated
					}
					if decodedSecret(strings.Trim(turned[i:j], ".,;:!?'\"`()")) {
						add(after+i, after+j)
					}
				})
			}
		}
	}
	return work
}

// plainWords reports whether w, as written, is words of prose joined by dashes (percent-encoding,
// well-known): a rotated secret reads as no word before it is turned back.
func plainWords(w string) bool {
	if w == "" {
		return false
	}
	for _, part := range strings.Split(w, "-") {
		if len(part) < 2 || !allLetters(part) || !proseWord(part) {
			return false
		}
	}
	return true
}

// maxRotWindow is how many bytes after a rotation's name are turned back.
const maxRotWindow = 96

func rot13(c byte) byte {
	switch {
	case 'a' <= c && c <= 'z':
		return 'a' + (c-'a'+13)%26
	case 'A' <= c && c <= 'Z':
		return 'A' + (c-'A'+13)%26
	}
	return c
}

func rot47(c byte) byte {
	if '!' <= c && c <= '~' {
		return '!' + (c-'!'+47)%94
	}
	return c
}

func digitsOnly(s string) bool { return s != "" && strings.Trim(s, "0123456789") == "" }

// base32End is where a base32 run that ends at j ends with its padding (up to six =).
func base32End(s string, j int) int {
	e := j
	for e < len(s) && e-j < 6 && s[e] == '=' {
		e++
	}
	return e
}

// escapeCount is how many URL escapes (%XX) v holds.
func escapeCount(v string) int {
	n := 0
	for i := 0; i+2 < len(v); i++ {
		if v[i] == '%' && isHexString(v[i+1:i+3]) {
			n++
		}
	}
	return n
}
