// Package pgstore is the space store of a team server on PostgreSQL: the spaces, members, tasks
// and comments of spaces.db (core/spaces) in a versioned schema, written and searched so that
// every answer is the one spaces.db gives for the same records (the texts are prepared by
// core/spaces itself: spaces.ReadImport, spaces.PrepareComment, spaces.Excerpt).
//
// Terms of three or more characters are found through a pg_trgm GIN index of the folded index
// text; terms of one or two characters through a GIN index of each comment's characters and
// character pairs, keyed by a time bucket, read newest bucket first (docs/team-postgres.md).
// Several processes may share one database: every write is an upsert by id inside one
// transaction that holds the store's write lock (an advisory lock), and nothing read from the
// database is kept between calls.
package pgstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/redact"
	"github.com/cairn-dev/cairn/core/workspace"
)

// Options tune a Store; the zero value is the default.
type Options struct {
	// Wait bounds how long a call waits for the database (a connection, the write lock) before
	// it fails with STORAGE_BUSY; 0 is workspace.DefaultWait.
	Wait time.Duration
	// MaxConns is the most connections the store opens (0: the DSN's pool_max_conns when it
	// has one, else DefaultMaxConns).
	MaxConns int32
}

// DefaultMaxConns is the pool of a DSN without pool_max_conns: four connections for each
// processor Go may use, at least 8. pgxpool's own default (4, or the number of CPUs) keeps a
// team server's searches queued for a connection while the database has processors to spare: a
// search spends part of its time in round trips and in this process.
func DefaultMaxConns() int32 { return int32(max(8, 4*runtime.GOMAXPROCS(0))) }

// Store is a space store in one PostgreSQL database. It is safe for concurrent use, and several
// processes may open the same database.
type Store struct {
	pool     *pgxpool.Pool
	wait     time.Duration
	redactor *redact.Redactor
	// probeWindow is how many newest comments of a space a query tests first (tests change it).
	probeWindow int
	// fewMax is the most matches a query of long terms sorts (fewMatches); with more it walks
	// the space newest first (tests change it).
	fewMax int
	// fewLong is the most comments of its long terms alone a query of long and short terms
	// reads from pg_trgm's index (shortTerms; tests change it).
	fewLong int
	// sampleWindow is how many newest comments of a space a query of long and short terms
	// counts its terms in to choose its plan (sampleTerms; 0: never, tests change it).
	sampleWindow int
	// walkWeight is what a comment the walk reads costs against one a query's long terms select
	// in pg_trgm's index (1: both a row read and tested; tests change it).
	walkWeight float64
	// windowMax is how many newest comments a query of long terms tests when the probe found
	// some of its hits (tests change it).
	windowMax int
	// plans counts the plans searches took, by name, for tests.
	plans map[string]int
}

// writeLockKey is the advisory lock every write transaction holds ("crns" as an integer): writes
// are serialised across every process of the database, as spaces.db's writer lock serialises
// them across processes of a workspace; reads never take it.
const writeLockKey = 0x63726e73

