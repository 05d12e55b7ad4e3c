// Package spaces is the space conversation store behind SearchWorkspaceTasks (SPEC §5): spaces,
// members, tasks and comments in spaces.db, with an FTS5 trigram index of redacted, folded text.
package spaces

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/redact"
	"github.com/cairn-dev/cairn/core/workspace"
)

// FileName is where the store lives, relative to the workspace root (SPEC §2.1).
const FileName = "spaces.db"

// applicationID marks a SQLite file as a cairn space store ("crns"), so a stray database is refused.
const applicationID = 0x63726e73

// Store is an open spaces.db. It is not safe for use after Close.
type Store struct {
	db       *sql.DB
	path     string
	wait     time.Duration
	writer   bool             // opened to write: its imports redact (rd)
	redactor *redact.Redactor // built on a writer's first use of rd
	rdOnce   sync.Once
	lock     *workspace.Lock
	// ftsDriveMax is the most index matches for which a search is driven from the FTS index
	// rather than from the (space, created_at) index; tests lower it to exercise both plans.
	ftsDriveMax int
	// walkWindow is how many newest comments a walk tests before it reads the whole space.
	walkWindow int
	// probeWindow is how many newest comments a query tests before it chooses a plan.
	probeWindow int
	// streamMax is the most matches newestMatches reads before the other plans answer; 0 turns
	// it off, so tests can exercise those plans. firstStreamMax is the most its first read
	// takes, before the plans look at the indexes.
	streamMax, firstStreamMax int
	// maxLine is the longest line an import reads (defaultMaxLine; tests lower it).
	maxLine int
	// streamed counts the searches newestMatches answered, for tests (atomic: a store kept
	// open with several connections searches on them at once).
	streamed atomic.Int64
	// noQuads is set when the short-term index holds no runs of four (quadTokens): a file
	// before schema version 18 that this process cannot bring up to date.
	noQuads bool
	// noTris is set when the short-term index holds no runs of three: before schema version 19.
	noTris bool
	// direct: a query of several tokens reads its candidates from their lists intersected here
	// (directStream), not from FTS5's AND; tests turn it off to exercise the plans after it.
	direct bool
	// structure is the short-term index's structure record last read (doclist.go), which a
	// search assumes and checks in its first statement.
	structure atomic.Pointer[ftsStructure]
	// directed counts the searches directStream answered, for tests.
	directed atomic.Int64
	// shortDriven counts the searches driven from the short-term index, for tests.
	shortDriven atomic.Int64
	// intersected counts the searches that read the candidates of both indexes, for tests.
	intersected atomic.Int64
	// trace, when set, is told each step of a search's plan, for tests and benchmarks.
	trace func(step string)
	// fts5 is whether the linked SQLite has FTS5, read with the header when the store opens.
	fts5 bool
	// sharedStates is claude_files as ImportAll read it once for every runtime's importer (each
	// reads and writes only the rows of its own files); nil otherwise.
	sharedStates map[string]claudeState
	// exclude is [space] exclude for this store's imports (SetExclude); nil excludes nothing.
	exclude *excludeState
	// common are the tokens a search found common (rareAnchor): not asked again while the store
	// is open. A token's comments only grow between deletions, so a stale entry costs a missed
	// plan, never a wrong answer.
	common tokenSet
	// anchorMax is rareAnchor's bound (0 turns the plan off, so tests can exercise the others).
	anchorMax int
}

