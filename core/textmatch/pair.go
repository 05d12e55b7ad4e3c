package textmatch

import (
	"encoding/binary"
	"math/bits"
)

// indexPairGeneric is indexPair (the assembly's contract) in Go, eight offsets at a time: with
// a byte in each of eight lanes of a word, (x|mask)^byte is zero in the lanes that hold the
// byte, and (v-0x01..)&^v&0x80.. flags every zero lane of v (and maybe lanes above one, which
// are checked one by one), so no offset is missed.
func indexPairGeneric(s []byte, n, k1, k2 int, b1, m1, b2, m2 byte) int {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	mm1, bb1, mm2, bb2 := lo*uint64(m1), lo*uint64(b1), lo*uint64(m2), lo*uint64(b2)
	end := n &^ 15
	for i := 0; i < end; i += 8 {
		a := binary.LittleEndian.Uint64(s[i+k1:])
		b := binary.LittleEndian.Uint64(s[i+k2:])
		x := (a | mm1) ^ bb1 | (b | mm2) ^ bb2
		z := (x - lo) &^ x & hi
		for z != 0 {
			j := i + bits.TrailingZeros64(z)>>3
			if s[j+k1]|m1 == b1 && s[j+k2]|m2 == b2 {
				return j
			}
			z &= z - 1
		}
	}
	return -1
}

// indexLeadsGeneric is indexLeads (the assembly's contract) in Go, one offset at a time.
func indexLeadsGeneric(s []byte, n int, r *[6]byte, k int, b1, b2 byte) int {
	for i := 0; i < n&^15; i++ {
		c := s[i]
		if c-r[0] <= r[1] || c-r[2] <= r[3] || c-r[4] <= r[5] || s[i+k] == b1 && s[i+k+1] == b2 {
			return i
		}
	}
	return -1
}