// Open connects to the database dsn names (a postgres:// URL or key=value DSN), refuses a
// database whose LC_CTYPE is C or POSIX (pg_trgm would find no trigram in CJK text there), and
// brings its schema to SchemaVersion, creating the pg_trgm extension when it is missing.
func Open(ctx context.Context, dsn string, opt Options) (*Store, error) {
	if opt.Wait <= 0 {
		opt.Wait = workspace.DefaultWait
	}
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, errs.Invalidf("the PostgreSQL address is not a valid DSN or postgres:// URL: %v", redactDSN(err))
	}
	switch {
	case opt.MaxConns > 0:
		cfg.MaxConns = opt.MaxConns
	case !hasPoolMaxConns(dsn):
		cfg.MaxConns = DefaultMaxConns()
	}
	if cfg.ConnConfig.ConnectTimeout <= 0 || cfg.ConnConfig.ConnectTimeout > opt.Wait {
		cfg.ConnConfig.ConnectTimeout = opt.Wait
	}
	if cfg.ConnConfig.RuntimeParams == nil {
		cfg.ConnConfig.RuntimeParams = map[string]string{}
	}
	cfg.ConnConfig.RuntimeParams["application_name"] = "cairn"
	// every search is planned for its own terms: a generic plan cannot tell a rare pattern
	// (pg_trgm's index) from a common one (the newest comments first)
	cfg.ConnConfig.RuntimeParams["plan_cache_mode"] = "force_custom_plan"
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, errs.Invalidf("the PostgreSQL address is not usable: %v", redactDSN(err))
	}
	s := &Store{pool: pool, wait: opt.Wait, redactor: redact.New(), probeWindow: defaultProbeWindow, fewMax: defaultFewMax, fewLong: defaultFewLong, windowMax: defaultWindowMax,
		sampleWindow: defaultSampleWindow, walkWeight: 1}
	// the first contact waits, within the wait, for a database that is starting or restarting
	if err := s.retry(ctx, func() error { return s.checkLocale(ctx) }); err != nil {
		pool.Close()
		return nil, err
	}
	if err := s.migrate(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	if err := s.checkTrigrams(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	if err := s.redactAgain(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	return s, nil
}

// Close closes every connection.
func (s *Store) Close() { s.pool.Close() }

// MaxConns is the most connections the store opens.
func (s *Store) MaxConns() int32 { return s.pool.Config().MaxConns }

// hasPoolMaxConns reports whether dsn sets pool_max_conns (pgxpool reads it; pgconn's parser
// keeps every parameter it does not know among the runtime parameters).
func hasPoolMaxConns(dsn string) bool {
	cfg, err := pgconn.ParseConfig(dsn)
	if err != nil {
		return false
	}
	_, ok := cfg.RuntimeParams["pool_max_conns"]
	return ok
}

// redactDSN keeps a password out of a parse error's text.
func redactDSN(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, "password="); i >= 0 {
		j := strings.IndexAny(msg[i:], " '\"")
		if j < 0 {
			j = len(msg) - i
		}
		msg = msg[:i] + "password=xxxxx" + msg[i+j:]
	}
	return msg
}

// checkLocale refuses a database whose character classification is C or POSIX: pg_trgm takes
// a character into a trigram only if the locale calls it alphanumeric, and C calls no CJK
// character so, so the trigram index would hold nothing of CJK text.
func (s *Store) checkLocale(ctx context.Context) error {
	var db, ctype string
	err := s.withConn(ctx, "read the database's locale", func(ctx context.Context, c *pgxpool.Conn) error {
		return c.QueryRow(ctx, `SELECT current_database(), datctype FROM pg_database WHERE datname = current_database()`).Scan(&db, &ctype)
	})
	if err != nil {
		return err
	}
	if ctype == "C" || ctype == "POSIX" {
		return errs.Invalidf("database %q has LC_CTYPE %s: pg_trgm finds no trigrams in CJK text under it, so every CJK search would find nothing; create the database with a UTF-8 character type (CREATE DATABASE %s LC_CTYPE 'C.UTF-8' LC_COLLATE 'C.UTF-8' TEMPLATE template0, or initdb --locale=C.UTF-8 -E UTF8)", db, ctype, pgx.Identifier{db}.Sanitize())
	}
	return nil
}

// checkTrigrams makes sure the database's pg_trgm sees trigrams in CJK text whatever the
// locale's name says (an ICU or unusual locale).
func (s *Store) checkTrigrams(ctx context.Context) error {
	var n int
	err := s.withConn(ctx, "check pg_trgm", func(ctx context.Context, c *pgxpool.Conn) error {
		return c.QueryRow(ctx, `SELECT cardinality(show_trgm('認証フロー'))`).Scan(&n)
	})
	if err != nil {
		return err
	}
	if n == 0 {
		return errs.Invalidf("pg_trgm finds no trigrams in CJK text in this database (its character type does not call CJK characters alphanumeric), so every CJK search would find nothing; use a database created with LC_CTYPE 'C.UTF-8'")
	}
	return nil
}

// withConn runs f on a connection acquired within the store's wait, every statement of f
// bounded by that wait too (f is a short lookup: a database that stops answering is STORAGE_BUSY
// after the wait, never a hang).
func (s *Store) withConn(ctx context.Context, doing string, f func(context.Context, *pgxpool.Conn) error) error {
	actx, cancel := context.WithTimeout(ctx, s.wait)
	defer cancel()
	if h := s.heldIn(ctx); h != nil {
		c, err := h.conn(actx)
		if err != nil {
			return s.dbErr(ctx, err, doing)
		}
		defer h.check()
		return s.dbErr(ctx, f(actx, c), doing)
	}
	c, err := s.pool.Acquire(actx)
	if err != nil {
		return s.dbErr(ctx, err, doing)
	}
	defer c.Release()
	return s.dbErr(ctx, f(actx, c), doing)
}

// begin starts a transaction on a connection acquired within the store's wait (the one ctx
// holds, if any: Hold); a writer's also takes the write lock, waiting at most the store's wait
// for it.
func (s *Store) begin(ctx context.Context, write bool, doing string) (pgx.Tx, error) {
	actx, cancel := context.WithTimeout(ctx, s.wait)
	defer cancel()
	opts := pgx.TxOptions{}
	if !write {
		opts = pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}
	}
	var tx pgx.Tx
	var err error
	if h := s.heldIn(ctx); h != nil {
		var c *pgxpool.Conn
		if c, err = h.conn(actx); err == nil {
			if tx, err = c.BeginTx(actx, opts); err != nil {
				h.check()
			} else {
				tx = &heldTx{Tx: tx, h: h}
			}
		}
	} else {
		tx, err = s.pool.BeginTx(actx, opts)
	}
	if err != nil {
		return nil, s.dbErr(ctx, err, doing)
	}
	if write {
		if _, err := tx.Exec(ctx, fmt.Sprintf(`SET LOCAL lock_timeout = %d`, s.wait.Milliseconds())); err != nil {
			tx.Rollback(context.WithoutCancel(ctx))
			return nil, s.dbErr(ctx, err, doing)
		}
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(writeLockKey)); err != nil {
			tx.Rollback(context.WithoutCancel(ctx))
			return nil, s.dbErr(ctx, err, doing)
		}
	}
	return tx, nil
}

