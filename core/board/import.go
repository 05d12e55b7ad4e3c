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
	BoardCounts
	// DocumentRevision is the revision the document gave; Revision is past it when the board
	// already had that revision or a later one, so every import is a new revision.
	DocumentRevision int64 `json:"-"`
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
	summaries []byte // board/summaries.json: the document's, redacted, one line
	memory    []byte // board/memory.json: the document's, redacted, one line
	nSummary  int
	nMemory   int
}

// Import replaces the workspace's board with the board document (docs/formats.md) read from r. The whole
// document is validated first (a bad record is named and nothing is written). The new board is
// written whole into a staging directory beside board/ and published by one atomic exchange of
// the two directories (publish.go), all under the exclusive board lock: a reader, or a process
// that finds the workspace after this one was killed at any point, sees the old board or the new
// one, never the database of one import with the JSON files of another. ctx ending before the
// exchange stops the import with CANCELLED and leaves the board as it was.
func Import(ctx context.Context, ws *workspace.Workspace, r io.Reader) (*ImportResult, error) {
	data, err := io.ReadAll(io.LimitReader(workspace.ContextReader(ctx, r), maxImportBytes+1))
	if err := errs.Stopped(ctx, "board import"); err != nil {
		return nil, err
	}
	if err != nil {
		return nil, errs.Wrap(errs.Invalid, err, "read board document")
	}
	if len(data) > maxImportBytes {
		return nil, errs.Invalidf("board document is larger than %d bytes", maxImportBytes)
	}
	b, err := parseDocument(ctx, data, newScrubber())
	if err != nil {
		return nil, err
	}
	unlock, err := lockForWrite(ctx, ws)
	if err != nil {
		return nil, err
	}
	defer unlock()
	rev, err := replaceBoard(ctx, ws, b, b.revision)
	if err != nil {
		return nil, err
	}
	return &ImportResult{DocumentRevision: b.revision, BoardCounts: BoardCounts{
		Revision: rev, Projects: len(b.projects), Cards: len(b.cards), Events: len(b.events),
		Workpads: len(b.workpads), Ideas: len(b.ideas), Artifacts: len(b.artifacts),
		Summaries: b.nSummary, Memory: b.nMemory,
	}}, nil
}

