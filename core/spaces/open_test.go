package spaces

import (
	"context"
	"testing"
)

// A store opened for one search (a CLI process) has a small page cache, so the pages it reads
// reuse a few buffers instead of faulting in fresh memory for each; a store opened to stay
// (OpenRead, as Readers keeps it) has SQLite's default. Both read the FTS5 answer with the header.
func TestOneSearchReaderCache(t *testing.T) {
	ws := fixtureWorkspace(t)
	ctx := context.Background()
	cacheSize := func(st *Store) int {
		t.Helper()
		var n int
		if err := st.db.QueryRowContext(ctx, "PRAGMA cache_size").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	one, release, err := OpenOnce(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if n := cacheSize(one); n != -128 {
		t.Errorf("one-search reader cache_size = %d, want -128", n)
	}
	kept, err := OpenRead(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	defer kept.Close()
	if n := cacheSize(kept); n != -2000 {
		t.Errorf("OpenRead cache_size = %d, want SQLite's default -2000", n)
	}
	for _, st := range []*Store{one, kept} {
		if ok, err := st.hasFTS5(ctx); err != nil || !ok {
			t.Errorf("hasFTS5 = %v, %v; this SQLite has FTS5", ok, err)
		}
	}
}
