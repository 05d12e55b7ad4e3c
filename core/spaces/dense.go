package spaces

import (
	"context"
	"fmt"
	"math/bits"
	"sync"
)

// The dense-token cache: a store that serves many searches (one a Readers cache keeps open, as
// `cairn mcp` and `cairn serve` read) keeps the comments of the common tokens it met as bitmaps
// of rowids, so two terms each in tens of thousands of comments and together in none are
// proven apart by a few thousand word ANDs instead of FTS5 decoding and intersecting both lists
// on every search (gen-space's "too etry": 13 ms, "err read": 6 ms, every time).

// denseCacheMax bounds the bytes of the bitmaps one store keeps; past it the cache starts again.
const denseCacheMax = 16 << 20

// denseCache is the bitmaps of one store, valid for the snapshot they were read in: the
// connection's data_version (which changes when another connection commits) and the largest
// rowid then.
type denseCache struct {
	mu      sync.Mutex
	version int64
	top     int64
	bytes   int
	maps    map[anchorToken][]uint64
}

// has reports whether every token has a bitmap (of some snapshot).
func (c *denseCache) has(toks []anchorToken) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, k := range toks {
		if _, ok := c.maps[k]; !ok {
			return false
		}
	}
	return len(toks) > 0
}

// denseIntersect gives the comments that every token of the query has, from the bitmaps of the
// store's dense-token cache, when they are at most ftsDriveMax: every match is among them. With
// build, a token without a bitmap has one read from its index (every rowid); without, the
// cache must hold every token already. ok is false on a store that keeps no cache, a query of
// fewer than two tokens, or more candidates.
func (s *Store) denseIntersect(ctx context.Context, tx querier, p *queryPlan, build bool) (rids string, n int, ok bool, err error) {
	toks := anchorTokensOf(p)
	c := &s.denseBits
	if !s.keepDense || len(toks) < 2 || !build && !c.has(toks) {
		return "", 0, false, nil
	}
	var version, top int64
	if err := tx.QueryRowContext(ctx, `SELECT (SELECT data_version FROM pragma_data_version), (SELECT COALESCE(max(rid), 0) FROM comments)`).Scan(&version, &top); err != nil {
		return "", 0, false, s.dbErr(err, "search")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.maps == nil || c.version != version || c.top != top {
		c.maps, c.bytes, c.version, c.top = map[anchorToken][]uint64{}, 0, version, top
	}
	maps := make([][]uint64, 0, len(toks))
	for _, k := range toks {
		m, ok := c.maps[k]
		if !ok {
			if !build {
				return "", 0, false, nil
			}
			if m, err = s.readBits(ctx, tx, k, top); err != nil {
				return "", 0, false, err
			}
			if c.bytes += 8 * len(m); c.bytes > denseCacheMax {
				c.maps, c.bytes = map[anchorToken][]uint64{}, 8*len(m)
			}
			c.maps[k] = m
		}
		maps = append(maps, m)
	}
	var out []int64
	for w, x := range maps[0] {
		for _, m := range maps[1:] {
			x &= m[w]
		}
		for ; x != 0; x &= x - 1 {
			if out = append(out, int64(w*64+bits.TrailingZeros64(x))); len(out) > s.ftsDriveMax {
				return "", 0, false, nil
			}
		}
	}
	return candidateList(out)
}

// readBits is a token's comments as a bitmap of rowids up to top, read from its index in one
// statement as a list of decimal rowids.
func (s *Store) readBits(ctx context.Context, tx querier, k anchorToken, top int64) ([]uint64, error) {
	var list []byte
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(group_concat(rowid), '') FROM `+k.table+` WHERE `+k.table+` MATCH ?`, k.match).Scan(&list); err != nil {
		return nil, s.dbErr(err, "search")
	}
	m := make([]uint64, top/64+1)
	r, digits := int64(0), 0
	for i := 0; i <= len(list); i++ {
		if i < len(list) && '0' <= list[i] && list[i] <= '9' {
			r, digits = r*10+int64(list[i]-'0'), digits+1
			continue
		}
		if i < len(list) && list[i] != ',' || digits == 0 && len(list) > 0 || r > top {
			return nil, fmt.Errorf("read the comments of %s %s: not a list of rowids up to %d", k.table, k.match, top)
		}
		if digits > 0 {
			m[r/64] |= 1 << (r % 64)
		}
		r, digits = 0, 0
	}
	return m, nil
}
