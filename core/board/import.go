package board

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/formats"
	"github.com/cairn-dev/cairn/core/strictjson"
	"github.com/cairn-dev/cairn/core/workspace"
)

// ImportResult says what an import wrote, for the command's output.
type ImportResult struct {
	Revision int64 `json:"revision"`
	// DocumentRevision is the revision the document gave; Revision is past it when the board
	// already had that revision or a later one, so every import is a new revision.
	DocumentRevision int64 `json:"-"`
	Projects         int   `json:"projects"`
	Cards            int   `json:"cards"`
	Events           int   `json:"events"`
	Workpads         int   `json:"workpads"`
	Ideas            int   `json:"ideas"`
	Artifacts        int   `json:"artifacts"`
	Summaries        int   `json:"summaries"`
	Memory           int   `json:"memory"`
}

// maxImportBytes bounds an import document so a wrong file cannot exhaust memory.
const maxImportBytes = 1 << 30

// parsedBoard is a validated import document, ready to write.
type parsedBoard struct {
	revision  int64
	projects  []Project
	cards     []Card
	events    []Event
	workpads  []Workpad
	ideas     []Idea
	artifacts []Artifact
	summaries []byte // board/summaries.json as given
	memory    []byte // board/memory.json as given
	nSummary  int
	nMemory   int
}

// Import replaces the workspace's board with the board document (docs/formats.md) read from r. The whole
// document is validated first (a bad record is named and nothing is written). The new board is
// written whole into a staging directory beside board/ and published by one atomic exchange of
// the two directories (publish.go), all under the exclusive board lock: a reader, or a process
// that finds the workspace after this one was killed at any point, sees the old board or the new
// one, never the database of one import with the JSON files of another.
func Import(ws *workspace.Workspace, r io.Reader) (*ImportResult, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxImportBytes+1))
	if err != nil {
		return nil, errs.Wrap(errs.Invalid, err, "read board document")
	}
	if len(data) > maxImportBytes {
		return nil, errs.Invalidf("board document is larger than %d bytes", maxImportBytes)
	}
	b, err := parseDocument(data)
	if err != nil {
		return nil, err
	}
	lock, err := ws.LockNamed(lockName, true)
	if err != nil {
		return nil, err
	}
	defer lock.Unlock()
	step("locked")
	if err := ws.CheckStore(DBPath, SummariesPath, MemoryPath); err != nil {
		return nil, err
	}
	if err := checkBoardDir(ws); err != nil {
		return nil, err
	}
	rev, err := replaceBoard(ws, b, b.revision)
	if err != nil {
		return nil, err
	}
	return &ImportResult{
		Revision: rev, DocumentRevision: b.revision, Projects: len(b.projects), Cards: len(b.cards), Events: len(b.events),
		Workpads: len(b.workpads), Ideas: len(b.ideas), Artifacts: len(b.artifacts),
		Summaries: b.nSummary, Memory: b.nMemory,
	}, nil
}

// replaceBoard writes b as the next generation of the board, at the revision nextRevision gives
// for rev, and publishes it in one directory exchange; callers hold the exclusive board lock.
func replaceBoard(ws *workspace.Workspace, b *parsedBoard, rev int64) (int64, error) {
	staging := ws.Path(stagingName)
	if err := discardStaging(ws); err != nil {
		return 0, err
	}
	step("staging-cleared")
	rev = nextRevision(ws, rev)
	if err := writeGeneration(ws, staging, b, rev); err != nil {
		os.RemoveAll(staging)
		return 0, err
	}
	if err := publish(ws); err != nil {
		os.RemoveAll(staging)
		return 0, err
	}
	// The old board is now in the staging directory; losing it (a kill here) costs nothing, the
	// next import removes it first.
	_ = discardStaging(ws)
	step("old-removed")
	saveSnapshotAfterImport(ws, b)
	step("snapshot-saved")
	return rev, nil
}

// recordErr names a bad record: its list, index and id when it has one.
func recordErr(list string, i int, id string, format string, args ...any) error {
	where := fmt.Sprintf("%s[%d]", list, i)
	if id != "" {
		where += fmt.Sprintf(" (id %q)", id)
	}
	return errs.Invalidf("board document: %s: %s (the format: %s)", where, fmt.Sprintf(format, args...), formats.Doc)
}

// docErr is an error about the document as a whole, or a part that is not a list of records.
func docErr(format string, args ...any) error {
	return errs.Invalidf("board document: %s (the format: %s)", fmt.Sprintf(format, args...), formats.Doc)
}

