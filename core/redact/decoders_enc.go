package redact

import (
	"encoding/base64"
	"strings"
	"unicode/utf8"
)

// Decoders of encodings written without a frame of their own (a byte array in code, a run of
// HTML character references or of backslash escapes, a data: URL), and the test they share: a
// run of encoded bytes is hidden whole, its constructor, delimiters and all, since any part of
// it left beside a hidden part would still be findable.

// encodedSecret reports whether text decoded from a run that starts at at in s is a secret: one
// token that reads as a password (decodedSecret) or mixes three classes of characters
// (namedToken: nobody writes a word as byte values or entities but to hide it), a value after a
// word naming a key (encodedValue), or text in which the Redactor finds a secret when read after
// the words before the run (password (encoded): …). Bytes that are not text stay: code writes
// tables and test vectors as byte arrays.
func encodedSecret(dec []byte, s string, at, depth int) (bool, int) {
	if !printableText(dec) {
		return false, 0
	}
	// structured text (a JWT's header, {"alg":"HS256"}) mixes classes as a token does but is none
	structured := strings.IndexByte("{[<", dec[0]) >= 0 || strings.Count(string(dec), `"`) >= 2
	if decodedSecret(string(dec)) || !structured && (namedToken(dec) || keyWordWithin(s, at, maxKeyWordReach) && encodedValue(dec)) {
		return true, 0
	}
	from := max(0, at-maxSpacedLead)
	for from < at && !utf8.RuneStart(s[from]) {
		from++
	}
	spans, w := lookInside(s[from:at]+string(dec), depth)
	for _, sp := range spans {
		// a span inside the decoded text, or over all of it: one from the words before that
		// ends inside it is a token of theirs glued to it (=?UTF-8?B? and Hello,)
		if sp.start >= at-from || sp.end >= at-from+len(dec) {
			return true, w
		}
	}
	return false, w
}

// maxKeyWordReach is how far before an encoded value a word naming a key is looked for: the
// call or the literal around the value (bytes.fromhex('…'), UNHEX('…')) stands between them.
const maxKeyWordReach = 96

// encodedValue reports whether dec is one value of 10 to 64 characters without blanks that holds
// letters and digits or random letters: what an encoded run after a word naming a key (token …
// raw=57 5A 41 …) carries when it carries the key.
func encodedValue(dec []byte) bool {
	if len(dec) < 10 || len(dec) > 64 {
		return false
	}
	st := statsOf(string(dec))
	for _, c := range dec {
		if c <= ' ' || c > '~' {
			return false
		}
	}
	// letters and digits, or letters of both cases that change case as random letters do
	return st.lower+st.upper > 0 && st.digit > 0 || st.lower >= 3 && st.upper >= 3 && switchRate(string(dec)) >= 0.3 && !camelHumps(string(dec))
}

// byteTypeWords are the words of a byte array's constructor (new byte[]{, []byte{, [UInt8](,
// bytes(, bytearray(, Uint8Array.of(, vec![, &[u8]): one must stand in the words read as it.
var byteTypeWords = []string{"byte", "u8", "uint8", "int8", "char", "vec!", "buffer", "array", "bytes", "data"}

// maxConstructor is how many bytes before a byte list's bracket are read as its constructor.
const maxConstructor = 32

// byteLiteral widens the byte list whose opening bracket is at open and whose last value ends at
// p to the whole literal: the constructor before it (new byte[]{, [UInt8]([, bytes([) and the
// closing brackets after it, each closer of an opener the constructor left open.
func byteLiteral(s string, open, p int) (int, int) {
	start := open
	if start >= 2 && s[start-1] == ' ' && (s[start-2] == ']' || s[start-2] == ')') {
		start-- // C#'s new byte[] { … }, one blank before the brace
	}
	for start > 0 && open-start < maxConstructor {
		c := s[start-1]
		if isWordByte(c) || strings.IndexByte("[]()<>!&*.", c) >= 0 || c == ':' && start > 1 && s[start-2] == ':' {
			start--
			if c == ':' {
				start--
			}
			continue
		}
		break
	}
	if start >= 4 && s[start-1] == ' ' && strings.HasSuffix(s[:start-1], "new") && (start == 4 || !isWordByte(s[start-5])) {
		start -= 4 // Java's and C#'s new byte[]{…}
	}
	ctor := strings.ToLower(s[start:open])
	known := false
	for _, w := range byteTypeWords {
		known = known || strings.Contains(ctor, w)
	}
	if !known || strings.ContainsAny(ctor, "{}") {
		start = open // no constructor, or a block's text: the list alone
	}
	var openers []byte // the constructor's openers left unclosed ([UInt8]( leaves its parenthesis)
	for i := start; i < open; i++ {
		switch c := s[i]; c {
		case '(', '[', '{':
			openers = append(openers, c)
		case ')', ']', '}':
			if n := len(openers); n > 0 && closerOf(openers[n-1]) == c {
				openers = openers[:n-1]
			}
		}
	}
	closers := []byte{closerOf(s[open])}
	for k := len(openers) - 1; k >= 0; k-- {
		closers = append(closers, closerOf(openers[k]))
	}
	end := p
	for _, c := range closers {
		q := end
		for q < len(s) && (s[q] == ' ' || s[q] == '\n' || s[q] == '\t' || s[q] == '\r' || s[q] == ',' && q == end) {
			q++
		}
		if q >= len(s) || s[q] != c {
			break
		}
		end = q + 1
	}
	return start, end
}

