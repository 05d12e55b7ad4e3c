package memory

import (
	"context"
	"os"
	"reflect"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/core/errs"
)

// within runs fn and fails the test if it has not returned after d: a FIFO must never block.
func within(t *testing.T, d time.Duration, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s still blocked after %s", what, d)
	}
}

func TestReadWriteEditRefuseOversize(t *testing.T) {
	ws := fixtureWorkspace(t)
	// A sparse 2 GiB summary: reading it whole would take 2 GiB of memory.
	huge := ws.Path("memory/summary.md")
	if err := os.Truncate(huge, 2<<30); err != nil {
		t.Fatal(err)
	}
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := MemoryRead(context.Background(), ws, ReadInput{Kind: "summary"})
	wantCode(t, err, errs.Invalid)
	if err == nil || !strings.Contains(err.Error(), "2147483648 bytes") || !strings.Contains(err.Error(), "8388608") {
		t.Errorf("message should name the size and the limit: %v", err)
	}
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if grown := after.TotalAlloc - before.TotalAlloc; grown > 1<<20 {
		t.Errorf("refusing an oversized entry allocated %d bytes", grown)
	}
	_, err = MemoryEdit(context.Background(), ws, EditInput{Kind: "summary", Old: "x", New: "y"})
	wantCode(t, err, errs.Invalid)
	_, err = MemoryWrite(context.Background(), ws, WriteInput{Kind: "summary", Content: "small", ExpectSHA256: strings.Repeat("0", 64)})
	wantCode(t, err, errs.Invalid)
	if st, _ := os.Stat(huge); st.Size() != 2<<30 {
		t.Errorf("the oversized file changed: %d bytes", st.Size())
	}

	// Exactly the limit is fine; one byte more is refused before anything is written.
	limit := strings.Repeat("a", MaxFileSize-1) + "\n"
	if _, err := MemoryWrite(context.Background(), ws, WriteInput{Kind: "decision", Slug: "at-limit", Content: limit}); err != nil {
		t.Fatalf("write of exactly %d bytes: %v", MaxFileSize, err)
	}
	if r, err := MemoryRead(context.Background(), ws, ReadInput{Kind: "decision", Slug: "at-limit"}); err != nil || len(r.Content) != MaxFileSize {
		t.Fatalf("read at the limit: %v", err)
	}
	_, err = MemoryWrite(context.Background(), ws, WriteInput{Kind: "decision", Slug: "over-limit", Content: limit + "b"})
	wantCode(t, err, errs.Invalid)
	if err == nil || !strings.Contains(err.Error(), "8388609 bytes") {
		t.Errorf("message should name the size: %v", err)
	}
	if _, err := os.Lstat(ws.Path("memory/decisions/over-limit.md")); !os.IsNotExist(err) {
		t.Errorf("an oversized write left a file: %v", err)
	}
	// An edit that would grow the entry past the limit changes nothing.
	_, err = MemoryEdit(context.Background(), ws, EditInput{Kind: "decision", Slug: "at-limit", Old: "\n", New: "\n\n"})
	wantCode(t, err, errs.Invalid)
	if st, _ := os.Stat(ws.Path("memory/decisions/at-limit.md")); st.Size() != MaxFileSize {
		t.Errorf("the entry changed: %d bytes", st.Size())
	}
	_, err = MemoryEdit(context.Background(), ws, EditInput{Kind: "decision", Slug: "at-limit", Old: "\n", New: limit + "b"})
	wantCode(t, err, errs.Invalid)
}

