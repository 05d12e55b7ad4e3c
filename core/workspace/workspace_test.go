package workspace

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

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
	if err != nil || !reflect.DeepEqual(cfg, DefaultConfig()) {
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

func TestConfigBounds(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, ManifestName)
	load := func(content string) error {
		t.Helper()
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := LoadConfig(p)
		return err
	}
	// 100,000 levels of arrays, inline tables and dotted keys: refused before the parser runs.
	for name, content := range map[string]string{
		"arrays":        "x = " + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + "\n",
		"inline tables": "x = " + strings.Repeat("{a=", 100000) + "1" + strings.Repeat("}", 100000) + "\n",
		"dotted key":    strings.Repeat("a.", 10000) + "a = 1\n",
		"table header":  "[" + strings.Repeat("a.", 10000) + "a]\nb = 1\n",
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		err := load(content)
		runtime.ReadMemStats(&after)
		if errs.CodeOf(err) != errs.Invalid || !strings.Contains(err.Error(), "nested deeper than 16") {
			t.Errorf("%s: err = %v", name, err)
		}
		if len(err.Error()) > 400 {
			t.Errorf("%s: a %d-byte message", name, len(err.Error()))
		}
		if grown := after.TotalAlloc - before.TotalAlloc; grown > 8<<20 {
			t.Errorf("%s: refusing it allocated %d bytes", name, grown)
		}
	}
	// Values with dots, strings holding brackets and shallow structure are fine for the scan.
	ok := "# a [comment] {with} brackets. and.dots.\n[memory]\nsearch_hit_limit = 20\n[session]\nlog = \"sessions/a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.jsonl\" # [[[[[[[[[[[[[[[[[[[[\n"
	if err := load(ok); err != nil {
		t.Errorf("a valid manifest: %v", err)
	}
	// Many unknown keys: only the first is named.
	var many strings.Builder
	for i := 0; i < 2000; i++ {
		fmt.Fprintf(&many, "[t%d]\nk%d = 1\n", i, i)
	}
	err := load(many.String())
	if errs.CodeOf(err) != errs.Invalid || !strings.Contains(err.Error(), "unknown key t0 ") || strings.Contains(err.Error(), "t1") || len(err.Error()) > 400 {
		t.Errorf("many unknown keys: %v", err)
	}
	// Over 1 MiB (sparse): refused naming the size.
	if err := os.Truncate(p, 2<<30); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadConfig(p); errs.CodeOf(err) != errs.Invalid || !strings.Contains(err.Error(), "2147483648 bytes") {
		t.Errorf("a 2 GiB manifest: %v", err)
	}
}

func TestConfigSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, ManifestName)
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := Open(dir, dir)
		done <- err
	}()
	select {
	case err := <-done:
		if errs.CodeOf(err) != errs.Invalid || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("a FIFO manifest: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("opening a workspace whose manifest is a FIFO blocked")
	}
	dev := filepath.Join(t.TempDir(), ManifestName)
	if err := os.Symlink("/dev/zero", dev); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadConfig(dev); errs.CodeOf(err) != errs.Invalid || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("cairn.toml -> /dev/zero: %v", err)
	}
}

func TestConfigSessionLogStaysInside(t *testing.T) {
	for _, log := range []string{"/home/u/.bashrc", "../outside.jsonl", "sessions/../../x.jsonl", "./../x"} {
		p := filepath.Join(t.TempDir(), ManifestName)
		os.WriteFile(p, []byte(fmt.Sprintf("[session]\nlog = %q\n", log)), 0o644)
		if _, err := LoadConfig(p); errs.CodeOf(err) != errs.Invalid || !strings.Contains(err.Error(), "leaves the workspace") || errs.FieldOf(err) != "session" {
			t.Errorf("log = %q: %v", log, err)
		}
	}
	for _, log := range []string{"sessions/x.jsonl", "log.jsonl", "a/../b.jsonl"} {
		p := filepath.Join(t.TempDir(), ManifestName)
		os.WriteFile(p, []byte(fmt.Sprintf("[session]\nlog = %q\n", log)), 0o644)
		if _, err := LoadConfig(p); err != nil {
			t.Errorf("log = %q: %v", log, err)
		}
	}
}

