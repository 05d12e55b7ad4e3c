package team

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/redact"
	"github.com/cairn-dev/cairn/core/spaces"
	"github.com/cairn-dev/cairn/core/workspace"
)

// MembersFile is the SQLite store's file of members and tokens, relative to the workspace root.
const MembersFile = "team.db"

// KeyFile is the SQLite store's MAC key, relative to the workspace root: apart from team.db, so a
// copy of that file alone cannot test a token.
const KeyFile = ".cairn/team.key"

// SQLite is the embedded team store: the records in the workspace's spaces.db (through
// core/spaces, bounded by space), members and tokens in team.db.
type SQLite struct {
	ws      *workspace.Workspace
	db      *sql.DB
	readers spaces.Readers
	// running holds a token for each search under way: at most cap(running) read spaces.db at
	// once, each on a kept connection of its own (readers.Conns is the same number).
	running chan struct{}
	keyOnce sync.Mutex
	key     []byte
	// redactor is every write's (spaces.Store.UseRedactor), built on the first.
	rdOnce   sync.Once
	redactor *redact.Redactor
}

// writer opens spaces.db for one write, with the store's redactor.
func (s *SQLite) writer(ctx context.Context) (*spaces.Store, error) {
	st, err := spaces.Open(ctx, s.ws)
	if err != nil {
		return nil, err
	}
	s.rdOnce.Do(func() { s.redactor = redact.New() })
	st.UseRedactor(s.redactor)
	return st, nil
}

// SearchesAtOnce is how many searches the SQLite store runs at once: one for each processor Go
// may use, at least 2. A search is CPU (its pages are in the operating system's cache), so more
// would only share the same processors: on a shared 2-core machine, 4 at once cost 15 to 25%
// more CPU a search than 1 (separate page caches, more switching) for no more searches a
// second. The others wait for a turn (Search).
func SearchesAtOnce() int { return max(2, runtime.GOMAXPROCS(0)) }

const membersSchema = `CREATE TABLE IF NOT EXISTS members (
	user       TEXT PRIMARY KEY,
	token_id   TEXT NOT NULL UNIQUE,
	token_mac  BLOB NOT NULL,
	created_at TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS member_spaces (
	user  TEXT NOT NULL REFERENCES members(user) ON DELETE CASCADE,
	space TEXT NOT NULL,
	PRIMARY KEY (user, space)
) WITHOUT ROWID;`

// OpenSQLite opens (creating when missing) the workspace's team.db.
func OpenSQLite(ctx context.Context, ws *workspace.Workspace) (*SQLite, error) {
	if err := ws.CheckStore(MembersFile); err != nil {
		return nil, err
	}
	wait := ws.Wait
	if wait <= 0 {
		wait = workspace.DefaultWait
	}
	dsn := fmt.Sprintf("%s?_pragma=busy_timeout(%d)&_pragma=journal_mode(wal)&_pragma=synchronous(normal)&_pragma=foreign_keys(1)&_txlock=immediate",
		workspace.SQLiteURI(ws.Path(MembersFile)), wait.Milliseconds())
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", MembersFile, err)
	}
	if _, err := db.ExecContext(ctx, membersSchema); err != nil {
		db.Close()
		return nil, dbErr(err, "create "+MembersFile)
	}
	if err := os.Chmod(ws.Path(MembersFile), 0o600); err != nil {
		db.Close()
		return nil, fmt.Errorf("protect %s: %w", MembersFile, err)
	}
	n := SearchesAtOnce()
	st := &SQLite{ws: ws, db: db, running: make(chan struct{}, n)}
	st.readers.Conns = n
	return st, nil
}

// dbErr codes a database failure: a busy database is STORAGE_BUSY.
func dbErr(err error, doing string) error {
	if err == nil {
		return nil
	}
	var se *sqlite.Error
	if errors.As(err, &se) && (se.Code()&0xff == sqlite3.SQLITE_BUSY || se.Code()&0xff == sqlite3.SQLITE_LOCKED) {
		return errs.Wrap(errs.Busy, err, "%s: %s is busy", doing, MembersFile)
	}
	if errs.CodeOf(err) != errs.Internal {
		return err
	}
	return fmt.Errorf("%s: %w", doing, err)
}

