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

// Load returns the workspace's board ready to search. It reuses the derived snapshot in .cairn/
// when its stamp matches the files, and otherwise reads the database and JSON files, builds the
// index and saves a new snapshot (a snapshot that cannot be written only costs speed next time).
// An unreadable summaries or memory file is no error: the index remembers it as partial.
// Waiting for the lock ends with ctx.
//
// A board an earlier build wrote, whose texts are not redacted, is first brought up to date
// (redaction.go); when that cannot be done its texts are redacted as they are loaded.
func Load(ctx context.Context, ws *workspace.Workspace) (*Index, error) {
	return underReadLock(ctx, ws, func(stamp Stamp, s *scrubber) (*Index, error) {
		snapPath, pathErr := snapshotPath(ws)
		if pathErr == nil {
			// a snapshot of this format is always of redacted texts (snapshotVersion)
			if ix, err := readSnapshot(snapPath, stamp); err == nil {
				return ix, nil
			}
		}
		ix, err := loadFresh(ctx, ws, stamp, s)
		if err != nil {
			return nil, err
		}
		if pathErr == nil {
			_ = writeSnapshot(snapPath, ix) // derived data: failing to save it must not fail the search
		}
		return ix, nil
	})
}

// LoadFresh builds the index from the files, ignoring and not writing any snapshot; tests and the
// benchmark use it to measure and compare the plain way.
func LoadFresh(ctx context.Context, ws *workspace.Workspace) (*Index, error) {
	return underReadLock(ctx, ws, func(stamp Stamp, s *scrubber) (*Index, error) { return loadFresh(ctx, ws, stamp, s) })
}

// underReadLock is what both loads need first: a board to load, the shared board lock (an import
// holds it exclusively), and the stamp of the files as they are under that lock. A board whose
// texts are not redacted (an earlier build's) is upgraded first, outside the shared lock; fn gets
// a scrubber only when that failed, to redact what it reads.
func underReadLock(ctx context.Context, ws *workspace.Workspace, fn func(Stamp, *scrubber) (*Index, error)) (*Index, error) {
	for tried := false; ; tried = true {
		ix, redacted, err := readLocked(ctx, ws, func(stamp Stamp, redacted bool) (*Index, error) {
			if redacted {
				return fn(stamp, nil)
			}
			if !tried {
				return nil, nil // upgrade first
			}
			return fn(stamp, newScrubber())
		})
		if err != nil || redacted || tried {
			return ix, err
		}
		if err := upgradeOnce(ctx, ws); err != nil {
			return nil, err
		}
	}
}

// readLocked runs fn under the shared board lock with the files' stamp and whether the board's
// texts are redacted.
func readLocked(ctx context.Context, ws *workspace.Workspace, fn func(Stamp, bool) (*Index, error)) (*Index, bool, error) {
	ok, err := dbExists(ws)
	if err != nil {
		return nil, false, err
	}
	if !ok {
		return nil, false, errNoBoard()
	}
	lock, err := ws.LockNamed(ctx, lockName, false)
	if err != nil {
		return nil, false, err
	}
	defer lock.Unlock()
	stamp, redacted, err := stampAndRedaction(ws)
	if err != nil {
		return nil, false, err
	}
	ix, err := fn(stamp, redacted)
	return ix, redacted, err
}

// Stale reports whether the files changed since ix was built (or the snapshot it was mapped from
// was truncated under a search), so a daemon can keep ix until they do. It costs four stat calls
// and no database access: every commit that moves the revision rewrites board.db (or, in WAL
// mode, board.db-wal), so their size, time and identity change with it, as the JSON files' do
// when they are rewritten.
func (ix *Index) Stale(ws *workspace.Workspace) (bool, error) {
	if ix.faulted.Load() {
		return true, nil // its snapshot was truncated under a search: reload
	}
	s, err := fileStamps(ws)
	if err != nil {
		return false, err
	}
	s.Revision = ix.stamp.Revision
	return s != ix.stamp, nil
}

// currentStamp stats the files and reads the revision.
func currentStamp(ws *workspace.Workspace) (Stamp, error) {
	s, _, err := stampAndRedaction(ws)
	return s, err
}

// stampAndRedaction is currentStamp and whether the board's texts are redacted (readRedaction).
func stampAndRedaction(ws *workspace.Workspace) (Stamp, bool, error) {
	s, err := fileStamps(ws)
	if err != nil {
		return s, false, err
	}
	if !s.DB.Exists {
		return s, false, errNoBoard()
	}
	db, err := openDB(ws.Path(DBPath), ws.Wait, true)
	if err != nil {
		return s, false, err
	}
	defer db.Close()
	if s.Revision, err = readRevision(db, DBPath); err != nil {
		return s, false, err
	}
	redacted, err := readRedaction(db)
	return s, redacted, err
}

// loadFresh reads the board's files and builds its index; s, when not nil, redacts the records
// first (an earlier build's board that could not be upgraded). ctx ending interrupts the read of
// the tables and stops it between steps (CANCELLED).
func loadFresh(ctx context.Context, ws *workspace.Workspace, stamp Stamp, s *scrubber) (ix *Index, err error) {
	defer func() {
		if err = errs.IfStopped(ctx, err, "board load"); err != nil {
			ix = nil
		}
	}()
	db, err := openDB(ws.Path(DBPath), ws.Wait, true)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	var l loaded
	if err := readTables(ctx, db, &l); err != nil {
		return nil, err
	}
	if err := readJSON(ws.Path(SummariesPath), &l.summaries); err != nil {
		l.partial.summaries = true
		l.summaries = nil
	}
	if err := readJSON(ws.Path(MemoryPath), &l.memory); err != nil {
		l.partial.memory = true
		l.memory = nil
	}
	if err := s.loaded(ctx, &l); err != nil {
		return nil, err
	}
	if err := errs.Stopped(ctx, "board load"); err != nil {
		return nil, err
	}
	ix = build(&l, stamp)
	return ix, errs.Stopped(ctx, "board load") // built, but for a caller that left meanwhile
}

