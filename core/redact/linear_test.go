package redact

import (
	"strings"
	"testing"
)

// hostile are inputs that made redaction quadratic: a rule re-scanned the rest of the text after
// every match and the hints were folded again after every replacement.
var hostile = []struct {
	name string
	unit string
}{
	{"token=", "token="},
	{"token: ", "token: "},
	{`password="`, `password="`},
	{"key=value", "api_key=abcdef12345 "},
	{"://", "://"},
	{"a://a:", "a://a:"},
	{"a@", "a@"},
	{"url", "https://u:p@h/ "},
	{"base64", "QWxhZGRpbjpvcGVuIHNlc2FtZQ"},
	{"-----BEGIN ", "-----BEGIN "},
	{"begin private key", "-----BEGIN RSA PRIVATE KEY-----\n"},
	{"sk-", "sk-"},
	{"eyJ", "eyJhbGciOiJIUzI1NiJ9."},
	{"bearer", "Bearer "},
	{"authorization", "Authorization: "},
	{"aaaa", "a"},
	{"ghp_", "ghp_0123456789"},
	{"full-width", "ｐａｓｓｗｏｒｄ＝"},
	{"--token", "--token "},
	{"mysql", "mysql -u "},
	{"netrc", "machine h login u password "},
	{"?code=", "?code="},
	{"discord dots", "MTk4NjIyNDgzNDcxOTI1MjQ4.Cl2FMQ."},
	{"discord run", "MTk4NjIyNDgzNDcxOTI1MjQ4.aaaaaa.bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"},
	{"pgpass", "h:1:d:u:"},
}

func repeatTo(unit string, n int) string {
	return strings.Repeat(unit, n/len(unit)+1)[:n/len(unit)*len(unit)]
}

// TestLinearWork counts the bytes every rule and scanner is handed: for each hostile shape, eight
// times the text costs at most about eight times the work, and the work per byte is bounded by
// the number of rules (no rule re-reads the text after a match).
func TestLinearWork(t *testing.T) {
	r := New()
	bound := 4 * (2*len(r.Rules()) + 8) // passes × (rules on the text and its fold + folding + scanners)
	for _, h := range hostile {
		// the large text is the small one eight times, so a pattern that consumes several units a
		// match leaves the same remainder in both
		small := repeatTo(h.unit, 16<<10)
		large := strings.Repeat(small, 8)
		_, s1 := r.TextStats(small)
		_, s8 := r.TextStats(large)
		if perByte := s8.Bytes / len(large); perByte > bound {
			t.Errorf("%s: %d bytes of work per byte of text, want at most %d (%+v)", h.name, perByte, bound, s8)
		}
		if ratio := float64(s8.Bytes) / float64(s1.Bytes); ratio > 8.5 {
			t.Errorf("%s: 8× the text costs %.1f× the work (%+v, then %+v)", h.name, ratio, s1, s8)
		}
	}
}

// BenchmarkHostile measures throughput on 1 MB of each hostile shape.
func BenchmarkHostile(b *testing.B) {
	r := New()
	for _, h := range hostile {
		s := repeatTo(h.unit, 1<<20)
		b.Run(h.name, func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			for b.Loop() {
				r.Text(s)
			}
		})
	}
}