func TestCheckStoreRefusesEscapingSymlinks(t *testing.T) {
	root := t.TempDir()
	if _, err := Init(root); err != nil {
		t.Fatal(err)
	}
	ws, err := Open(root, root)
	if err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	mustLink := func(target, rel string) {
		t.Helper()
		p := ws.Path(rel)
		os.RemoveAll(p)
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	mustLink(outside, ".cairn")
	if _, err := ws.StateDir(); errs.CodeOf(err) != errs.Invalid || !strings.Contains(err.Error(), ".cairn is a symlink that leads outside") {
		t.Errorf("StateDir through an escaping link: %v", err)
	}
	if _, err := ws.LockNamed(context.Background(), "memory", true); errs.CodeOf(err) != errs.Invalid {
		t.Errorf("LockNamed through an escaping link: %v", err)
	}
	os.Remove(ws.Path(".cairn"))
	os.Mkdir(ws.Path(".cairn"), 0o755)
	mustLink(filepath.Join(outside, "created.lock"), ".cairn/memory.lock")
	if _, err := ws.LockNamed(context.Background(), "memory", true); errs.CodeOf(err) != errs.Invalid || !strings.Contains(err.Error(), ".cairn/memory.lock") {
		t.Errorf("a lock file linked outside: %v", err)
	}
	mustLink(filepath.Join(outside, "gone.db"), "spaces.db")
	if err := ws.CheckStore("spaces.db"); errs.CodeOf(err) != errs.Invalid || !strings.Contains(err.Error(), "cannot be resolved") {
		t.Errorf("dangling link: %v", err)
	}
	os.Remove(ws.Path("spaces.db"))
	mustLink(filepath.Join(outside, "wal"), "spaces.db-wal")
	if err := ws.CheckStore("spaces.db"); errs.CodeOf(err) != errs.Invalid || !strings.Contains(err.Error(), "spaces.db-wal") {
		t.Errorf("the WAL beside a database: %v", err)
	}
	os.Remove(ws.Path("spaces.db-wal"))
	mustLink(outside, "sessions")
	if _, err := ws.SessionLogPath(""); errs.CodeOf(err) != errs.Invalid {
		t.Errorf("manifest log through an escaping link: %v", err)
	}
	explicit := filepath.Join(outside, "mine.jsonl")
	if p, err := ws.SessionLogPath(explicit); err != nil || p != explicit {
		t.Errorf("an explicit log is the caller's: %q, %v", p, err)
	}
	// Links that stay inside, and paths not created yet, are fine.
	os.Mkdir(ws.Path("elsewhere"), 0o755)
	mustLink("elsewhere", "board")
	mustLink(ws.Path("memory"), "sessions")
	if err := ws.CheckStore("board/board.db", "sessions/default.jsonl", "not/yet/there.db"); err != nil {
		t.Errorf("inside links: %v", err)
	}
	entries, _ := os.ReadDir(outside)
	if len(entries) != 0 {
		t.Errorf("wrote outside: %v", entries)
	}
}

func TestWriteFileAtomicRootRemovesStaleTemps(t *testing.T) {
	dir := t.TempDir()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	os.Mkdir(filepath.Join(dir, "d"), 0o755)
	// a temp of another entry in the folder is stale too: the caller's lock covers the folder
	stale := []string{".a.md.tmp-0123456789ab", ".a.md.tmp-ffffffffffff", ".b.md.tmp-0123456789ab"}
	kept := []string{".a.md.tmp-notes", ".a.md.tmp-0123456789abc", "a.md.tmp-0123456789ab", ".a.md.tmp-ABCDEF012345", ".tmp-0123456789ab"}
	for _, n := range append(append([]string{}, stale...), kept...) {
		os.WriteFile(filepath.Join(dir, "d", n), []byte("x"), 0o644)
	}
	os.Mkdir(filepath.Join(dir, "d", ".a.md.tmp-aaaaaaaaaaaa"), 0o755) // not a file: left alone
	kept = append(kept, ".a.md.tmp-aaaaaaaaaaaa")
	if err := WriteFileAtomicRoot(root, "d/a.md", []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, n := range stale {
		if _, err := os.Lstat(filepath.Join(dir, "d", n)); !os.IsNotExist(err) {
			t.Errorf("stale temp %s still there", n)
		}
	}
	for _, n := range kept {
		if _, err := os.Lstat(filepath.Join(dir, "d", n)); err != nil {
			t.Errorf("%s was removed: %v", n, err)
		}
	}
}

// The nesting scan never panics, and a manifest it lets through decodes (or fails to) quickly:
// whatever it passes is at most maxManifestDepth deep.
func FuzzManifest(f *testing.F) {
	for _, s := range []string{DefaultManifest, "a = [[1], {b = 2}]\n", "[a.b.c]\nd = 1\n", `x = "[[[" # {{{`, "'''\n[[\n'''", "a.\"b.c\".d = 1", "x = {a={a={a=1}}}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p := filepath.Join(t.TempDir(), ManifestName)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadConfig(p); err != nil && errs.CodeOf(err) != errs.Invalid {
			t.Fatalf("%q: %v", s, err)
		}
	})
}

// A directory path the file system cannot hold (each name short enough, the whole too long)
// fails only deep inside: MkdirAll removes what it created on the way, and FSError names the
// path once, not again in its cause.
func TestMkdirAllLeavesNothingOnFailure(t *testing.T) {
	base := t.TempDir()
	deep := base
	for len(deep) < 5000 {
		deep = filepath.Join(deep, strings.Repeat("d", 200))
	}
	err := MkdirAll(deep, 0o755)
	if err == nil {
		t.Fatal("a path of 5,000 bytes was created")
	}
	if entries, _ := os.ReadDir(base); len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
	msg := FSError(err, "create %s", deep).Error()
	if n := strings.Count(msg, deep); n != 1 || !strings.Contains(msg, "use a shorter one") || !strings.Contains(msg, "file name too long") {
		t.Errorf("the path is named %d times in %q", n, msg[len(msg)-120:])
	}
	// a path that can be made is made, and one that exists is fine
	ok := filepath.Join(base, "a", "b", "c")
	if err := MkdirAll(ok, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := MkdirAll(ok, 0o755); err != nil {
		t.Fatal(err)
	}
}
