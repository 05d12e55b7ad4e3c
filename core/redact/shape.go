package redact

import (
	"cmp"
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// The shape layer: a token that looks random is a secret whatever its prefix, so a key of a
// kind no rule names is hidden too.
//
// A token is a maximal run of the characters of the base64, base64url, base62, hex and bech32
// alphabets and the separators real tokens carry (- _ . ~ + / =), split where prose and code
// glue words on: at an = that is not padding (key=value), and without the separators a sentence
// or a path puts around it (a final full stop, a trailing slash). A token is random when
//
//   - it is long: shapeMinLen characters, shapeMinHex when it is all hexadecimal (shorter hex
//     runs are ids, colours and short hashes);
//   - it mixes classes: letters and digits, or both cases of letters with a digit or a
//     separator, and letters are at least a quarter of its letters and digits (numbers, dates,
//     versions and addresses are mostly digits);
//   - its characters are spread over its alphabet: the Shannon entropy per character is at least
//     shapeMinEntropy of what the alphabet and the length allow (log2 of the smaller);
//   - it is not made of words: at most shapeMaxWordy of its characters are in pieces that read
//     as words (a camelCase or snake_case identifier, a path, pkg.FuncName, a host name);
//
// and it is none of the harmless shapes (harmlessShape): UUIDs, hashes named as hashes, Go
// pseudo-versions, runs of consecutive characters (an alphabet written out), base64 of a
// picture, font or archive, and base64 of text (the structure layer decodes that and looks for
// secrets inside).
//
// The thresholds were measured (shape_test.go, TestShapeThresholds, and the figures in the commit
// that added them): on the .go and .md files of the Go module cache, under 0.05 % of words are
// hidden; random tokens of 20 characters or more of every alphabet are hidden.
const (
	shapeMinLen     = 20
	shapeMinHex     = 32
	shapeMinEntropy = 0.75
	shapeMaxWordy   = 0.5
	// shapeMinSwitch: the share of expectedSwitchRate a random token reaches
	shapeMinSwitch = 0.4
	// shapeRandomSwitch, shapeMaxWordyRandom: a token whose class changes at this share of
	// expectedSwitchRate or more may have this share of its letters in word-like pieces
	shapeRandomSwitch   = 0.7
	shapeMaxWordyRandom = 0.65
	// shapeMaxToken: a longer token is only looked at in its '/' segments and as base64 by the
	// structure layer, so a run of megabytes costs one pass.
	shapeMaxToken = 1 << 14
)

// tokenByte: the characters of a token.
var tokenByte = func() (t [256]bool) {
	for c := 0; c < 256; c++ {
		t[c] = isWordByte(byte(c)) || strings.IndexByte("-.~+/=", byte(c)) >= 0
	}
	return t
}()

// scanShape reports every random token of s.
func scanShape(s string, add func(start, end int)) int {
	work := 0
	pub, w := publicPEMBodies(s)
	work += w
	add0 := add
	if len(pub) > 0 {
		add = func(start, end int) {
			// the first body ending after start
			k, _ := slices.BinarySearchFunc(pub, start, func(p span, x int) int { return cmp.Compare(p.end, x+1) })
			if k < len(pub) && pub[k].start <= start {
				return // the body of a certificate or a public key
			}
			add0(start, end)
		}
	}
	for i := 0; i < len(s); {
		if !tokenByte[s[i]] {
			i++
			continue
		}
		j := i
		for j < len(s) && tokenByte[s[j]] {
			j++
		}
		if j-i >= shapeMinLen {
			work += shapeRun(s, i, j, add)
		}
		i = j
	}
	return len(s) + work
}

// shapeRun splits the run s[i:j] at every = that is not padding and judges each part.
func shapeRun(s string, i, j int, add func(start, end int)) int {
	work := 0
	start := i
	for k := i; k <= j; k++ {
		if k < j && !(s[k] == '=' && k+1 < j && s[k+1] != '=') {
			continue
		}
		if k-start >= shapeMinLen {
			work += shapePart(s, start, k, add)
		}
		start = k + 1
	}
	return work
}

// shapePart judges one part of a run, trimmed of the separators prose puts around a word; a part
// that is not random as a whole may still hold a random '/' segment (a token in a URL's path).
func shapePart(s string, a, b int, add func(start, end int)) int {
	for a < b && strings.IndexByte("-._~/+", s[a]) >= 0 {
		a++
	}
	for b > a && strings.IndexByte("-._~/+", s[b-1]) >= 0 {
		b--
	}
	if b-a < shapeMinLen {
		return 0
	}
	work := b - a
	t := s[a:b]
	// a token with a slash and a dot, dash, underscore or tilde is a path or a URL, not base64:
	// only its segments are judged
	path := strings.IndexByte(t, '/') >= 0 && (strings.ContainsAny(t, ".-_~") || hasWordSegment(t))
	if !path && len(t) <= shapeMaxToken && randomToken(t) && !harmlessShape(s, a, b) {
		add(a, b)
		if e := wrappedContinuation(s, b, t); e > b {
			add(b, e)
		}
		return work
	}
	if strings.IndexByte(t, '/') < 0 || len(t) <= shapeMaxToken && harmlessShape(s, a, b) {
		return work
	}
	for p := a; p < b; {
		q := p
		for q < b && s[q] != '/' {
			q++
		}
		if q-p >= shapeMinLen && (path || q-p < b-a) {
			work += q - p
			u, v := p, q
			for u < v && strings.IndexByte("-._~+", s[u]) >= 0 {
				u++
			}
			for v > u && strings.IndexByte("-._~+", s[v-1]) >= 0 {
				v--
			}
			if v-u >= shapeMinLen && v-u <= shapeMaxToken && randomToken(s[u:v]) && !harmlessShape(s, u, v) {
				add(u, v)
			}
		}
		p = q + 1
	}
	return work
}

// tokenStats are the character classes of a token.
type tokenStats struct {
	lower, upper, digit, sym int
	lowerHex, upperHex       bool // every letter is a hex digit of one case
	base32Digits             bool // every digit is one of base32's, 2 to 7
}

func statsOf(t string) tokenStats {
	st := tokenStats{lowerHex: true, upperHex: true, base32Digits: true}
	for i := 0; i < len(t); i++ {
		c := t[i]
		switch {
		case 'a' <= c && c <= 'z':
			st.lower++
			st.upperHex = false
			if c > 'f' {
				st.lowerHex = false
			}
		case 'A' <= c && c <= 'Z':
			st.upper++
			st.lowerHex = false
			if c > 'F' {
				st.upperHex = false
			}
		case '0' <= c && c <= '9':
			st.digit++
			st.base32Digits = st.base32Digits && '2' <= c && c <= '7'
		default:
			st.sym++
			st.lowerHex, st.upperHex = false, false
		}
	}
	return st
}

// randomToken reports whether t has the shape of a random token: long, of mixed classes, with its
// characters spread over its alphabet and not made of words.
func randomToken(t string) bool {
	if h, ok := separatedHex(t); ok {
		return randomToken(h) // sk1_<hex>, api-<HEX>, <hex>-<hex>-<hex>: judged as the hex it holds
	}
	st := statsOf(t)
	letters := st.lower + st.upper
	alnum := letters + st.digit
	hex := (st.lowerHex || st.upperHex) && st.digit > 0 && letters > 0
	switch {
	case hex:
		if len(t) < shapeMinHex {
			return false
		}
	case letters*4 < alnum || alnum*2 < len(t):
		return false // mostly digits (numbers, dates, versions, addresses) or separators
	case st.digit > 0 && letters > 0:
	case st.lower > 0 && st.upper > 0 && st.sym > 0:
		// letters of both cases and a separator, no digit: base64url of 20 or more characters
		// nearly always holds a digit, so ask for more
		if len(t) < 2*shapeMinLen {
			return false
		}
	default:
		return false // one class: a word, a number, a run of capitals
	}
	if !hex && shortHexID(t) {
		return false
	}
	if entropyRatio(t, st) < shapeMinEntropy {
		return false
	}
	sw, want := switchRate(t), expectedSwitchRate(st)
	if sequential(t) || sw < shapeMinSwitch*want {
		return false
	}
	// random letters fall into short pieces that read as words by chance (Paxi, ceb, Wav); an
	// identifier made of words changes class only where a word starts, far less often than
	// random characters do, so a token that changes class nearly as often as random ones may
	// hold more of them
	return wordiness(t) <= shapeMaxWordy || sw >= shapeRandomSwitch*want && wordiness(t) <= shapeMaxWordyRandom && !camelHumps(t)
}

// camelHumps reports whether most capitals of t start a run of small letters, as the words of a
// camel-cased name do (sqlite3ExprCanBeNull); in random characters a capital is followed by a
// small letter less than half the time.
func camelHumps(t string) bool {
	caps, humps := 0, 0
	for i := 0; i+1 < len(t); i++ {
		if isUpper(t[i]) {
			caps++
			if isLower(t[i+1]) {
				humps++
			}
		}
	}
	return caps >= 2 && humps*10 > caps*7
}

// switchRate is how often the class of character (lower case, upper case, digit) changes between
// neighbours: random characters change it at most steps (two in three for base62, two in five
// for lower case and digits), an identifier at the start of each word (IPhone11ProMax,
// AVX512VPCLMULQDQ, riscv64).
func switchRate(t string) float64 {
	class := pwClass
	pairs, switches := 0, 0
	for i := 1; i < len(t); i++ {
		a, b := class(t[i-1]), class(t[i])
		if a == 0 || b == 0 {
			continue
		}
		pairs++
		if a != b {
			switches++
		}
	}
	if pairs == 0 {
		return 0
	}
	return float64(switches) / float64(pairs)
}

// expectedSwitchRate is the switch rate of random characters of t's classes: 1 - Σ p², p being
// each class's share of the alphabet.
func expectedSwitchRate(st tokenStats) float64 {
	var sizes []float64
	if st.lower > 0 {
		sizes = append(sizes, 26)
	}
	if st.upper > 0 {
		sizes = append(sizes, 26)
	}
	if st.lowerHex || st.upperHex {
		sizes = []float64{6}
	}
	switch {
	case st.digit > 0 && st.base32Digits && st.lower == 0 && st.sym == 0 && !st.upperHex:
		sizes = append(sizes, 6) // base32: capitals and 2 to 7 (a TOTP seed)
	case st.digit > 0:
		sizes = append(sizes, 10)
	}
	total := 0.0
	for _, n := range sizes {
		total += n
	}
	e := 1.0
	for _, n := range sizes {
		e -= (n / total) * (n / total)
	}
	return e
}

// hasWordSegment reports whether a '/' segment of t is a lower-case word (tmp/include/x86): a
// path, not base64.
func hasWordSegment(t string) bool {
	pairs := englishPairs()
	for _, seg := range strings.Split(t, "/") {
		if len(seg) >= 3 && strings.Trim(seg, "abcdefghijklmnopqrstuvwxyz") == "" && readsAsWord(seg, pairs) {
			return true
		}
	}
	return false
}

// shortHexID reports whether t is words and hex parts with fewer than shapeMinHex hex digits in
// all: an id with a prefix or a suffix (call_65e4930d3f90b6ac, agent-a33a9c802ed1d1835.jsonl),
// which a runtime writes into every transcript.
func shortHexID(t string) bool {
	pairs := englishPairs()
	hexLen := 0
	for _, part := range strings.FieldsFunc(t, func(r rune) bool { return strings.ContainsRune("-_.~+/=", r) }) {
		st := statsOf(part)
		switch {
		case (st.lowerHex || st.upperHex) && st.digit > 0:
			hexLen += len(part)
		case st.digit == 0 && (len(part) <= 5 || readsAsWord(part, pairs)):
		default:
			return false
		}
	}
	return hexLen < shapeMinHex
}

// entropyRatio is the Shannon entropy per character of t divided by the most its alphabet and
// its length allow: log2 of the smaller of the two.
func entropyRatio(t string, st tokenStats) float64 {
	var counts [256]int32
	for i := 0; i < len(t); i++ {
		counts[t[i]]++
	}
	n := float64(len(t))
	h := 0.0
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	alphabet := 0
	if st.lower > 0 {
		alphabet += 26
	}
	if st.upper > 0 {
		alphabet += 26
	}
	if st.lowerHex || st.upperHex {
		alphabet = 6
	}
	if st.digit > 0 {
		alphabet += 10
	}
	if st.sym > 0 {
		alphabet += 2
	}
	max := math.Log2(math.Min(float64(alphabet), n))
	if max <= 0 {
		return 0
	}
	return h / max
}

// sequential reports whether most neighbours in t are consecutive characters: an alphabet
// written out (ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef0123456789), which code holds as a constant.
func sequential(t string) bool {
	steps := 0
	for i := 1; i < len(t); i++ {
		if t[i] == t[i-1]+1 {
			steps++
		}
	}
	return steps*2 >= len(t)
}

// wordiness is the share of t's letters in pieces that read as words: t split at separators,
// digits and case changes (parseHTTPRequest: parse, HTTP, Request), each piece of three letters
// or more whose letter pairs all occur in English words (the BIP39 word list's pairs) and that
// holds a vowel. A random run of letters soon holds a pair no word has (qx, zj, vb).
func wordiness(t string) float64 {
	pairs := englishPairs()
	wordy, letters := 0, 0
	camelSplit(t, func(w string) {
		letters += len(w)
		if len(w) >= 3 && readsAsWord(w, pairs) {
			wordy += len(w)
		}
	})
	if letters == 0 {
		return 0
	}
	return float64(wordy) / float64(letters)
}

// camelSplit calls fn with each piece of letters of t: t split at other characters and at case
// changes, capitals then lower case (Request) or capitals alone (HTTP, before Request's R).
func camelSplit(t string, fn func(piece string)) {
	for i := 0; i < len(t); {
		c := t[i]
		if !isLetter(c) {
			i++
			continue
		}
		j := i + 1
		if isUpper(c) {
			for j < len(t) && isUpper(t[j]) {
				j++
			}
			if j < len(t) && isLower(t[j]) {
				if j-i > 1 {
					j-- // HTTPRequest: the last capital starts the next word
				}
				for j < len(t) && isLower(t[j]) {
					j++
				}
			}
		} else {
			for j < len(t) && isLower(t[j]) {
				j++
			}
		}
		fn(t[i:j])
		i = j
	}
}

// readsAsWord reports whether the letters w hold a vowel and only letter pairs English words
// have, one odd pair allowed in a long piece.
func readsAsWord(w string, pairs *[26][26]bool) bool {
	vowel := false
	odd := 0
	for i := 0; i < len(w); i++ {
		c := w[i] | 0x20
		vowel = vowel || strings.IndexByte("aeiouy", c) >= 0
		if i > 0 && !pairs[(w[i-1]|0x20)-'a'][c-'a'] {
			odd++
		}
	}
	return vowel && (odd == 0 || odd == 1 && len(w) >= 7)
}

func isLetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }
func isUpper(c byte) bool  { return 'A' <= c && c <= 'Z' }
func isLower(c byte) bool  { return 'a' <= c && c <= 'z' }

