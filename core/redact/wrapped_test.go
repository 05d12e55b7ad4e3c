package redact

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// The generic rules of session 10: secrets nobody frames, wrapped, dumped or encoded.

func init() {
	ruleCases = append(ruleCases,
		struct{ rule, positive, secret, negative string }{"decode_char_calls", "$p = [char]68+[char]78+[char]120+[char]114+[char]105+[char]108+[char]51+[char]82+[char]97+[char]118+[char]71+[char]68+[char]53+[char]77+[char]33", "[char]120", "SELECT CHAR(65) + CHAR(66) + CHAR(67) + CHAR(68) + CHAR(69) + CHAR(70) AS letters"},
		struct{ rule, positive, secret, negative string }{"decode_emphasis", "**pw:** `jxyxXRhtorVwpI`", "jxyxXRhtorVwpI", "**Note:** the api_key field is required; see `config`: below"},
	)
}

// TestWrappedEncodings: a secret file encoded and wrapped at a line width (hex at 32, base64 at
// 20), whose lines alone decode to pieces, is hidden whole once its lines are read joined; a
// wrapped encoding of prose stays.
func TestWrappedEncodings(t *testing.T) {
	r := New()
	file := []byte("DB_PASSWORD=stqVVPqzPptEJQzh\n")
	for _, c := range []struct{ enc string }{{hex.EncodeToString(file)}, {base64.StdEncoding.EncodeToString(file)}} {
		width := 32
		if !isHexString(c.enc) {
			width = 20
		}
		var lines []string
		for i := 0; i < len(c.enc); i += width {
			lines = append(lines, c.enc[i:min(i+width, len(c.enc))])
		}
		text := "dump\n" + strings.Join(lines, "\n") + "\nend"
		got := r.Text(text)
		for _, l := range lines {
			if len(l) >= 8 && strings.Contains(got, l) {
				t.Errorf("Text(%q) = %q, want line %q hidden", text, got, l)
			}
		}
	}
	prose := base64.StdEncoding.EncodeToString([]byte("The quick brown fox jumps over the lazy dog, twice over."))
	text := "see\n" + prose[:20] + "\n" + prose[20:40] + "\n" + prose[40:]
	if got := r.Text(text); got != text {
		t.Errorf("Text(%q) = %q, want it unchanged", text, got)
	}
}

// TestBytesWrittenOtherwise: text written as decimal numbers, bits without blanks, hex with 0x or
// dashes, UTF-16 hex, octal escapes or character calls is decoded and a secret in it hidden;
// numbers and names of the same shape stay.
func TestBytesWrittenOtherwise(t *testing.T) {
	r := New()
	file := "password=DNxril3RavGD5M!"
	var dec, bits, dashed, octal, calls []string
	for _, c := range []byte(file) {
		dec = append(dec, strconv.Itoa(int(c)))
		bits = append(bits, fmt.Sprintf("%08b", c))
		dashed = append(dashed, fmt.Sprintf("%02X", c))
		octal = append(octal, fmt.Sprintf("\\%03o", c))
	}
	for _, c := range []byte("DNxril3RavGD5M!") {
		calls = append(calls, fmt.Sprintf("chr(%d)", c))
	}
	utf16 := ""
	for _, c := range []byte(file) {
		utf16 += fmt.Sprintf("%02x00", c)
	}
	for _, text := range []string{
		"bytes: " + strings.Join(dec, " "),
		"bits " + strings.Join(bits, ""),
		"blob 0x" + hex.EncodeToString([]byte(file)),
		"utf16 " + utf16,
		"x " + strings.Join(dashed, "-"),
		`printf "` + strings.Join(octal, "") + `"`,
		"p = " + strings.Join(calls, "+"),
	} {
		if got := r.Text(text); strings.Contains(got, "ril3Rav") || strings.Contains(got, "72-69-6C") || strings.Contains(got, "chr(114)") || !strings.Contains(got, Placeholder) {
			t.Errorf("Text(%q) = %q, want the password hidden", text, got)
		}
	}
	for _, s := range []string{
		"scores: 112 97 115 115 119 111 114 100 61 68",
		"mask 0b0100010001001110 and 0x0123456789abcdef0123456789abcdef",
		"MAC 00-1A-2B-3C-4D-5E-6F-70",
		`printf "\\033[1;32m ok \\033[0m"`,
		"SELECT CHAR(65) + CHAR(66) + CHAR(67) + CHAR(68) + CHAR(69) + CHAR(70) AS letters",
	} {
		if got := r.Text(s); got != s {
			t.Errorf("Text(%q) = %q, want it unchanged", s, got)
		}
	}
}

