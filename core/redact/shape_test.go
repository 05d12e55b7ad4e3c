package redact

import (
	"fmt"
	"strings"
	"testing"
)

// Alphabets of tokens of no known kind.
const (
	base32u = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	bech32c = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
)

func init() {
	f := newFaker(11)
	tok := "zq" + f.s(lalnum, 3) + "_" + f.s(alnum, 36)
	ruleCases = append(ruleCases, struct{ rule, positive, secret, negative string }{
		"shape", "the new vendor's key is " + tok + ", keep it safe", tok,
		"see IPhone11ProMaxlandscape, parseHTTPRequest and golang.org/x/sys/unix/ztypes_linux_riscv64.go",
	})
	hostile = append(hostile,
		struct{ name, unit string }{"shape token", "aB3xK9pQ7mZ2wL5v "},
		struct{ name, unit string }{"shape run", "aB3xK9pQ7mZ2wL5vR8tY"},
		struct{ name, unit string }{"shape path", "a/bC3/dE4f/"},
		struct{ name, unit string }{"shape equals", "aB3xK9pQ7mZ2wL5vR8tY="},
		struct{ name, unit string }{"shape wrapped", "aB3xK9pQ7mZ2wL5vR8tY4nB6\n"},
		struct{ name, unit string }{"public pem", "-----BEGIN CERTIFICATE-----\naB3xK9pQ7mZ2wL5vR8tY4nB6\n"},
	)
}

// shapeSecrets are random tokens of every alphabet, with and without a prefix no rule knows.
func shapeSecrets(f *faker) []secretCase {
	return []secretCase{
		{"random base62", "shape", "the key is %s for now", f.s(alnum, 40)},
		{"random base64", "shape", `config: {"k": "%s"}`, f.s(b64, 43) + "="},
		{"random base64url", "shape", "X-Vendor: %s", f.s(urlb64, 43)},
		{"random lower alnum", "shape", "use %s", f.s(lalnum, 40)},
		{"random upper alnum", "shape", "use %s", f.s(ualnum, 40)},
		{"random hex", "shape", "value %s", f.s(hexlc, 48)},
		{"bech32-like", "shape", "wallet %s", "zz1" + f.s(bech32c, 58)},
		{"unknown prefix", "shape", "ACME %s", "acme_live_" + f.s(alnum, 32)},
		{"dotted parts", "shape", "token %s ok", f.s(alnum, 12) + "." + f.s(urlb64, 30) + "." + f.s(urlb64, 20)},
		{"wrapped over lines", "shape", "key:\n%s\nthen", f.s(alnum, 64) + "\n" + f.s(alnum, 11)},
		{"random in a url path", "shape", "GET https://api.example.com/v1/hooks/%s/send", f.s(alnum, 32)},
	}
}

func TestShapeSecrets(t *testing.T) {
	r := New()
	shape := newRedactor([]Rule{ruleNamed(t, r, "shape")})
	for seed := range uint64(20) {
		for _, c := range shapeSecrets(newFaker(seed + 100)) {
			text := strings.Replace(c.text, "%s", c.secret, 1)
			if l := leaks(r, c.text, c.secret); len(l) > 0 {
				t.Errorf("%s: fragments %q survive in %q", c.kind, l, r.Text(text))
			}
			if l := leaks(shape, c.text, c.secret); len(l) > 0 {
				t.Errorf("%s: the shape rule alone leaves %q in %q", c.kind, l, shape.Text(text))
			}
			if once := r.Text(text); r.Text(once) != once {
				t.Errorf("%s: redacting %q again changes it", c.kind, once)
			}
		}
	}
}

// TestShapeRecall: random tokens of 24 characters or more of every alphabet are hidden (most of
// them; short ones of small alphabets can look like words), hex from shapeMinHex on.
func TestShapeRecall(t *testing.T) {
	f := newFaker(5)
	for _, a := range []struct {
		name, alphabet string
		n              int
		want           float64
	}{
		{"base62", alnum, 24, 0.95}, {"base62", alnum, 40, 0.99}, {"base64", b64, 32, 0.97}, {"base64url", urlb64, 32, 0.97},
		{"lower alnum", lalnum, 32, 0.92}, {"upper alnum", ualnum, 32, 0.92}, {"hex", hexlc, 32, 0.95}, {"hex", hexlc, 48, 0.97},
		{"base32", base32u, 32, 0.8}, {"base32", base32u, 56, 0.9}, {"bech32", bech32c, 40, 0.95},
	} {
		hit := 0
		for range 1000 {
			found := false
			scanShape("x "+f.s(a.alphabet, a.n)+" y", func(int, int) { found = true })
			if found {
				hit++
			}
		}
		if got := float64(hit) / 1000; got < a.want {
			t.Errorf("%s of %d: %.1f%% hidden, want at least %.0f%%", a.name, a.n, 100*got, 100*a.want)
		} else {
			t.Logf("%s of %d: %.1f%% hidden", a.name, a.n, 100*got)
		}
	}
}

