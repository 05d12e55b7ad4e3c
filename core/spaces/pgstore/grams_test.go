package pgstore

import "testing"

// The writer's short-term tokens, without a server (TestEquivalence compares them with
// cairn_grams on every comment of its corpus).
func TestGramTokens(t *testing.T) {
	var g gramBuffer
	at := int64(0x1d) << gramBucketShift
	for _, c := range []struct{ itext, want string }{
		{"", ""},
		{"   ", ""},
		{"ab a", "1d:a 1d:ab 1d:b"},
		{"認証 認", "1d:証 1d:認 1d:認証"}, // byte order: U+8A3C before U+8A8D
		{"b\ta", "1d:\t 1d:\ta 1d:a 1d:b 1d:b\t"},
		{"e\u0301", "1d:e 1d:e\u0301 1d:\u0301"},
	} {
		if got := g.tokens(c.itext, at); got != c.want {
			t.Errorf("tokens(%q) = %q, want %q", c.itext, got, c.want)
		}
	}
	if got := g.tokens("x", -1); got != "ffffffffffffffff:x" {
		t.Errorf("a time before 1970: %q", got)
	}
}
