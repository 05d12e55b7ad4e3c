package redact

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The password shape, part of the shape layer: a token a person made up as a password
// (wR4Kqw9#3NeZGg0, Summer2026!Dx, M0n$00nm3@d0w546, biscuit.pelican.4604!) is hidden wherever it
// stands, with or without a word naming it, so a password said in a language, a command or a
// config nobody listed is hidden too. Random tokens of the base64 and hex alphabets are the other
// half of the layer (shape.go); this half wants what those alphabets lack: a symbol.
//
// A piece is a run of printable ASCII without the characters code and prose delimit with
// (quotes, brackets, commas, semicolons, pipes, slashes, backslashes), cut after a leading
// name and a ':' or '=' (root:PW, SSHPASS=PW), and trimmed of a sentence's final stop. It is a
// password when it is pwMinLen to pwMaxLen characters long, holds a symbol (! @ # $ % ^ & * ? +
// = ~) after its first character, and mixes classes: letters with digits or both cases, the
// case or the digits changing at least pwMinSwitch times (Giraffe&1740-ggC), or words joined by
// dots or dashes before a number (mango.ember.4855?). It is not an e-mail address, a package at
// a version (react@^18.2.0), an expression of one- and two-letter names (x1+y2*z3), a format
// string, an operator (!=, &&, :=) or a flag.
const (
	pwMinLen    = 10
	pwMaxLen    = 64
	pwMinSwitch = 3
	// pwMinRandom: the shortest piece without a symbol judged as random (NAU81QwQBn.NGoa); the
	// shape layer judges those of shapeMinLen and more
	pwMinRandom = 12
	// pwMinShortRandom: the shortest piece without a symbol judged as random when its classes
	// change every other character and none of its letters reads as a word (84tnK5JQuk)
	pwMinShortRandom = 10
)

// pwByte: the characters of a piece.
var pwByte = func() (t [256]bool) {
	for c := 0x21; c < 0x7f; c++ {
		t[c] = strings.IndexByte("\"'`()[]{}<>,;|\\/", byte(c)) < 0
	}
	return t
}()

// pwSymbol: the symbols a made-up password carries.
var pwSymbol = func() (t [256]bool) {
	for _, c := range []byte("!@#$%^&*?+=~") {
		t[c] = true
	}
	return t
}()

// pwSym reports whether c, after prev, may be a password's symbol: one of pwSymbol, or a dash
// or an underscore after a digit (TornadoRaven419-, 4636_), which names and numbers rarely end in.
func pwSym(prev, c byte) bool {
	return pwSymbol[c] || (c == '-' || c == '_') && '0' <= prev && prev <= '9'
}

// pwLetter reports whether r, beyond ASCII, is a letter a password may hold: Latin, Greek and
// Cyrillic (Jeż.1606!Łoś, Медведь2980#Ёж). Scripts written without spaces are not: a password
// ends where they start.
func pwLetter(r rune) bool {
	return unicode.In(r, unicode.Latin, unicode.Greek, unicode.Cyrillic) && unicode.IsLetter(r)
}

// pwRuneSymbol reports whether r, beyond ASCII, is a symbol a password may hold: an emoji, a
// currency sign (Tundra🦄9961, Garçon_1437€Où), or the § of European keyboards (Noël.1883§Île).
func pwRuneSymbol(r rune) bool {
	return unicode.In(r, unicode.So, unicode.Sc) && r != 0xFFFD || r == '§' || r == '¤'
}

// pwRuneClass is pwClass for a letter beyond ASCII.
func pwRuneClass(r rune) uint8 {
	if unicode.IsUpper(r) {
		return 2
	}
	return 1
}

// pwClass is a character's class, as bits: lower, upper, digit (0 for any other).
func pwClass(c byte) uint8 {
	switch {
	case isLower(c):
		return 1
	case isUpper(c):
		return 2
	case '0' <= c && c <= '9':
		return 4
	}
	return 0
}

// scanPasswords reports every piece of s that reads as a made-up password.
func scanPasswords(s string, add func(start, end int)) int {
	for i := 0; i < len(s); {
		if !pwByte[s[i]] {
			if r, size := utf8.DecodeRuneInString(s[i:]); s[i] < utf8.RuneSelf || !pwLetter(r) && !pwRuneSymbol(r) {
				i += size
				continue
			}
		}
		j := i
		sym, classes := false, uint8(0)
		for j < len(s) {
			if c := s[j]; c >= utf8.RuneSelf {
				r, size := utf8.DecodeRuneInString(s[j:])
				switch {
				case pwLetter(r):
					classes |= pwRuneClass(r)
				case pwRuneSymbol(r):
					sym = sym || j > i
				default:
					goto end
				}
				j += size
				continue
			}
			if !pwByte[s[j]] {
				break
			}
			sym = sym || j > i && pwSym(s[j-1], s[j]) || dicewareDigit(s, i, j)
			classes |= pwClass(s[j])
			j++
		}
	end:
		if (sym || classes == 7 && j-i >= pwMinShortRandom || classes == 5 && j-i >= pwMinRandom) && j-i >= pwMinLen {
			// a ':' parts names and values (root:PW, x[i+1:n*2], :WB=MidNumLet): each part alone
			for a := i; a < j; {
				b := a
				for b < j && s[b] != ':' {
					b++
				}
				if b-a >= pwMinLen {
					passwordRun(s, a, b, add)
				}
				a = b + 1
			}
		}
		i = j
	}
	return len(s)
}

