package board

import (
	"fmt"
	"runtime/debug"
	"sync"
	"unsafe"

	"github.com/cairn-dev/cairn/core/errs"
)

// A snapshot index aliases the file's mapped bytes. cairn only ever replaces the file by rename,
// but another program that truncates it in place turns every later read of the lost pages into
// SIGBUS, which would kill the process. Each load and search therefore runs with
// debug.SetPanicOnFault, and a fault inside the mapping becomes an error: a load treats the
// snapshot as unusable and rebuilds from board.db, a search fails once and marks the index so
// that Stale reports it and the daemon reloads.

// mapRange is the address range of the snapshot bytes an index aliases; zero for a fresh index.
type mapRange struct{ lo, hi uintptr }

func rangeOf(data []byte) mapRange {
	if len(data) == 0 {
		return mapRange{}
	}
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(data)))
	return mapRange{lo, lo + uintptr(len(data))}
}

// fault returns r when it is a memory fault inside s, nil when r is nil, and re-panics with
// anything else: only faults on the snapshot's bytes are expected, a bug must stay a crash.
func (s mapRange) fault(r any) any {
	if r == nil {
		return nil
	}
	if a, ok := r.(interface{ Addr() uintptr }); ok && s.lo != 0 && a.Addr() >= s.lo && a.Addr() < s.hi {
		return r
	}
	panic(r)
}

// faultGuard runs fn with faults on s turned into panics, and returns the fault it recovered
// (nil when fn returned normally). The setting is per goroutine and restored on return.
func faultGuard(s mapRange, fn func()) (fault any) {
	if s.lo == 0 {
		fn()
		return nil
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() { fault = s.fault(recover()) }()
	fn()
	return nil
}

// errTruncated is a search's answer when the snapshot it reads was cut under it.
func errTruncated() error {
	return errs.New(errs.Busy, "%s was truncated by another program while this search read it; run the search again (the board is reloaded from %s)", ".cairn/"+snapshotName, DBPath)
}

// guarded runs one search on ix; a fault on its snapshot's bytes marks ix unusable (Stale then
// reports it) and is returned as STORAGE_BUSY instead of killing the process.
func guarded[T any](ix *Index, fn func() (T, error)) (T, error) {
	var out T
	var err error
	if f := faultGuard(ix.snap, func() { out, err = fn() }); f != nil {
		ix.faulted.Store(true)
		var zero T
		return zero, errTruncated()
	}
	return out, err
}

// parallel runs fn(0), ..., fn(n-1) on n goroutines and waits for them. Each worker guards its
// own reads (the fault setting does not pass to new goroutines); a fault in one is raised again
// in the caller, where the search's guard turns it into an error.
func (ix *Index) parallel(n int, fn func(int)) {
	faults := make([]any, n)
	var wg sync.WaitGroup
	for p := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			faults[p] = faultGuard(ix.snap, func() { fn(p) })
		}()
	}
	wg.Wait()
	for _, f := range faults {
		if f != nil {
			panic(f)
		}
	}
}

// decodeMapped is decodeSnapshot on bytes that may be a mapping: a fault (the file was truncated
// after it was mapped) makes the snapshot unusable, as a damaged one is.
func decodeMapped(data []byte, stamp Stamp) (*Index, error) {
	var ix *Index
	var err error
	s := rangeOf(data)
	if f := faultGuard(s, func() { ix, err = decodeSnapshot(data, stamp, s) }); f != nil {
		return nil, fmt.Errorf("%w: truncated while mapped", errSnapshot)
	}
	if err != nil {
		return nil, err
	}
	ix.snap = s
	return ix, nil
}