// migrations bring a file from user_version i to i+1; they run in order, each in its own transaction.
var migrations = []string{
	// 1: the records themselves.
	`CREATE TABLE spaces (
		id    TEXT PRIMARY KEY,
		name  TEXT NOT NULL DEFAULT '',
		owner TEXT NOT NULL DEFAULT ''
	) WITHOUT ROWID;
	CREATE TABLE members (
		space TEXT NOT NULL,
		user  TEXT NOT NULL,
		PRIMARY KEY (space, user)
	) WITHOUT ROWID;
	CREATE TABLE tasks (
		id         TEXT PRIMARY KEY,
		space      TEXT NOT NULL,
		title      TEXT NOT NULL DEFAULT '',
		status     TEXT NOT NULL DEFAULT '',
		parent     TEXT,
		created_at TEXT NOT NULL DEFAULT ''
	) WITHOUT ROWID;
	CREATE INDEX tasks_space ON tasks(space);
	CREATE TABLE comments (
		rid           INTEGER PRIMARY KEY,
		id            TEXT NOT NULL UNIQUE,
		idkey         TEXT NOT NULL,
		task          TEXT NOT NULL,
		space         TEXT NOT NULL DEFAULT '',
		kind          TEXT NOT NULL,
		progress_type TEXT NOT NULL DEFAULT '',
		tool_name     TEXT NOT NULL DEFAULT '',
		author        TEXT NOT NULL DEFAULT '',
		created_at    TEXT NOT NULL,
		at_ns         INTEGER NOT NULL,
		body          TEXT NOT NULL DEFAULT '',
		attachments   TEXT NOT NULL DEFAULT '[]',
		itext         TEXT
	);
	CREATE INDEX comments_space_at ON comments(space, at_ns, idkey);
	CREATE INDEX comments_task_at ON comments(task, at_ns, idkey);`,
	// 2: the trigram index over the index text. Every comment has a row (a NULL index text has no
	// tokens), so FTS5's integrity-check can compare the index with the whole content table. The
	// writers keep it in sync in the transaction that writes the comments (see ftsSync): not with
	// row triggers, because FTS5 flushes its pending terms at every statement savepoint, and a
	// trigger per row would leave one index segment per comment to merge.
	`CREATE VIRTUAL TABLE comments_fts USING fts5(itext, content='comments', content_rowid='rid', tokenize='trigram');
	INSERT INTO comments_fts(rowid, itext) SELECT rid, itext FROM comments;`,
	// 3: the display text of a comment (redacted, original case: what an excerpt shows) and the
	// redacted title of a task; migrationFills[3] computes both, and the index text again, from
	// the stored bodies and titles.
	`ALTER TABLE comments ADD COLUMN dtext TEXT;
	ALTER TABLE tasks ADD COLUMN dtitle TEXT;`,
	// 4: Claude Code transcripts (claude.go): where a space came from, and how far each transcript
	// file was read, so a re-import skips unchanged files and resumes appended ones.
	`ALTER TABLE spaces ADD COLUMN source TEXT NOT NULL DEFAULT '';
	CREATE TABLE claude_files (
		path       TEXT PRIMARY KEY,
		size       INTEGER NOT NULL,
		mtime_ns   INTEGER NOT NULL,
		offset     INTEGER NOT NULL,
		lines      INTEGER NOT NULL,
		head       TEXT NOT NULL,
		task       TEXT NOT NULL,
		title      TEXT NOT NULL DEFAULT '',
		created_at TEXT NOT NULL DEFAULT ''
	) WITHOUT ROWID;`,
	// 5: the short-term index (short.go) of every comment that has an index text, built here from
	// the stored index texts, so an existing file gains it when it is first opened. Contentless
	// (the grams are derived, never shown), rows deleted by rowid, no positions kept. The trigram
	// index is built again without positions (detail='none'): a search asks it for single
	// trigrams and tests the term itself on each row (search.go), so positions were never read;
	// without them a first import of 200,000 comments took about 7% less CPU time. comments_idkey:
	// add-comment without --id takes the largest integer id from it instead of reading every comment.
	`DROP TABLE comments_fts;
	CREATE VIRTUAL TABLE comments_fts USING fts5(itext, content='comments', content_rowid='rid', tokenize='trigram', detail='none');
	INSERT INTO comments_fts(comments_fts) VALUES ('rebuild');
	CREATE INDEX comments_idkey ON comments(idkey);
	CREATE VIRTUAL TABLE comments_short USING fts5(grams, content='', contentless_delete=1, detail='none', tokenize='ascii');
	INSERT INTO comments_short(rowid, grams) SELECT rid, ` + shortGramsOfText + ` FROM comments WHERE itext IS NOT NULL;
	INSERT INTO comments_short(comments_short) VALUES ('optimize');`,
	// 6: the trigram index without the per-row size record (columnsize=0): it serves only bm25 and
	// the other rank functions, and no search ranks (answers are ordered by date). Its tokenizer
	// folds no case (case_sensitive 1): the index text and every query term are folded already
	// (Normalize), so the index gives the same rows without folding every character again. The
	// short-term index spells its grams densely (short.go: appendToken; the ascii tokenizer with
	// '_' a token character) instead of as hex digits, so it tokenizes and hashes about half as
	// many bytes; it keeps its size record, which contentless_delete needs to delete a row by
	// rowid. A first import of 200,000 comments takes about 5% less CPU time. An existing file
	// rebuilds both indexes once, in this migration, when it is first opened (about 4 s of CPU
	// time for 200,000 comments).
	`DROP TABLE comments_fts;
	CREATE VIRTUAL TABLE comments_fts USING fts5(itext, content='comments', content_rowid='rid', tokenize='trigram case_sensitive 1', detail='none', columnsize=0);
	INSERT INTO comments_fts(comments_fts) VALUES ('rebuild');
` + rebuildShortIndex,
	// 7: comment_blocks (blocks.go), the newest position per block of comment rowids, so a search
	// reads a term's matches newest rowid first and stops once no match left can be newer; and
	// the texts redacted again (redactedAgainAt).
	blocksSchema + rebuildBlocks(),
	// 8: the texts and authors redacted again by the layered detector (context words in every
	// language, random-looking tokens, decoded and multi-part secrets): redactedAgainAt.
	`SELECT 1;`,
	// 9: the same with the password shape (made-up passwords, recovery codes, keys in groups of
	// four) and the other rules of session 8: redactedAgainAt.
	`SELECT 1;`,
	// 10: the same with the decoders of session 9 (Ascii85, base32, quoted-printable, HTML
	// references, spaced, spoken and invisible-split letters, joined literals): redactedAgainAt.
	`SELECT 1;`,
	// 11: the same with the generic rules of issue 22 (encodings decoded where the text names
	// them, reversed and split tokens, short random passwords, hex dumps, Han recovery
	// phrases): redactedAgainAt.
	`SELECT 1;`,
	// 12: each search index merged into one segment (optimizeIndexes, as a first import now
	// leaves them): every term a search asks for is looked up, and its matches merged, in each
	// segment. An index of one segment is left as it is.
	optimizeIndexes,
	// 13: the texts redacted again with the rules of the fifth blind corpus (keys labelled HEX:,
	// numbers in groups of four named an account, namespaced and CDATA XML values, CI logging
	// commands, generated app passwords in letter groups): redactedAgainAt.
	`SELECT 1;`,
	// 14: comment_blocks rebuilt in blocks of 16 rowids (blockShift), where they were of 64: a
	// search of a common term reads the rest of the block where its limit is met.
	rebuildBlocks(),
	// 15: the texts redacted again with the generic rules of session 10 (key bodies, encodings
	// and wrapped secrets with no key word near them): redactedAgainAt.
	`SELECT 1;`,
	// 16: the texts redacted again with the rules of session 12 (a key file's label glued to
	// its key, the seventh blind corpus's shapes): redactedAgainAt.
	`SELECT 1;`,
	// 17: the texts redacted again with the rules of session 13 (the seventh blind corpus's
	// sentences and encodings): redactedAgainAt.
	`SELECT 1;`,
	// 18: the short-term index built again with every comment's runs of four characters
	// (short.go: quadTokens), so a term of four characters or more is narrowed to about the
	// comments that hold it, not every comment holding its trigrams apart.
	rebuildShortIndex,
	// 19: the short-term index built again with every comment's runs of three characters, so
	// every token of a query is in one index, whose AND FTS5 intersects (short.go).
	rebuildShortIndex,
}

