package board

import (
	"context"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/workspace/workspacetest"
)

func TestListProjects(t *testing.T) {
	ws := newBoard(t, nil)
	ids := func(l *ProjectList) []string {
		var out []string
		for _, p := range l.Projects {
			out = append(out, p.ID)
		}
		return out
	}
	for _, tc := range []struct{ card, current string }{
		{"", "p1"},     // latest card activity among live projects (p3's newer card does not count)
		{"c20", "p2"},  // the project of the given card
		{"c3", "p1"},   // an archived card of a live project still names its project
		{"c30", "p1"},  // a card of an archived project falls back to the latest activity
		{"nope", "p1"}, // so does an unknown card
	} {
		l, err := ListProjects(context.Background(), ws, tc.card)
		if err != nil {
			t.Fatalf("card %q: %v", tc.card, err)
		}
		// By title, archived projects left out.
		if got := ids(l); !reflect.DeepEqual(got, []string{"p4", "p2", "p1"}) {
			t.Errorf("card %q: projects %v, want [p4 p2 p1]", tc.card, got)
		}
		if l.Current == nil || *l.Current != tc.current {
			t.Errorf("card %q: current %v, want %s", tc.card, l.Current, tc.current)
		}
	}
	l, err := ListProjects(context.Background(), ws, "")
	if err != nil {
		t.Fatal(err)
	}
	want := ProjectInfo{ID: "p1", Title: "Tinylink", Cards: 9, UpdatedAt: "2026-10-21T08:00:00Z"}
	if l.Projects[2] != want {
		t.Errorf("p1: %+v, want %+v (archived cards counted)", l.Projects[2], want)
	}
	data, err := json.Marshal(l.Projects[2])
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != `{"id":"p1","title":"Tinylink","cards":9,"updatedAt":"2026-10-21T08:00:00Z"}` {
		t.Errorf("JSON: %s", data)
	}

	// A board whose projects are all archived has no current project; the list is [] not null.
	ws = newBoard(t, []byte(`{"revision":1,"projects":[{"id":"p","title":"P","archived":true,"memory":false}]}`))
	l, err = ListProjects(context.Background(), ws, "")
	if err != nil {
		t.Fatal(err)
	}
	if data, _ := json.Marshal(l); string(data) != `{"projects":[],"current":null}` {
		t.Errorf("all archived: %s", data)
	}
}