// harmlessShape reports whether the random-looking token s[a:b] is a known harmless one.
func harmlessShape(s string, a, b int) bool {
	t := s[a:b]
	if a >= 4 && strings.EqualFold(s[a-4:a], "hex:") && isHexString(t) {
		return false // SHA1 HEX:F5B0…: a key written as hex by its label (chrony's and ntpd's keys), not a digest
	}
	if isUUID(t) || len(t) > 36 && isUUID(t[:36]) && !isWordByte(t[36]) && !randomPart(t[36:]) || len(t) > 37 && isUUID(t[len(t)-36:]) && !isHexString(t[len(t)-37:len(t)-36]) && !secretPrefix(t[:len(t)-36]) && !randomPart(t[:len(t)-36]) {
		return true // an identifier, prefixed or not (msg_<uuid>), not a credential: a UUID key is found by its key
	}
	if keyFlagBefore(s, a) {
		return false // --certificate-key <hex>: a key given to its flag, whatever the line says of hashes
	}
	if st := statsOf(t); (st.lowerHex || st.upperHex) && (len(t) == 40 || len(t) == 64 || len(t) == 128) && digestContext(s, a, b) {
		return true // a SHA-1, SHA-256 or SHA-512 digest, or a git object id, where the text says so
	}
	if jsonKeyBefore(s, a, "signature") {
		return true // a thinking block's signature in a transcript, not a credential
	}

	if st := statsOf(t); st.lowerHex && len(t) == 32 && md5Line(s, a, b) {
		return true // an md5sum line: the hex, the file, md5 named on the line
	}
	if semver().MatchString(t) {
		return true // v2.09.4-rc.5+build.f2aac50: a version with its pre-release and build
	}
	if goPseudoVersion(t) || hasAnyPrefix(t, runtimeIDPrefixes) {
		return true // a Go pseudo-version; a runtime's id of a request, a message or a tool call
	}
	if hashNamed(s, a) {
		return true
	}
	if lt := strings.ToLower(t); hasAnyPrefix(lt, contentHashPrefixes) {
		return true // sha512-… (Subresource Integrity, npm's integrity), a named content hash
	}
	// base64 the structure layer decodes: text (looked into for secrets there), or a file
	// format's magic (a picture, a font, an archive embedded in code)
	if dec, ok := decodeBase64Token(t); ok && (printableText(dec) || mediaMagic(dec)) && !keyMaterial(dec) {
		return true
	}
	return publicShape(t) || mediaNamed(s, a)
}