// readJSON decodes a board JSON file. A missing one is an error too: every import writes both
// files, so one that is gone cannot be read, and the search must say so in partial.
func readJSON(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("decode %s: %w", path, err)
	}
	return nil
}

// eachRow runs query in tx and calls each for every row; any failure is a storage error of
// board.db. Both the search's load and a project import read the tables this way; ctx ending
// interrupts the query.
func eachRow(ctx context.Context, tx *sql.Tx, query string, each func(*sql.Rows) error) error {
	rows, err := tx.QueryContext(ctx, query)
	if err != nil {
		return storageErr(err, "read %s", DBPath)
	}
	defer rows.Close()
	for rows.Next() {
		if err := each(rows); err != nil {
			return storageErr(err, "read %s", DBPath)
		}
	}
	return storageErr(rows.Err(), "read %s", DBPath)
}

// rowsInto appends one T per row of query to dst, each read by scan.
func rowsInto[T any](ctx context.Context, tx *sql.Tx, query string, dst *[]T, scan func(*sql.Rows, *T) error) error {
	return eachRow(ctx, tx, query, func(r *sql.Rows) error { return appendRow(r, dst, scan) })
}

// appendRow reads the current row into a new T with scan and appends it to dst.
func appendRow[T any](r *sql.Rows, dst *[]T, scan func(*sql.Rows, *T) error) error {
	var v T
	err := scan(r, &v)
	*dst = append(*dst, v)
	return err
}

// asRow adapts a row scan to Export's lists, which write each row as soon as it is read.
func asRow[T any](scan func(*sql.Rows, *T) error) func(*sql.Rows) (any, error) {
	return func(r *sql.Rows) (any, error) {
		var v T
		err := scan(r, &v)
		return v, err
	}
}

// inOrder runs steps one after the other and stops at the first error.
func inOrder(steps ...func() error) error {
	for _, s := range steps {
		if err := s(); err != nil {
			return err
		}
	}
	return nil
}

// The scans of the rows of each table, shared by the search's load, a project import, ReadCard
// and Export.

func scanProject(r *sql.Rows, p *Project) error {
	return r.Scan(&p.ID, &p.Title, &p.Archived, &p.Memory)
}

func scanCard(r *sql.Rows, c *Card) error {
	var tags string
	if err := r.Scan(&c.ID, &c.Project, &c.Title, &c.Description, &tags, &c.Type, &c.Status, &c.Archived, &c.UpdatedAt, &c.WorkspaceID); err != nil {
		return err
	}
	if err := json.Unmarshal([]byte(tags), &c.Tags); err != nil {
		return fmt.Errorf("card %s: tags: %w", c.ID, err)
	}
	return nil
}

// scanEvent reads an event whole; the search's load leaves out the actor.
func scanEvent(r *sql.Rows, e *Event) error {
	return r.Scan(&e.ID, &e.Card, &e.Type, &e.Note, &e.Actor, &e.At)
}

func scanWorkpad(r *sql.Rows, w *Workpad) error {
	return r.Scan(&w.ID, &w.Card, &w.Kind, &w.Description, &w.Command, &w.Evidence, &w.At)
}

func scanIdea(r *sql.Rows, d *Idea) error {
	return r.Scan(&d.ID, &d.Card, &d.Title, &d.Detail, &d.Rationale, &d.Context, &d.Status, &d.At)
}

func scanArtifact(r *sql.Rows, a *Artifact) error {
	return r.Scan(&a.ID, &a.Card, &a.Title, &a.Note, &a.Target, &a.ExternalKey, &a.At)
}

// readTables reads what the search uses: every row but the events that carry no searchable note.
func readTables(ctx context.Context, db *sql.DB, l *loaded) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return storageErr(err, "read %s", DBPath)
	}
	defer tx.Rollback()
	return inOrder(
		func() error {
			return rowsInto(ctx, tx, `SELECT id, title, archived, memory FROM projects`, &l.projects, scanProject)
		},
		func() error {
			return rowsInto(ctx, tx, `SELECT id, project, title, description, tags, type, status, archived, updated_at, workspace_id FROM tasks`, &l.cards, scanCard)
		},
		func() error {
			return rowsInto(ctx, tx, `SELECT id, card, type, note, at FROM events WHERE type IN ('status_changed', 'progress_reported') AND trim(note) <> ''`, &l.events, func(r *sql.Rows, e *Event) error {
				return r.Scan(&e.ID, &e.Card, &e.Type, &e.Note, &e.At)
			})
		},
		func() error {
			return rowsInto(ctx, tx, `SELECT id, card, kind, description, command, evidence, at FROM workpads`, &l.workpads, scanWorkpad)
		},
		func() error {
			return rowsInto(ctx, tx, `SELECT id, card, title, detail, rationale, context, status, at FROM ideas`, &l.ideas, scanIdea)
		},
		func() error {
			return rowsInto(ctx, tx, `SELECT id, card, title, note, target, external_key, at FROM artifacts`, &l.artifacts, scanArtifact)
		},
	)
}
