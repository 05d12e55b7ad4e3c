package board

import (
	"context"
	"os"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/core/textmatch"
	"github.com/cairn-dev/cairn/core/workspace"
	"github.com/cairn-dev/cairn/scripts/gen-board/boardgen"
)

var snapshotQueries = []string{"迁移", "cache", "launch", "full width login", "strasse", "kelvin", "#module", "搜索", `"PR #12"`, "TL-12 trigram"}

// searchAll runs every query in every project scope, so two indexes can be compared by output.
func searchAll(t *testing.T, ix *Index) []*Result {
	t.Helper()
	var out []*Result
	for _, q := range snapshotQueries {
		out = append(out, search(t, ix, q))
		out = append(out, search(t, ix, q, inProject("p1")))
	}
	return out
}

func snapshotFile(t *testing.T, ws *workspace.Workspace) string {
	t.Helper()
	p, err := snapshotPath(ws)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestSnapshotMatchesFreshLoad(t *testing.T) {
	ws := newBoard(t, nil)
	// The import saved a snapshot built from its own records; keep it to compare below.
	fromImport, err := readSnapshot(snapshotFile(t, ws), mustStamp(t, ws))
	if err != nil {
		t.Fatalf("no usable snapshot after the import: %v", err)
	}
	os.Remove(snapshotFile(t, ws))
	fresh, err := LoadFresh(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(snapshotFile(t, ws)); err == nil {
		t.Fatal("LoadFresh must not write a snapshot")
	}
	first := load(t, ws) // builds and saves the snapshot
	if _, err := os.Stat(snapshotFile(t, ws)); err != nil {
		t.Fatalf("no snapshot written: %v", err)
	}
	st, _ := currentStamp(ws)
	snap, err := readSnapshot(snapshotFile(t, ws), st)
	if err != nil {
		t.Fatalf("snapshot not reusable: %v", err)
	}
	want := searchAll(t, fresh)
	for name, ix := range map[string]*Index{"first": first, "snapshot": snap, "import": fromImport} {
		if got := searchAll(t, ix); !reflect.DeepEqual(got, want) {
			t.Errorf("%s index answers differently from a fresh load", name)
		}
	}
	if snap.freq != fresh.freq || snap.Revision() != 7 {
		t.Errorf("byte counts or revision differ")
	}
}

func mustStamp(t *testing.T, ws *workspace.Workspace) Stamp {
	t.Helper()
	st, err := currentStamp(ws)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestSnapshotStaleness(t *testing.T) {
	ws := newBoard(t, nil)
	ix := load(t, ws)
	if stale, err := ix.Stale(ws); stale || err != nil {
		t.Fatalf("fresh index reported stale: %v %v", stale, err)
	}
	// A JSON file changes: the index is stale and the next load sees the new text.
	time.Sleep(10 * time.Millisecond)
	data, _ := os.ReadFile(ws.Path(SummariesPath))
	data = []byte(strings.Replace(string(data), "切换读路径", "NEWNEXTWORD", 1))
	if err := os.WriteFile(ws.Path(SummariesPath), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if stale, _ := ix.Stale(ws); !stale {
		t.Errorf("changed summaries.json not noticed")
	}
	ix = load(t, ws)
	if len(search(t, ix, "NEWNEXTWORD").Cards) != 1 {
		t.Errorf("reload did not pick up summaries.json")
	}
	// A re-import moves the revision forward and is noticed too.
	doc, _ := os.ReadFile(fixturePath(t))
	doc = []byte(strings.Replace(string(doc), "Release notes", "Release REIMPORTWORD", 1))
	res, err := Import(context.Background(), ws, strings.NewReader(string(doc)))
	if err != nil {
		t.Fatal(err)
	}
	if res.Revision != 8 {
		t.Errorf("re-import revision %d, want 8 (7 was stored already)", res.Revision)
	}
	if stale, _ := ix.Stale(ws); !stale {
		t.Errorf("re-import not noticed")
	}
	ix = load(t, ws)
	if len(search(t, ix, "REIMPORTWORD").Cards) != 1 || ix.Revision() != 8 {
		t.Errorf("reload after re-import")
	}
	// A WAL-mode writer commits to board.db-wal without touching board.db.
	os.WriteFile(ws.Path(DBPath)+"-wal", nil, 0o644)
	if stale, _ := ix.Stale(ws); !stale {
		t.Errorf("a new board.db-wal not noticed")
	}
	os.Remove(ws.Path(DBPath) + "-wal")
	if stale, _ := ix.Stale(ws); stale {
		t.Errorf("stale without a change")
	}
	// Memory file removed: stale, and the search says memory could not be read (every import
	// writes the file, so a missing one is an unreadable one).
	os.Remove(ws.Path(MemoryPath))
	if stale, _ := ix.Stale(ws); !stale {
		t.Errorf("removed memory.json not noticed")
	}
	if res := search(t, load(t, ws), "迁移"); len(res.Memory) != 0 || !reflect.DeepEqual(res.Partial, []string{"memory"}) {
		t.Errorf("missing memory.json: %v %v", memIDs(res), res.Partial)
	}
}

func TestSnapshotCorruptIsRebuilt(t *testing.T) {
	ws := newBoard(t, nil)
	want := searchAll(t, load(t, ws))
	path := snapshotFile(t, ws)
	good, _ := os.ReadFile(path)
	damage := map[string]func([]byte) []byte{
		"truncated":   func(b []byte) []byte { return b[:len(b)/2] },
		"empty":       func([]byte) []byte { return nil },
		"flipped":     func(b []byte) []byte { c := append([]byte(nil), b...); c[len(c)-10] ^= 0xff; return c },
		"bad magic":   func(b []byte) []byte { c := append([]byte(nil), b...); c[0] = 'X'; return c },
		"old version": func(b []byte) []byte { c := append([]byte(nil), b...); c[8] = 99; return c },
		"garbage":     func([]byte) []byte { return []byte(strings.Repeat("garbage!", 100)) },
	}
	for name, f := range damage {
		if err := os.WriteFile(path, f(good), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := searchAll(t, load(t, ws)); !reflect.DeepEqual(got, want) {
			t.Errorf("%s snapshot: answers differ", name)
		}
		rebuilt, _ := os.ReadFile(path)
		if string(rebuilt) != string(good) {
			t.Errorf("%s snapshot was not rewritten", name)
		}
	}
	// Every truncation of the body is refused by the decoder itself, never a panic.
	st, _ := currentStamp(ws)
	ix := load(t, ws)
	body := encodeSnapshot(ix)[headerBytes:]
	for n := 0; n < len(body); n += 1 + len(body)/300 {
		if _, err := decodeBody(string(body[:n])); err == nil {
			t.Errorf("a body cut at %d decoded", n)
		}
	}
	_ = st
}

func TestOffsetsRoundTrip(t *testing.T) {
	for _, s := range []string{"ＦＵＬＬ width", "Straße İstanbul \u212a", "plain", "a\xffＢ", "ß", "ǅ ﬁ ŉ"} {
		f := FoldMapParts(s)
		if f.omap == nil {
			continue
		}
		back := expandOffsets(s, len(f.text), compressOffsets(s, f.omap))
		if !reflect.DeepEqual(back, f.omap) {
			t.Errorf("%q: %v != %v", s, back, f.omap)
		}
	}
}

// The parallel scan finds exactly what one pass finds, on a board big enough to be split.
func TestParallelScanMatchesSerial(t *testing.T) {
	// scanParallel splits the work by GOMAXPROCS: on a one-CPU runner it would be the serial scan
	// compared with itself.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	var buf strings.Builder
	if err := boardgen.Write(&buf, 3, 7); err != nil {
		t.Fatal(err)
	}
	ix := load(t, newBoard(t, []byte(buf.String())))
	if len(ix.blob) < parallelScanBytes*3/2 {
		t.Fatalf("board too small to split: %d bytes", len(ix.blob))
	}
	all := int32(len(ix.fields))
	for _, term := range []string{"迁移", "sqlite", "tl-4", "e", "ｓｑｌｉｔｅ", "nosuchterm"} {
		n := ix.newNeedle(textmatch.Fold(term))
		serial := ix.scan(&n, 0, all, nil)
		parallel := ix.scanParallel(&n, 0, all, nil)
		if !reflect.DeepEqual(serial, parallel) {
			t.Errorf("%q: parallel scan found %d fields, serial %d", term, len(parallel), len(serial))
		}
		for _, fi := range serial {
			if !strings.Contains(ix.text(&ix.fields[fi]), n.t) {
				t.Errorf("%q: field %d does not hold the term", term, fi)
			}
		}
		// Over a set of cards with gaps (runs of one, two and three cards).
		var cards []int32
		var want []int32
		for ci := int32(0); ci < int32(len(ix.cards)); ci++ {
			if ci%7 == 1 || ci%7 == 4 || ci%7 == 5 || ci%7 >= 6 {
				continue
			}
			cards = append(cards, ci)
			want = ix.scan(&n, ix.cards[ci].fieldLo, ix.cards[ci].fieldHi, want)
		}
		if got := ix.scanCards(&n, cards, nil); !reflect.DeepEqual(got, want) {
			t.Errorf("%q: scanCards found %d fields, card by card %d", term, len(got), len(want))
		}
	}
}
