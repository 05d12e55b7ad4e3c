package textmatch

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// hasAVX2 selects the 32-byte versions of the kernels.
var hasAVX2 = cpu.X86.HasAVX2

// The kernels are in pair_amd64.s: SSE2 (every amd64 has it) over sixteen offsets at a time,
// AVX2 over thirty-two.

//go:noescape
func indexPairSSE2(p *byte, n, k1, k2 int, b1, m1, b2, m2 byte) int

//go:noescape
func indexPairAVX2(p *byte, n, k1, k2 int, b1, m1, b2, m2 byte) int

//go:noescape
func indexLeadsSSE2(p *byte, n int, r *[6]byte, k int, b1, b2 byte) int

//go:noescape
func indexLeadsAVX2(p *byte, n int, r *[6]byte, k int, b1, b2 byte) int

// avx2Part is how many of the m (a multiple of 16) offsets the AVX2 kernel can take when its
// caller guarantees reads for m offsets of the SSE2 one: a multiple of 32, sixteen short of m so
// that its wider loads stay in bounds, or 0.
func avx2Part(m int) int {
	if !hasAVX2 || m < 48 {
		return 0
	}
	return (m - 16) &^ 31
}

// indexPair returns the first i in [0, n&^15) with p[i+k1]|m1 == b1 and p[i+k2]|m2 == b2, or
// -1; the caller guarantees that p[i+k1+15] and p[i+k2+15] can be read for every such i.
func indexPair(p *byte, n, k1, k2 int, b1, m1, b2, m2 byte) int {
	m := n &^ 15
	a := avx2Part(m)
	if a > 0 {
		if i := indexPairAVX2(p, a, k1, k2, b1, m1, b2, m2); i >= 0 {
			return i
		}
	}
	if i := indexPairSSE2((*byte)(unsafe.Add(unsafe.Pointer(p), a)), m-a, k1, k2, b1, m1, b2, m2); i >= 0 {
		return a + i
	}
	return -1
}

// indexLeads returns the first i in [0, n&^15) where p[i]-r[2j] <= r[2j+1] (unsigned, bytes)
// for some j < 3, or p[i+k] == b1 and p[i+k+1] == b2; -1 when there is none. The caller
// guarantees that p[i+k+16] can be read for every such i.
func indexLeads(p *byte, n int, r *[6]byte, k int, b1, b2 byte) int {
	m := n &^ 15
	a := avx2Part(m)
	if a > 0 {
		if i := indexLeadsAVX2(p, a, r, k, b1, b2); i >= 0 {
			return i
		}
	}
	if i := indexLeadsSSE2((*byte)(unsafe.Add(unsafe.Pointer(p), a)), m-a, r, k, b1, b2); i >= 0 {
		return a + i
	}
	return -1
}