// The output spellings of fields (what search answers print) accepted as their aliases.
var (
	cardAliases = []formats.Alias{
		{Field: "id", Alias: "taskId"}, {Field: "project", Alias: "projectId"},
		{Field: "updated_at", Alias: "updatedAt"}, {Field: "workspace_id", Alias: "workspaceId"},
	}
	memoryAliases = []formats.Alias{{Field: "project", Alias: "projectId"}}
)

// decodeRecord decodes one record strictly, its aliases renamed first; the error names the
// field, what was given and what is valid.
func decodeRecord(raw []byte, v any, aliases []formats.Alias) error {
	data, err := formats.Rename(raw, aliases)
	if err != nil {
		return err
	}
	if err := strictjson.Decode(data, v); err != nil {
		return errors.New(formats.Message(err, formats.Fields(v, aliases)))
	}
	return nil
}

// checkTime validates an RFC 3339 time; empty is allowed only when optional.
func checkTime(s string, optional bool) error {
	if s == "" {
		if optional {
			return nil
		}
		return fmt.Errorf("is missing (an RFC 3339 time such as 2026-10-20T08:00:00Z)")
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return fmt.Errorf("%q is not an RFC 3339 time such as 2026-10-20T08:00:00Z", s)
	}
	if t.Year() < 1900 || t.Year() > 2200 {
		return fmt.Errorf("%q is outside the years 1900..2200", s)
	}
	return nil
}

// checkText refuses invalid UTF-8, which SQLite and JSON would silently mangle.
func checkText(vals ...string) error {
	for _, v := range vals {
		if !utf8.ValidString(v) {
			return fmt.Errorf("text is not valid UTF-8")
		}
	}
	return nil
}

