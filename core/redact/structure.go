package redact

import (
	_ "embed"
	"encoding/base64"
	"encoding/hex"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/core/textmatch"
)

// The structure layer: decode and look again, and tokens of several parts.
//
//   - decode_escapes: text with URL escapes (%3D) or backslash escapes (\" \\ \/ \' \uXXXX
//     \xXX, as JSON and PHP write them) is decoded and the decoded text redacted again by the
//     whole Redactor; what it hides there is hidden in the text, mapped back byte for byte.
//   - decode_base64: a base64 run of minDecodeRun characters or more is decoded; it is hidden
//     whole when the bytes are key material (keyMaterial: PKCS#8, PKCS#1, SEC1, OpenSSH,
//     OpenPGP secret keys), a macaroon, or text in which the Redactor finds a secret. Key
//     material extends over the lines of the same width that follow (a key body without its
//     frame, one line per line or as the space import collapses it, one line per word).
//   - decode_byte_list, decode_escape_runs, decode_data_url, decode_byte_groups: a secret written
//     as a byte array in code, a run of character references or escapes, a data: URL, hex pairs
//     between separators is hidden whole (the constructor, the quoting, the media type too) when
//     its decoded text is a secret (encodedSecret).
//   - pem_any_dashes: a private key block whose dashes became em dashes, en dashes or others.
//   - dotted_token: a token of 2 to 5 dotted parts whose first part decodes to JSON (a JWT,
//     unsigned or with a pretty-printed header; a JWE).
//   - paseto, fernet: PASETO (v1-v4, local and public) and PASERK keys; Fernet tokens.
//   - seed_phrase: 12 or more consecutive words of the BIP39 English word list.
//
// Decoding nests at most maxDecodeDepth deep: the Redactor that looks into decoded text decodes
// again only while depth allows, so a text costs a bounded number of passes over its bytes
// (decoded text is never longer than its source).
const (
	maxDecodeDepth = 2
	minDecodeRun   = 16
	// minSeedWords: the shortest BIP39 phrase is 12 words.
	minSeedWords = 12
)

// bip39English is the BIP39 English word list (2048 words), from
// https://github.com/bitcoin/bips/blob/master/bip-0039/english.txt (MIT licence, BIP 39), sha256
// 2f5eed53a4727b4bf8880d8f3f199efc90e58503646d9ff8eff3a2ed3b24dbda.
//
//go:embed data/bip39-english.txt
var bip39English string

// bip39Words is the word list as a set; englishPairs the letter pairs its words hold, which the
// shape layer uses to tell words from random letters.
var bip39Words = sync.OnceValue(func() map[string]struct{} {
	m := make(map[string]struct{}, 2048)
	for _, w := range strings.Fields(bip39English) {
		m[w] = struct{}{}
	}
	return m
})

var englishPairs = sync.OnceValue(func() *[26][26]bool {
	var p [26][26]bool
	for _, w := range strings.Fields(bip39English) {
		for i := 1; i < len(w); i++ {
			p[w[i-1]-'a'][w[i]-'a'] = true
		}
	}
	return &p
})

// structureRules are the layer's rules; depth is how deep decoded text the decoders run on.
func structureRules(depth int) []Rule {
	rx := func(name, pattern string, hints ...string) Rule {
		return Rule{Name: name, Pattern: regexp.MustCompile(`(?i)` + pattern), Hints: hints}
	}
	rules := decoderRules(depth)
	return append(rules,
		// a private key block with dashes of any kind (— – ‒ ―, or - alone) around BEGIN and END,
		// its headers and body, to its end marker or the end of the body
		// the body ends at the end marker, a blank line or the text's end, never later: the
		// words after a block stay
		rx("pem_any_dashes", `[\p{Pd}―~_=*]{1,10}[ \t]*begin[a-z0-9 ]*private key(?: block)?[ \t]*[\p{Pd}―~_=*]{1,10}[a-z0-9+/=\s:,.-]*?(?:[\p{Pd}―~_=*]{1,10}[ \t]*end[a-z0-9 ]*private key(?: block)?[ \t]*[\p{Pd}―~_=*]{0,10}|\n[ \t]*\n|\z|[^a-z0-9+/=\s:,.\p{Pd}―~_*])`, "private key"),
		Rule{Name: "dotted_token", scan: scanDottedTokens, needs: needsBase64Run},
		rx("paseto", `\bv[1-4]\.(?:local|public)\.[0-9a-z_-]{20,}(?:\.[0-9a-z_-]+)?|\bk[1-4]\.(?:local|secret|public|local-wrap\.[a-z0-9]+|secret-wrap\.[a-z0-9]+|local-pw|secret-pw|seal)\.[0-9a-z_-]{20,}`,
			"v1.local.", "v2.local.", "v3.local.", "v4.local.", "v1.public.", "v2.public.", "v3.public.", "v4.public.",
			"k1.", "k2.", "k3.", "k4."),
		// a Fernet token: version 0x80 and a time stamp whose high bytes are zero, in base64url
		rx("fernet", `\bgaaaaa[0-9a-z_-]{70,}={0,2}`, "gaaaaa"),
		Rule{Name: "decode_morse", Hints: []string{".-", "-."}, scan: scanMorse},
		Rule{Name: "decode_interleaved", scan: scanInterleaved, needs: needsPasswordRun},
		Rule{Name: "decode_grouped_base64", scan: scanGroupedBase64, needs: needsGroupRun},
		Rule{Name: "colon_hex_key", Hints: colonHexHints, scan: scanColonHexKeys, needs: needsOperator},
		Rule{Name: "seed_phrase", scan: scanSeedPhrase, needs: needsWordRun},
		Rule{Name: "foreign_seed_phrase", Hints: seedWords, scan: scanForeignSeedPhrases},
	)
}

