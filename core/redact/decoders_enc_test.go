package redact

import (
	"strings"
	"testing"
)

// Encodings of a secret written without a frame of their own, after the seventh blind corpus:
// each must be hidden whole, its constructor, quoting and delimiters too.

func init() {
	hostile = append(hostile, []struct{ name, unit string }{
		{"entity run", "&#x41;"},
		{"entity runs", "&#75;&#100;&#56;&#102;&#80;&#113;&#50;&#109; "},
		{"quoted-printable runs", "=4B=64=38=66=50=71=32=6D "},
		{"byte literals", "new byte[]{75, 100, 56, 102, 80, 113, 50, 109, 90, 120}, "},
		{"erlang binaries", "<<75, 100, 56, 102, 80, 113, 50, 109, 90, 120>> "},
		{"constructors", "[UInt8](["},
		{"data urls", "data:text/plain;base64,S2Q4ZlBxMm1aeDd2Ug== "},
		{"base64 markers", ";base64,"},
		{"decode calls", "bytes.fromhex('4b6438665071326d5a78377652') "},
		{"mime words", "=?UTF-8?B?S2Q4ZlBxMm1aeDd2Ug==?= "},
		{"spoken symbols", "alfa ! bravo # "},
	}...)
	ruleCases = append(ruleCases,
		struct{ rule, positive, secret, negative string }{"decode_escape_runs", "raw=&#x4b;&#x64;&#x38;&#x66;&#x50;&#x71;&#x32;&#x6d;&#x5a;&#x78;&#x37;&#x76;&#x52;", "&#x4b;&#x64;", "copyright &#169; 2024 &#8212; all rights reserved"},
		struct{ rule, positive, secret, negative string }{"decode_data_url", "src=data:text/plain;base64,S2Q4ZlBxMm1aeDd2Ug==", "data:text/plain;base64,S2Q4", "src=data:text/plain;base64,SGVsbG8sIFdvcmxkIQ=="},
	)
}

// leftFragment is the first 8-byte fragment of secret still in got, or "".
func leftFragment(got, secret string) string {
	for i := 0; i+8 <= len(secret); i++ {
		if strings.Contains(got, secret[i:i+8]) {
			return secret[i : i+8]
		}
	}
	return ""
}

