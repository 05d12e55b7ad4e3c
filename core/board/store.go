package board

import (
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	"modernc.org/sqlite" // also registers the "sqlite" driver
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/workspace"
)

// File locations inside the workspace, relative to the root.
const (
	DBPath        = "board/board.db"
	SummariesPath = "board/summaries.json"
	MemoryPath    = "board/memory.json"
	// lockName is .cairn/board.lock: import holds it exclusively, loading shares it, so a reader
	// never sees the database of one import with the JSON files of another.
	lockName = "board"
)

// schemaVersion is PRAGMA user_version of a board.db this code reads and writes.
const schemaVersion = 1

func schemaSQL() []string {
	return []string{
		`CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
		`CREATE TABLE projects (
		id TEXT PRIMARY KEY, title TEXT NOT NULL,
		archived INTEGER NOT NULL, memory INTEGER NOT NULL)`,
		`CREATE TABLE tasks (
		id TEXT PRIMARY KEY, project TEXT NOT NULL REFERENCES projects(id),
		title TEXT NOT NULL, description TEXT NOT NULL, tags TEXT NOT NULL,
		type TEXT NOT NULL, status TEXT NOT NULL, archived INTEGER NOT NULL,
		updated_at TEXT NOT NULL, workspace_id TEXT NOT NULL)`,
		`CREATE INDEX tasks_project ON tasks(project)`,
		`CREATE TABLE events (
		id TEXT PRIMARY KEY, card TEXT NOT NULL REFERENCES tasks(id),
		type TEXT NOT NULL, note TEXT NOT NULL, actor TEXT NOT NULL, at TEXT NOT NULL)`,
		`CREATE INDEX events_card ON events(card)`,
		`CREATE TABLE workpads (
		id TEXT PRIMARY KEY, card TEXT NOT NULL REFERENCES tasks(id), kind TEXT NOT NULL,
		description TEXT NOT NULL, command TEXT NOT NULL, evidence TEXT NOT NULL, at TEXT NOT NULL)`,
		`CREATE INDEX workpads_card ON workpads(card)`,
		`CREATE TABLE ideas (
		id TEXT PRIMARY KEY, card TEXT NOT NULL REFERENCES tasks(id), title TEXT NOT NULL,
		detail TEXT NOT NULL, rationale TEXT NOT NULL, context TEXT NOT NULL,
		status TEXT NOT NULL, at TEXT NOT NULL)`,
		`CREATE INDEX ideas_card ON ideas(card)`,
		`CREATE TABLE artifacts (
		id TEXT PRIMARY KEY, card TEXT NOT NULL REFERENCES tasks(id), title TEXT NOT NULL,
		note TEXT NOT NULL, target TEXT NOT NULL, external_key TEXT NOT NULL, at TEXT NOT NULL)`,
		`CREATE INDEX artifacts_card ON artifacts(card)`,
	}
}

// openDB opens board.db with a busy timeout of wait; readOnly connections never write.
func openDB(path string, wait time.Duration, readOnly bool) (*sql.DB, error) {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", wait.Milliseconds()))
	q.Add("_pragma", "foreign_keys(1)")
	if readOnly {
		q.Add("_pragma", "query_only(1)")
	}
	db, err := sql.Open("sqlite", workspace.SQLiteURI(path)+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	return db, nil
}

// storageErr classifies a database failure: a busy or locked database is STORAGE_BUSY; a file
// that is not an SQLite database or a damaged one is INVALID_INPUT saying how to replace it (an
// import writes a new board.db and never reads the old one but for its revision).
func storageErr(err error, format string, args ...any) error {
	if err == nil {
		return nil
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT:
			return errs.New(errs.Invalid, "%s: %s is damaged (%v); import the board again with 'cairn board import FILE.json', which replaces it", fmt.Sprintf(format, args...), DBPath, err)
		}
	}
	msg := err.Error()
	if strings.Contains(msg, "SQLITE_BUSY") || strings.Contains(msg, "database is locked") || strings.Contains(msg, "SQLITE_LOCKED") {
		return errs.Wrap(errs.Busy, err, format, args...)
	}
	return fmt.Errorf(format+": %w", append(args, err)...)
}

// errNoBoard is returned when a workspace has no board.db yet.
func errNoBoard() error {
	return errs.NotFoundf("no board in this workspace (%s is missing); import one with 'cairn board import FILE.json'", DBPath)
}

// readRevision reads the schema version and the board revision from an open database.
func readRevision(db *sql.DB, path string) (int64, error) {
	var version int
	if err := db.QueryRow(`PRAGMA user_version`).Scan(&version); err != nil {
		return 0, storageErr(err, "read %s", path)
	}
	if version != schemaVersion {
		return 0, errs.Invalidf("%s has schema version %d; this cairn reads version %d (re-import the board)", path, version, schemaVersion)
	}
	var rev int64
	err := db.QueryRow(`SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'revision'`).Scan(&rev)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, storageErr(err, "read revision from %s", path)
	}
	return rev, nil
}

// dbExists reports whether the workspace has a board database.
func dbExists(ws *workspace.Workspace) (bool, error) {
	if err := ws.CheckStore(DBPath, SummariesPath, MemoryPath); err != nil {
		return false, err
	}
	_, err := os.Stat(ws.Path(DBPath))
	if err == nil {
		return true, nil
	}
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	return false, fmt.Errorf("stat %s: %w", DBPath, err)
}
