package spaces

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// The short-term index's lists read directly are FTS5's own answers: for single tokens and ANDs
// of two and three, newest first, on lists of one page and of hundreds (small pages), in one
// segment and in many, with rows deleted (tombstones) and written again, and after optimize.
func TestDoclistsEqualMatch(t *testing.T) {
	db := shortIndexDB(t, `INSERT INTO comments_short(comments_short, rank) VALUES ('pgsz', 80)`,
		`INSERT INTO comments_short(comments_short, rank) VALUES ('automerge', 0)`)
	rng := rand.New(rand.NewPCG(27, 3))
	vocab := []string{"a", "b", "ab", "c", "_q00001", "rea", "ック", "z9", "long_token_of_many_bytes", "q"}
	weights := []int{2, 3, 5, 9, 20, 40, 70, 150, 400, 1000} // one in weights[i] rows holds vocab[i]
	doc := func() string {
		var toks []string
		for i, w := range weights {
			if rng.IntN(w) == 0 {
				toks = append(toks, vocab[i])
			}
		}
		toks = append(toks, fmt.Sprintf("u%d", rng.IntN(50)))
		return strings.Join(toks, " ")
	}
	rid := int64(0)
	write := func(n int) {
		tx, err := db.Begin()
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < n; i++ {
			rid += 1 + int64(rng.IntN(3))
			if _, err := tx.Exec(`INSERT INTO comments_short(rowid, grams) VALUES (?, ?)`, rid, doc()); err != nil {
				t.Fatal(err)
			}
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	var prev *ftsStructure // the structure of the stage before: each stage's first opening assumes it
	check := func(stage string) {
		ctx := context.Background()
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		d, err := openDoclists(ctx, tx, prev)
		if err != nil {
			t.Fatalf("%s: %v", stage, err)
		}
		defer func() { prev = d.known }()
		// the stage is what it says: lists of many pages, in as many segments
		it, err := tokenRowids(d, "a")
		if err != nil {
			t.Fatal(err)
		}
		defer it.close()
		pages := int64(0)
		for _, dl := range it.lists {
			pages += dl.lastPg - dl.firstPg + 1
		}
		if n := map[string]int{"one segment": 1, "six segments": 6, "optimized": 1}[stage]; n > 0 && len(d.segs) != n || n == 0 && len(d.segs) <= 6 || pages < 20 {
			t.Fatalf("%s: %d segments, \"a\" on %d pages", stage, len(d.segs), pages)
		}
		queries := [][]string{}
		for _, v := range append(vocab, "u7", "absent", "0", "") {
			queries = append(queries, []string{v})
		}
		for i := 0; i < 40; i++ {
			q := []string{vocab[rng.IntN(len(vocab))], vocab[rng.IntN(len(vocab))]}
			if i%3 == 0 {
				q = append(q, fmt.Sprintf("u%d", rng.IntN(50)))
			}
			queries = append(queries, q)
		}
		for _, q := range queries {
			var want []int64
			if !slices.Contains(q, "") {
				parts := make([]string, len(q))
				for i, tok := range q {
					parts[i] = ftsPhrase(tok)
				}
				rows, err := tx.Query(`SELECT rowid FROM comments_short WHERE comments_short MATCH ? ORDER BY rowid DESC`, strings.Join(parts, " AND "))
				if err != nil {
					t.Fatal(err)
				}
				for rows.Next() {
					var r int64
					rows.Scan(&r)
					want = append(want, r)
				}
				rows.Close()
			}
			var its []*descIter
			for _, tok := range q {
				it, err := tokenRowids(d, tok)
				if err != nil {
					t.Fatalf("%s: %q: %v", stage, tok, err)
				}
				its = append(its, it)
				defer it.close()
			}
			x := newIntersection(its)
			got, more := x.next(1<<30, nil)
			err, all := x.err, !more
			if err != nil || !all || !reflect.DeepEqual(got, want) && len(got)+len(want) > 0 {
				t.Fatalf("%s: %q: %d rowids (all %v, %v), FTS5 %d\n got %v\nwant %v", stage, q, len(got), all, err, len(want), head(got), head(want))
			}
			// and the first few only, with the rest left
			if len(want) > 3 {
				its = its[:0]
				for _, tok := range q {
					it, _ := tokenRowids(d, tok)
					its = append(its, it)
					defer it.close()
				}
				// and a few at a time
				x := newIntersection(its)
				got, more := x.next(3, nil)
				if x.err != nil || !more || !reflect.DeepEqual(got, want[:3]) {
					t.Fatalf("%s: %q the first 3: %v %v %v, want %v", stage, q, got, more, x.err, want[:3])
				}
				for more {
					got, more = x.next(1+rng.IntN(40), got)
				}
				if x.err != nil || !reflect.DeepEqual(got, want) {
					t.Fatalf("%s: %q a few at a time: %d rowids (%v), want %d", stage, q, len(got), x.err, len(want))
				}
			}
		}
	}
	write(3000)
	check("one segment")
	for i := 0; i < 5; i++ {
		write(200 + rng.IntN(400))
	}
	check("six segments")
	// rows deleted from every segment, some written again with other tokens
	rows, err := db.Query(`SELECT rowid FROM comments_short`)
	if err != nil {
		t.Fatal(err)
	}
	var all []int64
	for rows.Next() {
		var r int64
		rows.Scan(&r)
		all = append(all, r)
	}
	rows.Close()
	for _, r := range all {
		if rng.IntN(7) != 0 {
			continue
		}
		if _, err := db.Exec(`DELETE FROM comments_short WHERE rowid = ?`, r); err != nil {
			t.Fatal(err)
		}
		if rng.IntN(2) == 0 {
			if _, err := db.Exec(`INSERT INTO comments_short(rowid, grams) VALUES (?, ?)`, r, doc()); err != nil {
				t.Fatal(err)
			}
		}
	}
	var tomb int
	if err := db.QueryRow(`SELECT count(*) FROM comments_short_data WHERE id >= ?`, int64(ftsTombstoneBase)<<ftsSegmentShift).Scan(&tomb); err != nil || tomb == 0 {
		t.Fatalf("no tombstone page written (%v): the test does not exercise them", err)
	}
	check("tombstones")
	if _, err := db.Exec(`INSERT INTO comments_short(comments_short) VALUES ('optimize')`); err != nil {
		t.Fatal(err)
	}
	check("optimized")
}

func head(r []int64) []int64 { return r[:min(len(r), 12)] }

func TestParseStructureRefusesMerge(t *testing.T) {
	// version 2, one level with a merge of one segment under way
	rec := []byte{0, 0, 0, 0, 0xff, 0, 0, 1, 1, 1, 5, 1, 1, 3, 1, 9, 0, 0, 0, 0, 0}
	if _, err := parseStructure(rec); err == nil {
		t.Fatal("a structure with a merge under way was read")
	}
	rec[9+1] = 1
	rec[11] = 0 // no merge
	if segs, err := parseStructure(rec); err != nil || len(segs) != 1 || segs[0].id != 3 || segs[0].last != 9 {
		t.Fatalf("%+v %v", segs, err)
	}
	if _, err := parseStructure(rec[:12]); err == nil {
		t.Fatal("a cut structure record was read")
	}
}

// A query of several tokens reads its candidates from their lists intersected directly
// (directStream), in a space written by several imports (segments of its own each) with
// comments changed and removed (tombstones): its hits are the all-LIKE reference's for terms
// common apart and rare together, common together, and rare, at every limit.
func TestDirectStreamEqualsLike(t *testing.T) {
	ws := newWorkspace(t)
	rng := rand.New(rand.NewPCG(5, 27))
	words := []string{"rea", "ック", "deploy", "webfetch", "the area", "バックアップ", "kumquat", "re", "ea", "x"}
	head := []string{`{"type":"space","id":"s","owner":"o"}`, `{"type":"task","id":1,"space":"s","title":"cur"}`, `{"type":"task","id":2,"space":"s","title":"other"}`}
	comment := func(id int, body string) string {
		return fmt.Sprintf(`{"type":"comment","id":%d,"task":2,"kind":"result","author":"a","created_at":"2026-01-%02dT%02d:%02d:00Z","body":%q}`,
			id, 1+id/400, (id/60)%24, id%60, body)
	}
	body := func() string {
		var b []string
		for k := 1 + rng.IntN(4); k > 0; k-- {
			b = append(b, words[rng.IntN(len(words))])
		}
		return strings.Join(b, " ")
	}
	id := 0
	for batch := 0; batch < 4; batch++ {
		lines := slices.Clone(head)
		for i := 0; i < 700; i++ {
			lines = append(lines, comment(id, body()))
			id++
		}
		// and some of the comments before, changed
		for i := 0; i < 40 && batch > 0; i++ {
			lines = append(lines, comment(rng.IntN(id), body()))
		}
		importText(t, ws, strings.Join(lines, "\n"))
	}
	st := openChecked(t, ws)
	var segs int
	if err := st.db.QueryRow(`SELECT count(DISTINCT segid) FROM comments_short_idx`).Scan(&segs); err != nil || segs < 2 {
		t.Fatalf("%d segments (%v): the space does not exercise them", segs, err)
	}
	var tomb int
	if err := st.db.QueryRow(`SELECT count(*) FROM comments_short_data WHERE id >= ?`, int64(ftsTombstoneBase)<<ftsSegmentShift).Scan(&tomb); err != nil || tomb == 0 {
		t.Fatalf("no tombstone page (%v): the space does not exercise them", err)
	}
	for _, q := range []string{"rea ック", "deploy webfetch", "kumquat x", "バックアップ rea", "area ック", "re ea", "kumquat deploy webfetch", "ea ック x"} {
		for _, limit := range []int{1, 3, 10, MaxLimit} {
			in := SearchInput{Query: q, Limit: limit}
			in.validate()
			if got, want := searchBoth(t, st, in); !reflect.DeepEqual(got, want) {
				t.Fatalf("%q limit %d: %v, LIKE %v", q, limit, refs(got), refs(want))
			}
		}
	}
	if st.directed.Load() == 0 {
		t.Error("no search read the tokens' lists directly")
	}
	// written to again while the store is open: the structure it remembers is stale, and is
	// read again
	before := st.structure.Load()
	lines := slices.Clone(head)
	for i := 0; i < 300; i++ {
		lines = append(lines, comment(id, "rea ック "+body()))
		id++
	}
	importText(t, ws, strings.Join(lines, "\n"))
	for _, q := range []string{"rea ック", "deploy webfetch", "area ック"} {
		in := SearchInput{Query: q, Limit: MaxLimit}
		in.validate()
		if got, want := searchBoth(t, st, in); !reflect.DeepEqual(got, want) || len(refs(want)) == 0 {
			t.Fatalf("%q after another import: %v, LIKE %v", q, refs(got), refs(want))
		}
	}
	if after := st.structure.Load(); before == nil || after == nil || bytes.Equal(before.rec, after.rec) {
		t.Error("the structure remembered was not read again after the import")
	}
}

// A short-term index whose records are damaged is never read past their ends: each damaged
// leaf page or structure record gives errDoclistShape or the lists FTS5's records now hold,
// never a panic.
func TestDoclistsDamaged(t *testing.T) {
	db := shortIndexDB(t, `INSERT INTO comments_short(comments_short, rank) VALUES ('pgsz', 64)`)
	rng := rand.New(rand.NewPCG(8, 1))
	for i := 1; i <= 800; i++ {
		if _, err := db.Exec(`INSERT INTO comments_short(rowid, grams) VALUES (?, ?)`, i*3, []string{"a b", "a c", "b c ab", "ab"}[rng.IntN(4)]); err != nil {
			t.Fatal(err)
		}
	}
	var ids []int64
	rows, err := db.Query(`SELECT id FROM comments_short_data WHERE id >= 10`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		rows.Scan(&id)
		ids = append(ids, id)
	}
	rows.Close()
	ctx := context.Background()
	for round := 0; round < 300; round++ {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		id := ids[rng.IntN(len(ids))]
		var block []byte
		if err := tx.QueryRow(`SELECT block FROM comments_short_data WHERE id = ?`, id).Scan(&block); err != nil {
			t.Fatal(err)
		}
		switch rng.IntN(3) {
		case 0: // bytes changed
			for k := 1 + rng.IntN(4); k > 0; k-- {
				block[rng.IntN(len(block))] = byte(rng.IntN(256))
			}
		case 1: // cut
			block = block[:rng.IntN(len(block))]
		default: // the page header's offsets
			if len(block) >= 4 {
				block[rng.IntN(4)] = byte(rng.IntN(256))
			}
		}
		if _, err := tx.Exec(`UPDATE comments_short_data SET block = ? WHERE id = ?`, block, id); err != nil {
			t.Fatal(err)
		}
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("record %d damaged: panic %v", id, r)
				}
			}()
			d, err := openDoclists(ctx, tx, nil)
			if err != nil {
				if !errors.Is(err, errDoclistShape) {
					t.Fatalf("record %d damaged: %v", id, err)
				}
				return
			}
			var its []*descIter
			for _, tok := range []string{"a", "ab", "c"} {
				it, err := tokenRowids(d, tok)
				if err != nil {
					if !errors.Is(err, errDoclistShape) {
						t.Fatalf("record %d damaged: %v", id, err)
					}
					return
				}
				defer it.close()
				its = append(its, it)
			}
			x := newIntersection(its)
			for _, more := x.next(5, nil); more; _, more = x.next(5, nil) {
			}
			if x.err != nil && !errors.Is(x.err, errDoclistShape) {
				t.Fatalf("record %d damaged: %v", id, x.err)
			}
		}()
		tx.Rollback()
	}
}

// tokenRowids is the iterator of one token's rowids.
func tokenRowids(d *doclists, tok string) (*descIter, error) {
	its, err := d.tokens([]string{tok})
	if err != nil {
		return nil, err
	}
	return its[0], nil
}

// shortIndexDB is a database of one table, comments_short as spaces.db declares it, set up
// further by the statements of setup (small pages, no automatic merges).
func shortIndexDB(t *testing.T, setup ...string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "d.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(1)
	for _, q := range append([]string{`CREATE VIRTUAL TABLE comments_short USING fts5(grams, content='', contentless_delete=1, detail='none', tokenize='ascii tokenchars _')`}, setup...) {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	return db
}
