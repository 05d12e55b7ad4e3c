package spaces

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// blockShift groups comment rowids into blocks of 16 (rid >> blockShift) for comment_blocks:
// a search reads every match of the block where it stops, so a block is small (a term in every
// comment costs the limit and at most 16 more rows), and the table still small: 12,500 rows of a
// few bytes for 200,000 comments (about 350 kB). Blocks of 64 (schema versions 7 to 13) read
// about 13% more pages in the commonest terms' searches (gen-space and gen-longspace, 10k+
// band); a file of those versions that cannot be migrated is still searched right, as a block
// of 64 rows bounds every smaller block it holds.
const blockShift = 4

// blocksSchema is comment_blocks: for each block of comment rowids, the newest position (at_ns)
// of its comments, and the newest of that block and every block below it (upto). A search that
// reads a full-text index's matches newest rowid first (newestMatches) can stop as soon as the
// matches it kept are all newer than upto of the block it reached: no match left to read can be
// newer. Comments arrive roughly in time order, so rowid order is nearly date order and a rare
// term's search reads about as many matches as it returns, where sorting every match by date
// read each one's row first. max_at is never lowered (a comment moved to an older time leaves
// it high), which keeps it an upper bound; it is exact after a rebuild.
const blocksSchema = `CREATE TABLE comment_blocks (
		block  INTEGER PRIMARY KEY,
		max_at INTEGER NOT NULL,
		upto   INTEGER NOT NULL
	);`

// blockOf is the SQL for the block of the rowid expr.
func blockOf(expr string) string { return "(" + expr + " >> " + strconv.Itoa(blockShift) + ")" }

// rebuildBlocks fills comment_blocks from the comments, through the covering (space, at_ns)
// index rather than the rows: a migration and a first (bulk) import build it this way.
func rebuildBlocks() string {
	return `DELETE FROM comment_blocks;
	INSERT INTO comment_blocks(block, max_at, upto)
		SELECT b, m, max(m) OVER (ORDER BY b) FROM
			(SELECT ` + blockOf("rid") + ` AS b, max(at_ns) AS m FROM comments INDEXED BY comments_space_at GROUP BY 1);`
}

// blockChanges collects the newest position written to each block in one transaction.
type blockChanges map[int64]int64

// note records that comment rid was written with position atNS.
func (b *blockChanges) note(rid, atNS int64) {
	if *b == nil {
		*b = blockChanges{}
	}
	k := rid >> blockShift
	if old, ok := (*b)[k]; !ok || atNS > old {
		(*b)[k] = atNS
	}
}

