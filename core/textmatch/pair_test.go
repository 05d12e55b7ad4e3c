package textmatch

import (
	"math/rand"
	"testing"
)

// TestIndexPair holds indexPair (the assembly on amd64) and indexPairGeneric to a naive loop,
// over random texts of few byte values (so pairs are frequent), every length and offset.
func TestIndexPair(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	alphabet := []byte{'a', 'A', 'b', 0x80, 0xE3, 0xFF, ' ', 'a' | 0x80}
	for iter := 0; iter < 20000; iter++ {
		s := make([]byte, rng.Intn(300))
		for i := range s {
			s[i] = alphabet[rng.Intn(len(alphabet))]
		}
		if rng.Intn(2) == 0 { // mostly one byte, so that hits come late (the AVX2 part)
			for i := range s {
				if rng.Intn(60) != 0 {
					s[i] = 'b'
				}
			}
		}
		k1, k2 := rng.Intn(6), rng.Intn(6)
		hi := max(k1, k2)
		if len(s) < hi+16 {
			continue
		}
		n := len(s) - hi - 15 + rng.Intn(16) // so that n&^15 offsets can all be read sixteen ahead
		if n&^15+hi+15 > len(s) {
			n = len(s) - hi - 15
		}
		b1, b2 := alphabet[rng.Intn(len(alphabet))], alphabet[rng.Intn(len(alphabet))]
		var m1, m2 byte
		if rng.Intn(2) == 0 {
			m1 = 0x20
		}
		if rng.Intn(2) == 0 {
			m2 = 0x20
		}
		want := -1
		for i := 0; i < n&^15; i++ {
			if s[i+k1]|m1 == b1 && s[i+k2]|m2 == b2 {
				want = i
				break
			}
		}
		if got := indexPair(&s[0], n, k1, k2, b1, m1, b2, m2); got != want {
			t.Fatalf("indexPair(%q, n %d, k %d %d, %#x|%#x %#x|%#x) = %d, want %d", s, n, k1, k2, b1, m1, b2, m2, got, want)
		}
		if got := indexPairGeneric(s, n, k1, k2, b1, m1, b2, m2); got != want {
			t.Fatalf("indexPairGeneric(%q, n %d, k %d %d) = %d, want %d", s, n, k1, k2, got, want)
		}
	}
}

// TestIndexLeads holds indexLeads (the assembly on amd64) and indexLeadsGeneric to a naive loop.
func TestIndexLeads(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	alphabet := []byte{'a', 0x80, 0xC3, 0xC5, 0xC7, 0xE1, 0xE2, 0xE3, 0xEF, 0xFF, 0x00}
	for iter := 0; iter < 20000; iter++ {
		s := make([]byte, rng.Intn(300))
		for i := range s {
			s[i] = alphabet[rng.Intn(len(alphabet))]
		}
		if rng.Intn(2) == 0 { // mostly one byte, so that hits come late (the AVX2 part)
			for i := range s {
				if rng.Intn(40) != 0 {
					s[i] = 'a'
				}
			}
		}
		k := rng.Intn(3)
		if len(s) < k+17 {
			continue
		}
		n := len(s) - k - 16
		var r [6]byte
		for j := 0; j < 3; j++ {
			r[2*j] = alphabet[rng.Intn(len(alphabet))]
			r[2*j+1] = byte(min(rng.Intn(5), 0xFF-int(r[2*j]))) // ranges do not wrap
		}
		b1, b2 := alphabet[rng.Intn(len(alphabet))], alphabet[rng.Intn(len(alphabet))]
		want := -1
		for i := 0; i < n&^15; i++ {
			c := s[i]
			in := false
			for j := 0; j < 3; j++ {
				in = in || c >= r[2*j] && int(c) <= int(r[2*j])+int(r[2*j+1])
			}
			if in || s[i+k] == b1 && s[i+k+1] == b2 {
				want = i
				break
			}
		}
		if got := indexLeads(&s[0], n, &r, k, b1, b2); got != want {
			t.Fatalf("indexLeads(%x, n %d, r %x, k %d, %#x %#x) = %d, want %d", s, n, r, k, b1, b2, got, want)
		}
		if got := indexLeadsGeneric(s, n, &r, k, b1, b2); got != want {
			t.Fatalf("indexLeadsGeneric = %d, want %d", got, want)
		}
	}
}

// TestIndexKernelsBothWidths runs the tests above without AVX2 too, where the machine has it.
func TestIndexKernelsBothWidths(t *testing.T) {
	if !hasAVX2 {
		t.Skip("no AVX2: the tests above ran the SSE2 kernels")
	}
	hasAVX2 = false
	defer func() { hasAVX2 = true }()
	TestIndexPair(t)
	TestIndexLeads(t)
}