// randomPart reports whether p, glued to a UUID, holds a random token of its own between its
// separators: an id's prefix is a word (msg_, req-), a token's other half is not (a Webex
// token is 64 random characters, a tag and a UUID).
func randomPart(p string) bool {
	for _, part := range strings.FieldsFunc(p, func(r rune) bool { return strings.ContainsRune("-_.~+/=", r) }) {
		if len(part) >= shapeMinLen && randomToken(part) {
			return true
		}
	}
	return false
}

// jsonKeyBefore reports whether the token at a is the string value of JSON key k ("k": "…").
func jsonKeyBefore(s string, a int, k string) bool {
	p := a
	if p > 0 && s[p-1] == '"' {
		p--
	} else {
		return false
	}
	for p > 0 && a-p < 8 && (s[p-1] == ' ' || s[p-1] == ':') {
		p--
	}
	return p >= len(k)+2 && s[p-1] == '"' && strings.EqualFold(s[p-1-len(k):p-1], k) && s[p-2-len(k)] == '"'
}

// publicPEMBodies are the bodies of the PEM blocks of s that hold no private key (certificates,
// public keys, requests): from a -----BEGIN whose label names no private key to its -----END or
// the end of s. It returns them in order, and the bytes it read.
func publicPEMBodies(s string) (out []span, work int) {
	const begin, end = "-----BEGIN ", "-----END "
	for off := 0; ; {
		b := strings.Index(s[off:], begin)
		if b < 0 {
			return out, len(s)
		}
		b += off + len(begin)
		e := strings.Index(s[b:], "-----")
		if e < 0 {
			return out, len(s)
		}
		label := s[b : b+e]
		body := b + e + 5
		stop := strings.Index(s[body:], end)
		if stop < 0 {
			stop = len(s)
		} else {
			stop += body
		}
		if e <= 40 && !strings.Contains(strings.ToUpper(label), "PRIVATE") {
			out = append(out, span{body, stop})
		}
		off = max(stop, body)
	}
}

