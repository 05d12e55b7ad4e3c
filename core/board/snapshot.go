package board

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"path/filepath"
	"runtime"
	"unsafe"

	"github.com/cairn-dev/cairn/core/workspace"
)

// The snapshot is derived data, never a source of truth: a compact binary image of a built Index
// in .cairn/board.snapshot, so a fresh process skips SQLite row scans, JSON decoding and folding.
// Layout: magic, format version, the Stamp it was built from, a CRC-32C of the body, the body.
// A snapshot with another stamp, version or checksum is ignored and rebuilt.
const (
	snapshotName  = "board.snapshot"
	snapshotMagic = "CAIRNBS\x00"
	// snapshotVersion 3: the texts are redacted (redaction.go); an earlier build's snapshot, which
	// may hold secrets, is never read.
	snapshotVersion = 3
	stampBytes      = 8 + 4*(1+8+8+8+8)
	headerBytes     = len(snapshotMagic) + 4 + stampBytes + 4 + 8
)

var errSnapshot = errors.New("snapshot unusable")

func snapshotPath(ws *workspace.Workspace) (string, error) {
	dir, err := ws.StateDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, snapshotName), nil
}

// fieldTablePad is how many zero bytes precede the field table that would start at body offset
// off, so that the table is 8-byte aligned in the file (and in memory, where the file is mapped
// page-aligned or read into a large allocation) and can be used in place.
func fieldTablePad(off int) int { return (8 - (headerBytes+off)%8) % 8 }

// fieldsInPlace reports whether the field records in raw can be used as []field without copying:
// the struct has exactly the record layout, the machine is little-endian and raw is aligned.
func fieldsInPlace(raw string) bool {
	var f field
	return unsafe.Sizeof(f) == fieldRecordBytes && unsafe.Alignof(f) == 8 &&
		unsafe.Offsetof(f.start) == 8 && unsafe.Offsetof(f.refEnd) == 40 && unsafe.Offsetof(f.source) == 44 && unsafe.Offsetof(f.status) == 47 &&
		binary.NativeEndian.Uint16([]byte{1, 0}) == 1 &&
		uintptr(unsafe.Pointer(unsafe.StringData(raw)))%8 == 0
}

// enc appends the snapshot's primitive values.
type enc struct{ b []byte }

func (e *enc) uv(v uint64)  { e.b = binary.AppendUvarint(e.b, v) }
func (e *enc) iv(v int64)   { e.b = binary.AppendVarint(e.b, v) }
func (e *enc) str(s string) { e.uv(uint64(len(s))); e.b = append(e.b, s...) }
func (e *enc) u64(v uint64) { e.b = binary.LittleEndian.AppendUint64(e.b, v) }
func (e *enc) flag(v bool)  { e.b = append(e.b, boolByte(v)) }
func (e *enc) strs(s []string) {
	e.uv(uint64(len(s)))
	for _, x := range s {
		e.str(x)
	}
}

func boolByte(v bool) byte {
	if v {
		return 1
	}
	return 0
}

func (e *enc) stamp(s Stamp) {
	e.u64(uint64(s.Revision))
	for _, f := range []FileStamp{s.DB, s.WAL, s.Summaries, s.Memory} {
		e.flag(f.Exists)
		e.u64(uint64(f.Size))
		e.u64(uint64(f.ModNano))
		e.u64(f.Dev)
		e.u64(f.Ino)
	}
}

