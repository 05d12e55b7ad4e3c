package spaces

import (
	"context"
	"database/sql"
	"fmt"
	"reflect"
	"testing"
)

// rawCache runs fn on the stmtCache under st's one connection.
func rawCache(t *testing.T, st *Store, fn func(*stmtCache)) {
	t.Helper()
	conn, err := st.db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.Raw(func(dc any) error {
		c, ok := dc.(*stmtCache)
		if !ok {
			return fmt.Errorf("a reader's connection is %T, not a statement cache", dc)
		}
		fn(c)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// A reader prepares a statement once and reuses it, answering as a fresh connection does; a
// statement whose rows are still open is not shared, and the cache stays within its bound,
// closing an evicted statement only once its rows are closed.
func TestStmtCache(t *testing.T) {
	ws := fixtureWorkspace(t)
	st, err := OpenRead(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	const q = `SELECT id FROM comments WHERE task = ? ORDER BY id`
	ids := func(task string) []string {
		t.Helper()
		rows, err := st.db.QueryContext(ctx, q, task)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var id string
			rows.Scan(&id)
			out = append(out, id)
		}
		return out
	}
	first := ids("13")
	var kept *cachedStmt
	rawCache(t, st, func(c *stmtCache) { kept = c.stmts[q] })
	if kept == nil || len(first) == 0 {
		t.Fatalf("statement not kept (%v) or no comments of task 13 (%v)", kept, first)
	}
	if again := ids("13"); !reflect.DeepEqual(again, first) {
		t.Fatalf("the kept statement answered %v, first %v", again, first)
	}
	rawCache(t, st, func(c *stmtCache) {
		if c.stmts[q] != kept {
			t.Error("the statement was prepared again")
		}
	})

	// The same statement asked again while its rows are open, then evicted while still open.
	tx, err := st.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	outer, err := tx.QueryContext(ctx, q, "13")
	if err != nil {
		t.Fatal(err)
	}
	if !outer.Next() {
		t.Fatal("no first row")
	}
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM (`+q+`)`, "13").Scan(&n); err != nil || n != len(first) {
		t.Fatalf("count beside open rows: %d, %v", n, err)
	}
	inner, err := tx.QueryContext(ctx, q, "16")
	if err != nil {
		t.Fatal(err)
	}
	inner.Close()
	for i := range stmtCacheSize + 3 {
		var v int
		if err := tx.QueryRowContext(ctx, fmt.Sprintf(`SELECT %d`, i)).Scan(&v); err != nil || v != i {
			t.Fatalf("SELECT %d: %d, %v", i, v, err)
		}
	}
	got := []string{}
	for ok := true; ok; ok = outer.Next() {
		var id string
		outer.Scan(&id)
		got = append(got, id)
	}
	if err := outer.Close(); err != nil || !reflect.DeepEqual(got, first) {
		t.Fatalf("rows read across evictions: %v (%v), want %v", got, err, first)
	}
	tx.Rollback()
	rawCache(t, st, func(c *stmtCache) {
		if len(c.stmts) != stmtCacheSize || len(c.order) != stmtCacheSize {
			t.Errorf("%d statements kept (%d in order), bound %d", len(c.stmts), len(c.order), stmtCacheSize)
		}
		if c.stmts[q] != nil {
			t.Error("the least recently used statement was not evicted")
		}
	})
	if !kept.evicted || kept.busy {
		t.Errorf("evicted while read: evicted %v, busy %v", kept.evicted, kept.busy)
	}
}

// A reader's read-only transaction, begun and ended by the cache's own BEGIN and ROLLBACK, reads
// one snapshot: a comment another connection commits meanwhile is seen by the next transaction,
// not by this one; and the statements are the cached ones, not prepared again each time.
func TestStmtCacheReadTx(t *testing.T) {
	ws := fixtureWorkspace(t)
	st, err := OpenRead(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	count := func(q querier) int {
		var n int
		if err := q.QueryRowContext(ctx, `SELECT count(*) FROM comments`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	tx, err := st.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	before := count(tx)
	w, err := Open(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.AddComment(ctx, Comment{Task: "13", Kind: "result", Author: "agent", CreatedAt: "2026-07-03T00:00:00Z", Body: "meanwhile"}); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if n := count(tx); n != before {
		t.Errorf("the transaction saw %d comments, then %d", before, n)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if n := count(st.db); n != before+1 {
		t.Errorf("after the transaction: %d comments, want %d", n, before+1)
	}
	for range 3 {
		tx, err := st.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		count(tx)
		if err := tx.Rollback(); err != nil {
			t.Fatal(err)
		}
	}
	rawCache(t, st, func(c *stmtCache) {
		for _, q := range []string{"BEGIN", "ROLLBACK"} {
			if c.stmts[q] == nil {
				t.Errorf("%s is not a cached statement", q)
			}
		}
	})
}
