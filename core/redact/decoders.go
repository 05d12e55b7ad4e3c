package redact

import (
	"strings"
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
		case keyMaterial(dec):
			add(open, i)
		case printableText(dec):
			spans, w := lookInside(string(dec), depth)
			work += w
			if len(spans) > 0 {
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
	if len(t) < minDecodeRun || len(t)%8 != 0 {
		return nil, false
	}
	body := strings.TrimRight(t, "=")
	if len(t)-len(body) > 6 {
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
// secret out so that no search finds it whole.
var spacedHints = []string{"p a s s", "s e c r e t", "t o k e n", "k e y", "p i n", "c o d e", "p w d"}

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