// passwordRun cuts the run s[a:b] after each leading name and '=' and judges the rest.
func passwordRun(s string, a, b int, add func(start, end int)) {
	if a > 0 && s[a-1] == '\\' {
		a += escapeLen(s[a:b]) // \u00b7?more: the escape is not part of what follows
	}
	named := a // where the value starts once a leading name and its = are cut off
	for {
		k := a
		for k < b && (isWordByte(s[k]) || s[k] == '-' || s[k] == '.') {
			k++
		}
		if k-a < 3 || k >= b-1 || s[k] != '=' || s[k+1] == '=' || s[k-1] == '-' || '0' <= s[k-1] && s[k-1] <= '9' && '0' <= s[k-2] && s[k-2] <= '9' || !numberOrName(strings.ReplaceAll(s[a:k], "-", "_")) {
			break // a value may hold an = (NTAsVtMv6u=sLEi); only a name before it is cut off
		}
		a = k + 1
		named = a
	}
	for b > a && s[b-1] == '.' {
		b--
	}
	// **bold** and _emphasis_ around a word are Markdown, not part of it; so is "+x+" around a
	// name (a concatenation)
	for b-a > 2 && strings.IndexByte("*_~+", s[a]) >= 0 && s[b-1] == s[a] {
		a, b = a+1, b-1
	}
	// !ok, &v, *p, !*p, +name: code's negation, address, pointer and concatenation before a name
	for k := a; k < b && strings.IndexByte("!&*+", s[k]) >= 0; k++ {
		if k+1 < b && isWordByte(s[k+1]) {
			a = k + 1
			break
		}
	}
	if b-a < pwMinLen || b-a > pwMaxLen {
		return
	}
	// a piece of a longer token (a base64 blob's segment between slashes) is the shape layer's
	u, v := a, b
	for u > 0 && tokenByte[s[u-1]] && !(u == named && s[u-1] == '=') {
		u-- // a value after name= stands alone: the name is not part of its token
	}
	for v < len(s) && tokenByte[s[v]] {
		v++
	}
	alone := v-u < shapeMinLen || u == a && v == b
	if !alone && harmlessShape(s, u, v) {
		return // a piece of a token the shape layer knows as harmless (h1:…, sha512-…, a digest)
	}
	if passwordPiece(s[a:b], alone) {
		add(a, b)
		return
	}
	// mysql -pS3cret!x, rar -hpX: a short flag glued to its value
	if s[a] == '-' && b-a > pwMinLen+2 && isLetter(s[a+1]) {
		for k := a + 2; k <= a+3 && k < b && isLetter(s[k-1]); k++ {
			if b-k >= pwMinLen && passwordPiece(s[k:b], alone) {
				add(k, b)
				return
			}
		}
	}
}

// passwordPiece reports whether t reads as a made-up password; alone says t is not part of a
// longer token, so it may be judged as random without a symbol.
func passwordPiece(t string, alone bool) bool {
	if t[0] == '-' || strings.Contains(t, "://") || phcHash(t) {
		return false // a flag, a URL, a password's hash
	}
	var lower, upper, digit, sym, switches, longest, piece int
	last := byte(0)
	for i, r := range t {
		c := t[i]
		var class byte
		switch {
		case r >= utf8.RuneSelf && pwRuneSymbol(r):
			if i > 0 {
				sym++
			}
			piece = 0
			continue
		case r >= utf8.RuneSelf && unicode.IsUpper(r):
			upper++
			class = 'u'
		case r >= utf8.RuneSelf:
			lower++
			class = 'l'
		case isLower(c):
			lower++
			class = 'l'
		case isUpper(c):
			upper++
			class = 'u'
		case '0' <= c && c <= '9':
			digit++
			class = 'd'
		default:
			if i > 0 && (pwSymbol[c] || i == len(t)-1 && pwSym(t[i-1], c)) {
				sym++ // a dash or an underscore only last (4636_), not between parts (a UUID's)
			}
			piece = 0
			continue
		}
		piece++
		longest = max(longest, piece)
		if last != 0 && class != last {
			switches++
		}
		last = class
	}
	if sym == 0 && len(t) < pwMinRandom {
		return alone && shortRandom(t, lower, upper, digit, switches) && !harmlessPiece(t) // only the strict short tier
	}
	if sym == 0 {
		return alone && (shortRandom(t, lower, upper, digit, switches) || humanPassphrase(t) || taggedPhrase(t) || gluedDiceware(t) || wordsAndNumber(t) || wordNumberTail(t)) && !harmlessPiece(t)
	}
	if lower+upper < 2 || longest <= 2 {
		return false
	}
	classes := 0
	for _, n := range []int{lower, upper, digit} {
		if n > 0 {
			classes++
		}
	}
	if classes < 2 {
		return false
	}
	need := pwMinSwitch
	if interiorSymbol(t) {
		need-- // summer2026!dx: a symbol between letters and digits is rarer in code than a case change
	}
	if digit == 0 {
		need++ // Johnson&Johnson: capitals alone change the case twice a word
	}
	if switches < need && !dicewarePiece(t) && !wordNumberSymbol(t) {
		return false
	}
	return !harmlessPiece(t)
}

// wordNumberSymbol reports whether t is the password people make most: one capitalised word
// of four letters or more, a number of two digits or more and one to three symbols or emoji,
// in any order (Summer2024!, Cobalt9357%, Tundra🦄9961, Glacier🌵5088🦄#). It changes class
// only twice, too seldom for the switch count, but names in code hold no symbol and prose
// puts a space before a number. A single ! or ? at the end may close a sentence, so it counts
// only after a number of three digits or more.
func wordNumberSymbol(t string) bool {
	words, letters, digits, symbols, segments := 0, 0, 0, 0, 0
	last := byte(0)
	for i, r := range t {
		var class byte
		switch {
		case r < utf8.RuneSelf && isLetter(byte(r)) || r >= utf8.RuneSelf && pwLetter(r):
			class = 'l'
			if last != 'l' {
				words++
				if !unicode.IsUpper(r) {
					return false
				}
			} else if unicode.IsUpper(r) {
				return false
			}
			letters++
		case r < utf8.RuneSelf && '0' <= r && r <= '9':
			class = 'd'
			digits++
		case r < utf8.RuneSelf && pwSymbol[t[i]] || r >= utf8.RuneSelf && pwRuneSymbol(r):
			class = 's'
			symbols++
		default:
			return false
		}
		if class != last {
			segments++
		}
		last = class
	}
	if words != 1 || letters < 4 || digits < 2 || symbols == 0 || symbols > 3 || segments > 5 {
		return false
	}
	if c := t[len(t)-1]; symbols == 1 && (c == '!' || c == '?') && digits < 3 {
		return false
	}
	return true
}

