package commands_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// TestDocLinksResolve fails when a link of README.md or docs/*.md names a Markdown file or one
// of its headings (#anchor, as GitHub spells it) that does not exist.
func TestDocLinksResolve(t *testing.T) {
	files, _ := filepath.Glob("../docs/*.md")
	files = append(files, "../README.md", "../CHANGELOG.md")
	link := regexp.MustCompile(`\]\(([^)\s]*\.md)?(#[^)\s]*)?\)`)
	anchors := map[string]map[string]bool{}
	anchorsOf := func(path string) map[string]bool {
		if a, ok := anchors[path]; ok {
			return a
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		a := map[string]bool{}
		fence := false
		for _, line := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(line, "```") {
				fence = !fence
			}
			if fence || !strings.HasPrefix(line, "#") {
				continue
			}
			a[githubAnchor(strings.TrimLeft(line, "# "))] = true
		}
		anchors[path] = a
		return a
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(string(data), -1) {
			target, anchor := m[1], strings.TrimPrefix(m[2], "#")
			if strings.Contains(target, "://") || (target == "" && anchor == "") {
				continue
			}
			path := f
			if target != "" {
				path = filepath.Join(filepath.Dir(f), target)
			}
			a := anchorsOf(path)
			if a == nil {
				t.Errorf("%s links %s, which does not exist", f, target)
				continue
			}
			if anchor != "" && !a[anchor] {
				t.Errorf("%s links %s#%s: no such heading", f, target, anchor)
			}
		}
	}
}

// githubAnchor is the id GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens.
func githubAnchor(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(h)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}