// encodeSnapshot renders ix into the snapshot format.
func encodeSnapshot(ix *Index) []byte {
	body := enc{b: make([]byte, 0, len(ix.blob)+len(ix.origs)+len(ix.refs)+8*len(ix.shifts)+len(ix.fields)*fieldRecordBytes+1<<16)}
	body.flag(ix.partial.summaries)
	body.flag(ix.partial.memory)
	for _, n := range ix.freq {
		body.b = binary.LittleEndian.AppendUint32(body.b, n)
	}
	body.str(ix.blob)
	body.str(ix.origs)
	body.str(ix.refs)
	body.uv(uint64(len(ix.shifts)))
	for _, sh := range ix.shifts {
		body.b = binary.LittleEndian.AppendUint32(body.b, uint32(sh.orig))
		body.b = binary.LittleEndian.AppendUint32(body.b, uint32(sh.folded))
	}
	body.uv(uint64(len(ix.projects)))
	for _, p := range ix.projects {
		body.str(p.id)
		body.str(p.title)
		body.flag(p.archived)
		body.flag(p.memory)
		for _, v := range []int32{p.cardLo, p.cardHi, p.memLo, p.memHi} {
			body.uv(uint64(v))
		}
	}
	body.uv(uint64(len(ix.cards)))
	for _, c := range ix.cards {
		for _, s := range []string{c.id, c.title, c.status, c.typ, c.workspaceID, c.updatedAt, c.summaryState, c.summaryRecap} {
			body.str(s)
		}
		body.uv(uint64(c.proj))
		body.strs(c.tags)
		body.strs(c.foldedTags)
		body.flag(c.archived)
		body.flag(c.hasSummary)
		body.iv(c.updated)
		body.uv(uint64(c.fieldLo))
		body.uv(uint64(c.fieldHi))
	}
	body.uv(uint64(len(ix.memory)))
	for _, m := range ix.memory {
		body.str(m.id)
		body.str(m.kind)
		body.str(m.title)
		body.uv(uint64(m.proj))
		body.strs(m.foldedTags)
		body.iv(m.confirmed)
		body.uv(uint64(m.fieldLo))
		body.uv(uint64(m.fieldHi))
	}
	body.uv(uint64(len(ix.fields)))
	for pad := fieldTablePad(len(body.b)); pad > 0; pad-- {
		body.b = append(body.b, 0)
	}
	for _, f := range ix.fields {
		body.b = binary.LittleEndian.AppendUint64(body.b, uint64(f.at))
		for _, v := range [...]int32{f.start, f.end, f.ostart, f.oend, f.shift, f.nshift, f.owner, f.refStart, f.refEnd} {
			body.b = binary.LittleEndian.AppendUint32(body.b, uint32(v))
		}
		body.b = append(body.b, f.source, f.name, f.weight, f.status)
	}
	head := enc{b: make([]byte, 0, headerBytes+len(body.b))}
	head.b = append(head.b, snapshotMagic...)
	head.b = binary.LittleEndian.AppendUint32(head.b, snapshotVersion)
	head.stamp(ix.stamp)
	head.b = binary.LittleEndian.AppendUint32(head.b, crc32.Checksum(body.b, crc32.MakeTable(crc32.Castagnoli)))
	head.u64(uint64(len(body.b)))
	return append(head.b, body.b...)
}

// writeSnapshot saves ix atomically, so a reader never sees a torn snapshot.
func writeSnapshot(path string, ix *Index) error {
	return workspace.WriteFileAtomic(path, encodeSnapshot(ix), 0o644)
}

// dec reads the snapshot format; any read past the end marks it bad instead of panicking.
type dec struct {
	s   string // the whole body, aliasing the file's bytes
	i   int
	bad bool
}

// fixed returns the next n bytes, for fixed-width records.
func (d *dec) fixed(n int) string {
	if d.bad || n < 0 || n > len(d.s)-d.i {
		d.bad = true
		return ""
	}
	s := d.s[d.i : d.i+n]
	d.i += n
	return s
}

func le32(s string, i int) uint32 {
	return uint32(s[i]) | uint32(s[i+1])<<8 | uint32(s[i+2])<<16 | uint32(s[i+3])<<24
}

func le64(s string, i int) uint64 { return uint64(le32(s, i)) | uint64(le32(s, i+4))<<32 }

func (d *dec) uv() uint64 {
	if d.bad {
		return 0
	}
	v, n := uvarintString(d.s[d.i:])
	if n <= 0 {
		d.bad = true
		return 0
	}
	d.i += n
	return v
}

func (d *dec) iv() int64 {
	u := d.uv()
	v := int64(u >> 1)
	if u&1 != 0 {
		v = ^v
	}
	return v
}

// n reads a count or offset that must fit in an int32 and be at most max.
func (d *dec) n(max int) int {
	v := d.uv()
	if v > uint64(max) || v > math.MaxInt32 {
		d.bad = true
		return 0
	}
	return int(v)
}

func (d *dec) str() string {
	v := d.uv() // read before measuring what is left: the length itself takes bytes
	if d.bad || v > uint64(len(d.s)-d.i) {
		d.bad = true
		return ""
	}
	n := int(v)
	s := d.s[d.i : d.i+n]
	d.i += n
	return s
}

func (d *dec) byte1() byte {
	if d.bad || d.i >= len(d.s) {
		d.bad = true
		return 0
	}
	b := d.s[d.i]
	d.i++
	return b
}

func (d *dec) flag() bool { return d.byte1() == 1 }

// count reads a number of records of at least minBytes each that must fit in what is left, so a
// damaged count cannot make the decoder allocate more than the file holds.
func (d *dec) count(minBytes int) int {
	v := d.uv()
	if d.bad || v > uint64((len(d.s)-d.i)/minBytes) {
		d.bad = true
		return 0
	}
	return int(v)
}