// rebuildShortIndex creates the short-term index anew, as this build writes it, from the stored
// index texts, in one segment (migrations 6, 18 and 19).
const rebuildShortIndex = `DROP TABLE comments_short;
	CREATE VIRTUAL TABLE comments_short USING fts5(grams, content='', contentless_delete=1, detail='none', tokenize='ascii tokenchars _');
	INSERT INTO comments_short(rowid, grams) SELECT rid, ` + shortGramsOfText + ` FROM comments WHERE itext IS NOT NULL;
	INSERT INTO comments_short(comments_short) VALUES ('optimize');`

// migrationFills are the steps of a migration that SQL alone cannot do, by the version the
// migration brings a file to; each runs in that migration's transaction, after its SQL.
var migrationFills = map[int]func(ctx context.Context, db execer) error{
	3: func(ctx context.Context, db execer) error {
		_, err := reindex(ctx, db, redact.New(), nil)
		return err
	},
}

// redactedAgainAt are the migrations that redact every stored text again with this build's
// rules (reindexTexts), so a secret of a shape an earlier build did not know is neither found nor
// shown by the first search after the upgrade; only the comments whose texts change leave and
// re-enter the search indexes. An upgrade across several of them redacts once, at the first: the
// later ones would apply the same rules again.
var redactedAgainAt = map[int]bool{
	// 7: the first of them.
	7: true,
	// 8: the same with the layered detector, authors included, so a secret of a kind no rule
	// names is neither found nor shown after the upgrade.
	8: true,
	// 9: again, for the password shape: a made-up password no word names is neither found nor
	// shown after the upgrade.
	9: true,
	// 10: again, for the decoders: a secret spelt out or encoded is neither found nor shown
	// after the upgrade.
	10: true,
	// 11: again, for issue 22's rules: a secret with no key word near it (encoded, split by a
	// line break, said alone in a chat line) is neither found nor shown after the upgrade.
	11: true,
	// 13: again, for the rules of the fifth blind corpus: a generated app password in letter
	// groups or an account number in groups of four is neither found nor shown after the upgrade.
	13: true,
	// 15: again, for session 10's generic rules: an unframed key body, an encoded or wrapped
	// secret with no key word near it is neither found nor shown after the upgrade.
	15: true,
	// 16: again, for session 12's rules: a key with its file's label glued to it (privkey:…)
	// is neither found nor shown, label and all, after the upgrade.
	16: true,
	// 17: again, for session 13's rules: a password in the seventh corpus's sentences (an
	// Ethiopic colon, a comma before it, a qualifier before the colon) or encodings (byte-array
	// literals, entities, spelt letters) is neither found nor shown after the upgrade.
	17: true,
}

