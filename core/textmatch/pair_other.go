//go:build !amd64

package textmatch

import "unsafe"

// indexPair is the portable indexPairGeneric where there is no assembly version.
func indexPair(p *byte, n, k1, k2 int, b1, m1, b2, m2 byte) int {
	return indexPairGeneric(unsafe.Slice(p, n&^15+max(k1, k2)+15), n, k1, k2, b1, m1, b2, m2)
}

// indexLeads is the portable indexLeadsGeneric where there is no assembly version.
func indexLeads(p *byte, n int, r *[6]byte, k int, b1, b2 byte) int {
	return indexLeadsGeneric(unsafe.Slice(p, n&^15+k+17), n, r, k, b1, b2)
}

// hasAVX2 is false where there is no assembly version (the tests read it).
var hasAVX2 = false