func parseDocument(data []byte) (*parsedBoard, error) {
	var doc Document
	if err := strictjson.Decode(data, &doc); errors.Is(err, strictjson.ErrTrailing) {
		return nil, errs.Invalidf("board document: trailing data after the JSON object (the format: %s)", formats.Doc)
	} else if err != nil {
		return nil, errs.Invalidf("board document is not the JSON object described in %s: %s", formats.Doc, formats.Message(err, formats.Fields(doc, nil)))
	}
	if doc.Revision < 0 {
		return nil, errs.Invalidf("board document: revision %d must be 0 or more (the format: %s)", doc.Revision, formats.Doc)
	}
	b := &parsedBoard{revision: doc.Revision}
	projects := map[string]bool{}
	for i, raw := range doc.Projects {
		// A project's memory is searched unless it says "memory": false; leaving the key out
		// does not turn a switch off.
		p := Project{Memory: true}
		if err := decodeRecord(raw, &p, nil); err != nil {
			return nil, recordErr("projects", i, "", "%v", err)
		}
		switch {
		case p.ID == "":
			return nil, recordErr("projects", i, "", "id is missing")
		case projects[p.ID]:
			return nil, recordErr("projects", i, p.ID, "duplicate id")
		case strings.TrimSpace(p.Title) == "":
			return nil, recordErr("projects", i, p.ID, "title is missing")
		}
		if err := checkText(p.ID, p.Title); err != nil {
			return nil, recordErr("projects", i, p.ID, "%v", err)
		}
		projects[p.ID] = true
		b.projects = append(b.projects, p)
	}
	cards := map[string]bool{}
	for i, raw := range doc.Cards {
		var c Card
		if err := decodeRecord(raw, &c, cardAliases); err != nil {
			return nil, recordErr("cards", i, "", "%v", err)
		}
		switch {
		case c.ID == "":
			return nil, recordErr("cards", i, "", "id is missing")
		case cards[c.ID]:
			return nil, recordErr("cards", i, c.ID, "duplicate id")
		case !projects[c.Project]:
			return nil, recordErr("cards", i, c.ID, "project %q is not in projects", c.Project)
		case strings.TrimSpace(c.Title) == "":
			return nil, recordErr("cards", i, c.ID, "title is missing")
		case strings.TrimSpace(c.Status) == "":
			return nil, recordErr("cards", i, c.ID, "status (the lane name) is missing")
		}
		if err := checkTime(c.UpdatedAt, false); err != nil {
			return nil, recordErr("cards", i, c.ID, "updated_at %v", err)
		}
		if err := checkText(append([]string{c.ID, c.Title, c.Description, c.Type, c.Status, c.WorkspaceID}, c.Tags...)...); err != nil {
			return nil, recordErr("cards", i, c.ID, "%v", err)
		}
		for _, t := range c.Tags {
			if strings.TrimSpace(t) == "" {
				return nil, recordErr("cards", i, c.ID, "a tag is empty")
			}
		}
		cards[c.ID] = true
		b.cards = append(b.cards, c)
	}
	ids := map[string]bool{}
	ref := func(list string, i int, id, card string) error {
		switch {
		case id == "":
			return recordErr(list, i, "", "id is missing")
		case ids[id]:
			return recordErr(list, i, id, "duplicate id")
		case !cards[card]:
			return recordErr(list, i, id, "card %q is not in cards", card)
		}
		ids[id] = true
		return nil
	}
	for i, raw := range doc.Events {
		var e Event
		if err := decodeRecord(raw, &e, nil); err != nil {
			return nil, recordErr("events", i, "", "%v", err)
		}
		if err := ref("events", i, e.ID, e.Card); err != nil {
			return nil, err
		}
		if e.Type == "" {
			return nil, recordErr("events", i, e.ID, "type is missing")
		}
		if err := checkTime(e.At, false); err != nil {
			return nil, recordErr("events", i, e.ID, "at %v", err)
		}
		if err := checkText(e.ID, e.Type, e.Note, e.Actor); err != nil {
			return nil, recordErr("events", i, e.ID, "%v", err)
		}
		b.events = append(b.events, e)
	}
	clear(ids)
	for i, raw := range doc.Workpads {
		var w Workpad
		if err := decodeRecord(raw, &w, nil); err != nil {
			return nil, recordErr("workpads", i, "", "%v", err)
		}
		if err := ref("workpads", i, w.ID, w.Card); err != nil {
			return nil, err
		}
		if !oneOf(w.Kind, "acceptance", "check", "question") {
			return nil, recordErr("workpads", i, w.ID, "kind %q is not one of acceptance, check, question", w.Kind)
		}
		if w.Kind != "check" && (w.Command != "" || w.Evidence != "") {
			return nil, recordErr("workpads", i, w.ID, "only a check has command and evidence")
		}
		if err := checkTime(w.At, true); err != nil {
			return nil, recordErr("workpads", i, w.ID, "at %v", err)
		}
		if err := checkText(w.ID, w.Description, w.Command, w.Evidence); err != nil {
			return nil, recordErr("workpads", i, w.ID, "%v", err)
		}
		b.workpads = append(b.workpads, w)
	}
	clear(ids)
	for i, raw := range doc.Ideas {
		var d Idea
		if err := decodeRecord(raw, &d, nil); err != nil {
			return nil, recordErr("ideas", i, "", "%v", err)
		}
		if err := ref("ideas", i, d.ID, d.Card); err != nil {
			return nil, err
		}
		if !oneOf(d.Status, "open", "accepted", "dismissed") {
			return nil, recordErr("ideas", i, d.ID, "status %q is not one of open, accepted, dismissed", d.Status)
		}
		if err := checkTime(d.At, true); err != nil {
			return nil, recordErr("ideas", i, d.ID, "at %v", err)
		}
		if err := checkText(d.ID, d.Title, d.Detail, d.Rationale, d.Context); err != nil {
			return nil, recordErr("ideas", i, d.ID, "%v", err)
		}
		b.ideas = append(b.ideas, d)
	}
	clear(ids)
	for i, raw := range doc.Artifacts {
		var a Artifact
		if err := decodeRecord(raw, &a, nil); err != nil {
			return nil, recordErr("artifacts", i, "", "%v", err)
		}
		if err := ref("artifacts", i, a.ID, a.Card); err != nil {
			return nil, err
		}
		if err := checkTime(a.At, true); err != nil {
			return nil, recordErr("artifacts", i, a.ID, "at %v", err)
		}
		if err := checkText(a.ID, a.Title, a.Note, a.Target, a.ExternalKey); err != nil {
			return nil, recordErr("artifacts", i, a.ID, "%v", err)
		}
		b.artifacts = append(b.artifacts, a)
	}
	var err error
	if b.summaries, b.nSummary, err = validateSummaries(doc.Summaries, cards); err != nil {
		return nil, err
	}
	if b.memory, b.nMemory, err = validateMemory(doc.Memory, projects); err != nil {
		return nil, err
	}
	return b, nil
}

// isNull reports an absent or null JSON member.
func isNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || bytes.Equal(t, []byte("null"))
}