// contentHashPrefixes name a hash inside the token.
var contentHashPrefixes = []string{"sha1-", "sha256-", "sha384-", "sha512-", "md5-", "sha1_", "sha256_", "blake2b-", "xxh64-"}

// hashWords, just before a token, say it is a hash or an object id: commit abc…, sha256:…,
// go.sum's h1:…, /commit/… in a URL, Merge:, tree, parent, a digest or checksum.
var hashWords = []string{"trace_id", "trace-id", "ulid", "span_id", "traceid", "spanid", "trace id", "request_id", "request-id", "requestid", "correlation", "commit", "sha", "md5", "hash", "digest", "checksum", "h1:", "tree ", "parent ", "object ", "revision", "rev ", "rev:", "etag", "fingerprint", "integrity", "merge:", "blob/", "oid ", "git-sha", "sum:", "sha256", "blake"}

// hashNamed reports whether the text just before a (at most 24 bytes, on the same line) names
// a hash or a git object.
func hashNamed(s string, a int) bool {
	from := a - 24
	if from < 0 {
		from = 0
	}
	before := s[from:a]
	if nl := strings.LastIndexByte(before, '\n'); nl >= 0 {
		before = before[nl+1:]
	}
	lower := asciiLower(before)
	last := -1
	for _, w := range hashWords {
		last = max(last, lastWordIndex(before, lower, w))
	}
	if last < 0 {
		return false
	}
	for _, w := range secretNamesAfterHash {
		if strings.LastIndex(lower, w) > last {
			return false // named a secret after the hash word: hmac-sha256; secret "…"
		}
	}
	return true
}

