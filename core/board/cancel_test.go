package board

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/workspace"
	"github.com/cairn-dev/cairn/core/workspace/workspacetest"
)

// bigBoardDoc is a board of n cards, each with an event, whose plain import takes well over a
// second on a small machine (TestImportCancelled cancels it partway).
func bigBoardDoc(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"revision": 5, "projects": [{"id": "p1", "title": "Project"}], "cards": [`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id": "c%d", "project": "p1", "title": "bravo card %d", "description": "the description of card %d, long enough to be some work", "status": "Todo", "updated_at": "2026-10-20T08:00:00Z", "tags": ["x", "y"]}`, i, i, i)
	}
	b.WriteString(`], "events": [`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id": "e%d", "card": "c%d", "type": "progress_reported", "note": "bravo note %d", "at": "2026-10-20T08:00:00Z"}`, i, i, i)
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

// boardState is what a reader sees of a board: its revision, counts and a few searches.
func boardState(t *testing.T, ws *workspace.Workspace) string {
	t.Helper()
	ix, err := LoadFresh(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	var refs []string
	for _, q := range []string{"alpha", "bravo", "card"} {
		for _, c := range search(t, ix, q).Cards {
			refs = append(refs, q+":"+c.TaskID)
		}
	}
	return fmt.Sprintf("revision %d, %+v, %v", ix.Revision(), ix.Stats(), refs)
}

// dirNames lists a directory's entries.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func TestImportCancelled(t *testing.T) {
	ws := newBoard(t, []byte(generationDoc("alpha", 1)))
	before := boardState(t, ws)
	files := dirNames(t, ws.Root)
	doc := bigBoardDoc(60000) // 20 MB: about a quarter of an import decodes and checks it
	// How long a whole import takes on this machine, into a scratch workspace: the cancels below
	// fall at fractions of it, while the document is decoded, checked and written, never after
	// the board is published (a cancel then rightly changes nothing: the import is done).
	scratch := newBoard(t, []byte(generationDoc("alpha", 1)))
	start := time.Now()
	if _, err := Import(context.Background(), scratch, bytes.NewReader(doc)); err != nil {
		t.Fatal(err)
	}
	whole := time.Since(start)
	for _, frac := range []float64{0.01, 0.1, 0.4} {
		delay := time.Duration(float64(whole) * frac)
		best := time.Hour
		for range 5 {
			took, err := workspacetest.CancelAfter(delay, func(ctx context.Context) error {
				_, err := Import(ctx, ws, bytes.NewReader(doc))
				return err
			})
			if took < 0 {
				t.Logf("cancelled after %s: the import finished first (err %v)", delay, err)
				if err == nil {
					t.Fatal("the import finished before its cancel: the board changed, nothing more to test")
				}
				continue
			}
			if errs.CodeOf(err) != errs.Cancelled {
				t.Fatalf("cancelled after %s: got %v (code %s), want CANCELLED", delay, err, errs.CodeOf(err).Name())
			}
			best = min(best, took)
			if got := boardState(t, ws); got != before {
				t.Fatalf("cancelled after %s: the board changed:\n got %s\nwant %s", delay, got, before)
			}
			if got := dirNames(t, ws.Root); !reflect.DeepEqual(got, files) {
				t.Fatalf("cancelled after %s: the workspace holds %v, before %v (a staging directory left?)", delay, got, files)
			}
			if best < workspacetest.CancelBudget {
				break
			}
		}
		t.Logf("cancelled after %s: returned %s after the cancel at best", delay, best)
		if best != time.Hour && best >= workspacetest.CancelBudget {
			t.Errorf("cancelled after %s: the import returned %s after the cancel at best, want < %s", delay, best, workspacetest.CancelBudget)
		}
	}
}

func TestImportProjectCancelled(t *testing.T) {
	ws := newBoard(t, []byte(generationDoc("alpha", 1)))
	before := boardState(t, ws)
	pb := sampleProject("imp", "a", "b")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ImportProject(ctx, ws, pb); errs.CodeOf(err) != errs.Cancelled {
		t.Fatalf("got %v, want CANCELLED", err)
	}
	if got := boardState(t, ws); got != before {
		t.Errorf("the board changed:\n got %s\nwant %s", got, before)
	}
}

// Loading a board honours its ctx: an ended one is CANCELLED before anything is read, and a
// cancel while the tables of a big board are read (LoadFresh, no snapshot) stops the load at
// once instead of finishing it. A search, a card read, the project list and an export under an
// ended ctx are CANCELLED too.
func TestLoadCancelled(t *testing.T) {
	ws := newBoard(t, bigBoardDoc(30000))
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Load(ended, ws); errs.CodeOf(err) != errs.Cancelled {
		t.Errorf("Load under an ended ctx: %v, want CANCELLED", err)
	}
	start := time.Now()
	ix, err := LoadFresh(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	whole := time.Since(start)
	best := time.Hour
	for range 5 {
		took, err := workspacetest.CancelAfter(whole/4, func(ctx context.Context) error {
			_, err := LoadFresh(ctx, ws)
			return err
		})
		if took < 0 || err == nil {
			// finished before its cancel, or past its last check when the cancel came (a
			// machine slowed by others)
			t.Logf("the load finished before its cancel after %s (err %v)", whole/4, err)
			continue
		}
		if errs.CodeOf(err) != errs.Cancelled || !strings.Contains(err.Error(), "board load cancelled") {
			t.Fatalf("load cancelled after %s: %v (code %s), want CANCELLED", whole/4, err, errs.CodeOf(err).Name())
		}
		if best = min(best, took); best < workspacetest.CancelBudget {
			break
		}
	}
	t.Logf("a whole load takes %s; cancelled after a quarter of it, it returned %s after the cancel at best", whole, best)
	if best != time.Hour && best >= workspacetest.CancelBudget {
		t.Errorf("the cancelled load returned %s after the cancel at best, want < %s", best, workspacetest.CancelBudget)
	}
	cfg := workspace.DefaultConfig().Board
	if _, err := ix.Search(ended, cfg, SearchInput{Query: "bravo"}); errs.CodeOf(err) != errs.Cancelled {
		t.Errorf("Search under an ended ctx: %v, want CANCELLED", err)
	}
	if _, err := ix.AgentSearch(ended, cfg, AgentInput{Card: "c1", Query: "bravo"}); errs.CodeOf(err) != errs.Cancelled {
		t.Errorf("AgentSearch under an ended ctx: %v, want CANCELLED", err)
	}
	if _, err := ReadCard(ended, ws, "c1"); errs.CodeOf(err) != errs.Cancelled {
		t.Errorf("ReadCard under an ended ctx: %v, want CANCELLED", err)
	}
	if _, err := ListProjects(ended, ws, ""); errs.CodeOf(err) != errs.Cancelled {
		t.Errorf("ListProjects under an ended ctx: %v, want CANCELLED", err)
	}
	if _, err := Export(ended, ws, io.Discard); errs.CodeOf(err) != errs.Cancelled {
		t.Errorf("Export under an ended ctx: %v, want CANCELLED", err)
	}
	if res, err := ix.Search(context.Background(), cfg, SearchInput{Query: "bravo"}); err != nil || len(res.Cards) == 0 {
		t.Errorf("Search: %+v, %v", res, err)
	}
}
