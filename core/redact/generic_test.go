package redact

import (
	"strings"
	"testing"
)

// The generic rules of issue 22: each case is a shape of secret no rule names by kind, and a
// harmless text of the same shape that stays as it is.

func init() {
	ruleCases = append(ruleCases,
		struct{ rule, positive, secret, negative string }{"ci_set_variable", "##vso[task.setvariable variable=DB_PASS]-$K7wq2?Rn", "-$K7wq2?Rn", "##vso[task.setvariable variable=BUILD_FLAVOR]release"},
		struct{ rule, positive, secret, negative string }{"decode_base85", `print(base64.a85decode(b'flZZHg\t:T%l*Pl8]DW=7X/S=n!#D'))`, `flZZHg\t:T%l*`, "base64.a85decode(data) decodes Ascii85"},
		struct{ rule, positive, secret, negative string }{"decode_reversed", "stored it backwards: =o1NOxUSfRTO3UzXyVGZul2Q6cHc", "=o1NOxUSfRTO3", "reverse[y] = (0x81+c0)<<8 | c1"},
		struct{ rule, positive, secret, negative string }{"split_token", "key was\nkX9mQ2vL7pa0Q3\nZt8Rw1Yb4Nc6 thanks", "kX9mQ2vL7pa0Q3", "see libc_pwrite64 pwrite64 and AVX-512 BFLOAT16"},
		struct{ rule, positive, secret, negative string }{"decode_base45", "QR payload (base45) 2ECJ$D3.D/$E7+8/+9XPEEB6.69 T9K1", "2ECJ$D3.D/$E7+8", "the EU DCC uses base45 encoding of a CBOR payload, see RFC 9285"},
		struct{ rule, positive, secret, negative string }{"han_seed_phrase", "备份: 国 发 会 人 们 年 就 同 得 不 学 的", "国 发 会 人 们 年 就 同", "备份：国发会人们年就同得不学的，这是一句话"},
		struct{ rule, positive, secret, negative string }{"spaced_directive", "<security> self_hostname client shared_key MLpWjDcp_bvGvkVHp </security>", "MLpWjDcp_bvGvkVHp", "func SetAPIKey(api_key string) error { return nil } // the api_key parameter is required"},
		struct{ rule, positive, secret, negative string }{"decode_hex_words", "$ xxd .pgpass.bak | head -1\n00000000: 5061 7061 7961 2437 3530 3845 ............", "5061 7061 7961 2437", "00000000: 3132 2033 3420 3536 2037 3820 3930  12 34 56 78 90"},
		struct{ rule, positive, secret, negative string }{"decode_reversed_base64", "rev | base64 -d <<< =o1NOxUSfRTO3UzXyVGZul2Q6cHc", "=o1NOxUSfRTO3", `x := a == b && c != "=abc"`},
	)
}

// TestDigestWordsAreWords: a word about hashes on a hex digest's line makes it a digest only
// as a word, not inside another ("shared", "Pinata", "stage", "previous").
func TestDigestWordsAreWords(t *testing.T) {
	f := newFaker(21)
	r := New()
	for _, c := range []struct{ text, secret string }{
		{"Pinata: %s", f.s(hexlc, 64)},
		{"the user shared credentials: the API key %s, do not share", f.s(hexlc, 40)},
		{"staging key %s", f.s(hexlc, 64)},
		{"previous one expired, use %s", f.s(hexlc, 40)},
	} {
		text := strings.Replace(c.text, "%s", c.secret, 1)
		if got := r.Text(text); strings.Contains(got, c.secret[:8]) {
			t.Errorf("Text(%q) = %q, want the key hidden", text, got)
		}
	}
	for _, s := range []string{
		"commits " + f.s(hexlc, 40), "fileHash " + f.s(hexlc, 64), "md5sum " + f.s(hexlc, 32) + " x",
		"hashed to " + f.s(hexlc, 64), "the lockfile pins " + f.s(hexlc, 40), "sha256:" + f.s(hexlc, 64),
		"tagged " + f.s(hexlc, 40), "commitID " + f.s(hexlc, 40),
	} {
		if got := r.Text(s); got != s {
			t.Errorf("Text(%q) = %q, want it unchanged", s, got)
		}
	}
}

