package opencode

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/cairn-dev/cairn/core/opencode/opencodetest"
)

// cairn's read never blocks OpenCode's writer: a write goes through while cairn holds a read
// transaction open, and cairn's snapshot stays what it was.
func TestReadDoesNotBlockTheWriter(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "opencode.db")
	opencodetest.Build(t, "todowrite", path, nil)
	w := opencodetest.Writer(t, path)
	defer w.Close()
	if _, err := w.Exec("UPDATE todo SET status='completed' WHERE position=2"); err != nil {
		t.Fatal(err)
	}
	d, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRow("SELECT count(*) FROM todo WHERE status='completed'").Scan(&n); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20; i++ {
		if _, err := w.Exec("INSERT INTO todo (session_id, content, status, priority, position, time_created, time_updated) VALUES ('ses_dcb6a13d3ffe00000000000001', 'x', 'completed', 'low', ?, 1, 1)", 100+i); err != nil {
			t.Fatalf("OpenCode's write %d while cairn reads: %v", i, err)
		}
	}
	var m int
	if err := tx.QueryRow("SELECT count(*) FROM todo WHERE status='completed'").Scan(&m); err != nil || m != n {
		t.Errorf("cairn's snapshot moved: %d then %d (%v)", n, m, err)
	}
}

func TestValidSessionID(t *testing.T) {
	for id, ok := range map[string]bool{"ses_dcb6a13d3ffe00000000000001": true, "ses_1Ab": true, "ses_": false, "ses_a/b": false, "../x": false, "ses_a-b": false} {
		if ValidSessionID(id) != ok {
			t.Errorf("%q: %v", id, !ok)
		}
	}
}
