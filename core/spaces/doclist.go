package spaces

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// The short-term index's lists of rowids read straight from FTS5's own records, so that the
// tokens of a query common apart and rare together are intersected in Go: FTS5's AND of two
// tokens in 8,000 comments each (gen-space's "rea ック", together in none) decodes both lists in
// SQLite's virtual machine, about 2 ms; the same lists decoded and merged here, newest first,
// cost a tenth of that. Only the shapes this build writes are read (detail=none, segments of
// the main index, tombstones of contentless_delete); anything else (an incremental merge under
// way, a delete marker) gives errDoclistShape, and the search asks FTS5 as before.

// errDoclistShape is a record this reader does not follow: the caller asks FTS5 instead.
var errDoclistShape = errors.New("fts5 record of a shape not read directly")

// Rowids of the %_data records (fts5_index.c: FTS5_STRUCTURE_ROWID, fts5_dri).
const (
	ftsStructureRowid = 10
	ftsSegmentShift   = 37 // segment id << (page bits 31 + height bits 5 + doclist-index bit 1)
	ftsTombstoneBase  = 1 << 16
)

// ftsSegment is one segment of the structure record: its id and leaf pages, and its tombstone
// pages (the rowids deleted from it since it was written).
type ftsSegment struct {
	id, first, last int64
	tombPages       int64
}

// ftsVarint is SQLite's variable-length integer at the start of p and its length; 0 when p
// ends inside it.
func ftsVarint(p []byte) (uint64, int) {
	var v uint64
	for i := 0; i < 8; i++ {
		if i >= len(p) {
			return 0, 0
		}
		v = v<<7 | uint64(p[i]&0x7f)
		if p[i] < 0x80 {
			return v, i + 1
		}
	}
	if len(p) < 9 {
		return 0, 0
	}
	return v<<8 | uint64(p[8]), 9
}

// parseStructure reads the segments of a structure record (both versions of its format).
func parseStructure(p []byte) ([]ftsSegment, error) {
	if len(p) < 4 {
		return nil, errDoclistShape
	}
	i := 4 // the configuration cookie
	v2 := len(p) >= 8 && p[4] == 0xff && p[5] == 0 && p[6] == 0 && p[7] == 1
	if v2 {
		i = 8
	}
	bad := false
	next := func() int64 {
		v, n := ftsVarint(p[i:])
		if n == 0 || v > 1<<62 {
			bad = true
			return 0
		}
		i += n
		return int64(v)
	}
	levels := next()
	next() // segments in all
	next() // the write counter
	var segs []ftsSegment
	for l := int64(0); l < levels && !bad; l++ {
		merging, n := next(), next()
		if merging > 0 {
			return nil, errDoclistShape // an incremental merge under way
		}
		for k := int64(0); k < n && !bad; k++ {
			sg := ftsSegment{id: next(), first: next(), last: next()}
			if v2 {
				next() // origin 1
				next() // origin 2
				sg.tombPages = next()
				next() // tombstone entries
				next() // entries
			}
			segs = append(segs, sg)
		}
		if len(segs) > 64 {
			return nil, errDoclistShape
		}
	}
	if bad {
		return nil, fmt.Errorf("read the short-term index's structure record: %w", errDoclistShape)
	}
	return segs, nil
}

// doclists reads the short-term index's records inside one read transaction.
type doclists struct {
	// ctx runs the reads: the search's, without its end, so that neither database/sql nor the
	// driver sets up a watch of it for each of a search's many short reads (about 30 µs each);
	// stop is the search's, which fill checks at every page
	ctx, stop context.Context
	tx        querier
	known     *ftsStructure // the structure assumed; tokens checks it
	segs      []ftsSegment
	cursors   int // page cursors opened
}

// ftsStructure is a structure record and its segments, as a store remembers the last one it
// read (Store.structure): a search assumes it, and checks it in the statement that finds its
// tokens (findAll), so it reads the record in a statement of its own only when it changed.
type ftsStructure struct {
	rec  []byte
	segs []ftsSegment
}