// TestWordNumberSymbol: one capitalised word, a number and a symbol or an emoji, in any order,
// is the password people make most; a sentence's final ! after a short number is punctuation.
func TestWordNumberSymbol(t *testing.T) {
	r := New()
	for _, c := range []struct{ text, secret string }{
		{"here you go: Cobalt9357% (staging)", "Cobalt9357%"},
		{"ລະຫັດຜ່ານແມ່ນCobalt🐙7657🔥$", "Cobalt🐙7657🔥$"},
		{"Tundra🦄9961 for the wifi", "Tundra🦄9961"},
		{"use Summer2024! to log in", "Summer2024!"},
		{"գաղտնաբառ՝ Sprocket🍀1874🚀? -- sent", "Sprocket🍀1874🚀?"},
	} {
		if got := r.Text(c.text); strings.Contains(got, c.secret) {
			t.Errorf("Text(%q) = %q, want %q hidden", c.text, got, c.secret)
		}
	}
	for _, s := range []string{"we won Season24!", "see Section12.3 and RFC7231#section-6", "the NetBSD10 build", "CamelCase2024Names"} {
		if got := r.Text(s); got != s {
			t.Errorf("Text(%q) = %q, want it unchanged", s, got)
		}
	}
}

// TestDecodedTokens: text encoded on purpose (base64, hex, base32 padded or not) that decodes to
// user:password or to one random token is hidden with no key word near it; encoded words and
// names stay.
func TestDecodedTokens(t *testing.T) {
	r := New()
	for _, secret := range []string{
		"MZMUYVCUGNDFS2ZRNVVDMSY=",                     // base32 of fYLTT3FYk1mj6K
		"MNUS2YTPOQ5EMYLMMNXW4MRUGIZD6T3RMY",           // base32, unpadded, of ci-bot:Falcon2422?Oqf
		"61646d696e3a7565746c697a35667765356f36336c76", // hex of admin:uetliz5fwe5o63lv
		"eG1mZmZic243NTRxcHM4Mg",                       // base64, unpadded, of xmfffbsn754qps82
		"YWRtaW46dWV0bGl6NWZ3ZTVvNjNsdg==",             // base64 of admin:uetliz5fwe5o63lv
	} {
		text := "here: " + secret + " thanks"
		if got := r.Text(text); strings.Contains(got, secret[:8]) {
			t.Errorf("Text(%q) = %q, want it hidden", text, got)
		}
	}
	for _, s := range []string{
		"VGhlIHF1aWNrIGJyb3duIGZveCBqdW1wcyBvdmVyIHRoZSBsYXp5IGRvZw==",
		"ZW5jcnlwdGVkQ2xpZW50SGVsbG8=", // encryptedClientHello
	} {
		if got := r.Text("see " + s); got != "see "+s {
			t.Errorf("Text(%q) = %q, want it unchanged", s, got)
		}
	}
}

// TestNamedEncodings: base85 where the text names it (a85decode, key (z85):), an Ascii85 block
// of a key's random bytes, and base64 written backwards are decoded; prose about them stays.
func TestNamedEncodings(t *testing.T) {
	r := New()
	for _, c := range []struct{ text, secret string }{
		{`python -c "import base64;print(base64.a85decode(b'flZZHg\t:T%l*Pl8]DW=7X/S=n!#D'))"`, `flZZHg\t:T%l*Pl8]DW=7X/S=n!#D`},
		{`key (a85): <~6_t:._.Ft_ok_'Ir/-9i7Bg;C\[j8g~> ok`, `6_t:._.Ft_ok_'Ir/-9i7Bg;C\[j8g`},
		{"rev | base64 -d <<< =o1NOxUSfRTO3UzXyVGZul2Q6cHc", "=o1NOxUSfRTO3UzXyVGZul2Q6cHc"},
		{"stored it backwards: =o1NOxUSfRTO3UzXyVGZul2Q6cHc", "=o1NOxUSfRTO3UzXyVGZul2Q6cHc"},
	} {
		if got := r.Text(c.text); strings.Contains(got, c.secret[:10]) {
			t.Errorf("Text(%q) = %q, want %q hidden", c.text, got, c.secret)
		}
	}
	for _, s := range []string{
		"base64.a85decode(data) decodes Ascii85; see https://example.com/blob/de6d76fba3078eda957dadb3cec51ca8ab851b5c/seps/2322-MRTR.md",
		"PerfBitWriteBackward = CBitFieldMaskBit27", "reverse[y] = (0x81+c0)<<8 | c1", "reverse_services(tls, bp+78, port, flags&0x10)",
		"if you need to reverse a string, use ReverseString(s)", "x := a == b && c != \"=abc\"",
	} {
		if got := r.Text(s); got != s {
			t.Errorf("Text(%q) = %q, want it unchanged", s, got)
		}
	}
}

