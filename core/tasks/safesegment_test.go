package tasks

import (
	"regexp"
	"strings"
	"testing"
)

// TestSafeSegmentMatchesPattern checks the hand-written session id check against the pattern it
// replaced, on edge cases and every one- and two-byte string.
func TestSafeSegmentMatchesPattern(t *testing.T) {
	re := regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)
	cases := []string{"", "a", ".a", "_a", "-a", "a.b_c-d", "a/b", "a\n", "a ", "é", "ab\x00",
		strings.Repeat("a", 127), strings.Repeat("a", 128), strings.Repeat("a", 129), "a" + strings.Repeat(".", 127), "a" + strings.Repeat(".", 128)}
	for b := 0; b < 256; b++ {
		cases = append(cases, string(rune(b)), string([]byte{byte(b)}), "a"+string([]byte{byte(b)}), string([]byte{byte(b)})+"a")
	}
	for _, c := range cases {
		if got, want := safeSegment(c), re.MatchString(c); got != want {
			t.Errorf("safeSegment(%q) = %v, the pattern says %v", c, got, want)
		}
	}
}