// readStructure reads and parses the short-term index's structure record.
func readStructure(ctx context.Context, tx querier) (*ftsStructure, error) {
	var rec []byte
	if err := tx.QueryRowContext(ctx, `SELECT block FROM comments_short_data WHERE id = ?`, ftsStructureRowid).Scan(&rec); err != nil {
		return nil, fmt.Errorf("read the short-term index's structure record: %w", err)
	}
	segs, err := parseStructure(rec)
	if err != nil {
		return nil, err
	}
	return &ftsStructure{rec: rec, segs: segs}, nil
}

// openDoclists readies the short-term index's records for reading, assuming the structure
// known (nil: it is read now).
func openDoclists(ctx context.Context, tx querier, known *ftsStructure) (*doclists, error) {
	d := &doclists{ctx: context.WithoutCancel(ctx), stop: ctx, tx: tx, known: known}
	if known == nil {
		var err error
		if d.known, err = readStructure(d.ctx, tx); err != nil {
			return nil, err
		}
	}
	d.segs = d.known.segs
	return d, nil
}

// block is the %_data record id, nil when there is none.
func (d *doclists) block(id int64) ([]byte, error) {
	var b []byte
	err := d.tx.QueryRowContext(d.ctx, `SELECT block FROM comments_short_data WHERE id = ?`, id).Scan(&b)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the short-term index: %w", err)
	}
	return b, nil
}

// tombstones are the rowids deleted from seg since it was written (contentless_delete's hash
// pages: a key size, a flag for rowid 0, a count, then the keys, 0 for an empty slot).
func (d *doclists) tombstones(seg ftsSegment) (map[int64]bool, error) {
	if seg.tombPages == 0 {
		return nil, nil
	}
	out := map[int64]bool{}
	for pg := int64(0); pg < seg.tombPages; pg++ {
		p, err := d.block((seg.id+ftsTombstoneBase)<<ftsSegmentShift + pg)
		if err != nil {
			return nil, err
		}
		if p == nil {
			continue
		}
		if len(p) < 8 || p[0] != 4 && p[0] != 8 {
			return nil, errDoclistShape
		}
		size := int(p[0])
		for off := 8; off+size <= len(p); off += size {
			var k uint64
			if size == 4 {
				k = uint64(binary.BigEndian.Uint32(p[off:]))
			} else {
				k = binary.BigEndian.Uint64(p[off:])
			}
			if k != 0 {
				out[int64(k)] = true
			}
		}
	}
	return out, nil
}

// segDoclist is where one token's list of rowids lies in one segment: from an offset of its
// first page (just after the term) to the last page it reaches, the offset where it ends there.
type segDoclist struct {
	seg                ftsSegment
	firstPg, lastPg    int64
	firstData          []byte // the first page, and its list's bounds in it
	firstOff, firstEnd int
	lastData           []byte // the last page when it is another, read with the first (or nil)
	deleted            map[int64]bool
}

// findSQL reads, in one statement, where each of n terms' lists lies in a segment (?1, its id;
// ?5 and on, the keys): the page where the term is, by the index of each page's first term (?3,
// the segment's first page, when no page's first term is below the key), the next page with a
// term on it (NULL: none), and the blocks of both pages (?4: the segment's first rowid in
// %_data); and the structure record (id ?2), to check the one the search assumed. The index is
// read with (segid, term) as one row value: "segid = ? AND term <= ?" makes SQLite prepare the
// statement again on every run once a row matches (TestSearchStatementsPreparedOnce).
func findSQL(n int) string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = "(" + strconv.Itoa(i) + ", ?" + strconv.Itoa(5+i) + ")"
	}
	return `WITH k(i, key) AS (VALUES ` + strings.Join(keys, ", ") + `),
	at(i, pg, nx) AS (SELECT i,
		COALESCE((SELECT CASE WHEN segid = ?1 THEN max(pgno >> 1, ?3) END FROM comments_short_idx WHERE (segid, term) <= (?1, k.key) ORDER BY segid DESC, term DESC LIMIT 1), ?3),
		(SELECT CASE WHEN segid = ?1 THEN pgno >> 1 END FROM comments_short_idx WHERE (segid, term) > (?1, k.key) ORDER BY segid, term LIMIT 1) FROM k)
	SELECT i, pg, nx, (SELECT block FROM comments_short_data WHERE id = ?4 + pg), (SELECT block FROM comments_short_data WHERE id = ?4 + nx AND nx > pg),
		CASE WHEN i = 0 THEN (SELECT block FROM comments_short_data WHERE id = ?2) END FROM at ORDER BY i`
}

