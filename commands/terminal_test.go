package commands

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTermText(t *testing.T) {
	for in, want := range map[string]string{
		"plain":                   "plain",
		"a\x1b[31mred\x1b[0m":     `a\x1b[31mred\x1b[0m`,
		"日本語のファイル\r\x07.md":       `日本語のファイル\r\a.md`,
		"c1 \u009b2J and \x9b2J":  `c1 \u009b2J and \x9b2J`,
		"line\nnext\ttab\x7f":     "line\nnext\ttab\\x7f",
		"ok \uFFFD replacement":   "ok \uFFFD replacement",
		"back\\slash stays as is": "back\\slash stays as is",
	} {
		if got := termText(in); got != want {
			t.Errorf("termText(%q) = %q, want %q", in, got, want)
		}
	}
	if got := termName("a\nb.md"); got != `a\nb.md` {
		t.Errorf("termName keeps a line break: %q", got)
	}
}

// Errors and file listings in text mode never pass a file name's escape sequences to the
// terminal; Japanese names stay readable.
func TestTextModeQuotesControlCharacters(t *testing.T) {
	dir := t.TempDir()
	run := func(args ...string) (string, string, int) {
		var out, errOut bytes.Buffer
		code := Run(append([]string{"cairn"}, args...), strings.NewReader(""), &out, &errOut)
		return out.String(), errOut.String(), code
	}
	bad := filepath.Join(dir, "ws\x1b[2J日本")
	_, stderr, code := run("-C", bad, "task", "list")
	if code != 2 || strings.Contains(stderr, "\x1b") || !strings.Contains(stderr, `ws\x1b[2J日本`) {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	ws := filepath.Join(dir, "ws")
	if _, stderr, code := run("init", ws); code != 0 {
		t.Fatalf("init: %s", stderr)
	}
	name := filepath.Join(ws, "knowledge", "メモ\x1b]0;pwned\x07.md")
	if err := os.WriteFile(name, []byte("---\nkind: x\n---\nneedle\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, _ := run("-C", ws, "knowledge", "search", "needle")
	if strings.ContainsAny(stdout+stderr, "\x1b\x07") || !strings.Contains(stdout+stderr, `メモ\x1b]0;pwned\a.md`) {
		t.Fatalf("listing passed control characters through:\nstdout %q\nstderr %q", stdout, stderr)
	}
	_, stderr, code = run("-C", ws, "space", "import", "in\x1b[1m.jsonl")
	if code == 0 || strings.Contains(stderr, "\x1b") || !strings.Contains(stderr, `in\x1b[1m.jsonl`) {
		t.Fatalf("space import: exit %d, stderr %q", code, stderr)
	}
}

// On a terminal, text read from a store (a task description, an imported GitHub issue title)
// is shown escaped, cairn's own colours pass, and the same output piped keeps its bytes.
func TestTextOutputOnATerminalShowsEscapes(t *testing.T) {
	dir := t.TempDir()
	if code := Run([]string{"cairn", "init", dir}, strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{}); code != 0 {
		t.Fatal("init failed")
	}
	evil := "evil\x1b]52;c;ZXZpbA==\x07 \x1b[2J\u009b31m"
	shown := `evil\x1b]52;c;ZXZpbA==\a \x1b[2J\u009b31m`
	gh := filepath.Join(dir, "gh.json")
	title, _ := json.Marshal(evil)
	doc := `[{"number":1,"title":` + string(title) + `,"state":"OPEN","updatedAt":"2026-10-01T00:00:00Z","url":"https://github.com/o/r/issues/1"}]`
	if err := os.WriteFile(gh, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(tty, color bool, args ...string) string {
		var out, errOut bytes.Buffer
		env := newEnv(strings.NewReader(""), &out, &errOut)
		env.terminal = func(w io.Writer) bool { return tty && w == io.Writer(&out) }
		t.Setenv("NO_COLOR", "1")
		if color {
			os.Unsetenv("NO_COLOR")
		}
		if code := env.run(append([]string{"cairn", "-C", dir}, args...)); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut.String())
		}
		return out.String()
	}
	run(false, false, "task", "create", "plain", "--description", evil)
	run(false, false, "board", "import", "--from", "github", gh)
	for _, args := range [][]string{{"task", "get", "1"}, {"board", "search", "evil"}} {
		if piped := run(false, false, args...); !strings.Contains(piped, evil) {
			t.Errorf("%v piped: the stored text's bytes changed: %q", args, piped)
		}
		for _, color := range []bool{false, true} {
			got := run(true, color, args...)
			rest := strings.NewReplacer("\x1b[1m", "", "\x1b[2m", "", "\x1b[0m", "", "\x1b[1;33m", "").Replace(got)
			if !strings.Contains(rest, shown) {
				t.Errorf("%v colour %t: not shown escaped: %q", args, color, got)
			}
			if strings.ContainsAny(rest, "\x1b\x07\r\u009b") || (!color && rest != got) {
				t.Errorf("%v colour %t: the terminal would obey a control character: %q", args, color, got)
			}
		}
	}
}
