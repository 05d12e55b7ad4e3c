package redact

import (
	"strings"
	"testing"
)

// The generic rules of issue 22: each case is a shape of secret no rule names by kind, and a
// harmless text of the same shape that stays as it is.

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
