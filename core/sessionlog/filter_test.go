package sessionlog

import (
	"bytes"
	"math/rand"
	"strings"
	"testing"
)

// Filter must see exactly the lines the sequential Scanner sees, across chunk boundaries,
// lines longer than a chunk, CRLF and a torn tail.
func TestFilterMatchesScanner(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	var b strings.Builder
	for b.Len() < 3*chunkSize {
		switch rng.Intn(50) {
		case 0:
			b.WriteString(strings.Repeat("L", chunkSize+rng.Intn(chunkSize))) // longer than a chunk
		case 1:
			b.WriteString("crlf\r")
		default:
			b.WriteString(strings.Repeat("x", rng.Intn(300)))
		}
		b.WriteByte('\n')
	}
	b.WriteString("torn tail")
	input := b.String()

	var want []Line
	sc := NewScanner(strings.NewReader(input))
	for sc.Next() {
		l := sc.Line()
		want = append(want, Line{No: l.No, Data: append([]byte(nil), l.Data...), Torn: l.Torn})
	}
	var got []Line
	err := Filter(strings.NewReader(input), func([]byte) bool { return true }, func(l Line) bool {
		got = append(got, l)
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("Filter saw %d lines, Scanner %d", len(got), len(want))
	}
	for i := range want {
		if got[i].No != want[i].No || got[i].Torn != want[i].Torn || !bytes.Equal(got[i].Data, want[i].Data) {
			t.Fatalf("line %d differs: %d %v %d bytes vs %d %v %d bytes", i, got[i].No, got[i].Torn, len(got[i].Data), want[i].No, want[i].Torn, len(want[i].Data))
		}
	}

	// keep filters, numbers stay those of the whole log, and fn can stop early
	var kept []int
	Filter(strings.NewReader(input), func(d []byte) bool { return bytes.HasPrefix(d, []byte("crlf")) }, func(l Line) bool {
		kept = append(kept, l.No)
		return len(kept) < 3
	})
	if len(kept) != 3 {
		t.Fatalf("early stop: kept %v", kept)
	}
	for _, n := range kept {
		if string(want[n-1].Data) != "crlf" {
			t.Fatalf("line %d is %q", n, want[n-1].Data)
		}
	}
}
