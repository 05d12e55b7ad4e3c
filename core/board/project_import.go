package board

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/workspace"
)

// ProjectBoard is one project and everything on it, as a converter from another tracker builds
// it (core/importers). Every card, and every memory entry, belongs to Project; events, workpad
// items, ideas and artifacts belong to its cards; Summaries maps its card ids to versions.
type ProjectBoard struct {
	Project   Project
	Cards     []Card
	Events    []Event
	Workpads  []Workpad
	Ideas     []Idea
	Artifacts []Artifact
	Summaries map[string][]Summary
	Memory    []MemoryEntry
}

// ProjectImportResult says what a project import wrote, for the command's output.
type ProjectImportResult struct {
	Revision  int64  `json:"revision"`
	Project   string `json:"project"`
	Title     string `json:"title"`
	Replaced  bool   `json:"replaced"` // the project was on the board before and was replaced
	Cards     int    `json:"cards"`
	Events    int    `json:"events"`
	Workpads  int    `json:"workpads"`
	Ideas     int    `json:"ideas"`
	Artifacts int    `json:"artifacts"`
	Memory    int    `json:"memory"`
	Projects  int    `json:"projects"` // projects on the board after the import
	// Removed are the ids of the replaced project's cards the new import no longer has, in the
	// board's order (a re-import replaces the whole project: a source without them drops them).
	Removed []string `json:"removed"`
}

