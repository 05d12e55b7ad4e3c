package redact

import (
	"encoding/base64"
	"encoding/hex"
	"strings"
	"testing"
)

// The generic rules of session 10: secrets nobody frames, wrapped, dumped or encoded.

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