// execer is what both *sql.Tx and *sql.Conn offer.
type execer interface {
	querier
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	PrepareContext(ctx context.Context, query string) (*sql.Stmt, error)
}

// SchemaVersion is the user_version this build writes and reads, so tests and messages can name it.
func SchemaVersion() int { return len(migrations) }

// ErrNoFTS5 means the SQLite build cannot search; SearchWorkspaceTasks answers "unavailable" then.
var ErrNoFTS5 = errors.New("this SQLite build has no FTS5")

// defaultFTSDriveMax: up to this many matches, sorting them beats walking the space newest first.
const defaultFTSDriveMax = 2000

// Path is spaces.db inside ws.
func Path(ws *workspace.Workspace) string { return ws.Path(FileName) }

// rd is the redactor of a writer's imports, built on first use: compiling its rules costs a
// fresh process about 6 ms, which an import with nothing new does not pay.
func (s *Store) rd() *redact.Redactor {
	s.rdOnce.Do(func() {
		if s.redactor == nil {
			s.redactor = redact.New()
		}
	})
	return s.redactor
}

// UseRedactor makes a writer redact its imports with r, redact.New's, instead of building its
// own: a long-lived process that opens spaces.db for each write (a team server, for each pushed
// batch) compiles the rules once. Call it before the first import.
func (s *Store) UseRedactor(r *redact.Redactor) { s.redactor = r }

// Open opens (creating when missing) and migrates spaces.db for writing: it takes the workspace
// lock .cairn/spaces.lock, so writers are serialised and one that waits too long is STORAGE_BUSY
// (or CANCELLED when ctx ends first).
func Open(ctx context.Context, ws *workspace.Workspace) (*Store, error) {
	if err := ws.CheckStore(FileName); err != nil {
		return nil, err
	}
	lock, err := ws.LockNamed(ctx, "spaces", true)
	if err != nil {
		return nil, err
	}
	st, err := openPath(ctx, Path(ws), ws.Wait, migrations, true)
	if err != nil {
		lock.Unlock()
		return nil, err
	}
	st.lock = lock
	return st, nil
}

