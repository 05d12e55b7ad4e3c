package spaces

import (
	"context"
	"database/sql/driver"
	"slices"
)

// stmtCacheSize bounds the prepared statements a reader connection keeps. A search prepares
// five or so (the caller's task, its membership, the index count, the query); their text varies
// with the number of terms and filters, and a walk embeds a position in its text.
const stmtCacheSize = 32

// stmtCache keeps a reader connection's prepared statements by their SQL text, so a store kept
// open between searches (Readers) does not parse and plan the same statements on every call:
// about a quarter of a warm rare-term search was SQLite preparing them. A statement whose
// schema changed meanwhile is prepared again by SQLite itself when it is stepped, and so is one
// whose plan depends on a bound value (a bound LIMIT or LIKE pattern), which is why a search
// binds neither (sqlLimit). A statement still being read (its rows open) is not shared: the
// query runs once, uncached.
type stmtCache struct {
	driver.Conn
	stmts map[string]*cachedStmt
	order []string // the SQL texts of stmts, least recently used first
	ran   int      // statements run, for tests and benchmarks
}

// cachedStmt is one prepared statement and whether rows of it are open.
type cachedStmt struct {
	st      driver.Stmt
	busy    bool
	evicted bool // dropped from the cache while busy: closed when its rows close
}

// newStmtCache wraps c, which must offer the context forms of query and prepare (the modernc
// driver's connection does).
func newStmtCache(c driver.Conn) *stmtCache {
	return &stmtCache{Conn: c, stmts: map[string]*cachedStmt{}}
}

// QueryContext runs query through its cached statement, preparing it the first time.
func (c *stmtCache) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	c.ran++
	return c.query(ctx, query, args)
}

// query is QueryContext, not counted.
func (c *stmtCache) query(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	cs := c.stmts[query]
	if cs == nil {
		st, err := c.Conn.(driver.ConnPrepareContext).PrepareContext(ctx, query)
		if err != nil {
			return nil, err
		}
		cs = &cachedStmt{st: st}
		c.add(query, cs)
	} else {
		c.touch(query)
	}
	if cs.busy {
		return c.Conn.(driver.QueryerContext).QueryContext(ctx, query, args)
	}
	rows, err := cs.st.(driver.StmtQueryContext).QueryContext(ctx, args)
	if err != nil {
		return nil, err
	}
	cs.busy = true
	return &cachedRows{Rows: rows, s: cs}, nil
}

// add caches cs under query, closing the least recently used statement beyond the bound.
func (c *stmtCache) add(query string, cs *cachedStmt) {
	c.stmts[query] = cs
	c.order = append(c.order, query)
	if len(c.order) <= stmtCacheSize {
		return
	}
	old := c.order[0]
	c.order = c.order[1:]
	o := c.stmts[old]
	delete(c.stmts, old)
	if o.busy {
		o.evicted = true
	} else {
		o.st.Close()
	}
}

// touch makes query the most recently used.
func (c *stmtCache) touch(query string) {
	if i := slices.Index(c.order, query); i >= 0 && i != len(c.order)-1 {
		c.order = append(slices.Delete(c.order, i, i+1), query)
	}
}

// Close closes every cached statement, then the connection.
func (c *stmtCache) Close() error {
	for q, cs := range c.stmts {
		if !cs.busy {
			cs.st.Close()
		} else {
			cs.evicted = true
		}
		delete(c.stmts, q)
	}
	c.order = nil
	return c.Conn.Close()
}

// The interfaces database/sql looks for on a connection, passed on to the driver's.

func (c *stmtCache) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	return c.Conn.(driver.ConnPrepareContext).PrepareContext(ctx, query)
}

func (c *stmtCache) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	return c.Conn.(driver.ExecerContext).ExecContext(ctx, query, args)
}

// BeginTx begins a read-only transaction (every search's) with a cached BEGIN, and ends it with
// a cached ROLLBACK or COMMIT: the driver prepares each of them again for every transaction, and
// watches the context of each with a goroutine of its own, about a tenth of a warm rare-term
// search. Neither statement waits for a lock (a deferred BEGIN takes none, and a read
// transaction's end releases its own), so neither needs the context. Any other transaction is
// the driver's.
func (c *stmtCache) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	if !opts.ReadOnly || opts.Isolation != driver.IsolationLevel(0) {
		return c.Conn.(driver.ConnBeginTx).BeginTx(ctx, opts)
	}
	if err := c.run("BEGIN"); err != nil {
		return nil, err
	}
	return readTx{c}, nil
}

// run runs a statement of no rows through its cached statement.
func (c *stmtCache) run(query string) error {
	rows, err := c.query(context.Background(), query, nil)
	if err != nil {
		return err
	}
	return rows.Close()
}

// readTx is a read-only transaction begun by stmtCache.BeginTx.
type readTx struct{ c *stmtCache }

func (t readTx) Commit() error   { return t.c.run("COMMIT") }
func (t readTx) Rollback() error { return t.c.run("ROLLBACK") }

func (c *stmtCache) ResetSession(ctx context.Context) error {
	if r, ok := c.Conn.(driver.SessionResetter); ok {
		return r.ResetSession(ctx)
	}
	return nil
}

func (c *stmtCache) IsValid() bool {
	if v, ok := c.Conn.(driver.Validator); ok {
		return v.IsValid()
	}
	return true
}

// cachedRows gives its statement back to the cache when closed.
type cachedRows struct {
	driver.Rows
	s *cachedStmt
}

func (r *cachedRows) Close() error {
	err := r.Rows.Close()
	if r.s != nil {
		r.s.busy = false
		if r.s.evicted {
			r.s.st.Close()
		}
		r.s = nil
	}
	return err
}
