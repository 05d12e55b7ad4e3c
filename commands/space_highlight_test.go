package commands

import "testing"

// spaceHighlight marks what textmatch finds: every occurrence, merged, whole original characters.
func TestSpaceHighlight(t *testing.T) {
	e := &Env{Color: true}
	cases := []struct {
		s     string
		terms []string
		want  string
	}{
		{"Die Straße", []string{"strasse"}, "Die \x1b[1;33mStraße\x1b[0m"},
		{"maßstab", []string{"sst"}, "ma\x1b[1;33mßst\x1b[0mab"},
		{"aaa", []string{"aa"}, "\x1b[1;33maaa\x1b[0m"},
		{"a ﬁle", []string{"file"}, "a \x1b[1;33mﬁle\x1b[0m"},
		{"abcd", []string{"abc", "bcd"}, "\x1b[1;33mabcd\x1b[0m"},
	}
	for _, tc := range cases {
		if got := e.spaceHighlight(tc.s, tc.terms); got != tc.want {
			t.Errorf("spaceHighlight(%q, %q) = %q, want %q", tc.s, tc.terms, got, tc.want)
		}
	}
	if got := (&Env{}).spaceHighlight("Straße", []string{"strasse"}); got != "Straße" {
		t.Errorf("no colour: %q", got)
	}
}