func closerOf(c byte) byte {
	switch c {
	case '(':
		return ')'
	case '[':
		return ']'
	}
	return '}'
}

// escapeRunHints open a character reference, a backslash escape of a byte or a character, or a
// quoted-printable byte of a printable character (=2x to =7x).
var escapeRunHints = []string{"&#", `\x`, `\u`, `\0`, `\1`, `\2`, `\3`, "=2", "=3", "=4", "=5", "=6", "=7"}

// minEscapeRun and maxEscapeValue bound the runs of escapes read as one encoded value: from
// eight escapes to a value of 128 bytes, a password's or a token's length.
const (
	minEscapeRun   = 8
	maxEscapeValue = 128
)

// escapeAt decodes one escape at i: an HTML or XML numeric character reference (&#83; &#x51;),
// a backslash escape of a byte in hex or octal (\x41, \101), a quoted-printable byte (=41) or
// a backslash escape of a character (\u0041, \u{41}). It returns the character or the byte
// (raw), and the escape's length, 0 if none is at i.
func escapeAt(s string, i int) (r rune, raw bool, n int) {
	switch {
	case s[i] == '&' && i+2 < len(s) && s[i+1] == '#':
		if r, n := htmlEntity(s[i:]); n > 0 {
			return r, false, n
		}
	case s[i] == '\\' && i+3 < len(s) && s[i+1] == 'x' && isHexString(s[i+2:i+4]):
		return rune(unhex(s[i+2])<<4 | unhex(s[i+3])), true, 4
	case s[i] == '\\' && i+3 < len(s) && '0' <= s[i+1] && s[i+1] <= '3' && isOctal(s[i+2]) && isOctal(s[i+3]):
		return rune((s[i+1]-'0')<<6 | (s[i+2]-'0')<<3 | (s[i+3] - '0')), true, 4
	case s[i] == '=' && i+2 < len(s) && isUpperHex(s[i+1]) && isUpperHex(s[i+2]):
		return rune(unhex(s[i+1])<<4 | unhex(s[i+2])), true, 3 // quoted-printable, as mail writes a byte
	case s[i] == '\\' && i+3 < len(s) && s[i+1] == 'u' && s[i+2] == '{':
		if r, n := braceEscape(s[i:]); n > 0 {
			return r, false, n // ES2015's and Rust's \u{4b}
		}
	case s[i] == '\\' && i+5 < len(s) && s[i+1] == 'u' && isHexString(s[i+2:i+6]):
		return rune(unhex(s[i+2]))<<12 | rune(unhex(s[i+3]))<<8 | rune(unhex(s[i+4]))<<4 | rune(unhex(s[i+5])), false, 6
	}
	return 0, false, 0
}

// scanEscapeRuns decodes every run of minEscapeRun or more escapes with nothing between them (a
// value written all as character references or as a shell's $'\101\102…') and hides the run
// whole, with the $'…' quoting around it, when its bytes are a secret. decode_escapes hides what
// the Redactor finds in the decoded text; this hides what reads as a secret only once decoded.
func scanEscapeRuns(s string, add func(start, end int), depth int) int {
	work := len(s)
	for i := 0; i < len(s); i++ {
		if s[i] != '&' && s[i] != '\\' && s[i] != '=' {
			continue
		}
		var dec []byte
		j, n := i, 0
		for j < len(s) {
			r, raw, k := escapeAt(s, j)
			if k == 0 {
				break
			}
			switch {
			case len(dec) > maxEscapeValue:
			case raw:
				dec = append(dec, byte(r))
			default:
				dec = utf8.AppendRune(dec, r)
			}
			j += k
			n++
		}
		if n < minEscapeRun || len(dec) > maxEscapeValue || strings.ContainsAny(string(dec), " \t\n") {
			// a longer run, or one of words, is text: decode_escapes reads it whole
			if n > 0 {
				i = j - 1
			}
			continue
		}
		start, end := i, j
		if start >= 2 && s[start-2:start] == "$'" && end < len(s) && s[end] == '\'' {
			start, end = start-2, end+1 // bash's ANSI-C quoting
		}
		hide, w := encodedSecret(dec, s, start, depth)
		work += w + j - i
		if hide {
			add(start, end)
		}
		i = j - 1
	}
	return work
}