// Close closes team.db and the kept spaces.db readers.
func (s *SQLite) Close() error {
	s.readers.Close()
	return s.db.Close()
}

// Key reads .cairn/team.key, making it (32 random bytes, mode 0600) the first time.
func (s *SQLite) Key(ctx context.Context) ([]byte, error) {
	s.keyOnce.Lock()
	defer s.keyOnce.Unlock()
	if s.key != nil {
		return s.key, nil
	}
	dir, err := s.ws.StateDir()
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, filepath.Base(KeyFile))
	for range 2 {
		data, err := os.ReadFile(path)
		if err == nil {
			fi, serr := os.Stat(path)
			if serr == nil && fi.Mode().Perm()&0o077 != 0 {
				return nil, errs.Invalidf("%s is readable by others (mode %04o); chmod 600 it", KeyFile, fi.Mode().Perm())
			}
			key, derr := hex.DecodeString(strings.TrimSpace(string(data)))
			if derr != nil || len(key) < 32 {
				return nil, errs.Invalidf("%s is damaged: remove it and add every member again (their tokens no longer check)", KeyFile)
			}
			s.key = key
			return key, nil
		}
		if !os.IsNotExist(err) {
			return nil, fmt.Errorf("read %s: %w", KeyFile, err)
		}
		var b [32]byte
		if _, err := rand.Read(b[:]); err != nil {
			return nil, fmt.Errorf("generate %s: %w", KeyFile, err)
		}
		// O_EXCL: of two servers starting at once, one key wins and both read it
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			_, werr := f.WriteString(hex.EncodeToString(b[:]) + "\n")
			if serr := f.Sync(); werr == nil {
				werr = serr
			}
			if cerr := f.Close(); werr == nil {
				werr = cerr
			}
			if werr != nil {
				os.Remove(path)
				return nil, fmt.Errorf("write %s: %w", KeyFile, werr)
			}
		} else if !os.IsExist(err) {
			return nil, fmt.Errorf("create %s: %w", KeyFile, err)
		}
	}
	return nil, fmt.Errorf("read %s: made but not readable", KeyFile)
}

// AddMember inserts a member, its token and its spaces in one transaction.
func (s *SQLite) AddMember(ctx context.Context, user string, spaceIDs []string, tokenID string, mac []byte) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return dbErr(err, "add member")
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM members WHERE user = ?`, user).Scan(&n); err != nil {
		return dbErr(err, "add member")
	}
	if n > 0 {
		return errs.Invalidf("user %q is already a member; remove it first to give it a new token", user)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO members(user, token_id, token_mac, created_at) VALUES (?, ?, ?, ?)`,
		user, tokenID, mac, time.Now().UTC().Format(time.RFC3339)); err != nil {
		return dbErr(err, "add member")
	}
	for _, sp := range spaceIDs {
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO member_spaces(user, space) VALUES (?, ?)`, user, sp); err != nil {
			return dbErr(err, "add member")
		}
	}
	return dbErr(tx.Commit(), "add member")
}

// Member finds a token's member by its public id; every call reads the database, so a removal
// by another process counts at once.
func (s *SQLite) Member(ctx context.Context, tokenID string) (Member, []byte, error) {
	var m Member
	var mac []byte
	err := s.db.QueryRowContext(ctx, `SELECT user, token_mac, created_at FROM members WHERE token_id = ?`, tokenID).Scan(&m.User, &mac, &m.Created)
	if errors.Is(err, sql.ErrNoRows) {
		return Member{}, nil, errs.NotFoundf("no such token")
	}
	if err != nil {
		return Member{}, nil, dbErr(err, "look up token")
	}
	sps, err := s.spacesOf(ctx, m.User)
	if err != nil {
		return Member{}, nil, err
	}
	m.Spaces = sps
	return m, mac, nil
}

func (s *SQLite) spacesOf(ctx context.Context, user string) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT space FROM member_spaces WHERE user = ? ORDER BY space`, user)
	if err != nil {
		return nil, dbErr(err, "read member spaces")
	}
	defer rows.Close()
	out := []string{}
	for rows.Next() {
		var sp string
		if err := rows.Scan(&sp); err != nil {
			return nil, dbErr(err, "read member spaces")
		}
		out = append(out, sp)
	}
	return out, dbErr(rows.Err(), "read member spaces")
}

