package redact

import (
	"math"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Decoders of encodings that carry no frame of their own: base85 in its three alphabets, looked
// for where the text names it (a85decode(b'…'), "key (z85): …"), and strings written backwards,
// where the text names a reversal or the token starts with base64's padding.

// base85Hints name an encoding of the base85 family, as code calls it and people write it.
var base85Hints = []string{"a85", "b85", "z85", "ascii85", "base85", "base-85"}

// maxCodecWindow is how many bytes after a codec's or a reversal's name are looked at.
const maxCodecWindow = 160

// The base85 alphabets: Adobe's Ascii85 is '!' to 'u' (decodeAscii85); RFC 1924's, as Python's
// b85encode and git's binary patches write it; ZeroMQ's Z85.
const (
	b85Alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~"
	z85Alphabet = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#"
)

var b85Value, z85Value = alphabetValues(b85Alphabet), alphabetValues(z85Alphabet)

func alphabetValues(a string) (t [256]int8) {
	for i := range t {
		t[i] = -1
	}
	for i := 0; i < len(a); i++ {
		t[a[i]] = int8(i)
	}
	return t
}

// decodeBase85 decodes t in the alphabet whose values are given (a short last group padded
// with the alphabet's last character, as Python's b85decode does).
func decodeBase85(t string, values *[256]int8) ([]byte, bool) {
	if len(t)%5 == 1 {
		return nil, false
	}
	out := make([]byte, 0, len(t)*4/5+4)
	for g := 0; g < len(t); g += 5 {
		v := uint64(0)
		n := min(5, len(t)-g)
		for k := 0; k < 5; k++ {
			d := int8(84)
			if k < n {
				if d = values[t[g+k]]; d < 0 {
					return nil, false
				}
			}
			v = v*85 + uint64(d)
		}
		if v > 0xffffffff {
			return nil, false
		}
		keep := n - 1 // a short group of n characters carries n-1 bytes
		if n == 5 {
			keep = 4
		}
		out = append(out, []byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}[:keep]...)
	}
	return out, true
}

// randomBytes reports whether b, decoded from an encoding the text names, is 16 to 128 bytes
// spread over the byte values like a key's: an encoded key or token has no other structure,
// text and file formats have much less entropy.
func randomBytes(b []byte) bool {
	if len(b) < 16 || len(b) > 128 || printableText(b) {
		return false
	}
	var counts [256]int
	for _, c := range b {
		counts[c]++
	}
	h := 0.0
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / float64(len(b))
			h -= p * math.Log2(p)
		}
	}
	return h >= 0.9*math.Log2(float64(min(len(b), 256)))
}

// codecField trims a field of the quotes, brackets and punctuation code and prose put around a
// literal (b'…', ("…"), `…`,), returning its range; the encodings' own alphabets hold many of
// those characters, so only a few are taken off each end.
func codecField(s string, i, j int) (int, int) {
	for k := 0; k < 4 && i < j; k++ {
		if c := s[i]; c == '(' || c == '[' || c == '{' || c == '"' || c == '\'' || c == '`' || (c == 'b' || c == 'r') && i+1 < j && (s[i+1] == '\'' || s[i+1] == '"') {
			i++
			continue
		}
		break
	}
	for k := 0; k < 4 && j > i; k++ {
		if c := s[j-1]; c == ')' || c == ']' || c == '}' || c == '"' || c == '\'' || c == '`' || c == ',' || c == ';' {
			j--
			continue
		}
		break
	}
	return i, j
}

// secretBytes reports whether bytes decoded from a named encoding are a secret: random bytes of
// a key's length, or text the Redactor finds a secret in (or that reads as a password).
func secretBytes(dec []byte, depth int) (bool, int) {
	switch {
	case keyMaterial(dec) || randomBytes(dec):
		return true, 0
	case printableText(dec):
		spans, w := lookInside(string(dec), depth)
		return len(spans) > 0 || decodedSecret(string(dec)), w
	}
	return false, 0
}