// decoderRules are the rules that decode and redact again, looking depth levels deep.
func decoderRules(depth int) []Rule {
	return []Rule{
		{Name: "decode_escapes", Hints: escapeHints, scan: func(s string, add func(start, end int)) int {
			return scanEscaped(s, add, depth)
		}},
		{Name: "decode_base64", scan: func(s string, add func(start, end int)) int {
			return scanBase64Blobs(s, add, depth)
		}, needs: needsBase64Run},
		{Name: "decode_byte_list", Hints: byteListHints, scan: func(s string, add func(start, end int)) int {
			return scanByteLists(s, add, depth)
		}},
		{Name: "decode_escape_runs", Hints: escapeRunHints, scan: func(s string, add func(start, end int)) int {
			return scanEscapeRuns(s, add, depth)
		}},
		{Name: "decode_data_url", Hints: dataURLHints, scan: func(s string, add func(start, end int)) int {
			return scanDataURLs(s, add, depth)
		}},
		{Name: "decode_ascii85", Hints: ascii85Hints, scan: func(s string, add func(start, end int)) int {
			return scanAscii85(s, add, depth)
		}},
		{Name: "decode_char_list", Hints: charListHints, scan: func(s string, add func(start, end int)) int {
			return scanCharLists(s, add, depth)
		}},
		{Name: "decode_char_calls", Hints: charCallHints, scan: func(s string, add func(start, end int)) int {
			return scanCharCalls(s, add, depth)
		}},
		{Name: "decode_emphasis", Hints: emphasisHints, scan: func(s string, add func(start, end int)) int {
			return scanEmphasis(s, add, depth)
		}},
		{Name: "decode_spoken", Hints: spokenHints, scan: func(s string, add func(start, end int)) int {
			return scanSpoken(s, add, depth)
		}},
		{Name: "decode_invisible", Hints: invisibleHints, scan: func(s string, add func(start, end int)) int {
			return scanInvisible(s, add, depth)
		}},
		{Name: "decode_byte_groups", needs: needsByteRun, scan: func(s string, add func(start, end int)) int {
			return scanByteGroups(s, add, depth)
		}},
		{Name: "decode_uuencoded", Hints: uuHints, scan: func(s string, add func(start, end int)) int {
			return scanUuencoded(s, add, depth)
		}},
		{Name: "decode_rotated", Hints: rotHints, scan: func(s string, add func(start, end int)) int {
			return scanRotated(s, add, depth)
		}},
		{Name: "decode_base85", Hints: base85Hints, scan: func(s string, add func(start, end int)) int {
			return scanBase85(s, add, depth)
		}},
		{Name: "decode_reversed", Hints: reverseHints, scan: func(s string, add func(start, end int)) int {
			return scanReversed(s, add, depth)
		}},
		{Name: "decode_base45", Hints: base45Hints, scan: func(s string, add func(start, end int)) int {
			return scanBase45(s, add, depth)
		}},
		{Name: "decode_hex_words", needs: needsGroupRun, scan: func(s string, add func(start, end int)) int {
			return scanHexWords(s, add, depth)
		}},
		{Name: "decode_reversed_base64", needs: needsBase64Run, scan: func(s string, add func(start, end int)) int {
			return scanReversedBase64(s, add, depth)
		}},
		{Name: "decode_spaced", Hints: append(slices.Clone(spacedHints), contextHints()...), scan: func(s string, add func(start, end int)) int {
			return scanSpaced(s, add, depth)
		}},
	}
}

// byteListHints start a list of byte values: a bracket, a brace or a parenthesis and a digit or
// a blank, a 0x, or an Erlang binary's <<.
var byteListHints = func() []string {
	hints := []string{"0x", "<<"}
	for _, open := range "[{(" {
		for _, c := range "0123456789 " {
			hints = append(hints, string(open)+string(c))
		}
	}
	return hints
}()

// minByteList is the fewest bytes a list of numbers must hold to be decoded.
const minByteList = 8

