//go:build linux

package board

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/textmatch"
	"github.com/cairn-dev/cairn/core/workspace"
	"github.com/cairn-dev/cairn/scripts/gen-board/boardgen"
)

// Another program truncates the snapshot in place after it was mapped and before it is decoded:
// the decode fails as for a damaged snapshot (no SIGBUS), and Load rebuilds from board.db.
func TestSnapshotTruncatedWhileMappedIsRebuilt(t *testing.T) {
	ws := newBoard(t, nil)
	want := searchAll(t, mustFresh(t, ws))
	path := snapshotFile(t, ws)
	good, err := os.ReadFile(path)
	if err != nil || len(good) == 0 {
		t.Fatalf("no snapshot after the import: %v", err)
	}
	data, release, err := readWhole(path)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	if ix, err := decodeMapped(data, mustStamp(t, ws)); !errors.Is(err, errSnapshot) || ix != nil {
		t.Fatalf("decoding a snapshot truncated under its mapping: %v, want errSnapshot", err)
	}
	ix := load(t, ws)
	if got := searchAll(t, ix); !reflect.DeepEqual(got, want) {
		t.Errorf("rebuilt index answers differently from a fresh load")
	}
	if rebuilt, _ := os.ReadFile(path); string(rebuilt) != string(good) {
		t.Errorf("truncated snapshot was not rewritten (%d bytes, want %d)", len(rebuilt), len(good))
	}
}

// An index mapped from the snapshot reads it lazily: truncating the file under it makes the next
// search (and agent search) fail with STORAGE_BUSY instead of killing the process, Stale reports
// the index so a daemon reloads it, and the reload answers as a fresh load does.
func TestSnapshotTruncatedUnderSearch(t *testing.T) {
	ws := newBoard(t, nil)
	want := searchAll(t, mustFresh(t, ws))
	ix := load(t, ws)
	if ix.snap.lo == 0 {
		t.Fatal("index was not loaded from the snapshot")
	}
	if stale, err := ix.Stale(ws); stale || err != nil {
		t.Fatalf("fresh index stale: %v %v", stale, err)
	}
	path := snapshotFile(t, ws)
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	res, err := ix.Search(context.Background(), workspace.DefaultConfig().Board, SearchInput{Query: "迁移"})
	if err == nil || res != nil || errs.CodeOf(err) != errs.Busy || !strings.Contains(err.Error(), "truncated") {
		t.Fatalf("search on a truncated snapshot: %v %v, want STORAGE_BUSY", res, err)
	}
	ares, err := ix.AgentSearch(context.Background(), workspace.DefaultConfig().Board, AgentInput{Card: "c1", Query: "迁移"})
	if err == nil || ares != nil || errs.CodeOf(err) != errs.Busy {
		t.Fatalf("agent search on a truncated snapshot: %v %v, want STORAGE_BUSY", ares, err)
	}
	if stale, err := ix.Stale(ws); !stale || err != nil {
		t.Errorf("faulted index not stale: %v %v", stale, err)
	}
	if got := searchAll(t, load(t, ws)); !reflect.DeepEqual(got, want) {
		t.Errorf("reloaded index answers differently from a fresh load")
	}
}

// The parallel scan's workers run on their own goroutines, where a fault would not reach the
// search's guard: each guards itself and the search reports the fault. The folded text alone is
// mapped here, so the fault happens in the workers, not in the caller that splits the work.
func TestSnapshotTruncatedUnderParallelScan(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	var buf strings.Builder
	if err := boardgen.Write(&buf, 3, 7); err != nil {
		t.Fatal(err)
	}
	ws := newBoard(t, []byte(buf.String()))
	ix := mustFresh(t, ws)
	if len(ix.blob) < parallelScanBytes*3/2 {
		t.Fatalf("board too small to split: %d bytes", len(ix.blob))
	}
	path := filepath.Join(t.TempDir(), "blob")
	if err := os.WriteFile(path, []byte(ix.blob), 0o644); err != nil {
		t.Fatal(err)
	}
	data, release, err := readWhole(path)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	ix.blob, ix.snap = unsafe.String(unsafe.SliceData(data), len(data)), rangeOf(data)
	n := ix.newNeedle(textmatch.Fold("sqlite"))
	all := int32(len(ix.fields))
	if got := ix.scanParallel(&n, 0, all, nil); len(got) == 0 {
		t.Fatal("the mapped text holds no match")
	}
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := guarded(ix, func() ([]int32, error) { return ix.scanParallel(&n, 0, all, nil), nil }); errs.CodeOf(err) != errs.Busy {
		t.Errorf("parallel scan on a truncated mapping: %v, want STORAGE_BUSY", err)
	}
	if _, err := ix.Search(context.Background(), workspace.DefaultConfig().Board, SearchInput{Query: "sqlite"}); errs.CodeOf(err) != errs.Busy {
		t.Errorf("search on a truncated mapping: %v, want STORAGE_BUSY", err)
	}
	if stale, _ := ix.Stale(ws); !stale {
		t.Errorf("faulted index not stale")
	}
}

func mustFresh(t *testing.T, ws *workspace.Workspace) *Index {
	t.Helper()
	ix, err := LoadFresh(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	return ix
}