// scanBase85 decodes the fields after a base85 codec's name (a85decode(b'…'), key (z85): …) in
// each of the three alphabets and hides a field whose bytes are a secret.
func scanBase85(s string, add func(start, end int), depth int) int {
	work := len(s)
	eachHintWindow(s, asciiLower(s), base85Hints, func(_ string, k, after int) (int, bool) {
		if k > 0 && (isLetter(s[k-1]) || '0' <= s[k-1] && s[k-1] <= '9') {
			return 0, false // inside a word or a hex run (…ca8ab851b5c…)
		}
		for after < len(s) && isWordByte(s[after]) {
			after++ // the rest of the name: a85decode, base85_key
		}
		return after, true
	}, func(i, j int) {
		a, b := codecField(s, i, j)
		if b-a < 10 {
			return
		}
		t := s[a:b]
		if !encodedLooking(t) {
			return
		}
		work += 3 * len(t)
		for _, dec := range [][]byte{ascii85Bytes(t), base85Bytes(t, &b85Value), base85Bytes(t, &z85Value)} {
			if dec == nil {
				continue
			}
			ok, w := secretBytes(dec, depth)
			work += w
			if ok {
				add(a, b)
				return
			}
		}
	})
	return work
}

// eachHintWindow calls field for each field of the window that follows each place in s where
// one of hints stands (found in lower, s in ASCII lower case); ends says where the hint found at k, its match ending
// at after, ends, or false to pass it by. Each hint's windows are looked at once.
func eachHintWindow(s, lower string, hints []string, ends func(hint string, k, after int) (int, bool), field func(i, j int)) {
	for _, n := range hints {
		done := 0
		for from := 0; ; {
			k := strings.Index(lower[from:], n)
			if k < 0 {
				break
			}
			k += from
			from = k + len(n)
			after, ok := ends(n, k, from)
			if !ok {
				continue
			}
			start := max(after, done)
			window := min(len(s), start+maxCodecWindow)
			done = window
			eachField(s[start:window], func(i, j int) { field(start+i, start+j) })
		}
	}
}

// encodedLooking reports whether t has the look of base85 of random bytes: capitals, small
// letters, digits and a symbol in every eight characters or more, its letters not in words.
// Most ASCII text is valid Ascii85 and decodes to bytes as spread as a key's, so the look of
// the encoded text decides.
func encodedLooking(t string) bool {
	st := statsOf(t)
	return st.upper > 0 && st.lower > 0 && st.digit > 0 && st.sym*8 >= len(t) && wordiness(t) <= 0.5
}

func ascii85Bytes(t string) []byte {
	t = strings.TrimSuffix(strings.TrimPrefix(t, "<~"), "~>")
	if b, ok := decodeAscii85(t); ok {
		return b
	}
	return nil
}

func base85Bytes(t string, values *[256]int8) []byte {
	if b, ok := decodeBase85(t, values); ok {
		return b
	}
	return nil
}

// reverseHints name a string written backwards.
var reverseHints = []string{"rev ", "rev|", "reverse", "backward", "[::-1]"}

// reversedField turns the field s[a:b] back (trimmed as codecField trims it) and hides it when
// the Redactor finds a secret in it turned back.
func reversedField(s string, a, b int, add func(start, end int), depth int) int {
	a, b = codecField(s, a, b)
	if b-a < 10 || b-a > 512 || wordiness(s[a:b]) > 0.5 {
		return 0 // words and names, turned back, look random: only what is not made of words is turned
	}
	t := []byte(s[a:b])
	for k := range t {
		if c := t[k]; !tokenByte[c] && !pwSymbol[c] {
			return 0 // a token, not an expression; turned back byte by byte, only ASCII reads again
		}
	}
	for x, y := 0, len(t)-1; x < y; x, y = x+1, y-1 {
		t[x], t[y] = t[y], t[x]
	}
	spans, w := lookInside(string(t), depth)
	if len(spans) > 0 || decodedSecret(string(t)) {
		add(a, b)
	}
	return w + len(t)
}

