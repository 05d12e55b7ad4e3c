package redact

import (
	"encoding/base64"
	"regexp"
	"strings"
	"sync"
)

// publicShape reports whether the random-looking token t is a public or generated thing of a
// known structure rather than a secret: an SSH public key's blob (the base64 of its length-prefixed
// algorithm name, ssh-ed25519 AAAAC3Nz…), a picture or a font in base64 cut short (its magic
// decodes though the rest does not), a Kubernetes pod's name (deployment, replica set hash, pod
// suffix: api-g5lwq9gx8i-lznmf).
func publicShape(t string) bool {
	if len(t) >= 32 && strings.HasPrefix(t, "AAAA") {
		if b, err := base64.StdEncoding.DecodeString(t[:32]); err == nil && b[0] == 0 && b[1] == 0 && b[2] == 0 && int(b[3]) >= 7 && int(b[3]) <= 40 {
			name := string(b[4:min(len(b), 4+int(b[3]))])
			if strings.HasPrefix(name, "ssh-") || strings.HasPrefix(name, "ecdsa-") || strings.HasPrefix(name, "sk-") {
				return true
			}
		}
	}
	if len(t) >= 24 {
		if b, err := base64.StdEncoding.DecodeString(t[:12]); err == nil && mediaMagic(b) && !strings.HasPrefix(string(b), "\x00\x01\x00\x00") && !strings.HasPrefix(string(b), "\x1f\x8b") {
			return true
		}
	}
	return podName(t)
}

// podName reports whether t is name-HASH-SUFFIX as Kubernetes names a deployment's pods: words,
// then 8 to 10 and 5 small letters and digits.
func podName(t string) bool {
	parts := strings.Split(t, "-")
	if len(parts) < 3 {
		return false
	}
	hash, suffix := parts[len(parts)-2], parts[len(parts)-1]
	if len(hash) < 8 || len(hash) > 10 || len(suffix) != 5 || !lowerAlnum(hash) || !lowerAlnum(suffix) {
		return false
	}
	for _, w := range parts[:len(parts)-2] {
		if w == "" || !lowerAlnum(w) || !isLetter(w[0]) {
			return false
		}
	}
	return true
}

func lowerAlnum(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isLower(s[i]) && !('0' <= s[i] && s[i] <= '9') {
			return false
		}
	}
	return s != ""
}

// pathValue reports whether v is a relative file path of two directories or more that ends in a
// file name with an extension (uploads/2026/11/photo.jpg): where a value is kept, not the value.
func pathValue(v string) bool {
	if strings.Contains(v, "://") || strings.Count(v, "/") < 2 || strings.ContainsAny(v, "+=") {
		return false
	}
	dot := strings.LastIndexByte(v, '.')
	if dot < strings.LastIndexByte(v, '/') || len(v)-dot-1 < 2 || len(v)-dot-1 > 4 || !allLetters(v[dot+1:]) {
		return false
	}
	first := v[:strings.IndexByte(v, '/')]
	return len(first) >= 3 && allLetters(first)
}

// fileKey reports whether the name k says its value is where a secret is kept (password-file,
// key_path, secrets_dir), not the secret.
func fileKey(k string) bool {
	k = strings.ToLower(k)
	for _, w := range []string{"file", "path", "dir"} {
		if strings.HasSuffix(k, w) {
			return true
		}
	}
	return false
}

// fewSymbols reports whether s, blanks left out, is made of at most three distinct characters:
// a placeholder (DE00 0000 0000 0000, XXXX-XXXX), never a random secret's groups.
func fewSymbols(s string) bool {
	var seen [256]bool
	n := 0
	for i := 0; i < len(s); i++ {
		if c := s[i]; c != ' ' && !seen[c] {
			seen[c] = true
			n++
		}
	}
	return n <= 3
}