// dicewarePiece reports whether t is two or more words of three letters or more, joined by dots,
// dashes or underscores, then a number: the passphrases generators and people make.
func dicewarePiece(t string) bool {
	words, i := 0, 0
	for i < len(t) {
		j := i
		for j < len(t) && isLetter(t[j]) {
			j++
		}
		if j-i < 3 {
			break
		}
		words++
		if j == len(t) || strings.IndexByte(".-_", t[j]) < 0 {
			i = j
			break
		}
		i = j + 1
	}
	if words < 2 || i >= len(t) {
		return false
	}
	digits := 0
	for i < len(t) && '0' <= t[i] && t[i] <= '9' {
		digits++
		i++
	}
	return digits >= 2
}

// harmlessPiece reports the pieces of code and prose that have a password's classes: an e-mail
// address, a package at a version, an operator, a format string.
func harmlessPiece(t string) bool {
	for _, op := range []string{"!=", "==", "&&", "||", "+=", "-=", "*=", ":=", "=>", "->", "++", "::", "#!"} {
		if strings.Contains(t, op) {
			return true
		}
	}
	for i := strings.IndexByte(t, '%'); i >= 0 && i+1 < len(t); i = strings.IndexByte(t[i+1:], '%') + i + 1 {
		// a printf verb stands alone (%s, %d:, %v.); %qtn in a password is none
		if strings.IndexByte("sdvwqx", t[i+1]) >= 0 && (i+2 == len(t) || !isLetter(t[i+2]) && (t[i+2] < '0' || t[i+2] > '9')) {
			return true
		}
		if strings.IndexByte(t[i+1:], '%') < 0 {
			break
		}
	}
	if hasAnyPrefix(t, runtimeIDPrefixes) {
		return true // toolu_01Srch: a runtime's id of a tool call or a message
	}
	if expression(t) && !humanPassphrase(symbolsAsDashes(t)) && !wordsAndNumber(t) && !taggedPhrase(t) || anchor(t) || strings.Contains(t, "U+") || strings.Contains(t, "+incompatible") {
		return true // n+chunk-1, 10*time.Second, Page#method-get, U+0800-U+0FFF
	}
	if q := strings.IndexByte(t, '?'); q >= 0 && q+1 < len(t) && queryKey(t[q+1:]) && pathLike(t[:q]) {
		return true // a URL's query: watch?v=…&t=10s, ?id=…
	}
	if urlEscaped(t) || formatVerb(t) {
		return true // is%3Aissue, %#02x
	}
	if last := t[len(t)-1]; strings.IndexByte("+*&?!", last) >= 0 && numberOrName(t[:len(t)-1]) && (strings.IndexByte(t, '.') >= 0 || !strings.ContainsAny(t, "0123456789")) {
		return true // s.config.Path+, TrusteeValueFrom*: code broken across lines
	}
	if goSelector(t) {
		return true // cpu.X86.HasAVX2: a package's exported names, as Go code writes them
	}
	if base64Body(t) {
		return true // base64: the shape layer judges it, and decodes it
	}
	if h := strings.LastIndexByte(t, '#'); h > 0 && len(t)-h-1 >= 32 && isHexString(t[h+1:]) && fileExtension(t[:h]) {
		return true // react-5.17.2.tgz#121e…: a file and its checksum in a URL's fragment (yarn's resolved)
	}
	if screamingSnake(t) {
		return true // TLS_CHACHA20_POLY1305_SHA256: a constant's name, capitals and digits in words
	}
	if v := strings.TrimPrefix(t, "v"); len(v) > 2 && '0' <= v[0] && v[0] <= '9' && strings.IndexByte(v, '.') > 0 && allDigits(v[:strings.IndexByte(v, '.')]) {
		return true // a version: 0.1.0+1a2b3c4d, 1.2.3-rc.1+build
	}
	if at := strings.IndexByte(t, '@'); at > 0 && strings.IndexByte(t[at+1:], '@') < 0 {
		if rest := t[at+1:]; packageName(t[:at]) && versionLike(rest) || domainName(rest) {
			return true // name@1.2.3, react@^18, an e-mail address
		}
	}
	return false
}

// domainName reports whether s is a host name of two labels or more.
func domainName(s string) bool {
	labels := strings.Split(s, ".")
	if len(labels) < 2 {
		return false
	}
	for _, l := range labels {
		if l == "" {
			return false
		}
		for i := 0; i < len(l); i++ {
			if !(isLetter(l[i]) || '0' <= l[i] && l[i] <= '9' || l[i] == '-') {
				return false
			}
		}
	}
	return true
}

// expression reports whether t is operands joined by arithmetic and bit operators, each a
// number or a name as code writes names (info.Lines+1, m&fs.ModeDir, seed^0x9e37,
// k.Mods&^int64): not a password, whose letters change case at random (HtPUFxCvwR&pgND) and
// fall in no word.
func expression(t string) bool {
	const ops = "+*&^%-~"
	if st := statsOf(t); st.lower > 0 && st.upper > 0 && st.digit > 0 && st.lower+st.upper >= 10 && !strings.Contains(t, ".") && wordiness(t) == 0 {
		return false // ten letters of both cases and a digit, no word, no selector: random (fnstz+YICuwFXU3)
	}
	operands := 0
	for i := 0; i < len(t); {
		j := i
		for j < len(t) && strings.IndexByte(ops, t[j]) < 0 {
			j++
		}
		if j == i || !numberOrName(t[i:j]) {
			return false // an operator first, last, or three in a row; or an operand of no code
		}
		operands++
		if j == len(t) {
			break
		}
		k := j
		for k < len(t) && strings.IndexByte(ops, t[k]) >= 0 {
			k++
		}
		if k-j > 2 || k == len(t) {
			return false
		}
		i = k
	}
	return operands >= 2
}

// goSelector reports whether t is a chain of two selectors or more from a lower-case package or
// receiver name to exported names (cpu.X86.HasAVX2, os.Stdout.Fd): code, whose pieces are names,
// where a password joined by dots mixes its cases at random.
func goSelector(t string) bool {
	parts := strings.Split(t, ".")
	if len(parts) < 3 || parts[0] == "" || strings.ToLower(parts[0]) != parts[0] || !allLetters(parts[0]) {
		return false
	}
	for _, p := range parts[1:] {
		if p == "" || !isUpper(p[0]) {
			return false
		}
	}
	return numberOrName(t) && !humanPassphrase(t) && !wordsAndNumber(t)
}