// Members lists the members by user.
func (s *SQLite) Members(ctx context.Context) ([]Member, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT user, created_at FROM members ORDER BY user`)
	if err != nil {
		return nil, dbErr(err, "list members")
	}
	var out []Member
	for rows.Next() {
		var m Member
		if err := rows.Scan(&m.User, &m.Created); err != nil {
			rows.Close()
			return nil, dbErr(err, "list members")
		}
		out = append(out, m)
	}
	rows.Close()
	for i := range out {
		if out[i].Spaces, err = s.spacesOf(ctx, out[i].User); err != nil {
			return nil, err
		}
	}
	if out == nil {
		out = []Member{}
	}
	return out, nil
}

// RemoveMember deletes a member with its token and spaces.
func (s *SQLite) RemoveMember(ctx context.Context, user string) (bool, error) {
	res, err := s.db.ExecContext(ctx, `DELETE FROM members WHERE user = ?`, user)
	if err != nil {
		return false, dbErr(err, "remove member")
	}
	if _, err := s.db.ExecContext(ctx, `DELETE FROM member_spaces WHERE user = ?`, user); err != nil {
		return false, dbErr(err, "remove member")
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// Search reads spaces.db through readers kept open between searches, SearchesAtOnce at a time
// (turn); the search's time budget starts once it has its turn.
func (s *SQLite) Search(ctx context.Context, space, exclude string, in spaces.SearchInput) (spaces.Answer, error) {
	done, err := s.turn(ctx)
	if err != nil {
		return spaces.Answer{}, err
	}
	defer done()
	st, release, err := s.readers.Open(ctx, s.ws)
	if errors.Is(err, os.ErrNotExist) {
		// nothing pushed yet: an empty space
		if strings.TrimSpace(in.Around) != "" {
			return spaces.Answer{}, errs.NotFoundf("%s not found in the other tasks of this space", in.Around)
		}
		if err := in.Check(); err != nil {
			return spaces.Answer{}, err
		}
		return spaces.Answer{Search: &spaces.SearchResult{Query: in.Query, Hits: []spaces.Hit{}}}, nil
	}
	if err != nil {
		return spaces.Answer{}, err
	}
	defer release()
	return st.SearchSpace(ctx, spaces.ID(space), spaces.ID(exclude), in)
}

// turn waits for one of the searches that may run at once, in the order they came, for at most
// the workspace's wait (--wait): one that waited longer is STORAGE_BUSY without having run, so
// a server with more searches than it can answer refuses the excess quickly instead of running
// each one late and past its budget.
func (s *SQLite) turn(ctx context.Context) (done func(), err error) {
	done = func() { <-s.running }
	select {
	case s.running <- struct{}{}:
		return done, nil
	default:
	}
	wait := s.ws.Wait
	if wait <= 0 {
		wait = workspace.DefaultWait
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case s.running <- struct{}{}:
		return done, nil
	case <-ctx.Done():
		return nil, errs.Stopped(ctx, "space search")
	case <-t.C:
		return nil, errs.New(errs.Busy, "space search: the server is answering %d searches at once and this one waited %s for its turn (%s)", cap(s.running), wait, errs.Field("wait", errs.Retry))
	}
}

// AddComment opens spaces.db for this one write.
func (s *SQLite) AddComment(ctx context.Context, space string, c spaces.Comment) (spaces.AddedComment, error) {
	return writeOnce(ctx, s, func(st *spaces.Store) (spaces.AddedComment, error) { return st.AddCommentIn(ctx, spaces.ID(space), c) })
}

// Import opens spaces.db for this one batch: writers take turns on its lock.
func (s *SQLite) Import(ctx context.Context, space string, b spaces.Batch) (spaces.BatchReport, error) {
	return writeOnce(ctx, s, func(st *spaces.Store) (spaces.BatchReport, error) { return st.ImportBatch(ctx, spaces.ID(space), b) })
}

// writeOnce opens spaces.db for one write and closes it after.
func writeOnce[T any](ctx context.Context, s *SQLite, write func(*spaces.Store) (T, error)) (T, error) {
	st, err := s.writer(ctx)
	if err != nil {
		var zero T
		return zero, err
	}
	defer st.Close()
	return write(st)
}

var _ Store = (*SQLite)(nil)