// heldKey is the context key of a connection held for the calls of one request (Hold).
type heldKey struct{}

// held is a connection of a store's pool that the calls made with one context share (Hold),
// nil until the first of them needs it.
type held struct {
	s *Store
	c *pgxpool.Conn
}

// Hold makes the calls made with the returned context share one connection of the pool:
// acquired, within the wait, by the first call that needs one and kept until release. A team
// server's search request looks its member up and then searches: on one connection, it waits
// for the pool once, not once for each. A call that leaves the connection broken or inside a
// failed transaction gives it back to the pool (which closes it), and the next call takes
// another, so retry works as without it. The calls must be made one at a time (a request's
// are); release returns the connection, and the context must not be used after it.
func (s *Store) Hold(ctx context.Context) (context.Context, func()) {
	h := &held{s: s}
	return context.WithValue(ctx, heldKey{}, h), func() {
		if h.c != nil {
			h.c.Release()
			h.c = nil
		}
	}
}

// heldIn is the connection ctx holds for s, or nil.
func (s *Store) heldIn(ctx context.Context) *held {
	if h, ok := ctx.Value(heldKey{}).(*held); ok && h.s == s {
		return h
	}
	return nil
}

// conn is the held connection, acquired within actx when there is none yet.
func (h *held) conn(actx context.Context) (*pgxpool.Conn, error) {
	if h.c == nil {
		c, err := h.s.pool.Acquire(actx)
		if err != nil {
			return nil, err
		}
		h.c = c
	}
	return h.c, nil
}

// check gives the held connection back to the pool when a call left it unusable: closed (a
// cancelled statement closes it), busy, or in a transaction.
func (h *held) check() {
	if h.c == nil {
		return
	}
	c := h.c.Conn()
	if c.IsClosed() || c.PgConn().IsBusy() || c.PgConn().TxStatus() != 'I' {
		h.c.Release() // the pool destroys such a connection
		h.c = nil
	}
}

// heldTx is a transaction on a held connection: its end checks the connection (held.check),
// where a pool's transaction would release it.
type heldTx struct {
	pgx.Tx
	h *held
}

func (t *heldTx) Commit(ctx context.Context) error {
	err := t.Tx.Commit(ctx)
	t.h.check()
	return err
}

func (t *heldTx) Rollback(ctx context.Context) error {
	err := t.Tx.Rollback(ctx)
	t.h.check()
	return err
}

// unavailable is a database that could not be had: a STORAGE_BUSY error (errs finds its code
// through Unwrap), and whether the same call made again at once may succeed (retry).
type unavailable struct {
	err   error
	again bool
}

func (u *unavailable) Error() string { return u.err.Error() }
func (u *unavailable) Unwrap() error { return u.err }