// numberOrName reports whether t is a number (12, 0x9e37, 1.5, 1e9) or a name or selector of
// names as code writes them: most letters in camel-case or snake-case pieces of three letters or
// more (cmdText, fs.ModeDir, hasNonLatnMask), where a password's letters fall in ones and twos
// (HtPUFxCvwR).
func numberOrName(t string) bool {
	if '0' <= t[0] && t[0] <= '9' {
		if len(t) > 2 && (t[1] == 'x' || t[1] == 'X') {
			return isHexString(t[2:])
		}
		for i := 0; i < len(t); i++ {
			if !('0' <= t[i] && t[i] <= '9' || t[i] == '.' || t[i] == 'e') {
				return false
			}
		}
		return true
	}
	for _, part := range strings.Split(t, ".") {
		if part == "" || !isLetter(part[0]) && part[0] != '_' {
			return false
		}
		for i := 0; i < len(part); i++ {
			if !isWordByte(part[i]) {
				return false
			}
		}
		letters, inWords := camelPieces(part)
		if letters <= 3 && !shortName(part) || letters > 3 && inWords*10 < letters*6 {
			return false
		}
		if digitThenLower(part) >= 2 {
			return false // Rma8t2oPCX: digits between letters, twice
		}
	}
	return true
}

// camelPieces counts the letters of t, and those in pieces of three letters or more: t split at
// digits, underscores and case changes (parseHTTPRequest: parse, HTTP, Request).
func camelPieces(t string) (letters, inWords int) {
	camelSplit(t, func(w string) {
		letters += len(w)
		if len(w) >= 3 {
			inWords += len(w)
		}
	})
	return letters, inWords
}

// anchor reports whether t is a name, one #, and a fragment (Accessibility#method-getTree).
func anchor(t string) bool {
	h := strings.IndexByte(t, '#')
	if h <= 0 || h == len(t)-1 || !isLetter(t[h+1]) && t[h+1] != '_' || !numberOrName(strings.ReplaceAll(t[:h], "-", "_")) {
		return false
	}
	if frag := t[h+1:]; (len(frag) < 4 || isUpper(frag[0]) && '0' <= t[h-1] && t[h-1] <= '9') && strings.IndexByte(t[:h], '.') < 0 {
		return false // Winter2025#Fm7, Papaya47#Saffron: a number, #, a capital: a password's (mcp#Client is a doc's anchor)
	}
	if frag := t[h+1:]; bothCases(frag) && !numberOrName(strings.ReplaceAll(strings.ReplaceAll(frag, "-", "_"), ".", "_")) {
		return false // nthelkH#WD1WoV: a fragment mixing cases in ones and twos is no heading's or method's name
	}
	for i := 0; i < len(t); i++ {
		if i != h && !(isWordByte(t[i]) || t[i] == '-' || t[i] == '.') {
			return false
		}
	}
	return true
}

// queryKey reports whether s starts with a URL query's name and '=' (v=, id=, tab=).
func queryKey(s string) bool {
	i := 0
	for i < len(s) && (isWordByte(s[i]) || s[i] == '-' || s[i] == '.') {
		i++
	}
	return i > 0 && i < len(s) && s[i] == '='
}

// urlEscaped reports whether t holds a URL escape (%3A, %20): the structure layer decodes those.
func urlEscaped(t string) bool {
	escape := func(i int) (byte, bool) {
		if i < 0 || i+3 > len(t) || t[i] != '%' || !isHexString(t[i+1:i+3]) {
			return 0, false
		}
		return byte(hexDigit(t[i+1])<<4 | hexDigit(t[i+2])), true
	}
	for i := 0; i+2 < len(t); i++ {
		v, ok := escape(i)
		if !ok {
			continue
		}
		// what URLs escape: printable characters, tab and line breaks, and the bytes of UTF-8,
		// which come in runs of escapes; %16 or %93 alone is a password's % and digits
		_, before := escape(i - 3)
		_, after := escape(i + 3)
		if v >= 0x20 && v < 0x7f || v == '\t' || v == '\n' || v == '\r' || v >= 0x80 && (before || after) {
			return true
		}
	}
	return false
}

// formatVerbs are the letters of printf's conversions and Go's verbs.
const formatVerbs = "diouxXfFeEgGaAcspnvTtbqUw"

// formatVerb reports whether t holds a printf verb with flags (%#02x, %-8s).
func formatVerb(t string) bool {
	for i := 0; i+1 < len(t); i++ {
		if t[i] != '%' {
			continue
		}
		j, digits := i+1, 0
		for j < len(t) && (strings.IndexByte("#-+ 0.", t[j]) >= 0 || '0' <= t[j] && t[j] <= '9') {
			if '0' <= t[j] && t[j] <= '9' {
				digits++
			}
			j++
		}
		for k := j; k < len(t) && k < j+2 && strings.IndexByte("hlLqjz", t[k]) >= 0; k++ {
			j = k + 1 // a length modifier (%ld, %llu, %zu)
		}
		// a verb's width and precision are a few digits (%-8s, %08.3f), and its letter one of
		// printf's or Go's verbs; %1633B and %0VQ are a password's
		if j > i+1 && j < len(t) && strings.IndexByte(formatVerbs, t[j]) >= 0 && digits <= 3 {
			return true
		}
	}
	return false
}

// base64Body reports whether t is base64 the shape layer judges: padded, or long enough for it.
func base64Body(t string) bool {
	for i := 0; i < len(t); i++ {
		if !isB64(t[i]) && t[i] != '=' {
			return false
		}
	}
	return strings.HasSuffix(t, "=") && len(t)%4 == 0 || len(t) >= shapeMinLen
}

// escapeLen is the length of the backslash escape s starts with, its backslash already read:
// u and four hex digits, U and eight, x and two, or one character.
func escapeLen(s string) int {
	for _, e := range []struct {
		c byte
		n int
	}{{'u', 4}, {'U', 8}, {'x', 2}} {
		if len(s) > e.n && s[0] == e.c && isHexString(s[1:1+e.n]) {
			return 1 + e.n
		}
	}
	return min(1, len(s))
}

// interiorSymbol reports whether a password symbol of t stands between two letters or digits.
func interiorSymbol(t string) bool {
	for i := 1; i+1 < len(t); i++ {
		if pwSymbol[t[i]] && isWordByte(t[i-1]) && t[i-1] != '_' && isWordByte(t[i+1]) && t[i+1] != '_' {
			return true
		}
	}
	return false
}