// scanReversed turns back the fields after a word for reversal (rev, reversed, backwards,
// [::-1]) and hides a field in which, turned back, the Redactor finds a secret.
func scanReversed(s string, add func(start, end int), depth int) int {
	lower := asciiLower(s)
	work := len(s)
	eachHintWindow(s, lower, reverseHints, func(n string, k, after int) (int, bool) {
		if k > 0 && isLetter(s[k-1]) && isLetter(n[0]) {
			return 0, false // inside a word: distributeBackward, PerfBitWriteBackward
		}
		if n == "rev" && after < len(s) && isLetter(s[after]) && !strings.HasPrefix(lower[after:], "erse") {
			return 0, false // review, revision, revert: only rev and reverse, reversed
		}
		for after < len(s) && isLetter(s[after]) {
			after++ // reversed, backwards
		}
		if after < len(s) && isWordByte(s[after]) {
			return 0, false // a name in code (reverse_services, rev2)
		}
		return after, true
	}, func(i, j int) { work += reversedField(s, i, j, add, depth) })
	return work
}

// scanReversedBase64 turns back every token that starts with base64's padding (=o1NOxUS…):
// padding comes last, so such a token is base64 written backwards.
func scanReversedBase64(s string, add func(start, end int), depth int) int {
	work := len(s)
	for i := 0; i+minDecodeRun < len(s); i++ {
		if k := strings.IndexByte(s[i:], '='); k < 0 {
			break
		} else {
			i += k
		}
		if i+minDecodeRun >= len(s) || i > 0 && (isB64Any(s[i-1]) || s[i-1] == '=') {
			continue
		}
		j := i + 1
		if s[j] == '=' {
			j++
		}
		k := j
		for k < len(s) && isB64Any(s[k]) {
			k++
		}
		if k-j >= minDecodeRun && (k == len(s) || !isWordByte(s[k]) && s[k] != '=') {
			work += reversedField(s, i, k, add, depth)
		}
		i = max(i, k-1)
	}
	return work
}

// scanHexWords decodes runs of three or more groups of four hex digits between single blanks,
// two bytes a group, as xxd and od -x print them (00000000: 5061 7061 7961 …), and hides a run
// whose text is a secret, read after the words before it.
func scanHexWords(s string, add func(start, end int), depth int) int {
	work := len(s)
	word := func(i int) bool {
		return i+4 <= len(s) && isHexString(s[i:i+4]) && (i+4 == len(s) || !isWordByte(s[i+4]))
	}
	for i := 0; i < len(s); i++ {
		if i > 0 && isWordByte(s[i-1]) || !word(i) {
			continue
		}
		var dec []byte
		j := i
		for word(j) && len(dec) < 4096 {
			dec = append(dec, unhex(s[j])<<4|unhex(s[j+1]), unhex(s[j+2])<<4|unhex(s[j+3]))
			j += 4
			if j+1 >= len(s) || s[j] != ' ' || !word(j+1) {
				break
			}
			j++
		}
		if len(dec) < 6 || !printableText(append([]byte("      "), dec...)) {
			i = j
			continue
		}
		from := max(0, i-maxSpacedLead)
		for from < i && !utf8.RuneStart(s[from]) {
			from++
		}
		spans, w := lookInside(s[from:i]+string(dec), depth)
		work += w + j - i
		hide := decodedSecret(string(dec))
		for _, sp := range spans {
			hide = hide || sp.end > i-from
		}
		if hide {
			add(i, j)
		}
		i = j
	}
	return work
}

// base45Hints name base45 (RFC 9285, the encoding of QR payloads such as EU health
// certificates), whose alphabet holds a space, so that only where the text names it is a run
// read as base45.
var base45Hints = []string{"base45", "base-45", "b45"}

const b45Alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:"

var b45Value = alphabetValues(b45Alphabet)

// decodeBase45 decodes t: three characters a group for two bytes, two for the last byte.
func decodeBase45(t string) ([]byte, bool) {
	if len(t)%3 == 1 {
		return nil, false
	}
	out := make([]byte, 0, len(t)*2/3+1)
	for g := 0; g < len(t); g += 3 {
		n := min(3, len(t)-g)
		v := 0
		for k := n - 1; k >= 0; k-- {
			d := b45Value[t[g+k]]
			if d < 0 {
				return nil, false
			}
			v = v*45 + int(d)
		}
		if n == 3 {
			if v > 0xffff {
				return nil, false
			}
			out = append(out, byte(v>>8), byte(v))
		} else {
			if v > 0xff {
				return nil, false
			}
			out = append(out, byte(v))
		}
	}
	return out, true
}

