package sessionlog

import (
	"bytes"
	"io"
	"runtime"
	"strings"
	"testing"
)

// junkReader yields head, then n bytes of filler (no newline), then tail, without ever holding
// the filler: a log with a line of any size costs the test nothing.
type junkReader struct {
	head, tail string
	n          int64
	pos        int64
}

func (j *junkReader) Read(p []byte) (int, error) {
	total := int64(len(j.head)) + j.n + int64(len(j.tail))
	if j.pos >= total {
		return 0, io.EOF
	}
	w := 0
	for w < len(p) && j.pos < total {
		switch {
		case j.pos < int64(len(j.head)):
			k := copy(p[w:], j.head[j.pos:])
			w += k
			j.pos += int64(k)
		case j.pos < int64(len(j.head))+j.n:
			k := min(int64(len(p)-w), int64(len(j.head))+j.n-j.pos)
			for i := range p[w : w+int(k)] {
				p[w+i] = 'x'
			}
			w += int(k)
			j.pos += k
		default:
			off := j.pos - int64(len(j.head)) - j.n
			k := copy(p[w:], j.tail[off:])
			w += k
			j.pos += int64(k)
		}
	}
	return w, nil
}

// filterAlloc runs Filter over r and returns the lines it passed (copied) and the bytes it allocated.
func filterAlloc(t *testing.T, r io.Reader, keep func([]byte) bool) ([]Line, uint64) {
	t.Helper()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	var got []Line
	err := Filter(r, keep, func(l Line) bool {
		l.Data = append([]byte(nil), l.Data[:min(len(l.Data), 40)]...)
		got = append(got, l)
		return true
	})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	return got, after.TotalAlloc - before.TotalAlloc
}

// A line far over the cap is read through in chunks: what Filter allocates does not depend on
// its size (it did: the line was copied once per chunk, quadratic time and ~14x its size), line
// numbers stay right, and it is handed over (TooLong, with its head) only when keep wants it.
func TestFilterLongLineBoundedMemory(t *testing.T) {
	head := "before 1\n" + `{"type":"tool_call","name":"TaskCreate","arguments":{"description":"`
	tail := "\"}}\nafter 3\nafter 4\n"
	all := func([]byte) bool { return true }
	var allocs []uint64
	for _, size := range []int64{64 << 20, 256 << 20} {
		got, alloc := filterAlloc(t, &junkReader{head: head, tail: tail, n: size}, all)
		allocs = append(allocs, alloc)
		if len(got) != 4 || got[1].No != 2 || !got[1].TooLong || got[1].Size != int64(len(head)-len("before 1\n"))+size+3 ||
			!bytes.HasPrefix(got[1].Data, []byte(`{"type":"tool_call"`)) || string(got[2].Data) != "after 3" || got[3].No != 4 {
			t.Fatalf("%d-byte line: lines %+v", size, got)
		}
		if alloc > 3*MaxLineBytes {
			t.Errorf("a %d-byte line: Filter allocated %d MiB, over 3x the %d MiB cap", size, alloc>>20, MaxLineBytes>>20)
		}
	}
	t.Logf("Filter allocated %d MiB for a 64 MiB line, %d MiB for a 256 MiB line", allocs[0]>>20, allocs[1]>>20)
	if allocs[1] > allocs[0]+allocs[0]/2 {
		t.Errorf("allocations grow with the line: %d MiB for 64 MiB, %d MiB for 256 MiB", allocs[0]>>20, allocs[1]>>20)
	}
	// keep sees the head: a line it does not want is skipped silently, and still counted.
	got, _ := filterAlloc(t, &junkReader{head: "a\n{\"type\":\"message\",\"content\":\"", tail: "\"}\nb\n", n: 40 << 20}, func(d []byte) bool {
		return !bytes.Contains(d, []byte(`"message"`))
	})
	if len(got) != 2 || string(got[1].Data) != "b" || got[1].No != 3 {
		t.Fatalf("lines %+v", got)
	}
	// An over-long torn tail is handed over torn.
	got, _ = filterAlloc(t, &junkReader{head: "a\n", n: 40 << 20}, func([]byte) bool { return false })
	if len(got) != 1 || !got[0].Torn || !got[0].TooLong || got[0].No != 2 || got[0].Size != 40<<20 {
		t.Fatalf("torn: %+v", got)
	}
}

// With a lower cap, long lines around it go the same way through Filter and Scanner.
func TestLongLinesFilterAndScanner(t *testing.T) {
	defer func(old int) { maxLine = old }(maxLine)
	maxLine = 3 * chunkSize
	var b strings.Builder
	for i, n := range []int{10, 2 * chunkSize, 3*chunkSize + 10, 8 * chunkSize, 5, 5 * chunkSize} {
		b.WriteString(strings.Repeat(string(rune('a'+i)), n))
		b.WriteByte('\n')
	}
	input := b.String()
	got, _ := filterAlloc(t, strings.NewReader(input), func([]byte) bool { return true })
	sc := NewScanner(strings.NewReader(input))
	var want []Line
	for sc.Next() {
		l := sc.Line()
		want = append(want, Line{No: l.No, TooLong: l.TooLong, Size: l.Size})
	}
	if len(got) != 6 || len(want) != 6 {
		t.Fatalf("Filter saw %d lines, Scanner %d", len(got), len(want))
	}
	for i, l := range got {
		long := i == 3 || i == 5
		if l.No != i+1 || l.TooLong != long || want[i].TooLong != long {
			t.Errorf("line %d: Filter %+v, Scanner %+v", i+1, l, want[i])
		}
		if long && (l.Size != int64(len(strings.Split(input, "\n")[i])) || want[i].Size != l.Size) {
			t.Errorf("line %d: sizes %d and %d", i+1, l.Size, want[i].Size)
		}
	}
}