// dataURLHints open a data: URL whose payload is base64.
var dataURLHints = []string{";base64,"}

// scanDataURLs decodes the payload of every data: URL in base64 (data:text/plain;base64,…) and
// hides the whole URL when the payload is a secret: its media type is part of what was written
// to carry the secret, and would be a fragment of it left.
func scanDataURLs(s string, add func(start, end int), depth int) int {
	work := len(s)
	for from := 0; ; {
		k := strings.Index(s[from:], ";base64,")
		if k < 0 {
			return work
		}
		k += from
		from = k + len(";base64,")
		start := k
		for start > 0 && k-start < 128 && (isWordByte(s[start-1]) || strings.IndexByte("/.+-;=:", s[start-1]) >= 0) {
			start--
		}
		d := strings.Index(strings.ToLower(s[start:k]), "data:")
		if d < 0 {
			continue
		}
		start += d
		end := from
		for end < len(s) && (isB64Any(s[end]) || s[end] == '=') {
			end++
		}
		body := strings.TrimRight(s[from:end], "=")
		dec, err := base64.RawStdEncoding.DecodeString(strings.NewReplacer("-", "+", "_", "/").Replace(body))
		if err != nil || len(dec) < 8 {
			continue
		}
		work += end - from
		hide, w := encodedSecret(dec, s, start, depth)
		work += w
		if hide {
			add(start, end)
		}
	}
}

// decodeCallWords name the calls that decode a literal written in them (bytes.fromhex,
// base64.b64decode, atob, Buffer.from, hex.DecodeString, UNHEX, FROM_BASE64, unhexlify).
var decodeCallWords = []string{"hex", "base64", "b64", "atob", "decode", "from", "b32", "b85", "a85"}

// maxCallTail is how many bytes after a literal its call's other arguments may take (, 'hex')).
const maxCallTail = 24

// decodeCall widens the encoded literal s[start:end] to the decoding call written around it
// (bytes.fromhex('…'), UNHEX('…'), Buffer.from("…", "base64")): the call says what the literal
// is, and its name left beside a hidden part would be a fragment of the secret as written.
func decodeCall(s string, start, end int) (int, int) {
	if start < 3 || end >= len(s) || s[start-1] != s[end] || s[end] != '\'' && s[end] != '"' || s[start-2] != '(' {
		return start, end
	}
	name := start - 2
	for name > 0 && start-2-name < maxConstructor && (isWordByte(s[name-1]) || s[name-1] == '.') {
		name--
	}
	fn := strings.ToLower(s[name : start-2])
	known := false
	for _, w := range decodeCallWords {
		known = known || strings.Contains(fn, w)
	}
	if !known {
		return start, end
	}
	close := strings.IndexByte(s[end+1:min(len(s), end+1+maxCallTail)], ')')
	if close < 0 || strings.ContainsAny(s[end+1:end+1+close], "()\n") {
		return start, end
	}
	return name, end + 1 + close + 1
}

// encodedWord widens the base64 s[start:end] to the MIME encoded-word around it
// (=?UTF-8?B?…?=, as mail headers carry text): its charset and markers are of the value.
func encodedWord(s string, start, end int) (int, int) {
	if start < 5 || !strings.EqualFold(s[start-3:start], "?B?") || !strings.HasPrefix(s[end:], "?=") {
		return start, end
	}
	open := strings.LastIndex(s[max(0, start-48):start-3], "=?")
	if open < 0 {
		return start, end
	}
	open += max(0, start-48)
	for i := open + 2; i < start-3; i++ {
		if !isWordByte(s[i]) && s[i] != '-' {
			return start, end // a charset's name: letters, digits and dashes
		}
	}
	return open, end + 2
}

// encodedFrame widens an encoded literal to what frames it: a decoding call or a MIME word.
func encodedFrame(s string, start, end int) (int, int) {
	if a, b := encodedWord(s, start, end); a != start {
		return a, b
	}
	return decodeCall(s, start, end)
}