// secretNamesAfterHash, closer to a token than a hash word, say that it is a secret all the
// same (a TSIG key's secret after its algorithm, hmac-sha256).
var secretNamesAfterHash = []string{"secret", "password", "passwd", "token", "key ", "key=", "key:", "key\"", "psk"}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// goPseudoVersion reports whether t is a Go module pseudo-version or holds one
// (v0.0.0-20210101123456-abcdef123456, v1.2.4-0.20210101123456-abcdef123456+incompatible):
// a fourteen-digit time and twelve hex digits of a commit.
func goPseudoVersion(t string) bool {
	for i := 0; i+28 <= len(t); i++ {
		if t[i] != '-' && t[i] != '.' {
			continue
		}
		if allDigits(t[i+1:i+15]) && t[i+15] == '-' && isHexString(t[i+16:i+28]) && (i+28 == len(t) || !isWordByte(t[i+28])) {
			return true
		}
	}
	return false
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return len(s) > 0
}

func isHexString(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i] | 0x20
		if !('0' <= s[i] && s[i] <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return len(s) > 0
}

// digestContext reports whether the hex run s[a:b], of a digest's length, stands where digests
// and object ids do: its line names a hash or a commit (hashWords), it is a URL's path segment
// or fragment, a name@digest, a git describe's -g suffix, a checksum tool's line (the hex,
// two spaces, a file name), or a JSON member's value (a key that names a secret is found by
// the context layer). A hex key of those lengths stands anywhere else: a sentence, a flag,
// a value.
func digestContext(s string, a, b int) bool {
	if a > 0 && s[a-1] == '/' && hostPathSegment(s, a, b) {
		return false
	}
	if a > 0 && strings.IndexByte("/@#", s[a-1]) >= 0 || a > 1 && s[a-2:a] == "-g" {
		return true
	}
	if b+2 < len(s) && s[b] == ' ' && (s[b+1] == ' ' || s[b+1] == '*') {
		return true // sha256sum: <hex>  file
	}
	if p := a - 1; p > 0 && s[p] == '"' {
		for p > 0 && a-p < 4 && (s[p-1] == ' ' || s[p-1] == ':') {
			p--
		}
		if p < a-1 && p > 0 && s[p-1] == '"' {
			return true // a JSON member's value ("model_catalog":"<hex>"): a key naming a secret is the context layer's
		}
	}
	ls := strings.LastIndexByte(s[:a], '\n') + 1
	le := strings.IndexByte(s[b:], '\n')
	if le < 0 {
		le = len(s)
	} else {
		le += b
	}
	if a-ls > 512 {
		ls = a - 512
	}
	if le-b > 512 {
		le = b + 512
	}
	orig := s[ls:a] + " " + s[b:le]
	line := asciiLower(orig)
	for _, w := range digestWords {
		if lastWordIndex(orig, line, w) >= 0 {
			return true
		}
	}
	return false
}