// findAll locates each key's list in seg (nil where the segment has no such term), and gives
// the structure record as it is now.
func (d *doclists) findAll(seg ftsSegment, keys [][]byte) ([]*segDoclist, []byte, error) {
	args := []any{seg.id, int64(ftsStructureRowid), seg.first, seg.id << ftsSegmentShift}
	for _, k := range keys {
		args = append(args, k)
	}
	rows, err := d.tx.QueryContext(d.ctx, findSQL(len(keys)), args...)
	if err != nil {
		return nil, nil, fmt.Errorf("read the short-term index: %w", err)
	}
	defer rows.Close()
	out := make([]*segDoclist, len(keys))
	var rec []byte
	for rows.Next() {
		var i int
		var pg int64
		var next sql.NullInt64
		var p, nextPage, r []byte
		if err := rows.Scan(&i, &pg, &next, &p, &nextPage, &r); err != nil {
			return nil, nil, fmt.Errorf("read the short-term index: %w", err)
		}
		if i == 0 {
			rec = r
		}
		if i < 0 || i >= len(keys) {
			return nil, nil, errDoclistShape
		}
		if out[i], err = locate(seg, keys[i], pg, next, p, nextPage); err != nil {
			return nil, nil, err
		}
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("read the short-term index: %w", err)
	}
	return out, rec, nil
}

// locate finds key's list on leaf page pg (p) of seg, the next page with a term being next
// (nextPage); nil when the segment has no such term.
func locate(seg ftsSegment, key []byte, pg int64, next sql.NullInt64, p, nextPage []byte) (*segDoclist, error) {
	if pg > seg.last || p == nil {
		return nil, nil
	}
	if len(p) < 4 || int(binary.BigEndian.Uint16(p[2:4])) > len(p) {
		return nil, errDoclistShape
	}
	size := int(binary.BigEndian.Uint16(p[2:4]))
	// the page's terms, from its footer: each one's offset, delta-encoded
	var offs []int
	for i, off := size, 0; i < len(p); {
		v, n := ftsVarint(p[i:])
		if n == 0 {
			return nil, errDoclistShape
		}
		i += n
		off += int(v)
		if off >= size {
			return nil, errDoclistShape
		}
		offs = append(offs, off)
	}
	var term []byte
	for k, off := range offs {
		if k == 0 {
			n, w := ftsVarint(p[off:])
			if w == 0 || off+w+int(n) > size {
				return nil, errDoclistShape
			}
			term = append(term[:0], p[off+w:off+w+int(n)]...)
			off += w + int(n)
		} else {
			keep, w := ftsVarint(p[off:])
			if w == 0 || int(keep) > len(term) {
				return nil, errDoclistShape
			}
			off += w
			n, w := ftsVarint(p[off:])
			if w == 0 || off+w+int(n) > size {
				return nil, errDoclistShape
			}
			term = append(term[:keep], p[off+w:off+w+int(n)]...)
			off += w + int(n)
		}
		switch c := slices.Compare(term, key); {
		case c < 0:
			continue
		case c > 0:
			return nil, nil
		}
		dl := &segDoclist{seg: seg, firstPg: pg, lastPg: pg, firstData: p, firstOff: off, firstEnd: size}
		if k+1 < len(offs) {
			dl.firstEnd = offs[k+1]
			return dl, nil
		}
		// the last term of its page: the list runs on to the page before the next page with a
		// term (the index's next entry), or to the segment's end, and into that page up to its
		// first term
		dl.lastPg = seg.last
		if next.Valid {
			dl.lastPg = min(next.Int64, seg.last)
			if dl.lastPg > pg && nextPage != nil {
				dl.lastData = nextPage
			}
		}
		return dl, nil
	}
	return nil, nil
}