// flush raises the blocks' max_at to what was written and recomputes upto, inside tx.
func (b *blockChanges) flush(ctx context.Context, tx execer) error {
	if len(*b) == 0 {
		return nil
	}
	pairs := make([][2]int64, 0, len(*b))
	for k, v := range *b {
		pairs = append(pairs, [2]int64{k, v})
	}
	slices.SortFunc(pairs, func(x, y [2]int64) int { return cmp.Compare(x[0], y[0]) })
	doc, err := json.Marshal(pairs)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO comment_blocks(block, max_at, upto)
		SELECT j.value ->> 0, j.value ->> 1, j.value ->> 1 FROM json_each(?) j WHERE true
		ON CONFLICT(block) DO UPDATE SET max_at = max(max_at, excluded.max_at)`, string(doc)); err != nil {
		return err
	}
	// upto of every block at or above the lowest one changed: a running maximum from there,
	// started at the upto of the block below it (an append changes only the newest blocks)
	if _, err := tx.ExecContext(ctx, `UPDATE comment_blocks SET upto = w.u FROM
		(SELECT block AS b, max(max(max_at) OVER (ORDER BY block),
			coalesce((SELECT upto FROM comment_blocks WHERE block < ?1 ORDER BY block DESC LIMIT 1), max_at)) AS u
			FROM comment_blocks WHERE block >= ?1) w
		WHERE w.b = comment_blocks.block AND comment_blocks.upto <> w.u`, pairs[0][0]); err != nil {
		return err
	}
	*b = nil
	return nil
}

// defaultStreamMax is how many index matches newestMatches reads before it leaves the query to
// the other plans (Store.streamMax; tests change it): matches out of date order, or of other
// spaces, or failing the filters, can make the stream long, and the other plans bound that work.
const defaultStreamMax = 300

// defaultFirstStreamMax is how many trigram candidates a query of long and short terms reads
// before it weighs the matches found among them (Store.firstStreamMax; tests change it).
const defaultFirstStreamMax = 24

// stream is where a read of an index source's matches newest rowid first (newestMatches) stands:
// the rows kept so far, newest first, the rowid below which the next read resumes (0: from the
// newest), and how many matches were read.
type stream struct {
	kept  []hitRow
	below int64
	read  int
	top   int64 // the rowid of the first match read
}

// streamColumns are the columns keepNewest reads of each candidate, rid its rowid: whether it
// passes the plan's tests, the newest position of its block of rowids, the rowid, and the
// hit's columns. The display text, the longest column, is read only from rows that pass (most
// candidates of a term whose trigrams are all common fail): the tests are written twice, and a
// failing row's second test stops at the first condition it fails, where reading the text
// would copy it out of its pages, often overflow pages, into the program.
func (p *queryPlan) streamColumns(rid string) string {
	test := strings.Join(p.where, " AND ")
	return `CASE WHEN ` + test + ` THEN 1 ELSE 0 END,
		COALESCE((SELECT upto FROM comment_blocks WHERE block <= ` + blockOf(rid) + ` ORDER BY block DESC LIMIT 1), ` + strconv.FormatInt(math.MinInt64, 10) + `),
		` + rid + `, ` + hitKeyColumns + `, CASE WHEN ` + test + ` THEN COALESCE(c.dtext, '') ELSE '' END`
}

// keepNewest reads candidates newest rowid first (streamColumns), keeping in st the want newest
// that pass, newest first. done: no candidate after the one it stopped at can be newer than all
// kept (comment_blocks); over: max candidates were read in all, and the one it stopped at is
// unread (st.below is where a later read resumes). Neither: the rows ran out.
func (s *Store) keepNewest(rows *sql.Rows, p *queryPlan, want int, st *stream, max int) (done, over bool, err error) {
	if st.kept == nil {
		st.kept = make([]hitRow, 0, want)
	}
	kept := st.kept
	defer func() { st.kept = kept }()
	for rows.Next() {
		var ok int
		var upto, rid int64
		r, err := p.scanHit(rows, &ok, &upto, &rid)
		if err != nil {
			return false, false, s.dbErr(err, "search")
		}
		if st.read > 0 && rid >= st.below {
			return false, false, fmt.Errorf("search: candidate %d read after %d, out of order", rid, st.below)
		}
		if len(kept) == want && kept[want-1].atNS > upto {
			return true, false, nil // this match and every one after it are older than all kept
		}
		if st.read >= max {
			return false, true, nil
		}
		if st.read == 0 {
			st.top = rid
		}
		st.read++
		st.below = rid
		if ok == 0 || (len(kept) == want && !r.newer(&kept[want-1])) {
			continue
		}
		i, _ := slices.BinarySearchFunc(kept, &r, func(k hitRow, r *hitRow) int {
			if k.newer(r) {
				return -1
			}
			return 1
		})
		if len(kept) == want {
			kept = kept[:want-1]
		}
		kept = slices.Insert(kept, i, r)
	}
	return false, false, s.dbErr(rows.Err(), "search")
}

// newestMatches reads the matches of one of the plan's index sources (src) newest rowid first,
// testing each row, and keeps the want newest that pass, newest first; it stops when
// comment_blocks shows that no match left can be newer than all of them. Each match is read with
// the columns of its hit, so the answer needs no other statement. It gives false when more than
// max matches were read in all (st counts them across calls): then st is where it stopped, and a
// later call with a larger max resumes there, or the other plans answer.
func (s *Store) newestMatches(ctx context.Context, tx querier, p *queryPlan, want int, src indexSource, st *stream, max int) ([]hitRow, bool, error) {
	table, match := src.table, src.match
	if max <= 0 || st.read >= max {
		return nil, false, nil
	}
	args := append(slices.Clone(p.args), match)
	resume := ""
	if st.below != 0 {
		args = append(args, st.below)
		resume = ` AND f.rowid < ?` + strconv.Itoa(len(args))
	}
	rows, err := tx.QueryContext(ctx, `SELECT `+p.streamColumns("f.rowid")+`
		FROM `+table+` f CROSS JOIN comments c ON c.rid = f.rowid LEFT JOIN tasks t ON t.id = c.task
		WHERE `+table+` MATCH ?`+strconv.Itoa(len(p.args)+1)+resume+` ORDER BY f.rowid DESC`, args...)
	if err != nil {
		return nil, false, s.dbErr(err, "search")
	}
	defer rows.Close()
	if _, over, err := s.keepNewest(rows, p, want, st, max); err != nil || over {
		if over {
			s.note("stream %s: stopped after %d", table, st.read)
		}
		return nil, false, err
	}
	s.streamed.Add(1)
	s.note("stream %s: %d read", table, st.read)
	if table == "comments_short" {
		s.shortDriven.Add(1)
	}
	return st.kept, true, nil
}
