// Package opencode reads OpenCode's store (~/.local/share/opencode/opencode.db, measured against
// OpenCode 1.18.33: scripts/opencode-harness/README.md) for the task replay and the space import.
// It only ever reads: the database is opened read-only, never blocks OpenCode's writer, and no
// file is made beside it.
package opencode

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	_ "modernc.org/sqlite" // the database/sql driver "sqlite"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/workspace"
)

// DBEnv overrides where OpenCode's database is looked for.
const DBEnv = "CAIRN_OPENCODE_DB"

// DefaultDB is OpenCode's database: $CAIRN_OPENCODE_DB, else $XDG_DATA_HOME/opencode/opencode.db,
// else ~/.local/share/opencode/opencode.db (what `opencode db path` prints).
func DefaultDB() string {
	if p := os.Getenv(DBEnv); p != "" {
		return p
	}
	if d := os.Getenv("XDG_DATA_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "opencode", "opencode.db")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".local", "share", "opencode", "opencode.db")
}

// ValidSessionID reports whether id is an OpenCode session id: "ses_" and up to 60 letters and
// digits (1.18.33: 12 hexadecimal digits of time and 14 random letters and digits).
func ValidSessionID(id string) bool {
	rest, ok := strings.CutPrefix(id, "ses_")
	if !ok || rest == "" || len(rest) > 60 {
		return false
	}
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}

// DB is OpenCode's database opened read-only.
type DB struct {
	Path string
	db   *sql.DB
}

// Open opens OpenCode's database read-only. OpenCode keeps it in WAL mode: while OpenCode runs
// (its -wal and -shm files beside it), it is read through the WAL with SQLite's own protocol,
// read-only and query-only (a reader takes a read mark in the -shm index, as every reader does,
// and never blocks the writer); when no -wal file is there (OpenCode closed it cleanly, so every
// change is in the main file) it is opened immutable, because an ordinary read-only open would
// create the -wal and -shm files and leave them there. A path that is not a regular file, or a
// file that is not an SQLite database, is INVALID_INPUT; a database OpenCode holds locked past
// the busy timeout is STORAGE_BUSY.
func Open(ctx context.Context, path string) (*DB, error) {
	if path == "" {
		return nil, errs.Invalidf("no OpenCode database: set HOME or XDG_DATA_HOME, or name the database")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, errs.Wrap(errs.Invalid, err, "OpenCode database %s", path)
	}
	st, err := os.Stat(abs)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, errs.NotFoundf("no OpenCode database at %s (OpenCode keeps it at ~/.local/share/opencode/opencode.db)", abs)
		}
		return nil, workspace.FSError(err, "OpenCode database %s", abs)
	}
	if !st.Mode().IsRegular() {
		return nil, errs.Invalidf("OpenCode database %s is %s, not a database file: not read", abs, workspace.FileType(st.Mode()))
	}
	if err := checkHeader(abs); err != nil {
		return nil, err
	}
	q := "mode=ro&_pragma=query_only(1)&_pragma=busy_timeout(2000)"
	if _, err := os.Lstat(abs + "-wal"); os.IsNotExist(err) {
		q = "mode=ro&immutable=1"
	} else if _, err := os.Lstat(abs + "-shm"); os.IsNotExist(err) {
		// a -wal without its index (OpenCode was killed): reading it would create the -shm
		q = "mode=ro&immutable=1"
	}
	db, err := sql.Open("sqlite", workspace.SQLiteURI(abs)+"?"+q)
	if err != nil {
		return nil, errs.Wrap(errs.Invalid, err, "open OpenCode database %s", abs)
	}
	db.SetMaxOpenConns(1)
	d := &DB{Path: abs, db: db}
	var n int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE type='table' AND name IN ('session','message','part')").Scan(&n); err != nil {
		db.Close()
		return nil, d.wrap(ctx, err)
	}
	if n != 3 {
		db.Close()
		return nil, errs.Invalidf("%s is an SQLite database without OpenCode's session, message and part tables: not OpenCode's database", abs)
	}
	return d, nil
}

// checkHeader refuses a file that does not start as an SQLite database (a torn copy, another file).
func checkHeader(path string) error {
	f, err := workspace.OpenRegular(path, "OpenCode database")
	if err != nil {
		return workspace.FSError(err, "OpenCode database %s", path)
	}
	defer f.Close()
	head := make([]byte, 16)
	n, _ := f.Read(head)
	if n < 16 || string(head) != "SQLite format 3\x00" {
		return errs.Invalidf("%s is not an SQLite database (OpenCode's opencode.db): not read", path)
	}
	return nil
}