// OpenRead opens an existing spaces.db for searching, without the writer lock (WAL readers never
// wait for writers). A missing file is reported as os.ErrNotExist.
func OpenRead(ctx context.Context, ws *workspace.Workspace) (*Store, error) {
	return openRead(ctx, ws)
}

// oneSearchCache is the page cache of a store opened for one search and closed again (a CLI
// process): 128 KiB, not SQLite's 2 MiB. A fresh process gets fresh memory for every page it
// caches, and each first touch of it is a page fault; a rare term's search reads a few hundred
// pages once each, so a cache that recycles its buffers answers the same with about 500 fewer
// faults, about 0.7 ms of a 8 ms search. A store kept open for many searches keeps the default.
const oneSearchCache = "&_pragma=cache_size(-128)"

// openRead is OpenRead with extra connection parameters (_pragma=...) for a reader.
func openRead(ctx context.Context, ws *workspace.Workspace, params ...string) (*Store, error) {
	if err := ws.CheckStore(FileName); err != nil {
		return nil, err
	}
	p := Path(ws)
	if _, err := os.Stat(p); err != nil {
		return nil, fmt.Errorf("open %s: %w", p, err)
	}
	st, err := openPath(ctx, p, ws.Wait, migrations, false, params...)
	var se *sqlite.Error
	if err != nil && errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_CANTOPEN && !writable(filepath.Dir(p)) {
		// A WAL database whose -shm is missing cannot be read where the file cannot be created
		// (a read-only workspace) unless it is opened as immutable: nothing can change it here.
		return openImmutable(ctx, p, ws.Wait)
	}
	return st, err
}

// writable reports whether this process may create files in dir.
func writable(dir string) bool { return unix.Access(dir, unix.W_OK) == nil }

// openImmutable opens path read-only as an unchanging file: no locks, no -wal or -shm.
func openImmutable(ctx context.Context, path string, wait time.Duration) (*Store, error) {
	db, err := sql.Open("sqlite", workspace.SQLiteURI(path)+"?mode=ro&immutable=1")
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	st := newStore(db, path, wait)
	if err := st.migrate(ctx, migrations); err != nil {
		db.Close()
		return nil, err
	}
	return st, nil
}

// newStore is a Store on db with every plan's default.
func newStore(db *sql.DB, path string, wait time.Duration) *Store {
	return &Store{db: db, path: path, wait: wait, ftsDriveMax: defaultFTSDriveMax, walkWindow: defaultWalkWindow,
		probeWindow: defaultProbeWindow, streamMax: defaultStreamMax, firstStreamMax: defaultFirstStreamMax, maxLine: defaultMaxLine,
		anchorMax: defaultAnchorMax, direct: true}
}

// openPath opens path with a busy timeout of wait and brings its schema to len(migs). A writer's
// transactions begin IMMEDIATE, so they wait for the write lock up front instead of failing midway.
// params are added to the connection's parameters.
func openPath(ctx context.Context, path string, wait time.Duration, migs []string, writer bool, params ...string) (*Store, error) {
	if wait <= 0 {
		wait = workspace.DefaultWait
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", filepath.Dir(path), err)
	}
	// journal_size_limit: a persistent WAL (see persistWAL) is cut back to 64 MiB after a
	// checkpoint while open, and to nothing when the last connection closes (a reader may be the
	// last). Every pragma is one more statement at open, so a reader sets no others: the file is
	// already in WAL mode (the journal mode is kept in the file, and a writer sets it when it
	// creates the file), and synchronous only matters to commits.
	dsn := fmt.Sprintf("%s?_pragma=busy_timeout(%d)&_pragma=journal_size_limit(%d)",
		workspace.SQLiteURI(path), wait.Milliseconds(), 64<<20)
	// No memory-mapped reads (mmap_size): they saved about 0.7 ms of a fresh-process search, but
	// a file rewritten in place under a reader (cp over spaces.db) then kills the process with
	// SIGBUS, where read calls give SQLite a short read it reports as a damaged database.
	if writer {
		// temp_store(memory): an upsert keeps a statement journal of the pages it changes, by
		// default in a temporary file; in memory it saved an import of 200,000 comments a
		// tenth of its time in pwrite calls. cache_size(-65536): up to 64 MiB of pages, so a
		// large transaction is not spilled to the write-ahead log page by page (each spill a
		// new frame).
		dsn += "&_txlock=immediate&_pragma=journal_mode(wal)&_pragma=synchronous(normal)&_pragma=temp_store(memory)&_pragma=cache_size(-65536)"
	}
	dsn += strings.Join(params, "")
	base, err := sqlite.NewConnector(dsn)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	db := sql.OpenDB(persistWAL{Connector: base, cacheStmts: !writer})
	db.SetMaxOpenConns(1)
	st := newStore(db, path, wait)
	st.writer = writer // readers never redact
	if err := st.migrate(ctx, migs); err != nil {
		db.Close()
		return nil, err
	}
	return st, nil
}