func validateSummaries(raw json.RawMessage, cards map[string]bool) ([]byte, int, error) {
	if isNull(raw) {
		return []byte("{}\n"), 0, nil
	}
	var m map[string][]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, 0, docErr("summaries must map card ids to lists of versions: %s", formats.Message(err, nil))
	}
	for card, versions := range m {
		if !cards[card] {
			return nil, 0, docErr("summaries[%q]: card %q is not in cards", card, card)
		}
		for i, v := range versions {
			var s Summary
			if err := decodeRecord(v, &s, nil); err != nil {
				return nil, 0, docErr("summaries[%q][%d]: %v", card, i, err)
			}
			if err := checkTime(s.At, false); err != nil {
				return nil, 0, docErr("summaries[%q][%d]: at %v", card, i, err)
			}
			if err := checkText(s.State, s.Target, s.Recap, s.Next); err != nil {
				return nil, 0, docErr("summaries[%q][%d]: %v", card, i, err)
			}
		}
	}
	return withNewline(raw), len(m), nil
}

func validateMemory(raw json.RawMessage, projects map[string]bool) ([]byte, int, error) {
	if isNull(raw) {
		return []byte("[]\n"), 0, nil
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, 0, docErr("memory must be a list of entries: %s", formats.Message(err, nil))
	}
	ids := map[string]bool{}
	renamed := false
	for i, r := range list {
		var m MemoryEntry
		// board/memory.json is written with the field names, never the aliases.
		if named, err := formats.Rename(r, memoryAliases); err == nil && !bytes.Equal(named, r) {
			list[i], renamed = named, true
		}
		if err := decodeRecord(r, &m, memoryAliases); err != nil {
			return nil, 0, recordErr("memory", i, "", "%v", err)
		}
		switch {
		case m.ID == "":
			return nil, 0, recordErr("memory", i, "", "id is missing")
		case ids[m.ID]:
			return nil, 0, recordErr("memory", i, m.ID, "duplicate id")
		case !projects[m.Project]:
			return nil, 0, recordErr("memory", i, m.ID, "project %q is not in projects", m.Project)
		case !oneOf(m.Status, "active", "candidate", "rejected", "archived"):
			return nil, 0, recordErr("memory", i, m.ID, "status %q is not one of active, candidate, rejected, archived", m.Status)
		}
		if err := checkTime(m.ConfirmedAt, true); err != nil {
			return nil, 0, recordErr("memory", i, m.ID, "confirmed_at %v", err)
		}
		if err := checkText(append(append([]string{m.ID, m.Kind, m.Title, m.Body}, m.Keywords...), m.Tags...)...); err != nil {
			return nil, 0, recordErr("memory", i, m.ID, "%v", err)
		}
		ids[m.ID] = true
	}
	if renamed {
		out, err := json.Marshal(list)
		if err != nil {
			return nil, 0, fmt.Errorf("encode memory: %w", err)
		}
		return append(out, '\n'), len(list), nil
	}
	return withNewline(raw), len(list), nil
}