// transient is the one place that tells a database unavailable for now (STORAGE_BUSY: try again
// later) from any other failure: why it is unavailable, worded to follow "the PostgreSQL
// database" ("" when it is not), and whether a call made again at once may succeed (a restart, a
// broken connection, a conflict with another transaction) or already waited its whole wait (a
// lock, the pool, a statement past its time).
func transient(err error) (why string, again bool) {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		// a connection refused by the server (starting up, too many clients) is a ConnectError
		// around a PgError: the server's code decides, so a wrong password is not "busy"
		switch pe.Code {
		case "40001":
			return "met a conflicting transaction (serialization failure)", true
		case "40P01":
			return "met a deadlock with another transaction", true
		case "57P01", "57P02":
			return "is shutting down or restarting (" + pe.Message + ")", true
		case "57P03":
			return "is starting up or shutting down (" + pe.Message + ")", true
		case "53300":
			return "has too many connections", true
		case "55P03":
			return "held a lock past the wait", false
		case "57014":
			return "ran a statement past its time limit", false
		}
		if strings.HasPrefix(pe.Code, "08") { // connection_exception
			return "connection failed (" + pe.Message + ")", true
		}
		return "", false
	}
	var ce *pgconn.ConnectError
	var ne net.Error
	switch {
	case errors.As(err, &ce):
		// refused, no such socket, no route, a TLS or dial timeout
		return "cannot be reached", true
	case errors.Is(err, context.DeadlineExceeded), pgconn.Timeout(err):
		return "did not answer within the wait", false
	case strings.Contains(err.Error(), "closed pool"): // puddle.ErrClosedPool, which pgxpool does not export
		return "connections are being closed", false
	case pgconn.SafeToRetry(err), errors.Is(err, pgconn.ErrConnClosed), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, io.EOF), errors.As(err, &ne):
		// a connection that broke mid-call (the server stopped, a reset, a broken pipe)
		return "connection broke", true
	}
	return "", false
}

// dbErr gives PostgreSQL failures a code: what transient calls unavailable is STORAGE_BUSY
// (try again); ctx ending is CANCELLED; anything else INTERNAL with what was being done.
func (s *Store) dbErr(ctx context.Context, err error, doing string) error {
	if err == nil {
		return nil
	}
	if errs.CodeOf(err) != errs.Internal {
		return err // coded already
	}
	if stopped := errs.Stopped(ctx, doing); stopped != nil {
		return stopped
	}
	if why, again := transient(err); why != "" {
		return &unavailable{again: again, err: errs.New(errs.Busy, "%s: the PostgreSQL database %s (waited up to %s; %s)", doing, why, s.wait, errs.Field("wait", errs.Retry))}
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: PostgreSQL: %s (%s)", doing, pe.Message, pe.Code)
	}
	return fmt.Errorf("%s: %w", doing, err)
}

// retry runs op, and runs it again while it fails with a database away for a moment (restarting,
// a connection that broke, a conflict with another transaction: transient's again), pausing 50
// ms, doubling up to 1 s, until the store's wait has passed; then its last error is the answer.
// Only calls whose second run is harmless use it: reads, and writes that are upserts by id.
func (s *Store) retry(ctx context.Context, op func() error) error {
	deadline := time.Now().Add(s.wait)
	pause := 50 * time.Millisecond
	for {
		err := op()
		var u *unavailable
		if err == nil || !errors.As(err, &u) || !u.again {
			return err
		}
		left := time.Until(deadline)
		if left <= 0 {
			return err
		}
		t := time.NewTimer(min(pause, left))
		select {
		case <-ctx.Done():
			t.Stop()
			return errs.Stopped(ctx, "wait for the database")
		case <-t.C:
		}
		pause = min(2*pause, time.Second)
	}
}

// noNUL is s as a PostgreSQL text column can hold it: text cannot hold U+0000, which a JSON
// string may carry; columns that answers show keep their bytes (bytea) instead.
func noNUL(s string) string {
	if strings.IndexByte(s, 0) < 0 {
		return s
	}
	return strings.ReplaceAll(s, "\x00", "\uFFFD")
}

// indexText is an index text as the itext column holds it: U+0000 becomes a space, which no
// query term holds (terms are split on white space and cannot hold U+0000), so every term
// matches exactly where it matches the text itself.
func indexText(s string) string {
	if strings.IndexByte(s, 0) < 0 {
		return s
	}
	return strings.ReplaceAll(s, "\x00", " ")
}