func (d *dec) strs() []string {
	n := d.count(1)
	if d.bad || n == 0 {
		return nil
	}
	out := make([]string, n)
	for k := range out {
		out[k] = d.str()
	}
	return out
}

func uvarintString(s string) (uint64, int) {
	var x uint64
	var shift uint
	for i := 0; i < len(s) && i < binary.MaxVarintLen64; i++ {
		b := s[i]
		if b < 0x80 {
			return x | uint64(b)<<shift, i + 1
		}
		x |= uint64(b&0x7f) << shift
		shift += 7
	}
	return 0, 0
}

// readSnapshot returns the index saved at path when it was built from exactly stamp. The index
// aliases the file's bytes (mapped where the platform allows), which are released only when the
// index is garbage; results copy every string they take from it.
func readSnapshot(path string, stamp Stamp) (*Index, error) {
	data, release, err := readWhole(path)
	if err != nil {
		return nil, err
	}
	ix, err := decodeMapped(data, stamp)
	if err != nil {
		release()
		return nil, err
	}
	runtime.AddCleanup(ix, func(release func()) { release() }, release)
	return ix, nil
}

// decodeSnapshot checks and decodes a snapshot; snap is data's address range, which the checksum
// goroutine guards as decodeMapped guards the caller (see fault.go).
func decodeSnapshot(data []byte, stamp Stamp, snap mapRange) (*Index, error) {
	if len(data) < headerBytes || string(data[:len(snapshotMagic)]) != snapshotMagic {
		return nil, errSnapshot
	}
	p := len(snapshotMagic)
	if binary.LittleEndian.Uint32(data[p:]) != snapshotVersion {
		return nil, errSnapshot
	}
	p += 4
	want := enc{}
	want.stamp(stamp)
	if string(data[p:p+stampBytes]) != string(want.b) {
		return nil, errSnapshot
	}
	p += stampBytes
	sum := binary.LittleEndian.Uint32(data[p:])
	size := binary.LittleEndian.Uint64(data[p+4:])
	body := data[headerBytes:]
	if uint64(len(body)) != size {
		return nil, errSnapshot
	}
	// The checksum runs on another core while the body is decoded; a mismatch discards both.
	type checksum struct {
		sum   uint32
		fault any
	}
	crc := make(chan checksum, 1)
	go func() {
		var c checksum
		c.fault = faultGuard(snap, func() { c.sum = crc32.Checksum(body, crc32.MakeTable(crc32.Castagnoli)) })
		crc <- c
	}()
	ix, err := decodeBody(unsafe.String(unsafe.SliceData(body), len(body)))
	c := <-crc
	if c.fault != nil {
		panic(c.fault) // raised again here, where decodeMapped's guard turns it into an error
	}
	if c.sum != sum {
		return nil, errSnapshot
	}
	if err != nil {
		return nil, err
	}
	ix.stamp = stamp
	return ix, nil
}

