package textmatch

import (
	"strings"
	"testing"
)

// The steps of MatchingLines, each on its own. "oauth" is anchored on u (its rarest letter):
// u, U and the full-width ｕ and Ｕ, which share their lead byte.

func TestCountAnchors(t *testing.T) {
	n := NewNeedle("oauth")
	for text, want := range map[string]int{
		"u U x u":      3,
		"ｕ and Ｕ only": 1, // multi-byte forms count once, for presence
		"u and ｕ":      1, // the one-byte count wins
		"nothing here": 0,
	} {
		if got := n.countAnchors([]byte(text)); got != want {
			t.Errorf("countAnchors(%q) = %d, want %d", text, got, want)
		}
	}
}

func TestAnchorsDense(t *testing.T) {
	cjk := NewNeedle("認証")
	if cjk.kpos != nil {
		t.Fatal("a CJK needle cannot be checked in place")
	}
	few := []byte(strings.Repeat("line\n", 8))
	if !cjk.anchorsDense(few, 3) || cjk.anchorsDense(few, 2) {
		t.Error("without in-place checks, more than one occurrence per four lines is dense")
	}
	ascii := NewNeedle("oauth")
	text := make([]byte, 320)
	if !ascii.anchorsDense(text, 11) || ascii.anchorsDense(text, 10) {
		t.Error("with in-place checks, more than one occurrence per 32 bytes is dense")
	}
}

func TestGroupAnchors(t *testing.T) {
	groups := NewNeedle("oauth").groupAnchors(nil)
	if len(groups) != 3 {
		t.Fatalf("%d groups, want 3 (u, U, and the two full-width forms together)", len(groups))
	}
	if !groups[0].one || groups[0].lead != 'u' || !groups[1].one || groups[1].lead != 'U' {
		t.Errorf("one-byte groups %+v %+v", groups[0], groups[1])
	}
	if groups[2].one || len(groups[2].forms) != 2 || groups[2].lead != "ｕ"[0] {
		t.Errorf("full-width group %+v", groups[2])
	}
}

func TestNextAnchor(t *testing.T) {
	n := NewNeedle("oauth")
	text := []byte("xxUxxｕxxu")
	groups := n.groupAnchors(nil)
	for i := range groups {
		groups[i].next = groups[i].find(text, 0)
	}
	for _, c := range []struct{ from, p, which int }{
		{0, 2, 1}, {3, 5, 2}, {6, 10, 0}, {11, -1, 0},
	} {
		p, which := nextAnchor(groups, text, c.from)
		if p != c.p || p >= 0 && which != c.which {
			t.Errorf("from %d: %d in group %d, want %d in group %d", c.from, p, which, c.p, c.which)
		}
	}
}

func TestLineAround(t *testing.T) {
	text := []byte("ab\ncd\nef")
	for _, c := range []struct {
		at, p int
		want  string
	}{{0, 0, "ab"}, {0, 4, "cd"}, {3, 3, "cd"}, {3, 7, "ef"}, {6, 6, "ef"}} {
		if got := string(lineAround(text, c.at, c.p)); got != c.want {
			t.Errorf("lineAround(%d, %d) = %q, want %q", c.at, c.p, got, c.want)
		}
	}
}

func TestFirstSettled(t *testing.T) {
	var f Folder
	n := NewNeedle("oauth")
	for _, c := range []struct {
		text     string
		p, limit int
		b        byte
		at, v    int
		line     bool // when v is -1: whether the folded line holds the needle
	}{
		{"x OAUTH y", 4, 9, 'U', 4, 1, false},      // checked in place
		{"but oauth", 1, 9, 'u', 6, 1, false},      // this u is not in a match: the next one is
		{"but bus, oauth", 1, 9, 'u', 9, 0, false}, // none before the limit (another group's next)
		{"ＯＡuth\nnext", 6, 11, 'u', 6, -1, true},   // non-ASCII around it: the line is folded
		{"ＯＡut\noauth", 6, 16, 'u', 6, -1, false},  // folded, and the line does not match
	} {
		at, v := n.firstSettled([]byte(c.text), c.p, c.limit, c.b)
		if at != c.at || v != c.v {
			t.Errorf("%q from %d: settled at %d with %d, want %d with %d", c.text, c.p, at, v, c.at, c.v)
		}
		if v == -1 && n.lineHolds(&f, []byte(c.text), 0, at) != c.line {
			t.Errorf("%q: the line around %d holds the needle: %v, want %v", c.text, at, !c.line, c.line)
		}
	}
}

// TestFolderEveryASCIILane checks the eight-bytes-at-a-time path against Fold for every ASCII
// byte in every lane of the word, between lower- and upper-case neighbours.
func TestFolderEveryASCIILane(t *testing.T) {
	var f Folder
	for b := 0; b < 0x80; b++ {
		for lane := 0; lane < 8; lane++ {
			for _, fill := range []byte{'a', 'Q', '[', '@'} {
				buf := []byte(strings.Repeat(string(fill), 16))
				buf[lane] = byte(b)
				buf[8+(lane+3)%8] = byte(b)
				if got, want := string(f.Fold(buf)), Fold(string(buf)); got != want {
					t.Fatalf("byte %#x in lane %d among %q: Folder %q, Fold %q", b, lane, fill, got, want)
				}
			}
		}
	}
}