// namedToken reports whether text decoded from an encoding the text names is one token of
// eight characters or more that mixes three classes of letters, digits and symbols: what a
// password or a key is, where a name or a word is one or two.
func namedToken(b []byte) bool {
	if len(b) < 8 || len(b) > 128 {
		return false
	}
	for _, c := range b {
		if c <= ' ' || c > '~' {
			return false
		}
	}
	st := statsOf(string(b))
	classes := 0
	for _, n := range []int{st.lower, st.upper, st.digit, st.sym} {
		if n > 0 {
			classes++
		}
	}
	return classes >= 3 && wordiness(string(b)) <= 0.5
}

// scanBase45 decodes the run of base45 after base45's name (QR payload (base45) 2ECJ$D3…,
// b45(pw)=2X4F…) and hides it when its bytes are a secret.
func scanBase45(s string, add func(start, end int), depth int) int {
	lower := asciiLower(s)
	work := len(s)
	for _, n := range base45Hints {
		done := 0
		for from := 0; ; {
			k := strings.Index(lower[from:], n)
			if k < 0 {
				break
			}
			p := from + k + len(n)
			from = p
			if k := p - len(n); k > 0 && isLetter(s[k-1]) || p < done {
				continue
			}
			for p < len(s) && isWordByte(s[p]) {
				p++
			}
			// the name's note and its separator: "(base45) ", "(pw)=", ": "
			for q := 0; q < 12 && p < len(s) && strings.IndexByte(" :=()[]\"'`", s[p]) >= 0; q++ {
				if s[p] == '(' {
					if e := strings.IndexByte(s[p:min(len(s), p+12)], ')'); e > 0 {
						p += e
					}
				}
				p++
			}
			e := p
			for e < len(s) && e-p < 512 && b45Value[s[e]] >= 0 {
				e++
			}
			for e > p && s[e-1] == ' ' {
				e--
			}
			done = e
			work += e - p
			for cut := 0; cut < 3 && e-cut-p >= 10; cut++ {
				if dec, ok := decodeBase45(s[p : e-cut]); ok {
					hide, w := secretBytes(dec, depth)
					work += w
					if hide || namedToken(dec) {
						add(p, e)
					}
					break
				}
			}
		}
	}
	return work
}

// blankBefore reports whether a blank (a space or an ideographic space) or the text's start is
// just before i; blankAfter, whether one or the text's end is at i.
func blankBefore(s string, i int) bool {
	return i == 0 || s[i-1] == ' ' || strings.HasSuffix(s[:i], "\u3000")
}

func blankAfter(s string, i int) bool {
	return i == len(s) || s[i] == ' ' || strings.HasPrefix(s[i:], "\u3000")
}

// scanHanPhrases reports twelve to twenty-four Han characters in a row, each standing alone
// between blanks: the Chinese BIP39 word lists are of single characters, and Chinese is written
// without blanks between them, so such a run is a wallet's recovery phrase whatever names it.
func scanHanPhrases(s string, add func(start, end int)) int {
	start, end, n, rising := -1, -1, 0, 0
	var last rune
	flush := func() {
		// a phrase is 12, 15, 18, 21 or 24 words in a random order; a longer run, or one in
		// code point order, is a list of characters (a collation table, a font's sample)
		if n >= minSeedWords && n <= 24 && n%3 == 0 && rising*3 <= (n-1)*2 {
			add(start, end)
		}
		start, end, n, rising, last = -1, -1, 0, 0, 0
	}
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == ' ' || r == 0x3000:
		case unicode.Is(unicode.Han, r) && blankBefore(s, i) && blankAfter(s, i+size):
			if n == 0 {
				start = i
			} else if r >= last {
				rising++
			}
			n++
			last = r
			end = i + size
		default:
			flush()
		}
		i += size
	}
	flush()
	return len(s)
}