// TestEncodedSecretsHiddenWhole: Kd8fPq2mZx7vR written in each encoding, after words that do
// not name a secret, leaves no 8-byte fragment of the encoded form.
func TestEncodedSecretsHiddenWhole(t *testing.T) {
	r := New()
	for _, c := range []struct{ name, lead, encoded, tail string }{
		{"go byte slice", "v := ", "[]byte{0x4b, 0x64, 0x38, 0x66, 0x50, 0x71, 0x32, 0x6d, 0x5a, 0x78, 0x37, 0x76, 0x52}", ""},
		{"java byte array", "byte[] k = ", "new byte[]{75, 100, 56, 102, 80, 113, 50, 109, 90, 120, 55, 118, 82}", ";"},
		{"rust u8 array", "let k = ", "[75u8, 100u8, 56u8, 102u8, 80u8, 113u8, 50u8, 109u8, 90u8, 120u8, 55u8, 118u8, 82u8]", ";"},
		{"swift uint8 array", "let k = ", "[UInt8]([0x4B,0x64,0x38,0x66,0x50,0x71,0x32,0x6D,0x5A,0x78,0x37,0x76,0x52])", ""},
		{"bare hex bytes", "raw=", "0x4b,0x64,0x38,0x66,0x50,0x71,0x32,0x6d,0x5a,0x78,0x37,0x76,0x52", ""},
		{"go string of bytes", "pw := ", "string([]byte{0x4b, 0x64, 0x38, 0x66, 0x50, 0x71, 0x32, 0x6d, 0x5a, 0x78, 0x37, 0x76, 0x52})", ""},
		{"python bytes", "k = ", "bytes([75, 100, 56, 102, 80, 113, 50, 109, 90, 120, 55, 118, 82])", ""},
		{"c# byte array", "var k = ", "new byte[] { 0x4B, 0x64, 0x38, 0x66, 0x50, 0x71, 0x32, 0x6D, 0x5A, 0x78, 0x37, 0x76, 0x52 }", ";"},
		{"html decimal entities", `<input value="`, "&#75;&#100;&#56;&#102;&#80;&#113;&#50;&#109;&#90;&#120;&#55;&#118;&#82;", `">`},
		{"html hex entities", "raw=", "&#x4b;&#x64;&#x38;&#x66;&#x50;&#x71;&#x32;&#x6d;&#x5a;&#x78;&#x37;&#x76;&#x52;", ""},
		{"ansi-c octal", "export K=", `$'\113\144\070\146\120\161\062\155\132\170\067\166\122'`, ""},
		{"hex escapes", `k = "`, `\x4b\x64\x38\x66\x50\x71\x32\x6d\x5a\x78\x37\x76\x52`, `"`},
		{"brace escapes", `k = "`, `\u{4b}\u{64}\u{38}\u{66}\u{50}\u{71}\u{32}\u{6d}\u{5a}\u{78}\u{37}\u{76}\u{52}`, `"`},
		{"hex colon", "raw=", "4b:64:38:66:50:71:32:6d:5a:78:37:76:52", ""},
		{"hex spaced upper", "raw=", "4B 64 38 66 50 71 32 6D 5A 78 37 76 52", ""},
		{"ascii85 adobe", "K=", `<~94U"o:iS7->'MuL;?~>`, ""},
		{"data url", "K=", "data:text/plain;base64,S2Q4ZlBxMm1aeDd2Ug==", ""},
		{"python fromhex", "v = ", "bytes.fromhex('4b6438665071326d5a78377652')", ""},
		{"mysql unhex", "SELECT ", "UNHEX('4B6438665071326D5A78377652')", ";"},
		{"sql hex literal", "raw=", "0x4B6438665071326D5A78377652", ""},
		{"node buffer", "const k = ", `Buffer.from("4b6438665071326d5a78377652", "hex")`, ";"},
		{"base32", "raw=", "JNSDQZSQOEZG2WTYG53FE===", ""},
		{"hex pairs in fromhex", "v = ", "bytes.fromhex('4b 64 38 66 50 71 32 6d 5a 78 37 76 52')", ""},
		{"quoted-printable", "raw=", "=4B=64=38=66=50=71=32=6D=5A=78=37=76=52", ""},
		{"mime encoded-word", "X-Token: ", "=?UTF-8?B?S2Q4ZlBxMm1aeDd2Ug==?=", ""},
		{"elixir binary", "k = ", "<<75, 100, 56, 102, 80, 113, 50, 109, 90, 120, 55, 118, 82>>", ""},
		{"base64 of a token", "raw=", "S2Q4ZlBxMm1aeDd2Ug==", ""},
		{"nato joined by dashes", "read it back: ", "KILO-delta-eight-foxtrot-papa-quebec-two-mike-zulu-xray", ""},
		{"nato between slashes", "read it back: ", "kilo / delta / eight / foxtrot / papa / quebec / two / mike", ""},
		{"nato with niner and symbols", "read it back: ", "KILO delta eight foxtrot ! papa quebec niner two mike # zulu xray", ""},
	} {
		text := c.lead + c.encoded + c.tail
		got := r.Text(text)
		if f := leftFragment(got, c.encoded); f != "" {
			t.Errorf("%s: Text(%q) = %q, %q left", c.name, text, got, f)
		}
		if !strings.HasPrefix(got, c.lead) {
			t.Errorf("%s: Text(%q) = %q, the words before were hidden", c.name, text, got)
		}
	}
}

// TestEncodedLookAlikesKept: encoded text that is no secret, and text shaped like an encoding,
// stays as it is.
func TestEncodedLookAlikesKept(t *testing.T) {
	r := New()
	for _, text := range []string{
		"sizes := []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0}",
		"magic := []byte{0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a}",
		"    0x48, 0x65, 0x6c, 0x6c, 0x6f, 0x2c, 0x20, 0x77, 0x6f, 0x72, 0x6c, 0x64,",
		"    0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b,",
		"greeting := []byte{72, 101, 108, 108, 111, 44, 32, 119, 111, 114, 108, 100}",
		"let ones = [1u8, 2u8, 3u8, 4u8, 5u8, 6u8, 7u8, 8u8, 9u8, 10u8];",
		"copyright &#169; 2024 &#8212; all rights reserved",
		"<p>&#72;&#101;&#108;&#108;&#111;&#32;&#87;&#111;&#114;&#108;&#100;</p>",
		`printf '\x48\x65\x6c\x6c\x6f\x20\x57\x6f\x72\x6c\x64\x0a'`,
		`echo $'\101\102\103'`,
		"link/ether 00:1a:2b:3c:4d:5e brd ff:ff:ff:ff:ff:ff",
		"48 65 6c 6c 6f 20 77 6f 72 6c 64 21",
		"Mike flew to India with Victor, and the hotel in Lima was a five-star one.",
		"the phonetic alphabet starts alfa bravo charlie and ends with zulu",
		"a well-known one-off echo-chamber in the x-ray lab, see mike-and-oscar notes",
		"| one | two | three | four | five | six |",
		"favicon: data:text/plain;base64,SGVsbG8sIFdvcmxkIQ==",
		"img: data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
		"stored as <~87cURD_*#AARTU%=)W+qA,~> in the PDF",
		"greeting = bytes.fromhex('48656c6c6f2c20776f726c6421')",
		"Subject: SGVsbG8sIGRlYXIgV29ybGQ=",
		"The JWT header eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9 decodes to a JSON object.",
		"body: Caf=C3=A9 au lait =3D good",
		"<<1, 2, 3, 4, 5, 6, 7, 8, 9, 10>>",
		"cout << 1 << 2 << 3 << 4 << 5 << 6 << 7 << 8;",
		"commit 3f2a9c1e5b7d4f6a8c0e2b4d6f8a0c2e4b6d8f0a",
		`print("48656c6c6f2c20776f726c6421")`,
	} {
		if got := r.Text(text); got != text {
			t.Errorf("Text(%q) = %q, want unchanged", text, got)
		}
	}
}