// hostPathSegment reports whether s[a:b] is a URL's whole first path segment, right after its
// host (https://name.example.pro/<hex>/): where an endpoint's key stands, not a repository's
// object id, which comes after an owner, a repository and a word (…/commit/<hex>). A gist's
// id stands there too, and a gist is public.
func hostPathSegment(s string, a, b int) bool {
	if b < len(s) && strings.IndexByte("/?# \t\n\"'`)>", s[b]) < 0 {
		return false
	}
	h := a - 1
	for h > 0 && (isWordByte(s[h-1]) || s[h-1] == '.' || s[h-1] == '-' || s[h-1] == ':') {
		h--
	}
	host := s[h : a-1]
	return h >= 2 && s[h-2:h] == "//" && strings.Contains(host, ".") && !strings.HasPrefix(host, "gist.")
}

// asciiLower is s with its ASCII capitals lowered, byte for byte (the positions stay those of s).
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if isUpper(c) {
			b[i] = c | 0x20
		}
	}
	return string(b)
}

// wordSuffixes may follow a hash word and keep its sense (commits, hashed, md5sum, lockfile).
var wordSuffixes = map[string]bool{"s": true, "es": true, "ed": true, "d": true, "ing": true, "ted": true, "ting": true, "ged": true, "sum": true, "sums": true, "file": true, "files": true}