// scanByteLists decodes lists of byte values written in code (bytes([84, 111, …]), {0x64, 0xa6,
// …}, a C or Go array, an Erlang binary, hex bytes between commas with no bracket) and hides the
// whole literal (byteLiteral) when its bytes are text that is a secret (encodedSecret), or when
// its 16 to 64 bytes follow a word naming a key: a secret written as numbers.
func scanByteLists(s string, add func(start, end int), depth int) int {
	work := len(s)
	for i := 0; i < len(s); i++ {
		bits := strings.HasPrefix(s[i:], "<<") // an Erlang or Elixir binary, <<75, 100, …>>
		// hex bytes between commas with no bracket (0x4b,0x64,…), as a dump or a line of an array
		bare := s[i] == '0' && i+1 < len(s) && s[i+1]|0x20 == 'x' && (i == 0 || !isWordByte(s[i-1]))
		if c := s[i]; c != '[' && c != '{' && c != '(' && !bits && !bare {
			continue
		}
		var b []byte
		p := i + 1
		switch {
		case bits:
			p++
		case bare:
			p = i
		}
		for len(b) <= 4096 {
			for p < len(s) && (s[p] == ' ' || s[p] == '\n' || s[p] == '\t' || s[p] == '\r') {
				p++
			}
			v, q, ok := byteValue(s, p)
			if !ok {
				break
			}
			b = append(b, v)
			p = q
			for p < len(s) && (s[p] == ' ' || s[p] == '\t') {
				p++
			}
			if p < len(s) && s[p] == ',' {
				p++
				continue
			}
			break
		}
		if len(b) < minByteList {
			continue
		}
		work += p - i
		start, end := byteLiteral(s, i, p)
		switch {
		case bits:
			start, end = i, p
			if q := skipBlanks(s, p); strings.HasPrefix(s[q:], ">>") {
				end = q + 2
			}
		case bare:
			start, end = i, p
		}
		if printableText(b) {
			hide, w := encodedSecret(b, s, start, depth)
			work += w
			if hide {
				add(start, end)
			}
		} else if len(b) >= 16 && len(b) <= 64 && keyWordBefore(s, i) {
			add(start, end)
		}
		i = p - 1
	}
	return work
}

// byteValue reads one byte written as a decimal number or 0x and two hex digits at p.
func byteValue(s string, p int) (byte, int, bool) {
	if p+2 < len(s) && s[p] == '0' && (s[p+1] == 'x' || s[p+1] == 'X') {
		q := p + 2
		v := 0
		for q < len(s) && q-p < 4 && isHexString(s[q:q+1]) {
			v = v*16 + hexDigit(s[q])
			q++
		}
		ok := q > p+2
		return byte(v), byteSuffix(s, q), ok
	}
	q, v := p, 0
	for q < len(s) && q-p < 3 && '0' <= s[q] && s[q] <= '9' {
		v = v*10 + int(s[q]-'0')
		q++
	}
	q = byteSuffix(s, q)
	if q == p || v > 255 || q < len(s) && (isWordByte(s[q]) || s[q] == '.') {
		return 0, p, false
	}
	return byte(v), q, true
}

// byteSuffix is where a byte value that ends at q ends with Rust's type suffix (70u8, 0x46u8).
func byteSuffix(s string, q int) int {
	if q+2 <= len(s) && (s[q] == 'u' || s[q] == 'i') && s[q+1] == '8' && (q+2 == len(s) || !isWordByte(s[q+2])) {
		return q + 2
	}
	return q
}

func hexDigit(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	}
	return int(c-'A') + 10
}

// keyWordBefore reports whether the 48 bytes before i, on the same line, name a key.
func keyWordBefore(s string, i int) bool { return keyWordWithin(s, i, 48) }

// keyWordWithin reports whether the n bytes before i, on the same line, name a key.
func keyWordWithin(s string, i, n int) bool {
	before := strings.ToLower(s[max(0, i-n):i])
	if nl := strings.LastIndexByte(before, '\n'); nl >= 0 {
		before = before[nl+1:]
	}
	for _, w := range []string{"key", "secret", "token", "seed", "password", "passwd", "psk"} {
		if strings.Contains(before, w) {
			return true
		}
	}
	return false
}

func isDecoderRule(name string) bool {
	return strings.HasPrefix(name, "decode_")
}

// escapeHints: every URL escape of a printable character starts with %2 to %7; the backslash
// escapes that hide a secret's quotes or letters.
var escapeHints = []string{"%2", "%3", "%4", "%5", "%6", "%7", `\0`, `\1`, `\2`, `\3`, `\4`, `\5`, `\6`, `\7`, `\"`, `\\`, `\/`, `\'`, `\u`, `\x`, "&#", "&quot;", "&apos;", "=3d"}

// nested[d] is the Redactor run on text decoded d levels deep: the whole rule table, its
// decoders looking one level deeper, none at maxDecodeDepth.
var nested [maxDecodeDepth + 1]func() *Redactor

func init() {
	for d := 1; d <= maxDecodeDepth; d++ {
		nested[d] = sync.OnceValue(func() *Redactor {
			var rules []Rule
			for _, rule := range New().rules {
				if !isDecoderRule(rule.Name) {
					rules = append(rules, rule)
				}
			}
			if d < maxDecodeDepth {
				rules = append(rules, decoderRules(d)...)
			}
			return newRedactor(rules)
		})
	}
}

// secretSpans is one pass of r over s without replacing: the spans its rules find, and its work
// added to st.
func (r *Redactor) secretSpans(s string, st *Stats) []span { return r.findSpans(s, st, true) }

// findSpans runs every hinted rule once over s (and its folded form) and returns their spans;
// with screen, a text the screen finds nothing to look for in costs one pass and no allocation.
func (r *Redactor) findSpans(s string, st *Stats, screen bool) []span {
	st.Bytes += len(s)
	var hinted ruleSet
	screened := false
	if screen {
		hinted, screened = r.screen(s)
	}
	if screened && hinted == (ruleSet{}) {
		return nil
	}
	f := textmatch.FoldMap(s)
	if !screened {
		st.Bytes += len(s)
		hinted = r.hints.rules(f.Text)
	}
	var spans []span
	add := func(start, end int) {
		if end > start {
			spans = append(spans, span{start, end})
		}
	}
	r.find(s, hinted, add, st)
	if !isASCII(s) {
		r.find(f.Text, hinted, func(start, end int) { add(f.Span(start, end)) }, st)
	}
	return spans
}