// persistWAL keeps spaces.db-wal and spaces.db-shm when the last connection closes. Otherwise every
// search, a fresh process, creates both files and unlinks them again: two inode allocations, a
// 32 KiB shared-memory index rebuilt and two unlinks, about a third of a rare-term search.
// A reader's connection also keeps its prepared statements (stmtCache): a store kept open between
// searches prepares each statement once.
type persistWAL struct {
	driver.Connector
	cacheStmts bool
}

// Connect opens a connection and sets SQLITE_FCNTL_PERSIST_WAL on it.
func (p persistWAL) Connect(ctx context.Context) (driver.Conn, error) {
	c, err := p.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	if fc, ok := c.(sqlite.FileControl); ok {
		if _, err := fc.FileControlPersistWAL("main", 1); err != nil {
			c.Close()
			return nil, fmt.Errorf("keep the write-ahead log: %w", err)
		}
	}
	if p.cacheStmts {
		return newStmtCache(c), nil
	}
	return c, nil
}

// Close releases the database and the writer lock.
func (s *Store) Close() error {
	err := s.db.Close()
	if uerr := s.lock.Unlock(); err == nil {
		err = uerr
	}
	return err
}

// searchableFrom is the oldest schema version a reader can search as it is when it cannot bring
// the file up to date: version 7 adds comment_blocks, which a search can do without, and 7 and 8
// redact the texts again, which a file nobody can write keeps as an earlier build redacted them.
const searchableFrom = 6

// readOnly reports whether err is SQLite refusing a write to a file it may only read.
func readOnly(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_READONLY, sqlite3.SQLITE_PERM, sqlite3.SQLITE_CANTOPEN:
		return true
	}
	return false
}

// note tells trace a step of a search's plan.
func (s *Store) note(format string, args ...any) {
	if s.trace != nil {
		s.trace(fmt.Sprintf(format, args...))
	}
}

// hasFTS5 reports whether the linked SQLite can build the trigram index; the store read it when
// it opened (the linked SQLite does not change while the process runs).
func (s *Store) hasFTS5(ctx context.Context) (bool, error) { return s.fts5, nil }

// migrate checks the file's identity and version and applies the missing migrations in order.
func (s *Store) migrate(ctx context.Context, migs []string) error {
	version, appID, tables, err := s.header(ctx)
	if err != nil {
		return err
	}
	want := len(migs)
	switch {
	case version > want:
		return errs.Invalidf("%s has schema version %d, newer than this cairn understands (%d); upgrade cairn or load the conversations into a new workspace", s.path, version, want)
	case appID != 0 && appID != applicationID:
		return errs.Invalidf("%s is not a cairn space store (application_id %#x)", s.path, appID)
	case version == 0 && tables > 0:
		return errs.Invalidf("%s is not a cairn space store (it has %d tables but no cairn schema version); move it away and import again", s.path, tables)
	case version == want:
		return nil
	}
	if !s.fts5 {
		return ErrNoFTS5
	}
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return s.dbErr(err, "open")
	}
	defer conn.Close()
	redacted := false // this upgrade has redacted the texts again with this build's rules
	for v := version; v < want; v++ {
		fill := migrationFills[v+1]
		if redactedAgainAt[v+1] && !redacted {
			fill, redacted = redactAgain, true
		}
		if err := migrateOne(ctx, conn, v, migs[v], fill); err != nil {
			if !s.writer && v >= searchableFrom && readOnly(err) {
				// a reader where nothing can be written (a read-only workspace, or a file
				// opened as immutable) searches the file as it is: without comment_blocks
				// before version 7
				if v < 7 {
					s.streamMax = 0
				}
				// and a short-term index without runs of four before version 18
				s.noQuads = v < 18
				// or of three before version 19
				s.noTris = v < 19
				return nil
			}
			return s.dbErr(err, fmt.Sprintf("migrate from schema version %d to %d", v, v+1))
		}
	}
	return nil
}