// lastWordIndex is where w (lower case) last occurs in lower, the ASCII-lowered orig, as a word
// and not inside a longer one ("sha" in "shared", "pin" in "Pinata", "tag" in "stage", "rev" in
// "previous"), or -1. A word may start or end at a case change of a camel-cased name (fileHash,
// commitID) and end in a suffix that keeps its sense (commits, hashed, md5sum).
func lastWordIndex(orig, lower, w string) int {
	for e := len(lower); ; {
		i := strings.LastIndex(lower[:e], w)
		if i < 0 {
			return -1
		}
		e = i + len(w) - 1
		if isLetter(w[0]) && i > 0 && isLetter(lower[i-1]) && !(isUpper(orig[i]) && isLower(orig[i-1])) {
			continue
		}
		k := i + len(w)
		if isLetter(w[len(w)-1]) && k < len(lower) && isLetter(lower[k]) && !(isUpper(orig[k]) && isLower(orig[k-1])) {
			m := k
			for m < len(lower) && isLetter(lower[m]) && !(m > k && isUpper(orig[m]) && isLower(orig[m-1])) {
				m++
			}
			if !wordSuffixes[lower[k:m]] {
				continue
			}
		}
		return i
	}
}

// digestWords on a hex digest's line say what it is.
var digestWords = []string{"commit", "sha", "md5", "hash", "digest", "checksum", "tree", "parent", "object", "revision", "rev", "etag", "fingerprint", "integrity", "merge", "blob", "oid", "sum", "blake", "hmac", "nonce", "salt", "vector", "want", "expected", "golden", "git ", "head", "cherry", "rebase", "bisect", "pick", "ref", "tag", "version", "build", "release", "image", "layer", "manifest", "lock", "resolved", "pin", "go.mod", "vcs", "upstream", "snapshot", "hex", "id:", "id=", "_id", " id "}

// secretPrefix reports whether p, before a UUID, says the UUID is a secret (sk_<uuid>, a
// Checkout secret key) rather than an object's id (msg_<uuid>).
func secretPrefix(p string) bool {
	switch strings.ToLower(strings.TrimRight(p, "_-")) {
	case "sk", "rk", "key", "secret", "token", "tok", "pat", "api", "apikey", "sess", "session", "auth", "pw", "pass":
		return true
	}
	return false
}

