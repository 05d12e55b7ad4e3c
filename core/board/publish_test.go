package board

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/workspace"
	"github.com/cairn-dev/cairn/core/workspace/workspacetest"
)

// generationDoc is a board whose card, note, summary and memory entry all carry word, so a search
// for it shows which import each of the three files came from.
func generationDoc(word string, revision int) string {
	return fmt.Sprintf(`{"revision": %d,
 "projects": [{"id": "p1", "title": "Project"}],
 "cards": [{"id": "c1", "project": "p1", "title": "%[2]s card", "status": "Todo", "updated_at": "2026-10-20T08:00:00Z"}],
 "events": [{"id": "e1", "card": "c1", "type": "progress_reported", "note": "%[2]s note", "at": "2026-10-20T08:00:00Z"}],
 "summaries": {"c1": [{"state": "%[2]s summary", "at": "2026-10-20T08:00:00Z"}]},
 "memory": [{"id": "m1", "project": "p1", "kind": "decision", "title": "%[2]s memory", "status": "active"}]}`, revision, word)
}

// generationOf names the board a workspace holds: "alpha", "bravo", "none" (no board), or a
// description of what is mixed. The snapshot load and a fresh load must agree.
func generationOf(t *testing.T, ws *workspace.Workspace) string {
	t.Helper()
	var states []string
	for _, loadIt := range []func(context.Context, *workspace.Workspace) (*Index, error){Load, LoadFresh} {
		ix, err := loadIt(context.Background(), ws)
		if errs.CodeOf(err) == errs.NotFound {
			states = append(states, "none")
			continue
		}
		if err != nil {
			return fmt.Sprintf("unreadable: %v", err)
		}
		var found []string
		for _, word := range []string{"alpha", "bravo"} {
			res, err := ix.Search(context.Background(), workspace.DefaultConfig().Board, SearchInput{Query: word})
			if err != nil {
				return fmt.Sprintf("search %s: %v", word, err)
			}
			if len(res.Partial) > 0 {
				return fmt.Sprintf("partial %v", res.Partial)
			}
			var parts []string
			for _, c := range res.Cards {
				for _, h := range c.Hits {
					parts = append(parts, string(h.Source))
				}
			}
			if len(res.Memory) > 0 {
				parts = append(parts, "memory")
			}
			slices.Sort(parts)
			switch strings.Join(parts, ",") {
			case "":
			case "card,memory,note,summary":
				found = append(found, word)
			default:
				found = append(found, word+"("+strings.Join(parts, ",")+")")
			}
		}
		states = append(states, strings.Join(found, "+"))
	}
	if states[0] != states[1] {
		return fmt.Sprintf("snapshot load %s, fresh load %s", states[0], states[1])
	}
	return states[0]
}

// importSteps are the steps of one import over an existing board, in order.
func importSteps(t *testing.T) []string {
	ws := newBoard(t, []byte(generationDoc("alpha", 1)))
	var steps []string
	step = func(name string) { steps = append(steps, name) }
	defer func() { step = func(string) {} }()
	if _, err := Import(context.Background(), ws, strings.NewReader(generationDoc("bravo", 2))); err != nil {
		t.Fatal(err)
	}
	return steps
}

type stopped string

// importStoppedAt runs an import of doc that stops dead at the end of step at, as if the process
// had been killed there: nothing after that point runs, the lock is released.
func importStoppedAt(ws *workspace.Workspace, doc, at string) (err error) {
	step = func(name string) {
		if name == at {
			panic(stopped(name))
		}
	}
	defer func() {
		step = func(string) {}
		if r := recover(); r != nil {
			if _, ok := r.(stopped); !ok {
				panic(r)
			}
			err = fmt.Errorf("stopped at %s", r)
		}
	}()
	_, err = Import(context.Background(), ws, strings.NewReader(doc))
	return err
}

// An import stopped at the end of any of its steps leaves the old board or the new one, never the
// database of one with the JSON files of the other; the next import succeeds and leaves nothing
// beside board/.
func TestImportStoppedAtEveryStep(t *testing.T) {
	steps := importSteps(t)
	for _, want := range []string{"locked", "db-tasks", "db-committed", "summaries-written", "memory-written", "staging-synced", "published", "old-removed", "snapshot-saved"} {
		if !slices.Contains(steps, want) {
			t.Fatalf("step %q missing from %v", want, steps)
		}
	}
	published := slices.Index(steps, "published")
	for i, at := range steps {
		for _, before := range []string{"alpha", "none"} {
			ws := workspacetest.New(t)
			if before == "alpha" {
				if _, err := Import(context.Background(), ws, strings.NewReader(generationDoc("alpha", 1))); err != nil {
					t.Fatal(err)
				}
				load(t, ws) // a snapshot of the old board, as a search leaves it
			}
			if err := importStoppedAt(ws, generationDoc("bravo", 2), at); err == nil || !strings.Contains(err.Error(), "stopped") {
				t.Fatalf("import over %s stopped at %s: %v", before, at, err)
			}
			want := before
			if i >= published {
				want = "bravo"
			}
			if got := generationOf(t, ws); got != want {
				t.Errorf("import over %s stopped after step %s: board is %s, want %s", before, at, got, want)
			}
			if _, err := Import(context.Background(), ws, strings.NewReader(generationDoc("charlie", 3))); err != nil {
				t.Fatalf("import after one stopped at %s: %v", at, err)
			}
			if got := generationOf(t, ws); got != "" { // charlie: neither alpha nor bravo
				t.Errorf("after a stop at %s and a new import: %s", at, got)
			}
			if _, err := os.Lstat(ws.Path(stagingName)); !os.IsNotExist(err) {
				t.Errorf("after a stop at %s and a new import, %s is left: %v", at, stagingName, err)
			}
		}
	}
}