func TestSpecialFilesNeverBlock(t *testing.T) {
	ws := fixtureWorkspace(t)
	if err := os.Remove(ws.Path("memory/summary.md")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"memory/summary.md", "pipe"} {
		if err := syscall.Mkfifo(ws.Path(p), 0o644); err != nil {
			t.Skipf("no FIFOs here: %v", err)
		}
	}
	mustSymlink(t, "../pipe", ws.Path("knowledge/piped.md"))
	mustSymlink(t, "../../pipe", ws.Path("memory/decisions/piped.md"))
	within(t, 10*time.Second, "memory read, write, edit and search on FIFOs", func() {
		for _, in := range []ReadInput{{Kind: "summary"}, {Kind: "knowledge", Slug: "piped"}, {Kind: "decision", Slug: "piped"}} {
			_, err := MemoryRead(context.Background(), ws, in)
			wantCode(t, err, errs.Invalid)
			if err == nil || !strings.Contains(err.Error(), "FIFO") {
				t.Errorf("read %+v: %v, want a message naming the FIFO", in, err)
			}
			_, err = MemoryEdit(context.Background(), ws, EditInput{Kind: in.Kind, Slug: in.Slug, Old: "a", New: "b"})
			wantCode(t, err, errs.Invalid)
			_, err = MemoryWrite(context.Background(), ws, WriteInput{Kind: in.Kind, Slug: in.Slug, Content: "x"})
			wantCode(t, err, errs.Invalid)
		}
		res, err := MemorySearch(context.Background(), ws, SearchInput{Query: "the", Limit: ptr(500)})
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"memory/decisions/piped.md", "memory/summary.md"} {
			if !contains(res.Skipped, want) {
				t.Errorf("memory search skipped %v, want %s among them", res.Skipped, want)
			}
		}
		kres, err := KnowledgeSearch(context.Background(), ws, KnowledgeSearchInput{Query: "the", Limit: ptr(500)})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(kres.Skipped, []string{"knowledge/piped.md"}) {
			t.Errorf("knowledge search skipped %v", kres.Skipped)
		}
	})
	if st, err := os.Lstat(ws.Path("memory/summary.md")); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v", err)
	}
	// A FIFO directly in a kind directory goes through the fast path of search.
	if err := syscall.Mkfifo(ws.Path("knowledge/direct.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	within(t, 10*time.Second, "knowledge search over a FIFO", func() {
		kres, err := KnowledgeSearch(context.Background(), ws, KnowledgeSearchInput{Query: "the", Limit: ptr(500)})
		if err != nil {
			t.Fatal(err)
		}
		if !contains(kres.Skipped, "knowledge/direct.md") {
			t.Errorf("knowledge search skipped %v, want knowledge/direct.md", kres.Skipped)
		}
	})
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// A write killed between its temp file and the rename leaves the temp behind; the next write in
// the same folder, under the memory lock, removes it, whichever entry left it (a killed first
// write of an entry never written again).
func TestWriteRemovesStaleTemps(t *testing.T) {
	ws := fixtureWorkspace(t)
	stale := ws.Path("memory/decisions/.x.md.tmp-00112233aabb")
	writeFile(t, ws, "memory/decisions/.x.md.tmp-00112233aabb", strings.Repeat("half-written ", 1000))
	writeFile(t, ws, "memory/decisions/.never-again.md.tmp-00112233aabb", strings.Repeat("half-written ", 1000))
	if _, err := MemoryWrite(context.Background(), ws, WriteInput{Kind: "decision", Slug: "other", Content: "first\n"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(ws.Path("memory/decisions/.never-again.md.tmp-00112233aabb")); !os.IsNotExist(err) {
		t.Errorf("stale temp file of another entry left: %v", err)
	}
	writeFile(t, ws, "memory/decisions/.x.md.tmp-mine", "a user's file")
	if _, err := MemoryWrite(context.Background(), ws, WriteInput{Kind: "decision", Slug: "x", Content: "done\n"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(stale); !os.IsNotExist(err) {
		t.Errorf("stale temp file left: %v", err)
	}
	if _, err := os.Lstat(ws.Path("memory/decisions/.x.md.tmp-mine")); err != nil {
		t.Errorf("a file not of the writer's pattern was removed: %v", err)
	}
}
