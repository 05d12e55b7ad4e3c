package setup

import (
	"encoding/json"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// applyDiff rebuilds the new text from the old one and a unified diff made by unifiedDiff.
func applyDiff(t *testing.T, before, diff string) string {
	t.Helper()
	old := splitLines(before)
	var out []string
	pos := 0
	lines := strings.Split(strings.TrimSuffix(diff, "\n"), "\n")
	for _, l := range lines[2:] {
		switch {
		case strings.HasPrefix(l, "@@"):
			var a, b string
			if _, err := fmtSscan(l, &a, &b); err != nil {
				t.Fatalf("hunk header %q: %v", l, err)
			}
			start := hunkStart(a)
			out = append(out, old[pos:start]...)
			pos = start
		case l[0] == ' ':
			if old[pos] != l[1:] {
				t.Fatalf("context %q does not match old line %d %q", l, pos, old[pos])
			}
			out = append(out, l[1:])
			pos++
		case l[0] == '-':
			if old[pos] != l[1:] {
				t.Fatalf("removal %q does not match old line %d %q", l, pos, old[pos])
			}
			pos++
		case l[0] == '+':
			out = append(out, l[1:])
		}
	}
	out = append(out, old[pos:]...)
	if len(out) == 0 {
		return ""
	}
	return strings.Join(out, "\n") + "\n"
}

func fmtSscan(l string, a, b *string) (int, error) {
	f := strings.Fields(l)
	*a, *b = strings.TrimPrefix(f[1], "-"), strings.TrimPrefix(f[2], "+")
	return 2, nil
}

// hunkStart is the 0-based old line a hunk starts at ("3,4" → 2; "0,0" → 0).
func hunkStart(r string) int {
	n, cnt, _ := strings.Cut(r, ",")
	start := 0
	for _, c := range n {
		start = start*10 + int(c-'0')
	}
	if cnt == "0" {
		return start
	}
	return start - 1
}

func TestUnifiedDiffRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	words := []string{"a", "b", "c", "d", "{", "}", `"x": 1,`}
	gen := func() []string {
		n := rng.Intn(30)
		s := make([]string, n)
		for i := range s {
			s[i] = words[rng.Intn(len(words))]
		}
		return s
	}
	join := func(s []string) string {
		if len(s) == 0 {
			return ""
		}
		return strings.Join(s, "\n") + "\n"
	}
	for i := 0; i < 2000; i++ {
		a := gen()
		b := append([]string(nil), a...)
		for k := rng.Intn(4); k > 0; k-- { // a few edits, so hunks are separate or joined
			if len(b) > 0 && rng.Intn(2) == 0 {
				j := rng.Intn(len(b))
				b = append(b[:j], b[j+1:]...)
			} else {
				j := rng.Intn(len(b) + 1)
				b = append(b[:j], append([]string{words[rng.Intn(len(words))]}, b[j:]...)...)
			}
		}
		before, after := join(a), join(b)
		d := unifiedDiff("f", []byte(before), []byte(after), true)
		if before == after {
			if d != "" {
				t.Fatalf("equal texts gave a diff:\n%s", d)
			}
			continue
		}
		if got := applyDiff(t, before, d); got != after {
			t.Fatalf("diff does not rebuild the new text\nbefore:\n%s\nafter:\n%s\ndiff:\n%s\ngot:\n%s", before, after, d, got)
		}
	}
}

// FuzzMerge: whatever a settings file holds, setup either refuses it untouched or merges into it
// keeping every top-level key, and a second run changes nothing.
func FuzzMerge(f *testing.F) {
	for _, s := range []string{`{}`, ``, `{"mcpServers": {"a": {"command": "x"}}, "z": [1, {"b": null}]}`,
		`{"hooks": {"SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "/x/cairn hook claude-code"}]}]}}`,
		`{"hooks": {"PreCompact": [1, "x", {"hooks": "no"}]}}`, `{"a": 1e400, "a": "dup"}`, `// c`, `[]`, `{"mcpServers": {"cairn": 3}}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, content string) {
		dir := t.TempDir()
		o := Options{Scope: "project", ProjectDir: dir, Home: filepath.Join(dir, "home"), Command: "/opt/cairn"}
		mcp := filepath.Join(dir, ".mcp.json")
		settings := filepath.Join(dir, ".claude", "settings.json")
		if err := os.MkdirAll(filepath.Dir(settings), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{mcp, settings} {
			if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		cs, err := Plan(o)
		if err != nil {
			for _, p := range []string{mcp, settings} {
				if b, _ := os.ReadFile(p); string(b) != content {
					t.Fatalf("refused, yet %s changed", p)
				}
			}
			return
		}
		if err := Apply(cs, time.Unix(0, 0)); err != nil {
			t.Fatal(err)
		}
		var old map[string]json.RawMessage
		_ = json.Unmarshal([]byte(content), &old)
		for _, p := range []string{mcp, settings} {
			b, _ := os.ReadFile(p)
			var now map[string]json.RawMessage
			if err := json.Unmarshal(b, &now); err != nil {
				t.Fatalf("%s is not JSON after the merge: %v\n%s", p, err, b)
			}
			for k := range old {
				if _, ok := now[k]; !ok {
					t.Fatalf("%s lost key %q", p, k)
				}
			}
		}
		cs, err = Plan(o)
		if err != nil {
			t.Fatalf("second plan: %v", err)
		}
		for _, c := range cs {
			if c.Status != "unchanged" {
				t.Fatalf("second run %s %s:\n%s", c.Path, c.Status, c.Diff)
			}
		}
	})
}
