package spaces

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/workspace"
	"github.com/cairn-dev/cairn/core/workspace/workspacetest"
)

// slowSpace holds n comments of size bytes of "x" followed by terms, so that a query of all the
// terms reads every comment whole once per term: the query's one long term ("slowterm") and its
// many two-character terms are all in every comment, so neither index can leave one out, and
// each term is tested on each comment. Only the oldest DefaultLimit comments are of the kind the
// query asks for (slowKind), which is tested after the terms, so the search, which tests the
// matched comments newest first until it has its hits, runs every LIKE over every comment. After
// them come as many short comments without the terms as a query probes first (the newest), so
// the probe cannot answer and the search reads the long ones.
// slowKind is the kind of slowSpace's oldest comments, which its query asks for.
const slowKind = "ask"

func slowSpace(t *testing.T, n, size int) (ws *workspace.Workspace, query string) {
	t.Helper()
	terms := []string{"slowterm"}
	for _, a := range "abc" {
		for _, b := range "abcdefghijklmnopqrstuvwyz" {
			if len(strings.Join(terms, " "))+3 <= MaxQueryChars {
				terms = append(terms, string(a)+string(b))
			}
		}
	}
	query = strings.Join(terms, " ")
	full := strings.Repeat("x", size) + " " + query
	ws = newWorkspace(t)
	lines := []string{
		`{"type":"space","id":"s","owner":"o"}`,
		`{"type":"task","id":1,"space":"s","title":"cur"}`,
		`{"type":"task","id":2,"space":"s","title":"other"}`,
	}
	for i := 1; i <= n; i++ {
		kind := "result"
		if i <= DefaultLimit {
			kind = slowKind
		}
		lines = append(lines, fmt.Sprintf(`{"type":"comment","id":%d,"task":2,"kind":%q,"author":"a","created_at":"2026-01-01T00:%02d:%02dZ","body":%q}`, i, kind, i/60, i%60, full))
	}
	for i := 1; i <= defaultProbeWindow; i++ {
		lines = append(lines, fmt.Sprintf(`{"type":"comment","id":%d,"task":2,"kind":"result","author":"a","created_at":"2026-01-01T01:%02d:%02dZ","body":"filler"}`, n+i, i/60, i%60))
	}
	importText(t, ws, strings.Join(lines, "\n"))
	return ws, query
}

// A search cancelled by its caller stops at once with CANCELLED (not the STORAGE_BUSY of its own
// time budget), however long the whole search would run; the local account's search (no user,
// the agent path) as a user's.
func TestSearchCancelled(t *testing.T) {
	ws, query := slowSpace(t, 120, 128<<10) // the whole search: about a second here
	checkCancelled(t, ws, query, Caller{User: "o", Task: "1"})
	asLocalSpace(t, ws, "s") // the same space, now the local account's
	checkCancelled(t, ws, query, Caller{})
	checkCancelled(t, ws, query, Caller{Task: "1"})
}

// checkCancelled cancels caller's slow search while it runs, and before it starts.
func checkCancelled(t *testing.T, ws *workspace.Workspace, query string, caller Caller) {
	t.Helper()
	defer func(b time.Duration) { searchBudget = b }(searchBudget)
	searchBudget = time.Minute
	best := time.Hour
	for range 5 {
		took, err := workspacetest.CancelAfter(200*time.Millisecond, func(ctx context.Context) error {
			_, err := SearchWorkspaceTasks(ctx, ws, caller, SearchInput{Query: query, Kind: slowKind})
			return err
		})
		if took < 0 {
			t.Fatalf("the search returned before its cancel (%v): make the space bigger", err)
		}
		if errs.CodeOf(err) != errs.Cancelled || !strings.Contains(err.Error(), "space search cancelled") {
			t.Fatalf("cancelled search: %v (code %s), want CANCELLED", err, errs.CodeOf(err).Name())
		}
		if best = min(best, took); best < workspacetest.CancelBudget {
			break
		}
	}
	t.Logf("the cancelled search returned %s after the cancel at best", best)
	if best >= workspacetest.CancelBudget {
		t.Errorf("the cancelled search returned %s after the cancel at best, want < %s", best, workspacetest.CancelBudget)
	}
	// uncancelled, the same search answers
	if got := refs(search(t, ws, caller, SearchInput{Query: query, Kind: slowKind})); len(got) != DefaultLimit {
		t.Errorf("the search uncancelled: %v, want %d hits", got, DefaultLimit)
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