// shortRandom reports whether t, with no symbol, is a random token too short for the shape
// layer: both cases and digits, the class changing at every third character or more often, and
// few letters in pieces that read as words (ueNeRX8eFrYF5nfRx_P, ASKr4pkEF4.GSlO).
func shortRandom(t string, lower, upper, digit, switches int) bool {
	if len(t) < pwMinRandom {
		// ten or eleven characters of three classes, changing class every other character, no
		// letters in words: a generated password (K9qKs5jsW5g); names are longer or wordier
		return len(t) >= pwMinShortRandom && lower > 0 && upper > 0 && digit > 0 && lower+upper+digit == len(t) &&
			switches*2 >= len(t) && wordiness(t) == 0 && !shortName(t) && !(t[0] == '0' && (t[1] == 'x' || t[1] == 'X'))
	}
	if upper == 0 && digit >= 3 && lower >= 5 && len(t) < shapeMinLen && lower+digit == len(t) && switches*4 >= len(t) {
		// small letters and digits mixed at random (k29amv0beyilkx577oi), as base36 keys and
		// generated passwords are: no letters in words, not hex, the classes changing every
		// fourth character or more often. Capitals and digits are left alone: serials, tracking
		// and order numbers are written so (1ZB043MD1IRSCCOBFC)
		st := statsOf(t)
		return !st.lowerHex && wordiness(t) <= 0.34 && entropyRatio(t, st) >= 0.85 && !(t[0] == '0' && t[1] == 'x')
	}
	if len(t) > shapeMinLen || lower == 0 || switches*3 < len(t) {
		return false
	}
	seps := 0
	for i := 0; i < len(t); i++ {
		if !isLetter(t[i]) && !('0' <= t[i] && t[i] <= '9') {
			seps++
		}
	}
	if seps > 2 {
		return false
	}
	if dot := strings.IndexByte(t, '.'); dot > 1 && strings.ToUpper(t[:dot]) == t[:dot] {
		return false // X86.HasAVX512BW, RISCV64.HasV: a capitalised package and a field
	}
	if t[0] == '0' && (t[1] == 'x' || t[1] == 'X') {
		return false // a hex number
	}
	if digit > 0 && upper > 0 && !isHexString(strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r == '.' {
			return -1
		}
		return r
	}, t)) && digitThenLower(t) >= 2 {
		return true // M34d0w391-nosb, Puzzl3563-o5JH: letters written as digits, twice or more
	}
	switch {
	case upper > 0 && digit > 0:
		// short random pieces hold short pieces that happen to read as words (LxPElowkuaq9oo);
		// a class change every other character or more often, with two digits, is random still
		return wordiness(t) <= 0.34 || switches*2 >= len(t) && digit >= 2 && wordiness(t) <= 0.5
	case upper > 0:
		return len(t) >= 14 && wordiness(t) <= 0.3 // gMjXfP-ARNPYQ-OAxcqp, KNCCXklr_GeyrZDnY
	}
	return false
}

// packageName reports whether s can be a package's name before @version (left-pad,
// @types/node, golang.org/x/text).
func packageName(s string) bool {
	for i := 0; i < len(s); i++ {
		if !(isLower(s[i]) || '0' <= s[i] && s[i] <= '9' || strings.IndexByte("-_./@", s[i]) >= 0) {
			return false
		}
	}
	return true
}

// versionLike reports whether s is a version or a range of one: 1.2.3, ^18.2.0, ~1, v2.0.0-rc.1.
func versionLike(s string) bool {
	s = strings.TrimLeft(s, "^~=<>")
	s = strings.TrimPrefix(s, "v")
	if s == "" || !('0' <= s[0] && s[0] <= '9') {
		return false
	}
	if n := len(s) - len(strings.TrimLeft(s, "0123456789")); n < len(s) && strings.IndexByte(".-+x", s[n]) < 0 && len(s)-n > 3 {
		return false // 2Y1iqivrCE after an @ is a password's tail, not a version (1.2.3, 18-beta, 2x)
	}
	for i := 0; i < len(s); i++ {
		if !(isWordByte(s[i]) || strings.IndexByte(".-+", s[i]) >= 0) {
			return false
		}
	}
	return true
}

// shortName reports whether t, of three letters or fewer, is written as code writes short names:
// one case, or a capital then lower case, digits only at the end (i, n2, ID, Op, x86).
func shortName(t string) bool {
	end := len(t)
	for end > 0 && '0' <= t[end-1] && t[end-1] <= '9' {
		end--
	}
	w := strings.TrimLeft(t[:end], "_")
	if strings.ContainsAny(w, "0123456789") {
		return w == "x86" || w == "utf8"
	}
	lowerAfter := w != "" && (strings.ToLower(w[1:]) == w[1:])
	return strings.ToLower(w) == w || strings.ToUpper(w) == w || isUpper(w[0]) && lowerAfter
}

// digitThenLower counts the places in t where a digit is followed by a lower-case letter.
func digitThenLower(t string) int {
	n := 0
	for i := 1; i < len(t); i++ {
		if isLower(t[i]) && '0' <= t[i-1] && t[i-1] <= '9' {
			n++
		}
	}
	return n
}