// wrap codes a database error: busy or locked is STORAGE_BUSY, a damaged file INVALID_INPUT.
func (d *DB) wrap(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if e := errs.IfStopped(ctx, err, "read OpenCode's database"); errs.CodeOf(e) == errs.Cancelled {
		return e
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "SQLITE_BUSY") || strings.Contains(msg, "database is locked"):
		return errs.Wrap(errs.Busy, err, "OpenCode's database %s is locked", d.Path)
	case strings.Contains(msg, "malformed") || strings.Contains(msg, "not a database") || strings.Contains(msg, "SQLITE_CORRUPT") || strings.Contains(msg, "SQLITE_NOTADB"):
		return errs.Wrap(errs.Invalid, err, "OpenCode's database %s is damaged or incomplete: not read", d.Path)
	}
	return errs.Wrap(errs.Invalid, err, "read OpenCode's database %s", d.Path)
}

// Close closes the database.
func (d *DB) Close() error { return d.db.Close() }

// Session is one row of the session table.
type Session struct {
	ID        string `json:"id"`
	ProjectID string `json:"project_id"`
	ParentID  string `json:"parent_id,omitempty"`
	Slug      string `json:"slug"`
	Directory string `json:"directory"`
	Title     string `json:"title"`
	Version   string `json:"version"`
	Created   int64  `json:"time_created"`
	Updated   int64  `json:"time_updated"`
}

const sessionCols = "id, project_id, coalesce(parent_id,''), slug, directory, title, version, time_created, time_updated"

func scanSession(sc interface{ Scan(...any) error }) (Session, error) {
	var s Session
	err := sc.Scan(&s.ID, &s.ProjectID, &s.ParentID, &s.Slug, &s.Directory, &s.Title, &s.Version, &s.Created, &s.Updated)
	return s, err
}

// Sessions lists every session, oldest first (then by id).
func (d *DB) Sessions(ctx context.Context) ([]Session, error) {
	rows, err := d.db.QueryContext(ctx, "SELECT "+sessionCols+" FROM session ORDER BY time_created, id")
	if err != nil {
		return nil, d.wrap(ctx, err)
	}
	defer rows.Close()
	var out []Session
	for rows.Next() {
		s, err := scanSession(rows)
		if err != nil {
			return nil, d.wrap(ctx, err)
		}
		out = append(out, s)
	}
	return out, d.wrap(ctx, rows.Err())
}

// ErrNoSession is a session id the database does not hold.
var ErrNoSession = errors.New("no such OpenCode session")

// Session reads one session's row.
func (d *DB) Session(ctx context.Context, id string) (Session, error) {
	s, err := scanSession(d.db.QueryRowContext(ctx, "SELECT "+sessionCols+" FROM session WHERE id = ?", id))
	if errors.Is(err, sql.ErrNoRows) {
		return s, errs.Wrap(errs.NotFound, ErrNoSession, "OpenCode session %s is not in %s", id, d.Path)
	}
	return s, d.wrap(ctx, err)
}

// Part is one part of a session's message, with what its message says of it.
type Part struct {
	ID, MessageID string
	// Role is the message's role (user, assistant); Summary marks a compaction's summary.
	Role    string
	Summary bool
	// MessageTime is the message's time_created (ms): a fork's copies keep the original's.
	MessageTime int64
	Created     int64
	Data        json.RawMessage
}

// Parts kinds: which parts a read wants.
const (
	// ToolParts are the tool calls of task tools: todowrite and *_TaskCreate, *_TaskUpdate.
	ToolParts = "tool"
	// TextParts are the text parts and compaction markers.
	TextParts = "text"
)

// maxPartBytes bounds one part read: a bigger part (a huge tool output) is passed over.
const maxPartBytes = 4 << 20

