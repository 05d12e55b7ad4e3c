package textmatch

// indexPair is in pair_amd64.s.
//
//go:noescape
func indexPair(p *byte, n, k1, k2 int, b1, m1, b2, m2 byte) int

// indexLeads is in pair_amd64.s.
//
//go:noescape
func indexLeads(p *byte, n int, r *[6]byte, k int, b1, b2 byte) int
