package commands_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/commands"
	"github.com/cairn-dev/cairn/core/formats"
)

// repoRoot is the repository's top directory.
func repoRoot(t *testing.T) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..")
}

var (
	docRef     = regexp.MustCompile(`docs/[A-Za-z0-9_./-]+\.md`)
	specRef    = regexp.MustCompile(`Appendix|SPEC\b`)
	userSource = []string{"commands", "core", "web", "main.go"}
)

// TestUserStringsNameShippedDocs: every document a user-visible string of cairn names (an error
// message, a help text, the web page) exists in the repository, and none names the
// specification, which does not ship ("Appendix", "SPEC §").
func TestUserStringsNameShippedDocs(t *testing.T) {
	root := repoRoot(t)
	if _, err := os.Stat(filepath.Join(root, formats.Doc)); err != nil {
		t.Fatalf("formats.Doc names %s, which does not exist: %v", formats.Doc, err)
	}
	named := 0
	fset := token.NewFileSet()
	for _, top := range userSource {
		err := filepath.WalkDir(filepath.Join(root, top), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && (d.Name() == "testdata" || d.Name() == "fixtures") {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
				return nil
			}
			f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			ast.Inspect(f, func(n ast.Node) bool {
				lit, ok := n.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					return true
				}
				s, err := strconv.Unquote(lit.Value)
				if err != nil {
					return true
				}
				if specRef.MatchString(s) {
					t.Errorf("%s: a string names the specification, which does not ship: %q", fset.Position(lit.Pos()), s)
				}
				for _, ref := range docRef.FindAllString(s, -1) {
					named++
					if _, err := os.Stat(filepath.Join(root, ref)); err != nil {
						t.Errorf("%s: %q names %s, which does not exist", fset.Position(lit.Pos()), s, ref)
					}
				}
				return true
			})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if named == 0 {
		t.Errorf("no string names a document under docs/; the import errors should name %s", formats.Doc)
	}
	// The documents users read: the README, docs/ (DEVELOPING.md is for cairn's own developers),
	// the man page, the web page, the schemas.
	var files []string
	for _, g := range []string{"README.md", "docs/*.md", "man/*", "web/static/*", "web/static/*/*", "core/formats/*.json"} {
		m, _ := filepath.Glob(filepath.Join(root, g))
		files = append(files, m...)
	}
	for _, p := range files {
		if st, err := os.Stat(p); err != nil || st.IsDir() || filepath.Base(p) == "DEVELOPING.md" {
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			if specRef.MatchString(line) {
				t.Errorf("%s:%d names the specification, which does not ship: %s", p, i+1, line)
			}
			for _, ref := range docRef.FindAllString(line, -1) {
				if _, err := os.Stat(filepath.Join(root, ref)); err != nil && !strings.HasPrefix(p, filepath.Join(root, "docs")) {
					t.Errorf("%s:%d names %s, which does not exist", p, i+1, ref)
				}
			}
		}
	}
}

// TestBoardExampleFindsWhatItSays: the board document of docs/formats.md imports, and the search
// the text after it names finds what it claims (card c1 by title, summary and note; memory m1).
func TestBoardExampleFindsWhatItSays(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(repoRoot(t), "docs", "formats.md"))
	if err != nil {
		t.Fatal(err)
	}
	board := regexp.MustCompile("(?s)## Board import.*?### Example\n\n```json\n(.*?)```\n\n(`cairn board search sqlite`[^\n]*)").FindSubmatch(doc)
	if board == nil {
		t.Fatal("no board example followed by its search in docs/formats.md")
	}
	if !strings.Contains(string(board[2]), "(title, summary, note)") || !strings.Contains(string(board[2]), "`m1`") {
		t.Fatalf("the claim changed; update this test: %s", board[2])
	}
	ws := t.TempDir()
	if code := commands.Run([]string{"cairn", "init", ws}, strings.NewReader(""), io.Discard, io.Discard); code != 0 {
		t.Fatal("init failed")
	}
	var out, errb strings.Builder
	if code := commands.Run([]string{"cairn", "-C", ws, "board", "import", "-"}, strings.NewReader(string(board[1])), io.Discard, &errb); code != 0 {
		t.Fatalf("the example does not import: %s", errb.String())
	}
	if code := commands.Run([]string{"cairn", "-C", ws, "board", "search", "sqlite"}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("search: %s", errb.String())
	}
	for _, want := range []string{"c1  Move storage to SQLite", "Summary target:", "Note:  Schema migrated to SQLite", "m1  Use SQLite for storage"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("board search sqlite does not show %q:\n%s", want, out.String())
		}
	}
}