// semver matches a semantic version with pre-release and build metadata.
var semver = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^v?[0-9]+\.[0-9]+(?:\.[0-9]+)?(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$`)
})

// md5Line reports whether the 32 hex digits s[a:b] start their line, a file path follows them,
// and the line names md5 (md5sum's output, with a note).
func md5Line(s string, a, b int) bool {
	if a > 0 && s[a-1] != '\n' {
		return false
	}
	end := strings.IndexByte(s[b:], '\n')
	if end < 0 {
		end = len(s) - b
	}
	rest := strings.ToLower(s[b : b+end])
	next := strings.Fields(rest)
	return len(next) > 0 && strings.ContainsAny(next[0], "./") && strings.Contains(rest, "md5")
}

// splitByte: the characters of a token's half that a line break split (base64, base64url,
// base62 and hex; no dot or tilde, which names and paths are made of).
func splitByte(c byte) bool { return isWordByte(c) || c == '+' || c == '/' || c == '=' || c == '-' }

// scanSplitTokens hides a random token broken in two by a line break (a space once white space
// is collapsed): two runs of six characters or more, one blank between them, each of mixed
// classes and not made of words, that are random joined although one or both are too short
// to be judged alone (a key pasted from a narrow terminal, a token wrapped in an e-mail).
func scanSplitTokens(s string, add func(start, end int)) int {
	work := len(s)
	pa, pb := -1, -1 // the previous run, when it stands alone
	for i := 0; i < len(s); {
		if !splitByte(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && splitByte(s[j]) {
			j++
		}
		alone := (i == 0 || !tokenByte[s[i-1]]) && (j == len(s) || !tokenByte[s[j]] && !isContinuationByte(s[j]))
		if alone && pb >= 0 && (pb+1 == i && (s[pb] == ' ' || s[pb] == '\n' || s[pb] == '\t') || pb+2 == i && s[pb:i] == "\r\n") && j-i >= 6 && pb-pa >= 6 && j-pa <= 512 {
			work += j - pa
			if joinedRandom(s, pa, pb, i, j) {
				add(pa, pb)
				add(i, j)
			}
		}
		if alone {
			pa, pb = i, j
		} else {
			pa, pb = -1, -1
		}
		i = j
	}
	return work
}

// isContinuationByte reports whether c goes on a token past the split alphabet (a dot, a tilde,
// a colon or an @ glues it to more: a host, a version, an address).
func isContinuationByte(c byte) bool { return c == '.' || c == '~' || c == ':' || c == '@' }

// joinedRandom reports whether the runs s[a:b] and s[c:d] are the halves of one random token.
func joinedRandom(s string, a, b, c, d int) bool {
	x, y := s[a:b], s[c:d]
	randomAlone := func(p string) bool {
		st := statsOf(p)
		return len(p) >= shapeMinLen && (len(p) >= shapeMinHex || !st.lowerHex && !st.upperHex) && randomToken(p)
	}
	if strings.IndexByte(strings.TrimRight(x, "="), '=') >= 0 || strings.IndexByte(strings.TrimRight(y, "="), '=') >= 0 {
		return false // name=value pairs (trace_id=… span_id=…), each the assignment layer's and the shape layer's
	}
	rx, ry := randomAlone(x), randomAlone(y)
	if rx && ry {
		return false // both hidden as they are
	}
	for _, p := range []string{x, y} {
		st := statsOf(p)
		maxWordy := 0.34
		if rx || ry {
			maxWordy = 0.5 // the short half of a token the shape layer hides
		}
		if p == x && rx || p == y && ry {
			continue // random alone: the shape layer hides it, and the other half goes with it
		}
		classes := 0
		for _, n := range []int{st.lower, st.upper, st.digit} {
			if n > 0 {
				classes++
			}
		}
		if classes < 2 || st.lower+st.upper == 0 || wordiness(p) > maxWordy || strings.IndexByte(p, '/') >= 0 && strings.ContainsAny(p, "-_") {
			return false // a word, a number, a name, a path
		}
		if sw := switchRate(p); sw < 0.25 || sw*float64(len(p)-1) < 2 {
			return false // a name and a number (pwrite64, AVX-512, quartz254): random halves change class often
		}
	}
	if len(x) >= 4 && len(y) >= 4 && x[:4] == y[:4] {
		return false // a list of names alike (rfc1842 rfc1843)
	}
	if len(x) >= shapeMinLen && harmlessShape(s, a, b) || len(y) >= shapeMinLen && harmlessShape(s, c, d) {
		return false // sha256 e3b0…: a digest after its name
	}
	j := x + y
	if len(j) < shapeMinLen || !randomToken(j) || harmlessShape(j, 0, len(j)) {
		return false
	}
	if st := statsOf(j); (st.lowerHex || st.upperHex) && (hashNamed(s, a) || digestContext(s, a, d)) {
		return false
	}
	return true
}