// pageRowids appends the rowids of the list on leaf page p (ascending) to out: the list's first
// page when first, where it starts at the term.
func (d *doclists) pageRowids(dl *segDoclist, p []byte, first bool, out []int64) ([]int64, error) {
	from, to := dl.firstOff, dl.firstEnd
	if !first {
		if len(p) < 4 || int(binary.BigEndian.Uint16(p[2:4])) > len(p) {
			return nil, errDoclistShape
		}
		from, to = int(binary.BigEndian.Uint16(p[0:2])), int(binary.BigEndian.Uint16(p[2:4]))
		if to < len(p) { // a term on the page: the list ends where the first one starts
			v, n := ftsVarint(p[to:])
			if n == 0 {
				return nil, errDoclistShape
			}
			to = int(v)
		}
		if from == 0 {
			return out, nil // no rowid of the list on this page
		}
		if from < 4 || from > to {
			return nil, errDoclistShape
		}
	}
	if from > to || to > len(p) {
		return nil, errDoclistShape
	}
	p = p[:to]
	v, n := ftsVarint(p[from:])
	if n == 0 || v == 0 || v >= 1<<62 {
		return nil, errDoclistShape
	}
	rowid := int64(v)
	out = append(out, rowid)
	for i := from + n; i < len(p); {
		if c := p[i]; c > 0 && c < 0x80 { // a delta of one byte, most of a common token's
			rowid += int64(c)
			i++
		} else {
			v, n := ftsVarint(p[i:])
			if n == 0 || v == 0 || v >= 1<<62 || rowid+int64(v) >= 1<<62 {
				return nil, errDoclistShape // cut, a delete marker, or no rowid
			}
			rowid += int64(v)
			i += n
		}
		out = append(out, rowid)
	}
	if dl.deleted != nil {
		out = slices.DeleteFunc(out, func(r int64) bool { return dl.deleted[r] })
	}
	return out, nil
}

// descIter gives one token's rowids newest (largest) first, page by page from the last, across
// the segments that hold it; close releases its cursors.
type descIter struct {
	d     *doclists
	lists []*segDoclist
	next  []int64     // each list's next page to read, going down
	pages []*sql.Rows // each list's pages between its first and last, last first, once needed
	buf   [][]int64   // each list's rowids read and not passed yet, ascending
	cur   int64       // the rowid seek found
	err   error
}

// tokens opens the newest-first iterators of the tokens' rowids (each empty when no segment
// has its token), with one statement for each segment; when the structure record is not the
// one assumed, it is read again, and so are the tokens.
func (d *doclists) tokens(toks []string) ([]*descIter, error) {
	keys := make([][]byte, len(toks))
	for i, t := range toks {
		keys[i] = append([]byte{'0'}, t...) // the main index's keys start with '0'
	}
	for attempt := 0; attempt < 2; attempt++ {
		its, rec, err := d.tryTokens(keys)
		if err != nil {
			return nil, err
		}
		if len(d.segs) > 0 && bytes.Equal(rec, d.known.rec) {
			return its, nil
		}
		closeIters(its)
		// no segment to check the record with, or another record: read it, and the tokens again
		known, err := readStructure(d.ctx, d.tx)
		if err != nil {
			return nil, err
		}
		d.known, d.segs = known, known.segs
		if len(d.segs) == 0 {
			return emptyIters(d, len(toks)), nil
		}
	}
	return nil, errDoclistShape // (the record does not change inside a read transaction)
}

// emptyIters are n iterators of no rowid.
func emptyIters(d *doclists, n int) []*descIter {
	its := make([]*descIter, n)
	for i := range its {
		its[i] = &descIter{d: d}
	}
	return its
}

// closeIters closes every iterator of its.
func closeIters(its []*descIter) {
	for _, it := range its {
		it.close()
	}
}