// directiveHints are the ends of the compound names a directive gives a secret (shared_key,
// auth-token, db_password): every name scanSpacedConfig takes holds one.
var directiveHints = []string{"_key", "-key", "_token", "-token", "_secret", "-secret", "_pass", "-pass", "_pw", "_credential", "_seed", "_authtok"}

// scanSpacedConfig finds the value of a directive written as a name, blanks and the value, with
// no = or : between (nginx, Fluentd, Redis, sshd and most daemons' configs: shared_key X,
// auth_token X): the name a compound that names a secret, the value one token that looks
// chosen as a secret (not a word, a type or a placeholder).
func scanSpacedConfig(s string, add func(start, end int)) int {
	for i := 0; i < len(s); {
		if !isWordByte(s[i]) || i > 0 && (isWordByte(s[i-1]) || s[i-1] == '-' || s[i-1] == '.') {
			i++
			continue
		}
		j := i
		for j < len(s) && (isWordByte(s[j]) || s[j] == '-') {
			j++
		}
		name := s[i:j]
		if j-i > maxKeyTail || !strings.ContainsAny(name, "_-") || j >= len(s) || s[j] != ' ' && s[j] != '\t' {
			i = j
			continue
		}
		if n := asciiLower(name); !secretKey(n, true) && !strings.HasSuffix(n, "shared_key") && !strings.HasSuffix(n, "shared-key") {
			i = j
			continue
		}
		v := j
		for v < len(s) && (s[v] == ' ' || s[v] == '\t') {
			v++
		}
		e := v
		for e < len(s) && e-v < 256 && !isSpace(s[e]) {
			e++
		}
		t := s[v:e]
		if e-v >= 8 && (e == len(s) || isSpace(s[e])) && !knownPlaceholder(t) && (strongValue(t) || decodedToken(t) || passwordPiece(t, true) || randomLetters(t)) {
			add(v, e)
		}
		i = j
	}
	return len(s)
}

// randomLetters reports whether t, letters of both cases with perhaps digits and a separator,
// reads as no words and changes case often: random letters (MLpWjDcp_bvGvkVHp), not a name
// (ClientSecret, api_key_value).
func randomLetters(t string) bool {
	st := statsOf(t)
	if st.lower+st.upper == 0 || st.sym > 2 {
		return false
	}
	if st.lower == 0 || st.upper == 0 {
		// one case (as the folded index text has it): no piece may read as a word
		for i := 0; i < len(t); i++ {
			if !tokenByte[t[i]] {
				return false
			}
		}
		return len(t) >= 10 && wordiness(t) == 0 && st.lower+st.upper >= len(t)/2
	}
	for i := 0; i < len(t); i++ {
		if !tokenByte[t[i]] {
			return false
		}
	}
	return wordiness(t) <= 0.3 && switchRate(t) >= 0.3
}

// charCallHints are the calls that turn a number into a character, as code joins them to hide a
// string: chr(112) in Python, Perl and PHP, CHAR(112) in SQL, [char]112 in PowerShell, Chr(112)
// in Visual Basic.
var charCallHints = []string{"chr(", "char(", "[char]"}