// humanPassphrase reports whether t is how people make a password from words: capitalised or
// lower-case words and a number, joined by - _ . or ~ (Granite-Crimson60, Ember_Bamboo49,
// Summer2024.Vx9, Marble2988-Cogur): two words of three letters or more, one with a capital, and
// digits. A name in code is camel-cased (TestFoo_Bar2) or has no digits; a host name is lower
// case (db-replica-2).
func humanPassphrase(t string) bool {
	if len(t) < pwMinLen || len(t) > 40 || strings.ContainsAny(t, "!@#$%^&*?+=") || !strings.ContainsAny(t, "-_.~") {
		return false
	}
	if dot := strings.IndexByte(t, '.'); dot > 0 && strings.ToLower(t[:dot]) == t[:dot] {
		return false // time.RFC3339Nano, sha256.Sum256: a package's name, then what it exports
	}
	words, capital, digits, groups := 0, false, 0, 0
	for i := 0; i < len(t); {
		c := t[i]
		switch {
		case isLetter(c):
			groups++
			j := i + 1
			for j < len(t) && isLower(t[j]) {
				j++
			}
			if j < len(t) && isUpper(t[j]) && j-i > 1 {
				return false // camel case inside a word: a name
			}
			if j-i >= 3 && (isUpper(c) || strings.ToLower(t[i:j]) == t[i:j]) {
				words++ // a word: Granite, bamboo (not a run of capitals: RFC, HTTP)
				capital = capital || isUpper(c)
			}
			for j < len(t) && isUpper(t[j]) {
				j++ // ZFR1D, Vx: a short capital tail
			}
			i = j
		case '0' <= c && c <= '9':
			digits++
			i++
		case strings.IndexByte("-_.~", c) >= 0:
			i++
		default:
			return false
		}
	}
	for i := 2; i < len(t); i++ {
		if '0' <= t[i-2] && t[i-2] <= '9' && isUpper(t[i-1]) && isLower(t[i]) {
			return false // Float64Flag, IPhone11Pro: a camel-cased name with a number inside
		}
	}
	// the last part ends in digits or starts with a capital (Crimson60, -Hn8): not a phrase
	// joined to a word (Base64-encoded)
	last := t[strings.LastIndexAny(t, "-_.~")+1:]
	if last == "" || !isUpper(last[0]) && !('0' <= last[len(last)-1] && last[len(last)-1] <= '9') {
		return false
	}
	return capital && digits >= 2 && (words >= 2 || words == 1 && digits >= 4 && groups >= 2)
}

// scanCodeLists reports runs of three or more blank-separated codes of one shape: two to four
// groups of 3 to 6 letters and digits joined by dashes, each code holding a digit, the groups
// the same lengths in every code (5aceb-36be4, A5YY-Q45J-YW22). Recovery codes come in such
// lists; dates (2024-01-02) and UUIDs have groups of other lengths.
func scanCodeLists(s string, add func(start, end int)) int {
	type code struct{ start, end int }
	var run []code
	shape := ""
	flush := func() {
		if len(run) >= 3 {
			for _, c := range run {
				add(c.start, c.end)
			}
		}
		run, shape = run[:0], ""
	}
	eachField(s, func(i, j int) {
		if mixedCode(s[i:j]) || letterQuads(s[i:j]) {
			add(codeBounds(s, i, j)) // 8DL6-ZYSL-K448, nkuf0-w3we2, jgcu-vmwz-lplx-ifji: a code even alone
		}
		if sh, ok := codeShape(s[i:j]); ok && (shape == "" || sh == shape) {
			shape = sh
			run = append(run, code{i, j})
		} else {
			flush()
			if sh, ok := codeShape(s[i:j]); ok {
				shape = sh
				run = append(run, code{i, j})
			}
		}
	})
	flush()
	return len(s)
}

// codeShape returns the group lengths of a recovery code ("5-5"), and whether t is one.
func codeShape(t string) (string, bool) {
	if len(t) < 7 || len(t) > 27 || strings.IndexByte(t, '-') < 0 {
		return "", false
	}
	groups := strings.Split(t, "-")
	if len(groups) < 2 || len(groups) > 4 {
		return "", false
	}
	var b strings.Builder
	digit := false
	for k, g := range groups {
		if len(g) < 3 || len(g) > 6 {
			return "", false
		}
		for i := 0; i < len(g); i++ {
			c := g[i]
			if !(isLetter(c) || '0' <= c && c <= '9') {
				return "", false
			}
			digit = digit || '0' <= c && c <= '9'
		}
		if k > 0 {
			b.WriteByte('-')
		}
		b.WriteByte(byte('0' + len(g)))
	}
	return b.String(), digit
}

// runtimeIDPrefixes start the ids agent runtimes give tool calls, messages and requests.
var runtimeIDPrefixes = []string{"toolu_", "srvtoolu_", "msg_", "call_", "req_", "resp_", "run_", "thread_", "asst_", "file_", "chatcmpl-", "fc_", "rs_"}

// scanGroupedSecrets reports keys written in groups of four between single spaces, as apps
// show them: a TOTP setup key (7ckh cu5r mrev mvk3 ihwo jzub), a Gmail app password (mrwq cyin
// abst ocqg), Google's backup codes (6677 7843 6932 2976 …). Four groups or more, most of them
// reading as no word; groups of digits alone only in a run of eight or more after "code".
func scanGroupedSecrets(s string, add func(start, end int)) int {
	pairs := englishPairs()
	for i := 0; i+19 <= len(s); {
		if !quad(s, i) || i > 0 && !isSpace(s[i-1]) && s[i-1] < utf8.RuneSelf && !strings.ContainsRune(":：'\"`(—-=", rune(s[i-1])) {
			i++
			continue
		}
		n, nonWord, digitsOnly := 0, 0, 0
		j := i
		for j+4 <= len(s) && quad(s, j) {
			g := s[j : j+4]
			n++
			if strings.Trim(g, "0123456789") == "" {
				digitsOnly++
			}
			if strings.ContainsAny(g, "0123456789") || !readsAsWord(g, pairs) {
				nonWord++
			}
			j += 4
			if j < len(s) && s[j] == ' ' && j+5 <= len(s) && quad(s, j+1) {
				j++
				continue
			}
			break
		}
		if fewSymbols(s[i:j]) {
			i = j // DE00 0000 0000 0000: a placeholder's groups
			continue
		}
		if digitsOnly < n && allHexGroups(s[i:j]) && strings.Contains(asciiLower(s[max(0, i-80):i]), "fingerprint") {
			i = j // Key fingerprint = 2CEE 94F4 …: a public key's fingerprint, printed for all to compare
			continue
		}
		switch {
		case digitsOnly == n && n >= 8 && strings.Contains(strings.ToLower(s[max(0, i-120):i]), "code"):
			add(i, j)
		case digitsOnly == n && n >= 4 && n <= 6 && j-i == 5*n-1 && secretWordBefore(asciiLower(s[max(0, i-40):i])):
			add(i, j) // ACCOUNT=4406 9464 4958 0859, Bearer 7445 0399 …: a number in groups of four, named a secret
		case digitsOnly < n && n >= 4 && nonWord*4 >= n*3:
			add(i, j)
		}
		i = j
	}
	return len(s)
}