// replaceBoard writes b as the next generation of the board, at the revision nextRevision gives
// for rev, and publishes it in one directory exchange; callers hold the exclusive board lock.
// Until the exchange, ctx ending removes the staging directory and leaves the board untouched;
// after it the import is done and is reported as such.
func replaceBoard(ctx context.Context, ws *workspace.Workspace, b *parsedBoard, rev int64) (int64, error) {
	staging := ws.Path(stagingName)
	if err := discardStaging(ws); err != nil {
		return 0, err
	}
	step("staging-cleared")
	rev = nextRevision(ws, rev)
	if err := writeGeneration(ctx, ws, staging, b, rev); err != nil {
		os.RemoveAll(staging)
		return 0, errs.IfStopped(ctx, err, "board import")
	}
	if err := errs.Stopped(ctx, "board import"); err != nil {
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

// parseDocument decodes and checks the whole board document, then redacts its texts with s
// (redaction.go; nil leaves them as given); nothing is written. It stops with CANCELLED between
// records once ctx ends.
func parseDocument(ctx context.Context, data []byte, s *scrubber) (*parsedBoard, error) {
	var doc Document
	if err := untilDone(ctx, "board import", func() error { return strictjson.Decode(data, &doc) }); errs.CodeOf(err) == errs.Cancelled {
		return nil, err
	} else if errors.Is(err, strictjson.ErrTrailing) {
		return nil, errs.Invalidf("board document: trailing data after the JSON object (the format: %s)", formats.Doc)
	} else if err != nil {
		return nil, errs.Invalidf("board document is not the JSON object described in %s: %s", formats.Doc, formats.MessageIn(err, formats.Fields(doc, nil), data))
	}
	if doc.Revision < 0 {
		return nil, errs.Invalidf("board document: revision %d must be 0 or more (the format: %s)", doc.Revision, formats.Doc)
	}
	b := &parsedBoard{revision: doc.Revision}
	var err error
	projects := map[string]bool{}
	// A project's memory is searched unless it says "memory": false; leaving the key out does
	// not turn a switch off.
	newProject := func() Project { return Project{Memory: true} }
	if b.projects, err = decodeList(ctx, "projects", doc.Projects, nil, newProject, func(p *Project) (string, error) {
		switch {
		case p.ID == "":
			return "", errors.New("id is missing")
		case projects[p.ID]:
			return p.ID, errors.New("duplicate id")
		case strings.TrimSpace(p.Title) == "":
			return p.ID, errors.New("title is missing")
		}
		if err := checkText(p.ID, p.Title); err != nil {
			return p.ID, err
		}
		projects[p.ID] = true
		return p.ID, nil
	}); err != nil {
		return nil, err
	}
	cards := map[string]bool{}
	if b.cards, err = decodeList(ctx, "cards", doc.Cards, cardAliases, zero[Card], func(c *Card) (string, error) {
		switch {
		case c.ID == "":
			return "", errors.New("id is missing")
		case cards[c.ID]:
			return c.ID, errors.New("duplicate id")
		case !projects[c.Project]:
			return c.ID, fmt.Errorf("project %q is not in projects", c.Project)
		case strings.TrimSpace(c.Title) == "":
			return c.ID, errors.New("title is missing")
		case strings.TrimSpace(c.Status) == "":
			return c.ID, errors.New("status (the lane name) is missing")
		}
		if err := checkTime(c.UpdatedAt, false); err != nil {
			return c.ID, fmt.Errorf("updated_at %v", err)
		}
		if err := checkText(append([]string{c.ID, c.Title, c.Description, c.Type, c.Status, c.WorkspaceID}, c.Tags...)...); err != nil {
			return c.ID, err
		}
		for _, t := range c.Tags {
			if strings.TrimSpace(t) == "" {
				return c.ID, errors.New("a tag is empty")
			}
		}
		cards[c.ID] = true
		return c.ID, nil
	}); err != nil {
		return nil, err
	}
	if b.events, err = decodeList(ctx, "events", doc.Events, nil, zero[Event], cardRecord(cards, func(e *Event) (string, string, error) {
		if e.Type == "" {
			return e.ID, e.Card, errors.New("type is missing")
		}
		if err := checkTime(e.At, false); err != nil {
			return e.ID, e.Card, fmt.Errorf("at %v", err)
		}
		return e.ID, e.Card, checkText(e.ID, e.Type, e.Note, e.Actor)
	})); err != nil {
		return nil, err
	}
	if b.workpads, err = decodeList(ctx, "workpads", doc.Workpads, nil, zero[Workpad], cardRecord(cards, func(w *Workpad) (string, string, error) {
		if !oneOf(w.Kind, "acceptance", "check", "question") {
			return w.ID, w.Card, fmt.Errorf("kind %q is not one of acceptance, check, question", w.Kind)
		}
		if w.Kind != "check" && (w.Command != "" || w.Evidence != "") {
			return w.ID, w.Card, errors.New("only a check has command and evidence")
		}
		if err := checkTime(w.At, true); err != nil {
			return w.ID, w.Card, fmt.Errorf("at %v", err)
		}
		return w.ID, w.Card, checkText(w.ID, w.Description, w.Command, w.Evidence)
	})); err != nil {
		return nil, err
	}
	if b.ideas, err = decodeList(ctx, "ideas", doc.Ideas, nil, zero[Idea], cardRecord(cards, func(d *Idea) (string, string, error) {
		if !oneOf(d.Status, "open", "accepted", "dismissed") {
			return d.ID, d.Card, fmt.Errorf("status %q is not one of open, accepted, dismissed", d.Status)
		}
		if err := checkTime(d.At, true); err != nil {
			return d.ID, d.Card, fmt.Errorf("at %v", err)
		}
		return d.ID, d.Card, checkText(d.ID, d.Title, d.Detail, d.Rationale, d.Context)
	})); err != nil {
		return nil, err
	}
	if b.artifacts, err = decodeList(ctx, "artifacts", doc.Artifacts, nil, zero[Artifact], cardRecord(cards, func(a *Artifact) (string, string, error) {
		if err := checkTime(a.At, true); err != nil {
			return a.ID, a.Card, fmt.Errorf("at %v", err)
		}
		return a.ID, a.Card, checkText(a.ID, a.Title, a.Note, a.Target, a.ExternalKey)
	})); err != nil {
		return nil, err
	}
	if b.summaries, b.nSummary, err = validateSummaries(ctx, doc.Summaries, cards, s); err != nil {
		return nil, err
	}
	if b.memory, b.nMemory, err = validateMemory(ctx, doc.Memory, projects, s); err != nil {
		return nil, err
	}
	// Checked as given (an empty title is refused before redaction could hide it), stored redacted.
	if err := s.tables(ctx, b.projects, b.cards, b.events, b.workpads, b.ideas, b.artifacts); err != nil {
		return nil, err
	}
	return b, nil
}

// untilDone runs fn, one call that cannot look at ctx (the decoding of the whole document into
// its lists, over a second for 20 MB), and returns CANCELLED as soon as ctx ends: fn writes
// nothing but what it was given, so it is left to finish on its own and its result is dropped.
func untilDone(ctx context.Context, what string, fn func() error) error {
	if ctx.Done() == nil {
		return fn()
	}
	if err := errs.Stopped(ctx, what); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- fn() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return errs.Stopped(ctx, what)
	}
}

// zero is a record's starting value when it has no defaults.
func zero[T any]() T {
	var v T
	return v
}

// decodeList decodes each record of one list of the document strictly (aliases renamed first),
// starting from fresh(), and checks it with check, which returns the record's id (for the
// message) and what is wrong with it. The error names the list, the index and the id; the
// list stops with CANCELLED between records once ctx ends.
func decodeList[T any](ctx context.Context, list string, raws []json.RawMessage, aliases []formats.Alias, fresh func() T, check func(*T) (string, error)) ([]T, error) {
	var out []T
	for i, raw := range raws {
		if err := errs.Stopped(ctx, "board import"); err != nil {
			return nil, err
		}
		v := fresh()
		if err := decodeRecord(raw, &v, aliases); err != nil {
			return nil, recordErr(list, i, "", "%v", err)
		}
		if id, err := check(&v); err != nil {
			return nil, recordErr(list, i, id, "%v", err)
		}
		out = append(out, v)
	}
	return out, nil
}

// cardRecord is the check of a record that belongs to a card (events, workpads, ideas,
// artifacts): its id is present and unique in its list and its card is in cards, then check
// (which returns the record's id and card) judges the rest.
func cardRecord[T any](cards map[string]bool, check func(*T) (id, card string, err error)) func(*T) (string, error) {
	ids := map[string]bool{}
	return func(v *T) (string, error) {
		id, card, problem := check(v)
		switch {
		case id == "":
			return "", errors.New("id is missing")
		case ids[id]:
			return id, errors.New("duplicate id")
		case !cards[card]:
			return id, fmt.Errorf("card %q is not in cards", card)
		}
		if problem != nil {
			return id, problem
		}
		ids[id] = true
		return id, nil
	}
}

// isNull reports an absent or null JSON member.
func isNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || bytes.Equal(t, []byte("null"))
}