// TestDumpedLetters: od's character dump of a file that is one token of letters alone is hidden;
// a dump of a name or a sentence stays.
func TestDumpedLetters(t *testing.T) {
	r := New()
	text := "od -c token.txt 0000000 u F L M m g q Z C x X y u L" // as the store collapses it
	if got := r.Text(text); strings.Contains(got, "q Z C") {
		t.Errorf("Text(%q) = %q, want the letters hidden", text, got)
	}
	for _, s := range []string{
		"od -c names.txt 0000000 H e l l o W o r l d F o o B a r",
		"od -c x 0000000 T h e Q u i c k B r o w n F o x",
		"od -c x 0000000 A B C D E F G H I J K L M N O P",
	} {
		if got := r.Text(s); got != s {
			t.Errorf("Text(%q) = %q, want it unchanged", s, got)
		}
	}
}

// TestKeysInPlace: the answer to AUTH LOGIN's password prompt, a hex key as a URL's first path
// segment after its host, and a key's slashed prefix are hidden; a commit's id in a repository's
// URL and a path's directories stay.
func TestKeysInPlace(t *testing.T) {
	r := New()
	for _, c := range []struct{ text, secret string }{
		{"C: AUTH LOGIN S: 334 VXNlcm5hbWU6 C: bm9yZXBseUBleGFtcGxlLnRlc3Q= S: 334 UGFzc3dvcmQ6 C: SzlxUDJ4IQ== S: 235 ok", "SzlxUDJ4IQ=="},
		{"RPC_URL=https://withered-silent-meadow.quiknode.pro/ed5a92f7125a5a45fc2119ab753d583da254f064/", "ed5a92f7125a"},
		{"export CONFIGCAT_SDK_KEY=configcat-sdk-1/VJV-49lOyvshk5-0TlUSYQ/B2pydW779xgEglPbeTAchS", "configcat-sdk-1"},
	} {
		if got := r.Text(c.text); strings.Contains(got, c.secret) {
			t.Errorf("Text(%q) = %q, want %q hidden", c.text, got, c.secret)
		}
	}
	for _, s := range []string{
		"see https://github.com/golang/go/commit/ed5a92f7125a5a45fc2119ab753d583da254f064 for the fix",
		"https://raw.githubusercontent.com/org/repo/ed5a92f7125a5a45fc2119ab753d583da254f064/README.md",
	} {
		if got := r.Text(s); got != s {
			t.Errorf("Text(%q) = %q, want it unchanged", s, got)
		}
	}
}

// TestRandomExpression: a password with a plus in it, said alone in a chat line, is no
// expression when its letters mix cases, hold a digit and read as no word; code's expressions
// stay.
func TestRandomExpression(t *testing.T) {
	r := New()
	text := "[20:16] Bram: fnstz+YICuwFXU3"
	if got := r.Text(text); strings.Contains(got, "YICuwFXU3") {
		t.Errorf("Text(%q) = %q, want the password hidden", text, got)
	}
	for _, s := range []string{"if r.Flags&UseXHTML == 0 {", "n := info.Lines+1", "x := seed^0x9e37 + k.Mods&^int64"} {
		if got := r.Text(s); got != s {
			t.Errorf("Text(%q) = %q, want it unchanged", s, got)
		}
	}
}

// TestPercentNotAVerb: a % before digits and a letter no printf or Go verb has (%0VQ, %1SO) is a
// password's, wherever it is said; format strings stay.
func TestPercentNotAVerb(t *testing.T) {
	r := New()
	for _, c := range []struct{ text, secret string }{
		{"account deploy-bot [RRfzka5309%0VQ]", "RRfzka5309"},
		{"パスワードPfubfz4024%1SOだよ", "Pfubfz4024"},
	} {
		if got := r.Text(c.text); strings.Contains(got, c.secret) {
			t.Errorf("Text(%q) = %q, want %q hidden", c.text, got, c.secret)
		}
	}
	for _, s := range []string{`fmt.Printf("%-8s %08.3f %ld\n", name, v, n)`, `printf("%llu items, %zu bytes", a, b)`} {
		if got := r.Text(s); got != s {
			t.Errorf("Text(%q) = %q, want it unchanged", s, got)
		}
	}
}

// TestGluedToCJKKeyWord: CJK writes no blank between words, so a value right after a CJK key
// word is named by it; a name after one (API, MD5) stays.
func TestGluedToCJKKeyWord(t *testing.T) {
	r := New()
	if got := r.Text("ぱすわーど0313775868078だよ〜"); strings.Contains(got, "0313775868078") {
		t.Errorf("got %q, want the digits hidden", got)
	}
	for _, s := range []string{"パスワードAPIの設定", "密码MD5加密", "トークンAPIを使う"} {
		if got := r.Text(s); got != s {
			t.Errorf("Text(%q) = %q, want it unchanged", s, got)
		}
	}
}