// TestSplitTokens: a random token broken in two by a line break is hidden whole, however the
// halves fall; two names, words or key=value pairs side by side stay.
func TestSplitTokens(t *testing.T) {
	f := newFaker(23)
	r := New()
	for k := 0; k < 40; k++ {
		tok := f.s(alnum, 40)
		if k%2 == 1 {
			tok = f.s(hexlc, 64)
		}
		cut := 6 + k%(len(tok)-12)
		text := "token:\n" + tok[:cut] + "\n" + tok[cut:] + "\nthanks"
		if l := leaks(r, text, tok[:cut]+" "+tok[cut:]); len(l) > 0 {
			t.Errorf("%q: %q left in %q", text, l, r.Text(collapse(text)))
		}
	}
	for _, s := range []string{
		"//go:cgo_import_dynamic libc_pwrite64 pwrite64", "AVX512BF16 // AVX-512 BFLOAT16 Instructions", "// rfc1842 , rfc1843 rfc1843 rfc1842",
		"trace_id=da1fd061e03c803e9ad0e1bf1066182a span_id=d920cd32b452fe02 service=checkout",
		"lantern606 juniper133 willow937 quartz254 quartz632", "sha256 " + f.s(hexlc, 64), "commit " + f.s(hexlc, 20) + " " + f.s(hexlc, 20),
	} {
		if got := r.Text(s); got != s {
			t.Errorf("Text(%q) = %q, want it unchanged", s, got)
		}
	}
}

// TestPercentInPasswords: a % before digits is a URL escape only of what URLs escape (printable
// characters, line breaks, runs of UTF-8 bytes) and a format verb only with a short width, so
// Nugget%1934fJ6a and Ağaç%1633Bærum read as passwords; § is a keyboard's symbol too.
func TestPercentInPasswords(t *testing.T) {
	r := New()
	for _, secret := range []string{"Nugget%1934fJ6a", "Ağaç%1633Bærum", "Noël.1883§Île"} {
		text := "mot de passe " + secret + " merci"
		if got := r.Text(text); strings.Contains(got, secret) {
			t.Errorf("Text(%q) = %q, want %q hidden", text, got, secret)
		}
	}
	for _, s := range []string{"see is%3Aissue%20label:bug", "caf%C3%A9Latte12 menu", "printf(\"%-8s%08.3f\", a, b)", "100%25off", "§ 12.3 of the act"} {
		if got := r.Text(s); got != s {
			t.Errorf("Text(%q) = %q, want it unchanged", s, got)
		}
	}
}

// TestNamedByAField: a value is named by the field before it, not only by its own key: a
// credential's type (Keycloak), CloudFormation's ParameterKey, a NoEcho parameter's Default.
func TestNamedByAField(t *testing.T) {
	r := New()
	for _, c := range []struct{ text, secret string }{
		{`"credentials": [{ "type": "password", "value": "CxYnlmWf_ZG1icsRU", "temporary": false }]`, "CxYnlmWf_ZG1icsRU"},
		{`{"ParameterKey": "DbPassword", "ParameterValue": "CxYnlmWf_ZG1icsRU"}`, "CxYnlmWf_ZG1icsRU"},
		{"Parameters:\n  DbPassword:\n    Type: String\n    NoEcho: true\n    Default: Juniper0408-wUcuwN", "Juniper0408-wUcuwN"},
	} {
		if got := r.Text(c.text); strings.Contains(got, c.secret) {
			t.Errorf("Text(%q) = %q, want %q hidden", c.text, got, c.secret)
		}
	}
	for _, s := range []string{`{"type": "keyword", "value": "select"}`, `{"type": "key", "value": "Enter"}`, "NoEcho: false\n    Default: us-east-1a"} {
		if got := r.Text(s); got != s {
			t.Errorf("Text(%q) = %q, want it unchanged", s, got)
		}
	}
}