// tryTokens opens the iterators of keys on the segments assumed, and gives the structure
// record read with the first segment's (when it is not the one assumed, the others are not read).
func (d *doclists) tryTokens(keys [][]byte) ([]*descIter, []byte, error) {
	its := emptyIters(d, len(keys))
	var rec []byte
	for si, seg := range d.segs {
		dls, r, err := d.findAll(seg, keys)
		if err == nil && si == 0 {
			if rec = r; !bytes.Equal(rec, d.known.rec) {
				return its, rec, nil
			}
		}
		var deleted map[int64]bool
		if err == nil {
			deleted, err = d.tombstones(seg)
		}
		if err != nil {
			closeIters(its)
			return nil, nil, err
		}
		for i, dl := range dls {
			if dl == nil {
				continue
			}
			dl.deleted = deleted
			it := its[i]
			it.lists = append(it.lists, dl)
			it.next = append(it.next, dl.lastPg)
			it.pages = append(it.pages, nil)
			it.buf = append(it.buf, nil)
		}
	}
	return its, rec, nil
}

// page is list k's next page down and whether it is the list's first; nil when none is left.
// The first and the last come with find; the cursor over the pages between is opened when a
// search needs one of them (most of a common token's searches do not).
func (it *descIter) page(k int) ([]byte, bool, error) {
	dl, pg := it.lists[k], it.next[k]
	switch {
	case pg < dl.firstPg:
		return nil, false, nil
	case pg == dl.firstPg:
		it.next[k]--
		return dl.firstData, true, nil
	case pg == dl.lastPg && dl.lastData != nil:
		it.next[k]--
		return dl.lastData, false, nil
	}
	rows := it.pages[k]
	if rows == nil {
		// a text of its own for each cursor open at once: a connection's cached statement
		// serves one reader at a time, and a second cursor of the same text is prepared anew
		base := dl.seg.id << ftsSegmentShift
		it.d.cursors++
		var err error
		rows, err = it.d.tx.QueryContext(it.d.ctx, `SELECT id, block FROM comments_short_data WHERE id BETWEEN ? AND ? ORDER BY id DESC -- `+strconv.Itoa(it.d.cursors), base+dl.firstPg+1, base+pg)
		if err != nil {
			return nil, false, fmt.Errorf("read the short-term index: %w", err)
		}
		it.pages[k] = rows
	}
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return nil, false, fmt.Errorf("read the short-term index: %w", err)
		}
		it.next[k] = dl.firstPg // (no page between is left)
		return it.page(k)
	}
	var id int64
	var p sql.RawBytes // valid until the next page: decoded before it
	if err := rows.Scan(&id, &p); err != nil {
		return nil, false, fmt.Errorf("read the short-term index: %w", err)
	}
	it.next[k] = id - dl.seg.id<<ftsSegmentShift - 1
	return p, false, nil
}

// pageCount is how many leaf pages the token's lists span: about how long they are.
func (it *descIter) pageCount() int64 {
	n := int64(0)
	for _, dl := range it.lists {
		n += dl.lastPg - dl.firstPg + 1
	}
	return n
}

// pageBuf is a page's worth of rowids, kept between searches (pageBufs): a page of a common
// token holds about 4,000, and a search reads a page or more of each of its tokens.
type pageBuf struct{ b []int64 }

var pageBufs = sync.Pool{New: func() any { return &pageBuf{make([]int64, 0, 4096)} }}

// close releases the iterator's cursors and buffers.
func (it *descIter) close() {
	for k, b := range it.buf {
		if cap(b) >= 4096 && len(it.lists) == 1 {
			pageBufs.Put(&pageBuf{b[:0]})
		}
		it.buf[k] = nil
	}
	for _, r := range it.pages {
		if r != nil {
			r.Close()
		}
	}
}

