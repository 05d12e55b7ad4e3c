package board

import (
	"math/bits"
	"sync/atomic"
)

// A narrowing index lets a long-lived process (`cairn serve`, `cairn mcp`) scan only the parts of
// the folded text that can hold a term, instead of all of it. The card fields are cut, at field
// boundaries, into blocks of about narrowBlockBytes; for each hash bucket of byte pairs it keeps
// the set of blocks where a pair of that bucket occurs inside one field. A term of two bytes or
// more can only occur in a block that has every one of its pairs, so the blocks left out cannot
// hold it and the narrowed scan finds exactly the fields the full scan finds, in the same order.
// Building it reads the whole text once, so a fresh process (one search) never builds it.
type narrowIndex struct {
	// starts[b] is the first field of block b; starts[len-1] is the end of the card fields.
	starts []int32
	words  int      // uint64 words per bucket bitset
	bits   []uint64 // bucket k's blocks: bits[k*words : (k+1)*words]
}

const (
	narrowBlockBytes = 8 << 10
	narrowBuckets    = 4096
)

func pairBucket(a, b byte) int {
	return int((uint32(a)<<8|uint32(b))*2654435761>>20) & (narrowBuckets - 1)
}

// EnableNarrowing builds the narrowing index (once) so later searches of ix scan only the blocks
// of text that can hold their terms. Results do not change.
func (ix *Index) EnableNarrowing() error {
	if ix.narrow.Load() != nil {
		return nil
	}
	_, err := guarded(ix, func() (struct{}, error) {
		ix.narrow.CompareAndSwap(nil, ix.buildNarrow())
		return struct{}{}, nil
	})
	return err
}

// buildNarrow cuts the card fields into blocks and records each block's byte-pair buckets.
func (ix *Index) buildNarrow() *narrowIndex {
	end := int32(0)
	if len(ix.cards) > 0 {
		end = ix.cards[len(ix.cards)-1].fieldHi
	}
	nx := &narrowIndex{starts: []int32{0}}
	size := 0
	for fi := int32(0); fi < end; fi++ {
		if size >= narrowBlockBytes {
			nx.starts = append(nx.starts, fi)
			size = 0
		}
		size += int(ix.fields[fi].end-ix.fields[fi].start) + 1
	}
	nx.starts = append(nx.starts, end)
	blocks := len(nx.starts) - 1
	nx.words = (blocks + 63) / 64
	nx.bits = make([]uint64, narrowBuckets*nx.words)
	for b := range blocks {
		w, bit := b>>6, uint64(1)<<(b&63)
		for fi := nx.starts[b]; fi < nx.starts[b+1]; fi++ {
			t := ix.blob[ix.fields[fi].start:ix.fields[fi].end]
			for i := 0; i+1 < len(t); i++ {
				nx.bits[pairBucket(t[i], t[i+1])*nx.words+w] |= bit
			}
		}
	}
	return nx
}

// candidates returns the blocks that have every byte pair of t, as a bitset; nil means every block.
func (nx *narrowIndex) candidates(t string) []uint64 {
	if len(t) < 2 {
		return nil
	}
	out := make([]uint64, nx.words)
	k := pairBucket(t[0], t[1])
	copy(out, nx.bits[k*nx.words:(k+1)*nx.words])
	for i := 1; i+1 < len(t); i++ {
		k := pairBucket(t[i], t[i+1])
		row := nx.bits[k*nx.words : (k+1)*nx.words]
		for w := range out {
			out[w] &= row[w]
		}
	}
	return out
}

// scanNarrowed is scanParallel of fields[flo:fhi] through the narrowing index when ix has one:
// only the candidate blocks are scanned, in field order, so the result is the same.
func (ix *Index) scanNarrowed(n *needle, flo, fhi int32, out []int32) []int32 {
	nx := ix.narrow.Load()
	if nx == nil || flo >= fhi {
		return ix.scanParallel(n, flo, fhi, out)
	}
	cand := nx.candidates(n.t)
	if cand == nil {
		return ix.scanParallel(n, flo, fhi, out)
	}
	blocks := len(nx.starts) - 1
	for w, word := range cand {
		for word != 0 {
			b := w*64 + bits.TrailingZeros64(word)
			word &= word - 1
			if b >= blocks {
				break
			}
			lo, hi := max(flo, nx.starts[b]), min(fhi, nx.starts[b+1])
			if lo < hi {
				out = ix.scan(n, lo, hi, out)
			}
		}
	}
	return out
}

// narrowPtr is the Index field holding the narrowing index once built.
type narrowPtr = atomic.Pointer[narrowIndex]