func withNewline(raw json.RawMessage) []byte {
	out := append([]byte(nil), bytes.TrimSpace(raw)...)
	return append(out, '\n')
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// nextRevision is the revision the import stores: the document's, moved past the current
// board's so caches keyed by it notice a re-import. A board.db that cannot be read (damaged)
// has no revision to move past; the import replaces it all the same.
func nextRevision(ws *workspace.Workspace, rev int64) int64 {
	if ok, err := dbExists(ws); err != nil || !ok {
		return rev
	}
	db, err := openDB(ws.Path(DBPath), ws.Wait, true)
	if err != nil {
		return rev
	}
	defer db.Close()
	if prev, err := readRevision(db, DBPath); err == nil && prev >= rev {
		return prev + 1
	}
	return rev
}

// writeGeneration writes a whole board into dir: a new board.db (one transaction, no journal:
// the file is thrown away unless it is complete) and the two JSON files, each synced to disk.
func writeGeneration(ws *workspace.Workspace, dir string, b *parsedBoard, rev int64) error {
	if err := os.Mkdir(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", stagingName, err)
	}
	dbPath := filepath.Join(dir, filepath.Base(DBPath))
	if err := writeDB(ws, dbPath, b, rev); err != nil {
		return err
	}
	step("db-written")
	if err := workspace.WriteFileAtomic(filepath.Join(dir, filepath.Base(SummariesPath)), b.summaries, 0o644); err != nil {
		return err
	}
	step("summaries-written")
	if err := workspace.WriteFileAtomic(filepath.Join(dir, filepath.Base(MemoryPath)), b.memory, 0o644); err != nil {
		return err
	}
	step("memory-written")
	return nil
}

// writeDB creates the board database at path in one transaction and syncs it to disk.
func writeDB(ws *workspace.Workspace, path string, b *parsedBoard, rev int64) error {
	db, err := openDB(path, ws.Wait, false)
	if err != nil {
		return err
	}
	defer db.Close()
	ctx := context.Background()
	for _, pragma := range []string{`PRAGMA journal_mode = OFF`, `PRAGMA synchronous = OFF`} {
		if _, err := db.ExecContext(ctx, pragma); err != nil {
			return storageErr(err, "create %s", DBPath)
		}
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return storageErr(err, "begin import into %s", DBPath)
	}
	defer tx.Rollback()
	for _, stmt := range schemaSQL() {
		if _, err := tx.Exec(stmt); err != nil {
			return storageErr(err, "create schema in %s", DBPath)
		}
	}
	if _, err := tx.Exec(fmt.Sprintf(`PRAGMA user_version = %d`, schemaVersion)); err != nil {
		return storageErr(err, "set schema version")
	}
	if _, err := tx.Exec(`INSERT INTO meta(key, value) VALUES ('revision', ?)`, fmt.Sprint(rev)); err != nil {
		return storageErr(err, "write revision")
	}
	insert := func(name, query string, n int, args func(i int) []any) error {
		st, err := tx.Prepare(query)
		if err != nil {
			return storageErr(err, "prepare import")
		}
		defer st.Close()
		for i := 0; i < n; i++ {
			if _, err := st.Exec(args(i)...); err != nil {
				return storageErr(err, "import into %s", DBPath)
			}
		}
		step("db-" + name)
		return nil
	}
	steps := []func() error{
		func() error {
			return insert("projects", `INSERT INTO projects VALUES (?,?,?,?)`, len(b.projects), func(i int) []any {
				p := b.projects[i]
				return []any{p.ID, p.Title, boolInt(p.Archived), boolInt(p.Memory)}
			})
		},
		func() error {
			return insert("tasks", `INSERT INTO tasks VALUES (?,?,?,?,?,?,?,?,?,?)`, len(b.cards), func(i int) []any {
				c := b.cards[i]
				tags := c.Tags
				if tags == nil {
					tags = []string{}
				}
				tj, _ := json.Marshal(tags)
				return []any{c.ID, c.Project, c.Title, c.Description, string(tj), c.Type, c.Status, boolInt(c.Archived), c.UpdatedAt, c.WorkspaceID}
			})
		},
		func() error {
			return insert("events", `INSERT INTO events VALUES (?,?,?,?,?,?)`, len(b.events), func(i int) []any {
				e := b.events[i]
				return []any{e.ID, e.Card, e.Type, e.Note, e.Actor, e.At}
			})
		},
		func() error {
			return insert("workpads", `INSERT INTO workpads VALUES (?,?,?,?,?,?,?)`, len(b.workpads), func(i int) []any {
				w := b.workpads[i]
				return []any{w.ID, w.Card, w.Kind, w.Description, w.Command, w.Evidence, w.At}
			})
		},
		func() error {
			return insert("ideas", `INSERT INTO ideas VALUES (?,?,?,?,?,?,?,?)`, len(b.ideas), func(i int) []any {
				d := b.ideas[i]
				return []any{d.ID, d.Card, d.Title, d.Detail, d.Rationale, d.Context, d.Status, d.At}
			})
		},
		func() error {
			return insert("artifacts", `INSERT INTO artifacts VALUES (?,?,?,?,?,?,?)`, len(b.artifacts), func(i int) []any {
				a := b.artifacts[i]
				return []any{a.ID, a.Card, a.Title, a.Note, a.Target, a.ExternalKey, a.At}
			})
		},
	}
	for _, s := range steps {
		if err := s(); err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return storageErr(err, "commit import into %s", DBPath)
	}
	step("db-committed")
	if err := db.Close(); err != nil {
		return storageErr(err, "close %s", DBPath)
	}
	return syncFile(path)
}

// saveSnapshotAfterImport builds the search snapshot from the records just written, still under
// the exclusive lock, so the first search after an import is as fast as every later one. The
// snapshot is derived data: any failure here only leaves the next search to build it.
func saveSnapshotAfterImport(ws *workspace.Workspace, b *parsedBoard) {
	stamp, err := currentStamp(ws)
	if err != nil {
		return
	}
	path, err := snapshotPath(ws)
	if err != nil {
		return
	}
	l := loaded{
		projects: b.projects, cards: b.cards, events: b.events, workpads: b.workpads,
		ideas: b.ideas, artifacts: b.artifacts,
	}
	if json.Unmarshal(b.summaries, &l.summaries) != nil {
		l.partial.summaries = true
	}
	if json.Unmarshal(b.memory, &l.memory) != nil {
		l.partial.memory = true
	}
	_ = writeSnapshot(path, build(&l, stamp))
}
