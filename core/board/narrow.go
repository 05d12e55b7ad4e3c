package board

import (
	"encoding/binary"
	"sync/atomic"
)

// A narrowing index lets a long-lived process (`cairn serve`, `cairn mcp`) look only at the card
// fields that can hold a term, instead of scanning all of the folded text. For every pair of bytes
// it keeps the list of card fields where that pair occurs, and for every byte the list of fields
// where it occurs (ascending field numbers, stored as gaps in varint form). A term of two bytes
// or more can only occur in a field that holds each of its pairs, so the fields of its rarest
// pair's list, checked one by one, are exactly the fields the full scan finds, in the same order;
// for a term of one or two bytes the list is the answer itself. A pair's entry also holds where
// the pair first occurs in the field, so the check of a longer term starts where the term can
// first occur, and is one comparison when that is where it is.
// Building it reads the whole text twice (about 150 ms of CPU and 21 MB at scale 10), so a fresh
// process (one search) never builds it.
// The lists hold card fields only (memory entries are matched apart).
type narrowIndex struct {
	off   []uint32 // list k is data[off[k]:off[k+1]]: pair p is list p, byte b is list pairs+b
	count []int32  // how many fields list k holds
	data  []byte
}

// pairs is the number of byte pairs, one list each; lists is that and one per byte.
const (
	pairs = 1 << 16
	lists = pairs + 256
)

// postingCost is roughly how many bytes of text a full scan covers in the time a list entry
// costs (decode, owner test, check of the field): it chooses between the list and a scan.
const postingCost = 24

// EnableNarrowing builds the narrowing index (once) so later searches of ix look only at the
// fields that can hold their terms. Results do not change.
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

// buildNarrow lists, for every byte pair, the card fields that hold it: one pass sizes the
// lists, a second one writes them.
func (ix *Index) buildNarrow() *narrowIndex {
	end := int32(0)
	if len(ix.cards) > 0 {
		end = ix.cards[len(ix.cards)-1].fieldHi
	}
	nx := &narrowIndex{off: make([]uint32, lists+1), count: make([]int32, lists)}
	// last[k] is 1 + the last field that list k holds (0: none yet), so gaps start at 1.
	last := make([]int32, lists)
	size := make([]uint32, lists)
	sizeList := func(k int, fi int32, at int) {
		if last[k] != fi+1 {
			size[k] += uint32(uvarintLen(uint64(fi + 1 - last[k])))
			if k < pairs {
				size[k] += uint32(uvarintLen(uint64(at)))
			}
			last[k] = fi + 1
			nx.count[k]++
		}
	}
	for fi := range end {
		t := ix.blob[ix.fields[fi].start:ix.fields[fi].end]
		for i := range len(t) {
			sizeList(pairs+int(t[i]), fi, i)
			if i+1 < len(t) {
				sizeList(int(t[i])<<8|int(t[i+1]), fi, i)
			}
		}
	}
	pos := make([]uint32, lists)
	for k := range lists {
		pos[k] = nx.off[k]
		nx.off[k+1] = nx.off[k] + size[k]
	}
	nx.data = make([]byte, nx.off[lists])
	clear(last)
	fill := func(k int, fi int32, at int) {
		if last[k] != fi+1 {
			pos[k] += uint32(binary.PutUvarint(nx.data[pos[k]:], uint64(fi+1-last[k])))
			if k < pairs {
				pos[k] += uint32(binary.PutUvarint(nx.data[pos[k]:], uint64(at)))
			}
			last[k] = fi + 1
		}
	}
	for fi := range end {
		t := ix.blob[ix.fields[fi].start:ix.fields[fi].end]
		for i := range len(t) {
			fill(pairs+int(t[i]), fi, i)
			if i+1 < len(t) {
				fill(int(t[i])<<8|int(t[i+1]), fi, i)
			}
		}
	}
	return nx
}

func uvarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

// rarest returns the list for t that holds the fewest fields, and where in t its pair is: its
// byte when t is one byte, otherwise its rarest pair.
func (nx *narrowIndex) rarest(t string) (list, at int) {
	if len(t) == 1 {
		return pairs + int(t[0]), 0
	}
	best := int(t[0])<<8 | int(t[1])
	for i := 1; i+1 < len(t); i++ {
		if p := int(t[i])<<8 | int(t[i+1]); nx.count[p] < nx.count[best] {
			best, at = p, i
		}
	}
	return best, at
}

// uvarint reads a varint of a list, most often one byte.
func uvarint(list []byte, i int) (uint64, int) {
	if b := list[i]; b < 0x80 {
		return uint64(b), i + 1
	}
	v, n := binary.Uvarint(list[i:])
	return v, i + n
}

// holds says whether field f, listed under the term's rarest list, holds the term: a list of
// one byte or a pair is exactly the fields holding it; otherwise no occurrence starts before the
// pair's first one (first, from the list) less the pair's place in the term (at), and most often
// the term is right there.
func (ix *Index) holds(n *needle, f *field, first, at int) bool {
	t := n.t
	if len(t) <= 2 {
		return true
	}
	from := int(f.start) + first - at
	if from >= int(f.start) && from+len(t) <= int(f.end) && ix.blob[from:from+len(t)] == t {
		return true
	}
	return n.find(ix.blob, max(from, int(f.start)), int(f.end)) >= 0
}

// worthListing says whether the term's list is cheaper to walk than scanning textBytes of text.
func (nx *narrowIndex) worthListing(t string, textBytes int) bool {
	if len(t) == 0 {
		return false
	}
	k, _ := nx.rarest(t)
	return int(nx.count[k])*postingCost < textBytes
}

// narrowPtr is the Index field holding the narrowing index once built.
type narrowPtr = atomic.Pointer[narrowIndex]
