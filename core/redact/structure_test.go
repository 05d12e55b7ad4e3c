package redact

import (
	"crypto/sha256"
	"encoding/ascii85"
	"encoding/base32"
	"encoding/base64"
	"fmt"
	"math/big"
	mrand "math/rand/v2"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

// keyDER is a fake PKCS#8 RSA private key: its DER header and random bytes.
func (f *faker) keyDER(n int) []byte {
	b := []byte{0x30, 0x82, 0x04, 0xbd, 0x02, 0x01, 0x00, 0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00, 0x04, 0x82, 0x04, 0xa7}
	for len(b) < n {
		b = append(b, byte(f.rng.IntN(256)))
	}
	return b
}

func wrap(s string, width int, sep string) string {
	var lines []string
	for len(s) > width {
		lines = append(lines, s[:width])
		s = s[width:]
	}
	return strings.Join(append(lines, s), sep)
}

// seedPhrase is a valid BIP39 phrase of n words from random entropy (checksum included).
func (f *faker) seedPhrase(n int) string {
	words := strings.Fields(bip39English)
	ent := make([]byte, n*11*32/33/8)
	for i := range ent {
		ent[i] = byte(f.rng.IntN(256))
	}
	sum := sha256.Sum256(ent)
	bits := new(big.Int).SetBytes(append(ent, sum[0]))
	bits.Rsh(bits, uint(8-len(ent)*8/32))
	out := make([]string, n)
	for i := n - 1; i >= 0; i-- {
		out[i] = words[new(big.Int).And(bits, big.NewInt(2047)).Int64()]
		bits.Rsh(bits, 11)
	}
	return strings.Join(out, " ")
}

func structureSecrets(f *faker) []secretCase {
	key := base64.StdEncoding.EncodeToString(f.keyDER(600))
	b64url := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	pemBody := wrap(base64.StdEncoding.EncodeToString(f.keyDER(300)), 64, "\n")
	fern := make([]byte, 89)
	fern[0] = 0x80
	copy(fern[5:], f.s(alnum, 84))
	mac := "0021location https://api.example.com\n0030identifier " + f.s(alnum, 24) + "\n002fsignature " + f.s(alnum, 32) + "\n"
	return []secretCase{
		{"url-encoded password", "decode_escapes", "GET /login?next=%2Fhome%3Fdb_password%3D%s HTTP/1.1", f.s(lalnum, 12)},
		{"json-escaped assignment", "decode_escapes", `{"cmd": "export API_TOKEN=\"%s\""}`, f.s(lalnum, 14)},
		{"unicode-escaped password", "decode_escapes", `{"log": "password\u003d%s"}`, f.s(lalnum, 12)},
		{"quoted-printable assignment", "decode_escapes", "Content-Transfer-Encoding: quoted-printable\n\ndb_password=3D%s", f.s(lalnum, 14)},
		{"html entities of an assignment", "decode_escapes", "<pre>" + htmlEscape("password=") + "%s</pre>", htmlEscape(f.s(lalnum, 14))},
		{"base32 of an assignment", "decode_base64", "blob %s end", base32.StdEncoding.EncodeToString([]byte("API_TOKEN=" + f.s(lalnum, 20)))},
		{"ascii85 of an assignment", "decode_ascii85", "stream %s endstream", ascii85Frame("secret_key: " + f.s(lalnum, 20))},
		{"sql literals joined", "sql_statement_password", "ALTER USER app WITH PASSWORD '" + f.s(lalnum, 8) + "' || '%s';", f.s(lalnum, 10)},
		{"url-encoded thrice", "decode_escapes", "GET /login?next=%2F&p=%s HTTP/1.1", url3("Qz" + f.s(alnum, 8) + "$41?/=")},
		{"spaced-out password", "decode_spaced", "the wifi password is %s ok", strings.Join(strings.Split(f.s(lalnum, 12), ""), " ")},
		{"base64 of an assignment", "decode_base64", "env blob %s end", base64.StdEncoding.EncodeToString([]byte("export DB_PASSWORD=" + f.s(lalnum, 14) + "\n"))},
		{"base64url of a bearer header", "decode_base64", "h=%s", base64.RawURLEncoding.EncodeToString([]byte("Authorization: Bearer " + f.s(lalnum, 30)))},
		{"pkcs8 body without its frame", "decode_base64", "the key:\n%s\nthat's it", wrap(key, 64, "\n")},
		{"pkcs8 body, collapsed", "decode_base64", "key %s done", wrap(key, 76, " ")},
		{"openssh body", "decode_base64", "id:\n%s\n", wrap(base64.StdEncoding.EncodeToString([]byte("openssh-key-v1\x00\x00\x00\x00\x04none"+f.s(alnum, 200))), 70, "\n")},
		{"macaroon", "decode_base64", "macaroon: %s", base64.RawURLEncoding.EncodeToString([]byte(mac))},
		{"pem with em dashes", "pem_any_dashes", "%s", "—————BEGIN RSA PRIVATE KEY—————\n" + pemBody + "\n—————END RSA PRIVATE KEY—————"},
		{"pem with en dashes", "pem_any_dashes", "paste: %s", "–––––BEGIN PRIVATE KEY–––––\n" + pemBody + "\n–––––END PRIVATE KEY–––––"},
		{"unsigned jwt, pretty header", "dotted_token", "id_token=%s", b64url("{\n  \"alg\": \"none\",\n  \"typ\": \"JWT\"\n}") + "." + b64url(`{"sub":"`+f.s(alnum, 12)+`","n":"`+f.s(alnum, 6)+`"}`) + "."},
		{"jwe", "dotted_token", "%s", b64url(`{"alg":"RSA-OAEP","enc":"A256GCM"}`) + "." + f.s(urlb64, 342) + "." + f.s(urlb64, 16) + "." + f.s(urlb64, 60) + "." + f.s(urlb64, 22)},
		{"paseto local", "paseto", "PASETO %s", "v4.local." + f.s(urlb64, 90)},
		{"paseto public", "paseto", "token=%s", "v2.public." + f.s(urlb64, 120)},
		{"paserk", "paseto", "key %s", "k4.secret." + f.s(urlb64, 86)},
		{"fernet token", "fernet", "fernet %s", base64.URLEncoding.EncodeToString(fern)},
		{"seed phrase 12", "seed_phrase", "my wallet words: %s", f.seedPhrase(12)},
		{"seed phrase 24", "seed_phrase", "recovery\n%s\nkeep safe", f.seedPhrase(24)},
	}
}

func init() {
	f := newFaker(12)
	for _, c := range structureSecrets(f) {
		// ruleCases are also checked lower-cased, which no base64 survives: the kinds whose
		// rule still sees them (TestStructureSecrets checks them all)
		switch c.kind {
		case "pkcs8 body, collapsed", "base64 of an assignment", "base32 of an assignment", "ascii85 of an assignment", "spaced-out password", "base64url of a bearer header", "openssh body", "macaroon", "unsigned jwt, pretty header":
			continue
		}
		neg := map[string]string{
			"decode_escapes": `{"msg": "see \"docs\" at https://x.example/a%20b"}`,
			"decode_base64":  "the text " + base64.StdEncoding.EncodeToString([]byte("just ordinary words here, nothing else")),
			"pem_any_dashes": "—————BEGIN PUBLIC KEY—————",
			"dotted_token":   "see pkg.Func.Method and eyJhbGciOiJIUzI1NiJ9.notajwt",
			"paseto":         "use v4.local tokens",
			"decode_ascii85": "the PDF holds <~87cURD]i,\"Ebo80~> only",
			"decode_spaced":  "a b c d e f g h i j k l are the rows",
			"fernet":         "gAAAAA is the prefix",
			"seed_phrase":    "the review of the index build was slow and the cache needs a retry",
		}[c.rule]
		ruleCases = append(ruleCases, struct{ rule, positive, secret, negative string }{c.rule, strings.Replace(c.text, "%s", c.secret, 1), firstFragment(c.secret), neg})
		hostileUnit := map[string]string{"decode_escapes": `\"%3D\u0041`, "decode_base64": "TUlJRXZRSUJBREFOQmdrcWhraUc5dzBCQVFFRkFBU0NCS2N3Z2dTakFnRUFBb0lCQVFD ", "seed_phrase": "abandon ", "decode_ascii85": "<~9jqo^", "decode_spaced": "p a s s ", "decode_rotated": "rot13 ", "decode_uuencoded": "begin 644 a ", "decode_invisible": "a\u200b", "decode_byte_groups": "6f ", "decode_char_list": "'a', ", "decode_spoken": "victor ", "dotted_token": "eyJhIjoiYiJ9.", "pem_any_dashes": "—BEGIN PRIVATE KEY—\n"}[c.rule]
		if hostileUnit != "" {
			hostile = append(hostile, struct{ name, unit string }{c.rule + " " + strconv.Itoa(len(hostile)), hostileUnit})
		}
	}
}

// firstFragment is a piece of a secret that must disappear: the end of its first word, or of
// its third line.
func firstFragment(s string) string {
	w := strings.Fields(s)[0]
	if lines := strings.Split(s, "\n"); len(lines) > 3 {
		w = lines[2]
	}
	if len(w) > 12 {
		return w[len(w)-12:]
	}
	return w
}

func TestStructureSecrets(t *testing.T) {
	r := New()
	for seed := range uint64(10) {
		for _, c := range structureSecrets(newFaker(seed + 200)) {
			text := strings.Replace(c.text, "%s", c.secret, 1)
			got := r.Text(collapse(text))
			for _, frag := range fragments(c.secret) {
				if strings.Contains(got, frag) && !strings.Contains(c.text, frag) {
					t.Errorf("%s: fragment %q survives in %q", c.kind, frag, got)
					break
				}
			}
			if r.Text(got) != got {
				t.Errorf("%s: redacting %q again changes it", c.kind, got)
			}
		}
	}
}

// TestKeyMaterialNotRandom: random bytes are almost never taken for key material, a macaroon or
// text.
func TestKeyMaterialNotRandom(t *testing.T) {
	n := 0
	b := make([]byte, 48)
	rng := mrand.New(mrand.NewPCG(21, 42)) // the same blocks on every run: a count, not a chance
	for range 200000 {
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		if keyMaterial(b) || macaroon(b) || printableText(b) {
			n++
		}
	}
	if n > 2 {
		t.Errorf("%d of 200000 random blocks taken for key material, a macaroon or text", n)
	}
}

// TestSeedPhraseProse: twelve words of the list in a row are needed; prose of list words broken by
// others is left alone.
func TestSeedPhraseProse(t *testing.T) {
	r := New()
	f := newFaker(1)
	phrase := f.seedPhrase(12)
	for _, s := range []string{
		strings.Join(strings.Fields(phrase)[:11], " ") + " and more",
		"we will review the result and then build a better index for the search and the cache",
	} {
		if got := r.Text(s); got != s {
			t.Errorf("Text(%q) = %q, want it unchanged", s, got)
		}
	}
	if got := r.Text("seed: " + phrase); got != "seed: "+Placeholder {
		t.Errorf("seed phrase: %q", got)
	}
}

// TestDecodeDepth: decoding nests at most maxDecodeDepth levels.
func TestDecodeDepth(t *testing.T) {
	r := New()
	secret := "password=" + newFaker(4).s(lalnum, 14)
	once := base64.StdEncoding.EncodeToString([]byte("env " + secret + " end"))
	twice := base64.StdEncoding.EncodeToString([]byte("blob " + once + " end"))
	if got := r.Text("x " + twice + " y"); got != "x "+Placeholder+" y" {
		t.Errorf("two levels: %q", got)
	}
}

// Key stores and key files in base64 without a frame: a Java keystore, a PKCS#12 file, a minisign
// secret key.
func TestKeyStoresInBase64(t *testing.T) {
	r := New()
	rng := mrand.New(mrand.NewPCG(5, 6))
	body := func(prefix []byte, n int) string {
		b := append([]byte(nil), prefix...)
		for len(b) < n {
			b = append(b, byte(rng.Uint32()))
		}
		return base64.StdEncoding.EncodeToString(b)
	}
	for name, prefix := range map[string][]byte{
		"jks":      {0xfe, 0xed, 0xfe, 0xed, 0, 0, 0, 2},
		"pkcs12":   {0x30, 0x82, 0x0a, 0x1b, 0x02, 0x01, 0x03, 0x30, 0x82, 0x09, 0xe1, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x07, 0x01},
		"minisign": []byte("EdScB2"),
	} {
		secret := body(prefix, 120)
		text := "the " + name + " file, base64: " + secret
		if got := r.Text(text); strings.Contains(got, secret[len(secret)/2:len(secret)/2+8]) {
			t.Errorf("%s: %q", name, got)
		}
	}
}

// htmlEscape writes every byte of s as a hexadecimal character reference.
func htmlEscape(s string) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		fmt.Fprintf(&b, "&#x%x;", c)
	}
	return b.String()
}

// ascii85Frame is s in Ascii85 between <~ and ~>.
func ascii85Frame(s string) string {
	out := make([]byte, ascii85.MaxEncodedLen(len(s)))
	return "<~" + string(out[:ascii85.Encode(out, []byte(s))]) + "~>"
}

// url3 is s URL-encoded three times.
func url3(s string) string {
	for range 3 {
		s = url.QueryEscape(s)
	}
	return s
}

// TestCharacterDump: od -c prints a file one character a column; a password file so dumped is
// hidden, as it is spaced out by hand.
func TestCharacterDump(t *testing.T) {
	r := New()
	if got := r.Text("$ od -An -c secret.txt W q 9 t R 5 5 m Z x 2 L"); strings.Contains(got, "W q 9 t R") {
		t.Errorf("Text = %q, want the dump hidden", got)
	}
	if s := "$ od -c notes.txt h e l l o"; r.Text(s) != s {
		t.Errorf("Text(%q) = %q, want it unchanged", s, r.Text(s))
	}
}