// redactAgain is the step of the migrations of redactedAgainAt.
func redactAgain(ctx context.Context, db execer) error {
	_, err := reindexTexts(ctx, db, redact.New(), nil, false)
	return err
}

// migrateOne applies one migration, then its fill when it has one (the steps SQL alone cannot
// do), and records its version in the same transaction.
func migrateOne(ctx context.Context, conn *sql.Conn, from int, stmt string, fill func(ctx context.Context, db execer) error) error {
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		return err
	}
	// re-read inside the lock: another process may have migrated meanwhile
	var v int
	if err := conn.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		conn.ExecContext(ctx, "ROLLBACK")
		return err
	}
	if v != from {
		_, err := conn.ExecContext(ctx, "ROLLBACK")
		return err
	}
	if _, err := conn.ExecContext(ctx, stmt); err != nil {
		conn.ExecContext(ctx, "ROLLBACK")
		return err
	}
	if fill != nil {
		if err := fill(ctx, conn); err != nil {
			conn.ExecContext(ctx, "ROLLBACK")
			return err
		}
	}
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d; PRAGMA application_id = %d", from+1, applicationID)); err != nil {
		conn.ExecContext(ctx, "ROLLBACK")
		return err
	}
	_, err := conn.ExecContext(ctx, "COMMIT")
	return err
}

// header reads user_version, application_id and the number of tables, and notes whether the
// linked SQLite has FTS5, in one statement: a search opens the store afresh in every process,
// and each statement prepared at open is time before its first answer.
func (s *Store) header(ctx context.Context) (version, appID, tables int, err error) {
	err = s.db.QueryRowContext(ctx, `SELECT (SELECT user_version FROM pragma_user_version),
		(SELECT application_id FROM pragma_application_id),
		(SELECT count(*) FROM sqlite_master WHERE type = 'table'),
		(SELECT count(*) FROM pragma_module_list WHERE name = 'fts5')`).Scan(&version, &appID, &tables, &s.fts5)
	if err != nil {
		return 0, 0, 0, s.dbErr(err, "read schema version")
	}
	return version, appID, tables, nil
}

// dbErr gives SQLite failures a code: locked too long is STORAGE_BUSY, a file that is not a
// database is INVALID_INPUT, anything else INTERNAL with what was being done.
func (s *Store) dbErr(err error, doing string) error {
	if err == nil {
		return nil
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
			return errs.New(errs.Busy, "%s: %s is locked by another process (waited %s; %s)", doing, s.path, s.wait, errs.Field("wait", errs.Retry))
		case sqlite3.SQLITE_NOTADB:
			return errs.Invalidf("%s: %s is not an SQLite database; move it away and import again", doing, s.path)
		case sqlite3.SQLITE_CORRUPT:
			return errs.Invalidf("%s: %s is damaged (%v); move it away and import again", doing, s.path, err)
		case sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_READONLY, sqlite3.SQLITE_IOERR, sqlite3.SQLITE_FULL:
			// SQLite says which call failed, not why: a read-only file system or a folder
			// not writable is the user's to fix, and said so
			if werr := workspace.CheckWritableDir(filepath.Dir(s.path)); werr != nil {
				// the SQLite error stays in the chain: openRead falls back to an immutable open on it
				return errs.Wrap(errs.Invalid, err, "%s", workspace.FSError(werr, "%s %s", doing, s.path).Error())
			}
		}
	}
	return fmt.Errorf("%s %s: %w", doing, s.path, err)
}