// decodeBody rebuilds an Index from a snapshot body; strings alias s, which is never modified.
func decodeBody(s string) (*Index, error) {
	d := &dec{s: s}
	ix := &Index{}
	ix.partial.summaries = d.flag()
	ix.partial.memory = d.flag()
	if fr := d.fixed(256 * 4); !d.bad {
		for k := range ix.freq {
			ix.freq[k] = le32(fr, 4*k)
		}
	}
	ix.blob = d.str()
	ix.origs = d.str()
	ix.refs = d.str()
	if n := d.count(8); !d.bad {
		raw := d.fixed(8 * n)
		ix.shifts = make([]shift, n)
		for k := range ix.shifts {
			ix.shifts[k] = shift{orig: int32(le32(raw, 8*k)), folded: int32(le32(raw, 8*k+4))}
		}
	}
	np := d.count(4)
	ix.projects = make([]project, 0, np)
	ix.projByID = make(map[string]int32, np)
	for k := 0; k < np && !d.bad; k++ {
		p := project{id: d.str(), title: d.str(), archived: d.flag(), memory: d.flag()}
		p.cardLo, p.cardHi, p.memLo, p.memHi = int32(d.n(len(s))), int32(d.n(len(s))), int32(d.n(len(s))), int32(d.n(len(s)))
		ix.projByID[p.id] = int32(k)
		ix.projects = append(ix.projects, p)
	}
	nc := d.count(16)
	ix.cards = make([]card, 0, nc)
	ix.cardByID = make(map[string]int32, nc)
	for k := 0; k < nc && !d.bad; k++ {
		c := card{id: d.str(), title: d.str(), status: d.str(), typ: d.str(), workspaceID: d.str(), updatedAt: d.str(), summaryState: d.str(), summaryRecap: d.str()}
		c.proj = int32(d.n(np))
		c.tags = d.strs()
		c.foldedTags = d.strs()
		c.archived = d.flag()
		c.class = statusClass(c.archived, c.status)
		c.hasSummary = d.flag()
		c.updated = d.iv()
		c.fieldLo, c.fieldHi = int32(d.n(len(s))), int32(d.n(len(s)))
		ix.cardByID[c.id] = int32(k)
		ix.cards = append(ix.cards, c)
	}
	nm := d.count(8)
	ix.memory = make([]memEntry, 0, nm)
	for k := 0; k < nm && !d.bad; k++ {
		m := memEntry{id: d.str(), kind: d.str(), title: d.str()}
		m.proj = int32(d.n(np))
		m.foldedTags = d.strs()
		m.confirmed = d.iv()
		m.fieldLo, m.fieldHi = int32(d.n(len(s))), int32(d.n(len(s)))
		ix.memory = append(ix.memory, m)
	}
	nf := d.count(fieldRecordBytes)
	d.fixed(fieldTablePad(d.i))
	raw := d.fixed(nf * fieldRecordBytes)
	if !d.bad && nf > 0 && fieldsInPlace(raw) {
		// The records already have the in-memory layout: use them where they lie.
		ix.fields = unsafe.Slice((*field)(unsafe.Pointer(unsafe.StringData(raw))), nf)
	} else if !d.bad {
		ix.fields = make([]field, nf)
		for k := range ix.fields {
			p := k * fieldRecordBytes
			f := &ix.fields[k]
			f.at = int64(le64(raw, p))
			p += 8
			f.start, f.end, f.ostart, f.oend = int32(le32(raw, p)), int32(le32(raw, p+4)), int32(le32(raw, p+8)), int32(le32(raw, p+12))
			f.shift, f.nshift, f.owner = int32(le32(raw, p+16)), int32(le32(raw, p+20)), int32(le32(raw, p+24))
			f.refStart, f.refEnd = int32(le32(raw, p+28)), int32(le32(raw, p+32))
			p += 36
			f.source, f.name, f.weight, f.status = raw[p], raw[p+1], raw[p+2], raw[p+3]
		}
	}
	if d.bad || d.i != len(s) || !ix.consistent() {
		return nil, fmt.Errorf("%w: corrupt body", errSnapshot)
	}
	return ix, nil
}

// consistent checks the cross references a search relies on, so a damaged snapshot that passed
// the checksum still cannot make a search index out of range.
func (ix *Index) consistent() bool {
	nf, nc, nm := int32(len(ix.fields)), int32(len(ix.cards)), int32(len(ix.memory))
	for _, p := range ix.projects {
		if p.cardLo < 0 || p.cardLo > p.cardHi || p.cardHi > nc || p.memLo < 0 || p.memLo > p.memHi || p.memHi > nm {
			return false
		}
	}
	for _, c := range ix.cards {
		if c.fieldLo > c.fieldHi || c.fieldHi > nf {
			return false
		}
	}
	for _, m := range ix.memory {
		if m.fieldLo > m.fieldHi || m.fieldHi > nf {
			return false
		}
	}
	memSource := uint8(sourceIndex(SourceMemory))
	next := int32(0)
	for i := range ix.fields {
		f := &ix.fields[i]
		switch {
		case f.start != next, f.end < f.start, int(f.end) >= len(ix.blob), ix.blob[f.end] != 0:
			return false
		case f.source > memSource, f.name >= numNames, f.status > 3:
			return false
		case f.source == memSource && f.owner >= nm, f.source != memSource && f.owner >= nc, f.owner < 0:
			return false
		case f.refStart < 0 || f.refStart > f.refEnd || int(f.refEnd) > len(ix.refs):
			return false
		case f.ostart >= 0 && (f.ostart > f.oend || int(f.oend) > len(ix.origs)):
			return false
		}
		next = f.end + 1
		if f.shift >= 0 {
			if f.nshift < 0 || int(f.shift)+int(f.nshift) > len(ix.shifts) {
				return false
			}
			limit, prev := int32(len(ix.original(f))), int32(-1)
			for _, sh := range ix.shifts[f.shift : f.shift+f.nshift] {
				if sh.orig <= prev || sh.orig >= limit || sh.folded < 0 || sh.folded > 64 {
					return false
				}
				prev = sh.orig
			}
		}
	}
	return int(next) == len(ix.blob)
}