// Parts calls fn with the parts of one session of the kind asked, in conversation order (by
// their message's time, then message id, then part id: ids ascend in time).
func (d *DB) Parts(ctx context.Context, session, kind string, fn func(Part) error) error {
	where := "json_extract(p.data,'$.type') IN ('text','compaction')"
	if kind == ToolParts {
		where = `json_extract(p.data,'$.type') = 'tool' AND (json_extract(p.data,'$.tool') = 'todowrite'
			OR json_extract(p.data,'$.tool') LIKE '%\_TaskCreate' ESCAPE '\' OR json_extract(p.data,'$.tool') LIKE '%\_TaskUpdate' ESCAPE '\')`
	}
	rows, err := d.db.QueryContext(ctx, `SELECT p.id, p.message_id, coalesce(json_extract(m.data,'$.role'),''),
		coalesce(json_type(m.data,'$.summary') = 'true', 0), m.time_created, p.time_created, p.data
		FROM part p JOIN message m ON m.id = p.message_id
		WHERE p.session_id = ? AND length(p.data) <= ? AND `+where+`
		ORDER BY m.time_created, m.id, p.id`, session, maxPartBytes)
	if err != nil {
		return d.wrap(ctx, err)
	}
	defer rows.Close()
	for rows.Next() {
		var p Part
		var data string
		if err := rows.Scan(&p.ID, &p.MessageID, &p.Role, &p.Summary, &p.MessageTime, &p.Created, &data); err != nil {
			return d.wrap(ctx, err)
		}
		p.Data = json.RawMessage(data)
		if err := fn(p); err != nil {
			return err
		}
	}
	return d.wrap(ctx, rows.Err())
}

// Messages is the time_created of each message of a session, in order, and how many were
// copied from another session (a fork's: their times are before the session's own creation).
func (d *DB) Messages(ctx context.Context, session string) (times []int64, err error) {
	rows, err := d.db.QueryContext(ctx, "SELECT time_created FROM message WHERE session_id = ? ORDER BY time_created, id", session)
	if err != nil {
		return nil, d.wrap(ctx, err)
	}
	defer rows.Close()
	for rows.Next() {
		var t int64
		if err := rows.Scan(&t); err != nil {
			return nil, d.wrap(ctx, err)
		}
		times = append(times, t)
	}
	return times, d.wrap(ctx, rows.Err())
}

// Todo is one row of the todo table: a session's list as its last todowrite left it.
type Todo struct {
	Content  string `json:"content"`
	Status   string `json:"status"`
	Priority string `json:"priority"`
	Position int    `json:"position"`
}

// Todos reads a session's todo rows by position.
func (d *DB) Todos(ctx context.Context, session string) ([]Todo, error) {
	rows, err := d.db.QueryContext(ctx, "SELECT content, status, priority, position FROM todo WHERE session_id = ? ORDER BY position", session)
	if err != nil {
		return nil, d.wrap(ctx, err)
	}
	defer rows.Close()
	var out []Todo
	for rows.Next() {
		var t Todo
		if err := rows.Scan(&t.Content, &t.Status, &t.Priority, &t.Position); err != nil {
			return nil, d.wrap(ctx, err)
		}
		out = append(out, t)
	}
	return out, d.wrap(ctx, rows.Err())
}

// ForkParent finds the session a fork was copied from. `opencode --fork` copies every message
// under new ids and points at nothing, but the copies keep their time_created, which is before
// the fork's own creation: the parent is the other session, created before the fork, whose
// first messages have the same times as the fork's copies; among several (a fork of a fork that
// added nothing) the newest. It answers the parent and how many messages were copied ("", 0 for
// a session that is no fork).
func (d *DB) ForkParent(ctx context.Context, s Session) (string, int, error) {
	times, err := d.Messages(ctx, s.ID)
	if err != nil {
		return "", 0, err
	}
	n := 0
	for n < len(times) && times[n] < s.Created {
		n++
	}
	if n == 0 {
		return "", 0, nil
	}
	rows, err := d.db.QueryContext(ctx, `SELECT DISTINCT m.session_id, s.time_created FROM message m JOIN session s ON s.id = m.session_id
		WHERE m.time_created = ? AND m.session_id <> ? AND s.time_created <= ? ORDER BY s.time_created DESC, m.session_id`, times[0], s.ID, s.Created)
	if err != nil {
		return "", 0, d.wrap(ctx, err)
	}
	var cands []string
	for rows.Next() {
		var id string
		var at int64
		if err := rows.Scan(&id, &at); err != nil {
			rows.Close()
			return "", 0, d.wrap(ctx, err)
		}
		cands = append(cands, id)
	}
	rows.Close()
	for _, c := range cands {
		pt, err := d.Messages(ctx, c)
		if err != nil {
			return "", 0, err
		}
		if len(pt) >= n && equalTimes(pt[:n], times[:n]) {
			return c, n, nil
		}
	}
	return "", n, nil
}

func equalTimes(a, b []int64) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// String names the database for messages.
func (d *DB) String() string { return fmt.Sprintf("OpenCode database %s", d.Path) }