// An import that fails midway (a board file that is a directory, a failing write) changes nothing.
func TestImportFailureKeepsOldBoard(t *testing.T) {
	ws := newBoard(t, []byte(generationDoc("alpha", 1)))
	os.Remove(ws.Path(MemoryPath))
	if err := os.Mkdir(ws.Path(MemoryPath), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := Import(context.Background(), ws, strings.NewReader(generationDoc("bravo", 2)))
	if errs.CodeOf(err) != errs.Invalid || !strings.Contains(err.Error(), "board/memory.json is a directory") {
		t.Fatalf("import over a directory memory.json: %v", err)
	}
	if data, err := os.ReadFile(ws.Path(SummariesPath)); err != nil || !strings.Contains(string(data), "alpha summary") {
		t.Errorf("summaries changed by a refused import: %q %v", data, err)
	}
	os.Remove(ws.Path(MemoryPath))

	// a write that fails after the database was built (the disk filled up, say)
	step = func(name string) {
		if name == "summaries-written" {
			os.RemoveAll(ws.Path(stagingName)) // the next write fails: its directory is gone
		}
	}
	defer func() { step = func(string) {} }()
	if _, err := Import(context.Background(), ws, strings.NewReader(generationDoc("bravo", 2))); err == nil {
		t.Fatal("an import whose write failed succeeded")
	}
	step = func(string) {}
	res := search(t, load(t, ws), "alpha")
	if len(res.Cards) != 1 || len(res.Memory) != 0 || !slices.Equal(res.Partial, []string{"memory"}) {
		t.Errorf("old board after a failed import: cards %v memory %v partial %v", cardIDs(res), memIDs(res), res.Partial)
	}
	if res := search(t, load(t, ws), "bravo"); len(res.Cards) != 0 {
		t.Errorf("a failed import left part of the new board: %v", cardIDs(res))
	}
	if _, err := os.Lstat(ws.Path(stagingName)); !os.IsNotExist(err) {
		t.Errorf("a failed import left %s: %v", stagingName, err)
	}
}

// A damaged board.db is INVALID_INPUT naming the file and the way out, and an import replaces it.
func TestDamagedBoardDB(t *testing.T) {
	ws := newBoard(t, []byte(generationDoc("alpha", 4)))
	if err := os.WriteFile(ws.Path(DBPath), []byte(strings.Repeat("not a database ", 1000)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(context.Background(), ws)
	if errs.CodeOf(err) != errs.Invalid || !strings.Contains(err.Error(), "board/board.db is damaged") || !strings.Contains(err.Error(), "cairn board import FILE.json") {
		t.Fatalf("load of a damaged board.db: %v", err)
	}
	if _, err := ReadCard(context.Background(), ws, "c1"); errs.CodeOf(err) != errs.Invalid {
		t.Errorf("card read of a damaged board.db: %v", err)
	}
	res, err := Import(context.Background(), ws, strings.NewReader(generationDoc("bravo", 2)))
	if err != nil {
		t.Fatalf("import over a damaged board.db: %v", err)
	}
	if res.Revision != 2 {
		t.Errorf("revision %d after replacing a damaged board.db, want the document's 2", res.Revision)
	}
	if got := generationOf(t, ws); got != "bravo" {
		t.Errorf("after replacing a damaged board.db: %s", got)
	}
}

// Entries of board/ that are not board files stay there across imports.
func TestImportKeepsOtherFiles(t *testing.T) {
	ws := newBoard(t, []byte(generationDoc("alpha", 1)))
	if err := os.WriteFile(ws.Path("board/README"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := importStoppedAt(ws, generationDoc("bravo", 2), "published"); err == nil {
		t.Fatal("not stopped")
	}
	if _, err := Import(context.Background(), ws, strings.NewReader(generationDoc("charlie", 3))); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(ws.Path("board/README")); err != nil || string(data) != "mine\n" {
		t.Errorf("board/README after two imports: %q %v", data, err)
	}
}
