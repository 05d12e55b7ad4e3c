package spaces

import (
	"context"
	"database/sql"
	"fmt"
	"testing"
	"unsafe"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

// recorder is a querier that notes every statement it runs and its arguments.
type recorder struct {
	querier
	stmts []recorded
}

// recorded is one statement a search ran.
type recorded struct {
	query string
	args  []any
}

func (r *recorder) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	r.stmts = append(r.stmts, recorded{query, args})
	return r.querier.QueryContext(ctx, query, args...)
}

func (r *recorder) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	r.stmts = append(r.stmts, recorded{query, args})
	return r.querier.QueryRowContext(ctx, query, args...)
}

// Every statement a search runs is prepared once: binding its arguments must not make SQLite
// prepare it again at its first step, as it does for a bound LIMIT or LIKE pattern (its plan
// depends on the value). Each statement of every plan (stream, resumed stream, probe,
// index-driven, windowed walk, storage-order scan, neighbours) is run as the search ran it and SQLite's count of
// re-preparations read.
func TestSearchStatementsPreparedOnce(t *testing.T) {
	ws := fixtureWorkspace(t)
	st, err := OpenRead(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	var all []recorded
	// the stream first (a resumed one with a first read of one match), then with no stream
	for _, probe := range []int{0, defaultProbeWindow, 1} {
		for _, driveMax := range []int{0, defaultFTSDriveMax} {
			stream := [][2]int{{defaultStreamMax, defaultFirstStreamMax}, {defaultStreamMax, 1}, {0, 0}}[(probe+driveMax)%3]
			st.probeWindow, st.ftsDriveMax, st.walkWindow = probe, driveMax, 2
			st.streamMax, st.firstStreamMax = stream[0], stream[1]
			for _, in := range []SearchInput{
				{Query: "migration", Limit: 2, Context: 1},
				{Query: "ab", Limit: 10},
				{Query: "a 認", Limit: 1, Kind: "result"},
				{Query: "xyzzy", Limit: 3, TaskID: "task:15"},
			} {
				tx, err := st.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
				if err != nil {
					t.Fatal(err)
				}
				rec := &recorder{querier: tx}
				sc, unavailable, err := st.resolveTask(ctx, rec, bob.User, ID(bob.Task))
				if err != nil || unavailable != nil {
					t.Fatalf("resolve: %v %v", unavailable, err)
				}
				if _, err := st.query(ctx, rec, sc, in, false); err != nil {
					t.Fatalf("%v: %v", in, err)
				}
				tx.Rollback()
				all = append(all, rec.stmts...)
			}
		}
	}
	tls := libc.NewTLS()
	defer tls.Close()
	db := openLib(t, tls, st.path)
	defer sqlite3.Xsqlite3_close_v2(tls, db)
	seen := map[string]bool{}
	for _, r := range all {
		if key := fmt.Sprint(r.query, r.args); !seen[key] {
			seen[key] = true
			if n := runLib(t, tls, db, r.query, r.args); n != 0 {
				t.Errorf("prepared again %d times after binding %v:\n%s", n, r.args, r.query)
			}
		}
	}
	if len(seen) < 10 {
		t.Errorf("only %d distinct statements ran; the plans were not all exercised", len(seen))
	}
}

// openLib opens path read-only through the SQLite library itself, below database/sql.
func openLib(t *testing.T, tls *libc.TLS, path string) uintptr {
	t.Helper()
	name, err := libc.CString(path)
	if err != nil {
		t.Fatal(err)
	}
	defer libc.Xfree(tls, name)
	pdb := tls.Alloc(int(unsafe.Sizeof(uintptr(0))))
	defer tls.Free(int(unsafe.Sizeof(uintptr(0))))
	if rc := sqlite3.Xsqlite3_open_v2(tls, name, pdb, sqlite3.SQLITE_OPEN_READONLY, 0); rc != sqlite3.SQLITE_OK {
		t.Fatalf("open %s: code %d", path, rc)
	}
	return cWord(pdb)
}

// cWord reads the pointer-sized word at p, memory of the SQLite library's allocator (outside
// the Go heap).
func cWord(p uintptr) uintptr { return *(*uintptr)(unsafe.Add(unsafe.Pointer(nil), p)) }

// runLib prepares query, binds args as the driver does (those it has parameters for), steps it to the end and returns how
// many times SQLite prepared it again.
func runLib(t *testing.T, tls *libc.TLS, db uintptr, query string, args []any) int32 {
	t.Helper()
	q, err := libc.CString(query)
	if err != nil {
		t.Fatal(err)
	}
	defer libc.Xfree(tls, q)
	pst := tls.Alloc(int(unsafe.Sizeof(uintptr(0))))
	defer tls.Free(int(unsafe.Sizeof(uintptr(0))))
	if rc := sqlite3.Xsqlite3_prepare_v2(tls, db, q, -1, pst, 0); rc != sqlite3.SQLITE_OK {
		t.Fatalf("prepare (code %d):\n%s", rc, query)
	}
	stmt := cWord(pst)
	defer sqlite3.Xsqlite3_finalize(tls, stmt)
	var texts []uintptr
	defer func() {
		for _, p := range texts {
			libc.Xfree(tls, p)
		}
	}()
	// a plan's arguments serve all its statements; one need not use the last ones
	n := int(sqlite3.Xsqlite3_bind_parameter_count(tls, stmt))
	for i, a := range args[:min(n, len(args))] {
		var rc int32
		switch v := a.(type) {
		case string:
			p, err := libc.CString(v)
			if err != nil {
				t.Fatal(err)
			}
			texts = append(texts, p)
			rc = sqlite3.Xsqlite3_bind_text(tls, stmt, int32(i+1), p, int32(len(v)), 0)
		case []byte: // (a term of the short-term index's own records, doclist.go)
			p, err := libc.CString(string(v))
			if err != nil {
				t.Fatal(err)
			}
			texts = append(texts, p)
			rc = sqlite3.Xsqlite3_bind_blob(tls, stmt, int32(i+1), p, int32(len(v)), 0)
		case int:
			rc = sqlite3.Xsqlite3_bind_int64(tls, stmt, int32(i+1), int64(v))
		case int64:
			rc = sqlite3.Xsqlite3_bind_int64(tls, stmt, int32(i+1), v)
		default:
			t.Fatalf("argument %d of type %T", i+1, a)
		}
		if rc != sqlite3.SQLITE_OK {
			t.Fatalf("bind %d: code %d", i+1, rc)
		}
	}
	for {
		rc := sqlite3.Xsqlite3_step(tls, stmt)
		if rc == sqlite3.SQLITE_DONE {
			break
		}
		if rc != sqlite3.SQLITE_ROW {
			t.Fatalf("step (code %d):\n%s", rc, query)
		}
	}
	return sqlite3.Xsqlite3_stmt_status(tls, stmt, sqlite3.SQLITE_STMTSTATUS_REPREPARE, 0)
}