// quad reports whether s[i:i+4] is four letters or digits ending a group (a blank, the end of
// s, or punctuation after it).
func quad(s string, i int) bool {
	if i+4 > len(s) {
		return false
	}
	for k := i; k < i+4; k++ {
		if !(isLetter(s[k]) || '0' <= s[k] && s[k] <= '9') {
			return false
		}
	}
	return i+4 == len(s) || !isWordByte(s[i+4]) && s[i+4] != '-'
}

// mixedCode reports whether t, trimmed of punctuation, is a recovery or licence code that needs
// no list around it: codeShape's groups, one of them mixing letters and digits, none of the
// letter groups reading as a word (arm64-linux, rc1-final are names).
func mixedCode(t string) bool {
	t = strings.Trim(t, ".,;:()[]'\"`")
	if _, ok := codeShape(t); !ok || len(t) < 9 || strings.Contains(strings.ToLower(t), "0x") {
		return false // CRC-32C, 0xEE-0xE3
	}
	pairs := englishPairs()
	mixed := false
	for _, g := range strings.Split(t, "-") {
		letters, digits := allLetters(g), allDigits(g)
		switch {
		case letters && readsAsWord(g, pairs):
			return false
		case !letters && !digits:
			mixed = true
		}
	}
	return mixed
}

// codeBounds trims the punctuation around a code at s[i:j].
func codeBounds(s string, i, j int) (int, int) {
	for i < j && strings.IndexByte(".,;:()[]'\"`", s[i]) >= 0 {
		i++
	}
	for j > i && strings.IndexByte(".,;:()[]'\"`", s[j-1]) >= 0 {
		j--
	}
	return i, j
}

// symbolsAsDashes is t with its password symbols written as dashes, so a password joined by a
// symbol (Janvier2025*Eg9) reads as one joined by a dash.
func symbolsAsDashes(t string) string {
	b := []byte(t)
	for i, c := range b {
		if pwSymbol[c] {
			b[i] = '-'
		}
	}
	return string(b)
}

// taggedPhrase reports a password made of words, a number and a short random tail, as password
// generators and people make them: Pixel6634_cnjTeP, Juniper0408-wUcuwN, zinnia.papaya.713Zi,
// kettle.thunder.8134O. The parts before the tail are words (one of them followed by two digits
// or more, or two or more lower-case words then the number); the tail mixes cases or letters
// and digits, which no version or name suffix does (-LTS, -slim, -rc1 are one case).
func taggedPhrase(t string) bool {
	if len(t) < pwMinLen || len(t) > 40 {
		return false
	}
	parts := strings.FieldsFunc(t, func(r rune) bool { return r == '-' || r == '_' || r == '.' || r == '~' })
	if len(parts) < 2 {
		return false
	}
	tail := parts[len(parts)-1]
	head := parts[:len(parts)-1]
	// the diceware form: lower-case words, then digits and a mixed tail glued (713Zi, 8134O)
	if len(head) >= 2 {
		words := 0
		for _, w := range head {
			if len(w) >= 3 && allLetters(w) && strings.ToLower(w) == w {
				words++
			}
		}
		d := 0
		for d < len(tail) && '0' <= tail[d] && tail[d] <= '9' {
			d++
		}
		if words == len(head) && d >= 2 && d < len(tail) && len(tail)-d <= 3 && isLetter(tail[d]) && allAlnum(tail[d:]) {
			return true // 713Zi, 448i3
		}
	}
	// the word-and-number form: Pixel6634_cnjTeP (not sha256.Sum256, kernel32.NewProc: a package
	// and what it exports)
	wordNumber := false
	for k, w := range head {
		l := 0
		for l < len(w) && isLetter(w[l]) {
			l++
		}
		if l >= 4 && len(w)-l >= 3 && allDigits(w[l:]) {
			wordNumber = true
			if strings.ToLower(w) == w && strings.Contains(t, w+".") && k == len(head)-1 {
				return false
			}
		}
	}
	// the word, number, tail form: Cinder_9615_aQZxW, Lagoon-6501-iGW5o (not Release_2024_Final:
	// the tail must change case inside, or mix letters and digits)
	if k := len(head) - 1; !wordNumber && k >= 1 && len(head[k]) >= 3 && allDigits(head[k]) && len(head[k-1]) >= 4 && allLetters(head[k-1]) && randomTail(tail) {
		wordNumber = true
	}
	if !wordNumber || len(tail) < 3 || len(tail) > 8 || isHexString(tail) {
		return false // a hex tail is an id's (build-0042-d04923d3)
	}
	var up, low, dig bool
	for i := 0; i < len(tail); i++ {
		switch c := tail[i]; {
		case isUpper(c):
			up = true
		case isLower(c):
			low = true
		case '0' <= c && c <= '9':
			dig = true
		default:
			return false
		}
	}
	return up && low || (up || low) && dig && !allDigits(tail)
}

// eachField calls fn with the bounds of each run of s between blanks, in order.
func eachField(s string, fn func(i, j int)) {
	for i := 0; i < len(s); {
		if isSpace(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && !isSpace(s[j]) {
			j++
		}
		fn(i, j)
		i = j
	}
}

func allAlnum(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isLetter(s[i]) && (s[i] < '0' || s[i] > '9') {
			return false
		}
	}
	return true
}

// dicewareDigit reports whether s[j] is a digit after a dot or a dash that follows a second word, eight
// characters or more into the piece at i: where words.words.448i3 turns to its number (what the
// screen's password run also counts).
func dicewareDigit(s string, i, j int) bool {
	if j-i < 8 || s[j] < '0' || s[j] > '9' {
		return false
	}
	if (s[j-1] == '.' || s[j-1] == '-') && isLower(s[j-2]) {
		return strings.IndexByte(s[i:j-1], s[j-1]) > 0 // two words at least: not reserved-1F0D0
	}
	// glued to the third word: cobalt.cobalt.yonder81
	return isLower(s[j-1]) && (strings.Count(s[i:j], ".") >= 2 || strings.Count(s[i:j], "-") >= 2)
}

