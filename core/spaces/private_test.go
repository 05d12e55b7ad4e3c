package spaces

import (
	"strings"
	"testing"
)

func TestDropPrivate(t *testing.T) {
	for in, want := range map[string]string{
		"plain":                         "plain",
		"a <private>secret</private> b": "a  b",
		"a <PRIVATE>x</Private> b <private>y</private>c": "a  b c",
		"a <private>never closed":                        "a ",
		"tail</private> kept":                            "tail kept",
		"<private></private>":                            "",
		"<privat>not a marker</privat>":                  "<privat>not a marker</privat>",
		"<private><private>x</private>y":                 "y",
	} {
		if got := DropPrivate(in); got != want {
			t.Errorf("DropPrivate(%q) = %q, want %q", in, got, want)
		}
	}
	// linear: a long text of lone '<' costs one pass
	long := strings.Repeat("<", 1<<20) + "<private>x</private>"
	if got := DropPrivate(long); got != strings.Repeat("<", 1<<20) {
		t.Errorf("long text: %d bytes", len(got))
	}
	if PrivateRegions("a <private>1</private> <private>2") != 2 {
		t.Error("PrivateRegions")
	}
}

func TestExclude(t *testing.T) {
	e := NewExclude([]string{"/home/me/secret", "~/private", "sess-1", " "}, "/home/me")
	for _, c := range []struct {
		id   ID
		name string
		want bool
	}{
		{"claude-code/-home-me-secret", "", true},
		{CodexSpaceID("/home/me/secret"), "", true},
		{"x", "/home/me/secret/sub", true},
		{"x", "/home/me/private", true},
		{"x", "/home/me/secretive", false},
		{"claude-code/-home-me-other", "/home/me/other", false},
	} {
		if got := e.Space(c.id, c.name); got != c.want {
			t.Errorf("Space(%s, %s) = %v", c.id, c.name, got)
		}
	}
	if !e.Task("sess-1") || !e.Task("sess-1/agent-a") || e.Task("sess-10") || e.Task("other") {
		t.Error("Task")
	}
	if !NewExclude(nil, "").Empty() {
		t.Error("Empty")
	}
}