func TestReadCard(t *testing.T) {
	ws := newBoard(t, nil)
	d, err := ReadCard(context.Background(), ws, "c1")
	if err != nil {
		t.Fatal(err)
	}
	c := d.Card
	if c.TaskID != "c1" || c.ProjectID != "p1" || c.ProjectTitle != "Tinylink" || c.Archived || len(c.Tags) == 0 {
		t.Errorf("card: %+v", c)
	}
	var notes, wps, ideas, arts []string
	for _, e := range d.Notes {
		notes = append(notes, e.ID)
	}
	for _, w := range d.Workpads {
		wps = append(wps, w.ID)
	}
	for _, i := range d.Ideas {
		ideas = append(ideas, i.ID)
	}
	for _, a := range d.Artifacts {
		arts = append(arts, a.ID)
	}
	// Notes newest first, only searched event types with a note (e6 has none); workpads oldest first.
	if !reflect.DeepEqual(notes, []string{"e1", "e2"}) || !reflect.DeepEqual(wps, []string{"wp2", "wp1"}) ||
		!reflect.DeepEqual(ideas, []string{"i1"}) || !reflect.DeepEqual(arts, []string{"a1"}) {
		t.Errorf("records: notes %v workpads %v ideas %v artifacts %v", notes, wps, ideas, arts)
	}
	if d.Summary == nil || d.Summary.Recap != "脚本写完了，测试通过。" || len(d.Partial) != 0 {
		t.Errorf("latest summary: %+v partial %v", d.Summary, d.Partial)
	}
	data, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"card":{"taskId":"c1","projectId":"p1","projectTitle":"Tinylink","workspaceId":`,
		`"summary":{"state":`, `"notes":[`, `"workpads":[`, `"ideas":[`, `"artifacts":[`, `"partial":[]`} {
		if !strings.Contains(string(data), key) {
			t.Errorf("JSON lacks %s: %s", key, data)
		}
	}

	// An archived card of a live project is shown; its empty lists are [] and its summary null.
	d, err = ReadCard(context.Background(), ws, "c3")
	if err != nil || !d.Card.Archived || d.Summary != nil {
		t.Fatalf("archived card of a live project: %+v %v", d, err)
	}
	if data, _ := json.Marshal(d); !strings.Contains(string(data), `"summary":null,"notes":[],"workpads":[],"ideas":[],"artifacts":[],"partial":[]`) {
		t.Errorf("empty records: %s", data)
	}

	for _, id := range []string{"nope", "c30"} { // unknown, and a card of an archived project
		if _, err := ReadCard(context.Background(), ws, id); errs.CodeOf(err) != errs.NotFound {
			t.Errorf("card %q: %v, want NOT_FOUND", id, err)
		}
	}
	if _, err := ReadCard(context.Background(), ws, " "); errs.CodeOf(err) != errs.Invalid {
		t.Errorf("blank id: %v, want INVALID_INPUT", err)
	}
}

// An unreadable summaries file leaves the card readable and says so in Partial; a missing one is
// just no summary.
func TestReadCardSummariesPartial(t *testing.T) {
	ws := newBoard(t, nil)
	if err := os.WriteFile(ws.Path(SummariesPath), []byte(`{"c1": [{"state": `), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := ReadCard(context.Background(), ws, "c1")
	if err != nil {
		t.Fatal(err)
	}
	if d.Summary != nil || !reflect.DeepEqual(d.Partial, []string{"summaries"}) || len(d.Notes) != 2 {
		t.Errorf("corrupt summaries: summary %+v partial %v notes %d", d.Summary, d.Partial, len(d.Notes))
	}
	if err := os.Remove(ws.Path(SummariesPath)); err != nil {
		t.Fatal(err)
	}
	d, err = ReadCard(context.Background(), ws, "c1")
	// Every import writes summaries.json, so a missing one could not be read: partial says so.
	if err != nil || d.Summary != nil || !reflect.DeepEqual(d.Partial, []string{"summaries"}) {
		t.Errorf("missing summaries: %+v %v", d, err)
	}
}

func TestReadersNoBoardAndBusy(t *testing.T) {
	empty := workspacetest.New(t)
	if _, err := ListProjects(context.Background(), empty, ""); errs.CodeOf(err) != errs.NotFound {
		t.Errorf("projects without a board: %v", err)
	}
	if _, err := ReadCard(context.Background(), empty, "c1"); errs.CodeOf(err) != errs.NotFound {
		t.Errorf("card without a board: %v", err)
	}

	ws := newBoard(t, nil)
	lock, err := ws.LockNamed(context.Background(), lockName, true)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Unlock()
	other := *ws
	other.Wait = 50 * time.Millisecond
	if _, err := ListProjects(context.Background(), &other, ""); errs.CodeOf(err) != errs.Busy {
		t.Errorf("projects under an import: %v", err)
	}
	if _, err := ReadCard(context.Background(), &other, "c1"); errs.CodeOf(err) != errs.Busy {
		t.Errorf("card under an import: %v", err)
	}
}

// Stats counts what a search reaches: the fixture's archived project p3 and its card c30 are left
// out of both counts.
func TestStats(t *testing.T) {
	st := load(t, newBoard(t, nil)).Stats()
	if st.Projects != 3 || st.Cards != 12 || st.Memory != 2 {
		t.Errorf("stats: %+v, want 3 projects, 12 cards, 2 memory entries", st)
	}
}