// TestShortRandomInChat: a generated password of ten or more characters said with no key word
// ("here you go: K9qKs5jsW5g") is hidden; names, hex constants and words with numbers stay.
func TestShortRandomInChat(t *testing.T) {
	r := New()
	for _, c := range []struct{ text, secret string }{
		{"use 84tnK5JQuk to log in", "84tnK5JQuk"},
		{"đây: K9qKs5jsW5g", "K9qKs5jsW5g"},
		{"给你：mSFj13YtMwn", "mSFj13YtMwn"},
	} {
		if got := r.Text(c.text); strings.Contains(got, c.secret) {
			t.Errorf("Text(%q) = %q, want %q hidden", c.text, got, c.secret)
		}
	}
	for _, s := range []string{"XACT_E_LAST syscall.Errno = 0x8004D02B", "Att_atime64 uint64", "see IPv6Addr and getUTF8Len", "the GPT4oMini model"} {
		if got := r.Text(s); got != s {
			t.Errorf("Text(%q) = %q, want it unchanged", s, got)
		}
	}
}

// TestBase36InChat: small letters and digits mixed at random (a base36 key's body, a generated
// password) are hidden with no key word; hex numbers, names with numbers and words stay.
func TestBase36InChat(t *testing.T) {
	r := New()
	for _, c := range []struct{ text, secret string }{
		{"for Omise use k29amv0beyilkx577oi as the key, I removed the prefix", "k29amv0beyilkx577oi"},
		{"вот: 8cwtc1xqsw89kz", "8cwtc1xqsw89kz"},
	} {
		if got := r.Text(c.text); strings.Contains(got, c.secret) {
			t.Errorf("Text(%q) = %q, want %q hidden", c.text, got, c.secret)
		}
	}
	for _, s := range []string{"IFF_CANTCHANGE = 0x7f203003b5a", "order 594027 shipped, tracking 1ZB043MD1IRSCCOBFC", "0x0000000ca23c7101,", "utf8mb4_unicode_ci and sha256sum", "the covid19vaccine2021 page", "mask1 = 0x2d00002d00000000"} {
		if got := r.Text(s); got != s {
			t.Errorf("Text(%q) = %q, want it unchanged", s, got)
		}
	}
}

// TestSpelledAndTagged: a password spelled letter by letter with a capital and a digit said,
// and a word, a number and a random tail joined by a dash, are hidden; code and lists stay.
func TestSpelledAndTagged(t *testing.T) {
	r := New()
	for _, c := range []struct{ text, secret string }{
		{"yeah just type capital W a l r u s nine three hash and hit enter", "W a l r u s"},
		{"Default: Juniper0408-wUcuwN", "Juniper0408-wUcuwN"},
	} {
		if got := r.Text(c.text); strings.Contains(got, c.secret) {
			t.Errorf("Text(%q) = %q, want %q hidden", c.text, got, c.secret)
		}
	}
	for _, s := range []string{"say capital A then b c for the list one two", "x := offset-lineStart"} {
		if got := r.Text(s); got != s {
			t.Errorf("Text(%q) = %q, want it unchanged", s, got)
		}
	}
}

// TestRandomTokensWithWordLikePieces: a random token that changes class nearly as often as
// random characters do is random even when short pieces of it read as words, and base32 is
// judged against its own six digits; identifiers and constants stay.
func TestRandomTokensWithWordLikePieces(t *testing.T) {
	r := New()
	for _, c := range []struct{ text, secret string }{
		{"Makullin API shine EWLPaxi_vRNJYF04cebEziWl0yyWavImGK77, kada ka raba shi", "EWLPaxi_vRNJYF04cebEziWl0yyWavImGK77"},
	} {
		if got := r.Text(c.text); strings.Contains(got, c.secret[:8]) {
			t.Errorf("Text(%q) = %q, want %q hidden", c.text, got, c.secret)
		}
	}
	for _, s := range []string{"HWTSTAMP_TX_ONESTEP_P2P = C.HWTSTAMP_TX_ONESTEP_P2P", "parseHTTPRequestWithBody2 and getUserAccountSettings2FA", "RTM_NEWNEXTHOP_GROUP_STATS2",
		"if _sqlite3ExprCanBeNull(tls, x) != 0 {", "eOnePass = _sqlite3WhereOkOnePass(tls, pWInfo, bp+48)"} {
		if got := r.Text(s); got != s {
			t.Errorf("Text(%q) = %q, want it unchanged", s, got)
		}
	}
}