// phcHash reports whether t starts like a password hash in the PHC string format or crypt(3)'s
// ($argon2id$v=19$m=65536, $2b$12$, $6$rounds=…): the hash of a password, printed to be stored.
func phcHash(t string) bool {
	for _, p := range []string{"$argon2", "$scrypt$", "$pbkdf2", "$2a$", "$2b$", "$2y$", "$5$", "$6$", "$y$", "$7$"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// mediaNamed reports whether the line before a, 48 bytes at most, names a picture's, a font's or
// a sound's media type (thumbnail (image/webp, base64): …, data:image/png;base64,…): the token is
// that file's bytes.
func mediaNamed(s string, a int) bool {
	before := asciiLower(s[max(0, a-48):a])
	if nl := strings.LastIndexByte(before, '\n'); nl >= 0 {
		before = before[nl+1:]
	}
	for _, m := range []string{"image/", "font/", "audio/", "video/"} {
		if k := strings.Index(before, m); k >= 0 && k+len(m) < len(before) && isLetter(before[k+len(m)]) {
			return true
		}
	}
	return false
}

// separatedHex reports whether t is hexadecimal of one case cut by dashes or underscores, after
// at most a short prefix (sk1_, api-), and returns its hex joined: such a token is judged by the
// alphabet it is random in, not by the larger one its separators and prefix suggest.
func separatedHex(t string) (string, bool) {
	if !strings.ContainsAny(t, "-_") {
		return "", false
	}
	parts := strings.FieldsFunc(t, func(r rune) bool { return r == '-' || r == '_' })
	if len(parts) < 2 {
		return "", false
	}
	first := 0
	if p := parts[0]; len(p) <= 6 && isLetter(p[0]) {
		if st := statsOf(p); !(st.lowerHex || st.upperHex) || len(p) < 8 {
			first = 1 // a prefix of letters (and a digit): sk1, api, key
		}
	}
	var b strings.Builder
	lower, upper := false, false
	for _, p := range parts[first:] {
		if len(p) < 8 {
			return "", false // a word, a short number: a name or a version, not hex cut in groups
		}
		st := statsOf(p)
		if !st.lowerHex && !st.upperHex {
			return "", false
		}
		lower = lower || st.lower > 0
		upper = upper || st.upper > 0
		b.WriteString(p)
	}
	if lower && upper || b.Len() < shapeMinHex {
		return "", false
	}
	return b.String(), true
}

// hexBody is the run s[i:j] without the mark that makes it hex: 0x, or the x of a backslash
// (PostgreSQL's bytea '\x…', a shell's $'\x…').
func hexBody(s string, i, j int) string {
	t := s[i:j]
	if i > 0 && s[i-1] == '\\' && (t[0] == 'x' || t[0] == 'X') {
		return t[1:]
	}
	return strings.TrimPrefix(strings.TrimPrefix(t, "0x"), "0X")
}

// braceEscape reads an ES2015 code point escape (\u{75}, \u{1F600}) at the start of t: the rune
// and its length, 0 when there is none.
func braceEscape(t string) (rune, int) {
	if !strings.HasPrefix(t, "\\u{") {
		return 0, 0
	}
	k := strings.IndexByte(t[3:min(len(t), 10)], '}')
	if k < 1 || !isHexString(t[3:3+k]) {
		return 0, 0
	}
	var r rune
	for _, c := range []byte(t[3 : 3+k]) {
		r = r<<4 | rune(unhex(c))
	}
	if r > 0x10ffff {
		return 0, 0
	}
	return r, 4 + k
}

// cssEscape reads a CSS escape at the start of t: a backslash, two to six hex digits of a
// printable code point and the one blank that ends it (\38 \79 \31). Only an escape closed by
// its blank counts, so a path or a regular expression (\d, C:\data) is left as it is.
func cssEscape(t string) (rune, int) {
	k := 1
	for k < len(t) && k <= 6 && isHexString(t[k:k+1]) {
		k++
	}
	if k < 3 || k >= len(t) || t[k] != ' ' {
		return 0, 0
	}
	var r rune
	for _, c := range []byte(t[1:k]) {
		r = r<<4 | rune(unhex(c))
	}
	if r < 0x20 || r > 0x10ffff || r >= 0xd800 && r <= 0xdfff {
		return 0, 0
	}
	return r, k + 1
}

// interleaveSeps are what a secret's characters may be written apart with, one between every
// two, so a scanner would not match it (e.t.2.p.u.v, K-9-q-X).
const interleaveSeps = ".-_*~+"

// minInterleaved is the fewest characters an interleaved secret must have.
const minInterleaved = 10

// scanInterleaved hides a run of single letters and digits each parted from the next by the same
// separator when, the separators taken out, it reads as a password or a random token.
func scanInterleaved(s string, add func(start, end int)) int {
	for i := 0; i+2 < len(s); {
		if !isAlnum(s[i]) || i > 0 && (isWordByte(s[i-1]) || s[i-1] == s[i+1]) || strings.IndexByte(interleaveSeps, s[i+1]) < 0 {
			i++
			continue
		}
		sep := s[i+1]
		j := i + 1 // the end of the run's last character
		for j+1 < len(s) && s[j] == sep && isAlnum(s[j+1]) && (j+2 == len(s) || !isWordByte(s[j+2])) {
			j += 2
		}
		if n := (j - i + 1) / 2; n >= minInterleaved && (j == len(s) || s[j] != sep || j+1 == len(s) || !isAlnum(s[j+1])) {
			b := make([]byte, 0, n)
			for k := i; k < j; k += 2 {
				b = append(b, s[k])
			}
			if decodedSecret(string(b)) {
				add(i, j)
			}
		}
		i = max(j, i+1)
	}
	return len(s)
}

func isAlnum(c byte) bool { return isLetter(c) || '0' <= c && c <= '9' }

// bareLiteral reports whether v, unquoted after :=, is a literal rather than an expression: a
// Makefile's API_KEY := BGTWDVCC…97 or a random token, where Go code would hold a name, a call
// or a field (token := r.Header.Get(…), key := cfg.Key).
func bareLiteral(v string) bool {
	if len(v) < 12 || !hasDigit(v) || strings.Trim(v, "0123456789") == "" {
		return false
	}
	for i := 0; i < len(v); i++ {
		if !isAlnum(v[i]) && strings.IndexByte("-_+/=", v[i]) < 0 {
			return false
		}
	}
	st := statsOf(v)
	if st.lower == 0 && st.sym == 0 && st.digit >= 3 {
		return true // capitals and digits, as a key is shown: no constant's name has three digits unparted
	}
	return randomToken(v) || passwordPiece(v, true)
}

// subcommandPassword finds a command whose subcommand names a password (drush user:password
// admin X, rabbitmqctl change_password user X, app set-password user X): the word after the
// user is the password.
var subcommandPassword = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(?:^|[\s;&|$#>])[a-z][a-z0-9_.-]*[ \t]+[a-z]+[:_-](?:password|passwd)[ \t]+[^\s"'=:-][^\s"'=:]*[ \t]+["']?([^\s"',;&` + "`" + `-][^\s"',;&` + "`" + `]*)`)
})

// scanSubcommandPasswords reports the passwords subcommandPassword finds that hold a digit or a
// symbol: prose (the user password reset link) names words there.
func scanSubcommandPasswords(s string, add func(start, end int)) int {
	for _, loc := range subcommandPassword().FindAllStringSubmatchIndex(s, -1) {
		v := strings.TrimRight(s[loc[2]:loc[3]], ".,;:!?)")
		if len(v) >= 6 && !allLetters(v) && secretValue("password", v) && (hasDigit(v) && !allDigits(v) || strings.ContainsAny(v, "!@#$%^&*()+=?~[]{}<>|.:/\\")) {
			add(loc[2], loc[2]+len(v))
		}
	}
	return len(s)
}

// closingQuote returns, from the first " at from+q, the offset from from of the first " that
// no odd run of backslashes escapes: a JSON value that holds a quote (p\"w) runs on past it.
// It reads each byte once, and gives up at a line break (q as it was).
func closingQuote(s string, from, q int) int {
	first := q
	for q >= 0 {
		k := from + q
		n := 0
		for k-n-1 >= from && s[k-n-1] == '\\' {
			n++
		}
		if n%2 == 0 {
			return q
		}
		next := strings.IndexByte(s[k+1:], '"')
		if next < 0 || strings.IndexByte(s[k+1:k+1+next], '\n') >= 0 {
			return first
		}
		q = k + 1 + next - from
	}
	return q
}

// wordNumberTail reports whether t is a capitalised word, a number and a tail of letters of
// both cases, joined by one kind of separator (Osprey_4231_iapER, Yarrow-2016-prVGQ): the
// template of a made-up password whose tail was typed at random. A name in code joins words,
// and a word's capital starts it (Release_2024_Final).
func wordNumberTail(t string) bool {
	sep := strings.IndexAny(t, "_-.")
	if sep < 4 {
		return false
	}
	parts := strings.Split(t, t[sep:sep+1])
	if len(parts) != 3 {
		return false
	}
	w, n, tail := parts[0], parts[1], parts[2]
	if !isUpper(w[0]) || !allLetters(w) || strings.ToLower(w[1:]) != w[1:] {
		return false
	}
	if len(n) < 2 || len(n) > 6 || !allDigits(n) || len(tail) < 3 || len(tail) > 8 || !allLetters(tail) {
		return false
	}
	st := statsOf(tail)
	return st.lower > 0 && st.upper > 0 && !(isUpper(tail[0]) && st.upper == 1)
}

// keyFlagBefore reports whether the token at a is the value of a command-line flag whose name
// ends in key, secret or token (--certificate-key X, --encryption-key=X, -master-key X).
func keyFlagBefore(s string, a int) bool {
	p := a
	if p > 0 && (s[p-1] == '=' || s[p-1] == ' ') {
		p--
	} else {
		return false
	}
	e := p
	for p > 0 && (isAlnum(s[p-1]) || s[p-1] == '-' || s[p-1] == '_') {
		p--
	}
	if p == e || s[p] != '-' || p > 0 && !isSpace(s[p-1]) {
		return false
	}
	name := asciiLower(s[p:e])
	if strings.Contains(name, "pub") {
		return false // --public-key, --pubkey: a public key, which a digest's line may print
	}
	for _, w := range []string{"-key", "-secret", "-token", "_key", "_secret", "_token"} {
		if strings.HasSuffix(name, w) {
			return true
		}
	}
	return false
}

// morseCode maps the International Morse Code of letters and digits to them.
var morseCode = map[string]byte{
	".-": 'a', "-...": 'b', "-.-.": 'c', "-..": 'd', ".": 'e', "..-.": 'f', "--.": 'g', "....": 'h', "..": 'i', ".---": 'j',
	"-.-": 'k', ".-..": 'l', "--": 'm', "-.": 'n', "---": 'o', ".--.": 'p', "--.-": 'q', ".-.": 'r', "...": 's', "-": 't',
	"..-": 'u', "...-": 'v', ".--": 'w', "-..-": 'x', "-.--": 'y', "--..": 'z',
	"-----": '0', ".----": '1', "..---": '2', "...--": '3', "....-": '4', ".....": '5', "-....": '6', "--...": '7', "---..": '8', "----.": '9',
}

// minMorse is the fewest characters a Morse run must spell to be judged.
const minMorse = 8

// scanMorse hides a run of Morse code (letters and digits of dots and dashes, one blank between
// them, a slash or three blanks between words) that spells a password or a random token: a
// secret spelled so that a scanner would not read it. The run must hold a dot, so rules of
// dashes (--- ---) spell nothing, and what it spells is judged as decoded text is.
func scanMorse(s string, add func(start, end int)) int {
	for i := 0; i < len(s); {
		if (s[i] != '.' && s[i] != '-') || i > 0 && !isSpace(s[i-1]) {
			i++
			continue
		}
		var out []byte
		j, end := i, i
		for j < len(s) {
			k := j
			for k < len(s) && k-j <= 6 && (s[k] == '.' || s[k] == '-') {
				k++
			}
			c, ok := morseCode[s[j:k]]
			if !ok || k < len(s) && !isSpace(s[k]) && s[k] != '/' {
				break
			}
			out = append(out, c)
			end = k
			j = k
			for j < len(s) && (s[j] == ' ' || s[j] == '/') && j-k < 4 {
				j++
			}
			if j == k {
				break
			}
		}
		if len(out) >= minMorse && strings.Contains(s[i:end], ".") && decodedSecret(string(out)) {
			add(i, end)
		}
		i = max(end, i+1)
	}
	return len(s)
}

// signInHints are the words of a message that gives a code to sign in with (an SMS, a mail):
// the code stands in the same sentence, with no key word before it.
var signInHints = []string{"sign in", "sign-in", "signin", "log in", "log-in", "login", "logon", "verification", "one-time", "passcode", "security code"}

// signInReach is how far, either side of such a word and within its sentence, the code may stand.
const signInReach = 48

// scanSignInCodes hides a code of letters of one case and digits mixed at random (six to twelve, two
// digits and two letters at least, changing class three times or more) in the sentence of a word
// for signing in: "use M4M6K7L350 to sign in", "LFVBNP9UQ1 is your sign-in code".
func scanSignInCodes(s string, add func(start, end int)) int {
	lower := asciiLower(s)
	work := len(s)
	done := 0 // where the last window ended: no byte is judged twice
	for _, h := range signInHints {
		for off := 0; off < len(lower); {
			k := strings.Index(lower[off:], h)
			if k < 0 {
				break
			}
			k += off
			off = k + len(h)
			a, b := max(0, k-signInReach), min(len(s), off+signInReach)
			// the sentence around the word
			if p := strings.LastIndexAny(s[a:k], ".!?\n"); p >= 0 && (a+p+1 >= len(s) || isSpace(s[a+p+1])) {
				a += p + 1
			}
			if p := strings.IndexAny(s[off:b], "!?\n"); p >= 0 {
				b = off + p
			}
			a = max(a, min(done, k))
			work += b - a
			for i := a; i < b; {
				if !isAlnum(s[i]) || i > 0 && isWordByte(s[i-1]) {
					i++
					continue
				}
				j := i
				for j < len(s) && isAlnum(s[j]) {
					j++
				}
				if signInCode(s[i:j]) && (i == 0 || strings.IndexByte("-./_#@", s[i-1]) < 0) && (j == len(s) || !isWordByte(s[j]) && strings.IndexByte("-/_@", s[j]) < 0) {
					add(i, j)
				}
				i = j
			}
			done = max(done, b)
		}
	}
	return work
}

// signInCode reports whether t is a code of letters of one case (capitals as sent, small ones
// in folded text) and digits, mixed at random.
func signInCode(t string) bool {
	if len(t) < 6 || len(t) > 12 {
		return false
	}
	st := statsOf(t)
	if st.lowerHex || st.upperHex {
		return false // a commit's short id, a UUID's group: hex
	}
	return (st.lower == 0) != (st.upper == 0) && st.lower+st.upper >= 2 && st.digit >= 2 && switchRate(t)*float64(len(t)-1) >= 3
}

// slashedCredentials finds user/password written as one word after a word that gives
// credentials (log in … with admin/X, creds: deploy/X, login root/X): the part after the slash.
var slashedCredentials = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(?:\b(?:log|sign)[ -]?(?:in|on)\b[^.\n]{0,60}?[ \t]with|\b(?:creds?|credentials|login)[ \t]*:?)[ \t]+[a-z][a-z0-9_-]{1,15}/([^\s/,;'"` + "`" + `()<>]{6,64})(?:[\s,;'"` + "`" + `()<>]|$)`)
})

// scanSlashedCredentials reports the passwords slashedCredentials finds that read as one on
// their own (a path's file name does not: with docs/getting-started).
func scanSlashedCredentials(s string, add func(start, end int)) int {
	for _, loc := range slashedCredentials().FindAllStringSubmatchIndex(s, -1) {
		v := strings.TrimRight(s[loc[2]:loc[3]], ".:!?")
		if v != "" && !strings.Contains(v, ".") && (passwordPiece(v, true) || decodedSecret(v)) {
			add(loc[2], loc[2]+len(v))
		}
	}
	return len(s)
}