// Document renders the project board as the Appendix B document of one project.
func (pb *ProjectBoard) Document() ([]byte, error) {
	doc := map[string]any{
		"projects":  []Project{pb.Project},
		"cards":     nonNil(pb.Cards),
		"events":    nonNil(pb.Events),
		"workpads":  nonNil(pb.Workpads),
		"ideas":     nonNil(pb.Ideas),
		"artifacts": nonNil(pb.Artifacts),
		"memory":    nonNil(pb.Memory),
	}
	if len(pb.Summaries) > 0 {
		doc["summaries"] = pb.Summaries
	}
	return json.MarshalIndent(doc, "", "  ")
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// ImportProject puts one project on the board: a project with the same id is replaced in place
// (its cards, their events, workpad items, ideas, artifacts and summaries, and its memory
// entries), every other project is kept as it was. The project is validated by the rules of a
// whole-board import first; the merged board is then written and published exactly as Import
// does (one staging directory, one exchange, under the exclusive board lock), so a reader sees
// the board before or after, never a mix. A workspace without a board gets one with this project.
//
// ctx ending before the exchange stops it with CANCELLED and leaves the board as it was.
func ImportProject(ctx context.Context, ws *workspace.Workspace, pb *ProjectBoard) (*ProjectImportResult, error) {
	data, err := pb.Document()
	if err != nil {
		return nil, fmt.Errorf("render project %s: %w", pb.Project.ID, err)
	}
	scrub := newScrubber()
	nb, err := parseDocument(ctx, data, scrub)
	if err != nil {
		return nil, err
	}
	for _, c := range nb.cards {
		if c.Project != pb.Project.ID {
			return nil, errs.Invalidf("project import: card %q belongs to project %q, not %q", c.ID, c.Project, pb.Project.ID)
		}
	}
	unlock, err := lockForWrite(ctx, ws)
	if err != nil {
		return nil, err
	}
	defer unlock()
	cur, err := readWholeBoard(ctx, ws)
	if err != nil {
		return nil, errs.IfStopped(ctx, err, "project import")
	}
	if !cur.redacted {
		// an earlier build's board: the other projects are written again redacted too
		if err := scrub.whole(ctx, cur); err != nil {
			return nil, err
		}
	}
	merged, replaced, err := mergeProject(cur, nb, pb.Project.ID)
	if err != nil {
		return nil, err
	}
	rev, err := replaceBoard(ctx, ws, merged, 1)
	if err != nil {
		return nil, err
	}
	kept := map[string]bool{}
	for _, c := range nb.cards {
		kept[c.ID] = true
	}
	removed := []string{}
	for _, c := range cur.cards {
		if c.Project == pb.Project.ID && !kept[c.ID] {
			removed = append(removed, c.ID)
		}
	}
	return &ProjectImportResult{
		Revision: rev, Project: pb.Project.ID, Title: pb.Project.Title, Replaced: replaced, Removed: removed,
		Cards: len(nb.cards), Events: len(nb.events), Workpads: len(nb.workpads), Ideas: len(nb.ideas),
		Artifacts: len(nb.artifacts), Memory: nb.nMemory, Projects: len(merged.projects),
	}, nil
}

// wholeBoard is every record of the current board, as written (events of every type, the JSON
// files entry by entry), so a project import can keep the other projects byte for byte; its
// revision is the board's, and redacted says its texts are redacted by this build (or there is
// no board).
type wholeBoard struct {
	parsedBoard
	summaries map[string]json.RawMessage
	memory    []json.RawMessage
	redacted  bool
}

// readWholeBoard reads the current board; no board yet is an empty one. A JSON file that cannot
// be read is refused: the other projects' summaries or memory would be lost.
func readWholeBoard(ctx context.Context, ws *workspace.Workspace) (*wholeBoard, error) {
	w := &wholeBoard{summaries: map[string]json.RawMessage{}, redacted: true}
	ok, err := dbExists(ws)
	if err != nil || !ok {
		return w, err
	}
	db, err := openDB(ws.Path(DBPath), ws.Wait, true)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	if w.revision, err = readRevision(db, DBPath); err != nil {
		return nil, err
	}
	if w.redacted, err = readRedaction(db); err != nil {
		return nil, err
	}
	if err := readAllTables(ctx, db, &w.parsedBoard); err != nil {
		return nil, err
	}
	for _, f := range []struct {
		path string
		v    any
	}{{SummariesPath, &w.summaries}, {MemoryPath, &w.memory}} {
		data, err := os.ReadFile(ws.Path(f.path))
		if os.IsNotExist(err) {
			continue
		}
		if err == nil {
			err = json.Unmarshal(data, f.v)
		}
		if err != nil {
			return nil, errs.Invalidf("%s cannot be read (%v); importing one project keeps the other projects' entries in it, so fix or re-import the whole board first (nothing was changed)", f.path, err)
		}
	}
	return w, nil
}

// readAllTables reads every row of every table, unlike the search's readTables, which skips
// what is never searched.
func readAllTables(ctx context.Context, db *sql.DB, b *parsedBoard) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return storageErr(err, "read %s", DBPath)
	}
	defer tx.Rollback()
	return inOrder(
		func() error {
			return rowsInto(ctx, tx, `SELECT id, title, archived, memory FROM projects ORDER BY rowid`, &b.projects, scanProject)
		},
		func() error {
			return rowsInto(ctx, tx, `SELECT id, project, title, description, tags, type, status, archived, updated_at, workspace_id FROM tasks ORDER BY rowid`, &b.cards, scanCard)
		},
		func() error {
			return rowsInto(ctx, tx, `SELECT id, card, type, note, actor, at FROM events ORDER BY rowid`, &b.events, scanEvent)
		},
		func() error {
			return rowsInto(ctx, tx, `SELECT id, card, kind, description, command, evidence, at FROM workpads ORDER BY rowid`, &b.workpads, scanWorkpad)
		},
		func() error {
			return rowsInto(ctx, tx, `SELECT id, card, title, detail, rationale, context, status, at FROM ideas ORDER BY rowid`, &b.ideas, scanIdea)
		},
		func() error {
			return rowsInto(ctx, tx, `SELECT id, card, title, note, target, external_key, at FROM artifacts ORDER BY rowid`, &b.artifacts, scanArtifact)
		},
	)
}

