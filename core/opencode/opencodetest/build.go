// Package opencodetest builds OpenCode databases from the recordings in fixtures/opencode/ for
// tests: the recorded schema (db-schema.sql) and the rows of a scenario's db-rows.json.
package opencodetest

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	_ "modernc.org/sqlite"
)

// T is what reports a failure: a *testing.T, or a testscript's *TestScript.
type T interface {
	Fatalf(format string, args ...any)
}

// Fixtures is the repository's fixtures/opencode folder.
func Fixtures() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "fixtures", "opencode")
}

// Tables are the tables db-rows.json holds whole, in the order their foreign keys need.
var Tables = []string{"session", "message", "part", "todo"}

// Build writes an OpenCode database at path from the scenario's rows (every session, message,
// part and todo row), in WAL mode as OpenCode keeps it, and closes it cleanly (no -wal left).
// keep, when not nil, selects the rows to write.
func Build(t T, scenario, path string, keep func(table string, row map[string]any) bool) {
	db := Create(t, path)
	defer db.Close()
	Insert(t, db, scenario, keep)
}

// Create makes an empty OpenCode database at path with the recorded schema, in WAL mode, and
// answers it open.
func Create(t T, path string) *sql.DB {
	schema, err := os.ReadFile(filepath.Join(Fixtures(), "db-schema.sql"))
	if err != nil {
		t.Fatalf("%v", err)
	}
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatalf("%v", err)
	}
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(string(schema)); err != nil {
		t.Fatalf("schema: %v", err)
	}
	return db
}

// Rows reads a scenario's db-rows.json.
func Rows(t T, scenario string) map[string][]map[string]any {
	data, err := os.ReadFile(filepath.Join(Fixtures(), scenario, "db-rows.json"))
	if err != nil {
		t.Fatalf("%v", err)
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(data, &all); err != nil {
		t.Fatalf("%v", err)
	}
	out := map[string][]map[string]any{}
	for _, tb := range Tables {
		var rows []map[string]any
		if raw, ok := all[tb]; ok {
			if err := json.Unmarshal(raw, &rows); err != nil {
				t.Fatalf("%s: %v", tb, err)
			}
		}
		out[tb] = rows
	}
	return out
}

// Insert writes a scenario's rows into db; JSON columns (data, model, ...) are written as JSON text.
func Insert(t T, db *sql.DB, scenario string, keep func(table string, row map[string]any) bool) {
	rows := Rows(t, scenario)
	for _, tb := range Tables {
		for _, row := range rows[tb] {
			if keep != nil && !keep(tb, row) {
				continue
			}
			InsertRow(t, db, tb, row)
		}
	}
}

// InsertRow writes one row.
func InsertRow(t T, db *sql.DB, table string, row map[string]any) {
	cols := make([]string, 0, len(row))
	for k := range row {
		cols = append(cols, k)
	}
	sort.Strings(cols)
	args := make([]any, len(cols))
	for i, c := range cols {
		switch v := row[c].(type) {
		case map[string]any, []any:
			b, _ := json.Marshal(v)
			args[i] = string(b)
		case float64:
			if v == float64(int64(v)) {
				args[i] = int64(v)
			} else {
				args[i] = v
			}
		default:
			args[i] = v
		}
	}
	q := fmt.Sprintf("INSERT INTO %s (%s) VALUES (%s)", table, "`"+strings.Join(cols, "`,`")+"`", strings.TrimSuffix(strings.Repeat("?,", len(cols)), ","))
	if _, err := db.Exec(q, args...); err != nil {
		t.Fatalf("insert into %s: %v", table, err)
	}
}

// Writer opens a database as OpenCode does (WAL), to write while cairn reads.
func Writer(t T, path string) *sql.DB {
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)&_pragma=busy_timeout(2000)")
	if err != nil {
		t.Fatalf("%v", err)
	}
	db.SetMaxOpenConns(1)
	return db
}