// TestByteLiteral: the literal's bounds take in its constructor and the closers it opened, and
// nothing of the words around it. list is the opening bracket and the values, as scanByteLists
// reads them.
func TestByteLiteral(t *testing.T) {
	for _, c := range []struct{ text, list, want string }{
		{"x := []byte{1, 2, 3}, y", "{1, 2, 3", "[]byte{1, 2, 3}"},
		{"k = new byte[]{1, 2, 3};", "{1, 2, 3", "new byte[]{1, 2, 3}"},
		{"var k = new byte[] { 0x01, 0x02, 0x03 };", "{ 0x01, 0x02, 0x03", "new byte[] { 0x01, 0x02, 0x03 }"},
		{"int x = y { 1, 2, 3 }", "{ 1, 2, 3", "{ 1, 2, 3 }"},
		{"k = [UInt8]([0x01,0x02,0x03]) ok", "[0x01,0x02,0x03", "[UInt8]([0x01,0x02,0x03])"},
		{"k = bytes([1, 2, 3,]) ok", "[1, 2, 3", "bytes([1, 2, 3,])"},
		{"k = [1u8, 2u8, 3u8];", "[1u8, 2u8, 3u8", "[1u8, 2u8, 3u8]"},
		{"f(foo)([1, 2, 3]) ok", "[1, 2, 3", "[1, 2, 3]"}, // no byte type named: the list alone
		{"pw=[1, 2, 3", "[1, 2, 3", "[1, 2, 3"},           // cut short: what there is
	} {
		open := strings.Index(c.text, c.list)
		start, end := byteLiteral(c.text, open, open+len(c.list))
		if got := c.text[start:end]; got != c.want {
			t.Errorf("byteLiteral(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

// TestEncodedValueAfterKeyWord: a value of letters and digits that reads as neither a password
// nor a token on its own (QRTlimbar40213) is hidden when encoded after a word naming a key, and
// kept after other words.
func TestEncodedValueAfterKeyWord(t *testing.T) {
	r := New()
	for _, encoded := range []string{
		"51 52 54 6C 69 6D 62 61 72 34 30 32 31 33",
		"[101, 103, 108, 77, 77, 78, 77, 70, 76, 122, 115, 83, 88, 107, 107, 87, 90]", // eglMMNMFLzsSXkkWZ
		"&#x51;&#x52;&#x54;&#x6c;&#x69;&#x6d;&#x62;&#x61;&#x72;&#x34;&#x30;&#x32;&#x31;&#x33;",
	} {
		named := "session token from the header, raw=" + encoded
		if got := r.Text(named); leftFragment(got, encoded) != "" {
			t.Errorf("Text(%q) = %q, want the encoded value hidden", named, got)
		}
		plain := "frame from the header, raw=" + encoded
		if got := r.Text(plain); got != plain {
			t.Errorf("Text(%q) = %q, want unchanged", plain, got)
		}
	}
}

// TestDisguisedKeyNames: a name that says its value was encoded still names the secret; the
// words alone name none.
func TestDisguisedKeyNames(t *testing.T) {
	for k, want := range map[string]bool{
		"password_encoded": true, "pass_enc": true, "secret_obfuscated": true, "db_token_enc": true,
		"encoded": false, "file_encoded": false, "obfuscated": false, "content_encoding": false,
	} {
		if got := secretKey(k, true); got != want {
			t.Errorf("secretKey(%q) = %v, want %v", k, got, want)
		}
	}
}

// TestIdentifierLikeParenthesis: a value with a parenthesis is code when something that can be
// called stands before it or it is closed; a password's symbols before an unclosed one are not.
func TestIdentifierLikeParenthesis(t *testing.T) {
	for v, want := range map[string]bool{
		"os.Getenv(": true, "[]byte(opts.Token)": true, ").Kind(": true, "t9YGWLh05g)](https:": true, "getpass()": true,
		"+43?4F?e(}+K|": false, "9q#Vr?2m(x": false,
	} {
		if got := identifierLike(v); got != want {
			t.Errorf("identifierLike(%q) = %v, want %v", v, got, want)
		}
	}
	r := New()
	if got := r.Text("password=+43?4F?e(}+K|"); strings.Contains(got, "+43?4F?e") {
		t.Errorf("a password with an unclosed parenthesis left: %q", got)
	}
}

// TestDecodeCall: a decoding call around an encoded literal is taken in with it; other calls,
// and literals not alone in their call, are not.
func TestDecodeCall(t *testing.T) {
	for _, c := range []struct{ text, literal, want string }{
		{"v = bytes.fromhex('4b64') ok", "4b64", "bytes.fromhex('4b64')"},
		{`k = Buffer.from("S2Q4", "base64");`, "S2Q4", `Buffer.from("S2Q4", "base64")`},
		{"x = base64.b64decode(b'S2Q4')", "S2Q4", "S2Q4"}, // b'…': the prefix is no quote of the call
		{`print("4b64")`, "4b64", "4b64"},
		{`atob("S2Q4" + rest(x))`, "S2Q4", "S2Q4"},
	} {
		i := strings.Index(c.text, c.literal)
		start, end := decodeCall(c.text, i, i+len(c.literal))
		if got := c.text[start:end]; got != c.want {
			t.Errorf("decodeCall(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

// TestDecimalBytesAfterKeyWord: decimal numbers between blanks after a word naming a key are
// hidden when they read as a token, and stay when they spell none.
func TestDecimalBytesAfterKeyWord(t *testing.T) {
	r := New()
	numbers := "75 100 56 102 80 113 50 109 90 120 55 118 82"
	named := "the db password, encoded so the bot doesn't grab it: " + numbers + " (decode it)"
	if got := r.Text(named); leftFragment(got, numbers) != "" {
		t.Errorf("Text(%q) = %q, want the numbers hidden", named, got)
	}
	// a key word before numbers that spell no token: a table still
	for _, table := range []string{"key sizes per shard: 65 66 67 68 69 70 71 72 73 74 75 76", "token counts: 100 100 100 100 100 100 100 100 100 100"} {
		if got := r.Text(table); got != table {
			t.Errorf("Text(%q) = %q, want unchanged", table, got)
		}
	}
}

// TestDecimalAhead: a run of numbers with one of three digits is decimal from its start, so
// that its two-digit numbers are not read as hex pairs.
func TestDecimalAhead(t *testing.T) {
	for s, want := range map[string]bool{
		"80 74 77 115 115 103": true,
		"4d 6f 73 61 69 63":    false,
		"12 34 56 78 90 12":    false,
		"80 74 77 1150 115":    false,
		"80 74 x 115":          false,
	} {
		if got := decimalAhead(s, 0); got != want {
			t.Errorf("decimalAhead(%q) = %v, want %v", s, got, want)
		}
	}
	r := New()
	text := "new vpn password (encoded): 80 74 77 115 115 103 107 110 122 48 52 52 50 56"
	if got := r.Text(text); leftFragment(got, "80 74 77 115 115 103 107 110 122 48 52 52 50 56") != "" {
		t.Errorf("Text(%q) = %q, want the numbers hidden", text, got)
	}
}

// TestCharCallsAfterKeyWord: a chain of character calls that spells a value after a word naming
// a key is hidden, as the other encodings are.
func TestCharCallsAfterKeyWord(t *testing.T) {
	r := New()
	chain := "[char]84+[char]79+[char]86+[char]121+[char]115+[char]98+[char]103+[char]97+[char]116+[char]56+[char]54+[char]56+[char]52+[char]48"
	text := "the db password, encoded so the bot doesn't grab it: " + chain
	if got := r.Text(text); leftFragment(got, chain) != "" {
		t.Errorf("Text(%q) = %q, want the chain hidden", text, got)
	}
}