// randomTail reports whether a passphrase's last part changes case inside it or mixes letters
// and digits (aQZxW, iGW5o), as no word and no version suffix does.
func randomTail(t string) bool {
	switches, letters, digits := 0, 0, 0
	for i := 0; i < len(t); i++ {
		switch c := t[i]; {
		case isLetter(c):
			letters++
			if i > 0 && isLetter(t[i-1]) && isUpper(c) != isUpper(t[i-1]) && !(i == 1 && isUpper(t[0])) {
				switches++
			}
		case '0' <= c && c <= '9':
			digits++
		default:
			return false
		}
	}
	return switches >= 2 || letters > 0 && digits > 0
}

// gluedDiceware reports whether t is three or more lower-case words joined by one separator (a
// dot or a dash), the last with two digits glued (cobalt.cobalt.yonder81): a passphrase, where
// a dotted name ending in a number (crypto.subtle.sha256, golang.encoding.base64) is none.
func gluedDiceware(t string) bool {
	if len(t) < 12 || len(t) < 3 || t[len(t)-1] < '0' || t[len(t)-1] > '9' || t[len(t)-2] < '0' || t[len(t)-2] > '9' || len(t) > 2 && '0' <= t[len(t)-3] && t[len(t)-3] <= '9' {
		return false
	}
	body := t[:len(t)-2]
	sep := "."
	if strings.Count(body, "-") > strings.Count(body, ".") {
		sep = "-"
	}
	words := strings.Split(body, sep)
	if len(words) < 3 {
		return false
	}
	for _, w := range words {
		if len(w) < 3 || !allLetters(w) || strings.ToLower(w) != w {
			return false
		}
	}
	switch words[len(words)-1] {
	case "base", "int", "uint", "float", "utf", "sha", "md", "crc", "blake", "ipv", "mp", "http", "python", "go":
		return false
	}
	return true
}

// pathLike reports whether p may be what comes before a URL's query: a path or a host of
// letters, digits and / . - _ : ~ (7UF+^iH before ?pWE= is none).
func pathLike(p string) bool {
	for i := 0; i < len(p); i++ {
		if c := p[i]; !isWordByte(c) && strings.IndexByte("/.-:~%", c) < 0 {
			return false
		}
	}
	return true
}

// wordsAndNumber reports whether t is three or more lower-case words of four letters or more,
// then a number of two or three digits, all joined by one dash or dot (nautilus-anvil-caravel-227),
// as passphrase generators make them; names of things (kube-proxy-config-12, web-server-pod-01)
// carry a word of the trade and are none.
func wordsAndNumber(t string) bool {
	sep := byte('-')
	if strings.Count(t, ".") > strings.Count(t, "-") {
		sep = '.'
	}
	parts := strings.Split(t, string(sep))
	if len(parts) < 4 {
		return false
	}
	num := parts[len(parts)-1]
	if len(num) < 2 || len(num) > 3 || !allDigits(num) {
		return false
	}
	for _, w := range parts[:len(parts)-1] {
		if len(w) < 4 || !allLetters(w) || strings.ToLower(w) != w || tradeWords[w] {
			return false
		}
	}
	return true
}

// tradeWords are the words names of machines, services and files are made of.
var tradeWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields("node pod server service deployment proxy config test prod staging stage release build deploy cluster redis nginx kube docker image file data backup worker master main replica shard region zone east west north south front frontend backend admin user users team group host hosts mail cache queue stream topic bucket table index logs metrics alpha beta canary stable latest version patch minor major debian ubuntu alpine linux darwin windows arm64 amd64 intel core base slim full lite blue green black white gray grey part page item list step task jobs cron daily weekly nightly") {
		m[w] = true
	}
	return m
}()

// fileExtension reports whether t ends with a file name's extension: a dot and one to four
// letters or digits, at least one a letter, after a name (pkg-1.2.3.tgz, lib.tar.gz).
func fileExtension(t string) bool {
	d := strings.LastIndexByte(t, '.')
	if d <= 0 || len(t)-d-1 < 1 || len(t)-d-1 > 4 {
		return false
	}
	ext := t[d+1:]
	return allAlnum(ext) && !allDigits(ext)
}

// screamingSnake reports whether t is a constant's name in upper snake case: three words or more
// between underscores, each capitals with digits after them or digits alone, two of them of
// three capitals or more (TLS_CHACHA20_POLY1305_SHA256, ERR_SSL_V3_ALERT). A password has small
// letters, or symbols other than underscores, or letters and digits mixed at random.
func screamingSnake(t string) bool {
	parts := strings.Split(t, "_")
	if len(parts) < 3 {
		return false
	}
	long := 0
	for _, p := range parts {
		k := 0
		for k < len(p) && isUpper(p[k]) {
			k++
		}
		if p == "" || k < len(p) && !allDigits(p[k:]) {
			return false
		}
		if k >= 3 {
			long++
		}
	}
	return long >= 2
}

// allHexGroups reports whether t is groups of hexadecimal digits between blanks.
func allHexGroups(t string) bool {
	for _, g := range strings.Fields(t) {
		if !isHexString(g) {
			return false
		}
	}
	return true
}

// secretWordBefore reports whether lower, the text just before a number in groups, names a
// secret or an account it logs into.
func secretWordBefore(lower string) bool {
	for _, w := range []string{"account", "bearer", "token", "key", "secret", "password", "login", "pin"} {
		if strings.Contains(lower, w) {
			return true
		}
	}
	return false
}

// letterQuads reports whether t, trimmed of punctuation, is four groups of four small letters
// joined by dashes, three of them or more reading as no word: the shape of generated
// app passwords (jgcu-vmwz-lplx-ifji). Names joined by dashes read as words (test-case-file-name).
func letterQuads(t string) bool {
	t = strings.Trim(t, ".,;:()[]'\"`")
	if len(t) != 19 {
		return false
	}
	pairs := englishPairs()
	nonWord := 0
	for k, g := range strings.Split(t, "-") {
		if k > 3 || len(g) != 4 || distinctBytes(g) < 2 {
			return false // xxxx-xxxx-xxxx-xxxx: the mark of where a code goes
		}
		for i := 0; i < 4; i++ {
			if !isLower(g[i]) {
				return false
			}
		}
		if !readsAsWord(g, pairs) {
			nonWord++
		}
	}
	return nonWord >= 3
}
