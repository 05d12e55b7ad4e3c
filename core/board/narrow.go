package board

import (
	"encoding/binary"
	"sync/atomic"
)

// A narrowing index lets a long-lived process (`cairn serve`, `cairn mcp`) look only at the card
// fields that can hold a term, instead of scanning all of the folded text. For every pair of bytes
// it keeps the list of card fields where that pair occurs (ascending field numbers, stored as
// gaps in varint form). A term of two bytes or more can only occur in a field that holds each of
// its pairs, so the fields of its rarest pair's list, checked one by one, are exactly the fields
// the full scan finds, in the same order; for a two-byte term the list is the answer itself.
// Building it reads the whole text once, so a fresh process (one search) never builds it.
type narrowIndex struct {
	end   int32    // the card fields are fields[:end]; the lists hold no memory field
	off   []uint32 // pair p's list is data[off[p]:off[p+1]]
	count []int32  // how many fields hold pair p
	data  []byte
}

// pairs is the number of byte pairs, one list each.
const pairs = 1 << 16

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
	nx := &narrowIndex{end: end, off: make([]uint32, pairs+1), count: make([]int32, pairs)}
	// last[p] is 1 + the last field that holds pair p (0: none yet), so gaps start at 1.
	last := make([]int32, pairs)
	size := make([]uint32, pairs)
	for fi := range end {
		t := ix.blob[ix.fields[fi].start:ix.fields[fi].end]
		for i := 0; i+1 < len(t); i++ {
			p := int(t[i])<<8 | int(t[i+1])
			if last[p] != fi+1 {
				size[p] += uint32(uvarintLen(uint64(fi + 1 - last[p])))
				last[p] = fi + 1
				nx.count[p]++
			}
		}
	}
	pos := make([]uint32, pairs)
	for p := range pairs {
		pos[p] = nx.off[p]
		nx.off[p+1] = nx.off[p] + size[p]
	}
	nx.data = make([]byte, nx.off[pairs])
	clear(last)
	for fi := range end {
		t := ix.blob[ix.fields[fi].start:ix.fields[fi].end]
		for i := 0; i+1 < len(t); i++ {
			p := int(t[i])<<8 | int(t[i+1])
			if last[p] != fi+1 {
				pos[p] += uint32(binary.PutUvarint(nx.data[pos[p]:], uint64(fi+1-last[p])))
				last[p] = fi + 1
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

// rarest returns the pair of t held by the fewest fields; t has at least two bytes.
func (nx *narrowIndex) rarest(t string) int {
	best := int(t[0])<<8 | int(t[1])
	for i := 1; i+1 < len(t); i++ {
		if p := int(t[i])<<8 | int(t[i+1]); nx.count[p] < nx.count[best] {
			best = p
		}
	}
	return best
}

// findListed appends, in field order, every card field that holds the term and whose card passes
// keep. The term has at least two bytes.
func (ix *Index) findListed(nx *narrowIndex, n *needle, keep func(card int32) bool, out []int32) []int32 {
	t := n.t
	p := nx.rarest(t)
	list := nx.data[nx.off[p]:nx.off[p+1]]
	exact := len(t) == 2 // the pair's list is exactly the fields holding the term
	fi := int32(-1)
	for i := 0; i < len(list); {
		// Gaps are almost always one byte.
		var gap uint64
		if b := list[i]; b < 0x80 {
			gap, i = uint64(b), i+1
		} else {
			v, n := binary.Uvarint(list[i:])
			gap, i = v, i+n
		}
		fi += int32(gap)
		f := &ix.fields[fi]
		if !keep(f.owner) {
			continue
		}
		if exact || n.find(ix.blob, int(f.start), int(f.end)) >= 0 {
			out = append(out, fi)
		}
	}
	return out
}

// worthListing says whether the term's list is cheaper to walk than scanning textBytes of text.
func (nx *narrowIndex) worthListing(t string, textBytes int) bool {
	return len(t) >= 2 && int(nx.count[nx.rarest(t)])*postingCost < textBytes
}

// narrowPtr is the Index field holding the narrowing index once built.
type narrowPtr = atomic.Pointer[narrowIndex]
