package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/core/errs"
)

func TestInitAndFind(t *testing.T) {
	root := t.TempDir()
	created, err := Init(root)
	if err != nil {
		t.Fatal(err)
	}
	if created[0] != ManifestName || len(created) != len(initDirs)+1 {
		t.Fatalf("created = %v", created)
	}
	again, err := Init(root)
	if err != nil || len(again) != 0 {
		t.Fatalf("second init created %v (%v)", again, err)
	}
	deep := filepath.Join(root, "memory", "decisions")
	got, err := Find("", deep)
	if err != nil || got != root {
		t.Fatalf("Find from %s = %q, %v", deep, got, err)
	}
	if _, err := Find("", t.TempDir()); err == nil || !strings.Contains(err.Error(), "cairn init") {
		t.Fatalf("Find outside a workspace: %v", err)
	}
	if _, err := Find(t.TempDir(), root); errs.CodeOf(err) != errs.Invalid {
		t.Fatalf("explicit non-workspace: %v", err)
	}
	cfg, err := LoadConfig(filepath.Join(root, ManifestName))
	if err != nil || cfg != DefaultConfig() {
		t.Fatalf("default manifest = %+v, %v", cfg, err)
	}
}

func TestConfigValidation(t *testing.T) {
	cases := []struct{ toml, want string }{
		{"[memory]\nsearch_hit_limit = 0\n", "memory.search_hit_limit = 0 is out of range 1..500"},
		{"[memory]\nsearch_excerpt_lines = 21\n", "memory.search_excerpt_lines = 21 is out of range 0..20"},
		{"[memory]\nsearch_hit_limt = 5\n", "unknown key memory.search_hit_limt"},
		{"[bord]\nideas = true\n", "unknown key bord"},
		{"[board]\nideas = \"yes\"\n", "cairn.toml"},
		{"[session]\nlog = \"\"\n", "session.log must not be empty"},
		{"not toml at all", "line 1"},
	}
	for _, c := range cases {
		p := filepath.Join(t.TempDir(), ManifestName)
		os.WriteFile(p, []byte(c.toml), 0o644)
		_, err := LoadConfig(p)
		if errs.CodeOf(err) != errs.Invalid || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), p) {
			t.Errorf("%q: err = %v, want INVALID_INPUT naming %q and the file", c.toml, err, c.want)
		}
	}
	p := filepath.Join(t.TempDir(), ManifestName)
	os.WriteFile(p, []byte("[memory]\nsearch_hit_limit = 500\nsearch_excerpt_lines = 0\n[board]\nideas = false\n"), 0o644)
	cfg, err := LoadConfig(p)
	if err != nil || cfg.Memory.SearchHitLimit != 500 || cfg.Memory.SearchExcerptLines != 0 || cfg.Board.Ideas || !cfg.Board.Artifacts {
		t.Fatalf("cfg = %+v, %v", cfg, err)
	}
}

func TestWriteFileAtomicRootStaysInside(t *testing.T) {
	dir := t.TempDir()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if err := WriteFileAtomicRoot(root, "a.md", []byte("one"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomicRoot(root, "a.md", []byte("two"), 0o644); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "a.md")); string(data) != "two" {
		t.Fatalf("content %q", data)
	}
	if err := WriteFileAtomicRoot(root, "../escape.md", []byte("x"), 0o644); err == nil {
		t.Fatal("wrote outside the root")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("temp files left behind: %v", entries)
	}
}