// validateSummaries checks the document's summaries and returns board/summaries.json: every
// version decoded strictly, redacted by s and encoded again, so the file holds exactly what the
// readers decode (nothing a second spelling of a key could hide from them).
func validateSummaries(ctx context.Context, raw json.RawMessage, cards map[string]bool, s *scrubber) ([]byte, int, error) {
	if isNull(raw) {
		return []byte("{}\n"), 0, nil
	}
	var m map[string][]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, 0, docErr("summaries must map card ids to lists of versions: %s", formats.Message(err, nil))
	}
	// every version in one slab, each card's a slice of it, so they are redacted in parallel
	n := 0
	for _, versions := range m {
		n += len(versions)
	}
	all := make([]Summary, n)
	slab := all
	out := make(map[string][]Summary, len(m))
	for card, versions := range m {
		if !cards[card] {
			return nil, 0, docErr("summaries[%q]: card %q is not in cards", card, card)
		}
		list := slab[:len(versions):len(versions)]
		slab = slab[len(versions):]
		for i, v := range versions {
			sv := &list[i]
			if err := decodeRecord(v, sv, nil); err != nil {
				return nil, 0, docErr("summaries[%q][%d]: %v", card, i, err)
			}
			if err := checkTime(sv.At, false); err != nil {
				return nil, 0, docErr("summaries[%q][%d]: at %v", card, i, err)
			}
			if err := checkText(sv.State, sv.Target, sv.Recap, sv.Next); err != nil {
				return nil, 0, docErr("summaries[%q][%d]: %v", card, i, err)
			}
		}
		out[card] = list
	}
	if s != nil {
		if err := eachInParallel(ctx, all, s.summary); err != nil {
			return nil, 0, err
		}
	}
	data, err := encodeJSON(out)
	if err != nil {
		return nil, 0, fmt.Errorf("encode summaries: %w", err)
	}
	return data, len(m), nil
}