// TestHanPhrases: twelve to twenty-four Han characters, each alone between blanks, in no order,
// are a Chinese recovery phrase; Chinese prose and lists of characters in code point order stay.
func TestHanPhrases(t *testing.T) {
	r := New()
	for _, text := range []string{"法 后 就 我 可 个 为 过 民 会 经 多", "备份　国　发　会　人　们　年　就　同　得　不　学　的"} {
		if got := r.Text(text); !strings.Contains(got, Placeholder) {
			t.Errorf("Text(%q) = %q, want the phrase hidden", text, got)
		}
	}
	for _, s := range []string{
		"一 丁 七 万 丈 三 上 下 丌 不 与 丑 专 且 世", "这是一个普通的句子，没有任何秘密。",
		"一 丁 七 万 丈 三 上 下 丌 不 与 丑 专 且 世 丘 丙 业 东 丝 丢 两 严 丧 个 中 丰 串 临",
	} {
		if got := r.Text(s); got != s {
			t.Errorf("Text(%q) = %q, want it unchanged", s, got)
		}
	}
}

// TestValueAfterName: a value after name= is judged as a piece alone, the name being no part of
// its token (current=gondola-oxbow-estuary-657).
func TestValueAfterName(t *testing.T) {
	r := New()
	text := "rotated. previous=Xk29dPq7Lm!a current=gondola-oxbow-estuary-657"
	if got := r.Text(text); strings.Contains(got, "gondola-oxbow") {
		t.Errorf("Text(%q) = %q, want the new passphrase hidden", text, got)
	}
	for _, s := range []string{"mode=read-only-cache-42", "GOFLAGS=-mod=mod go build", "layout=left-right-split"} {
		if got := r.Text(s); got != s {
			t.Errorf("Text(%q) = %q, want it unchanged", s, got)
		}
	}
}

// TestCodeInGroups: a code after a word for a safe's combination or a door's code may be written
// in groups of digits joined by dashes; a date stays.
func TestCodeInGroups(t *testing.T) {
	r := New()
	if got := r.Text("the combination for the server-room safe: 84-49-06-06"); strings.Contains(got, "84-49") {
		t.Errorf("combination kept: %q", got)
	}
	for _, s := range []string{"error code: 2026-05-06", "code 12-34", "exit code 1"} {
		if got := r.Text(s); got != s {
			t.Errorf("Text(%q) = %q, want it unchanged", s, got)
		}
	}
}

// TestKeyInLanguages: "key" in more languages names a value mixed like a secret; a key to a
// drawer, or a word, stays.
func TestKeyInLanguages(t *testing.T) {
	r := New()
	for _, text := range []string{"der Schlüssel ist aB3xK9pQ7m", "Makullin API shine xK29dPq7Lm, kada", "ключ: Zq8Lw3Nv5Tb"} {
		if got := r.Text(text); !strings.Contains(got, Placeholder) {
			t.Errorf("Text(%q) = %q, want the key hidden", text, got)
		}
	}
	for _, s := range []string{"la clé est dans le tiroir", "Schlüssel: Wert", "el ключ от двери"} {
		if got := r.Text(s); got != s {
			t.Errorf("Text(%q) = %q, want it unchanged", s, got)
		}
	}
}

// TestGluedLabelHidden: a key file's label glued to its key (privkey:…, token-xxxxx:…) goes with
// the key, eight bytes of it being a fragment of the secret; a field's name (password:, db_secret:)
// and a URL's user stay, saying what was hidden.
func TestGluedLabelHidden(t *testing.T) {
	f := newFaker(23)
	r := New()
	key := f.s(hexlc, 64)
	for _, c := range []struct{ text, want string }{
		{"cat noise_private.key privkey:" + key, "cat noise_private.key [REDACTED]"},
		{"creds are token-fnpfy:" + f.s(lalnum, 54) + " now", "creds are [REDACTED] now"},
		{"NOISE=privkey:" + key, "NOISE=[REDACTED]"},
		{"password:" + key, "password:[REDACTED]"},
		{"db_secret:" + key, "db_secret:[REDACTED]"},
		{"https://deploy:" + key + "@git.example.com/x", "https://deploy:[REDACTED]@git.example.com/x"},
	} {
		if got := r.Text(c.text); got != c.want {
			t.Errorf("Text(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}