// lookInside redacts decoded text one level deeper than depth and reports its spans and work.
func lookInside(decoded string, depth int) ([]span, int) {
	if depth+1 > maxDecodeDepth {
		return nil, 0
	}
	var st Stats
	spans := nested[depth+1]().secretSpans(decoded, &st)
	return spans, st.Bytes
}

// scanEscaped decodes the escapes of s and reports, mapped back to s, what the Redactor finds in
// the decoded text.
func scanEscaped(s string, add func(start, end int), depth int) int {
	dec, at, changed := decodeEscapes(s)
	if !changed {
		return len(s)
	}
	work := 0
	var spans []span
	for range 2 { // escaped again and again (%25253D): decoded until nothing changes, thrice at most
		again, at2, more := decodeEscapes(dec)
		if !more {
			break
		}
		// each level is looked into as well: JSON in JSON in a log holds at one level a value
		// whose escaped quote the next decoding makes a closing one
		inner, w := lookInside(dec, depth)
		work += len(dec) + w
		for _, sp := range inner {
			spans = append(spans, span{at[sp.start], at[sp.end]})
		}
		for i, p := range at2 {
			at2[i] = at[p]
		}
		dec, at = again, at2
	}
	last, w := lookInside(dec, depth)
	work += w
	for _, sp := range last {
		spans = append(spans, span{at[sp.start], at[sp.end]})
	}
	// a query value whose symbols were escaped reads as a password once decoded
	// (p=8b14Gl%232oG%40Upfp%2F%2B729)
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && !isSpace(s[j]) && strings.IndexByte("&?=\"'", s[j]) < 0 {
			j++
		}
		if v := s[i:j]; j > i && j-i <= 192 && escapeCount(v) >= 2 && !strings.Contains(v, "://") && v[0] != '/' && strings.IndexByte(v, '\\') < 0 {
			if d, _, ok := decodeEscapes(s[i:j]); ok && decodedSecret(d) {
				add(i, j)
			}
		}
		i = j + 1
	}
	for _, sp := range spans {
		end := sp.end
		for end+2 < len(s) && s[end] == '%' && isHexString(s[end+1:end+3]) {
			end++ // the escapes glued to the value's end are of it (%25252F%25253D)
			for end < len(s) && isHexString(s[end:end+1]) {
				end++
			}
		}
		add(sp.start, end)
	}
	return 2*len(s) + work
}

// decodeEscapes decodes URL escapes and backslash escapes; at[i] is where the source of decoded
// byte i starts in s, and at[len(dec)] is len(s).
func decodeEscapes(s string) (dec string, at []int, changed bool) {
	var b strings.Builder
	at = make([]int, 0, len(s)+1)
	emit := func(src int, bs ...byte) {
		for _, c := range bs {
			b.WriteByte(c)
			at = append(at, src)
		}
	}
	qp := strings.Contains(s, "=3D") // quoted-printable, as mail writes = itself
	for i := 0; i < len(s); {
		c := s[i]
		if c == '&' {
			if r, n := htmlEntity(s[i:]); n > 0 {
				emit(i, utf8.AppendRune(nil, r)...)
				i += n
				changed = true
				continue
			}
		}
		if qp && c == '=' {
			switch {
			case i+2 < len(s) && isUpperHex(s[i+1]) && isUpperHex(s[i+2]):
				emit(i, unhex(s[i+1])<<4|unhex(s[i+2]))
				i += 3
				changed = true
				continue
			case strings.HasPrefix(s[i+1:], "\r\n"), strings.HasPrefix(s[i+1:], "\n"): // a soft line break
				i++
				continue
			}
		}
		switch {
		case c == '%' && i+2 < len(s) && isHexString(s[i+1:i+3]):
			emit(i, unhex(s[i+1])<<4|unhex(s[i+2]))
			i += 3
			changed = true
			continue
		case c == '\\' && i+1 < len(s):
			switch e := s[i+1]; e {
			case '"', '\\', '/', '\'':
				emit(i, e)
				i += 2
				changed = true
				continue
			case 'n', 't', 'r':
				emit(i, map[byte]byte{'n': '\n', 't': '\t', 'r': '\r'}[e])
				i += 2
				changed = true
				continue
			case '0', '1', '2', '3':
				if i+3 < len(s) && isOctal(s[i+2]) && isOctal(s[i+3]) { // \160, as printf and C write a byte
					emit(i, (e-'0')<<6|(s[i+2]-'0')<<3|(s[i+3]-'0'))
					i += 4
					changed = true
					continue
				}
			case 'x':
				if i+3 < len(s) && isHexString(s[i+2:i+4]) {
					emit(i, unhex(s[i+2])<<4|unhex(s[i+3]))
					i += 4
					changed = true
					continue
				}
			case 'u':
				if r, n := braceEscape(s[i:]); n > 0 { // ES2015's \u{75}
					emit(i, utf8.AppendRune(nil, r)...)
					i += n
					changed = true
					continue
				}
				if i+5 < len(s) && isHexString(s[i+2:i+6]) {
					r := rune(unhex(s[i+2]))<<12 | rune(unhex(s[i+3]))<<8 | rune(unhex(s[i+4]))<<4 | rune(unhex(s[i+5]))
					emit(i, utf8.AppendRune(nil, r)...)
					i += 6
					changed = true
					continue
				}
			}
		}
		if c == '\\' {
			if r, n := cssEscape(s[i:]); n > 0 { // CSS's \38 \79: a code point in hex, a blank after
				emit(i, utf8.AppendRune(nil, r)...)
				i += n
				changed = true
				continue
			}
		}
		emit(i, c)
		i++
	}
	at = append(at, len(s))
	return b.String(), at, changed
}

