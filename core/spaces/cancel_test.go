package spaces

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/core/errs"
)

// cancelAfter runs fn with a context cancelled after delay, and returns fn's error and how long
// fn took to return once the context was cancelled (-1: it returned before).
func cancelAfter(delay time.Duration, fn func(context.Context) error) (error, time.Duration) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- fn(ctx) }()
	select {
	case err := <-done:
		cancel()
		return err, -1
	case <-time.After(delay):
	}
	at := time.Now()
	cancel()
	err := <-done
	return err, time.Since(at)
}

// cancelBudget is how soon cancelled work must return. The machine is shared, so scheduling
// noise can delay one return by much more: a case is cancelled a few times and the quickest
// return is held to the budget (noise only slows a return down; work that ignored the cancel
// would take the rest of its second or more every time).
const cancelBudget = 100 * time.Millisecond

// A search cancelled by its caller stops at once with CANCELLED (not the STORAGE_BUSY of its own
// time budget), however long the whole search would run.
func TestSearchCancelled(t *testing.T) {
	ws := hostileWorkspace(t, 48, 256<<10) // the whole search: over a second here
	defer func(b time.Duration) { searchBudget = b }(searchBudget)
	searchBudget = time.Minute
	caller := Caller{User: "o", Task: "1"}
	query := strings.Repeat("A", 150) + "B" // every trigram in every comment, the term in none
	best := time.Hour
	for range 3 {
		err, took := cancelAfter(200*time.Millisecond, func(ctx context.Context) error {
			_, err := SearchWorkspaceTasks(ctx, ws, caller, SearchInput{Query: query})
			return err
		})
		if took < 0 {
			t.Fatalf("the search returned before its cancel (%v): make the space bigger", err)
		}
		if errs.CodeOf(err) != errs.Cancelled || !strings.Contains(err.Error(), "space search cancelled") {
			t.Fatalf("cancelled search: %v (code %s), want CANCELLED", err, errs.CodeOf(err).Name())
		}
		if best = min(best, took); best < cancelBudget {
			break
		}
	}
	if best >= cancelBudget {
		t.Errorf("the cancelled search returned %s after the cancel at best, want < %s", best, cancelBudget)
	}
	// a context ended before the call: nothing is opened
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := SearchWorkspaceTasks(ctx, ws, caller, SearchInput{Query: "x"}); errs.CodeOf(err) != errs.Cancelled {
		t.Errorf("search under an ended context: %v, want CANCELLED", err)
	}
}

// AddComment and Reindex under an ended context change nothing.
func TestWritesCancelled(t *testing.T) {
	ws := fixtureWorkspace(t)
	before := refs(search(t, ws, bob, SearchInput{Query: "認証"}))
	st, err := Open(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := st.AddComment(ctx, Comment{Task: "16", Kind: "result", Author: "bob", CreatedAt: "2026-01-02T00:00:00Z", Body: "認証 again"}); errs.CodeOf(err) != errs.Cancelled {
		t.Errorf("AddComment under an ended context: %v, want CANCELLED", err)
	}
	if _, err := st.Reindex(ctx, nil); errs.CodeOf(err) != errs.Cancelled {
		t.Errorf("Reindex under an ended context: %v, want CANCELLED", err)
	}
	if got := refs(search(t, ws, bob, SearchInput{Query: "認証"})); strings.Join(got, " ") != strings.Join(before, " ") {
		t.Errorf("after cancelled writes the search finds %v, before %v", got, before)
	}
}