// validateMemory checks the document's memory entries and returns board/memory.json: every entry
// decoded strictly (its aliases renamed), redacted by s and encoded again with the field names.
func validateMemory(ctx context.Context, raw json.RawMessage, projects map[string]bool, s *scrubber) ([]byte, int, error) {
	if isNull(raw) {
		return []byte("[]\n"), 0, nil
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, 0, docErr("memory must be a list of entries: %s", formats.Message(err, nil))
	}
	ids := map[string]bool{}
	out := make([]MemoryEntry, len(list))
	for i, r := range list {
		m := &out[i]
		if err := decodeRecord(r, m, memoryAliases); err != nil {
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
	if s != nil {
		if err := eachInParallel(ctx, out, s.memory); err != nil {
			return nil, 0, err
		}
	}
	data, err := encodeJSON(out)
	if err != nil {
		return nil, 0, fmt.Errorf("encode memory: %w", err)
	}
	return data, len(list), nil
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
func writeGeneration(ctx context.Context, ws *workspace.Workspace, dir string, b *parsedBoard, rev int64) error {
	if err := os.Mkdir(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", stagingName, err)
	}
	dbPath := filepath.Join(dir, filepath.Base(DBPath))
	if err := writeDB(ctx, ws, dbPath, b, rev); err != nil {
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

// writeDB creates the board database at path in one transaction and syncs it to disk; ctx
// ending stops it between rows (the caller removes the unfinished file).
func writeDB(ctx context.Context, ws *workspace.Workspace, path string, b *parsedBoard, rev int64) error {
	db, err := openDB(path, ws.Wait, false)
	if err != nil {
		return err
	}
	defer db.Close()
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
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return storageErr(err, "create schema in %s", DBPath)
		}
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA user_version = %d`, schemaVersion)); err != nil {
		return storageErr(err, "set schema version")
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES ('revision', ?)`, fmt.Sprint(rev)); err != nil {
		return storageErr(err, "write revision")
	}
	// every board written here has its texts redacted (parseDocument, or the upgrade of an earlier
	// build's board)
	if _, err := tx.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES ('redaction', ?)`, fmt.Sprint(redactionVersion)); err != nil {
		return storageErr(err, "write redaction")
	}
	insert := func(name, query string, n int, args func(i int) []any) error {
		st, err := tx.PrepareContext(ctx, query)
		if err != nil {
			return storageErr(err, "prepare import")
		}
		defer st.Close()
		for i := 0; i < n; i++ {
			if err := errs.Stopped(ctx, "board import"); err != nil {
				return err
			}
			if _, err := st.ExecContext(ctx, args(i)...); err != nil {
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