// TestShapeHarmless: the harmless shapes stay.
// TestDicewareTails: words joined by dots or dashes with a number and a short tail glued are
// passphrases, wherever they stand, and a secret named after a hash word is one still.
func TestDicewareTails(t *testing.T) {
	r := New()
	for _, c := range []struct{ text, secret string }{
		{"echo 'orchid.tundra.448i3' > ~/.vault_pass.txt", "orchid.tundra.448i3"},
		{"tmux send-keys -t db:0 'papaya.orchid.931rd' Enter", "papaya.orchid.931rd"},
		{"encfs --extpass='echo wombat-kettle-191pm' ~/.crypt", "wombat-kettle-191pm"},
		{`key "xfer" { algorithm hmac-sha256; secret "qN9TZ8cFRodHe01cEaB+sP3PtF6Zs4MZ97yRH79EjOU="; };`, "qN9TZ8cFRodHe01cEaB+sP3PtF6Zs4MZ97yRH79EjOU="},
	} {
		if got := r.Text(c.text); strings.Contains(got, c.secret[:8]) {
			t.Errorf("Text(%q) = %q, want %q hidden", c.text, got, c.secret)
		}
	}
}

func TestShapeHarmless(t *testing.T) {
	f := newFaker(9)
	r := New()
	texts := []string{
		"request " + f.uuid() + " failed", "msg_" + f.uuid(), "commit " + f.s(hexlc, 40), "git checkout " + f.s(hexlc, 40),
		"sha256:" + f.s(hexlc, 64), "image@sha256:" + f.s(hexlc, 64), "md5 " + f.s(hexlc, 32), "digest: " + f.s(hexlc, 32),
		"golang.org/x/tools v0.0.0-20210101123456-" + f.s(hexlc, 12) + " h1:" + f.s(b64, 43) + "=",
		"github.com/a/b v1.2.4-0.20210101123456-" + f.s(hexlc, 12) + "+incompatible",
		`"integrity": "sha512-` + f.s(b64, 86) + `=="`, "https://github.com/cairn-dev/cairn/commit/" + f.s(hexlc, 40),
		"call_" + f.s(hexlc, 16), "agent-a" + f.s(hexlc, 16) + ".jsonl", "toolu_" + f.s(hexlc, 12),
		"core/redact/shape.go and internal/abi/type.go and /tmp/go-build3281392/b001/exe/main",
		"TestHintIndexMatchesContains", "x509.ParsePKCS1PrivateKey",
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
		"2026-12-01T22:34:14.458Z 1796164454.7765872 192.168.100.200 v1.22.3-rc.1+build.5 #ff00aa",
		"a picture: data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
		"-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUJ" + f.s(b64, 43) + "\n" + f.s(b64, 64) + "\n-----END CERTIFICATE-----",
		"base64 of text: " + "VGhlIHF1aWNrIGJyb3duIGZveCBqdW1wcyBvdmVyIHRoZSBsYXp5IGRvZw==",
		`{"type": "thinking", "signature": "` + f.s(b64, 200) + `"}`,
		"https://docs.example.com/guides/getting-started/installation-and-configuration",
		"// E0.0 [48] <reserved-1F0D0>..<reserved-1F0FF>", "see docs.example.v2 and file.name.3x",
		"{0x1F0D0, 0x1F0FF, prExtendedPictographic}, // E0.0 [48] (\U0001f0d0..\U0001f0ff) <reserved-1F0D0>",
		`key "xfer-key" { algorithm hmac-sha256; };`,
	}
	for _, s := range texts {
		if got := r.Text(s); got != s {
			t.Errorf("Text(%q) = %q, want it unchanged", s, got)
		}
	}
}

func ruleNamed(t *testing.T, r *Redactor, name string) Rule {
	for _, rule := range r.Rules() {
		if rule.Name == name {
			return rule
		}
	}
	t.Fatalf("no rule %s", name)
	return Rule{}
}

// TestShapeLinear: a text of random tokens, every one hidden, costs work in proportion to it.
func TestShapeLinear(t *testing.T) {
	f := newFaker(3)
	var b strings.Builder
	for b.Len() < 64<<10 {
		fmt.Fprintf(&b, "%s\n", f.s(alnum, 40))
	}
	small := b.String()
	large := strings.Repeat(small, 8)
	r := New()
	_, s1 := r.TextStats(small)
	_, s8 := r.TextStats(large)
	if ratio := float64(s8.Bytes) / float64(s1.Bytes); ratio > 8.5 {
		t.Errorf("8× the tokens cost %.1f× the work", ratio)
	}
}

// TestHexLabelledKey: a hex run labelled HEX: is a key (chrony's and ntpd's keys files), even
// beside a hash's name; the same run named a commit is a digest.
func TestHexLabelledKey(t *testing.T) {
	r := New()
	if got := r.Text("3 SHA256 HEX:9C41D07E5AB2F36C18E04D92B7A53F6E01C8D2B4"); strings.Contains(got, "9C41D07E") {
		t.Errorf("Text = %q, want the key hidden", got)
	}
	if s := "commit 9c41d07e5ab2f36c18e04d92b7a53f6e01c8d2b4"; r.Text(s) != s {
		t.Errorf("Text(%q) = %q, want it unchanged", s, r.Text(s))
	}
}