// scanCharCalls reads every chain of six or more character calls joined by an operator (+ || .
// & or a comma) as the text they spell, and hides the chain when the Redactor finds a secret in
// that text read after the words before it, or the text reads as a password on its own.
func scanCharCalls(s string, add func(start, end int), depth int) int {
	work := len(s)
	lower := strings.ToLower(s)
	// call reads one call at i: the character's value and where the call ends, or -1
	call := func(i int) (byte, int) {
		var p int
		switch {
		case strings.HasPrefix(lower[i:], "[char]"):
			p = i + 6
		case strings.HasPrefix(lower[i:], "chr("):
			p = i + 4
		case strings.HasPrefix(lower[i:], "char("):
			p = i + 5
		default:
			return 0, -1
		}
		if v, q, ok := byteValue(s, p); ok && v >= ' ' && v <= '~' {
			if lower[p-1] != '(' {
				return v, q
			}
			if q < len(s) && s[q] == ')' {
				return v, q + 1
			}
		}
		return 0, -1
	}
	done := 0
	for from := 0; ; {
		k := -1
		for _, h := range charCallHints {
			if x := strings.Index(lower[from:], h); x >= 0 && (k < 0 || from+x < k) {
				k = from + x
			}
		}
		if k < 0 {
			break
		}
		from = k + 1
		if k < done {
			continue
		}
		var dec []byte
		end := k
		for p := k; ; {
			v, q := call(p)
			if q < 0 {
				break
			}
			dec = append(dec, v)
			end = q
			for q < len(s) && s[q] == ' ' {
				q++
			}
			switch {
			case strings.HasPrefix(s[q:], "||"):
				q += 2
			case q < len(s) && strings.IndexByte("+.&,", s[q]) >= 0:
				q++
			default:
				q = -1
			}
			if q < 0 {
				break
			}
			for q < len(s) && s[q] == ' ' {
				q++
			}
			p = q
		}
		done = max(done, end)
		work += end - k
		if len(dec) < minSpaced {
			continue
		}
		lead := max(0, k-maxSpacedLead)
		for lead < k && !utf8.RuneStart(s[lead]) {
			lead++
		}
		spans, w := lookInside(s[lead:k]+string(dec), depth)
		work += w
		hidden := decodedSecret(string(dec))
		for _, sp := range spans {
			hidden = hidden || sp.end > k-lead
		}
		if !hidden && len(dec) >= 10 {
			var w int
			hidden, w = encodedSecret(dec, s, k, depth) // a token, or a value after a key word
			work += w
		}
		if hidden {
			add(k, end)
		}
		from = max(from, end)
	}
	return work
}

// emphasisHints are a key word's colon next to Markdown's emphasis or code marks: **password**:,
// *pw:*, __token__:, `key`:.
var emphasisHints = []string{"*:", ":*", "_:", ":_", "`:"}

// scanEmphasis drops Markdown's emphasis and code marks (* and `, and _ at a word's edge, not
// inside a name such as api_key) around each colon that follows a key word so marked, and hides,
// mapped back to s, what the Redactor finds in what is left: a key word in bold names the value
// after it as it does written plain. Only the window after such a key word is read again.
func scanEmphasis(s string, add func(start, end int), depth int) int {
	work := len(s)
	marks := func(c byte) bool { return c == '*' || c == '`' || c == '_' }
	done := 0
	for k := 0; k < len(s); k++ {
		if s[k] != ':' || !(k > 0 && marks(s[k-1]) || k+1 < len(s) && marks(s[k+1])) {
			continue
		}
		w := k
		for w > 0 && marks(s[w-1]) {
			w--
		}
		e := w
		for w > 0 && (isWordByte(s[w-1]) || s[w-1] == '-') && e-w < 32 {
			w--
		}
		if w == e || !contextWordSet()[strings.ToLower(strings.Trim(s[w:e], "_"))] {
			continue
		}
		from, to := max(w-maxSpacedLead, done), min(len(s), k+maxCodecWindow) // the words before too (API key)
		for from < w && !utf8.RuneStart(s[from]) {
			from++
		}
		for to < len(s) && !utf8.RuneStart(s[to]) {
			to++
		}
		done = to
		var b strings.Builder
		at := make([]int, 0, to-from+1)
		for i := from; i < to; i++ {
			c := s[i]
			if c == '*' || c == '`' || c == '_' && !(i > 0 && isWordByte(s[i-1]) && i+1 < len(s) && isWordByte(s[i+1])) {
				continue
			}
			b.WriteByte(c)
			at = append(at, i)
		}
		at = append(at, to)
		spans, w2 := lookInside(b.String(), depth)
		work += to - from + w2
		for _, sp := range spans {
			add(at[sp.start], at[sp.end])
		}
		k = to - 1
	}
	return work
}

// contextWordSet is the set of contextWords, each lowered, and of their last words.
var contextWordSet = sync.OnceValue(func() map[string]bool {
	set := map[string]bool{}
	for _, w := range contextWords {
		w = strings.ToLower(w)
		set[w] = true
		if i := strings.LastIndexByte(w, ' '); i >= 0 {
			set[w[i+1:]] = true
		}
	}
	return set
})