// mergeProject is the current board with project id's records replaced by nb's. An id of the new
// project that another project already uses is refused, naming both.
func mergeProject(cur *wholeBoard, nb *parsedBoard, id string) (*parsedBoard, bool, error) {
	out := &parsedBoard{}
	replaced := false
	gone := map[string]bool{} // the replaced project's cards
	for _, c := range cur.cards {
		if c.Project == id {
			gone[c.ID] = true
		}
	}
	for _, p := range cur.projects {
		if p.ID == id {
			replaced = true
			p = nb.projects[0]
		}
		out.projects = append(out.projects, p)
	}
	if !replaced {
		out.projects = append(out.projects, nb.projects[0])
	}
	owner := map[string]string{}
	for _, c := range cur.cards {
		if !gone[c.ID] {
			owner[c.ID] = c.Project
			out.cards = append(out.cards, c)
		}
	}
	for _, c := range nb.cards {
		if p, ok := owner[c.ID]; ok {
			return nil, false, errs.Invalidf("project import: card id %q of project %q is already a card of project %q (nothing was changed)", c.ID, id, p)
		}
	}
	out.cards = append(out.cards, nb.cards...)
	var err error
	keep := func(card string) bool { return !gone[card] }
	if out.events, err = mergeList("event", cur.events, nb.events, func(e Event) (string, string) { return e.ID, e.Card }, keep); err != nil {
		return nil, false, err
	}
	if out.workpads, err = mergeList("workpad item", cur.workpads, nb.workpads, func(w Workpad) (string, string) { return w.ID, w.Card }, keep); err != nil {
		return nil, false, err
	}
	if out.ideas, err = mergeList("idea", cur.ideas, nb.ideas, func(d Idea) (string, string) { return d.ID, d.Card }, keep); err != nil {
		return nil, false, err
	}
	if out.artifacts, err = mergeList("artifact", cur.artifacts, nb.artifacts, func(a Artifact) (string, string) { return a.ID, a.Card }, keep); err != nil {
		return nil, false, err
	}

	summaries := map[string]json.RawMessage{}
	for card, v := range cur.summaries {
		if !gone[card] {
			summaries[card] = v
		}
	}
	var newSummaries map[string]json.RawMessage
	if err := json.Unmarshal(nb.summaries, &newSummaries); err != nil {
		return nil, false, fmt.Errorf("project import: summaries: %w", err)
	}
	for card, v := range newSummaries {
		summaries[card] = v
	}

	var memory []json.RawMessage
	memIDs := map[string]string{}
	for _, raw := range cur.memory {
		var m struct {
			ID      string `json:"id"`
			Project string `json:"project"`
		}
		_ = json.Unmarshal(raw, &m)
		if m.Project == id {
			continue
		}
		memIDs[m.ID] = m.Project
		memory = append(memory, raw)
	}
	var newMemory []json.RawMessage
	if err := json.Unmarshal(nb.memory, &newMemory); err != nil {
		return nil, false, fmt.Errorf("project import: memory: %w", err)
	}
	for _, raw := range newMemory {
		var m struct {
			ID string `json:"id"`
		}
		_ = json.Unmarshal(raw, &m)
		if p, ok := memIDs[m.ID]; ok {
			return nil, false, errs.Invalidf("project import: memory entry id %q of project %q is already an entry of project %q (nothing was changed)", m.ID, id, p)
		}
		memory = append(memory, raw)
	}
	if err := encodeFiles(summaries, memory, out); err != nil {
		return nil, false, fmt.Errorf("project import: %w", err)
	}
	return out, replaced, nil
}

// mergeList keeps the current records whose card is kept and appends the new ones, refusing a new
// id that a kept record already has.
func mergeList[T any](what string, cur, add []T, key func(T) (id, card string), keep func(card string) bool) ([]T, error) {
	var out []T
	ids := map[string]bool{}
	for _, r := range cur {
		id, card := key(r)
		if keep(card) {
			ids[id] = true
			out = append(out, r)
		}
	}
	for _, r := range add {
		id, _ := key(r)
		if ids[id] {
			return nil, errs.Invalidf("project import: %s id %q is already used by another project's card (nothing was changed)", what, id)
		}
		out = append(out, r)
	}
	return out, nil
}

// ImportProjectCheck validates a project board by the rules of an import without writing
// anything; it returns the rendered Appendix B document of the project.
func ImportProjectCheck(ctx context.Context, pb *ProjectBoard) ([]byte, error) {
	data, err := pb.Document()
	if err != nil {
		return nil, err
	}
	_, err = parseDocument(ctx, data, nil) // redaction cannot refuse a record: no rules to compile
	return data, err
}