func unhex(c byte) byte {
	switch {
	case '0' <= c && c <= '9':
		return c - '0'
	case 'a' <= c|0x20 && c|0x20 <= 'f':
		return c | 0x20 - 'a' + 10
	}
	return 0
}

func isB64Any(c byte) bool { return isWordByte(c) || c == '-' || c == '+' || c == '/' }

// scanBase64Blobs decodes every base64 run of minDecodeRun characters or more and hides those
// that hold key material, a macaroon, or text with a secret in it.
func scanBase64Blobs(s string, add func(start, end int), depth int) int {
	work := len(s)
	joinedTo := 0 // the end of the last wrapped block read joined: its lines are not read again
	for i := 0; i < len(s); {
		if !isB64Any(s[i]) || i > 0 && (isB64Any(s[i-1]) || s[i-1] == '.') {
			i++
			continue
		}
		j := i
		for j < len(s) && isB64Any(s[j]) {
			j++
		}
		end := j
		for end < len(s) && end-j < 2 && s[end] == '=' {
			end++
		}
		next := max(j, i+1)
		if i >= joinedTo && j-i >= minDecodeRun && end == j {
			if b, joined, short, before := wrappedBlock(s, i, j); b > end {
				joinedTo = b
				work += len(joined)
				if wrappedSecret(joined, depth, &work) {
					add(i, b)
					i = b
					continue
				}
				if short > 0 && len(joined)-short > j-i && wrappedSecret(joined[:len(joined)-short], depth, &work) {
					add(i, before)
					i = b
					continue
				}
			}
		}
		if j-i >= minDecodeRun && (end == len(s) || s[end] != '.' && !isB64Any(s[end])) {
			work += j - i
			dec, ok := decodeBase64Token(s[i:j])
			text := true // bits, hex or base32 of text: what decodes to text in them was written so
			if bits, isBits := decodeBitsText(s[i:j]); isBits {
				dec, ok = bits, true // bits of text, eight a byte, written without blanks
			} else if hx, isHex := decodeHexText(hexBody(s, i, j)); isHex {
				dec, ok = hx, true // hex of text: a password or a key written as hex
			} else if b32, isB32 := decodeBase32Text(s[i:base32End(s, j)]); isB32 {
				dec, ok, end = b32, true, base32End(s, j) // base32 of text
			} else if text = false; ok {
				dec = fromUTF16LE(dec) // PowerShell's -EncodedCommand
			}
			switch {
			case !ok:
			case keyMaterial(dec):
				end = keyBlockEnd(s, end, j-i)
				add(i, end)
				next = end
			case macaroon(dec):
				add(i, end)
			case len(dec) > 2 && dec[0] == 0x1f && dec[1] == 0x8b:
				if text, ok := gunzipText(dec); ok {
					spans, w := lookInside(text, depth)
					work += w + len(text)
					if len(spans) > 0 || decodedSecret(text) {
						add(i, end) // gzip then base64 of a config with a secret in it
					}
				}
			case text:
				hide, w := encodedSecret(dec, s, i, depth)
				work += w
				if hide {
					add(encodedFrame(s, i, end))
				}
			case printableText(dec):
				spans, w := lookInside(string(dec), depth)
				work += w
				// a run of letters alone (encryptedClientHello) is a name that happens to decode
				if len(spans) > 0 {
					add(encodedFrame(s, i, end))
				} else if strings.ContainsAny(s[i:end], "0123456789+/=") {
					hide, w := encodedSecret(dec, s, i, depth)
					work += w
					if hide {
						add(encodedFrame(s, i, end))
					}
				}
			}
		}
		i = next
	}
	return work
}

// wrappedBlock reads the lines that follow the encoded run s[i:j] when it was wrapped at a line
// width (base64 at 64 or 76, hex at 32 or 60, as encoders and dumps write them): lines of its
// width, then a shorter or padded last one, each a line break (a blank, in collapsed text) after
// the one before, in the first line's alphabet (hex stays hex). It returns where the block ends,
// its lines joined, and the length of the last line when it is shorter (a word after the block
// may look like one) with where the line before it ends; j and "" when no line follows.
func wrappedBlock(s string, i, j int) (end int, joined string, short, before int) {
	width := j - i
	hexOnly := isHexString(s[i:j])
	e := j
	var b strings.Builder
	for {
		p := lineBreakAt(s, e, true)
		if p < 0 {
			break
		}
		q := p
		for q < len(s) && isB64Any(s[q]) && (!hexOnly || isHexString(s[q:q+1])) {
			q++
		}
		n := q - p
		for q < len(s) && q-p-n < 2 && s[q] == '=' {
			q++
		}
		if n == 0 || q-p > width || q < len(s) && (isB64Any(s[q]) || s[q] == '.') {
			break
		}
		if b.Len() == 0 {
			b.WriteString(s[i:j])
		}
		b.WriteString(s[p:q])
		before, e = e, q
		if q-p < width || n < q-p {
			short = q - p
			break
		}
	}
	return e, b.String(), short, before
}