// fill reads list k's pages down until it has a rowid not passed, or none is left; a page
// whose first rowid is above at is passed without decoding it (the page writes that one whole).
func (it *descIter) fill(k int, at int64) bool {
	for len(it.buf[k]) == 0 {
		if err := it.d.stop.Err(); err != nil {
			it.err = err
			return false
		}
		p, first, err := it.page(k)
		if err == nil && p == nil {
			return false
		}
		if !first && len(p) >= 4 {
			if off := int(binary.BigEndian.Uint16(p[0:2])); off >= 4 && off < len(p) {
				if v, n := ftsVarint(p[off:]); n > 0 && v < 1<<62 && int64(v) > at {
					continue
				}
			}
		}
		if cap(it.buf[k]) < len(p) { // (a rowid takes a byte at least)
			it.buf[k] = pageBufs.Get().(*pageBuf).b[:0]
			if cap(it.buf[k]) < len(p) {
				it.buf[k] = make([]int64, 0, len(p))
			}
		}
		var b []int64
		if err == nil {
			b, err = it.d.pageRowids(it.lists[k], p, first, it.buf[k][:0])
		}
		if err != nil {
			it.err = err
			return false
		}
		it.buf[k] = b
	}
	return true
}

// take hands over the rowids seek left not above cur, ascending, as one page (with the token in
// several segments, the union of everything left of its lists), and the index of cur in it.
func (it *descIter) take() ([]int64, int) {
	if len(it.lists) == 1 {
		// the caller walks b until it seeks again, which reads the next page into the same array
		b := it.buf[0]
		it.buf[0] = b[:0]
		return b, len(b) - 1
	}
	// every list read to its end: one list's next page can hold rowids above another's
	// current one, so only the whole union is in order
	var b []int64
	for k := range it.buf {
		for it.fill(k, math.MaxInt64) {
			b = append(b, it.buf[k]...)
			it.buf[k] = nil
		}
	}
	slices.Sort(b)
	b = slices.Compact(b)
	return b, len(b) - 1
}

// seek finds the largest rowid not above at (cur), passing every larger one for good, and
// reports whether there is one; a later seek's at must not be larger.
func (it *descIter) seek(at int64) bool {
	best := int64(-1)
	for k := range it.lists {
		for it.fill(k, at) {
			b := it.buf[k]
			if b[0] > at {
				it.buf[k] = b[:0] // the whole page is above at
				continue
			}
			j := len(b)
			if b[j-1] > at {
				j, _ = slices.BinarySearch(b, at+1)
			}
			it.buf[k] = b[:j]
			best = max(best, b[j-1])
			break
		}
		if it.err != nil {
			return false
		}
	}
	it.cur = best
	return best >= 0
}

// intersection gives the rowids every iterator holds, newest first, a few at a time (next).
// Each iterator's page of rowids is walked down by index, one step per rowid passed, so a dense
// list costs a few nanoseconds a rowid.
type intersection struct {
	runs []run
	at   int64 // no rowid above it is left to give
	err  error
}

// run is one iterator of an intersection and the page of it being walked down from i.
type run struct {
	it   *descIter
	page []int64 // ascending
	i    int
}

func newIntersection(its []*descIter) *intersection {
	x := &intersection{at: math.MaxInt64}
	for _, it := range its {
		x.runs = append(x.runs, run{it: it, i: -1})
	}
	return x
}

// down moves r to its largest rowid not above at; false when none is left.
func (r *run) down(at int64) bool {
	for {
		if r.i < 0 {
			if !r.it.seek(at) {
				return false
			}
			r.page, r.i = r.it.take()
			if r.it.err != nil {
				return false
			}
		}
		if r.page[0] > at {
			r.i = -1
			continue
		}
		for r.page[r.i] > at {
			r.i--
		}
		return true
	}
}

// next appends up to n more rowids to out, and reports whether the intersection has more left
// (false once it has given them all, or on an error, x.err).
func (x *intersection) next(n int, out []int64) ([]int64, bool) {
	for len(x.runs) > 0 && x.at > 0 {
		moved := false
		for k := range x.runs {
			r := &x.runs[k]
			if !r.down(x.at) {
				x.err, x.at = r.it.err, 0
				return out, false
			}
			if v := r.page[r.i]; v < x.at {
				x.at, moved = v, true
			}
		}
		if moved {
			continue
		}
		if n == 0 {
			return out, true
		}
		out = append(out, x.at)
		n--
		x.at--
	}
	return out, false
}
