package commands

import (
	"testing"

	"github.com/cairn-dev/cairn/core/board"
)

// markRanges turns UTF-16 ranges into highlighted text; astral characters count two units.
func TestMarkRanges(t *testing.T) {
	e := &Env{Color: true}
	cases := []struct {
		s      string
		ranges []board.Range
		want   string
	}{
		{"😀😀 rocket 🚀 launch day", []board.Range{{15, 21}}, "😀😀 rocket 🚀 \x1b[1;33mlaunch\x1b[0m day"},
		{"迁移到 SQLite", []board.Range{{0, 2}, {4, 10}}, "\x1b[1;33m迁移\x1b[0m到 \x1b[1;33mSQLite\x1b[0m"},
		{"…end", []board.Range{{1, 4}}, "…\x1b[1;33mend\x1b[0m"},
		{"plain", nil, "plain"},
	}
	for _, tc := range cases {
		if got := e.markRanges(tc.s, tc.ranges); got != tc.want {
			t.Errorf("markRanges(%q, %v) = %q, want %q", tc.s, tc.ranges, got, tc.want)
		}
	}
	off := &Env{}
	if got := off.markRanges("launch", []board.Range{{0, 6}}); got != "launch" {
		t.Errorf("no colour off a terminal: %q", got)
	}
}