// wrappedSecret reports whether the lines of a wrapped block, joined, decode (hex, base64 or
// base32) to text the Redactor finds a secret in, or that reads as a password on its own: a
// secret file encoded and wrapped, whose lines alone each decode to a piece of it or to nothing.
func wrappedSecret(joined string, depth int, work *int) bool {
	dec, ok := decodeHexText(joined)
	if !ok {
		if dec, ok = decodeBase32Text(joined); !ok {
			if dec, ok = decodeBase64Token(strings.TrimRight(joined, "=")); ok {
				dec = fromUTF16LE(dec)
			}
		}
	}
	if !ok || !printableText(dec) {
		return false
	}
	spans, w := lookInside(string(dec), depth)
	*work += w
	return len(spans) > 0 || decodedSecret(string(dec))
}

// decodeBase64Token decodes t as base64 or base64url, padded or not; a run with characters of
// both alphabets (a path with a dash) is none.
func decodeBase64Token(t string) ([]byte, bool) {
	t = strings.TrimRight(t, "=")
	std := strings.ContainsAny(t, "+/")
	url := strings.ContainsAny(t, "-_")
	if std && url || len(t)%4 == 1 || len(t) == 0 {
		return nil, false
	}
	for i := 0; i < len(t); i++ {
		if !isB64Any(t[i]) {
			return nil, false
		}
	}
	enc := base64.RawStdEncoding
	if url {
		enc = base64.RawURLEncoding
	}
	dec, err := enc.DecodeString(t)
	return dec, err == nil
}

// keyBlockEnd extends a key body's first line, which ends at e and is width characters wide,
// over the lines of the same width that follow and the shorter last one. A line break is a
// newline (or \r\n), an escaped one (\n as JSON writes it) or, in collapsed text, a space.
func keyBlockEnd(s string, e, width int) int {
	for {
		p := lineBreakAt(s, e, true)
		if p < 0 {
			return e
		}
		q := p
		for q < len(s) && isB64Any(s[q]) {
			q++
		}
		n := q - p
		for q < len(s) && q-p-n < 2 && s[q] == '=' {
			q++
		}
		if n == 0 || n > width || q < len(s) && isWordByte(s[q]) {
			return e
		}
		e = q
		if n < width {
			return e
		}
	}
}

// lineBreakAt is where the next line starts when a line break is at p, or -1; blank says a
// space counts (text whose white space was collapsed).
func lineBreakAt(s string, p int, blank bool) int {
	switch {
	case strings.HasPrefix(s[p:], "\r\n"):
		return p + 2
	case strings.HasPrefix(s[p:], "\n"):
		return p + 1
	case strings.HasPrefix(s[p:], `\r\n`):
		return p + 4
	case strings.HasPrefix(s[p:], `\n`):
		return p + 2
	case blank && strings.HasPrefix(s[p:], " "):
		return p + 1
	}
	return -1
}

// wrappedContinuation: a random token t that ends a line at b and goes on at the start of the
// next line, in its alphabet, was wrapped; it returns where the continuation ends (b if there is
// none). A word there (The, and) is no continuation. In collapsed text, where a line break is a
// space, only a token as long as a wrapped line (48 characters or more) is continued, and only
// by a run with a letter (not a date or a number).
func wrappedContinuation(s string, b int, t string) int {
	p := lineBreakAt(s, b, false)
	collapsed := false
	if p < 0 {
		if len(t) < 48 {
			return b
		}
		if p = lineBreakAt(s, b, true); p < 0 {
			return b
		}
		collapsed = true
	}
	st := statsOf(t)
	in := func(c byte) bool {
		switch {
		case st.lowerHex && st.sym == 0:
			return '0' <= c && c <= '9' || 'a' <= c && c <= 'f'
		case st.upperHex && st.sym == 0:
			return '0' <= c && c <= '9' || 'A' <= c && c <= 'F'
		}
		return isB64Any(c) || c == '='
	}
	q := p
	for q < len(s) && in(s[q]) {
		q++
	}
	if q == p || !isWordByte(s[p]) || q-p > len(t) || q < len(s) && (isWordByte(s[q]) || s[q] == '.' && q+1 < len(s) && isWordByte(s[q+1])) {
		return b
	}
	run := s[p:q]
	rs := statsOf(run)
	if rs.lower+rs.upper == 0 && (collapsed || rs.digit == 0) {
		return b // a number, a date (collapsed text), or punctuation
	}
	if rs.digit == 0 && rs.sym == 0 && proseWord(run) {
		return b // a word: the text goes on
	}
	return q
}

// proseWord reports whether w is written as a word (the, Then, HTTP) and reads as one.
func proseWord(w string) bool {
	st := statsOf(w)
	cased := st.upper == 0 || st.lower == 0 || st.upper == 1 && isUpper(w[0])
	return cased && readsAsWord(w, englishPairs())
}

