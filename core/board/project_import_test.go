package board

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/workspace"
	"github.com/cairn-dev/cairn/core/workspace/workspacetest"
)

func sampleProject(id string, cards ...string) *ProjectBoard {
	pb := &ProjectBoard{Project: Project{ID: id, Title: "Imported " + id, Memory: true}}
	for _, c := range cards {
		cid := id + "/" + c
		pb.Cards = append(pb.Cards, Card{ID: cid, Project: id, Title: c + " zebra", Status: "Todo", UpdatedAt: "2026-10-20T08:00:00Z"})
		pb.Events = append(pb.Events, Event{ID: cid + "/n", Card: cid, Type: "progress_reported", Note: c + " okapi", At: "2026-10-20T08:00:00Z"})
	}
	pb.Memory = []MemoryEntry{{ID: id + "/m", Project: id, Kind: "decision", Title: "giraffe", Status: "active"}}
	return pb
}

// others is everything on the board that does not belong to project id.
func others(t *testing.T, ws *workspace.Workspace, id string) string {
	t.Helper()
	w, err := readWholeBoard(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	cards := map[string]bool{}
	var keep []any
	for _, p := range w.projects {
		if p.ID != id {
			keep = append(keep, p)
		}
	}
	for _, c := range w.cards {
		if c.Project == id {
			cards[c.ID] = true
		} else {
			keep = append(keep, c)
		}
	}
	for _, e := range w.events {
		if !cards[e.Card] {
			keep = append(keep, e)
		}
	}
	for _, x := range w.workpads {
		if !cards[x.Card] {
			keep = append(keep, x)
		}
	}
	for _, x := range w.ideas {
		if !cards[x.Card] {
			keep = append(keep, x)
		}
	}
	for _, x := range w.artifacts {
		if !cards[x.Card] {
			keep = append(keep, x)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(w.summaries)) {
		if !cards[k] {
			keep = append(keep, k, compact(w.summaries[k]))
		}
	}
	for _, m := range w.memory {
		if c := compact(m); !strings.Contains(c, `"project":"`+id+`"`) {
			keep = append(keep, c)
		}
	}
	out, _ := json.Marshal(keep)
	return string(out)
}

// compact is a JSON value without insignificant white space: the JSON files are rewritten whole.
func compact(raw json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}

func TestImportProjectAddsReplacesAndKeepsOthers(t *testing.T) {
	ws := newBoard(t, nil)
	before := others(t, ws, "imp")
	res, err := ImportProject(context.Background(), ws, sampleProject("imp", "a", "b"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Replaced || res.Cards != 2 || res.Projects != 5 {
		t.Fatalf("first import: %+v", res)
	}
	if got := cardIDs(search(t, load(t, ws), "zebra", inProject("imp"))); !reflect.DeepEqual(got, []string{"imp/a", "imp/b"}) && !reflect.DeepEqual(got, []string{"imp/b", "imp/a"}) {
		t.Fatalf("cards after the first import: %v", got)
	}
	res, err = ImportProject(context.Background(), ws, sampleProject("imp", "b", "c"))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Replaced || res.Projects != 5 {
		t.Fatalf("re-import: %+v", res)
	}
	ix := load(t, ws)
	got := cardIDs(search(t, ix, "okapi", inProject("imp")))
	if len(got) != 2 || strings.Contains(strings.Join(got, ","), "imp/a") {
		t.Fatalf("re-import must replace the project's cards and notes, got %v", got)
	}
	if got := memIDs(search(t, ix, "giraffe", inProject("imp"))); len(got) != 1 {
		t.Fatalf("memory of the project once, got %v", got)
	}
	if after := others(t, ws, "imp"); after != before {
		t.Fatalf("other projects changed:\nbefore %s\nafter  %s", before, after)
	}
}

func TestImportProjectReplacesAFixtureProject(t *testing.T) {
	ws := newBoard(t, nil)
	w, err := readWholeBoard(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	victim := w.cards[0].Project
	before := others(t, ws, victim)
	if _, err := ImportProject(context.Background(), ws, sampleProject(victim, "only")); err != nil {
		t.Fatal(err)
	}
	w, err = readWholeBoard(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range w.cards {
		if c.Project == victim && c.ID != victim+"/only" {
			t.Fatalf("card %s of the replaced project survived", c.ID)
		}
	}
	for k := range w.summaries {
		if k == "c1" && w.cards[0].Project == victim {
			t.Fatalf("summary of a replaced card survived")
		}
	}
	if after := others(t, ws, victim); after != before {
		t.Fatalf("other projects changed:\nbefore %s\nafter  %s", before, after)
	}
}

func TestImportProjectRefusesAndChangesNothing(t *testing.T) {
	ws := newBoard(t, nil)
	w, _ := readWholeBoard(context.Background(), ws)
	taken := w.cards[0]
	db, _ := os.ReadFile(ws.Path(DBPath))
	clash := sampleProject("imp", "a")
	clash.Cards[0].ID = taken.ID
	clash.Events[0].Card = taken.ID
	bad := sampleProject("imp", "a")
	bad.Cards[0].UpdatedAt = "yesterday"
	stray := sampleProject("imp", "a")
	stray.Cards[0].Project = "elsewhere"
	for name, pb := range map[string]*ProjectBoard{"clash": clash, "bad time": bad, "stray": stray} {
		_, err := ImportProject(context.Background(), ws, pb)
		if errs.CodeOf(err) != errs.Invalid {
			t.Fatalf("%s: want INVALID_INPUT, got %v", name, err)
		}
		if after, _ := os.ReadFile(ws.Path(DBPath)); string(after) != string(db) {
			t.Fatalf("%s: the board changed", name)
		}
	}
	_, err := ImportProject(context.Background(), ws, clash)
	if !strings.Contains(err.Error(), taken.ID) || !strings.Contains(err.Error(), taken.Project) {
		t.Fatalf("a clash names the card and its project: %v", err)
	}
}

func TestImportProjectIntoAnEmptyWorkspace(t *testing.T) {
	ws := workspacetest.New(t)
	res, err := ImportProject(context.Background(), ws, sampleProject("imp", "a"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Projects != 1 || res.Replaced {
		t.Fatalf("%+v", res)
	}
	if got := cardIDs(search(t, load(t, ws), "zebra")); len(got) != 1 {
		t.Fatalf("got %v", got)
	}
}

func TestImportProjectRefusesUnreadableMemory(t *testing.T) {
	ws := newBoard(t, nil)
	if err := os.WriteFile(ws.Path(MemoryPath), []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ImportProject(context.Background(), ws, sampleProject("imp", "a"))
	if errs.CodeOf(err) != errs.Invalid || !strings.Contains(err.Error(), MemoryPath) {
		t.Fatalf("want INVALID_INPUT naming %s, got %v", MemoryPath, err)
	}
}
