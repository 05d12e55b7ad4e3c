package redact

import "strings"

// colonHexLabels name the private members of a key as openssl's -text output prints them (rsa,
// ec, pkey, dh, x25519, ed25519): each is followed by its bytes as colon-separated hex pairs,
// fifteen a line. The public members (modulus, pub, publicExponent) are printed the same way
// and are not named here.
var colonHexLabels = []string{"privateexponent", "prime1", "prime2", "exponent1", "exponent2", "coefficient", "priv", "private-key", "private_key", "private key", "secret"}

// colonHexHints are the hints of scanColonHexKeys: a label's first letters.
var colonHexHints = []string{"priv", "prime", "exponent", "coefficient", "secret"}

// minColonHexBytes is the fewest bytes a labelled colon-hex block must hold: a private scalar of
// 128 bits.
const minColonHexBytes = 16

// scanColonHexKeys hides the private members of a key printed as colon hex after their label
// (priv:, privateExponent:, prime1:, …), over as many lines as the block runs: blanks, line
// breaks and a "> " quote mark may follow each colon.
func scanColonHexKeys(s string, add func(start, end int)) int {
	lower := asciiLower(s)
	work := 2 * len(s)
	for _, label := range colonHexLabels {
		for off := 0; off < len(lower); {
			k := strings.Index(lower[off:], label)
			if k < 0 {
				break
			}
			k += off
			off = k + len(label)
			if k > 0 && isLetter(lower[k-1]) {
				continue // a longer word (publicExponent, unprivileged)
			}
			p := off
			for p < len(s) && (s[p] == ' ' || s[p] == '\t') {
				p++
			}
			if p >= len(s) || s[p] != ':' {
				continue
			}
			p++
			start, end, n := colonHexBlock(s, p)
			work += end - p
			if n >= minColonHexBytes {
				add(start, end)
				off = max(off, end)
			}
		}
	}
	return work
}

// colonHexBlock reads the colon-hex pairs from p (blanks, line breaks and quote marks first):
// where the first pair starts, where the last ends and how many pairs it read.
func colonHexBlock(s string, p int) (start, end, n int) {
	p = skipColonHexGap(s, p)
	start, end = p, p
	for p+2 <= len(s) && isHexString(s[p:p+2]) && (p+2 == len(s) || !isWordByte(s[p+2])) {
		n++
		end = p + 2
		if p+2 >= len(s) || s[p+2] != ':' {
			break
		}
		p = skipColonHexGap(s, p+3)
	}
	return start, end, n
}

// skipColonHexGap skips what may stand between two pairs of a wrapped block: blanks, line
// breaks, a quote mark ("> ") or a comment's "# " at a line's start.
func skipColonHexGap(s string, p int) int {
	for p < len(s) {
		switch s[p] {
		case ' ', '\t', '\r', '\n':
			p++
		case '>', '#':
			if p+1 < len(s) && (s[p+1] == ' ' || s[p+1] == '\n') {
				p++
				continue
			}
			return p
		default:
			return p
		}
	}
	return p
}

// minGroupedBase64 is the fewest groups of four a spaced-out base64 body must hold: 48 bytes.
const minGroupedBase64 = 16

// scanGroupedBase64 hides a base64 body written in groups of four characters with a blank or a
// line break between them (MIIC eAIB ADAN …, as a key is read out or pasted to dodge a scanner)
// when, joined, it decodes to key material or to text that reads as a secret.
func scanGroupedBase64(s string, add func(start, end int)) int {
	for i := 0; i < len(s); {
		if !isB64(s[i]) || s[i] == '=' || i > 0 && !isSpace(s[i-1]) {
			i++
			continue
		}
		var b strings.Builder
		j, end, groups := i, i, 0
		for j+4 <= len(s) && b64Quad(s[j:j+4]) && (j+4 == len(s) || isSpace(s[j+4])) {
			b.WriteString(s[j : j+4])
			groups++
			end = j + 4
			j += 4
			if strings.HasSuffix(s[j-4:j], "=") || j >= len(s) {
				break
			}
			k := j
			for k < len(s) && k-j < 2 && isSpace(s[k]) {
				k++
			}
			j = k
		}
		if groups < minGroupedBase64 {
			i = max(end, i+1)
			continue
		}
		whole, wholeEnd := b.String(), end
		// a shorter last group closes the body (its padding dropped)
		if t := end; t < len(s) && isSpace(s[t]) {
			k := t + 1
			q := k
			for q < len(s) && q-k < 4 && isB64(s[q]) {
				q++
			}
			if q > k && q-k < 4 && (q == len(s) || !isB64(s[q])) {
				b.WriteString(s[k:q])
				end = q
			}
		}
		dec, ok := decodeBase64Token(b.String())
		if !ok {
			dec, ok = decodeBase64Token(whole)
			end = wholeEnd
		}
		if ok && (keyMaterial(dec) || printableText(dec) && decodedSecret(string(dec))) {
			add(i, end)
		}
		i = end
	}
	return len(s)
}

// b64Quad reports whether q is four base64 characters (the last may be padding) with a letter.
func b64Quad(q string) bool {
	letter := false
	for k := 0; k < 4; k++ {
		c := q[k]
		if !isB64(c) || c == '=' && k < 2 {
			return false
		}
		letter = letter || isLetter(c)
	}
	return letter
}