// printableText reports whether b is text: valid UTF-8 of 12 bytes or more without control
// characters other than white space. Random bytes are almost never that.
func printableText(b []byte) bool {
	if len(b) < 12 || !utf8.Valid(b) {
		return false
	}
	for _, c := range b {
		if c < ' ' && c != '\n' && c != '\r' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

// mediaMagic reports whether b starts like a picture, a font, an archive or a binary: base64 of
// a file embedded in code, no credential.
func mediaMagic(b []byte) bool {
	for _, m := range []string{"\x89PNG", "GIF8", "\xff\xd8\xff", "\x1f\x8b", "PK\x03\x04", "%PDF", "\x00asm", "wOFF", "wOF2", "OTTO", "\x00\x01\x00\x00", "RIFF", "BZh", "\xfd7zXZ", "\x28\xb5\x2f\xfd", "\x00\x00\x01\x00", "\x7fELF", "<svg", "<?xml"} {
		if strings.HasPrefix(string(b), m) {
			return true
		}
	}
	return false
}

// keyMaterial reports whether b starts like a private key: an OpenSSH key, a DER private key
// (PKCS#8 and PKCS#1, DSA and SEC1 EC keys: a SEQUENCE whose first element is the INTEGER
// version 0 or 1, then an algorithm SEQUENCE, an INTEGER or an OCTET STRING), an encrypted
// PKCS#8 key (PBES2 or a PKCS#12 PBE scheme), or an OpenPGP secret key or subkey packet with a
// plausible version, time and algorithm.
func keyMaterial(b []byte) bool {
	if strings.HasPrefix(string(b), "openssh-key-v1\x00") {
		return true
	}
	// a Java keystore (JKS 0xFEEDFEED, JCEKS 0xCECECECE, version 1 or 2); a minisign secret key
	// (signature Ed, KDF scrypt or none, checksum BLAKE2b)
	if len(b) >= 8 && (string(b[:4]) == "\xfe\xed\xfe\xed" || string(b[:4]) == "\xce\xce\xce\xce") && b[4] == 0 && b[5] == 0 && b[6] == 0 && (b[7] == 1 || b[7] == 2) {
		return true
	}
	if strings.HasPrefix(string(b), "EdScB2") || strings.HasPrefix(string(b), "Ed\x00\x00B2") {
		return true
	}
	if len(b) >= 8 && b[0] == 0x30 {
		o := 2
		switch {
		case b[1] == 0x81:
			o = 3
		case b[1] == 0x82:
			o = 4
		case b[1] >= 0x80:
			return false
		}
		if o+4 <= len(b) && b[o] == 0x02 && b[o+1] == 0x01 && b[o+2] <= 1 && (b[o+3] == 0x30 || b[o+3] == 0x02 || b[o+3] == 0x04) {
			return true
		}
		// a PKCS#12 (PFX) file: version 3, then the authenticated safe as pkcs7-data
		if o+16 <= len(b) && b[o] == 0x02 && b[o+1] == 0x01 && b[o+2] == 3 && b[o+3] == 0x30 &&
			strings.Contains(string(b[o+4:min(len(b), o+12)]), "\x06\x09\x2a\x86\x48\x86\xf7\x0d\x01\x07\x01"[:4]) {
			return true
		}
		// EncryptedPrivateKeyInfo: SEQUENCE { SEQUENCE { OID pbes2 | pkcs12PbeIds, ...
		if o+2 < len(b) && b[o] == 0x30 {
			p := o + 2
			if b[o+1] == 0x81 {
				p++
			} else if b[o+1] == 0x82 {
				p += 2
			}
			rest := string(b[min(p, len(b)):])
			if strings.HasPrefix(rest, "\x06\x09\x2a\x86\x48\x86\xf7\x0d\x01\x05\x0d") || strings.HasPrefix(rest, "\x06\x0a\x2a\x86\x48\x86\xf7\x0d\x01\x0c\x01") {
				return true
			}
		}
	}
	return pgpSecretKey(b)
}

// pgpSecretKey reports whether b starts with an OpenPGP secret key (tag 5) or secret subkey
// (tag 7) packet, old or new format, of version 4 to 6, a creation time from 1995 to 2039, a
// public-key algorithm that exists and the start of its public key.
func pgpSecretKey(b []byte) bool {
	if len(b) < 12 {
		return false
	}
	var body int
	switch h := b[0]; {
	case h&0xc0 == 0x80 && (h>>2&0xf == 5 || h>>2&0xf == 7):
		body = 1 + [4]int{1, 2, 4, 0}[h&3]
		if h&3 == 3 {
			return false
		}
	case h == 0xc5 || h == 0xc7:
		switch l := b[1]; {
		case l < 192:
			body = 2
		case l < 224:
			body = 3
		case l == 255:
			body = 6
		default:
			return false
		}
	default:
		return false
	}
	if body+6 > len(b) {
		return false
	}
	v, t, alg := b[body], b[body+1], b[body+5]
	if v < 4 || v > 6 || t < 0x30 || t > 0x87 {
		return false
	}
	p := body + 6
	if v == 5 || v == 6 {
		p += 4 // the key material's length
	}
	if p >= len(b) {
		return false
	}
	// what the algorithm's public key starts with: an MPI of 1024 to 8192 bits, the length of a
	// curve's OID, or raw key bytes
	switch next := b[p]; alg {
	case 1, 2, 3, 16, 17:
		return next >= 0x04 && next <= 0x20
	case 18, 19, 22:
		return next >= 5 && next <= 10
	case 25, 26, 27, 28:
		return true
	}
	return false
}

// macaroon reports whether b is a serialised macaroon: version 1 (packets of four hex digits of
// length and "location ", "identifier ", "signature ") or version 2 (0x02, then an optional
// location field and an identifier field, each a type, a length and the bytes).
func macaroon(b []byte) bool {
	if len(b) >= 16 && isHexString(string(b[:4])) {
		rest := string(b[4:])
		return strings.HasPrefix(rest, "location ") || strings.HasPrefix(rest, "identifier ")
	}
	if len(b) < 8 || b[0] != 0x02 {
		return false
	}
	p := 1
	field := func(typ byte) bool {
		if p+2 > len(b) || b[p] != typ {
			return false
		}
		n := int(b[p+1])
		if n >= 0x80 || p+2+n > len(b) {
			return false
		}
		p += 2 + n
		return true
	}
	field(1) // the location is optional
	return field(2) && p < len(b) && (b[p] == 0 || b[p] == 1 || b[p] == 2)
}

// scanDottedTokens finds tokens of 3 or 5 dotted base64url parts whose first part decodes to a
// JSON object: JWTs (signed, or unsigned with an empty last part; headers pretty-printed or
// not), whose second part is JSON too, and JWEs.
func scanDottedTokens(s string, add func(start, end int)) int {
	work := len(s)
	for i := 0; i < len(s); {
		if !isB64URL(s[i]) || i > 0 && (isB64URL(s[i-1]) || s[i-1] == '.') {
			i++
			continue
		}
		j, parts := i, 1
		dot := -1
		for j < len(s) && (isB64URL(s[j]) || s[j] == '.' && j+1 <= len(s)) {
			if s[j] == '.' {
				if dot < 0 {
					dot = j
				}
				parts++
			}
			j++
		}
		work += j - i
		e := j
		for e > i && s[e-1] == '.' && e-1 != dot {
			e-- // a full stop after the token, not the empty signature of an unsigned JWT
		}
		if dot-i >= 8 && (parts == 3 || parts == 5) && jsonPart(s[i:dot]) {
			// a JWS's payload is JSON too; a JWE's second part is a key, random
			if second := strings.SplitN(s[dot+1:e], ".", 2)[0]; parts == 5 || jsonPart(second) {
				add(i, e)
			}
		}
		i = max(j, i+1)
	}
	return work
}

// jsonPart reports whether p, base64url, decodes to a JSON object.
func jsonPart(p string) bool {
	dec, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(p, "="))
	if err != nil {
		return false
	}
	t := strings.TrimLeft(string(dec), " \t\r\n")
	return strings.HasPrefix(t, "{") && printableText(dec)
}

// scanSeedPhrase finds runs of minSeedWords or more words of the BIP39 list, each alone between
// blanks (any case), and hides each run whole.
func scanSeedPhrase(s string, add func(start, end int)) int {
	words := bip39Words()
	var buf [8]byte
	runStart, runEnd, count := -1, -1, 0
	flush := func() {
		if count >= minSeedWords {
			add(runStart, runEnd)
		}
		runStart, runEnd, count = -1, -1, 0
	}
	eachField(s, func(i, j int) {
		// a word glued to text of another script (助记词：adapt) is that word
		for i < j && s[i] >= utf8.RuneSelf {
			i++
		}
		for j > i && s[j-1] >= utf8.RuneSelf {
			j--
		}
		// and one in quotes, a phrase's first or last (MNEMONIC="account … about")
		if k := strings.LastIndexAny(s[i:j], "\"'`=("); k >= 0 && k < j-i-1 {
			i += k + 1
		}
		for j > i && strings.IndexByte("\"'`,;)", s[j-1]) >= 0 {
			j--
		}
		ok := j-i >= 3 && j-i <= 8
		if ok {
			for k := i; k < j; k++ {
				if !isLetter(s[k]) {
					ok = false
					break
				}
				buf[k-i] = s[k] | 0x20
			}
		}
		if ok {
			_, ok = words[string(buf[:j-i])]
		}
		if ok {
			if count == 0 {
				runStart = i
			}
			count++
			runEnd = j
		} else {
			flush()
		}
	})
	flush()
	return len(s)
}

// decodeHexText decodes t when it is an even run of hex digits that decodes to printable text.
func decodeHexText(t string) ([]byte, bool) {
	if len(t)%2 != 0 || !isHexString(t) {
		return nil, false
	}
	b, err := hex.DecodeString(t)
	if err != nil {
		return nil, false
	}
	if b = fromUTF16LE(b); !printableText(b) { // UTF-16 text as Windows dumps it (7000 6100 …)
		return nil, false
	}
	return b, true
}

// decodeBitsText decodes t, six bytes or more written as bits without blanks, when it is text.
func decodeBitsText(t string) ([]byte, bool) {
	if len(t) < 48 || len(t)%8 != 0 || strings.Trim(t, "01") != "" {
		return nil, false
	}
	b := make([]byte, len(t)/8)
	for k := range t {
		b[k/8] = b[k/8]<<1 | (t[k] - '0')
	}
	return b, printableText(b)
}

// fromUTF16LE returns b as UTF-8 when it is UTF-16LE text of ASCII (every second byte zero, as
// PowerShell encodes -EncodedCommand), else b as it is.
func fromUTF16LE(b []byte) []byte {
	if len(b) < 8 || len(b)%2 != 0 {
		return b
	}
	out := make([]byte, 0, len(b)/2)
	for k := 0; k+1 < len(b); k += 2 {
		if b[k+1] != 0 || b[k] == 0 {
			return b
		}
		out = append(out, b[k])
	}
	return out
}
