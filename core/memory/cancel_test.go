package memory

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/workspace/workspacetest"
)

// A knowledge search cancelled by its caller stops scanning and returns CANCELLED, well before
// the whole scan would have ended.
func TestKnowledgeSearchCancelled(t *testing.T) {
	ws := fixtureWorkspace(t)
	// 3000 files of 48 KB with no hit: every byte is scanned, over a second here
	line := strings.Repeat("tenant onboarding notes without the word searched for ", 16) + "\n"
	body := "---\nkind: howto\ndescription: filler\n---\n" + strings.Repeat(line, 48<<10/len(line))
	for i := range 3000 {
		writeFile(t, ws, fmt.Sprintf("knowledge/filler-%04d.md", i), body)
	}
	in := KnowledgeSearchInput{Query: "zebra crossing"}
	start := time.Now()
	if _, err := KnowledgeSearch(context.Background(), ws, in); err != nil {
		t.Fatal(err)
	}
	whole := time.Since(start)
	best := time.Hour
	for range 5 {
		took, err := workspacetest.CancelAfter(whole/5, func(ctx context.Context) error {
			_, err := KnowledgeSearch(ctx, ws, in)
			return err
		})
		if errs.CodeOf(err) != errs.Cancelled {
			t.Fatalf("search cancelled after %s of %s: %v, want CANCELLED", whole/5, whole, err)
		}
		best = min(best, took)
	}
	t.Logf("the whole scan took %s; cancelled after a fifth of it, the search returned %s later at best", whole, best)
	if best > whole/2 {
		t.Errorf("the cancelled search returned %s after its cancel at best; the whole scan takes %s", best, whole)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := MemorySearch(ctx, ws, SearchInput{Query: "x"}); errs.CodeOf(err) != errs.Cancelled {
		t.Errorf("memory search under an ended context: %v, want CANCELLED", err)
	}
	if _, err := MemoryWrite(ctx, ws, WriteInput{Kind: "decision", Slug: "new", Content: "x"}); errs.CodeOf(err) != errs.Cancelled {
		t.Errorf("memory write under an ended context: %v, want CANCELLED", err)
	}
	if _, err := MemoryRead(context.Background(), ws, ReadInput{Kind: "decision", Slug: "new"}); errs.CodeOf(err) != errs.NotFound {
		t.Errorf("the cancelled write wrote: %v", err)
	}
}

// A memory read under an ended context is CANCELLED, for an entry that exists and one that does
// not (whose answer would list similar slugs), and reads nothing.
func TestMemoryReadCancelled(t *testing.T) {
	ws := fixtureWorkspace(t)
	writeFile(t, ws, "memory/decisions/auth.md", "---\nkind: decision\n---\nuse the device flow\n")
	if _, err := MemoryRead(context.Background(), ws, ReadInput{Kind: "decision", Slug: "auth"}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, slug := range []string{"auth", "missing"} {
		if r, err := MemoryRead(ctx, ws, ReadInput{Kind: "decision", Slug: slug}); errs.CodeOf(err) != errs.Cancelled || r != nil {
			t.Errorf("memory read of %s under an ended context: %+v, %v, want CANCELLED", slug, r, err)
		}
	}
}
